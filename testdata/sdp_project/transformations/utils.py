# A Python dataset beside the SQL ones. spark-pipelines imports this file;
# Thund reads the dataset and its read of clean_trips, and never runs it.
from pyspark import pipelines as dp
from pyspark.sql import DataFrame, SparkSession

spark = SparkSession.active()


@dp.materialized_view(comment="Airport trips, read from the SQL dataset clean_trips")
def airport_trips() -> DataFrame:
    trips = spark.read.table("clean_trips")
    return trips.where("pickup_zone = 'JFK' OR dropoff_zone = 'JFK'")
