-- The colon after the key is missing.
-- @kind materialized_view
SELECT sensor_id, a FROM readings
