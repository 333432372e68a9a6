-- Revenue reporting, written as SDP statements: this file defines two
-- datasets, so it uses CREATE statements instead of a pragma header.

-- Lines that bring money in: cancelled and returned orders are left out.
-- Not stored; every dataset that reads it recomputes it.
CREATE TEMPORARY VIEW billable_lines AS
SELECT *
FROM order_lines
WHERE status IN ('completed', 'shipped');

-- @expect.positive_revenue: revenue > 0
CREATE MATERIALIZED VIEW daily_revenue
COMMENT 'Orders, units and revenue per order date'
AS SELECT
  order_date,
  count(DISTINCT order_id) AS orders,
  sum(quantity) AS units,
  round(sum(amount), 2) AS revenue,
  round(sum(discount), 2) AS discounts
FROM billable_lines
GROUP BY order_date;
