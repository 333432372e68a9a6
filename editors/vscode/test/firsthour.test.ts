// The first hour in VS Code (issue 20): decimals keep their scale, errors
// keep their lines and are said once, the lineage graph routes its edges
// around nodes and shows each node's last run, lenses follow the newest
// result, and a passed expectation is a hint rather than a squiggle.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import type { GraphResult, RunResult } from '../src/protocol';
import {
  cellText,
  clipNote,
  decimalScale,
  layoutGraph,
  renderCell,
  renderError,
  renderLineage,
  renderNotebookOutput,
  renderPreview,
  renderTable,
  renderTextTable,
  runNote,
  NODE_H,
  NODE_W,
} from '../src/render';
import { passHints, rewriteLenses, RESTRICTED_LENS_TITLE, type DatasetRecord, type LensData } from '../src/lenses';
import { cleanOrders, retailGraph } from './fixtures';
import { shouldSwitch } from '../src/languageMode';

function text(html: string): string {
  return html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
}

describe('decimals keep their scale', () => {
  it('reads the scale of a DECIMAL type', () => {
    assert.equal(decimalScale('DECIMAL(10,2)'), 2);
    assert.equal(decimalScale('decimal(38, 0)'), 0);
    assert.equal(decimalScale('DOUBLE'), undefined);
    assert.equal(decimalScale(undefined), undefined);
  });

  it('shows the server\'s decimal strings as they are, and numbers with the column\'s scale', () => {
    assert.equal(renderCell('10.80', 'DECIMAL(10,2)'), '10.80');
    assert.equal(renderCell(10.8, 'DECIMAL(10,2)'), '10.80');
    assert.equal(renderCell(12, 'DECIMAL(18,2)'), '12.00');
    assert.equal(renderCell(12, 'INTEGER'), '12');
    assert.equal(cellText(5, 'DECIMAL(3,2)'), '5.00');
    assert.equal(cellText('5.00', 'DECIMAL(3,2)'), '5.00');
  });

  it('in the preview table, right-aligned, in the notebook and in text outputs', () => {
    const r = cleanOrders();
    r.rows = [[10001, 'C001', 'P10', '2025-03-02', 1, '10.80', '10.80', 'shipped'], [10004, 'C001', 'P10', '2025-03-04', 2, 12, 24, 'returned']];
    const table = renderTable(r.columns, r.rows);
    assert.match(table, /<td class="num">10\.80<\/td><td class="num">10\.80<\/td>/);
    assert.match(table, /<td class="num">12\.00<\/td><td class="num">24\.00<\/td>/);
    assert.match(renderNotebookOutput([r], 10), /<td class="num">10\.80<\/td>/);
    assert.match(renderTextTable(r), /\| 12\.00\s+\| 24\.00\s+\|/);
  });
});

describe('errors', () => {
  const duck =
    'broken_orders failed: Parser Error: syntax error at or near "clean_orders"\n\nLINE 1: SELECT order_id, amount FORM clean_orders\n                                      ^';

  it('keep their lines: the first as the message, the rest as written', () => {
    const html = renderError('', duck);
    assert.match(html, /<span class="error-message">broken_orders failed: Parser Error: syntax error at or near &quot;clean_orders&quot;<\/span>/);
    assert.match(html, /<pre class="error-detail">LINE 1: SELECT order_id, amount FORM clean_orders\n {38}\^<\/pre>/);
    assert.doesNotMatch(renderError('', 'one line'), /error-detail/);
  });

  it('are shown once in a notebook cell after Run All', () => {
    const run: RunResult = {
      datasets: [
        { name: 'broken_orders', phase: 'failed', rows: 0, elapsed_ms: 2, error: 'Parser Error: syntax error at or near "clean_orders"' },
        { name: 'clean_orders', phase: 'completed', rows: 52, elapsed_ms: 31 },
      ],
      expectations: [],
      elapsed_ms: 135,
      failed: true,
    };
    const note = runNote(run, ['broken_orders']);
    assert.equal(note, 'Pipeline run: 2 datasets in 135 ms, failed. broken_orders failed');
    assert.equal(runNote(run, ['clean_orders']), 'Pipeline run: 2 datasets in 135 ms, failed. clean_orders completed, 52 rows in 31 ms');
    const r = cleanOrders();
    r.dataset = 'broken_orders';
    r.error = duck;
    const out = note + renderNotebookOutput([r], 10);
    assert.equal(out.split('syntax error at or near').length - 1, 1, out);
    // No "0 rows · 0 ms" for a dataset that did not run.
    assert.doesNotMatch(text(renderNotebookOutput([r], 10)), /0 rows/);
  });

  it('in the preview panel too', () => {
    const r = cleanOrders();
    r.error = duck;
    const html = renderPreview({ result: r, pageSize: 10 });
    assert.match(html, /Could not preview clean_orders\./);
    assert.match(html, /<pre class="error-detail">LINE 1:/);
  });
});

