// Thund for VS Code: starts thund-lsp, and adds previews, lineage, the
// notebook view, pipeline runs and a status bar item on top of it.

import * as vscode from 'vscode';

import { PipelineLanguage } from './language';
import { LineagePanel } from './lineagePanel';
import { PipelineNotebooks } from './notebook';
import { anchorOf, currentRoot, rootOf, samePath, toPath } from './pipelines';
import { PreviewPanel } from './previewPanel';
import type { DatasetRef, GraphNode, RunResult, SparkDryRunResult } from './protocol';
import { remoteUnconfirmed } from './protocol';
import { sparkReport, sparkSummary } from './render';
import { errorText, isCancelled, SQL_LANGUAGES, ThundServer } from './server';
import { StatusItem } from './status';
import { isTrusted, requireTrust } from './trust';

let server: ThundServer | undefined;

export async function activate(ctx: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('Thund');
  const srv = new ThundServer(ctx, output);
  server = srv;
  const status = new StatusItem();
  const notebooks = new PipelineNotebooks(srv, output);
  ctx.subscriptions.push(output, srv, status, notebooks, new PipelineLanguage());

  const setContext = () => void vscode.commands.executeCommand('setContext', 'thund.trusted', isTrusted());
  setContext();

  const updateStatus = async () => {
    const root = await currentRoot();
    if (root !== status.root) {
      status.root = root;
      status.pipeline = undefined;
      if (root && srv.running) {
        try {
          status.pipeline = (await srv.graph(anchorOf(root))).pipeline;
        } catch {
          // keep the folder name
        }
      }
    }
    status.serverState = srv.running ? 'running' : srv.client ? 'starting' : 'stopped';
    status.update();
  };

  ctx.subscriptions.push(
    srv.onRecord((root) => LineagePanel.refreshRoot(root)),
    srv.onReady(() => {
      status.root = undefined; // re-resolve the pipeline name
      void updateStatus();
    }),
    vscode.window.onDidChangeActiveTextEditor(() => void updateStatus()),
    vscode.languages.onDidChangeDiagnostics(() => {
      status.update();
      LineagePanel.refreshAll();
    }),
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (!rootOf(doc.uri)) return;
      if (vscode.workspace.getConfiguration('thund').get<boolean>('preview.refreshOnSave', true)) PreviewPanel.refreshFor(doc.uri);
      LineagePanel.refreshFor(doc.uri);
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      setContext();
      status.update();
      PreviewPanel.refreshAll();
      void srv.restart(); // re-ask for code lenses that may run SQL
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('thund.server.path')) {
        void vscode.window.showInformationMessage('Thund: the server path changed.', 'Restart Server').then((a) => {
          if (a) void srv.restart();
        });
      }
    }),
  );

  // Expectations that passed on the last run: a hint at the end of their
  // pragma line (the server sends them as information diagnostics; the
  // client middleware takes them out of the Problems view).
  ctx.subscriptions.push(
    vscode.languages.registerInlayHintsProvider(
      SQL_LANGUAGES.map((language) => ({ scheme: 'file', language })),
      {
        onDidChangeInlayHints: srv.onPasses,
        provideInlayHints: (doc, range) =>
          (srv.passes.get(doc.uri.toString()) ?? [])
            .filter((h) => h.line >= range.start.line && h.line <= range.end.line && h.line < doc.lineCount)
            .map((h) => {
              const hint = new vscode.InlayHint(doc.lineAt(h.line).range.end, h.label);
              hint.paddingLeft = true;
              hint.tooltip = h.tooltip;
              return hint;
            }),
      },
    ),
  );

  const command = (id: string, fn: (...args: any[]) => unknown) =>
    ctx.subscriptions.push(vscode.commands.registerCommand(id, fn));

  command('thund.preview', async (arg?: DatasetRef | vscode.Uri) => {
    if (!requireTrust('Preview')) return;
    const ref = await pickDataset(srv, arg, 'Preview which dataset?');
    if (ref) PreviewPanel.show(ctx, srv, ref);
  });

  command('thund.runPipeline', async (arg?: vscode.Uri) => {
    if (!requireTrust('Running the pipeline')) return;
    const root = arg instanceof vscode.Uri ? rootOf(arg) : await currentRoot();
    if (!root) return noPipeline();
    await runWithProgress(srv, status, output, root, undefined);
  });

  command('thund.runDownstream', async (arg?: DatasetRef | vscode.Uri) => {
    if (!requireTrust('Running downstream')) return;
    const ref = await pickDataset(srv, arg, 'Run which dataset and its downstream?');
    if (!ref) return;
    const root = rootOf(vscode.Uri.parse(ref.uri));
    if (!root) return noPipeline();
    await runWithProgress(srv, status, output, root, ref);
  });

  const sparkDiagnostics = vscode.languages.createDiagnosticCollection('thund-spark');
  ctx.subscriptions.push(sparkDiagnostics);
  command('thund.sparkDryRun', async (arg?: DatasetRef | vscode.Uri) => {
    if (!requireTrust('Spark dry run')) return;
    await srv.start();
    if (!srv.requests().includes('thund/sparkDryRun')) {
      void vscode.window.showInformationMessage(
        'Thund: Spark dry run is not available yet. This thund-lsp offers no request for it ' +
          `(it offers ${srv.requests().join(', ') || 'no custom requests'}); previews and runs use embedded DuckDB.`,
      );
      return;
    }
    // The dry run is of the whole pipeline: any file of it names it.
    const uri =
      arg instanceof vscode.Uri
        ? arg.toString()
        : arg && typeof arg.uri === 'string'
          ? arg.uri
          : await currentRoot().then((r) => (r ? anchorOf(r) : undefined));
    if (!uri) return noPipeline();
    let res: SparkDryRunResult;
    const dryRun = (allowRemote: boolean) =>
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Thund: Spark dry run', cancellable: true },
        (_p, token) => srv.request<SparkDryRunResult>('thund/sparkDryRun', { uri, allowRemote }, token),
      );
    try {
      try {
        res = await dryRun(false);
      } catch (e) {
        // The folder's thund.yaml names a server on another machine: ask
        // before its SQL leaves this one.
        const remote = remoteUnconfirmed(e);
        if (remote === undefined) throw e;
        const send = 'Send to ' + remote;
        const answer = await vscode.window.showWarningMessage(
          `Thund: this folder's thund.yaml sends the Spark dry run to ${remote}, which is not this machine. ` +
            "The pipeline's SQL will be sent there. Send it?",
          { modal: true },
          send,
        );
        if (answer !== send) return;
        res = await dryRun(true);
      }
    } catch (e) {
      if (!isCancelled(e)) void vscode.window.showErrorMessage(`Thund: Spark dry run failed: ${errorText(e)}`);
      return;
    }
    // Its problems go to the Problems view, at their files, until the next dry run.
    sparkDiagnostics.clear();
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const p of res.problems) {
      if (!p.uri) continue;
      const r = new vscode.Range(p.range.start.line, p.range.start.character, p.range.end.line, p.range.end.character);
      const d = new vscode.Diagnostic(r, `${p.refused ? 'not sent to Spark' : 'Spark'}: ${p.message}`, vscode.DiagnosticSeverity.Error);
      d.source = `thund ${res.backend}`;
      if (!byFile.has(p.uri)) byFile.set(p.uri, []);
      byFile.get(p.uri)!.push(d);
    }
    for (const [u, ds] of byFile) sparkDiagnostics.set(vscode.Uri.parse(u), ds);
    for (const line of sparkReport(res)) output.appendLine(line);
    const show = res.ok ? vscode.window.showInformationMessage(sparkSummary(res), 'Show Output') : vscode.window.showErrorMessage(sparkSummary(res), 'Show Output');
    void show.then((a) => {
      if (a) output.show(true);
    });
  });

  command('thund.showLineage', async (arg?: vscode.Uri) => {
    const root = arg instanceof vscode.Uri ? rootOf(arg) : await currentRoot();
    if (!root) return noPipeline();
    LineagePanel.show(ctx, srv, root);
  });

  command('thund.openNotebook', async (arg?: vscode.Uri) => {
    const root = arg instanceof vscode.Uri ? rootOf(arg) : await currentRoot();
    if (!root) return noPipeline();
    try {
      await notebooks.open(root);
    } catch (e) {
      void vscode.window.showErrorMessage(`Thund: could not open the notebook: ${errorText(e)}`);
    }
  });

  command('thund.restartServer', async () => {
    status.serverState = 'starting';
    status.update();
    await srv.restart();
    await updateStatus();
    void vscode.window.setStatusBarMessage('Thund: language server restarted', 3000);
  });

  command('thund.showOutput', () => output.show());

  command('thund.statusMenu', async () => {
    const items: (vscode.QuickPickItem & { cmd: string })[] = [
      { label: '$(table) Preview Dataset', cmd: 'thund.preview' },
      { label: '$(play) Run Pipeline', cmd: 'thund.runPipeline' },
      { label: '$(type-hierarchy) Show Lineage', cmd: 'thund.showLineage' },
      { label: '$(notebook) Open Pipeline as Notebook', cmd: 'thund.openNotebook' },
      { label: '$(debug-restart) Restart Server', cmd: 'thund.restartServer' },
      { label: '$(output) Show Output', cmd: 'thund.showOutput' },
    ];
    if (!isTrusted()) items.unshift({ label: '$(shield) Manage Workspace Trust', detail: 'Restricted Mode: Thund runs no SQL', cmd: 'workbench.trust.manage' });
    const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Thund' });
    if (pick) await vscode.commands.executeCommand(pick.cmd);
  });

  // Start the server now that the commands exist; diagnostics follow.
  void srv.start().then(() => updateStatus());
  void updateStatus();
}

