-- Taxi trips for one morning, typed inline so the pipeline needs no external
-- source. Written in plain SDP SQL: it runs unchanged with `spark-pipelines run`.

SET spark.sql.shuffle.partitions = 4;

CREATE MATERIALIZED VIEW raw_trips
COMMENT 'Taxi trips as recorded by the meter, one row per trip'
AS SELECT *
FROM (VALUES
  (1001, 'MIDTOWN',      'HARLEM',       TIMESTAMP '2025-03-03 07:02:00',  3.1,  14.50,  2.00),
  (1002, 'SOHO',         'MIDTOWN',      TIMESTAMP '2025-03-03 07:05:00',  2.4,  11.00,  0.00),
  (1003, 'HARLEM',       'UPPER_WEST',   TIMESTAMP '2025-03-03 07:11:00',  1.2,   7.50,  1.50),
  (1004, 'JFK',          'MIDTOWN',      TIMESTAMP '2025-03-03 07:14:00', 17.8,  70.00, 14.00),
  (1005, 'MIDTOWN',      'SOHO',         TIMESTAMP '2025-03-03 07:20:00',  2.6,  12.00,  2.50),
  (1006, 'WILLIAMSBURG', 'SOHO',         TIMESTAMP '2025-03-03 07:26:00',  3.9,  17.50,  3.00),
  (1007, 'UPPER_WEST',   'MIDTOWN',      TIMESTAMP '2025-03-03 07:31:00',  2.9,  13.00,  0.00),
  (1008, 'SOHO',         'JFK',          TIMESTAMP '2025-03-03 07:40:00', 16.2,  70.00, 10.00),
  (1009, 'MIDTOWN',      'MIDTOWN',      TIMESTAMP '2025-03-03 07:44:00',  0.0,   0.00,  0.00),
  (1010, 'HARLEM',       'MIDTOWN',      TIMESTAMP '2025-03-03 07:52:00',  4.4,  19.00,  4.00),
  (1011, 'JFK',          'WILLIAMSBURG', TIMESTAMP '2025-03-03 08:03:00', 14.7,  62.50,  9.00),
  (1012, 'MIDTOWN',      'UPPER_WEST',   TIMESTAMP '2025-03-03 08:09:00',  3.3,  -5.00,  0.00)
) AS t(trip_id, pickup_zone, dropoff_zone, pickup_time, distance_miles, fare, tip);

-- Trips with a real distance and a positive fare; the meter test at 07:44 and
-- the refund at 08:09 are left out.
CREATE MATERIALIZED VIEW clean_trips AS
SELECT
  trip_id,
  pickup_zone,
  dropoff_zone,
  pickup_time,
  distance_miles,
  fare,
  tip,
  fare + tip AS total
FROM raw_trips
WHERE distance_miles > 0 AND fare > 0;
