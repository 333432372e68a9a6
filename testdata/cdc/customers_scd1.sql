-- Customers as they stand now: one row per live customer, overwritten by
-- each newer change and removed by a DELETE. A change that arrives with an
-- older seq than the one already applied is ignored.

-- @kind: streaming_table
-- @format: delta
-- @cdc: keys=(customer_id) sequence_by=seq scd=1
SELECT * FROM STREAM(customer_changes)
