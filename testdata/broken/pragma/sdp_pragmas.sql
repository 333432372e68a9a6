-- Pragma blocks above SDP statements are checked the same way.

-- @expect.positive: a > 0
-- @expect.positive: a >= 0
CREATE MATERIALIZED VIEW positive_readings AS
SELECT sensor_id, a FROM readings WHERE a > 0;

-- @outputmode: append
CREATE STREAMING TABLE tick_copy AS
SELECT sensor_id, a FROM STREAM(ticks);
