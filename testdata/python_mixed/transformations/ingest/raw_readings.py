"""Bronze: sensor readings as they arrive on a Kafka topic."""

from pyspark import pipelines as dp
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, StringType, StructField, StructType

spark = SparkSession.active()

READING: StructType = StructType(
    [
        StructField("reading_id", StringType()),
        StructField("sensor_id", StringType()),
        StructField("read_at", StringType()),
        StructField("celsius", DoubleType()),
    ]
)


@dp.table(name="raw_readings", comment="Sensor readings as they arrive, one row per Kafka message")
def raw_readings() -> DataFrame:
    messages = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "broker:9092")
        .option("subscribe", "sensor-readings")
        .load()
    )
    parsed = F.from_json(F.col("value").cast("string"), READING).alias("r")
    return messages.select(parsed).select("r.*")
