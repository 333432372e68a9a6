-- Pragma form holds exactly one query; this file has two.
-- @kind: materialized_view
SELECT order_id, amount FROM orders;
SELECT customer_id FROM orders;
