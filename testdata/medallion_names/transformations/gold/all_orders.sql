-- Gold: every order with an amount, the kept ones and the ones of the
-- legacy system (legacy.orders, a second source ending in orders).
CREATE MATERIALIZED VIEW gold.all_orders
COMMENT 'Orders of both systems'
AS SELECT order_id, amount, 'current' AS origin FROM silver.orders
UNION ALL
SELECT CAST(order_id AS INT) AS order_id, CAST(amount AS DECIMAL(10, 2)) AS amount, 'legacy' AS origin
FROM legacy.orders;
