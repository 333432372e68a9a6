package sema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

// fakeCat is a catalog of tables by lower-cased dotted name; a nil column
// list is a table whose columns are unknown.
type fakeCat map[string][]Column

func (f fakeCat) Table(name []string) ([]Column, bool) {
	cols, ok := f[strings.ToLower(strings.Join(name, "."))]
	return cols, ok
}

func cols(names ...string) []Column {
	out := make([]Column, len(names))
	for i, n := range names {
		typ := ""
		if k := strings.IndexByte(n, ' '); k > 0 {
			n, typ = n[:k], n[k+1:]
		}
		out[i] = Column{Name: n, Type: typ}
	}
	return out
}

// testCat is the catalog of most tests.
var testCat = fakeCat{
	"orders":    cols("id bigint", "customer_id bigint", "amount double", "ts timestamp", "status string"),
	"customers": cols("id bigint", "name string", "country string"),
	"t":         cols("a int", "b int", "c string", "s struct<x:int,y:struct<z:string>>", "arr array<int>", "m map<string,int>", "structs array<struct<k:int>>"),
	"u":         cols("a int", "d int"),
	"db.v":      cols("p int", "q int"),
	"events":    cols("ts timestamp", "user_id bigint", "kind string"),
	"unknown":   nil,
	"sales":     cols("year int", "quarter string", "region string", "amount double"),
}

type run struct {
	t   *testing.T
	sql string
	m   *Model
}

func analyze(t *testing.T, sql string) *run {
	t.Helper()
	return analyzeWith(t, sql, testCat, Options{})
}

func analyzeWith(t *testing.T, sql string, cat Catalog, opts Options) *run {
	t.Helper()
	st, errs := parser.ParseStatement(sql, parser.Options{})
	if len(errs) > 0 {
		t.Fatalf("parse %q: %v", sql, errs[0])
	}
	opts.Source = sql
	return &run{t: t, sql: sql, m: AnalyzeStmt(st, cat, opts)}
}

// diags returns the diagnostics as CODE `text` strings.
func (r *run) diags() []string {
	var out []string
	for _, d := range r.m.Diagnostics {
		out = append(out, d.Code+" "+r.sql[d.Start:d.End])
	}
	return out
}

// noDiags fails when there is any diagnostic.
func (r *run) noDiags() {
	r.t.Helper()
	for _, d := range r.m.Diagnostics {
		r.t.Errorf("%s: unexpected %s at %q: %s", r.sql, d.Code, r.sql[d.Start:d.End], d.Message)
	}
}

// wantDiags checks the diagnostics exactly, as CODE text.
func (r *run) wantDiags(want ...string) {
	r.t.Helper()
	got := r.diags()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		r.t.Errorf("%s:\n got %q\nwant %q", r.sql, got, want)
		for _, d := range r.m.Diagnostics {
			r.t.Logf("  %s", d.Message)
		}
	}
}

// ref returns the n-th (from 0) column reference whose text is text.
func (r *run) ref(text string, n int) *ColumnRef {
	r.t.Helper()
	i := 0
	for _, c := range r.m.Columns {
		if r.sql[c.Node.Start:c.Node.End] == text {
			if i == n {
				return c
			}
			i++
		}
	}
	r.t.Fatalf("%s: no column reference %q #%d", r.sql, text, n)
	return nil
}

// src describes what a reference resolved to: column rel.name (outer N),
// lambda x, alias x, or the kind.
func (r *run) src(text string, n int) string {
	c := r.ref(text, n)
	switch c.Kind {
	case RefColumn:
		s := c.Source.String()
		if c.Outer > 0 {
			s += fmt.Sprintf(" outer %d", c.Outer)
		}
		if f := c.Fields(); len(f) > 0 {
			var names []string
			for _, id := range f {
				names = append(names, id.Name)
			}
			s += " fields " + strings.Join(names, ".")
		}
		if c.Tentative {
			s += " tentative"
		}
		return s
	case RefLambda:
		return "lambda " + c.Param.Name
	case RefAlias:
		name := ""
		if c.Alias.Alias != nil {
			name = c.Alias.Alias.Name
		}
		return "alias " + name
	case RefAmbiguous:
		var cs []string
		for _, s := range c.Candidates {
			cs = append(cs, s.String())
		}
		return "ambiguous " + strings.Join(cs, ", ")
	}
	return c.Kind.String()
}

func (r *run) wantSrc(text string, n int, want string) {
	r.t.Helper()
	if got := r.src(text, n); got != want {
		r.t.Errorf("%s: %q #%d resolved to %q, want %q", r.sql, text, n, got, want)
	}
}

// out returns the output of the statement's top query (the widest).
func (r *run) out() *Output {
	r.t.Helper()
	var best *Output
	for n, o := range r.m.outputs {
		if _, ok := n.(*ast.Query); !ok {
			continue
		}
		if best == nil || n.Span().End-n.Span().Start > best.Node.Span().End-best.Node.Span().Start {
			best = o
		}
	}
	if best == nil {
		r.t.Fatalf("%s: no query output", r.sql)
	}
	return best
}

func outString(o *Output) string {
	var names []string
	for _, c := range o.Columns {
		n := c.Name
		if c.Generated {
			n += "?"
		}
		if c.Source != nil {
			n += "<" + c.Source.String()
		}
		names = append(names, n)
	}
	s := strings.Join(names, ", ")
	if !o.Complete {
		s += ", ..."
	}
	return s
}

func (r *run) wantOut(want string) {
	r.t.Helper()
	if got := outString(r.out()); got != want {
		r.t.Errorf("%s: output %q, want %q", r.sql, got, want)
	}
}

func TestResolveBasics(t *testing.T) {
	r := analyze(t, "SELECT o.id, amount, c.name FROM orders o JOIN customers c ON o.customer_id = c.id")
	r.noDiags()
	r.wantSrc("o.id", 0, "o.id")
	r.wantSrc("amount", 0, "o.amount")
	r.wantSrc("c.name", 0, "c.name")
	r.wantSrc("o.customer_id", 0, "o.customer_id")
	r.wantOut("id<o.id, amount<o.amount, name<c.name")

	// a table without alias is qualified by its name, and by a longer
	// name ending with it
	r = analyze(t, "SELECT orders.id, default.orders.amount FROM orders")
	r.noDiags()
	r.wantSrc("orders.id", 0, "orders.id")
	r.wantSrc("default.orders.amount", 0, "orders.amount tentative")

	r = analyze(t, "SELECT v.p, db.v.q FROM db.v")
	r.noDiags()
	r.wantSrc("v.p", 0, "db.v.p")
	r.wantSrc("db.v.q", 0, "db.v.q")

	// Spark matches names case-insensitively
	r = analyze(t, "SELECT ID, O.Amount FROM Orders o")
	r.noDiags()
	r.wantSrc("ID", 0, "o.id")
	r.wantSrc("O.Amount", 0, "o.amount")
}

