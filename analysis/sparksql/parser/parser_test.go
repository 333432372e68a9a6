package parser_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

// rangeCase says that parsing src gives a node of type typ (as %T prints
// it) whose range is exactly the nth occurrence (from 0) of text in src.
type rangeCase struct {
	src, typ, text string
	nth            int
}

// rangeCases are the examples of issue 15 and the constructs of its
// point 1, each with the range of one of its nodes.
var rangeCases = []rangeCase{
	// the examples of issue 15
	{`CREATE MATERIALIZED VIEW mv COMMENT "Orders per day" AS SELECT 1 AS x`, "*ast.StringLit", `"Orders per day"`, 0},
	{`CREATE MATERIALIZED VIEW mv COMMENT "Orders per day" AS SELECT 1 AS x`, "*ast.Create", `CREATE MATERIALIZED VIEW mv COMMENT "Orders per day" AS SELECT 1 AS x`, 0},
	{`CREATE MATERIALIZED VIEW mv COMMENT "Orders per day" AS SELECT 1 AS x`, "*ast.Query", `SELECT 1 AS x`, 0},
	{`SELECT * EXCEPT (s), int(id) AS i, "x" AS lit FROM a`, "*ast.Star", `* EXCEPT (s)`, 0},
	{`SELECT * EXCEPT (s), int(id) AS i, "x" AS lit FROM a`, "*ast.Call", `int(id)`, 0},
	{`SELECT * EXCEPT (s), int(id) AS i, "x" AS lit FROM a`, "*ast.SelectItem", `int(id) AS i`, 0},
	{`SELECT * EXCEPT (s), int(id) AS i, "x" AS lit FROM a`, "*ast.Literal", `"x"`, 0},
	{`SELECT * EXCEPT (s), int(id) AS i, "x" AS lit FROM a`, "*ast.Table", `a`, 0},
	{`SELECT date(timestamp(int(x))) FROM t`, "*ast.Call", `timestamp(int(x))`, 0},
	{`SELECT date(timestamp(int(x))) FROM t`, "*ast.Column", `x`, 0},
	{`SELECT 1Y + 2S + 3L + 1.5D + 2.0BD, X'1F', INTERVAL 1 DAY FROM t`, "*ast.Literal", `2.0BD`, 0},
	{`SELECT 1Y + 2S + 3L + 1.5D + 2.0BD, X'1F', INTERVAL 1 DAY FROM t`, "*ast.Binary", `1Y + 2S`, 0},
	{`SELECT 1Y + 2S + 3L + 1.5D + 2.0BD, X'1F', INTERVAL 1 DAY FROM t`, "*ast.TypedLiteral", `X'1F'`, 0},
	{`SELECT 1Y + 2S + 3L + 1.5D + 2.0BD, X'1F', INTERVAL 1 DAY FROM t`, "*ast.Interval", `INTERVAL 1 DAY`, 0},
	{`SELECT 1Y + 2S + 3L + 1.5D + 2.0BD, X'1F', INTERVAL 1 DAY FROM t`, "*ast.IntervalUnit", `1 DAY`, 0},
	{`SELECT id FROM VALUES (1, 'a') AS t(id, v)`, "*ast.Values", `VALUES (1, 'a') AS t(id, v)`, 0},
	{`SELECT id FROM VALUES (1, 'a') AS t(id, v)`, "*ast.TableAlias", `AS t(id, v)`, 0},
	{`SELECT id FROM VALUES (1, 'a') AS t(id, v)`, "*ast.Row", `(1, 'a')`, 0},
	{`SELECT window.start, count(*) FROM STREAM src WATERMARK ts DELAY OF INTERVAL 10 SECONDS GROUP BY window(ts, '5 seconds')`,
		"*ast.Column", `window.start`, 0},
	{`SELECT window.start, count(*) FROM STREAM src WATERMARK ts DELAY OF INTERVAL 10 SECONDS GROUP BY window(ts, '5 seconds')`,
		"*ast.Table", `STREAM src WATERMARK ts DELAY OF INTERVAL 10 SECONDS`, 0},
	{`SELECT window.start, count(*) FROM STREAM src WATERMARK ts DELAY OF INTERVAL 10 SECONDS GROUP BY window(ts, '5 seconds')`,
		"*ast.Watermark", `WATERMARK ts DELAY OF INTERVAL 10 SECONDS`, 0},
	{`SELECT window.start, count(*) FROM STREAM src WATERMARK ts DELAY OF INTERVAL 10 SECONDS GROUP BY window(ts, '5 seconds')`,
		"*ast.Call", `window(ts, '5 seconds')`, 0},
	{`SELECT window.start, count(*) FROM STREAM src WATERMARK ts DELAY OF INTERVAL 10 SECONDS GROUP BY window(ts, '5 seconds')`,
		"*ast.GroupBy", `GROUP BY window(ts, '5 seconds')`, 0},
	{`WITH 12m_payer AS (SELECT 1 AS a) SELECT * FROM 12m_payer`, "*ast.Table", `12m_payer`, 1},
	{`WITH 12m_payer AS (SELECT 1 AS a) SELECT * FROM 12m_payer`, "*ast.Ident", `12m_payer`, 0},
	{`WITH 12m_payer AS (SELECT 1 AS a) SELECT * FROM 12m_payer`, "*ast.CTE", `12m_payer AS (SELECT 1 AS a)`, 0},
	{`WITH 12m_payer AS (SELECT 1 AS a) SELECT * FROM 12m_payer`, "*ast.With", `WITH 12m_payer AS (SELECT 1 AS a)`, 0},
	{`SET CATALOG c;  USE DATABASE d;  USE NAMESPACE n;`, "*ast.Set", `SET CATALOG c`, 0},
	{`SET CATALOG c;  USE DATABASE d;  USE NAMESPACE n;`, "*ast.Use", `USE DATABASE d`, 0},
	{`SET CATALOG c;  USE DATABASE d;  USE NAMESPACE n;`, "*ast.Name", `n`, 0},

	// point 1: literals and identifiers
	{`SELECT r'C:\x', 'a' "b"`, "*ast.Literal", `r'C:\x'`, 0},
	{`SELECT r'C:\x', 'a' "b"`, "*ast.StringLit", `'a' "b"`, 0},
	{`SELECT DATE '2024-01-01', TIMESTAMP_NTZ '2024-01-01 00:00'`, "*ast.TypedLiteral", `TIMESTAMP_NTZ '2024-01-01 00:00'`, 0},
	{`SELECT INTERVAL '1-2' YEAR TO MONTH`, "*ast.Interval", `INTERVAL '1-2' YEAR TO MONTH`, 0},
	{"SELECT `a b`.c FROM `t`", "*ast.Ident", "`a b`", 0},
	{"SELECT `a b`.c FROM `t`", "*ast.Column", "`a b`.c", 0},
	{`SELECT café FROM 1t`, "*ast.Column", `café`, 0},

	// operators
	{`SELECT a || b, x::int, a DIV b, a <=> b`, "*ast.Binary", `a || b`, 0},
	{`SELECT a || b, x::int, a DIV b, a <=> b`, "*ast.Cast", `x::int`, 0},
	{`SELECT a || b, x::int, a DIV b, a <=> b`, "*ast.Binary", `a DIV b`, 0},
	{`SELECT a || b, x::int, a DIV b, a <=> b`, "*ast.Binary", `a <=> b`, 0},
	{`SELECT a RLIKE 'x', b ILIKE 'y', c LIKE ANY ('%a', '%b')`, "*ast.Like", `c LIKE ANY ('%a', '%b')`, 0},
	{`SELECT a IS NOT DISTINCT FROM b`, "*ast.Is", `a IS NOT DISTINCT FROM b`, 0},
	{`SELECT * FROM t WHERE x BETWEEN 1 AND 2`, "*ast.Between", `x BETWEEN 1 AND 2`, 0},
	{`SELECT * FROM t WHERE x IN (SELECT y FROM u)`, "*ast.In", `x IN (SELECT y FROM u)`, 0},
	{`SELECT * FROM t WHERE x IN (SELECT y FROM u)`, "*ast.Column", `x`, 0},
	{`SELECT * FROM t WHERE NOT EXISTS (SELECT 1)`, "*ast.Exists", `EXISTS (SELECT 1)`, 0},
	{`SELECT * FROM t WHERE NOT EXISTS (SELECT 1)`, "*ast.Unary", `NOT EXISTS (SELECT 1)`, 0},
	{`SELECT a FROM t WHERE b > 1`, "*ast.Column", `b`, 0},
	{`SELECT CASE WHEN a THEN 1 ELSE 2 END`, "*ast.Case", `CASE WHEN a THEN 1 ELSE 2 END`, 0},
	{`SELECT CASE WHEN a THEN 1 ELSE 2 END`, "*ast.When", `WHEN a THEN 1`, 0},
	{`SELECT TRY_CAST(a AS DECIMAL(10, 2))`, "*ast.DataType", `DECIMAL(10, 2)`, 0},
	{`SELECT s.f, m['k'], arr[0]`, "*ast.Subscript", `m['k']`, 0},
	{`SELECT f(x).g`, "*ast.Field", `f(x).g`, 0},
	{`SELECT transform(a, x -> x + 1), zip_with(a, b, (x, y) -> x)`, "*ast.Lambda", `x -> x + 1`, 0},
	{`SELECT transform(a, x -> x + 1), zip_with(a, b, (x, y) -> x)`, "*ast.Lambda", `(x, y) -> x`, 0},
	{`SELECT count(*) FILTER (WHERE a > 0) FROM t`, "*ast.Call", `count(*) FILTER (WHERE a > 0)`, 0},
	{`SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x)`, "*ast.SortItem", `x`, 0},
	{`SELECT first(a) IGNORE NULLS OVER w FROM t WINDOW w AS (PARTITION BY b)`, "*ast.Call", `first(a) IGNORE NULLS OVER w`, 0},
	{`SELECT first(a) IGNORE NULLS OVER w FROM t WINDOW w AS (PARTITION BY b)`, "*ast.NamedWindow", `w AS (PARTITION BY b)`, 0},
	{`SELECT sum(x) OVER (ORDER BY t ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)`, "*ast.Frame", `ROWS BETWEEN 1 PRECEDING AND CURRENT ROW`, 0},
	{`SELECT sum(x) OVER (ORDER BY t ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)`, "*ast.FrameBound", `1 PRECEDING`, 0},

	// SELECT
	{`SELECT /*+ BROADCAST(u) */ DISTINCT a FROM t`, "*ast.Hint", `/*+ BROADCAST(u) */`, 0},
	{`SELECT /*+ BROADCAST(u) */ DISTINCT a FROM t`, "*ast.HintItem", `BROADCAST(u)`, 0},
	{`SELECT t.* EXCEPT (a) FROM t`, "*ast.Star", `t.* EXCEPT (a)`, 0},
	{`SELECT a FROM t GROUP BY ALL`, "*ast.Column", `ALL`, 0},
	{`SELECT a FROM t GROUP BY ROLLUP(a, b) HAVING count(*) > 1`, "*ast.GroupItem", `ROLLUP(a, b)`, 0},
	{`SELECT a FROM t GROUP BY GROUPING SETS ((a), ())`, "*ast.GroupItem", `()`, 0},
	{`SELECT a FROM t ORDER BY a DESC NULLS FIRST LIMIT 1 OFFSET 2`, "*ast.SortItem", `a DESC NULLS FIRST`, 0},
	{`SELECT a FROM t ORDER BY a DESC NULLS FIRST LIMIT 1 OFFSET 2`, "*ast.Query", `SELECT a FROM t ORDER BY a DESC NULLS FIRST LIMIT 1 OFFSET 2`, 0},
	{`SELECT a FROM t ORDER BY a DESC NULLS FIRST LIMIT 1 OFFSET 2`, "*ast.Select", `SELECT a FROM t`, 0},
	{`SELECT 1 UNION ALL SELECT 2`, "*ast.SetOp", `SELECT 1 UNION ALL SELECT 2`, 0},

	// relations
	{`SELECT * FROM range(10) AS r, read_files(path => '/x')`, "*ast.TableFunc", `range(10) AS r`, 0},
	{`SELECT * FROM range(10) AS r, read_files(path => '/x')`, "*ast.NamedArg", `path => '/x'`, 0},
	{`SELECT * FROM a LEFT SEMI JOIN b ON a.k = b.k`, "*ast.Join", `a LEFT SEMI JOIN b ON a.k = b.k`, 0},
	{`SELECT * FROM a NATURAL JOIN b`, "*ast.Join", `a NATURAL JOIN b`, 0},
	{`SELECT * FROM a JOIN LATERAL (SELECT 1) s ON true`, "*ast.SubqueryRel", `(SELECT 1) s`, 0},
	{`SELECT * FROM t LATERAL VIEW OUTER explode(a) e AS x`, "*ast.LateralView", `LATERAL VIEW OUTER explode(a) e AS x`, 0},
	{`SELECT * FROM s PIVOT (sum(a) FOR q IN ('Q1', 'Q2')) p`, "*ast.Pivot", `s PIVOT (sum(a) FOR q IN ('Q1', 'Q2')) p`, 0},
	{`SELECT * FROM s UNPIVOT (v FOR n IN (a, b))`, "*ast.Unpivot", `s UNPIVOT (v FOR n IN (a, b))`, 0},
	{`SELECT * FROM t TABLESAMPLE (10 PERCENT) REPEATABLE (3)`, "*ast.Sample", `TABLESAMPLE (10 PERCENT) REPEATABLE (3)`, 0},
	{`SELECT * FROM STREAM(src) WITH ('a' = 1) AS s`, "*ast.Table", `STREAM(src) WITH ('a' = 1) AS s`, 0},
	{`SELECT * FROM STREAM(src) WITH ('a' = 1) AS s`, "*ast.Property", `'a' = 1`, 0},
	{`SELECT * FROM STREAM src`, "*ast.Table", `STREAM src`, 0},
	{`SELECT * FROM STREAM src`, "*ast.Name", `src`, 0},
	{`WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r`, "*ast.With", `WITH RECURSIVE r AS (SELECT 1)`, 0},
	{`FROM t |> WHERE a > 1 |> SELECT a`, "*ast.PipeOp", `WHERE a > 1`, 0},
	{`FROM t |> WHERE a > 1 |> SELECT a`, "*ast.Pipe", `FROM t |> WHERE a > 1 |> SELECT a`, 0},

	// statements
	{`CREATE STREAMING TABLE st (id INT NOT NULL COMMENT 'k') AS SELECT 1`, "*ast.ColumnDef", `id INT NOT NULL COMMENT 'k'`, 0},
	{`CREATE FLOW f AS INSERT INTO t BY NAME SELECT * FROM STREAM s`, "*ast.Insert", `INSERT INTO t BY NAME SELECT * FROM STREAM s`, 0},
	{`SELECT 1; SET spark.x = 1; SELECT 2`, "*ast.Set", `SET spark.x = 1`, 0},
}

