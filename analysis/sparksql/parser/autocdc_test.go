package parser

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// The AUTO CDC statements, checked against the parsers of pyspark 4.1.4,
// 4.2.1 (both refuse them) and 4.3.0 (accepts them).
var autoCDCOK = []string{
	"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts",
	"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id, k) SEQUENCE BY ts APPLY AS DELETE WHEN op = 'D' " +
		"COLUMNS * EXCEPT (op) STORED AS SCD TYPE 2 TRACK HISTORY ON (a, b)",
	"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) STORED AS SCD TYPE 1 COLUMNS (a, b) SEQUENCE BY ts",
	"CREATE FLOW f COMMENT 'x' AS AUTO CDC INTO a.b.t FROM STREAM a.s AS x KEYS (id) SEQUENCE BY struct(a, b) TRACK HISTORY ON * EXCEPT (a)",
	"CREATE STREAMING TABLE t FLOW AUTO CDC FROM STREAM(s) KEYS (id) SEQUENCE BY ts",
	"CREATE STREAMING TABLE IF NOT EXISTS t (id INT, v STRING) COMMENT 'c' FLOW AUTO CDC FROM STREAM(s) KEYS (id) SEQUENCE BY ts STORED AS SCD TYPE 2",
}

var autoCDCErr = []struct{ sql, class, at string }{
	{"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) SEQUENCE BY ts KEYS (id)", "PARSE_SYNTAX_ERROR", "BY"},
	{"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts KEYS (id)", "PARSE_SYNTAX_ERROR", "KEYS"},
	{"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts STORED AS SCD TYPE 3", "_LEGACY_ERROR_TEMP_0035", "3"},
	{"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id)", "MISSING_CLAUSES_FOR_OPERATION", "AUTO CDC INTO t FROM STREAM(s) KEYS (id)"},
	{"CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (id) SEQUENCE BY ts", "_LEGACY_ERROR_TEMP_0035", "s"},
	{"CREATE MATERIALIZED VIEW t FLOW AUTO CDC FROM STREAM(s) KEYS (id) SEQUENCE BY ts", "_LEGACY_ERROR_TEMP_0035", "FLOW AUTO CDC FROM STREAM(s) KEYS (id) SEQUENCE BY ts"},
	{"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts COLUMNS (a) COLUMNS (b)", "DUPLICATE_CLAUSES", "COLUMNS (b)"},
	{"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts APPLY AS TRUNCATE WHEN x", "PARSE_SYNTAX_ERROR", "TRUNCATE"},
	{"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts IGNORE NULL UPDATES", "PARSE_SYNTAX_ERROR", "IGNORE"},
}

func TestAutoCDCVersions(t *testing.T) {
	for _, sql := range autoCDCOK {
		if _, errs := ParseStatement(sql, Options{Version: Spark43}); len(errs) > 0 {
			t.Errorf("4.3: %s: %s (%s)", sql, errs[0].Message, errs[0].Class)
		}
		if !strings.HasPrefix(sql, "CREATE") {
			continue
		}
		for _, v := range []Version{Spark41, Spark42} {
			_, errs := ParseStatement(sql, Options{Version: v})
			want := "AUTO"
			if strings.Contains(sql, "FLOW AUTO") {
				want = "FLOW"
			}
			if len(errs) != 1 || errs[0].Class != "PARSE_SYNTAX_ERROR" || sql[errs[0].Start:errs[0].End] != want ||
				!strings.Contains(errs[0].Message, "AUTO CDC in SQL needs Spark 4.3") {
				t.Errorf("%s: %s: %v, want a syntax error at %s with the 4.3 note", v, sql, errs, want)
			}
		}
		roundTripAt(t, sql, Options{Version: Spark43})
	}
	for _, c := range autoCDCErr {
		_, errs := ParseStatement(c.sql, Options{Version: Spark43})
		if len(errs) == 0 {
			t.Errorf("%s: parsed, want %s", c.sql, c.class)
			continue
		}
		e := errs[0]
		if e.Class != c.class || c.sql[e.Start:e.End] != c.at {
			t.Errorf("%s: %s at %q (%s), want %s at %q", c.sql, e.Class, c.sql[e.Start:e.End], e.Message, c.class, c.at)
		}
	}
}

func TestAutoCDCTree(t *testing.T) {
	src := autoCDCOK[1]
	st, errs := ParseStatement(src, Options{Version: Spark43})
	if len(errs) > 0 {
		t.Fatal(errs[0].Message)
	}
	f := st.(*ast.CreateFlow)
	a := f.AutoCDC
	if f.Insert != nil || a == nil {
		t.Fatalf("flow %+v", f)
	}
	at := func(r ast.Range) string { return src[r.Start:r.End] }
	if at(a.Range) != src[strings.Index(src, "AUTO"):] || a.Target.String() != "t" || at(a.Source.Range) != "STREAM(s)" ||
		len(a.Keys) != 2 || at(a.SequenceBy.Span()) != "ts" || at(a.DeleteWhen.Span()) != "op = 'D'" ||
		!a.ColumnsExcept || a.Columns[0].String() != "op" || a.SCDType != 2 || a.TrackHistoryExcept || len(a.TrackHistory) != 2 {
		t.Errorf("AUTO CDC tree: %+v", a)
	}
	var kws []string
	for _, c := range a.Clauses {
		kws = append(kws, c.Keyword)
	}
	if got := strings.Join(kws, ","); got != "SEQUENCE BY,APPLY AS DELETE WHEN,COLUMNS,STORED AS,TRACK HISTORY" {
		t.Errorf("clauses %s", got)
	}

	st, _ = ParseStatement(autoCDCOK[5], Options{Version: Spark43})
	c := st.(*ast.Create)
	if c.Kind != ast.CreateStreamingTable || c.AutoCDC == nil || c.AutoCDC.Target != nil || c.Query != nil ||
		len(c.Columns) != 2 || c.Comment == nil || c.AutoCDC.SCDType != 2 {
		t.Errorf("streaming table with AUTO CDC: %+v", c)
	}
}

