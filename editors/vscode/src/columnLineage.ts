// Column lineage for the lineage panel: the answer of thund/lineage, the
// upstream and downstream of a column computed from its edges, and the
// HTML of the column lists (pure functions, unit tested).

import { escapeHtml } from './render';

export interface ColumnID {
  table: string;
  column: string;
}

/** How a column depends on another (thund/lineage's kinds). */
export type DepKind = 'passthrough' | 'expression' | 'aggregate' | 'filter' | 'join';

export interface LineageDep {
  from: ColumnID;
  kind: DepKind;
}

export interface LineageColumn {
  name: string;
  type?: string;
  generated?: boolean;
  uri?: string;
  line?: number;
  deps: LineageDep[];
}

export interface LineageTable {
  /** The node's id in thund/graph (source:NAME for a source). */
  id: string;
  name: string;
  kind: string;
  complete: boolean;
  reason?: string;
  columns: LineageColumn[];
}

export interface LineageEdge {
  from: ColumnID;
  to: ColumnID;
  kind: DepKind;
}

export interface LineageResult {
  pipeline: string;
  tables: LineageTable[];
  edges: LineageEdge[];
}

/** The message that brings the column graph to the lineage webview. */
export type ColumnsInbound = { type: 'columns'; result: LineageResult };

/** A column's key: table and column, compared case-insensitively as Spark does. */
export function columnKey(id: ColumnID): string {
  return `${id.table.toLowerCase()}\u0000${id.column.toLowerCase()}`;
}

/** The graph node id of the table holding a column. */
export function tableIdOf(result: LineageResult, table: string): string | undefined {
  const t = result.tables.find((x) => x.name.toLowerCase() === table.toLowerCase());
  return t?.id;
}

/**
 * Every column upstream ('up': what the column is computed from, through
 * every dataset) or downstream ('down': what is computed from it) of id,
 * with the kind of the first step that reached it; id itself is not in it.
 */
export function columnCone(result: LineageResult, id: ColumnID, dir: 'up' | 'down'): Map<string, { id: ColumnID; kind: DepKind }> {
  const next = new Map<string, LineageEdge[]>();
  for (const e of result.edges) {
    const k = columnKey(dir === 'up' ? e.to : e.from);
    if (!next.has(k)) next.set(k, []);
    next.get(k)!.push(e);
  }
  const out = new Map<string, { id: ColumnID; kind: DepKind }>();
  const start = columnKey(id);
  const stack = [start];
  const seen = new Set([start]);
  while (stack.length) {
    const k = stack.pop()!;
    for (const e of next.get(k) ?? []) {
      const other = dir === 'up' ? e.from : e.to;
      const ok = columnKey(other);
      if (seen.has(ok)) continue;
      seen.add(ok);
      out.set(ok, { id: other, kind: e.kind });
      stack.push(ok);
    }
  }
  return out;
}

/** What the panel shows of the columns: the tables expanded and the focused column. */
export interface ColumnView {
  expanded: Set<string>;
  focus?: ColumnID;
}

/** The graph node ids to highlight for a focused column: its own table, and those upstream and downstream. */
export function tableHighlights(result: LineageResult, focus: ColumnID | undefined): Record<string, 'focus' | 'upstream' | 'downstream'> {
  const out: Record<string, 'focus' | 'upstream' | 'downstream'> = {};
  if (!focus) return out;
  for (const [dir, cls] of [
    ['up', 'upstream'],
    ['down', 'downstream'],
  ] as const) {
    for (const { id } of columnCone(result, focus, dir).values()) {
      const t = tableIdOf(result, id.table);
      if (t && !out[t]) out[t] = cls;
    }
  }
  const own = tableIdOf(result, focus.table);
  if (own) out[own] = 'focus';
  return out;
}

/**
 * The columns section: one collapsible box per dataset and source (open
 * when expanded or holding a highlighted column), each column with its
 * type; with a focus, the focused column and its upstream and downstream
 * columns are marked, with the kind of dependency.
 */
