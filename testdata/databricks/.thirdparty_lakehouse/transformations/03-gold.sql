-- Gold layer: what the dashboard reads.

CREATE OR REFRESH LIVE TABLE spend_per_user
COMMENT "Orders and spend of each current user"
AS SELECT u.id, u.firstname, u.lastname, count(o.order_id) AS orders, sum(o.amount) AS spend
FROM LIVE.dim_users u
JOIN LIVE.orders_clean o ON o.user_id = u.id
WHERE u.__END_AT IS NULL
GROUP BY u.id, u.firstname, u.lastname;

CREATE OR REFRESH LIVE TABLE biggest_order_per_user
COMMENT "Each user's largest order"
AS SELECT user_id, order_id, amount, order_date
FROM (
  SELECT *, row_number() OVER (PARTITION BY user_id ORDER BY amount DESC, order_id) AS rank
  FROM LIVE.orders_clean
)
WHERE rank = 1;
