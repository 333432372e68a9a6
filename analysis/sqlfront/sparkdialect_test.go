package sqlfront

import (
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestSparkDialectExamples: the Spark SQL of issue 15's examples is read
// without a diagnostic, with its tables at their ranges.
func TestSparkDialectExamples(t *testing.T) {
	tests := []struct {
		text string
		refs []string
	}{
		{`CREATE MATERIALIZED VIEW mv COMMENT "Orders per day" AS SELECT 1 AS x`, nil},
		{`CREATE MATERIALIZED VIEW e1 AS SELECT * EXCEPT (s), int(id) AS i, "x" AS lit FROM a`, []string{"a@a"}},
		{`CREATE MATERIALIZED VIEW e2 AS SELECT date(timestamp(int(x))) FROM t`, []string{"t@t"}},
		{`CREATE MATERIALIZED VIEW e3 AS SELECT 1Y + 2S + 3L + 1.5D + 2.0BD, X'1F', INTERVAL 1 DAY FROM t`, []string{"t@t"}},
		{`CREATE MATERIALIZED VIEW e4 AS SELECT id FROM VALUES (1, 'a') AS t(id, v)`, nil},
		{`CREATE STREAMING TABLE e5 AS SELECT window.start, count(*) FROM STREAM src WATERMARK ts DELAY OF INTERVAL 10 SECONDS GROUP BY window(ts, '5 seconds')`,
			[]string{"src@src stream"}},
		{`CREATE MATERIALIZED VIEW e6 AS WITH 12m_payer AS (SELECT 1 AS a) SELECT * FROM 12m_payer`, nil},
		{`CREATE MATERIALIZED VIEW e7 TBLPROPERTIES ("k" = "v") AS SELECT * FROM cat.db.t`, []string{"cat.db.t@cat.db.t"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			st, diags := parseOne(t, tt.text)
			noDiags(t, tt.text, diags)
			if st.Query == nil {
				t.Fatal("no query")
			}
			want(t, refStrings(tt.text, st.Query), tt.refs)
			if st.Query.Spark == nil {
				t.Error("no Spark tree")
			}
		})
	}
	st, _ := parseOne(t, tests[0].text)
	want(t, st.Comment, "Orders per day")
	st, _ = parseOne(t, tests[7].text)
	want(t, st.Properties["k"], "v")
}

func TestSparkSetCatalog(t *testing.T) {
	for _, text := range []string{"SET CATALOG c", "SET CATALOG `c`", "SET CATALOG 'c'"} {
		st, diags := parseOne(t, text)
		noDiags(t, text, diags)
		want(t, st.Kind, UseCatalog)
		want(t, st.SetValue, "c")
	}
}

// TestSQLWatermark: the query's WATERMARK clause is the flow's watermark,
// marked as written in the SQL.
func TestSQLWatermark(t *testing.T) {
	text := "CREATE STREAMING TABLE s AS SELECT count(*) FROM STREAM src WATERMARK ts AS t DELAY OF INTERVAL 10 SECONDS 5 MILLISECONDS GROUP BY window(t, '1 minute')"
	st, diags := parseOne(t, text)
	noDiags(t, text, diags)
	w := st.Query.Watermark
	if w == nil {
		t.Fatal("no watermark")
	}
	want(t, *w, ir.Watermark{Column: "t", Delay: "10 seconds 5 milliseconds", InSQL: true,
		Loc: ir.Loc{File: "f.sql", Start: 60, End: len(text) - len(" GROUP BY window(t, '1 minute')")}})
	want(t, text[w.Loc.Start:w.Loc.End], "WATERMARK ts AS t DELAY OF INTERVAL 10 SECONDS 5 MILLISECONDS")
}
