//go:build duckdb_arrow

package translate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thund-dev/thund/engine/translate"
)

// intervalTrap is a query over Spark's ANSI interval types (or TIME
// values, or numbers rounded to a scale) with what
// Spark 4.1.4 gives for it: the columns' types and every value cast to
// STRING (Spark writes an interval as INTERVAL '1-2' YEAR TO MONTH), or
// the error class it raises, or (finding) the words of the refusal.
// TestIntervalTraps holds the translation to the table on DuckDB,
// TestSparkIntervalTraps holds Spark to it.
type intervalTrap struct {
	name, query string
	// cols are the query's column names (each item is aliased).
	cols     []string
	types    []string
	rows     [][]string
	errClass string
	finding  string
	// timeType runs the query with spark.sql.timeType.enabled.
	timeType bool
	// noANSI runs the query with spark.sql.ansi.enabled=false.
	noANSI bool
}

var intervalTraps = []intervalTrap{
	{name: "literals of each form", query: `SELECT INTERVAL '1' DAY AS a, INTERVAL 2 YEARS 4 MONTHS AS b, INTERVAL -'-1-1' YEAR TO MONTH AS c, INTERVAL '1 2:3:4.001' DAY TO SECOND AS d, INTERVAL 13.123456789 SECONDS AS e, INTERVAL '-1 year 1 month' AS f, INTERVAL 2 WEEKS 3 MICROSECONDS AS g, INTERVAL '40:32' MINUTE TO SECOND AS h`,
		cols:  []string{"a", "b", "c", "d", "e", "f", "g", "h"},
		types: []string{"interval day", "interval year to month", "interval year to month", "interval day to second", "interval second", "interval year to month", "interval day to second", "interval minute to second"},
		rows:  [][]string{{"INTERVAL '1' DAY", "INTERVAL '2-4' YEAR TO MONTH", "INTERVAL '1-1' YEAR TO MONTH", "INTERVAL '1 02:03:04.001' DAY TO SECOND", "INTERVAL '13.123456' SECOND", "INTERVAL '-0-11' YEAR TO MONTH", "INTERVAL '14 00:00:00.000003' DAY TO SECOND", "INTERVAL '40:32' MINUTE TO SECOND"}}},
	{name: "interval arithmetic", query: `SELECT INTERVAL '2' YEAR - INTERVAL '3-3' YEAR TO MONTH AS a, INTERVAL '1' HOUR + INTERVAL '30' MINUTE AS b, -INTERVAL '5' SECOND AS c, INTERVAL '2' YEAR + NULL AS d`,
		cols:  []string{"a", "b", "c", "d"},
		types: []string{"interval year to month", "interval hour to minute", "interval second", "interval year"},
		rows:  [][]string{{"INTERVAL '-1-3' YEAR TO MONTH", "INTERVAL '01:30' HOUR TO MINUTE", "INTERVAL '-05' SECOND", "NULL"}}},
	{name: "interval times and divided by numbers, rounded HALF_UP", query: `SELECT INTERVAL 2 WEEKS 3 MICROSECONDS * 1.5 AS a, INTERVAL '1' MONTH * 2.5D AS b, INTERVAL '5' MONTH / 2 AS c, INTERVAL '-5' MONTH / 2 AS d, INTERVAL '1' SECOND / 3 AS e, 3 * INTERVAL '1' DAY AS f, INTERVAL '2' SECOND * '2' AS g`,
		cols:  []string{"a", "b", "c", "d", "e", "f", "g"},
		types: []string{"interval day to second", "interval year to month", "interval year to month", "interval year to month", "interval day to second", "interval day to second", "interval day to second"},
		rows:  [][]string{{"INTERVAL '21 00:00:00.000005' DAY TO SECOND", "INTERVAL '0-3' YEAR TO MONTH", "INTERVAL '0-3' YEAR TO MONTH", "INTERVAL '-0-3' YEAR TO MONTH", "INTERVAL '0 00:00:00.333333' DAY TO SECOND", "INTERVAL '3 00:00:00' DAY TO SECOND", "INTERVAL '0 00:00:04' DAY TO SECOND"}}},
	{name: "comparisons of intervals", query: `SELECT INTERVAL '1' DAY = INTERVAL '24' HOUR AS a, INTERVAL '1-1' YEAR TO MONTH > INTERVAL '13' MONTH AS b, INTERVAL '31' DAY > INTERVAL '1' DAY AS c, INTERVAL '-1' SECOND < INTERVAL '0' SECOND AS d`,
		cols:  []string{"a", "b", "c", "d"},
		types: []string{"boolean", "boolean", "boolean", "boolean"},
		rows:  [][]string{{"true", "false", "true", "true"}}},
	{name: "casts between intervals and numbers", query: `SELECT CAST(INTERVAL '-10-2' YEAR TO MONTH AS SMALLINT) AS a, CAST(INTERVAL -'1 02:03:04.123' DAY TO SECOND AS INT) AS b, CAST(100Y AS INTERVAL HOUR TO SECOND) AS c, CAST(1000 AS INTERVAL MONTH) AS d, CAST(INTERVAL '1' YEAR AS TINYINT) AS e`,
		cols:  []string{"a", "b", "c", "d", "e"},
		types: []string{"smallint", "int", "interval hour to second", "interval month", "tinyint"},
		rows:  [][]string{{"-122", "-93784", "INTERVAL '00:01:40' HOUR TO SECOND", "INTERVAL '1000' MONTH", "1"}}},
	{name: "a cast of an interval overflows", query: `SELECT CAST(INTERVAL '23:59:59' HOUR TO SECOND AS SMALLINT) AS a`, errClass: "CAST_OVERFLOW"},
	{name: "dates and timestamps with intervals", query: `SELECT DATE '2012-01-31' + INTERVAL '1' MONTH AS a, DATE '2011-11-11' - INTERVAL '2' DAY AS b, DATE '2011-11-11' + INTERVAL '1' HOUR AS c, TIMESTAMP '2019-10-15 10:11:12.001002' - DATE '2019-10-15' AS d, 3 * (TIMESTAMP '2019-10-15 10:11:12.001002' - DATE '2019-10-15') AS e, TIMESTAMP '2020-03-01 00:00:00' - INTERVAL '1-1' YEAR TO MONTH AS f`,
		cols:  []string{"a", "b", "c", "d", "e", "f"},
		types: []string{"date", "date", "timestamp", "interval day to second", "interval day to second", "timestamp"},
		rows:  [][]string{{"2012-02-29", "2011-11-09", "2011-11-11 01:00:00", "INTERVAL '0 10:11:12.001002' DAY TO SECOND", "INTERVAL '1 06:33:36.003006' DAY TO SECOND", "2019-02-01 00:00:00"}}},
	{name: "try_ arithmetic of intervals", query: `SELECT try_add(INTERVAL 2147483647 MONTH, INTERVAL 2 MONTH) AS a, try_subtract(INTERVAL 3 SECOND, INTERVAL 2 SECOND) AS b, try_divide(INTERVAL 2 YEAR, 0) AS c, try_multiply(INTERVAL 2 SECOND, 2) AS d`,
		cols:  []string{"a", "b", "c", "d"},
		types: []string{"interval month", "interval second", "interval year to month", "interval day to second"},
		rows:  [][]string{{"NULL", "INTERVAL '01' SECOND", "NULL", "INTERVAL '0 00:00:04' DAY TO SECOND"}}},
	{name: "sum and avg of intervals", query: `SELECT sum(m) AS a, avg(m) AS b, sum(s) AS c, avg(s) AS d FROM VALUES (INTERVAL '1' MONTH, INTERVAL '1' SECOND), (INTERVAL '2' MONTH, INTERVAL '2' SECOND), (NULL, NULL) t(m, s)`,
		cols:  []string{"a", "b", "c", "d"},
		types: []string{"interval month", "interval year to month", "interval second", "interval day to second"},
		rows:  [][]string{{"INTERVAL '3' MONTH", "INTERVAL '0-2' YEAR TO MONTH", "INTERVAL '03' SECOND", "INTERVAL '0 00:00:01.5' DAY TO SECOND"}}},
	{name: "abs and signum of intervals", query: `SELECT abs(INTERVAL '-10' YEAR) AS a, abs(INTERVAL -'1 02:03:04.123' DAY TO SECOND) AS b, signum(INTERVAL '-10' YEAR) AS c, signum(INTERVAL '0' SECOND) AS d`,
		cols:  []string{"a", "b", "c", "d"},
		types: []string{"interval year", "interval day to second", "double", "double"},
		rows:  [][]string{{"INTERVAL '10' YEAR", "INTERVAL '1 02:03:04.123' DAY TO SECOND", "-1.0", "0.0"}}},
	{name: "an interval divided by zero", query: `SELECT INTERVAL '2' SECOND / 0 AS a`, errClass: "INTERVAL_DIVIDED_BY_ZERO"},
	{name: "interval subtraction overflows", query: `SELECT a - b AS c FROM VALUES (INTERVAL '-178956970-8' YEAR TO MONTH, INTERVAL '178956970-7' YEAR TO MONTH) t(a, b)`, errClass: "INTERVAL_ARITHMETIC_OVERFLOW"},
	{name: "a year-month and a day-time interval", query: `SELECT INTERVAL '1' MONTH + INTERVAL '1' DAY AS a`, finding: "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"},
	{name: "a literal mixing year-month and day-time units", query: `SELECT INTERVAL 1 MONTH 1 DAY AS a`, finding: "cannot mix year-month units"},
	{name: "casts between intervals and decimals", query: `SELECT CAST(INTERVAL '-1' YEAR AS DECIMAL(10, 0)) AS a, CAST(INTERVAL '08:11:10.001' HOUR TO SECOND AS DECIMAL(10, 4)) AS b, CAST(INTERVAL '10.005' SECOND AS DECIMAL(4, 2)) AS c, CAST(INTERVAL '1 23' DAY TO HOUR AS DECIMAL(5, 1)) AS d, CAST(10.123456BD AS INTERVAL DAY TO SECOND) AS e, CAST(-10.123456BD AS INTERVAL YEAR TO MONTH) AS f, CAST(10.654321BD AS INTERVAL MONTH) AS g, CAST(3BD AS INTERVAL HOUR) AS h`,
		cols:  []string{"a", "b", "c", "d", "e", "f", "g", "h"},
		types: []string{"decimal(10,0)", "decimal(10,4)", "decimal(4,2)", "decimal(5,1)", "interval day to second", "interval year to month", "interval month", "interval hour"},
		rows:  [][]string{{"-1", "29470.0010", "10.01", "47.0", "INTERVAL '0 00:00:10.123456' DAY TO SECOND", "INTERVAL '-0-10' YEAR TO MONTH", "INTERVAL '11' MONTH", "INTERVAL '03' HOUR"}}},
	{name: "an interval cast to a decimal too narrow", query: `SELECT CAST(INTERVAL '10.123' SECOND AS DECIMAL(1, 0)) AS a`, errClass: "NUMERIC_VALUE_OUT_OF_RANGE"},
	{name: "try_cast of intervals out of range", query: `SELECT TRY_CAST(INTERVAL '1000000' SECOND AS SMALLINT) AS a, TRY_CAST(2147483647 AS INTERVAL YEAR) AS b, TRY_CAST(INTERVAL '10.123' SECOND AS DECIMAL(1, 0)) AS c, TRY_CAST(INTERVAL '10' SECOND AS INT) AS d`,
		cols:  []string{"a", "b", "c", "d"},
		types: []string{"smallint", "interval year", "decimal(1,0)", "int"},
		rows:  [][]string{{"NULL", "NULL", "NULL", "10"}}},
	{name: "dates and timestamps beside NULL or a string", query: `SELECT DATE '2001-10-01' - '2001-09-28' AS a, '2001-10-01' - DATE '2001-09-28' AS b, DATE '2001-09-28' - NULL AS c, NULL - TIMESTAMP '2011-11-11 11:11:11' AS d, DATE '2011-11-11' + NULL AS e, DATE '2001-10-01' - DATE '2001-07-01' AS f, TIMESTAMP '2011-11-11 11:11:11' - '2011-11-11 11:11:10' AS g`,
		cols:  []string{"a", "b", "c", "d", "e", "f", "g"},
		types: []string{"interval day", "interval day", "interval day", "interval day to second", "timestamp", "interval day", "interval day to second"},
		rows:  [][]string{{"INTERVAL '3' DAY", "INTERVAL '3' DAY", "NULL", "NULL", "NULL", "INTERVAL '92' DAY", "INTERVAL '0 00:00:01' DAY TO SECOND"}}},
	{name: "a string plus or minus a day-time interval", query: `SELECT CAST('2017-12-11 09:30:00' AS STRING) + INTERVAL 2 DAY AS a, INTERVAL 2 DAY + '2017-12-11' AS b, '2017-12-11 09:30:00.5' - INTERVAL '4 22:12' DAY TO MINUTE AS c`,
		cols:  []string{"a", "b", "c"},
		types: []string{"string", "string", "string"},
		rows:  [][]string{{"2017-12-13 09:30:00", "2017-12-13 00:00:00", "2017-12-06 11:18:00.5"}}},
	{name: "a malformed string minus a day-time interval", query: `SELECT '4 11:11' - INTERVAL '4 22:12' DAY TO MINUTE AS a`, errClass: "CAST_INVALID_INPUT"},
	{name: "an integer cast to BINARY without ANSI is its big-endian bytes", noANSI: true, query: `SELECT hex(CAST(-123S AS BINARY)) AS a, hex(CAST(123 AS BINARY)) AS b, hex(CAST(-123L AS BINARY)) AS c, hex(CAST(CAST(123 AS TINYINT) AS BINARY)) AS d`,
		cols:  []string{"a", "b", "c", "d"},
		types: []string{"string", "string", "string", "string"},
		rows:  [][]string{{"FF85", "0000007B", "FFFFFFFFFFFFFF85", "7B"}}},
	{name: "the least integer % -1, NaN and infinity cast to a decimal", query: `SELECT CAST(-2147483648 AS INT) % CAST(-1 AS INT) AS a, -9223372036854775808L % -1L AS b, CAST(CAST('NaN' AS DOUBLE) AS DECIMAL(10, 0)) AS c, CAST(CAST('-Infinity' AS DOUBLE) AS DECIMAL(10, 0)) AS d, CAST(1.5D AS DECIMAL(10, 0)) AS e`,
		cols:  []string{"a", "b", "c", "d", "e"},
		types: []string{"int", "bigint", "decimal(10,0)", "decimal(10,0)", "decimal(10,0)"},
		rows:  [][]string{{"0", "0", "NULL", "NULL", "2"}}},
	{name: "a TIME cast to integers truncates to seconds", timeType: true, query: `SELECT CAST(TIME '00:01:52' AS TINYINT) AS a, CAST(TIME '23:59:59.9' AS INT) AS b, CAST(TIME '00:00:17.5' AS BIGINT) AS c, CAST(TIME '09:00:00' AS SMALLINT) AS d, TRY_CAST(TIME '23:59:59' AS SMALLINT) AS e`,
		cols:  []string{"a", "b", "c", "d", "e"},
		types: []string{"tinyint", "int", "bigint", "smallint", "smallint"},
		rows:  [][]string{{"112", "86399", "17", "32400", "NULL"}}},
	{name: "arithmetic on TIME", timeType: true, query: `SELECT TIME'12:30' - INTERVAL '12:29:59.000001' HOUR TO SECOND AS b, TIME'08:30' + NULL AS c, TIME'08:30' - NULL AS d, INTERVAL '30' MINUTE + TIME'23:00' AS f, CAST(TIME'01:02:03.5' AS STRING) AS g`,
		cols:  []string{"b", "c", "d", "f", "g"},
		types: []string{"time(6)", "time(6)", "interval hour to second", "time(6)", "string"},
		rows:  [][]string{{"00:00:00.999999", "NULL", "NULL", "23:30:00", "01:02:03.5"}}},
	{name: "a TIME cast to TINYINT overflows", timeType: true, query: `SELECT CAST(TIME '23:59:59' AS TINYINT) AS a`, errClass: "CAST_OVERFLOW"},
	{name: "a TIME cast to decimals rounds HALF_UP", timeType: true, query: `SELECT CAST(TIME '01:30:45' AS DECIMAL(8, 3)) AS a, CAST(TIME '23:59:59.9' AS DECIMAL(6, 0)) AS b, CAST(TIME '23:59:59.999999' AS DECIMAL(11, 5)) AS c, CAST(TIME '10:20:30.000001' AS DECIMAL(20, 10)) AS d, TRY_CAST(TIME '10:00:00' AS DECIMAL(5, 2)) AS e, CAST(TIME '00:00:00.125' AS DECIMAL(3, 2)) AS f`,
		cols:  []string{"a", "b", "c", "d", "e", "f"},
		types: []string{"decimal(8,3)", "decimal(6,0)", "decimal(11,5)", "decimal(20,10)", "decimal(5,2)", "decimal(3,2)"},
		rows:  [][]string{{"5445.000", "86400", "86400.00000", "37230.0000010000", "NULL", "0.13"}}},
	{name: "a TIME cast to a decimal too narrow", timeType: true, query: `SELECT CAST(TIME '00:01:00' AS DECIMAL(1, 0)) AS a`, errClass: "NUMERIC_VALUE_OUT_OF_RANGE"},
}

