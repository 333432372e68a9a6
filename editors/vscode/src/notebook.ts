// The notebook view of a pipeline.
//
// Approach. A pipeline opens as a virtual notebook document,
// `thund-notebook:/<root>/<folder>.thundnb`, served by a small file system
// provider. Its content is only a pointer to the pipeline root; the
// serializer builds the cells from the pipeline itself: thund/graph gives the
// datasets in topological order, and each .sql file becomes one code cell
// (its source the file's text, from the open editor if the file is open).
//
// Two-way editing. A cell's text and its file's text are kept equal live:
// an edit in a cell is applied to the file's text document (which the
// language server sees at once, so diagnostics and previews follow the
// cell), and an edit to the file, in an editor or on disk, is applied to the
// cell. Saving the notebook saves the files it changed; saving a file saves
// the notebook when nothing else in it is unsaved.
//
// Limits. New cells, deleted or reordered cells and markdown cells are not
// written anywhere (cells map to existing files only); a new or deleted
// .sql file shows up when the notebook is reopened; closing a notebook
// without saving leaves the files it edited unsaved in the background, to
// save or revert from their own editors.

import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

import { PIPELINE_SQL } from './language';
import { cellsToRefresh, planCells } from './notebookModel';
import { anchorOf, rootOf, samePath, toPath } from './pipelines';
import type { GraphResult, PreviewResult, RunResult } from './protocol';
import { escapeHtml, renderError, renderNotebookOutput, renderTextTable, runNote, UNTRUSTED_TEXT } from './render';
import { errorText, isCancelled, ThundServer } from './server';
import { NOTEBOOK_CSS } from './styles';
import { isTrusted } from './trust';

export const NOTEBOOK_TYPE = 'thund-notebook';
export const NOTEBOOK_SCHEME = 'thund-notebook';

interface Stored {
  version: 1;
  root: string;
  cells?: { file: string; text: string }[];
}

interface CellMeta {
  file?: string;
  datasets?: string[];
}

const enc = new TextEncoder();
const dec = new TextDecoder();

export function notebookUri(root: string): vscode.Uri {
  return vscode.Uri.from({ scheme: NOTEBOOK_SCHEME, path: `${root.replace(/\\/g, '/')}/${path.basename(root)}.thundnb` });
}

function rootOfNotebookUri(uri: vscode.Uri): string {
  return path.dirname(uri.fsPath);
}

function isThundNotebook(nb: vscode.NotebookDocument): boolean {
  return nb.notebookType === NOTEBOOK_TYPE;
}

function metaOf(cell: vscode.NotebookCell | vscode.NotebookCellData): CellMeta {
  return (cell.metadata ?? {}) as CellMeta;
}

function openDoc(file: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && samePath(d.uri.fsPath, file));
}

function fullRange(doc: vscode.TextDocument): vscode.Range {
  return new vscode.Range(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end);
}

/** The virtual file behind each pipeline notebook: only a pointer to its root. */
class NotebookFs implements vscode.FileSystemProvider {
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;
  private readonly mtimes = new Map<string, number>();
  saving = 0;
  /**
   * Resolves when no cell-to-file sync of the file is in flight (set by the
   * controller): a save waits for it, or a sync's late edit would leave the
   * saved file dirty again.
   */
  settled: (file: string) => Promise<void> = async () => undefined;

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  private content(uri: vscode.Uri): Uint8Array {
    const s: Stored = { version: 1, root: rootOfNotebookUri(uri) };
    return enc.encode(JSON.stringify(s));
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const root = rootOfNotebookUri(uri);
    if (!rootOf(vscode.Uri.file(path.join(root, 'x.sql')))) throw vscode.FileSystemError.FileNotFound(uri);
    const k = uri.toString();
    if (!this.mtimes.has(k)) this.mtimes.set(k, Date.now());
    return { type: vscode.FileType.File, ctime: 0, mtime: this.mtimes.get(k)!, size: this.content(uri).byteLength };
  }

