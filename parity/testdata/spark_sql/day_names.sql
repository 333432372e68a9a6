-- Day names: DuckDB's dayname is the full name, Spark's the short one
-- (Mon); the translation writes Spark's, so native and Spark agree.
SELECT id, dayname(ts) AS day_name FROM events
