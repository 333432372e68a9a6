package parser

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// gapOK and gapErr are the forms where the parser used to disagree with
// Spark 4.1.4's own parser (each checked against SparkSqlParser): what
// Spark accepts and what it refuses, with the error class and the text
// the error covers.
var gapOK = []string{
	"SELECT * FROM a LEFT SEMI JOIN b ON a.x = b.x",
	"SELECT * FROM a SEMI JOIN b ON a.x = b.x",
	"SELECT * FROM a ANTI JOIN b ON a.x = b.x",
	"SELECT first(a IGNORE NULLS), last(a IGNORE NULLS), any_value(a IGNORE NULLS) FROM t",
	"SELECT sum(a) IGNORE NULLS, first(a) IGNORE NULLS OVER (ORDER BY b) FROM t",
	"SELECT * FROM LATERAL t, b",
	"SELECT * FROM a, LATERAL (SELECT 1), LATERAL explode(array(1)) AS e(x), LATERAL range(3)",
	"SELECT * FROM a LEFT JOIN LATERAL (SELECT a.x) ON true CROSS JOIN LATERAL (SELECT 1) INNER JOIN LATERAL (SELECT 2) s ON true",
	"SELECT * FROM t TABLESAMPLE (BUCKET 4 OUT OF 4), u TABLESAMPLE (BUCKET 0 OUT OF 4)",
	"FROM t SELECT a ORDER BY a SELECT b",
	"FROM t SELECT a WHERE x > 1 LIMIT 3 SELECT b GROUP BY b",
	"SELECT a FROM t GROUP BY rollup(a) + 1, cube(b) * 2, rollup(a), cube(a, (b, c))",
	"SELECT a FROM t GROUP BY rollup + 1",
}

