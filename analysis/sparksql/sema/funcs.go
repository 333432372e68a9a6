package sema

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// IsAggregate reports whether name (a function name, any case) is one of
// Spark's built-in aggregate functions, the functions that make a query
// without GROUP BY an aggregation (Spark 4.1 to 4.3). Window-only
// functions (row_number, rank, lag, ...) are not aggregates.
func IsAggregate(name string) bool {
	return aggregates[strings.ToLower(name)]
}

// aggregates are Spark's built-in aggregate functions.
var aggregates = set(
	"any", "any_value", "approx_count_distinct", "approx_percentile", "approx_top_k",
	"approx_top_k_accumulate", "approx_top_k_combine", "array_agg", "avg",
	"bit_and", "bit_or", "bit_xor", "bitmap_and_agg", "bitmap_construct_agg", "bitmap_or_agg",
	"bool_and", "bool_or", "collect_list", "collect_set", "corr", "count", "count_if",
	"count_min_sketch", "covar_pop", "covar_samp", "every", "first", "first_value",
	"histogram_numeric", "hll_sketch_agg", "hll_union_agg",
	"kll_merge_agg_bigint", "kll_merge_agg_double", "kll_merge_agg_float",
	"kll_sketch_agg_bigint", "kll_sketch_agg_double", "kll_sketch_agg_float",
	"kurtosis", "last", "last_value", "listagg", "max", "max_by", "mean", "median", "min", "min_by",
	"mode", "percentile", "percentile_approx", "percentile_cont", "percentile_disc",
	"regr_avgx", "regr_avgy", "regr_count", "regr_intercept", "regr_r2", "regr_slope",
	"regr_sxx", "regr_sxy", "regr_syy", "schema_of_variant_agg", "skewness", "some",
	"std", "stddev", "stddev_pop", "stddev_samp", "string_agg", "sum",
	"theta_intersection_agg", "theta_sketch_agg", "theta_union_agg",
	"try_avg", "try_sum", "var_pop", "var_samp", "variance",
)

