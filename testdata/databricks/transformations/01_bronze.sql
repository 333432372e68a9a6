-- Bronze: raw files as they land in the volume, read incrementally.

-- Orders arrive as CSV files, one file per upload.
CREATE OR REFRESH STREAMING TABLE orders_bronze
COMMENT "Raw orders, one row per line of the landed CSV files"
AS SELECT *
FROM STREAM read_files(
  '/Volumes/shop/landing/orders/',
  format => 'csv',
  header => true
);

-- Customer changes come from the CRM's change feed, as JSON files
-- picked up by Auto Loader.
CREATE OR REFRESH STREAMING TABLE customer_updates
COMMENT 'Customer change records (INSERT, UPDATE, DELETE) from the CRM'
AS SELECT * FROM STREAM cloud_files('/Volumes/shop/landing/customer_updates', 'json');
