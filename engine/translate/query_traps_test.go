//go:build duckdb_arrow

package translate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thund-dev/thund/engine/translate"
)

// csValues is the input of the PIVOT traps: courses' earnings per year,
// one row without a course.
const csValues = `(SELECT * FROM VALUES ('dotNET', 2012, 10000), ('Java', 2012, 20000), ('dotNET', 2012, 5000), ('dotNET', 2013, 48000), ('Java', 2013, 30000), (NULL, 2014, 1) AS cs(course, year, earnings))`

// xyz defines the three tables of the join-condition traps (the views
// of Spark's exists-in-join-condition.sql, with more rows and NULLs),
// as a WITH clause.
const xyz = `WITH x(x1, x2) AS (VALUES (2, 1), (1, 1), (3, 4), (NULL, 7)), y(y1, y2) AS (VALUES (0, 2), (1, 4), (4, 11), (1, 5), (1, NULL)), z(z1, z2) AS (VALUES (4, 2), (3, 3), (8, 1), (NULL, 4), (5, 5)) `

// queryTraps are the traps of query-level constructs (PIVOT, UNPIVOT,
// pipe operators, ...), read from a Spark 4.1.4 Connect server on
// 2026-12-03. They join the trap table, so TestTraps and TestSparkTraps
// check them on both engines.
var queryTraps = []trap{
	// PIVOT computes its aggregates per grouping columns and value in a
	// first aggregate and picks each value's into a column: a year
	// without a row of a course gives NULL, also for count.
	{name: "pivot count of a missing value is NULL", query: `SELECT * FROM ` + csValues + ` PIVOT (count(earnings) FOR course IN ('dotNET', 'Java'))`,
		types: []string{"int", "bigint", "bigint"}, rows: [][]string{{"2012", "2", "1"}, {"2013", "1", "1"}, {"2014", "NULL", "NULL"}}},
	{name: "pivot of an expression over aggregates", query: `SELECT * FROM ` + csValues + ` PIVOT (coalesce(sum(earnings), 0) FOR course IN ('dotNET', 'Java'))`,
		types: []string{"int", "bigint", "bigint"}, rows: [][]string{{"2012", "15000", "20000"}, {"2013", "48000", "30000"}, {"2014", "NULL", "NULL"}}},
	// Beside an aggregate that is not a number, Spark rewrites each
	// aggregate to agg(if(col <=> value, x, null)): count is 0 then.
	{name: "pivot count beside a string aggregate is 0", query: `SELECT * FROM ` + csValues + ` PIVOT (count(earnings) AS n, max(cast(earnings AS STRING)) AS m FOR course IN ('dotNET', 'Java'))`,
		types: []string{"int", "bigint", "string", "bigint", "string"}, rows: [][]string{{"2012", "2", "5000", "1", "20000"}, {"2013", "1", "48000", "1", "30000"}, {"2014", "0", "NULL", "0", "NULL"}}},
	// count(*) reads no column: every other column groups.
	{name: "pivot count(*) groups by the other columns", query: `SELECT * FROM ` + csValues + ` PIVOT (count(*) FOR course IN ('dotNET', 'Java'))`,
		types: []string{"int", "int", "bigint", "bigint"}, rows: [][]string{{"2012", "10000", "1", "NULL"}, {"2012", "5000", "1", "NULL"}, {"2014", "1", "NULL", "NULL"}, {"2012", "20000", "NULL", "1"}, {"2013", "48000", "1", "NULL"}, {"2013", "30000", "NULL", "1"}}},
	// No grouping column and no row: one row of NULLs.
	{name: "pivot of no rows", query: `SELECT * FROM (SELECT course, earnings FROM ` + csValues + ` WHERE earnings < 0) PIVOT (sum(earnings), count(1) FOR course IN ('dotNET', 'Java'))`,
		types: []string{"bigint", "bigint", "bigint", "bigint"}, rows: [][]string{{"NULL", "NULL", "NULL", "NULL"}}},
	{name: "pivot on an integer column", query: `SELECT * FROM ` + csValues + ` PIVOT (sum(earnings) FOR year IN (2012, 2013))`,
		types: []string{"string", "bigint", "bigint"}, rows: [][]string{{"NULL", "NULL", "NULL"}, {"dotNET", "15000", "48000"}, {"Java", "20000", "30000"}}},
	{name: "pivot with a value twice", query: `SELECT * FROM ` + csValues + ` PIVOT (sum(earnings) FOR year IN (2012, 2012))`,
		finding: "two of its columns", spark: "fails at run time with INVALID_ARRAY_INDEX"},
	// UNPIVOT drops a row whose values are all NULL (EXCLUDE NULLS, the
	// default), not one with some; the name is the columns' joined by _.
	{name: "unpivot excludes rows of NULLs only", query: `SELECT * FROM VALUES ('dotNET', 15000, CAST(NULL AS INT), 48000, 1), ('Java', NULL, NULL, 30000, 2) AS t(course, e2012, s2012, e2013, s2013) UNPIVOT ((earnings, sales) FOR year IN ((e2012, s2012), (e2013, s2013) AS y2013))`,
		types: []string{"string", "string", "int", "int"}, rows: [][]string{{"dotNET", "e2012_s2012", "15000", "NULL"}, {"dotNET", "y2013", "48000", "1"}, {"Java", "y2013", "30000", "2"}}},
	{name: "unpivot include nulls", query: `SELECT * FROM VALUES ('dotNET', 15000, CAST(NULL AS INT)), ('Java', NULL, NULL) AS t(course, a, b) UNPIVOT INCLUDE NULLS (v FOR k IN (a, b))`,
		types: []string{"string", "string", "int"}, rows: [][]string{{"dotNET", "a", "15000"}, {"dotNET", "b", "NULL"}, {"Java", "a", "NULL"}, {"Java", "b", "NULL"}}},
	{name: "unpivot of an int and a bigint", query: `SELECT * FROM VALUES (1, 2L) AS t(a, b) UNPIVOT (v FOR k IN (a, b))`,
		finding: "common type", spark: "widens the values to bigint"},
	// |> AGGREGATE: the grouping items' columns first, an ordinal names
	// the input's column.
	{name: "pipe aggregate by an ordinal", query: `SELECT 3 AS x, 4 AS y, 5 AS z |> AGGREGATE sum(y) AS s GROUP BY 3, x`,
		types: []string{"int", "int", "bigint"}, rows: [][]string{{"5", "3", "4"}}},
	{name: "pipe aggregate of no rows", query: `SELECT 1 AS x WHERE false |> AGGREGATE count(*) AS n, sum(x) AS s`,
		types: []string{"bigint", "bigint"}, rows: [][]string{{"0", "NULL"}}},
	{name: "pipe aggregate then pivot", query: `FROM ` + csValues + ` |> AGGREGATE sum(earnings) AS e GROUP BY course, year |> PIVOT (max(e) FOR year IN (2012, 2013))`,
		types: []string{"string", "bigint", "bigint"}, rows: [][]string{{"NULL", "NULL", "NULL"}, {"dotNET", "15000", "48000"}, {"Java", "20000", "30000"}}},
	{name: "pipe unpivot", query: `VALUES ('a', 1, 2) AS t(k, x, y) |> UNPIVOT (v FOR n IN (x, y)) |> WHERE v > 1`,
		types: []string{"string", "string", "int"}, rows: [][]string{{"a", "y", "2"}}},
	// window(ts, duration) groups by tumbling windows counted from the
	// epoch (a 7-second window does not divide a day: DuckDB's default
	// origin would shift it); rows whose time is NULL are dropped.
	{name: "window drops NULL times", query: `SELECT window.start AS s, window.end AS e, count(*) AS n FROM VALUES (CAST(NULL AS TIMESTAMP)), (TIMESTAMP '2024-01-01 00:00:07'), (TIMESTAMP '2024-01-01 00:00:03') t(ts) GROUP BY window(ts, '5 seconds')`,
		types: []string{"timestamp", "timestamp", "bigint"}, rows: [][]string{{"2024-01-01 00:00:00", "2024-01-01 00:00:05", "1"}, {"2024-01-01 00:00:05", "2024-01-01 00:00:10", "1"}}},
	{name: "window counted from the epoch", query: `SELECT window.start, window.end, count(*) AS n FROM VALUES (TIMESTAMP '1969-12-31 23:59:54'), (TIMESTAMP '2024-01-01 00:00:07') t(ts) GROUP BY window(ts, '7 seconds')`,
		types: []string{"timestamp", "timestamp", "bigint"}, rows: [][]string{{"1969-12-31 23:59:53", "1970-01-01 00:00:00", "1"}, {"2024-01-01 00:00:04", "2024-01-01 00:00:11", "1"}}},
	{name: "window of a week starts on a Thursday", query: `SELECT window.start AS s, count(*) AS n FROM VALUES (TIMESTAMP '2024-01-01 00:00:07', 1) t(ts, x) GROUP BY window(ts, '1 week', '1 week')`,
		types: []string{"timestamp", "bigint"}, rows: [][]string{{"2023-12-28 00:00:00", "1"}}},
	{name: "window of an hour and a half", query: `SELECT window.start AS s, count(*) AS n FROM VALUES (TIMESTAMP '2024-01-01 02:59:00', 1) t(ts, x) GROUP BY window(ts, 'interval 1 hour 30 minutes')`,
		types: []string{"timestamp", "bigint"}, rows: [][]string{{"2024-01-01 01:30:00", "1"}}},
	{name: "window of a month", query: `SELECT window.start AS s, count(*) AS n FROM VALUES (TIMESTAMP '2024-01-01 00:00:07', 1) t(ts, x) GROUP BY window(ts, '1 month')`,
		finding: "window duration", spark: "fails [SparkIllegalArgumentException]: Intervals greater than a month is not supported"},
	// A subquery in the ON condition of a left, semi or anti join: the
	// condition is evaluated per pair of rows (a NULL is no match), an
	// unmatched left row keeps its place (left) or is kept (anti).
	{name: "left join on an exists", query: xyz + `SELECT * FROM x LEFT JOIN y ON x1 = y1 AND EXISTS (SELECT * FROM z WHERE z2 = x2) ORDER BY x1, x2, y1, y2`,
		types: []string{"int", "int", "int", "int"}, rows: [][]string{{"NULL", "7", "NULL", "NULL"}, {"1", "1", "1", "NULL"}, {"1", "1", "1", "4"}, {"1", "1", "1", "5"}, {"2", "1", "NULL", "NULL"}, {"3", "4", "NULL", "NULL"}}},
	{name: "left join on an IN of the right side", query: xyz + `SELECT x1, y2 FROM x LEFT JOIN y AS yy ON x1 = yy.y1 AND yy.y2 IN (SELECT z1 FROM z) ORDER BY x1, y2`,
		types: []string{"int", "int"}, rows: [][]string{{"NULL", "NULL"}, {"1", "4"}, {"1", "5"}, {"2", "NULL"}, {"3", "NULL"}}},
	{name: "left join on an uncorrelated scalar subquery", query: xyz + `SELECT x1, y2 FROM x LEFT JOIN (SELECT * FROM y) s ON x1 = s.y1 AND s.y2 > (SELECT min(z1) FROM z) ORDER BY x1, y2`,
		types: []string{"int", "int"}, rows: [][]string{{"NULL", "NULL"}, {"1", "4"}, {"1", "5"}, {"2", "NULL"}, {"3", "NULL"}}},
	{name: "left join on a correlated scalar subquery", query: xyz + `SELECT x1, y2 FROM x LEFT JOIN (SELECT * FROM y) s ON x1 = s.y1 AND s.y2 > (SELECT min(z1) FROM z WHERE z2 = x2) ORDER BY x1, y2`,
		finding: "UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY", spark: "fails [UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY]"},
	{name: "semi join on a correlated scalar subquery", query: xyz + `SELECT * FROM x LEFT SEMI JOIN y ON x1 = y1 AND y2 > (SELECT min(z1) FROM z WHERE z2 = y2)`,
		finding: "UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY", spark: "fails [UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY]"},
	{name: "semi join on a not exists", query: xyz + `SELECT * FROM x LEFT SEMI JOIN y ON x1 = y1 AND NOT EXISTS (SELECT * FROM z WHERE z2 = y2) ORDER BY x1, x2`,
		types: []string{"int", "int"}, rows: [][]string{{"1", "1"}}},
	{name: "anti join on an IN with a NULL", query: xyz + `SELECT * FROM x LEFT ANTI JOIN y ON x1 = y1 AND x2 IN (SELECT * FROM VALUES (4), (1), (NULL) AS w(w1)) ORDER BY x1, x2`,
		types: []string{"int", "int"}, rows: [][]string{{"NULL", "7"}, {"2", "1"}, {"3", "4"}}},
	// ORDER BY a literal other than an integer sorts by a constant: no
	// effect on Spark (DuckDB refuses the key).
	{name: "order by a string literal", query: `SELECT v FROM VALUES (2), (1), (3) t(v) ORDER BY 'k', v DESC`,
		types: []string{"int"}, rows: [][]string{{"3"}, {"2"}, {"1"}}},
	// A generator's one parameter named: collection (explode,
	// posexplode) or input (inline).
	{name: "explode with a named argument", query: `SELECT * FROM explode(collection => array(1, 2))`,
		types: []string{"int"}, rows: [][]string{{"1"}, {"2"}}},
	{name: "inline with a named argument", query: `SELECT * FROM inline_outer(input => array(struct(1, 'a'), struct(2, 'b')))`,
		types: []string{"int", "string"}, rows: [][]string{{"1", "a"}, {"2", "b"}}},
	// A table joined with itself without an alias: Spark joins it (no
	// column can be qualified by its name then).
	{name: "self join without aliases", query: `WITH e AS (SELECT * FROM VALUES (1), (2) AS v(a)) SELECT count(*) AS n FROM e INNER JOIN e`,
		types: []string{"bigint"}, rows: [][]string{{"4"}}},
	{name: "window in a projection", query: `SELECT window(ts, '1 minute') AS w FROM VALUES (CAST(NULL AS TIMESTAMP)) t(ts)`,
		finding: "groups by it", spark: "drops the row of a NULL time: no rows"},
}

