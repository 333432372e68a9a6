-- A persistent view. Spark 4.1.4's spark-pipelines accepts and runs
-- CREATE VIEW, so no backend should report it.
CREATE VIEW large_payments AS
SELECT payment_id, amount FROM payments WHERE amount > 20;
