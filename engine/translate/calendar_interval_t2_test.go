//go:build duckdb_arrow

package translate_test

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/engine/translate"
)

func init() { traps = append(traps, calendarTraps...) }

// A cast of a string to INTERVAL gives Spark's legacy CalendarInterval,
// which runs natively cast to STRING; values read on Spark 4.1.4 (ANSI,
// UTC) on 2026-12-04. Spark's cast gives NULL for a text it does not
// read, under ANSI too.
var calendarTraps = []trap{
	{name: "t2 calendar interval casts", query: `SELECT CAST(CAST('1 second' AS interval) AS STRING) AS a, CAST(CAST('interval 3 month 1 hour' AS interval) AS STRING) AS b, CAST(CAST('- -1 second' AS interval) AS STRING) AS c, CAST(CAST('abc' AS interval) AS STRING) AS d, CAST(TRY_CAST('1 DAY' AS interval) AS STRING) AS e`,
		types: []string{"string", "string", "string", "string", "string"}, rows: [][]string{{"1 seconds", "3 months 1 hours", "NULL", "NULL", "1 days"}}},
	{name: "t2 calendar interval units", query: `SELECT CAST(CAST('1 year 2 months 3 weeks 4 days 5 hours 6 minutes 7.123456789 seconds 8 milliseconds 9 microseconds' AS interval) AS STRING) AS a, CAST(CAST('-1 year -2 days 3 hours' AS interval) AS STRING) AS b, CAST(CAST('0 seconds' AS interval) AS STRING) AS c, CAST(CAST('1.5 seconds' AS interval) AS STRING) AS d, CAST(CAST('-0.5 seconds' AS interval) AS STRING) AS e`,
		types: []string{"string", "string", "string", "string", "string"}, rows: [][]string{{"1 years 2 months 25 days 5 hours 6 minutes 7.131465 seconds", "-1 years -2 days 3 hours", "0 seconds", "1.5 seconds", "-0.5 seconds"}}},
	{name: "t2 calendar interval components apart", query: `SELECT CAST(CAST('1 day 25 hours' AS interval) AS STRING) AS a, CAST(CAST('13 months' AS interval) AS STRING) AS b, CAST(CAST('-1 months 1 year' AS interval) AS STRING) AS c, CAST(CAST('25 months -1 days' AS interval) AS STRING) AS d, CAST(CAST('-90 minutes' AS interval) AS STRING) AS e, CAST(CAST('0.000001 seconds' AS interval) AS STRING) AS f, CAST(CAST('1 day -1 day' AS interval) AS STRING) AS g`,
		types: []string{"string", "string", "string", "string", "string", "string", "string"}, rows: [][]string{{"1 days 25 hours", "1 years 1 months", "11 months", "2 years 1 months -1 days", "-1 hours -30 minutes", "0.000001 seconds", "0 seconds"}}},
	{name: "t2 calendar interval texts Spark does not read", query: `SELECT CAST(CAST('1.5 hours' AS interval) AS STRING) AS a, CAST(CAST('1 fortnight' AS interval) AS STRING) AS b, CAST(CAST('1' AS interval) AS STRING) AS c, CAST(CAST('' AS interval) AS STRING) AS d, CAST(CAST('1 seconds 2' AS interval) AS STRING) AS e, CAST(CAST('2147483648 months' AS interval) AS STRING) AS f, CAST(CAST('1.5 milliseconds' AS interval) AS STRING) AS g, CAST(CAST('1second' AS interval) AS STRING) AS h, CAST(CAST('1 secondss' AS interval) AS STRING) AS i, CAST(CAST('interval' AS interval) AS STRING) AS j, CAST(CAST('1.1234567891 seconds' AS interval) AS STRING) AS k`,
		types: []string{"string", "string", "string", "string", "string", "string", "string", "string", "string", "string", "string"}, rows: [][]string{{"NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"}}},
	{name: "t2 calendar interval limits", query: `SELECT CAST(CAST('9223372036854775807 microseconds' AS interval) AS STRING) AS a, CAST(CAST('9223372036854775808 microseconds' AS interval) AS STRING) AS b, CAST(CAST('1 millisecond 1.5 seconds' AS interval) AS STRING) AS c`,
		types: []string{"string", "string", "string"}, rows: [][]string{{"2562047788 hours 54.775807 seconds", "NULL", "1.501 seconds"}}},
	// Elsewhere the value is refused: Spark compares none (=, an
	// analysis error), and a DATE plus one is a DATE there, a TIMESTAMP
	// in DuckDB.
	{name: "t2 calendar interval compared", query: `SELECT CAST('1 day' AS interval) = CAST('24 hours' AS interval) AS a`, finding: "legacy interval type", spark: "[DATATYPE_MISMATCH.INVALID_ORDERING_TYPE]"},
	{name: "t2 calendar interval plus a date", query: `SELECT DATE '2020-01-31' + CAST('1 month 1 day' AS interval) AS a`, finding: "legacy interval type", spark: "2020-03-01 (a DATE)"},
}

