-- Two datasets of two schemas that end in the same name: two tables.
CREATE MATERIALIZED VIEW a.x AS SELECT 1 AS id;
CREATE MATERIALIZED VIEW b.x AS SELECT 2 AS id;
CREATE MATERIALIZED VIEW both_x AS SELECT * FROM a.x UNION ALL SELECT * FROM b.x;
