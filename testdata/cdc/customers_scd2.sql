-- Customer history: every version of every customer, each valid from the
-- change that wrote it until the next one. A late change is slotted into the
-- history at its seq rather than appended at the end.

-- @kind: streaming_table
-- @format: delta
-- @cdc: keys=(customer_id) sequence_by=seq scd=2
SELECT * FROM STREAM(customer_changes)
