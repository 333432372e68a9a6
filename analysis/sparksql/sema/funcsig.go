package sema

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// The function signatures: the number of arguments each of Spark's most
// used built-in functions takes, the types each argument may have (after
// the implicit casts Spark 4's ANSI type coercion inserts), and, where it
// is fixed, the type the function returns. Each fact was read off Spark
// 4.1.4 itself (a query per function and argument type, run on a Spark
// Connect server): what Spark refuses before running, with its wording,
// is what the check reports.
//
// Only what is certain is reported: an argument whose type the model does
// not know, NULL, a named argument, a call in a keyword form (TRIM(BOTH
// ...), SUBSTRING(... FROM ...)) and a qualified or user-defined function
// are never checked.

// Error classes of the signature checks.
const (
	// CodeWrongNumArgs is Spark's error for a built-in function called
	// with a number of arguments it does not take.
	CodeWrongNumArgs = "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"
)

func init() { Codes[CodeWrongNumArgs] = true }

// kinds is a set of type families (1 << kind).
type kinds uint16

func kset(ks ...kind) kinds {
	var s kinds
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

// The sets of families an argument may have.
var (
	// kAtomicSet: every type but ARRAY, MAP and STRUCT; Spark casts each
	// to STRING where a function wants one (upper(1) is "1").
	kAtomicSet = kset(kNumeric, kString, kBoolean, kDate, kTimestamp, kBinary, kInterval)
	// kNumberSet: a number, or a STRING Spark casts to one when it runs
	// (sqrt('4')); a TIMESTAMP (mean(ts) is mean(CAST(ts AS DOUBLE)) in
	// Spark's corpus) and an interval are left to Spark.
	kNumberSet = kset(kNumeric, kString, kTimestamp, kInterval)
	// kDateSet: DATE, TIMESTAMP, or a STRING cast to one.
	kDateSet = kset(kDate, kTimestamp, kString)
)

// param is what one argument of a function may be.
type param struct {
	// ok are the families Spark accepts.
	ok kinds
	// whole refuses a fractional number (DOUBLE, FLOAT, DECIMAL with a
	// scale): bit_and's input; narrow refuses any number wider than an
	// INT too (BIGINT): date_add's days, element_at's index.
	whole, narrow bool
	// want is Spark's name of the type required, as its message writes
	// it: "ARRAY", ("STRING" or "BINARY"), ...
	want string
}

// sig is a function's signature.
type sig struct {
	// min and max bound the number of arguments; max < 0 is any number.
	min, max int
	// params are the arguments' types; a function taking more arguments
	// than params has the last param for each of the rest (nil: none is
	// checked).
	params []param
	// ret is the type the function returns whatever its arguments, or "".
	ret string
}

// Parameters, by the type names Spark's messages give them.
var (
	pAny       = param{ok: ^kinds(0)}
	pArray     = param{ok: kset(kArray), want: `"ARRAY"`}
	pMap       = param{ok: kset(kMap), want: `"MAP"`}
	pArrayMap  = param{ok: kset(kArray, kMap), want: `("ARRAY" or "MAP")`}
	pString    = param{ok: kAtomicSet, want: `"STRING"`}
	pStrBin    = param{ok: kAtomicSet, want: `("STRING" or "BINARY")`}
	pStrArr    = param{ok: kAtomicSet | kset(kArray), want: `("STRING" or "ARRAY")`}
	pConcat    = param{ok: kAtomicSet | kset(kArray), want: `("STRING" or "BINARY" or "ARRAY")`}
	pStrings   = param{ok: kAtomicSet | kset(kArray), want: `("ARRAY<STRING>" or "STRING")`}
	pHex       = param{ok: kAtomicSet, want: `("BIGINT" or "BINARY" or "STRING")`}
	pStrOnly   = param{ok: kset(kString), want: `"STRING"`}
	pArrStr    = param{ok: kset(kArray), want: `"ARRAY<STRING>"`}
	pArrArr    = param{ok: kset(kArray), want: `"ARRAY" of "ARRAY"`}
	pArrStruct = param{ok: kset(kArray), want: `"ARRAY<STRUCT>"`}
	pEntries   = param{ok: kset(kArray), want: `"ARRAY" of pair "STRUCT"`}
	pDouble    = param{ok: kNumberSet, want: `"DOUBLE"`}
	pSignum    = param{ok: kNumberSet, want: `("DOUBLE" or "INTERVAL YEAR TO MONTH" or "INTERVAL DAY TO SECOND")`}
	pNumeric   = param{ok: kNumberSet, want: `"NUMERIC"`}
	pNumOnly   = param{ok: kset(kNumeric), want: `"NUMERIC"`}
	pSumAvg    = param{ok: kNumberSet, want: `"NUMERIC" or "ANSI INTERVAL"`}
	pAbs       = param{ok: kNumberSet, want: `("NUMERIC" or "INTERVAL DAY TO SECOND" or "INTERVAL YEAR TO MONTH")`}
	pNegate    = param{ok: kNumberSet, want: `("NUMERIC" or "INTERVAL DAY TO SECOND" or "INTERVAL YEAR TO MONTH" or "INTERVAL")`}
	pCeil      = param{ok: kNumberSet, want: `("DOUBLE" or "DECIMAL" or "BIGINT")`}
	pNaN       = param{ok: kNumberSet, want: `("DOUBLE" or "FLOAT")`}
	pSeed      = param{ok: kset(kNumeric), want: `("INT" or "BIGINT")`}
	pInt       = param{ok: kNumberSet, want: `"INT"`}
	pIntOnly   = param{ok: kset(kNumeric, kInterval), want: `"INT"`}
	pIndex     = param{ok: kset(kNumeric), narrow: true, want: `"INT"`}
	pBigint    = param{ok: kNumberSet, want: `"BIGINT"`}
	pIntegral  = param{ok: kNumberSet, whole: true, want: `"INTEGRAL"`}
	pDate      = param{ok: kDateSet, want: `"DATE"`}
	pTimestamp = param{ok: kDateSet, want: `"TIMESTAMP"`}
	pTime      = param{ok: kDateSet, want: `"(TIMESTAMP OR TIMESTAMP WITHOUT TIME ZONE)"`}
	pUnixTime  = param{ok: kDateSet, want: `("STRING" or "DATE" or "TIMESTAMP" or "TIMESTAMP_NTZ")`}
	pBoolean   = param{ok: kset(kBoolean), want: `"BOOLEAN"`}
	pBoolCast  = param{ok: kset(kBoolean, kString), want: `"BOOLEAN"`}
	pBinary    = param{ok: kset(kBinary, kString), want: `"BINARY"`}
)

// fsig builds a signature: min and max arguments, the return type and
// the parameters.
func fsig(min, max int, ret string, params ...param) sig {
	return sig{min: min, max: max, params: params, ret: ret}
}

// signatures are the checked functions, by lower-case name: Spark
// 4.1.4's signatures and wording; the same queries on Spark 4.3.0 get the
// same error classes (a few name more accepted types, and
// current_timestamp and now take a precision there).
var signatures = map[string]sig{
	// math
	"sqrt": fsig(1, 1, "DOUBLE", pDouble), "cbrt": fsig(1, 1, "DOUBLE", pDouble),
	"exp": fsig(1, 1, "DOUBLE", pDouble), "expm1": fsig(1, 1, "DOUBLE", pDouble),
	"ln": fsig(1, 1, "DOUBLE", pDouble), "log10": fsig(1, 1, "DOUBLE", pDouble),
	"log2": fsig(1, 1, "DOUBLE", pDouble), "log1p": fsig(1, 1, "DOUBLE", pDouble),
	"log": fsig(1, 2, "DOUBLE", pDouble, pDouble),
	"sin": fsig(1, 1, "DOUBLE", pDouble), "cos": fsig(1, 1, "DOUBLE", pDouble),
	"tan": fsig(1, 1, "DOUBLE", pDouble), "asin": fsig(1, 1, "DOUBLE", pDouble),
	"acos": fsig(1, 1, "DOUBLE", pDouble), "atan": fsig(1, 1, "DOUBLE", pDouble),
	"sinh": fsig(1, 1, "DOUBLE", pDouble), "cosh": fsig(1, 1, "DOUBLE", pDouble),
	"tanh": fsig(1, 1, "DOUBLE", pDouble), "cot": fsig(1, 1, "DOUBLE", pDouble),
	"degrees": fsig(1, 1, "DOUBLE", pDouble), "radians": fsig(1, 1, "DOUBLE", pDouble),
	"rint":   fsig(1, 1, "DOUBLE", pDouble),
	"signum": fsig(1, 1, "", pSignum), "sign": fsig(1, 1, "", pSignum),
	"pow": fsig(2, 2, "DOUBLE", pDouble, pDouble), "power": fsig(2, 2, "DOUBLE", pDouble, pDouble),
	"atan2": fsig(2, 2, "DOUBLE", pDouble, pDouble), "hypot": fsig(2, 2, "DOUBLE", pDouble, pDouble),
	"abs":      fsig(1, 1, "", pAbs),
	"negative": fsig(1, 1, "", pNegate), "positive": fsig(1, 1, ""), // +x: the translator's
	"ceil": fsig(1, 2, "", pCeil, pAny), "ceiling": fsig(1, 2, "", pCeil, pAny),
	"floor": fsig(1, 2, "", pCeil, pAny),
	"round": fsig(1, 2, "", pNumeric, pAny), "bround": fsig(1, 2, "", pNumeric, pAny),
	"mod": fsig(2, 2, ""), "pmod": fsig(2, 2, ""),
	"isnan": fsig(1, 1, "BOOLEAN", pNaN), "nanvl": fsig(2, 2, "", pNaN, pNaN),
	"pi": fsig(0, 0, "DOUBLE"), "e": fsig(0, 0, "DOUBLE"),
	"rand": fsig(0, 1, "DOUBLE", pSeed), "random": fsig(0, 1, "DOUBLE", pSeed),
	"randn":     fsig(0, 1, "DOUBLE", pSeed),
	"factorial": fsig(1, 1, "BIGINT", pInt),
	"bin":       fsig(1, 1, "STRING", pBigint), "hex": fsig(1, 1, "STRING", pHex),
	"unhex": fsig(1, 1, "BINARY", pString), "conv": fsig(3, 3, "STRING", pString, pInt, pInt),
	"format_number": fsig(2, 2, "STRING", pNumOnly, pAny),
	"greatest":      fsig(2, -1, ""), "least": fsig(2, -1, ""),
	// strings
	"upper": fsig(1, 1, "STRING", pString), "lower": fsig(1, 1, "STRING", pString),
	"ucase": fsig(1, 1, "STRING", pString), "lcase": fsig(1, 1, "STRING", pString),
	"initcap": fsig(1, 1, "STRING", pString),
	"ltrim":   fsig(1, 2, "STRING", pString, pString), "rtrim": fsig(1, 2, "STRING", pString, pString),
	"trim": fsig(1, 2, "STRING", pString, pString), "btrim": fsig(1, 2, "STRING", pString, pString),
	"length": fsig(1, 1, "INT", pStrBin), "char_length": fsig(1, 1, "INT", pStrBin),
	"character_length": fsig(1, 1, "INT", pStrBin), "len": fsig(1, 1, "INT", pStrBin),
	"bit_length": fsig(1, 1, "INT", pStrBin), "octet_length": fsig(1, 1, "INT", pStrBin),
	"substring": fsig(2, 3, "", pStrBin, pInt, pInt), "substr": fsig(2, 3, "", pStrBin, pInt, pInt),
	"left": fsig(2, 2, "", pStrBin, pInt), "right": fsig(2, 2, "", pString, pInt),
	"lpad": fsig(2, 3, "", pString, pInt, pAny), "rpad": fsig(2, 3, "", pString, pInt, pAny),
	"repeat":             fsig(2, 2, "STRING", pString, pInt),
	"space":              fsig(1, 1, "STRING", pInt),
	"replace":            fsig(2, 3, "STRING", pString, pString, pString),
	"translate":          fsig(3, 3, "STRING", pString, pString, pString),
	"instr":              fsig(2, 2, "INT", pString, pString),
	"locate":             fsig(2, 3, "INT", pString, pString, pInt),
	"find_in_set":        fsig(2, 2, "INT", pString, pString),
	"split":              fsig(2, 3, "ARRAY<STRING>", pString, pString, pInt),
	"split_part":         fsig(3, 3, "STRING", pString, pString, pInt),
	"substring_index":    fsig(3, 3, "STRING", pString, pString, pInt),
	"regexp_replace":     fsig(3, 4, "STRING", pString, pString, pString, pInt),
	"regexp_extract":     fsig(2, 3, "STRING", pString, pString, pInt),
	"regexp_extract_all": fsig(2, 3, "ARRAY<STRING>", pString, pString, pInt),
	"regexp_like":        fsig(2, 2, "BOOLEAN", pString, pString), "rlike": fsig(2, 2, "BOOLEAN", pString, pString),
	"regexp_count":  fsig(2, 2, "INT", pString, pString),
	"regexp_substr": fsig(2, 2, "STRING", pString, pString),
	"regexp_instr":  fsig(2, 3, "INT", pString, pString, pInt),
	"levenshtein":   fsig(2, 3, "INT", pString, pString, pInt),
	"ascii":         fsig(1, 1, "INT", pString), "soundex": fsig(1, 1, "STRING", pString),
	"chr": fsig(1, 1, "STRING", pBigint), "char": fsig(1, 1, "STRING", pBigint),
	"startswith": fsig(2, 2, "BOOLEAN", pString, pString), "endswith": fsig(2, 2, "BOOLEAN", pString, pString),
	"contains":      fsig(2, 2, "BOOLEAN", pString, pString),
	"reverse":       fsig(1, 1, "", pStrArr),
	"concat":        fsig(0, -1, "", pConcat),
	"concat_ws":     fsig(1, -1, "STRING", pString, pStrings),
	"format_string": fsig(1, -1, "STRING", pString, pAny), "printf": fsig(1, -1, "STRING", pString, pAny),
	"md5": fsig(1, 1, "STRING", pBinary), "sha1": fsig(1, 1, "STRING", pBinary),
	"sha": fsig(1, 1, "STRING", pBinary), "sha2": fsig(2, 2, "STRING", pBinary, pInt),
	"crc32": fsig(1, 1, "BIGINT", pBinary), "base64": fsig(1, 1, "STRING", pBinary),
	"unbase64":   fsig(1, 1, "BINARY", pString),
	"encode":     fsig(2, 2, "BINARY", pString, pString),
	"url_encode": fsig(1, 1, "STRING", pString), "url_decode": fsig(1, 1, "STRING", pString),
	"sentences":         fsig(1, 3, "", pString, pString, pString),
	"get_json_object":   fsig(2, 2, "STRING", pString, pString),
	"json_array_length": fsig(1, 1, "INT", pString),
	"from_json":         fsig(2, 3, "", pString, pAny, pAny),
	"str_to_map":        fsig(1, 3, "MAP<STRING, STRING>", pString, pString, pString),
	// dates and times
	"year": fsig(1, 1, "INT", pDate), "month": fsig(1, 1, "INT", pDate),
	"day": fsig(1, 1, "INT", pDate), "dayofmonth": fsig(1, 1, "INT", pDate),
	"dayofweek": fsig(1, 1, "INT", pDate), "dayofyear": fsig(1, 1, "INT", pDate),
	"quarter": fsig(1, 1, "INT", pDate), "weekday": fsig(1, 1, "INT", pDate),
	"weekofyear": fsig(1, 1, "INT", pDate), "last_day": fsig(1, 1, "DATE", pDate),
	"unix_date": fsig(1, 1, "INT", pDate), "date_from_unix_date": fsig(1, 1, "DATE", pInt),
	"hour": fsig(1, 1, "INT", pTime), "minute": fsig(1, 1, "INT", pTime),
	"second": fsig(1, 1, "INT", pTime),
	// the translator checks the days (engine/translate: dayCount), at the call
	"date_add": fsig(2, 2, "DATE", pDate, pAny), "date_sub": fsig(2, 2, "DATE", pDate, pAny),
	"datediff":           fsig(2, 2, "INT", pDate, pDate),
	"add_months":         fsig(2, 2, "DATE", pDate, pInt),
	"months_between":     fsig(2, 3, "DOUBLE", pTimestamp, pTimestamp, pAny),
	"next_day":           fsig(2, 2, "DATE", pDate, pString),
	"make_date":          fsig(3, 3, "DATE", pInt, pInt, pInt),
	"date_format":        fsig(2, 2, "STRING", pTimestamp, pString),
	"date_trunc":         fsig(2, 2, "TIMESTAMP", pString, pTimestamp),
	"trunc":              fsig(2, 2, "DATE", pDate, pString),
	"to_date":            fsig(1, 2, "DATE"),
	"to_timestamp":       fsig(1, 2, ""),
	"unix_timestamp":     fsig(0, 2, "BIGINT", pUnixTime, pString),
	"from_unixtime":      fsig(1, 2, "STRING", pBigint, pString),
	"to_utc_timestamp":   fsig(2, 2, "TIMESTAMP", pTimestamp, pString),
	"from_utc_timestamp": fsig(2, 2, "TIMESTAMP", pTimestamp, pString),
	"timestamp_seconds":  fsig(1, 1, "TIMESTAMP", pNumOnly),
	// Spark 4.3 takes a precision: current_timestamp(9), now(9)
	"current_date": fsig(0, 0, "DATE"), "current_timestamp": fsig(0, 1, ""),
	"now": fsig(0, 1, ""),
	// arrays and maps
	"array_contains": fsig(2, 2, "BOOLEAN", pArray, pAny),
	"array_position": fsig(2, 2, "BIGINT", pArray, pAny),
	"array_distinct": fsig(1, 1, "", pArray), "array_max": fsig(1, 1, "", pArray),
	"array_min": fsig(1, 1, "", pArray), "array_compact": fsig(1, 1, "", pArray),
	"array_append": fsig(2, 2, "", pArray, pAny), "array_prepend": fsig(2, 2, "", pArray, pAny),
	"array_join":   fsig(2, 3, "STRING", pArrStr, pStrOnly, pStrOnly),
	"array_repeat": fsig(2, 2, "", pAny, pIntOnly),
	"array_sort":   fsig(1, 2, "", pArray, pAny),
	"sort_array":   fsig(1, 2, "", pArray, pBoolean),
	"array_size":   fsig(1, 1, "INT", pArray),
	"slice":        fsig(3, 3, "", pArray, pInt, pInt),
	"flatten":      fsig(1, 1, "", pArrArr),
	"arrays_zip":   fsig(0, -1, "", pArray),
	"exists":       fsig(2, 2, "BOOLEAN", pArray, pAny), "forall": fsig(2, 2, "BOOLEAN", pArray, pAny),
	"filter": fsig(2, 2, "", pArray, pAny), "transform": fsig(2, 2, "", pArray, pAny),
	"aggregate": fsig(3, 4, "", pArray, pAny, pAny, pAny), "reduce": fsig(3, 4, "", pArray, pAny, pAny, pAny),
	"zip_with": fsig(3, 3, "", pArray, pArray, pAny),
	// checked by diffTypes: two arrays, an array and an element, a map
	// and a key
	"array_union": fsig(2, 2, ""), "array_intersect": fsig(2, 2, ""),
	"array_except": fsig(2, 2, ""), "arrays_overlap": fsig(2, 2, "BOOLEAN"),
	"array_remove": fsig(2, 2, ""), "map_contains_key": fsig(2, 2, "BOOLEAN"),
	"map_from_arrays": fsig(2, 2, "", pArray, pArray),
	"element_at":      fsig(2, 2, "", pArrayMap, pAny), "try_element_at": fsig(2, 2, "", pArrayMap, pAny),
	"size": fsig(1, 1, "INT", pArrayMap), "cardinality": fsig(1, 1, "INT", pArrayMap),
	"explode": fsig(0, 1, "", pArrayMap), "explode_outer": fsig(0, 1, "", pArrayMap),
	"posexplode": fsig(0, 1, "", pArrayMap), "posexplode_outer": fsig(0, 1, "", pArrayMap),
	"inline":   fsig(0, 1, "", pArrStruct),
	"map_keys": fsig(1, 1, "", pMap), "map_values": fsig(1, 1, "", pMap),
	"map_entries": fsig(1, 1, "", pMap), "map_from_entries": fsig(1, 1, "", pEntries),
	"map_filter": fsig(2, 2, "", pMap, pAny), "transform_keys": fsig(2, 2, "", pMap, pAny),
	"transform_values": fsig(2, 2, "", pMap, pAny),
	// aggregates
	"sum": fsig(1, 1, "", pSumAvg), "avg": fsig(1, 1, "", pSumAvg), "mean": fsig(1, 1, "", pSumAvg),
	"min": fsig(1, 1, ""), "max": fsig(1, 1, ""),
	"collect_list": fsig(1, 1, ""), "collect_set": fsig(1, 1, ""),
	"first": fsig(1, 2, ""), "last": fsig(1, 2, ""),
	"stddev": fsig(1, 1, "DOUBLE", pDouble), "stddev_pop": fsig(1, 1, "DOUBLE", pDouble),
	"stddev_samp": fsig(1, 1, "DOUBLE", pDouble), "variance": fsig(1, 1, "DOUBLE", pDouble),
	"var_pop": fsig(1, 1, "DOUBLE", pDouble), "var_samp": fsig(1, 1, "DOUBLE", pDouble),
	"skewness": fsig(1, 1, "DOUBLE", pDouble), "kurtosis": fsig(1, 1, "DOUBLE", pDouble),
	"corr": fsig(2, 2, "DOUBLE", pDouble, pDouble), "covar_pop": fsig(2, 2, "DOUBLE", pDouble, pDouble),
	"covar_samp": fsig(2, 2, "DOUBLE", pDouble, pDouble),
	"percentile": fsig(2, 3, "", pAbs, pAny, pAny), "median": fsig(1, 1, "", pAbs),
	"bool_and": fsig(1, 1, "BOOLEAN", pBoolCast), "bool_or": fsig(1, 1, "BOOLEAN", pBoolCast),
	"every": fsig(1, 1, "BOOLEAN", pBoolCast), "count_if": fsig(1, 1, "BIGINT", pBoolCast),
	"bit_and": fsig(1, 1, "", pIntegral), "bit_or": fsig(1, 1, "", pIntegral),
	"bit_xor": fsig(1, 1, "", pIntegral),
	// conditional and null handling
	"if":       fsig(3, 3, "", pBoolean, pAny, pAny),
	"coalesce": fsig(1, -1, ""),
	"nvl":      fsig(2, 2, ""), "ifnull": fsig(2, 2, ""), "nullif": fsig(2, 2, ""),
	"nvl2": fsig(3, 3, ""),
}

// callSignature checks a call of a built-in function against its
// signature: the number of arguments (WRONG_NUM_ARGS) and the type of
// each argument whose type is certain (UNEXPECTED_INPUT_TYPE), at the
// argument, in Spark's words. It reports whether it found a mismatch.
func (a *analyzer) callSignature(x *ast.Call) bool {
	name, builtin := funcName(x.Name)
	if !builtin || x.Form != "" || len(x.Name.Parts) != 1 {
		return false
	}
	sg, ok := signatures[name]
	if !ok {
		return false
	}
	for _, arg := range x.Args {
		switch arg.(type) {
		case *ast.NamedArg, *ast.Star, *ast.TableArg:
			return false
		}
	}
	n := len(x.Args)
	if m, ok := duckDBForms[name]; ok && n >= m {
		// DuckDB's function of that name, which the analysis reports as
		// not portable to Spark (analysis/portable.go) and native runs
		return false
	}
	if n < sg.min || sg.max >= 0 && n > sg.max {
		a.report(Diagnostic{Range: x.Range, Code: CodeWrongNumArgs,
			Message: "The " + quote(name) + " requires " + arityText(sg) + " parameters but the actual number is " +
				strconv.Itoa(n) + ". Please, refer to 'https://spark.apache.org/docs/latest/sql-ref-functions.html' for a fix."})
		return true
	}
	if a.diffTypes(x, name) {
		return true
	}
	for i, arg := range x.Args {
		var p param
		switch {
		case i < len(sg.params):
			p = sg.params[i]
		case len(sg.params) > 0:
			p = sg.params[len(sg.params)-1]
		default:
			return false
		}
		if i == 1 && (name == "element_at" || name == "try_element_at") && a.argKind(x.Args[0]) == kArray {
			p = pIndex // a map's key is of the map's key type
		}
		if p.want == "" {
			continue
		}
		k := a.argKind(arg)
		if k == kUnknown || k == kNull {
			continue
		}
		t := a.sparkTypeOf(arg)
		bad := p.ok&(1<<k) == 0
		if !bad && k == kNumeric && (p.whole || p.narrow) && fractional(t) || p.narrow && wide(t) {
			bad = true
		}
		if !bad {
			continue
		}
		if t == "" {
			t = kindType[k]
		}
		a.report(Diagnostic{Range: arg.Span(), Code: CodeUnexpectedInputType,
			Message: "Cannot resolve " + dq(a.callText(x, name)) + " due to data type mismatch: The " + paramOrdinal(i) +
				" parameter requires the " + p.want + " type, however " + dq(a.argText(arg)) + " has the type " + dq(t) + "."})
		return true // Spark reports the first mismatch
	}
	return false
}

// The error classes of arguments that must have one type.
const (
	CodeBinaryArrayDiffTypes  = "DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES"
	CodeArrayFunctionDiffType = "DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES"
	CodeMapFunctionDiffTypes  = "DATATYPE_MISMATCH.MAP_FUNCTION_DIFF_TYPES"
)

func init() {
	for _, c := range []string{CodeBinaryArrayDiffTypes, CodeArrayFunctionDiffType, CodeMapFunctionDiffTypes} {
		Codes[c] = true
	}
}

// diffTypes checks the functions whose arguments must share a type, in
// the one case the model is sure of: an ARRAY, MAP or STRUCT beside an
// argument of another family (coalesce(arr, 1), concat(s, arr),
// array_union(arr, s), array_remove(s, 1), map_contains_key(arr, 1)), with
// every argument's type known. It reports at the call, as Spark does not
// say which argument.
func (a *analyzer) diffTypes(x *ast.Call, name string) bool {
	types := make([]string, len(x.Args))
	ks := make([]kind, len(x.Args))
	for i, arg := range x.Args {
		ks[i] = a.argKind(arg)
		if ks[i] == kUnknown || ks[i] == kNull {
			return false
		}
		if types[i] = a.sparkTypeOf(arg); types[i] == "" {
			return false
		}
	}
	complexKind := func(k kind) bool { return k == kArray || k == kMap || k == kStruct }
	mixed := func() bool {
		for i := range ks {
			for j := range ks {
				if ks[i] != ks[j] && (complexKind(ks[i]) || complexKind(ks[j])) {
					return true
				}
			}
		}
		return false
	}
	report := func(code, detail string) bool {
		a.report(Diagnostic{Range: x.Range, Code: code,
			Message: "Cannot resolve " + dq(a.callText(x, name)) + " due to data type mismatch: " + detail})
		return true
	}
	list := func(open, sep, close string) string {
		q := make([]string, len(types))
		for i, t := range types {
			q[i] = dq(t)
		}
		return open + strings.Join(q, sep) + close
	}
	switch name {
	case "coalesce", "nvl", "ifnull", "concat":
		if len(x.Args) >= 2 && mixed() {
			fn, text := name, a.callText(x, name)
			if name != "concat" {
				// Spark writes nvl and ifnull as the coalesce they are
				fn = "coalesce"
				if i := strings.IndexByte(text, '('); i > 0 {
					text = "coalesce" + text[i:]
				}
			}
			a.report(Diagnostic{Range: x.Range, Code: CodeDataDiffTypes,
				Message: "Cannot resolve " + dq(text) + " due to data type mismatch: Input to " + quote(fn) +
					" should all be the same type, but it's " + list("(", " or ", ")") + "."})
			return true
		}
	case "greatest", "least":
		if len(x.Args) >= 2 && mixed() {
			return report(CodeDataDiffTypes, "Input to "+quote(name)+" should all be the same type, but it's "+list("[", ", ", "]")+".")
		}
	case "array_union", "array_intersect", "array_except", "arrays_overlap":
		if ks[0] != kArray || ks[1] != kArray {
			return report(CodeBinaryArrayDiffTypes, "Input to function "+quote(name)+
				" should have been two \"ARRAY\" with same element type, but it's "+list("[", ", ", "]")+".")
		}
	case "array_remove":
		if ks[0] != kArray {
			return report(CodeArrayFunctionDiffType, "Input to "+quote(name)+
				" should have been \"ARRAY\" followed by a value with same element type, but it's "+list("[", ", ", "]")+".")
		}
	case "map_contains_key":
		if ks[0] != kMap {
			return report(CodeMapFunctionDiffTypes, "Input to "+quote(name)+
				" should have been \"MAP\" followed by a value with same key type, but it's "+list("[", ", ", "]")+".")
		}
	}
	return false
}

// duckDBForms are the calls of a Spark function name that are DuckDB's
// function of that name (from this many arguments): date_sub(part,
// start, end) is DuckDB's difference of two dates.
var duckDBForms = map[string]int{"date_sub": 3}

// kindType names a family as a type when the exact type is not known.
var kindType = [...]string{kNumeric: "NUMERIC", kString: "STRING", kBoolean: "BOOLEAN", kDate: "DATE",
	kTimestamp: "TIMESTAMP", kBinary: "BINARY", kArray: "ARRAY", kMap: "MAP", kStruct: "STRUCT", kInterval: "INTERVAL", kNull: "VOID", kUnknown: ""}

// arityText writes the numbers of arguments sg takes as Spark's
// WRONG_NUM_ARGS does: 2, [2, 3], > 0.
func arityText(sg sig) string {
	switch {
	case sg.max < 0:
		return "> " + strconv.Itoa(sg.min-1)
	case sg.min == sg.max:
		return strconv.Itoa(sg.min)
	}
	nums := make([]string, 0, sg.max-sg.min+1)
	for i := sg.min; i <= sg.max; i++ {
		nums = append(nums, strconv.Itoa(i))
	}
	return "[" + strings.Join(nums, ", ") + "]"
}

// paramOrdinal is Spark's word for the i-th (0-based) parameter.
func paramOrdinal(i int) string {
	switch i {
	case 0:
		return "first"
	case 1:
		return "second"
	case 2:
		return "third"
	}
	return strconv.Itoa(i+1) + "th"
}

// dq writes s in double quotes, as Spark's messages quote expressions
// and types.
func dq(s string) string { return `"` + s + `"` }

// callText is the call as written, or its name when the text is not
// known.
func (a *analyzer) callText(x *ast.Call, name string) string {
	if t := a.text(x); t != "" {
		return foldLines(t)
	}
	return name + "(...)"
}

// argText is an argument as Spark's messages print it: a literal by its
// value (1L is 1, 'x' is x), anything else as written (on one line), or
// "the argument".
func (a *analyzer) argText(x ast.Expr) string {
	if l, ok := x.(*ast.Literal); ok {
		switch {
		case l.Kind == ast.LitString && l.Str != nil:
			return foldLines(l.Str.Value)
		case l.Kind >= ast.LitInteger:
			return strings.TrimRight(l.Text, "LSYDFBlsydfb")
		}
	}
	if t := a.text(x); t != "" {
		return foldLines(t)
	}
	return "the argument"
}

// foldLines folds the whitespace of a multi-line text into single spaces.
func foldLines(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// argKind is the family of x's type: kindOf's answer, and for a call of
// a function with a fixed return type, that type's family.
func (a *analyzer) argKind(x ast.Expr) kind {
	if k := a.kindOf(x); k != kUnknown {
		return k
	}
	if c, ok := unparen(x).(*ast.Call); ok && c.Over == nil {
		if name, builtin := funcName(c.Name); builtin && len(c.Name.Parts) == 1 {
			if sg, ok := signatures[name]; ok && sg.ret != "" && a.arityOK(c, sg) {
				return typeKind(baseName(sg.ret))
			}
		}
	}
	return kUnknown
}

// arityOK reports whether c has a number of arguments sg takes.
func (a *analyzer) arityOK(c *ast.Call, sg sig) bool {
	n := len(c.Args)
	return n >= sg.min && (sg.max < 0 || n <= sg.max)
}

// baseName is a type name without its parameters: ARRAY<INT> -> ARRAY.
func baseName(t string) string {
	if i := strings.IndexAny(t, "<(: "); i > 0 {
		return t[:i]
	}
	return t
}

// fractional reports whether a numeric type name holds fractions.
func fractional(t string) bool {
	switch b := baseName(t); b {
	case "DOUBLE", "FLOAT":
		return true
	case "DECIMAL":
		return !strings.HasSuffix(t, ",0)")
	}
	return false
}

// wide reports whether a numeric type name is wider than an INT.
func wide(t string) bool { return t == "BIGINT" || baseName(t) == "DECIMAL" }

// sparkTypeOf is Spark's name of x's type (as its messages print it:
// INT, DECIMAL(2,1), ARRAY<INT>, MAP<STRING, INT>), or "" when the model
// is not sure of it.
func (a *analyzer) sparkTypeOf(x ast.Expr) string {
	switch x := unparen(x).(type) {
	case *ast.Literal:
		return literalType(x)
	case *ast.TypedLiteral:
		switch strings.ToUpper(x.Type) {
		case "DATE":
			return "DATE"
		case "TIMESTAMP", "TIMESTAMP_LTZ":
			return "TIMESTAMP"
		case "TIMESTAMP_NTZ":
			return "TIMESTAMP_NTZ"
		case "X":
			return "BINARY"
		}
	case *ast.Cast:
		return typeText(x.Type)
	case *ast.Column:
		if r := a.m.columns[x]; r != nil && r.Kind == RefColumn && !r.Tentative && r.NameParts == len(x.Parts) && r.typ != "" {
			return typeText(a.parseType(r.typ))
		}
	case *ast.Call:
		name, builtin := funcName(x.Name)
		if !builtin || x.Over != nil || len(x.Name.Parts) != 1 {
			return ""
		}
		switch name {
		case "array":
			if elem := a.commonType(x.Args); elem != "" {
				return "ARRAY<" + elem + ">"
			}
		case "map":
			if len(x.Args) > 0 && len(x.Args)%2 == 0 {
				var keys, vals []ast.Expr
				for i := 0; i < len(x.Args); i += 2 {
					keys, vals = append(keys, x.Args[i]), append(vals, x.Args[i+1])
				}
				if k, v := a.commonType(keys), a.commonType(vals); k != "" && v != "" {
					return "MAP<" + k + ", " + v + ">"
				}
			}
		}
		if sg, ok := signatures[name]; ok && sg.ret != "" && a.arityOK(x, sg) {
			return sg.ret
		}
	}
	return ""
}

// commonType is the type every one of xs has, or "".
func (a *analyzer) commonType(xs []ast.Expr) string {
	t := ""
	for i, x := range xs {
		u := a.sparkTypeOf(x)
		if u == "" || u == "VOID" || i > 0 && u != t {
			return ""
		}
		t = u
	}
	return t
}

// literalType is the type Spark gives a literal.
func literalType(l *ast.Literal) string {
	switch l.Kind {
	case ast.LitNull:
		return "VOID"
	case ast.LitTrue, ast.LitFalse:
		return "BOOLEAN"
	case ast.LitString:
		return "STRING"
	case ast.LitInteger:
		v, ok := new(big.Int).SetString(l.Text, 10)
		switch {
		case !ok:
			return ""
		case v.IsInt64() && v.Int64() <= 1<<31-1:
			return "INT"
		case v.IsInt64():
			return "BIGINT"
		}
		return decimalType(l.Text)
	case ast.LitBigInt:
		return "BIGINT"
	case ast.LitSmallInt:
		return "SMALLINT"
	case ast.LitTinyInt:
		return "TINYINT"
	case ast.LitDecimal:
		return decimalType(l.Text)
	case ast.LitBigDecimal:
		return decimalType(strings.TrimSuffix(strings.TrimSuffix(l.Text, "D"), "B"))
	case ast.LitExponent, ast.LitDouble:
		return "DOUBLE"
	case ast.LitFloat:
		return "FLOAT"
	}
	return ""
}

// decimalType is DECIMAL(p,s) of a decimal literal's digits (1.50 is
// DECIMAL(3,2), .5 DECIMAL(1,1)), or "" when it is not plain digits.
func decimalType(text string) string {
	text = strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(text), "D"), "B")
	intPart, frac, _ := strings.Cut(text, ".")
	for _, c := range intPart + frac {
		if c < '0' || c > '9' {
			return ""
		}
	}
	intPart = strings.TrimLeft(intPart, "0")
	p, sc := len(intPart)+len(frac), len(frac)
	if p == 0 {
		p = 1
	}
	if p > 38 {
		return ""
	}
	return "DECIMAL(" + strconv.Itoa(p) + "," + strconv.Itoa(sc) + ")"
}

