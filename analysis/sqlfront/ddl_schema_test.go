package sqlfront

import (
	"strings"
	"testing"

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
