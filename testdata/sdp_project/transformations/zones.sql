-- The zone lookup and the revenue reports built on it.

CREATE MATERIALIZED VIEW zones AS
SELECT *
FROM (VALUES
  ('MIDTOWN',      'Manhattan'),
  ('SOHO',         'Manhattan'),
  ('HARLEM',       'Manhattan'),
  ('UPPER_WEST',   'Manhattan'),
  ('WILLIAMSBURG', 'Brooklyn'),
  ('JFK',          'Queens')
) AS z(zone, borough);

-- Not stored: recomputed whenever a dataset below reads it.
CREATE TEMPORARY VIEW trips_by_borough AS
SELECT
  t.trip_id,
  t.pickup_time,
  p.borough AS pickup_borough,
  d.borough AS dropoff_borough,
  t.total
FROM clean_trips AS t
JOIN zones AS p ON p.zone = t.pickup_zone
JOIN zones AS d ON d.zone = t.dropoff_zone;

CREATE MATERIALIZED VIEW revenue_by_borough
COMMENT 'Trip count and takings per pickup borough'
AS SELECT
  pickup_borough,
  count(*) AS trips,
  round(sum(total), 2) AS revenue,
  round(avg(total), 2) AS avg_total
FROM trips_by_borough
GROUP BY pickup_borough;

CREATE MATERIALIZED VIEW cross_borough_trips AS
SELECT pickup_borough, dropoff_borough, count(*) AS trips
FROM trips_by_borough
WHERE pickup_borough <> dropoff_borough
GROUP BY pickup_borough, dropoff_borough;