var gapErr = []struct{ sql, class, at string }{
	{"SELECT * FROM a RIGHT SEMI JOIN b ON a.x = b.x", "PARSE_SYNTAX_ERROR", "SEMI"},
	{"SELECT * FROM a FULL ANTI JOIN b ON a.x = b.x", "PARSE_SYNTAX_ERROR", "ANTI"},
	{"SELECT * FROM a RIGHT ANTI JOIN b ON a.x = b.x", "PARSE_SYNTAX_ERROR", "ANTI"},
	{"SELECT * FROM a FULL SEMI JOIN b ON a.x = b.x", "PARSE_SYNTAX_ERROR", "SEMI"},
	{"SELECT sum(a IGNORE NULLS) FROM t", "PARSE_SYNTAX_ERROR", "IGNORE"},
	{"SELECT first(a, b IGNORE NULLS) FROM t", "PARSE_SYNTAX_ERROR", "IGNORE"},
	{"SELECT first(DISTINCT a IGNORE NULLS) FROM t", "PARSE_SYNTAX_ERROR", "IGNORE"},
	{"SELECT `first`(a IGNORE NULLS) FROM t", "PARSE_SYNTAX_ERROR", "IGNORE"},
	{"SELECT s.first(a IGNORE NULLS) FROM t", "PARSE_SYNTAX_ERROR", "IGNORE"},
	{"SELECT first(x => a IGNORE NULLS) FROM t", "PARSE_SYNTAX_ERROR", "IGNORE"},
	// nothing follows the call: Spark reads OVER or IGNORE as an alias
	// and fails at the next token, Thund at the word (at "" takes any)
	{"SELECT first(a IGNORE NULLS) OVER () FROM t", "PARSE_SYNTAX_ERROR", ""},
	{"SELECT first(a IGNORE NULLS) IGNORE NULLS FROM t", "PARSE_SYNTAX_ERROR", ""},
	{"SELECT * FROM a, LATERAL t", "INVALID_SQL_SYNTAX.LATERAL_WITHOUT_SUBQUERY_OR_TABLE_VALUED_FUNC", "t"},
	{"SELECT * FROM a, LATERAL VALUES (1)", "INVALID_SQL_SYNTAX.LATERAL_WITHOUT_SUBQUERY_OR_TABLE_VALUED_FUNC", "VALUES (1)"},
	{"SELECT * FROM a, LATERAL (b JOIN c)", "INVALID_SQL_SYNTAX.LATERAL_WITHOUT_SUBQUERY_OR_TABLE_VALUED_FUNC", "(b JOIN c)"},
	{"SELECT * FROM a JOIN LATERAL t", "INVALID_SQL_SYNTAX.LATERAL_WITHOUT_SUBQUERY_OR_TABLE_VALUED_FUNC", "t"},
	{"SELECT * FROM a RIGHT JOIN LATERAL t ON true", "INVALID_SQL_SYNTAX.LATERAL_WITHOUT_SUBQUERY_OR_TABLE_VALUED_FUNC", "t"},
	{"SELECT * FROM a RIGHT JOIN LATERAL (SELECT a.x) ON true", "INVALID_LATERAL_JOIN_TYPE", "RIGHT JOIN"},
	{"SELECT * FROM a FULL OUTER JOIN LATERAL (SELECT a.x) ON true", "INVALID_LATERAL_JOIN_TYPE", "FULL OUTER JOIN"},
	{"SELECT * FROM a LEFT SEMI JOIN LATERAL (SELECT a.x) ON true", "INVALID_LATERAL_JOIN_TYPE", "LEFT SEMI JOIN"},
	{"SELECT * FROM a NATURAL RIGHT JOIN LATERAL (SELECT 1)", "INCOMPATIBLE_JOIN_TYPES", "NATURAL RIGHT JOIN"},
	{"SELECT * FROM a JOIN LATERAL (SELECT 1) USING (x)", "UNSUPPORTED_FEATURE.LATERAL_JOIN_USING", "JOIN"},
	{"SELECT * FROM t TABLESAMPLE (BUCKET 1 OUT OF 4 ON x)", "_LEGACY_ERROR_TEMP_0015", "ON x"},
	{"SELECT * FROM t TABLESAMPLE (BUCKET 1 OUT OF 4 ON rand())", "_LEGACY_ERROR_TEMP_0015", "ON rand()"},
	{"SELECT * FROM t TABLESAMPLE (BUCKET 1 OUT OF 4 ON x + 1)", "PARSE_SYNTAX_ERROR", "+"},
	{"SELECT * FROM t TABLESAMPLE (BUCKET 1 OUT OF 4 ON f(x))", "PARSE_SYNTAX_ERROR", "x"},
	{"SELECT * FROM t TABLESAMPLE (BUCKET 1 OUT OF 4 ON (x))", "PARSE_SYNTAX_ERROR", "("},
	{"SELECT * FROM t TABLESAMPLE (BUCKET 1 OUT OF 4 ON t.x)", "PARSE_SYNTAX_ERROR", ")"},
	{"SELECT * FROM t TABLESAMPLE (BUCKET 5 OUT OF 4)", "_LEGACY_ERROR_TEMP_0064", "5 OUT OF 4"},
	{"SELECT * FROM t TABLESAMPLE (BUCKET 1 OUT OF 0)", "_LEGACY_ERROR_TEMP_0064", "1 OUT OF 0"},
}

func TestGaps(t *testing.T) {
	for _, sql := range gapOK {
		if _, errs := ParseStatement(sql, Options{}); len(errs) > 0 {
			t.Errorf("%s: %s (%s)", sql, errs[0].Message, errs[0].Class)
		}
	}
	for _, c := range gapErr {
		_, errs := ParseStatement(c.sql, Options{})
		if len(errs) == 0 {
			t.Errorf("%s: parsed, want %s", c.sql, c.class)
			continue
		}
		e := errs[0]
		if e.Class != c.class || (c.at != "" && c.sql[e.Start:e.End] != c.at) {
			t.Errorf("%s: %s at %q (%s), want %s at %q", c.sql, e.Class, c.sql[e.Start:e.End], e.Message, c.class, c.at)
		}
	}
}

