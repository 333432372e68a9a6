package engine

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/sparksql/ast"
	sparkparser "github.com/thund-dev/thund/analysis/sparksql/parser"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/engine/translate"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/textpos"
)

// CompatFunction documents one Spark SQL function that Thund runs on
// DuckDB through a macro: DuckDB lacks it, names it differently, or has it
// with other arguments. docs/spark-compat.md renders the list (a test keeps
// the two in step).
type CompatFunction struct {
	// Name is the Spark function's name.
	Name string
	// Spark is the Spark signature, optional arguments in brackets.
	Spark string
	// DuckDB says what runs natively.
	DuckDB string
	// Notes says where the native result can differ from Spark's.
	Notes string

	// macro is the macro's parameter lists and bodies, as CREATE MACRO
	// takes them after the name: "(a, b) AS ..., (a) AS ...".
	macro string
}

// Thund evaluates Spark's session time zone as UTC: TIMESTAMP values are
// read as UTC wall-clock times and epoch seconds convert to and from them.
const (
	// numericType matches DuckDB's typeof() of a number.
	numericType = `regexp_matches(typeof(x), '^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL.*)$')`
	// epochSeconds turns a number of seconds since 1970 into a TIMESTAMP.
	epochSeconds = `make_timestamp(CAST(floor(x) AS BIGINT) * 1000000)`
)

