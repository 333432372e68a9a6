// The notebook's shape, from the pipeline graph: one code cell per .sql
// file, in topological order of the datasets they define. A file almost
// always defines one dataset, so this is one cell per dataset; a file that
// defines several (an SDP file with a view and a table) is one cell whose
// output shows each of them, since the cell's source is the whole file.

import type { GraphResult } from './protocol';
import { downstream, topoOrder } from './render';

export interface CellPlan {
  /** The .sql file's URI (as the server gave it). */
  uri: string;
  /** The datasets this file defines, in topological order. */
  datasets: string[];
  /** Their graph ids. */
  ids: string[];
}

export function planCells(graph: GraphResult): CellPlan[] {
  const out: CellPlan[] = [];
  const byUri = new Map<string, CellPlan>();
  for (const n of topoOrder(graph)) {
    if (n.kind === 'source' || !n.uri) continue;
    let c = byUri.get(n.uri);
    if (!c) {
      c = { uri: n.uri, datasets: [], ids: [] };
      byUri.set(n.uri, c);
      out.push(c);
    }
    c.datasets.push(n.name);
    c.ids.push(n.id);
  }
  return out;
}

/**
 * The cells to refresh when a file changed: those defining a dataset
 * downstream of one the file defines (the file's own cell included).
 */
export function cellsToRefresh(graph: GraphResult, plans: CellPlan[], changedUri: string): CellPlan[] {
  const changed = plans.find((p) => p.uri === changedUri);
  if (!changed) return [];
  const down = downstream(graph, changed.ids);
  return plans.filter((p) => p.ids.some((id) => down.has(id)));
}
