import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import type { PreviewResult } from '../src/protocol';
import {
  compareCells,
  depths,
  diffToShow,
  downstream,
  escapeHtml,
  isNumericType,
  javaDouble,
  expectationSummary,
  layoutGraph,
  markAdded,
  nextSort,
  renderBounds,
  renderCell,
  renderExpectations,
  renderIncrements,
  renderLineage,
  renderNotebookOutput,
  renderPager,
  renderPreview,
  renderTable,
  renderTextTable,
  sortOrder,
  sparkReport,
  sparkSummary,
  topoOrder,
  NODE_W,
} from '../src/render';
import { cleanOrders, retailGraph } from './fixtures';

/** The text content of an HTML fragment, roughly: tags dropped, entities kept. */
function text(html: string): string {
  return html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
}

function bodyRows(html: string): string[] {
  const body = html.slice(html.indexOf('<tbody>'), html.indexOf('</tbody>'));
  return body.split('<tr').slice(1).map((r) => text('<tr' + r));
}

describe('cells', () => {
  it('escapes HTML', () => {
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    assert.equal(renderCell('<script>alert(1)</script>'), '&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('shows NULL distinctly from the string NULL and the empty string', () => {
    assert.match(renderCell(null), /class="null"/);
    assert.equal(renderCell('NULL'), 'NULL');
    assert.doesNotMatch(renderCell('NULL'), /class="null"/);
    assert.match(renderCell(''), /class="empty"/);
  });

  it('shows numbers, booleans and nested values', () => {
    assert.equal(renderCell(10.8), '10.8');
    assert.equal(renderCell(false), 'false');
    assert.equal(renderCell(8, 'DOUBLE'), '8.0');
    assert.equal(renderCell(8, 'BIGINT'), '8');
    assert.equal(renderCell(0.1, 'FLOAT'), '0.1');
    assert.match(renderCell({ a: [1, 'x'] }), /class="nested">\{&quot;a&quot;:\[1,&quot;x&quot;\]\}/);
  });
});

describe('javaDouble', () => {
  it('writes doubles as Spark prints them', () => {
    assert.equal(javaDouble(8), '8.0');
    assert.equal(javaDouble(-3.5), '-3.5');
    assert.equal(javaDouble(1e7), '1.0E7');
    assert.equal(javaDouble(12345678.9), '1.23456789E7');
    assert.equal(javaDouble(1.5e-4), '1.5E-4');
    assert.equal(javaDouble(0.001), '0.001');
    assert.equal(javaDouble(-0), '-0.0');
    assert.equal(javaDouble(1 / 3), '0.3333333333333333');
  });
});

describe('sorting', () => {
  const rows = [[3, 'b'], [null, 'a'], [1, null], [2, 'c']];
  it('sorts numbers ascending and descending with NULLs last', () => {
    assert.deepEqual(sortOrder(rows, { column: 0, dir: 'asc' }), [2, 3, 0, 1]);
    assert.deepEqual(sortOrder(rows, { column: 0, dir: 'desc' }), [0, 3, 2, 1]);
    assert.deepEqual(sortOrder(rows, { column: 1, dir: 'asc' }), [1, 0, 3, 2]);
    assert.deepEqual(sortOrder(rows, null), [0, 1, 2, 3]);
  });

  it('is stable and numeric for decimal strings of numeric columns', () => {
    const r = [['10.5'], ['9.25'], ['10.5'], ['100']];
    assert.deepEqual(sortOrder(r, { column: 0, dir: 'asc' }, [{ name: 'x', type: 'DECIMAL(38,2)' }]), [1, 0, 2, 3]);
    assert.deepEqual(sortOrder(r, { column: 0, dir: 'asc' }, [{ name: 'x', type: 'VARCHAR' }]), [0, 2, 3, 1]);
  });

  it('cycles asc, desc, none on the same column', () => {
    let s = nextSort(null, 2);
    assert.deepEqual(s, { column: 2, dir: 'asc' });
    s = nextSort(s, 2);
    assert.deepEqual(s, { column: 2, dir: 'desc' });
    assert.equal(nextSort(s, 2), null);
    assert.deepEqual(nextSort(s, 1), { column: 1, dir: 'asc' });
  });

  it('orders mixed kinds deterministically', () => {
    assert.ok(compareCells(false, 1) < 0);
    assert.ok(compareCells(1, 'a') < 0);
    assert.ok(compareCells('a', null) < 0);
  });
});

describe('preview table', () => {
  it('shows column names and types and the first row', () => {
    const html = renderTable(cleanOrders().columns, cleanOrders().rows);
    assert.match(html, /<span class="col-name">order_id<\/span><span class="col-type">INT<\/span>/);
    assert.match(html, /<span class="col-name">customer_id<\/span><span class="col-type">STRING<\/span>/);
    assert.match(html, /<span class="col-type">DECIMAL\(10,2\)<\/span>/);
    assert.equal(bodyRows(html)[0], '1 10001 C001 P10 2025-03-02 1 10.80 10.80 shipped');
  });

  it('right-aligns the numeric columns of Spark type names', () => {
    for (const t of ['INT', 'BIGINT', 'SMALLINT', 'TINYINT', 'DOUBLE', 'FLOAT', 'DECIMAL(21,2)']) {
      assert.ok(isNumericType(t), t);
    }
    for (const t of ['STRING', 'DATE', 'TIMESTAMP', 'ARRAY<INT>', 'STRUCT<a: INT>', 'BOOLEAN']) {
      assert.ok(!isNumericType(t), t);
    }
  });

  it('right-aligns numeric columns', () => {
    const html = renderTable(cleanOrders().columns, cleanOrders().rows);
    assert.match(html, /<td class="num">10001<\/td>/);
    assert.match(html, /<td>C001<\/td>/);
  });

  it('sorts a page and marks the sorted header', () => {
    const r = cleanOrders();
    const html = renderTable(r.columns, r.rows, { sort: { column: 0, dir: 'desc' } });
    assert.match(html, /data-col="0" aria-sort="descending"/);
    assert.match(bodyRows(html)[0], /^3 10039/);
  });

  it('numbers rows from the page offset', () => {
    const r = cleanOrders();
    const html = renderTable(r.columns, r.rows, { offset: 100 });
    assert.match(bodyRows(html)[0], /^101 10001/);
  });

  it('marks added rows, counting repeats', () => {
    const rows = [[1], [1], [2]];
    assert.deepEqual(markAdded(rows, [[1]]), [true, false, false]);
    assert.deepEqual(markAdded(rows, [[1], [1], [3]]), [true, true, false]);
    const html = renderTable([{ name: 'x', type: 'INTEGER' }], rows, { added: [[2]] });
    assert.equal((html.match(/class="row-added"/g) ?? []).length, 1);
    assert.match(bodyRows(html)[2], /^\+ ?3 2$/);
  });
});

describe('pager', () => {
  it('shows the range and disables the ends', () => {
    const first = renderPager(0, 100, 250, 100);
    assert.match(text(first), /Rows 1\u2013100 of 250/);
    assert.match(first, /data-offset="0" title="First page" disabled/);
    assert.match(first, /data-offset="100" title="Next page">/);
    assert.match(first, /data-offset="200" title="Last page">/);
    const last = renderPager(200, 100, 250, 50);
    assert.match(text(last), /Rows 201\u2013250 of 250/);
    assert.match(last, /title="Next page" disabled/);
    assert.match(last, /data-offset="100" title="Previous page">/);
  });

  it('handles an empty result', () => {
    assert.match(text(renderPager(0, 100, 0, 0)), /Rows 0\u20130 of 0/);
  });
});

describe('expectations', () => {
  it('lists each with status and counts', () => {
    const html = renderExpectations(cleanOrders().expectations);
    assert.match(html, /class="badge status-dropped">dropped/);
    assert.match(html, /class="badge status-warned">warned/);
    assert.match(text(html), /dropped valid_amount drop 4 4/);
    assert.match(text(html), /1 passed \u00b7 1 warned \u00b7 1 dropped \u00b7 0 failed/);
  });

  it('says when there are none', () => {
    assert.match(renderExpectations([]), /No expectations/);
  });

  it('counts failed ones', () => {
    assert.equal(
      expectationSummary([{ dataset: 'd', name: 'x', action: 'fail', violations: 2, dropped: 0, status: 'failed' }]),
      '0 passed \u00b7 0 warned \u00b7 0 dropped \u00b7 1 failed',
    );
  });
});

describe('increments', () => {
  it('shows each trigger with its files, counts and rows', () => {
    const html = renderIncrements([
      { trigger: 1, files: ['clicks/a.json', 'clicks/b.json'], arrived: 10, late: 0, emitted: 2, columns: ['page', 'views'], rows: [['/home', 3], ['/pricing', null]] },
      { trigger: 2, files: ['clicks/c.json'], arrived: 4, late: 1, emitted: 0, columns: ['page', 'views'], rows: [] },
    ]);
    assert.match(text(html), /Increments 2 triggers/);
    assert.match(text(html), /Trigger 1 \u00b7 2 files \u00b7 arrived 10 \u00b7 late 0 \u00b7 emitted 2/);
    assert.match(text(html), /clicks\/a\.json, clicks\/b\.json/);
    assert.match(html, /<td>\/home<\/td>/);
    assert.match(text(html), /Trigger 2 \u00b7 1 file \u00b7 arrived 4 \u00b7 late 1/);
    assert.match(html, /No rows emitted by this trigger/);
  });

  it('renders nothing for batch datasets', () => {
    assert.equal(renderIncrements([]), '');
  });
});

describe('preview panel', () => {
  it('shows the dataset, row count and time', () => {
    const html = renderPreview({ result: cleanOrders(), pageSize: 100 });
    assert.match(text(html), /^clean_orders 56 rows \u00b7 43 ms/);
    assert.match(html, /First preview of this dataset/);
    assert.match(html, /class="thund-table"/);
    assert.match(html, /Expectations/);
  });

  it('marks the diff against the previous preview', () => {
    const r: PreviewResult = { ...cleanOrders(), diff: { added: [[10002, 'C001', 'P01', '2025-03-03', 1, '21.60', '21.60', 'completed']], removed: [[10003, 'C008', 'P05', '2025-03-03', 1, '11.00', '11.00', 'cancelled']], first: false } };
    const html = renderPreview({ result: r, pageSize: 100 });
    assert.match(text(html), /Since the previous preview: \+1 added , \u22121 removed/);
    assert.equal((html.match(/<tr class="row-added">/g) ?? []).length, 1);
    assert.match(html, /<section class="removed">/);
    assert.match(html, /<tr class="row-removed">.*10003/);
  });

  it('says when nothing changed', () => {
    const r: PreviewResult = { ...cleanOrders(), diff: { added: [], removed: [], first: false } };
    assert.match(renderPreview({ result: r, pageSize: 100 }), /No change since the previous preview/);
  });

  it('keeps the refresh diff while paging', () => {
    const refresh = { added: [[1]], removed: [], first: false };
    const page: PreviewResult = { ...cleanOrders(), diff: { added: [], removed: [], first: false } };
    assert.equal(diffToShow(refresh, page, 'page'), refresh);
    assert.deepEqual(diffToShow(refresh, page, 'refresh'), page.diff);
  });

  it('shows a dataset that could not run', () => {
    const r: PreviewResult = { ...cleanOrders(), rows: [], columns: [], error: 'clean_orders failed: Binder Error: <column> "x" not found' };
    const html = renderPreview({ result: r, pageSize: 100 });
    assert.match(html, /role="alert"/);
    assert.match(html, /Binder Error: &lt;column&gt; &quot;x&quot; not found/);
    assert.doesNotMatch(html, /class="pager"/);
  });

  it('notes sorting and loading', () => {
    const html = renderPreview({ result: cleanOrders(), pageSize: 100, sort: { column: 1, dir: 'asc' }, loading: true });
    assert.match(html, /sorted within this page/);
    assert.match(html, /Running\u2026/);
  });

  it('emits no inline script, style or event handler (the CSP forbids them)', () => {
    const r: PreviewResult = { ...cleanOrders(), diff: { added: [[1]], removed: [[2]], first: false } };
    const html = renderPreview({ result: r, pageSize: 10 }) + renderLineage(retailGraph());
    assert.doesNotMatch(html, /<script|style=|\son[a-z]+=|javascript:/i);
  });
});

describe('lineage', () => {
  it('gives depths by longest path from the sources', () => {
    const d = depths(retailGraph());
    assert.equal(d.get('source:orders'), 0);
    assert.equal(d.get('clean_orders'), 1);
    assert.equal(d.get('order_lines'), 2);
    assert.equal(d.get('billable_lines'), 3);
    assert.equal(d.get('customer_orders'), 4);
    assert.equal(d.get('customer_ranking'), 5);
  });

  it('orders topologically', () => {
    const g = retailGraph();
    const order = topoOrder(g).map((n) => n.id);
    for (const e of g.edges) assert.ok(order.indexOf(e.from) < order.indexOf(e.to), `${e.from} before ${e.to}`);
  });

  it('survives a cycle', () => {
    const g = retailGraph();
    g.edges.push({ from: 'customer_ranking', to: 'clean_orders', streaming: false });
    const d = depths(g);
    assert.equal(d.size, g.nodes.length);
    assert.equal(topoOrder(g).length, g.nodes.length);
  });

  it('finds what is downstream', () => {
    assert.deepEqual([...downstream(retailGraph(), ['customer_orders'])].sort(), ['customer_orders', 'customer_ranking', 'revenue_by_region']);
  });

  it('lays layers left to right without overlaps', () => {
    const lay = layoutGraph(retailGraph());
    assert.equal(lay.nodes.length, 11);
    assert.equal(lay.edges.length, 10);
    const byId = new Map(lay.nodes.map((p) => [p.node.id, p]));
    for (const e of retailGraph().edges) assert.ok(byId.get(e.from)!.x + NODE_W <= byId.get(e.to)!.x);
    for (const a of lay.nodes)
      for (const b of lay.nodes) if (a !== b && a.x === b.x) assert.ok(Math.abs(a.y - b.y) >= 60, `${a.node.id} / ${b.node.id}`);
    for (const p of lay.nodes) assert.ok(p.x >= 0 && p.y >= 0 && p.x + NODE_W <= lay.width && p.y <= lay.height);
  });

  it('renders nodes with kind, support and a link to their file', () => {
    const svg = renderLineage(retailGraph(), { clean_orders: 2 }, { clean_orders: { phase: 'completed', rows: 52, elapsed_ms: 31, at: 0 } });
    assert.match(svg, /^<svg class="lineage"/);
    assert.match(svg, /data-uri="file:\/\/\/w\/retail\/transformations\/revenue\.sql" data-line="11"/);
    assert.match(svg, />materialized view</);
    assert.match(svg, />temporary view</);
    assert.match(svg, /class="support ok"><title>Runs on native<\/title>/);
    assert.match(svg, /class="support bad"><title>Not on spark-4\.1: expectations are not part of Spark 4\.1<\/title>/);
    assert.match(svg, />spark-4\.1 \u2717</);
    assert.match(svg, /class="node kind-materialized_view clickable has-errors phase-completed"/);
    assert.match(svg, />2 errors</);
    assert.equal((svg.match(/<path class="edge/g) ?? []).length, 10);
    // sources are drawn but not clickable
    assert.match(svg, /<g class="node kind-source" data-id="source:orders"><title>orders \(source\)/);
  });

  it('marks streaming reads', () => {
    const g = retailGraph();
    g.edges[0].streaming = true;
    assert.equal((renderLineage(g).match(/class="edge streaming"/g) ?? []).length, 1);
  });

  it('says when the pipeline is empty', () => {
    assert.match(renderLineage({ pipeline: 'p', nodes: [], edges: [] }), /no datasets/);
  });
});

describe('notebook output', () => {
  it('is a table with the first rows and expectation badges', () => {
    const html = renderNotebookOutput([cleanOrders()], 2);
    assert.match(html, /^<div class="thund-nb">/);
    assert.match(text(html), /clean_orders 56 rows \u00b7 43 ms \u00b7 first 3 shown/);
    assert.equal(bodyRows(html).length, 2);
    assert.match(html, /status-dropped" title="drop: 4 violations, 4 dropped">valid_amount: dropped/);
    assert.doesNotMatch(html, /data-col=/);
  });

  it('shows an error per dataset', () => {
    const html = renderNotebookOutput([{ ...cleanOrders(), error: 'boom <x>' }], 10);
    assert.match(html, /class="error-banner" role="alert"><span class="error-message">boom &lt;x&gt;/);
  });

  it('has a plain-text form', () => {
    const t = renderTextTable(cleanOrders());
    const lines = t.split('\n');
    assert.equal(lines[0], 'clean_orders: 56 rows in 43 ms');
    assert.match(lines[1], /^order_id \| customer_id \| product_id/);
    assert.match(lines[3], /^10001 +\| C001/);
    assert.match(lines[5], /\| NULL +\|/);
  });
});

describe('spark dry run', () => {
  const base = { remote: 'sc://127.0.0.1:15002', backend: 'spark-4.1', define_ms: 120, run_ms: 800 };
  it('says when it passed', () => {
    assert.equal(sparkSummary({ ...base, ok: true, problems: [] }), 'Spark dry run on spark-4.1 at sc://127.0.0.1:15002: no problems (define 120 ms, dry run 800 ms).');
  });
  it('lists problems at their files', () => {
    const r = {
      ...base,
      ok: false,
      problems: [
        { dataset: 'clean_orders', message: 'expectations are not part of Spark 4.1', uri: 'file:///w/retail/t/clean_orders.sql', range: { start: { line: 5, character: 3 }, end: { line: 5, character: 9 } }, refused: true },
      ],
    };
    assert.match(sparkSummary(r), /not sent, 1 feature this Spark version cannot run/);
    assert.deepEqual(sparkReport(r).slice(1), ['  refused clean_orders /w/retail/t/clean_orders.sql:6:4: expectations are not part of Spark 4.1']);
    const failed = { ...r, problems: [{ ...r.problems[0], refused: false }, { ...r.problems[0], refused: false, uri: undefined, dataset: '' }] };
    assert.match(sparkSummary(failed), /: 2 problems\.$/);
    assert.match(sparkReport(failed)[2], /^ {2}failed  \(pipeline\): /);
  });
});

describe('renderBounds', () => {
  const base = { dataset: 'd', columns: [], rows: [], total_rows: 0, offset: 0, elapsed_ms: 0, expectations: [], increments: [], diff: null } as PreviewResult;
  it('says nothing for a whole page', () => {
    assert.equal(renderBounds(base), '');
  });
  it('names cut values, a cut page and a skipped diff, escaped', () => {
    const html = renderBounds({
      ...base,
      truncated: [{ row: 0, column: 1, bytes: 2_000_000 }],
      cut: 'page cut at 16 MiB <b>',
      diff_skipped: 'too large to compare',
    });
    assert.match(html, /1 value cut/);
    assert.match(html, /page cut at 16 MiB &lt;b&gt;/);
    assert.match(html, /too large to compare/);
  });
});
