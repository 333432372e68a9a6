-- The zones come from the landing schema (a source: samples/landing.zones.csv
-- stands in for it when Thund runs the pipeline).
CREATE MATERIALIZED VIEW trips_by_borough AS
SELECT z.borough, count(*) AS trips, sum(t.fare) AS fares
FROM big_trips t
JOIN ${source_schema}.zones z ON t.zone = z.zone
GROUP BY z.borough;
