-- A valid dataset, so the pipeline is not empty.
SELECT customer_id, sum(amount) AS total
FROM orders
GROUP BY customer_id
