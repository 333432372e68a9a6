-- The latest row of each customer, kept by an apply-changes flow.
CREATE OR REFRESH STREAMING TABLE customers;

APPLY CHANGES INTO customers
FROM STREAM(customer_changes)
KEYS (customer_id)
APPLY AS DELETE WHEN op = 'DELETE'
SEQUENCE BY seq
COLUMNS * EXCEPT (op);

-- Refused natively and on databricks: the flow updates and deletes rows
-- of customers, and a stream gives only appended rows.
CREATE OR REFRESH STREAMING TABLE customer_feed AS
SELECT customer_id, city FROM STREAM(customers);

-- Databricks skips the change commits; natively still refused.
CREATE OR REFRESH STREAMING TABLE customer_inserts AS
SELECT customer_id, city FROM STREAM(customers) WITH ('skipChangeCommits' = 'true');

-- Fine everywhere: the current rows, read in full.
CREATE OR REFRESH MATERIALIZED VIEW customers_per_city AS
SELECT city, count(*) AS customers FROM customers GROUP BY city;
