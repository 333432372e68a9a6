package sqlfront

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// checkFile asserts the invariants every Parse result keeps: ranges within
// text and ordered, Normalized as long as Text, diagnostics in the file.
func checkFile(t *testing.T, file, text string, f File) {
	t.Helper()
	in := func(what string, s, e int) {
		t.Helper()
		if s < 0 || s > e || e > len(text) {
			t.Fatalf("%s range [%d,%d) outside text of %d bytes: %q", what, s, e, len(text), text)
		}
	}
	prev := 0
	for _, st := range f.Statements {
		in("statement", st.Start, st.End)
		in("comment block", st.CommentStart, st.Start)
		if st.Start < prev || st.CommentStart < prev {
			t.Fatalf("statement %v overlaps the previous one (ends %d)", st.Span, prev)
		}
		prev = st.End
		in("name", st.NameLoc.Start, st.NameLoc.End)
		in("target", st.TargetLoc.Start, st.TargetLoc.End)
		if q := st.Query; q != nil {
			checkQuery(t, file, text, q)
			if q.Start < st.Start || q.End > st.End {
				t.Fatalf("query %v outside statement %v", q.Span, st.Span)
			}
		}
	}
	for _, d := range f.Diags {
		in("diagnostic", d.Loc.Start, d.Loc.End)
		if d.Loc.File != file || d.Message == "" || d.Code == "" || d.Severity == 0 {
			t.Fatalf("bad diagnostic %+v", d)
		}
	}
}

func checkQuery(t *testing.T, file, text string, q *Query) {
	t.Helper()
	if q.Start < 0 || q.Start > q.End || q.End > len(text) || len(q.Text) != q.End-q.Start {
		t.Fatalf("bad query span %v", q.Span)
	}
	if written := text[q.Start:q.End]; q.Text != written {
		// Only a CDC statement's source query (written over its leading
		// keywords) and file reads (written as their source's name)
		// differ from the file's text, byte for byte the same length.
		w := strings.ToUpper(strings.Join(strings.Fields(written), " "))
		if !strings.HasPrefix(q.Text, "SELECT *") || !(strings.HasPrefix(w, "APPLY CHANGES") || strings.HasPrefix(w, "AUTO CDC")) {
			if len(q.FileReads) == 0 {
				t.Fatalf("query text %q is not the file's %q", q.Text, written)
			}
		}
	}
	if len(q.Normalized) != len(q.Text) {
		t.Fatalf("Normalized is %d bytes, Text %d", len(q.Normalized), len(q.Text))
	}
	if s := q.SparkOnly; s != nil && (s.Start < q.Start || s.Start > s.End || s.End > q.End || q.Parser == "") {
		t.Fatalf("SparkOnly %v outside the query %v (parser %q)", *s, q.Span, q.Parser)
	}
	for i := range q.Text {
		a, b := q.Text[i], q.Normalized[i]
		if a != b && b != ' ' && !(a == '`' && b == '"') && !(a == '\\' && b == '\'') {
			t.Fatalf("Normalized changes byte %d from %q to %q: %q", i, a, b, q.Normalized)
		}
	}
	prev := q.Start
	for _, r := range q.Refs {
		if r.Loc.Start < prev {
			t.Fatalf("refs out of order: %+v", q.Refs)
		}
		prev = r.Loc.Start
		if r.Loc.File != file || r.Loc.Start < q.Start || r.Loc.Start > r.Loc.End || r.Loc.End > q.End {
			t.Fatalf("ref %+v outside query %v", r, q.Span)
		}
	}
	prev = q.Start
	for _, fn := range q.Funcs {
		if fn.Loc.Start < prev {
			t.Fatalf("funcs out of order: %+v", q.Funcs)
		}
		prev = fn.Loc.End
		if fn.Loc.File != file || fn.Loc.Start < q.Start || fn.Loc.Start >= fn.Loc.End || fn.Loc.End > q.End || fn.Name == "" {
			t.Fatalf("func %+v outside query %v", fn, q.Span)
		}
	}
	if q.Aggregates && (q.AggLoc.Start < q.Start || q.AggLoc.Start > q.AggLoc.End || q.AggLoc.End > q.End) {
		t.Fatalf("AggLoc %v outside query %v", q.AggLoc, q.Span)
	}
}

func parseOne(t *testing.T, text string) (Statement, []ir.Diagnostic) {
	t.Helper()
	return parseOneIn(t, text, DialectSpark)
}

func parseOneIn(t *testing.T, text string, d Dialect) (Statement, []ir.Diagnostic) {
	t.Helper()
	f := ParseDialect("f.sql", text, d)
	checkFile(t, "f.sql", text, f)
	if len(f.Statements) != 1 {
		t.Fatalf("Parse(%q): %d statements, want 1", text, len(f.Statements))
	}
	return f.Statements[0], f.Diags
}

func noDiags(t *testing.T, text string, diags []ir.Diagnostic) {
	t.Helper()
	for _, d := range diags {
		t.Errorf("unexpected diagnostic on %q at %q: %s", text, text[d.Loc.Start:d.Loc.End], d.Message)
	}
}