// CompatFunctions lists the Spark functions Thund maps onto DuckDB, in
// documentation order. A macro never takes a call away from DuckDB: where
// DuckDB has a function of the same name, the macro keeps DuckDB's forms
// (other argument counts pass through to the built-in, or the body is the
// built-in's own definition).
var CompatFunctions = []CompatFunction{
	// Dates and times.
	{
		Name: "date_format", Spark: "date_format(ts, fmt)", DuckDB: "strftime(ts, fmt converted from the Java pattern)",
		Notes: "fmt must be a constant; supported pattern letters are listed below, others fail with a message naming the letter",
		macro: `(x, f) AS strftime(CAST(x AS TIMESTAMP), thund_datetime_pattern(f))`,
	},
	{
		Name: "to_date", Spark: "to_date(str[, fmt])", DuckDB: "CAST(str AS DATE); strptime with fmt",
		Notes: "invalid input fails, as in Spark with ANSI mode (the Spark 4 default)",
		macro: `(x) AS CAST(x AS DATE), (x, f) AS CAST(strptime(CAST(x AS VARCHAR), thund_datetime_pattern(f)) AS DATE)`,
	},
	{
		Name: "to_timestamp", Spark: "to_timestamp(str[, fmt])", DuckDB: "CAST(str AS TIMESTAMP); strptime with fmt; numbers are epoch seconds",
		Notes: "DuckDB's to_timestamp(epoch_seconds) keeps working but returns TIMESTAMP (UTC) rather than TIMESTAMP WITH TIME ZONE",
		macro: `(x) AS CASE WHEN typeof(x) = 'VARCHAR' THEN CAST(CAST(x AS VARCHAR) AS TIMESTAMP)
			WHEN ` + numericType + ` THEN make_timestamp(CAST(round(TRY_CAST(x AS DOUBLE) * 1000000) AS BIGINT))
			ELSE TRY_CAST(x AS TIMESTAMP) END,
			(x, f) AS strptime(CAST(x AS VARCHAR), thund_datetime_pattern(f))`,
	},
	{
		Name: "from_unixtime", Spark: "from_unixtime(sec[, fmt])", DuckDB: "strftime(make_timestamp(sec * 1000000), fmt)",
		Notes: "default fmt yyyy-MM-dd HH:mm:ss; UTC",
		macro: `(x) AS strftime(` + epochSeconds + `, '%Y-%m-%d %H:%M:%S'),
			(x, f) AS strftime(` + epochSeconds + `, thund_datetime_pattern(f))`,
	},
	{
		Name: "unix_timestamp", Spark: "unix_timestamp([ts[, fmt]])", DuckDB: "epoch(ts) as BIGINT",
		Notes: "a string ts is parsed with fmt (default yyyy-MM-dd HH:mm:ss) and fails when it does not match, as in ANSI mode; UTC",
		macro: unixTimestamp,
	},
	{
		Name: "to_unix_timestamp", Spark: "to_unix_timestamp(ts[, fmt])", DuckDB: "same as unix_timestamp",
		macro: `(x) AS unix_timestamp(x), (x, f) AS unix_timestamp(x, f)`,
	},
	{
		Name: "datediff", Spark: "datediff(end, start)", DuckDB: "date_diff('day', start, end)",
		Notes: "end first, as in Spark; DuckDB's datediff(part, start, end) passes through. Spark's datediff(DAY, start, end) with a bare unit does not run natively",
		macro: `(a, b) AS CAST(system.main.date_diff('day', CAST(b AS DATE), CAST(a AS DATE)) AS INTEGER),
			(p, a, b) AS system.main.datediff(p, a, b)`,
	},
	{
		Name: "date_diff", Spark: "date_diff(end, start)", DuckDB: "date_diff('day', start, end)",
		Notes: "as datediff; DuckDB's date_diff(part, start, end) passes through",
		macro: `(a, b) AS CAST(system.main.date_diff('day', CAST(b AS DATE), CAST(a AS DATE)) AS INTEGER),
			(p, a, b) AS system.main.date_diff(p, a, b)`,
	},
	{
		Name: "date_add", Spark: "date_add(start, days)", DuckDB: "start + days",
		Notes: "the body is DuckDB's own date_add (date + interval), so DuckDB's date_add(ts, INTERVAL ...) is unchanged; start must be a DATE (wrap a timestamp or string in to_date(...))",
		macro: `(a, n) AS a + n`,
	},
	{
		Name: "date_sub", Spark: "date_sub(start, days)", DuckDB: "CAST(start AS DATE) - days",
		Notes: "DuckDB's date_sub(part, start, end) passes through",
		macro: `(a, n) AS CAST(a AS DATE) - CAST(n AS INTEGER), (p, a, b) AS system.main.date_sub(p, a, b)`,
	},
	{
		Name: "add_months", Spark: "add_months(start, months)", DuckDB: "CAST(start AS DATE) + to_months(months), as DATE",
		Notes: "the end of month is kept in range (2016-08-31 + 1 month = 2016-09-30), as in Spark",
		macro: `(a, n) AS CAST(CAST(a AS DATE) + to_months(CAST(n AS INTEGER)) AS DATE)`,
	},
	{
		Name: "timestamp_seconds", Spark: "timestamp_seconds(sec)", DuckDB: "make_timestamp(sec * 1000000)",
		macro: `(x) AS make_timestamp(CAST(round(CAST(x AS DOUBLE) * 1000000) AS BIGINT))`,
	},
	{
		Name: "timestamp_millis", Spark: "timestamp_millis(ms)", DuckDB: "make_timestamp(ms * 1000)",
		macro: `(x) AS make_timestamp(CAST(x AS BIGINT) * 1000)`,
	},
	{
		Name: "timestamp_micros", Spark: "timestamp_micros(us)", DuckDB: "make_timestamp(us)",
		macro: `(x) AS make_timestamp(CAST(x AS BIGINT))`,
	},
	{
		Name: "unix_seconds", Spark: "unix_seconds(ts)", DuckDB: "epoch(ts) as BIGINT",
		macro: `(x) AS CAST(floor(epoch(x)) AS BIGINT)`,
	},
	{Name: "unix_millis", Spark: "unix_millis(ts)", DuckDB: "epoch_ms(ts)", macro: `(x) AS epoch_ms(x)`},
	{Name: "unix_micros", Spark: "unix_micros(ts)", DuckDB: "epoch_us(ts)", macro: `(x) AS epoch_us(x)`},
	{
		Name: "unix_date", Spark: "unix_date(date)", DuckDB: "days since 1970-01-01",
		macro: `(x) AS CAST(system.main.date_diff('day', DATE '1970-01-01', CAST(x AS DATE)) AS INTEGER)`,
	},
	{
		Name: "date_from_unix_date", Spark: "date_from_unix_date(days)", DuckDB: "DATE '1970-01-01' + days",
		macro: `(x) AS DATE '1970-01-01' + CAST(x AS INTEGER)`,
	},
	{
		Name: "from_utc_timestamp", Spark: "from_utc_timestamp(ts, tz)", DuckDB: "timezone(tz, timezone('UTC', ts))",
		macro: `(x, z) AS timezone(z, timezone('UTC', CAST(x AS TIMESTAMP)))`,
	},
	{
		Name: "to_utc_timestamp", Spark: "to_utc_timestamp(ts, tz)", DuckDB: "timezone('UTC', timezone(tz, ts))",
		macro: `(x, z) AS timezone('UTC', timezone(z, CAST(x AS TIMESTAMP)))`,
	},
	{
		Name: "current_timestamp", Spark: "current_timestamp()", DuckDB: "now()",
		Notes: "DuckDB reads the bare keyword current_timestamp itself; the macro adds the call form. Returns TIMESTAMP WITH TIME ZONE",
		macro: `() AS now()`,
	},
	{
		Name: "current_date", Spark: "current_date()", DuckDB: "today()",
		Notes: "the call form; the bare keyword is DuckDB's own",
		macro: `() AS today()`,
	},

	// Null handling.
	{Name: "nvl", Spark: "nvl(a, b)", DuckDB: "coalesce(a, b)", macro: `(a, b) AS coalesce(a, b)`},
	{
		Name: "nvl2", Spark: "nvl2(a, b, c)", DuckDB: "CASE WHEN a IS NOT NULL THEN b ELSE c END",
		macro: `(a, b, c) AS CASE WHEN a IS NOT NULL THEN b ELSE c END`,
	},
	{
		Name: "isnotnull", Spark: "isnotnull(x)", DuckDB: "x IS NOT NULL",
		Notes: "isnull(x) cannot be a macro (DuckDB's parser reads ISNULL as an operator): write x IS NULL",
		macro: `(x) AS x IS NOT NULL`,
	},

	// Arrays, maps and aggregates.
	{
		Name: "size", Spark: "size(array or map)", DuckDB: "len(list) or cardinality(map)",
		Notes: "NULL for NULL input, as in Spark with ANSI mode (the Spark 4 default)",
		macro: `(x) AS CAST(CASE WHEN x IS NULL THEN NULL
			WHEN typeof(x) LIKE 'MAP(%' THEN system.main.cardinality(TRY_CAST(x AS MAP(VARCHAR, VARCHAR)))
			ELSE len(TRY_CAST(x AS VARCHAR[])) END AS INTEGER)`,
	},
	{
		Name: "array_size", Spark: "array_size(array)", DuckDB: "len(list)",
		macro: `(x) AS CAST(len(x) AS INTEGER)`,
	},
	{
		Name: "collect_list", Spark: "collect_list(x)", DuckDB: "list(x) FILTER (WHERE x IS NOT NULL)",
		Notes: "an aggregate macro; works with GROUP BY and OVER (...). NULLs are skipped as in Spark, but a group of only NULLs gives NULL where Spark gives []",
		macro: `(x) AS list(x) FILTER (WHERE x IS NOT NULL)`,
	},
	{
		Name: "collect_set", Spark: "collect_set(x)", DuckDB: "list(DISTINCT x) FILTER (WHERE x IS NOT NULL)",
		Notes: "as collect_list; the order of elements is unspecified in both",
		macro: `(x) AS list(DISTINCT x) FILTER (WHERE x IS NOT NULL)`,
	},
	{
		Name: "percentile", Spark: "percentile(x, p)", DuckDB: "quantile_cont(x, p)",
		macro: `(x, p) AS quantile_cont(x, p)`,
	},
	{
		Name: "percentile_approx", Spark: "percentile_approx(x, p[, accuracy])", DuckDB: "approx_quantile(x, p)",
		Notes: "accuracy is ignored; DuckDB's t-digest gives close but not always identical answers",
		macro: `(x, p) AS approx_quantile(x, p), (x, p, a) AS approx_quantile(x, p)`,
	},
	{
		Name: "approx_percentile", Spark: "approx_percentile(x, p[, accuracy])", DuckDB: "approx_quantile(x, p)",
		Notes: "as percentile_approx",
		macro: `(x, p) AS approx_quantile(x, p), (x, p, a) AS approx_quantile(x, p)`,
	},
	{Name: "array_max", Spark: "array_max(array)", DuckDB: "list_max(list)", macro: `(x) AS list_max(x)`},
	{Name: "array_min", Spark: "array_min(array)", DuckDB: "list_min(list)", macro: `(x) AS list_min(x)`},
	{
		Name: "array_join", Spark: "array_join(array, sep[, null_replacement])", DuckDB: "array_to_string(list, sep)",
		Notes: "NULL elements are skipped unless a replacement is given",
		macro: `(x, s) AS array_to_string(x, s),
			(x, s, r) AS array_to_string(list_transform(CAST(x AS VARCHAR[]), lambda v: coalesce(v, r)), s)`,
	},
	{
		Name: "sort_array", Spark: "sort_array(array[, ascending])", DuckDB: "list_sort(list, 'ASC', 'NULLS FIRST')",
		Notes: "NULLs first ascending, last descending, as in Spark",
		macro: `(x) AS list_sort(x, 'ASC', 'NULLS FIRST'),
			(x, a) AS CASE WHEN a THEN list_sort(x, 'ASC', 'NULLS FIRST') ELSE list_sort(x, 'DESC', 'NULLS LAST') END`,
	},
	{
		Name: "arrays_overlap", Spark: "arrays_overlap(a, b)", DuckDB: "list_has_any(a, b)",
		Notes: "false rather than NULL when the only common candidates are NULLs",
		macro: `(a, b) AS list_has_any(a, b)`,
	},
	{
		Name: "sequence", Spark: "sequence(start, stop[, step])", DuckDB: "generate_series(start, stop[, step])",
		Notes: "without step, counts down when start > stop, as in Spark; integers only without a step (give dates an INTERVAL step); a step pointing away from stop fails, as in Spark (\"Illegal sequence boundaries\")",
		// Spark accepts a step only when it leads from start to stop (or
		// is zero with start = stop, giving [start]); generate_series
		// would return an empty list. a + s compares the step's sign for
		// numbers and INTERVAL steps alike.
		macro: `(a, b) AS generate_series(a, b, CASE WHEN a <= b THEN 1 ELSE -1 END),
			(a, b, s) AS CASE WHEN a = b AND a + s = a THEN list_value(a)
			WHEN (a + s > a AND a <= b) OR (a + s < a AND a >= b) THEN generate_series(a, b, s)
			ELSE error('Illegal sequence boundaries: ' || CAST(a AS VARCHAR) || ' to ' || CAST(b AS VARCHAR) || ' by ' || CAST(s AS VARCHAR)) END`,
	},
	{
		Name: "map_from_arrays", Spark: "map_from_arrays(keys, values)", DuckDB: "map(keys, values)",
		macro: `(k, v) AS map(k, v)`,
	},
	{
		Name: "explode", Spark: "explode(array)", DuckDB: "unnest(list)",
		Notes: "arrays in the SELECT list; LATERAL VIEW and maps do not run natively",
		macro: `(x) AS unnest(x)`,
	},

	// Strings, numbers and JSON.
	{
		Name: "locate", Spark: "locate(substr, str[, pos])", DuckDB: "instr(str, substr), from pos",
		Notes: "0 when not found or pos < 1",
		macro: `(s, x) AS instr(x, s),
			(s, x, p) AS CASE WHEN p IS NULL OR p < 1 THEN 0
				WHEN instr(substr(x, p), s) = 0 THEN 0
				ELSE instr(substr(x, p), s) + p - 1 END`,
	},
	{
		Name: "rlike", Spark: "rlike(str, regex)", DuckDB: "regexp_matches(str, regex)",
		Notes: "the function form; the RLIKE operator does not run natively. DuckDB uses RE2, which lacks Java's backreferences and lookaround",
		macro: `(s, r) AS regexp_matches(s, r)`,
	},
	{
		Name: "regexp_like", Spark: "regexp_like(str, regex)", DuckDB: "regexp_matches(str, regex)",
		Notes: "as rlike",
		macro: `(s, r) AS regexp_matches(s, r)`,
	},
	{
		Name: "initcap", Spark: "initcap(str)", DuckDB: "upper first letter of each space-separated word, lower the rest",
		macro: `(s) AS array_to_string(list_transform(string_split(lower(s), ' '), lambda w: upper(w[1]) || w[2:]), ' ')`,
	},
	{
		Name: "lpad", Spark: "lpad(str, len[, pad])", DuckDB: "lpad(str, len, pad), pad ' ' by default",
		Notes: "DuckDB's three-argument lpad passes through",
		macro: `(s, n) AS system.main.lpad(s, n, ' '), (s, n, p) AS system.main.lpad(s, n, p)`,
	},
	{
		Name: "rpad", Spark: "rpad(str, len[, pad])", DuckDB: "rpad(str, len, pad), pad ' ' by default",
		Notes: "DuckDB's three-argument rpad passes through",
		macro: `(s, n) AS system.main.rpad(s, n, ' '), (s, n, p) AS system.main.rpad(s, n, p)`,
	},
	{
		Name: "replace", Spark: "replace(str, search[, replacement])", DuckDB: "replace(str, search, replacement), '' by default",
		Notes: "DuckDB's three-argument replace passes through",
		macro: `(s, f) AS system.main.replace(s, f, ''), (s, f, r) AS system.main.replace(s, f, r)`,
	},
	{Name: "space", Spark: "space(n)", DuckDB: "repeat(' ', n)", macro: `(n) AS repeat(' ', n)`},
	{
		Name: "pmod", Spark: "pmod(a, n)", DuckDB: "a % n, made non-negative",
		Notes: "NULL rather than an error for n = 0",
		macro: `(a, n) AS CASE WHEN a % n < 0 THEN (a % n + n) % n ELSE a % n END`,
	},
	{
		Name: "rand", Spark: "rand([seed])", DuckDB: "random()",
		Notes: "the seed is ignored, so a seeded rand is not repeatable natively",
		macro: `() AS random(), (s) AS random()`,
	},
	{
		Name: "sha2", Spark: "sha2(x, bits)", DuckDB: "sha256(x)",
		Notes: "256 bits (or 0) only; other sizes fail with a message",
		macro: `(x, n) AS CASE WHEN n IN (0, 256) THEN sha256(x) ELSE error('sha2: Thund runs only 256-bit SHA-2 natively (docs/spark-compat.md)') END`,
	},
	{
		Name: "get_json_object", Spark: "get_json_object(json, path)", DuckDB: "json_extract_string(json, path)",
		Notes: "malformed JSON fails natively where Spark returns NULL",
		macro: `(j, p) AS json_extract_string(j, p)`,
	},
}

