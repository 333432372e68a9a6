-- The correct form: an aggregate in append mode with a watermark. No
-- diagnostic.
-- @kind: streaming_table
-- @watermark: event_time, 1 minute
SELECT date_trunc('minute', event_time) AS minute_start, count(*) AS clicks
FROM STREAM(clicks)
GROUP BY date_trunc('minute', event_time)
