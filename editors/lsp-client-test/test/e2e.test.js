// End-to-end test of bin/thund-lsp with vscode-languageserver-protocol and
// vscode-jsonrpc, the client libraries VS Code uses, over stdio.
//
// Run: npm ci && npm test (or `make test-lsp-client` from the repo root).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  CancellationTokenSource,
  CodeLensRequest,
  CompletionRequest,
  DefinitionRequest,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DocumentHighlightRequest,
  DocumentSymbolRequest,
  ExitNotification,
  FoldingRangeRequest,
  HoverRequest,
  LSPErrorCodes,
  PrepareRenameRequest,
  ReferencesRequest,
  RenameRequest,
  SemanticTokensRequest,
  ShutdownRequest,
  TextDocumentSyncKind,
  WorkDoneProgress,
  WorkspaceSymbolRequest,
} from 'vscode-languageserver-protocol/node';

import { copyPipeline, makePipeline, pathOf, positionOf, Server, sleep, uriOf, within } from './client.js';

const T = { timeout: 60000 };

// The typo on line 3 (0-based 2) of broken.sql: an unknown reference.
const BROKEN = '-- A file with a typo.\nSELECT order_id, amount\nFROM clean_order\n';
const FIXED = BROKEN.replace('clean_order', 'clean_orders');

