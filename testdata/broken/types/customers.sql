-- The declared column list gives readers the columns' Spark types.
CREATE MATERIALIZED VIEW customers (id INT, name STRING, signup DATE, active BOOLEAN) AS
SELECT CAST(id AS INT) AS id, name, CAST(signup AS DATE) AS signup, CAST(active AS BOOLEAN) AS active
FROM raw_customers;