// unixTimestamp is unix_timestamp's macro: no argument (now), a timestamp
// or date, or a string in yyyy-MM-dd HH:mm:ss or the given pattern.
const unixTimestamp = `() AS CAST(floor(epoch(current_timestamp)) AS BIGINT),
	(x) AS CAST(floor(epoch(CASE WHEN typeof(x) = 'VARCHAR' THEN strptime(CAST(x AS VARCHAR), '%Y-%m-%d %H:%M:%S')
		ELSE TRY_CAST(x AS TIMESTAMP) END)) AS BIGINT),
	(x, f) AS CAST(floor(epoch(CASE WHEN typeof(x) = 'VARCHAR' THEN strptime(CAST(x AS VARCHAR), thund_datetime_pattern(f))
		ELSE TRY_CAST(x AS TIMESTAMP) END)) AS BIGINT)`

// datetimePattern converts a Spark (Java DateTimeFormatter) pattern into a
// strftime format. The pattern is cut into tokens (a quoted literal, a run
// of one pattern letter, any other letter, or other text) and each token is
// mapped, so MM and mm, or letters inside quotes, never meet a replacement
// meant for another. A letter it does not support becomes an invalid
// strftime specifier whose text names the letter, so strftime fails saying
// so. It must stay foldable: strftime needs a constant format.
//
// The trailing p[1:0] is always the empty string. It keeps the result's type unknown
// while DuckDB checks a macro that calls this one at CREATE MACRO time
// (where p is a parameter, not a constant, and strftime would reject the
// format); at a call the whole expression folds to a constant string.
const datetimePattern = `(p) AS array_to_string(list_transform(
	regexp_extract_all(p, '''(?:[^'']|'''')*''|y+|M+|L+|d+|D+|H+|h+|m+|s+|S+|E+|a+|[A-Za-z]|[^A-Za-z'']+'),
	lambda t: CASE
		WHEN t = '''''' THEN ''''
		WHEN t[1] = '''' THEN replace(replace(t[2:-2], '''''', ''''), '%', '%%')
		WHEN t = 'yy' THEN '%y'
		WHEN t[1] = 'y' THEN '%Y'
		WHEN t IN ('M', 'L') THEN '%-m'
		WHEN t IN ('MM', 'LL') THEN '%m'
		WHEN t IN ('MMM', 'LLL') THEN '%b'
		WHEN t IN ('MMMM', 'LLLL') THEN '%B'
		WHEN t = 'd' THEN '%-d'
		WHEN t = 'dd' THEN '%d'
		WHEN t = 'D' THEN '%-j'
		WHEN t = 'DDD' THEN '%j'
		WHEN t = 'H' THEN '%-H'
		WHEN t = 'HH' THEN '%H'
		WHEN t = 'h' THEN '%-I'
		WHEN t = 'hh' THEN '%I'
		WHEN t = 'm' THEN '%-M'
		WHEN t = 'mm' THEN '%M'
		WHEN t = 's' THEN '%-S'
		WHEN t = 'ss' THEN '%S'
		WHEN t = 'SSS' THEN '%g'
		WHEN t = 'SSSSSS' THEN '%f'
		WHEN t = 'SSSSSSSSS' THEN '%n'
		WHEN t = 'a' THEN '%p'
		WHEN t IN ('E', 'EE', 'EEE') THEN '%a'
		WHEN t = 'EEEE' THEN '%A'
		WHEN regexp_matches(t, '^[A-Za-z]') THEN '%{Spark datetime pattern letter ' || t || ' is not supported by Thund (see docs/spark-compat.md)}'
		ELSE replace(replace(replace(t, '%', '%%'), '[', ''), ']', '') END), '') || p[1:0]`

