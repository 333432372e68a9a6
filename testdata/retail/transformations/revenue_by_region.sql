-- Monthly revenue per sales region.

SELECT
  region,
  cast(date_trunc('month', order_date) AS DATE) AS order_month,
  count(*) AS orders,
  count(DISTINCT customer_id) AS customers,
  round(sum(order_total), 2) AS revenue,
  round(avg(order_total), 2) AS avg_order
FROM customer_orders
GROUP BY region, cast(date_trunc('month', order_date) AS DATE)