// TestGapTrees checks what the tree holds for the forms above.
func TestGapTrees(t *testing.T) {
	q := mustQuery(t, "FROM t SELECT a ORDER BY a LIMIT 2 SELECT b SORT BY b")
	u, ok := q.Body.(*ast.SetOp)
	if !ok {
		t.Fatalf("body %T, want *ast.SetOp", q.Body)
	}
	l, r := u.L.(*ast.Select), u.R.(*ast.Select)
	if l.Organization == nil || len(l.Organization.OrderBy) != 1 || l.Organization.Limit == nil {
		t.Errorf("first body's ORDER BY and LIMIT not kept: %+v", l.Organization)
	}
	if r.Organization == nil || len(r.Organization.SortBy) != 1 || q.OrderBy != nil || q.SortBy != nil {
		t.Errorf("second body's SORT BY not on the body: %+v, query %+v", r.Organization, q)
	}
	q = mustQuery(t, "FROM t SELECT a ORDER BY a")
	if s := q.Body.(*ast.Select); s.Organization != nil || len(q.OrderBy) != 1 {
		t.Errorf("a lone FROM-first body's ORDER BY belongs to the query")
	}

	q = mustQuery(t, "SELECT a FROM t GROUP BY rollup(a) + 1, rollup(b)")
	g := q.Body.(*ast.Select).GroupBy
	if b, ok := g.Items[0].X.(*ast.Binary); !ok || b.Op != "+" || g.Items[0].Kind != "" {
		t.Errorf("rollup(a) + 1 is %T %q, want an expression", g.Items[0].X, g.Items[0].Kind)
	}
	if g.Items[1].Kind != "ROLLUP" {
		t.Errorf("rollup(b) is %q, want ROLLUP", g.Items[1].Kind)
	}

	q = mustQuery(t, "SELECT first(a IGNORE NULLS) FROM t")
	if c := q.Body.(*ast.Select).Items[0].X.(*ast.Call); c.Nulls != "IGNORE" {
		t.Errorf("first(a IGNORE NULLS): Nulls %q", c.Nulls)
	}
}

func mustQuery(t *testing.T, sql string) *ast.Query {
	t.Helper()
	st, errs := ParseStatement(sql, Options{})
	if len(errs) > 0 {
		t.Fatalf("%s: %s", sql, errs[0].Message)
	}
	qs, ok := st.(*ast.QueryStmt)
	if !ok {
		t.Fatalf("%s: %T", sql, st)
	}
	return qs.Query
}

// TestSemicolonHint checks the fix offered when a statement follows the
// one before on the next line without a ';' (Spark reads the first word
// as an alias and fails at the second).
func TestSemicolonHint(t *testing.T) {
	for _, c := range []struct{ src, at string }{
		{"CREATE MATERIALIZED VIEW a AS SELECT 1\nCREATE MATERIALIZED VIEW b AS SELECT 2", "MATERIALIZED"},
		{"CREATE MATERIALIZED VIEW a AS SELECT x FROM t WHERE y = 1\n  CREATE FLOW f AS INSERT INTO b SELECT 2", "CREATE"},
		{"SELECT x FROM t\nINSERT INTO b SELECT 2", "INSERT"},
	} {
		sc := Parse(c.src, Options{})
		if len(sc.Errors) == 0 {
			t.Errorf("%q: no error", c.src)
			continue
		}
		e := sc.Errors[0]
		if c.src[e.Start:e.End] != c.at || !strings.Contains(e.Message, "is a ';' missing before it?") {
			t.Errorf("%q: %q at %q, want the ';' hint at %q", c.src, e.Message, c.src[e.Start:e.End], c.at)
		}
	}
	// a clause keyword at the start of a line is no such hint
	sc := Parse("SELECT a FROM t WHERE\nFROM u", Options{})
	if len(sc.Errors) != 1 || strings.Contains(sc.Errors[0].Message, "';' missing") {
		t.Errorf("SELECT a FROM t WHERE FROM u: %v", sc.Errors)
	}
}

