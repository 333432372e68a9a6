-- An interval unit neither engine knows.
-- @kind: streaming_table
-- @trigger: processing_time '10 secs'
SELECT sensor_id, a FROM STREAM(ticks)
