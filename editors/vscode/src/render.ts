// Pure rendering: preview tables, expectation results, increments, diffs,
// the lineage graph and notebook outputs, as HTML and SVG strings. Nothing
// here touches vscode or the DOM, so the webview scripts, the notebook
// controller and the unit tests share it.

import type {
  Cell,
  Column,
  Diff,
  Expectation,
  GraphEdge,
  GraphNode,
  GraphResult,
  Increment,
  NodeRun,
  PreviewResult,
  Row,
  RunResult,
  SparkDryRunResult,
} from './protocol';

export type SortDir = 'asc' | 'desc';

export interface SortState {
  column: number;
  dir: SortDir;
}

/** What the preview panel shows: the last page, and how it is viewed. */
export interface PreviewView {
  result: PreviewResult;
  pageSize: number;
  sort?: SortState | null;
  /** The diff to mark; kept from the last refresh while paging. */
  diff?: Diff | null;
  loading?: boolean;
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

const NUMERIC_TYPE =
  /^(TINYINT|SMALLINT|INTEGER|INT|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|REAL|DOUBLE|DECIMAL|NUMERIC|INT[1248]|LONG|SHORT|BYTE)\b/i;

export function isNumericType(type: string): boolean {
  return NUMERIC_TYPE.test(type.trim());
}

export function formatNumber(n: number): string {
  return n.toLocaleString('en-US');
}

const DECIMAL_TYPE = /^(?:DECIMAL|NUMERIC)\s*\(\s*\d+\s*,\s*(\d+)\s*\)/i;

/** The scale of a DECIMAL(p,s) type, or undefined for any other type. */
export function decimalScale(type: string | undefined): number | undefined {
  const m = DECIMAL_TYPE.exec((type ?? '').trim());
  return m ? Number(m[1]) : undefined;
}

const FLOAT_TYPE = /^(?:DOUBLE|FLOAT|REAL)\b/i;

/**
 * A DOUBLE or FLOAT as Spark prints it (Java's Double.toString): the
 * shortest digits, at least one after the point (8.0), and from 10^7 up or
 * below 10^-3 in scientific form with an E (1.0E7, 1.5E-4).
 */
export function javaDouble(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const a = Math.abs(n);
  if (a >= 1e-3 && a < 1e7) {
    const s = String(n);
    return s.includes('.') ? s : s + '.0';
  }
  const [mant, exp] = n.toExponential().split('e');
  return (mant.includes('.') ? mant : mant + '.0') + 'E' + (exp.startsWith('+') ? exp.slice(1) : exp);
}

/**
 * A decimal keeps its scale: thund-lsp sends DECIMAL values as strings
 * ("10.80"), shown as they are; a number (an older server, or a value
 * inside a list) is written with the column's scale.
 */
function withScale(v: Cell | undefined, type: string | undefined): Cell | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v)) return v;
  if (FLOAT_TYPE.test((type ?? '').trim())) return javaDouble(v);
  const scale = decimalScale(type);
  return scale === undefined || scale > 20 ? v : v.toFixed(scale);
}

/** Renders one value as HTML: NULL is marked, distinct from the string 'NULL'. */
export function renderCell(v: Cell | undefined, type?: string): string {
  v = withScale(v, type);
  if (v === null || v === undefined) {
    return '<span class="null" title="NULL">NULL</span>';
  }
  if (typeof v === 'string') {
    if (v === '') {
      return '<span class="empty" title="empty string">\u2205</span>';
    }
    return escapeHtml(v);
  }
  if (typeof v === 'number' || typeof v === 'boolean') {
    return escapeHtml(String(v));
  }
  return `<span class="nested">${escapeHtml(JSON.stringify(v))}</span>`;
}

/** Plain text of a value, for notebook text outputs. */
export function cellText(v: Cell | undefined, type?: string): string {
  v = withScale(v, type);
  if (v === null || v === undefined) {
    return 'NULL';
  }
  if (typeof v === 'string') {
    return v;
  }
  if (typeof v === 'number' || typeof v === 'boolean') {
    return String(v);
  }
  return JSON.stringify(v);
}

function rank(v: Cell | undefined): number {
  if (v === null || v === undefined) return 4;
  if (typeof v === 'boolean') return 0;
  if (typeof v === 'number') return 1;
  if (typeof v === 'string') return 2;
  return 3;
}

