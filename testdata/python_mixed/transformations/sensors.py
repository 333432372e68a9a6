from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()


@dp.materialized_view(comment="Sensors in service, from the registry export")
def sensors():
    return spark.sql(
        """
        SELECT sensor_id, site, kind
        FROM sensor_registry
        WHERE NOT retired
        """
    )
