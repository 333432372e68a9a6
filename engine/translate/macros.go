package translate

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// The run-time checks of a translation fail with Spark's message followed
// by a marker holding the check's number, which [Result.Explain] turns
// back into the range of the user's expression (and removes).
const (
	markOpen  = " ⟦check "
	markClose = "⟧"
)

// mark is, in a macro body, the marker of check number id (a parameter).
const mark = `'` + markOpen + `' || CAST(id AS VARCHAR) || '` + markClose + `'`

// macros are the helpers translated queries call: CREATE MACRO name and
// the rest of the statement.
var macros = [][2]string{
	{"thund_divisor", `(b, id) AS CASE WHEN b = 0 THEN error('[DIVIDE_BY_ZERO] Division by zero. Use ` + "`try_divide`" + ` to tolerate divisor being 0 and return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error. SQLSTATE: 22012' || ` + mark + `) ELSE b END`},
	{"thund_remainder", `(b, id) AS CASE WHEN b = 0 THEN error('[REMAINDER_BY_ZERO] Remainder by zero. Use ` + "`try_mod`" + ` to tolerate divisor being 0 and return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error. SQLSTATE: 22012' || ` + mark + `) ELSE b END`},
	{"thund_array_at", `(a, i, id) AS CASE WHEN a IS NULL OR i IS NULL THEN NULL
		WHEN i < 0 OR i >= len(a) THEN error('[INVALID_ARRAY_INDEX] The index ' || CAST(i AS VARCHAR) || ' is out of bounds. The array has ' || CAST(len(a) AS VARCHAR) || ' elements. Use the SQL function ` + "`get()`" + ` to tolerate accessing element at invalid index and return NULL instead. SQLSTATE: 22003' || ` + mark + `)
		ELSE a[i + 1] END`},
	{"thund_element_at", `(a, i, id) AS CASE WHEN a IS NULL OR i IS NULL THEN NULL
		WHEN i = 0 THEN error('[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1). SQLSTATE: 22003' || ` + mark + `)
		WHEN abs(i) > len(a) THEN error('[INVALID_ARRAY_INDEX_IN_ELEMENT_AT] The index ' || CAST(i AS VARCHAR) || ' is out of bounds. The array has ' || CAST(len(a) AS VARCHAR) || ' elements. Use ` + "`try_element_at`" + ` to tolerate accessing element at invalid index and return NULL instead. SQLSTATE: 22003' || ` + mark + `)
		ELSE list_extract(a, i) END`},
	{"thund_try_element_at", `(a, i, id) AS CASE WHEN a IS NULL OR i IS NULL THEN NULL
		WHEN i = 0 THEN error('[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1). SQLSTATE: 22003' || ` + mark + `)
		WHEN abs(i) > len(a) THEN NULL ELSE list_extract(a, i) END`},
	{"thund_int_text", `(s, ty, id) AS CASE WHEN s IS NULL THEN NULL
		WHEN regexp_full_match(s, '\s*[+-]?[0-9]+\s*') THEN trim(s)
		ELSE error('[CAST_INVALID_INPUT] The value ''' || s || ''' of the type "STRING" cannot be cast to "' || upper(ty) || '" because it is malformed. Correct the value as per the syntax, or change its target type. Use ` + "`try_cast`" + ` to tolerate malformed input and return NULL instead. SQLSTATE: 22018' || ` + mark + `) END`},
	{"thund_try_int_text", `(s, ty, id) AS CASE WHEN regexp_full_match(s, '\s*[+-]?[0-9]+\s*') THEN trim(s) ELSE NULL END`},
	{"thund_legacy_int_text", `(s, ty, id) AS CASE WHEN regexp_full_match(s, '\s*[+-]?[0-9]+(\.[0-9]*)?\s*') THEN split_part(trim(s), '.', 1) ELSE NULL END`},
	{"thund_bool_text", `(s, id) AS CASE WHEN s IS NULL THEN NULL
		WHEN lower(trim(s, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13))) IN ('t', 'true', 'y', 'yes', '1') THEN true
		WHEN lower(trim(s, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13))) IN ('f', 'false', 'n', 'no', '0') THEN false
		ELSE error('[CAST_INVALID_INPUT] The value ''' || s || ''' of the type "STRING" cannot be cast to "BOOLEAN" because it is malformed. Correct the value as per the syntax, or change its target type. Use ` + "`try_cast`" + ` to tolerate malformed input and return NULL instead. SQLSTATE: 22018' || ` + mark + `) END`},
	{"thund_try_bool_text", `(s, id) AS CASE WHEN lower(trim(s, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13))) IN ('t', 'true', 'y', 'yes', '1') THEN true
		WHEN lower(trim(s, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13))) IN ('f', 'false', 'n', 'no', '0') THEN false ELSE NULL END`},
	{"thund_double_text", `(x) AS CASE WHEN x IS NULL THEN NULL WHEN isnan(x) THEN 'NaN'
		WHEN isinf(x) THEN CASE WHEN x > 0 THEN 'Infinity' ELSE '-Infinity' END
		WHEN x = 0 OR (abs(x) >= 0.001 AND abs(x) < 10000000) THEN CAST(x AS VARCHAR)
		ELSE error('not-portable: Spark writes the number ' || CAST(x AS VARCHAR) || ' in Java''s scientific notation (1.0E7), which the native engine does not reproduce') END`},
	// The octal digits of a UBIGINT, no leading zeros (Java's
	// Long.toOctalString of its bits).
	{"thund_octal", `(u) AS coalesce(nullif(ltrim(array_to_string(list_transform(range(21, -1, -1), lambda k: CAST((u >> CAST(3 * k AS UTINYINT)) & CAST(7 AS UBIGINT) AS VARCHAR)), ''), '0'), ''), '0')`},
	// The value of p, digits of base b (ASCII, either case), as a
	// UHUGEINT (conv; the caller bounds the number of digits).
	{"thund_conv_value", `(p, b) AS list_reduce(list_prepend(CAST(0 AS UHUGEINT), list_transform(string_split(p, ''), lambda ch: CAST(greatest(instr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', upper(ch)) - 1, 0) AS UHUGEINT))), lambda acc, d: acc * CAST(b AS UHUGEINT) + d)`},
	// Spark's CentralMomentAgg update, value by value in list order:
	// n' = n + 1, delta = x - avg, avg' = avg + delta / n',
	// m2' = m2 + delta * (delta - delta / n'); NULLs skipped.
	{"thund_moments", `(l) AS list_reduce(list_transform(list_filter(l, lambda v: v IS NOT NULL), lambda v: {'n': CAST(0 AS DOUBLE), 'avg': CAST(v AS DOUBLE), 'm2': CAST(0 AS DOUBLE)}),
		lambda acc, e: {'n': acc.n + 1.0, 'avg': acc.avg + (e.avg - acc.avg) / (acc.n + 1.0), 'm2': acc.m2 + (e.avg - acc.avg) * ((e.avg - acc.avg) - (e.avg - acc.avg) / (acc.n + 1.0))},
		{'n': CAST(0 AS DOUBLE), 'avg': CAST(0 AS DOUBLE), 'm2': CAST(0 AS DOUBLE)})`},
	// The two-pass form, for a group (no window): the mean, then the sum
	// of the squared deviations from it.
	// The mean is computed once and handed to the lambda (a lambda
	// reading the enclosing one's parameter computes right in
	// list_transform; only list_reduce gets it wrong), so the pass is
	// linear in the group's size.
	// Values that are all the same (and finite) have no deviation, as
	// Spark's update leaves its m2 at exactly 0 for them, where the mean
	// of the sum may be off by an ulp.
	{"thund_moments2", `(l) AS list_transform([list_sum(l) / list_count(l)], lambda mean: {'n': CAST(list_count(l) AS DOUBLE), 'avg': CAST(0 AS DOUBLE),
		'm2': CASE WHEN list_min(l) = list_max(l) AND isfinite(list_min(l)) THEN CAST(0 AS DOUBLE) ELSE list_sum(list_transform(l, lambda v: (v - mean) * (v - mean))) END})[1]`},
	// The two-pass co-moments of a list of {'x', 'y'} pairs (regr_*):
	// the count, the means, the sum of the products of the deviations
	// (ck) and of the squared deviations of x and of y.
	// A side whose values are all the same has no deviation (as in
	// thund_moments2), and then no co-moment either.
	{"thund_comoments2", `(l) AS list_transform([{'n': CAST(len(l) AS DOUBLE), 'mx': list_sum(list_transform(l, lambda e: e.x)) / len(l), 'my': list_sum(list_transform(l, lambda e: e.y)) / len(l),
		'cx': thund_same(list_transform(l, lambda e: e.x)), 'cy': thund_same(list_transform(l, lambda e: e.y))}], lambda s: {'n': s.n, 'mx': s.mx, 'my': s.my,
		'ck': CASE WHEN s.cx OR s.cy THEN CAST(0 AS DOUBLE) ELSE list_sum(list_transform(l, lambda e: (e.x - s.mx) * (e.y - s.my))) END,
		'xm2': CASE WHEN s.cx THEN CAST(0 AS DOUBLE) ELSE list_sum(list_transform(l, lambda e: (e.x - s.mx) * (e.x - s.mx))) END,
		'ym2': CASE WHEN s.cy THEN CAST(0 AS DOUBLE) ELSE list_sum(list_transform(l, lambda e: (e.y - s.my) * (e.y - s.my))) END})[1]`},
	{"thund_same", `(l) AS list_min(l) = list_max(l) AND isfinite(list_min(l))`},
	{"thund_var_pop", `(m) AS list_transform([m], lambda s: CASE WHEN s.n = 0 THEN NULL ELSE s.m2 / s.n END)[1]`},
	{"thund_var_samp", `(m) AS list_transform([m], lambda s: CASE WHEN s.n <= 1 THEN NULL ELSE s.m2 / (s.n - 1.0) END)[1]`},
	{"thund_stddev_pop", `(m) AS list_transform([m], lambda s: CASE WHEN s.n = 0 THEN NULL ELSE sqrt(s.m2 / s.n) END)[1]`},
	{"thund_stddev_samp", `(m) AS list_transform([m], lambda s: CASE WHEN s.n <= 1 THEN NULL ELSE sqrt(s.m2 / (s.n - 1.0)) END)[1]`},
	// exp as fdlibm's e_exp.c computes it (Java's StrictMath.exp, which
	// Spark's exp calls): x = k ln2 + r, a polynomial in r, then the
	// result scaled by 2^k. The C library's exp differs from it in the
	// last digit now and then (exp(1) is 2.7182818284590455 on Spark,
	// 2.718281828459045 on DuckDB).
	{"thund_exp_c", `(r) AS list_transform([r], lambda v: v - (v * v) * (1.66666666666666019037e-01 + (v * v) * (-2.77777777770155933842e-03 + (v * v) * (6.61375632143793436117e-05 + (v * v) * (-1.65339022054652515390e-06 + (v * v) * 4.13813679705723846039e-08)))))[1]`},
	{"thund_exp_yc", `(hi, lo, r, c) AS 1.0e0 - ((lo - (r * c) / (2.0e0 - c)) - hi)`},
	{"thund_exp_y", `(hi, lo) AS thund_exp_yc(hi, lo, hi - lo, thund_exp_c(hi - lo))`},
	{"thund_exp_scale", `(y, k) AS CASE WHEN k >= -1021 THEN (y * pow(2.0e0, k - 1)) * 2.0e0 ELSE (y * pow(2.0e0, k + 1000)) * 9.33263618503218878990e-302 END`},
	{"thund_exp_k", `(x, k) AS CASE WHEN k = 0 THEN 1.0e0 - ((x * thund_exp_c(x)) / (thund_exp_c(x) - 2.0e0) - x)
		ELSE thund_exp_scale(thund_exp_y(x - CAST(k AS DOUBLE) * 6.93147180369123816490e-01, CAST(k AS DOUBLE) * 1.90821492927058770002e-10), CAST(k AS INTEGER)) END`},
	{"thund_exp", `(x) AS CASE WHEN x IS NULL THEN NULL WHEN isnan(x) THEN x
		WHEN x > 7.09782712893383973096e+02 THEN CAST('Infinity' AS DOUBLE) WHEN x < -7.45133219101941108420e+02 THEN CAST(0 AS DOUBLE)
		WHEN abs(x) < 3.725290298461914e-09 THEN 1.0e0 + x
		ELSE thund_exp_k(x, CASE WHEN abs(x) < ` + expHalfLn2 + ` THEN 0 WHEN abs(x) < ` + expOneAndHalfLn2 + ` THEN sign(x)
			ELSE trunc(1.44269504088896338700e+00 * x + CASE WHEN x < 0 THEN -0.5e0 ELSE 0.5e0 END) END) END`},
	{"thund_div_round", `(n, d) AS (n // d) + CASE WHEN abs(n % d) >= abs(d) - abs(n % d) THEN sign(n) * sign(d) ELSE 0 END`},
	{"thund_exists", `(l) AS CASE WHEN l IS NULL THEN NULL WHEN list_contains(l, true) THEN true
		WHEN len(list_filter(l, lambda v: v IS NULL)) > 0 THEN NULL ELSE false END`},
	{"thund_forall", `(l) AS CASE WHEN l IS NULL THEN NULL WHEN list_contains(l, false) THEN false
		WHEN len(list_filter(l, lambda v: v IS NULL)) > 0 THEN NULL ELSE true END`},
}

