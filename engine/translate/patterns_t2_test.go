//go:build duckdb_arrow

package translate_test

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/engine/translate"
)

// T2's traps join the table TestTraps runs natively and TestSparkTraps
// checks on a real Spark server. Every value below was read on Spark
// 4.1.4 over Spark Connect (ANSI, UTC) on 2026-12-04; a timestamp is cast
// to STRING so that its fraction of a second shows.
func init() { traps = append(traps, t2Traps...) }

const recognition = "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION"

var t2Traps = []trap{
	// An optional fraction of a second reads 1 to n digits, as outside
	// a section; past n digits, or a point without digits, fails.
	{name: "t2 optional fraction", query: `SELECT CAST(to_timestamp('2019-10-06 10:11:12.123', 'yyyy-MM-dd HH:mm:ss[.SSSSSS]') AS STRING) AS a, CAST(to_timestamp('2019-10-06 10:11:12', 'yyyy-MM-dd HH:mm:ss[.SSSSSS]') AS STRING) AS b, CAST(to_timestamp('2019-10-06 10:11:12.12', 'yyyy-MM-dd HH:mm:ss[.SSS]') AS STRING) AS c, CAST(to_date('2019-10-06 10:11:12.12', 'yyyy-MM-dd HH:mm:ss[.SSS]') AS STRING) AS d, CAST(to_timestamp('2019-10-06 10:11:12.123456789', 'yyyy-MM-dd HH:mm:ss[.SSSSSSSSS]') AS STRING) AS e, CAST(try_to_timestamp('2019-10-06 10:11:12.', 'yyyy-MM-dd HH:mm:ss[.SSSSSS]') AS STRING) AS f`,
		types: []string{"string", "string", "string", "string", "string", "string"},
		rows:  [][]string{{"2019-10-06 10:11:12.123", "2019-10-06 10:11:12", "2019-10-06 10:11:12.12", "2019-10-06", "2019-10-06 10:11:12.123456", "NULL"}}},
	{name: "t2 optional fraction too long", query: `SELECT to_timestamp('2019-10-06 10:11:12.1234567', 'yyyy-MM-dd HH:mm:ss[.SSSSSS]') AS a`, errClass: "CANNOT_PARSE_TIMESTAMP"},
	{name: "t2 optional fraction past three", query: `SELECT to_timestamp('2019-10-06 10:11:12.1234', 'yyyy-MM-dd HH:mm:ss[.SSS]') AS a`, errClass: "CANNOT_PARSE_TIMESTAMP"},
	// Nine S: nanoseconds, the microseconds and three zeros; parsed,
	// 1 to 9 digits, cut to microseconds.
	{name: "t2 nine fraction letters", query: `SELECT date_format(TIMESTAMP '2019-10-06 10:11:12.123456', 'HH:mm:ss.SSSSSSSSS') AS a, CAST(to_timestamp('10:11:12.123456789 2019', 'HH:mm:ss.SSSSSSSSS yyyy') AS STRING) AS b, CAST(to_timestamp('10:11:12.1 2019', 'HH:mm:ss.SSSSSSSSS yyyy') AS STRING) AS c`,
		types: []string{"string", "string", "string"}, rows: [][]string{{"10:11:12.123456000", "2019-01-01 10:11:12.123456", "2019-01-01 10:11:12.1"}}},
	{name: "t2 ten fraction digits", query: `SELECT to_timestamp('10:11:12.1234567891 2019', 'HH:mm:ss.SSSSSSSSS yyyy') AS a`, errClass: "CANNOT_PARSE_TIMESTAMP"},
	// Patterns Spark rejects: the narrow text forms, seven year letters,
	// ten fraction letters, week-based fields; parsing a day of the week.
	{name: "t2 EEEEE", query: `SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'EEEEE') AS a`, errClass: recognition, finding: recognition, spark: "[" + recognition + "]"},
	{name: "t2 EEEEEE parsed", query: `SELECT try_to_timestamp('22 05 2020 Friday', 'dd MM yyyy EEEEEE') AS a`, errClass: recognition, finding: recognition, spark: "[" + recognition + "]"},
	{name: "t2 MMMMM", query: `SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'MMMMM') AS a`, errClass: recognition, finding: recognition, spark: "[" + recognition + "]"},
	{name: "t2 LLLLL", query: `SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'LLLLL') AS a`, errClass: recognition, finding: recognition, spark: "[" + recognition + "]"},
	{name: "t2 GGGGG", query: `SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'yyyy-MM-dd''T''GGGGG') AS a`, errClass: recognition, finding: recognition, spark: "[" + recognition + "]"},
	{name: "t2 GGGGG over no rows", query: `SELECT to_timestamp(CAST(id AS STRING), 'GGGGG') AS a FROM range(0)`, errClass: recognition, finding: recognition, spark: "[" + recognition + "]"},
	{name: "t2 yyyyyyy", query: `SELECT to_date('2020', 'yyyyyyy') AS a`, errClass: recognition, finding: recognition, spark: "[" + recognition + "]"},
	{name: "t2 ten S", query: `SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'SSSSSSSSSS') AS a`, errClass: recognition, finding: recognition, spark: "[" + recognition + "]"},
	{name: "t2 FF", query: `SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'FF') AS a`, errClass: recognition, finding: recognition, spark: "[" + recognition + "]"},
	{name: "t2 Y", query: `SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'Y') AS a`, errClass: recognition, finding: recognition, spark: "[" + recognition + "]"},
	{name: "t2 EEE parsed", query: `SELECT to_timestamp('Fri 2020-05-22', 'EEE yyyy-MM-dd') AS a`, errClass: recognition, finding: recognition, spark: "[" + recognition + "]"},
	{name: "t2 F parsed", query: `SELECT to_timestamp('2 2020-05-22', 'F yyyy-MM-dd') AS a`, errClass: recognition, finding: recognition, spark: "[" + recognition + "]"},
	{name: "t2 e", query: `SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'e') AS a`, errClass: "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN", finding: "DATETIME_WEEK_BASED_PATTERN", spark: "[INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN]"},
	{name: "t2 qqqqq", query: `SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'qqqqq') AS a`, errClass: "INVALID_DATETIME_PATTERN.LENGTH", finding: "INVALID_DATETIME_PATTERN.LENGTH", spark: "[INVALID_DATETIME_PATTERN.LENGTH]"},
	{name: "t2 Q parsed", query: `SELECT to_timestamp('2 2020-05-22', 'Q yyyy-MM-dd') AS a`, errClass: "INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER", finding: "INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER", spark: "[INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER]"},
	{name: "t2 A", query: `SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'A') AS a`, errClass: "INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER", finding: "INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER", spark: "[INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER]"},
	{name: "t2 V", query: `SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'V') AS a`, errClass: "INVALID_DATETIME_PATTERN.WITH_SUGGESTION", finding: "INVALID_DATETIME_PATTERN.WITH_SUGGESTION", spark: "[INVALID_DATETIME_PATTERN.WITH_SUGGESTION]"},
	// A text the pattern does not read: Spark's class, not DuckDB's
	// strptime error.
	{name: "t2 to_timestamp of a text the pattern does not read", query: `SELECT to_timestamp('x', 'yyyy') AS a`, errClass: "CANNOT_PARSE_TIMESTAMP"},
	{name: "t2 to_date of a text the pattern does not read", query: `SELECT to_date('2020-13-01', 'yyyy-MM-dd') AS a`, errClass: "CANNOT_PARSE_TIMESTAMP"},
	{name: "t2 to_time of a text the pattern does not read", query: `SELECT to_time('25:00', 'HH:mm') AS a`, errClass: "CANNOT_PARSE_TIME"},
	{name: "t2 to_time of texts it reads", query: `SELECT CAST(to_time('10:11', 'HH:mm') AS STRING) AS a, to_time(NULL, 'HH:mm') AS b, CAST(try_to_time('25:00', 'HH:mm') AS STRING) AS c`,
		types: []string{"string", "time(6)", "string"}, rows: [][]string{{"10:11:00", "NULL", "NULL"}}},
	{name: "t2 quoted letters are text", query: `SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', '''GGGGG''') AS a`, types: []string{"string"}, rows: [][]string{{"GGGGG"}}},
}