describe('thund-lsp with vscode-languageserver-protocol', () => {
  let root, tr, server, init;
  const at = (uri, text, needle, n = 0, delta = 0) => ({ textDocument: { uri }, position: positionOf(text, needle, n, delta) });

  before(async () => {
    root = copyPipeline('retail');
    tr = join(root, 'transformations');
    server = new Server({ rootDir: root });
    init = await server.initialize();
  });
  after(async () => {
    if (server) await server.kill();
  });

  test('initialize announces what the server serves', T, () => {
    const c = init.capabilities;
    assert.equal(init.serverInfo?.name, 'thund-lsp');
    assert.equal(c.textDocumentSync.change, TextDocumentSyncKind.Full);
    assert.equal(c.textDocumentSync.openClose, true);
    for (const k of ['hoverProvider', 'definitionProvider', 'referencesProvider', 'documentHighlightProvider',
      'documentSymbolProvider', 'workspaceSymbolProvider', 'foldingRangeProvider']) {
      assert.equal(c[k], true, k);
    }
    assert.equal(c.renameProvider.prepareProvider, true);
    assert.ok(c.completionProvider.triggerCharacters.includes('@'));
    assert.ok(c.codeLensProvider);
    assert.ok(c.signatureHelpProvider.triggerCharacters.includes('('));
    assert.deepEqual(c.semanticTokensProvider.legend.tokenTypes, ['keyword', 'property', 'string', 'comment']);
    assert.equal(c.semanticTokensProvider.full, true);
    assert.deepEqual(c.experimental.thund.requests, ['thund/preview', 'thund/graph', 'thund/lineage', 'thund/run', 'thund/sparkDryRun']);
  });

  test('diagnostics are published with the version, and cleared on fix', T, async () => {
    const path = join(tr, 'broken.sql');
    const { uri } = await server.open(path, BROKEN);
    const p = await server.diagnostics(uri, (p) => p.diagnostics.length > 0);
    assert.equal(p.version, 1);
    assert.equal(p.diagnostics.length, 1);
    const [d] = p.diagnostics;
    assert.equal(d.code, 'unknown-reference');
    assert.equal(d.source, 'thund');
    assert.deepEqual(d.range, { start: { line: 2, character: 5 }, end: { line: 2, character: 16 } });
    assert.match(d.message, /did you mean clean_orders\?/);

    const since = server.count(uri);
    await server.conn.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: FIXED }],
    });
    const cleared = await server.diagnostics(uri, (p) => p.version === 2, { since });
    assert.deepEqual(cleared.diagnostics, []);
  });

  test('hover on a dataset reference', T, async () => {
    const { uri, text } = await server.open(join(tr, 'order_lines.sql'));
    const h = await server.conn.sendRequest(HoverRequest.type, at(uri, text, 'clean_orders', 0, 3));
    assert.equal(h.contents.kind, 'markdown');
    for (const want of ['**clean_orders** · materialized view', 'transformations/clean_orders.sql',
      'Upstream: orders (source)', 'Downstream: broken, order_lines', 'native: yes']) {
      assert.ok(h.contents.value.includes(want), `hover lacks ${want}:\n${h.contents.value}`);
    }
    assert.deepEqual(h.range.start, positionOf(text, 'clean_orders'));
    // A pragma key documents itself.
    const co = readFileSync(join(tr, 'clean_orders.sql'), 'utf8');
    const ph = await server.conn.sendRequest(HoverRequest.type, at(uriOf(join(tr, 'clean_orders.sql')), co, '@kind', 0, 2));
    assert.match(ph.contents.value, /\*\*@kind\*\*/);
    assert.match(ph.contents.value, /materialized_view/);
  });

  test('definition of a reference is its defining file', T, async () => {
    const { uri, text } = await server.open(join(tr, 'order_lines.sql'));
    const locs = await server.conn.sendRequest(DefinitionRequest.type, at(uri, text, 'clean_orders'));
    assert.equal(locs.length, 1);
    assert.equal(pathOf(locs[0].uri), join(tr, 'clean_orders.sql'));
    // A source's definition is its sample file.
    const src = await server.conn.sendRequest(DefinitionRequest.type, at(uri, text, 'products'));
    assert.equal(pathOf(src[0].uri), join(root, 'samples', 'products.csv'));
  });

  test('references and highlights across files', T, async () => {
    const { uri, text } = await server.open(join(tr, 'revenue.sql'));
    const refs = await server.conn.sendRequest(ReferencesRequest.type, {
      ...at(uri, text, 'billable_lines', 0, 2), context: { includeDeclaration: true },
    });
    const files = {};
    for (const r of refs) files[basename(pathOf(r.uri))] = (files[basename(pathOf(r.uri))] || 0) + 1;
    assert.deepEqual(files, { 'revenue.sql': 2, 'customer_orders.sql': 1, 'top_products.sql': 1 });
    const hl = await server.conn.sendRequest(DocumentHighlightRequest.type, at(uri, text, 'billable_lines', 1));
    assert.equal(hl.length, 2);
  });

  test('rename is one WorkspaceEdit: references, then the file', T, async () => {
    const { uri, text } = await server.open(join(tr, 'order_lines.sql'));
    const prep = await server.conn.sendRequest(PrepareRenameRequest.type, at(uri, text, 'clean_orders', 0, 2));
    assert.equal(prep.placeholder, 'clean_orders');
    assert.deepEqual(prep.range.start, positionOf(text, 'clean_orders'));
    const edit = await server.conn.sendRequest(RenameRequest.type, { ...at(uri, text, 'clean_orders', 0, 2), newName: 'orders_clean' });
    const changes = edit.documentChanges;
    assert.ok(Array.isArray(changes), JSON.stringify(edit));
    const last = changes[changes.length - 1];
    assert.equal(last.kind, 'rename');
    assert.equal(basename(pathOf(last.oldUri)), 'clean_orders.sql');
    assert.equal(basename(pathOf(last.newUri)), 'orders_clean.sql');
    const edited = changes.slice(0, -1).map((c) => basename(pathOf(c.textDocument.uri))).sort();
    // broken.sql reads clean_orders since its fix; both buffers are open,
    // so the edits carry their versions.
    assert.deepEqual(edited, ['broken.sql', 'order_lines.sql']);
    for (const c of changes.slice(0, -1)) {
      assert.equal(typeof c.textDocument.version, 'number');
      for (const e of c.edits) assert.equal(e.newText, 'orders_clean');
    }
    await assert.rejects(
      server.conn.sendRequest(RenameRequest.type, { ...at(uri, text, 'clean_orders', 0, 2), newName: 'daily_revenue' }),
      /already exists/);
  });

  test('completion after FROM offers datasets and sources', T, async () => {
    const text = 'SELECT *\nFROM \n';
    const { uri } = await server.open(join(tr, 'scratch.sql'), text);
    const list = await server.conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: { line: 1, character: 5 } });
    const labels = (Array.isArray(list) ? list : list.items).map((i) => i.label);
    for (const want of ['clean_orders', 'daily_revenue', 'billable_lines', 'orders', 'customers', 'products']) {
      assert.ok(labels.includes(want), `completion lacks ${want}: ${labels}`);
    }
    const keys = await server.conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: { line: 0, character: 0 } });
    assert.ok(keys.items.every((i) => i.label !== 'kind'), 'no pragma keys outside a pragma');
    // scratch.sql was never saved: closing it drops its (incomplete) dataset.
    await server.conn.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
    const g = await server.conn.sendRequest('thund/graph', { uri });
    assert.ok(!g.nodes.some((n) => n.id === 'scratch'), 'the closed unsaved scratch.sql still counts');
  });

  test('documentSymbol, workspace/symbol, folding ranges, semantic tokens', T, async () => {
    const { uri } = await server.open(join(tr, 'revenue.sql'));
    const syms = await server.conn.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } });
    assert.deepEqual(syms.map((s) => s.name), ['billable_lines', 'daily_revenue']);
    assert.deepEqual(syms[1].children.map((s) => s.name), ['positive_revenue']);
    const ws = await server.conn.sendRequest(WorkspaceSymbolRequest.type, { query: 'revenue' });
    assert.deepEqual(ws.map((s) => s.name).sort(), ['daily_revenue', 'revenue_by_region']);
    const folds = await server.conn.sendRequest(FoldingRangeRequest.type, { textDocument: { uri } });
    assert.ok(folds.length >= 2, JSON.stringify(folds));
    const tokens = await server.conn.sendRequest(SemanticTokensRequest.type, { textDocument: { uri } });
    assert.equal(tokens.data.length % 5, 0);
    assert.equal(tokens.data.length, 15);
  });

  test('code lenses, and Spark dry run once a remote is configured', T, async () => {
    const { uri } = await server.open(join(tr, 'revenue.sql'));
    let lenses = await server.conn.sendRequest(CodeLensRequest.type, { textDocument: { uri } });
    assert.deepEqual(lenses.map((l) => l.command.title), ['Preview', 'Run downstream', 'Preview', 'Run downstream']);
    assert.equal(lenses[0].command.command, 'thund.preview');
    assert.deepEqual(lenses[0].command.arguments, [{ uri, dataset: 'billable_lines' }]);
    await server.conn.sendNotification(DidChangeConfigurationNotification.type, { settings: { thund: { sparkRemote: 'sc://localhost:15002' } } });
    lenses = await server.conn.sendRequest(CodeLensRequest.type, { textDocument: { uri } });
    assert.ok(lenses.some((l) => l.command.title === 'Spark dry run'), JSON.stringify(lenses.map((l) => l.command.title)));
    await server.conn.sendNotification(DidChangeConfigurationNotification.type, { settings: { thund: {} } });
  });

  test('thund/preview: rows, expectations, diff; then lenses and diagnostics', T, async () => {
    const path = join(tr, 'clean_orders.sql');
    const { uri } = await server.open(path);
    const since = server.count(uri);
    const pr = await within(30000, 'thund/preview', server.conn.sendRequest('thund/preview', { uri, dataset: 'clean_orders', offset: 5, limit: 10 }));
    assert.equal(pr.dataset, 'clean_orders');
    assert.equal(pr.total_rows, 56);
    assert.equal(pr.offset, 5);
    assert.equal(pr.rows.length, 10);
    assert.deepEqual(pr.columns.map((c) => c.name), ['order_id', 'customer_id', 'product_id', 'order_date', 'quantity', 'unit_price', 'amount', 'status']);
    assert.equal(pr.rows[0].length, 8);
    assert.equal(typeof pr.elapsed_ms, 'number');
    assert.deepEqual(pr.diff, { added: [], removed: [], first: true });
    assert.deepEqual(pr.increments, []);
    const status = Object.fromEntries(pr.expectations.map((e) => [e.name, e.status]));
    assert.deepEqual(status, { valid_amount: 'dropped', has_customer: 'warned', known_status: 'passed' });
    const dropped = pr.expectations.find((e) => e.name === 'valid_amount');
    assert.equal(dropped.action, 'drop');
    assert.ok(dropped.dropped > 0);

    // The results show on the three @expect lines (5-7, 0-based).
    const p = await server.diagnostics(uri, (p) => p.diagnostics.filter((d) => d.code === 'expectation-result').length === 3, { since });
    assert.deepEqual(p.diagnostics.map((d) => d.range.start.line).sort(), [5, 6, 7]);
    // The lens shows the last preview.
    const lenses = await server.conn.sendRequest(CodeLensRequest.type, { textDocument: { uri } });
    assert.ok(lenses.some((l) => /^56 rows in \d+ ms$/.test(l.command.title)), JSON.stringify(lenses.map((l) => l.command.title)));
    // And so does the hover, with the columns now known.
    const text = readFileSync(path, 'utf8');
    const h = await server.conn.sendRequest(HoverRequest.type, {
      textDocument: { uri: uriOf(join(tr, 'order_lines.sql')) },
      position: positionOf(readFileSync(join(tr, 'order_lines.sql'), 'utf8'), 'clean_orders', 0, 1),
    });
    assert.match(h.contents.value, /Last preview: 56 rows in \d+ ms/);
    assert.match(h.contents.value, /\| amount \| DECIMAL/);
    assert.ok(text.length > 0);

    // A second preview after an edit: the diff lists the rows removed.
    const src = readFileSync(path, 'utf8');
    await server.conn.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: src.replace('FROM orders', "FROM orders WHERE lower(status) <> 'cancelled'") }],
    });
    const pr2 = await within(30000, 'thund/preview', server.conn.sendRequest('thund/preview', { uri, dataset: 'clean_orders', limit: 10 }));
    assert.equal(pr2.diff.first, false);
    assert.equal(pr2.diff.added.length, 0);
    assert.ok(pr2.diff.removed.length > 0);
    assert.equal(pr2.diff.removed.length, 56 - pr2.total_rows);
  });

  test('thund/graph: nodes and edges of the lineage', T, async () => {
    const g = await server.conn.sendRequest('thund/graph', { uri: uriOf(join(tr, 'revenue.sql')) });
    assert.equal(g.pipeline, 'retail');
    const ids = g.nodes.map((n) => n.id);
    for (const id of ['source:orders', 'clean_orders', 'billable_lines', 'daily_revenue', 'broken']) {
      assert.ok(ids.includes(id), `graph lacks ${id}: ${ids}`);
    }
    const co = g.nodes.find((n) => n.id === 'clean_orders');
    assert.equal(co.kind, 'materialized_view');
    assert.equal(pathOf(co.uri), join(tr, 'clean_orders.sql'));
    assert.deepEqual(co.support, { native: [] });
    assert.ok(g.edges.some((e) => e.from === 'source:orders' && e.to === 'clean_orders' && e.streaming === false));
    assert.ok(g.edges.some((e) => e.from === 'clean_orders' && e.to === 'order_lines'));
  });

  test('thund/run reports $/progress begin, report, end', T, async () => {
    const token = 'run-progress-1';
    const events = [];
    const sub = server.conn.onProgress(WorkDoneProgress.type, token, (v) => events.push(v));
    const rr = await within(30000, 'thund/run', server.conn.sendRequest('thund/run', { uri: uriOf(join(tr, 'revenue.sql')), workDoneToken: token }));
    sub.dispose();
    assert.equal(rr.failed, false, JSON.stringify(rr));
    const phases = Object.fromEntries(rr.datasets.map((d) => [d.name, d.phase]));
    assert.equal(phases.daily_revenue, 'completed');
    assert.equal(phases.customer_ranking, 'completed');
    assert.ok(rr.expectations.length >= 4);
    // Progress: begin first, end last, reports between with rising percentages.
    await within(5000, 'the end of progress', (async () => { while (!events.some((e) => e.kind === 'end')) await sleep(10); })());
    assert.equal(events[0].kind, 'begin');
    assert.equal(events[0].cancellable, true);
    assert.match(events[0].title, /^Running retail/);
    assert.equal(events[events.length - 1].kind, 'end');
    const reports = events.filter((e) => e.kind === 'report');
    assert.equal(reports.length, rr.datasets.length);
    assert.deepEqual(reports.map((r) => r.percentage), [...reports.map((r) => r.percentage)].sort((a, b) => a - b));
    assert.equal(reports[reports.length - 1].percentage, 100);
  });
});

