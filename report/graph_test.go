package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
)

// autoLoaderPipeline is a Databricks pipeline whose sources are read by
// Auto Loader (STREAM read_files, cloud_files, spark.readStream of
// cloudFiles), each with a one-file sample, beside a batch read of files
// and a temporary view over a stream.
func autoLoaderPipeline(t *testing.T) *analysis.Snapshot {
	t.Helper()
	root := t.TempDir()
	for name, text := range map[string]string{
		"spark-pipeline.yml": "name: al\nstorage: file:///tmp/al\nlibraries:\n  - glob:\n      include: transformations/**\n",
		"thund.yaml":         "backends: [native, databricks]\n",
		"transformations/a.sql": "CREATE OR REFRESH STREAMING TABLE al_rf AS SELECT * FROM STREAM read_files('/landing/orders', format => 'json');\n" +
			"CREATE OR REFRESH STREAMING TABLE al_cf AS SELECT * FROM cloud_files('/landing/events', 'json');\n" +
			"CREATE OR REFRESH MATERIALIZED VIEW batch_rf AS SELECT * FROM read_files('/landing/prices', format => 'json');\n" +
			"CREATE TEMPORARY VIEW v AS SELECT * FROM STREAM(al_rf);\n",
		"transformations/b.py": "import dlt\n\n@dlt.table\ndef al_py():\n    return spark.readStream.format(\"cloudFiles\").option(\"cloudFiles.format\", \"json\").load(\"/landing/clicks\")\n",
		"samples/orders.json":  "{\"id\": 1}\n",
		"samples/events.json":  "{\"id\": 1}\n",
		"samples/prices.json":  "{\"id\": 1}\n",
		"samples/clicks.json":  "{\"id\": 1}\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestGraphShowsAutoLoaderStreams: a source Auto Loader reads is a stream
// in --graph, text and JSON, though its sample is one file; a batch read
// of files is not; a dataset whose flow streams says so in JSON, a
// temporary view over a stream included.
func TestGraphShowsAutoLoaderStreams(t *testing.T) {
	s := autoLoaderPipeline(t)
	var b bytes.Buffer
	if err := Graph(&b, s); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, src := range []string{"orders", "events", "clicks"} {
		if !strings.Contains(text, "samples/"+src+".json (a stream)") {
			t.Errorf("source %s is not shown as a stream:\n%s", src, text)
		}
	}
	if strings.Contains(text, "samples/prices.json (") {
		t.Errorf("the batch read's source is shown as a stream:\n%s", text)
	}
	if !strings.Contains(text, "  tempview v ") {
		t.Errorf("the kind column does not fit tempview:\n%s", text)
	}
	g := GraphJSONOf(s)
	for _, src := range g.Sources {
		if want := src.Name != "prices"; src.Stream != want {
			t.Errorf("JSON source %s: stream %v, want %v", src.Name, src.Stream, want)
		}
	}
	want := map[string]bool{"al_rf": true, "al_cf": true, "al_py": true, "v": true, "batch_rf": false}
	for _, d := range g.Datasets {
		if w, ok := want[d.Name]; ok && d.Streaming != w {
			t.Errorf("JSON dataset %s (%s): streaming %v, want %v", d.Name, d.Kind, d.Streaming, w)
		}
		delete(want, d.Name)
	}
	if len(want) > 0 {
		t.Errorf("datasets missing from the JSON graph: %v", want)
	}
}