// TestRanges checks the exact range of a node of each case.
func TestRanges(t *testing.T) {
	for _, c := range rangeCases {
		sc := parser.Parse(c.src, parser.Options{})
		for _, e := range sc.Errors {
			t.Errorf("%s\n  error: %s", c.src, e.Message)
		}
		want, ok := nthIndex(c.src, c.text, c.nth)
		if !ok {
			t.Fatalf("%s: no occurrence %d of %q", c.src, c.nth, c.text)
		}
		wantRange := ast.Range{Start: want, End: want + len(c.text)}
		found := false
		var same []string
		ast.Inspect(sc, func(n ast.Node) bool {
			if n == nil || found {
				return false
			}
			if fmt.Sprintf("%T", n) == c.typ {
				if n.Span() == wantRange {
					found = true
				} else {
					r := n.Span()
					same = append(same, fmt.Sprintf("%q", c.src[r.Start:r.End]))
				}
			}
			return true
		})
		if !found {
			t.Errorf("%s\n  no %s covers %q at %d; the %s nodes cover %s", c.src, c.typ, c.text, want, c.typ, strings.Join(same, ", "))
		}
	}
}

func nthIndex(s, sub string, n int) (int, bool) {
	off := 0
	for {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			return 0, false
		}
		if n == 0 {
			return off + i, true
		}
		n--
		off += i + 1
	}
}

