package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
)

// folderLoads is a pipeline whose Python loads read CSV files by path
// without a header option: a batch read of a directory, a stream of
// micro-batch files with a schema, and a single file.
func folderLoads(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "spark-pipeline.yml"), "name: f\nstorage: file:///tmp/f\nlibraries:\n  - glob:\n      include: transformations/**\n")
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "samples", "custs", "001.csv"), "id,name\n1,Ana\n2,Ben\n")
	writeTestFile(t, filepath.Join(root, "samples", "custs", "002.csv"), "id,name\n3,Cleo\n")
	writeTestFile(t, filepath.Join(root, "samples", "events", "001.csv"), "a,b\nx,1\n")
	writeTestFile(t, filepath.Join(root, "samples", "events", "002.csv"), "a,b\ny,2\n")
	writeTestFile(t, filepath.Join(root, "samples", "single.csv"), "id,name\n1,Ana\n")
	writeTestFile(t, filepath.Join(root, "transformations", "loads.py"), `from pyspark import pipelines as dp

@dp.materialized_view
def folder_batch():
    return spark.read.csv("/landing/custs")

@dp.materialized_view
def single_batch():
    return spark.read.csv("/landing/single.csv")

@dp.table
def folder_stream():
    return spark.readStream.schema("a STRING, b STRING").csv("/landing/events")
`)
	return root
}

// TestFolderSampleFollowsTheLoad: a folder sample is read with the
// reader options of the Python load that reads it, as a single file is:
// without header, Spark's columns _c0, _c1 and every file's first line a
// row (Spark 4.1.4's spark.read.csv of such a folder gives 5 rows of
// _c0, _c1 STRING), for a batch read of the directory and for a stream's
// micro-batches alike, in the run and in the description.
func TestFolderSampleFollowsTheLoad(t *testing.T) {
	snap, s := load(t, folderLoads(t))
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int64{"folder_batch": 5, "single_batch": 2, "folder_stream": 4} {
		if r := res.Datasets[name]; r == nil || r.Phase != Completed || r.Rows != want {
			t.Errorf("%s: %+v, want %d rows", name, r, want)
		}
	}
	if got := strings.Join(rowsOf(t, s, "SELECT _c0, _c1 FROM folder_batch"), " "); got != "1|Ana 2|Ben 3|Cleo id|name id|name" {
		t.Errorf("folder_batch: %s", got)
	}
	if got := strings.Join(rowsOf(t, s, "SELECT a, b FROM folder_stream"), " "); got != "a|b a|b x|1 y|2" {
		t.Errorf("folder_stream: %s", got)
	}
	ctx := context.Background()
	d, err := s.Describer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if failed := d.RegisterSources(ctx, snap.Pipeline); len(failed) > 0 {
		t.Fatal(failed)
	}
	cols, err := d.Columns(ctx, "custs")
	if err != nil || len(cols) != 2 || cols[0] != (Column{"_c0", "VARCHAR"}) || cols[1] != (Column{"_c1", "VARCHAR"}) {
		t.Errorf("described custs: %v %v", cols, err)
	}
}

// TestFolderSampleHeaderOption: with header, each file's first line is
// its header, in a batch read and in a stream's micro-batches, read one
// file at a time too (a run resumed from --state reads only the new
// file).
func TestFolderSampleHeaderOption(t *testing.T) {
	root := folderLoads(t)
	py := filepath.Join(root, "transformations", "loads.py")
	b, err := os.ReadFile(py)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(b), `spark.read.csv("/landing/custs")`, `spark.read.option("header", "true").csv("/landing/custs")`)
	text = strings.ReplaceAll(text, `.csv("/landing/events")`, `.option("header", True).csv("/landing/events")`)
	writeTestFile(t, py, text)
	second := filepath.Join(root, "samples", "events", "002.csv")
	if err := os.Remove(second); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	run := func() (*Session, *Result) {
		snap, err := analysis.Load(root, analysis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := Open(snap.Root, Options{Threads: 2, StateDir: state})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if _, err := s.Restore(context.Background(), snap.Pipeline); err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s, res
	}
	s, res := run()
	if r := res.Datasets["folder_batch"]; r == nil || r.Phase != Completed || r.Rows != 3 {
		t.Errorf("folder_batch: %+v", r)
	}
	if got := strings.Join(rowsOf(t, s, "SELECT id, name FROM folder_batch"), " "); got != "1|Ana 2|Ben 3|Cleo" {
		t.Errorf("folder_batch: %s", got)
	}
	s.Close()
	writeTestFile(t, second, "a,b\ny,2\nz,3\n")
	s, _ = run()
	if got := strings.Join(rowsOf(t, s, "SELECT a, b FROM folder_stream"), " "); got != "x|1 y|2 z|3" {
		t.Errorf("folder_stream over two runs: %s", got)
	}
}

// TestFolderSampleHeaderInferSchema: with header and inferSchema, the
// types are Spark's, inferred over every file's rows without their
// header lines (id INT, not DuckDB's BIGINT; a header line after the
// first file's is no STRING value of id).
func TestFolderSampleHeaderInferSchema(t *testing.T) {
	root := folderLoads(t)
	py := filepath.Join(root, "transformations", "loads.py")
	b, err := os.ReadFile(py)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, py, strings.ReplaceAll(string(b), `spark.read.csv("/landing/custs")`,
		`spark.read.option("header", "true").option("inferSchema", "true").csv("/landing/custs")`))
	snap, s := load(t, root)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Datasets["folder_batch"]; r == nil || r.Phase != Completed || r.Rows != 3 {
		t.Fatalf("folder_batch: %+v", r)
	}
	if got := strings.Join(rowsOf(t, s, "SELECT id, name, typeof(id), typeof(name) FROM folder_batch"), " "); got != "1|Ana|INTEGER|VARCHAR 2|Ben|INTEGER|VARCHAR 3|Cleo|INTEGER|VARCHAR" {
		t.Errorf("folder_batch: %s", got)
	}
}
