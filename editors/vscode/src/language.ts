// The language mode of pipeline SQL. VS Code opens every .sql file as
// `sql` ("MS SQL", the built-in grammar's name). A .sql file inside a
// pipeline is switched to `thund-sql` ("Spark Pipeline SQL": SQL with
// pragma highlighting) when it opens, so the status bar says what the file
// is. The extension does not claim the .sql extension itself: files
// outside a pipeline stay `sql`, as other SQL extensions expect. With
// thund.sqlLanguage set to "sql", pipeline files stay `sql` too (for
// users who want another SQL extension there); Thund serves both
// languages, and its grammar injection highlights pragmas in either.

import * as vscode from 'vscode';

import { rootOf } from './pipelines';
import { PIPELINE_SQL, shouldSwitch } from './languageMode';

export { PIPELINE_SQL };

export class PipelineLanguage implements vscode.Disposable {
  /** Documents switched in this window; one the user set back to sql stays sql. */
  private readonly switched = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    this.disposables.push(
      vscode.workspace.onDidOpenTextDocument((d) => void this.apply(d)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('thund.sqlLanguage')) this.applyAll();
      }),
    );
    this.applyAll();
  }

  private applyAll(): void {
    for (const d of vscode.workspace.textDocuments) void this.apply(d);
  }

  private async apply(doc: vscode.TextDocument): Promise<void> {
    const key = doc.uri.toString();
    const setting = vscode.workspace.getConfiguration('thund').get<string>('sqlLanguage', 'pipeline');
    if (setting === 'sql' && doc.languageId === PIPELINE_SQL && this.switched.has(key)) {
      this.switched.delete(key);
      await vscode.languages.setTextDocumentLanguage(doc, 'sql');
      return;
    }
    const ok = shouldSwitch(
      { languageId: doc.languageId, scheme: doc.uri.scheme, inPipeline: rootOf(doc.uri) !== undefined, userChose: this.switched.has(key) },
      setting,
    );
    if (!ok) return;
    this.switched.add(key);
    try {
      await vscode.languages.setTextDocumentLanguage(doc, PIPELINE_SQL);
    } catch {
      // the document closed meanwhile
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