// TestStreamTable checks the fields of STREAM x and STREAM(x).
func TestStreamTable(t *testing.T) {
	for _, c := range []struct {
		src   string
		paren bool
	}{
		{"SELECT * FROM STREAM src", false},
		{"SELECT * FROM STREAM(src)", true},
	} {
		tb := findFirst[*ast.Table](t, c.src)
		if !tb.Stream || tb.StreamParen != c.paren || c.src[tb.StreamRange.Start:tb.StreamRange.End] != "STREAM" ||
			tb.Name.String() != "src" {
			t.Errorf("%s: %+v", c.src, tb)
		}
	}
	// a table named stream is no stream read
	tb := findFirst[*ast.Table](t, "SELECT * FROM stream")
	if tb.Stream || tb.Name.String() != "stream" {
		t.Errorf("FROM stream: %+v", tb)
	}
}

// TestLiteralKinds checks the kinds of the typed numeric literals.
func TestLiteralKinds(t *testing.T) {
	src := "SELECT 1Y, 2S, 3, 3L, 1.5, 1e3, 1.5F, 1.5D, 2.0BD, NULL, TRUE, FALSE, 'x'"
	want := []ast.LitKind{ast.LitTinyInt, ast.LitSmallInt, ast.LitInteger, ast.LitBigInt, ast.LitDecimal,
		ast.LitExponent, ast.LitFloat, ast.LitDouble, ast.LitBigDecimal, ast.LitNull, ast.LitTrue, ast.LitFalse, ast.LitString}
	var got []ast.LitKind
	ast.Inspect(parse(t, src), func(n ast.Node) bool {
		if l, ok := n.(*ast.Literal); ok {
			got = append(got, l.Kind)
		}
		return true
	})
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
}