func TestStatementForms(t *testing.T) {
	tests := []struct {
		text  string
		check func(t *testing.T, text string, st Statement)
	}{
		{"CREATE MATERIALIZED VIEW daily_revenue COMMENT 'revenue per day' AS\nSELECT order_date, sum(amount) AS revenue FROM clean_orders GROUP BY order_date",
			func(t *testing.T, text string, st Statement) {
				want(t, st.Kind, CreateMaterializedView)
				want(t, st.Name, "daily_revenue")
				want(t, text[st.NameLoc.Start:st.NameLoc.End], "daily_revenue")
				want(t, st.Comment, "revenue per day")
				want(t, st.Query.Text, "SELECT order_date, sum(amount) AS revenue FROM clean_orders GROUP BY order_date")
			}},
		{"create or refresh materialized view `my db`.\"Mv\" (a INT, b STRING COMMENT 'x') PARTITIONED BY (a, `b`) CLUSTER BY (c) " +
			"TBLPROPERTIES ('delta.appendOnly' = 'true', pipelines.reset.allowed = false, 'n' 1, \"q\"='it''s') USING delta " +
			"LOCATION '/x' OPTIONS ('k' 'v') COMMENT 'it\\'s\\n' AS (SELECT 1)",
			func(t *testing.T, text string, st Statement) {
				want(t, st.Kind, CreateMaterializedView)
				want(t, st.Name, "my db.Mv")
				want(t, text[st.NameLoc.Start:st.NameLoc.End], "`my db`.\"Mv\"")
				want(t, st.Columns, "(a INT, b STRING COMMENT 'x')")
				want(t, st.PartitionBy, []string{"a", "b"})
				want(t, st.ClusterBy, []string{"c"})
				want(t, st.Properties, map[string]string{"delta.appendOnly": "true", "pipelines.reset.allowed": "false", "n": "1", "q": "it's"})
				want(t, st.Using, "delta")
				want(t, st.Comment, "it's\n")
				want(t, st.Query.Text, "(SELECT 1)")
			}},
		{"CREATE STREAMING TABLE click_events AS SELECT * FROM STREAM(clicks)",
			func(t *testing.T, text string, st Statement) {
				want(t, st.Kind, CreateStreamingTable)
				want(t, st.Name, "click_events")
				want(t, refStrings(text, st.Query), []string{"clicks@clicks stream"})
			}},
		{"CREATE OR REFRESH STREAMING TABLE IF NOT EXISTS cat.db.events (id BIGINT) COMMENT 'no query'",
			func(t *testing.T, text string, st Statement) {
				want(t, st.Kind, CreateStreamingTable)
				want(t, st.Name, "cat.db.events")
				want(t, st.Columns, "(id BIGINT)")
				want(t, st.Comment, "no query")
				if st.Query != nil {
					t.Errorf("Query = %+v, want nil", st.Query)
				}
			}},
		{"CREATE FLOW backfill AS INSERT INTO click_events BY NAME\nSELECT * FROM STREAM(clicks_archive)",
			func(t *testing.T, text string, st Statement) {
				want(t, st.Kind, CreateFlow)
				want(t, st.Name, "backfill")
				want(t, st.Target, "click_events")
				want(t, text[st.TargetLoc.Start:st.TargetLoc.End], "click_events")
				want(t, st.ByName, true)
				want(t, st.Query.Text, "SELECT * FROM STREAM(clicks_archive)")
			}},
		{"CREATE FLOW `f-1` COMMENT 'c' AS INSERT INTO TABLE db.`t` WITH x AS (SELECT 1) SELECT * FROM x",
			func(t *testing.T, text string, st Statement) {
				want(t, st.Name, "f-1")
				want(t, st.Comment, "c")
				want(t, st.Target, "db.t")
				want(t, text[st.TargetLoc.Start:st.TargetLoc.End], "db.`t`")
				want(t, st.ByName, false)
				want(t, st.Query.Text, "WITH x AS (SELECT 1) SELECT * FROM x")
			}},
		{"CREATE OR REPLACE TEMPORARY VIEW tv COMMENT 'x' TBLPROPERTIES ('a'='b') AS SELECT 1",
			func(t *testing.T, text string, st Statement) {
				want(t, st.Kind, CreateTemporaryView)
				want(t, st.Name, "tv")
				want(t, st.Properties, map[string]string{"a": "b"})
			}},
		{"CREATE TEMP VIEW tv AS VALUES (1)",
			func(t *testing.T, text string, st Statement) {
				want(t, st.Kind, CreateTemporaryView)
				want(t, st.Query.Text, "VALUES (1)")
			}},
		{"CREATE VIEW v (a COMMENT 'x') COMMENT 'persistent' AS FROM t SELECT a",
			func(t *testing.T, text string, st Statement) {
				want(t, st.Kind, CreateView)
				want(t, st.Columns, "(a COMMENT 'x')")
				want(t, st.Comment, "persistent")
				// FROM-first is Spark SQL too: not DuckDB-only syntax
				want(t, st.Query.Parser, "postgres")
			}},
		{"CREATE /* c */ MATERIALIZED -- x\n VIEW\tmv AS SELECT 1",
			func(t *testing.T, text string, st Statement) {
				want(t, st.Kind, CreateMaterializedView)
				want(t, st.Name, "mv")
			}},
		{"SET spark.sql.shuffle.partitions = 10",
			func(t *testing.T, text string, st Statement) {
				want(t, st.Kind, Set)
				want(t, st.SetKey, "spark.sql.shuffle.partitions")
				want(t, st.SetValue, "10")
			}},
		{"set `my.key`='a b'",
			func(t *testing.T, text string, st Statement) {
				want(t, st.SetKey, "my.key")
				want(t, st.SetValue, "'a b'")
			}},
		{"USE CATALOG main", func(t *testing.T, text string, st Statement) {
			want(t, st.Kind, UseCatalog)
			want(t, st.SetValue, "main")
		}},
		{"use schema `my db`", func(t *testing.T, text string, st Statement) {
			want(t, st.Kind, UseSchema)
			want(t, st.SetValue, "my db")
		}},
		{"USE DATABASE cat.db", func(t *testing.T, text string, st Statement) {
			want(t, st.Kind, UseSchema)
			want(t, st.SetValue, "cat.db")
		}},
		{"USE sales", func(t *testing.T, text string, st Statement) {
			want(t, st.Kind, UseSchema)
			want(t, st.SetValue, "sales")
		}},
		{"WITH a AS (SELECT 1) SELECT * FROM a", func(t *testing.T, text string, st Statement) {
			want(t, st.Kind, QueryStmt)
			want(t, st.Query.Span, st.Span)
		}},
		{"TABLE t", func(t *testing.T, text string, st Statement) {
			want(t, st.Kind, QueryStmt)
			want(t, refStrings(text, st.Query), []string{"t@t"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			st, diags := parseOne(t, tt.text)
			noDiags(t, tt.text, diags)
			tt.check(t, tt.text, st)
		})
	}
}

func want[T any](t *testing.T, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

func TestUnsupported(t *testing.T) {
	tests := []struct{ text, keyword, hint string }{
		{"DROP TABLE foo", "DROP TABLE", "remove the statement"},
		{"insert into t select 1", "insert into", "CREATE FLOW name AS INSERT INTO"},
		{"CREATE TABLE t AS SELECT 1", "CREATE TABLE", "CREATE MATERIALIZED VIEW"},
		{"CREATE OR REPLACE TABLE t (a INT)", "CREATE OR REPLACE TABLE", "CREATE MATERIALIZED VIEW"},
		{"CREATE TEMPORARY FUNCTION f AS 'x'", "CREATE TEMPORARY FUNCTION", ""},
		{"MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE", "MERGE INTO", ""},
		{"ALTER TABLE t ADD COLUMN b INT", "ALTER TABLE", ""},
		{"CREATE GLOBAL TEMPORARY VIEW g AS SELECT 1", "CREATE GLOBAL TEMPORARY VIEW", ""},
		{"'just a string'", "'just a string'", ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			st, diags := parseOne(t, tt.text)
			want(t, st.Kind, Unsupported)
			want(t, st.Keyword, tt.keyword)
			if st.Query != nil {
				t.Errorf("Query = %+v, want nil", st.Query)
			}
			if len(diags) != 1 {
				t.Fatalf("got %d diagnostics, want 1: %+v", len(diags), diags)
			}
			d := diags[0]
			want(t, d.Code, ir.CodeSQLUnsupported)
			want(t, d.Severity, ir.Error)
			want(t, tt.text[d.Loc.Start:d.Loc.End], tt.keyword)
			for _, s := range []string{tt.keyword, "CREATE STREAMING TABLE", "USE SCHEMA", tt.hint} {
				if !strings.Contains(d.Message, s) {
					t.Errorf("message %q lacks %q", d.Message, s)
				}
			}
		})
	}
}

func TestDDLErrors(t *testing.T) {
	tests := []struct {
		text string
		at   string // the text the diagnostic covers
		msg  string // part of the message
	}{
		{"CREATE MATERIALIZED VIEW AS SELECT 1", "AS", "missing the dataset's name before AS"},
		{"CREATE MATERIALIZED VIEW", "VIEW", "missing the dataset's name"},
		{"CREATE MATERIALIZED VIEW mv SELECT 1", "SELECT", "expected AS"},
		{"CREATE MATERIALIZED VIEW mv", "mv", "needs AS followed by a query"},
		{"CREATE MATERIALIZED VIEW mv COMMENT 'x'", "'x'", "needs AS followed by a query"},
		{"CREATE VIEW v", "v", "needs AS"},
		{"CREATE MATERIALIZED VIEW mv AS", "AS", "expected a query after AS"},
		{"CREATE MATERIALIZED VIEW 'mv' AS SELECT 1", "'mv'", "expected the dataset's name"},
		{"CREATE VIEW v PARTITIONED BY (a) AS SELECT 1", "PARTITIONED", "not allowed on a view"},
		{"CREATE MATERIALIZED VIEW mv COMMENT 42 AS SELECT 1", "42", "quoted string"},
		{"CREATE MATERIALIZED VIEW mv COMMENT 'a' COMMENT 'b' AS SELECT 1", "COMMENT", "given twice"},
		{"CREATE MATERIALIZED VIEW mv PARTITIONED BY a AS SELECT 1", "a", "parenthesised column list"},
		{"CREATE MATERIALIZED VIEW mv PARTITIONED BY () AS SELECT 1", "(", "no columns"},
		{"CREATE MATERIALIZED VIEW mv CLUSTER BY (a,) AS SELECT 1", ")", "after ','"},
		{"CREATE MATERIALIZED VIEW mv TBLPROPERTIES ('a' 'b' 'c') AS SELECT 1", "'c'", "expected ',' or ')'"},
		{"CREATE MATERIALIZED VIEW mv TBLPROPERTIES ('a' =) AS SELECT 1", ")", "no value"},
		{"CREATE MATERIALIZED VIEW mv USING 'x' AS SELECT 1", "'x'", "format name"},
		{"CREATE MATERIALIZED VIEW mv (a INT AS SELECT 1", "(", "unclosed column list"},
		{"CREATE MATERIALIZED VIEW mv COMMENT 'abc AS SELECT 1", "'abc AS SELECT 1", "unterminated string"},
		{"CREATE OR REFRESH VIEW v AS SELECT 1", "OR REFRESH", "CREATE OR REPLACE VIEW"},
		{"CREATE FLOW f INSERT INTO t SELECT 1", "INSERT", "expected AS INSERT INTO"},
		{"CREATE FLOW f AS SELECT 1", "SELECT", "INSERT INTO target"},
		{"CREATE FLOW f AS INSERT t SELECT 1", "t", "INSERT INTO target"},
		{"CREATE FLOW f AS INSERT INTO SELECT 1", "SELECT", "missing the target dataset's name"},
		{"CREATE FLOW f AS INSERT INTO t", "t", "no query"},
		{"CREATE FLOW f AS INSERT INTO t BY NAME 42", "42", "expected a query"},
		{"CREATE FLOW AS INSERT INTO t SELECT 1", "AS", "missing the flow's name"},
		{"SET", "SET", "key and a value"},
		{"SET = 1", "=", "missing its key"},
		{"USE CATALOG", "CATALOG", "needs a name"},
		{"USE SCHEMA a b", "b", "takes one name"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			_, diags := parseOne(t, tt.text)
			if len(diags) != 1 {
				t.Fatalf("got %d diagnostics, want 1: %+v", len(diags), diags)
			}
			d := diags[0]
			want(t, d.Code, ir.CodeSQLSyntax)
			want(t, d.Severity, ir.Error)
			want(t, tt.text[d.Loc.Start:d.Loc.End], tt.at)
			if !strings.Contains(d.Message, tt.msg) {
				t.Errorf("message %q lacks %q", d.Message, tt.msg)
			}
		})
	}
}

// refStrings renders refs as "name@as written[ stream]".
func refStrings(text string, q *Query) []string {
	if q == nil {
		return nil
	}
	var out []string
	for _, r := range q.Refs {
		s := r.Name + "@" + text[r.Loc.Start:r.Loc.End]
		if r.Streaming {
			s += " stream"
		}
		out = append(out, s)
	}
	return out
}

func TestRefs(t *testing.T) {
	tests := []struct {
		query string
		refs  []string
		// duck marks DuckDB syntax, read only in the duckdb dialect.
		duck bool
	}{
		{query: "SELECT * FROM a JOIN b.c ON 1=1 LEFT JOIN \"Q x\".`d` USING (k), e.f.g", refs: []string{"a@a", "b.c@b.c", "Q x.d@\"Q x\".`d`", "e.f.g@e.f.g"}, duck: true},
		{query: "SELECT * FROM a JOIN b.c ON 1=1 LEFT JOIN `Q x`.`d` USING (k), e.f.g", refs: []string{"a@a", "b.c@b.c", "Q x.d@`Q x`.`d`", "e.f.g@e.f.g"}},
		{query: "SELECT * FROM Orders o, `my-db`.`t``x`", refs: []string{"Orders@Orders", "my-db.t`x@`my-db`.`t``x`"}},
		{query: "SELECT * FROM db . t", refs: []string{"db.t@db . t"}},
		{query: "WITH x AS (SELECT * FROM src), y AS (SELECT * FROM x JOIN z USING (k)) SELECT * FROM y, x, other",
			refs: []string{"src@src", "z@z", "other@other"}},
		{query: "WITH x AS (SELECT * FROM y), y AS (SELECT 1) SELECT * FROM y", refs: []string{"y@y"}},
		{query: "WITH r AS (SELECT * FROM r) SELECT * FROM r", refs: []string{"r@r"}},
		{query: "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r", refs: nil},
		{query: "WITH c AS (SELECT 1) SELECT * FROM c JOIN db.c USING (k)", refs: []string{"db.c@db.c"}},
		{query: "SELECT * FROM (WITH c AS (SELECT * FROM t) SELECT * FROM c) s JOIN c USING (k)", refs: []string{"t@t", "c@c"}},
		{query: "SELECT * FROM (SELECT * FROM a) s WHERE k IN (SELECT k FROM b) AND EXISTS (SELECT 1 FROM c WHERE c.x = s.x)",
			refs: []string{"a@a", "b@b", "c@c"}},
		{query: "SELECT (SELECT max(x) FROM u), * FROM t", refs: []string{"u@u", "t@t"}},
		{query: "SELECT * FROM a UNION ALL SELECT * FROM b EXCEPT (SELECT * FROM c)", refs: []string{"a@a", "b@b", "c@c"}},
		{query: "SELECT * FROM STREAM(a) JOIN STREAM b ON 1=1, STREAM ( db.`c` ) x, stream",
			refs: []string{"a@a stream", "b@b stream", "db.c@db.`c` stream", "stream@stream"}},
		{query: "SELECT stream, stream(x) FROM t", refs: []string{"t@t"}},
		{query: "SELECT * FROM stream AS s JOIN STREAM AS t ON 1=1", refs: []string{"stream@stream", "STREAM@STREAM"}},
		{query: "SELECT * FROM a LEFT JOIN stream(b) USING (k)", refs: []string{"a@a", "b@b stream"}},
		{query: "SELECT * FROM read_csv('x.csv') r JOIN t USING (k)", refs: []string{"t@t"}},
		{query: "SELECT * FROM 'data/x.parquet'", duck: true},
		{query: "SELECT * FROM parquet.`/data/x` JOIN delta.t USING (k)", refs: []string{"x@parquet.`/data/x`", "delta.t@delta.t"}},
		{query: "VALUES (1), (2)", refs: nil},
		{query: "TABLE db.t", refs: []string{"db.t@db.t"}},
		{query: "(SELECT * FROM a) UNION (SELECT * FROM a)", refs: []string{"a@a", "a@a"}},
		{query: "SELECT * FROM t WHERE x = 'FROM STREAM(y)' -- FROM z\n/* JOIN w */", refs: []string{"t@t"}},
		{query: "SELECT * FROM t1 NATURAL JOIN t2 CROSS JOIN t3 FULL OUTER JOIN t4 ON true", refs: []string{"t1@t1", "t2@t2", "t3@t3", "t4@t4"}},
		{query: "SELECT * FROM t, LATERAL (SELECT * FROM u WHERE u.a = t.a) l", refs: []string{"t@t", "u@u"}},
		{query: "SELECT * FROM é.ü", refs: []string{"é.ü@é.ü"}},
	}
	for _, tt := range tests {
		for _, d := range []Dialect{DialectSpark, DialectDuckDB} {
			if tt.duck && d == DialectSpark {
				continue
			}
			t.Run(d.String()+"/"+tt.query, func(t *testing.T) {
				text := "-- lead\nSELECT 0;\n" + tt.query + ";\n"
				f := ParseDialect("f.sql", text, d)
				checkFile(t, "f.sql", text, f)
				noDiags(t, text, f.Diags)
				want(t, refStrings(text, f.Statements[1].Query), tt.refs)
			})
		}
	}
}

func TestNormalized(t *testing.T) {
	tests := []struct{ query, norm string }{
		// Qualifiers of table names are blanked: the native engine keeps
		// every relation under its last name part.
		{"SELECT `a` FROM STREAM(`db`.t), STREAM x, STREAM (y)", `SELECT "a" FROM             t ,        x,         y `},
		{"SELECT * FROM main.sales . base JOIN other.o ON true", "SELECT * FROM              base JOIN       o ON true"},
		{"SELECT * FROM information_schema.tables", "SELECT * FROM information_schema.tables"},
		{`SELECT 'it\'s', 'a\\' FROM t`, `SELECT 'it''s', 'a\\' FROM t`},
		{"SELECT `a\"b` FROM t", "SELECT `a\"b` FROM t"},
		{"SELECT stream FROM stream", "SELECT stream FROM stream"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			st, _ := parseOne(t, tt.query)
			want(t, st.Query.Normalized, tt.norm)
		})
	}
}

