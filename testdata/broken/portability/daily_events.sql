-- Event days. strftime and epoch_ms are DuckDB's; date_format and
-- unix_millis are the Spark spellings (Thund maps date_format natively).
SELECT
  event_id,
  strftime(ts, '%Y-%m-%d') AS day,
  date_format(ts, 'yyyy-MM-dd') AS day_spark,
  EPOCH_MS(ts) AS ms
FROM events