func init() { traps = append(traps, queryTraps...) }

// typedTraps are columns whose Spark type DuckDB's does not give
// (TIMESTAMP_NTZ, VOID): refused by default, they translate under
// Options.TypedColumns, where TestTypedColumns checks the translation's
// Result.Columns against Spark's types (read from Spark 4.1.4, which
// TestSparkTraps checks again).
var typedTraps = []trap{
	{name: "timestamp_ntz columns", query: `SELECT TIMESTAMP_NTZ '2024-01-01 10:00:00' AS t, array(TIMESTAMP_NTZ '2024-02-29 00:00:00') AS a, 1 AS n`,
		finding: "TIMESTAMP_NTZ", spark: "types the columns timestamp_ntz",
		types: []string{"timestamp_ntz", "array<timestamp_ntz>", "int"}, rows: [][]string{{"2024-01-01 10:00:00", "[2024-02-29 00:00:00]", "1"}}},
	{name: "void columns", query: `SELECT NULL AS a, array(NULL, NULL) AS b, 2 AS n`,
		finding: "VOID", spark: "types the columns void",
		types: []string{"void", "array<void>", "int"}, rows: [][]string{{"NULL", "[NULL, NULL]", "2"}}},
	{name: "void columns of VALUES", query: `SELECT * FROM VALUES (1, NULL), (2, NULL) AS t(k, v)`,
		finding: "VOID", spark: "types the column void",
		types: []string{"int", "void"}, rows: [][]string{{"1", "NULL"}, {"2", "NULL"}}},
}

