import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import { columnCone, renderColumns, tableHighlights, type LineageResult } from '../src/columnLineage';
import { renderLineage } from '../src/render';
import { retailGraph } from './fixtures';

/** Part of retail's column graph, as thund/lineage answers it. */
function retailColumns(): LineageResult {
  const c = (table: string, column: string) => ({ table, column });
  return {
    pipeline: 'retail',
    tables: [
      { id: 'source:orders', name: 'orders', kind: 'source', complete: true, columns: [
        { name: 'quantity', deps: [] }, { name: 'unit_price', deps: [] }, { name: 'status', deps: [] }] },
      { id: 'clean_orders', name: 'clean_orders', kind: 'materialized_view', complete: true, columns: [
        { name: 'amount', type: 'DECIMAL(21,2)', uri: 'file:///w/retail/transformations/clean_orders.sql', line: 15,
          deps: [{ from: c('orders', 'quantity'), kind: 'expression' }, { from: c('orders', 'unit_price'), kind: 'expression' }] },
        { name: 'status', type: 'STRING', deps: [{ from: c('orders', 'status'), kind: 'expression' }] }] },
      { id: 'order_lines', name: 'order_lines', kind: 'materialized_view', complete: true, columns: [
        { name: 'amount', deps: [{ from: c('clean_orders', 'amount'), kind: 'passthrough' }] }] },
      { id: 'daily_revenue', name: 'daily_revenue', kind: 'materialized_view', complete: true, columns: [
        { name: 'revenue', deps: [{ from: c('order_lines', 'amount'), kind: 'aggregate' }, { from: c('clean_orders', 'status'), kind: 'filter' }] }] },
      { id: 'customers', name: 'customers', kind: 'source', complete: false, reason: 'no sample', columns: [] },
    ],
    edges: [
      { from: c('orders', 'quantity'), to: c('clean_orders', 'amount'), kind: 'expression' },
      { from: c('orders', 'unit_price'), to: c('clean_orders', 'amount'), kind: 'expression' },
      { from: c('orders', 'status'), to: c('clean_orders', 'status'), kind: 'expression' },
      { from: c('clean_orders', 'amount'), to: c('order_lines', 'amount'), kind: 'passthrough' },
      { from: c('order_lines', 'amount'), to: c('daily_revenue', 'revenue'), kind: 'aggregate' },
      { from: c('clean_orders', 'status'), to: c('daily_revenue', 'revenue'), kind: 'filter' },
    ],
  };
}

describe('column lineage', () => {
  it('walks upstream and downstream through every dataset, case-insensitively', () => {
    const r = retailColumns();
    const up = [...columnCone(r, { table: 'daily_revenue', column: 'REVENUE' }, 'up').values()].map((x) => `${x.id.table}.${x.id.column}:${x.kind}`);
    assert.deepEqual(up.sort(), [
      'clean_orders.amount:passthrough',
      'clean_orders.status:filter',
      'order_lines.amount:aggregate',
      'orders.quantity:expression',
      'orders.status:expression',
      'orders.unit_price:expression',
    ]);
    const down = [...columnCone(r, { table: 'orders', column: 'quantity' }, 'down').keys()];
    assert.equal(down.length, 3);
    assert.equal(columnCone(r, { table: 'daily_revenue', column: 'revenue' }, 'down').size, 0);
  });

  it('marks the tables of a focused column for the graph', () => {
    const r = retailColumns();
    assert.deepEqual(tableHighlights(r, { table: 'order_lines', column: 'amount' }), {
      order_lines: 'focus',
      clean_orders: 'upstream',
      'source:orders': 'upstream',
      daily_revenue: 'downstream',
    });
    assert.deepEqual(tableHighlights(r, undefined), {});
  });

  it('renders collapsed datasets, expanded ones, and the focus', () => {
    const r = retailColumns();
    const closed = renderColumns(r, { expanded: new Set() });
    assert.equal((closed.match(/<details[^>]* open/g) ?? []).length, 0);
    assert.match(closed, /Expand a dataset/);
    const one = renderColumns(r, { expanded: new Set(['clean_orders']) });
    assert.match(one, /<details class="table-cols" data-table-id="clean_orders" open>/);
    assert.match(one, /<span class="col-name">amount<\/span> <span class="col-type muted">DECIMAL\(21,2\)<\/span>/);
    assert.match(one, /data-uri="file:\/\/\/w\/retail\/transformations\/clean_orders.sql" data-line="15"/);
    assert.match(one, /Columns not known: no sample/);
    const focused = renderColumns(r, { expanded: new Set(), focus: { table: 'order_lines', column: 'amount' } });
    assert.match(focused, /class="col col-focus" data-table="order_lines" data-column="amount"/);
    assert.match(focused, /class="col col-upstream" data-table="clean_orders" data-column="amount".*upstream · passthrough/);
    assert.match(focused, /class="col col-downstream" data-table="daily_revenue" data-column="revenue".*downstream · aggregate/);
    assert.match(focused, /3 upstream, 1 downstream/);
    // the datasets holding a marked column open by themselves
    assert.equal((focused.match(/<details[^>]* open/g) ?? []).length, 4);
    // names are escaped
    const odd = retailColumns();
    odd.tables[1].columns[0].name = '<b>';
    assert.ok(!renderColumns(odd, { expanded: new Set(['clean_orders']) }).includes('<b>'));
  });

  it('gives every graph node its id, for the highlights', () => {
    const svg = renderLineage(retailGraph());
    for (const n of retailGraph().nodes) assert.ok(svg.includes(`data-id="${n.id}"`), n.id);
  });
});
