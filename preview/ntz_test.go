package preview

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/engine"
)

// TestPreviewNamesTimestampNTZ: a TIMESTAMP_NTZ column is a TIMESTAMP in
// DuckDB and in Arrow, so the preview's header (JSON, terminal and HTML tables) takes its type from what
// the run recorded of the flow's Spark types: TIMESTAMP_NTZ for a
// materialized view's column, for a view reading it and inside an array,
// TIMESTAMP for a TIMESTAMP column. Once the query gives a TIMESTAMP
// instead, the header follows.
func TestPreviewNamesTimestampNTZ(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("thund.yaml", "backends: [native]\n")
	write("a.sql", "CREATE MATERIALIZED VIEW a AS SELECT 1 AS id, TIMESTAMP_NTZ '2024-01-05 10:00:00' AS ntz, TIMESTAMP '2024-01-05 10:00:00' AS ts, array(TIMESTAMP_NTZ '2024-01-05 10:00:00') AS arr;\n")
	write("b.sql", "CREATE VIEW b AS SELECT ntz, id FROM a;\n")
	s, err := engine.Open(root, engine.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	header := func(name string) string {
		t.Helper()
		snap, err := analysis.Load(root, analysis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res, err := s.Run(ctx, snap.Pipeline, engine.RunOptions{}); err != nil || res.Failed() {
			t.Fatalf("run: %v %+v", err, res)
		}
		p, err := Dataset(ctx, s, name, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, c := range p.Columns {
			types = append(types, c.Name+" "+SparkType(c.Type))
		}
		return strings.Join(types, ", ")
	}
	if got, want := header("a"), "id INT, ntz TIMESTAMP_NTZ, ts TIMESTAMP, arr ARRAY<TIMESTAMP_NTZ>"; got != want {
		t.Errorf("preview of a: %s, want %s", got, want)
	}
	if got, want := header("b"), "ntz TIMESTAMP_NTZ, id INT"; got != want {
		t.Errorf("preview of b: %s, want %s", got, want)
	}
	var b strings.Builder
	p, err := Dataset(ctx, s, "a", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&b, p, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	var h strings.Builder
	if err := WriteHTML(&h, p); err != nil {
		t.Fatal(err)
	}
	for what, out := range map[string]string{"table": b.String(), "HTML table": h.String()} {
		if !strings.Contains(out, "TIMESTAMP_NTZ") {
			t.Errorf("the %s of a names no TIMESTAMP_NTZ:\n%s", what, out)
		}
	}

	write("a.sql", "CREATE MATERIALIZED VIEW a AS SELECT 1 AS id, TIMESTAMP '2024-01-05 10:00:00' AS ntz, TIMESTAMP '2024-01-05 10:00:00' AS ts, array(TIMESTAMP '2024-01-05 10:00:00') AS arr;\n")
	if got, want := header("a"), "id INT, ntz TIMESTAMP, ts TIMESTAMP, arr ARRAY<TIMESTAMP>"; got != want {
		t.Errorf("preview of a after its columns became TIMESTAMP: %s, want %s", got, want)
	}
}
