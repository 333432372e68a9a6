package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestSyntaxErrorInStreamingTableIsItsOnlyError: a CREATE STREAMING TABLE
// whose statement breaks after its name (AS missing before the query) gets
// the syntax error only, as Spark 4.1.4 gives PARSE_SYNTAX_ERROR only
// (QA14 v3), not also "has no flow"; a streaming table really without a
// flow still gets it.
func TestSyntaxErrorInStreamingTableIsItsOnlyError(t *testing.T) {
	codes := func(text string) []string {
		s, err := Load(writeTree(t, map[string]string{"a.sql": "CREATE MATERIALIZED VIEW src AS SELECT 1 AS id;\n" + text}), Options{Backends: []ir.Backend{ir.Spark41}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range s.Diagnostics {
			if d.Severity == ir.Error {
				out = append(out, string(d.Code)+": "+d.Message)
			}
		}
		return out
	}
	got := codes("CREATE STREAMING TABLE s\nselect * from stream src;\n")
	if len(got) != 1 || !strings.HasPrefix(got[0], string(ir.CodeSQLSyntax)) {
		t.Errorf("AS missing: errors %q, want the syntax error only", got)
	}
	got = codes("CREATE STREAMING TABLE s;\n")
	if len(got) != 1 || !strings.Contains(got[0], "PIPELINE_DATASET_WITHOUT_FLOW") {
		t.Errorf("no flow: errors %q, want PIPELINE_DATASET_WITHOUT_FLOW", got)
	}
}
