//go:build duckdb_arrow

package translate_test

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/engine/translate"
)

// findingCase is a query the translation must refuse or reject before
// running, with the code and a word of the message, as Spark's golden
// files (sql-tests) record Spark's behaviour; want "" means no finding.
type findingCase struct {
	name  string
	query string
	opts  translate.Options
	code  string
	want  string
}

var findingCases = []findingCase{
	// nonansi/date.sql: a string column is no day count without ANSI
	// (a constant string is).
	{name: "date_add of a string column without ANSI", query: `SELECT date_add('2011-11-11', s) FROM VALUES ('1') t(s)`, opts: translate.Options{NoANSI: true},
		code: translate.CodeTypeError, want: "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"},
	{name: "date_add of a string literal without ANSI", query: `SELECT date_add('2011-11-11', '1')`, opts: translate.Options{NoANSI: true}},
	{name: "date_add of a string column in ANSI mode", query: `SELECT date_add('2011-11-11', s) FROM VALUES ('1') t(s)`},
	// cte.sql, inline-table.sql: VALUES holds constants only.
	{name: "VALUES of an outer column", query: `SELECT (WITH cte(foo) AS (VALUES (id)) SELECT (SELECT foo FROM cte)) FROM VALUES (1) t(id)`,
		code: translate.CodeTypeError, want: "INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE"},
	{name: "VALUES of an aggregate", query: `SELECT * FROM VALUES ('one', count(1)), ('two', 2) AS data(a, b)`,
		code: translate.CodeTypeError, want: "INVALID_INLINE_TABLE"},
	{name: "VALUES of constants", query: `SELECT * FROM VALUES ('one', 1 + 1), ('two', abs(-2)) AS data(a, b)`},
	// exists-in-join-condition.sql: a subquery in ON may read one side.
	{name: "EXISTS in ON reading both sides", query: `SELECT * FROM VALUES (1, 2) x(x1, x2) JOIN VALUES (1, 2) y(y1, y2) ON x1 = y1 AND EXISTS (SELECT * FROM VALUES (2) z(z2) WHERE z2 = x2 AND z2 = y2)`,
		code: translate.CodeTypeError, want: "UNSUPPORTED_CORRELATED_EXPRESSION_IN_JOIN_CONDITION"},
	{name: "EXISTS in ON reading one side", query: `SELECT * FROM VALUES (1, 2) x(x1, x2) JOIN VALUES (1, 2) y(y1, y2) ON x1 = y1 AND EXISTS (SELECT * FROM VALUES (2) z(z2) WHERE z2 = y2)`},
	// in-limit.sql, scalar-subquery-predicate.sql: which rows a LIMIT
	// keeps in a correlated subquery differs.
	{name: "LIMIT without ORDER BY correlated by an inequality", query: `SELECT * FROM VALUES (1, 2) t1(a, d) WHERE a IN (SELECT c FROM VALUES (1, 1) t2(b, c) WHERE b <= d LIMIT 2)`,
		code: translate.CodeNotPortable, want: "LIMIT or OFFSET without ORDER BY"},
	{name: "ORDER BY LIMIT correlated by outer columns alone", query: `SELECT * FROM VALUES (1, 2, 3) t1(a, b, d) WHERE a = (SELECT c FROM VALUES (1) t2(c) WHERE b < d ORDER BY c LIMIT 1)`,
		code: translate.CodeNotPortable, want: "outer columns alone"},
	{name: "LIMIT correlated by an equality", query: `SELECT * FROM VALUES (1, 2) t1(a, d) WHERE a IN (SELECT c FROM VALUES (2, 1) t2(b, c) WHERE b = d ORDER BY c LIMIT 2)`},
	// join-lateral.sql: a subquery inside a LATERAL subquery cannot read
	// the columns before LATERAL; a FROM subquery inside it can.
	{name: "subquery in LATERAL reading the left side", query: `SELECT * FROM VALUES (1, 2) t1(c1, c2), LATERAL (SELECT c1, (SELECT SUM(c2) FROM VALUES (1, 2) t2(c1, c2) WHERE c1 = t1.c1))`,
		code: translate.CodeTypeError, want: "UNRESOLVED_COLUMN"},
	{name: "FROM subquery in LATERAL reading the left side", query: `SELECT * FROM VALUES (1, 2) t1(c1, c2), LATERAL (SELECT SUM(cnt) FROM (SELECT COUNT(*) cnt FROM VALUES (1, 2) t2(c1, c2) WHERE t1.c1 = t2.c1))`},
}

func TestFindings(t *testing.T) {
	for _, tc := range findingCases {
		t.Run(tc.name, func(t *testing.T) {
			r := translate.TranslateText(tc.query, tc.opts)
			if tc.code == "" {
				if len(r.Findings) > 0 {
					t.Fatalf("finding %s: %s", r.Findings[0].Code, r.Findings[0].Message)
				}
				return
			}
			if len(r.Findings) == 0 {
				t.Fatalf("no finding; SQL %s", r.SQL)
			}
			f := r.Findings[0]
			if f.Code != tc.code || !strings.Contains(f.Message, tc.want) {
				t.Fatalf("finding %s: %q, want %s with %q", f.Code, f.Message, tc.code, tc.want)
			}
			if strings.Contains(f.Message, "thund") {
				t.Fatalf("the message shows internals: %q", f.Message)
			}
		})
	}
}
