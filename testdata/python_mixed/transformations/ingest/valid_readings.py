from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()

dp.create_streaming_table("valid_readings", comment="Readings that name a sensor and carry a temperature")


@dp.append_flow(target="valid_readings")
def valid_from_raw():
    return spark.readStream.table("raw_readings").where("sensor_id IS NOT NULL AND celsius IS NOT NULL")
