-- A watermark, grouped by date_trunc: native only (Spark needs a window).
-- @kind: streaming_table
-- @watermark: event_time, 5 minutes
SELECT date_trunc('minute', event_time) AS minute_start, count(*) AS events
FROM STREAM(events)
GROUP BY date_trunc('minute', event_time)
