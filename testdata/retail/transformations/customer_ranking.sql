-- Customers ranked by what they spent, overall and within their region, with
-- the running total and running share from the biggest spender down (the
-- figures behind a Pareto chart).

SELECT
  customer_id,
  customer_name,
  region,
  orders,
  lifetime_value,
  rank() OVER (ORDER BY lifetime_value DESC) AS overall_rank,
  rank() OVER (PARTITION BY region ORDER BY lifetime_value DESC) AS region_rank,
  sum(lifetime_value) OVER (
    ORDER BY lifetime_value DESC, customer_id
    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
  ) AS running_value,
  round(
    100 * sum(lifetime_value) OVER (
      ORDER BY lifetime_value DESC, customer_id
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) / sum(lifetime_value) OVER (),
    1
  ) AS running_share_pct
FROM (
  SELECT
    customer_id,
    customer_name,
    region,
    count(*) AS orders,
    sum(order_total) AS lifetime_value
  FROM customer_orders
  GROUP BY customer_id, customer_name, region
) AS per_customer
