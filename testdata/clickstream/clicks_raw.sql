-- Every click as it arrives from the web tracker, one micro-batch per
-- trigger. Nothing is dropped here: late clicks are kept as they come.

-- @kind: streaming_table
-- @trigger: processing_time '10 seconds'
SELECT
  user_id,
  page,
  cast(event_time AS TIMESTAMP) AS event_time
FROM STREAM(clicks)
