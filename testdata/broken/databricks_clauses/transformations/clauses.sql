-- Databricks pipeline SQL clauses that Spark's grammar lacks.

CREATE OR REFRESH MATERIALIZED VIEW customers_masked (
  id INT,
  email STRING MASK mask_email,
  region STRING
)
WITH ROW FILTER region_filter ON (region)
AS SELECT 1 AS id, 'ada@example.com' AS email, 'EU' AS region;

CREATE OR REFRESH MATERIALIZED VIEW daily_totals REFRESH POLICY AUTO
AS SELECT region, count(*) AS n FROM customers_masked GROUP BY region;

-- SCHEDULE belongs to Databricks SQL outside pipelines: refused there too.
CREATE OR REFRESH STREAMING TABLE orders_hourly SCHEDULE EVERY 1 HOUR
AS SELECT * FROM STREAM(orders_raw);

CREATE OR REFRESH STREAMING TABLE orders_raw FLOW INSERT BY NAME
SELECT * FROM STREAM read_files('/Volumes/shop/landing/orders/', format => 'csv');

CREATE OR REFRESH MATERIALIZED VIEW archived AS SELECT * FROM parquet.`/Volumes/shop/archive/archived_orders/`;

CREATE OR REFRESH STREAMING TABLE stock;

APPLY CHANGES INTO stock FROM SNAPSHOT stock_snapshot KEYS (sku) STORED AS SCD TYPE 1;