// shape renders an expression or query body as a parenthesised tree, to
// check which operator binds where.
func shape(n ast.Node) string {
	switch n := n.(type) {
	case *ast.Binary:
		return "(" + n.Op + " " + shape(n.L) + " " + shape(n.R) + ")"
	case *ast.Unary:
		return "(" + n.Op + " " + shape(n.X) + ")"
	case *ast.Column:
		var parts []string
		for _, p := range n.Parts {
			parts = append(parts, p.Name)
		}
		return strings.Join(parts, ".")
	case *ast.Literal:
		return n.Text
	case *ast.Between:
		return "(BETWEEN " + shape(n.X) + " " + shape(n.Lo) + " " + shape(n.Hi) + ")"
	case *ast.Is:
		s := "(IS " + shape(n.X) + " " + n.What
		if n.Other != nil {
			s += " " + shape(n.Other)
		}
		return s + ")"
	case *ast.In:
		return "(IN " + shape(n.X) + ")"
	case *ast.Like:
		return "(" + n.Op + " " + shape(n.X) + ")"
	case *ast.Exists:
		return "(EXISTS)"
	case *ast.Paren:
		return "[" + shape(n.X) + "]"
	case *ast.Cast:
		return "(" + n.Form + " " + shape(n.X) + " " + n.Type.Name + ")"
	case *ast.Subscript:
		return "(SUB " + shape(n.X) + " " + shape(n.Index) + ")"
	case *ast.Call:
		var args []string
		for _, a := range n.Args {
			args = append(args, shape(a))
		}
		return n.Name.String() + "(" + strings.Join(args, " ") + ")"
	case *ast.Lambda:
		return "(-> " + shape(n.Body) + ")"
	case *ast.Collate:
		return "(COLLATE " + shape(n.X) + ")"
	case *ast.Select:
		if len(n.Items) == 1 {
			return shape(n.Items[0].X)
		}
		return "select"
	case *ast.TableQuery:
		return n.Name.String()
	case *ast.SetOp:
		return "(" + n.Op + " " + shape(n.L) + " " + shape(n.R) + ")"
	case *ast.ParenQuery:
		return "[" + shape(n.Query.Body) + "]"
	case *ast.Pipe:
		s := "(|> " + shape(n.Input)
		for _, op := range n.Ops {
			s += " " + op.Kind
		}
		return s + ")"
	}
	return fmt.Sprintf("%T", n)
}