func init() { traps = append(traps, typedTraps...) }

// TestTypedColumns: a TIMESTAMP_NTZ or VOID output column translates when
// the caller names the columns' types from Result.Columns (DuckDB holds
// them as TIMESTAMP, with the same wall-clock value, and INTEGER; a VOID
// one only for a query's result, VoidColumns), and is refused otherwise
// or when an output column's type is not inferred.
func TestTypedColumns(t *testing.T) {
	db := openDuck(t)
	for _, tc := range typedTraps {
		t.Run(tc.name, func(t *testing.T) {
			r := translate.TranslateText(tc.query, translate.Options{TypedColumns: true, VoidColumns: true})
			if len(r.Findings) > 0 {
				t.Fatalf("refused: %s", r.Findings[0].Message)
			}
			var names, stored []string
			for _, c := range r.Columns {
				names = append(names, c.String())
				stored = append(stored, c.Stored().String())
			}
			if got := strings.Join(names, ", "); got != strings.Join(tc.types, ", ") {
				t.Errorf("columns %s, Spark's %s", got, strings.Join(tc.types, ", "))
			}
			types, rows, err := query(db, r.SQL)
			if err != nil {
				t.Fatalf("%v\nSQL: %s", err, r.SQL)
			}
			if fmt.Sprint(types) != fmt.Sprint(stored) {
				t.Errorf("DuckDB's types %v, the stored types %v", types, stored)
			}
			if fmt.Sprint(sorted(rows)) != fmt.Sprint(sorted(tc.rows)) {
				t.Errorf("rows %v, Spark's %v\nSQL: %s", rows, tc.rows, r.SQL)
			}
		})
	}
	for _, q := range []string{
		// A column of a table the catalog does not know has no
		// inferred type: the caller could not name the output's types.
		`SELECT TIMESTAMP_NTZ '2024-01-01 10:00:00' AS t, x FROM some_table`,
		`SELECT NULL AS t, x FROM some_table`,
		// The model does not expand (*).
		`SELECT (*) FROM VALUES (1, NULL) AS t(k, v)`,
		// The translation's NULL type of a function's value is not
		// Spark's (positive(NULL) is a DOUBLE).
		`SELECT positive(NULL) AS p`,
	} {
		if r := translate.TranslateText(q, translate.Options{TypedColumns: true, VoidColumns: true}); len(r.Findings) == 0 {
			t.Errorf("%s: not refused; columns %v", q, r.Columns)
		}
	}
	// A pipeline run (TypedColumns alone) writes tables, which cannot
	// hold a VOID column on Spark: refused there; TIMESTAMP_NTZ runs.
	for _, q := range []string{`SELECT NULL AS a, 2 AS n`, `SELECT * FROM VALUES (1, NULL) AS t(k, v)`} {
		if r := translate.TranslateText(q, translate.Options{TypedColumns: true}); len(r.Findings) == 0 {
			t.Errorf("%s: a VOID column should be refused without VoidColumns; columns %v", q, r.Columns)
		}
	}
	if r := translate.TranslateText(typedTraps[0].query, translate.Options{TypedColumns: true}); len(r.Findings) > 0 {
		t.Errorf("TIMESTAMP_NTZ columns should translate with TypedColumns alone: %s", r.Findings[0].Message)
	}
}
