-- SDP form: DuckDB list functions and DuckDB's three-argument date forms.
CREATE MATERIALIZED VIEW user_lists AS
SELECT
  user_id,
  list_value(min(kind), max(kind)) AS kinds,
  string_split(max(tags), '|') AS tags,
  arg_max(kind, amount) AS top_kind,
  collect_list(kind) AS all_kinds,
  datediff(max(ts), min(ts)) AS span_days_spark,
  date_sub('hour', min(ts), max(ts)) AS span_hours
FROM events
GROUP BY user_id;
