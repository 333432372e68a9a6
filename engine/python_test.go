package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
)

// runPipeline analyses and runs the pipeline in dir natively, passing the
// snapshot's Broken as the callers do.
func runPython(t *testing.T, dir string) *Result {
	t.Helper()
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(snap.Root, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{Blocked: snap.Broken()})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestPythonInitRuns: the layout spark-pipelines init writes runs
// natively: the Python dataset from spark.range(10), the SQL one from it.
func TestPythonInitRuns(t *testing.T) {
	res := runPython(t, filepath.Join("..", "testdata", "python_init"))
	for name, rows := range map[string]int64{"example_python_materialized_view": 10, "example_sql_materialized_view": 5} {
		d := res.Datasets[name]
		if d == nil || d.Phase != Completed || d.Rows != rows {
			t.Errorf("%s = %+v, want %d rows", name, d, rows)
		}
	}
}

// TestPythonStandIn: a Python dataset whose body Thund does not state in
// SQL takes its rows from samples/<name>.csv; without one it is skipped
// with the sample to add, and so is what reads it.
func TestPythonStandIn(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/scored.py": "import dlt\n\n@dlt.table\n@dlt.expect_or_drop(\"positive\", \"score > 0\")\ndef scored():\n    return model(dlt.read(\"raw\"))\n\n" +
			"@dlt.table\ndef ranked():\n    return spark.sql(\"SELECT id, score FROM scored ORDER BY score\")\n",
		"t/top.sql":          "CREATE MATERIALIZED VIEW top AS SELECT * FROM ranked WHERE score > 1\n",
		"samples/raw.csv":    "id\n1\n",
		"samples/scored.csv": "id,score\n1,0.5\n2,2.5\n3,-1\n4,3\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := runPython(t, dir)
	for name, rows := range map[string]int64{"scored": 3, "ranked": 3, "top": 2} {
		d := res.Datasets[name]
		if d == nil || d.Phase != Completed || d.Rows != rows {
			t.Errorf("%s = %+v, want %d rows", name, d, rows)
		}
	}
	os.Remove(filepath.Join(dir, "samples", "scored.csv"))
	res = runPython(t, dir)
	if d := res.Datasets["scored"]; d == nil || d.Phase != Skipped || !strings.Contains(d.Error, "add samples/scored.csv") {
		t.Errorf("scored without a sample = %+v", d)
	}
	if d := res.Datasets["top"]; d == nil || d.Phase != Skipped {
		t.Errorf("top = %+v", d)
	}
}

// TestPythonMixedRuns: testdata/python_mixed (Python bronze from a stand-in
// sample, a Python append flow, spark.sql in Python, SQL, and a Python read
// of the SQL dataset) runs natively with the figures of its README.
func TestPythonMixedRuns(t *testing.T) {
	res := runPython(t, filepath.Join("..", "testdata", "python_mixed"))
	want := map[string]int64{"raw_readings": 7, "valid_readings": 5, "sensors": 3, "site_temperature": 2, "hot_sites": 1}
	for name, rows := range want {
		d := res.Datasets[name]
		if d == nil || d.Phase != Completed || d.Rows != rows {
			t.Errorf("%s = %+v, want %d rows", name, d, rows)
		}
	}
}
