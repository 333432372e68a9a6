package sqlfront

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/ir"
)

func TestDeclaredColumns(t *testing.T) {
	text := "CREATE MATERIALIZED VIEW m (id LONG NOT NULL, amount DEC(20, 2) COMMENT 'money', tags ARRAY<STRING>, d DECIMAL) AS SELECT 1 AS id"
	f := Parse("a.sql", text)
	if len(f.Diags) > 0 {
		t.Fatal(f.Diags)
	}
	got := f.Statements[0].Declared
	want := []struct {
		name, typ string
		notNull   bool
		comment   string
	}{{"id", "bigint", true, ""}, {"amount", "decimal(20,2)", false, "money"}, {"tags", "array<string>", false, ""}, {"d", "decimal(10,0)", false, ""}}
	if len(got) != len(want) {
		t.Fatalf("got %d columns, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.name || g.Type != w.typ || g.NotNull != w.notNull || g.Comment != w.comment {
			t.Errorf("column %d: got %+v, want %+v", i, g, w)
		}
		if text[g.NameLoc.Start:g.NameLoc.End] != w.name {
			t.Errorf("column %d: name range holds %q", i, text[g.NameLoc.Start:g.NameLoc.End])
		}
	}
}

// schemaCase parses one CREATE MATERIALIZED VIEW and checks its query's
// select list against its declared columns, the output names taken from
// the aliases (what sema gives for such a query, without types).
func schemaCase(t *testing.T, text string) []ir.Diagnostic {
	t.Helper()
	f := Parse("a.sql", text)
	if len(f.Diags) > 0 {
		t.Fatal(f.Diags)
	}
	st := f.Statements[0]
	d := &ir.Dataset{Name: st.Name, Declared: DeclaredColumns("a.sql", st.Declared)}
	sel := st.Query.Spark.Body.(*ast.Select)
	out := make([]sema.Column, len(sel.Items))
	for i, it := range sel.Items {
		out[i] = sema.Column{Name: it.Alias.Name}
	}
	return SchemaErrors(d, st.Query.Spark, st.Query.Span.Loc("a.sql"), out)
}

func TestSchemaErrors(t *testing.T) {
	for _, c := range []struct {
		text string
		// want is the text each error is at, and a word of its message.
		want [][2]string
	}{
		{"CREATE MATERIALIZED VIEW m (id INT, name STRING) AS SELECT 1 AS id, 'a' AS name", nil},
		{"CREATE MATERIALIZED VIEW m (name STRING, id INT) AS SELECT 1 AS id, 'a' AS name", nil},
		{"CREATE MATERIALIZED VIEW m (id INT NOT NULL) AS SELECT 1 AS id", nil},
		{"CREATE MATERIALIZED VIEW m (a DECIMAL(20,2)) AS SELECT CAST(1 AS DECIMAL(10,2)) AS a", nil},
		{"CREATE MATERIALIZED VIEW m (a DECIMAL(20,2)) AS SELECT 1.50 AS a", nil},
		{"CREATE MATERIALIZED VIEW m (id BIGINT) AS SELECT 1 AS id", [][2]string{{"1 AS id", "as INT"}}},
		{"CREATE MATERIALIZED VIEW m (id BIGINT) AS SELECT 1L AS id", nil},
		{"CREATE MATERIALIZED VIEW m (a DECIMAL(10,2)) AS SELECT CAST(1 AS DECIMAL(20,2)) AS a", [][2]string{{"CAST(1 AS DECIMAL(20,2)) AS a", "DECIMAL(20,2)"}}},
		{"CREATE MATERIALIZED VIEW m (a DECIMAL(10,3)) AS SELECT 1.50 AS a", [][2]string{{"1.50 AS a", "DECIMAL(3,2)"}}},
		{"CREATE MATERIALIZED VIEW m (id INT) AS SELECT 1 AS id, 'a' AS name", [][2]string{{"'a' AS name", "does not declare"}}},
		{"CREATE MATERIALIZED VIEW m (id INT NOT NULL) AS SELECT CAST(NULL AS INT) AS id", [][2]string{{"CAST(NULL AS INT) AS id", "NOT NULL"}}},
		{"CREATE MATERIALIZED VIEW m (d TIMESTAMP) AS SELECT DATE'2020-01-01' AS d", [][2]string{{"DATE'2020-01-01' AS d", "as DATE"}}},
	} {
		got := schemaCase(t, c.text)
		if len(got) != len(c.want) {
			t.Errorf("%s: got %d errors, want %d: %v", c.text, len(got), len(c.want), got)
			continue
		}
		for i, w := range c.want {
			g := got[i]
			if at := c.text[g.Loc.Start:g.Loc.End]; at != w[0] || !strings.Contains(g.Message, w[1]) || !strings.Contains(g.Message, schemaClass) {
				t.Errorf("%s: error at %q (%s), want at %q saying %q", c.text, at, g.Message, w[0], w[1])
			}
		}
	}
}

