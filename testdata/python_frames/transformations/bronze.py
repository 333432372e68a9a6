"""Bronze: files landed by two shops, loaded with Auto Loader and a batch read."""

from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()

SHOPS = ["north", "south"]

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
        return (
            spark.readStream.format("cloudFiles")
            .option("cloudFiles.format", "json")
            .load(f"/landing/{shop}_orders/")
        )


@dp.materialized_view(comment="Products, from the catalogue export", schema="sku STRING, title STRING, price DOUBLE")
def products():
    return spark.read.format("csv").option("header", "true").load("/exports/products.csv")