export function renderColumns(result: LineageResult, view: ColumnView): string {
  const up = view.focus ? columnCone(result, view.focus, 'up') : new Map();
  const down = view.focus ? columnCone(result, view.focus, 'down') : new Map();
  const focusKey = view.focus ? columnKey(view.focus) : '';
  const boxes = result.tables.map((t) => {
    let marked = false;
    const rows = t.columns.map((c) => {
      const k = columnKey({ table: t.name, column: c.name });
      let cls = 'col';
      let note = '';
      if (k === focusKey) {
        cls += ' col-focus';
      } else if (up.has(k)) {
        cls += ' col-upstream';
        note = `upstream \u00b7 ${up.get(k)!.kind}`;
      } else if (down.has(k)) {
        cls += ' col-downstream';
        note = `downstream \u00b7 ${down.get(k)!.kind}`;
      }
      if (cls !== 'col') marked = true;
      return (
        `<li class="${cls}" data-table="${escapeHtml(t.name)}" data-column="${escapeHtml(c.name)}" tabindex="0" role="button">` +
        `<span class="col-name">${escapeHtml(c.name)}</span>` +
        (c.type ? ` <span class="col-type muted">${escapeHtml(c.type)}</span>` : '') +
        (note ? ` <span class="col-note">${escapeHtml(note)}</span>` : '') +
        (c.uri ? ` <a class="col-open" data-uri="${escapeHtml(c.uri)}" data-line="${c.line ?? 0}" title="Open the expression computing it">\u2197</a>` : '') +
        `</li>`
      );
    });
    const open = view.expanded.has(t.id) || marked;
    const empty = t.columns.length === 0 ? `<li class="muted">Columns not known${t.reason ? `: ${escapeHtml(t.reason)}` : ''}</li>` : '';
    return (
      `<details class="table-cols" data-table-id="${escapeHtml(t.id)}"${open ? ' open' : ''}>` +
      `<summary><strong>${escapeHtml(t.name)}</strong> <span class="muted">${escapeHtml(t.kind.replace(/_/g, ' '))} \u00b7 ${t.columns.length} column${t.columns.length === 1 ? '' : 's'}</span></summary>` +
      `<ul>${rows.join('')}${empty}</ul></details>`
    );
  });
  const head = view.focus
    ? `<div class="col-focus-line">Column <strong>${escapeHtml(view.focus.table)}.${escapeHtml(view.focus.column)}</strong>: ` +
      `${up.size} upstream, ${down.size} downstream <button data-action="clear-focus">Clear</button></div>`
    : `<div class="muted">Expand a dataset to see its columns; click a column to highlight what it is computed from and what is computed from it.</div>`;
  return `<section class="columns"><h2>Columns</h2>${head}${boxes.join('')}</section>`;
}

/** The styles of the columns section. */
export const COLUMN_CSS = `
.columns { margin-top: 16px; }
.columns h2 { font-size: 1.05em; margin: 8px 0; }
.table-cols { margin: 4px 0; }
.table-cols ul { list-style: none; margin: 2px 0 6px 18px; padding: 0; }
.table-cols li.col { cursor: pointer; padding: 1px 4px; border-radius: 3px; }
.table-cols li.col:hover { background: var(--vscode-list-hoverBackground); }
.col-focus { background: var(--vscode-editor-selectionBackground); font-weight: bold; }
.col-upstream { background: rgba(80, 160, 255, 0.18); }
.col-downstream { background: rgba(255, 170, 60, 0.2); }
.col-note { font-size: 0.85em; opacity: 0.8; }
.col-open { cursor: pointer; text-decoration: none; margin-left: 4px; }
.node.hl-focus .box { stroke-width: 3px; }
.node.hl-upstream .box { stroke: rgb(80, 160, 255); stroke-width: 2.5px; }
.node.hl-downstream .box { stroke: rgb(255, 170, 60); stroke-width: 2.5px; }
`;