func TestCaseSensitive(t *testing.T) {
	r := analyzeWith(t, "SELECT ID FROM orders", testCat, Options{CaseSensitive: true})
	r.wantDiags("UNRESOLVED_COLUMN ID")
	if s := r.m.Diagnostics[0].Suggestions; len(s) != 1 || s[0] != "id" {
		t.Errorf("suggestions %q", s)
	}
}

func TestUnknownColumn(t *testing.T) {
	r := analyze(t, "SELECT amont FROM orders")
	r.wantDiags("UNRESOLVED_COLUMN amont")
	d := r.m.Diagnostics[0]
	if d.Start != 7 || d.End != 12 || len(d.Suggestions) != 1 || d.Suggestions[0] != "amount" {
		t.Errorf("%+v", d)
	}
	if !strings.Contains(d.Message, "did you mean `amount`?") {
		t.Errorf("message %q", d.Message)
	}
	r.wantSrc("amont", 0, "unresolved")

	// qualified: the relation lacks the column
	r = analyze(t, "SELECT o.amont FROM orders o JOIN customers c ON o.customer_id = c.id")
	r.wantDiags("UNRESOLVED_COLUMN o.amont")
	if d := r.m.Diagnostics[0]; d.Suggestions[0] != "o.amount" || !strings.Contains(d.Message, "`o` has no column `amont`") {
		t.Errorf("%+v", d)
	}

	// the same name in two relations: the suggestion is qualified
	r = analyze(t, "SELECT idd FROM orders o JOIN customers c ON o.customer_id = c.id")
	r.wantDiags("UNRESOLVED_COLUMN idd")
	if d := r.m.Diagnostics[0]; strings.Join(d.Suggestions, ",") != "o.id,c.id" {
		t.Errorf("%+v", d)
	}

	// an unknown qualifier
	r = analyze(t, "SELECT ordrs.amount FROM orders")
	r.wantDiags("UNRESOLVED_COLUMN ordrs.amount")
	if d := r.m.Diagnostics[0]; len(d.Suggestions) == 0 || d.Suggestions[0] != "orders.amount" {
		t.Errorf("%+v", d)
	}

	// nothing near: the columns in scope are listed
	r = analyze(t, "SELECT zzzzzz FROM u")
	r.wantDiags("UNRESOLVED_COLUMN zzzzzz")
	if d := r.m.Diagnostics[0]; !strings.Contains(d.Message, "`a`, `d`") {
		t.Errorf("%+v", d)
	}

	// every clause
	r = analyze(t, "SELECT a FROM u WHERE x > 1 GROUP BY a, y HAVING count(z) > 0 ORDER BY w")
	r.wantDiags("UNRESOLVED_COLUMN x", "UNRESOLVED_COLUMN y", "UNRESOLVED_COLUMN z", "UNRESOLVED_COLUMN w")

	// no FROM
	analyze(t, "SELECT x").wantDiags("UNRESOLVED_COLUMN x")

	// a select alias is not visible in WHERE
	r = analyze(t, "SELECT amount * 2 AS double_amount FROM orders WHERE double_amount > 10")
	r.wantDiags("UNRESOLVED_COLUMN double_amount")
	if d := r.m.Diagnostics[0]; !strings.Contains(d.Message, "alias of the select list") {
		t.Errorf("%+v", d)
	}
}

func TestAmbiguous(t *testing.T) {
	r := analyze(t, "SELECT id FROM orders o JOIN customers c ON o.customer_id = c.id")
	r.wantDiags("AMBIGUOUS_REFERENCE id")
	d := r.m.Diagnostics[0]
	if strings.Join(d.Suggestions, ",") != "o.id,c.id" || !strings.Contains(d.Message, "`o.id` or `c.id`") {
		t.Errorf("%+v", d)
	}
	r.wantSrc("id", 0, "ambiguous o.id, c.id")

	// a self-join's qualifier
	analyze(t, "SELECT t.a FROM t JOIN t ON true").wantDiags("AMBIGUOUS_REFERENCE t.a")
	analyze(t, "SELECT x.a FROM t x JOIN t y ON x.a = y.a").noDiags()

	// a subquery with two columns of one name
	r = analyze(t, "SELECT s.a FROM (SELECT t.a, u.a FROM t JOIN u ON t.a = u.a) s")
	r.wantDiags("AMBIGUOUS_REFERENCE s.a")
}

func TestUsingAndNatural(t *testing.T) {
	r := analyze(t, "SELECT a, t.a, u.a, b, d FROM t JOIN u USING (a)")
	r.noDiags()
	r.wantSrc("a", 0, "t.a")
	r.wantSrc("u.a", 0, "u.a")
	r.wantSrc("d", 0, "u.d")

	r = analyze(t, "SELECT * FROM t JOIN u USING (a)")
	r.wantOut("a<t.a, b<t.b, c<t.c, s<t.s, arr<t.arr, m<t.m, structs<t.structs, d<u.d")

	r = analyze(t, "SELECT a FROM t RIGHT JOIN u USING (a)")
	r.noDiags()
	r.wantSrc("a", 0, "u.a")

	r = analyze(t, "SELECT a, d FROM t NATURAL JOIN u")
	r.noDiags()
	r.wantSrc("a", 0, "t.a")
	analyze(t, "SELECT * FROM u NATURAL JOIN u AS v").wantOut("a<u.a, d<u.d")

	// without USING the shared name is ambiguous
	analyze(t, "SELECT a FROM t JOIN u ON t.b = u.d").wantDiags("AMBIGUOUS_REFERENCE a")

	// semi and anti joins keep the left side only
	r = analyze(t, "SELECT d FROM t LEFT SEMI JOIN u ON t.a = u.a")
	r.wantDiags("UNRESOLVED_COLUMN d")
	r = analyze(t, "SELECT * FROM t LEFT ANTI JOIN u ON t.a = u.a")
	r.noDiags()
	if n := len(r.out().Columns); n != 7 {
		t.Errorf("%d columns", n)
	}
}

func TestJoinOnScope(t *testing.T) {
	// an ON sees its own join's sides only, not earlier comma items
	r := analyze(t, "SELECT 1 FROM customers c, orders o JOIN u ON c.id = u.a")
	r.wantDiags("UNRESOLVED_COLUMN c.id")
	analyze(t, "SELECT 1 FROM customers c JOIN orders o ON c.id = o.customer_id JOIN u ON c.id = u.a").noDiags()
}

