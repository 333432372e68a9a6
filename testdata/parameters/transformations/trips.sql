-- Taxi trips, typed inline so the pipeline needs no landing files.
CREATE MATERIALIZED VIEW raw_trips
COMMENT 'Trips as recorded by the meter'
AS SELECT * FROM VALUES
  (1001, 'MIDTOWN', 14.50),
  (1002, 'SOHO', 7.00),
  (1003, 'JFK', 70.00),
  (1004, 'HARLEM', 9.99),
  (1005, 'SOHO', 23.00)
  AS t(trip_id, zone, fare);

-- Trips over the configured fare, from the table of the configured stage
-- (${stage}_trips is raw_trips), labelled with the configured city.
CREATE MATERIALIZED VIEW big_trips AS
SELECT trip_id, zone, fare, '${city}' AS city
FROM ${stage}_trips
WHERE fare > ${min_fare};
