//go:build duckdb_arrow

package translate_test

// intervalFuncTraps are functions of intervals (extract, make_ym_interval,
// make_dt_interval) and rounding to a scale (round, bround, ceil,
// floor), held to Spark by the interval traps' tests.
var intervalFuncTraps = []intervalTrap{
	{name: "extract of intervals", query: `SELECT extract(YEAR FROM INTERVAL '2-1' YEAR TO MONTH) AS a, extract(MONTH FROM -INTERVAL '2-1' YEAR TO MONTH) AS b, date_part('DAY', INTERVAL '123 12:34:56.789123' DAY TO SECOND) AS c, extract(HOUR FROM -INTERVAL '123 12:34:56.789123' DAY TO SECOND) AS d, extract(MINUTE FROM INTERVAL '123 12:34:56.789123' DAY TO SECOND) AS e, extract(SECOND FROM -INTERVAL '123 12:34:56.789123' DAY TO SECOND) AS f, date_part(NULL, INTERVAL '1' YEAR) AS g, extract(MINUTE FROM INTERVAL '10:30' MINUTE TO SECOND) AS h`,
		cols:  []string{"a", "b", "c", "d", "e", "f", "g", "h"},
		types: []string{"int", "tinyint", "int", "tinyint", "tinyint", "decimal(8,6)", "double", "tinyint"},
		rows:  [][]string{{"2", "-1", "123", "-12", "34", "-56.789123", "NULL", "10"}}},
	{name: "make_ym_interval and make_dt_interval", query: `SELECT make_ym_interval(1, 2) AS a, make_ym_interval(-178956970, -8) AS b, make_dt_interval(1, 2, 3, 4.005006) AS c, make_dt_interval(1) AS d, make_ym_interval() AS e, make_dt_interval(1, 0, 0, 123456789012.123456) AS f`,
		cols:  []string{"a", "b", "c", "d", "e", "f"},
		types: []string{"interval year to month", "interval year to month", "interval day to second", "interval day to second", "interval year to month", "interval day to second"},
		rows:  [][]string{{"INTERVAL '1-2' YEAR TO MONTH", "INTERVAL '-178956970-8' YEAR TO MONTH", "INTERVAL '1 02:03:04.005006' DAY TO SECOND", "INTERVAL '1 00:00:00' DAY TO SECOND", "INTERVAL '0-0' YEAR TO MONTH", "INTERVAL '1428899 00:30:12.123456' DAY TO SECOND"}}},
	{name: "make_date of a day that does not exist without ANSI", noANSI: true, query: `SELECT make_date(2000, 13, 1) AS a, make_date(2000, 2, 29) AS b, make_date(2000, 1, 33) AS c`,
		cols:  []string{"a", "b", "c"},
		types: []string{"date", "date", "date"},
		rows:  [][]string{{"NULL", "2000-02-29", "NULL"}}},
	{name: "make_ym_interval overflows", query: `SELECT make_ym_interval(178956970, 8) AS a`, errClass: "INTERVAL_ARITHMETIC_OVERFLOW"},
	{name: "ceil and floor to a scale", query: `SELECT CEIL(-0.35, 1) AS a, FLOOR(3.14115, -3) AS b, CEIL(CAST(99 AS DECIMAL(2, 0)), -1) AS c, FLOOR(-35, -1) AS d, FLOOR(-2.5, 0) AS e, CEIL(5, 0) AS f, CEIL(12.345BD, 5) AS g, FLOOR(-7L, -1) AS h, CEIL(-128Y, -2) AS i`,
		cols:  []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"},
		types: []string{"decimal(2,1)", "decimal(4,0)", "decimal(3,0)", "decimal(11,0)", "decimal(2,0)", "decimal(11,0)", "decimal(6,3)", "decimal(21,0)", "decimal(4,0)"},
		rows:  [][]string{{"-0.3", "0", "100", "-40", "-3", "5", "12.345", "-10", "-100"}}},
	{name: "round and bround to a negative scale without ANSI wrap", noANSI: true, query: `SELECT round(127Y, -1) AS a, round(-128Y, -1) AS b, bround(25Y, -1) AS c, bround(35S, -1) AS d, round(9223372036854775807L, -1) AS e, round(525, -3) AS f, bround(-32768S, -1) AS g`,
		cols:  []string{"a", "b", "c", "d", "e", "f", "g"},
		types: []string{"tinyint", "tinyint", "tinyint", "smallint", "bigint", "int", "smallint"},
		rows:  [][]string{{"-126", "126", "20", "40", "-9223372036854775806", "1000", "32766"}}},
}

func init() { intervalTraps = append(intervalTraps, intervalFuncTraps...) }
