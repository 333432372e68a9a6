-- Silver: the latest state of each customer, kept by AUTO CDC from the
-- bronze table of the same name; a DELETE removes the customer.
CREATE STREAMING TABLE silver.customers
COMMENT 'One row per live customer';

CREATE FLOW silver_customers_cdc AS AUTO CDC INTO silver.customers
FROM STREAM(bronze.customers)
KEYS (customer_id)
APPLY AS DELETE WHEN op = 'DELETE'
SEQUENCE BY seq
COLUMNS * EXCEPT (op)
STORED AS SCD TYPE 1;