export async function deactivate(): Promise<void> {
  await server?.client?.stop();
}

function noPipeline(): void {
  void vscode.window.showWarningMessage(
    'Thund: no pipeline here. Open a folder with spark-pipeline.yml or thund.yaml, or a .sql file inside one.',
  );
}

/** A dataset from a code lens argument, the active editor, or a quick pick. */
async function pickDataset(srv: ThundServer, arg: DatasetRef | vscode.Uri | undefined, prompt: string): Promise<DatasetRef | undefined> {
  if (arg && !(arg instanceof vscode.Uri) && typeof arg.uri === 'string' && typeof arg.dataset === 'string') {
    return { uri: arg.uri, dataset: arg.dataset };
  }
  const fileUri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  const root = fileUri && rootOf(fileUri) ? rootOf(fileUri) : await currentRoot();
  if (!root) {
    noPipeline();
    return undefined;
  }
  let nodes: GraphNode[];
  try {
    nodes = (await srv.graph(anchorOf(root))).nodes.filter((n) => n.kind !== 'source' && n.uri);
  } catch (e) {
    void vscode.window.showErrorMessage(`Thund: could not read the pipeline: ${errorText(e)}`);
    return undefined;
  }
  let candidates = nodes;
  if (fileUri && fileUri.scheme === 'file') {
    const inFile = nodes.filter((n) => samePath(toPath(n.uri!), fileUri.fsPath));
    if (inFile.length === 1) return { uri: inFile[0].uri!, dataset: inFile[0].name };
    if (inFile.length > 1) candidates = inFile;
  }
  if (candidates.length === 0) {
    void vscode.window.showWarningMessage('Thund: this pipeline defines no datasets yet.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    candidates.map((n) => ({ label: n.name, description: n.kind.replace(/_/g, ' '), detail: vscode.workspace.asRelativePath(vscode.Uri.parse(n.uri!)), node: n })),
    { placeHolder: prompt, matchOnDescription: true },
  );
  return pick ? { uri: pick.node.uri!, dataset: pick.node.name } : undefined;
}

async function runWithProgress(
  srv: ThundServer,
  status: StatusItem,
  output: vscode.OutputChannel,
  root: string,
  ref: DatasetRef | undefined,
): Promise<RunResult | undefined> {
  const title = ref ? `Thund: running ${ref.dataset} and downstream` : 'Thund: running the pipeline';
  let res: RunResult;
  try {
    res = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      (progress, token) => srv.run({ uri: ref?.uri ?? anchorOf(root), dataset: ref?.dataset }, token, progress),
    );
  } catch (e) {
    if (isCancelled(e)) {
      void vscode.window.setStatusBarMessage('Thund: run cancelled', 3000);
    } else {
      void vscode.window.showErrorMessage(`Thund: the run failed: ${errorText(e)}`);
    }
    return undefined;
  }
  status.lastRuns.set(root, { at: new Date(), elapsedMs: res.elapsed_ms, failed: res.failed, datasets: res.datasets.length });
  status.update();
  output.appendLine(`\n${new Date().toLocaleTimeString()} ${ref ? `run of ${ref.dataset} and downstream` : 'pipeline run'}: ${res.elapsed_ms} ms${res.failed ? ', FAILED' : ''}`);
  for (const d of res.datasets) {
    output.appendLine(`  ${d.phase.padEnd(9)} ${d.name.padEnd(28)} ${String(d.rows).padStart(8)} rows ${String(d.elapsed_ms).padStart(6)} ms${d.error ? `  ${d.error}` : ''}`);
  }
  for (const x of res.expectations) {
    output.appendLine(`  expect    ${`${x.dataset}.${x.name}`.padEnd(28)} ${x.status} (${x.violations} violations, ${x.dropped} dropped)`);
  }
  const failed = res.datasets.filter((d) => d.phase !== 'completed');
  const msg = `Thund: ${res.datasets.length} datasets ran in ${res.elapsed_ms} ms` + (failed.length ? `, ${failed.length} not completed` : '') + (res.failed ? ' (failed)' : '');
  const show = res.failed
    ? vscode.window.showErrorMessage(msg, 'Show Output')
    : vscode.window.showInformationMessage(msg, 'Show Output');
  void show.then((a) => {
    if (a) output.show(true);
  });
  return res;
}

