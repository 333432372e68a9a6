package pylib

import (
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestPathlessStreamReads: a spark.readStream load without a path
// (Kafka) is a streaming read of the source its topic names (kafka when
// the subscription is not one topic), so @dp.table over it is a
// streaming table; a stream load whose path is computed at run time
// streams too, its source unknown.
func TestPathlessStreamReads(t *testing.T) {
	text := `from pyspark import pipelines as dp

@dp.table
def events():
    return (spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "localhost:9092")
        .option("subscribe", "orders")
        .load()
        .selectExpr("CAST(value AS STRING) AS v"))

@dp.table
def many():
    return spark.readStream.format("kafka").option("subscribePattern", "o.*").load()

@dp.table
def orders():
    return spark.readStream.format("kafka").option("subscribe", "orders").load()

@dp.table
def landed():
    return spark.readStream.format("cloudFiles").option("cloudFiles.format", "json").load(spark.conf.get("unset_path_key") + "/x")
`
	f, err := Parse("f.py", text)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"events": "orders", "many": "kafka", "orders": "orders_kafka", "landed": ""}
	if len(f.Definitions) != len(want) {
		t.Fatalf("%d definitions", len(f.Definitions))
	}
	for _, d := range f.Definitions {
		if d.Kind != ir.StreamingTable {
			t.Errorf("%s: kind %s, want a streaming table", d.Name, d.Kind)
		}
		w := want[d.Name]
		if w == "" {
			if len(d.Reads) != 0 || !d.Streams || len(d.Unknown) != 1 {
				t.Errorf("%s: reads %+v, streams %v, unknown %+v", d.Name, d.Reads, d.Streams, d.Unknown)
			}
			continue
		}
		if len(d.Reads) != 1 || d.Reads[0].Name != w || !d.Reads[0].Streaming || d.Reads[0].Path != "" {
			t.Errorf("%s: reads %+v, want a stream of %s", d.Name, d.Reads, w)
		}
	}
}
