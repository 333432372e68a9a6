-- Second definition of customer_list, and flows with problems.

CREATE MATERIALIZED VIEW customer_list AS
SELECT DISTINCT customer_id FROM orders;

CREATE STREAMING TABLE all_orders;

CREATE FLOW from_feed AS INSERT INTO all_orders BY NAME
SELECT * FROM STREAM(orders_feed);

-- Copied from above without renaming the flow.
CREATE FLOW from_feed AS INSERT INTO all_orders BY NAME
SELECT * FROM STREAM(orders_feed);

CREATE FLOW to_nowhere AS INSERT INTO nowhere BY NAME
SELECT * FROM STREAM(orders_feed);
