package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles writes files (path relative to root: text) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A source's hover says whether the flow streams it, and how it is
// written (STREAM, Auto Loader, read_kafka, Python), whatever the shape
// of its sample: a folder read in batch is read at once, a single file
// streamed is one micro-batch.
func TestSourceHoverStreams(t *testing.T) {
	root := t.TempDir()
	sql := `CREATE STREAMING TABLE a AS SELECT * FROM STREAM(clicks);
CREATE STREAMING TABLE b AS SELECT * FROM cloud_files('/landing/events', 'csv');
CREATE STREAMING TABLE c AS SELECT * FROM STREAM read_kafka(bootstrapServers => 'h:9092', subscribe => 'orders');
CREATE MATERIALIZED VIEW d AS SELECT * FROM visits;
`
	py := `from pyspark import pipelines as dp

@dp.table
def e():
    return spark.readStream.table("payments")
`
	writeFiles(t, root, map[string]string{
		"spark-pipeline.yml":       "name: h\nstorage: file:///tmp/thund-hover-streams\nlibraries:\n  - glob:\n      include: transformations/**\n",
		"transformations/a.sql":    sql,
		"transformations/e.py":     py,
		"samples/clicks/001.csv":   "id\n1\n",
		"samples/events.csv":       "id\n1\n",
		"samples/orders.csv":       "value\nx\n",
		"samples/visits/001.csv":   "id\n1\n",
		"samples/payments/001.csv": "id\n1\n",
	})
	c := startServer(t)
	u, text := c.open(t, filepath.Join(root, "transformations", "a.sql"))
	for _, k := range []struct {
		needle string
		want   []string
		not    string
	}{
		{"clicks", []string{"Reads the micro-batch folder `samples/clicks", "Read as a stream (`STREAM`)."}, "Auto Loader"},
		{"cloud_files", []string{"Reads the sample (one micro-batch) `samples/events.csv`", "Read as a stream (Auto Loader, `cloud_files`)."}, "(`STREAM`)"},
		{"read_kafka", []string{"**orders** · source table", "Read as a stream (`STREAM read_kafka`, a Kafka topic)."}, "(`STREAM`)"},
		{"visits", []string{"Reads the sample folder (every file at once, a batch read) `samples/visits"}, "Read as a stream"},
	} {
		got := c.hoverText(t, u, text, k.needle, 0, 2)
		wantAll(t, "hover on "+k.needle, got, k.want...)
		if strings.Contains(got, k.not) {
			t.Errorf("hover on %s says %q:\n%s", k.needle, k.not, got)
		}
	}
	pu, ptext := c.open(t, filepath.Join(root, "transformations", "e.py"))
	got := c.hoverText(t, pu, ptext, `"payments"`, 0, 2)
	wantAll(t, "hover on a Python read", got, "Reads the micro-batch folder `samples/payments", "Read as a stream (a streaming read in Python).")
	if strings.Contains(got, "`STREAM`") {
		t.Errorf("a Python read hovers as STREAM:\n%s", got)
	}
}