// installCompat defines the Spark compatibility macros (CompatFunctions and
// their helper) in the session's main schema, where they shadow DuckDB's
// built-in functions of the same name for every connection.
func installCompat(ctx context.Context, conn *sql.Conn) error {
	stmts := make([]string, 0, len(CompatFunctions)+1)
	stmts = append(stmts, "CREATE OR REPLACE MACRO thund_datetime_pattern"+datetimePattern)
	for _, f := range CompatFunctions {
		stmts = append(stmts, "CREATE OR REPLACE MACRO "+f.Name+f.macro)
	}
	for _, m := range stmts {
		if _, err := conn.ExecContext(ctx, m); err != nil {
			return fmt.Errorf("%.60s...: %w", m, err)
		}
	}
	return installTranslate(ctx, conn)
}

// InstallSparkSQL defines, on conn, the functions a translated Spark SQL
// query calls (the compatibility macros and the translator's helpers), as
// a native run's session does. Package analysis/sparksql/conformance runs
// Spark's SQL test corpus on such a connection.
func InstallSparkSQL(ctx context.Context, conn *sql.Conn) error { return installCompat(ctx, conn) }

// SparkMacroNames returns the functions InstallSparkSQL defines as
// macros with Spark's meaning, for translate.Options.Macros.
func SparkMacroNames() map[string]bool {
	m := make(map[string]bool, len(compatNames))
	for k := range compatNames {
		m[k] = true
	}
	return m
}