// scalars are built-in functions that are certainly not aggregates: the
// grouping check looks inside calls to them (and only them; a function it
// does not know may be a user-defined aggregate).
var scalars = set(
	// conditional and null handling
	"coalesce", "if", "iff", "ifnull", "nvl", "nvl2", "nullif", "nullifzero", "zeroifnull", "isnull",
	"isnotnull", "isnan", "nanvl", "assert_true", "raise_error", "greatest", "least", "equal_null",
	// casts
	"cast", "try_cast", "int", "bigint", "smallint", "tinyint", "double", "float", "decimal", "string",
	"boolean", "date", "timestamp", "binary", "typeof", "to_char", "to_varchar", "to_number",
	"try_to_number",
	// arithmetic and math
	"abs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "bin", "bround", "cbrt",
	"ceil", "ceiling", "conv", "cos", "cosh", "cot", "csc", "degrees", "e", "exp", "expm1",
	"factorial", "floor", "hex", "hypot", "ln", "log", "log10", "log1p", "log2", "mod", "negative",
	"pi", "pmod", "positive", "pow", "power", "radians", "rand", "randn", "random", "rint", "round",
	"sec", "sign", "signum", "sin", "sinh", "sqrt", "tan", "tanh", "try_add", "try_divide",
	"try_multiply", "try_subtract", "try_mod", "unhex", "width_bucket", "uniform", "randstr",
	"bit_count", "bit_get", "getbit", "shiftleft", "shiftright", "shiftrightunsigned", "div",
	// strings
	"ascii", "base64", "bit_length", "btrim", "char", "char_length", "character_length", "chr",
	"collate", "collation", "concat", "concat_ws", "contains", "decode", "elt", "encode",
	"endswith", "find_in_set", "format_number", "format_string", "initcap", "instr", "lcase",
	"left", "len", "length", "levenshtein", "locate", "lower", "lpad", "ltrim", "luhn_check",
	"mask", "md5", "octet_length", "overlay", "position", "printf", "regexp_count",
	"regexp_extract", "regexp_extract_all", "regexp_instr", "regexp_like", "regexp_replace",
	"regexp_substr", "repeat", "replace", "reverse", "right", "rpad", "rtrim", "sentences",
	"sha", "sha1", "sha2", "soundex", "space", "split", "split_part", "startswith", "substr",
	"substring", "substring_index", "to_binary", "try_to_binary", "translate", "trim", "ucase",
	"unbase64", "upper", "crc32", "hash", "xxhash64", "url_decode", "url_encode", "try_url_decode",
	"parse_url", "try_parse_url", "quote", "is_valid_utf8", "make_valid_utf8", "validate_utf8",
	"try_validate_utf8", "uuid", "like", "ilike", "rlike", "regexp",
	// dates and times
	"add_months", "convert_timezone", "curdate", "current_date", "current_time", "current_timestamp",
	"current_timezone", "date_add", "date_diff", "date_format", "date_from_unix_date", "date_part",
	"date_sub", "date_trunc", "dateadd", "datediff", "datepart", "day", "dayname", "dayofmonth",
	"dayofweek", "dayofyear", "extract", "from_unixtime", "from_utc_timestamp", "hour",
	"last_day", "localtimestamp", "make_date", "make_dt_interval", "make_interval",
	"make_time", "make_timestamp", "make_timestamp_ltz", "make_timestamp_ntz", "make_ym_interval",
	"minute", "month", "monthname", "months_between", "next_day", "now", "quarter", "second",
	"time_diff", "time_trunc", "timestamp_micros", "timestamp_millis", "timestamp_seconds",
	"timestampadd", "timestampdiff", "to_date", "to_time", "to_timestamp", "to_timestamp_ltz",
	"to_timestamp_ntz", "to_unix_timestamp", "to_utc_timestamp", "trunc", "try_make_interval",
	"try_make_timestamp", "try_make_timestamp_ltz", "try_make_timestamp_ntz", "try_to_date",
	"try_to_time", "try_to_timestamp", "unix_date", "unix_micros", "unix_millis", "unix_seconds",
	"unix_timestamp", "weekday", "weekofyear", "year", "window", "session_window", "window_time",
	// arrays, maps, structs and higher-order functions
	"aggregate", "array", "array_append", "array_compact", "array_contains", "array_distinct",
	"array_except", "array_insert", "array_intersect", "array_join", "array_max", "array_min",
	"array_position", "array_prepend", "array_remove", "array_repeat", "array_size", "array_sort",
	"array_union", "arrays_overlap", "arrays_zip", "cardinality", "element_at", "exists", "filter",
	"flatten", "forall", "get", "map", "map_concat", "map_contains_key", "map_entries", "map_filter",
	"map_from_arrays", "map_from_entries", "map_keys", "map_values", "map_zip_with", "named_struct",
	"reduce", "sequence", "shuffle", "size", "slice", "sort_array", "str_to_map", "struct",
	"transform", "transform_keys", "transform_values", "try_element_at", "zip_with",
	// JSON, CSV, XML and variant
	"from_csv", "from_json", "from_xml", "get_json_object", "json_array_length", "json_object_keys",
	"schema_of_csv", "schema_of_json", "schema_of_xml", "to_csv", "to_json", "to_xml",
	"is_variant_null", "parse_json", "try_parse_json", "schema_of_variant", "to_variant_object",
	"try_variant_get", "variant_get", "xpath", "xpath_boolean", "xpath_double", "xpath_float",
	"xpath_int", "xpath_long", "xpath_number", "xpath_short", "xpath_string",
	// misc
	"current_catalog", "current_database", "current_schema", "current_user", "user", "session_user",
	"input_file_name", "input_file_block_length", "input_file_block_start", "monotonically_increasing_id",
	"spark_partition_id", "version", "grouping", "grouping_id", "aes_encrypt", "aes_decrypt",
	"try_aes_decrypt", "bitmap_bit_position", "bitmap_bucket_number", "bitmap_count",
	"hll_sketch_estimate", "hll_union", "reflect", "java_method", "try_reflect",
)

// windowFuncs are the functions that only run over a window.
var windowFuncs = set("row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag",
	"lead", "nth_value")

