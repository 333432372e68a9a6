//go:build duckdb_arrow

package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
)

// TestTimestampNTZReaders: a TIMESTAMP_NTZ column runs natively (DuckDB
// holds it as a TIMESTAMP with the same wall-clock value) and keeps
// Spark's type for the datasets reading it: typeof says timestamp_ntz
// downstream, as on Spark, and its string is the wall-clock time.
func TestTimestampNTZReaders(t *testing.T) {
	dir := t.TempDir()
	sql := "CREATE MATERIALIZED VIEW a AS SELECT TIMESTAMP_NTZ '2024-01-02 03:04:05' AS t, 1 AS id;\n" +
		"CREATE MATERIALIZED VIEW b AS SELECT typeof(t) AS ty, CAST(t AS STRING) AS s, typeof(t + INTERVAL 1 DAY) AS ty2 FROM a;\n"
	if err := os.WriteFile(filepath.Join(dir, "a.sql"), []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(snap.Root, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
	for name, text := range map[string]string{
		"thund.yaml":           "dialect: databricks\n",
		"samples/east/001.csv": "id\n1\n",
		"a.sql": "CREATE OR REFRESH STREAMING TABLE raw;\n" +
			"CREATE FLOW east AS INSERT INTO raw BY NAME SELECT * FROM STREAM read_files('/v/east', format => 'csv');\n" +
			"CREATE FLOW west AS INSERT INTO raw BY NAME SELECT * FROM STREAM read_files('/v/west', format => 'csv');\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(snap.Root, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{Blocked: snap.Broken()})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Datasets["raw"]
	if d == nil || d.Phase != Skipped || !strings.Contains(d.Error, "flow west reads the files at /v/west,") || !strings.Contains(d.Error, "a folder samples/west/") {
		t.Fatalf("raw: %+v", d)
	}
}
