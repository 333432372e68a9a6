-- Apply changes writes into a streaming table, not a materialized view.
-- @kind: materialized_view
-- @cdc: keys=(user_id) sequence_by=seq
SELECT * FROM user_changes