// generators are the built-in generator functions, whose output in a
// select list or LATERAL VIEW is rows of new columns.
var generators = set("explode", "explode_outer", "posexplode", "posexplode_outer", "inline",
	"inline_outer", "stack", "json_tuple", "variant_explode", "variant_explode_outer")

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// isScalar reports whether name is a known non-aggregate built-in.
func isScalar(name string) bool { return scalars[name] }

// generatorCols returns the output column names of a generator or table
// function call as Spark names them, when the model knows them: range
// gives id; explode an array col, a map key and value; posexplode adds
// pos; stack(n, ...) col0, col1, ...; json_tuple c0, c1, ...
func (a *analyzer) generatorCols(c *ast.Call) ([]string, bool) {
	name, builtin := funcName(c.Name)
	if !builtin {
		return nil, false
	}
	var args []ast.Expr
	for _, x := range c.Args {
		if _, named := x.(*ast.NamedArg); named {
			// named arguments: the model does not map them
			return nil, false
		}
		args = append(args, x)
	}
	switch name {
	case "range":
		return []string{"id"}, true
	case "explode", "explode_outer", "posexplode", "posexplode_outer":
		if len(args) != 1 {
			return nil, false
		}
		var cols []string
		if strings.HasPrefix(name, "pos") {
			cols = []string{"pos"}
		}
		switch a.collectionKind(args[0]) {
		case "array":
			return append(cols, "col"), true
		case "map":
			return append(cols, "key", "value"), true
		}
	case "variant_explode", "variant_explode_outer":
		return []string{"pos", "key", "value"}, true
	case "json_tuple":
		if len(args) < 2 {
			return nil, false
		}
		cols := make([]string, len(args)-1)
		for i := range cols {
			cols[i] = "c" + strconv.Itoa(i)
		}
		return cols, true
	case "stack":
		if len(args) < 2 {
			return nil, false
		}
		l, ok := unparen(args[0]).(*ast.Literal)
		if !ok || l.Kind != ast.LitInteger {
			return nil, false
		}
		n, err := strconv.Atoi(l.Text)
		if err != nil || n < 1 || n > 1<<16 {
			return nil, false
		}
		k := (len(args) - 1 + n - 1) / n
		cols := make([]string, k)
		for i := range cols {
			cols[i] = "col" + strconv.Itoa(i)
		}
		return cols, true
	case "sql_keywords":
		return []string{"keyword", "reserved"}, true
	}
	return nil, false
}

// arrayFuncs and mapFuncs are functions that certainly return an array
// or a map.
var (
	arrayFuncs = set("array", "split", "sequence", "array_repeat", "array_distinct", "array_union",
		"array_except", "array_intersect", "array_remove", "array_compact", "array_append",
		"array_prepend", "array_insert", "flatten", "sort_array", "array_sort", "slice", "filter",
		"transform", "shuffle", "collect_list", "collect_set", "array_agg", "map_keys", "map_values",
		"map_entries", "arrays_zip", "regexp_extract_all", "sentences", "zip_with")
	mapFuncs = set("map", "map_from_arrays", "str_to_map", "map_from_entries", "map_concat",
		"map_filter", "transform_keys", "transform_values", "map_zip_with")
)

// collectionKind says whether x is certainly an array ("array") or a map
// ("map"), from the function producing it or a column's known type.
func (a *analyzer) collectionKind(x ast.Expr) string {
	switch x := unparen(x).(type) {
	case *ast.Call:
		name, builtin := funcName(x.Name)
		switch {
		case !builtin:
		case arrayFuncs[name]:
			return "array"
		case mapFuncs[name]:
			return "map"
		}
	case *ast.Cast:
		if x.Type != nil {
			switch x.Type.Name {
			case "ARRAY":
				return "array"
			case "MAP":
				return "map"
			}
		}
	case *ast.Column:
		if r := a.m.columns[x]; r != nil && r.Kind == RefColumn && r.NameParts == len(x.Parts) && r.typ != "" {
			t := strings.ToLower(strings.TrimSpace(r.typ))
			switch {
			case strings.HasPrefix(t, "array"):
				return "array"
			case strings.HasPrefix(t, "map"):
				return "map"
			}
		}
	}
	return ""
}
