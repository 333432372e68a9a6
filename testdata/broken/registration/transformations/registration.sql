-- Clauses Spark's parser reads and its pipeline registration refuses.

CREATE MATERIALIZED VIEW located LOCATION '/tmp/located' AS SELECT 1 AS id;

CREATE MATERIALIZED VIEW events PARTITIONED BY (years(ts))
AS SELECT TIMESTAMP '2026-01-01 00:00:00' AS ts;

CREATE TEMPORARY VIEW staging.recent AS SELECT * FROM events;

CREATE TEMPORARY VIEW session.latest AS SELECT * FROM events;

CREATE MATERIALIZED VIEW from_views AS SELECT * FROM latest;

CREATE STREAMING TABLE never_filled;

CREATE STREAMING TABLE customers (id BIGINT, name STRING)
FLOW AUTO CDC FROM STREAM(changes) KEYS (id) SEQUENCE BY seq;
