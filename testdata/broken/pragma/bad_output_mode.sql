-- upsert is not a streaming output mode.
-- @kind: streaming_table
-- @output_mode: upsert
SELECT sensor_id, a FROM STREAM(ticks)
