package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/ir"
)

// A pipeline written for Databricks that Databricks itself refuses twice
// gets no "add dialect: databricks" hint when it is already checked
// against databricks: the findings are the answer, not a setting.
func TestNoDialectHintWhenDatabricksRefuses(t *testing.T) {
	root := t.TempDir()
	agg := "-- @kind: streaming_table\n-- @output_mode: update\nSELECT k, count(*) AS n FROM STREAM(src) GROUP BY k\n"
	for name, text := range map[string]string{
		"a.sql": "CREATE OR REFRESH MATERIALIZED VIEW a AS SELECT 1 AS x;\n",
		"b.sql": agg, "c.sql": agg,
		"samples/src/001.csv": "k\n1\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := analysis.Load(root, analysis.Options{Backends: []ir.Backend{ir.Databricks}})
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, d := range snap.Diagnostics {
		if d.Code == ir.CodeUnsupported && d.Backend == ir.Databricks {
			refused++
		}
	}
	if refused < 2 {
		t.Fatalf("want databricks to refuse both output modes: %+v", snap.Diagnostics)
	}
	if h := Hints(snap, snap.Diagnostics); len(h) != 0 {
		t.Errorf("hints %q, want none", h)
	}
}
