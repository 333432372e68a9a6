// What the extension makes of thund-lsp's code lenses and expectation
// diagnostics, kept free of any vscode import so the unit tests can use
// it: the row count lens follows the newest preview or run, Restricted
// Mode shows one lens that says why nothing runs, and an expectation that
// passed becomes an inlay hint instead of a squiggle.

/** The commands whose lenses run SQL. */
export const RUNNING_COMMANDS = new Set(['thund.preview', 'thund.runDownstream', 'thund.sparkDryRun']);

/** The title of thund-lsp's row count lens ("56 rows in 32 ms"). */
export const ROW_COUNT_TITLE = /^[\d,]+ rows? in [\d,]+ ms/;

export const RESTRICTED_LENS_TITLE = '$(shield) Restricted Mode: Thund runs no SQL here (previews and runs are off)';

/** The newest result the extension saw for one dataset, from thund/preview or thund/run. */
export interface DatasetRecord {
  rows: number;
  elapsedMs: number;
  /** completed, failed or skipped */
  phase: string;
  /** Date.now() when it arrived. */
  at: number;
  from: 'preview' | 'run';
}

/** A code lens as plain data; R is the editor's range, passed through. */
export interface LensData<R> {
  range: R;
  title: string;
  command: string;
  args?: unknown[];
  tooltip?: string;
}

/** The dataset a lens's argument names ({uri, dataset}), lower-cased. */
export function lensDataset(args: unknown[] | undefined): string | undefined {
  const a = args?.[0] as { dataset?: unknown } | undefined;
  return typeof a?.dataset === 'string' ? a.dataset.toLowerCase() : undefined;
}

function n(x: number): string {
  return x.toLocaleString('en-US');
}

/** The row count lens's title for a record. */
export function recordTitle(r: DatasetRecord): string {
  const base = `${n(r.rows)} row${r.rows === 1 ? '' : 's'} in ${n(r.elapsedMs)} ms`;
  return r.phase === 'completed' ? base : `${r.phase} (${base})`;
}

function clock(at: number): string {
  const d = new Date(at);
  const p = (x: number) => String(x).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/**
 * The lenses to show for the server's: in Restricted Mode one lens per
 * place instead of the ones that would run SQL; otherwise the server's
 * with the row count taken from the newest record the extension holds
 * (the server's lens is only as new as its last preview, and the editor
 * keeps it until asked again).
 */
export function rewriteLenses<R>(
  lenses: LensData<R>[],
  opts: { trusted: boolean; records: ReadonlyMap<string, DatasetRecord>; key: (r: R) => string },
): LensData<R>[] {
  const out: LensData<R>[] = [];
  if (!opts.trusted) {
    const seen = new Set<string>();
    for (const l of lenses) {
      if (!RUNNING_COMMANDS.has(l.command)) {
        out.push(l);
        continue;
      }
      const k = opts.key(l.range);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push({ range: l.range, title: RESTRICTED_LENS_TITLE, command: 'workbench.trust.manage', tooltip: 'Trust this workspace to let Thund run SQL' });
    }
    return out;
  }
  const counted = new Set<string>();
  for (const l of lenses) {
    const ds = lensDataset(l.args);
    if (l.command === 'thund.preview' && ROW_COUNT_TITLE.test(l.title) && ds !== undefined && opts.records.has(ds)) continue;
    out.push(l);
    if (l.command !== 'thund.runDownstream' || ds === undefined || counted.has(ds)) continue;
    const r = opts.records.get(ds);
    if (!r) continue;
    counted.add(ds);
    out.push({
      range: l.range,
      title: recordTitle(r),
      command: 'thund.preview',
      args: l.args,
      tooltip: `The last ${r.from} at ${clock(r.at)}; click to preview again`,
    });
  }
  return out;
}

/** A diagnostic as plain data: what passedExpectations reads. */
export interface DiagnosticData {
  code?: string | number | { value: string | number };
  /** vscode.DiagnosticSeverity: 0 error, 1 warning, 2 information, 3 hint. */
  severity: number;
  message: string;
  line: number;
}

export const SEVERITY_INFORMATION = 2;

function codeOf(d: DiagnosticData): string | number | undefined {
  return typeof d.code === 'object' && d.code !== null ? d.code.value : d.code;
}

/** Whether a diagnostic is an expectation that passed on the last run. */
export function isPassedExpectation(d: DiagnosticData): boolean {
  return codeOf(d) === 'expectation-result' && d.severity === SEVERITY_INFORMATION;
}

/** An inlay hint at the end of a pragma line, for an expectation that passed. */
export interface PassHint {
  line: number;
  label: string;
  tooltip: string;
}

export function passHints(diags: DiagnosticData[]): PassHint[] {
  return diags
    .filter(isPassedExpectation)
    .map((d) => ({ line: d.line, label: '\u2713 passed on the last run', tooltip: d.message }));
}
