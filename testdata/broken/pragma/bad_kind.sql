-- British spelling of a kind.
-- @kind: materialised_view
SELECT sensor_id, a FROM readings