// Spark's messages for the patterns it rejects, as Spark 4.1.4 writes
// them (the class in brackets first, SQLSTATE last), reported before the
// query runs as a type error at the pattern.
func TestSparkPatternMessages(t *testing.T) {
	for _, tc := range []struct{ query, msg string }{
		{`SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'qqqqq') AS a`, "[INVALID_DATETIME_PATTERN.LENGTH] Unrecognized datetime pattern: qqqqq. Too many letters in datetime pattern: qqqqq. Please reduce pattern length. SQLSTATE: 22007"},
		{`SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'A') AS a`, "[INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER] Unrecognized datetime pattern: A. Illegal pattern character found in datetime pattern: A. Please provide legal character. SQLSTATE: 22007"},
		{`SELECT to_timestamp('2 2020-05-22', 'Q yyyy-MM-dd') AS a`, "[INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER] Unrecognized datetime pattern: Q yyyy-MM-dd. Illegal pattern character found in datetime pattern: Q. Please provide legal character. SQLSTATE: 22007"},
		{`SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'EEEEE') AS a`, "[INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION] You may get a different result due to the upgrading to Spark >= 3.0:\nFail to recognize 'EEEEE' pattern in the DateTimeFormatter.\n1) You can set \"spark.sql.legacy.timeParserPolicy\" to \"LEGACY\" to restore the behavior before Spark 3.0.\n2) You can form a valid datetime pattern with the guide from 'https://spark.apache.org/docs/latest/sql-ref-datetime-pattern.html'. SQLSTATE: 42K0B"},
		{`SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'e') AS a`, "[INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN] You may get a different result due to the upgrading to Spark >= 3.0:\nAll week-based patterns are unsupported since Spark 3.0, detected week-based character: e.\nPlease use the SQL function EXTRACT instead. SQLSTATE: 42K0B"},
		{`SELECT date_format(TIMESTAMP '2018-11-17 13:33:33', 'V') AS a`, "[INVALID_DATETIME_PATTERN.WITH_SUGGESTION] Unrecognized datetime pattern: 'V'. You can form a valid datetime pattern with the guide from 'https://spark.apache.org/docs/latest/sql-ref-datetime-pattern.html'. SQLSTATE: 22007"},
	} {
		r := translate.TranslateText(tc.query, translate.Options{})
		if len(r.Findings) != 1 {
			t.Fatalf("%s: findings %+v", tc.query, r.Findings)
		}
		f := r.Findings[0]
		if f.Message != tc.msg || f.Code != translate.CodeTypeError {
			t.Errorf("%s:\n got  %s (%s)\n want %s", tc.query, f.Message, f.Code, tc.msg)
		}
		if at := tc.query[f.Start:f.End]; !strings.HasPrefix(at, "'") {
			t.Errorf("%s: the finding is at %q, not the pattern", tc.query, at)
		}
	}
}
