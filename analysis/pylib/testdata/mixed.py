import dlt
import pyspark.pipelines as dp
from pyspark.sql.functions import col

TABLE = "raw_" + "events"

dp.create_streaming_table("bronze_events", comment="raw events")


@dp.append_flow(target="bronze_events")
def load_events():
    return spark.readStream.table("landing.events")


@dlt.table(name="silver_users", comment='users with a country')
@dlt.expect("valid_id", "id IS NOT NULL")
def users():
    u = spark.read.table("raw.users")
    c = dlt.read("countries")
    return u.join(c, "cc").join(spark.table(TABLE), "id")


@dlt.view
def recent():
    # a comment
    return dlt.read_stream('bronze_events').where(col("ts") > 0)


@dp.temporary_view()
def tmp():
    return dp.read("silver_users")


def helper():
    return spark.table("not_a_dataset")
