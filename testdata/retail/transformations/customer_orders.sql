-- Billable orders with the customer's name and region, one row per order.
-- Customers who never gave a region are reported under 'Unknown'.

SELECT
  l.order_id,
  l.order_date,
  l.customer_id,
  c.name AS customer_name,
  coalesce(c.region, 'Unknown') AS region,
  sum(l.quantity) AS units,
  sum(l.amount) AS order_total
FROM billable_lines AS l
JOIN customers AS c ON c.customer_id = l.customer_id
GROUP BY l.order_id, l.order_date, l.customer_id, c.name, c.region