// TestDialects: in the duckdb dialect, PostgreSQL's and DuckDB's parsers
// read the query, and Spark SQL they do not read is accepted after
// rewriting.
func TestDialects(t *testing.T) {
	tests := []struct {
		query  string
		parser string // "" when either may accept it
		refs   []string
	}{
		{"SELECT * EXCLUDE (a) FROM t", "duckdb", []string{"t@t"}},
		{"FROM t SELECT x", "duckdb", []string{"t@t"}},
		{"FROM t", "duckdb", []string{"t@t"}},
		{"SELECT a, count(*) FROM t GROUP BY ALL", "postgres", []string{"t@t"}},
		{"SELECT * FROM t QUALIFY row_number() OVER (PARTITION BY a ORDER BY b) = 1", "duckdb", []string{"t@t"}},
		{"SELECT * FROM t ANTI JOIN u USING (a)", "", []string{"t@t", "u@u"}},
		{"SELECT * FROM t SEMI JOIN u USING (a)", "", []string{"t@t", "u@u"}},
		{"WITH c AS (SELECT * FROM src) FROM c SELECT * EXCLUDE (x)", "duckdb", []string{"src@src"}},
		{"WITH C AS (SELECT 1) FROM c JOIN d USING (k) SELECT *", "duckdb", []string{"d@d"}},
		{"FROM STREAM(a) SELECT * EXCLUDE (x) WHERE k IN (FROM b SELECT k)", "duckdb", []string{"a@a stream", "b@b"}},
		{"SELECT * FROM t1 POSITIONAL JOIN t2", "", []string{"t1@t1", "t2@t2"}},
		{"SELECT * REPLACE (a + 1 AS a) FROM t", "duckdb", []string{"t@t"}},
		{"SELECT x FROM t UNION BY NAME SELECT x FROM u", "duckdb", []string{"t@t", "u@u"}},
		// Spark SQL neither grammar reads, accepted after rewriting.
		{"SELECT window(ts, '1 minute') AS w, count(*) FROM STREAM(e) GROUP BY window(ts, '1 minute')", "", []string{"e@e stream"}},
		{"SELECT * FROM t1 LEFT SEMI JOIN t2 ON t1.a = t2.a LEFT ANTI JOIN t3 USING (b)", "", []string{"t1@t1", "t2@t2", "t3@t3"}},
		{"SELECT a FROM t WHERE c REGEXP 'x' AND d RLIKE 'y' AND e DIV 2 = 1", "", []string{"t@t"}},
		{"SELECT * FROM STREAM(t) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS e JOIN u ON e.a = u.a", "", []string{"t@t stream", "u@u"}},
		{"SELECT * FROM t LATERAL VIEW OUTER explode(a) e AS x, y JOIN u ON 1=1 WHERE a = 100L", "", []string{"t@t", "u@u"}},
		{"SELECT array(1, 2), struct(1 AS x, 'b' AS y) FROM t DISTRIBUTE BY a SORT BY b", "", []string{"t@t"}},
		{"SELECT a FROM t CLUSTER BY a", "", []string{"t@t"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			st, diags := parseOneIn(t, tt.query, DialectDuckDB)
			noDiags(t, tt.query, diags)
			if tt.parser != "" {
				want(t, st.Query.Parser, tt.parser)
			} else if st.Query.Parser == "" {
				t.Errorf("no parser accepted %q", tt.query)
			}
			want(t, refStrings(tt.query, st.Query), tt.refs)
		})
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		text string
		at   string // text the diagnostic covers
		from string // text from the diagnostic's start to the end, to pin the occurrence
		msg  string
	}{
		{"SELECT * FROM t WHERE a = )", ")", ")", `syntax error at or near ')'`},
		{"SELECT 'é', 'ü' AS x, * FROM t WHERE a = )", ")", ")", "at or near"},
		{"SELECT 1;\nCREATE MATERIALIZED VIEW mv AS\n  SELECT a b c FROM t", "c", "c FROM t", "at or near"},
		{"SELECT * FROM STREAM(a) WHERE a = )", ")", ")", "at or near"},
		{"SELECT * EXCLUDE (a) FROM t", "(", "(a) FROM t", "at or near"},
		{"SELECT * FROM t WHERE (a = 1", "1", "1", "end of input"},
		{"SELECT 'abc\nFROM t", "'abc", "'abc\nFROM t", "unterminated string literal"},
		{"SELECT 1 /* x\n", "/*", "/* x\n", "unterminated"},
		{"SELECT 'é' /* x", "/*", "/* x", "unterminated"},
		{"SELECT * FROM t GROUP BY", "BY", "BY", "end of input"},
		{"WITH a AS (SELECT 1) SELEC * FROM a", "SELEC", "SELEC * FROM a", "at or near"},
		{"SELECT count(* FROM t", "FROM", "FROM t", "at or near"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			f := Parse("f.sql", tt.text)
			checkFile(t, "f.sql", tt.text, f)
			if len(f.Diags) != 1 {
				t.Fatalf("got %d diagnostics, want 1: %+v", len(f.Diags), f.Diags)
			}
			d := f.Diags[0]
			want(t, d.Code, ir.CodeSQLSyntax)
			want(t, tt.text[d.Loc.Start:d.Loc.End], tt.at)
			want(t, tt.text[d.Loc.Start:], tt.from)
			if !strings.Contains(d.Message, tt.msg) {
				t.Errorf("message %q lacks %q", d.Message, tt.msg)
			}
		})
	}
}

