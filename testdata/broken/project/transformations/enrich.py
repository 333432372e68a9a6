# A Python library: Thund reads its dataset (never runs it).
from pyspark import pipelines as dp
from pyspark.sql import DataFrame, SparkSession

spark = SparkSession.active()


@dp.materialized_view
def big_orders() -> DataFrame:
    return spark.read.table("order_totals").where("total > 30")
