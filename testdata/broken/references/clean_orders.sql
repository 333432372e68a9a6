-- Orders with a positive amount.
SELECT order_id, customer_id, amount
FROM orders
WHERE amount > 0