// TestPrecedence checks the tree shape of operators against Spark's
// precedence (SqlBaseParser.g4: booleanExpression, predicate,
// valueExpression, primaryExpression).
func TestPrecedence(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"a OR b AND c", "(OR a (AND b c))"},
		{"a AND b OR c", "(OR (AND a b) c)"},
		{"a AND NOT b OR c", "(OR (AND a (NOT b)) c)"},
		{"NOT a = b", "(NOT (= a b))"},
		{"NOT NOT a", "(NOT (NOT a))"},
		{"! a AND b", "(AND (! a) b)"},
		{"-a * b", "(* (- a) b)"},
		{"-a[0]", "(- (SUB a 0))"},
		{"- -a", "(- (- a))"},
		{"1 - -1", "(- 1 (- 1))"},
		{"a || b + c", "(+ (|| a b) c)"},
		{"a + b || c", "(|| (+ a b) c)"},
		{"a + b * c - d", "(- (+ a (* b c)) d)"},
		{"a DIV b % c", "(% (DIV a b) c)"},
		{"a << 1 + 2", "(<< a (+ 1 2))"},
		{"a & b | c ^ d", "(| (& a b) (^ c d))"},
		{"a | b = c", "(= (| a b) c)"},
		{"a = b = c", "(= (= a b) c)"},
		{"x BETWEEN 1 AND 2 AND y", "(AND (BETWEEN x 1 2) y)"},
		{"x BETWEEN a + 1 AND b * 2", "(BETWEEN x (+ a 1) (* b 2))"},
		{"a = b IS NULL", "(IS (= a b) NULL)"},
		{"a + 1 IS NOT DISTINCT FROM b", "(IS (+ a 1) DISTINCT FROM b)"},
		{"a IN (1) AND b LIKE 'x'", "(AND (IN a) (LIKE b))"},
		{"NOT a LIKE 'x'", "(NOT (LIKE a))"},
		{"a || b LIKE c", "(LIKE (|| a b))"},
		{"a::int + 1", "(+ (:: a INT) 1)"},
		{"-a::int", "(- (:: a INT))"},
		{"a COLLATE x = b", "(= (COLLATE a) b)"},
		{"(a + b) * c", "(* [(+ a b)] c)"},
		{"EXISTS (SELECT 1) AND a", "(AND (EXISTS) a)"},
		{"f(x -> x + 1, y)", "f((-> (+ x 1)) y)"},
		{"a > 0 OR b < 0 AND NOT c IS NULL", "(OR (> a 0) (AND (< b 0) (NOT (IS c NULL))))"},
	} {
		x, errs := parser.ParseExpression(c.expr, parser.Options{})
		if len(errs) > 0 {
			t.Errorf("%s: %s", c.expr, errs[0].Message)
			continue
		}
		if got := shape(x); got != c.want {
			t.Errorf("%s: %s, want %s", c.expr, got, c.want)
		}
	}
}

