-- Apply changes: native and Spark 4.2 (AUTO CDC), not Spark 4.1.
-- @kind: streaming_table
-- @cdc: keys=(account_id) sequence_by=seq
SELECT * FROM STREAM(account_changes)