// Under spark.sql.legacy.interval.enabled an interval literal is a
// CalendarInterval too (checked on Spark 4.1.4 with the setting on): its
// text then counts the units apart, INTERVAL '999' SECOND being 16
// minutes 39 seconds and INTERVAL 1 DAY 25 HOURS 1 days 25 hours.
// TestSparkTraps does not set it, so the values are held here. (Spark
// reads INTERVAL 1 YEAR 2 DAYS there too, 1 years 2 days; Thund's parser
// rejects the mixed units whatever the setting.)
func TestLegacyIntervalLiterals(t *testing.T) {
	db := openDuck(t)
	q := `SELECT CAST(interval '999' second AS STRING) AS a, CAST(interval '1 2:03:04' day to second AS STRING) AS b, CAST(interval 1 day 25 hours AS STRING) AS c, CAST(interval '-1 2:03' day to minute AS STRING) AS d, CAST(interval '999' month AS STRING) AS e, CAST(interval '1-2' year to month AS STRING) AS f, CAST(interval -1 week AS STRING) AS h`
	want := []string{"16 minutes 39 seconds", "1 days 2 hours 3 minutes 4 seconds", "1 days 25 hours", "-1 days -2 hours -3 minutes", "83 years 3 months", "1 years 2 months", "-7 days"}
	r := translate.TranslateText(q, translate.Options{LegacyInterval: true})
	if len(r.Findings) > 0 {
		t.Fatalf("refused: %s", r.Findings[0].Message)
	}
	_, rows, err := query(db, r.SQL)
	if err != nil {
		t.Fatalf("%v\nSQL: %s", err, r.SQL)
	}
	if len(rows) != 1 || strings.Join(rows[0], "|") != strings.Join(want, "|") {
		t.Errorf("rows %q, Spark's %q", rows, want)
	}
	// Spark's parser rejects a fraction of an hour
	// (INVALID_INTERVAL_FORMAT.INVALID_FRACTION): refused.
	r = translate.TranslateText(`SELECT CAST(interval '1.5' hour AS STRING) AS a`, translate.Options{LegacyInterval: true})
	if len(r.Findings) == 0 {
		t.Errorf("interval '1.5' hour under the legacy setting is not refused: %s", r.SQL)
	}
}

// CalendarString writes Spark's CalendarInterval.toString: the cases of
// the traps above, through the Go printer the conformance harness uses.
func TestCalendarString(t *testing.T) {
	for _, tc := range []struct {
		months, days int32
		micros       int64
		want         string
	}{
		{0, 0, 0, "0 seconds"},
		{14, 25, 5*3600_000_000 + 6*60_000_000 + 7_131_465, "1 years 2 months 25 days 5 hours 6 minutes 7.131465 seconds"},
		{-12, -2, 3 * 3600_000_000, "-1 years -2 days 3 hours"},
		{0, 0, -500_000, "-0.5 seconds"},
		{0, 0, -90 * 60_000_000, "-1 hours -30 minutes"},
		{25, -1, 0, "2 years 1 months -1 days"},
		{0, 0, 9223372036854775807, "2562047788 hours 54.775807 seconds"},
	} {
		if got := translate.CalendarString(tc.months, tc.days, tc.micros); got != tc.want {
			t.Errorf("CalendarString(%d, %d, %d) = %q, want %q", tc.months, tc.days, tc.micros, got, tc.want)
		}
	}
}
