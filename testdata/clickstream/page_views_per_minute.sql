-- Views per page and minute of event time. A minute is written once the
-- watermark has passed it, so a click more than two minutes later than the
-- latest one seen is dropped instead of reopening a finished minute.

-- @kind: streaming_table
-- @watermark: event_time, 2 minutes
-- @output_mode: append
SELECT
  date_trunc('minute', event_time) AS minute_start,
  page,
  count(*) AS views
FROM STREAM(clicks_raw)
GROUP BY date_trunc('minute', event_time), page
