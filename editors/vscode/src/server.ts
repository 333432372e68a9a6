// Starting thund-lsp with vscode-languageclient, and its custom requests.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CancellationToken,
  CodeLensRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  WorkDoneProgress,
} from 'vscode-languageclient/node';

import type { GraphResult, PreviewParams, PreviewResult, RunParams, RunResult } from './protocol';
import type { LineageResult } from './columnLineage';
import { DatasetRecord, LensData, passHints, PassHint, rewriteLenses } from './lenses';
import { rootOf, specSetting } from './pipelines';
import { isTrusted } from './trust';

/** The languages thund-lsp serves: pipeline SQL (ours) and plain SQL. */
export const SQL_LANGUAGES = ['thund-sql', 'sql'];

/** The settings thund-lsp reads (lsp.Settings): the "thund" section, as it is. */
export function serverSettings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration('thund');
  return {
    backends: c.get<string[]>('backends', []),
    sparkRemote: c.get<string>('sparkRemote', ''),
    samples: c.get<Record<string, string>>('samples', {}),
    previewLimit: c.get<number>('previewLimit', 0),
    spec: specSetting(),
  };
}

/** The binary to start: the setting, else the one shipped in the extension. */
export function serverPath(ctx: vscode.ExtensionContext): { path: string; fromSetting: boolean } {
  const configured = vscode.workspace.getConfiguration('thund').get<string>('server.path', '').trim();
  if (configured) {
    let p = configured.startsWith('~') ? path.join(os.homedir(), configured.slice(1)) : configured;
    if (!path.isAbsolute(p)) {
      const folder = vscode.workspace.workspaceFolders?.[0];
      p = folder ? path.join(folder.uri.fsPath, p) : path.resolve(p);
    }
    return { path: p, fromSetting: true };
  }
  const exe = process.platform === 'win32' ? 'thund-lsp.exe' : 'thund-lsp';
  return { path: ctx.asAbsolutePath(path.join('bin', exe)), fromSetting: false };
}