  readFile(uri: vscode.Uri): Uint8Array {
    this.stat(uri);
    return this.content(uri);
  }

  /** Saving the notebook: write each cell's text to its file. */
  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    const s = JSON.parse(dec.decode(content)) as Stored;
    this.saving++;
    try {
      for (const c of s.cells ?? []) {
        const file = toPath(c.file);
        await this.settled(file);
        const doc = openDoc(file);
        if (doc) {
          if (doc.getText() !== c.text) {
            const edit = new vscode.WorkspaceEdit();
            edit.replace(doc.uri, fullRange(doc), c.text);
            await vscode.workspace.applyEdit(edit);
          }
          if (doc.isDirty) await doc.save();
        } else {
          let disk: string | undefined;
          try {
            disk = fs.readFileSync(file, 'utf8');
          } catch {
            disk = undefined;
          }
          if (disk !== c.text) await vscode.workspace.fs.writeFile(vscode.Uri.file(file), enc.encode(c.text));
        }
      }
    } finally {
      this.saving--;
    }
    this.mtimes.set(uri.toString(), Date.now());
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }
  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  delete(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
}

class Serializer implements vscode.NotebookSerializer {
  constructor(private readonly server: ThundServer) {}

  async deserializeNotebook(content: Uint8Array): Promise<vscode.NotebookData> {
    const s = JSON.parse(dec.decode(content)) as Stored;
    const graph = await this.server.graph(anchorOf(s.root));
    const cells = planCells(graph).map((p) => {
      const file = toPath(p.uri);
      const text = openDoc(file)?.getText() ?? readText(file);
      const lang = vscode.workspace.getConfiguration('thund').get<string>('sqlLanguage', 'pipeline') === 'sql' ? 'sql' : PIPELINE_SQL;
      const cell = new vscode.NotebookCellData(vscode.NotebookCellKind.Code, text, lang);
      cell.metadata = { file: p.uri, datasets: p.datasets } satisfies CellMeta;
      return cell;
    });
    if (cells.length === 0) {
      cells.push(
        new vscode.NotebookCellData(
          vscode.NotebookCellKind.Markup,
          `# ${graph.pipeline}\n\nThis pipeline defines no datasets in .sql files yet.`,
          'markdown',
        ),
      );
    }
    const data = new vscode.NotebookData(cells);
    data.metadata = { root: s.root, pipeline: graph.pipeline };
    return data;
  }

  serializeNotebook(data: vscode.NotebookData): Uint8Array {
    const root = (data.metadata?.root as string | undefined) ?? '';
    const cells = data.cells
      .filter((c) => c.kind === vscode.NotebookCellKind.Code && metaOf(c).file)
      .map((c) => ({ file: metaOf(c).file!, text: c.value }));
    const s: Stored = { version: 1, root, cells };
    return enc.encode(JSON.stringify(s));
  }
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    return `-- could not read ${file}: ${errorText(e)}`;
  }
}

export class PipelineNotebooks implements vscode.Disposable {
  private readonly fsProvider = new NotebookFs();
  private readonly controller: vscode.NotebookController;
  private readonly disposables: vscode.Disposable[] = [];
  /** Files with a cell-to-file edit in flight: their change events are echoes. */
  private readonly syncing = new Set<string>();
  /** The running cell-to-file sync per file, for NotebookFs.settled. */
  private readonly syncs = new Map<string, Promise<void>>();
  private readonly pending = new Map<string, Set<string>>(); // notebook -> changed files
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Map<string, vscode.CancellationTokenSource>(); // notebook -> run all
  private order = 0;