func roundTripAt(t *testing.T, src string, opts Options) {
	t.Helper()
	sc := Parse(src, opts)
	text := ast.Format(sc)
	again := Parse(text, opts)
	if len(again.Errors) > 0 {
		t.Errorf("%s: the formatted %q does not parse: %s", src, text, again.Errors[0].Message)
		return
	}
	if d := ast.Diff(sc, again); d != "" {
		t.Errorf("%s: the formatted %q parses into another tree: %s", src, text, d)
	}
}

// A subquery over a STREAM read is a streaming AUTO CDC source: Spark
// 4.3.0's dry run completed each of these (both statement forms, with an
// alias, with SCD 2), and refused the subquery over a batch read with
// _LEGACY_ERROR_TEMP_0035 under the whole subquery.
func TestAutoCDCSubquerySource(t *testing.T) {
	ok := []struct{ sql, stream string }{
		{"CREATE FLOW f AS AUTO CDC INTO t FROM (SELECT id, ts, op FROM STREAM(src) WHERE id > 0) KEYS (id) SEQUENCE BY ts", "STREAM(src)"},
		{"CREATE STREAMING TABLE t2 FLOW AUTO CDC FROM (SELECT id, ts FROM STREAM(src) WHERE id > 0) KEYS (id) SEQUENCE BY ts STORED AS SCD TYPE 2", "STREAM(src)"},
		{"CREATE FLOW f4 AS AUTO CDC INTO t4 FROM (SELECT id, ts FROM STREAM(src)) AS s KEYS (id) SEQUENCE BY ts", "STREAM(src)"},
		{"CREATE FLOW f AS AUTO CDC INTO t FROM (SELECT * FROM (SELECT * FROM STREAM a.b WHERE x IN (SELECT x FROM c))) KEYS (id) SEQUENCE BY ts", "STREAM a.b"},
	}
	for _, c := range ok {
		st, errs := ParseStatement(c.sql, Options{Version: Spark43})
		if len(errs) > 0 {
			t.Errorf("%s: %s (%s)", c.sql, errs[0].Message, errs[0].Class)
			continue
		}
		var a *ast.AutoCDC
		switch s := st.(type) {
		case *ast.CreateFlow:
			a = s.AutoCDC
		case *ast.Create:
			a = s.AutoCDC
		}
		if a == nil || a.Source == nil || c.sql[a.Source.Start:a.Source.End] != c.stream || len(a.Keys) != 1 || a.SequenceBy == nil {
			t.Errorf("%s: tree %+v, want the source %s and KEYS (id)", c.sql, a, c.stream)
		}
	}
	// Databricks' APPLY CHANGES INTO (the public project QA13 N6 writes it so).
	dbx := "APPLY CHANGES INTO s.silver FROM (SELECT city_id, ingestion_timestamp FROM STREAM(s.bronze) WHERE city_id IS NOT NULL) " +
		"KEYS (city_id) SEQUENCE BY ingestion_timestamp STORED AS SCD TYPE 2"
	if st, errs := ParseStatement(dbx, Options{Databricks: true}); len(errs) > 0 {
		t.Errorf("databricks: %s: %s", dbx, errs[0].Message)
	} else if a := st.(*ast.ApplyChanges).CDC; dbx[a.Source.Start:a.Source.End] != "STREAM(s.bronze)" || a.SCDType != 2 {
		t.Errorf("databricks: %s: tree %+v", dbx, a)
	}
	bad := []struct{ sql, at string }{
		{"CREATE FLOW f3 AS AUTO CDC INTO t3 FROM (SELECT id, ts FROM m) KEYS (id) SEQUENCE BY ts", "(SELECT id, ts FROM m)"},
		{"CREATE FLOW f AS AUTO CDC INTO t FROM (SELECT id FROM m WHERE id IN (SELECT id FROM STREAM(s))) KEYS (id) SEQUENCE BY ts",
			"(SELECT id FROM m WHERE id IN (SELECT id FROM STREAM(s)))"},
	}
	for _, c := range bad {
		_, errs := ParseStatement(c.sql, Options{Version: Spark43})
		if len(errs) == 0 || errs[0].Class != "_LEGACY_ERROR_TEMP_0035" || c.sql[errs[0].Start:errs[0].End] != c.at {
			t.Errorf("%s: %v, want _LEGACY_ERROR_TEMP_0035 at %q", c.sql, errs, c.at)
		}
	}
}
