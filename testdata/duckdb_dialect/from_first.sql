-- Pragma form with DuckDB's FROM-first query: not an error.
-- @kind: materialized_view
FROM orders SELECT order_id, amount