func TestSubqueriesAndAliases(t *testing.T) {
	r := analyze(t, "SELECT s.x, y FROM (SELECT a AS x, b AS y FROM t) s")
	r.noDiags()
	r.wantSrc("s.x", 0, "s.x")
	r.wantOut("x<s.x, y<s.y")

	// column aliases rename
	r = analyze(t, "SELECT p, q FROM (SELECT a, b FROM t) AS s(p, q)")
	r.noDiags()
	r.wantSrc("p", 0, "s.p")
	analyze(t, "SELECT a FROM (SELECT a, b FROM t) AS s(p, q)").wantDiags("UNRESOLVED_COLUMN a")

	// a table alias with columns
	r = analyze(t, "SELECT k FROM u AS x(k, l)")
	r.noDiags()
	r.wantSrc("k", 0, "x.k")

	// a subquery without an alias has no qualifier
	analyze(t, "SELECT t.a FROM (SELECT a FROM t)").wantDiags("UNRESOLVED_COLUMN t.a")
	analyze(t, "SELECT a FROM (SELECT a FROM t)").noDiags()

	// a parenthesised join with an alias requalifies
	r = analyze(t, "SELECT j.d, j.b FROM (t JOIN u USING (a)) AS j")
	r.noDiags()
	analyze(t, "SELECT t.b FROM (t JOIN u USING (a)) AS j").wantDiags("UNRESOLVED_COLUMN t.b")
	analyze(t, "SELECT t.b, u.d FROM (t JOIN u USING (a))").noDiags()
}

func TestGeneratedNames(t *testing.T) {
	// Spark's name for a + 1 is (a + 1): no plain name reaches it
	r := analyze(t, "SELECT q.anything FROM (SELECT a + 1, b FROM t) q")
	r.wantDiags("UNRESOLVED_COLUMN q.anything")
	analyze(t, "SELECT a + 1 FROM t ORDER BY zz").wantDiags("UNRESOLVED_COLUMN zz")
	// a cast of a column keeps the column's name, a string literal is
	// named by its value
	r = analyze(t, "SELECT q.a, q.b, q.lit FROM (SELECT CAST(a AS STRING), b::int, 'lit' FROM t) q")
	r.noDiags()
	r = analyze(t, "SELECT CAST(a AS STRING), int(b), upper(c) FROM t")
	r.wantOut("a, int(b)?, upper(c)?")
}

func TestValues(t *testing.T) {
	r := analyze(t, "SELECT col1, col2 FROM VALUES (1, 'a'), (2, 'b')")
	r.noDiags()
	r.wantOut("col1<col1, col2<col2")
	r = analyze(t, "SELECT id, v FROM VALUES (1, 'a') AS t(id, v)")
	r.noDiags()
	r.wantSrc("id", 0, "t.id")
	analyze(t, "SELECT col3 FROM VALUES (1, 2)").wantDiags("UNRESOLVED_COLUMN col3")
	analyze(t, "VALUES (1, 2), (3, 4) ORDER BY col2").noDiags()
	analyze(t, "SELECT * FROM VALUES 1, 2 AS v(n)").wantOut("n<v.n")
}

func TestTableFunctions(t *testing.T) {
	r := analyze(t, "SELECT id FROM range(10)")
	r.noDiags()
	r.wantOut("id<id")
	if c := r.out().Columns[0]; c.Type != "bigint" {
		t.Errorf("type %q", c.Type)
	}
	analyze(t, "SELECT idd FROM range(10)").wantDiags("UNRESOLVED_COLUMN idd")
	analyze(t, "SELECT r.id FROM range(1, 10) AS r").noDiags()
	analyze(t, "SELECT x FROM range(3) AS r(x)").noDiags()
	analyze(t, "SELECT col FROM explode(array(1, 2))").noDiags()
	analyze(t, "SELECT key, value FROM explode(map('a', 1))").noDiags()
	analyze(t, "SELECT pos, col FROM posexplode(array(1))").noDiags()
	analyze(t, "SELECT col0, col1 FROM stack(2, 1, 2, 3, 4)").noDiags()
	analyze(t, "SELECT col2 FROM stack(2, 1, 2, 3, 4)").wantDiags("UNRESOLVED_COLUMN col2")
	analyze(t, "SELECT c0, c1 FROM json_tuple('{}', 'a', 'b')").noDiags()
	// unknown outputs are never reported
	analyze(t, "SELECT anything FROM inline(array(struct(1, 2)))").noDiags()
	analyze(t, "SELECT anything FROM read_files('/p', format => 'json')").noDiags()
	analyze(t, "SELECT x.anything FROM my_udtf(1)").noDiags()
	// LATERAL table functions see the items before them
	r = analyze(t, "SELECT col FROM t, LATERAL explode(t.arr)")
	r.noDiags()
	r.wantSrc("t.arr", 0, "t.arr")
	analyze(t, "SELECT e.col, t.a FROM t, explode(arr) AS e").noDiags()
	analyze(t, "SELECT key FROM t, explode(t.m)").noDiags()
	analyze(t, "SELECT k FROM t, explode(t.m) AS e(k, v)").noDiags()
}

func TestLateralView(t *testing.T) {
	r := analyze(t, "SELECT a, x FROM t LATERAL VIEW explode(arr) e AS x")
	r.noDiags()
	r.wantSrc("x", 0, "e.x")
	r.wantSrc("arr", 0, "t.arr")
	analyze(t, "SELECT e.col FROM t LATERAL VIEW explode(arr) e").noDiags()
	analyze(t, "SELECT e.key, e.value FROM t LATERAL VIEW OUTER explode(m) e").noDiags()
	analyze(t, "SELECT k, v FROM t LATERAL VIEW explode(m) e AS k, v").noDiags()
	analyze(t, "SELECT y FROM t LATERAL VIEW explode(arr) e AS x").wantDiags("UNRESOLVED_COLUMN y")
	// an inline of unknown structs: unknown columns
	analyze(t, "SELECT whatever FROM t LATERAL VIEW inline(structs) e").noDiags()
	// chained lateral views see each other
	analyze(t, "SELECT y FROM t LATERAL VIEW explode(arr) e AS x LATERAL VIEW explode(array(x)) f AS y").noDiags()
}

func TestLateralSubquery(t *testing.T) {
	r := analyze(t, "SELECT t.a, s.m FROM t, LATERAL (SELECT max(u.d) AS m FROM u WHERE u.a = t.a) s")
	r.noDiags()
	r.wantSrc("t.a", 0, "t.a outer 1")
	r = analyze(t, "SELECT s.m FROM t JOIN LATERAL (SELECT t.b + 1 AS m) s ON true")
	r.noDiags()
	// without LATERAL a subquery in FROM does not see its siblings
	analyze(t, "SELECT 1 FROM t, (SELECT t.b AS m) s").wantDiags("UNRESOLVED_COLUMN t.b")
}