func TestAggregates(t *testing.T) {
	tests := []struct {
		query string
		at    string // AggLoc text; "" for no aggregation
	}{
		{"SELECT count(*) FROM t", "count"},
		{"SELECT COUNT(DISTINCT a) FROM t", "COUNT"},
		{"SELECT a, sum(b) FROM t GROUP BY a", "GROUP BY"},
		{"SELECT a FROM t group\n  by a", "group\n  by"},
		{"SELECT a FROM t GROUP BY (a), b", "GROUP BY"},
		{"SELECT a FROM t GROUP BY ROLLUP (a)", "GROUP BY"},
		{"SELECT sum(b) OVER (PARTITION BY a) FROM t", ""},
		{"SELECT a FROM t WHERE b > (SELECT avg(b) FROM t)", ""},
		{"SELECT a FROM t WHERE b IN (SELECT b FROM u GROUP BY b)", ""},
		{"SELECT * FROM (SELECT a, max(b) FROM t GROUP BY a)", "GROUP BY"},
		{"SELECT a FROM t", ""},
		{"SELECT upper(a), mysum(b) FROM t", ""},
		{"SELECT a, count(*) FROM t GROUP BY ALL", "GROUP BY"},
		{"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a) FROM t", "percentile_cont"},
		{"SELECT a FROM t UNION ALL SELECT max(a) FROM u", "max"},
		{"WITH c AS (SELECT k, count(*) n FROM t GROUP BY k) SELECT * FROM c", "GROUP BY"},
		{"SELECT system.builtin.count(*) FROM t", "system.builtin.count"},
		{"SELECT collect_list(a), min(b) FROM t", "collect_list"},
		{"SELECT sum(count(*)) OVER () FROM t GROUP BY a", "GROUP BY"},
		{"FROM t SELECT max(a)", "max"},
		{"SELECT window(ts, '5 minutes') w, count(*) FROM STREAM(e) GROUP BY window(ts, '5 minutes')", "GROUP BY"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			text := "SELECT 1; " + tt.query
			f := Parse("f.sql", text)
			checkFile(t, "f.sql", text, f)
			noDiags(t, text, f.Diags)
			q := f.Statements[1].Query
			want(t, q.Aggregates, tt.at != "")
			if tt.at != "" {
				want(t, text[q.AggLoc.Start:q.AggLoc.End], tt.at)
			}
		})
	}
}