// typeText writes a data type as Spark's messages do: INT, BIGINT,
// DECIMAL(10,2), ARRAY<INT>, MAP<STRING, INT>, STRUCT<a: INT>; "" for a
// type it does not know.
func typeText(dt *ast.DataType) string {
	if dt == nil {
		return ""
	}
	switch dt.Name {
	case "TINYINT", "BYTE":
		return "TINYINT"
	case "SMALLINT", "SHORT":
		return "SMALLINT"
	case "INT", "INTEGER":
		return "INT"
	case "BIGINT", "LONG":
		return "BIGINT"
	case "FLOAT", "REAL":
		return "FLOAT"
	case "DOUBLE":
		return "DOUBLE"
	case "DECIMAL", "DEC", "NUMERIC":
		switch len(dt.Params) {
		case 0:
			return "DECIMAL(10,0)"
		case 1:
			return "DECIMAL(" + strconv.Itoa(dt.Params[0]) + ",0)"
		}
		return "DECIMAL(" + strconv.Itoa(dt.Params[0]) + "," + strconv.Itoa(dt.Params[1]) + ")"
	case "STRING", "BOOLEAN", "DATE", "BINARY", "TIMESTAMP_NTZ", "VOID":
		return dt.Name
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		if strings.Contains(strings.ToUpper(dt.Qualifier), "WITHOUT") {
			return "TIMESTAMP_NTZ"
		}
		return "TIMESTAMP"
	case "ARRAY":
		if e := typeText(dt.Elem); e != "" {
			return "ARRAY<" + e + ">"
		}
	case "MAP":
		k, v := typeText(dt.Key), typeText(dt.Value)
		if k != "" && v != "" {
			return "MAP<" + k + ", " + v + ">"
		}
	case "STRUCT":
		fields := make([]string, 0, len(dt.Fields))
		for _, f := range dt.Fields {
			if f == nil || f.Name == nil {
				return ""
			}
			t := typeText(f.Type)
			if t == "" {
				return ""
			}
			if f.NotNull {
				t += " NOT NULL"
			}
			fields = append(fields, f.Name.Name+": "+t)
		}
		return "STRUCT<" + strings.Join(fields, ", ") + ">"
	}
	return ""
}
