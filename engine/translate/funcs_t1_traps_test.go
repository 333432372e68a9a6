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
	{name: "format_string of doubles with %f", query: `SELECT format_string('%.2f|%5.1f|%,.2f|%.0f|%.1f|%.2f|%.3f|%10.4f|%-10.2f|%f', 2.675D, 0.15D, 1234567.891D, 2.5D, 0.25D, 1.005D, 1.0005D, 3.14159265D, -2.5D, 1.0D / 3) AS a, format_string('%f|%.2f|%+.1f|%(.2f|%08.2f|%(09.1f|% f|%f|%f|%f|%f', -0.0D, -0.004D, 1.25D, -1.255D, -3.14159D, -2.5D, 1.0D, CAST('NaN' AS DOUBLE), CAST('-Infinity' AS DOUBLE), CAST(0.1 AS FLOAT), CAST(NULL AS DOUBLE)) AS b, format_string('%c%c|%3c|%-3c|', 72, 105, 65, 66) AS c`,
		types: []string{"string", "string", "string"},
		rows:  [][]string{{"2.68|  0.2|1,234,567.89|3|0.3|1.01|1.001|    3.1416|-2.50     |0.333333", "-0.000000|-0.00|+1.3|(1.26)|-0003.14|(00002.5)| 1.000000|NaN|-Infinity|0.100000|null", "Hi|  A|B  |"}}},
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
	{name: "corr of a side that does not vary", query: `SELECT corr(x, y) AS c FROM VALUES (1, 2), (1, 3), (1, 5) t(x, y)`, errClass: "DIVIDE_BY_ZERO"},
	{name: "split with a limit", query: `SELECT split('aa1cc2ee3', '[1-9]+', 2) AS a, split('hello', '', 3) AS b, split('hello', '', 100) AS c, split('a1b2c3', '[0-9]', 4) AS d, split('1a', '[0-9]', 2) AS e, split('', 'x', 2) AS f, split('a.b.c', '\\.', 1) AS g`,
		types: []string{"array<string>", "array<string>", "array<string>", "array<string>", "array<string>", "array<string>", "array<string>"},
		rows:  [][]string{{"[aa, cc2ee3]", "[h, e, llo]", "[h, e, l, l, o]", "[a, b, c, ]", "[, a]", "[]", "[a.b.c]"}}},
	{name: "to_binary of base64", query: `SELECT hex(try_to_binary('ab', 'base64')) AS a, try_to_binary('abc= ', 'base64') AS b, try_to_binary('ab=', 'base64') AS c, hex(try_to_binary(' ab cd ', 'base64')) AS d, hex(try_to_binary('abc', 'base64')) AS e, hex(try_to_binary('ab==', 'base64')) AS f, try_to_binary('abc=d', 'base64') AS g, try_to_binary('ab-_', 'base64') AS h, try_to_binary(' ab cdef= = ', 'base64') AS i, try_to_binary('abcde', 'base64') AS j, hex(to_binary('  ', 'base64')) AS k, hex(try_to_binary('abc =', 'base64')) AS l, try_to_binary('ab\fcd', 'base64') AS m`,
		types: []string{"string", "binary", "binary", "string", "string", "string", "binary", "binary", "binary", "binary", "string", "string", "binary"},
		rows:  [][]string{{"69", "NULL", "NULL", "69B71D", "69B7", "69", "NULL", "NULL", "NULL", "NULL", "", "69B7", "NULL"}}},
	{name: "to_binary of malformed base64", query: `SELECT to_binary('abcd=', 'base64') AS a`, errClass: "CONVERSION_INVALID_INPUT"},
	{name: "encode and decode of UTF-8, trims of bytes", query: `SELECT btrim(encode(' xyz ', 'utf-8')) AS a, btrim(encode('yxTomxx', 'utf-8'), encode('xyz', 'utf-8')) AS b, decode(encode('abé', 'UTF-8'), 'utf-8') AS c, hex(encode('é', 'utf-8')) AS d, decode(1, 1, 'a', 2, 'b') AS e, decode(3, 1, 'x', 'y') AS f, decode(CAST(NULL AS INT), NULL, 'n', 'o') AS g, decode(2, 1, 'a') AS h`,
		types: []string{"string", "string", "string", "string", "string", "string", "string", "string"},
		rows:  [][]string{{"xyz", "Tom", "abé", "C3A9", "a", "y", "n", "NULL"}}},
	{name: "regexp_count, regexp_substr, regexp_instr", query: `SELECT regexp_count('1a 2b 14m', '\\d+') AS a, regexp_count('the fox', '(?i)FOX') AS b, regexp_substr('1a 2b 14m', '\\d{2}(a|b|m)') AS c, regexp_substr('1a 2b 14m', 'x') AS d, regexp_instr('1a 2b 14m', '\\d{2}(a|b|m)') AS e, regexp_instr('abc', 'x') AS f, regexp_count(CAST(NULL AS STRING), 'a') AS g`,
		types: []string{"int", "int", "string", "string", "int", "int", "int"},
		rows:  [][]string{{"3", "1", "14m", "NULL", "7", "0", "NULL"}}},
	{name: "map_concat", query: `SELECT map_keys(map_concat(map(1, 'a'), map(2, 'b'), map(3, 'c'))) AS a, map_concat(map(1, 'a'), CAST(NULL AS MAP<INT, STRING>)) IS NULL AS b`,
		types: []string{"array<int>", "boolean"}, rows: [][]string{{"[1, 2, 3]", "true"}}},
	{name: "map_concat of a key twice", query: `SELECT map_concat(map(1, 'a'), map(1, 'b')) AS a`, errClass: "DUPLICATED_MAP_KEY"},
	{name: "raise_error", query: `SELECT if(v > 5, raise_error('too big'), v + 1) AS a FROM VALUES (1), (9) t(v)`, errClass: "USER_RAISED_EXCEPTION"},
	{name: "assert_true", query: `SELECT assert_true(v < 5) IS NULL AS a FROM VALUES (1), (9) t(v)`, errClass: "USER_RAISED_EXCEPTION"},
	{name: "assert_true of true", query: `SELECT assert_true(v < 5) IS NULL AS a FROM VALUES (1), (2) t(v)`, types: []string{"boolean"}, rows: [][]string{{"true"}, {"true"}}},
	{name: "shifts and getbit", query: `SELECT getbit(11L, 0) AS a, getbit(11, 2) AS b, shiftleft(1, 31) AS c, shiftleft(1L, 63) AS d, shiftright(-8, 1) AS e, shiftrightunsigned(-8, 1) AS f, shiftleft(1, 33) AS g, shiftleft(CAST(1 AS TINYINT), 3) AS h, shiftright(-7, 1) AS i, shiftrightunsigned(-1L, 60) AS j, getbit(CAST(-1 AS TINYINT), 7) AS k`,
		types: []string{"tinyint", "tinyint", "int", "bigint", "int", "int", "int", "int", "int", "bigint", "tinyint"},
		rows:  [][]string{{"1", "0", "-2147483648", "-9223372036854775808", "-4", "2147483644", "2", "8", "-4", "15", "1"}}},
	{name: "getbit past the type's bits", query: `SELECT getbit(1, 32) AS a`, errClass: "INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE"},
	{name: "octet_length, bit_length, chr, ilike, overlay", query: `SELECT octet_length('é') AS a, bit_length('é') AS b, octet_length(X'0102') AS c, chr(65) AS d, chr(256 + 65) AS e, chr(-1) AS f, char(0) = '' AS g, ilike('Spark', 'S%RK') AS h, overlay('Spark SQL' PLACING '_' FROM 6) AS i, overlay('Spark SQL' PLACING 'CORE' FROM 7) AS j, overlay('Spark SQL' PLACING 'ANSI ' FROM 7 FOR 0) AS k, overlay('Spark SQL' PLACING 'tructured' FROM 2 FOR 4) AS l`,
		types: []string{"int", "int", "int", "string", "string", "string", "boolean", "boolean", "string", "string", "string", "string"},
		rows:  [][]string{{"2", "16", "2", "A", "A", "", "false", "true", "Spark_SQL", "Spark CORE", "Spark ANSI SQL", "Structured SQL"}}},
	{name: "url_encode and url_decode", query: `SELECT url_encode('a b&c=d/é') AS a, url_decode('a+b%26c%3Dd%2F%C3%A9') AS b, try_url_decode('%zz') AS c`,
		types: []string{"string", "string", "string"}, rows: [][]string{{"a+b%26c%3Dd%2F%C3%A9", "a b&c=d/é", "NULL"}}},
	{name: "url_decode of a malformed text", query: `SELECT url_decode('%zz') AS a`, errClass: "CANNOT_DECODE_URL"},
	{name: "array_remove, array_union, array_intersect, array_except", query: `SELECT array_remove(array(1, 2, NULL, 2), 2) AS a, array_union(array(1, 2, 2), array(3, 1)) AS b, array_intersect(array(1, 2, 2, 3), array(2, 3, 3)) AS c, array_except(array(1, 2, 2, 3), array(2)) AS d, array_except(array(NULL, 1), array(2)) AS e, size(array_remove(array(1), NULL)) AS f`,
		types: []string{"array<int>", "array<int>", "array<int>", "array<int>", "array<int>", "int"},
		rows:  [][]string{{"[1, NULL]", "[1, 2, 3]", "[2, 3]", "[1, 3]", "[NULL, 1]", "NULL"}}},
	{name: "cot, asinh, acosh", query: `SELECT cot(1) AS a, cot(0) = CAST('Infinity' AS DOUBLE) AS b, cot(-1.3D) AS c, asinh(1D) AS d, asinh(-7.3D) AS e, asinh(100D) AS f, acosh(2D) AS g, acosh(11.1D) AS h, acosh(1.5D) AS i, isnan(acosh(0.5D)) AS j, asinh(1e-10D) = 1.000000082690371E-10D AS k`,
		types: []string{"double", "boolean", "double", "double", "double", "double", "double", "double", "double", "boolean", "boolean"},
		rows:  [][]string{{"0.6420926159343306", "true", "-0.27761564654112514", "0.8813735870195429", "-2.685680167776155", "5.298342365610589", "1.3169578969248166", "3.098057029197177", "0.9624236501192069", "true", "true"}}},
	{name: "from_csv", query: `SELECT to_json(from_csv('1,abc', 'a INT, b STRING')) AS a, to_json(from_csv('x,2', 'a INT, b INT')) AS b, to_json(from_csv('1', 'a INT, b INT')) AS c, to_json(from_csv('1,2,3', 'a INT, b INT')) AS d, to_json(from_csv(' 7 ,  z ', 'a INT, b STRING')) AS e, to_json(from_csv('1,', 'a INT, b STRING')) AS f, from_csv('1, 2.5', 'a INT, f DOUBLE').f AS g, from_csv('12.345', 'a DECIMAL(5,2)').a AS h, from_csv('2147483648', 'a INT').a AS i, from_csv('true', 'a BOOLEAN').a AS j, from_csv('1e2', 'a DOUBLE').a AS k, from_csv('null', 'a STRING').a AS l`,
		types: []string{"string", "string", "string", "string", "string", "string", "double", "decimal(5,2)", "int", "boolean", "double", "string"},
		rows:  [][]string{{`{"a":1,"b":"abc"}`, `{"b":2}`, `{"a":1}`, `{"a":1,"b":2}`, `{"b":"  z "}`, `{"a":1}`, "2.5", "12.35", "NULL", "true", "100", "null"}}},
	{name: "schema_of_csv", query: `SELECT schema_of_csv('1,abc,2.5,true,2020-01-01,,') AS a, schema_of_csv('1|abc', map('delimiter', '|')) AS b, to_json(from_csv('1,abc', schema_of_csv('1,abc'))) AS c`,
		types: []string{"string", "string", "string"}, rows: [][]string{{"STRUCT<_c0: INT, _c1: STRING, _c2: DOUBLE, _c3: BOOLEAN, _c4: DATE, _c5: STRING, _c6: STRING>", "STRUCT<_c0: INT, _c1: STRING>", `{"_c0":1,"_c1":"abc"}`}}},
	{name: "schema_of_json", query: `SELECT schema_of_json('{"a":1, "b":[1.5, null], "c":{"d":"x"}, "e":true, "f":null, "g":[]}') AS a, schema_of_json('[1, 2]') AS b, schema_of_json('1') AS c, schema_of_json('{"a":1e3, "b": 12345678901234567890}') AS d, schema_of_json('{"b":1, "a":[1, "x"], "c":[1, 1.5]}') AS e, schema_of_json('{"c1":1}', map('primitivesAsString', 'true')) AS f, to_json(from_json('{"c1":[1, 2, 3]}', schema_of_json('{"c1":[0]}'))) AS g`,
		types: []string{"string", "string", "string", "string", "string", "string", "string"},
		rows:  [][]string{{"STRUCT<a: BIGINT, b: ARRAY<DOUBLE>, c: STRUCT<d: STRING>, e: BOOLEAN, f: STRING, g: ARRAY<STRING>>", "ARRAY<BIGINT>", "BIGINT", "STRUCT<a: DOUBLE, b: DECIMAL(20,0)>", "STRUCT<a: ARRAY<STRING>, b: BIGINT, c: ARRAY<DOUBLE>>", "STRUCT<c1: STRING>", `{"c1":[1,2,3]}`}}},
	{name: "mask with named arguments", query: `SELECT mask('AbCD123-@$#', lowerChar => 'q', upperChar => 'Q', otherChar => 'o', digitChar => 'd') AS a, mask(lowerChar => 'q', upperChar => 'Q', digitChar => 'd', str => 'AbCD123-@$#') AS b, mask('Ab1-', otherChar => '*') AS c`,
		types: []string{"string", "string", "string"}, rows: [][]string{{"QqQQdddoooo", "QqQQddd-@$#", "Xxn*"}}},
	{name: "to_csv", query: `SELECT to_csv(named_struct('a', 1, 'b', 2)) AS a, to_csv(named_struct('a', 'x,y', 'b', CAST(NULL AS INT), 'c', '', 'd', 'q"r', 'e', true, 'f', 1.5D)) AS b`,
		types: []string{"string", "string"}, rows: [][]string{{"1,2", `"x,y",,"","q\"r",true,1.5`}}},
	{name: "try_sum of 38-digit decimals", query: `SELECT g, try_sum(col) AS s FROM VALUES (1, 98765432109876543210987654321098765432BD), (1, 98765432109876543210987654321098765432BD), (2, 5BD), (2, -7BD) AS tab(g, col) GROUP BY g ORDER BY g`,
		types: []string{"int", "decimal(38,0)"}, rows: [][]string{{"1", "NULL"}, {"2", "-2"}}},
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
		`SELECT format_string('%5.2e', 1.5D) AS a`:                "conversions",
		`SELECT format_string('%.2f', 1.5BD) AS a`:                "IllegalFormatConversionException",
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
