//go:build duckdb_arrow

package translate_test

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/engine/translate"
)

// moreFuncTraps are traps of the functions of funcs_math.go, the JSON
// functions (funcs_json.go, funcs_fromjson.go), first/last/any_value,
// regr_* (funcs_aggs.go) and arrays_zip (funcs_lists.go). They join the
// trap table, so TestTraps runs them natively and TestSparkTraps on
// Spark.
var moreFuncTraps = []trap{
	{name: "bit_and, bit_or, bit_xor keep the type", query: `SELECT bit_and(x) AS a, bit_or(x) AS b, bit_xor(x) AS c, bit_xor(DISTINCT x) AS d, bit_xor(CAST(x AS TINYINT)) AS e, bit_and(y) AS f FROM VALUES (3, CAST(NULL AS BIGINT)), (5, NULL), (5, NULL), (NULL, NULL) t(x, y)`,
		types: []string{"int", "int", "int", "int", "tinyint", "bigint"}, rows: [][]string{{"1", "7", "3", "6", "3", "NULL"}}},
	{name: "zeroifnull and nullifzero", query: `SELECT zeroifnull(CAST(NULL AS TINYINT)) AS a, zeroifnull(CAST(5 AS BIGINT)) AS b, nullifzero(0) AS c, nullifzero(CAST(0.0 AS DOUBLE)) AS d, nullifzero(7L) AS e, zeroifnull(NULL) AS f`,
		types: []string{"int", "bigint", "int", "double", "bigint", "int"}, rows: [][]string{{"0", "5", "NULL", "NULL", "7", "0"}}},
	{name: "bin", query: `SELECT bin(13) AS a, bin(-1) AS b, bin(25.9) AS c, bin(0) AS d, bin(CAST(NULL AS INT)) AS e`,
		types: []string{"string", "string", "string", "string", "string"}, rows: [][]string{{"1101", "1111111111111111111111111111111111111111111111111111111111111111", "11001", "0", "NULL"}}},
	{name: "sec and csc", query: `SELECT sec(0) AS a, csc(1) AS b, sec(NULL) AS c, csc(-1) AS d`,
		types: []string{"double", "double", "double", "double"}, rows: [][]string{{"1", "1.1883951057781212", "NULL", "-1.1883951057781212"}}},
	{name: "json_array_length", query: `SELECT json_array_length('[1,2,[3,4],{"a":[5]}]') AS a, json_array_length('[]') AS b, json_array_length('{"a":1}') AS c, json_array_length('[1,2') AS d, json_array_length('') AS e, json_array_length(CAST(NULL AS STRING)) AS f`,
		types: []string{"int", "int", "int", "int", "int", "int"}, rows: [][]string{{"4", "0", "NULL", "NULL", "NULL", "NULL"}}},
	{name: "first_value and last_value over an order", query: `SELECT x, first_value(x) OVER (PARTITION BY p ORDER BY x) AS f, last_value(x) OVER (PARTITION BY p ORDER BY x) AS l, first_value(y, true) OVER (PARTITION BY p ORDER BY x) AS g, first(y) IGNORE NULLS OVER (PARTITION BY p ORDER BY x ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS h, last_value(p) OVER (PARTITION BY p) AS i, any_value(y) OVER (PARTITION BY p ORDER BY x) AS j FROM VALUES (1, 1, NULL), (1, 2, 5), (2, 3, 7), (1, 4, 6) t(p, x, y) ORDER BY x`,
		types: []string{"int", "int", "int", "int", "int", "int", "int"}, rows: [][]string{{"1", "1", "1", "NULL", "5", "1", "NULL"}, {"2", "1", "2", "5", "5", "1", "NULL"}, {"3", "3", "3", "7", "7", "2", "7"}, {"4", "1", "4", "5", "5", "1", "NULL"}}},
	{name: "first and last of a group whose values agree", query: `SELECT p, first(y) AS a, last(y, true) AS b, any_value(y) AS c, first_value(z, true) AS d FROM VALUES (1, 5, 3), (1, 5, 3), (2, NULL, 2), (2, NULL, NULL) t(p, y, z) GROUP BY p ORDER BY p`,
		types: []string{"int", "int", "int", "int", "int"}, rows: [][]string{{"1", "5", "5", "5", "3"}, {"2", "NULL", "NULL", "NULL", "2"}}},
	{name: "to_json", query: `SELECT to_json(named_struct('a', 1, 'b', CAST(NULL AS INT), 'c', 'x"y\\z')) AS a, to_json(array(map('k', 1, 'n', CAST(NULL AS INT)))) AS b, to_json(map(1, array(1.50BD, NULL))) AS c, to_json(named_struct('s', named_struct('t', true))) AS d, to_json(CAST(NULL AS STRUCT<a: INT>)) AS e`,
		types: []string{"string", "string", "string", "string", "string"}, rows: [][]string{{`{"a":1,"c":"x\"y\\z"}`, `[{"k":1,"n":null}]`, `{"1":[1.50,null]}`, `{"s":{"t":true}}`, "NULL"}}},
	{name: "from_json", query: `SELECT to_json(from_json('{"a":1, "b":"x", "z":[1]}', 'a INT, b STRING')) AS a, to_json(from_json('[1, 2, null]', 'array<int>')) AS b, to_json(from_json('{"a": 1}', 'array<struct<a:int>>')) AS c, to_json(from_json('{"x":{"a":1},"y":null}', 'map<string,struct<a:int>>')) AS d, to_json(from_json('{"a": 2147483648, "b": true}', 'a BIGINT, b BOOLEAN')) AS e, from_json('["a", null]', 'array<string>') AS f`,
		types: []string{"string", "string", "string", "string", "string", "array<string>"}, rows: [][]string{{`{"a":1,"b":"x"}`, `[1,2,null]`, `[{"a":1}]`, `{"x":{"a":1},"y":null}`, `{"a":2147483648,"b":true}`, "[a, NULL]"}}},
	{name: "from_json of malformed texts", query: `SELECT from_json('abc', 'a INT').a IS NULL AND from_json('abc', 'a INT') IS NOT NULL AS a, from_json('{"a":1', 'a INT') IS NOT NULL AND from_json('{"a":1', 'a INT').a IS NULL AS b, from_json('[1, "2"]', 'array<int>') AS c, from_json('{"a": "x"}', 'map<string,int>') AS d, from_json('[[1,"x"]]', 'array<array<int>>') AS e, from_json('[1,2', 'array<int>') AS f, from_json('[1]', 'array<struct<a:int>>') AS g`,
		types: []string{"boolean", "boolean", "array<int>", "map<string,int>", "array<array<int>>", "array<int>", "array<struct<a:int>>"}, rows: [][]string{{"true", "true", "NULL", "NULL", "NULL", "NULL", "NULL"}}},
	{name: "arrays_zip", query: `SELECT to_json(arrays_zip(array(1, 2), array('a'))) AS a, to_json(arrays_zip(x, y)) AS b, arrays_zip(x, CAST(NULL AS ARRAY<INT>)) IS NULL AS c, size(arrays_zip(array(), x)) AS d FROM VALUES (array(1), array(2, 3)) t(x, y)`,
		types: []string{"string", "string", "boolean", "int"}, rows: [][]string{{`[{"0":1,"1":"a"},{"0":2}]`, `[{"x":1,"y":2},{"y":3}]`, "true", "1"}}},
	{name: "regr_count, regr_avgx, regr_sxx, regr_syy", query: `SELECT k, regr_count(y, x) AS n, regr_avgx(y, x) AS ax, regr_avgy(y, x) AS ay, regr_sxx(y, x) AS sxx, regr_syy(y, x) AS syy FROM VALUES (1, 10, NULL), (2, 10, 11), (2, 20, 22), (2, 25, NULL), (2, 30, 35), (2, NULL, 40) t(k, y, x) GROUP BY k ORDER BY k`,
		types: []string{"int", "bigint", "double", "double", "double", "double"}, rows: [][]string{{"1", "0", "NULL", "NULL", "NULL", "NULL"}, {"2", "3", "22.666666666666668", "20", "288.6666666666667", "200"}}},
}

