-- Bronze keeps the order feed as it lands (spark_catalog.bronze.orders:
-- the spec's database is bronze). Its source, landing.orders, ends in
-- the same name.
CREATE STREAMING TABLE orders
COMMENT 'Order events as they land'
AS SELECT
  CAST(order_id AS INT) AS order_id,
  CAST(customer_id AS INT) AS customer_id,
  CAST(amount AS DECIMAL(10, 2)) AS amount,
  status
FROM STREAM(landing.orders);