func TestCTEs(t *testing.T) {
	r := analyze(t, "WITH x AS (SELECT a, b FROM t) SELECT x.a, b FROM x")
	r.noDiags()
	r.wantSrc("x.a", 0, "x.a")
	tr := r.m.Tables[1]
	if tr.Kind != TableCTE || tr.CTE == nil || tr.CTE.Name.Name != "x" {
		t.Errorf("%+v", tr)
	}
	if tr := r.m.Tables[0]; tr.Kind != TableCatalog || tr.Name.String() != "t" || len(tr.Columns) != 7 {
		t.Errorf("%+v", tr)
	}

	// a CTE shadows the catalog table of its name
	r = analyze(t, "WITH orders AS (SELECT 1 AS n) SELECT n FROM orders")
	r.noDiags()
	if tr := r.m.Tables[0]; tr.Kind != TableCTE {
		t.Errorf("%+v", tr)
	}
	analyze(t, "WITH orders AS (SELECT 1 AS n) SELECT amount FROM orders").wantDiags("UNRESOLVED_COLUMN amount")
	// but not a qualified name
	analyze(t, "WITH v AS (SELECT 1 AS n) SELECT p FROM db.v").noDiags()

	// column lists
	analyze(t, "WITH x(p, q) AS (SELECT a, b FROM t) SELECT p, q FROM x").noDiags()
	analyze(t, "WITH x(p, q) AS (SELECT a, b FROM t) SELECT a FROM x").wantDiags("UNRESOLVED_COLUMN a")

	// later CTEs see earlier ones; nested WITH shadows
	analyze(t, "WITH x AS (SELECT a FROM t), y AS (SELECT a AS z FROM x) SELECT z FROM y").noDiags()
	r = analyze(t, "WITH x AS (SELECT a FROM t) SELECT * FROM (WITH x AS (SELECT d FROM u) SELECT d FROM x)")
	r.noDiags()
	r.wantOut("d<d")

	// a non-recursive CTE naming itself reads the catalog table
	r = analyze(t, "WITH u AS (SELECT a FROM u) SELECT a FROM u")
	r.noDiags()
	if tr := r.m.Tables[0]; tr.Kind != TableCatalog {
		t.Errorf("%+v", tr)
	}

	// WITH RECURSIVE: the CTE sees itself, with the anchor's columns
	r = analyze(t, "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n FROM r")
	r.noDiags()
	r.wantSrc("n", 0, "r.n")
	analyze(t, "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT m + 1 FROM r WHERE n < 10) SELECT n FROM r").
		wantDiags("UNRESOLVED_COLUMN m")
	analyze(t, "WITH RECURSIVE r(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM r WHERE k < 10) SELECT k FROM r").noDiags()

	// a CTE of unknown columns
	analyze(t, "WITH x AS (SELECT * FROM unknown) SELECT anything FROM x").noDiags()
	analyze(t, "WITH x AS (SELECT * FROM nosuchtable) SELECT anything FROM x").noDiags()

	// INSERT with WITH before it
	analyze(t, "WITH x AS (SELECT a FROM t) INSERT INTO u SELECT a, zz FROM x").wantDiags("UNRESOLVED_COLUMN zz")
}

func TestCorrelatedSubquery(t *testing.T) {
	r := analyze(t, "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.d = t.b)")
	r.noDiags()
	r.wantSrc("t.b", 0, "t.b outer 1")
	r = analyze(t, "SELECT a, (SELECT max(d) FROM u WHERE u.a = t.a) FROM t")
	r.noDiags()
	// the inner scope wins over the outer
	r.wantSrc("u.a", 0, "u.a")
	r = analyze(t, "SELECT * FROM t WHERE b IN (SELECT d FROM u WHERE a = b)")
	r.noDiags()
	r.wantSrc("a", 0, "u.a")
	r.wantSrc("b", 1, "t.b outer 1")
	// two levels out
	r = analyze(t, "SELECT 1 FROM t WHERE EXISTS (SELECT 1 FROM u WHERE EXISTS (SELECT 1 FROM orders WHERE id = t.b))")
	r.noDiags()
	r.wantSrc("t.b", 0, "t.b outer 2")
	analyze(t, "SELECT 1 FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.d = t.zz)").wantDiags("UNRESOLVED_COLUMN t.zz")
	// a subquery in HAVING or ORDER BY sees the select list's names
	r = analyze(t, "SELECT a, count(*) AS n FROM t GROUP BY a HAVING n > (SELECT count(*) FROM u WHERE u.d = n)")
	r.noDiags()
	r.wantSrc("n", 1, "alias n")
	analyze(t, "SELECT a + 1 AS x FROM t ORDER BY (SELECT max(d) FROM u WHERE u.a = x)").noDiags()
}

func TestSetOperations(t *testing.T) {
	r := analyze(t, "SELECT a, b FROM t UNION ALL SELECT a, d FROM u ORDER BY b")
	r.noDiags()
	r.wantOut("a, b")
	analyze(t, "SELECT a, b FROM t UNION ALL SELECT a, d FROM u ORDER BY d").wantDiags("UNRESOLVED_COLUMN d")
	analyze(t, "SELECT x.b FROM (SELECT a, b FROM t INTERSECT SELECT a, d FROM u) x").noDiags()
	analyze(t, "SELECT x.d FROM (SELECT a, b FROM t EXCEPT SELECT a, d FROM u) x").wantDiags("UNRESOLVED_COLUMN x.d")
}

func TestPipes(t *testing.T) {
	r := analyze(t, "FROM t |> WHERE a > 1 |> SELECT a, b + 1 AS bb |> WHERE bb > 2 |> EXTEND bb * 2 AS b4 |> SELECT a, b4")
	r.noDiags()
	r.wantSrc("a", 0, "t.a")
	r.wantSrc("bb", 0, "bb")
	analyze(t, "FROM t |> SELECT a |> WHERE b > 1").wantDiags("UNRESOLVED_COLUMN b")
	analyze(t, "FROM t |> DROP b |> SELECT b").wantDiags("UNRESOLVED_COLUMN b")
	analyze(t, "FROM t |> AS x |> SELECT x.a").noDiags()
	analyze(t, "FROM t |> AGGREGATE count(*) AS n GROUP BY a |> SELECT a, n").noDiags()
	analyze(t, "FROM t |> AGGREGATE count(*) AS n GROUP BY a |> SELECT b").wantDiags("UNRESOLVED_COLUMN b")
	analyze(t, "FROM t |> JOIN u USING (a) |> SELECT a, d").noDiags()
	analyze(t, "FROM t |> SET b = b + 1 |> SELECT b").noDiags()
	analyze(t, "FROM t |> ORDER BY zz").wantDiags("UNRESOLVED_COLUMN zz")
	analyze(t, "TABLE t |> SELECT a |> UNION ALL (SELECT d FROM u) |> SELECT a").noDiags()
	analyze(t, "FROM unknown |> SELECT anything |> WHERE anything > 1").noDiags()
}

