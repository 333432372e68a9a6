# A Python dataset beside the SQL ones. spark-pipelines imports this file;
# Thund reads it without executing it: the dataset, its read of clean_trips,
# and its body as Spark SQL (a table read with a where), which runs natively.
from pyspark import pipelines as dp
from pyspark.sql import DataFrame, SparkSession

spark = SparkSession.active()


@dp.materialized_view(comment="Airport trips, read from the SQL dataset clean_trips")
def airport_trips() -> DataFrame:
    trips = spark.read.table("clean_trips")
    return trips.where("pickup_zone = 'JFK' OR dropoff_zone = 'JFK'")
