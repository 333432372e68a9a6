-- The customer change feed: one row per change, `op` saying what it was
-- (INSERT, UPDATE or DELETE) and `seq` ordering the changes of a customer.

-- The latest state of each customer; a DELETE removes the customer.
CREATE STREAMING TABLE customers
COMMENT 'One row per live customer, as of its latest change';

CREATE FLOW customers_cdc AS AUTO CDC INTO customers
FROM STREAM(customer_changes)
KEYS (customer_id)
APPLY AS DELETE WHEN op = 'DELETE'
SEQUENCE BY seq
COLUMNS * EXCEPT (op)
STORED AS SCD TYPE 1;

-- Every version of each customer's city, valid from __START_AT until
-- __END_AT (NULL for the current one): only a move opens a new version.
CREATE STREAMING TABLE customer_city_history;

CREATE FLOW customer_city_history_cdc AS AUTO CDC INTO customer_city_history
FROM STREAM(customer_changes)
KEYS (customer_id)
SEQUENCE BY seq
COLUMNS * EXCEPT (op, email)
STORED AS SCD TYPE 2
TRACK HISTORY ON (city);

-- Live customers per city.
CREATE MATERIALIZED VIEW customers_per_city AS
SELECT city, count(*) AS customers
FROM customers
GROUP BY city;
