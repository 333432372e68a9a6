// The status bar item: pipeline, error count, last run; or Restricted Mode.

import * as vscode from 'vscode';

import { under } from './pipelines';
import { isTrusted } from './trust';

export interface LastRun {
  at: Date;
  elapsedMs: number;
  failed: boolean;
  datasets: number;
}

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('thund.status', vscode.StatusBarAlignment.Left, 50);
  root: string | undefined;
  pipeline: string | undefined;
  readonly lastRuns = new Map<string, LastRun>();
  serverState: 'starting' | 'running' | 'stopped' = 'starting';

  constructor() {
    this.item.name = 'Thund';
    this.item.command = 'thund.statusMenu';
    this.update();
    this.item.show();
  }

  errorCount(): number {
    if (!this.root) return 0;
    let n = 0;
    for (const [uri, diags] of vscode.languages.getDiagnostics()) {
      if (!under(uri, this.root)) continue;
      n += diags.filter((d) => d.severity === vscode.DiagnosticSeverity.Error).length;
    }
    return n;
  }

  update(): void {
    const name = this.pipeline ?? (this.root ? this.root.split(/[\\/]/).pop() : undefined) ?? 'no pipeline';
    const errs = this.errorCount();
    const run = this.root ? this.lastRuns.get(this.root) : undefined;
    const parts = [`$(database) ${name}`];
    if (this.serverState !== 'running') parts.push(this.serverState === 'starting' ? '$(sync~spin)' : '$(debug-disconnect) server stopped');
    parts.push(errs > 0 ? `$(error) ${errs}` : '$(check) 0');
    if (!isTrusted()) {
      parts.push('$(shield) Restricted');
    } else if (run) {
      parts.push(`$(history) ${run.failed ? 'failed' : 'ran'} ${run.at.toLocaleTimeString()}`);
    }
    this.item.text = parts.join('  ');
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown(`**Thund** pipeline \`${name}\`${this.root ? ` at \`${this.root}\`` : ''}\n\n`);
    tip.appendMarkdown(`${errs} error${errs === 1 ? '' : 's'} in this pipeline\n\n`);
    if (!isTrusted()) {
      tip.appendMarkdown('Restricted Mode: the workspace is not trusted, so Thund shows diagnostics only and runs no SQL.\n\n');
    } else if (run) {
      tip.appendMarkdown(
        `Last run ${run.at.toLocaleString()}: ${run.datasets} datasets in ${run.elapsedMs} ms${run.failed ? ', **failed**' : ''}\n\n`,
      );
    } else {
      tip.appendMarkdown('Not run yet in this session.\n\n');
    }
    tip.appendMarkdown('Click for Thund commands.');
    this.item.tooltip = tip;
  }

  dispose(): void {
    this.item.dispose();
  }
}
