import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import * as path from 'node:path';

import { contentSecurityPolicy, makeNonce, shellHtml } from '../src/shell';
import { findRoot, isUnder, rootAnchor, specRoot } from '../src/roots';
import { cellsToRefresh, planCells } from '../src/notebookModel';
import { retailGraph } from './fixtures';

describe('webview shell', () => {
  const html = shellHtml({ cspSource: 'https://x.vscode-cdn.net', nonce: 'abc123', scriptUri: 'https://x.vscode-cdn.net/dist/webview/preview.js', title: 'T <1>', css: 'body{}' });

  it('sets a strict CSP with a nonce and nothing remote', () => {
    const csp = contentSecurityPolicy('https://x.vscode-cdn.net', 'abc123');
    assert.match(csp, /^default-src 'none'/);
    assert.match(csp, /script-src 'nonce-abc123'(;|$)/);
    assert.match(csp, /style-src https:\/\/x\.vscode-cdn\.net 'nonce-abc123'/);
    assert.match(csp, /connect-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;/);
  });

  it('loads only its own script and style, by nonce', () => {
    assert.match(html, /<script nonce="abc123" src="https:\/\/x\.vscode-cdn\.net\/dist\/webview\/preview\.js"><\/script>/);
    assert.match(html, /<style nonce="abc123">body\{\}<\/style>/);
    assert.match(html, /<title>T &lt;1&gt;<\/title>/);
    assert.equal((html.match(/<script/g) ?? []).length, 1);
  });

  it('makes nonces of 32 alphanumerics', () => {
    const n = makeNonce((k) => Uint8Array.from({ length: k }, (_, i) => i * 37));
    assert.match(n, /^[A-Za-z0-9]{32}$/);
  });
});

describe('pipeline roots', () => {
  const files = new Set([path.join('/w/retail', 'spark-pipeline.yml'), path.join('/w/retail', 'thund.yaml'), path.join('/w/cfg', 'thund.yaml')]);
  const isFile = (p: string) => files.has(p);
  it('finds the spec first, then thund.yaml', () => {
    assert.equal(findRoot('/w/retail/transformations/a.sql', isFile), '/w/retail');
    assert.equal(findRoot('/w/cfg/deep/x/a.sql', isFile), '/w/cfg');
    assert.equal(findRoot('/elsewhere/a.sql', isFile), '/elsewhere');
    assert.equal(rootAnchor('/w/retail', isFile), '/w/retail/spark-pipeline.yml');
    assert.equal(rootAnchor('/w/cfg', isFile), '/w/cfg/thund.yaml');
  });
  it('takes the spec setting\'s folder for a file under it', () => {
    const withSpec = (p: string) => isFile(p) || p === '/w/dm/pipeline.yml';
    assert.equal(specRoot('/w/dm/transformations/a.sql', '/w/dm/pipeline.yml', withSpec), '/w/dm');
    assert.equal(specRoot('/w/retail/a.sql', '/w/dm/pipeline.yml', withSpec), undefined);
    assert.equal(specRoot('/w/dm/a.sql', '/w/dm/missing.yml', withSpec), undefined);
    assert.equal(specRoot('/w/dm/a.sql', '', withSpec), undefined);
    assert.equal(rootAnchor('/w/dm', withSpec, '/w/dm/pipeline.yml'), '/w/dm/pipeline.yml');
    assert.equal(rootAnchor('/w/retail', withSpec, '/w/dm/pipeline.yml'), '/w/retail/spark-pipeline.yml');
  });
  it('tells what is under a folder', () => {
    assert.ok(isUnder('/w/retail/a.sql', '/w/retail'));
    assert.ok(!isUnder('/w/retail2/a.sql', '/w/retail'));
    assert.ok(!isUnder('/w/a.sql', '/w/retail'));
  });
});

describe('notebook cells', () => {
  it('has one cell per file, in topological order', () => {
    const plans = planCells(retailGraph());
    assert.deepEqual(
      plans.map((p) => p.datasets.join('+')),
      ['clean_orders', 'order_lines', 'billable_lines+daily_revenue', 'customer_orders', 'top_products', 'customer_ranking', 'revenue_by_region'],
    );
    assert.equal(plans[2].uri, 'file:///w/retail/transformations/revenue.sql');
  });

  it('refreshes what is downstream of a changed file', () => {
    const g = retailGraph();
    const plans = planCells(g);
    const names = (uri: string) => cellsToRefresh(g, plans, uri).map((p) => p.datasets[0]);
    assert.deepEqual(names('file:///w/retail/transformations/customer_orders.sql'), ['customer_orders', 'customer_ranking', 'revenue_by_region']);
    assert.equal(names('file:///w/retail/transformations/clean_orders.sql').length, 7);
    assert.deepEqual(names('file:///w/retail/transformations/nope.sql'), []);
  });
});
