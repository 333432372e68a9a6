-- A syntax error inside an SDP statement; the statement after it is still
-- read.

CREATE MATERIALIZED VIEW totals_per_customer AS
SELECT customer_id, sum(amount) AS total FROM orders GROUP customer_id;

CREATE MATERIALIZED VIEW paid_orders AS
SELECT order_id, amount FROM orders WHERE status = 'paid';