func TestStars(t *testing.T) {
	analyze(t, "SELECT * FROM u").wantOut("a<u.a, d<u.d")
	analyze(t, "SELECT * EXCEPT (d) FROM u").wantOut("a<u.a")
	analyze(t, "SELECT u.* EXCEPT (u.a), t.b FROM t JOIN u USING (a)").wantOut("d<u.d, b<t.b")
	analyze(t, "SELECT x.* FROM (SELECT * EXCEPT (b, c, s, arr, m, structs) FROM t) x").wantOut("a<x.a")
	analyze(t, "SELECT x.b FROM (SELECT * EXCEPT (b) FROM t) x").wantDiags("UNRESOLVED_COLUMN x.b")
	// * over unknown columns: unknown output
	analyze(t, "SELECT x.whatever FROM (SELECT * FROM unknown) x").noDiags()
	analyze(t, "SELECT x.whatever FROM (SELECT u.*, k.* FROM u JOIN unknown k ON true) x").noDiags()
	// s.* of a struct column
	analyze(t, "SELECT z.x FROM (SELECT s.* FROM t) z").noDiags()
	// count(*) is no expansion
	analyze(t, "SELECT count(*) AS n FROM t").wantOut("n")
}

func TestSelectAliases(t *testing.T) {
	// ORDER BY sees aliases first
	r := analyze(t, "SELECT a AS b, b AS a FROM t ORDER BY a")
	r.noDiags()
	r.wantSrc("a", 1, "alias a")
	// ORDER BY falls back to the FROM columns
	r = analyze(t, "SELECT a FROM t ORDER BY c")
	r.noDiags()
	r.wantSrc("c", 0, "t.c")
	analyze(t, "SELECT a + 1 AS x FROM t ORDER BY x DESC, b").noDiags()

	// HAVING sees aliases
	r = analyze(t, "SELECT a, count(*) AS n FROM t GROUP BY a HAVING n > 1")
	r.noDiags()
	r.wantSrc("n", 0, "alias n")

	// GROUP BY prefers the FROM column, then the alias
	r = analyze(t, "SELECT a + 1 AS k, count(*) FROM t GROUP BY k")
	r.noDiags()
	r.wantSrc("k", 0, "alias k")
	r = analyze(t, "SELECT b AS a, count(*) FROM t GROUP BY a")
	r.wantSrc("a", 0, "t.a")
	analyzeWith(t, "SELECT a + 1 AS k, count(*) FROM t GROUP BY k", testCat, Options{NoGroupByAliases: true}).
		wantDiags("UNRESOLVED_COLUMN k")

	// lateral column aliases, after the FROM columns
	r = analyze(t, "SELECT a + 1 AS x, x * 2 AS y, y + b FROM t")
	r.noDiags()
	r.wantSrc("x", 0, "alias x")
	r.wantSrc("y", 0, "alias y")
	r = analyze(t, "SELECT b * 10 AS a, a FROM t")
	r.wantSrc("a", 0, "t.a")
	analyze(t, "SELECT x, a + 1 AS x FROM t").wantDiags("UNRESOLVED_COLUMN x")
	analyzeWith(t, "SELECT a + 1 AS x, x FROM t", testCat, Options{NoLateralAliases: true}).
		wantDiags("UNRESOLVED_COLUMN x")
}

func TestLambdas(t *testing.T) {
	r := analyze(t, "SELECT transform(arr, a -> a + b) FROM t")
	r.noDiags()
	r.wantSrc("a", 0, "lambda a")
	r.wantSrc("b", 0, "t.b")
	r = analyze(t, "SELECT aggregate(arr, 0, (acc, x) -> acc + x + a) FROM t")
	r.noDiags()
	r.wantSrc("acc", 0, "lambda acc")
	r.wantSrc("a", 0, "t.a")
	r = analyze(t, "SELECT filter(structs, s -> s.k > 1) FROM t")
	r.noDiags()
	r.wantSrc("s.k", 0, "lambda s")
	analyze(t, "SELECT transform(arr, x -> x + zz) FROM t").wantDiags("UNRESOLVED_COLUMN zz")
}

func TestStructFields(t *testing.T) {
	r := analyze(t, "SELECT s.x, t.s.y.z, s.y.z FROM t")
	r.noDiags()
	r.wantSrc("s.x", 0, "t.s fields x")
	r.wantSrc("t.s.y.z", 0, "t.s fields y.z")
	r.wantOut("x, z, z")

	r = analyze(t, "SELECT s.w FROM t")
	r.wantDiags("FIELD_NOT_FOUND s.w")
	if d := r.m.Diagnostics[0]; strings.Join(d.Suggestions, ",") != "s.x,s.y" || !strings.Contains(d.Message, "struct `s` has no field `w`") {
		t.Errorf("%+v", d)
	}
	analyze(t, "SELECT s.y.zz FROM t").wantDiags("FIELD_NOT_FOUND s.y.zz")
	// fields of array<struct>
	analyze(t, "SELECT structs.k FROM t").noDiags()
	analyze(t, "SELECT structs.kk FROM t").wantDiags("FIELD_NOT_FOUND structs.kk")
	// a map's key, unknown types: unchecked
	analyze(t, "SELECT m.anykey FROM t").noDiags()
	analyze(t, "SELECT x.y.z FROM (SELECT a + 1 AS x FROM t)").noDiags()
	// a struct through a subquery keeps its type
	analyze(t, "SELECT q.s.x, q.s.nope FROM (SELECT s FROM t) q").wantDiags("FIELD_NOT_FOUND q.s.nope")
	// a qualifier wins over a struct column
	analyze(t, "SELECT s.x FROM (SELECT 1 AS x) s, t").noDiags()
}

