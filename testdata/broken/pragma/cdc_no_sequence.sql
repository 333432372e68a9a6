-- A CDC flow needs sequence_by to order the changes.
-- @kind: streaming_table
-- @cdc: keys=(sensor_id) scd=1
SELECT * FROM STREAM(sensor_changes)
