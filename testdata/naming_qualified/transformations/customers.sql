-- Files whose path ends in a dataset's name: a source, not that dataset
-- (its sample is samples/customers.csv all the same).
CREATE OR REFRESH MATERIALIZED VIEW customers_raw AS
SELECT id, name FROM read_files('/landing/customers', format => 'csv');
CREATE OR REFRESH MATERIALIZED VIEW customers AS
SELECT id, upper(name) AS name FROM customers_raw;