  constructor(
    private readonly server: ThundServer,
    private readonly output: vscode.OutputChannel,
  ) {
    this.fsProvider.settled = async (file) => {
      for (let sync = this.syncs.get(file); sync; sync = this.syncs.get(file)) await sync.catch(() => undefined);
    };
    this.disposables.push(
      vscode.workspace.registerFileSystemProvider(NOTEBOOK_SCHEME, this.fsProvider, { isCaseSensitive: true }),
      vscode.workspace.registerNotebookSerializer(NOTEBOOK_TYPE, new Serializer(server), {
        transientOutputs: true,
        transientCellMetadata: { inputCollapsed: true, outputCollapsed: true },
      }),
    );
    this.controller = vscode.notebooks.createNotebookController('thund-notebook-controller', NOTEBOOK_TYPE, 'Thund');
    this.controller.supportedLanguages = [PIPELINE_SQL, 'sql'];
    this.controller.supportsExecutionOrder = true;
    this.controller.description = 'Preview on embedded DuckDB';
    this.controller.executeHandler = (cells, nb) => this.execute(cells, nb);
    this.controller.interruptHandler = (nb) => this.running.get(nb.uri.toString())?.cancel();
    this.disposables.push(
      this.controller,
      vscode.workspace.onDidChangeTextDocument((e) => this.onTextChanged(e)),
      vscode.workspace.onDidSaveTextDocument((d) => this.onSaved(d)),
      vscode.workspace.onDidSaveNotebookDocument((nb) => {
        if (isThundNotebook(nb)) for (const c of nb.getCells()) this.changed(nb, metaOf(c).file, true);
      }),
    );
    const watcher = vscode.workspace.createFileSystemWatcher('**/*.sql');
    watcher.onDidChange((u) => this.onDiskChanged(u), undefined, this.disposables);
    this.disposables.push(watcher);
  }

  async open(root: string): Promise<vscode.NotebookEditor> {
    const doc = await vscode.workspace.openNotebookDocument(notebookUri(root));
    this.controller.updateNotebookAffinity(doc, vscode.NotebookControllerAffinity.Preferred);
    return vscode.window.showNotebookDocument(doc, { preview: false });
  }

  private notebooks(): vscode.NotebookDocument[] {
    return vscode.workspace.notebookDocuments.filter(isThundNotebook);
  }

  /** Keeps cells and files equal as either is edited. */
  private onTextChanged(e: vscode.TextDocumentChangeEvent): void {
    if (e.contentChanges.length === 0) return;
    const doc = e.document;
    if (doc.uri.scheme === 'vscode-notebook-cell') {
      for (const nb of this.notebooks()) {
        const cell = nb.getCells().find((c) => c.document === doc);
        const file = cell && metaOf(cell).file;
        if (!cell || !file) continue;
        void this.cellToFile(cell, toPath(file));
        this.changed(nb, file, false);
      }
      return;
    }
    if (doc.uri.scheme !== 'file' || this.syncing.has(doc.uri.fsPath)) return;
    this.fileToCells(doc.uri.fsPath, doc.getText());
  }

  private cellToFile(cell: vscode.NotebookCell, file: string): Promise<void> {
    this.trace(`cell changed: ${file}`);
    const running = this.syncs.get(file);
    if (running) return running; // its loop picks the new text up
    const sync = this.syncCell(cell, file).finally(() => this.syncs.delete(file));
    this.syncs.set(file, sync);
    return sync;
  }

  private async syncCell(cell: vscode.NotebookCell, file: string): Promise<void> {
    this.syncing.add(file);
    try {
      for (let i = 0; i < 20; i++) {
        const text = cell.document.getText();
        const doc = openDoc(file) ?? (await vscode.workspace.openTextDocument(vscode.Uri.file(file)));
        if (doc.getText() === text) break;
        const edit = new vscode.WorkspaceEdit();
        edit.replace(doc.uri, fullRange(doc), text);
        if (!(await vscode.workspace.applyEdit(edit))) break;
      }
    } finally {
      this.syncing.delete(file);
    }
  }

  private trace(msg: string): void {
    if (vscode.workspace.getConfiguration('thund').get<string>('trace.server', 'off') !== 'off') this.output.appendLine(`[notebook] ${msg}`);
  }