func TestParseQuery(t *testing.T) {
	t.Run("header and semicolon", func(t *testing.T) {
		text := "-- @kind: view\n-- doc\n\nSELECT * FROM `t` ; -- end\n"
		q, diags := ParseQuery("p.sql", text, Span{0, len(text)})
		noDiags(t, text, diags)
		want(t, q.Text, "SELECT * FROM `t`")
		want(t, q.Refs, []ir.Ref{{Name: "t", Loc: ir.Loc{File: "p.sql", Start: 37, End: 40}}})
		want(t, text[37:40], "`t`")
	})
	t.Run("span inside text", func(t *testing.T) {
		text := "ignored FROM x;\nSELECT * FROM STREAM(s)"
		q, diags := ParseQuery("p.sql", text, Span{16, len(text)})
		noDiags(t, text, diags)
		want(t, refStrings(text, q), []string{"s@s stream"})
	})
	for _, tt := range []struct {
		name, text, at string
		code           ir.Code
		query          bool
	}{
		{"empty", "", "", ir.CodeSQLEmpty, false},
		{"only comments", "-- a\n/* b */\n", "", ir.CodeSQLEmpty, false},
		{"open comment", "-- a\n/* b", "/*", ir.CodeSQLEmpty, false},
		{"two queries", "SELECT 1;\nSELECT 2;", "SELECT 2", ir.CodeSQLMultiQuery, true},
		{"DDL", "CREATE MATERIALIZED VIEW x AS SELECT 1", "CREATE MATERIALIZED VIEW", ir.CodeSQLNotQuery, false},
		{"SET", "SET a = b", "SET", ir.CodeSQLNotQuery, false},
		{"DELETE", "WITH x AS (SELECT 1) DELETE FROM t", "WITH", ir.CodeSQLNotQuery, true},
		{"SELECT INTO", "SELECT * INTO x FROM t", "INTO", ir.CodeSQLSyntax, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q, diags := ParseQuery("p.sql", tt.text, Span{0, len(tt.text) + 5})
			if len(diags) != 1 {
				t.Fatalf("got %d diagnostics, want 1: %+v", len(diags), diags)
			}
			d := diags[0]
			want(t, d.Code, tt.code)
			want(t, tt.text[d.Loc.Start:d.Loc.End], tt.at)
			want(t, q != nil, tt.query)
		})
	}
}