// TestMissingDeclared: a declared column the query of a materialized view
// does not give fails Spark's write, at the declared column; a streaming
// table takes NULL for it, so it is not reported there.
func TestMissingDeclared(t *testing.T) {
	text := "CREATE MATERIALIZED VIEW m (id INT, Extra DECIMAL(10,2), name STRING) AS SELECT 1 AS id, 'a' AS NAME"
	f := Parse("a.sql", text)
	if len(f.Diags) > 0 {
		t.Fatal(f.Diags)
	}
	st := f.Statements[0]
	out := []sema.Column{{Name: "id", Type: "int"}, {Name: "NAME", Type: "string"}}
	d := &ir.Dataset{Name: st.Name, Kind: ir.MaterializedView, Declared: DeclaredColumns("a.sql", st.Declared)}
	got := SchemaErrors(d, st.Query.Spark, st.Query.Span.Loc("a.sql"), out)
	if len(got) != 1 {
		t.Fatalf("got %d errors, want 1: %v", len(got), got)
	}
	g := got[0]
	if at := text[g.Loc.Start:g.Loc.End]; at != "Extra" {
		t.Errorf("error at %q, want at the declared column Extra", at)
	}
	for _, w := range []string{"declares Extra, which its query does not give", "struct<id:int,Extra:decimal(10,2),name:string>", "CAST(NULL AS DECIMAL(10,2)) AS Extra"} {
		if !strings.Contains(g.Message, w) {
			t.Errorf("message %q lacks %q", g.Message, w)
		}
	}
	d.Kind = ir.StreamingTable
	if got := SchemaErrors(d, st.Query.Spark, st.Query.Span.Loc("a.sql"), out); len(got) != 0 {
		t.Errorf("streaming table: got %v, want none (Spark stores NULL)", got)
	}
}

// TestDeclaredCase: a query column named like a declared column in
// another case is recorded at its select item (capab refuses it before
// Spark 4.3); one spelt as declared, or a computed column, is not.
func TestDeclaredCase(t *testing.T) {
	text := "CREATE MATERIALIZED VIEW m (ID BIGINT, name STRING, n INT) AS SELECT t.id, name, upper(x) AS Name2, 1 AS N FROM t"
	f := Parse("a.sql", text)
	if len(f.Diags) > 0 {
		t.Fatal(f.Diags)
	}
	var at []string
	for _, u := range f.Statements[0].Syntax {
		if u.Feature == capab.SynDeclaredCase {
			at = append(at, text[u.Start:u.End])
		}
	}
	if strings.Join(at, "; ") != "t.id; 1 AS N" {
		t.Errorf("recorded at %q, want t.id and 1 AS N", at)
	}
	f = Parse("a.sql", "CREATE MATERIALIZED VIEW m AS SELECT id AS ID FROM t")
	for _, u := range f.Statements[0].Syntax {
		if u.Feature == capab.SynDeclaredCase {
			t.Errorf("recorded without a column list: %+v", u)
		}
	}
}