describe('cancellation', () => {
  test('$/cancelRequest stops a slow thund/run, and the session stays usable', T, async () => {
    const dir = makePipeline({
      'thund.yaml': 'backends: [native]\n',
      'slow.sql': 'SELECT count(*) AS n FROM range(100000000000) a, range(10) b\n',
      'quick.sql': 'SELECT 42 AS answer\n',
    });
    const server = new Server({ rootDir: dir });
    try {
      await server.initialize();
      const uri = uriOf(join(dir, 'slow.sql'));
      const cts = new CancellationTokenSource();
      const token = 'slow-run';
      const events = [];
      server.conn.onProgress(WorkDoneProgress.type, token, (v) => events.push(v));
      const started = Date.now();
      const run = server.conn.sendRequest('thund/run', { uri, workDoneToken: token }, cts.token);
      let settled = false;
      run.then(() => { settled = true; }, () => { settled = true; });
      await sleep(1500);
      assert.equal(settled, false, 'the slow run ended before it was cancelled: make it slower');
      const cancelledAt = Date.now();
      cts.cancel(); // vscode-jsonrpc sends $/cancelRequest with the request's id
      await assert.rejects(within(15000, 'the cancelled run to answer', run), (err) => {
        assert.equal(err.code, LSPErrorCodes.RequestCancelled, `${err.code} ${err.message}`);
        return true;
      });
      const stopMs = Date.now() - cancelledAt;
      assert.ok(stopMs < 10000, `the run took ${stopMs} ms to stop`);
      assert.ok(Date.now() - started < 20000);
      // The engine session was freed: a preview on the same pipeline runs.
      const pr = await within(15000, 'a preview after the cancelled run',
        server.conn.sendRequest('thund/preview', { uri: uriOf(join(dir, 'quick.sql')), dataset: 'quick' }));
      assert.deepEqual(pr.rows, [[42]]);
      assert.ok(events.some((e) => e.kind === 'end' && e.message === 'cancelled'), JSON.stringify(events));
    } finally {
      await server.kill();
    }
  });
});