// NativeSQLEnv names the environment variable that selects how batch
// flows written in Spark SQL run natively: unset (or "translate") runs
// the translation of package engine/translate; "text" runs the query text
// after the small textual rewrites of analysis (Query.Normalized) and the
// macros above, as Thund did before the translator.
const NativeSQLEnv = "THUND_NATIVE_SQL"

// translating reports whether batch flows run through the translator.
func translating() bool {
	v := os.Getenv(NativeSQLEnv)
	return v == "" || v == "translate"
}

// compatNames are the functions installCompat defines, which the
// translator passes through to the macros when it has no mapping of its
// own.
var compatNames = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range CompatFunctions {
		m[f.Name] = true
	}
	return m
}()

// installTranslate defines the helper macros translated queries call.
func installTranslate(ctx context.Context, conn *sql.Conn) error {
	for _, m := range translate.Macros() {
		if _, err := conn.ExecContext(ctx, m); err != nil {
			return fmt.Errorf("%.60s...: %w", m, err)
		}
	}
	return nil
}

// translatedQuery is a flow's query as the translator wrote it.
type translatedQuery struct {
	res  *translate.Result
	flow *ir.Flow
	root string
}

// prepare returns the DuckDB query a batch flow runs: the translation of
// its Spark SQL, or the normalized text for a query in DuckDB's dialect
// (and when NativeSQLEnv says "text"). A construct the translator refuses
// fails the flow before anything runs, at its range in the user's file.
func (st *runState) prepare(ctx context.Context, f *ir.Flow) (string, *translatedQuery, error) {
	q, tq, err := st.prepareQuery(ctx, f)
	if err == nil && tq == nil && q == f.Normalized {
		// The text reads each table by the last part of its name.
		if err := st.textReads(f); err != nil {
			return "", nil, err
		}
	}
	return q, tq, err
}