// A PARTITIONED BY or CLUSTER BY column the dataset's query does not give
// is an error at the name as written, with the nearest column as the
// suggestion; names compare case-insensitively, and a pragma's columns
// (no ranges) are not checked.
func TestLayoutErrors(t *testing.T) {
	text := "CREATE MATERIALIZED VIEW mv PARTITIONED BY (regin, ID) CLUSTER BY (zzz) AS SELECT 1 AS id, 'x' AS region"
	f := Parse("a.sql", text)
	if len(f.Diags) > 0 {
		t.Fatal(f.Diags)
	}
	st := f.Statements[0]
	d := &ir.Dataset{Name: "mv", PartitionBy: st.PartitionBy, ClusterBy: st.ClusterBy,
		PartitionLocs: Spans("a.sql", st.PartitionSpans), ClusterLocs: Spans("a.sql", st.ClusterSpans)}
	out := []sema.Column{{Name: "id", Type: "int"}, {Name: "region", Type: "string"}}
	diags := LayoutErrors(d, out)
	if len(diags) != 2 {
		t.Fatalf("got %d findings, want 2: %+v", len(diags), diags)
	}
	p, c := diags[0], diags[1]
	if text[p.Loc.Start:p.Loc.End] != "regin" || len(p.Suggestions) != 1 || p.Suggestions[0] != "region" ||
		!strings.Contains(p.Message, "COLUMN_NOT_DEFINED_IN_TABLE") || !strings.Contains(p.Message, "did you mean region?") || p.Code != ir.CodeUnknownColumn {
		t.Errorf("partition finding: %q at %q %v", p.Message, text[p.Loc.Start:p.Loc.End], p.Suggestions)
	}
	if text[c.Loc.Start:c.Loc.End] != "zzz" || len(c.Suggestions) != 0 || !strings.Contains(c.Message, "CLUSTER BY of mv names the column zzz") {
		t.Errorf("cluster finding: %q at %q %v", c.Message, text[c.Loc.Start:c.Loc.End], c.Suggestions)
	}
	if got := LayoutErrors(d, nil); got != nil {
		t.Errorf("unknown output columns gave %+v", got)
	}
	// A transform is refused on its own account (SynPartitionTransform),
	// not looked up as a column.
	tf := Parse("a.sql", "CREATE MATERIALIZED VIEW e PARTITIONED BY (years(ts)) AS SELECT current_timestamp() AS ts").Statements[0]
	td := &ir.Dataset{Name: "e", PartitionBy: tf.PartitionBy, PartitionLocs: Spans("a.sql", tf.PartitionSpans)}
	if got := LayoutErrors(td, []sema.Column{{Name: "ts"}}); got != nil {
		t.Errorf("a partition transform gave %+v", got)
	}
	pragma := &ir.Dataset{Name: "mv", PartitionBy: []string{"nope"}}
	if got := LayoutErrors(pragma, out); got != nil {
		t.Errorf("a pragma's partition columns gave %+v", got)
	}
}

// The CONSTRAINT ... EXPECT clauses of a streaming table declared without
// a query become the IR's expectations, with their ranges.
func TestExpectationsOfTableWithoutQuery(t *testing.T) {
	text := "CREATE OR REFRESH STREAMING TABLE t (CONSTRAINT ok EXPECT (id IS NOT NULL) ON VIOLATION DROP ROW)"
	f := Parse("a.sql", text)
	if len(f.Diags) > 0 {
		t.Fatal(f.Diags)
	}
	st := f.Statements[0]
	if st.Query != nil {
		t.Fatalf("query %+v", st.Query)
	}
	exps := Expectations("a.sql", st.Expects)
	if len(exps) != 1 || exps[0].Name != "ok" || exps[0].Action != ir.Drop || !exps[0].InSQL ||
		text[exps[0].SQLLoc.Start:exps[0].SQLLoc.End] != "id IS NOT NULL" {
		t.Fatalf("expectations %+v", exps)
	}
}
