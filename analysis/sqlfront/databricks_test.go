package sqlfront

import (
	"reflect"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/ir"
)

// features lists the constructs of st and its query, as "feature=text".
func features(text string, st Statement) []string {
	var out []string
	add := func(us []SyntaxUse) {
		for _, u := range us {
			out = append(out, string(u.Feature)+"="+text[u.Start:u.End])
		}
	}
	add(st.Syntax)
	if st.Query != nil {
		add(st.Query.Syntax)
	}
	if st.CDC != nil {
		add(st.CDC.Syntax)
	}
	return out
}

func TestDatabricksHeaders(t *testing.T) {
	for _, c := range []struct {
		sql      string
		kind     StmtKind
		name     string
		features []string
	}{
		{"CREATE OR REFRESH MATERIALIZED VIEW a AS SELECT 1 AS x", CreateMaterializedView, "a",
			[]string{string(capab.SynOrRefresh) + "=OR REFRESH"}},
		{"CREATE OR REFRESH STREAMING TABLE b AS SELECT * FROM STREAM(src)", CreateStreamingTable, "b",
			[]string{string(capab.SynOrRefresh) + "=OR REFRESH"}},
		{"CREATE OR REFRESH PRIVATE MATERIALIZED VIEW c AS SELECT 1 AS x", CreateMaterializedView, "c",
			[]string{string(capab.SynOrRefresh) + "=OR REFRESH", string(capab.SynPrivate) + "=PRIVATE"}},
		{"CREATE TEMPORARY STREAMING TABLE d AS SELECT * FROM STREAM(src)", CreateStreamingTable, "d",
			[]string{string(capab.SynTemporary) + "=TEMPORARY"}},
		{"CREATE OR REFRESH LIVE TABLE e AS SELECT * FROM LIVE.a", CreateMaterializedView, "e",
			[]string{string(capab.SynOrRefresh) + "=OR REFRESH", string(capab.SynLive) + "=LIVE TABLE", string(capab.SynLiveRef) + "=LIVE."}},
		{"CREATE STREAMING LIVE TABLE f AS SELECT * FROM STREAM(LIVE.b)", CreateStreamingTable, "f",
			[]string{string(capab.SynLive) + "=STREAMING LIVE TABLE", string(capab.SynLiveRef) + "=LIVE."}},
		{"CREATE TEMPORARY LIVE VIEW g AS SELECT * FROM live.a", CreateTemporaryView, "g",
			[]string{string(capab.SynLive) + "=TEMPORARY LIVE VIEW", string(capab.SynLiveRef) + "=live."}},
		{"CREATE LIVE VIEW h AS SELECT 1 AS x", CreateTemporaryView, "h",
			[]string{string(capab.SynLive) + "=LIVE VIEW"}},
		{"CREATE MATERIALIZED VIEW i AS SELECT 1 AS x", CreateMaterializedView, "i", nil},
		{"CREATE STREAMING LIVE VIEW j AS SELECT * FROM STREAM(src)", CreateTemporaryView, "j",
			[]string{string(capab.SynLive) + "=STREAMING LIVE VIEW"}},
		{"CREATE TEMPORARY STREAMING LIVE VIEW k AS SELECT * FROM STREAM(src)", CreateTemporaryView, "k",
			[]string{string(capab.SynLive) + "=TEMPORARY STREAMING LIVE VIEW"}},
	} {
		f := Parse("x.sql", c.sql)
		if len(f.Diags) != 0 || len(f.Statements) != 1 {
			t.Errorf("%s: diagnostics %+v", c.sql, f.Diags)
			continue
		}
		st := f.Statements[0]
		if st.Kind != c.kind || st.Name != c.name {
			t.Errorf("%s: kind %v name %q, want %v %q", c.sql, st.Kind, st.Name, c.kind, c.name)
		}
		if got := features(c.sql, st); !reflect.DeepEqual(got, c.features) {
			t.Errorf("%s: constructs %q, want %q", c.sql, got, c.features)
		}
	}
}

