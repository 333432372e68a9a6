-- Open orders with a positive amount; one AND too many.
SELECT order_id, amount
FROM orders
WHERE status = 'open' AND AND amount > 0
