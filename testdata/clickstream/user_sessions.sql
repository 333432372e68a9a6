-- Browsing sessions per known user: a pause of more than three minutes
-- between two clicks starts a new session. Reads clicks_raw as a whole (a
-- batch read), so it is recomputed from every click kept so far.

WITH gaps AS (
  SELECT
    user_id,
    page,
    event_time,
    CASE
      WHEN lag(event_time) OVER (PARTITION BY user_id ORDER BY event_time) IS NULL THEN 1
      WHEN event_time > lag(event_time) OVER (PARTITION BY user_id ORDER BY event_time)
                        + INTERVAL '3' MINUTE THEN 1
      ELSE 0
    END AS starts_session
  FROM clicks_raw
),
numbered AS (
  SELECT
    gaps.*,
    sum(starts_session) OVER (
      PARTITION BY user_id ORDER BY event_time
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS session_no
  FROM gaps
)
SELECT
  n.user_id,
  u.name,
  u.plan,
  n.session_no,
  min(n.event_time) AS started_at,
  max(n.event_time) AS ended_at,
  count(*) AS clicks,
  count(DISTINCT n.page) AS pages,
  max(CASE WHEN n.page = '/signup' THEN 1 ELSE 0 END) = 1 AS signed_up
FROM numbered AS n
JOIN users AS u ON u.user_id = n.user_id
GROUP BY n.user_id, u.name, u.plan, n.session_no
