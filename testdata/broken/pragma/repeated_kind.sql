-- The kind is given twice.
-- @kind: materialized_view
-- @kind: table
SELECT sensor_id, a FROM readings