func TestGroupBy(t *testing.T) {
	r := analyze(t, "SELECT customer_id, status, sum(amount) FROM orders GROUP BY customer_id")
	r.wantDiags("MISSING_AGGREGATION status")
	if d := r.m.Diagnostics[0]; d.Start != 20 || d.End != 26 || !strings.Contains(d.Message, "any_value(status)") {
		t.Errorf("%+v", d)
	}
	// no GROUP BY but an aggregate
	analyze(t, "SELECT status, count(*) FROM orders").wantDiags("MISSING_GROUP_BY status")
	// inside an expression over a grouped column is fine; over another not
	analyze(t, "SELECT upper(status), count(*) FROM orders GROUP BY status").noDiags()
	analyze(t, "SELECT upper(status) || name, count(*) FROM orders, customers GROUP BY status").
		wantDiags("MISSING_AGGREGATION name")
	// the grouping expression may be any expression over the column
	analyze(t, "SELECT date_trunc('DAY', ts), count(*) FROM orders GROUP BY date_trunc('DAY', ts)").noDiags()
	// ordinals, aliases, qualifiers, ROLLUP, GROUPING SETS
	analyze(t, "SELECT status, count(*) FROM orders GROUP BY 1").noDiags()
	analyze(t, "SELECT upper(status) AS st, count(*) FROM orders GROUP BY st").noDiags()
	analyze(t, "SELECT o.status, count(*) FROM orders o GROUP BY status").noDiags()
	analyze(t, "SELECT status, customer_id, count(*) FROM orders GROUP BY ROLLUP (status, customer_id)").noDiags()
	analyze(t, "SELECT status, customer_id, count(*) FROM orders GROUP BY GROUPING SETS ((status), (customer_id))").noDiags()
	analyze(t, "SELECT status, id, count(*) FROM orders GROUP BY CUBE (status)").wantDiags("MISSING_AGGREGATION id")
	// aggregated, FILTER, HAVING: fine
	analyze(t, "SELECT status, max(amount) FILTER (WHERE id > 1) FROM orders GROUP BY status HAVING sum(amount) > 0").noDiags()
	// HAVING alone makes it an aggregation
	analyze(t, "SELECT status FROM orders HAVING count(*) > 1").wantDiags("MISSING_GROUP_BY status")
	// a USING column grouped by either side
	analyze(t, "SELECT a, count(*) FROM t JOIN u USING (a) GROUP BY u.a").noDiags()
	// conservative: GROUP BY ALL, windows, unknown functions, lambdas,
	// subqueries, unknown columns
	analyze(t, "SELECT status, count(*) FROM orders GROUP BY ALL").noDiags()
	analyze(t, "SELECT status, count(*), rank() OVER (ORDER BY count(*)) FROM orders GROUP BY customer_id").noDiags()
	analyze(t, "SELECT my_udaf(status), count(*) FROM orders GROUP BY customer_id").noDiags()
	analyze(t, "SELECT transform(arr, x -> x + b), count(*) FROM t GROUP BY arr").noDiags()
	analyze(t, "SELECT transform(arr, x -> x + b), count(*) FROM t GROUP BY a").wantDiags("MISSING_AGGREGATION arr")
	analyze(t, "SELECT (SELECT max(d) FROM u WHERE u.a = t.b), count(*) FROM t GROUP BY a").noDiags()
	analyze(t, "SELECT anything, count(*) FROM unknown GROUP BY other").noDiags()
	analyze(t, "SELECT status, count(*) FROM orders, unknown GROUP BY customer_id").noDiags()
	// a lateral alias of a grouped column
	analyze(t, "SELECT status AS st, st, count(*) FROM orders GROUP BY status").noDiags()
	// an outer reference in a grouping subquery is not the subquery's
	analyze(t, "SELECT a FROM t WHERE b > (SELECT count(*) + t.b FROM u)").noDiags()
	// a time window groups the window column
	analyze(t, "SELECT window.start, count(*) FROM events GROUP BY window(ts, '5 minutes')").noDiags()
	analyze(t, "SELECT window.start, kind, count(*) FROM events GROUP BY window(ts, '5 minutes')").
		wantDiags("MISSING_AGGREGATION kind")
}

func TestPivotUnpivot(t *testing.T) {
	r := analyze(t, "SELECT year, q1, q2 FROM sales PIVOT (sum(amount) FOR quarter IN ('Q1' AS q1, 'Q2' AS q2))")
	r.wantDiags()
	r = analyze(t, "SELECT * FROM sales PIVOT (sum(amount) FOR quarter IN ('Q1', 'Q2'))")
	r.wantOut("year<year, region<region, Q1<Q1, Q2<Q2")
	analyze(t, "SELECT amount FROM sales PIVOT (sum(amount) FOR quarter IN ('Q1', 'Q2'))").
		wantDiags("UNRESOLVED_COLUMN amount")
	analyze(t, "SELECT zz FROM sales PIVOT (sum(amount) FOR quarter IN (1 + 1))").noDiags()
	analyze(t, "SELECT * FROM sales PIVOT (sum(amount) AS s, avg(amount) AS a FOR quarter IN ('Q1' AS q1))").
		wantOut("year<year, region<region, q1_s<q1_s, q1_a<q1_a")
	r = analyze(t, "SELECT * FROM sales UNPIVOT (val FOR col IN (year, amount))")
	r.wantOut("quarter<quarter, region<region, col<col, val<val")
	analyze(t, "SELECT year FROM sales UNPIVOT (val FOR col IN (year, amount))").wantDiags("UNRESOLVED_COLUMN year")
	analyze(t, "SELECT p.col FROM sales UNPIVOT (val FOR col IN (year, amount)) AS p").noDiags()
}

