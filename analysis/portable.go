package analysis

import (
	"fmt"
	"strings"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

// DuckDBOnly is a DuckDB function that Spark SQL does not have: a query
// calling it previews natively but fails on Spark.
type DuckDBOnly struct {
	// Name is the function's name, lower case.
	Name string
	// Spark is what to write instead in Spark SQL ("" when Spark has no
	// equivalent).
	Spark string
	// MinArgs, when set, limits the entry to calls with at least that many
	// arguments (DuckDB's date_sub(part, start, end) against Spark's
	// date_sub(start, days)).
	MinArgs int
	// QuotedUnit limits the entry to calls whose first argument is a quoted
	// string: DuckDB's date_diff('day', start, end), where Spark's
	// three-argument datediff takes the unit as a keyword (DAY).
	QuotedUnit bool
}

// SparkDiffers is a function both engines have under one name, with
// another meaning: a query calling it runs on both, but the native
// preview differs from a Spark run. Each was checked against a real Spark
// 4.1.4 server (the parity suite re-checks every Example).
type SparkDiffers struct {
	// Name is the function's name, lower case.
	Name string
	// Args, when set, limits the entry to calls with exactly that many
	// arguments (log(x) differs, log(base, x) does not).
	Args int
	// Differs says how the meanings differ.
	Differs string
	// Spark is what to write instead so both engines agree ("" when there
	// is no such spelling).
	Spark string
	// Example is a Spark SQL expression whose value differs between the
	// engines.
	Example string
}

// DiffersOnSpark lists the functions whose native meaning differs from
// Spark's for ordinary input; analysis warns at each call
// (not-portable-to-spark), and docs/spark-compat.md renders the list (a
// test keeps the two in step). Differences a call's name cannot reveal
// (CAST of a fraction to an integer, concat with a NULL argument, a
// separator with regular-expression characters in split) are documented
// there only.
var DiffersOnSpark = []SparkDiffers{
	{Name: "log", Args: 1, Differs: "natively the base-10 logarithm, on Spark the natural logarithm", Spark: "ln(x) or log10(x), which mean the same on both", Example: "log(8)"},
	{Name: "dayofweek", Differs: "natively 0 = Sunday ... 6 = Saturday, on Spark 1 = Sunday ... 7 = Saturday", Example: "dayofweek(DATE '2025-03-03')"},
	{Name: "weekday", Differs: "natively 0 = Sunday ... 6 = Saturday, on Spark 0 = Monday ... 6 = Sunday", Example: "weekday(DATE '2025-03-03')"},
	{Name: "dayname", Differs: "natively the full name (Monday), on Spark the short one (Mon)", Spark: "date_format(d, 'EEE') or date_format(d, 'EEEE')", Example: "dayname(DATE '2025-03-03')"},
	{Name: "monthname", Differs: "natively the full name (March), on Spark the short one (Mar)", Spark: "date_format(d, 'MMM') or date_format(d, 'MMMM')", Example: "monthname(DATE '2025-03-03')"},
	{Name: "typeof", Differs: "natively DuckDB's type names (INTEGER), on Spark Spark's (int)", Example: "typeof(1)"},
	{Name: "regexp_extract", Args: 2, Differs: "without a group index, natively the whole match, on Spark group 1", Spark: "regexp_extract(s, re, 1) for group 1, or regexp_extract(s, re, 0) for the whole match", Example: "regexp_extract('ab12', '([a-z]+)([0-9]+)')"},
	{Name: "regexp_replace", Args: 3, Differs: "natively only the first match is replaced, on Spark every match", Example: "regexp_replace('a-b-c', '-', '+')"},
	{Name: "hash", Differs: "another hash function (Spark's is 32-bit Murmur3, DuckDB's 64-bit)", Example: "hash('a')"},
	{Name: "array_distinct", Differs: "natively the elements come in no set order, on Spark in the order of their first occurrence", Spark: "sort_array(array_distinct(arr)) when the order does not matter", Example: "array_distinct(sequence(1, 3))"},
}

// NotPortable lists the DuckDB functions Spark SQL 4.1 lacks, each with
// its Spark spelling. It is deliberately conservative: a name is listed
// only when Spark certainly has no function of that name, so a warning is
// never wrong; docs/spark-compat.md renders it (a test keeps the two in
// step).
var NotPortable = []DuckDBOnly{
	// Dates and times.
	{Name: "strftime", Spark: "date_format(ts, 'yyyy-MM-dd HH:mm:ss') (a Java datetime pattern)"},
	{Name: "strptime", Spark: "to_timestamp(str, 'yyyy-MM-dd HH:mm:ss') (a Java datetime pattern)"},
	{Name: "try_strptime", Spark: "try_to_timestamp(str, 'yyyy-MM-dd HH:mm:ss')"},
	{Name: "epoch", Spark: "unix_timestamp(ts)"},
	{Name: "epoch_ms", Spark: "unix_millis(ts)"},
	{Name: "epoch_us", Spark: "unix_micros(ts)"},
	{Name: "epoch_ns"},
	{Name: "time_bucket", Spark: "date_trunc(unit, ts), or window(ts, '5 minutes') in a streaming aggregate"},
	{Name: "age", Spark: "datediff(end, start) or months_between(end, start)"},
	{Name: "today", Spark: "current_date()"},
	{Name: "isodow", Spark: "extract(DAYOFWEEK_ISO FROM ts)"},
	{Name: "isoyear", Spark: "extract(YEAROFWEEK FROM ts)"},
	{Name: "to_days", Spark: "make_interval(0, 0, 0, n) or INTERVAL n DAYS"},
	{Name: "to_hours", Spark: "make_interval(0, 0, 0, 0, n) or INTERVAL n HOURS"},
	{Name: "to_minutes", Spark: "make_interval(0, 0, 0, 0, 0, n) or INTERVAL n MINUTES"},
	{Name: "to_seconds", Spark: "make_interval(0, 0, 0, 0, 0, 0, n) or INTERVAL n SECONDS"},
	{Name: "to_weeks", Spark: "make_interval(0, 0, n) or INTERVAL n WEEKS"},
	{Name: "to_months", Spark: "make_interval(0, n) or INTERVAL n MONTHS"},
	{Name: "to_years", Spark: "make_interval(n) or INTERVAL n YEARS"},
	{Name: "datesub", Spark: "timestampdiff(UNIT, start, end)"},
	{Name: "date_sub", MinArgs: 3, Spark: "timestampdiff(UNIT, start, end) (Spark's date_sub(start, days) subtracts days)"},
	{Name: "date_diff", QuotedUnit: true, Spark: "datediff(end, start) for days (Thund maps it), or timestampdiff(UNIT, start, end) with the unit as a keyword"},
	{Name: "datediff", QuotedUnit: true, Spark: "datediff(end, start) for days (Thund maps it), or timestampdiff(UNIT, start, end) with the unit as a keyword"},

	// Lists.
	{Name: "list", Spark: "collect_list(x)"},
	{Name: "list_value", Spark: "array(...)"},
	{Name: "array_value", Spark: "array(...)"},
	{Name: "list_contains", Spark: "array_contains(arr, x)"},
	{Name: "list_has", Spark: "array_contains(arr, x)"},
	{Name: "array_has", Spark: "array_contains(arr, x)"},
	{Name: "list_has_any", Spark: "arrays_overlap(a, b)"},
	{Name: "array_has_any", Spark: "arrays_overlap(a, b)"},
	{Name: "list_has_all", Spark: "size(array_except(b, a)) = 0"},
	{Name: "array_has_all", Spark: "size(array_except(b, a)) = 0"},
	{Name: "list_distinct", Spark: "array_distinct(arr)"},
	{Name: "list_sort", Spark: "array_sort(arr) or sort_array(arr)"},
	{Name: "list_reverse_sort", Spark: "sort_array(arr, false)"},
	{Name: "list_transform", Spark: "transform(arr, x -> ...)"},
	{Name: "array_transform", Spark: "transform(arr, x -> ...)"},
	{Name: "list_apply", Spark: "transform(arr, x -> ...)"},
	{Name: "array_apply", Spark: "transform(arr, x -> ...)"},
	{Name: "apply", Spark: "transform(arr, x -> ...)"},
	{Name: "list_filter", Spark: "filter(arr, x -> ...)"},
	{Name: "array_filter", Spark: "filter(arr, x -> ...)"},
	{Name: "list_reduce", Spark: "aggregate(arr, start, (acc, x) -> ...)"},
	{Name: "array_reduce", Spark: "aggregate(arr, start, (acc, x) -> ...)"},
	{Name: "list_aggregate", Spark: "aggregate(arr, start, (acc, x) -> ...), or array_max/array_min"},
	{Name: "list_aggr", Spark: "aggregate(arr, start, (acc, x) -> ...), or array_max/array_min"},
	{Name: "list_concat", Spark: "concat(a, b)"},
	{Name: "list_cat", Spark: "concat(a, b)"},
	{Name: "array_cat", Spark: "concat(a, b)"},
	{Name: "array_concat", Spark: "concat(a, b)"},
	{Name: "list_slice", Spark: "slice(arr, start, length)"},
	{Name: "array_slice", Spark: "slice(arr, start, length)"},
	{Name: "list_extract", Spark: "element_at(arr, i) or arr[i - 1]"},
	{Name: "list_element", Spark: "element_at(arr, i) or arr[i - 1]"},
	{Name: "array_extract", Spark: "element_at(arr, i) or arr[i - 1]"},
	{Name: "list_position", Spark: "array_position(arr, x)"},
	{Name: "list_indexof", Spark: "array_position(arr, x)"},
	{Name: "array_indexof", Spark: "array_position(arr, x)"},
	{Name: "list_reverse", Spark: "reverse(arr)"},
	{Name: "array_reverse", Spark: "reverse(arr)"},
	{Name: "list_max", Spark: "array_max(arr)"},
	{Name: "list_min", Spark: "array_min(arr)"},
	{Name: "array_length", Spark: "size(arr) or array_size(arr)"},
	{Name: "array_to_string", Spark: "array_join(arr, sep)"},
	{Name: "unnest", Spark: "explode(arr)"},
	{Name: "generate_series", Spark: "sequence(start, stop[, step])"},

	// Strings.
	{Name: "string_split", Spark: "split(str, regex)"},
	{Name: "str_split", Spark: "split(str, regex)"},
	{Name: "string_to_array", Spark: "split(str, regex)"},
	{Name: "string_split_regex", Spark: "split(str, regex)"},
	{Name: "regexp_split_to_array", Spark: "split(str, regex)"},
	{Name: "regexp_matches", Spark: "regexp_like(str, regex) or str RLIKE regex"},
	{Name: "regexp_full_match", Spark: "regexp_like(str, '^(?:regex)$')"},
	{Name: "strpos", Spark: "instr(str, substr)"},
	{Name: "strlen", Spark: "octet_length(str)"},
	{Name: "prefix", Spark: "startswith(str, prefix)"},
	{Name: "suffix", Spark: "endswith(str, suffix)"},
	{Name: "group_concat", Spark: "concat_ws(',', collect_list(x))"},
	{Name: "sha256", Spark: "sha2(x, 256)"},

	// Structs, maps and JSON.
	{Name: "struct_pack", Spark: "named_struct('a', x, ...) or struct(x AS a, ...)"},
	{Name: "struct_extract", Spark: "s.field"},
	{Name: "map_extract", Spark: "element_at(map, key) or map[key]"},
	{Name: "json_extract", Spark: "get_json_object(json, '$.path')"},
	{Name: "json_extract_string", Spark: "get_json_object(json, '$.path')"},

	// Aggregates.
	{Name: "arg_max", Spark: "max_by(x, y)"},
	{Name: "argmax", Spark: "max_by(x, y)"},
	{Name: "arg_min", Spark: "min_by(x, y)"},
	{Name: "argmin", Spark: "min_by(x, y)"},
	{Name: "quantile", Spark: "percentile(x, p)"},
	{Name: "quantile_cont", Spark: "percentile(x, p) or percentile_cont(p) WITHIN GROUP (ORDER BY x)"},
	{Name: "quantile_disc", Spark: "percentile_disc(p) WITHIN GROUP (ORDER BY x)"},
	{Name: "approx_quantile", Spark: "percentile_approx(x, p)"},
	{Name: "fsum", Spark: "sum(x)"},
	{Name: "sumkahan", Spark: "sum(x)"},
	{Name: "kahan_sum", Spark: "sum(x)"},
	{Name: "favg", Spark: "avg(x)"},
	{Name: "histogram"},

	// Reading files in SQL.
	{Name: "read_csv", Spark: fileRead},
	{Name: "read_csv_auto", Spark: fileRead},
	{Name: "read_parquet", Spark: fileRead},
	{Name: "parquet_scan", Spark: fileRead},
	{Name: "read_json", Spark: fileRead},
	{Name: "read_json_auto", Spark: fileRead},
	{Name: "read_ndjson", Spark: fileRead},
	{Name: "read_ndjson_auto", Spark: fileRead},
	{Name: "read_json_objects", Spark: fileRead},
	{Name: "read_text", Spark: fileRead},
	{Name: "read_blob", Spark: fileRead},
	{Name: "glob"},
	{Name: "sniff_csv"},
}

const fileRead = "read the table by name and bind a sample to it (samples/NAME.csv), or Spark's csv.`path` / parquet.`path`"

// notPortable indexes NotPortable by name.
var notPortable = func() map[string]DuckDBOnly {
	m := make(map[string]DuckDBOnly, len(NotPortable))
	for _, f := range NotPortable {
		m[f.Name] = f
	}
	return m
}()

// differsOnSpark indexes DiffersOnSpark by name.
var differsOnSpark = func() map[string]SparkDiffers {
	m := make(map[string]SparkDiffers, len(DiffersOnSpark))
	for _, f := range DiffersOnSpark {
		m[f.Name] = f
	}
	return m
}()

// noteFuncs remembers a flow's function calls for the portability check.
func (res *fileResult) noteFuncs(f *ir.Flow, q *sqlfront.Query) {
	if q == nil {
		return
	}
	// A query Thund's Spark parser read runs natively through the
	// translator, with Spark's meaning: a "double-quoted" string is a
	// string and log, dayofweek, regexp_replace, ... compute what Spark
	// computes, so only DuckDB's own functions are left to warn about.
	// Streaming and CDC flows run their translation too.
	asWritten := q.Spark == nil
	for _, sp := range q.DoubleQuoted {
		if !asWritten {
			break
		}
		if res.funcs == nil {
			res.funcs = map[*ir.Flow][]unportableCall{}
		}
		name := res.text[sp.Start:sp.End]
		res.funcs[f] = append(res.funcs[f], unportableCall{call: sqlfront.FuncRef{Name: name, Loc: ir.Loc{File: res.path, Start: sp.Start, End: sp.End}}, quoted: true})
	}
	// Only the calls a rule matches are kept: the check depends on the
	// file alone, so it runs once per file text, not on every snapshot.
	for _, c := range q.Funcs {
		name := strings.ToLower(lastSegment(c.Name))
		if d, ok := differsOnSpark[name]; ok && asWritten && (d.Args == 0 || c.Args == d.Args) {
			if res.funcs == nil {
				res.funcs = map[*ir.Flow][]unportableCall{}
			}
			res.funcs[f] = append(res.funcs[f], unportableCall{call: c, differs: &d})
			continue
		}
		rule, ok := notPortable[name]
		if !ok && q.Spark != nil && unknownFunction(c.Name) {
			if res.funcs == nil {
				res.funcs = map[*ir.Flow][]unportableCall{}
			}
			res.funcs[f] = append(res.funcs[f], unportableCall{call: c, unknown: true})
			continue
		}
		if !ok || c.Args < rule.MinArgs || rule.QuotedUnit && !(c.Args == 3 && quotedFirstArg(res.text, c.Loc.End)) {
			continue
		}
		if res.funcs == nil {
			res.funcs = map[*ir.Flow][]unportableCall{}
		}
		res.funcs[f] = append(res.funcs[f], unportableCall{call: c, rule: rule})
	}
}

// unportableCall is a call to a DuckDB-only function, with its rule, or
// to a function whose meaning differs on Spark (differs set).
type unportableCall struct {
	call    sqlfront.FuncRef
	rule    DuckDBOnly
	differs *SparkDiffers
	// quoted marks a "double-quoted" name rather than a call.
	quoted bool
	// unknown marks a call of a function no Spark release has
	// (functions.go).
	unknown bool
}

// portability warns, once per Spark backend of the flow's dataset, about
// every call to a DuckDB function that Spark SQL lacks, or that means
// something else on Spark (ir.CodeNotPortable), at the function's name.
func portability(p *ir.Pipeline, results []*fileResult) []ir.Diagnostic {
	var out []ir.Diagnostic
	python := false
	for _, r := range results {
		python = python || strings.HasSuffix(r.path, ".py")
	}
	for _, r := range results {
		for f, calls := range r.funcs {
			var rest []unportableCall
			for _, c := range calls {
				if !c.unknown {
					rest = append(rest, c)
				} else if d, ok := unknownFunctionDiag(p.Backends, c.call, python); ok {
					out = append(out, d)
				}
			}
			calls = rest
			backends := p.Backends
			if d := p.Dataset(f.Target); d != nil {
				backends = capab.Backends(p.Backends, d)
			}
			for _, b := range backends {
				if b == ir.Native {
					continue
				}
				for _, c := range calls {
					out = append(out, ir.Diagnostic{
						Loc: c.call.Loc, Severity: ir.Warning, Code: ir.CodeNotPortable, Backend: b,
						Message: c.message(b),
					})
				}
			}
		}
	}
	return out
}

func (c unportableCall) message(b ir.Backend) string {
	if c.quoted {
		inner := strings.ReplaceAll(strings.Trim(c.call.Name, `"`), `""`, `"`)
		return fmt.Sprintf("%s is a name natively but a string literal on %s (Spark SQL quotes names with backticks), so the results differ without an error: write `%s`", c.call.Name, b, inner)
	}
	if d := c.differs; d != nil {
		msg := fmt.Sprintf("%s means something else natively than on %s (%s), so the preview differs from a Spark run", c.call.Name, b, d.Differs)
		if d.Spark != "" {
			msg += ": use " + d.Spark
		}
		return msg
	}
	return portabilityMessage(c.call.Name, c.rule, b)
}

func portabilityMessage(name string, rule DuckDBOnly, b ir.Backend) string {
	what := fmt.Sprintf("%s is a DuckDB function that Spark SQL does not have", name)
	switch {
	case rule.MinArgs > 0:
		what = fmt.Sprintf("%s with %d arguments is DuckDB's form, which Spark SQL does not have", name, rule.MinArgs)
	case rule.QuotedUnit:
		what = fmt.Sprintf("%s with a quoted unit is DuckDB's form, which Spark SQL rejects", name)
	}
	if rule.Spark == "" {
		return fmt.Sprintf("%s, so this query fails on %s: rewrite it with Spark SQL functions (docs/spark-compat.md lists the Spark functions Thund runs natively)", what, b)
	}
	return fmt.Sprintf("%s, so this query fails on %s: use %s", what, b, rule.Spark)
}

// quotedFirstArg reports whether the call whose name ends at off has a
// quoted string as its first argument: name ( 'unit', ...
func quotedFirstArg(text string, off int) bool {
	i := skipSpace(text, off)
	if i >= len(text) || text[i] != '(' {
		return false
	}
	i = skipSpace(text, i+1)
	return i < len(text) && text[i] == '\''
}

func skipSpace(text string, i int) int {
	for i < len(text) && strings.IndexByte(" \t\r\n", text[i]) >= 0 {
		i++
	}
	return i
}