/** Points along an SVG path of M, L and C commands. */
function samples(path: string): { x: number; y: number }[] {
  const tok = path.match(/[MLC]|-?\d+(?:\.\d+)?/g)!;
  const out: { x: number; y: number }[] = [];
  let i = 0;
  let cur = { x: 0, y: 0 };
  const num = () => Number(tok[i++]);
  while (i < tok.length) {
    const c = tok[i++];
    if (c === 'M' || c === 'L') {
      const p = { x: num(), y: num() };
      if (c === 'L') for (let t = 0; t <= 1; t += 0.05) out.push({ x: cur.x + (p.x - cur.x) * t, y: cur.y + (p.y - cur.y) * t });
      cur = p;
    } else if (c === 'C') {
      const [a, b, e] = [{ x: num(), y: num() }, { x: num(), y: num() }, { x: num(), y: num() }];
      for (let t = 0; t <= 1; t += 0.02) {
        const u = 1 - t;
        out.push({
          x: u * u * u * cur.x + 3 * u * u * t * a.x + 3 * u * t * t * b.x + t * t * t * e.x,
          y: u * u * u * cur.y + 3 * u * u * t * a.y + 3 * u * t * t * b.y + t * t * t * e.y,
        });
      }
      cur = e;
    } else {
      throw new Error(`unexpected ${c} in ${path}`);
    }
  }
  return out;
}

/** A wider graph: long reads past other datasets, as in the report. */
function wideGraph(): GraphResult {
  const g = retailGraph();
  g.nodes.push({ id: 'audit', name: 'audit', kind: 'materialized_view', uri: 'file:///w/a.sql', line: 0, support: {} });
  g.edges.push({ from: 'source:orders', to: 'audit', streaming: false }, { from: 'clean_orders', to: 'revenue_by_region', streaming: false }, { from: 'source:products', to: 'top_products', streaming: false });
  return g;
}

describe('lineage layout', () => {
  for (const [name, graph] of [['retail', retailGraph()], ['retail with long reads', wideGraph()]] as const) {
    it(`routes every edge of ${name} around the nodes it does not join`, () => {
      const lay = layoutGraph(graph);
      assert.equal(lay.edges.length, graph.edges.length);
      for (const { edge, path } of lay.edges) {
        for (const p of samples(path)) {
          for (const n of lay.nodes) {
            if (n.node.id === edge.from || n.node.id === edge.to) continue;
            const inside = p.x > n.x + 1 && p.x < n.x + NODE_W - 1 && p.y > n.y + 1 && p.y < n.y + NODE_H - 1;
            assert.ok(!inside, `${edge.from} -> ${edge.to} runs behind ${n.node.id} at ${p.x.toFixed(0)},${p.y.toFixed(0)}`);
          }
        }
      }
    });
  }

  it('puts a source just left of its first reader, and nodes of a layer apart', () => {
    const lay = layoutGraph(retailGraph());
    const at = new Map(lay.nodes.map((p) => [p.node.id, p]));
    assert.equal(at.get('source:products')!.depth, at.get('order_lines')!.depth - 1);
    assert.equal(at.get('source:customers')!.depth, at.get('customer_orders')!.depth - 1);
    for (const a of lay.nodes) for (const b of lay.nodes) if (a !== b && a.x === b.x) assert.ok(Math.abs(a.y - b.y) >= NODE_H, `${a.node.id} / ${b.node.id}`);
  });

  it("shows each node's last run: rows, time and a status colour", () => {
    const svg = renderLineage(retailGraph(), {}, {
      clean_orders: { phase: 'completed', rows: 52, elapsed_ms: 31, at: 0 },
      order_lines: { phase: 'failed', rows: 0, elapsed_ms: 4, at: 0 },
      top_products: { phase: 'skipped', rows: 0, elapsed_ms: 0, at: 0 },
    });
    assert.match(svg, /<g class="node kind-materialized_view clickable phase-completed" data-id="clean_orders"[^]*?<rect class="status-bar"[^]*?>\u2713 52 rows \u00b7 31 ms</);
    assert.match(svg, /data-id="order_lines"[^]*?>\u2717 failed \u00b7 4 ms</);
    assert.match(svg, /data-id="top_products"[^]*?>\u2013 skipped</);
    assert.match(svg, /data-id="customer_ranking"[^]*?>not run yet</);
    assert.match(svg, /data-width="\d+(\.\d)?" data-height="\d+(\.\d)?"/);
  });
});