// prepareQuery is prepare before the check of a text's reads.
func (st *runState) prepareQuery(ctx context.Context, f *ir.Flow) (string, *translatedQuery, error) {
	if !translating() || f.Dialect == "duckdb" || strings.TrimSpace(f.SQL) == "" {
		return f.Normalized, nil, nil
	}
	cat := &duckCatalog{ctx: ctx, conn: st.conn, cols: map[string][]sema.Column{}, run: st, use: f.Use}
	res := translate.TranslateText(f.SQL, translate.Options{
		// The grammar the analysis read the pipeline with (sqlfront):
		// Spark 4.3's, so QUALIFY and the other 4.2+ forms translate
		// (the capability checks say which backends refuse them).
		Version: sparkparser.Spark43,
		Catalog: cat,
		Macros:  compatNames,
		Relation: func(parts []string) string {
			return quoteIdent(st.relationOfIn(parts, f.Use))
		},
		DuckDBOnly: duckDBOnly,
		Vars:       st.p.Configuration,
		TimeType:   strings.EqualFold(st.p.Configuration["spark.sql.timeType.enabled"], "true"),
		// A TIMESTAMP_NTZ output column keeps Spark's type for its
		// readers through st.typed (duckCatalog.Table).
		TypedColumns: true,
	})
	if len(res.Findings) == 0 {
		st.noteTypes(f.Target, res.Columns)
	}
	tq := &translatedQuery{res: res, flow: f, root: st.s.Root}
	if len(res.Findings) > 0 {
		fd := res.Findings[0]
		written := false
		for _, x := range res.Findings {
			if x.Code == translate.CodeDuckDBOnly {
				written = true
			}
			if x.Code == translate.CodeTypeError {
				// Spark's analyzer rejects it: fail as Spark would,
				// at the user's expression.
				return "", nil, &flowError{f.Name, fmt.Errorf("%s: %s: %s [%s]", tq.where(x.Range), f.Name, x.Message, x.Code)}
			}
		}
		if fd.Code != translate.CodeNotPortable || written {
			// Thund's Spark parser does not read it, or it calls DuckDB's
			// own functions (analysis warns not-portable-to-spark): it
			// was written for DuckDB, so run the text as before.
			return f.Normalized, nil, nil
		}
		return "", nil, &flowError{f.Name, fmt.Errorf("%s: %s: %s [%s]", tq.where(fd.Range), f.Name, fd.Message, fd.Code)}
	}
	return res.SQL, tq, nil
}

