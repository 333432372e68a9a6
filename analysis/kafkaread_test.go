package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// flowInto returns the first flow of s whose target is name.
func flowInto(t *testing.T, s *Snapshot, name string) *ir.Flow {
	t.Helper()
	for _, f := range s.Pipeline.Flows {
		if ir.NameKey(f.Target) == ir.NameKey(name) {
			return f
		}
	}
	t.Fatalf("no flow into %s", name)
	return nil
}

// A read_kafka read is a read of the topic's source, marked as Kafka
// with its options: never an edge to a dataset named like the topic (the
// read is renamed topic_kafka), not qualified by USE SCHEMA, and a
// missing sample says which folder to add, named after the topic.
func TestKafkaReadIsNoDatasetEdge(t *testing.T) {
	root := writeTree(t, map[string]string{
		"thund.yaml": "backends: [native, databricks]\n",
		"transformations/a.sql": "USE SCHEMA bronze;\n" +
			"CREATE OR REFRESH STREAMING TABLE raw_events AS\n" +
			"SELECT CAST(value AS STRING) AS body FROM STREAM read_kafka(bootstrapServers => 'kafka:9092', subscribe => 'orders', startingOffsets => 'earliest');\n" +
			"CREATE OR REFRESH MATERIALIZED VIEW orders AS SELECT 1 AS id;\n" +
			"CREATE OR REFRESH STREAMING TABLE clicks AS SELECT * FROM STREAM read_kafka(bootstrapServers => 'kafka:9092', subscribePattern => 'click.*');\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw := flowInto(t, s, "bronze.raw_events")
	if len(raw.Reads) != 1 {
		t.Fatalf("raw_events reads %+v", raw.Reads)
	}
	r := raw.Reads[0]
	if r.Kind != ir.Kafka || r.Format != "kafka" || r.Name != "orders_kafka" || !r.Streaming {
		t.Errorf("raw_events' read: %+v, want the Kafka source orders_kafka, streaming", r)
	}
	if v, _ := r.Option("SUBSCRIBE"); v != "orders" {
		t.Errorf("subscribe option %q, options %v", v, r.Options)
	}
	if v, _ := r.Option("bootstrapservers"); v != "kafka:9092" {
		t.Errorf("bootstrapServers option %q", v)
	}
	if up := s.Pipeline.Graph().In(ir.NameKey("bronze.raw_events")); len(up) != 0 {
		t.Errorf("raw_events has an upstream dataset: %v", up)
	}
	var missing []ir.Diagnostic
	for _, d := range s.Diagnostics {
		if d.Severity == ir.Error {
			t.Errorf("error: %+v", d)
		}
		if d.Code == ir.CodeMissingSample {
			missing = append(missing, d)
		}
	}
	if len(missing) != 2 {
		t.Fatalf("want two missing-sample warnings, got %s", strings.Join(diagStrings(s), "\n"))
	}
	if m := missing[0].Message; missing[0].Severity != ir.Warning || !strings.Contains(m, "the Kafka topic orders has no sample data") ||
		!strings.Contains(m, "a folder samples/orders/") || !strings.Contains(m, "because orders is a dataset of this pipeline") {
		t.Errorf("raw_events' missing sample: %+v", missing[0])
	}
	if m := missing[1].Message; !strings.Contains(m, "subscribes by pattern") || !strings.Contains(m, "samples/kafka/") {
		t.Errorf("clicks' missing sample: %s", m)
	}

	// With the topic's folder, the renamed read takes it by convention.
	root2 := writeTree(t, map[string]string{
		"thund.yaml":              "backends: [native, databricks]\n",
		"transformations/a.sql":   "CREATE OR REFRESH STREAMING TABLE raw_events AS SELECT CAST(value AS STRING) AS body FROM STREAM read_kafka(bootstrapServers => 'h:9092', subscribe => 'orders');\nCREATE OR REFRESH MATERIALIZED VIEW orders AS SELECT 1 AS id;\n",
		"samples/orders/001.json": "{\"value\": \"x\"}\n",
	})
	s2, err := Load(root2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s2.Diagnostics) != 0 {
		t.Errorf("with the topic's sample: %s", strings.Join(diagStrings(s2), "\n"))
	}
	src := s2.Pipeline.Source("orders_kafka")
	if src == nil || src.Sample != "samples/orders" || !src.Stream {
		t.Errorf("source orders_kafka: %+v", src)
	}
}

// A read of files carries its kind, format and options too.
func TestFileReadRefOptions(t *testing.T) {
	root := writeTree(t, map[string]string{
		"thund.yaml":            "backends: [native, databricks]\n",
		"transformations/a.sql": "CREATE OR REFRESH MATERIALIZED VIEW o AS SELECT * FROM read_files('/landing/orders.csv', format => 'CSV', header => true, sep => ';');\n",
		"samples/orders.csv":    "id\n1\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := flowInto(t, s, "o").Reads[0]
	if r.Kind != ir.Files || r.Format != "csv" || r.Path != "/landing/orders.csv" {
		t.Errorf("read: %+v", r)
	}
	if v, _ := r.Option("header"); v != "true" {
		t.Errorf("header option %q (options %v)", v, r.Options)
	}
	if v, _ := r.Option("sep"); v != ";" {
		t.Errorf("sep option %q", v)
	}
}
