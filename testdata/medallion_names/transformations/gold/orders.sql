-- Gold: the shipped orders.
CREATE STREAMING TABLE gold.orders
COMMENT 'Shipped orders'
AS SELECT order_id, customer_id, amount
FROM STREAM(silver.orders)
WHERE status = 'SHIPPED';
