CREATE MATERIALIZED VIEW site_temperature
COMMENT 'Hottest and average temperature per site'
AS SELECT
  s.site,
  max(r.celsius) AS max_celsius,
  round(avg(r.celsius), 2) AS avg_celsius,
  count(*) AS readings
FROM valid_readings r
JOIN sensors s ON r.sensor_id = s.sensor_id
WHERE s.kind = 'temperature'
GROUP BY s.site;
