//go:build duckdb_arrow

package translate_test

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/engine/translate"
)

// t1Traps are traps of format_string (funcs_format.go), conv
// (funcs_conv.go), the regr_ functions, corr and the covariances over a
// group (funcs_aggs.go), and the higher-order functions of funcs_hof.go:
// aggregate with a state of its own type, constant functions and
// map_filter. They join the trap table, so TestTraps runs them natively
// and TestSparkTraps on Spark.
var t1Traps = []trap{
	{name: "format_string of strings and argument indexes", query: `SELECT format_string('Hello %s %1$s %s', 'World', 'again') AS a, format_string('>>%10s<<', NULL) AS b, format_string('>>%-6s|%.2s<<', 'ab', 'xyz') AS c, format_string('%3$s %1$s %<s', 'a', 'b', 'c') AS d, format_string('%S %b %B %b', 'up', true, 'x', NULL) AS e, printf('%5%|%-3%|%%') AS f, format_string(NULL, 1) AS g`,
		types: []string{"string", "string", "string", "string", "string", "string", "string"},
		rows:  [][]string{{"Hello World World again", ">>      null<<", ">>ab    |xy<<", "c a a", "UP true TRUE false", "    %|%  |%", "NULL"}}},
	{name: "format_string of integers", query: `SELECT format_string('%d|%5d|%-5d|%05d|%+d|% d|%(d|%,d|%,010d|%(08d', 42, -42, 42, -42, 42, 42, -42, -1234567, 1234567, -42) AS a, format_string('%x|%X|%#x|%08x|%o|%#o|%x|%x|%x', -1, 255, 255, 255, 8, 8, CAST(-1 AS TINYINT), -1L, CAST(-2 AS SMALLINT)) AS b, format_string('%d %x %s', CAST(NULL AS INT), CAST(NULL AS BIGINT), CAST(NULL AS INT)) AS c`,
		types: []string{"string", "string", "string"},
		rows:  [][]string{{"42|  -42|42   |-0042|+42| 42|(42)|-1,234,567|01,234,567|(000042)", "ffffffff|FF|0xff|000000ff|10|010|ff|ffffffffffffffff|fffe", "null null null"}}},
	{name: "format_string of a column and other types", query: `SELECT format_string('%s=%d (%s, %s)', k, v, d, b) AS a FROM VALUES ('a', 1, 1.5D, 2.50BD), ('b', NULL, NULL, NULL) t(k, v, d, b)`,
		types: []string{"string"}, rows: [][]string{{"a=1 (1.5, 2.50)"}, {"b=null (null, null)"}}},
	{name: "conv", query: `SELECT conv('100', 2, 10) AS a, conv(-10, 16, -10) AS b, conv('9223372036854775808', 10, 16) AS c, conv('-10', 16, 10) AS d, conv('ff', 16, 2) AS e, conv('zz', 36, 10) AS f, conv('12x9', 10, 10) AS g, conv('', 10, 10) AS h, conv('18446744073709551615', 10, -10) AS i, conv('x', 10, 16) AS j, conv('255', 10, 37) AS k, conv(NULL, 10, 16) AS l`,
		types: []string{"string", "string", "string", "string", "string", "string", "string", "string", "string", "string", "string", "string"},
		rows:  [][]string{{"4", "-16", "8000000000000000", "18446744073709551600", "11111111", "1295", "12", "NULL", "-1", "0", "NULL", "NULL"}}},
	{name: "conv overflow", query: `SELECT conv('92233720368547758070', 10, 16) AS a`, errClass: "ARITHMETIC_OVERFLOW"},
	{name: "conv of a column", query: `SELECT conv(s, 10, 16) AS a FROM VALUES ('1'), ('255'), ('-1'), (NULL), ('00000000000000000000000000017') t(s)`,
		types: []string{"string"}, rows: [][]string{{"1"}, {"FF"}, {"FFFFFFFFFFFFFFFF"}, {"NULL"}, {"11"}}},
	{name: "regr_sxy, regr_slope, regr_intercept, regr_r2", query: `SELECT k, regr_sxy(y, x) AS sxy, regr_slope(y, x) AS slope, regr_intercept(y, x) AS icpt, regr_r2(y, x) AS r2, regr_r2(k, x) AS r2y, regr_r2(y, k) AS r2x FROM VALUES (1, 10, NULL), (2, 10, 11), (2, 20, 22), (2, 25, NULL), (2, 30, 35), (2, NULL, 40) t(k, y, x) GROUP BY k ORDER BY k`,
		types: []string{"int", "double", "double", "double", "double", "double", "double"},
		rows:  [][]string{{"1", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"}, {"2", "240", "0.8314087759815242", "1.1547344110854496", "0.997690531177829", "1", "NULL"}}},
	{name: "corr and the covariances of a group", query: `SELECT k, corr(y, x) AS c, covar_pop(y, x) AS p, covar_samp(y, x) AS s FROM VALUES (1, 10, NULL), (2, 10, 11), (2, 20, 22), (2, 25, NULL), (2, 30, 35), (3, 1, 2) t(k, y, x) GROUP BY k ORDER BY k`,
		types: []string{"int", "double", "double", "double"},
		rows:  [][]string{{"1", "NULL", "NULL", "NULL"}, {"2", "0.9988445981121533", "80", "120"}, {"3", "NULL", "0", "NULL"}}},
	{name: "var_pop of equal inexact values", query: `SELECT var_pop(x) AS v, stddev_samp(x) AS s FROM VALUES (0.1D), (0.1D), (0.1D) t(x)`,
		types: []string{"double", "double"}, rows: [][]string{{"0", "0"}}},
	{name: "aggregate with a state of another type", query: `SELECT aggregate(ys, (0 AS sum, 0 AS n), (acc, x) -> (acc.sum + x, acc.n + 1), acc -> acc.sum / acc.n) AS v, aggregate(ys, '', (acc, x) -> concat(acc, CAST(x AS STRING))) AS w FROM VALUES (1, array(1, 2, 5)), (2, array(3)), (3, CAST(NULL AS ARRAY<INT>)) t(k, ys) ORDER BY k`,
		types: []string{"double", "string"}, rows: [][]string{{"2.6666666666666665", "125"}, {"3", "3"}, {"NULL", "NULL"}}},
	{name: "aggregate into an array", query: `SELECT aggregate(split('abc', ''), array(array('')), (acc, x) -> array(array(x))) AS a, aggregate(array(1, 2, 3), 0L, (acc, x) -> acc + x) AS b`,
		types: []string{"array<array<string>>", "bigint"}, rows: [][]string{{"[[c]]", "6"}}},
	{name: "higher-order functions of a constant", query: `SELECT transform(array(1, 2, 3), 42) AS a, aggregate(array(1, 2, 3), 0, 100) AS b, size(transform_values(map('a', 1), 7)) AS c, map_zip_with(map('a', 1), map('a', 10), 100)['a'] AS d`,
		types: []string{"array<int>", "int", "int", "int"}, rows: [][]string{{"[42, 42, 42]", "100", "1", "100"}}},
	{name: "filter of a non-boolean", query: `SELECT filter(array(1, 2, 3), 1) AS a`, finding: "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
		spark: "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Spark's analyzer rejects a function of filter that does not give a BOOLEAN"},
	{name: "map_filter", query: `SELECT map_keys(map_filter(map('a', 1, 'b', 2, 'c', 3), (k, v) -> v > 1)) AS a, size(map_filter(map('a', 1), (k, v) -> v > 5)) AS b, map_keys(map_filter(map('a', 1, 'b', CAST(NULL AS INT)), (k, v) -> v > 0)) AS c, map_filter(CAST(NULL AS MAP<STRING, INT>), (k, v) -> true) IS NULL AS d`,
		types: []string{"array<string>", "int", "array<string>", "boolean"}, rows: [][]string{{"[b, c]", "0", "[a]", "true"}}},
}

func init() { traps = append(traps, t1Traps...) }

// TestFormatStringMissingArgument checks that a format specifier without
// its argument fails when a row is formatted, as Java's Formatter throws
// MissingFormatArgumentException on Spark, naming the specifier, and
// that no row means no error.
func TestFormatStringMissingArgument(t *testing.T) {
	db := openDuck(t)
	for q, spec := range map[string]string{
		`SELECT format_string('Hello %s %s', 'World') AS a`:     "'%s'",
		`SELECT format_string('%1$s %4$s', 1, 2, 3) AS a`:       "'%4$s'",
		`SELECT format_string('%<s', 1) AS a`:                   "'%<s'",
		`SELECT format_string('%-5d %x', 1) AS a FROM range(1)`: "'%x'",
	} {
		r := translate.TranslateText(q, translate.Options{})
		if len(r.Findings) > 0 {
			t.Fatalf("%s: refused: %s", q, r.Findings[0].Message)
		}
		_, _, err := query(db, r.SQL)
		if err == nil {
			t.Fatalf("%s: no error", q)
		}
		msg, _, _ := r.Explain(err.Error())
		if !strings.Contains(msg, "MissingFormatArgumentException") || !strings.Contains(msg, spec) || strings.Contains(msg, "thund") {
			t.Errorf("%s: %q", q, msg)
		}
	}
	r := translate.TranslateText(`SELECT format_string('%s %s', x) AS a FROM VALUES (1) t(x) WHERE x > 5`, translate.Options{})
	if _, rows, err := query(db, r.SQL); err != nil || len(rows) != 0 {
		t.Errorf("no row: %v %v", rows, err)
	}
}

// TestFormatStringRefusals checks what format_string refuses before
// running: what Spark fails on (a bad specifier, %d of a string), and
// the conversions Thund does not write (%f, %t, %s of a date).
func TestFormatStringRefusals(t *testing.T) {
	for q, word := range map[string]string{
		`SELECT format_string('%d', 'a') AS a`:                    "IllegalFormatConversionException",
		`SELECT format_string('%-s', 'a') AS a`:                   "MissingFormatWidthException",
		`SELECT format_string('%+s', 'a') AS a`:                   "FormatFlagsConversionMismatchException",
		`SELECT format_string('%q', 'a') AS a`:                    "UnknownFormatConversionException",
		`SELECT format_string('%', 'a') AS a`:                     "UnknownFormatConversionException",
		`SELECT format_string('%.2d', 1) AS a`:                    "IllegalFormatPrecisionException",
		`SELECT format_string('%5.2f', 1.5D) AS a`:                "conversions",
		`SELECT format_string('%tY', DATE '2024-01-01') AS a`:     "date and time",
		`SELECT format_string('%s', DATE '2024-01-01') AS a`:      "internal value",
		`SELECT format_string(s, 1) AS a FROM VALUES ('%d') t(s)`: "string literal",
	} {
		r := translate.TranslateText(q, translate.Options{})
		if len(r.Findings) == 0 || r.Findings[0].Code != translate.CodeNotPortable || !strings.Contains(r.Findings[0].Message, word) {
			t.Errorf("%s: %+v, want a refusal saying %q", q, r.Findings, word)
		}
	}
	r := translate.TranslateText(`SELECT format_string('%0$s', 'a') AS a`, translate.Options{})
	if len(r.Findings) == 0 || !strings.Contains(r.Findings[0].Message, "INVALID_PARAMETER_VALUE.ZERO_INDEX") {
		t.Errorf("%%0$: %+v", r.Findings)
	}
}

// TestAggregateMergeReadsAColumn checks that aggregate refuses a merge
// function reading a column: DuckDB's list_reduce pairs the column's
// values with the wrong rows when the arrays' lengths differ (seen on
// DuckDB 1.4: 673920 for 1 * 6 * 3 * 96 * 3 * 65 * 3).
func TestAggregateMergeReadsAColumn(t *testing.T) {
	for _, q := range []string{
		`SELECT aggregate(z, 1, (acc, v) -> acc * v * k) AS a FROM VALUES (2, array(12, 99)), (3, array(6, 96, 65)) t(k, z)`,
		`SELECT aggregate(z, '', (acc, v) -> concat(acc, CAST(v * k AS STRING))) AS a FROM VALUES (2, array(12, 99)), (3, array(6, 96, 65)) t(k, z)`,
	} {
		r := translate.TranslateText(q, translate.Options{})
		if len(r.Findings) == 0 || !strings.Contains(r.Findings[0].Message, "merge function reads") {
			t.Errorf("%s: %+v, want the refusal", q, r.Findings)
		}
	}
}
