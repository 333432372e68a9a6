-- Settings only: nothing is defined.
SET spark.sql.shuffle.partitions = 4;