// TestLiveReference: LIVE.x reads x, at x, streaming under STREAM(...).
func TestLiveReference(t *testing.T) {
	sql := "CREATE STREAMING TABLE s AS SELECT * FROM STREAM(LIVE.raw) JOIN LIVE.`dim` USING (id)"
	f := Parse("x.sql", sql)
	q := f.Statements[0].Query
	if q == nil || len(q.Refs) != 2 {
		t.Fatalf("refs: %+v (diags %+v)", q, f.Diags)
	}
	for i, want := range []struct {
		name, at string
		stream   bool
	}{{"raw", "raw", true}, {"dim", "`dim`", false}} {
		r := q.Refs[i]
		if r.Name != want.name || sql[r.Loc.Start:r.Loc.End] != want.at || r.Streaming != want.stream {
			t.Errorf("ref %d: %q at %q stream %v, want %+v", i, r.Name, sql[r.Loc.Start:r.Loc.End], r.Streaming, want)
		}
	}
}

func TestConstraintExpect(t *testing.T) {
	sql := `CREATE OR REFRESH MATERIALIZED VIEW orders (
  order_id INT,
  status STRING,
  CONSTRAINT known_status EXPECT (status IN ("NEW", 'PAID')) ON VIOLATION DROP ROW,
  CONSTRAINT positive EXPECT (order_id > 0) ON VIOLATION FAIL UPDATE,
  CONSTRAINT has_status EXPECT (status IS NOT NULL)
) AS SELECT * FROM raw_orders`
	f := Parse("x.sql", sql)
	if len(f.Diags) != 0 {
		t.Fatalf("diagnostics %+v", f.Diags)
	}
	st := f.Statements[0]
	want := []struct {
		name, cond, duck string
		action           ir.Action
	}{
		{"known_status", `status IN ("NEW", 'PAID')`, `status IN ('NEW', 'PAID')`, ir.Drop},
		{"positive", "order_id > 0", "order_id > 0", ir.Fail},
		{"has_status", "status IS NOT NULL", "status IS NOT NULL", ir.Warn},
	}
	if len(st.Expects) != len(want) {
		t.Fatalf("expects %+v", st.Expects)
	}
	for i, w := range want {
		e := st.Expects[i]
		if e.Name != w.name || e.Cond != w.cond || e.DuckCond != w.duck || e.Action != w.action {
			t.Errorf("expect %d: %+v, want %+v", i, e, w)
		}
		if sql[e.CondLoc.Start:e.CondLoc.End] != w.cond || sql[e.NameLoc.Start:e.NameLoc.End] != w.name {
			t.Errorf("expect %d: ranges %q %q", i, sql[e.CondLoc.Start:e.CondLoc.End], sql[e.NameLoc.Start:e.NameLoc.End])
		}
	}
	if n := len(st.Syntax); n != 4 { // OR REFRESH and three EXPECTs
		t.Errorf("constructs %q", features(sql, st))
	}
	if st.Query == nil || len(st.Query.Refs) != 1 || st.Query.Refs[0].Name != "raw_orders" {
		t.Errorf("query %+v", st.Query)
	}
}

func TestApplyChanges(t *testing.T) {
	sql := `CREATE OR REFRESH STREAMING TABLE users;

APPLY CHANGES INTO live.users
FROM STREAM(cdc.users_feed)
KEYS (user_id)
APPLY AS DELETE WHEN operation = "DELETE"
SEQUENCE BY seq
COLUMNS * EXCEPT (operation, seq)
STORED AS SCD TYPE 2
TRACK HISTORY ON * EXCEPT (city)`
	f := Parse("x.sql", sql)
	if len(f.Diags) != 0 || len(f.Statements) != 2 {
		t.Fatalf("diagnostics %+v", f.Diags)
	}
	st := f.Statements[1]
	if st.Kind != ApplyChanges || st.Target != "users" || st.Name != "users" || sql[st.TargetLoc.Start:st.TargetLoc.End] != "users" {
		t.Fatalf("statement %+v", st)
	}
	c := st.CDC
	if c == nil || !reflect.DeepEqual(c.Keys, []string{"user_id"}) || c.SequenceBy != "seq" || c.SCD != 2 ||
		c.DeleteWhen != "operation = 'DELETE'" || !c.ColumnsExcept || !reflect.DeepEqual(c.Columns, []string{"operation", "seq"}) {
		t.Fatalf("cdc %+v", c)
	}
	if got := sql[c.Loc.Start:c.Loc.End]; got != "APPLY CHANGES INTO" {
		t.Errorf("cdc at %q", got)
	}
	q := st.Query
	if q == nil || !strings.HasPrefix(q.Text, "SELECT *") || len(q.Text) != q.End-q.Start || len(q.Refs) != 1 ||
		q.Refs[0].Name != "cdc.users_feed" || !q.Refs[0].Streaming || sql[q.Refs[0].Loc.Start:q.Refs[0].Loc.End] != "cdc.users_feed" {
		t.Fatalf("query %+v", q)
	}
	got := features(sql, st)
	want := []string{string(capab.SynLiveRef) + "=live.", string(capab.SynApplyChanges) + "=APPLY CHANGES INTO", string(capab.SynTrackHistory) + "=TRACK HISTORY ON * EXCEPT (city)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("constructs %q, want %q", got, want)
	}
}

