-- Bronze keeps the customer change feed as it lands.
CREATE STREAMING TABLE customers
COMMENT 'Customer changes as they land'
AS SELECT
  CAST(customer_id AS INT) AS customer_id,
  name,
  city,
  op,
  CAST(seq AS INT) AS seq
FROM STREAM(landing.customer_changes);