func TestNoFalsePositives(t *testing.T) {
	for _, sql := range []string{
		"SELECT anything FROM unknown",
		"SELECT anything FROM nosuchtable",
		"SELECT anything, a FROM t, unknown",
		"SELECT x.y.z FROM t, unknown",
		"SELECT zz FROM t JOIN nosuch USING (a)",
		"SELECT zz FROM t NATURAL JOIN unknown",
		"SELECT _metadata.file_path FROM t",
		"SELECT t._metadata FROM t",
		"SELECT _change_type FROM orders",
		"SELECT `count(1)` FROM (SELECT count(1) FROM t)",
		"SELECT q.`(a + 1)` FROM (SELECT a + 1 FROM t) q",
		"SELECT q.window FROM (SELECT window(ts, '1 minute') FROM events) q",
		"SELECT q.x FROM (SELECT my_udf(a) FROM t) q",
		"SELECT grouping__id, a, count(*) FROM t GROUP BY a GROUPING SETS ((a), ())",
		"SELECT v FROM t",
		"SELECT session.v, system.session.v FROM t",
		"SELECT a FROM t WHERE b > :p AND c = ?",
		"SELECT IDENTIFIER('a') FROM t",
		"SELECT IDENTIFIER('t.a') FROM t",
		"SELECT IDENTIFIER(:col) FROM t",
		"SELECT a FROM IDENTIFIER(:tbl)",
		"SELECT a FROM t ORDER BY ALL",
		"SELECT a, x FROM t, LATERAL (SELECT * FROM unknown) AS l",
		"SELECT a FROM t WHERE EXISTS (SELECT anything FROM unknown)",
		"SELECT (SELECT anything FROM unknown WHERE z = t.a) FROM t",
		"SELECT a FROM t LIMIT 10 OFFSET 2",
		"SELECT key, value FROM (SELECT TRANSFORM (a, b) USING 'cat' FROM t)",
		"SELECT x FROM (SELECT TRANSFORM (a, b) USING 'cat' AS (x, y) FROM t)",
		"SELECT kind FROM STREAM events WATERMARK ts DELAY OF INTERVAL 10 SECONDS",
		"SELECT a FROM STREAM(t)",
		"SELECT current_date, current_timestamp() FROM t",
		"SELECT extract(YEAR FROM ts), timestampadd(DAY, 1, ts), datediff(DAY, ts, ts) FROM orders",
		"SELECT trim(BOTH 'x' FROM c), position('a' IN c), substring(c FROM 1 FOR 2) FROM t",
		"SELECT a:b.c, a::string, c COLLATE utf8_lcase FROM t",
		"SELECT named_struct('k', a).k FROM t",
		"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a) FROM t",
		"SELECT sum(a) OVER w FROM t WINDOW w AS (PARTITION BY b ORDER BY c)",
		"SELECT a FROM t TABLESAMPLE (10 PERCENT)",
		"SELECT * FROM t VERSION AS OF 3",
		"SELECT explode(arr) AS x, explode(m) AS (k, v) FROM t",
		"SELECT q.col FROM (SELECT explode(arr) FROM t) q",
		"SELECT q.x FROM (SELECT inline(structs) FROM t) q",
	} {
		analyzeWith(t, sql, testCat, Options{Variables: []string{"v"}}).noDiags()
	}
}

func TestSparkNamingEdgeCases(t *testing.T) {
	// a struct field's item is a lateral alias by its field name
	analyze(t, "SELECT s.x, x + 1 FROM t").noDiags()
	// GROUP BY and ORDER BY can name Spark's generated names, quoted
	analyze(t, "SELECT 1 GROUP BY `1`").noDiags()
	analyze(t, "SELECT a + b, count(*) FROM t GROUP BY `(a + b)`").noDiags()
	analyze(t, "SELECT a, count(*) FROM t GROUP BY a, b + 1 ORDER BY `(b + 1)`").noDiags()
	// one attribute twice is no ambiguity (Spark's expression ids)
	analyze(t, "SELECT a FROM (SELECT a, a FROM t) s").noDiags()
	analyze(t, "WITH c AS (SELECT a, a FROM t UNION SELECT a, a FROM t) SELECT a FROM c").noDiags()
	analyze(t, "WITH c AS (SELECT a FROM t) SELECT a FROM c x JOIN c y ON true").wantDiags("AMBIGUOUS_REFERENCE a")
	// DEFAULT in VALUES of an INSERT, in SET VAR
	analyze(t, "INSERT INTO u VALUES (1, DEFAULT)").noDiags()
	// regex column names
	analyzeWith(t, "SELECT `(a|b)?+.+` FROM t", testCat, Options{QuotedRegexColumnNames: true}).noDiags()
	analyze(t, "SELECT `(a|b)?+.+` FROM t").wantDiags("UNRESOLVED_COLUMN `(a|b)?+.+`")
	// GROUP BY a constant groups nothing; ordinals of aggregates are
	// Spark's own error
	analyze(t, "SELECT a AS k FROM t GROUP BY 'k'").wantDiags("MISSING_AGGREGATION a")
	analyze(t, "SELECT a, b, sum(b) FROM t GROUP BY 3").noDiags()
	analyze(t, "SELECT a, b FROM t GROUP BY -1").noDiags()
	// HAVING without an aggregate is no aggregation
	analyze(t, "SELECT a FROM t HAVING a > 0").noDiags()
}

func TestNamesOutsideExpressions(t *testing.T) {
	r := analyze(t, "SELECT * EXCEPT (a, bb) FROM t")
	r.wantDiags("UNRESOLVED_COLUMN bb")
	if d := r.m.Diagnostics[0]; d.Suggestions[0] != "b" || !strings.Contains(d.Message, "* EXCEPT") {
		t.Errorf("%+v", d)
	}
	analyze(t, "SELECT * EXCEPT (zz) FROM unknown").noDiags()
	analyze(t, "FROM t |> SET zz = 1").wantDiags("UNRESOLVED_COLUMN zz")
	analyze(t, "FROM t |> DROP a, zz").wantDiags("UNRESOLVED_COLUMN zz")
	analyze(t, "SELECT * FROM sales PIVOT (sum(amount) FOR yeer IN (1, 2))").wantDiags("UNRESOLVED_COLUMN yeer")
	analyze(t, "SELECT * FROM sales UNPIVOT (v FOR n IN (year, amont))").wantDiags("UNRESOLVED_COLUMN amont")
	analyze(t, "SELECT * FROM unknown PIVOT (sum(amount) FOR yeer IN (1, 2))").noDiags()
}

func TestPipeHiddenUsingColumns(t *testing.T) {
	analyze(t, "VALUES (0), (1) lhs(a) |> INNER JOIN VALUES (1), (2) rhs(a) USING (a) |> EXTEND lhs.a + rhs.a AS z |> SELECT lhs.a, rhs.a, z").noDiags()
	analyze(t, "FROM t JOIN u USING (a) |> SELECT u.a, t.a, a").noDiags()
	// a pipe aggregate's GROUP BY alias names its column
	analyze(t, "FROM t |> AGGREGATE sum(b) AS s GROUP BY a + 1 AS k |> SELECT k, s").noDiags()
}

func TestIdentifierClause(t *testing.T) {
	r := analyze(t, "SELECT IDENTIFIER('p'), zz FROM IDENTIFIER('db.v')")
	r.wantDiags("UNRESOLVED_COLUMN zz")
	r.wantSrc("IDENTIFIER('p')", 0, "db.v.p")
	if tr := r.m.Tables[0]; tr.Kind != TableCatalog {
		t.Errorf("%+v", tr)
	}
	analyze(t, "SELECT `a.b` FROM t").wantDiags("UNRESOLVED_COLUMN `a.b`")
}

func TestWatermark(t *testing.T) {
	r := analyze(t, "SELECT kind FROM STREAM events WATERMARK tss DELAY OF INTERVAL 10 SECONDS")
	r.wantDiags("UNRESOLVED_COLUMN tss")
	r = analyze(t, "SELECT e.kind FROM STREAM(events) WATERMARK e.ts DELAY OF INTERVAL 1 MINUTE AS e")
	r.noDiags()
	analyze(t, "SELECT e.kind FROM STREAM(events) WATERMARK events.ts DELAY OF INTERVAL 1 MINUTE AS e").noDiags()
	analyze(t, "SELECT e.kind FROM STREAM(events) WATERMARK tss DELAY OF INTERVAL 1 MINUTE AS e").
		wantDiags("UNRESOLVED_COLUMN tss")
	if tr := r.m.Tables[0]; tr.Kind != TableCatalog || tr.Name.String() != "events" {
		t.Errorf("%+v", tr)
	}
}