// TestSetOperationPrecedence checks INTERSECT over UNION, EXCEPT and
// MINUS, left association, and the pipe binding loosest.
func TestSetOperationPrecedence(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"SELECT 1 UNION SELECT 2 INTERSECT SELECT 3", "(UNION 1 (INTERSECT 2 3))"},
		{"SELECT 1 INTERSECT SELECT 2 UNION SELECT 3", "(UNION (INTERSECT 1 2) 3)"},
		{"SELECT 1 EXCEPT SELECT 2 UNION SELECT 3", "(UNION (EXCEPT 1 2) 3)"},
		{"SELECT 1 UNION SELECT 2 EXCEPT SELECT 3", "(EXCEPT (UNION 1 2) 3)"},
		{"SELECT 1 MINUS SELECT 2 INTERSECT SELECT 3 INTERSECT SELECT 4", "(MINUS 1 (INTERSECT (INTERSECT 2 3) 4))"},
		{"(SELECT 1 UNION SELECT 2) INTERSECT SELECT 3", "(INTERSECT [(UNION 1 2)] 3)"},
		{"TABLE a UNION TABLE b |> WHERE x", "(|> (UNION a b) WHERE)"},
		{"TABLE a |> WHERE x |> SELECT y", "(|> a WHERE SELECT)"},
		{"TABLE a UNION TABLE b |> WHERE x UNION TABLE c", "(UNION (|> (UNION a b) WHERE) c)"},
		{"TABLE a INTERSECT TABLE b |> WHERE x INTERSECT TABLE c", "(INTERSECT (|> (INTERSECT a b) WHERE) c)"},
	} {
		sc := parse(t, c.src)
		q := sc.Stmts[0].(*ast.QueryStmt).Query
		if got := shape(q.Body); got != c.want {
			t.Errorf("%s: %s, want %s", c.src, got, c.want)
		}
	}
}

// errorCase says that src has one syntax error per broken statement, the
// first at the nth occurrence of at (or at the end of the text for at
// ""), with a message that contains msg and the given class.
type errorCase struct {
	src, at string
	nth     int
	msg     string
	class   string
}

var errorCases = []errorCase{
	{"SELECT (a + b FROM t", "FROM", 0, "expected ')'", "PARSE_SYNTAX_ERROR"},
	{"SELECT (1", "", 0, "syntax error at end of input: expected ')'", "PARSE_SYNTAX_ERROR"},
	{"SELECT a FROM t WHERE x IN (1, 2", "", 0, "expected ')'", "PARSE_SYNTAX_ERROR"},
	{"SELECT 1 +", "", 0, "expected an expression", "PARSE_SYNTAX_ERROR"},
	{"SELECT a FROM t1 JOIN t2 ON", "", 0, "expected an expression", "PARSE_SYNTAX_ERROR"},
	{"SELECT 1 SELECT 2", "SELECT", 1, "is a ';' missing before it?", "PARSE_SYNTAX_ERROR"},
	{"SELECT a FROM t\nINSERT INTO u SELECT 1", "INSERT", 0, "is a ';' missing before it?", "PARSE_SYNTAX_ERROR"},
	{"SELECT 'abc", "'abc", 0, "unterminated string literal", "PARSE_SYNTAX_ERROR"},
	{`SELECT "abc`, `"abc`, 0, "unterminated string literal", "PARSE_SYNTAX_ERROR"},
	{"SELECT `abc", "`abc", 0, "unterminated quoted identifier", "PARSE_SYNTAX_ERROR"},
	{"SELECT a FROM t WHERE b = 'x", "'x", 0, "unterminated string literal", "PARSE_SYNTAX_ERROR"},
	{"SELECT 1 /* open", "/*", 0, "unterminated comment", "UNCLOSED_BRACKETED_COMMENT"},
	{"SELEC 1", "SELEC", 0, "did you mean SELECT?", "PARSE_SYNTAX_ERROR"},
	{"CREATE MATERIALIZED VIEW mv AS SELEC 1", "SELEC", 0, "did you mean SELECT?", "PARSE_SYNTAX_ERROR"},
	{"SELECT a FROM t WHERE a = = 1", "=", 1, "expected an expression", "PARSE_SYNTAX_ERROR"},
	{"SELECT CAST(a AS INTEGR) FROM t", "INTEGR", 0, "unsupported data type INTEGR", "UNSUPPORTED_DATATYPE"},
	{"SELECT * FROM my-table", "my-table", 0, "must be quoted with backquotes", "INVALID_IDENTIFIER"},
	{"SELECT a FROM t UNION BY NAME SELECT b FROM u", "BY", 0, "UNION BY NAME is not Spark SQL", "PARSE_SYNTAX_ERROR"},
	{"SELECT a FROM t LIMIT 1 2", "2", 0, "syntax error at or near '2'", "PARSE_SYNTAX_ERROR"},
	{"CREATE STREAMING TABLE st AS SELECT * FROM STREAM src WATERMARK ts DELAY OF 10", "10", 0, "expected INTERVAL", "PARSE_SYNTAX_ERROR"},
	{"SELECT * FROM t WINDOW w AS (w2 PARTITION BY a)", "w2", 0, "expected ')'", "PARSE_SYNTAX_ERROR"},
	{"CREATE FLOW f AS SELECT 1", "SELECT", 0, "INSERT INTO", "PARSE_SYNTAX_ERROR"},
	// the fix hints, also where the statement could have ended before
	// the error
	{"SELECT * FROM t WHERE a AND AND b", "b", 0, "AND is written twice", "PARSE_SYNTAX_ERROR"},
	{"SELECT * FROM t GROUP BY a HAVIN x > 1", "HAVIN", 0, "did you mean HAVING?", "PARSE_SYNTAX_ERROR"},
	{"SELECT a FROM t ORDER a", "a", 1, "ORDER needs BY: write ORDER BY a", "PARSE_SYNTAX_ERROR"},
	{"SELECT 1 FROM t QUALIFY x = 1", "x", 0, "QUALIFY is not Spark SQL", "PARSE_SYNTAX_ERROR"},
	{"SELECT * EXCLUDE (a) FROM t", "(", 0, "Spark SQL writes * EXCEPT (...)", "PARSE_SYNTAX_ERROR"},
}