func TestIntervalTraps(t *testing.T) {
	db := openDuck(t)
	for _, tc := range intervalTraps {
		t.Run(tc.name, func(t *testing.T) {
			opts := translate.Options{TimeType: tc.timeType, NoANSI: tc.noANSI}
			r := translate.TranslateText(tc.query, opts)
			if tc.finding != "" {
				if len(r.Findings) == 0 || !strings.Contains(r.Findings[0].Message, tc.finding) {
					t.Fatalf("findings %+v, want one about %q", r.Findings, tc.finding)
				}
				return
			}
			if len(r.Findings) > 0 {
				t.Fatalf("refused: %s at %q", r.Findings[0].Message, tc.query[r.Findings[0].Start:r.Findings[0].End])
			}
			if tc.errClass != "" {
				_, _, err := query(db, r.SQL)
				if err == nil {
					t.Fatalf("no error, Spark raises %s (SQL %s)", tc.errClass, r.SQL)
				}
				msg, _, _ := r.Explain(err.Error())
				if !strings.HasPrefix(msg, "["+tc.errClass) {
					t.Fatalf("error %q, Spark raises %s", msg, tc.errClass)
				}
				if strings.Contains(msg, "thund") || strings.Contains(msg, "⟦") {
					t.Fatalf("the message shows internals: %q", msg)
				}
				return
			}
			types := make([]string, len(r.Columns))
			for i, ty := range r.Columns {
				types[i] = ty.String()
			}
			if strings.Join(types, ", ") != strings.Join(tc.types, ", ") {
				t.Errorf("types %v, Spark's %v", types, tc.types)
			}
			// Every column as STRING, as the Spark side reads them.
			casts := make([]string, len(tc.cols))
			for i, c := range tc.cols {
				casts[i] = "CAST(" + c + " AS STRING) AS " + c
			}
			w := translate.TranslateText("SELECT "+strings.Join(casts, ", ")+" FROM ("+tc.query+")", opts)
			if len(w.Findings) > 0 {
				t.Fatalf("as strings, refused: %s", w.Findings[0].Message)
			}
			_, rows, err := query(db, w.SQL)
			if err != nil {
				t.Fatalf("%v\nSQL: %s", err, w.SQL)
			}
			if fmt.Sprint(rows) != fmt.Sprint(tc.rows) {
				t.Errorf("rows %q, Spark's %q\nSQL: %s", rows, tc.rows, w.SQL)
			}
		})
	}
}

