-- Pragma form: DuckDB's date_diff with a quoted unit. Spark reads
-- date_diff(unit, start, end) as its TIMESTAMPDIFF form, whose unit is a
-- keyword: the quoted 'day' is an error on Spark, where it is written DAY.
SELECT user_id, date_diff('day', min(ts), max(ts)) AS span_days
FROM events
GROUP BY user_id