describe('code lenses', () => {
  const args = [{ uri: 'file:///w/clean_orders.sql', dataset: 'clean_orders' }];
  const server: LensData<string>[] = [
    { range: 'a', title: 'Preview', command: 'thund.preview', args },
    { range: 'a', title: 'Run downstream', command: 'thund.runDownstream', args },
    { range: 'a', title: '56 rows in 32 ms', command: 'thund.preview', args },
  ];
  const rec = (rows: number, elapsedMs: number, from: 'preview' | 'run'): Map<string, DatasetRecord> =>
    new Map([['clean_orders', { rows, elapsedMs, phase: 'completed', at: 0, from }]]);

  it('show the row count of the newest preview or run, not the server\'s older one', () => {
    const out = rewriteLenses(server, { trusted: true, records: rec(52, 29, 'run'), key: (r) => r });
    assert.deepEqual(out.map((l) => l.title), ['Preview', 'Run downstream', '52 rows in 29 ms']);
    assert.match(out[2].tooltip!, /^The last run at /);
  });

  it("keep the server's count when the extension saw no result", () => {
    const out = rewriteLenses(server, { trusted: true, records: new Map(), key: (r) => r });
    assert.deepEqual(out.map((l) => l.title), ['Preview', 'Run downstream', '56 rows in 32 ms']);
  });

  it('in Restricted Mode, become one lens per place that says why nothing runs', () => {
    const out = rewriteLenses(server, { trusted: false, records: rec(52, 29, 'run'), key: (r) => r });
    assert.equal(out.length, 1);
    assert.equal(out[0].title, RESTRICTED_LENS_TITLE);
    assert.equal(out[0].command, 'workbench.trust.manage');
  });
});

describe('expectation results', () => {
  it('a pass becomes a hint; warnings, drops and failures stay diagnostics', () => {
    const diags = [
      { code: { value: 'expectation-result' }, severity: 2, message: 'expectation known_status passed on the last run', line: 7 },
      { code: { value: 'expectation-result' }, severity: 1, message: 'expectation has_customer: 1 rows violate it on the last run (kept)', line: 6 },
      { code: 'expectation-result', severity: 0, message: 'expectation x failed', line: 5 },
      { code: 'unknown-column', severity: 2, message: 'something else', line: 3 },
    ];
    assert.deepEqual(passHints(diags), [{ line: 7, label: '\u2713 passed on the last run', tooltip: 'expectation known_status passed on the last run' }]);
  });
});

