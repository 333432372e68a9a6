-- A watermark: native only (no knob for it over Spark Connect).
-- @kind: streaming_table
-- @watermark: event_time, 5 minutes
SELECT date_trunc('minute', event_time) AS minute_start, count(*) AS events
FROM STREAM(events)
GROUP BY date_trunc('minute', event_time)
