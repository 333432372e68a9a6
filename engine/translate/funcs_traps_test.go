//go:build duckdb_arrow

package translate_test

// funcTraps are traps of the functions of funcs_pad.go, funcs_dates.go,
// funcs_lists.go and funcs_aggs.go, where DuckDB's function of the same
// name (or its nearest) computes something else. They join the trap
// table, so TestTraps runs them natively and TestSparkTraps on Spark.
var funcTraps = []trap{
	{name: "lpad and rpad of BINARY", query: `SELECT hex(lpad(unhex('aabb'), 5)) AS a, hex(rpad(unhex('aa'), 5, unhex('1f2e'))) AS b, hex(lpad(unhex('aabbcc'), 2)) AS c, lpad(x'57', 5, 'abc') AS d, hex(lpad(unhex('aabbcc'), 6, unhex(''))) AS e, hex(rpad(unhex('aa'), -1)) AS f`,
		types: []string{"string", "string", "string", "string", "string", "string"}, rows: [][]string{{"000000AABB", "AA1F2E1F2E", "AABB", "abcaW", "AABBCC", ""}}},
	{name: "next_day", query: `SELECT next_day('2015-07-23', 'Mon') AS a, next_day('2015-07-23 12:12:12', 'mon') AS b, next_day(DATE'2015-07-27', 'MONDAY') AS c, next_day(NULL, 'xx') AS d, next_day(DATE'2015-07-27', 'su') AS e`,
		types: []string{"date", "date", "date", "date", "date"}, rows: [][]string{{"2015-07-27", "2015-07-27", "2015-08-03", "NULL", "2015-08-02"}}},
	{name: "next_day of an unknown day", query: `SELECT next_day('2015-07-23', 'xx') AS a`, errClass: "ILLEGAL_DAY_OF_WEEK"},
	{name: "to_timestamp_ntz", query: `SELECT CAST(to_timestamp_ntz('2011-05-06 07:08:09.1234567') AS STRING) AS a, typeof(to_timestamp_ntz('2020-01-01')) AS b, CAST(to_timestamp_ntz('12/31/2020 10:00', 'MM/dd/yyyy HH:mm') AS STRING) AS c`,
		types: []string{"string", "string", "string"}, rows: [][]string{{"2011-05-06 07:08:09.123456", "timestamp_ntz", "2020-12-31 10:00:00"}}},
	{name: "to_timestamp_ntz drops the zone", query: `SELECT CAST(to_timestamp_ntz('2019-10-06 10:11:12+01:00') AS STRING) AS a, CAST(to_timestamp_ntz('2019-10-06 10:11:12 UTC') AS STRING) AS b, CAST(to_timestamp_ntz('2019-10-06T10:11:12Z') AS STRING) AS c`,
		types: []string{"string", "string", "string"}, rows: [][]string{{"2019-10-06 10:11:12", "2019-10-06 10:11:12", "2019-10-06 10:11:12"}}},
	{name: "array_insert past the size limit", query: `SELECT array_insert(array(1, 2), 2147483647, 3) AS a`, errClass: "COLLECTION_SIZE_LIMIT_EXCEEDED.FUNCTION"},
	{name: "array_insert", query: `SELECT array_insert(array(1, 3, 4), -2, 2) AS a, array_insert(array(1), 4, 9) AS b, array_insert(array(1, 2), -5, 9) AS c, array_insert(array(1, 2), -1, 9) AS d, array_insert(array(1), 2, CAST(2 AS TINYINT)) AS e`,
		types: []string{"array<int>", "array<int>", "array<int>", "array<int>", "array<int>"}, rows: [][]string{{"[1, 3, 2, 4]", "[1, NULL, NULL, 9]", "[9, NULL, NULL, 1, 2]", "[1, 2, 9]", "[1, 2]"}}},
	{name: "array_insert at 0", query: `SELECT array_insert(array(2, 3, 4), 0, 1) AS a`, errClass: "INVALID_INDEX_OF_ZERO"},
	{name: "mode, deterministic", query: `SELECT mode(x, true) AS a, mode() WITHIN GROUP (ORDER BY x) AS b, mode() WITHIN GROUP (ORDER BY x DESC) AS c, mode(y, true) AS d FROM VALUES (3, 1), (1, 2), (3, 2), (1, NULL), (2, NULL) t(x, y)`,
		types: []string{"int", "int", "int", "int"}, rows: [][]string{{"1", "1", "3", "2"}}},
	{name: "mode with ties refused", query: `SELECT mode(x) AS a FROM VALUES (1), (2) t(x)`, finding: "hash order", spark: "1 or 2, as Spark's hash map iterates"},
	{name: "percentile_cont and percentile_disc", query: `SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY x) AS a, percentile_cont(0.25) WITHIN GROUP (ORDER BY x DESC) AS b, percentile_disc(0.25) WITHIN GROUP (ORDER BY x) AS c, percentile_disc(0.25) WITHIN GROUP (ORDER BY x DESC) AS d, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE x > 1) AS e FROM VALUES (1), (2), (4), (8) t(x)`,
		types: []string{"double", "double", "double", "double", "double"}, rows: [][]string{{"1.75", "5", "1", "8", "4"}}},
	{name: "percentile_disc descending", query: `SELECT percentile_disc(0.25) WITHIN GROUP (ORDER BY x DESC) AS d, percentile_disc(0.5) WITHIN GROUP (ORDER BY x DESC) AS e, percentile_disc(0.75) WITHIN GROUP (ORDER BY x) AS f, percentile_disc(0.3) WITHIN GROUP (ORDER BY x DESC) AS g, percentile_disc(0.0) WITHIN GROUP (ORDER BY x DESC) AS h, percentile_cont(0.1) WITHIN GROUP (ORDER BY x DESC) AS i, percentile_cont(0.1) WITHIN GROUP (ORDER BY x) AS j FROM VALUES (1), (2), (4), (8), (16) t(x)`,
		types: []string{"double", "double", "double", "double", "double", "double", "double"}, rows: [][]string{{"8", "4", "8", "8", "16", "12.8", "1.4"}}},
	{name: "json_object_keys", query: `SELECT json_object_keys('{"key": "value", "key2": {"a": 1}}') AS a, json_object_keys('{}') AS b, json_object_keys('[1, 2]') AS c, json_object_keys('{[1,2]}') AS d, json_object_keys('') AS e, json_object_keys('{"a": 1, "a": 2}') AS f`,
		types: []string{"array<string>", "array<string>", "array<string>", "array<string>", "array<string>", "array<string>"}, rows: [][]string{{"[key, key2]", "[]", "NULL", "NULL", "NULL", "[a, a]"}}},
	{name: "map_zip_with", query: `SELECT map_keys(m) AS k, map_values(m) AS v FROM (SELECT map_zip_with(map(1, 'a', 2, 'b'), map(3L, 'y', 1L, 'x'), (k, v1, v2) -> concat(coalesce(v1, '-'), coalesce(v2, '-'))) AS m)`,
		types: []string{"array<bigint>", "array<string>"}, rows: [][]string{{"[1, 2, 3]", "[ax, b-, -y]"}}},
	{name: "parsing D, the day of the year", query: `SELECT to_timestamp('300', 'D') AS a, to_timestamp('100', 'DD') AS b, to_timestamp('2020-365', 'yyyy-DDD') AS c, to_timestamp('2020-12-350', 'yyyy-MM-DDD') AS d, to_date('31-365', 'dd-DDD') AS e, try_to_timestamp('366', 'D') AS f`,
		types: []string{"timestamp", "timestamp", "timestamp", "timestamp", "date", "timestamp"}, rows: [][]string{{"1970-10-27 00:00:00", "1970-04-10 00:00:00", "2020-12-30 00:00:00", "2020-12-15 00:00:00", "1970-12-31", "NULL"}}},
	{name: "D against the month", query: `SELECT to_timestamp('11-365', 'MM-DDD') AS a`, errClass: "CANNOT_PARSE_TIMESTAMP"},
	{name: "an optional section at the end", query: `SELECT to_timestamp('2019-10-06 10:11', 'yyyy-MM-dd HH:mm[:ss]') AS b, date_format(TIMESTAMP'2019-10-06 10:11:12', 'yyyy-MM-dd[ HH:mm]') AS c`,
		types: []string{"timestamp", "string"}, rows: [][]string{{"2019-10-06 10:11:00", "2019-10-06 10:11"}}},
	// Spark reads '.123' under [.SSSSSS] (2019-10-06 10:11:12.123 on
	// 4.1.4), and so does the native parse (cast to STRING, the fraction
	// shows; patterns_t2_test.go has more).
	{name: "an optional fraction", query: `SELECT CAST(to_timestamp('2019-10-06 10:11:12.123', 'yyyy-MM-dd HH:mm:ss[.SSSSSS]') AS STRING) AS a`, types: []string{"string"}, rows: [][]string{{"2019-10-06 10:11:12.123"}}},
	{name: "zip_with, transform_keys, transform_values", query: `SELECT zip_with(array(1, 2, 3), array('a', 'b'), (x, y) -> concat(y, x)) AS a, map_keys(transform_keys(map(1, 'a', 2, 'b'), (k, v) -> k * 10)) AS b, map_values(transform_values(map(1, 'a', 2, 'b'), (k, v) -> concat(v, k))) AS c`,
		types: []string{"array<string>", "array<int>", "array<string>"}, rows: [][]string{{"[a1, b2, NULL]", "[10, 20]", "[a1, b2]"}}},
	{name: "transform_keys to a duplicate key", query: `SELECT transform_keys(map(1, 'a', 2, 'b'), (k, v) -> 1) AS m`, errClass: "DUPLICATED_MAP_KEY"},
}

func init() { traps = append(traps, funcTraps...) }
