-- Apply changes: native only; neither Spark 4.1 nor 4.2 runs it.
-- @kind: streaming_table
-- @cdc: keys=(account_id) sequence_by=seq
SELECT * FROM STREAM(account_changes)
