//go:build duckdb_arrow

package translate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thund-dev/thund/engine/translate"
)

// castCase is a cast (or a decimal sum) whose value Spark 4.1.4 gave (session time zone UTC;
// noANSI: with spark.sql.ansi.enabled=false), each column printed by
// Spark's CAST AS STRING or as a number; errClass is the class Spark
// raised. TestSparkCasts checks the table on a real server.
type castCase struct {
	name, query string
	noANSI      bool
	want        []string
	errClass    string
}

var castCases = []castCase{
	{name: "a double past the long's range is Long.MaxValue only at 2^63",
		query: `SELECT bigint(double('9223372036854775807')), CAST(CAST(9.223372E18 AS FLOAT) AS BIGINT), CAST(2147483647.9D AS INT), TRY_CAST(9.3e18D AS BIGINT)`,
		want:  []string{"9223372036854775807", "9223372036854775807", "2147483647", "NULL"}},
	{name: "a double past 2^63 overflows", query: `SELECT CAST(9.3e18D AS BIGINT)`, errClass: "CAST_OVERFLOW"},
	{name: "an integer to BINARY in ANSI mode", query: `SELECT HEX(CAST(CAST(123 AS byte) AS binary))`, errClass: "DATATYPE_MISMATCH.CAST_WITH_CONF_SUGGESTION"},
	{name: "TRY_CAST of an integer to BINARY in ANSI mode", query: `SELECT TRY_CAST(123 AS binary)`, errClass: "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION"},
	{name: "without ANSI a double casts as Java's",
		query:  `SELECT CAST(1e20D AS INT), CAST(-1e20D AS BIGINT), CAST(1e10D AS SMALLINT), CAST(CAST('NaN' AS DOUBLE) AS INT), CAST(3e9D AS TINYINT), CAST(CAST(1e20 AS FLOAT) AS INT)`,
		noANSI: true, want: []string{"2147483647", "-9223372036854775808", "-1", "0", "-1", "2147483647"}},
	{name: "without ANSI a decimal keeps its low bits",
		query:  `SELECT CAST(1e20BD AS INT), CAST(3000000000BD AS INT), CAST(123456789012345678901234567890BD AS BIGINT), CAST(300BD AS TINYINT)`,
		noANSI: true, want: []string{"1661992960", "-1294967296", "-4362896299872285998", "44"}},
	{name: "without ANSI TRY_CAST of an integer to BINARY", query: `SELECT TRY_CAST(123 AS binary)`, noANSI: true, errClass: "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION"},
	{name: "without ANSI a negative decimal or double",
		query:  `SELECT CAST(-3000000000BD AS INT), CAST(-1e20D AS INT), CAST(-129.9BD AS TINYINT), CAST(-2.7D AS INT), CAST(1e10D AS TINYINT)`,
		noANSI: true, want: []string{"1294967296", "-2147483648", "127", "-2", "-1"}},
	{name: "without ANSI TRY_CAST still gives NULL", query: `SELECT TRY_CAST(1e20D AS INT), HEX(CAST(CAST(-123 AS SMALLINT) AS BINARY))`,
		noANSI: true, want: []string{"NULL", "FF85"}},
	{name: "a decimal sum past 38 digits rounds HALF_UP by the sum's sign",
		query: `SELECT CAST(1000000000000000000000000000000.1234565 + 0.0000000 AS STRING), CAST(1000000000000000000000000000000.1234565 - 0.0000010 AS STRING), CAST(-1000000000000000000000000000000.1234565 + 0.0000000 AS STRING), CAST(1000000000000000000000000000000.0000005 - 1000000000000000000000000000001.0000000 AS STRING), CAST(1000000000000000000000000000000.0000000 - 999999999999999999999999999999.9999995 AS STRING), CAST(-1000000000000000000000000000000.0000000 + 999999999999999999999999999999.9999995 AS STRING)`,
		want:  []string{"1000000000000000000000000000000.123457", "1000000000000000000000000000000.123456", "-1000000000000000000000000000000.123457", "-1.000000", "0.000001", "-0.000001"}},
	{name: "a decimal sum past 38 digits",
		query: `SELECT CAST(12345678912345678912345678912.1234567 - 9999999999999999999999999999999.12345 AS STRING), typeof(12345678912345678912345678912.1234567 - 9999999999999999999999999999999.12345)`,
		want:  []string{"-9987654321087654321087654321086.999993", "decimal(38,6)"}},
	{name: "a decimal sum out of range", query: `SELECT (5e36BD + 0.1) + 5e36BD`, errClass: "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION"},
	{name: "a decimal sum out of range without ANSI", query: `SELECT CAST((5e36BD + 0.1) + 5e36BD AS STRING)`, noANSI: true, want: []string{"NULL"}},
	{name: "a decimal product past 38 digits",
		query: `SELECT CAST(10.300000000000000000 * 3.0000000000000000000 AS STRING), CAST(123456789123456789.1234567890 * 1.123456789123456789 AS STRING), CAST(-123456789123456789.1234567890 * 1.123456789123456789 AS STRING), typeof(10.300000000000000000 * 3.0000000000000000000)`,
		want:  []string{"30.9000000000000000000000000000000000", "138698367904130467.654320988515622621", "-138698367904130467.654320988515622621", "decimal(38,34)"}},
	{name: "a decimal product out of range", query: `SELECT 12345678901234567890.0 * 12345678901234567890.0`, errClass: "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION"},
	{name: "a decimal product out of range without ANSI", query: `SELECT CAST(1.2345678901234567890E30BD * 1.2345678901234567890E25BD AS STRING)`, noANSI: true, want: []string{"NULL"}},
	{name: "years before 1 and past 9999 as strings",
		query: `SELECT CAST(timestamp'-1969-12-31 16:00:00' AS STRING), CAST(timestamp'-0015-03-18 16:00:00.25' AS STRING), CAST(timestamp'-000001' AS STRING), CAST(timestamp'99999-03-18T12:03:17' AS STRING), CAST(date'-0001-1-28' AS STRING), CAST(date'2021-01-02' AS STRING), CAST(timestamp'2021-01-02 10:00:00.123' AS STRING), CAST(timestamp_ntz'+99999-03-18 12:03:17' AS STRING)`,
		want:  []string{"-1969-12-31 16:00:00", "-0015-03-18 16:00:00.25", "-0001-01-01 00:00:00", "+99999-03-18 12:03:17", "-0001-01-28", "2021-01-02", "2021-01-02 10:00:00.123", "+99999-03-18 12:03:17"}},
	{name: "make_timestamp before year 1 and past 9999",
		query: `SELECT CAST(make_timestamp(-1969, 12, 31, 16, 0, 0.0) AS STRING), CAST(make_timestamp(-15, 3, 18, 16, 0, 0.0) AS STRING), CAST(make_timestamp(99999, 3, 18, 12, 3, 17.0) AS STRING), CAST(make_timestamp_ntz(99999, 3, 18, 12, 3, 17.0) AS STRING)`,
		want:  []string{"-1969-12-31 16:00:00", "-0015-03-18 16:00:00", "+99999-03-18 12:03:17", "+99999-03-18 12:03:17"}},
	{name: "percentiles of intervals truncate toward zero",
		query: `SELECT CAST(median(x) AS STRING), CAST(percentile(x, 0.5) AS STRING), CAST(percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS STRING), CAST(percentile_disc(0.5) WITHIN GROUP (ORDER BY x) AS STRING), typeof(median(x)) FROM VALUES (INTERVAL '-1' MONTH), (INTERVAL '-2' MONTH) t(x)`,
		want:  []string{"INTERVAL '-0-1' YEAR TO MONTH", "INTERVAL '-0-1' YEAR TO MONTH", "INTERVAL '-0-1' YEAR TO MONTH", "INTERVAL '-0-2' YEAR TO MONTH", "interval year to month"}},
	{name: "percentiles of day-time intervals",
		query: `SELECT CAST(median(x) AS STRING), CAST(percentile(x, 0.25) AS STRING), CAST(percentile_cont(0.75) WITHIN GROUP (ORDER BY x) AS STRING), typeof(median(x)) FROM VALUES (INTERVAL '0.000001' SECOND), (INTERVAL '0.000002' SECOND), (INTERVAL '-0.000007' SECOND) t(x)`,
		want:  []string{"INTERVAL '0 00:00:00.000001' DAY TO SECOND", "INTERVAL '-0 00:00:00.000003' DAY TO SECOND", "INTERVAL '0 00:00:00.000001' DAY TO SECOND", "interval day to second"}},
	{name: "a string to an ANSI interval",
		query: `SELECT CAST(CAST("interval '3-1' year to month" AS interval year to month) AS STRING), CAST(CAST("interval '3 00:00:01' day to second" AS interval day to second) AS STRING), CAST(CAST('-1-2' AS interval year to month) AS STRING), CAST(CAST(' 5 ' AS interval day) AS STRING), CAST(CAST('INTERVAL -''1 02:03'' DAY TO MINUTE' AS interval day to minute) AS STRING)`,
		want:  []string{"INTERVAL '3-1' YEAR TO MONTH", "INTERVAL '3 00:00:01' DAY TO SECOND", "INTERVAL '-1-2' YEAR TO MONTH", "INTERVAL '5' DAY", "INTERVAL '-1 02:03' DAY TO MINUTE"}},
}

// TestCasts runs castCases natively.
func TestCasts(t *testing.T) {
	db := openDuck(t)
	for _, tc := range castCases {
		t.Run(tc.name, func(t *testing.T) {
			r := translate.TranslateText(tc.query, translate.Options{NoANSI: tc.noANSI})
			if tc.errClass != "" && len(r.Findings) > 0 {
				if !strings.HasPrefix(r.Findings[0].Message, "["+tc.errClass+"]") || r.Findings[0].Code != translate.CodeTypeError {
					t.Fatalf("finding %q, Spark raises %s", r.Findings[0].Message, tc.errClass)
				}
				return
			}
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
