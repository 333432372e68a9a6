//go:build duckdb_arrow

package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestTimestampNTZReaders: a TIMESTAMP_NTZ column runs natively (DuckDB
// holds it as a TIMESTAMP with the same wall-clock value) and keeps
// Spark's type for the datasets reading it: typeof says timestamp_ntz
// downstream, as on Spark, and its string is the wall-clock time.
func TestTimestampNTZReaders(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "a.sql"), "CREATE MATERIALIZED VIEW a AS SELECT TIMESTAMP_NTZ '2024-01-02 03:04:05' AS t, 1 AS id;\n"+
		"CREATE MATERIALIZED VIEW b AS SELECT typeof(t) AS ty, CAST(t AS STRING) AS s, typeof(t + INTERVAL 1 DAY) AS ty2 FROM a;\n")
	snap, s := load(t, dir)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{Blocked: snap.Broken()})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		if d := res.Datasets[name]; d == nil || d.Phase != Completed {
			t.Fatalf("%s: %+v", name, d)
		}
	}
	var ty, str, ty2 string
	if err := s.DB().QueryRow(`SELECT ty, s, ty2 FROM `+quoteIdent(relationName("b"))).Scan(&ty, &str, &ty2); err != nil {
		t.Fatal(err)
	}
	if ty != "timestamp_ntz" || str != "2024-01-02 03:04:05" || ty2 != "timestamp_ntz" {
		t.Errorf("b = (%q, %q, %q), want (timestamp_ntz, 2024-01-02 03:04:05, timestamp_ntz) as Spark gives", ty, str, ty2)
	}
}

// TestMissingSampleNamesItsFlow: a dataset with two flows, one of whose
// stream reads files without a sample, is skipped with the flow that
// lacks the data named, and the sample to add is a folder of micro-batch
// files (QA14 r9 blamed the other flow and asked for a .csv).
func TestMissingSampleNamesItsFlow(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "thund.yaml"), "dialect: databricks\n")
	writeTestFile(t, filepath.Join(dir, "samples", "east", "001.csv"), "id\n1\n")
	writeTestFile(t, filepath.Join(dir, "a.sql"), "CREATE OR REFRESH STREAMING TABLE raw;\n"+
		"CREATE FLOW east AS INSERT INTO raw BY NAME SELECT * FROM STREAM read_files('/v/east', format => 'csv');\n"+
		"CREATE FLOW west AS INSERT INTO raw BY NAME SELECT * FROM STREAM read_files('/v/west', format => 'csv');\n")
	snap, s := load(t, dir)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{Blocked: snap.Broken()})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Datasets["raw"]
	if d == nil || d.Phase != Skipped || !strings.Contains(d.Error, "flow west reads the files at /v/west,") || !strings.Contains(d.Error, "a folder samples/west/") {
		t.Fatalf("raw: %+v", d)
	}
}
