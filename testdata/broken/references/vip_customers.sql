-- Customers who spent over 100. big_spenders is a CTE, not a dataset, and
-- must not be reported.
WITH big_spenders AS (
  SELECT customer_id, sum(amount) AS total
  FROM clean_orders
  GROUP BY customer_id
)
SELECT c.customer_id, c.name, b.total
FROM big_spenders AS b
JOIN customers AS c ON c.customer_id = b.customer_id
WHERE b.total > 100