func TestLargeQuery(t *testing.T) {
	text := "SELECT " + strings.Repeat("1+", MaxQueryBytes/2) + "1 FROM t"
	st, diags := parseOne(t, text)
	if len(diags) != 1 || diags[0].Severity != ir.Warning || !strings.Contains(diags[0].Message, "not analysed") {
		t.Fatalf("diagnostics = %+v, want one 'not analysed' warning", diags)
	}
	if st.Query == nil || st.Query.Parser != "" || len(st.Query.Normalized) != len(text) {
		t.Fatalf("query = %+v", st.Query)
	}
}

func TestOddInputs(t *testing.T) {
	for _, text := range []string{
		"SELECT \x00 FROM t\xff; SELECT 1 FROM\x00",
		"CREATE MATERIALIZED VIEW \xff\xfe AS SELECT * FROM \xc3",
		"SELECT " + strings.Repeat("(", 20000) + "1" + strings.Repeat(")", 20000),
		"SELECT " + strings.Repeat("(SELECT ", 3000) + "1" + strings.Repeat(")", 3000),
		"SELECT 'open", "SELECT \"open", "SELECT `open", "SELECT $x$ open", "SELECT 1 /* open",
		"CREATE", "CREATE OR", "CREATE FLOW", "CREATE FLOW f AS INSERT INTO", "USE", "(",
		"SELECT * FROM STREAM(", "SELECT * FROM STREAM", "SELECT * FROM STREAM(a", "FROM STREAM STREAM STREAM",
		"SELECT 'é' FROM t WHERE \xff = 'ü' AND WHERE",
	} {
		f := Parse("f.sql", text)
		checkFile(t, "f.sql", text, f)
	}
}

