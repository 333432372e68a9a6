"""Bronze: files landed by two shops, loaded as streams of JSON files, and a CSV export."""

from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()

SHOPS = ["north", "south"]

# A stream of files needs its schema on Spark (it does not infer one).
ORDER_SCHEMA = "order_id BIGINT, sku STRING, qty BIGINT, order_date DATE"

# One streaming table per shop, each filled from its landing folder.
for shop in SHOPS:
    dp.create_streaming_table(
        f"orders_{shop}",
        comment=f"Orders of the {shop} shop, as landed",
        partition_cols=["order_date"],
        table_properties={"pipelines.quality": "bronze"},
    )

    @dp.append_flow(target=f"orders_{shop}", name=f"land_{shop}")
    def _land():
        return spark.readStream.format("json").schema(ORDER_SCHEMA).load(f"/landing/{shop}_orders/")


@dp.materialized_view(comment="Products, from the catalogue export", schema="sku STRING, title STRING, price DOUBLE")
def products():
    return (
        spark.read.format("csv")
        .option("header", "true")
        .option("inferSchema", "true")
        .load("/exports/products.csv")
    )