// TestIntervalLiteralRefusals: the literal forms the native engine does
// not read are refused at the literal, not guessed.
func TestIntervalLiteralRefusals(t *testing.T) {
	for _, q := range []string{
		`SELECT INTERVAL '1 2:3:4' DAY TO SECOND '1' YEAR AS a`,
		`SELECT INTERVAL 1.5 DAYS AS a`,
		`SELECT INTERVAL '15:40:32.99899999' HOUR TO MINUTE AS a`,
		`SELECT INTERVAL '1-12' YEAR TO MONTH AS a`,
		`SELECT INTERVAL 2147483648 MONTHS AS a`,
		`SELECT INTERVAL 106751992 DAYS AS a`,
	} {
		r := translate.TranslateText(q, translate.Options{})
		if len(r.Findings) == 0 {
			t.Errorf("%s: no finding, SQL %s", q, r.SQL)
			continue
		}
		if strings.Contains(r.Findings[0].Message, "internal error") {
			t.Errorf("%s: %s", q, r.Findings[0].Message)
		}
	}
	r := translate.TranslateText(`SELECT INTERVAL '1' DAY AS a`, translate.Options{LegacyInterval: true})
	if len(r.Findings) == 0 || !strings.Contains(r.Findings[0].Message, "legacy") {
		t.Errorf("under spark.sql.legacy.interval.enabled: %+v", r.Findings)
	}
}