func TestByteOrderMark(t *testing.T) {
	text := "\ufeff-- @kind: view\nSELECT * FROM t"
	st, diags := parseOne(t, text)
	noDiags(t, text, diags)
	want(t, st.Kind, QueryStmt)
	want(t, text[st.CommentStart:st.Start], "-- @kind: view\n")
}

func TestTooDeep(t *testing.T) {
	text := "SELECT " + strings.Repeat("(SELECT ", 3000) + "1" + strings.Repeat(")", 3000)
	_, diags := parseOne(t, text)
	if len(diags) != 1 || diags[0].Severity != ir.Warning || !strings.Contains(diags[0].Message, "nests too deeply") {
		t.Fatalf("diagnostics = %+v, want one 'nests too deeply' warning", diags)
	}
}

// TestDuckDBSeveralStatements: a PIVOT without its values is several
// statements to DuckDB (it first queries the values), which the engine
// never runs: an error, not a shrug.
func TestDuckDBSeveralStatements(t *testing.T) {
	text := "CREATE MATERIALIZED VIEW p AS SELECT * FROM (PIVOT t ON a USING sum(b))"
	st, diags := parseOneIn(t, text, DialectDuckDB)
	if len(diags) != 1 || diags[0].Severity != ir.Error || diags[0].Code != ir.CodeRefusedSQL || !strings.Contains(diags[0].Message, "PIVOT") {
		t.Fatalf("diagnostics = %+v, want one sql-refused error", diags)
	}
	want(t, text[diags[0].Loc.Start:diags[0].Loc.End], "SELECT")
	want(t, st.Query.Parser, "")
}