describe('pipeline SQL language', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const fs = require('node:fs') as typeof import('node:fs');
  const path = require('node:path') as typeof import('node:path');
  const ext = path.resolve(__dirname, '..', '..');
  const pkg = JSON.parse(fs.readFileSync(path.join(ext, 'package.json'), 'utf8'));
  const injection = JSON.parse(fs.readFileSync(path.join(ext, 'syntaxes', 'thund-pragma.injection.json'), 'utf8'));
  const lang = JSON.parse(fs.readFileSync(path.join(ext, 'syntaxes', 'thund-sql.tmLanguage.json'), 'utf8'));

  it('is contributed as Spark Pipeline SQL, without claiming .sql, with the pragma grammar injected into SQL', () => {
    const l = pkg.contributes.languages.find((x: { id: string }) => x.id === 'thund-sql');
    assert.equal(l.aliases[0], 'Spark Pipeline SQL');
    assert.equal(l.extensions, undefined, 'claiming .sql would take every SQL file from other extensions');
    const g = pkg.contributes.grammars;
    assert.ok(g.some((x: { language?: string; path: string }) => x.language === 'thund-sql' && fs.existsSync(path.join(ext, x.path))));
    const inj = g.find((x: { scopeName: string }) => x.scopeName === injection.scopeName);
    assert.deepEqual(inj.injectTo, ['source.sql', 'source.thund-sql']);
    assert.deepEqual(lang.patterns, [{ include: 'thund.pragma.injection' }, { include: 'source.sql' }]);
    // The packaged extension carries the grammar files.
    const ignore = fs.readFileSync(path.join(ext, '.vscodeignore'), 'utf8');
    assert.match(ignore, /^!syntaxes\/\*\.json$/m);
    assert.match(ignore, /^!language-configuration\.json$/m);
  });

  it('highlights pragma lines: key, name and value', () => {
    const re = new RegExp(injection.repository.pragma.match);
    const caps = injection.repository.pragma.captures;
    const m = re.exec('-- @expect.valid_amount: amount IS NOT NULL AND amount > 0 ON VIOLATION DROP ROW')!;
    assert.ok(m);
    assert.equal(m[3], 'expect');
    assert.equal(m[6], 'valid_amount');
    assert.equal(m[8], 'amount IS NOT NULL AND amount > 0 ON VIOLATION DROP ROW');
    assert.match(caps['3'].name, /^keyword\./);
    assert.match(caps['6'].name, /^variable\.other\.property/);
    assert.deepEqual(caps['8'].patterns, [{ include: 'source.sql' }]);
    assert.equal(re.exec('-- @property.delta.appendOnly: true')![6], 'delta.appendOnly');
    assert.equal(re.exec('  --  @kind: materialized_view')![8], 'materialized_view');
    const bare = re.exec('-- @streaming')!;
    assert.equal(bare[3], 'streaming');
    assert.equal(bare[8], undefined);
    for (const not of ['-- a comment about @kind', 'SELECT 1 -- @kind: x', '-- email me @ home', '--@']) assert.equal(re.exec(not), null, not);
  });

  it('is given to .sql files inside a pipeline only, unless the setting or the user says sql', () => {
    const doc = { languageId: 'sql', scheme: 'file', inPipeline: true, userChose: false };
    assert.equal(shouldSwitch(doc, 'pipeline'), true);
    assert.equal(shouldSwitch({ ...doc, inPipeline: false }, 'pipeline'), false);
    assert.equal(shouldSwitch({ ...doc, userChose: true }, 'pipeline'), false);
    assert.equal(shouldSwitch({ ...doc, scheme: 'untitled' }, 'pipeline'), false);
    assert.equal(shouldSwitch({ ...doc, languageId: 'postgres' }, 'pipeline'), false);
    assert.equal(shouldSwitch(doc, 'sql'), false);
  });
});

describe('a preview wider than the panel', () => {
  const cols = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({ left: 40 + i * 100, right: 140 + i * 100 }));
  it('says which columns are in view and how many are past the edge', () => {
    assert.equal(clipNote(cols, 40, 540), 'columns 1\u20135 of 8 in view \u00b7 3 more \u2192');
    assert.equal(clipNote(cols, 240, 740), 'columns 3\u20137 of 8 in view \u00b7 \u2190 2 more \u00b7 1 more \u2192');
    assert.equal(clipNote(cols, 40, 900), '');
    assert.equal(clipNote([], 0, 10), '');
  });
  it('has a place for the note in the toolbar', () => {
    assert.match(renderPreview({ result: cleanOrders(), pageSize: 10 }), /<div class="toolbar">.*<span class="clip-note" hidden><\/span><\/div>/);
  });
});
