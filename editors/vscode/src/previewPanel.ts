// The preview panel: one webview per dataset, fed by thund/preview.

import * as crypto from 'crypto';
import * as vscode from 'vscode';

import type { DatasetRef, PreviewInbound, PreviewOutbound } from './protocol';
import { errorText, isCancelled, RestrictedError, ThundServer } from './server';
import { makeNonce, shellHtml } from './shell';
import { BASE_CSS } from './styles';
import { rootOf, toPath, under } from './pipelines';
import { isTrusted } from './trust';

export function webviewHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  script: string,
  title: string,
  css: string,
): string {
  const scriptUri = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', script)).toString();
  return shellHtml({ cspSource: webview.cspSource, nonce: makeNonce((n) => crypto.randomBytes(n)), scriptUri, title, css });
}

export class PreviewPanel {
  private static readonly panels = new Map<string, PreviewPanel>();

  static show(ctx: vscode.ExtensionContext, server: ThundServer, ref: DatasetRef): PreviewPanel {
    const key = `${toPath(ref.uri)}#${ref.dataset.toLowerCase()}`;
    const have = PreviewPanel.panels.get(key);
    if (have) {
      have.panel.reveal(undefined, true);
      have.load(have.offset, 'refresh');
      return have;
    }
    const p = new PreviewPanel(ctx, server, ref, key);
    PreviewPanel.panels.set(key, p);
    return p;
  }

  /** Refreshes the open previews of the pipeline holding the saved file. */
  static refreshFor(saved: vscode.Uri): void {
    const root = rootOf(saved);
    if (!root) return;
    for (const p of PreviewPanel.panels.values()) {
      if (under(vscode.Uri.parse(p.ref.uri), root)) p.scheduleRefresh();
    }
  }

  static refreshAll(): void {
    for (const p of PreviewPanel.panels.values()) p.load(p.offset, 'refresh');
  }

  static all(): PreviewPanel[] {
    return [...PreviewPanel.panels.values()];
  }

  readonly panel: vscode.WebviewPanel;
  private offset = 0;
  private inflight: vscode.CancellationTokenSource | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  private constructor(
    ctx: vscode.ExtensionContext,
    private readonly server: ThundServer,
    readonly ref: DatasetRef,
    private readonly key: string,
  ) {
    this.panel = vscode.window.createWebviewPanel(
      'thund.preview',
      `Preview: ${ref.dataset}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [vscode.Uri.joinPath(ctx.extensionUri, 'dist', 'webview')],
      },
    );
    this.panel.webview.html = webviewHtml(this.panel.webview, ctx.extensionUri, 'preview.js', `Preview ${ref.dataset}`, BASE_CSS);
    this.panel.webview.onDidReceiveMessage((m: PreviewOutbound) => this.onMessage(m), undefined, this.disposables);
    this.panel.onDidDispose(() => this.dispose(), undefined, this.disposables);
  }

  private onMessage(m: PreviewOutbound): void {
    switch (m.type) {
      case 'ready':
        this.load(0, 'refresh');
        break;
      case 'page':
        this.load(Math.max(0, m.offset), 'page');
        break;
      case 'refresh':
        this.load(this.offset, 'refresh');
        break;
      case 'trust':
        void vscode.commands.executeCommand('workbench.trust.manage');
        break;
    }
  }

  private post(m: PreviewInbound): void {
    void this.panel.webview.postMessage(m);
  }

  scheduleRefresh(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.load(this.offset, 'refresh'), 250);
  }

  load(offset: number, reason: 'refresh' | 'page'): void {
    if (!isTrusted()) {
      this.post({ type: 'untrusted', dataset: this.ref.dataset });
      return;
    }
    this.inflight?.cancel();
    const cts = new vscode.CancellationTokenSource();
    this.inflight = cts;
    const limit = vscode.workspace.getConfiguration('thund').get<number>('preview.pageSize', 100);
    this.post({ type: 'loading', dataset: this.ref.dataset });
    this.server
      .preview({ uri: this.ref.uri, dataset: this.ref.dataset, offset, limit }, cts.token)
      .then((result) => {
        if (cts.token.isCancellationRequested) return;
        // Past the end (the dataset shrank): go back to the last page.
        if (result.rows.length === 0 && offset > 0 && result.total_rows > 0 && !result.error) {
          const last = Math.floor((result.total_rows - 1) / limit) * limit;
          this.load(last, reason);
          return;
        }
        this.offset = result.offset;
        this.post({ type: 'data', result, pageSize: limit, reason });
      })
      .catch((e: unknown) => {
        if (cts.token.isCancellationRequested || isCancelled(e)) return;
        if (e instanceof RestrictedError) this.post({ type: 'untrusted', dataset: this.ref.dataset });
        else this.post({ type: 'error', dataset: this.ref.dataset, message: errorText(e) });
      })
      .finally(() => {
        if (this.inflight === cts) this.inflight = undefined;
        cts.dispose();
      });
  }

  private dispose(): void {
    this.inflight?.cancel();
    if (this.timer) clearTimeout(this.timer);
    PreviewPanel.panels.delete(this.key);
    for (const d of this.disposables) d.dispose();
  }
}
