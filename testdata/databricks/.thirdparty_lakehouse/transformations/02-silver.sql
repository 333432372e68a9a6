-- Silver layer: clean the raw data, enforce quality rules, and keep the
-- history of every user with APPLY CHANGES (SCD type 2).

CREATE OR REFRESH STREAMING LIVE TABLE users_clean (
  CONSTRAINT valid_id EXPECT (id IS NOT NULL) ON VIOLATION DROP ROW,
  CONSTRAINT valid_email EXPECT (email RLIKE '^[^@]+@[^@]+$'),
  CONSTRAINT valid_operation EXPECT (operation IN ("APPEND", "UPDATE", "DELETE")) ON VIOLATION FAIL UPDATE
)
COMMENT "User changes with an id; malformed emails are counted, not dropped"
TBLPROPERTIES ("quality" = "silver")
AS SELECT
  CAST(id AS BIGINT) AS id,
  lower(trim(email)) AS email,
  initcap(firstname) AS firstname,
  initcap(lastname) AS lastname,
  CAST(age AS INT) AS age,
  operation,
  CAST(operation_date AS TIMESTAMP) AS operation_date
FROM STREAM(LIVE.raw_users);

CREATE OR REFRESH STREAMING LIVE TABLE dim_users
COMMENT "Every version of every user, valid from __START_AT to __END_AT";

APPLY CHANGES INTO LIVE.dim_users
FROM STREAM(LIVE.users_clean)
KEYS (id)
APPLY AS DELETE WHEN operation = "DELETE"
SEQUENCE BY operation_date
COLUMNS * EXCEPT (operation, operation_date)
STORED AS SCD TYPE 2;

CREATE OR REFRESH LIVE TABLE orders_clean (
  CONSTRAINT positive_amount EXPECT (amount > 0) ON VIOLATION DROP ROW,
  CONSTRAINT has_user EXPECT (user_id IS NOT NULL)
)
COMMENT "Orders with a positive amount"
AS SELECT
  CAST(order_id AS BIGINT) AS order_id,
  CAST(user_id AS BIGINT) AS user_id,
  CAST(amount AS DECIMAL(10, 2)) AS amount,
  to_date(order_date) AS order_date
FROM LIVE.raw_orders;