// fdlibm's exp reduces x when |x| passes 0.5 ln2 and 1.5 ln2, as it tests
// the high word of x: the smallest doubles with the high words 0x3fd62e43
// and 0x3ff0a2b2.
var (
	expHalfLn2       = strconv.FormatFloat(math.Float64frombits(0x3fd62e43<<32), 'e', -1, 64)
	expOneAndHalfLn2 = strconv.FormatFloat(math.Float64frombits(0x3ff0a2b2<<32), 'e', -1, 64)
)

// Macros returns the CREATE MACRO statements of the helpers that
// translated queries call; a session runs them once before the first
// translated query.
func Macros() []string {
	out := make([]string, len(macros))
	for i, m := range macros {
		out[i] = "CREATE OR REPLACE MACRO " + m[0] + m[1]
	}
	return out
}

var (
	markRe     = regexp.MustCompile(` ⟦check (\d+)⟧`)
	lineRe     = regexp.MustCompile(`(?s)\n*LINE (\d+): ?([^\n]*)\n( *)\^.*$`)
	overflowRe = regexp.MustCompile(`Overflow in (?:addition|subtraction|multiplication|negation) of (INT\d+|DECIMAL|HUGEINT)`)
	castOvfRe  = regexp.MustCompile(`Type (\w+) with value (\S+) can't be cast because the value is out of range for the destination type (\w+)`)
	badDateRe  = regexp.MustCompile(`invalid (date|timestamp) field format: "((?:[^"\\]|\\.)*)"`)
	convertRe  = regexp.MustCompile(`Could not convert string '((?:[^']|'')*)' to ([A-Z0-9_]+)`)
	duckPrefix = regexp.MustCompile(`^(Binder|Conversion|Out of Range|Invalid Input|Catalog|Parser|Not implemented|Invalid) Error: `)
)

