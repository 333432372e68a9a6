-- Databricks notebook source
-- MAGIC %md
-- MAGIC # Gold
-- MAGIC Revenue per customer and order counts per status, for the dashboard.

-- COMMAND ----------

CREATE OR REFRESH MATERIALIZED VIEW revenue_by_customer
COMMENT "Revenue of clean orders per live customer"
AS SELECT c.customer_id, c.name, c.city, sum(o.amount) AS revenue, count(*) AS orders
FROM LIVE.orders_clean o
JOIN LIVE.customers c ON o.customer_id = c.customer_id
GROUP BY c.customer_id, c.name, c.city

-- COMMAND ----------

-- MAGIC %python
-- MAGIC display(spark.table("revenue_by_customer").orderBy("revenue", ascending=False))

-- COMMAND ----------

CREATE OR REFRESH LIVE TABLE orders_per_status
AS SELECT status, count(*) AS orders, sum(amount) AS amount
FROM LIVE.orders_clean
GROUP BY status
