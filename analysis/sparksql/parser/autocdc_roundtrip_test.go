package parser_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

// cdcRoundTrip is roundTrip under opts, which the AUTO CDC and APPLY
// CHANGES statements need (Spark 4.3's grammar, Databricks').
func cdcRoundTrip(src string, opts parser.Options) string {
	sc := parser.Parse(src, opts)
	if len(sc.Errors) > 0 {
		return fmt.Sprintf("does not parse: %s", sc.Errors[0].Message)
	}
	text := ast.Format(sc)
	again := parser.Parse(text, opts)
	for _, e := range again.Errors {
		return fmt.Sprintf("the formatted text %q does not parse: %s", text, e.Message)
	}
	if d := ast.Diff(sc, again); d != "" {
		return fmt.Sprintf("the formatted text %q parses into another tree: %s", text, d)
	}
	if text2 := ast.Format(again); text2 != text {
		return fmt.Sprintf("formatting is not stable:\n  %q\n  %q", text, text2)
	}
	return ""
}

// TestAutoCDCRoundTrip: an AUTO CDC or APPLY CHANGES source formats as
// written, a subquery over STREAM(s) included (its WHERE kept), and the
// text parses into an equal tree.
func TestAutoCDCRoundTrip(t *testing.T) {
	s43, dbx := parser.Options{Version: parser.Spark43}, parser.Options{Version: parser.Spark43, Databricks: true}
	for _, c := range []struct {
		src  string
		opts parser.Options
		keep string
	}{
		{"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts", s43, "STREAM(s)"},
		{"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM s AS x KEYS (id) SEQUENCE BY ts STORED AS SCD TYPE 2", s43, "STREAM"},
		{"CREATE FLOW f AS AUTO CDC INTO t FROM (SELECT id, ts, op FROM STREAM(src) WHERE id > 0) KEYS (id) SEQUENCE BY ts", s43, "WHERE"},
		{"CREATE FLOW f AS AUTO CDC INTO t FROM (SELECT id, ts FROM STREAM(src)) AS s KEYS (id) SEQUENCE BY ts APPLY AS DELETE WHEN op = 'D'", s43, "AS s"},
		{"CREATE STREAMING TABLE t2 FLOW AUTO CDC FROM (SELECT id, ts FROM STREAM(src) WHERE id > 0) KEYS (id) SEQUENCE BY ts", s43, "WHERE"},
		{"APPLY CHANGES INTO s.silver FROM (SELECT city_id, ts FROM STREAM(s.bronze) WHERE city_id IS NOT NULL) KEYS (city_id) SEQUENCE BY ts STORED AS SCD TYPE 2", dbx, "IS NOT NULL"},
	} {
		if msg := cdcRoundTrip(c.src, c.opts); msg != "" {
			t.Errorf("%s\n  %s", c.src, msg)
		}
		if text := ast.Format(parser.Parse(c.src, c.opts)); !strings.Contains(text, c.keep) {
			t.Errorf("%s\n  formats as %q, which drops %q", c.src, text, c.keep)
		}
	}
}

// FuzzAutoCDCRoundTrip is FuzzRoundTrip under Spark 4.3's grammar with
// Databricks' forms, where the AUTO CDC and APPLY CHANGES statements
// parse: a text that parses formats into text that parses into an equal
// tree.
func FuzzAutoCDCRoundTrip(f *testing.F) {
	for _, s := range []string{
		"CREATE FLOW f AS AUTO CDC INTO t FROM (SELECT id, ts FROM STREAM(src) WHERE id > 0) AS s KEYS (id) SEQUENCE BY ts",
		"APPLY CHANGES INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts COLUMNS * EXCEPT (op) STORED AS SCD TYPE 2 TRACK HISTORY ON (a)",
		"CREATE STREAMING TABLE t FLOW AUTO CDC FROM STREAM(s) KEYS (id) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY ts",
	} {
		f.Add(s)
	}
	opts := parser.Options{Version: parser.Spark43, Databricks: true}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 2000 || len(parser.Parse(src, opts).Errors) > 0 {
			return
		}
		if msg := cdcRoundTrip(src, opts); msg != "" {
			t.Fatalf("%q: %s", src, msg)
		}
	})
}
