//go:build duckdb_arrow

package translate_test

// qa15Traps: functions QA found wrong on public projects (QA15 F25):
// base64 of a STRING encodes its UTF-8 bytes (it was a false type error),
// count_if is a BIGINT (it was a DECIMAL(38,0)). Spark 4.1.4's values
// (read again on the server on 2026-12-03 with spark.sql(...).collect()).
var qa15Traps = []trap{
	{name: "base64 of a string", query: `SELECT base64('Spark SQL') AS a, base64(CAST('alice' AS STRING)) AS b`,
		types: []string{"string", "string"}, rows: [][]string{{"U3BhcmsgU1FM", "YWxpY2U="}}},
	{name: "count_if is a bigint", query: `SELECT count_if(v > 2) AS n, count_if(v > 2) FILTER (WHERE v < 5) AS m FROM VALUES (1), (3), (7), (NULL) t(v)`,
		types: []string{"bigint", "bigint"}, rows: [][]string{{"2", "1"}}},
}

func init() { traps = append(traps, qa15Traps...) }
