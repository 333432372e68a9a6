-- Gold: what each live customer has had shipped, from two tables that
-- share their last names with others (silver.customers, gold.orders).
CREATE MATERIALIZED VIEW gold.customer_orders
COMMENT 'Shipped orders per live customer'
AS SELECT c.customer_id, c.name, c.city,
  count(o.order_id) AS shipped,
  coalesce(sum(o.amount), 0) AS total
FROM silver.customers AS c
LEFT JOIN gold.orders AS o ON o.customer_id = c.customer_id
GROUP BY c.customer_id, c.name, c.city;