// TestIntervalTypeNames: the translator names interval types as Spark does
// and reads them back.
func TestIntervalTypeNames(t *testing.T) {
	for _, s := range []string{"interval year", "interval year to month", "interval month", "interval day", "interval day to second", "interval hour to minute", "interval second", "array<interval minute>"} {
		if got := translate.ParseSparkType(s).String(); got != s {
			t.Errorf("ParseSparkType(%q) is %q", s, got)
		}
	}
	if got := translate.ParseSparkType("interval").String(); got != "interval" {
		t.Errorf("a legacy interval is %q", got)
	}
	if ty := translate.ParseSparkType("interval month to year"); ty.YearMonth() || ty.DayTime() {
		t.Errorf("INTERVAL MONTH TO YEAR is %s", ty)
	}
}

// TestIntervalCastRefusals: a decimal with a fraction cast to an interval
// ending in years, days, hours or minutes is refused: Spark keeps the
// fraction (CAST(80.654321BD AS INTERVAL HOUR TO MINUTE) holds 1:20:39.26)
// and prints it cut to the type's last field.
func TestIntervalCastRefusals(t *testing.T) {
	for _, q := range []string{
		`SELECT CAST(80.654321BD AS INTERVAL HOUR TO MINUTE) AS a`,
		`SELECT CAST(1.5BD AS INTERVAL YEAR) AS a`,
		`SELECT CAST(1.5BD AS INTERVAL DAY) AS a`,
	} {
		r := translate.TranslateText(q, translate.Options{})
		if len(r.Findings) == 0 || !strings.Contains(r.Findings[0].Message, "prints cut off") {
			t.Errorf("%s: findings %+v, want the refusal of a fraction below the last field", q, r.Findings)
		}
	}
}
