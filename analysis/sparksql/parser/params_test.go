package parser_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

var pipelineVars = map[string]string{
	"catalog":     "main",
	"schema":      "sales",
	"source_path": "/Volumes/main/raw",
	"min_amount":  "100",
	"table":       "main.sales.orders",
}

// describe lists the tables, string and number literals of a tree with
// the text as written at their ranges: name=value@"written".
func describe(src string, n ast.Node) string {
	var out []string
	at := func(r ast.Range) string { return fmt.Sprintf("@%q", src[r.Start:r.End]) }
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil:
			return false
		case *ast.Table:
			var parts []string
			for _, p := range n.Name.Parts {
				parts = append(parts, p.Name+at(p.Range))
			}
			out = append(out, "table "+strings.Join(parts, " . ")+" = "+n.Name.String()+at(n.Name.Range))
		case *ast.Literal:
			v := n.Text
			if n.Str != nil {
				v = n.Str.Value
			}
			out = append(out, fmt.Sprintf("%v %s%s", n.Kind, v, at(n.Range)))
		}
		return true
	})
	return strings.Join(out, "\n")
}

func TestParameters(t *testing.T) {
	opts := parser.Options{Vars: pipelineVars}
	cases := []struct{ src, want string }{
		{"SELECT * FROM ${catalog}.${schema}.orders WHERE amount > ${min_amount}",
			`table main@"${catalog}" . sales@"${schema}" . orders@"orders" = main.sales.orders@"${catalog}.${schema}.orders"` + "\n" +
				`integer 100@"${min_amount}"`},
		{"SELECT * FROM ${table}",
			`table main@"${table}" . sales@"${table}" . orders@"${table}" = main.sales.orders@"${table}"`},
		{"SELECT * FROM read_files('${source_path}/orders', format => 'csv')",
			`string /Volumes/main/raw/orders@"'${source_path}/orders'"` + "\n" + `string csv@"'csv'"`},
	}
	for _, c := range cases {
		st, errs := parser.ParseStatement(c.src, opts)
		for _, e := range errs {
			t.Errorf("%s: %s", c.src, e.Message)
		}
		if got := describe(c.src, st); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
	// the same text in a file, one statement of it parsed in place
	file := "SET x = 1;\nCREATE MATERIALIZED VIEW mv AS SELECT id FROM ${schema}.orders;\n"
	start := strings.Index(file, "SELECT")
	st, errs := parser.ParseStatementAt(file, start, len(file)-2, opts)
	if len(errs) > 0 {
		t.Fatal(errs[0].Message)
	}
	if got, want := describe(file, st), `table sales@"${schema}" . orders@"orders" = sales.orders@"${schema}.orders"`; got != want {
		t.Errorf("in place:\n got %s\nwant %s", got, want)
	}
}

func TestParameterErrors(t *testing.T) {
	opts := parser.Options{Vars: pipelineVars}
	cases := []struct{ src, at, msg string }{
		// a misspelt key: at the reference, with the key meant
		{"SELECT * FROM ${catalg}.${schema}.orders", "${catalg}", "pipeline parameter ${catalg} is not set, and Spark reads an unset one as empty text: did you mean ${catalog}?"},
		// inside a string, where Spark would not fail but read the wrong path
		{"SELECT * FROM read_files('${landing}/orders')", "${landing}", "set landing under `configuration:` in spark-pipeline.yml"},
		{"SELECT '${env:HOME}'", "${env:HOME}", "the Spark server's environment variable HOME, which Thund cannot know"},
		// a syntax error before the reference stays the error
		{"SELECT a FROM t GROUP x ${nope}", "x", "GROUP needs BY"},
		// a reference read as empty text at the end of a statement
		{"SELECT a FROM t ${nope}", "${nope}", "is not set"},
	}
	for _, c := range cases {
		st, errs := parser.ParseStatement(c.src, opts)
		if len(errs) != 1 {
			t.Errorf("%s: %d errors", c.src, len(errs))
			continue
		}
		e := errs[0]
		if got := c.src[e.Start:e.End]; !strings.HasPrefix(got, c.at) || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%s: error at %q: %s\nwant at %q: ...%s...", c.src, got, e.Message, c.at, c.msg)
		}
		if _, ok := st.(*ast.BadStmt); !ok {
			t.Errorf("%s: statement %T, want *ast.BadStmt", c.src, st)
		}
	}
	// Parse: the statement with the unset parameter fails, the next one
	// is read
	sc := parser.Parse("SELECT ${nope}; SELECT ${min_amount}", opts)
	if len(sc.Errors) != 1 || sc.Errors[0].Class != parser.ParamClass || len(sc.Stmts) != 2 {
		t.Fatalf("Parse: %d statements, errors %v", len(sc.Stmts), sc.Errors)
	}
	if _, ok := sc.Stmts[1].(*ast.QueryStmt); !ok {
		t.Errorf("second statement: %T", sc.Stmts[1])
	}
	// without Vars nothing is substituted: Spark's error at the $
	_, errs := parser.ParseStatement("SELECT * FROM ${catalog}.orders", parser.Options{})
	if len(errs) != 1 || errs[0].Start != strings.Index("SELECT * FROM ${catalog}.orders", "$") {
		t.Errorf("without Vars: %v", errs)
	}
}

// FuzzParseParams parses any text with pipeline parameters: no panic, no
// hang, every node's range and every error inside the text, errors in
// order.
func FuzzParseParams(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM ${catalog}.${schema}.orders WHERE amount > ${min_amount}",
		"SELECT * FROM ${table} t JOIN ${nope} USING (id)",
		"CREATE MATERIALIZED VIEW mv AS SELECT '${source_path}' || ${table}.x FROM ${table}",
		"SELECT ${min_amount}${min_amount}, a${catalog}b, $${x}, ${env:HOME}; SELECT 1",
	} {
		f.Add(s)
	}
	opts := parser.Options{Vars: pipelineVars}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		sc := parser.Parse(src, opts)
		ast.Inspect(sc, func(n ast.Node) bool {
			if n == nil {
				return false
			}
			if r := n.Span(); r.Start < 0 || r.End > len(src) || r.Start > r.End {
				t.Fatalf("%q: %T at [%d:%d]", src, n, r.Start, r.End)
			}
			return true
		})
		prev := 0
		for _, e := range sc.Errors {
			if e.Start < prev || e.End > len(src) || e.Start > e.End {
				t.Fatalf("%q: error [%d:%d] after %d: %s", src, e.Start, e.End, prev, e.Message)
			}
			prev = e.Start
		}
		parser.ParseStatement(src, opts)
		parser.ParseExpression(src, opts)
	})
}