// TestKeptInTree checks the parts the tree used to drop: STRUCT's alias
// lists, identity columns' BY DEFAULT and options, REFERENCES' columns,
// and the text of a command held as ast.Other; each survives Format.
func TestKeptInTree(t *testing.T) {
	src := "SELECT struct(a AS (x, y), b AS c) FROM t"
	q := mustQuery(t, src)
	c := q.Body.(*ast.Select).Items[0].X.(*ast.Call)
	if na, ok := c.Args[0].(*ast.NamedArg); !ok || len(na.Aliases) != 2 || na.Aliases[1].Name != "y" {
		t.Errorf("struct(a AS (x, y)): %#v", c.Args[0])
	}
	roundTripOK(t, src)

	src = "CREATE TABLE t (id BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH -1 INCREMENT BY 2), " +
		"p INT REFERENCES q (pid), CONSTRAINT fk FOREIGN KEY (p) REFERENCES q (a, b))"
	st, errs := ParseStatement(src, Options{})
	if len(errs) > 0 {
		t.Fatal(errs[0].Message)
	}
	cr := st.(*ast.Create)
	id := cr.Columns[0]
	if !id.Identity || !id.IdentityByDefault || id.IdentityStart.(*ast.Literal).Text != "-1" || id.IdentityStep.(*ast.Literal).Text != "2" {
		t.Errorf("identity column: %+v", id)
	}
	if k := cr.Columns[1].Constraints[0]; len(k.RefColumns) != 1 || k.RefColumns[0].Name != "pid" {
		t.Errorf("REFERENCES q (pid): %+v", k)
	}
	if k := cr.Constraints[0]; len(k.RefColumns) != 2 {
		t.Errorf("FOREIGN KEY ... REFERENCES q (a, b): %+v", k)
	}
	roundTripOK(t, src)

	_, errs = ParseStatement("CREATE TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY (START WITH 1 START WITH 2))", Options{})
	if len(errs) != 1 || errs[0].Class != "IDENTITY_COLUMNS_DUPLICATED_SEQUENCE_GENERATOR_OPTION" {
		t.Errorf("a doubled START WITH: %v", errs)
	}

	src = "DROP TABLE IF EXISTS a.b"
	st, _ = ParseStatement(src, Options{})
	if o, ok := st.(*ast.Other); !ok || o.Text != src || ast.Format(o) != src {
		t.Errorf("%s: %T, Format %q", src, st, ast.Format(st))
	}
}

func roundTripOK(t *testing.T, src string) {
	t.Helper()
	sc := Parse(src, Options{})
	text := ast.Format(sc)
	again := Parse(text, Options{})
	if len(again.Errors) > 0 {
		t.Errorf("%s: the formatted %q does not parse: %s", src, text, again.Errors[0].Message)
		return
	}
	if d := ast.Diff(sc, again); d != "" {
		t.Errorf("%s: the formatted %q parses into another tree: %s", src, text, d)
	}
}

// TestDanglingDot checks that a name left unfinished at the end of a line
// (WHERE l. before GROUP BY) is reported at its '.', not at the BY that
// Spark names, and that a name continued on the next line on purpose
// still parses.
func TestDanglingDot(t *testing.T) {
	src := "SELECT l.order_id FROM t AS l\nWHERE l.\nGROUP BY l.order_id\n"
	sc := Parse(src, Options{})
	if len(sc.Errors) != 1 {
		t.Fatalf("errors: %v, want one", sc.Errors)
	}
	e := sc.Errors[0]
	if got, want := e.Start, strings.Index(src, "l.\nGROUP")+1; got != want || e.End != want+1 {
		t.Fatalf("error at %d-%d, want the '.' at %d", e.Start, e.End, want)
	}
	for _, part := range []string{"'BY'", "l.GROUP", "finish the name"} {
		if !strings.Contains(e.Message, part) {
			t.Errorf("message %q lacks %q", e.Message, part)
		}
	}
	ok := "SELECT t.\n  order_id FROM t\n"
	if sc := Parse(ok, Options{}); len(sc.Errors) != 0 {
		t.Fatalf("%q: %v, want no error", ok, sc.Errors)
	}
}
