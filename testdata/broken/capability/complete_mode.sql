-- Complete output mode: native only (Spark streaming tables append).
-- @kind: streaming_table
-- @output_mode: complete
SELECT status, count(*) AS events
FROM STREAM(events)
GROUP BY status
