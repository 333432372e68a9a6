"""Silver: the shops' orders together, priced."""

from pyspark import pipelines as dp
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.active()


@dp.materialized_view(comment="Every order of both shops, with its line amount")
def orders():
    north = spark.read.table("orders_north").select("order_id", "sku", "qty", "order_date").withColumn("shop", F.lit("north"))
    south = spark.read.table("orders_south").select("order_id", "sku", "qty", "order_date").withColumn("shop", F.lit("south"))
    priced = (
        north.unionByName(south)
        .join(spark.read.table("products").select("sku", "price"), "sku")
        .withColumn("amount", F.expr("qty * price"))
        # Not .drop("price"): Spark Connect's planner resolves the input of
        # a drop when the flow is registered, before the pipeline's tables
        # exist, so spark-pipelines run fails (TABLE_OR_VIEW_NOT_FOUND).
        .select("sku", "order_id", "qty", "order_date", "shop", "amount")
    )
    return priced.where("qty > 0")


def daily(metric, column):
    @dp.materialized_view(name=f"daily_{metric}", spark_conf={"spark.sql.shuffle.partitions": "4"})
    def _daily():
        return (
            spark.read.table("orders")
            .groupBy("order_date", "shop")
            .agg(F.sum(column).alias(metric), F.count("*").alias("orders"))
        )


daily("revenue", "amount")
daily("units", "qty")
