-- SDP has no DROP: the statement is rejected, the one before it still counts.

CREATE MATERIALIZED VIEW big_orders AS
SELECT * FROM orders WHERE amount > 20;

DROP TABLE big_orders;
