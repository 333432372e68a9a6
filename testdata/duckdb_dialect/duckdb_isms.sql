-- DuckDB syntax that the PostgreSQL grammar rejects. None of it is an error:
-- the DuckDB parser accepts every statement here.

CREATE MATERIALIZED VIEW orders_without_x AS
SELECT * EXCLUDE (x) FROM orders;

CREATE MATERIALIZED VIEW orders_per_status AS
SELECT status, count(*) AS orders FROM orders GROUP BY ALL;

CREATE MATERIALIZED VIEW latest_order_per_customer AS
SELECT * FROM orders
QUALIFY row_number() OVER (PARTITION BY customer_id ORDER BY placed_at DESC) = 1;

CREATE MATERIALIZED VIEW trailing_comma AS
SELECT order_id, amount, FROM orders;