  private fileToCells(file: string, text: string): void {
    this.trace(`file changed: ${file}`);
    for (const nb of this.notebooks()) {
      for (const cell of nb.getCells()) {
        const f = metaOf(cell).file;
        if (!f || !samePath(toPath(f), file) || cell.document.getText() === text) continue;
        const edit = new vscode.WorkspaceEdit();
        edit.replace(cell.document.uri, fullRange(cell.document), text);
        void vscode.workspace.applyEdit(edit);
        this.changed(nb, f, false);
      }
    }
  }

  private onDiskChanged(uri: vscode.Uri): void {
    this.trace(`disk changed: ${uri.fsPath} (open: ${!!openDoc(uri.fsPath)}, saving: ${this.fsProvider.saving})`);
    if (openDoc(uri.fsPath) || this.fsProvider.saving > 0) return; // open files report through their documents
    this.fileToCells(uri.fsPath, readText(uri.fsPath));
  }

  private onSaved(doc: vscode.TextDocument): void {
    if (doc.uri.scheme !== 'file' || this.fsProvider.saving > 0) return;
    for (const nb of this.notebooks()) {
      const cells = nb.getCells().filter((c) => metaOf(c).file);
      if (!cells.some((c) => samePath(toPath(metaOf(c).file!), doc.uri.fsPath))) continue;
      this.changed(nb, doc.uri.toString(), true);
      // Saved from its editor: the notebook is saved too when no other
      // cell's file has unsaved changes.
      const othersClean = cells.every((c) => !openDoc(toPath(metaOf(c).file!))?.isDirty);
      const same = cells.every((c) => c.document.getText() === (openDoc(toPath(metaOf(c).file!))?.getText() ?? c.document.getText()));
      if (nb.isDirty && othersClean && same) void nb.save();
    }
  }

  /** Notes a changed file; the outputs downstream of it refresh shortly. */
  private changed(nb: vscode.NotebookDocument, file: string | undefined, saved: boolean): void {
    if (!file) return;
    const delay = vscode.workspace.getConfiguration('thund').get<number>('notebook.refreshDelay', 1000);
    if (!saved && delay <= 0) return;
    const key = nb.uri.toString();
    if (!this.pending.has(key)) this.pending.set(key, new Set());
    this.pending.get(key)!.add(toPath(file));
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.set(
      key,
      setTimeout(() => void this.refreshOutputs(nb), saved ? 200 : delay),
    );
  }

  private async refreshOutputs(nb: vscode.NotebookDocument): Promise<void> {
    const key = nb.uri.toString();
    const files = this.pending.get(key) ?? new Set<string>();
    this.pending.delete(key);
    this.timers.delete(key);
    if (nb.isClosed || !isTrusted() || files.size === 0) return;
    const root = nb.metadata?.root as string | undefined;
    if (!root) return;
    let graph: GraphResult;
    try {
      graph = await this.server.graph(anchorOf(root));
    } catch {
      return;
    }
    const plans = planCells(graph);
    const want = new Set<string>();
    for (const f of files) {
      const plan = plans.find((p) => samePath(toPath(p.uri), f));
      if (!plan) continue;
      for (const p of cellsToRefresh(graph, plans, plan.uri)) want.add(toPath(p.uri));
    }
    // Only cells that show an output already: a refresh never runs a cell
    // the user has not run.
    const cells = nb
      .getCells()
      .filter((c) => c.outputs.length > 0 && metaOf(c).file && want.has(toPath(metaOf(c).file!)));
    if (cells.length) await this.executeEach(cells);
  }

  private async execute(cells: vscode.NotebookCell[], nb: vscode.NotebookDocument): Promise<void> {
    if (!isTrusted()) {
      for (const cell of cells) {
        const exec = this.controller.createNotebookCellExecution(cell);
        exec.start(Date.now());
        await exec.replaceOutput(htmlOutput(`<div class="thund-nb untrusted"><p>${escapeHtml(UNTRUSTED_TEXT)}</p></div>`, UNTRUSTED_TEXT));
        exec.end(false, Date.now());
      }
      return;
    }
    const code = nb.getCells().filter((c) => c.kind === vscode.NotebookCellKind.Code);
    const all = code.length > 1 && code.every((c) => cells.includes(c));
    if (all) await this.runAll(cells, nb);
    else await this.executeEach(cells);
  }