// duckToSpark names DuckDB's physical types in a conversion error as
// Spark names them.
var duckToSpark = map[string]string{
	"INT8": "TINYINT", "INT16": "SMALLINT", "INT32": "INT", "INT64": "BIGINT", "INT128": "DECIMAL(38,0)",
	"DOUBLE": "DOUBLE", "FLOAT": "FLOAT", "BOOL": "BOOLEAN", "DATE": "DATE", "TIMESTAMP": "TIMESTAMP",
}

// Explain turns the message of an error DuckDB raised while running r.SQL
// into Spark's terms, without the generated SQL, and returns the range of
// the user's Spark SQL it concerns (ok false when it cannot tell).
func (r *Result) Explain(msg string) (string, ast.Range, bool) {
	return r.ExplainIn(msg, r.SQL, 0)
}

// ExplainIn is Explain for an error of stmt, a statement that holds r.SQL
// at byte offset at (CREATE TABLE t AS <r.SQL>, say).
func (r *Result) ExplainIn(msg, stmt string, at int) (string, ast.Range, bool) {
	var rng ast.Range
	found := false
	if m := markRe.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n >= 0 && n < len(r.checks) {
			rng, found = r.checks[n], true
		}
		msg = markRe.ReplaceAllString(msg, "")
	}
	if m := lineRe.FindStringSubmatchIndex(msg); m != nil {
		lineNo, _ := strconv.Atoi(msg[m[2]:m[3]])
		snippet := msg[m[4]:m[5]]
		caret := m[7] - m[6] - len("LINE : ") - len(msg[m[2]:m[3]])
		if off, ok := offsetOf(stmt, lineNo, snippet, caret); ok && !found && off >= at {
			rng, found = r.Locate(off - at)
		}
		msg = strings.TrimRight(msg[:m[0]], "\n ")
	}
	if strings.HasPrefix(msg, "Invalid Input Error: [") {
		msg = strings.TrimPrefix(msg, "Invalid Input Error: ")
	}
	if strings.Contains(msg, "not-portable: ") {
		msg = msg[strings.Index(msg, "not-portable: ")+len("not-portable: "):]
	}
	switch {
	case strptimeFailRe.MatchString(msg):
		msg = cannotParse(msg)
	case overflowRe.MatchString(msg):
		kind := "integer"
		switch overflowRe.FindStringSubmatch(msg)[1] {
		case "INT64":
			kind = "long"
		case "DECIMAL", "HUGEINT":
			kind = "decimal"
		}
		msg = "[ARITHMETIC_OVERFLOW] " + kind + " overflow. Use 'try_add' to tolerate overflow and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error. SQLSTATE: 22003"
	case castOvfRe.MatchString(msg):
		m := castOvfRe.FindStringSubmatch(msg)
		from, to := duckToSpark[m[1]], duckToSpark[m[3]]
		v := m[2]
		if from == "BIGINT" {
			v += "L"
		}
		msg = "[CAST_OVERFLOW] The value " + v + " of the type \"" + from + "\" cannot be cast to \"" + to + "\" due to an overflow. Use `try_cast` to tolerate overflow and return NULL instead. SQLSTATE: 22003"
	case badDateRe.MatchString(msg):
		m := badDateRe.FindStringSubmatch(msg)
		msg = "[CAST_INVALID_INPUT] The value '" + m[2] + "' of the type \"STRING\" cannot be cast to \"" + strings.ToUpper(m[1]) + "\" because it is malformed. Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate malformed input and return NULL instead. SQLSTATE: 22018"
	case convertRe.MatchString(msg):
		m := convertRe.FindStringSubmatch(msg)
		to := duckToSpark[m[2]]
		if to == "" {
			to = m[2]
		}
		msg = "[CAST_INVALID_INPUT] The value '" + strings.ReplaceAll(m[1], "''", "'") + "' of the type \"STRING\" cannot be cast to \"" + to + "\" because it is malformed. Use `try_cast` to tolerate malformed input and return NULL instead. SQLSTATE: 22018"
	}
	msg = duckPrefix.ReplaceAllString(msg, "")
	return msg, rng, found
}

// offsetOf finds the offset in text that DuckDB's LINE n: snippet with a
// caret at column caret points at (DuckDB may cut the line around the
// error and mark the cut with "...").
func offsetOf(text string, lineNo int, snippet string, caret int) (int, bool) {
	lines := strings.SplitAfter(text, "\n")
	if lineNo < 1 || lineNo > len(lines) {
		return 0, false
	}
	start := 0
	for _, l := range lines[:lineNo-1] {
		start += len(l)
	}
	line := strings.TrimRight(lines[lineNo-1], "\n")
	s := snippet
	cut := 0
	if strings.HasPrefix(s, "...") {
		s, cut = s[3:], 3
	}
	s = strings.TrimSuffix(s, "...")
	i := strings.Index(line, s)
	if i < 0 || caret < cut {
		return 0, false
	}
	return start + i + caret - cut, true
}
