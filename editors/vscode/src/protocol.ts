// Shapes of thund-lsp's custom requests (lsp/custom.go). Kept free of any
// vscode import so the webview scripts and the unit tests can use them.

export type Cell = null | boolean | number | string | Cell[] | { [key: string]: Cell };
export type Row = Cell[];

export interface Column {
  name: string;
  type: string;
}

export type ExpectationStatus = 'passed' | 'warned' | 'dropped' | 'failed';

export interface Expectation {
  dataset: string;
  name: string;
  action: string;
  violations: number;
  dropped: number;
  status: ExpectationStatus | string;
}

export interface Increment {
  trigger: number;
  files: string[] | null;
  arrived: number;
  late: number;
  emitted: number;
  columns: string[] | null;
  rows: Row[] | null;
}

export interface Diff {
  added: Row[];
  removed: Row[];
  first: boolean;
}

export interface PreviewParams {
  uri: string;
  dataset: string;
  offset: number;
  limit: number;
}

export interface PreviewResult {
  dataset: string;
  columns: Column[];
  rows: Row[];
  total_rows: number;
  offset: number;
  elapsed_ms: number;
  expectations: Expectation[];
  increments: Increment[];
  diff: Diff | null;
  error?: string;
  /** The page size used (requests are clamped to the server's maximum). */
  limit?: number;
  /** Why no diff was computed (the dataset is too large to compare). */
  diff_skipped?: string;
  /** Cells whose value was cut (the value carries a note too). */
  truncated?: { row: number; column: number; bytes: number }[];
  /** Set when the page holds fewer rows than asked: its values reached the page's byte cap. */
  cut?: string;
}

export interface GraphNode {
  id: string;
  name: string;
  kind: string;
  uri?: string;
  line: number;
  /** Per backend: an empty list when it runs there, else the reasons it cannot. */
  support: Record<string, string[]>;
}

export interface GraphEdge {
  from: string;
  to: string;
  streaming: boolean;
}

export interface GraphResult {
  pipeline: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export interface RunParams {
  uri: string;
  dataset?: string;
  workDoneToken?: string | number;
}

export interface RunDataset {
  name: string;
  phase: string;
  rows: number;
  elapsed_ms: number;
  error?: string;
}

export interface RunResult {
  datasets: RunDataset[];
  expectations: Expectation[];
  elapsed_ms: number;
  failed: boolean;
}

/** The argument thund-lsp puts on its code lenses. */
export interface DatasetRef {
  uri: string;
  dataset: string;
}

/** Messages from the extension to a preview webview. */
export type PreviewInbound =
  | { type: 'loading'; dataset: string }
  | { type: 'data'; result: PreviewResult; pageSize: number; reason: 'refresh' | 'page' }
  | { type: 'error'; dataset: string; message: string }
  | { type: 'untrusted'; dataset: string };

/** Messages from a preview webview to the extension. */
export type PreviewOutbound =
  | { type: 'ready' }
  | { type: 'page'; offset: number }
  | { type: 'refresh' }
  | { type: 'trust' };

/** A dataset's last preview or run, as the lineage graph shows it on its node. */
export interface NodeRun {
  /** completed, failed or skipped */
  phase: string;
  rows: number;
  elapsed_ms: number;
  /** Date.now() when it finished. */
  at: number;
}

/** Messages from the extension to the lineage webview. */
export type LineageInbound =
  | { type: 'graph'; graph: GraphResult; errors: Record<string, number>; runs: Record<string, NodeRun> }
  | { type: 'error'; message: string };

/** Messages from the lineage webview to the extension. */
export type LineageOutbound =
  | { type: 'ready' }
  | { type: 'open'; uri: string; line: number }
  | { type: 'refresh' };

export interface SparkProblem {
  dataset: string;
  message: string;
  uri?: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  /** Thund refused to send the pipeline (a feature that Spark version cannot run). */
  refused: boolean;
}

/**
 * thund/sparkDryRun {uri, allowRemote?}: the whole pipeline, dry-run on
 * Spark Connect. A server on another machine named by the folder's
 * thund.yaml is answered with REMOTE_UNCONFIRMED until allowRemote is set.
 */
export interface SparkDryRunResult {
  remote: string;
  backend: string;
  ok: boolean;
  problems: SparkProblem[];
  define_ms: number;
  run_ms: number;
}

/** The JSON-RPC code thund-lsp answers an unconfirmed dry run to another host with. */
export const REMOTE_UNCONFIRMED = -32050;

/** The remote of an unconfirmed dry run's error, or undefined for any other error. */
export function remoteUnconfirmed(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const err = e as { code?: unknown; data?: unknown };
  if (err.code !== REMOTE_UNCONFIRMED) return undefined;
  const data = err.data as { remote?: unknown } | undefined;
  return typeof data?.remote === 'string' ? data.remote : 'another machine';
}
