-- Complete mode rewrites the whole result each trigger: it needs an aggregate.
-- @kind: streaming_table
-- @output_mode: complete
SELECT user_id, page FROM STREAM(clicks)
