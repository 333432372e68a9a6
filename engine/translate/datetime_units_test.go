//go:build duckdb_arrow

package translate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thund-dev/thund/engine/translate"
)

// laCase is a query run under the session zone America/Los_Angeles (the
// zone of Spark's SQL test corpus), whose columns are all STRING or
// BIGINT so that both engines print them alike; want is Spark's row, or
// errClass the error class Spark raises. TestSparkDatetimeLA checks the
// table on a real Spark server.
type laCase struct {
	name, query string
	want        []string
	errClass    string
}

// laCases cross daylight saving changes on purpose: on 2021-03-14 the
// clocks in Los Angeles skip from 02:00 to 03:00, on 2021-11-07 they go
// back from 02:00 to 01:00.
var laCases = []laCase{
	{name: "timestamp - timestamp counts wall-clock time",
		query: `SELECT CAST(TIMESTAMP '2021-03-14 03:00:00' - TIMESTAMP '2021-03-14 01:00:00' AS STRING), CAST(TIMESTAMP '2021-03-15 00:00:00' - TIMESTAMP '2021-03-14 00:00:00' AS STRING)`,
		want:  []string{"INTERVAL '0 02:00:00' DAY TO SECOND", "INTERVAL '1 00:00:00' DAY TO SECOND"}},
	{name: "hours move the instant, days the wall-clock time",
		query: `SELECT CAST(TIMESTAMP '2021-03-14 01:30:00' + INTERVAL 1 HOUR AS STRING), CAST(TIMESTAMP '2021-03-13 01:30:00' + INTERVAL '1 01:00:00' DAY TO SECOND AS STRING), CAST(TIMESTAMP '2021-03-14 01:30:00' + INTERVAL 24 HOURS AS STRING)`,
		want:  []string{"2021-03-14 03:30:00", "2021-03-14 03:30:00", "2021-03-15 01:30:00"}},
	{name: "a date plus hours starts at its midnight",
		query: `SELECT CAST(DATE '2021-03-14' + INTERVAL 3 HOURS AS STRING), CAST(TIMESTAMP '2021-03-14 04:00:00' - INTERVAL 3 HOURS AS STRING), CAST(TIMESTAMP '2021-03-13 02:30:00' + INTERVAL 1 DAY AS STRING)`,
		want:  []string{"2021-03-14 04:00:00", "2021-03-14 00:00:00", "2021-03-14 03:30:00"}},
	{name: "a skipped wall-clock time moves on by the gap",
		query: `SELECT CAST(TIMESTAMP '2021-02-14 02:30:00' + INTERVAL 1 MONTH AS STRING), CAST(TIMESTAMP '2021-03-14 04:00:00' - INTERVAL '1 03:00:00' DAY TO SECOND AS STRING)`,
		want:  []string{"2021-03-14 03:30:00", "2021-03-13 01:00:00"}},
	{name: "minus a negative day-time interval",
		query: `SELECT CAST(TIMESTAMP '2021-03-15 03:30:00' - INTERVAL '1 01:00:00' DAY TO SECOND AS STRING), CAST(TIMESTAMP '2021-03-14 01:30:00' - INTERVAL '-1 01:00:00' DAY TO SECOND AS STRING)`,
		want:  []string{"2021-03-14 01:30:00", "2021-03-15 02:30:00"}},
	{name: "a repeated hour is its earlier instant",
		query: `SELECT CAST(TIMESTAMP '2021-11-07 01:30:00' + INTERVAL 1 HOUR AS STRING), CAST(TIMESTAMP '2021-11-07 00:30:00' + INTERVAL 2 HOURS AS STRING), CAST(timestampadd(MINUTE, 30, TIMESTAMP '2021-11-07 01:45:00') AS STRING), unix_seconds(TIMESTAMP '2021-11-07 01:30:00')`,
		want:  []string{"2021-11-07 01:30:00", "2021-11-07 01:30:00", "2021-11-07 01:15:00", "1636273800"}},
	{name: "try_add of a timestamp and hours",
		query: `SELECT CAST(try_add(TIMESTAMP '2021-03-14 01:30:00', INTERVAL 1 HOUR) AS STRING)`,
		want:  []string{"2021-03-14 03:30:00"}},
	{name: "timestampadd across the gap",
		query: `SELECT CAST(timestampadd(HOUR, 3, DATE '2021-03-14') AS STRING), CAST(timestampadd(DAY, 1, TIMESTAMP '2021-03-13 02:30:00') AS STRING), CAST(timestampadd(MICROSECOND, -1, TIMESTAMP '2021-03-14 03:00:00') AS STRING)`,
		want:  []string{"2021-03-14 04:00:00", "2021-03-14 03:30:00", "2021-03-14 01:59:59.999999"}},
	{name: "timestampadd of months keeps the month's end",
		query: `SELECT CAST(timestampadd(YEAR, 1, TIMESTAMP '2020-02-29 10:00:00') AS STRING), CAST(timestampadd(MONTH, 1, TIMESTAMP '2022-01-31 10:00:00') AS STRING), CAST(dateadd(QUARTER, 5, DATE '2022-02-25') AS STRING)`,
		want:  []string{"2021-02-28 10:00:00", "2022-02-28 10:00:00", "2023-05-25 00:00:00"}},
	{name: "timestampadd casts its quantity to BIGINT",
		query: `SELECT CAST(timestampadd(DAY, 1.5, TIMESTAMP '2021-01-01 00:00:00') AS STRING), CAST(timestampadd(DAY, '2', TIMESTAMP '2021-01-01 00:00:00') AS STRING), CAST(timestampadd(HOUR, -1.9D, TIMESTAMP '2021-01-01 00:00:00') AS STRING)`,
		want:  []string{"2021-01-02 00:00:00", "2021-01-03 00:00:00", "2020-12-31 23:00:00"}},
	{name: "timestampadd of a long quantity of seconds",
		query: `SELECT CAST(timestampadd(SECOND, 3000000000, TIMESTAMP '2021-01-01 00:00:00') AS STRING)`,
		want:  []string{"2116-01-26 05:20:00"}},
	{name: "timestampadd out of range", query: `SELECT timestampadd(DAY, 3000000000, TIMESTAMP '2021-01-01 00:00:00')`, errClass: "DATETIME_OVERFLOW"},
	{name: "timestampadd of months out of range", query: `SELECT timestampadd(MONTH, 2147483647, TIMESTAMP '2021-01-01 00:00:00')`, errClass: "DATETIME_OVERFLOW"},
	{name: "timestampadd's types",
		query: `SELECT typeof(timestampadd(DAY, 1, timestamp_ntz'2021-01-01 00:00:00')), typeof(timestampadd(DAY, 1, DATE'2021-01-01')), typeof(timestampadd(DAY, CAST(1 AS TINYINT), DATE'2021-01-01'))`,
		want:  []string{"timestamp_ntz", "timestamp", "timestamp"}},
	{name: "timestampdiff counts wall-clock time",
		query: `SELECT timestampdiff(HOUR, TIMESTAMP '2021-03-14 01:00:00', TIMESTAMP '2021-03-14 03:00:00'), timestampdiff(DAY, TIMESTAMP '2021-03-13 12:00:00', TIMESTAMP '2021-03-14 11:30:00'), timestampdiff(MINUTE, TIMESTAMP '2021-03-14 01:59:00', TIMESTAMP '2021-03-14 03:00:00')`,
		want:  []string{"2", "0", "61"}},
	{name: "timestampdiff of months as Java counts them",
		query: `SELECT timestampdiff(MONTH, TIMESTAMP '2022-01-31 10:00:00', TIMESTAMP '2022-02-28 10:00:00'), timestampdiff(MONTH, TIMESTAMP '2022-01-31 10:00:00', TIMESTAMP '2022-03-01 09:59:59'), timestampdiff(MONTH, TIMESTAMP '2022-03-31 10:00:00', TIMESTAMP '2022-02-28 10:00:00'), timestampdiff(YEAR, TIMESTAMP '2020-02-29 00:00:00', TIMESTAMP '2021-02-28 00:00:00'), datediff(QUARTER, DATE '2022-02-25', DATE '2023-05-25')`,
		want:  []string{"0", "0", "-1", "0", "5"}},
	{name: "TIMESTAMP_NTZ moves its wall-clock time",
		query: `SELECT CAST(timestampadd(HOUR, 1, timestamp_ntz'2021-03-14 01:30:00') AS STRING), timestampdiff(HOUR, timestamp_ntz'2021-03-14 01:00:00', timestamp_ntz'2021-03-14 03:00:00'), CAST(timestamp_ntz'2021-03-14 01:30:00' + INTERVAL 1 HOUR AS STRING)`,
		want:  []string{"2021-03-14 02:30:00", "2", "2021-03-14 02:30:00"}},
	{name: "div and width_bucket of intervals",
		query: `SELECT div(INTERVAL '1-1' YEAR TO MONTH, INTERVAL '-1' MONTH), INTERVAL '1 06' DAY TO HOUR div INTERVAL '-7' HOUR, width_bucket(INTERVAL '-59' MINUTE, INTERVAL -'1 01' DAY TO HOUR, INTERVAL '1 2:3:4.001' DAY TO SECOND, 10)`,
		want:  []string{"-13", "-4", "5"}},
	{name: "div of intervals by zero", query: `SELECT div(INTERVAL '1' YEAR, INTERVAL '0' MONTH)`, errClass: "DIVIDE_BY_ZERO"},
	{name: "interval texts",
		query: "SELECT CAST(INTERVAL '24:00' HOUR TO MINUTE AS STRING), CAST(interval '-\t 1' day AS STRING), CAST(INTERVAL '2562047788:00' HOUR TO MINUTE AS STRING)",
		want:  []string{"INTERVAL '24:00' HOUR TO MINUTE", "INTERVAL '-1' DAY", "INTERVAL '2562047788:00' HOUR TO MINUTE"}},
	{name: "a skipped wall-clock literal moves on by the gap",
		query: `SELECT CAST(TIMESTAMP '2021-03-14 02:30:00' AS STRING), CAST(TIMESTAMP '2021-03-14 01:30:00' AS STRING), CAST(TIMESTAMP '2021-03-14 02:00:00.5' AS STRING), CAST(TIMESTAMP '2021-11-07 01:30:00' AS STRING)`,
		want:  []string{"2021-03-14 03:30:00", "2021-03-14 01:30:00", "2021-03-14 03:00:00.5", "2021-11-07 01:30:00"}},
	{name: "make_timestamp_ntz is in no zone",
		query: `SELECT CAST(make_timestamp_ntz(2021, 3, 14, 2, 30, 45.678) AS STRING), CAST(make_timestamp_ntz(make_date(2021, 07, 11), make_time(6, 30, 45.678)) AS STRING), CAST(try_make_timestamp_ntz(2021, 13, 1, 0, 0, 0) AS STRING), typeof(make_timestamp_ntz(NULL, TIME'00:00:00'))`,
		want:  []string{"2021-03-14 02:30:45.678", "2021-07-11 06:30:45.678", "NULL", "timestamp_ntz"}},
	{name: "make_timestamp_ntz out of range", query: `SELECT CAST(make_timestamp_ntz(2021, 13, 1, 0, 0, 0) AS STRING)`, errClass: "DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION"},
	{name: "differences with a TIMESTAMP_NTZ",
		query: `SELECT CAST(timestamp_ntz'2021-03-14 03:00:00' - TIMESTAMP '2021-03-14 01:00:00' AS STRING), CAST(timestamp_ntz'2021-03-14 03:00:00' - timestamp_ntz'2021-03-14 01:00:00' AS STRING), CAST(DATE'2021-03-15' - timestamp_ntz'2021-03-14 01:00:00' AS STRING), CAST(timestamp_ntz'2021-03-14 02:30:00' - TIMESTAMP '2021-03-14 01:00:00' AS STRING)`,
		want:  []string{"INTERVAL '0 02:00:00' DAY TO SECOND", "INTERVAL '0 02:00:00' DAY TO SECOND", "INTERVAL '0 23:00:00' DAY TO SECOND", "INTERVAL '0 01:30:00' DAY TO SECOND"}},
	{name: "typeof of intervals",
		query: `SELECT typeof(timestamp_ntz'2021-03-14 03:00:00' - timestamp_ntz'2021-03-14 01:00:00'), typeof(INTERVAL '1' YEAR), typeof(INTERVAL '1 2' DAY TO HOUR), typeof(CAST(NULL AS INTERVAL MINUTE TO SECOND))`,
		want:  []string{"interval day to second", "interval year", "interval day to hour", "interval minute to second"}},
	{name: "timestamp literals with zones",
		query: `SELECT CAST(timestamp '2021-01-01 00:00:00 +01:00' AS STRING), CAST(timestamp '2021-01-01 00:00:00-8' AS STRING), CAST(timestamp '2021-01-01 00:00:00 GMT-08:30' AS STRING), CAST(timestamp '1582-06-01 11:33:33.123UTC+080000' AS STRING), CAST(timestamp '1970-01-01 00:00:00.000Europe/Paris' AS STRING), CAST(timestamp '2021-01-01 00:00:00UT+1' AS STRING)`,
		want:  []string{"2020-12-31 15:00:00", "2021-01-01 00:00:00", "2021-01-01 00:30:00", "1582-05-31 19:40:35.123", "1969-12-31 15:00:00", "2020-12-31 15:00:00"}},
}

