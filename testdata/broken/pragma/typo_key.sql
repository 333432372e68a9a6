-- A misspelt key: expct instead of expect.
-- @expct.x: a > 0
SELECT sensor_id, a FROM readings
