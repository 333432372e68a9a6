-- Silver: cleaned orders, with data-quality rules enforced as
-- expectations, and the customer table kept up to date from the change
-- feed.

CREATE OR REFRESH MATERIALIZED VIEW orders_clean (
  CONSTRAINT valid_order_id EXPECT (order_id IS NOT NULL) ON VIOLATION DROP ROW,
  CONSTRAINT positive_amount EXPECT (amount > 0) ON VIOLATION DROP ROW,
  CONSTRAINT known_status EXPECT (status IN ("NEW", "PAID", "SHIPPED"))
)
COMMENT "Orders with an id and a positive amount; unknown statuses are counted, not dropped"
AS SELECT
  CAST(order_id AS INT) AS order_id,
  CAST(customer_id AS INT) AS customer_id,
  upper(status) AS status,
  CAST(amount AS DECIMAL(10, 2)) AS amount,
  CAST(order_date AS DATE) AS order_date
FROM LIVE.orders_bronze;

-- The current state of each customer (SCD type 1): the legacy APPLY
-- CHANGES statement, into a streaming table declared without a query.
CREATE OR REFRESH STREAMING TABLE customers
COMMENT "One row per live customer";

APPLY CHANGES INTO LIVE.customers
FROM STREAM(LIVE.customer_updates)
KEYS (customer_id)
APPLY AS DELETE WHEN operation = "DELETE"
SEQUENCE BY seq
COLUMNS * EXCEPT (operation)
STORED AS SCD TYPE 1;

-- Every version of every customer (SCD type 2), written with AUTO CDC.
CREATE OR REFRESH STREAMING TABLE customers_history
COMMENT "Customer history: each version valid from __START_AT to __END_AT";

CREATE FLOW customers_history_cdc AS AUTO CDC INTO customers_history
FROM STREAM(customer_updates)
KEYS (customer_id)
APPLY AS DELETE WHEN operation = "DELETE"
SEQUENCE BY seq
COLUMNS * EXCEPT (operation, seq)
STORED AS SCD TYPE 2;
