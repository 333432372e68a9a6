CREATE MATERIALIZED VIEW best_day
COMMENT 'The day each shop sold the most'
AS SELECT shop, max_by(order_date, revenue) AS order_date, max(revenue) AS revenue
FROM daily_revenue
GROUP BY shop;