func TestAutoCDC(t *testing.T) {
	sql := `CREATE STREAMING TABLE t;
CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts STORED AS SCD TYPE 1;
CREATE STREAMING TABLE u FLOW AUTO CDC FROM STREAM(s) KEYS (id, k) SEQUENCE BY ts IGNORE NULL UPDATES`
	f := Parse("x.sql", sql)
	if len(f.Diags) != 0 || len(f.Statements) != 3 {
		t.Fatalf("diagnostics %+v", f.Diags)
	}
	fl := f.Statements[1]
	if fl.Kind != CreateFlow || fl.Name != "f" || fl.Target != "t" || fl.CDC == nil || fl.CDC.SCD != 1 || fl.Query == nil {
		t.Fatalf("flow %+v", fl)
	}
	if got := sql[fl.CDC.Loc.Start:fl.CDC.Loc.End]; got != "AUTO CDC" {
		t.Errorf("flow's cdc at %q", got)
	}
	tb := f.Statements[2]
	if tb.Kind != CreateStreamingTable || tb.Name != "u" || tb.CDC == nil || !reflect.DeepEqual(tb.CDC.Keys, []string{"id", "k"}) || tb.Query == nil {
		t.Fatalf("table %+v", tb)
	}
	if got := features(sql, tb); !reflect.DeepEqual(got, []string{string(capab.SynAutoCDC) + "=AUTO CDC", string(capab.SynIgnoreNulls) + "=IGNORE NULL UPDATES"}) {
		t.Errorf("constructs %q", got)
	}
	if len(tb.Query.Refs) != 1 || tb.Query.Refs[0].Name != "s" || !tb.Query.Refs[0].Streaming {
		t.Errorf("table's query %+v", tb.Query)
	}
	// CREATE FLOW f AS APPLY CHANGES INTO: Databricks' older name of the
	// same flow, recorded as APPLY CHANGES INTO.
	older := "CREATE FLOW g AS APPLY CHANGES INTO LIVE.t FROM STREAM(s) KEYS (id) SEQUENCE BY ts"
	of := Parse("x.sql", older)
	if len(of.Diags) != 0 || len(of.Statements) != 1 || of.Statements[0].CDC == nil || of.Statements[0].Target != "t" {
		t.Fatalf("APPLY CHANGES flow: %+v %+v", of.Diags, of.Statements)
	}
	if got := features(older, of.Statements[0]); !reflect.DeepEqual(got, []string{string(capab.SynLiveRef) + "=LIVE.", string(capab.SynApplyChanges) + "=APPLY CHANGES"}) {
		t.Errorf("APPLY CHANGES flow's constructs %q", got)
	}
	// A CDC statement Spark's grammar refuses is a syntax error at its
	// place.
	bad := "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id)"
	if d := Parse("x.sql", bad).Diags; len(d) != 1 || !strings.Contains(d[0].Message, "SEQUENCE BY") {
		t.Errorf("missing SEQUENCE BY: %+v", d)
	}
}

