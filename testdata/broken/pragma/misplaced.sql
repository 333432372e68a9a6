-- A pragma below the query is not part of the header.
SELECT sensor_id, a
FROM readings
-- @kind: table