  /** Run All: one pipeline run, then each cell's preview. */
  private async runAll(cells: vscode.NotebookCell[], nb: vscode.NotebookDocument): Promise<void> {
    const root = nb.metadata?.root as string | undefined;
    const execs = cells.map((c) => {
      const e = this.controller.createNotebookCellExecution(c);
      e.executionOrder = ++this.order;
      e.start(Date.now());
      return e;
    });
    const cts = new vscode.CancellationTokenSource();
    this.running.set(nb.uri.toString(), cts);
    for (const e of execs) e.token.onCancellationRequested(() => cts.cancel());
    let run: RunResult | undefined;
    try {
      if (root) run = await this.server.run({ uri: anchorOf(root) }, cts.token);
      for (const e of execs) {
        if (cts.token.isCancellationRequested) {
          e.end(undefined, Date.now());
          continue;
        }
        await this.fill(e, cts.token, run ? runNote(run, metaOf(e.cell).datasets ?? []) : '');
      }
    } catch (err) {
      for (const e of execs) {
        if (!isCancelled(err)) await e.replaceOutput(errorOutput(errorText(err)));
        e.end(isCancelled(err) ? undefined : false, Date.now());
      }
    } finally {
      this.running.delete(nb.uri.toString());
      cts.dispose();
    }
  }

  private async executeEach(cells: vscode.NotebookCell[]): Promise<void> {
    for (const cell of cells) {
      const e = this.controller.createNotebookCellExecution(cell);
      e.executionOrder = ++this.order;
      e.start(Date.now());
      await this.fill(e, e.token);
    }
  }

  /** Previews the cell's datasets into its output, and ends the execution. */
  private async fill(e: vscode.NotebookCellExecution, token: vscode.CancellationToken, note = ''): Promise<void> {
    const meta = metaOf(e.cell);
    if (!meta.file || !meta.datasets?.length) {
      await e.replaceOutput(
        errorOutput('This cell is not backed by a .sql file, so it has nothing to preview. Add a .sql file to the pipeline and reopen the notebook.'),
      );
      e.end(false, Date.now());
      return;
    }
    const limit = vscode.workspace.getConfiguration('thund').get<number>('notebook.previewRows', 20);
    const results: PreviewResult[] = [];
    try {
      for (const ds of meta.datasets) {
        results.push(await this.server.preview({ uri: meta.file, dataset: ds, offset: 0, limit }, token));
      }
    } catch (err) {
      if (isCancelled(err) || token.isCancellationRequested) {
        e.end(undefined, Date.now());
        return;
      }
      await e.replaceOutput(errorOutput(errorText(err)));
      e.end(false, Date.now());
      return;
    }
    const html =
      (note ? `<div class="thund-nb"><p class="muted">${escapeHtml(note)}</p></div>` : '') + renderNotebookOutput(results, limit);
    await e.replaceOutput(htmlOutput(html, results.map((r) => renderTextTable(r)).join('\n\n')));
    e.end(results.every((r) => !r.error), Date.now());
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const c of this.running.values()) c.cancel();
    for (const d of this.disposables) d.dispose();
  }
}

function htmlOutput(html: string, text: string): vscode.NotebookCellOutput {
  return new vscode.NotebookCellOutput([
    vscode.NotebookCellOutputItem.text(`<style>${NOTEBOOK_CSS}</style>${html}`, 'text/html'),
    vscode.NotebookCellOutputItem.text(text, 'text/plain'),
  ]);
}

function errorOutput(message: string): vscode.NotebookCellOutput {
  return htmlOutput(`<div class="thund-nb">${renderError('', message)}</div>`, message);
}
