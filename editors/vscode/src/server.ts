// Starting thund-lsp with vscode-languageclient, and its custom requests.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CancellationToken,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  WorkDoneProgress,
} from 'vscode-languageclient/node';

import type { GraphResult, PreviewParams, PreviewResult, RunParams, RunResult } from './protocol';
import type { LineageResult } from './columnLineage';
import { isTrusted } from './trust';

const RUNNING_COMMANDS = new Set(['thund.preview', 'thund.runDownstream', 'thund.sparkDryRun']);

/** The settings thund-lsp reads (lsp.Settings): the "thund" section, as it is. */
export function serverSettings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration('thund');
  return {
    backends: c.get<string[]>('backends', []),
    sparkRemote: c.get<string>('sparkRemote', ''),
    samples: c.get<Record<string, string>>('samples', {}),
    previewLimit: c.get<number>('previewLimit', 0),
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
      documentSelector: [{ scheme: 'file', language: 'sql' }],
      initializationOptions: serverSettings(),
      // Settings go to the server as didChangeConfiguration; file watching
      // the server registers itself (dynamic didChangeWatchedFiles).
      synchronize: { configurationSection: 'thund' },
      outputChannel: this.output,
      middleware: {
        // In Restricted Mode nothing may run SQL: the server's Preview and
        // Run lenses become one lens that says so.
        provideCodeLenses: async (doc, token, next) => {
          const lenses = await next(doc, token);
          if (!lenses || isTrusted()) return lenses;
          const out: vscode.CodeLens[] = [];
          const seen = new Set<string>();
          for (const l of lenses) {
            if (l.command && RUNNING_COMMANDS.has(l.command.command)) {
              const k = `${l.range.start.line}:${l.range.start.character}`;
              if (seen.has(k)) continue;
              seen.add(k);
              out.push(
                new vscode.CodeLens(l.range, {
                  title: '$(shield) Restricted Mode: previews are off',
                  command: 'workbench.trust.manage',
                  tooltip: 'Trust this workspace to let Thund run SQL',
                }),
              );
            } else {
              out.push(l);
            }
          }
          return out;
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
    return send<PreviewResult>(c, 'thund/preview', params, token);
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
      return await send<RunResult>(c, 'thund/run', { ...params, workDoneToken }, token);
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