// noteTypes records the Spark types a translation gave the output columns
// of target, when one of them is a type DuckDB does not tell apart
// (TIMESTAMP_NTZ, held as a TIMESTAMP).
func (st *runState) noteTypes(target string, cols []*translate.Type) {
	ntz := false
	for _, c := range cols {
		ntz = ntz || (c != nil && c.HasTimestampNTZ())
	}
	if !ntz {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.typed == nil {
		st.typed = map[string][]*translate.Type{}
	}
	st.typed[strings.ToLower(st.rel(target))] = cols
}

// withTypes gives the described columns of relation key (lower case) the
// Spark types its flow's translation recorded (noteTypes): a column that
// holds a TIMESTAMP_NTZ there is of that type, not DuckDB's TIMESTAMP.
func (st *runState) withTypes(key string, cols []sema.Column) []sema.Column {
	st.mu.Lock()
	typed := st.typed[key]
	st.mu.Unlock()
	if len(typed) != len(cols) {
		return cols
	}
	out := append([]sema.Column(nil), cols...)
	for i, ty := range typed {
		if ty != nil && ty.HasTimestampNTZ() {
			out[i].Type = ty.String()
		}
	}
	return out
}

// batchQuery is the DuckDB query a batch flow runs (prepare), or the
// normalized text of a streaming or CDC flow or one prepare refuses.
func (st *runState) batchQuery(ctx context.Context, f *ir.Flow) string {
	if f.Streaming || f.CDC != nil {
		return f.Normalized
	}
	if q, _, err := st.prepare(ctx, f); err == nil {
		return q
	}
	return f.Normalized
}

// duckDBOnly reports a DuckDB function Spark lacks (analysis.NotPortable).
func duckDBOnly(name string, args int) bool {
	for _, d := range analysis.NotPortable {
		if d.Name == name && (d.MinArgs == 0 || args >= d.MinArgs) && !d.QuotedUnit {
			return true
		}
	}
	return false
}

// where is file:line:col of byte offset off of f's file.
func (st *runState) where(f *ir.Flow, off int) string {
	tq := &translatedQuery{flow: f, root: st.s.Root}
	return tq.where(ast.Range{Start: off - f.QueryLoc.Start, End: off - f.QueryLoc.Start})
}

// where is file:line:col of a range of the flow's query text.
func (tq *translatedQuery) where(r ast.Range) string {
	loc := tq.flow.QueryLoc
	path := loc.File
	text, err := os.ReadFile(path)
	if err != nil && !filepath.IsAbs(path) {
		text, err = os.ReadFile(filepath.Join(tq.root, path))
	}
	if err != nil {
		return path
	}
	pos := textpos.New(string(text)).Rune(loc.Start + r.Start)
	return fmt.Sprintf("%s:%d:%d", path, pos.Line+1, pos.Column+1)
}

// explain maps an error of stmt, which holds the translated query at
// offset at, to the user's expression in Spark's terms.
func (tq *translatedQuery) explain(err error, stmt string, at int) error {
	if tq == nil || err == nil {
		return explain(err)
	}
	if e := explain(err); e != err {
		return e // a limit or the sandbox, already in Thund's terms
	}
	msg, rng, ok := tq.res.ExplainIn(err.Error(), stmt, at)
	where := tq.where(ast.Range{})
	if ok {
		where = tq.where(rng)
	}
	return fmt.Errorf("%s: %s: %s", where, tq.flow.Name, sparkWords(msg))
}

// queryError is the error of a statement that holds a batch flow's query
// (the translation tq, or its text when tq is nil) at offset at: at the
// user's expression when the translation can tell, the flow named.
func queryError(f *ir.Flow, tq *translatedQuery, err error, stmt string, at int) error {
	if tq == nil {
		return &flowError{f.Name, fmt.Errorf("%s: %w", f.Name, explain(err))}
	}
	return &flowError{f.Name, tq.explain(err, stmt, at)}
}

// castRe finds DuckDB's message for a conversion it has no rule for.
var castRe = regexp.MustCompile(`Unimplemented type for cast \(([^()]*(?:\([^()]*\)[^()]*)*) -> ([^()]*(?:\([^()]*\)[^()]*)*)\)`)

// sparkWords rewrites what is left of DuckDB's wording in a message the
// translator passed through: type names become Spark's, and a helper of
// the translation is never named.
func sparkWords(msg string) string {
	if m := castRe.FindStringSubmatch(msg); m != nil {
		from, to := translate.SparkType(m[1]), translate.SparkType(m[2])
		if from == "" {
			from = m[1]
		}
		if to == "" {
			to = m[2]
		}
		msg = castRe.ReplaceAllLiteralString(msg, fmt.Sprintf("a value of type %s cannot be converted to %s natively; compare or combine values of the same type, or cast one explicitly", from, to))
	}
	msg = sparkConversion(msg)
	msg = sparkUnresolved(msg)
	if strings.Contains(msg, "__thund") {
		msg = internalRe.ReplaceAllString(msg, "(a helper of the translation)")
	}
	return msg
}

// castFieldRe finds DuckDB's message for a text that is not a date or a
// timestamp it can read: a field out of range ("2024-13-45", or the
// integer text "1567065491" read as a year), with DuckDB's expected
// format or the column cast from appended.
var castFieldRe = regexp.MustCompile(`(?:Conversion Error: )?(date|timestamp|time) field value out of range: "((?:[^"\\]|\\.)*)"(?:, expected format is \([^\n]*\)| when casting from source column \S+)?`)

// castDecimalRe finds DuckDB's message for a text that is not a decimal
// (it quotes the value with double quotes, unlike the other types).
var castDecimalRe = regexp.MustCompile(`(?:Conversion Error: )?Could not convert string "((?:[^"\\]|\\.)*)" to (DECIMAL\(\d+,\s*\d+\))(?: when casting from source column \S+)?`)

// sparkConversion rewrites DuckDB's messages for a text that does not
// convert to a date, timestamp or decimal as Spark's ANSI cast fails:
// CAST_INVALID_INPUT, naming the value and the type (checked on Spark
// 4.1.4: date_format('1567065491', 'yyyyMMdd') fails so).
func sparkConversion(msg string) string {
	if m := castFieldRe.FindStringSubmatch(msg); m != nil {
		to := strings.ToUpper(m[1])
		if to == "TIME" {
			to = "TIME(6)"
		}
		return castFieldRe.ReplaceAllLiteralString(msg, castInvalidInput(m[2], to))
	}
	if m := castDecimalRe.FindStringSubmatch(msg); m != nil {
		to := strings.ReplaceAll(m[2], " ", "")
		return castDecimalRe.ReplaceAllLiteralString(msg, castInvalidInput(m[1], to))
	}
	if m := castNumberRe.FindStringSubmatch(msg); m != nil {
		if to, ok := duckCastTypes[m[2]]; ok {
			return castNumberRe.ReplaceAllLiteralString(msg, castInvalidInput(strings.ReplaceAll(m[1], "''", "'"), to))
		}
	}
	return msg
}

// castNumberRe finds DuckDB's message for a text that is not a number or
// a boolean of the type it names (its physical type: INT32 for INT).
var castNumberRe = regexp.MustCompile(`(?:Conversion Error: )?Could not convert string '((?:[^']|'')*)' to ([A-Z0-9]+)(?: when casting from source column \S+)?`)

// duckCastTypes are Spark's names of the types DuckDB's conversion
// messages name.
var duckCastTypes = map[string]string{
	"INT8": "TINYINT", "INT16": "SMALLINT", "INT32": "INT", "INT64": "BIGINT",
	"TINYINT": "TINYINT", "SMALLINT": "SMALLINT", "INT": "INT", "INTEGER": "INT", "BIGINT": "BIGINT",
	"BOOL": "BOOLEAN", "BOOLEAN": "BOOLEAN", "FLOAT": "FLOAT", "DOUBLE": "DOUBLE",
}

// castInvalidInput is Spark's CAST_INVALID_INPUT message for a STRING
// value that does not convert to type to.
func castInvalidInput(value, to string) string {
	return "[CAST_INVALID_INPUT] The value '" + value + "' of the type \"STRING\" cannot be cast to \"" + to +
		"\" because it is malformed. Correct the value as per the syntax, or change its target type. " +
		"Use `try_cast` to tolerate malformed input and return NULL instead. SQLSTATE: 22018"
}

// unboundColumnRe finds DuckDB's binder message for a column no input
// has, unqualified (first form) or of a named table (second form), with
// the candidates DuckDB offers.
var unboundColumnRe = regexp.MustCompile(`(?s)(?:Binder Error: )?(?:Referenced column "((?:[^"]|"")*)" not found in FROM clause!|Table "((?:[^"]|"")*)" does not have a column named "((?:[^"]|"")*)")\s*(?:Candidate bindings:[ :]*((?:"(?:[^"]|"")*"(?:, )?)*))?`)

// unboundTableRe finds DuckDB's binder message for a qualifier that names
// no input of the query.
var unboundTableRe = regexp.MustCompile(`(?s)(?:Binder Error: )?Referenced table "((?:[^"]|"")*)" not found!\s*(?:Candidate tables: (?:"(?:[^"]|"")*"(?:, )?)*)?`)

// quotedRe finds one name of DuckDB's list of candidates.
var quotedRe = regexp.MustCompile(`"((?:[^"]|"")*)"`)

// sparkUnresolved rewrites DuckDB's binder messages for a column or a
// qualifier the query's inputs do not have as Spark's analyzer reports
// them: UNRESOLVED_COLUMN, with the nearest columns as the suggestion
// (DuckDB's candidates; a helper of the translation is never offered).
func sparkUnresolved(msg string) string {
	if m := unboundColumnRe.FindStringSubmatch(msg); m != nil {
		name, qual := backquote(m[1]), ""
		if m[1] == "" {
			// Spark qualifies the name and its suggestions as written.
			qual = backquote(strings.ReplaceAll(m[2], `""`, `"`)) + "."
			name = qual + backquote(m[3])
		}
		var sugg []string
		for _, c := range quotedRe.FindAllStringSubmatch(m[4], -1) {
			if c[1] != "" && !strings.Contains(c[1], "__thund") && !strings.HasPrefix(c[1], "unnamed_subquery") {
				sugg = append(sugg, qual+backquote(strings.ReplaceAll(c[1], `""`, `"`)))
			}
		}
		out := "[UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] A column, variable, or function parameter with name " + name + " cannot be resolved. SQLSTATE: 42703"
		if len(sugg) > 0 {
			out = "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with name " + name +
				" cannot be resolved. Did you mean one of the following? [" + strings.Join(sugg, ", ") + "]. SQLSTATE: 42703"
		}
		return strings.TrimSpace(unboundColumnRe.ReplaceAllLiteralString(msg, out))
	}
	if m := unboundTableRe.FindStringSubmatch(msg); m != nil {
		out := "[UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] A column, variable, or function parameter qualified by " +
			backquote(strings.ReplaceAll(m[1], `""`, `"`)) + " cannot be resolved: no input of the query is named so. SQLSTATE: 42703"
		return strings.TrimSpace(unboundTableRe.ReplaceAllLiteralString(msg, out))
	}
	return msg
}

// backquote writes a name as Spark quotes it in its messages.
func backquote(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// duckCatalog gives the translator the Spark types of the relations a
// query reads, from DuckDB's description of them.
type duckCatalog struct {
	ctx  context.Context
	conn *sql.Conn
	cols map[string][]sema.Column
	// run, when set, shares the descriptions of relations that exist
	// between the flows of one run (runState.described).
	run *runState
	// use is the USE CATALOG / USE SCHEMA scope the query was written
	// under, which a run's names are resolved in (relationOfIn).
	use ir.Scope
	// rels, without run, keeps the relations read apart as a run does
	// (relationsOf); its zero value reads each name's last part.
	rels relations
}

// Table implements sema.Catalog.
func (c *duckCatalog) Table(name []string) ([]sema.Column, bool) {
	if len(name) == 0 {
		return nil, false
	}
	rel := c.rels.read(name, c.use)
	if c.run != nil {
		rel = c.run.relationOfIn(name, c.use)
	}
	key := strings.ToLower(rel)
	if cols, ok := c.cols[key]; ok {
		return cols, cols != nil
	}
	if c.run != nil {
		c.run.mu.Lock()
		cols, ok := c.run.described[key]
		c.run.mu.Unlock()
		if ok {
			c.cols[key] = cols
			return cols, true
		}
	}
	rows, err := c.conn.QueryContext(c.ctx, "DESCRIBE SELECT * FROM "+quoteIdent(rel))
	if err != nil {
		c.cols[key] = nil
		return nil, false
	}
	defer rows.Close()
	var cols []sema.Column
	for rows.Next() {
		var n, t string
		var rest [4]sql.NullString
		if err := rows.Scan(&n, &t, &rest[0], &rest[1], &rest[2], &rest[3]); err != nil {
			c.cols[key] = nil
			return nil, false
		}
		cols = append(cols, sema.Column{Name: n, Type: translate.SparkType(t)})
	}
	if rows.Err() != nil {
		c.cols[key] = nil
		return nil, false
	}
	if c.run != nil {
		cols = c.run.withTypes(key, cols)
	}
	c.cols[key] = cols
	if c.run != nil {
		c.run.mu.Lock()
		if c.run.described == nil {
			c.run.described = map[string][]sema.Column{}
		}
		c.run.described[key] = cols
		c.run.mu.Unlock()
	}
	return cols, true
}
