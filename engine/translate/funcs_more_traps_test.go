//go:build duckdb_arrow

package translate_test

// moreFuncTraps are traps of the functions of funcs_math.go and of
// json_array_length (funcs_json.go). They join the trap table, so
// TestTraps runs them natively and TestSparkTraps on Spark.
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
}

func init() { traps = append(traps, moreFuncTraps...) }
