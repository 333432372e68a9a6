-- Day names: DuckDB's dayname is the full name, Spark's the short one, so
-- analysis warns (not-portable-to-spark) and the suite lists this dataset
-- as not portable instead of comparing it.
SELECT id, dayname(ts) AS day_name FROM events
