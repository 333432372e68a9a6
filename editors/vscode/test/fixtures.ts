// Answers of thund-lsp, as it gives them for testdata/retail (trimmed).
import type { GraphResult, PreviewResult } from '../src/protocol';

export function cleanOrders(): PreviewResult {
  return {
    dataset: 'clean_orders',
    columns: [
      // Spark's type names, as the server sends them since it maps DuckDB's
      { name: 'order_id', type: 'INT' },
      { name: 'customer_id', type: 'STRING' },
      { name: 'product_id', type: 'STRING' },
      { name: 'order_date', type: 'DATE' },
      { name: 'quantity', type: 'INT' },
      { name: 'unit_price', type: 'DECIMAL(10,2)' },
      { name: 'amount', type: 'DECIMAL(21,2)' },
      { name: 'status', type: 'STRING' },
    ],
    rows: [
      [10001, 'C001', 'P10', '2025-03-02', 1, '10.80', '10.80', 'shipped'],
      [10002, 'C001', 'P01', '2025-03-03', 1, '21.60', '21.60', 'completed'],
      [10039, null, 'P05', '2025-03-03', 2, '11.00', '22.00', 'NULL'],
    ],
    total_rows: 56,
    offset: 0,
    elapsed_ms: 43,
    expectations: [
      { dataset: 'clean_orders', name: 'has_customer', action: 'warn', violations: 1, dropped: 0, status: 'warned' },
      { dataset: 'clean_orders', name: 'known_status', action: 'warn', violations: 0, dropped: 0, status: 'passed' },
      { dataset: 'clean_orders', name: 'valid_amount', action: 'drop', violations: 4, dropped: 4, status: 'dropped' },
    ],
    increments: [],
    diff: { added: [], removed: [], first: true },
  };
}

export function retailGraph(): GraphResult {
  const f = (n: string) => `file:///w/retail/transformations/${n}.sql`;
  const native = { native: [] as string[] };
  return {
    pipeline: 'retail',
    nodes: [
      { id: 'source:customers', name: 'customers', kind: 'source', line: 0, support: {} },
      { id: 'source:orders', name: 'orders', kind: 'source', line: 0, support: {} },
      { id: 'source:products', name: 'products', kind: 'source', line: 0, support: {} },
      { id: 'clean_orders', name: 'clean_orders', kind: 'materialized_view', uri: f('clean_orders'), line: 0, support: native },
      { id: 'customer_orders', name: 'customer_orders', kind: 'materialized_view', uri: f('customer_orders'), line: 0, support: native },
      { id: 'customer_ranking', name: 'customer_ranking', kind: 'materialized_view', uri: f('customer_ranking'), line: 0, support: native },
      { id: 'order_lines', name: 'order_lines', kind: 'materialized_view', uri: f('order_lines'), line: 0, support: native },
      { id: 'billable_lines', name: 'billable_lines', kind: 'temporary_view', uri: f('revenue'), line: 5, support: native },
      { id: 'daily_revenue', name: 'daily_revenue', kind: 'materialized_view', uri: f('revenue'), line: 11, support: native },
      { id: 'revenue_by_region', name: 'revenue_by_region', kind: 'materialized_view', uri: f('revenue_by_region'), line: 0, support: native },
      {
        id: 'top_products',
        name: 'top_products',
        kind: 'materialized_view',
        uri: f('top_products'),
        line: 0,
        support: { native: [], 'spark-4.1': ['expectations are not part of Spark 4.1'] },
      },
    ],
    edges: [
      { from: 'source:orders', to: 'clean_orders', streaming: false },
      { from: 'clean_orders', to: 'order_lines', streaming: false },
      { from: 'source:products', to: 'order_lines', streaming: false },
      { from: 'order_lines', to: 'billable_lines', streaming: false },
      { from: 'billable_lines', to: 'customer_orders', streaming: false },
      { from: 'source:customers', to: 'customer_orders', streaming: false },
      { from: 'billable_lines', to: 'daily_revenue', streaming: false },
      { from: 'billable_lines', to: 'top_products', streaming: false },
      { from: 'customer_orders', to: 'revenue_by_region', streaming: false },
      { from: 'customer_orders', to: 'customer_ranking', streaming: false },
    ],
  };
}
