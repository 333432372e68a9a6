package engine

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
)

// openTemp opens a sandboxed session on an empty temp folder.
func openTemp(t testing.TB) *Session {
	t.Helper()
	s, err := Open(t.TempDir(), Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// eval returns expr's value rendered as DuckDB's VARCHAR ("NULL" for
// NULL), and its type.
func eval(t *testing.T, s *Session, expr string) (string, string, error) {
	t.Helper()
	var v, typ string
	err := s.DB().QueryRowContext(context.Background(),
		"SELECT coalesce(CAST(v AS VARCHAR), 'NULL'), typeof(v) FROM (SELECT ("+expr+") AS v)").Scan(&v, &typ)
	return v, typ, err
}

// TestCompatFunctions checks each Spark function against the result Spark
// documents (most cases are the examples of Spark's SQL function
// reference; times are in UTC).
func TestCompatFunctions(t *testing.T) {
	s := openTemp(t)
	tests := []struct {
		expr, want, typ string
	}{
		// date_format with Java patterns.
		{"date_format('2016-04-08', 'y')", "2016", "VARCHAR"},
		{"date_format(TIMESTAMP '2024-03-05 13:04:05.123', 'yyyy-MM-dd HH:mm:ss')", "2024-03-05 13:04:05", ""},
		{"date_format(DATE '2024-03-05', 'yyyy/MM')", "2024/03", ""},
		{"date_format(TIMESTAMP '2024-03-05 13:04:05', 'E, d MMM yyyy hh:mm a')", "Tue, 5 Mar 2024 01:04 PM", ""},
		{"date_format(TIMESTAMP '2024-03-05 09:05:07.123456', 'EEEE H:m:s SSS SSSSSS')", "Tuesday 9:5:7 123 123456", ""},
		{"date_format(TIMESTAMP '2024-03-05 13:04:05', 'yyyy-MM-dd''T''HH:mm:ss')", "2024-03-05T13:04:05", ""},
		{"date_format(DATE '2024-03-05', 'D DDD MMMM M/d/yy')", "65 065 March 3/5/24", ""},
		{"date_format(DATE '2024-03-05', '''yy'' yy '''' 100%')", "yy 24 ' 100%", ""},
		{"date_format(DATE '2024-03-05', 'mm MM')", "00 03", ""},
		{"date_format(NULL::TIMESTAMP, 'yyyy')", "NULL", ""},
		// to_date / to_timestamp.
		{"to_date('2009-07-30 04:17:52')", "2009-07-30", "DATE"},
		{"to_date('2016-12-31', 'yyyy-MM-dd')", "2016-12-31", "DATE"},
		{"to_date('31/12/2016', 'dd/MM/yyyy')", "2016-12-31", "DATE"},
		{"to_date(TIMESTAMP '2024-03-05 23:59:59')", "2024-03-05", "DATE"},
		{"to_timestamp('2016-12-31 00:12:00')", "2016-12-31 00:12:00", "TIMESTAMP"},
		{"to_timestamp('2016-12-31', 'yyyy-MM-dd')", "2016-12-31 00:00:00", "TIMESTAMP"},
		{"to_timestamp('05/03/2024 1:02:03.250 PM', 'dd/MM/yyyy h:mm:ss.SSS a')", "2024-03-05 13:02:03.25", "TIMESTAMP"},
		{"to_timestamp(1230219000)", "2008-12-25 15:30:00", "TIMESTAMP"},
		{"to_timestamp(1.5)", "1970-01-01 00:00:01.5", "TIMESTAMP"},
		{"to_timestamp(DATE '2024-03-05')", "2024-03-05 00:00:00", "TIMESTAMP"},
		// Epoch seconds.
		{"from_unixtime(0, 'yyyy-MM-dd HH:mm:ss')", "1970-01-01 00:00:00", "VARCHAR"},
		{"from_unixtime(1700000000)", "2023-11-14 22:13:20", "VARCHAR"},
		{"from_unixtime(1700000000, 'yyyy/MM/dd')", "2023/11/14", ""},
		{"unix_timestamp('2016-04-08', 'yyyy-MM-dd')", "1460073600", "BIGINT"},
		{"unix_timestamp('2016-04-08 00:00:01')", "1460073601", "BIGINT"},
		{"unix_timestamp(TIMESTAMP '2016-04-08 00:00:01.9')", "1460073601", "BIGINT"},
		{"unix_timestamp(DATE '2016-04-08')", "1460073600", "BIGINT"},
		{"unix_timestamp() > 1700000000", "true", ""},
		{"to_unix_timestamp('2016-04-08', 'yyyy-MM-dd')", "1460073600", "BIGINT"},
		{"timestamp_seconds(1230219000)", "2008-12-25 15:30:00", "TIMESTAMP"},
		{"timestamp_millis(1230219000123)", "2008-12-25 15:30:00.123", "TIMESTAMP"},
		{"timestamp_micros(1230219000123123)", "2008-12-25 15:30:00.123123", "TIMESTAMP"},
		{"unix_seconds(TIMESTAMP '1970-01-01 00:00:01')", "1", "BIGINT"},
		{"unix_millis(TIMESTAMP '1970-01-01 00:00:01')", "1000", "BIGINT"},
		{"unix_micros(TIMESTAMP '1970-01-01 00:00:01')", "1000000", "BIGINT"},
		{"unix_date(DATE '1970-01-02')", "1", "INTEGER"},
		{"date_from_unix_date(1)", "1970-01-02", "DATE"},
		// Date arithmetic: Spark's argument order.
		{"datediff('2009-07-31', '2009-07-30')", "1", "INTEGER"},
		{"datediff('2009-07-30', '2009-07-31')", "-1", "INTEGER"},
		{"datediff(TIMESTAMP '2024-03-05 23:00:00', TIMESTAMP '2024-03-04 01:00:00')", "1", "INTEGER"},
		{"date_diff('2009-07-31', '2009-07-30')", "1", "INTEGER"},
		{"date_add(DATE '2016-07-30', 1)", "2016-07-31", "DATE"},
		{"date_sub('2016-07-30', 1)", "2016-07-29", "DATE"},
		{"date_sub(TIMESTAMP '2016-07-30 10:00:00', 1)", "2016-07-29", "DATE"},
		{"add_months('2016-08-31', 1)", "2016-09-30", "DATE"},
		{"add_months(DATE '2016-01-31', -2)", "2015-11-30", "DATE"},
		{"from_utc_timestamp('2016-08-31', 'Asia/Seoul')", "2016-08-31 09:00:00", "TIMESTAMP"},
		{"to_utc_timestamp('2016-08-31', 'Asia/Seoul')", "2016-08-30 15:00:00", "TIMESTAMP"},
		{"current_date() = current_date", "true", ""},
		{"current_timestamp() IS NOT NULL AND current_timestamp IS NOT NULL", "true", ""},
		// Nulls.
		{"nvl(NULL, ['2'])", "[2]", ""},
		{"nvl2(NULL, 2, 1)", "1", ""},
		{"ifnull(NULL, ['2'])", "[2]", ""},
		{"isnotnull(1)", "true", "BOOLEAN"},
		// Arrays and maps.
		{"size(['b', 'd', 'c', 'a'])", "4", "INTEGER"},
		{"size(MAP {'a': 1, 'b': 2})", "2", "INTEGER"},
		{"size(NULL::INTEGER[])", "NULL", ""},
		{"size([[1], [2, 3]])", "2", ""},
		{"array_size(['b', 'd', 'c', 'a'])", "4", "INTEGER"},
		{"array_contains([1, 2, 3], 2)", "true", ""},
		{"array_max([1, 20, NULL, 3])", "20", ""},
		{"array_min([1, 20, NULL, 3])", "1", ""},
		{"array_join(['hello', NULL, 'world'], ' ')", "hello world", "VARCHAR"},
		{"array_join(['hello', NULL, 'world'], ' ', ',')", "hello , world", "VARCHAR"},
		{"sort_array(['b', 'd', NULL, 'c', 'a'], true)", "[NULL, a, b, c, d]", ""},
		{"sort_array(['b', 'd', NULL, 'c', 'a'], false)", "[d, c, b, a, NULL]", ""},
		{"sort_array([3, 1, 2])", "[1, 2, 3]", ""},
		{"arrays_overlap([1, 2, 3], [3, 4, 5])", "true", ""},
		{"sequence(1, 5)", "[1, 2, 3, 4, 5]", ""},
		{"sequence(5, 1)", "[5, 4, 3, 2, 1]", ""},
		{"sequence(1, 9, 4)", "[1, 5, 9]", ""},
		{"sequence(9, 1, -4)", "[9, 5, 1]", ""},
		{"sequence(3, 3, 0)", "[3]", ""},
		{"sequence(DATE '2024-01-01', DATE '2024-03-01', INTERVAL 1 MONTH)", "['2024-01-01 00:00:00', '2024-02-01 00:00:00', '2024-03-01 00:00:00']", ""},
		{"map_from_arrays([1.0, 3.0], ['2', '4'])", "{1.0=2, 3.0=4}", ""},
		// Strings and numbers.
		{"instr('SparkSQL', 'SQL')", "6", ""},
		{"locate('bar', 'foobarbar')", "4", ""},
		{"locate('bar', 'foobarbar', 5)", "7", ""},
		{"locate('bar', 'foobarbar', 0)", "0", ""},
		{"locate('bar', 'foobarbar', NULL)", "0", ""},
		{"concat_ws(' ', 'Spark', 'SQL')", "Spark SQL", ""},
		{"rlike('Spark', '^Sp')", "true", ""},
		{"regexp_like('Spark', 'k$')", "true", ""},
		{"initcap('sPark sql')", "Spark Sql", ""},
		{"lpad('hi', 5)", "   hi", ""},
		{"lpad('hi', 5, '??')", "???hi", ""},
		{"lpad('hi', 1, '??')", "h", ""},
		{"rpad('hi', 5)", "hi   ", ""},
		{"replace('ABCabc', 'abc', 'DEF')", "ABCDEF", ""},
		{"replace('ABCabc', 'abc')", "ABC", ""},
		{"space(2) || 'x'", "  x", ""},
		{"pmod(10, 3)", "1", ""},
		{"pmod(-10, 3)", "2", ""},
		{"pmod(7, -2)", "1", ""},
		{"rand() BETWEEN 0 AND 1 AND rand(42) < 1", "true", ""},
		{"sha2('Spark', 256)", "529bc3b07127ecb7e53a4dcf1991d9152c24537d919178022b2c42657f79a26b", ""},
		{"sha2('Spark', 0)", "529bc3b07127ecb7e53a4dcf1991d9152c24537d919178022b2c42657f79a26b", ""},
		{`get_json_object('{"a":"b"}', '$.a')`, "b", "VARCHAR"},
		// Aggregates, in a subquery.
		{"SELECT collect_list(c) FROM (VALUES (1), (2), (NULL), (1)) t(c)", "[1, 2, 1]", "INTEGER[]"},
		{"SELECT list_sort(collect_set(c)) FROM (VALUES (1), (2), (NULL), (1)) t(c)", "[1, 2]", "INTEGER[]"},
		{"SELECT percentile(c, 0.3) FROM (VALUES (0), (10)) t(c)", "3.0", ""},
		{"SELECT percentile_approx(c, 0.5, 100) FROM (VALUES (0), (6), (7), (9), (10)) t(c)", "7", ""},
		{"SELECT approx_percentile(c, 0.5) FROM (VALUES (0), (6), (7), (9), (10)) t(c)", "7", ""},
		{"SELECT sum(x) FROM (SELECT explode([10, 20]) AS x)", "30", ""},
		// DuckDB's own forms of names the macros share still work.
		{"datediff('day', DATE '2024-01-01', DATE '2024-01-05')", "4", "BIGINT"},
		{"date_diff('month', DATE '2024-01-31', DATE '2024-03-01')", "2", "BIGINT"},
		{"date_sub('month', DATE '2024-01-31', DATE '2024-03-01')", "1", "BIGINT"},
		{"date_add(TIMESTAMP '2024-01-01 10:00:00', INTERVAL 2 HOUR)", "2024-01-01 12:00:00", "TIMESTAMP"},
		{"date_add(DATE '2024-01-31', INTERVAL 1 MONTH)", "2024-02-29 00:00:00", "TIMESTAMP"},
		{"replace('abc', 'b', 'x')", "axc", ""},
		{"lpad('7', 3, '0')", "007", ""},
		{"to_timestamp(0) = TIMESTAMP '1970-01-01'", "true", ""},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, typ, err := eval(t, s, tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if tt.typ != "" && typ != tt.typ {
				t.Errorf("type %s, want %s", typ, tt.typ)
			}
		})
	}
}

// TestCompatWindow checks that the aggregate macros run as window functions.
func TestCompatWindow(t *testing.T) {
	s := openTemp(t)
	got, _, err := eval(t, s, "SELECT string_agg(CAST(l AS VARCHAR), ' ' ORDER BY k) FROM (SELECT k, collect_list(v) OVER (ORDER BY k) AS l FROM (VALUES (1, 'a'), (2, NULL), (3, 'b')) t(k, v))")
	if err != nil {
		t.Fatal(err)
	}
	if want := "[a] [a] [a, b]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestCompatErrors checks that invalid input fails as it does in Spark's
// ANSI mode, and that unsupported pattern letters fail saying which.
func TestCompatErrors(t *testing.T) {
	s := openTemp(t)
	for _, tt := range []struct{ expr, msg string }{
		{"to_date('not a date')", "not a date"},
		{"to_date('2016/12/31', 'yyyy-MM-dd')", "2016/12/31"},
		{"unix_timestamp('2016-04-08')", "2016-04-08"},
		{"date_format(DATE '2024-03-05', 'yyyy QQ')", "letter Q is not supported"},
		{"sha2('x', 512)", "256-bit"},
		// Spark: "requirement failed: Illegal sequence boundaries: -7 to 0 by -2"
		// (found by the parity suite).
		{"sequence(-7, 0, -2)", "Illegal sequence boundaries: -7 to 0 by -2"},
		{"sequence(1, 5, 0)", "Illegal sequence boundaries"},
	} {
		t.Run(tt.expr, func(t *testing.T) {
			_, _, err := eval(t, s, tt.expr)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %v, want an error containing %q", err, tt.msg)
			}
		})
	}
}

// TestCompatFunctionsDocumented keeps docs/spark-compat.md listing every
// mapped function.
func TestCompatFunctionsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/spark-compat.md")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range CompatFunctions {
		names = append(names, f.Name)
		if f.Spark == "" || f.DuckDB == "" || f.macro == "" {
			t.Errorf("%s: incomplete entry", f.Name)
		}
		if !strings.Contains(string(doc), "`"+f.Name+"`") {
			t.Errorf("docs/spark-compat.md does not list %s", f.Name)
		}
	}
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			t.Errorf("%s is listed twice", sorted[i])
		}
	}
}