func TestConcurrentParse(t *testing.T) {
	text := "SELECT * EXCEPT (a) FROM t; SELECT * FROM u WHERE a = ); FROM v SELECT 1"
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			for j := 0; j < 20; j++ {
				f := Parse("f.sql", text)
				got := fmt.Sprint(refStrings(text, f.Statements[0].Query), refStrings(text, f.Statements[2].Query), len(f.Diags))
				if got != "[t@t] [v@v] 1" {
					errs <- fmt.Errorf("got %s", got)
					return
				}
			}
			errs <- nil
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"CREATE MATERIALIZED VIEW a COMMENT 'x' AS SELECT * FROM STREAM(b) JOIN c USING (k) GROUP BY ALL;",
		"CREATE FLOW f AS INSERT INTO t BY NAME SELECT * FROM STREAM x; SET a.b = 1; USE CATALOG c",
		"WITH c AS (SELECT 1) FROM c SELECT * EXCLUDE (a) QUALIFY true",
		"CREATE STREAMING TABLE s (a INT) PARTITIONED BY (a) TBLPROPERTIES ('k'='v')",
		"SELECT 'it\\'s' FROM `a`.`b` WHERE WHERE", "DROP TABLE x", "SELECT $$;$$ /* /* */ */ -- x",
		"SELECT * FROM t LATERAL VIEW explode(a) e AS x WHERE a RLIKE 'x' DISTRIBUTE BY a",
		"\x00\xff'", "CREATE VIEW", "(((", "SELECT count(*) OVER () FROM (SELECT max(a) FROM t GROUP BY b)",
		// Databricks' pipeline SQL
		"CREATE OR REFRESH STREAMING LIVE TABLE s (CONSTRAINT c EXPECT (a > 0) ON VIOLATION DROP ROW) AS SELECT * FROM STREAM read_files('/v/x/', format => 'csv')",
		"APPLY CHANGES INTO LIVE.t FROM STREAM(LIVE.s) KEYS (id) APPLY AS DELETE WHEN op = \"D\" SEQUENCE BY seq COLUMNS * EXCEPT (op) STORED AS SCD TYPE 2 TRACK HISTORY ON (a)",
		"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts IGNORE NULL UPDATES; CREATE FLOW g AS INSERT INTO ONCE t BY NAME SELECT 1",
		"-- Databricks notebook source\nSELECT 1\n-- COMMAND ----------\n-- MAGIC %python\n-- MAGIC x\n-- COMMAND ----------\nCREATE LIVE VIEW v AS SELECT * FROM cloud_files('a/b', 'json')",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		file := Parse("f.sql", text)
		checkFile(t, "f.sql", text, file)
		q, diags := ParseQuery("f.sql", text, Span{0, len(text)})
		if q != nil {
			checkQuery(t, "f.sql", text, q)
		}
		checkFile(t, "f.sql", text, File{Diags: diags})
	})
}

// TestSetKeyWithoutValue: SET key (Databricks' pipelines run it; it only
// shows the value) is a warning, never an error that stops the file, and
// sets nothing.
func TestSetKeyWithoutValue(t *testing.T) {
	st, diags := parseOne(t, "SET spark.source")
	if len(diags) != 1 || diags[0].Severity != ir.Warning || diags[0].Code != ir.CodeSQLUnsupported {
		t.Fatalf("diagnostics %+v, want one warning", diags)
	}
	if got := "SET spark.source"[diags[0].Loc.Start:diags[0].Loc.End]; got != "spark.source" {
		t.Errorf("at %q, want the key", got)
	}
	if st.Kind == Set || st.SetKey != "" {
		t.Errorf("kind %v key %q: SET key must set nothing", st.Kind, st.SetKey)
	}
}
