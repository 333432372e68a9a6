package pylib

import (
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestPathlessStreamReads: a body that reads a spark.readStream load
// without a path (Kafka) or whose path is computed at run time streams
// (the @dp.table stays a table: a streaming table needs a stream read
// analysis can name); a batch load does not.
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
def landed():
    return spark.readStream.format("cloudFiles").option("cloudFiles.format", "json").load(spark.conf.get("unset_path_key") + "/x")

@dp.table
def batch():
    return spark.read.format("kafka").option("subscribe", "orders").load()
`
	f, err := Parse("f.py", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Definitions) != 3 {
		t.Fatalf("%d definitions", len(f.Definitions))
	}
	for _, d := range f.Definitions {
		streams := d.Name != "batch"
		if d.Streams != streams || d.Kind != ir.Table || len(d.Reads) != 0 {
			t.Errorf("%s: streams %v, kind %s, reads %+v", d.Name, d.Streams, d.Kind, d.Reads)
		}
	}
}
