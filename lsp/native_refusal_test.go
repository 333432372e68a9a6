package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
	"go.lsp.dev/protocol"
)

// TestNativeRefusalsAndTypeErrorsPublished: what plain --check reports
// beyond the analysis (a construct the native run refuses, a type error
// Spark's analyzer raises) is published by the server too, at the same
// ranges, once the pipeline is described.
func TestNativeRefusalsAndTypeErrorsPublished(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		"thund.yaml":      "backends: [native]\n",
		"samples/src.csv": "id,v\n1,2.5\n",
		"script.sql":      "CREATE MATERIALIZED VIEW script AS SELECT TRANSFORM(id) USING 'cat' AS (x) FROM src;\n",
		"typed.sql":       "CREATE MATERIALIZED VIEW typed AS SELECT true = 1 AS x FROM src;\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startServer(t)
	for _, w := range []struct{ file, code, at, msg string }{
		{"script.sql", string(ir.CodeUnsupported), "SELECT TRANSFORM(id)", "SELECT TRANSFORM runs a script"},
		{"typed.sql", string(ir.CodeBinder), "true = 1", "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES"},
	} {
		file := filepath.Join(root, w.file)
		_, text := c.open(t, file)
		d := find(c.diagnosticsWith(t, file, w.code), w.code)
		if !strings.Contains(d.Message, w.msg) {
			t.Errorf("%s: %q, want %q", w.file, d.Message, w.msg)
		}
		if got := rangeText(text, d.Range); !strings.HasPrefix(got, w.at) {
			t.Errorf("%s: at %q, want %q", w.file, got, w.at)
		}
	}
}

// rangeText is the text of r in a one-line-per-statement file.
func rangeText(text string, r protocol.Range) string {
	lines := strings.Split(text, "\n")
	if int(r.Start.Line) >= len(lines) || r.Start.Line != r.End.Line {
		return ""
	}
	l := lines[r.Start.Line]
	if int(r.End.Character) > len(l) || r.Start.Character > r.End.Character {
		return ""
	}
	return l[r.Start.Character:r.End.Character]
}
