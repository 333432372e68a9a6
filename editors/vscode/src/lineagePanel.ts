// The lineage panel: the pipeline graph from thund/graph, with each
// dataset's error count, kept live on saves and diagnostics changes; and,
// from thund/lineage, each dataset's columns, which the webview expands
// and whose upstream and downstream it highlights.

import * as vscode from 'vscode';

import type { DatasetRecord } from './lenses';
import type { GraphResult, LineageInbound, LineageOutbound, NodeRun } from './protocol';
import { errorText, ThundServer } from './server';
import { LINEAGE_CSS, BASE_CSS } from './styles';
import { anchorOf, rootOf, toPath } from './pipelines';
import { webviewHtml } from './previewPanel';
import { COLUMN_CSS, type ColumnsInbound } from './columnLineage';

/** Error diagnostics per graph node (keyed by the node's file and line span). */
export function errorsByNode(graph: GraphResult): Record<string, number> {
  const out: Record<string, number> = {};
  const byFile = new Map<string, { id: string; line: number }[]>();
  for (const n of graph.nodes) {
    if (!n.uri) continue;
    const k = toPath(n.uri);
    if (!byFile.has(k)) byFile.set(k, []);
    byFile.get(k)!.push({ id: n.id, line: n.line });
  }
  for (const [file, nodes] of byFile) {
    nodes.sort((a, b) => a.line - b.line);
    for (const d of vscode.languages.getDiagnostics(vscode.Uri.file(file))) {
      if (d.severity !== vscode.DiagnosticSeverity.Error) continue;
      // A file with several datasets: charge the one whose definition
      // starts at or before the diagnostic.
      let owner = nodes[0];
      for (const n of nodes) if (n.line <= d.range.start.line) owner = n;
      out[owner.id] = (out[owner.id] ?? 0) + 1;
    }
  }
  return out;
}

/** Each dataset node's last preview or run, from what the extension recorded. */
export function runsByNode(graph: GraphResult, records: ReadonlyMap<string, DatasetRecord> | undefined): Record<string, NodeRun> {
  const out: Record<string, NodeRun> = {};
  if (!records) return out;
  for (const n of graph.nodes) {
    if (n.kind === 'source') continue;
    const r = records.get(n.name.toLowerCase());
    if (r) out[n.id] = { phase: r.phase, rows: r.rows, elapsed_ms: r.elapsedMs, at: r.at };
  }
  return out;
}

export class LineagePanel {
  private static readonly panels = new Map<string, LineagePanel>();

  static show(ctx: vscode.ExtensionContext, server: ThundServer, root: string): LineagePanel {
    const have = LineagePanel.panels.get(root);
    if (have) {
      have.panel.reveal();
      have.refresh();
      return have;
    }
    const p = new LineagePanel(ctx, server, root);
    LineagePanel.panels.set(root, p);
    return p;
  }

  static refreshFor(uri: vscode.Uri): void {
    const root = rootOf(uri);
    const p = root ? LineagePanel.panels.get(root) : undefined;
    p?.schedule();
  }

  /** Redraws the graph of a root (after a preview or run there). */
  static refreshRoot(root: string): void {
    LineagePanel.panels.get(root)?.schedule();
  }

  static refreshAll(): void {
    for (const p of LineagePanel.panels.values()) p.schedule();
  }

  readonly panel: vscode.WebviewPanel;
  private timer: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  private constructor(
    ctx: vscode.ExtensionContext,
    private readonly server: ThundServer,
    private readonly root: string,
  ) {
    this.panel = vscode.window.createWebviewPanel(
      'thund.lineage',
      'Lineage',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [vscode.Uri.joinPath(ctx.extensionUri, 'dist', 'webview')] },
    );
    this.panel.webview.html = webviewHtml(this.panel.webview, ctx.extensionUri, 'lineage.js', 'Lineage', BASE_CSS + LINEAGE_CSS + COLUMN_CSS);
    this.panel.webview.onDidReceiveMessage((m: LineageOutbound) => this.onMessage(m), undefined, this.disposables);
    this.panel.onDidDispose(() => this.dispose(), undefined, this.disposables);
  }

  private onMessage(m: LineageOutbound): void {
    switch (m.type) {
      case 'ready':
      case 'refresh':
        this.refresh();
        break;
      case 'open': {
        const uri = vscode.Uri.parse(m.uri);
        if (uri.scheme !== 'file') return;
        const pos = new vscode.Position(Math.max(0, m.line), 0);
        void vscode.commands.executeCommand('vscode.open', uri, {
          selection: new vscode.Range(pos, pos),
          viewColumn: vscode.ViewColumn.One,
        } satisfies vscode.TextDocumentShowOptions);
        break;
      }
    }
  }

  private post(m: LineageInbound | ColumnsInbound): void {
    void this.panel.webview.postMessage(m);
  }

  schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), 300);
  }

  refresh(): void {
    this.server
      .graph(anchorOf(this.root))
      .then((graph) => {
        this.panel.title = `Lineage: ${graph.pipeline}`;
        this.post({ type: 'graph', graph, errors: errorsByNode(graph), runs: runsByNode(graph, this.server.records.get(this.root)) });
        // A server without thund/lineage (an older thund-lsp) leaves the
        // graph at the dataset level.
        if (!this.server.requests().includes('thund/lineage')) return;
        return this.server.lineage(anchorOf(this.root)).then((result) => this.post({ type: 'columns', result }));
      })
      .catch((e: unknown) => this.post({ type: 'error', message: errorText(e) }));
  }

  private dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    LineagePanel.panels.delete(this.root);
    for (const d of this.disposables) d.dispose();
  }
}