// TestDatetimeLA runs laCases natively under America/Los_Angeles.
func TestDatetimeLA(t *testing.T) {
	db := openDuck(t)
	la := translate.Options{TimeZone: "America/Los_Angeles", TimeType: true}
	for _, tc := range laCases {
		t.Run(tc.name, func(t *testing.T) {
			r := translate.TranslateText(tc.query, la)
			if len(r.Findings) > 0 {
				t.Fatalf("refused: %s", r.Findings[0].Message)
			}
			_, rows, err := query(db, r.SQL)
			if tc.errClass != "" {
				if err == nil {
					t.Fatalf("no error, Spark raises %s; got %v", tc.errClass, rows)
				}
				if msg, _, _ := r.Explain(err.Error()); !strings.HasPrefix(msg, "["+tc.errClass+"]") {
					t.Fatalf("error %q, Spark raises %s", msg, tc.errClass)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\nSQL: %s", err, r.SQL)
			}
			if got, want := fmt.Sprint(rows), fmt.Sprint([][]string{tc.want}); got != want {
				t.Errorf("rows %s, Spark's %s\nSQL: %s", got, want, r.SQL)
			}
		})
	}
}

// TestDatetimeUnitRefusals: what the unit forms do not take natively is
// refused at the argument, not guessed.
func TestDatetimeUnitRefusals(t *testing.T) {
	for _, tc := range []struct{ query, word string }{
		{`SELECT timestampadd(DAY, true, TIMESTAMP '2021-01-01 00:00:00') AS a`, "whole number"},
		{`SELECT timestampadd(DAY, 1, '2021-01-01') AS a`, "DATE or TIMESTAMP"},
		{`SELECT timestampdiff(DAYOFYEAR, TIMESTAMP '2021-01-01 00:00:00', TIMESTAMP '2021-02-01 00:00:00') AS a`, "DAYOFYEAR"},
	} {
		r := translate.TranslateText(tc.query, translate.Options{})
		if len(r.Findings) == 0 || !strings.Contains(r.Findings[0].Message, tc.word) {
			t.Errorf("%s: findings %v, want one saying %q", tc.query, r.Findings, tc.word)
		}
	}
}