func TestStatements(t *testing.T) {
	for _, sql := range []string{
		"CREATE MATERIALIZED VIEW mv AS SELECT zz FROM t",
		"CREATE OR REPLACE TEMPORARY VIEW v AS SELECT zz FROM t",
		"CREATE STREAMING TABLE st AS SELECT zz FROM STREAM(t)",
		"INSERT INTO u SELECT zz FROM t",
		"CREATE FLOW f AS INSERT INTO u BY NAME SELECT zz FROM STREAM t",
	} {
		analyze(t, sql).wantDiags("UNRESOLVED_COLUMN zz")
	}
	analyze(t, "SET x = 1").noDiags()
}

func TestScriptsAreQuiet(t *testing.T) {
	st, _ := parser.ParseStatement("SELECT v_local, zz FROM t", parser.Options{})
	q := st.(*ast.QueryStmt).Query
	for kind, want := range map[string]int{"BEGIN": 0, "CREATE FUNCTION": 0, "MERGE INTO": 0, "EXPLAIN": 2} {
		m := AnalyzeStmt(&ast.Other{Kind: kind, Queries: []*ast.Query{q}}, testCat, Options{})
		if len(m.Diagnostics) != want {
			t.Errorf("%s: %d diagnostics, want %d", kind, len(m.Diagnostics), want)
		}
		if m.Column(q.Body.(*ast.Select).Items[0].X.(*ast.Column)) == nil {
			t.Errorf("%s: the reference is not in the model", kind)
		}
	}
	// nested statements inherit the quiet
	m := AnalyzeStmt(&ast.Other{Kind: "BEGIN", Stmts: []ast.Stmt{st}}, testCat, Options{})
	if len(m.Diagnostics) != 0 {
		t.Errorf("%v", m.Diagnostics)
	}
}

func TestNilCatalog(t *testing.T) {
	r := analyzeWith(t, "SELECT a, b FROM t JOIN u USING (a) WHERE zz", nil, Options{})
	r.noDiags()
	for _, tr := range r.m.Tables {
		if tr.Kind != TableUnknown {
			t.Errorf("%+v", tr)
		}
	}
	r = analyzeWith(t, "SELECT zz FROM VALUES (1) AS v(a)", nil, Options{})
	r.wantDiags("UNRESOLVED_COLUMN zz")
}

func TestModelLookups(t *testing.T) {
	sql := "WITH c AS (SELECT id, amount FROM orders) SELECT c.id, amount * 2 AS dbl FROM c"
	st, _ := parser.ParseStatement(sql, parser.Options{})
	m := AnalyzeStmt(st, testCat, Options{})
	q := st.(*ast.QueryStmt).Query
	out := m.Output(q)
	if out == nil || len(out.Columns) != 2 || out.Columns[0].Name != "id" || out.Columns[1].Name != "dbl" {
		t.Fatalf("%+v", out)
	}
	// the passthrough chain: c.id -> the CTE's id -> orders.id
	src := out.Columns[0].Source
	if src == nil || src.Rel.Node != ast.Node(q.Body.(*ast.Select).From.Relations[0]) {
		t.Fatalf("source %+v", src)
	}
	inner := src.Column().Source
	if inner == nil || inner.Rel.Table == nil || inner.Rel.Table.Name.String() != "orders" || inner.Column().Type != "bigint" {
		t.Fatalf("inner source %+v", inner)
	}
	if out.Columns[1].Expr == nil || out.Columns[1].Item == nil {
		t.Errorf("computed column %+v", out.Columns[1])
	}
	cte := q.With.CTEs[0]
	if o := m.Output(cte); o == nil || len(o.Columns) != 2 {
		t.Errorf("cte output %+v", o)
	}
	tb := q.Body.(*ast.Select).From.Relations[0].(*ast.Table)
	if tr := m.Table(tb); tr == nil || tr.Kind != TableCTE || tr.CTE != cte || !tr.ColumnsKnown {
		t.Errorf("table ref %+v", tr)
	}
	for _, c := range m.Columns {
		if m.Column(c.Node) != c {
			t.Errorf("Column(%v)", c.Node)
		}
	}
}

func TestIsAggregate(t *testing.T) {
	for _, n := range []string{"count", "SUM", "avg", "collect_list", "percentile_approx", "stddev_samp",
		"max_by", "listagg", "string_agg", "mode", "median", "try_sum", "hll_sketch_agg", "regr_slope",
		"bool_and", "every", "some", "any", "array_agg", "first", "last_value"} {
		if !IsAggregate(n) {
			t.Errorf("%s is an aggregate", n)
		}
	}
	for _, n := range []string{"upper", "row_number", "rank", "lag", "coalesce", "explode", "grouping"} {
		if IsAggregate(n) {
			t.Errorf("%s is no aggregate", n)
		}
	}
}

func TestNearest(t *testing.T) {
	got := nearest("amont", []string{"amount", "id", "mount", "AMONT", "amont", "status"}, 3)
	if strings.Join(got, ",") != "AMONT,amount" {
		t.Errorf("%q", got)
	}
	if got := nearest("ab", []string{"ba", "abc", "xyz"}, 3); strings.Join(got, ",") != "ba,abc" {
		t.Errorf("%q", got)
	}
	if got := nearest("customer_id", []string{"customerid", "custmer_idd", "cust"}, 3); strings.Join(got, ",") != "customerid,custmer_idd" {
		t.Errorf("%q", got)
	}
}

// TestMultipartNamesQuotedPerPart checks that messages write a qualified
// name as Spark does, each part in its own backquotes.
func TestMultipartNamesQuotedPerPart(t *testing.T) {
	r := analyze(t, "SELECT t.zz FROM t")
	if len(r.m.Diagnostics) != 1 {
		t.Fatalf("diagnostics: %v", r.diags())
	}
	msg := r.m.Diagnostics[0].Message
	for _, want := range []string{"unknown column `t`.`zz`", "`t` has no column `zz`"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	r = analyze(t, "SELECT a FROM t JOIN u ON t.b = u.d")
	if len(r.m.Diagnostics) != 1 || !strings.Contains(r.m.Diagnostics[0].Message, "column `a` is ambiguous") {
		t.Fatalf("ambiguous: %v", r.m.Diagnostics)
	}
}
