-- Orders as the shop exports them, typed, with each line's amount computed.
-- A line with a missing or negative amount is dropped; an order without a
-- customer, or with a status the shop does not use, is kept and counted.

-- @kind: materialized_view
-- @expect.valid_amount: amount IS NOT NULL AND amount > 0 ON VIOLATION DROP ROW
-- @expect.has_customer: customer_id IS NOT NULL
-- @expect.known_status: status IN ('completed', 'shipped', 'cancelled', 'returned')
SELECT
  cast(order_id AS INTEGER) AS order_id,
  customer_id,
  product_id,
  cast(order_date AS DATE) AS order_date,
  cast(quantity AS INTEGER) AS quantity,
  cast(unit_price AS DECIMAL(10, 2)) AS unit_price,
  cast(quantity AS INTEGER) * cast(unit_price AS DECIMAL(10, 2)) AS amount,
  lower(status) AS status
FROM orders