func TestDuckExpr(t *testing.T) {
	for in, want := range map[string]string{
		`a = "x"`:         `a = 'x'`,
		`a = "it's"`:      `a = 'it''s'`,
		"`weird col` > 1": `"weird col" > 1`,
		`b IN ('p', "q")`: `b IN ('p', 'q')`,
		`c IS NOT NULL`:   `c IS NOT NULL`,
		`d = "a\"b"`:      `d = 'a"b'`,
	} {
		if got := duckExpr(in); got != want {
			t.Errorf("duckExpr(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFileReads(t *testing.T) {
	sql := `CREATE OR REFRESH STREAMING TABLE raw AS
SELECT * FROM STREAM read_files('/Volumes/shop/landing/orders/', format => 'csv', header => true);
CREATE MATERIALIZED VIEW m AS SELECT a.* FROM read_files("s3://b/dim/regions.json") a JOIN cloud_files('/mnt/x/my-events/*.json', 'json') e ON a.id = e.id`
	f := Parse("x.sql", sql)
	if len(f.Diags) != 0 {
		t.Fatalf("diagnostics %+v", f.Diags)
	}
	q := f.Statements[0].Query
	if len(q.FileReads) != 1 || q.FileReads[0].Name != "orders" || q.FileReads[0].Format != "csv" || q.FileReads[0].Path != "/Volumes/shop/landing/orders/" {
		t.Fatalf("file reads %+v", q.FileReads)
	}
	if len(q.Refs) != 1 || q.Refs[0].Name != "orders" || !q.Refs[0].Streaming || q.Refs[0].Path != "/Volumes/shop/landing/orders/" ||
		!strings.HasPrefix(sql[q.Refs[0].Loc.Start:q.Refs[0].Loc.End], "read_files(") || !strings.HasSuffix(sql[q.Refs[0].Loc.Start:q.Refs[0].Loc.End], "true)") {
		t.Fatalf("refs %+v", q.Refs)
	}
	if len(q.Text) != q.End-q.Start || !strings.Contains(q.Normalized, " orders ") || strings.Contains(q.Normalized, "read_files") {
		t.Errorf("text %q normalized %q", q.Text, q.Normalized)
	}
	m := f.Statements[1].Query
	var names []string
	for _, r := range m.Refs {
		names = append(names, r.Name)
	}
	if !reflect.DeepEqual(names, []string{"regions", "my-events"}) || m.FileReads[1].Format != "json" || m.Refs[0].Streaming || !m.Refs[1].Streaming {
		t.Errorf("refs %q, reads %+v", names, m.FileReads)
	}
	if got := features(sql, f.Statements[1]); !reflect.DeepEqual(got, []string{string(capab.SynReadFiles) + "=read_files", string(capab.SynCloudFiles) + "=cloud_files"}) {
		t.Errorf("constructs %q", got)
	}
}

func TestNotebookExport(t *testing.T) {
	sql := `-- Databricks notebook source
-- MAGIC %md
-- MAGIC # Gold tables

-- COMMAND ----------

CREATE OR REFRESH MATERIALIZED VIEW a AS SELECT 1 AS x

-- COMMAND ----------

-- MAGIC %python
-- MAGIC display(spark.table("a"))

-- COMMAND ----------

-- Counts.
CREATE OR REFRESH MATERIALIZED VIEW b AS SELECT count(*) AS n FROM a
`
	f := Parse("nb.sql", sql)
	if len(f.Statements) != 2 || f.Statements[0].Name != "a" || f.Statements[1].Name != "b" {
		t.Fatalf("statements %+v", f.Statements)
	}
	if len(f.Diags) != 1 || f.Diags[0].Code != ir.CodeNotebookCell || f.Diags[0].Severity != ir.Info ||
		sql[f.Diags[0].Loc.Start:f.Diags[0].Loc.End] != "-- MAGIC %python" || !strings.Contains(f.Diags[0].Message, "%python cell is not analysed") {
		t.Fatalf("diagnostics %+v", f.Diags)
	}
	if st := f.Statements[0]; strings.Contains(sql[st.Start:st.End], "COMMAND") {
		t.Errorf("statement a runs into the next cell: %q", sql[st.Start:st.End])
	}
	// Without the header, the same text is one file of statements: the
	// missing ';' is Spark's syntax error.
	if d := Parse("x.sql", strings.TrimPrefix(sql, "-- Databricks notebook source\n")).Diags; len(d) == 0 {
		t.Errorf("without the notebook header, no error for the missing ';'")
	}
}

// TestViewExpectations: Databricks' views take expectations in their
// column list, beside column names.
func TestViewExpectations(t *testing.T) {
	sql := "CREATE TEMPORARY LIVE VIEW v (id, CONSTRAINT has_name EXPECT (name IS NOT NULL) ON VIOLATION DROP ROW) AS SELECT id, name FROM customers"
	f := Parse("x.sql", sql)
	if len(f.Diags) != 0 || len(f.Statements) != 1 {
		t.Fatalf("diagnostics %+v", f.Diags)
	}
	st := f.Statements[0]
	if st.Kind != CreateTemporaryView || len(st.Expects) != 1 || st.Expects[0].Name != "has_name" || st.Expects[0].Action != ir.Drop {
		t.Fatalf("statement %+v", st)
	}
}

// TestExpectationsUnread: a column list with expectations that Spark's
// grammar does not read is an error, not expectations dropped unsaid.
func TestExpectationsUnread(t *testing.T) {
	sql := "CREATE OR REFRESH MATERIALIZED VIEW m (id INT, CONSTRAINT ok EXPECT (id > 0) ON VIOLATION KEEP ROW) AS SELECT 1 AS id"
	f := Parse("x.sql", sql)
	if len(f.Diags) != 1 || f.Diags[0].Code != ir.CodeSQLSyntax || !strings.Contains(f.Diags[0].Message, "expectations, which are not applied") {
		t.Fatalf("diagnostics %+v", f.Diags)
	}
}

// TestDuckExprRegex: an expectation's Spark condition as DuckDB reads it:
// "..." strings, `names`, RLIKE/REGEXP as regexp_matches (a match of a
// part, as Spark's), and a '...' string with backslash escapes unescaped.
func TestDuckExprRegex(t *testing.T) {
	for _, c := range [][2]string{
		{`status IN ("NEW", "PAID")`, `status IN ('NEW', 'PAID')`},
		{"`the id` IS NOT NULL", `"the id" IS NOT NULL`},
		{`email RLIKE '^[^@]+@[^@]+$'`, `regexp_matches(email, '^[^@]+@[^@]+$')`},
		{`id > 0 AND code NOT REGEXP "x[0-9]" OR lower(name) rlike 'a'`, `id > 0 AND NOT regexp_matches(code, 'x[0-9]') OR regexp_matches(lower(name), 'a')`},
		{`zip RLIKE '\\d{5}'`, `regexp_matches(zip, '\d{5}')`},
		{`name LIKE 'a%'`, `name LIKE 'a%'`},
	} {
		if got := duckExpr(c[0]); got != c[1] {
			t.Errorf("duckExpr(%s) = %s, want %s", c[0], got, c[1])
		}
	}
}

// TestCDCSubquerySource: a subquery over STREAM(x) as the source of APPLY
// CHANGES INTO and of both AUTO CDC forms (QA13 N6's silver.sql) is the
// flow's query, SELECT * FROM (subquery), written over the statement in
// place: it reads x as a stream, and its filter stays.
func TestCDCSubquerySource(t *testing.T) {
	sql := `CREATE OR REFRESH STREAMING TABLE silver;
APPLY CHANGES INTO silver
FROM (
  SELECT city_id, ingestion_timestamp, current_timestamp() AS at
  FROM STREAM(bronze_city)
  WHERE city_id IS NOT NULL
)
KEYS (city_id)
SEQUENCE BY ingestion_timestamp
STORED AS SCD TYPE 2;
CREATE STREAMING TABLE t;
CREATE FLOW f AS AUTO CDC INTO t FROM (SELECT id, keys, ts FROM STREAM s.x WHERE keys > 0) AS k KEYS (id) SEQUENCE BY ts;
CREATE STREAMING TABLE u FLOW AUTO CDC FROM (SELECT * FROM STREAM(y)) KEYS (id) SEQUENCE BY ts;`
	f := Parse("x.sql", sql)
	if len(f.Diags) != 0 || len(f.Statements) != 5 {
		t.Fatalf("diagnostics %+v", f.Diags)
	}
	for _, c := range []struct {
		i          int
		read, tail string
	}{{1, "bronze_city", "WHERE city_id IS NOT NULL\n)"}, {3, "s.x", "WHERE keys > 0) AS k"}, {4, "y", "FROM (SELECT * FROM STREAM(y))"}} {
		st := f.Statements[c.i]
		q := st.Query
		if st.CDC == nil || q == nil || !strings.HasPrefix(q.Text, "SELECT *") || len(q.Text) != q.End-q.Start ||
			!strings.HasSuffix(q.Text, c.tail) || len(q.Refs) != 1 || q.Refs[0].Name != c.read || !q.Refs[0].Streaming {
			t.Errorf("statement %d: query %+v", c.i, q)
		}
	}
	if c := f.Statements[1].CDC; c.SCD != 2 || c.SequenceBy != "ingestion_timestamp" || !reflect.DeepEqual(c.Keys, []string{"city_id"}) {
		t.Errorf("cdc %+v", c)
	}
	// over a batch read it is Spark 4.3's error, under the subquery
	bad := "CREATE FLOW f AS AUTO CDC INTO t FROM (SELECT * FROM m) KEYS (id) SEQUENCE BY ts"
	if d := Parse("x.sql", bad).Diags; len(d) != 1 || bad[d[0].Loc.Start:d[0].Loc.End] != "(SELECT * FROM m)" {
		t.Errorf("batch subquery: %+v", d)
	}
}

// TestStreamFilePath: STREAM over a read of files by path (json.`p`,
// STREAM(csv.`p`)) is recorded as capab.SynStreamFilePath at the read,
// which Spark resolves to a batch relation; delta.`p` and a path read
// without STREAM are not.
func TestStreamFilePath(t *testing.T) {
	sql := "CREATE STREAMING TABLE a AS SELECT * FROM STREAM json.`/tmp/in/jdata`;\n" +
		"CREATE STREAMING TABLE b AS SELECT * FROM STREAM(csv.`/tmp/in/orders.csv`);\n" +
		"CREATE STREAMING TABLE c AS SELECT * FROM STREAM delta.`/tmp/in/events`;\n" +
		"CREATE MATERIALIZED VIEW d AS SELECT * FROM json.`/tmp/in/jdata`;"
	f := Parse("x.sql", sql)
	if len(f.Diags) != 0 || len(f.Statements) != 4 {
		t.Fatalf("diagnostics %+v", f.Diags)
	}
	want := [][]string{
		{string(capab.SynStreamFilePath) + "=json.`/tmp/in/jdata`"},
		{string(capab.SynStreamFilePath) + "=csv.`/tmp/in/orders.csv`"},
		nil, nil,
	}
	for i, st := range f.Statements {
		if got := features(sql, st); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("statement %d: constructs %q, want %q", i, got, want[i])
		}
	}
}

// TestOrReplaceDataset: CREATE OR REPLACE MATERIALIZED VIEW | STREAMING
// TABLE is a construct at OR REPLACE (capab refuses it per backend, each
// with the form it reads), no longer one syntax error for all.
func TestOrReplaceDataset(t *testing.T) {
	sql := "CREATE OR REPLACE MATERIALIZED VIEW m AS SELECT 1 AS id;\nCREATE OR REPLACE STREAMING TABLE s AS SELECT * FROM STREAM(m);\nCREATE OR REPLACE VIEW v AS SELECT 1"
	f := Parse("x.sql", sql)
	if len(f.Diags) != 0 || len(f.Statements) != 3 {
		t.Fatalf("diagnostics %+v", f.Diags)
	}
	want := [][]string{{string(capab.SynOrReplaceMV) + "=OR REPLACE"}, {string(capab.SynOrReplaceST) + "=OR REPLACE"}, nil}
	for i, st := range f.Statements {
		if got := features(sql, st); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("statement %d: constructs %q, want %q", i, got, want[i])
		}
	}
}