export class ThundServer implements vscode.Disposable {
  client: LanguageClient | undefined;
  private readonly output: vscode.OutputChannel;
  private readonly onReadyEmitter = new vscode.EventEmitter<void>();
  /** Fires each time a server (re)started. */
  readonly onReady = this.onReadyEmitter.event;
  private starting: Promise<LanguageClient | undefined> | undefined;
  /** Per pipeline root, the newest result of each dataset (lower-cased name). */
  readonly records = new Map<string, Map<string, DatasetRecord>>();
  /** Per document URI, the expectations that passed on the last run. */
  readonly passes = new Map<string, PassHint[]>();
  /** Documents the server has published diagnostics for (empty or not). */
  private readonly published = new Set<string>();
  private readonly onPassesEmitter = new vscode.EventEmitter<void>();
  /** Fires when the passed expectations of some document changed. */
  readonly onPasses = this.onPassesEmitter.event;
  private readonly onRecordEmitter = new vscode.EventEmitter<string>();
  /** Fires with the pipeline root after a preview or run was recorded. */
  readonly onRecord = this.onRecordEmitter.event;

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    output: vscode.OutputChannel,
  ) {
    this.output = output;
  }

  /** Starts the server once; later calls wait for the same start. */
  start(): Promise<LanguageClient | undefined> {
    this.starting ??= this.doStart();
    return this.starting;
  }

  private async doStart(): Promise<LanguageClient | undefined> {
    const bin = serverPath(this.ctx);
    if (!fs.existsSync(bin.path)) {
      const msg = bin.fromSetting
        ? `Thund: thund.server.path points to ${bin.path}, which does not exist.`
        : `Thund: the bundled language server is missing (${bin.path}). Set thund.server.path to a thund-lsp binary.`;
      this.output.appendLine(msg);
      void vscode.window.showErrorMessage(msg, 'Open Settings').then((a) => {
        if (a) void vscode.commands.executeCommand('workbench.action.openSettings', 'thund.server.path');
      });
      this.starting = undefined;
      return undefined;
    }
    if (!bin.fromSetting && process.platform !== 'win32') {
      // A .vsix may lose the executable bit on the way: put it back.
      try {
        fs.accessSync(bin.path, fs.constants.X_OK);
      } catch {
        try {
          fs.chmodSync(bin.path, 0o755);
        } catch (e) {
          this.output.appendLine(`cannot make ${bin.path} executable: ${String(e)}`);
        }
      }
    }
    const serverOptions: ServerOptions = { command: bin.path, args: [], options: { env: process.env } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: SQL_LANGUAGES.map((language) => ({ scheme: 'file', language })),
      initializationOptions: serverSettings(),
      // Settings go to the server as didChangeConfiguration; file watching
      // the server registers itself (dynamic didChangeWatchedFiles).
      synchronize: { configurationSection: 'thund' },
      outputChannel: this.output,
      middleware: {
        // In Restricted Mode nothing may run SQL: the server's Preview and
        // Run lenses become one lens that says so. Trusted, the row count
        // lens follows the newest preview or run (see lenses.ts).
        provideCodeLenses: async (doc, token, next) => {
          const lenses = await next(doc, token);
          if (!lenses) return lenses;
          const root = rootOf(doc.uri);
          const data: LensData<vscode.Range>[] = lenses.map((l) => ({
            range: l.range,
            title: l.command?.title ?? '',
            command: l.command?.command ?? '',
            args: l.command?.arguments,
            tooltip: l.command?.tooltip,
          }));
          const out = rewriteLenses(data, {
            trusted: isTrusted(),
            records: (root && this.records.get(root)) || new Map(),
            key: (r) => `${r.start.line}:${r.start.character}`,
          });
          return out.map((l) => new vscode.CodeLens(l.range, { title: l.title, command: l.command, arguments: l.args, tooltip: l.tooltip }));
        },
        // An expectation that passed is no problem: it leaves the
        // diagnostics (no squiggle, nothing in the Problems view) for an
        // inlay hint at the end of its pragma line.
        handleDiagnostics: (uri, diagnostics, next) => {
          const plain = diagnostics.map((d) => ({
            code: d.code as string | number | { value: string | number } | undefined,
            severity: d.severity,
            message: d.message,
            line: d.range.start.line,
          }));
          const hints = passHints(plain);
          const key = uri.toString();
          // The first diagnostics of a file mean the server has read it:
          // lenses asked for before then may have come back empty, and the
          // editor would not ask again until an edit. (A guard: in the
          // e2e the lenses, the Restricted Mode one included, arrive
          // without it too.)
          if (!this.published.has(key)) {
            this.published.add(key);
            this.scheduleLensRefresh();
          }
          const had = this.passes.get(key)?.length ?? 0;
          if (hints.length) this.passes.set(key, hints);
          else this.passes.delete(key);
          if (hints.length || had) this.onPassesEmitter.fire();
          next(
            uri,
            diagnostics.filter((_, i) => !hints.length || !passHints([plain[i]]).length),
          );
        },
      },
    };
    const client = new LanguageClient('thund', 'Thund', serverOptions, clientOptions);
    this.client = client;
    try {
      await client.start();
    } catch (e) {
      this.output.appendLine(`thund-lsp failed to start: ${String(e)}`);
      void vscode.window.showErrorMessage(`Thund: the language server failed to start: ${String(e)}`);
      this.client = undefined;
      this.starting = undefined;
      return undefined;
    }
    this.output.appendLine(`thund-lsp started: ${bin.path}`);
    this.onReadyEmitter.fire();
    return client;
  }

  async restart(): Promise<void> {
    const old = this.client;
    this.client = undefined;
    this.starting = undefined;
    this.published.clear();
    if (old) {
      try {
        await old.stop(5000);
      } catch (e) {
        this.output.appendLine(`stopping thund-lsp: ${String(e)}`);
      }
    }
    await this.start();
  }

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  /** The custom requests this server offers (experimental.thund.requests). */
  requests(): string[] {
    const exp = this.client?.initializeResult?.capabilities.experimental as { thund?: { requests?: string[] } } | undefined;
    return exp?.thund?.requests ?? [];
  }

  private async need(): Promise<LanguageClient> {
    const c = await this.start();
    if (!c) throw new Error('the Thund language server is not running');
    return c;
  }

  async graph(uri: string, token?: CancellationToken): Promise<GraphResult> {
    const c = await this.need();
    return send<GraphResult>(c, 'thund/graph', { uri }, token);
  }

  /** thund/lineage: the column-level graph of the pipeline holding uri. */
  async lineage(uri: string, token?: CancellationToken): Promise<LineageResult> {
    const c = await this.need();
    return send<LineageResult>(c, 'thund/lineage', { uri }, token);
  }

  async preview(params: PreviewParams, token?: CancellationToken): Promise<PreviewResult> {
    if (!isTrusted()) throw new RestrictedError();
    const c = await this.need();
    const res = await send<PreviewResult>(c, 'thund/preview', params, token);
    const phase = !res.error ? 'completed' : /^\S+ skipped: /.test(res.error) ? 'skipped' : 'failed';
    this.record(params.uri, [{ name: res.dataset, rows: res.total_rows, elapsed_ms: res.elapsed_ms, phase }], 'preview');
    return res;
  }

  /** Notes what a preview or run gave, and has the editor ask for lenses again. */
  private record(uri: string, datasets: { name: string; rows: number; elapsed_ms: number; phase: string }[], from: 'preview' | 'run'): void {
    const root = rootOf(vscode.Uri.parse(uri));
    if (!root) return;
    let m = this.records.get(root);
    if (!m) this.records.set(root, (m = new Map()));
    const at = Date.now();
    for (const d of datasets) m.set(d.name.toLowerCase(), { rows: d.rows, elapsedMs: d.elapsed_ms, phase: d.phase, at, from });
    this.refreshLenses();
    this.onRecordEmitter.fire(root);
  }

  private lensTimer: NodeJS.Timeout | undefined;

  private scheduleLensRefresh(): void {
    if (this.lensTimer) clearTimeout(this.lensTimer);
    this.lensTimer = setTimeout(() => this.refreshLenses(), 200);
  }

  /** Asks the editor for every document's code lenses again. */
  refreshLenses(): void {
    const feature = this.client?.getFeature(CodeLensRequest.method);
    if (!feature) return;
    const fired = new Set<unknown>();
    for (const doc of vscode.workspace.textDocuments) {
      const p = feature.getProvider(doc);
      if (!p || fired.has(p)) continue;
      fired.add(p);
      p.onDidChangeCodeLensEmitter.fire();
    }
  }

  /** thund/run, with the server's $/progress reported to the given progress. */
  async run(
    params: RunParams,
    token?: CancellationToken,
    progress?: vscode.Progress<{ message?: string; increment?: number }>,
  ): Promise<RunResult> {
    if (!isTrusted()) throw new RestrictedError();
    const c = await this.need();
    const workDoneToken = `thund-run-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    let last = 0;
    const sub = c.onProgress(WorkDoneProgress.type, workDoneToken, (v) => {
      if (!progress) return;
      if (v.kind === 'begin' || v.kind === 'report') {
        const pct = typeof v.percentage === 'number' ? v.percentage : last;
        progress.report({ message: v.message, increment: Math.max(0, pct - last) });
        last = pct;
      }
    });
    try {
      const res = await send<RunResult>(c, 'thund/run', { ...params, workDoneToken }, token);
      this.record(params.uri, res.datasets, 'run');
      return res;
    } finally {
      sub.dispose();
    }
  }

  async request<R>(method: string, params: unknown, token?: CancellationToken): Promise<R> {
    if (!isTrusted()) throw new RestrictedError();
    const c = await this.need();
    return send<R>(c, method, params, token);
  }

  dispose(): void {
    void this.client?.stop();
    this.onReadyEmitter.dispose();
    if (this.lensTimer) clearTimeout(this.lensTimer);
    this.onPassesEmitter.dispose();
    this.onRecordEmitter.dispose();
  }
}

/**
 * sendRequest with one params object: passing an undefined token would make
 * vscode-jsonrpc send the arguments as a positional array.
 */
function send<R>(c: LanguageClient, method: string, params: unknown, token: CancellationToken | undefined): Promise<R> {
  return token ? c.sendRequest<R>(method, params, token) : c.sendRequest<R>(method, params);
}

export class RestrictedError extends Error {
  constructor() {
    super('Restricted Mode: Thund runs no SQL in an untrusted workspace.');
  }
}

export function isCancelled(e: unknown): boolean {
  if (e instanceof vscode.CancellationError) return true;
  const code = (e as { code?: number } | undefined)?.code;
  return code === -32800;
}

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
