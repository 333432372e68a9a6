package sqlfront

import (
	"fmt"
	"testing"
)

// funcStrings renders a query's calls as name/args@text-as-written.
func funcStrings(text string, q *Query) []string {
	var out []string
	for _, fn := range q.Funcs {
		out = append(out, fmt.Sprintf("%s/%d@%s", fn.Name, fn.Args, text[fn.Loc.Start:fn.Loc.End]))
	}
	return out
}

func TestFuncs(t *testing.T) {
	tests := []struct {
		query string
		funcs []string
		// only is the one dialect the case is for (DuckDB syntax, or
		// where the dialects read calls differently); "" means both.
		only string
	}{
		{"SELECT upper(a), COUNT(*), count(DISTINCT b) FROM t", []string{"upper/1@upper", "COUNT/0@COUNT", "count/1@count"}, ""},
		// PostgreSQL reads coalesce as a keyword form; Spark as a function.
		{"SELECT strftime(ts, '%Y') AS y, sum(x) OVER (PARTITION BY k) FROM t WHERE coalesce(a, b) > abs(c)",
			[]string{"strftime/2@strftime", "sum/1@sum", "abs/1@abs"}, "duckdb"},
		{"SELECT strftime(ts, '%Y') AS y, sum(x) OVER (PARTITION BY k) FROM t WHERE coalesce(a, b) > abs(c)",
			[]string{"strftime/2@strftime", "sum/1@sum", "coalesce/2@coalesce", "abs/1@abs"}, "spark"},
		{"SELECT main.f(1), \"My Fn\"(2), `g` (3) FROM t", []string{"main.f/1@main.f", "My Fn/1@\"My Fn\"", "g/1@`g`"}, "duckdb"},
		{"SELECT main.f(1), `My Fn`(2), `g` (3) FROM t", []string{"main.f/1@main.f", "My Fn/1@`My Fn`", "g/1@`g`"}, "spark"},
		{"WITH c AS (SELECT lower(x) AS x FROM t) SELECT * FROM c WHERE x IN (SELECT trim(y) FROM u)",
			[]string{"lower/1@lower", "trim/1@trim"}, ""},
		{"SELECT * FROM read_csv('x.csv')", []string{"read_csv/1@read_csv"}, ""},
		{"SELECT CAST(a AS INT), a::INT, a + b, x AT TIME ZONE 'UTC', a LIKE 'x%' FROM t", nil, "duckdb"},
		{"SELECT CAST(a AS INT), a::INT, a + b, a LIKE 'x%', current_date FROM t", nil, "spark"},
		{"SELECT EXTRACT(year FROM ts), date_trunc('month', ts) FROM t", []string{"EXTRACT/2@EXTRACT", "date_trunc/2@date_trunc"}, ""},
		// DuckDB-only syntax: the calls come from DuckDB's tree; [1, 2]
		// is a list_value call there but not a name as written.
		{"SELECT * EXCLUDE (a), list_value(1, 2), [1, 2], epoch_ms(ts) FROM t QUALIFY row_number() OVER () = 1",
			[]string{"list_value/2@list_value", "epoch_ms/1@epoch_ms", "row_number/0@row_number"}, "duckdb"},
		// Spark-only syntax rewritten for analysis keeps the names as written.
		{"SELECT window(ts, '5 minutes'), count(*) FROM t GROUP BY 1 DISTRIBUTE BY k", []string{"window/2@window", "count/0@count"}, ""},
		{"SELECT é_fn(x) FROM t", []string{"é_fn/1@é_fn"}, ""},
		{"SELECT 1", nil, ""},
	}
	for _, tt := range tests {
		for _, d := range []Dialect{DialectSpark, DialectDuckDB} {
			if tt.only != "" && tt.only != d.String() {
				continue
			}
			t.Run(d.String()+"/"+tt.query, func(t *testing.T) {
				text := "-- lead\nSELECT 0;\n" + tt.query + ";\n"
				f := ParseDialect("f.sql", text, d)
				checkFile(t, "f.sql", text, f)
				noDiags(t, text, f.Diags)
				want(t, funcStrings(text, f.Statements[1].Query), tt.funcs)
			})
		}
	}
}