// TestSyntaxErrors checks that each broken statement has one error, at
// the exact token, in Spark's terms.
func TestSyntaxErrors(t *testing.T) {
	for _, c := range errorCases {
		sc := parser.Parse(c.src, parser.Options{})
		if len(sc.Errors) != 1 {
			t.Errorf("%s: %d errors, want 1: %v", c.src, len(sc.Errors), sc.Errors)
			continue
		}
		e := sc.Errors[0]
		want := len(c.src)
		if c.at != "" {
			var ok bool
			if want, ok = nthIndex(c.src, c.at, c.nth); !ok {
				t.Fatalf("%s: no occurrence %d of %q", c.src, c.nth, c.at)
			}
		}
		if e.Start != want || e.End != want+len(c.at) {
			t.Errorf("%s: error at %d:%d (%q), want at %d (%q)", c.src, e.Start, e.End, c.src[e.Start:e.End], want, c.at)
		}
		if !strings.Contains(e.Message, c.msg) {
			t.Errorf("%s: message %q does not say %q", c.src, e.Message, c.msg)
		}
		if e.Class != c.class {
			t.Errorf("%s: class %s, want %s", c.src, e.Class, c.class)
		}
		for _, word := range []string{"PostgreSQL", "DuckDB syntax error", "pg_query"} {
			if strings.Contains(e.Message, word) {
				t.Errorf("%s: message %q speaks of %s", c.src, e.Message, word)
			}
		}
		if msg := checkRanges(c.src, sc); msg != "" {
			t.Errorf("%s: %s", c.src, msg)
		}
	}
}

// TestRecovery checks that a broken statement between good ones leaves
// the good ones, with their ranges, and has one error of its own.
func TestRecovery(t *testing.T) {
	for _, c := range []struct {
		src   string
		stmts []string // each statement's text, "!" before a broken one
	}{
		{"SELECT 1; SELECT (; SELECT 3", []string{"SELECT 1", "!SELECT (", "SELECT 3"}},
		{"SELECT (1; SELECT 2", []string{"!SELECT (1", "SELECT 2"}},
		{"SELECT a FROM t;\nSELECT * FROM WHERE x = 1;\nCREATE MATERIALIZED VIEW mv AS SELECT b FROM u",
			[]string{"SELECT a FROM t", "!SELECT * FROM WHERE x = 1", "CREATE MATERIALIZED VIEW mv AS SELECT b FROM u"}},
		{"CREATE MATERIALIZED VIEW a AS SELECT 1 +; CREATE STREAMING TABLE b AS SELECT * FROM STREAM src; SELECT 1 2 3",
			[]string{"!CREATE MATERIALIZED VIEW a AS SELECT 1 +", "CREATE STREAMING TABLE b AS SELECT * FROM STREAM src", "!SELECT 1 2 3"}},
		{"SELECT f(a, (b; SELECT 2; SELECT g(", []string{"!SELECT f(a, (b", "SELECT 2", "!SELECT g("}},
		{";;SELECT 1;;; ;SELECT 'x", []string{"SELECT 1", "!SELECT 'x"}},
	} {
		sc := parser.Parse(c.src, parser.Options{})
		var got, want []string
		for _, st := range sc.Stmts {
			r := st.Span()
			s := c.src[r.Start:r.End]
			if _, bad := st.(*ast.BadStmt); bad {
				s = "!" + s
			}
			got = append(got, s)
		}
		bad := 0
		for _, s := range c.stmts {
			want = append(want, s)
			if strings.HasPrefix(s, "!") {
				bad++
			}
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Errorf("%s\n  statements %q\n  want       %q", c.src, got, want)
		}
		if len(sc.Errors) != bad {
			t.Errorf("%s: %d errors, want %d: %v", c.src, len(sc.Errors), bad, sc.Errors)
		}
		if msg := checkRanges(c.src, sc); msg != "" {
			t.Errorf("%s: %s", c.src, msg)
		}
	}
}

