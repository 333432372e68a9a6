-- Aggregates and arrays per user.
SELECT
  user_id,
  count(*) AS events,
  sum(amount) AS total,
  round(avg(amount), 2) AS avg_amount,
  max_by(id, amount) AS biggest_event,
  min_by(id, amount) AS smallest_event,
  count_if(score IS NULL) AS unscored,
  sum(nvl(score, 0)) AS score_sum,
  sort_array(collect_list(id)) AS ids,
  size(collect_set(to_date(ts))) AS active_days,
  array_max(collect_list(id)) AS last_id,
  array_min(collect_list(id)) AS first_id,
  array_join(sort_array(collect_list(CAST(id AS STRING))), ',') AS id_list,
  percentile(CAST(amount AS DOUBLE), 0.5) AS median_amount,
  stddev_samp(CAST(amount AS DOUBLE)) AS amount_stddev
FROM events
GROUP BY user_id
