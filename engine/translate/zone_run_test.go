//go:build duckdb_arrow

package translate_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/engine/translate"
)

// TestZoneFunctions runs the functions that convert between instants and
// wall-clock times under America/Los_Angeles, the zone of Spark's SQL
// test corpus; the expected values are Spark 4.1's, as its golden files
// (timestamp.sql.out) record them.
func TestZoneFunctions(t *testing.T) {
	db := openDuck(t)
	la := translate.Options{TimeZone: "America/Los_Angeles", TimeType: true}
	for _, tc := range []struct{ query, want string }{
		{`SELECT TIMESTAMP_SECONDS(1230219000) AS a, TIMESTAMP_SECONDS(-1230219000) AS b, TIMESTAMP_SECONDS(null) AS c`, "[[2008-12-25 07:30:00 1931-01-07 00:30:00 NULL]]"},
		{`SELECT TIMESTAMP_MILLIS(-1230219000123) AS a, TIMESTAMP_MICROS(1230219000123123) AS b`, "[[1931-01-07 00:29:59.877 2008-12-25 07:30:00.123123]]"},
		{`SELECT TIMESTAMP_SECONDS(0.1234567d) AS a, TIMESTAMP_SECONDS(FLOAT(1.23)) AS b`, "[[1969-12-31 16:00:00.123456 1969-12-31 16:00:01.23]]"},
		{`SELECT UNIX_SECONDS(timestamp'2020-12-01 14:30:08.999999Z') AS a, UNIX_MILLIS(timestamp'2020-12-01 14:30:08.999999Z') AS b, UNIX_MICROS(timestamp'2020-12-01 14:30:08Z') AS c`, "[[1606833008 1606833008999 1606833008000000]]"},
		{`SELECT make_timestamp(2021, 07, 11, 6, 30, 45.678) AS a, make_timestamp(2021, 07, 11, 6, 30, 45.678, 'CET') AS b, make_timestamp(1, 1, 1, 1, 1, 60) AS c`, "[[2021-07-11 06:30:45.678 2021-07-10 21:30:45.678 0001-01-01 01:02:00]]"},
		{`SELECT make_timestamp(make_date(2021, 07, 11), make_time(6, 30, 45.678), 'MIT') AS a, make_timestamp(DATE'1970-01-01', TIME'00:00:00', 'UTC') AS b`, "[[2021-07-10 10:30:45.678 1969-12-31 16:00:00]]"},
		{`SELECT try_make_timestamp(2021, 07, 11, 6, 30, 60.007) AS a`, "[[NULL]]"},
	} {
		r := translate.TranslateText(tc.query, la)
		if len(r.Findings) > 0 {
			t.Errorf("%s: refused: %s", tc.query, r.Findings[0].Message)
			continue
		}
		_, rows, err := queryMicros(db, r.SQL)
		if err != nil {
			t.Errorf("%s: %v\nSQL: %s", tc.query, err, r.SQL)
			continue
		}
		if got := fmt.Sprint(rows); got != tc.want {
			t.Errorf("%s: %s, Spark's %s", tc.query, got, tc.want)
		}
	}
	for _, tc := range []struct{ query, class string }{
		{`SELECT make_timestamp(2021, 07, 11, 6, 30, 60.007) AS a`, "INVALID_FRACTION_OF_SECOND"},
		{`SELECT make_timestamp(1, 1, 1, 1, 1, 61) AS a`, "DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION"},
	} {
		r := translate.TranslateText(tc.query, la)
		if len(r.Findings) > 0 {
			t.Errorf("%s: refused: %s", tc.query, r.Findings[0].Message)
			continue
		}
		_, _, err := queryMicros(db, r.SQL)
		if err == nil {
			t.Errorf("%s: no error, Spark raises %s", tc.query, tc.class)
			continue
		}
		if msg, _, _ := r.Explain(err.Error()); !strings.HasPrefix(msg, "["+tc.class+"]") {
			t.Errorf("%s: error %q, Spark raises %s", tc.query, msg, tc.class)
		}
	}
}

// queryMicros is query with timestamps printed to the microsecond, the
// fraction trimmed as Spark prints it.
func queryMicros(db *sql.DB, q string) ([]string, [][]string, error) {
	types, rows, err := query(db, q)
	if err != nil {
		return nil, nil, err
	}
	rs, err := db.Query(q)
	if err != nil {
		return nil, nil, err
	}
	defer rs.Close()
	for r := 0; rs.Next(); r++ {
		vals := make([]any, len(types))
		ptrs := make([]any, len(types))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		for i, v := range vals {
			if ts, ok := v.(time.Time); ok && types[i] == "timestamp" {
				s := strings.TrimRight(ts.UTC().Format("2006-01-02 15:04:05.000000"), "0")
				rows[r][i] = strings.TrimSuffix(s, ".")
			}
		}
	}
	return types, rows, rs.Err()
}
