package sema

import "testing"

// TestSignatureRanges: a type mismatch is reported at the argument, an
// arity mismatch at the call, each once.
func TestSignatureRanges(t *testing.T) {
	check := func(sql string, want ...string) {
		t.Helper()
		analyzeWith(t, sql, funcCat, Options{}).wantDiags(want...)
	}
	check("SELECT array_contains(s, 1) FROM t", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE s")
	check("SELECT upper(s, s) FROM t", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION upper(s, s)")
	// the first mismatch only, as Spark
	check("SELECT slice(s, b, b) FROM t", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE s")
	// the types of nested calls, casts and typed literals are known
	check("SELECT array_contains(upper(s), 1) FROM t", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE upper(s)")
	check("SELECT map_keys(CAST(i AS STRING)) FROM t", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE CAST(i AS STRING)")
	check("SELECT year(X'41') FROM t", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE X'41'")
	check("SELECT size(length(s)) FROM t", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE length(s)")
	check("SELECT array_max(map('a', 1)) FROM t", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE map('a', 1)")
	// in a subquery, a window, a HAVING
	check("SELECT (SELECT max(sqrt(b)) FROM t) FROM t", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE b")
	check("SELECT sum(b) OVER (PARTITION BY i) FROM t", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE b")
	check("SELECT i FROM t GROUP BY i HAVING max(year(i)) > 0", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE i")
}

// TestSignatureUnknownIsSilent: nothing is said where the model is not
// sure: unknown types, NULL, named arguments, keyword forms, qualified
// or user functions, lambda parameters, DuckDB's date_sub.
func TestSignatureUnknownIsSilent(t *testing.T) {
	cat := fakeCat{"t": funcCat["t"], "u": cols("x", "y")}
	for _, sql := range []string{
		"SELECT array_contains(x, 1), year(y), upper(x) FROM u",
		"SELECT array_contains(NULL, 1), year(NULL), size(NULL) FROM t",
		"SELECT upper(str => s) FROM t",
		"SELECT trim(BOTH 'x' FROM s), substring(s FROM 1 FOR 2), position('a' IN s) FROM t",
		"SELECT my.upper(s, s), my_func(a, 1), array_contains(my_func(a), 1) FROM t",
		"SELECT transform(a, x -> upper(x)), filter(a, x -> x > 1), aggregate(a, 0, (acc, x) -> acc + x) FROM t",
		"SELECT date_sub('day', dt, dt) FROM t",
		"SELECT upper(i), upper(b), upper(dt), length(i), substring(i, 1, 2), concat(s, i, b), sqrt(s), sqrt(ts), year(s), year(ts), hour(dt) FROM t",
		"SELECT sum(i), avg(dec), mean(ts), count(*), count(DISTINCT i, s), max(a), min(st) FROM t",
		"SELECT element_at(m, 'k'), element_at(a, 1), size(m), explode(a), coalesce(i, 1), if(b, 1, 2) FROM t",
		"SELECT current_date, current_timestamp(), now() FROM t",
	} {
		r := analyzeWith(t, sql, cat, Options{})
		for _, d := range r.m.Diagnostics {
			if d.Code == CodeUnexpectedInputType || d.Code == CodeWrongNumArgs {
				t.Errorf("%s: %s at %q: %s", sql, d.Code, sql[d.Start:d.End], d.Message)
			}
		}
	}
}

// TestSignatureTypeNames: the types in the message are Spark's.
func TestSignatureTypeNames(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT array_contains(1.50, 1) FROM t":                      `however "1.50" has the type "DECIMAL(3,2)".`,
		"SELECT array_contains(3000000000, 1) FROM t":                `however "3000000000" has the type "BIGINT".`,
		"SELECT array_contains(CAST(i AS DECIMAL(10, 2)), 1) FROM t": `has the type "DECIMAL(10,2)".`,
		"SELECT map_keys(array(1, 2)) FROM t":                        `has the type "ARRAY<INT>".`,
		"SELECT map_keys(st) FROM t":                                 `has the type "STRUCT<x: INT NOT NULL>".`,
		"SELECT array_contains(DATE '2024-01-01', 1) FROM t":         `has the type "DATE".`,
		"SELECT array_contains('x', 1) FROM t":                       `however "x" has the type "STRING".`,
	} {
		r := analyzeWith(t, sql, funcCat, Options{})
		if len(r.m.Diagnostics) != 1 {
			t.Errorf("%s: %d diagnostics", sql, len(r.m.Diagnostics))
			continue
		}
		if msg := r.m.Diagnostics[0].Message; len(msg) < len(want) || msg[len(msg)-len(want):] != want {
			t.Errorf("%s:\n got %s\nwant ...%s", sql, msg, want)
		}
	}
}