func init() { traps = append(traps, moreFuncTraps...) }

// TestFirstLastTies checks that first and last fail as not portable
// where Spark's value depends on which of tied rows it reads first: rows
// of a group holding different values, rows tied in a window's order.
func TestFirstLastTies(t *testing.T) {
	db := openDuck(t)
	for _, q := range []string{
		`SELECT first(x) AS a FROM VALUES (1), (2) t(x)`,
		`SELECT last(x) AS a FROM VALUES (1), (NULL) t(x)`,
		`SELECT first_value(y) OVER (ORDER BY x) AS a FROM VALUES (1, 'a'), (1, 'b'), (2, 'c') t(x, y)`,
		`SELECT last_value(y) OVER (PARTITION BY p) AS a FROM VALUES (1, 1.0D), (1, -0.0D) t(p, y)`,
	} {
		r := translate.TranslateText(q, translate.Options{})
		if len(r.Findings) > 0 {
			t.Fatalf("%s: refused before running: %s", q, r.Findings[0].Message)
		}
		_, rows, err := query(db, r.SQL)
		if err == nil {
			t.Fatalf("%s: ran, giving %v; the value depends on the order of tied rows", q, rows)
		}
		msg, _, _ := r.Explain(err.Error())
		if !strings.Contains(msg, "is not defined") || strings.Contains(msg, "thund") {
			t.Fatalf("%s: error %q", q, msg)
		}
	}
}

// TestFromJSONNotPortable checks that from_json fails as not portable
// where Spark's reading is not certain to be the native one.
func TestFromJSONNotPortable(t *testing.T) {
	db := openDuck(t)
	for _, q := range []string{
		`SELECT from_json('{"a": "x", "b": 1}', 'a INT, b INT') AS r`,
		`SELECT from_json('{"a": 1, "a": 2}', 'a INT') AS r`,
		`SELECT from_json('{"A": 1}', 'a INT') AS r`,
		`SELECT from_json('null', 'a INT') AS r`,
		`SELECT from_json('', 'array<int>') AS r`,
		`SELECT from_json('{"a": 1} x', 'a INT') AS r`,
		`SELECT from_json('[{"a": 1}]', 'a INT') AS r`,
		`SELECT from_json('{"a": 1}', 'a STRING') AS r`,
		`SELECT from_json('[{"a": "x"}]', 'array<struct<a:int>>') AS r`,
	} {
		r := translate.TranslateText(q, translate.Options{})
		if len(r.Findings) > 0 {
			t.Fatalf("%s: refused before running: %s", q, r.Findings[0].Message)
		}
		_, rows, err := query(db, r.SQL)
		if err == nil {
			t.Fatalf("%s: ran, giving %v", q, rows)
		}
		msg, _, _ := r.Explain(err.Error())
		if !strings.Contains(msg, "Jackson") || strings.Contains(msg, "thund") {
			t.Fatalf("%s: error %q", q, msg)
		}
	}
}
