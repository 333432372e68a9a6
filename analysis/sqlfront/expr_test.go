package sqlfront

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

func TestCheckExpression(t *testing.T) {
	const pad = "-- @expect.e: " // the expression sits after this in the file
	check := func(expr string) []ir.Diagnostic {
		return CheckExpression("expectation e", expr, ir.Loc{File: "f.sql", Start: len(pad), End: len(pad) + len(expr)})
	}
	for _, ok := range []string{
		"amount > 0", "status IN ('a', 'b')", "coalesce(x, 0) >= 0", "CAST(a AS INT) = 1",
		"x IS NOT NULL AND y LIKE 'a%'", "a BETWEEN 1 AND 2", "regexp_matches(a, '^x')",
		"date_diff('day', a, b) < 3", "EXISTS (SELECT 1) OR a = (SELECT max(b) FROM t)",
	} {
		if ds := check(ok); len(ds) != 0 {
			t.Errorf("%q: %v", ok, ds)
		}
	}
	for _, tt := range []struct{ expr, at, want string }{
		{"amount >", ">", "ends too early"},
		{"a > 0 b < 1", "b", "not a valid SQL expression"},
		{"count(*) > 0", "count", "aggregate"},
		{"a > 0 AND sum(b) > 1", "sum", "aggregate"},
		{"row_number() OVER () > 1", "row_number", "window function"},
		{"sum(x) OVER (PARTITION BY k) > 0", "sum", "window function"},
	} {
		ds := check(tt.expr)
		if len(ds) != 1 || ds[0].Severity != ir.Error || !strings.Contains(ds[0].Message, tt.want) {
			t.Errorf("%q: %+v, want one error saying %q", tt.expr, ds, tt.want)
			continue
		}
		text := pad + tt.expr
		if got := text[ds[0].Loc.Start:ds[0].Loc.End]; !strings.HasPrefix(got, tt.at) {
			t.Errorf("%q: the error covers %q, want it to start at %q", tt.expr, got, tt.at)
		}
	}
}

// TestUnterminatedQuotedName: an unclosed backtick is a syntax error at
// the quote (DuckDB would read it as an operator and accept the query);
// in an SDP statement's name the message shows the first line only.
func TestUnterminatedQuotedName(t *testing.T) {
	q, diags := ParseQuery("f.sql", "SELECT `id FROM t\n", Span{0, 18})
	if q == nil || len(diags) != 1 || diags[0].Loc.Start != 7 || !strings.Contains(diags[0].Message, "unterminated quoted name") {
		t.Fatalf("pragma form: %+v", diags)
	}
	f := Parse("s.sql", "CREATE MATERIALIZED VIEW `x AS SELECT 1 AS id;\nCREATE MATERIALIZED VIEW y AS SELECT 2 AS id;\n")
	if len(f.Diags) == 0 || !strings.Contains(f.Diags[0].Message, "unterminated quoted name (`x AS SELECT 1 AS id...)") || strings.Contains(f.Diags[0].Message, `\n`) {
		t.Fatalf("SDP form: %+v", f.Diags)
	}
}

// TestMisspeltStatementKeyword: SELEC and CRAETE are typos of SELECT and
// CREATE, said so at the word, rather than statements pipelines refuse.
func TestMisspeltStatementKeyword(t *testing.T) {
	for text, want := range map[string]string{"SELEC 1 AS id": "SELECT", "CRAETE MATERIALIZED VIEW x AS SELECT 1": "CREATE", "WTIH a AS (SELECT 1) SELECT * FROM a": "WITH"} {
		f := Parse("f.sql", text)
		if len(f.Diags) != 1 || f.Diags[0].Code != ir.CodeSQLSyntax || !strings.Contains(f.Diags[0].Message, "did you mean "+want+"?") || f.Diags[0].Loc.Start != 0 {
			t.Errorf("%q: %+v", text, f.Diags)
		}
	}
	if f := Parse("f.sql", "DROP TABLE x"); len(f.Diags) != 1 || f.Diags[0].Code != ir.CodeSQLUnsupported {
		t.Errorf("DROP: %+v", f.Diags)
	}
}
