//go:build duckdb_arrow

package translate_test

import (
	"fmt"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/parser"
	"github.com/thund-dev/thund/engine/translate"
)

// qualifyTraps are QUALIFY queries (Spark 4.2 and later, Databricks) with
// what a Spark 4.3.0 Connect server returned for them (spark.sql(...)
// .collect(), 2026-12-08): the translation keeps the filter, over an
// alias of the SELECT, a window function in the clause itself, and a
// named window.
var qualifyTraps = []struct {
	name, query string
	types       []string
	rows        [][]string
}{
	{"an alias", `SELECT k, v, row_number() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM VALUES (1, 10), (1, 20), (2, 5) t(k, v) QUALIFY rn = 1 ORDER BY k`,
		[]string{"int", "int", "int"}, [][]string{{"1", "20", "1"}, {"2", "5", "1"}}},
	{"a window function", `SELECT k, v FROM VALUES (1, 10), (1, 20), (2, 5) t(k, v) QUALIFY row_number() OVER (PARTITION BY k ORDER BY v DESC) = 1 ORDER BY k`,
		[]string{"int", "int"}, [][]string{{"1", "20"}, {"2", "5"}}},
	{"a named window", `SELECT k, v FROM VALUES (1, 10), (1, 20), (2, 5) t(k, v) WINDOW w AS (PARTITION BY k ORDER BY v) QUALIFY rank() OVER w = 1 ORDER BY k`,
		[]string{"int", "int"}, [][]string{{"1", "10"}, {"2", "5"}}},
}

func TestQualify(t *testing.T) {
	db := openDuck(t)
	for _, tc := range qualifyTraps {
		t.Run(tc.name, func(t *testing.T) {
			r := translate.TranslateText(tc.query, translate.Options{Version: parser.Spark43})
			if len(r.Findings) > 0 {
				t.Fatalf("refused: %s", r.Findings[0].Message)
			}
			types, rows, err := query(db, r.SQL)
			if err != nil {
				t.Fatalf("%v\nSQL: %s", err, r.SQL)
			}
			if fmt.Sprint(types) != fmt.Sprint(tc.types) || fmt.Sprint(rows) != fmt.Sprint(tc.rows) {
				t.Errorf("%v %v, Spark's %v %v\nSQL: %s", types, rows, tc.types, tc.rows, r.SQL)
			}
		})
	}
	// Spark 4.1's grammar has no QUALIFY: it is a syntax error there.
	if r := translate.TranslateText(qualifyTraps[0].query, translate.Options{}); len(r.Findings) == 0 {
		t.Errorf("Spark 4.1's grammar read QUALIFY: %s", r.SQL)
	}
}
