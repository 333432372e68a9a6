-- One row per order line, with the product's name and category and the
-- discount given against the list price.

SELECT
  o.order_id,
  o.order_date,
  o.customer_id,
  o.status,
  o.product_id,
  p.name AS product_name,
  p.category,
  o.quantity,
  o.unit_price,
  o.amount,
  cast(p.list_price AS DECIMAL(10, 2)) * o.quantity - o.amount AS discount
FROM clean_orders AS o
JOIN products AS p ON p.product_id = o.product_id;
