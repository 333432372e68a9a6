from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()


@dp.materialized_view(name="hot_sites", comment="Sites whose hottest reading passed 30 °C")
def hot_sites():
    return spark.read.table("site_temperature").filter("max_celsius > 30").select("site", "max_celsius")