/** Compares two values ascending; NULLs compare greater than anything. */
export function compareCells(a: Cell | undefined, b: Cell | undefined, numeric = false): number {
  const ra = rank(a);
  const rb = rank(b);
  if (numeric && typeof a === 'string' && typeof b === 'string') {
    const x = Number(a);
    const y = Number(b);
    if (!Number.isNaN(x) && !Number.isNaN(y) && a.trim() !== '' && b.trim() !== '') {
      return x - y;
    }
  }
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (ra === 4) return 0;
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Returns the order in which to show rows: a stable sort on one column.
 * NULLs go last in both directions.
 */
export function sortOrder(rows: Row[], sort: SortState | null | undefined, columns: Column[] = []): number[] {
  const idx = rows.map((_, i) => i);
  if (!sort) return idx;
  const c = sort.column;
  const numeric = columns[c] ? isNumericType(columns[c].type) : false;
  const sign = sort.dir === 'asc' ? 1 : -1;
  return idx.sort((i, j) => {
    const a = rows[i][c];
    const b = rows[j][c];
    const an = a === null || a === undefined;
    const bn = b === null || b === undefined;
    if (an !== bn) return an ? 1 : -1;
    const d = compareCells(a, b, numeric) * sign;
    return d !== 0 ? d : i - j;
  });
}

/** The next sort state when a column header is clicked: asc, desc, none. */
export function nextSort(cur: SortState | null | undefined, column: number): SortState | null {
  if (!cur || cur.column !== column) return { column, dir: 'asc' };
  if (cur.dir === 'asc') return { column, dir: 'desc' };
  return null;
}

/** A row's identity for diffs, as the server computes it (JSON of the row). */
export function rowKey(row: Row): string {
  return JSON.stringify(row);
}

/**
 * Marks which of a page's rows are among the diff's added rows, counting
 * multiplicity (two equal added rows mark two equal rows at most).
 */
export function markAdded(rows: Row[], added: Row[]): boolean[] {
  const left = new Map<string, number>();
  for (const r of added) {
    const k = rowKey(r);
    left.set(k, (left.get(k) ?? 0) + 1);
  }
  return rows.map((r) => {
    const k = rowKey(r);
    const n = left.get(k) ?? 0;
    if (n > 0) {
      left.set(k, n - 1);
      return true;
    }
    return false;
  });
}

/**
 * The diff to show after a new answer: a page turn recomputes the dataset
 * and so compares it with itself; keep the diff of the last refresh then.
 */
export function diffToShow(prev: Diff | null | undefined, result: PreviewResult, reason: 'refresh' | 'page'): Diff | null {
  if (reason === 'page' && prev) return prev;
  return result.diff ?? null;
}

function plural(n: number, one: string, many = one + 's'): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

export function renderPager(offset: number, pageSize: number, total: number, shown: number): string {
  const first = total === 0 ? 0 : offset + 1;
  const last = offset + shown;
  const size = Math.max(pageSize, 1);
  const lastOffset = total > 0 ? Math.floor((total - 1) / size) * size : 0;
  const btn = (label: string, title: string, to: number, enabled: boolean) =>
    `<button class="page" data-offset="${to}" title="${title}"${enabled ? '' : ' disabled'}>${label}</button>`;
  return (
    `<div class="pager">` +
    btn('\u00ab', 'First page', 0, offset > 0) +
    btn('\u2039', 'Previous page', Math.max(0, offset - size), offset > 0) +
    `<span class="range">Rows ${formatNumber(first)}\u2013${formatNumber(last)} of ${formatNumber(total)}</span>` +
    btn('\u203a', 'Next page', offset + size, last < total) +
    btn('\u00bb', 'Last page', lastOffset, last < total) +
    `</div>`
  );
}

function headerCell(c: Column, i: number, sort: SortState | null | undefined): string {
  const active = sort && sort.column === i;
  const aria = active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none';
  const ind = active ? (sort.dir === 'asc' ? '\u25b2' : '\u25bc') : '';
  const num = isNumericType(c.type) ? ' num' : '';
  return (
    `<th class="sortable${num}" data-col="${i}" aria-sort="${aria}" title="Sort by ${escapeHtml(c.name)}">` +
    `<span class="col-name">${escapeHtml(c.name)}</span>` +
    `<span class="col-type">${escapeHtml(c.type)}</span>` +
    `<span class="sort-ind">${ind}</span></th>`
  );
}

/** The table of a page of rows, with types, sorting, NULLs and added marks. */
export function renderTable(
  columns: Column[],
  rows: Row[],
  opts: { offset?: number; sort?: SortState | null; added?: Row[]; sortable?: boolean } = {},
): string {
  const offset = opts.offset ?? 0;
  const marks = markAdded(rows, opts.added ?? []);
  const order = sortOrder(rows, opts.sort, columns);
  const numeric = columns.map((c) => isNumericType(c.type));
  const head =
    `<tr><th class="gutter" title="Row number">#</th>` +
    columns.map((c, i) => (opts.sortable === false ? plainHeader(c) : headerCell(c, i, opts.sort))).join('') +
    `</tr>`;
  const body = order
    .map((i) => {
      const r = rows[i];
      const cls = marks[i] ? ' class="row-added"' : '';
      const mark = marks[i] ? '<span class="mark" title="Added since the previous preview">+</span>' : '';
      const cells = columns.map((c, j) => `<td${numeric[j] ? ' class="num"' : ''}>${renderCell(r[j], c.type)}</td>`).join('');
      return `<tr${cls}><td class="gutter">${mark}${offset + i + 1}</td>${cells}</tr>`;
    })
    .join('');
  return `<table class="thund-table"><thead>${head}</thead><tbody>${body}</tbody></table>`;
}

function plainHeader(c: Column): string {
  const num = isNumericType(c.type) ? ' class="num"' : '';
  return `<th${num}><span class="col-name">${escapeHtml(c.name)}</span><span class="col-type">${escapeHtml(c.type)}</span></th>`;
}

const STATUSES = ['passed', 'warned', 'dropped', 'failed'];

export function expectationSummary(exps: Expectation[]): string {
  const counts = new Map<string, number>();
  for (const e of exps) counts.set(e.status, (counts.get(e.status) ?? 0) + 1);
  return STATUSES.map((s) => `${counts.get(s) ?? 0} ${s}`).join(' \u00b7 ');
}

export function renderExpectations(exps: Expectation[]): string {
  if (exps.length === 0) {
    return `<section class="expectations"><h2>Expectations</h2><p class="muted">No expectations on this dataset.</p></section>`;
  }
  const rows = exps
    .map(
      (e) =>
        `<tr class="exp-${escapeHtml(e.status)}">` +
        `<td><span class="badge status-${escapeHtml(e.status)}">${escapeHtml(e.status)}</span></td>` +
        `<td>${escapeHtml(e.name)}</td>` +
        `<td>${escapeHtml(e.action)}</td>` +
        `<td class="num">${formatNumber(e.violations)}</td>` +
        `<td class="num">${formatNumber(e.dropped)}</td></tr>`,
    )
    .join('');
  return (
    `<section class="expectations"><h2>Expectations <span class="muted">${expectationSummary(exps)}</span></h2>` +
    `<table class="thund-table exp-table"><thead><tr><th>Status</th><th>Expectation</th><th>On violation</th>` +
    `<th class="num">Violations</th><th class="num">Dropped</th></tr></thead><tbody>${rows}</tbody></table></section>`
  );
}

export function renderIncrements(incs: Increment[]): string {
  if (incs.length === 0) return '';
  const parts = incs.map((inc) => {
    const files = inc.files ?? [];
    const cols = (inc.columns ?? []).map((name) => ({ name, type: '' }));
    const rows = inc.rows ?? [];
    const fileList = files.length
      ? `<div class="files" title="${escapeHtml(files.join('\n'))}">${escapeHtml(files.join(', '))}</div>`
      : '';
    const table = rows.length
      ? renderTable(cols, rows, { sortable: false })
      : `<p class="muted">No rows emitted by this trigger.</p>`;
    return (
      `<details class="increment" open><summary>Trigger ${inc.trigger} \u00b7 ${plural(files.length, 'file')} \u00b7 ` +
      `arrived ${formatNumber(inc.arrived)} \u00b7 late ${formatNumber(inc.late)} \u00b7 emitted ${formatNumber(inc.emitted)}</summary>` +
      `${fileList}${table}</details>`
    );
  });
  return `<section class="increments"><h2>Increments <span class="muted">${plural(incs.length, 'trigger')}</span></h2>${parts.join('')}</section>`;
}

export function renderDiffSummary(diff: Diff | null | undefined): string {
  if (!diff) return '';
  if (diff.first) {
    return `<div class="diff-summary muted">First preview of this dataset: nothing to compare yet.</div>`;
  }
  if (diff.added.length === 0 && diff.removed.length === 0) {
    return `<div class="diff-summary muted">No change since the previous preview.</div>`;
  }
  return (
    `<div class="diff-summary">Since the previous preview: ` +
    `<span class="added-count">+${formatNumber(diff.added.length)} added</span>, ` +
    `<span class="removed-count">\u2212${formatNumber(diff.removed.length)} removed</span></div>`
  );
}

const MAX_REMOVED = 50;

export function renderRemoved(columns: Column[], diff: Diff | null | undefined): string {
  if (!diff || diff.first || diff.removed.length === 0) return '';
  const shown = diff.removed.slice(0, MAX_REMOVED);
  const width = Math.max(columns.length, ...shown.map((r) => r.length));
  const cols: Column[] = Array.from({ length: width }, (_, i) => columns[i] ?? { name: `column ${i + 1}`, type: '' });
  const head = `<tr><th class="gutter"></th>${cols.map(plainHeader).join('')}</tr>`;
  const body = shown
    .map(
      (r) =>
        `<tr class="row-removed"><td class="gutter"><span class="mark" title="Removed since the previous preview">\u2212</span></td>` +
        cols.map((c, j) => `<td${isNumericType(c.type) ? ' class="num"' : ''}>${renderCell(r[j], c.type)}</td>`).join('') +
        `</tr>`,
    )
    .join('');
  const more =
    diff.removed.length > shown.length
      ? `<p class="muted">\u2026and ${formatNumber(diff.removed.length - shown.length)} more.</p>`
      : '';
  return (
    `<section class="removed"><h2>Removed rows <span class="muted">${formatNumber(diff.removed.length)}</span></h2>` +
    `<div class="table-wrap"><table class="thund-table"><thead>${head}</thead><tbody>${body}</tbody></table></div>${more}</section>`
  );
}

/** The whole preview panel body. */
export function renderPreview(view: PreviewView): string {
  const r = view.result;
  const diff = view.diff === undefined ? r.diff : view.diff;
  const head =
    `<header class="head"><h1>${escapeHtml(r.dataset)}</h1>` +
    `<span class="stats">${plural(r.total_rows, 'row')} \u00b7 ${formatNumber(r.elapsed_ms)} ms</span>` +
    `<span class="spacer"></span>` +
    (view.loading ? `<span class="loading">Running\u2026</span>` : '') +
    `<button class="refresh" data-action="refresh" title="Run the preview again">Refresh</button></header>`;
  if (r.error) {
    return (
      head +
      renderError(`Could not preview ${r.dataset}.`, r.error) +
      renderExpectations(r.expectations ?? []) +
      renderIncrements(r.increments ?? [])
    );
  }
  const sortNote = view.sort ? `<span class="muted sort-note">sorted within this page</span>` : '';
  // Filled in by the webview when the table is wider than the panel.
  const clipNote = `<span class="clip-note" hidden></span>`;
  return (
    head +
    renderBounds(r) +
    renderDiffSummary(diff) +
    `<div class="toolbar">${renderPager(r.offset, view.pageSize, r.total_rows, r.rows.length)}${sortNote}${clipNote}</div>` +
    `<div class="table-wrap">${renderTable(r.columns, r.rows, {
      offset: r.offset,
      sort: view.sort,
      added: diff && !diff.first ? diff.added : [],
    })}</div>` +
    renderRemoved(r.columns, diff) +
    renderExpectations(r.expectations ?? []) +
    renderIncrements(r.increments ?? [])
  );
}

/**
 * What the preview says when its table is wider than the panel: which
 * columns are in view, from the columns' left and right edges and the
 * visible part of the table (in the same coordinates). Empty when every
 * column is in view.
 */
export function clipNote(columns: { left: number; right: number }[], viewLeft: number, viewRight: number): string {
  if (columns.length === 0) return '';
  const seen = columns.map((c) => c.left >= viewLeft - 1 && c.right <= viewRight + 1);
  if (seen.every(Boolean)) return '';
  const first = seen.indexOf(true);
  const last = seen.lastIndexOf(true);
  const hiddenRight = columns.length - 1 - Math.max(last, first - 1);
  const hiddenLeft = first < 0 ? 0 : first;
  const parts: string[] = [];
  if (first < 0) return `${plural(columns.length, 'column')}: scroll sideways to see them`;
  parts.push(`columns ${first + 1}\u2013${last + 1} of ${columns.length} in view`);
  if (hiddenLeft > 0) parts.push(`\u2190 ${hiddenLeft} more`);
  if (hiddenRight > 0) parts.push(`${hiddenRight} more \u2192`);
  return parts.join(' \u00b7 ');
}

/** Notes on what the server left out of a page: cut values, a cut page, a skipped diff. */
export function renderBounds(r: PreviewResult): string {
  const notes: string[] = [];
  const cells = r.truncated?.length ?? 0;
  if (cells > 0) notes.push(`${plural(cells, 'value')} cut to keep the page small (each says how long it is)`);
  if (r.cut) notes.push(r.cut);
  if (r.diff_skipped) notes.push(r.diff_skipped);
  if (notes.length === 0) return '';
  return `<div class="bounds muted" role="note">${notes.map((n) => `<p>${escapeHtml(n)}</p>`).join('')}</div>`;
}

/**
 * An error as the server wrote it: its first line as the message, and
 * the lines after it (DuckDB's "LINE 1: ..." with a caret under the
 * error) kept as they are, in the editor's font, so the caret points
 * where it should.
 */
export function renderError(title: string, message: string): string {
  const text = message.replace(/\s+$/, '');
  const nl = text.indexOf('\n');
  const first = nl < 0 ? text : text.slice(0, nl);
  const rest = nl < 0 ? '' : text.slice(nl + 1).replace(/^\s*\n/, '');
  return (
    `<div class="error-banner" role="alert">` +
    (title ? `<strong>${escapeHtml(title)}</strong> ` : '') +
    `<span class="error-message">${escapeHtml(first)}</span>` +
    (rest ? `<pre class="error-detail">${escapeHtml(rest)}</pre>` : '') +
    `</div>`
  );
}

export function renderMessage(title: string, body: string, action?: { label: string; action: string }): string {
  const btn = action ? `<button data-action="${escapeHtml(action.action)}">${escapeHtml(action.label)}</button>` : '';
  return `<div class="message"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(body)}</p>${btn}</div>`;
}

export const UNTRUSTED_TEXT =
  'This workspace is not trusted. Thund shows diagnostics only and runs no SQL: previews, runs and notebook cells are off until you trust the workspace.';

// ---------------------------------------------------------------- lineage

/**
 * Each node's depth: 0 for nodes nothing feeds, else one more than the
 * deepest node feeding it. Nodes on a cycle get the depth reached when the
 * cycle is cut.
 */
export function depths(graph: GraphResult): Map<string, number> {
  const preds = new Map<string, string[]>();
  for (const n of graph.nodes) preds.set(n.id, []);
  for (const e of graph.edges) {
    if (preds.has(e.from) && preds.has(e.to)) preds.get(e.to)!.push(e.from);
  }
  const out = new Map<string, number>();
  const visiting = new Set<string>();
  const visit = (id: string): number => {
    const have = out.get(id);
    if (have !== undefined) return have;
    if (visiting.has(id)) return 0;
    visiting.add(id);
    let d = 0;
    for (const p of preds.get(id) ?? []) d = Math.max(d, visit(p) + 1);
    visiting.delete(id);
    out.set(id, d);
    return d;
  };
  for (const n of graph.nodes) visit(n.id);
  return out;
}

/** The nodes in topological order: by depth, then as the server listed them. */
export function topoOrder(graph: GraphResult): GraphNode[] {
  const d = depths(graph);
  const pos = new Map(graph.nodes.map((n, i) => [n.id, i]));
  return [...graph.nodes].sort((a, b) => d.get(a.id)! - d.get(b.id)! || pos.get(a.id)! - pos.get(b.id)!);
}

/** Every node downstream of the given ones (themselves included). */
export function downstream(graph: GraphResult, ids: Iterable<string>): Set<string> {
  const succ = new Map<string, string[]>();
  for (const e of graph.edges) {
    if (!succ.has(e.from)) succ.set(e.from, []);
    succ.get(e.from)!.push(e.to);
  }
  const out = new Set<string>();
  const stack = [...ids];
  while (stack.length) {
    const id = stack.pop()!;
    if (out.has(id)) continue;
    out.add(id);
    stack.push(...(succ.get(id) ?? []));
  }
  return out;
}

export interface PlacedNode {
  node: GraphNode;
  depth: number;
  x: number;
  y: number;
}

export interface Layout {
  nodes: PlacedNode[];
  /** Each edge's SVG path, made of M, L and C commands only. */
  edges: { edge: GraphEdge; path: string }[];
  width: number;
  height: number;
}

export const NODE_W = 184;
export const NODE_H = 84;
const GAP_X = 64;
const GAP_Y = 22;
/** The room a long edge takes where it passes through a layer. */
const LANE_H = 14;
const PAD = 16;

/** One entry of a layer: a node, or a long edge passing through. */
interface Slot {
  id: string;
  node?: GraphNode;
  /** The edge a lane belongs to (its index in graph.edges). */
  edge?: number;
  h: number;
  y: number;
}

/**
 * Lays the graph out in layers, left to right (a Sugiyama layout): a
 * dataset one layer right of the deepest thing it reads, a source one
 * layer left of its first reader. An edge spanning several layers gets a
 * lane in each layer it crosses, ordered with the nodes, so no edge runs
 * behind a node; a few sweeps order each layer by the mean position of
 * its neighbours, and each layer is centred on the graph's height.
 */
export function layoutGraph(graph: GraphResult): Layout {
  const d = depths(graph);
  const ids = new Set(graph.nodes.map((n) => n.id));
  const edges = graph.edges.filter((e) => ids.has(e.from) && ids.has(e.to) && e.from !== e.to);
  // Sources (nothing feeds them) sit just left of their first reader.
  const hasPred = new Set(edges.map((e) => e.to));
  for (const n of graph.nodes) {
    if (hasPred.has(n.id)) continue;
    const reads = edges.filter((e) => e.from === n.id).map((e) => d.get(e.to)!);
    if (reads.length) d.set(n.id, Math.max(0, Math.min(...reads) - 1));
  }
  const layers: Slot[][] = [];
  const at = (k: number) => (layers[k] ??= []);
  for (const n of graph.nodes) at(d.get(n.id) ?? 0).push({ id: n.id, node: n, h: NODE_H, y: 0 });
  for (let k = 0; k < layers.length; k++) at(k);
  // Lanes of long edges; an edge against the layering (a cycle) is drawn
  // straight, as it is already reported as an error.
  const chains: string[][] = edges.map((e, i) => {
    const a = d.get(e.from)!;
    const b = d.get(e.to)!;
    const chain = [e.from];
    for (let k = a + 1; k < b; k++) {
      const id = `lane:${i}:${k}`;
      at(k).push({ id, edge: i, h: LANE_H, y: 0 });
      chain.push(id);
    }
    chain.push(e.to);
    return chain;
  });
  const up = new Map<string, string[]>();
  const down = new Map<string, string[]>();
  for (const c of chains) {
    for (let i = 0; i + 1 < c.length; i++) {
      (down.get(c[i]) ?? down.set(c[i], []).get(c[i])!).push(c[i + 1]);
      (up.get(c[i + 1]) ?? up.set(c[i + 1], []).get(c[i + 1])!).push(c[i]);
    }
  }
  const pos = new Map<string, number>();
  const number = () => layers.forEach((l) => l.forEach((s, i) => pos.set(s.id, i)));
  number();
  const sweep = (k: number, nbrs: Map<string, string[]>) => {
    const keyed = layers[k].map((s, i) => {
      const ps = (nbrs.get(s.id) ?? []).filter((p) => pos.has(p));
      return { s, i, k: ps.length ? ps.reduce((a, p) => a + pos.get(p)!, 0) / ps.length : i };
    });
    keyed.sort((a, b) => a.k - b.k || a.i - b.i);
    layers[k] = keyed.map((x) => x.s);
    layers[k].forEach((s, i) => pos.set(s.id, i));
  };
  for (let it = 0; it < 4; it++) {
    for (let k = 1; k < layers.length; k++) sweep(k, up);
    for (let k = layers.length - 2; k >= 0; k--) sweep(k, down);
  }
  const span = (l: Slot[]) => l.reduce((a, s) => a + s.h, 0) + Math.max(0, l.length - 1) * GAP_Y;
  const inner = Math.max(NODE_H, ...layers.map(span));
  const height = PAD * 2 + inner;
  const byId = new Map<string, Slot>();
  layers.forEach((l) => {
    let y = PAD + (inner - span(l)) / 2;
    for (const s of l) {
      s.y = y;
      y += s.h + GAP_Y;
      byId.set(s.id, s);
    }
  });
  const colX = (k: number) => PAD + k * (NODE_W + GAP_X);
  const width = PAD * 2 + layers.length * NODE_W + Math.max(0, layers.length - 1) * GAP_X;
  const mid = (s: Slot) => s.y + s.h / 2;
  const placed = graph.nodes.map((n) => ({ node: n, depth: d.get(n.id) ?? 0, x: colX(d.get(n.id) ?? 0), y: byId.get(n.id)!.y }));
  const paths = edges.map((e, i) => {
    const c = chains[i].map((id) => byId.get(id)!);
    const ks = chains[i].map((_, j) => (j === 0 ? d.get(e.from)! : j === chains[i].length - 1 ? d.get(e.to)! : d.get(e.from)! + j));
    let x = colX(ks[0]) + NODE_W;
    let y = mid(c[0]);
    let path = `M${r1(x)},${r1(y)}`;
    for (let j = 1; j < c.length; j++) {
      const last = j === c.length - 1;
      const x2 = colX(ks[j]) - (last ? 4 : 0);
      const y2 = mid(c[j]);
      const mx = (x + x2) / 2;
      path += ` C${r1(mx)},${r1(y)} ${r1(mx)},${r1(y2)} ${r1(x2)},${r1(y2)}`;
      x = x2;
      y = y2;
      if (!last) {
        // Straight through the layer, in its lane.
        x = colX(ks[j]) + NODE_W;
        path += ` L${r1(x)},${r1(y)}`;
      }
    }
    return { edge: e, path };
  });
  return { nodes: placed, edges: paths, width, height };
}

function r1(n: number): string {
  return String(Math.round(n * 10) / 10);
}

function truncate(s: string, max: number): string {
  return s.length > max ? s.slice(0, max - 1) + '\u2026' : s;
}

export function kindLabel(kind: string): string {
  return kind.replace(/_/g, ' ');
}

/** Support badges of a node: one per backend, with the reasons as a tooltip. */
export function supportSummary(support: Record<string, string[]>): { backend: string; ok: boolean; reasons: string[] }[] {
  return Object.keys(support)
    .sort()
    .map((b) => ({ backend: b, ok: (support[b] ?? []).length === 0, reasons: support[b] ?? [] }));
}

/** The time of day of a Date.now() value, as HH:MM:SS. */
export function clockTime(at: number): string {
  const d = new Date(at);
  const p = (x: number) => String(x).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** The run line of a node: "✓ 52 rows · 31 ms", "✗ failed · 2 ms". */
export function runLine(r: NodeRun): string {
  const ms = `${formatNumber(r.elapsed_ms)} ms`;
  if (r.phase === 'completed') return `\u2713 ${plural(r.rows, 'row')} \u00b7 ${ms}`;
  if (r.phase === 'failed') return `\u2717 failed \u00b7 ${ms}`;
  return `\u2013 ${r.phase}`;
}

export function renderLineage(
  graph: GraphResult,
  errors: Record<string, number> = {},
  runs: Record<string, NodeRun> = {},
): string {
  if (graph.nodes.length === 0) {
    return `<p class="muted">This pipeline defines no datasets yet.</p>`;
  }
  const lay = layoutGraph(graph);
  const edges = lay.edges
    .map(
      ({ edge, path }) =>
        `<path class="edge${edge.streaming ? ' streaming' : ''}" d="${path}" marker-end="url(#arrow)">` +
        `<title>${escapeHtml(edge.from.replace(/^source:/, ''))} \u2192 ${escapeHtml(edge.to)}${edge.streaming ? ' (streaming read)' : ''}</title></path>`,
    )
    .join('');
  const nodes = lay.nodes
    .map((p) => {
      const n = p.node;
      const errs = errors[n.id] ?? 0;
      const run = runs[n.id];
      const phase = run?.phase;
      const cls = [
        'node',
        `kind-${n.kind.replace(/[^a-z0-9_-]/gi, '')}`,
        n.uri ? 'clickable' : '',
        errs > 0 ? 'has-errors' : '',
        phase ? `phase-${phase.replace(/[^a-z]/gi, '')}` : '',
      ]
        .filter(Boolean)
        .join(' ');
      const attrs = n.uri
        ? ` data-uri="${escapeHtml(n.uri)}" data-line="${n.line}" tabindex="0" role="button" aria-label="Open ${escapeHtml(n.name)}"`
        : '';
      const badges = supportSummary(n.support);
      let bx = p.x + 12;
      const badgeSvg = badges
        .map((b) => {
          const label = `${b.backend} ${b.ok ? '\u2713' : '\u2717'}`;
          const w = label.length * 6.4 + 10;
          const tip = b.ok ? `Runs on ${b.backend}` : `Not on ${b.backend}: ${b.reasons.join('; ')}`;
          const svg =
            `<g class="support ${b.ok ? 'ok' : 'bad'}"><title>${escapeHtml(tip)}</title>` +
            `<rect x="${r1(bx)}" y="${r1(p.y + 62)}" width="${r1(w)}" height="15" rx="3"></rect>` +
            `<text x="${r1(bx + 5)}" y="${r1(p.y + 73)}">${escapeHtml(label)}</text></g>`;
          bx += w + 4;
          return svg;
        })
        .join('');
      const errSvg =
        errs > 0
          ? `<text class="errors" x="${r1(p.x + NODE_W - 8)}" y="${r1(p.y + 18)}" text-anchor="end">${errs} error${errs === 1 ? '' : 's'}</text>`
          : '';
      // The last run, as Databricks' graph shows it: a status colour down
      // the node's left edge, and rows and time on a line of their own.
      const runSvg = run
        ? `<rect class="status-bar" x="${r1(p.x)}" y="${r1(p.y)}" width="5" height="${NODE_H}" rx="2"></rect>` +
          `<text class="run" x="${r1(p.x + 12)}" y="${r1(p.y + 54)}">${escapeHtml(runLine(run))}` +
          `<title>${escapeHtml(`${n.name} ${run.phase} at ${clockTime(run.at)}: ${plural(run.rows, 'row')} in ${formatNumber(run.elapsed_ms)} ms`)}</title></text>`
        : kindIsSource(n)
          ? ''
          : `<text class="run none" x="${r1(p.x + 12)}" y="${r1(p.y + 54)}">not run yet</text>`;
      return (
        `<g class="${cls}" data-id="${escapeHtml(n.id)}"${attrs}><title>${escapeHtml(n.name)} (${escapeHtml(kindLabel(n.kind))})</title>` +
        `<rect class="box" x="${r1(p.x)}" y="${r1(p.y)}" width="${NODE_W}" height="${NODE_H}" rx="6"></rect>` +
        `<text class="name" x="${r1(p.x + 12)}" y="${r1(p.y + 19)}">${escapeHtml(truncate(n.name, 21))}</text>` +
        `<text class="kind" x="${r1(p.x + 12)}" y="${r1(p.y + 36)}">${escapeHtml(kindLabel(n.kind))}</text>` +
        errSvg +
        runSvg +
        badgeSvg +
        `</g>`
      );
    })
    .join('');
  return (
    `<svg class="lineage" xmlns="http://www.w3.org/2000/svg" width="${r1(lay.width)}" height="${r1(lay.height)}" ` +
    `data-width="${r1(lay.width)}" data-height="${r1(lay.height)}" ` +
    `viewBox="0 0 ${r1(lay.width)} ${r1(lay.height)}" role="img" aria-label="Lineage of ${escapeHtml(graph.pipeline)}">` +
    `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">` +
    `<path class="arrowhead" d="M0,0 L10,5 L0,10 z"></path></marker></defs>` +
    `<g class="edges">${edges}</g><g class="nodes">${nodes}</g></svg>`
  );
}

function kindIsSource(n: GraphNode): boolean {
  return n.kind === 'source';
}

export function renderLineagePage(
  graph: GraphResult,
  errors: Record<string, number> = {},
  runs: Record<string, NodeRun> = {},
): string {
  const datasets = graph.nodes.filter((n) => n.kind !== 'source').length;
  const sources = graph.nodes.length - datasets;
  const totalErrors = Object.values(errors).reduce((a, b) => a + b, 0);
  return (
    `<header class="head"><h1>${escapeHtml(graph.pipeline)}</h1>` +
    `<span class="stats">${plural(datasets, 'dataset')} \u00b7 ${plural(sources, 'source')} \u00b7 ${plural(graph.edges.length, 'read')}` +
    (totalErrors ? ` \u00b7 <span class="error-text">${plural(totalErrors, 'error')}</span>` : '') +
    `</span><span class="spacer"></span>` +
    `<span class="zoom" role="group" aria-label="Zoom">` +
    `<button class="page" data-zoom="out" title="Zoom out (Ctrl+wheel)">\u2212</button>` +
    `<span class="zoom-level">100%</span>` +
    `<button class="page" data-zoom="in" title="Zoom in (Ctrl+wheel)">+</button>` +
    `<button class="page" data-zoom="fit" title="Fit the graph to the panel">Fit</button></span>` +
    `<button data-action="refresh" title="Ask the server for the graph again">Refresh</button></header>` +
    `<div class="legend muted">Click a dataset to open its file. Dashed edges are streaming reads. ` +
    `Each dataset shows its last preview or run: <span class="legend-ok">\u2713 completed</span>, ` +
    `<span class="legend-failed">\u2717 failed</span>, <span class="legend-skipped">\u2013 skipped</span>.</div>` +
    `<div class="graph-wrap">${renderLineage(graph, errors, runs)}</div>`
  );
}

// ---------------------------------------------------------------- notebook

/** A self-contained HTML output for a notebook cell: one or more previews. */
export function renderNotebookOutput(results: PreviewResult[], pageSize: number): string {
  const parts = results.map((r) => {
    const head =
      `<div class="nb-head"><strong>${escapeHtml(r.dataset)}</strong> ` +
      `<span class="muted">${plural(r.total_rows, 'row')} \u00b7 ${formatNumber(r.elapsed_ms)} ms` +
      (r.total_rows > r.rows.length ? ` \u00b7 first ${formatNumber(r.rows.length)} shown` : '') +
      `</span></div>`;
    if (r.error) {
      return `<div class="nb-head"><strong>${escapeHtml(r.dataset)}</strong></div>${renderError('', r.error)}`;
    }
    const diff = r.diff;
    const exps = r.expectations?.length
      ? `<div class="nb-exps">${r.expectations
          .map(
            (e) =>
              `<span class="badge status-${escapeHtml(e.status)}" title="${escapeHtml(e.action)}: ${e.violations} violations, ${e.dropped} dropped">${escapeHtml(e.name)}: ${escapeHtml(e.status)}</span>`,
          )
          .join(' ')}</div>`
      : '';
    return (
      head +
      exps +
      renderDiffSummary(diff) +
      `<div class="table-wrap">${renderTable(r.columns, r.rows.slice(0, pageSize), {
        sortable: false,
        added: diff && !diff.first ? diff.added : [],
      })}</div>` +
      renderIncrements(r.increments ?? [])
    );
  });
  return `<div class="thund-nb">${parts.join('')}</div>`;
}

/**
 * What Run All says above a cell's preview: the run, and its datasets'
 * part in it. A dataset's error is not repeated here: the cell's preview
 * below shows it, whole.
 */
export function runNote(run: RunResult, datasets: string[]): string {
  const mine = new Set(datasets.map((d) => d.toLowerCase()));
  const parts = run.datasets
    .filter((d) => mine.has(d.name.toLowerCase()))
    .map((d) => (d.phase === 'completed' ? `${d.name} completed, ${plural(d.rows, 'row')} in ${formatNumber(d.elapsed_ms)} ms` : `${d.name} ${d.phase}`));
  return `Pipeline run: ${plural(run.datasets.length, 'dataset')} in ${formatNumber(run.elapsed_ms)} ms${run.failed ? ', failed' : ''}. ${parts.join('; ')}`.trim();
}

/** A plain-text table, for outputs shown as text. */
export function renderTextTable(r: PreviewResult, max = 20): string {
  if (r.error) return `${r.dataset}: ${r.error}`;
  const cols = r.columns.map((c) => c.name);
  const rows = r.rows.slice(0, max).map((row) => cols.map((_, j) => cellText(row[j], r.columns[j].type)));
  const widths = cols.map((c, j) => Math.min(40, Math.max(c.length, ...rows.map((row) => row[j].length))));
  const line = (cells: string[]) => cells.map((c, j) => truncate(c, widths[j]).padEnd(widths[j])).join(' | ');
  return [
    `${r.dataset}: ${r.total_rows} rows in ${r.elapsed_ms} ms`,
    line(cols),
    widths.map((w) => '-'.repeat(w)).join('-+-'),
    ...rows.map(line),
  ].join('\n');
}

// ---------------------------------------------------------------- spark

/** One line saying how a Spark dry run went. */
export function sparkSummary(r: SparkDryRunResult): string {
  const where = `${r.backend} at ${r.remote}`;
  if (r.ok) return `Spark dry run on ${where}: no problems (define ${r.define_ms} ms, dry run ${r.run_ms} ms).`;
  const refused = r.problems.filter((p) => p.refused).length;
  if (refused > 0 && refused === r.problems.length) {
    return `Spark dry run on ${where}: not sent, ${plural(refused, 'feature')} this Spark version cannot run.`;
  }
  return `Spark dry run on ${where}: ${plural(r.problems.length, 'problem')}.`;
}

/** The dry run's problems, one per line, for the output channel. */
export function sparkReport(r: SparkDryRunResult): string[] {
  return [
    sparkSummary(r),
    ...r.problems.map(
      (p) =>
        `  ${p.refused ? 'refused' : 'failed '} ${p.dataset || '(pipeline)'}` +
        (p.uri ? ` ${p.uri.replace(/^file:\/\//, '')}:${p.range.start.line + 1}:${p.range.start.character + 1}` : '') +
        `: ${p.message}`,
    ),
  ];
}
