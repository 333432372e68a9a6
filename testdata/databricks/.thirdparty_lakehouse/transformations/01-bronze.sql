-- Databricks notebook source
-- MAGIC %md
-- MAGIC # Retail lakehouse: bronze layer
-- MAGIC
-- MAGIC Users and orders land as files in the `landing` volume. Auto Loader
-- MAGIC (`cloud_files`, `read_files`) picks up each new file once.

-- COMMAND ----------

-- DBTITLE 1,Users, from the CRM's JSON change feed
CREATE OR REFRESH STREAMING LIVE TABLE raw_users
COMMENT "Raw user changes (insert, update, delete) from the CRM export"
TBLPROPERTIES ("quality" = "bronze")
AS SELECT * FROM cloud_files("/Volumes/retail/landing/users", "json", map("cloudFiles.inferColumnTypes", "true"))

-- COMMAND ----------

-- DBTITLE 1,Orders, from the shop's CSV exports
CREATE OR REFRESH STREAMING TABLE raw_orders
COMMENT "Raw orders, one row per CSV line"
TBLPROPERTIES ("quality" = "bronze")
AS SELECT *, current_timestamp() AS ingested_at
FROM STREAM read_files("/Volumes/retail/landing/orders", format => "csv", header => true)

-- COMMAND ----------

-- MAGIC %python
-- MAGIC # Quick look at what landed
-- MAGIC display(spark.table("raw_users").limit(10))