describe('lifecycle', () => {
  test('shutdown then exit stops the server with status 0', T, async () => {
    const server = new Server({ rootDir: copyPipeline('retail') });
    try {
      await server.initialize();
      assert.equal(await server.conn.sendRequest(ShutdownRequest.type), null);
      await server.conn.sendNotification(ExitNotification.type);
      const { code } = await within(10000, 'the server to exit', server.exited);
      assert.equal(code, 0, server.stderr);
    } finally {
      await server.kill();
    }
  });

  test('the server exits when its stdin closes', T, async () => {
    const server = new Server({ rootDir: copyPipeline('retail') });
    try {
      await server.initialize();
      server.proc.stdin.end();
      const { code } = await within(10000, 'the server to exit after stdin closed', server.exited);
      assert.equal(code, 0, server.stderr);
    } finally {
      await server.kill();
    }
  });

  test('an unknown request is MethodNotFound and the session goes on', T, async () => {
    const server = new Server({ rootDir: copyPipeline('retail') });
    try {
      await server.initialize();
      await assert.rejects(server.conn.sendRequest('textDocument/typeDefinition', { textDocument: { uri: 'file:///x.sql' }, position: { line: 0, character: 0 } }),
        (err) => err.code === -32601);
      const g = await server.conn.sendRequest('thund/graph', { uri: uriOf(join(server.rootDir, 'transformations', 'revenue.sql')) });
      assert.ok(g.nodes.length > 0);
    } finally {
      await server.kill();
    }
  });
});
