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
	// QA15 F9: from_unixtime is a STRING, so a cast of it is known.
	{name: "from_unixtime", query: `SELECT from_unixtime(1567065491) AS a, from_unixtime(CAST(1567065491 AS INT), 'yyyyMMdd HH:mm') AS b, from_unixtime(-1) AS c, from_unixtime(NULL) AS d, timestamp(from_unixtime(0)) AS e, from_unixtime(1567065491.9D) AS f`,
		types: []string{"string", "string", "string", "string", "timestamp", "string"}, rows: [][]string{{"2019-08-29 07:58:11", "20190829 07:58", "1969-12-31 23:59:59", "NULL", "1970-01-01 00:00:00", "2019-08-29 07:58:11"}}},
}

func init() { traps = append(traps, qa15Traps...) }
