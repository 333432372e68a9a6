package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFileReadMetadata: a read of files has Spark's hidden _metadata
// column natively, with the sample file's values (file_path as Spark
// 4.1.4 prints a local file's: file:/abs/path), left out of *: a batch
// read of one file, a stream of micro-batch files (each row its own
// file's), json.`path` as read_files; and the rescued-data column a read
// names is a NULL STRING.
func TestFileReadMetadata(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native, databricks]\n")
	writeTestFile(t, filepath.Join(root, "samples", "ev.json"), `{"id": 1, "kind": "a"}`+"\n")
	writeTestFile(t, filepath.Join(root, "samples", "evs", "001.json"), `{"id": 1}`+"\n")
	writeTestFile(t, filepath.Join(root, "samples", "evs", "002.json"), `{"id": 2}`+"\n"+`{"id": 3}`+"\n")
	writeTestFile(t, filepath.Join(root, "samples", "cust.csv"), "id\n7\n")
	writeTestFile(t, filepath.Join(root, "samples", "cust2.csv"), "id\n7\n")
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(root, "samples", "ev.json"), mod, mod); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(root, "a.sql"),
		"CREATE OR REFRESH MATERIALIZED VIEW b AS SELECT *, _metadata.file_path AS src, _metadata.file_name, _metadata.file_size,\n"+
			"  _metadata.file_block_start AS bs, _metadata.file_block_length AS bl, _metadata.file_modification_time AS m\n"+
			"FROM read_files('/landing/ev', format => 'json');\n"+
			"CREATE OR REFRESH STREAMING TABLE s AS SELECT *, _metadata.file_name AS f FROM STREAM read_files('/landing/evs/', format => 'json');\n"+
			"CREATE MATERIALIZED VIEW j AS SELECT kind, _metadata.file_name AS n FROM json.`/landing/ev`;\n"+
			"CREATE OR REFRESH MATERIALIZED VIEW r AS SELECT * FROM read_files('/raw/cust', format => 'csv', header => true, rescueddatacolumn => '_rescued_data');\n"+
			"CREATE OR REFRESH MATERIALIZED VIEW d AS SELECT *, _rescued_data AS resc FROM read_files('/raw/cust2', format => 'csv', header => true);\n")
	_, s := runOK(t, root)
	abs, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	file := "file:" + filepath.ToSlash(abs) + "/samples/ev.json"
	if got := rowsOf(t, s, "SELECT * FROM b"); len(got) != 1 || got[0] != "1|a|NULL|"+file+"|ev.json|23|0|23|2026-01-02 03:04:05" {
		t.Errorf("b: %v", got)
	}
	if got := strings.Join(rowsOf(t, s, "SELECT * FROM s"), " "); got != "1|NULL|001.json 2|NULL|002.json 3|NULL|002.json" {
		t.Errorf("s: %s", got)
	}
	if got := strings.Join(rowsOf(t, s, "SELECT * FROM j"), " "); got != "a|ev.json" {
		t.Errorf("j: %s", got)
	}
	if got := strings.Join(rowsOf(t, s, "SELECT id, _rescued_data IS NULL FROM r"), " "); got != "7|true" {
		t.Errorf("r: %s", got)
	}
	if got := rowsOf(t, s, "SELECT column_name FROM (DESCRIBE SELECT * FROM r)"); strings.Join(got, ",") != "_rescued_data,id" {
		t.Errorf("r's columns: %v", got)
	}
	// Databricks' default rescued column of a read inferring its
	// schema (the folder is a Databricks pipeline: it is checked
	// against the databricks backend): in * as on Databricks, NULL.
	if got := strings.Join(rowsOf(t, s, "SELECT * FROM d"), " "); got != "7|NULL|NULL" {
		t.Errorf("d: %s", got)
	}
}

// TestFileURI: Spark's form of a local file's path.
func TestFileURI(t *testing.T) {
	if got := FileURI("/tmp/my dir/a.json"); got != "file:/tmp/my%20dir/a.json" {
		t.Errorf("FileURI: %s", got)
	}
}
