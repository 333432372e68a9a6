-- DELETE ROW is not a violation action (DROP ROW is).
-- @expect.y: a > 0 ON VIOLATION DELETE ROW
SELECT sensor_id, a FROM readings
