//go:build duckdb_arrow

package translate_test

// roundDoubleTraps: round and bround of a DOUBLE round the decimal its
// text writes, not its binary value (QA15 F15: round(0.285D, 2) gave
// 0.28 natively); a FLOAT rounds its binary value. The values were read
// from a Spark 4.1.4 Connect server on 2026-12-03 with
// spark.sql(...).collect(); the rows are written as the trap tests print
// doubles (Go's shortest form: 3 for 3.0).
var roundDoubleTraps = []trap{
	{name: "round of a double rounds its text HALF_UP",
		query: `SELECT round(0.285D, 2) AS a, round(1.015D, 2) AS b, round(CAST(1.005 AS DOUBLE), 2) AS c, round(-2.675D, 2) AS f, round(123456.785D, 2) AS h, round(2.5D) AS i`,
		types: []string{"double", "double", "double", "double", "double", "double"},
		rows:  [][]string{{"0.29", "1.02", "1.01", "-2.68", "123456.79", "3"}}},
	{name: "bround of a double rounds its text HALF_EVEN",
		query: `SELECT bround(1.015D, 2) AS d, bround(0.125D, 2) AS e, bround(2.5D) AS j`,
		types: []string{"double", "double", "double"},
		rows:  [][]string{{"1.02", "0.12", "2"}}},
	{name: "round of a tiny double",
		query: `SELECT round(1.5e-25D, 20) AS g`,
		types: []string{"double"},
		rows:  [][]string{{"0"}}},
}

func init() { traps = append(traps, roundDoubleTraps...) }
