-- The source raw.orders and the dataset orders: two tables.
CREATE MATERIALIZED VIEW orders AS SELECT id, amount * 2 AS doubled FROM raw.orders;
CREATE MATERIALIZED VIEW order_total AS SELECT sum(doubled) AS total FROM orders;
