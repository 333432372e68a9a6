package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/ir"
)

// TestBackendsHintForPython: when the findings that repeat are all in
// .py files, the whole-pipeline hint names no `-- @backends` pragma,
// which a Python file does not have; with a .sql file among them it does.
func TestBackendsHintForPython(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		"thund.yaml": "backends: [native, spark-4.1]\n",
		"a.sql":      "CREATE MATERIALIZED VIEW a AS SELECT 1 AS x;\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	refused := func(files ...string) []ir.Diagnostic {
		var out []ir.Diagnostic
		for i, f := range files {
			out = append(out, ir.Diagnostic{Loc: ir.Loc{File: f, Start: i, End: i + 1}, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: ir.Spark41, Message: "x"})
		}
		return out
	}
	h := Hints(snap, refused("t.py", "u.py"))
	if len(h) != 1 || strings.Contains(h[0], "-- @backends") || !strings.Contains(h[0], "set `backends: [native]` in thund.yaml") ||
		!strings.Contains(h[0], "a Python file has no per-dataset `@backends` pragma") {
		t.Errorf("Python only: %q", h)
	}
	if h := Hints(snap, refused("t.py", "a.sql")); len(h) != 1 || !strings.Contains(h[0], "rather than `-- @backends: native` in each dataset") {
		t.Errorf("with SQL: %q", h)
	}
}
