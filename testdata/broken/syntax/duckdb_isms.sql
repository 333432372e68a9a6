-- DuckDB syntax in a pipeline read as Spark SQL (the default dialect):
-- Spark's parser rejects it, so each is a syntax error. A pipeline that
-- only runs natively can say `dialect: duckdb` (see testdata/duckdb_dialect).

CREATE MATERIALIZED VIEW orders_without_x AS
SELECT * EXCLUDE (x) FROM orders;

CREATE MATERIALIZED VIEW orders_per_status AS
SELECT status, count(*) AS orders FROM orders GROUP BY ALL;

CREATE MATERIALIZED VIEW latest_order_per_customer AS
SELECT * FROM orders
QUALIFY row_number() OVER (PARTITION BY customer_id ORDER BY placed_at DESC) = 1;
