-- Silver: the orders worth keeping, with a status in capitals.
CREATE STREAMING TABLE silver.orders
COMMENT 'Orders with an amount, status normalised'
AS SELECT order_id, customer_id, amount, upper(status) AS status
FROM STREAM(bronze.orders)
WHERE amount > 0;