// TestPartialStatement checks that a CREATE whose query broke keeps its
// name (and range) in the BadStmt's Partial.
func TestPartialStatement(t *testing.T) {
	src := "SELECT 1; CREATE MATERIALIZED VIEW db.mv COMMENT 'c' AS SELECT 1 +"
	sc := parser.Parse(src, parser.Options{})
	if len(sc.Stmts) != 2 || len(sc.Errors) != 1 {
		t.Fatalf("%d statements, %d errors", len(sc.Stmts), len(sc.Errors))
	}
	bad, ok := sc.Stmts[1].(*ast.BadStmt)
	if !ok {
		t.Fatalf("statement 2 is %T", sc.Stmts[1])
	}
	c, ok := bad.Partial.(*ast.Create)
	if !ok || c.Name.String() != "db.mv" || c.Kind != ast.CreateMaterializedView || c.Comment == nil {
		t.Fatalf("partial %#v", bad.Partial)
	}
	if c.Range != bad.Range || src[c.Name.Start:c.Name.End] != "db.mv" {
		t.Errorf("partial range %v (bad %v), name at %v", c.Range, bad.Range, c.Name.Range)
	}
}

// TestParseStatementAndExpression checks the single-statement and
// single-expression entry points.
func TestParseStatementAndExpression(t *testing.T) {
	st, errs := parser.ParseStatement("SELECT 1;;", parser.Options{})
	if len(errs) != 0 || st.Span() != (ast.Range{Start: 0, End: 8}) {
		t.Errorf("ParseStatement: %v %v", st.Span(), errs)
	}
	if _, errs := parser.ParseStatement("SELECT 1; SELECT 2", parser.Options{}); len(errs) != 1 || errs[0].Start != 10 {
		t.Errorf("two statements: %v", errs)
	}
	if _, errs := parser.ParseStatement(" ; ", parser.Options{}); len(errs) != 1 || errs[0].Class != "PARSE_EMPTY_STATEMENT" {
		t.Errorf("empty statement: %v", errs)
	}
	if x, errs := parser.ParseExpression("a + 1", parser.Options{}); len(errs) != 0 || shape(x) != "(+ a 1)" {
		t.Errorf("ParseExpression: %v %v", x, errs)
	}
	if _, errs := parser.ParseExpression("a +", parser.Options{}); len(errs) != 1 || errs[0].Start != 3 {
		t.Errorf("ParseExpression error: %v", errs)
	}
	if dt, errs := parser.ParseDataType("MAP<STRING, ARRAY<STRUCT<a: INT>>>", parser.Options{}); len(errs) != 0 ||
		dt.Name != "MAP" || dt.Value.Elem.Fields[0].Name.Name != "a" || dt.Range != (ast.Range{Start: 0, End: 34}) {
		t.Errorf("ParseDataType: %+v %v", dt, errs)
	}
}

// parse parses src and fails the test on a syntax error.
func parse(t *testing.T, src string) *ast.Script {
	t.Helper()
	sc := parser.Parse(src, parser.Options{})
	for _, e := range sc.Errors {
		t.Fatalf("%s: %s", src, e.Message)
	}
	return sc
}

// findFirst returns the first node of type T in the tree of src.
func findFirst[T ast.Node](t *testing.T, src string) T {
	t.Helper()
	var found T
	ok := false
	ast.Inspect(parse(t, src), func(n ast.Node) bool {
		if x, is := n.(T); is && !ok {
			found, ok = x, true
		}
		return !ok
	})
	if !ok {
		t.Fatalf("%s: no %T", src, found)
	}
	return found
}
