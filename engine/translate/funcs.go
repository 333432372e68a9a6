package translate

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
)

// Function is one Spark function the translator knows: how it runs
// natively, or why it does not.
type Function struct {
	// Name is Spark's name; Aliases are the other names of the same
	// function.
	Name    string
	Aliases []string
	// DuckDB says what runs natively.
	DuckDB string
	// Refused, when set, says why the function does not run natively:
	// every call is a not-portable finding with this reason.
	Refused string
	// Agg marks an aggregate function.
	Agg bool

	// fn translates a call from its translated arguments; nil passes
	// the call through under DuckDB's name (DuckDB, up to "(").
	fn  func(t *tr, c *ast.Call, a []frag) frag
	ret func(a []frag) *Type
	// doubleArgs casts string arguments to DOUBLE first.
	doubleArgs bool
}

// Functions lists the functions the translator knows, by name.
func Functions() []Function {
	out := make([]Function, len(functions))
	copy(out, functions)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

var funcIndex = map[string]*Function{}

func init() {
	for i := range functions {
		f := &functions[i]
		funcIndex[f.Name] = f
		for _, a := range f.Aliases {
			funcIndex[a] = f
		}
	}
}

// Return-type helpers.
func fixed(ty *Type) func([]frag) *Type { return func([]frag) *Type { return ty } }
func argType(i int) func([]frag) *Type {
	return func(a []frag) *Type {
		if i < len(a) {
			return a[i].typ
		}
		return tUnknown
	}
}
func elemType(a []frag) *Type {
	if len(a) > 0 && a[0].typ.is(Array) {
		return a[0].typ.Elem
	}
	return tUnknown
}
func widenArgs(a []frag) *Type {
	ty := tNull
	for _, x := range a {
		ty = widen(ty, x.typ)
	}
	return ty
}

// wrap1 translates a call of one argument into before + the argument +
// after, of type ty.
func wrap1(ty *Type, before, after string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		return at(c, ty, cat(before, a[0], after))
	}
}

// same is a function DuckDB has under the same name with Spark's meaning.
func same(name string, ret func([]frag) *Type, aliases ...string) Function {
	return Function{Name: name, Aliases: aliases, DuckDB: name + "(...)", ret: ret}
}

// renamed is a function DuckDB has under another name.
func renamed(name, duck string, ret func([]frag) *Type, aliases ...string) Function {
	return Function{Name: name, Aliases: aliases, DuckDB: duck + "(...)", ret: ret}
}

// custom is a function with its own translation.
func custom(name, duck string, fn func(t *tr, c *ast.Call, a []frag) frag, aliases ...string) Function {
	return Function{Name: name, Aliases: aliases, DuckDB: duck, fn: fn}
}

// coalesceFn translates coalesce (and nvl): DuckDB's coalesce, its
// number arguments cast to Spark's common type of them.
func coalesceFn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) == 0 {
		t.refuse(c, "%s takes at least one argument", c.Name.String())
		return null(c)
	}
	ty := t.unify(c, "coalesce", a, c.Args)
	return at(c, ty, cat("coalesce(", a, ")"))
}

// dayCount checks date_add's and date_sub's second argument as Spark's
// analyzer does (its golden files, date.sql: date_add('2011-11-11', 1L),
// 1.0 and 1E1 fail with DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE): an INT,
// SMALLINT or TINYINT, or a string read as one.
// Without ANSI only a constant string is read as a count (nonansi/date.sql:
// date_add('2011-11-11', int_str) of a string column fails, '1' runs).
func (t *tr) dayCount(c *ast.Call, n frag) bool {
	switch {
	case n.typ.is(String) && !t.ansi() && !foldable(c.Args[1]):
	case !n.typ.known(), n.typ.is(Null), n.typ.is(String), n.typ.is(Int), n.typ.is(SmallInt), n.typ.is(TinyInt):
		return true
	}
	t.typeError(c, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve \"%s\" due to data type mismatch: The second parameter requires the (\"INT\" or \"SMALLINT\" or \"TINYINT\") type, however \"%s\" has the type \"%s\". SQLSTATE: 42K09",
		t.text(c), t.text(c.Args[1]), strings.ToUpper(n.typ.String()))
	return false
}

// maskFn translates mask(str[, upperChar[, lowerChar[, digitChar[,
// otherChar]]]]): Spark replaces each upper-case letter (Java's
// Character.isUpperCase), lower-case letter and digit by its replacement
// and, when otherChar is given, every other character too; a NULL
// replacement keeps its class. A replacement must be a one-character
// constant (mask-functions.sql: INPUT_SIZE_NOT_ONE, NON_FOLDABLE_INPUT).
func maskFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 5) {
		return null(c)
	}
	if a[0].typ.known() && !a[0].typ.is(String) && !a[0].typ.is(Null) {
		t.refuse(c.Args[0], "mask of %s does not run natively; cast it to STRING", a[0].typ)
		return null(c)
	}
	names := []string{"upperChar", "lowerChar", "digitChar", "otherChar"}
	repl := []string{"'X'", "'x'", "'n'", "NULL"}
	for i := 1; i < len(c.Args); i++ {
		x := c.Args[i]
		l, ok := x.(*ast.Literal)
		switch {
		case ok && l.Kind == ast.LitNull:
			repl[i-1] = "NULL"
		case ok && l.Kind == ast.LitString && utf8.RuneCountInString(l.Str.Value) == 1:
			repl[i-1] = quoteString(l.Str.Value)
		case ok && l.Kind == ast.LitString:
			t.typeError(x, "DATATYPE_MISMATCH.INPUT_SIZE_NOT_ONE", "Cannot resolve \"%s\" due to data type mismatch: The length of %s should be 1. SQLSTATE: 42K09", t.text(c), names[i-1])
			return null(c)
		case a[i].typ.known() && !a[i].typ.is(String) && !a[i].typ.is(Null):
			t.typeError(x, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve \"%s\" due to data type mismatch: The %s parameter requires the \"STRING\" type, however \"%s\" has the type \"%s\". SQLSTATE: 42K09", t.text(c), ordinalWord(i+1), t.text(x), strings.ToUpper(a[i].typ.String()))
			return null(c)
		case !foldable(x):
			t.typeError(x, "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT", "Cannot resolve \"%s\" due to data type mismatch: the input %s should be a foldable \"STRING\" expression; however, got \"%s\". SQLSTATE: 42K09", t.text(c), names[i-1], t.text(x))
			return null(c)
		default:
			t.refuse(x, "mask's replacement characters run natively as literals only")
			return null(c)
		}
	}
	keep := func(r string) string {
		if r == "NULL" {
			return "ch"
		}
		return r
	}
	body := "CASE WHEN regexp_full_match(ch, '\\p{Lu}') THEN " + keep(repl[0]) +
		" WHEN regexp_full_match(ch, '\\p{Ll}') THEN " + keep(repl[1]) +
		" WHEN regexp_full_match(ch, '\\p{Nd}') THEN " + keep(repl[2]) +
		" ELSE " + keep(repl[3]) + " END"
	return at(c, tString, cat("CASE WHEN ", a[0], " IS NULL THEN NULL ELSE array_to_string(list_transform(string_split(", a[0], ", ''), lambda ch: "+body+"), '') END"))
}

// foldable reports whether x is a constant as Spark's analyzer sees it: no
// column, subquery, lambda, window or aggregate in it.
func foldable(x ast.Expr) bool {
	ok := true
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Column, *ast.Subquery, *ast.Exists, *ast.Lambda, *ast.Star:
			ok = false
		case *ast.Call:
			if f := funcIndex[strings.ToLower(n.Name.String())]; f == nil || f.Agg || n.Over != nil {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// typeCall is one of Spark's cast functions, float(x) for CAST(x AS
// FLOAT): it translates as that CAST does.
func typeCall(name, typ string) Function {
	return custom(name, "CAST(x AS "+typ+")", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		return t.cast(&ast.Cast{Range: c.Range, Form: "CAST", X: c.Args[0], Type: &ast.DataType{Range: c.Name.Range, Name: typ}})
	})
}

// refused is a function that does not run natively.
func refused(name, why string, aliases ...string) Function {
	return Function{Name: name, Aliases: aliases, Refused: why}
}

func agg(f Function) Function { f.Agg = true; return f }

// dbl marks a function whose arguments Spark casts to DOUBLE (a string
// argument is read as a number, failing in ANSI mode when malformed).
func dbl(f Function) Function { f.doubleArgs = true; return f }

// intervalArgs are the functions an interval argument passes through
// unchanged; any other function of an interval is refused.
var intervalArgs = map[string]bool{
	"coalesce": true, "nvl": true, "nvl2": true, "if": true, "nullif": true, "isnull": true, "isnotnull": true,
	"count": true, "min": true, "max": true, "greatest": true, "least": true, "array": true, "equal_null": true,
	"map": true,
}

const notRepeatable = "its values are random or engine-specific, so native values cannot match Spark's"

var functions = []Function{
	// Aggregates.
	agg(custom("count", "count(x); count(DISTINCT a, b) counts the rows where no argument is NULL", countFn)),
	agg(custom("sum", "sum(x), as BIGINT for integers and DECIMAL(p + 10, s) for decimals", sumFn)),
	agg(custom("avg", "avg(x), as DECIMAL(p + 4, s + 4) for decimals", avgFn, "mean")),
	agg(custom("try_sum", "sum(x), NULL on overflow", sumFn)),
	agg(custom("try_avg", "avg(x), NULL on overflow", avgFn)),
	agg(same("min", argType(0))),
	agg(same("max", argType(0))),
	agg(custom("count_if", "count(CASE WHEN x THEN 1 END), a BIGINT (DuckDB's count_if is a HUGEINT)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		return at(c, tBigInt, cat("count(CASE WHEN ", a[0], " THEN 1 END)"))
	})),
	agg(renamed("bool_and", "bool_and", fixed(tBool), "every")),
	agg(renamed("bool_or", "bool_or", fixed(tBool), "some", "any")),
	agg(custom("any_value", "as first: Spark's any_value is first(x[, ignoreNulls])", firstLastFn(false))),
	agg(custom("collect_list", "coalesce(list(x) FILTER (WHERE x IS NOT NULL), []): NULLs skipped, [] for no rows", collectFn(false), "array_agg")),
	agg(custom("collect_set", "coalesce(list(DISTINCT x) FILTER (WHERE x IS NOT NULL), [])", collectFn(true))),
	dbl(agg(custom("stddev", "thund_stddev_samp over list(x): over a window frame Spark's running update of count, mean and squared deviations, row by row; for a group the mean, then the squared deviations from it", varianceFn("thund_stddev_samp"), "std", "stddev_samp"))),
	dbl(agg(custom("stddev_pop", "thund_stddev_pop(list(x)), as stddev", varianceFn("thund_stddev_pop")))),
	dbl(agg(custom("variance", "thund_var_samp(list(x)), as stddev", varianceFn("thund_var_samp"), "var_samp"))),
	dbl(agg(custom("var_pop", "thund_var_pop(list(x)), as stddev", varianceFn("thund_var_pop")))),
	dbl(agg(custom("corr", "ck / sqrt(xm2 * ym2) of the two-pass co-moments (thund_comoments2), DIVIDE_BY_ZERO in ANSI mode where a side does not vary; over a window DuckDB's corr", covarFn("corr")))),
	dbl(agg(custom("covar_pop", "ck / n of the two-pass co-moments; over a window DuckDB's covar_pop", covarFn("covar_pop")))),
	dbl(agg(custom("covar_samp", "ck / (n - 1) of the two-pass co-moments; over a window DuckDB's covar_samp", covarFn("covar_samp")))),
	agg(same("median", fixed(tDouble))),
	agg(custom("percentile", "quantile_cont(x, p)", func(t *tr, c *ast.Call, a []frag) frag {
		if len(a) != 2 {
			t.refuse(c, "percentile takes a column and one percentage here")
		}
		return frag{s: "quantile_cont", typ: tDouble}
	})),
	agg(same("max_by", argType(0))),
	agg(custom("mode", "the most frequent value of histogram(x), the lowest of tied values (mode(x, true), WITHIN GROUP (ORDER BY x)) or the highest (ORDER BY x DESC); mode(x) is refused", modeFn)),
	agg(custom("percentile_cont", "Spark's interpolation at (n - 1) * p over list_sort(list(x)), as DOUBLE", percentileOrderedFn("cont"))),
	agg(custom("percentile_disc", "the sorted list(x) at ceil(n * p), as DOUBLE", percentileOrderedFn("disc"))),
	agg(same("min_by", argType(0))),
	agg(custom("string_agg", "string_agg(x, sep); no separator without sep", func(t *tr, c *ast.Call, a []frag) frag {
		if len(a) == 1 {
			// Spark's golden files (listagg-collations.sql): listagg(x)
			// joins without a separator; DuckDB's default is ','.
			return at(c, tString, cat("string_agg(", t.distinct(c), a[0], ", ''", t.withinGroup(c), ")"))
		}
		return frag{s: "string_agg", typ: tString}
	}, "listagg")),
	agg(refused("approx_count_distinct", "Spark's HyperLogLog++ and DuckDB's HyperLogLog estimate differently; use count(DISTINCT x)")),
	agg(refused("percentile_approx", "Spark's and DuckDB's approximations pick different values; use percentile(x, p)", "approx_percentile")),
	agg(custom("first", "first_value(x [IGNORE NULLS]) over a window, any_value(x) in a group; where rows tied in the order (a group: all its rows) hold different values, which one comes first is not defined: a constant, a PARTITION BY or ORDER BY expression runs, otherwise the values are checked and a tie fails as not portable", firstLastFn(false), "first_value")),
	agg(custom("last", "last_value(x [IGNORE NULLS]) over a window, any_value(x) in a group; checked as first", firstLastFn(true), "last_value")),

	// Window functions.
	same("row_number", fixed(tInt)),
	same("rank", fixed(tInt)),
	same("dense_rank", fixed(tInt)),
	same("percent_rank", fixed(tDouble)),
	same("cume_dist", fixed(tDouble)),
	same("ntile", fixed(tInt)),
	same("lag", argType(0)),
	same("lead", argType(0)),
	same("nth_value", argType(0)),

	// Conditionals and NULLs.
	custom("coalesce", "coalesce(...), the arguments cast to their common type", coalesceFn),
	custom("nvl", "coalesce(a, b), the arguments cast to their common type", coalesceFn, "ifnull"),
	custom("nvl2", "CASE WHEN a IS NOT NULL THEN b ELSE c END", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 3, 3) {
			return null(c)
		}
		ty := t.unify(c, "nvl2", a[1:], c.Args[1:])
		return at(c, ty, cat("CASE WHEN ", a[0], " IS NOT NULL THEN ", a[1], " ELSE ", a[2], " END"))
	}),
	same("nullif", argType(0)),
	custom("if", "CASE WHEN c THEN a ELSE b END", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 3, 3) {
			return null(c)
		}
		ty := t.unify(c, "if", a[1:], c.Args[1:])
		return at(c, ty, cat("CASE WHEN ", a[0], " THEN ", a[1], " ELSE ", a[2], " END"))
	}, "iff"),
	custom("isnull", "x IS NULL", wrap1(tBool, "(", " IS NULL)")),
	custom("isnotnull", "x IS NOT NULL", wrap1(tBool, "(", " IS NOT NULL)")),
	custom("equal_null", "a IS NOT DISTINCT FROM b", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		return at(c, tBool, cat("(", a[0], " IS NOT DISTINCT FROM ", a[1], ")"))
	}),
	same("isnan", fixed(tBool)),
	same("greatest", widenArgs),
	same("least", widenArgs),

	// Numbers.
	dbl(same("abs", argType(0))),
	custom("positive", "x", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		if a[0].typ.is(String) {
			// Spark reads the string as a DOUBLE (positive('25.5') is 25.5D).
			x := c.Args[0]
			return t.cast(&ast.Cast{Range: x.Span(), Form: "CAST", X: x, Type: &ast.DataType{Range: x.Span(), Name: "DOUBLE"}})
		}
		return at(c, a[0].typ, cat("(", a[0], ")"))
	}),
	custom("div", "a DIV b", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		return t.binary(&ast.Binary{Range: c.Range, Op: "DIV", L: c.Args[0], R: c.Args[1]})
	}),
	custom("unhex", "unhex(s), a leading 0 for an odd length, NULL for a character that is not hexadecimal", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		return at(c, tBinary, cat("CASE WHEN regexp_full_match(", a[0], ", '[0-9a-fA-F]*') THEN unhex(CASE WHEN len(", a[0], ") % 2 = 1 THEN '0' || ", a[0], " ELSE ", a[0], " END) END"))
	}),
	custom("ceil", "CAST(ceil(x) AS BIGINT)", ceilFloor("ceil"), "ceiling"),
	custom("floor", "CAST(floor(x) AS BIGINT)", ceilFloor("floor")),
	custom("round", "round(x, d) (HALF_UP, as DuckDB rounds), as DECIMAL(p - s + d + 1, d) for decimals", roundFn("round")),
	custom("bround", "round_even(x, d) (HALF_EVEN)", roundFn("round_even")),
	custom("try_add", "a + b, NULL where an integer or decimal result overflows", tryArith("+"), "try_subtract", "try_multiply"),
	typeCall("boolean", "BOOLEAN"), typeCall("tinyint", "TINYINT"), typeCall("smallint", "SMALLINT"),
	typeCall("int", "INT"), typeCall("bigint", "BIGINT"), typeCall("float", "FLOAT"),
	typeCall("double", "DOUBLE"), typeCall("decimal", "DECIMAL"), typeCall("string", "STRING"),
	typeCall("binary", "BINARY"), typeCall("date", "DATE"), typeCall("timestamp", "TIMESTAMP"),
	custom("typeof", "Spark's name of the argument's type, as a constant", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		if !a[0].typ.known() || a[0].typ.String() == "unknown" || strings.Contains(a[0].typ.String(), "unknown") || strings.Contains(a[0].typ.String(), "interval") {
			t.refuse(c.Args[0], "the type of %s is not known here", t.text(c.Args[0]))
			return null(c)
		}
		return at(c, tString, cat(quoteString(a[0].typ.String())))
	}),
	same("hex", fixed(tString)),
	custom("exp", "thund_exp(CAST(x AS DOUBLE)): fdlibm's exp, as Java's StrictMath.exp computes it", wrap1(tDouble, "thund_exp(CAST(", " AS DOUBLE))")),
	same("ln", fixed(tDouble)),
	custom("log", "ln(x); log(base, x) as ln(x) / ln(base)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 2) {
			return null(c)
		}
		if len(a) == 1 {
			return at(c, tDouble, cat("ln(", a[0], ")"))
		}
		return at(c, tDouble, cat("(ln(", a[1], ") / ln(", a[0], "))"))
	}),
	same("log10", fixed(tDouble)),
	same("log2", fixed(tDouble)),
	custom("pow", "pow(x, y), NaN where Java's Math.pow gives NaN (y NaN, or 1 to an infinite power)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		x, y := cat("CAST(", a[0], " AS DOUBLE)"), cat("CAST(", a[1], " AS DOUBLE)")
		return at(c, tDouble, cat("CASE WHEN isnan(", y, ") OR (abs(", x, ") = 1 AND isinf(", y, ")) THEN CAST('NaN' AS DOUBLE) ELSE pow(", x, ", ", y, ") END"))
	}, "power"),
	custom("sqrt", "sqrt(x), NaN for x < 0", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		return at(c, tDouble, cat("CASE WHEN ", a[0], " < 0 THEN CAST('NaN' AS DOUBLE) ELSE sqrt(", a[0], ") END"))
	}),
	same("cbrt", fixed(tDouble)),
	custom("sign", "CAST(sign(x) AS DOUBLE)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		return at(c, tDouble, cat("CAST(sign(", a[0], ") AS DOUBLE)"))
	}, "signum"),
	custom("mod", "a % b, failing on 0 as Spark's DIVIDE_BY_ZERO", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		a[0], a[1] = t.stringOperand(&ast.Binary{Range: c.Range, Op: "%", L: c.Args[0], R: c.Args[1]}, a[0], a[1])
		a[0], a[1] = t.floatOperands(a[0], a[1])
		if ty, ok := remainderDecimal(&ast.Binary{L: c.Args[0], R: c.Args[1]}, a[0].typ, a[1].typ); ok {
			return at(c, ty, cat("CAST((", a[0], " % ", t.remainder(c.Args[1], a[1]), ") AS "+ty.duck()+")"))
		}
		return at(c, widen(a[0].typ, a[1].typ), cat("(", a[0], " % ", t.remainder(c.Args[1], a[1]), ")"))
	}),
	custom("pmod", "((a % n) + n) % n, failing on 0 as Spark's DIVIDE_BY_ZERO", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		a[0], a[1] = t.stringOperand(&ast.Binary{Range: c.Range, Op: "%", L: c.Args[0], R: c.Args[1]}, a[0], a[1])
		a[0], a[1] = t.floatOperands(a[0], a[1])
		n := t.remainder(c.Args[1], a[1])
		out := cat("CASE WHEN ", a[0], " % ", n, " < 0 THEN (", a[0], " % ", n, " + ", a[1], ") % ", a[1], " ELSE ", a[0], " % ", n, " END")
		if ty, ok := remainderDecimal(&ast.Binary{L: c.Args[0], R: c.Args[1]}, a[0].typ, a[1].typ); ok {
			return at(c, ty, cat("CAST(", out, " AS "+ty.duck()+")"))
		}
		return at(c, widen(a[0].typ, a[1].typ), out)
	}),
	custom("try_divide", "a / b, NULL for b = 0", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		if a[0].typ.is(IntervalKind) || a[1].typ.is(IntervalKind) {
			t.refuse(c, "try_divide of an interval does not run natively: Spark's ANSI interval types divide and print differently from DuckDB's INTERVAL")
			return null(c)
		}
		b := &ast.Binary{Range: c.Range, Op: "/", L: c.Args[0], R: c.Args[1]}
		a[0], a[1] = t.stringOperand(b, a[0], a[1])
		return t.divide(b, a[0], a[1], true)
	}),
	same("pi", fixed(tDouble)),
	custom("e", "exp(1)", func(t *tr, c *ast.Call, a []frag) frag { return at(c, tDouble, cat("exp(1)")) }),
	same("degrees", fixed(tDouble)),
	same("radians", fixed(tDouble)),
	same("sin", fixed(tDouble)), same("cos", fixed(tDouble)), same("tan", fixed(tDouble)),
	same("asin", fixed(tDouble)), same("acos", fixed(tDouble)), same("atan", fixed(tDouble)), same("atan2", fixed(tDouble)),
	custom("negative", "-x", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		return at(c, a[0].typ, cat("(-", a[0], ")"))
	}),
	refused("rand", notRepeatable, "random", "randn", "uniform", "randstr"),
	refused("uuid", notRepeatable),
	refused("shuffle", notRepeatable),
	refused("hash", "Spark's hash is 32-bit Murmur3, DuckDB's another function: the values cannot match", "xxhash64", "crc32"),
	refused("monotonically_increasing_id", notRepeatable, "spark_partition_id", "input_file_name"),

	// Strings.
	same("upper", fixed(tString), "ucase"),
	same("lower", fixed(tString), "lcase"),
	custom("length", "length(s) as INTEGER; octet_length of a BINARY; other types as their text", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		switch x := a[0].typ; {
		case x.is(Binary):
			return at(c, tInt, cat("CAST(octet_length(", a[0], ") AS INTEGER)"))
		case x.is(String), x.is(Null):
			return at(c, tInt, cat("CAST(length(", a[0], ") AS INTEGER)"))
		case x.numeric() && !x.fractional(), x.is(Date), x.is(Boolean):
			// Spark casts the argument to a string first.
			return at(c, tInt, cat("CAST(length(", t.asString(a[0]), ") AS INTEGER)"))
		}
		t.refuse(c.Args[0], "length of a %s counts the characters of its text, which Spark writes differently; cast it to a string first", a[0].typ)
		return null(c)
	}, "char_length", "character_length", "len"),
	custom("trim", "trim(s[, chars])", trimFn("trim")),
	custom("ltrim", "ltrim(s[, chars])", trimFn("ltrim")),
	custom("rtrim", "rtrim(s[, chars])", trimFn("rtrim")),
	custom("btrim", "trim(s[, chars])", trimFn("trim")),
	custom("replace", "replace(s, search, replacement), '' by default", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 3) {
			return null(c)
		}
		if len(a) == 2 {
			a = append(a, cat("''"))
		}
		return at(c, tString, cat("system.main.replace(", a, ")"))
	}),
	custom("reverse", "reverse(s); list_reverse(arr)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		if a[0].typ.is(Array) {
			return at(c, a[0].typ, cat("list_reverse(", a[0], ")"))
		}
		return at(c, tString, cat("reverse(", a[0], ")"))
	}),
	same("repeat", fixed(tString)),
	custom("left", "left(s, n), '' for n <= 0 (NULL for a NULL s)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		return at(c, tString, cat("CASE WHEN ", a[1], " <= 0 AND ", a[0], " IS NOT NULL THEN '' ELSE left(", a[0], ", ", a[1], ") END"))
	}),
	custom("right", "right(s, n), '' for n <= 0 (NULL for a NULL s)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		return at(c, tString, cat("CASE WHEN ", a[1], " <= 0 AND ", a[0], " IS NOT NULL THEN '' ELSE right(", a[0], ", ", a[1], ") END"))
	}),
	custom("substring", "substring(s, pos, len) with position 0 read as 1 and a negative length as 0", substringFn, "substr"),
	custom("instr", "instr(s, substr) as INTEGER", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		return at(c, tInt, cat("CAST(instr(", a, ") AS INTEGER)"))
	}),
	custom("locate", "instr(substring(s, pos), substr) + pos - 1; 0 when pos < 1 or not found", locateFn, "position"),
	custom("lpad", "lpad(s, n, pad), ' ' by default", padFn("lpad")),
	custom("rpad", "rpad(s, n, pad), ' ' by default", padFn("rpad")),
	same("translate", fixed(tString)),
	custom("mask", "each character of a class (upper case, lower case, digit, other: \\p{Lu}, \\p{Ll}, \\p{Nd}) replaced by its one-character literal, NULL keeps the class", maskFn),
	custom("initcap", "upper first letter of each space-separated word, lower the rest", wrap1(tString, "array_to_string(list_transform(string_split(lower(", "), ' '), lambda w: upper(w[1]) || w[2:]), ' ')")),
	custom("concat", "a || b || ... (NULL if any is NULL); list_concat for arrays", concatFn),
	custom("concat_ws", "concat_ws(sep, ...), arrays joined with array_to_string", concatWSFn),
	custom("split", "regexp_split_to_array(s, re) (the Java regex checked for RE2); with a limit n > 0 the first n - 1 pieces and the rest after the (n - 1)-th match", splitFn),
	custom("split_part", "split_part(s, d, n); with d = '' the whole s for n = 1 or -1, '' otherwise", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 3, 3) {
			return null(c)
		}
		if l, ok := c.Args[2].(*ast.Literal); ok && l.Kind == ast.LitInteger && l.Text == "0" {
			t.refuse(l, "split_part's index 0 fails on Spark (INVALID_INDEX_OF_ZERO); count parts from 1, or from -1 at the end")
		}
		// Spark does not split at an empty delimiter; DuckDB splits
		// into characters.
		return at(c, tString, cat("CASE WHEN ", a[1], " = '' THEN CASE WHEN abs(", a[2], ") = 1 THEN ", a[0], " ELSE '' END ELSE split_part(", a[0], ", ", a[1], ", ", a[2], ") END"))
	}),
	custom("regexp_extract", "regexp_extract(s, re, group), group 1 by default", regexpExtractFn("regexp_extract")),
	custom("regexp_extract_all", "regexp_extract_all(s, re, group), group 1 by default", regexpExtractFn("regexp_extract_all")),
	custom("regexp_replace", "regexp_replace(s, re, rep, 'g') with $n turned into \\n; from a literal position on, the text before it kept", regexpReplaceFn),
	custom("regexp_like", "regexp_matches(s, re)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		return at(c, tBool, cat("regexp_matches(", a[0], ", ", t.regex(c.Args[1]), ")"))
	}, "rlike", "regexp"),
	same("ascii", fixed(tInt)),
	renamed("startswith", "starts_with", fixed(tBool)),
	renamed("endswith", "ends_with", fixed(tBool)),
	same("contains", fixed(tBool)),
	same("md5", fixed(tString)),
	renamed("sha1", "sha1", fixed(tString), "sha"),
	custom("sha2", "sha256(x) for 256 bits (or 0)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		if l, ok := c.Args[1].(*ast.Literal); !ok || (l.Text != "256" && l.Text != "0") {
			t.refuse(c.Args[1], "only 256-bit SHA-2 (sha2(x, 256)) runs natively")
		}
		return at(c, tString, cat("sha256(", a[0], ")"))
	}),
	custom("base64", "to_base64(x), a STRING's UTF-8 bytes", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		if a[0].typ.is(String) {
			// Spark casts a STRING to its UTF-8 bytes; DuckDB's
			// to_base64 takes a BLOB only.
			return at(c, tString, cat("to_base64(encode(", a[0], "))"))
		}
		return at(c, tString, cat("to_base64(", a[0], ")"))
	}),
	renamed("unbase64", "from_base64", fixed(tBinary)),
	same("levenshtein", fixed(tInt)),

	// Dates and times.
	custom("date_format", "strftime(ts, the Java pattern converted)", dateFormatFn),
	custom("from_unixtime", "strftime(make_timestamp(sec * 1000000), the Java pattern converted; yyyy-MM-dd HH:mm:ss by default), in UTC", fromUnixtimeFn),
	custom("to_char", "of a date or timestamp, date_format; a number's format is refused", toCharFn, "to_varchar"),
	custom("to_date", "CAST(s AS DATE); CAST(strptime(s, pattern) AS DATE)", toDateFn(false)),
	custom("to_timestamp", "CAST(s AS TIMESTAMP); strptime(s, pattern)", toTimestampFn(false)),
	custom("try_to_timestamp", "TRY_CAST(s AS TIMESTAMP); try_strptime(s, pattern)", toTimestampFn(true)),
	custom("to_timestamp_ntz", "CAST(s AS TIMESTAMP) (a text with a zone fails as not portable); strptime(s, pattern)", toTimestampNTZFn(false)),
	custom("next_day", "d + the days to the next dayOfWeek (SU, SUN, SUNDAY, ...), failing on an unknown day in ANSI mode", nextDayFn),
	custom("year", "year(d)", datePart("year"), "yearofweek"),
	custom("month", "month(d)", datePart("month")),
	custom("day", "day(d)", datePart("day"), "dayofmonth"),
	custom("hour", "hour(ts)", datePart("hour")),
	custom("minute", "minute(ts)", datePart("minute")),
	custom("second", "second(ts)", datePart("second")),
	custom("dayofyear", "dayofyear(d)", datePart("dayofyear")),
	custom("weekofyear", "weekofyear(d) (ISO weeks)", datePart("weekofyear")),
	custom("quarter", "quarter(d)", datePart("quarter")),
	custom("dayofweek", "dayofweek(d) + 1 (1 = Sunday)", wrap1(tInt, "CAST(dayofweek(CAST(", " AS DATE)) + 1 AS INTEGER)")),
	custom("weekday", "isodow(d) - 1 (0 = Monday)", wrap1(tInt, "CAST(isodow(CAST(", " AS DATE)) - 1 AS INTEGER)")),
	custom("dayname", "the three-letter day name (Mon), strftime(d, '%a')", wrap1(tString, "strftime(CAST(", " AS DATE), '%a')")),
	custom("date_add", "CAST(d AS DATE) + n", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		if !t.dayCount(c, a[1]) {
			return null(c)
		}
		return at(c, tDate, cat("CAST(CAST(", a[0], " AS DATE) + CAST(", a[1], " AS INTEGER) AS DATE)"))
	}, "dateadd"),
	custom("date_sub", "CAST(d AS DATE) - n", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		if !t.dayCount(c, a[1]) {
			return null(c)
		}
		return at(c, tDate, cat("CAST(CAST(", a[0], " AS DATE) - CAST(", a[1], " AS INTEGER) AS DATE)"))
	}),
	custom("datediff", "date_diff('day', start, end) (end first, as in Spark)", func(t *tr, c *ast.Call, a []frag) frag {
		if c.Unit != nil || !t.arity(c, a, 2, 2) {
			t.refuse(c, "datediff(unit, start, end) does not run natively; datediff(end, start) does")
			return null(c)
		}
		return at(c, tInt, cat("CAST(system.main.date_diff('day', CAST(", a[1], " AS DATE), CAST(", a[0], " AS DATE)) AS INTEGER)"))
	}, "date_diff"),
	custom("add_months", "CAST(d AS DATE) + to_months(n), as DATE", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		return at(c, tDate, cat("CAST(CAST(", a[0], " AS DATE) + to_months(CAST(", a[1], " AS INTEGER)) AS DATE)"))
	}),
	custom("last_day", "last_day(d)", wrap1(tDate, "last_day(CAST(", " AS DATE))")),
	custom("date_trunc", "date_trunc(unit, CAST(ts AS TIMESTAMP))", dateTruncFn),
	custom("trunc", "CAST(date_trunc(unit, d) AS DATE)", truncFn),
	custom("current_date", "current_date", func(t *tr, c *ast.Call, a []frag) frag {
		return at(c, tDate, cat("CAST(timezone('UTC', now()) AS DATE)"))
	}, "curdate"),
	custom("current_timestamp", "the current time in UTC", func(t *tr, c *ast.Call, a []frag) frag {
		return at(c, tTS, cat("CAST(timezone('UTC', now()) AS TIMESTAMP)"))
	}, "now", "localtimestamp"),
	same("make_date", fixed(tDate)),
	custom("to_time", "CAST(s AS TIME) (s read as Spark reads a time); CAST(strptime(s, pattern) AS TIME)", toTimeFn(false)),
	custom("try_to_time", "TRY_CAST(s AS TIME); CAST(try_strptime(s, pattern) AS TIME)", toTimeFn(true)),
	custom("make_time", "the TIME of h:m:s (s a decimal), failing out of range", makeTimeFn),
	custom("time_trunc", "the TIME's microseconds since midnight rounded down to the unit", timeTruncFn),
	custom("time_diff", "(end - start) in microseconds // the unit's, as BIGINT", timeDiffFn),
	typeCall("time", "TIME"),
	custom("bit_count", "bit_count(CAST(x AS BIGINT)) as INTEGER (a boolean 1 or 0)", bitCountFn),
	custom("elt", "CASE n WHEN 1 THEN s1 ... END; out of range fails in ANSI mode", eltFn),
	custom("width_bucket", "Spark's bucket arithmetic over doubles", widthBucketFn),
	agg(custom("grouping", "CAST(grouping(col) AS TINYINT), with ROLLUP, CUBE or GROUPING SETS", groupingFn)),
	custom("to_binary", "unhex(s) (hex, the default) or encode(s) (utf-8); a malformed hex string fails", toBinaryFn(false)),
	custom("try_to_binary", "as to_binary, NULL for a malformed hex string or an unknown format", toBinaryFn(true)),
	custom("timestamp_seconds", "make_timestamp(sec * 1000000), in the session zone", epochTimestamp(1000000, "seconds")),
	custom("timestamp_millis", "make_timestamp(ms * 1000), in the session zone", epochTimestamp(1000, "milliseconds")),
	custom("timestamp_micros", "make_timestamp(us), in the session zone", epochTimestamp(1, "microseconds")),
	custom("unix_seconds", "epoch_us(ts) / 1000000 rounded down, of the instant in the session zone", epochOf(1000000)),
	custom("unix_millis", "epoch_us(ts) / 1000 rounded down, of the instant in the session zone", epochOf(1000)),
	custom("unix_micros", "epoch_us(ts), of the instant in the session zone", epochOf(1)),
	custom("make_timestamp", "make_timestamp(y, m, d, h, mi, 0) + the seconds, or date + time; fields checked as Spark checks them; a zone through ICU's timezone()", makeTimestampFn(false), "make_timestamp_ltz"),
	custom("try_make_timestamp", "make_timestamp, NULL where a field is out of range", makeTimestampFn(true), "try_make_timestamp_ltz"),
	custom("extract", "date_part(field, x), Spark's numbering of weekdays", extractFn, "date_part", "datepart"),

	// Arrays, maps and structs.
	custom("array", "[a, b, ...]", func(t *tr, c *ast.Call, a []frag) frag {
		return at(c, arrayOf(widenArgs(a)), cat("[", a, "]"))
	}),
	custom("array_contains", "list_contains(arr, x), NULL when not found and arr holds a NULL", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		return at(c, tBool, cat("CASE WHEN list_contains(", a[0], ", ", a[1], ") THEN true WHEN ", a[1], " IS NULL THEN NULL WHEN len(list_filter(", a[0], ", lambda v: v IS NULL)) > 0 THEN NULL ELSE list_contains(", a[0], ", ", a[1], ") END"))
	}),
	custom("array_position", "coalesce(list_position(arr, x), 0) as BIGINT", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		return at(c, tBigInt, cat("CASE WHEN ", a[0], " IS NULL OR ", a[1], " IS NULL THEN NULL ELSE CAST(coalesce(list_position(", a[0], ", ", a[1], "), 0) AS BIGINT) END"))
	}),
	custom("size", "len(arr) or cardinality(map) as INTEGER; NULL for NULL (-1 with ANSI off)", sizeFn, "cardinality", "array_size"),
	custom("get", "arr[i + 1], NULL out of bounds (i counts from 0)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		if !a[0].typ.is(Array) {
			t.refuse(c, "get needs an array here, and the type of its first argument is %s", a[0].typ)
			return null(c)
		}
		return at(c, a[0].typ.Elem, cat("CASE WHEN ", a[1], " < 0 OR ", a[1], " >= len(", a[0], ") THEN NULL ELSE (", a[0], ")[", a[1], " + 1] END"))
	}),
	custom("map_contains_key", "list_contains(map_keys(m), k)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		if k := a[0].typ; k.is(Map) && (k.Key.numeric() && a[1].typ.is(String) || k.Key.is(String) && a[1].typ.numeric()) {
			// Spark's golden files (map.sql): map_contains_key(map(1, 'a'), '1') fails.
			t.typeError(c, "DATATYPE_MISMATCH.MAP_FUNCTION_DIFF_TYPES", "Cannot resolve \"%s\" due to data type mismatch: Input to `map_contains_key` should have been \"MAP\" followed by a value with same key type, but it's [\"%s\", \"%s\"]. SQLSTATE: 42K09",
				t.text(c), strings.ToUpper(k.String()), strings.ToUpper(a[1].typ.String()))
			return null(c)
		}
		return at(c, tBool, cat("list_contains(map_keys(", a[0], "), ", a[1], ")"))
	}),
	custom("element_at", "arr[i] from 1, negative from the end, failing out of bounds (ANSI); map[k]", elementAtFn(false)),
	custom("try_element_at", "as element_at, NULL out of bounds", elementAtFn(true)),
	custom("array_join", "array_to_string(arr, sep), NULLs skipped unless replaced", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 3) {
			return null(c)
		}
		if len(a) == 3 {
			return at(c, tString, cat("array_to_string(list_transform(CAST(", a[0], " AS VARCHAR[]), lambda v: coalesce(v, ", a[2], ")), ", a[1], ")"))
		}
		return at(c, tString, cat("array_to_string(", a[0], ", ", a[1], ")"))
	}),
	renamed("array_max", "list_max", elemType),
	renamed("array_min", "list_min", elemType),
	custom("sort_array", "list_sort(arr, 'ASC', 'NULLS FIRST') (DESC, NULLS LAST for false)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 2) {
			return null(c)
		}
		if len(a) == 1 {
			return at(c, a[0].typ, cat("list_sort(", a[0], ", 'ASC', 'NULLS FIRST')"))
		}
		// A NULL order gives NULL (Spark's golden files, array.sql).
		return at(c, a[0].typ, cat("CASE WHEN ", a[1], " IS NULL THEN NULL WHEN ", a[1], " THEN list_sort(", a[0], ", 'ASC', 'NULLS FIRST') ELSE list_sort(", a[0], ", 'DESC', 'NULLS LAST') END"))
	}),
	custom("array_sort", "list_sort(arr, 'ASC', 'NULLS LAST')", func(t *tr, c *ast.Call, a []frag) frag {
		if len(c.Args) != 1 {
			t.refuse(c, "array_sort with a comparator does not run natively")
			return null(c)
		}
		return at(c, a[0].typ, cat("list_sort(", a[0], ", 'ASC', 'NULLS LAST')"))
	}),
	custom("array_distinct", "the elements in order of first occurrence, one NULL kept", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		return at(c, a[0].typ, cat("list_filter(", a[0], ", lambda v, i: CASE WHEN v IS NULL THEN coalesce(list_position(list_transform(", a[0], ", lambda w: w IS NULL), true), 0) = i ELSE list_position(", a[0], ", v) = i END)"))
	}),
	same("flatten", elemType),
	custom("array_insert", "list_concat of the slices and the item, padded with NULLs past either end; pos 0 fails", arrayInsertFn),
	custom("sequence", "generate_series(start, stop, step), step ±1 by default", sequenceFn),
	custom("named_struct", "struct_pack(name := value, ...)", namedStructFn),
	custom("struct", "struct_pack(col1 := a, ...), fields named as Spark names them", structFn),
	custom("map", "map([k, ...], [v, ...])", func(t *tr, c *ast.Call, a []frag) frag {
		if len(a)%2 != 0 {
			t.refuse(c, "map takes keys and values in pairs")
			return null(c)
		}
		var ks, vs []frag
		for i := 0; i < len(a); i += 2 {
			ks, vs = append(ks, a[i]), append(vs, a[i+1])
		}
		return at(c, &Type{Kind: Map, Key: widenArgs(ks), Val: widenArgs(vs)}, cat("map([", ks, "], [", vs, "])"))
	}),
	custom("map_from_arrays", "map(keys, values)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		return at(c, &Type{Kind: Map, Key: elemType(a[:1]), Val: elemType(a[1:])}, cat("map(", a, ")"))
	}),
	custom("map_keys", "map_keys(m)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		ty := tUnknown
		if a[0].typ.is(Map) {
			ty = arrayOf(a[0].typ.Key)
		}
		return at(c, ty, cat("map_keys(", a[0], ")"))
	}),
	custom("map_values", "map_values(m)", func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		ty := tUnknown
		if a[0].typ.is(Map) {
			ty = arrayOf(a[0].typ.Val)
		}
		return at(c, ty, cat("map_values(", a[0], ")"))
	}),

	// Higher-order functions (their lambdas are translated by hof).
	custom("transform", "list_transform(arr, lambda x[, i]: ...) with the index from 0", nil),
	custom("filter", "list_filter(arr, lambda x[, i]: ...) with the index from 0", nil),
	custom("exists", "true if any element satisfies, NULL if none does and one gives NULL", nil),
	custom("forall", "false if any element fails, NULL if none does and one gives NULL", nil),
	custom("aggregate", "list_reduce(arr, lambda acc, x: ..., start), then the finish lambda", nil, "reduce"),
	custom("zip_with", "list_transform(range(1, greatest(len(a), len(b)) + 1), lambda i: f(a[i], b[i])), NULL past the shorter", nil),
	custom("transform_keys", "map(list_transform(map_entries(m), lambda e: f(e.key, e.value)), map_values(m))", nil),
	custom("transform_values", "map(map_keys(m), list_transform(map_entries(m), lambda e: f(e.key, e.value)))", nil),
	custom("map_filter", "map_from_entries(list_filter(map_entries(m), lambda e: f(e.key, e.value))): the entries for which f is true", nil),
	custom("map_zip_with", "map(the keys of m1 then m2's others, list_transform(keys, lambda k: f(k, m1[k], m2[k])))", nil),
	custom("arrays_zip", "list_transform(range(1, the longest length + 1), lambda i: struct_pack(a1[i], ...)), fields named after column arguments or their positions", arraysZipFn),
	agg(custom("regr_count", "count(*) of the rows where y and x are not NULL", regrFn("count"))),
	agg(custom("regr_avgx", "avg(x) of integers over the rows where y and x are not NULL, as DOUBLE", regrFn("avgx"))),
	agg(custom("regr_avgy", "avg(y) of integers over the rows where y and x are not NULL, as DOUBLE", regrFn("avgy"))),
	agg(custom("regr_sxx", "the squared deviations of x from its mean (thund_moments2) over the rows where y and x are not NULL", regrFn("sxx"))),
	agg(custom("regr_syy", "the squared deviations of y from its mean (thund_moments2) over the rows where y and x are not NULL", regrFn("syy"))),
	agg(custom("regr_sxy", "the sum of the products of the deviations of y and x from their means (thund_comoments2, two passes) over the rows where y and x are not NULL", regrFn("sxy"))),
	agg(custom("regr_slope", "covar_pop(y, x) / var_pop(x) from the two-pass co-moments, NULL where x does not vary", regrFn("slope"))),
	agg(custom("regr_intercept", "avg(y) - regr_slope(y, x) * avg(x) from the two-pass co-moments, NULL where x does not vary", regrFn("intercept"))),
	agg(custom("regr_r2", "corr(y, x) squared from the two-pass co-moments; NULL where x does not vary, 1 where only y does not", regrFn("r2"))),
	custom("json_array_length", "json_array_length(s) of a valid array as INTEGER, NULL otherwise; a text Jackson may read otherwise fails as not portable", jsonArrayLengthFn),
	agg(custom("bit_and", "bit_and(x) of an integer, of its type", bitAggFn)),
	agg(custom("bit_or", "bit_or(x) of an integer, of its type", bitAggFn)),
	agg(custom("bit_xor", "bit_xor(x) of an integer, of its type", bitAggFn)),
	custom("zeroifnull", "coalesce(x, 0) of a number, of Spark's common type of x and INT", zeroIfNullFn),
	custom("nullifzero", "CASE WHEN x = 0 THEN NULL ELSE x END of a number", nullIfZeroFn),
	custom("encode", "encode(s) for UTF-8 (its bytes); other charsets refused", encodeFn),
	custom("decode", "decode(b) for UTF-8 (bytes that are not UTF-8 fail, as on Spark); decode(x, search, result, ..., default) as CASE WHEN x IS NOT DISTINCT FROM search THEN result ... END", decodeFn),
	custom("regexp_count", "len(regexp_extract_all(s, re)) as INTEGER (a pattern matching the empty string refused)", regexpCountFn),
	custom("regexp_substr", "nullif(regexp_extract(s, re, 0), ''): the first match, NULL for none or an empty one", regexpSubstrFn),
	custom("regexp_instr", "the length of the text before the first match + 1, 0 for none (group 0 only)", regexpInstrFn),
	custom("raise_error", "error('[USER_RAISED_EXCEPTION] ' || msg), of type VOID", raiseErrorFn),
	custom("assert_true", "NULL where the condition is true, else error('[USER_RAISED_EXCEPTION] ...'), of type VOID", assertTrueFn),
	custom("map_concat", "map_from_entries(list_concat(map_entries(m1), ...)) of maps of one type; a key in two maps fails (DUPLICATED_MAP_KEY)", mapConcatFn),
	custom("conv", "the digits of fromBase read as an unsigned 64-bit number and written in toBase as Spark's NumberConverter does (constant bases; overflow fails in ANSI mode)", convFn),
	custom("bin", "bin(CAST(x AS BIGINT)), two's complement for a negative number", binFn),
	custom("shiftleft", "Java's << of an int or long (the count modulo 32 or 64, wrapping)", shiftFn("shiftleft")),
	custom("shiftright", "Java's >> of an int or long (the count modulo 32 or 64)", shiftFn("shiftright")),
	custom("shiftrightunsigned", "Java's >>> of an int or long (the count modulo 32 or 64)", shiftFn("shiftrightunsigned")),
	custom("getbit", "(x >> pos) & 1 as TINYINT; a pos outside the type's bits fails (BIT_POSITION_RANGE)", getbitFn, "bit_get"),
	custom("octet_length", "strlen(s) (UTF-8 bytes), octet_length(b), as INTEGER", byteLengthFn(1)),
	custom("bit_length", "strlen(s) * 8, octet_length(b) * 8, as INTEGER", byteLengthFn(8)),
	custom("chr", "chr(n % 256), '' for a negative n", chrFn, "char"),
	custom("ilike", "s ILIKE pattern", ilikeFn),
	custom("overlay", "left(s, pos - 1) || r || substr(s, pos + len), len r's length by default", overlayFn),
	custom("url_encode", "Java's URLEncoder: letters, digits and .-*_ kept, + for a space, %XX for each other UTF-8 byte", urlEncodeFn),
	custom("url_decode", "Java's URLDecoder: + a space, %XX a byte, UTF-8; a malformed % fails (CANNOT_DECODE_URL)", urlDecodeFn(false)),
	custom("try_url_decode", "as url_decode, NULL for a malformed %", urlDecodeFn(true)),
	custom("array_remove", "list_filter(a, lambda v: v IS NULL OR v <> x), NULL for a NULL x", arraySetFn("array_remove")),
	custom("array_union", "the distinct elements of a then b, in order (one NULL)", arraySetFn("array_union")),
	custom("array_intersect", "the distinct elements of a that b holds, in a's order", arraySetFn("array_intersect")),
	custom("array_except", "the distinct elements of a that b does not hold, in a's order", arraySetFn("array_except")),
	custom("cot", "1 / tan(x) in doubles", cotFn),
	custom("asinh", "log(x + sqrt(x * x + 1)), Spark's formula, in doubles", invHyperbolicFn("asinh")),
	custom("acosh", "log(x + sqrt(x * x - 1)), Spark's formula, in doubles (NaN below 1)", invHyperbolicFn("acosh")),
	custom("sec", "1 / cos(x) in doubles", reciprocalFn("cos")),
	custom("csc", "1 / sin(x) in doubles", reciprocalFn("sin")),
	custom("json_object_keys", "json_keys(s) of a valid object, NULL otherwise; a text Jackson may read otherwise fails as not portable", jsonObjectKeysFn),
	refused("json_tuple", "json_tuple does not run natively yet"),
	custom("to_csv", "the struct's fields joined with commas as Spark's CSV writer writes them (NULL as nothing, \"\" for an empty string, quotes around a comma or a quote); strings the writer trims or escapes otherwise fail as not portable", toCSVFn),
	custom("schema_of_json", "the schema Spark infers for a constant JSON text (BIGINT, DECIMAL(p,0), DOUBLE, STRING, BOOLEAN, sorted STRUCT fields, ARRAY of the elements' common type), as a constant", schemaOfJSONFn),
	custom("from_csv", "the record split at commas, each field converted as Spark's CSV reader does (PERMISSIVE: NULL where it does not convert), for a constant schema of INT, BIGINT, SMALLINT, TINYINT, BOOLEAN, STRING, DOUBLE, FLOAT and DECIMAL fields; quotes and backslashes fail as not portable", fromCSVFn),
	custom("schema_of_csv", "the schema Spark infers for a constant record (INT, BIGINT, DOUBLE, DATE, BOOLEAN, STRING), as a constant", schemaOfCSVFn),
	custom("from_json", "the JSON read as Spark's PERMISSIVE mode reads it, for a constant schema of INT, BIGINT, SMALLINT, BOOLEAN, STRING, structs, arrays and maps; where Spark's reading is not certain to be the native one, fails as not portable", fromJSONFn),
	custom("to_json", "the JSON text built from the value as Spark writes it: no spaces, a struct's NULL fields left out, Jackson's escapes; options, dates, timestamps and floats refused", toJSONFn),
	refused("months_between", "months_between's day-fraction rules do not run natively yet"),
	refused("format_number", "Java's number formatting does not run natively"),
	custom("format_string", "Java's Formatter over a literal pattern: %s %S %b %d %x %X %o %% %n with argument indexes (n$, <), flags, width and precision, pieces joined with ||; other conversions refused", formatStringFn, "printf"),
	custom("window", "struct_pack(start := time_bucket(width, ts, epoch), end := start + width) for a tumbling window", windowFn),
	refused("session_window", "a session window's end depends on the rows after it, which the native engine does not compute"),
}

// null is the placeholder of a refused call.
func null(c ast.Node) frag { return at(c, tUnknown, cat("NULL")) }

// arity checks a call's argument count, refusing it otherwise.
func (t *tr) arity(c *ast.Call, a []frag, lo, hi int) bool {
	if len(a) < lo || len(a) > hi {
		if lo == hi {
			t.refuse(c, "%s takes %d argument(s)", c.Name.String(), lo)
		} else {
			t.refuse(c, "%s takes %d to %d arguments", c.Name.String(), lo, hi)
		}
		return false
	}
	return true
}

// hofs are the higher-order functions.
var hofs = map[string]bool{"map_filter": true, "map_zip_with": true, "transform_keys": true, "transform_values": true, "zip_with": true, "transform": true, "filter": true, "exists": true, "forall": true, "aggregate": true, "reduce": true}

// call translates a function call.
func (t *tr) call(c *ast.Call) frag {
	name := strings.ToLower(c.Name.String())
	if len(c.Name.Parts) > 1 {
		t.refuse(c.Name, "a qualified function name does not run natively")
		return null(c)
	}
	if c.Form == "UNIT" {
		t.refuse(c, "%s(unit, ...) does not run natively yet", name)
		return null(c)
	}
	if zoneFunctions[name] && t.zoneDependent(c, name) {
		return null(c)
	}
	f := funcIndex[name]
	if f == nil {
		if t.opts.Macros[name] {
			args := t.args(c)
			return t.decorate(c, at(c, tUnknown, cat(name+"(", args, ")")))
		}
		if !t.duckOnly(c.Name, name, len(c.Args)) {
			t.refuse(c.Name, "Thund does not translate the function %s, so it does not run natively (docs/spark-compat.md lists the functions that do)", name)
		}
		for _, a := range c.Args {
			if _, ok := a.(*ast.Lambda); !ok {
				t.expr(a)
			}
		}
		return null(c)
	}
	if f.Refused != "" {
		t.refuse(c.Name, "%s does not run natively: %s", name, f.Refused)
		return null(c)
	}
	if hofs[f.Name] {
		return t.hof(f.Name, c)
	}
	if c.Nulls == "IGNORE" && c.Over == nil {
		t.refuse(c, "IGNORE NULLS does not run natively outside a window")
	}
	if params := namedParams[f.Name]; params != nil && hasNamedArg(c) {
		pc, ok := t.positional(c, params)
		if !ok {
			return null(c)
		}
		c = pc
	}
	args := t.args(c)
	if intervalArgs[f.Name] && t.mixedIntervalArgs(f.Name, c, args) {
		return null(c)
	}
	if iv, ok := t.intervalAgg(f.Name, c, args); ok {
		return iv
	}
	if !intervalArgs[f.Name] {
		for i, x := range args {
			if x.typ.has(IntervalKind) {
				t.refuse(c.Args[i], "%s of an interval does not run natively: Spark's ANSI interval types (INTERVAL DAY TO SECOND, INTERVAL YEAR TO MONTH) are not DuckDB's INTERVAL", name)
				return null(c)
			}
		}
	}
	if f.doubleArgs {
		for i, x := range args {
			if x.typ.is(String) {
				y := c.Args[i]
				args[i] = t.cast(&ast.Cast{Range: y.Span(), Form: "CAST", X: y, Type: &ast.DataType{Range: y.Span(), Name: "DOUBLE"}})
			}
		}
	}
	var out frag
	switch {
	case f.fn != nil:
		out = f.fn(t, c, args)
		if out.m == nil && out.s != "" && !strings.Contains(out.s, "(") {
			// A rename: the function returned DuckDB's name only.
			out = at(c, out.typ, cat(out.s+"(", t.distinct(c), args, t.withinGroup(c), ")"))
		}
	default:
		duck := f.DuckDB[:strings.IndexByte(f.DuckDB, '(')]
		ty := tUnknown
		if f.ret != nil {
			ty = f.ret(args)
		}
		out = at(c, ty, cat(duck+"(", t.distinct(c), args, t.ignoreNulls(c), t.withinGroup(c), ")"))
		if ty.is(Int) {
			// DuckDB's length, rank, row_number, ntile, levenshtein, ...
			// give a BIGINT where Spark's give an INT.
			return at(c, ty, cat("CAST(", t.decorate(c, out), " AS INTEGER)"))
		}
	}
	return t.decorate(c, out)
}

// args translates a call's arguments (the value of a named one).
func (t *tr) args(c *ast.Call) []frag {
	out := make([]frag, len(c.Args))
	for i, a := range c.Args {
		if na, ok := a.(*ast.NamedArg); ok && strings.EqualFold(c.Name.String(), "struct") {
			out[i] = t.expr(na.Value)
			continue
		}
		if st, ok := a.(*ast.Star); ok && !strings.EqualFold(c.Name.String(), "count") {
			// DuckDB's [*] is an empty list, its struct_pack(*) an error.
			t.refuse(st, "a * among the arguments of %s does not run natively; list the columns", c.Name.String())
			out[i] = null(st)
			continue
		}
		out[i] = t.expr(a)
	}
	return out
}

func (t *tr) distinct(c *ast.Call) string {
	if c.Quantifier == "DISTINCT" {
		return "DISTINCT "
	}
	return ""
}

func (t *tr) ignoreNulls(c *ast.Call) string {
	if c.Nulls == "IGNORE" && c.Over != nil {
		return " IGNORE NULLS"
	}
	return ""
}

func (t *tr) withinGroup(c *ast.Call) frag {
	if len(c.WithinGroup) == 0 {
		return cat("")
	}
	return cat(" ORDER BY ", t.sortItems(c.WithinGroup))
}

// decorate adds a call's FILTER and OVER clauses.
func (t *tr) decorate(c *ast.Call, f frag) frag {
	ty := f.typ
	if c.Over != nil {
		t.windowCallChecks(c)
	}
	if c.Filter != nil && !strings.Contains(f.s, " FILTER (WHERE") {
		f = cat(f, " FILTER (WHERE ", t.expr(c.Filter), ")")
	}
	if c.Over != nil {
		if c.Over.Ref != nil && len(c.Over.PartitionBy) == 0 && len(c.Over.OrderBy) == 0 && c.Over.Frame == nil {
			f = cat(f, " OVER "+quoteIdent(c.Over.Ref.Name))
		} else {
			f = cat(f, " OVER (", t.windowBody(c.Over), ")")
		}
	}
	return at(c, ty, f)
}

func countFn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) == 0 || (len(c.Args) == 1 && isStar(c.Args[0])) {
		return at(c, tBigInt, cat("count(*)"))
	}
	if c.Quantifier == "DISTINCT" && len(a) > 1 {
		conds := make([]frag, len(a))
		for i, x := range a {
			conds[i] = cat(x, " IS NOT NULL")
		}
		return at(c, tBigInt, cat("count(DISTINCT CASE WHEN ", join(conds, " AND "), " THEN row(", a, ") END)"))
	}
	if len(a) > 1 {
		conds := make([]frag, len(a))
		for i, x := range a {
			conds[i] = cat(x, " IS NOT NULL")
		}
		return at(c, tBigInt, cat("count(CASE WHEN ", join(conds, " AND "), " THEN 1 END)"))
	}
	return at(c, tBigInt, cat("count(", t.distinct(c), a[0], ")"))
}

func isStar(x ast.Expr) bool {
	s, ok := x.(*ast.Star)
	return ok && s.Qualifier == nil
}

func sumFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	try := strings.HasPrefix(strings.ToLower(c.Name.String()), "try_")
	kw := "CAST"
	if try {
		kw = "TRY_CAST"
	}
	x := a[0]
	inner := cat("sum(", t.distinct(c), x, ")")
	inner = t.filterInto(c, inner)
	switch {
	case x.typ.integral():
		return at(c, tBigInt, t.overCast(c, kw, inner, "BIGINT"))
	case x.typ.is(Decimal):
		ty := decimalOf(min(38, x.typ.P+10), x.typ.S)
		if try && x.typ.P+10 > 38 && c.Over == nil && c.Quantifier != "DISTINCT" {
			return at(c, ty, t.wideDecimalTrySum(c, x, ty))
		}
		return at(c, ty, t.overCast(c, kw, inner, ty.duck()))
	case x.typ.fractional():
		return at(c, tDouble, t.overCast(c, "CAST", inner, "DOUBLE"))
	case x.typ.is(String):
		t.refuse(c.Args[0], "sum of a string does not run natively; cast it to a number first")
	case !x.typ.known():
		t.refuse(c.Args[0], "sum's result type (BIGINT for integers, DECIMAL for decimals) depends on the type of %s, which is not known here", t.text(c.Args[0]))
	}
	return at(c, tUnknown, t.overCast(c, "CAST", inner, "DOUBLE"))
}

// filterInto adds the FILTER clause to an aggregate the translation wraps
// (decorate then leaves it alone).
func (t *tr) filterInto(c *ast.Call, f frag) frag {
	if c.Filter != nil {
		return cat(f, " FILTER (WHERE ", t.expr(c.Filter), ")")
	}
	return f
}

// overCast casts an aggregate, putting the window inside the cast.
func (t *tr) overCast(c *ast.Call, kw string, inner frag, typ string) frag {
	if c.Over != nil {
		if c.Over.Ref != nil && len(c.Over.PartitionBy) == 0 && len(c.Over.OrderBy) == 0 && c.Over.Frame == nil {
			inner = cat(inner, " OVER "+quoteIdent(c.Over.Ref.Name))
		} else {
			inner = cat(inner, " OVER (", t.windowBody(c.Over), ")")
		}
		c.Over = nil
	}
	return cat(kw+"(", inner, " AS "+typ+")")
}

func avgFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	x := a[0]
	inner := t.filterInto(c, cat("avg(", t.distinct(c), x, ")"))
	switch {
	case x.typ.is(Decimal):
		ty := decimalOf(min(38, x.typ.P+4), min(38, x.typ.S+4))
		return at(c, ty, t.overCast(c, "CAST", inner, ty.duck()))
	case x.typ.numeric():
		return at(c, tDouble, t.overCast(c, "CAST", inner, "DOUBLE"))
	case !x.typ.known():
		t.refuse(c.Args[0], "avg's result type (DECIMAL for decimals) depends on the type of %s, which is not known here", t.text(c.Args[0]))
	default:
		t.refuse(c.Args[0], "avg of %s does not run natively", x.typ)
	}
	return at(c, tDouble, t.overCast(c, "CAST", inner, "DOUBLE"))
}

// varianceFn translates the variance family. DuckDB's var_pop updates its
// squared deviations with another formula than Spark's CentralMomentAgg
// and, over a window frame, combines partial results in another order, so
// the last digits differ (13868.75 where Spark has 13868.750000000002).
// Over a window frame the translation collects the frame's values in
// order and runs Spark's update on them (thund_moments), which is what
// Spark computes for a frame. For a group, whose rows Spark updates per
// partition and then merges in an order of its plan, it computes the
// mean and then the squared deviations from it (thund_moments2), the
// value Spark's merged result comes closest to (var_pop of 100000003,
// 100000004, 100000006, 100000007 is 2.5 on Spark 4.1.4, 2.5000000049...
// row by row).
func varianceFn(macro string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		x := a[0]
		if x.typ.known() && !x.typ.numeric() && !x.typ.is(Null) {
			t.refuse(c.Args[0], "%s of %s does not run natively", strings.ToLower(c.Name.String()), x.typ)
		}
		inner := t.filterInto(c, cat("list(", t.distinct(c), "CAST(", x, " AS DOUBLE))"))
		moments := "thund_moments2("
		if c.Over != nil {
			moments = "thund_moments("
			if c.Over.Ref != nil && len(c.Over.PartitionBy) == 0 && len(c.Over.OrderBy) == 0 && c.Over.Frame == nil {
				inner = cat(inner, " OVER "+quoteIdent(c.Over.Ref.Name))
			} else {
				inner = cat(inner, " OVER (", t.windowBody(c.Over), ")")
			}
			c.Over = nil
		}
		return at(c, tDouble, cat(macro+"("+moments, inner, "))"))
	}
}

func collectFn(set bool) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		d := ""
		if set || c.Quantifier == "DISTINCT" {
			d = "DISTINCT "
		}
		cond := cat(a[0], " IS NOT NULL")
		if c.Filter != nil {
			cond = cat("(", cond, ") AND (", t.expr(c.Filter), ")")
			c.Filter = nil
		}
		inner := cat("list("+d, a[0], ") FILTER (WHERE ", cond, ")")
		if c.Over != nil {
			inner = cat(inner, " OVER (", t.windowBody(c.Over), ")")
			c.Over = nil
		}
		return at(c, arrayOf(a[0].typ), cat("coalesce(", inner, ", [])"))
	}
}

func ceilFloor(fn string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 2) {
			return null(c)
		}
		if len(a) == 2 {
			t.refuse(c, "%s with a scale does not run natively", fn)
			return null(c)
		}
		switch {
		case a[0].typ.is(Decimal):
			ty := decimalOf(min(38, a[0].typ.P-a[0].typ.S+1), 0)
			return at(c, ty, cat("CAST("+fn+"(", a[0], ") AS "+ty.duck()+")"))
		case a[0].typ.numeric():
			return at(c, tBigInt, cat("CAST("+fn+"(", a[0], ") AS BIGINT)"))
		}
		return at(c, tBigInt, cat("CAST("+fn+"(", a[0], ") AS BIGINT)"))
	}
}

func trimFn(name string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		// A local copy: a TRIM(TRAILING ...) must not change how the
		// next trim(s) translates.
		fn := name
		switch c.TrimSide {
		case "LEADING":
			fn = "ltrim"
		case "TRAILING":
			fn = "rtrim"
		case "BOTH":
			fn = "trim"
		}
		if !t.arity(c, a, 1, 2) {
			return null(c)
		}
		for i, x := range a {
			if x.typ.is(Binary) {
				// Spark reads the bytes as a string (UTF-8); bytes that
				// are not UTF-8 fail natively.
				a[i] = at(c.Args[i], tString, cat("decode(", x, ")"))
			}
		}
		if len(a) == 1 {
			return at(c, tString, cat(fn+"(", a[0], ", ' ')"))
		}
		if c.Form == "TRIM" {
			// TRIM(chars FROM s) holds s first.
			return at(c, tString, cat(fn+"(", a[0], ", ", a[1], ")"))
		}
		return at(c, tString, cat(fn+"(", a[0], ", ", a[1], ")"))
	}
}

func substringFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 2, 3) {
		return null(c)
	}
	pos := cat("CASE WHEN ", a[1], " = 0 THEN 1 ELSE ", a[1], " END")
	if len(a) == 2 {
		return at(c, tString, cat("substring(", a[0], ", ", pos, ")"))
	}
	// A negative start counts from the end: keep len characters of the
	// ones that remain (Spark clips a start before the beginning).
	return at(c, tString, cat("CASE WHEN ", a[2], " < 1 THEN CASE WHEN ", a[0], " IS NULL OR ", a[1], " IS NULL THEN NULL ELSE '' END ELSE substring(", a[0], ", ", pos, ", ", a[2], ") END"))
}

func locateFn(t *tr, c *ast.Call, a []frag) frag {
	// POSITION(sub IN s) and position(sub, s[, pos]) take sub first, as
	// locate does; a NULL position gives 0, as in Spark.
	if !t.arity(c, a, 2, 3) {
		return null(c)
	}
	if len(a) == 2 {
		return at(c, tInt, cat("CAST(instr(", a[1], ", ", a[0], ") AS INTEGER)"))
	}
	s, sub, p := a[1], a[0], a[2]
	return at(c, tInt, cat("CAST(CASE WHEN ", p, " IS NULL THEN 0 WHEN ", p, " < 1 THEN 0 WHEN instr(substring(", s, ", ", p, "), ", sub, ") = 0 THEN 0 ELSE instr(substring(", s, ", ", p, "), ", sub, ") + ", p, " - 1 END AS INTEGER)"))
}

func padFn(fn string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 3) {
			return null(c)
		}
		if out, ok := t.binaryPad(fn, c, a); ok {
			return out
		}
		pad := cat("' '")
		if len(a) == 3 {
			pad = a[2]
		}
		// Spark gives s cut to n for an empty pad, '' for n <= 0.
		return at(c, tString, cat("CASE WHEN ", a[1], " <= 0 THEN CASE WHEN ", a[0], " IS NULL OR ", pad, " IS NULL THEN NULL ELSE '' END WHEN ", pad, " = '' THEN left(", a[0], ", ", a[1], ") ELSE system.main."+fn+"(", a[0], ", ", a[1], ", ", pad, ") END"))
	}
}

func concatFn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) == 0 {
		return at(c, tString, cat("''"))
	}
	arrays := false
	for _, x := range a {
		if x.typ.is(Array) {
			arrays = true
		}
	}
	if arrays {
		conds := make([]frag, len(a))
		for i, x := range a {
			conds[i] = cat(x, " IS NULL")
		}
		return at(c, widenArgs(a), cat("CASE WHEN ", join(conds, " OR "), " THEN NULL ELSE list_concat(", a, ") END"))
	}
	parts := make([]frag, len(a))
	for i, x := range a {
		parts[i] = t.asString(x)
	}
	return at(c, tString, cat("CAST((", join(parts, " || "), ") AS VARCHAR)"))
}

func concatWSFn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) < 1 {
		t.refuse(c, "concat_ws takes a separator")
		return null(c)
	}
	sep := a[0]
	parts := []frag{sep}
	for _, x := range a[1:] {
		if x.typ.is(Array) {
			parts = append(parts, cat("nullif(array_to_string(", x, ", ", sep, "), '')"))
		} else {
			parts = append(parts, t.asString(x))
		}
	}
	if len(a) == 1 {
		return at(c, tString, cat("CASE WHEN ", sep, " IS NULL THEN NULL ELSE '' END"))
	}
	return at(c, tString, cat("concat_ws(", parts, ")"))
}

// regex translates a regular expression argument, which must be a string
// literal whose Java meaning RE2 shares.
func (t *tr) regex(x ast.Expr) frag {
	l, ok := x.(*ast.Literal)
	if !ok || l.Kind != ast.LitString {
		t.refuse(x, "the regular expression must be a string literal natively (Java and RE2 regular expressions differ, so Thund checks it)")
		return cat("''")
	}
	re, err := javaRegex(l.Str.Value)
	if err != nil {
		t.refuse(x, "this Java regular expression uses %s, which DuckDB's RE2 engine does not have", err)
		return cat("''")
	}
	return at(l, tString, cat(quoteString(re)))
}

func splitFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 2, 3) {
		return null(c)
	}
	if len(a) == 3 {
		n, ok := intConst(c.Args[2])
		if !ok {
			t.refuse(c.Args[2], "split's limit runs natively as an integer literal only")
			return null(c)
		}
		if n > 0 {
			return t.splitLimit(c, a, n)
		}
	}
	if l, ok := c.Args[1].(*ast.Literal); ok && l.Kind == ast.LitString && l.Str.Value == "" {
		return at(c, arrayOf(tString), cat("string_split(", a[0], ", '')"))
	}
	return at(c, arrayOf(tString), cat("regexp_split_to_array(", a[0], ", ", t.regex(c.Args[1]), ")"))
}

func regexpExtractFn(fn string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 3) {
			return null(c)
		}
		idx := cat("1")
		if len(a) == 3 {
			l, ok := c.Args[2].(*ast.Literal)
			if !ok || l.Kind != ast.LitInteger {
				t.refuse(c.Args[2], "the group index must be an integer literal natively")
			}
			idx = a[2]
		}
		ty := tString
		if fn == "regexp_extract_all" {
			ty = arrayOf(tString)
		}
		if n, groups, ok := groupIndex(c); ok && (n < 0 || n > groups) {
			// Spark's golden files (regexp-functions.sql):
			// regexp_extract('1a 2b 14m', '\\d+') fails, the default
			// group 1 being past the pattern's none.
			t.typeError(c, "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX", "The value of parameter(s) `idx` in `%s` is invalid: Expects group index between 0 and %d, but got %d. SQLSTATE: 22023", fn, groups, n)
			return null(c)
		}
		out := cat(fn+"(", a[0], ", ", t.regex(c.Args[1]), ", ", idx, ")")
		if fn == "regexp_extract_all" {
			// A group that takes part in no match is '' on Spark, NULL
			// in DuckDB's list.
			out = cat("list_transform(", out, ", lambda g: coalesce(g, ''))")
		}
		return at(c, ty, out)
	}
}

// groupIndex reads regexp_extract's group index (1 when not given) and
// counts the capturing groups of its pattern, when both are literals and
// the pattern compiles as Go reads it (the count agrees with Java's for
// such patterns).
func groupIndex(c *ast.Call) (idx, groups int, ok bool) {
	p, isLit := c.Args[1].(*ast.Literal)
	if !isLit || p.Kind != ast.LitString {
		return 0, 0, false
	}
	re, err := regexp.Compile(p.Str.Value)
	if err != nil {
		return 0, 0, false
	}
	idx = 1
	if len(c.Args) == 3 {
		l, isLit := c.Args[2].(*ast.Literal)
		if !isLit || l.Kind != ast.LitInteger {
			return 0, 0, false
		}
		n, err := strconv.Atoi(l.Text)
		if err != nil {
			return 0, 0, false
		}
		idx = n
	}
	return idx, re.NumSubexp(), true
}

func regexpReplaceFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 3, 4) {
		return null(c)
	}
	pos := int64(1)
	if len(a) == 4 {
		if isNullLit(c.Args[3]) {
			return at(c, tString, cat("CAST(NULL AS VARCHAR)"))
		}
		n, ok := intConst(c.Args[3])
		if !ok {
			t.refuse(c.Args[3], "regexp_replace's position runs natively as an integer literal only")
			return null(c)
		}
		if n <= 0 {
			t.typeError(c, "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE", "Cannot resolve \"%s\" due to data type mismatch: The `position` must be between (0, 2147483647] (current value = %d). SQLSTATE: 42K09", t.text(c), n)
			return null(c)
		}
		pos = n
	}
	l, ok := c.Args[2].(*ast.Literal)
	if !ok || l.Kind != ast.LitString {
		t.refuse(c.Args[2], "the replacement must be a string literal natively")
		return null(c)
	}
	rep, err := javaReplacement(l.Str.Value)
	if err != nil {
		t.refuse(c.Args[2], "this replacement uses %s, which does not run natively", err)
		return null(c)
	}
	if pos > 1 {
		// Spark matches in the region from the position on (where ^
		// matches), keeping the text before it.
		p := strconv.FormatInt(pos, 10)
		return at(c, tString, cat("list_transform([", a[0], "], lambda s: CASE WHEN length(s) < "+p+" THEN s ELSE left(s, "+p+" - 1) || regexp_replace(substr(s, "+p+"), ", t.regex(c.Args[1]), ", "+quoteString(rep)+", 'g') END)[1]"))
	}
	return at(c, tString, cat("regexp_replace(", a[0], ", ", t.regex(c.Args[1]), ", "+quoteString(rep)+", 'g')"))
}

// pattern converts a literal datetime pattern argument into the SQL of
// its strftime format, or of its strptime formats (a list, tried in
// order, for an optional section).
func (t *tr) pattern(x ast.Expr, parse bool) (string, bool) {
	return t.patternOf(x, parse, nil)
}

// patternOf is pattern; with yearless set, a parsing pattern without a
// year field is read with "yyyy " before it and *yearless set.
func (t *tr) patternOf(x ast.Expr, parse bool, yearless *bool) (string, bool) {
	l, ok := x.(*ast.Literal)
	if !ok || l.Kind != ast.LitString {
		t.refuse(x, "the datetime pattern must be a string literal natively")
		return "", false
	}
	text := l.Str.Value
	if pe := checkSparkPattern(text, parse); pe != nil {
		t.typeError(x, pe.class, "%s", pe.msg)
		return "", false
	}
	if parse {
		why := parseOnly(text)
		if why == noYear && yearless != nil {
			// Spark takes the year 1970: the caller reads "1970 "
			// before the text.
			*yearless, text, why = true, "yyyy "+text, ""
		}
		if why != "" {
			t.refuse(x, "this datetime pattern %s, which Thund does not translate for parsing", why)
			return "", false
		}
	}
	fs, err := datetimeFormats(text, parse)
	if err != nil {
		t.refuse(x, "this datetime pattern uses %s, which Thund does not translate (docs/spark-compat.md lists the letters it does)", err)
		return "", false
	}
	if len(fs) == 1 {
		return quoteString(fs[0]), true
	}
	qs := make([]string, len(fs))
	for i, f := range fs {
		qs[i] = quoteString(f)
	}
	return "[" + strings.Join(qs, ", ") + "]", true
}

// parseOnly says what a Java datetime pattern uses that parses
// differently natively ("" for nothing), as seen on Spark's SQL test
// corpus: without a year field Spark takes 1970 (DuckDB 1900); a two-
// or three-letter year reads 2000 + yy (DuckDB's %y reads 69-99 as 19xx);
// D, the day of the year, DuckDB's strptime reads without the month.
func parseOnly(pattern string) string {
	quoted := false
	year := false
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == '\'' {
			quoted = !quoted
			continue
		}
		if quoted {
			continue
		}
		n := 1
		for i+n < len(rs) && rs[i+n] == r {
			n++
		}
		switch r {
		case 'y', 'u', 'Y':
			year = true
			if n == 2 || n == 3 {
				return "has a year of " + strconv.Itoa(n) + " letters (Spark reads it as 2000 + the digits)"
			}
		case 'D':
			return "has D, the day of the year"
		}
		i += n - 1
	}
	if !year {
		return noYear
	}
	return ""
}

// noYear is parseOnly's reason for a pattern without a year field.
const noYear = "has no year (Spark takes 1970)"

// yearlessParse switches on the parse of a pattern without a year field
// in 1970 (to_date('16', 'dd') is 1970-01-16 on Spark 4.1.3's golden
// files, date.sql and timestamp.sql; traps_test.go's trap "a parse
// pattern without a year" records Spark 4.1.4's value).
const yearlessParse = true

// parsePattern is pattern for parsing, with a pattern that has no year
// field read as Spark reads it, in 1970: text is the SQL of the text to
// parse, prefixed with "1970 " for such a pattern.
func (t *tr) parsePattern(x ast.Expr, text frag) (string, frag, bool) {
	yearless := false
	var flag *bool
	if yearlessParse {
		flag = &yearless
	}
	p, ok := t.patternOf(x, true, flag)
	if yearless {
		text = cat("'1970 ' || ", text)
	}
	return p, text, ok
}

func dateFormatFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 2, 2) {
		return null(c)
	}
	if l, ok := unparenExpr(c.Args[1]).(*ast.Literal); ok && l.Kind == ast.LitString && l.Str.Value == "" {
		// An empty pattern formats every value as '' (strftime
		// rejects an empty format).
		return at(c, tString, cat("CASE WHEN ", a[0], " IS NULL THEN NULL ELSE '' END"))
	}
	p, ok := t.pattern(c.Args[1], false)
	if !ok {
		return null(c)
	}
	return at(c, tString, cat("strftime(CAST(", a[0], " AS TIMESTAMP), "+p+")"))
}

// fromUnixtimeFn is from_unixtime(sec[, fmt]): the instant sec seconds
// after the epoch written as a STRING in the session zone (UTC natively;
// another zone is refused) with fmt, yyyy-MM-dd HH:mm:ss by default.
// Spark reads sec as a BIGINT; natively an integer of a known type only.
func fromUnixtimeFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 2) || t.zoneDependent(c, "from_unixtime") {
		return null(c)
	}
	p := "'%Y-%m-%d %H:%M:%S'"
	if len(a) == 2 {
		var ok bool
		if p, ok = t.pattern(c.Args[1], false); !ok {
			return null(c)
		}
	}
	x := a[0]
	switch {
	case x.typ.is(Null):
		return at(c, tString, cat("CAST(NULL AS VARCHAR)"))
	case x.typ.fractional():
		// Spark casts it to BIGINT, dropping the fraction.
		x = cat("trunc(", x, ")")
	case x.typ.known() && !x.typ.integral():
		t.refuse(c.Args[0], "from_unixtime runs natively over a number of seconds; %s is not one here (cast it to BIGINT)", t.text(c.Args[0]))
		return null(c)
	}
	return at(c, tString, cat("strftime(make_timestamp(CAST(", x, " AS BIGINT) * 1000000), "+p+")"))
}

func toDateFn(try bool) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 2) {
			return null(c)
		}
		kw, fn := "CAST", "strptime"
		if try || !t.ansi() {
			kw, fn = "TRY_CAST", "try_strptime"
		}
		if len(a) == 1 {
			if a[0].typ.is(String) {
				return at(c, tDate, cat(kw+"(", a[0], " AS DATE)"))
			}
			return at(c, tDate, cat("CAST(", a[0], " AS DATE)"))
		}
		if dp, ok := dayOfYearPattern(c.Args[1]); ok {
			if out, ok := t.dayOfYearParse(c, cat("CAST(", a[0], " AS VARCHAR)"), dp, try); ok {
				return at(c, tDate, cat("CAST(", out, " AS DATE)"))
			}
		}
		p, text, ok := t.parsePattern(c.Args[1], cat("CAST(", a[0], " AS VARCHAR)"))
		if !ok {
			return null(c)
		}
		return at(c, tDate, cat("CAST("+fn+"(", text, ", "+p+") AS DATE)"))
	}
}

func toTimestampFn(try bool) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 2) {
			return null(c)
		}
		kw, fn := "CAST", "strptime"
		if try || !t.ansi() {
			kw, fn = "TRY_CAST", "try_strptime"
		}
		if len(a) == 1 {
			if a[0].typ.numeric() {
				if t.zoneDependent(c, "to_timestamp of a number (seconds since the epoch)") {
					return null(c)
				}
				return at(c, tTS, cat("make_timestamp(CAST(round(CAST(", a[0], " AS DOUBLE) * 1000000) AS BIGINT))"))
			}
			return at(c, tTS, cat(kw+"(", a[0], " AS TIMESTAMP)"))
		}
		if dp, ok := dayOfYearPattern(c.Args[1]); ok {
			if out, ok := t.dayOfYearParse(c, cat("CAST(", a[0], " AS VARCHAR)"), dp, try); ok {
				return out
			}
		}
		p, text, ok := t.parsePattern(c.Args[1], cat("CAST(", a[0], " AS VARCHAR)"))
		if !ok {
			return null(c)
		}
		out := cat("CAST("+fn+"(", text, ", "+p+") AS TIMESTAMP)")
		if l, ok := c.Args[1].(*ast.Literal); ok && strings.Trim(l.Str.Value, "y") == "" {
			// A pattern of the year alone: Spark reads a year of any
			// number of digits (and fails past 294247,
			// datetime-parsing-invalid.sql: to_timestamp('294248', 'y')),
			// DuckDB's %Y five at most.
			sv := cat("CAST(", a[0], " AS VARCHAR)")
			out = cat("CASE WHEN regexp_full_match(", sv, ", '[0-9]{5,}') THEN CASE WHEN CAST(", sv, " AS HUGEINT) > 294247 THEN error('long overflow: the year ' || ", sv, " || ' is past the last timestamp (294247)')",
				" WHEN CAST(", sv, " AS HUGEINT) >= 1 THEN make_timestamp(CAST(", sv, " AS BIGINT), 1, 1, 0, 0, 0) END ELSE ", out, " END")
		}
		return at(c, tTS, out)
	}
}

func datePart(fn string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		x := a[0]
		if x.typ.is(Time) && (fn == "hour" || fn == "minute" || fn == "second") {
			return timePart(c, fn, x)
		}
		switch fn {
		case "hour", "minute", "second":
			x = cat("CAST(", x, " AS TIMESTAMP)")
		default:
			if !x.typ.is(Timestamp) {
				x = cat("CAST(", x, " AS DATE)")
			}
		}
		return at(c, tInt, cat("CAST("+fn+"(", x, ") AS INTEGER)"))
	}
}

// truncUnits maps Spark's date_trunc units to DuckDB's.
var truncUnits = map[string]string{
	"YEAR": "year", "YYYY": "year", "YY": "year", "QUARTER": "quarter", "MONTH": "month", "MM": "month", "MON": "month",
	"WEEK": "week", "DAY": "day", "DD": "day", "HOUR": "hour", "MINUTE": "minute", "SECOND": "second",
	"MILLISECOND": "millisecond", "MICROSECOND": "microsecond",
}

func (t *tr) unit(x ast.Expr, allowed func(string) bool) (string, bool) {
	l, ok := x.(*ast.Literal)
	if !ok || l.Kind != ast.LitString {
		t.refuse(x, "the unit must be a string literal natively")
		return "", false
	}
	u, ok := truncUnits[strings.ToUpper(l.Str.Value)]
	if !ok || !allowed(u) {
		t.refuse(x, "the unit %q does not run natively (Spark returns NULL for units it does not know)", l.Str.Value)
		return "", false
	}
	return u, true
}

func dateTruncFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 2, 2) {
		return null(c)
	}
	u, ok := t.unit(c.Args[0], func(string) bool { return true })
	if !ok {
		return null(c)
	}
	return at(c, tTS, cat("CAST(date_trunc('"+u+"', CAST(", a[1], " AS TIMESTAMP)) AS TIMESTAMP)"))
}

func truncFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 2, 2) {
		return null(c)
	}
	u, ok := t.unit(c.Args[1], func(u string) bool { return u == "year" || u == "quarter" || u == "month" || u == "week" })
	if !ok {
		return null(c)
	}
	return at(c, tDate, cat("CAST(date_trunc('"+u+"', CAST(", a[0], " AS DATE)) AS DATE)"))
}

// extractFields maps EXTRACT's fields to DuckDB's date_part.
var extractFields = map[string]string{
	"YEAR": "year", "Y": "year", "YEARS": "year", "YR": "year", "YRS": "year",
	"QUARTER": "quarter", "QTR": "quarter", "MONTH": "month", "MON": "month", "MONS": "month", "MONTHS": "month",
	"WEEK": "week", "W": "week", "WEEKS": "week", "DAY": "day", "D": "day", "DAYS": "day",
	"DAYOFYEAR": "dayofyear", "DOY": "dayofyear",
	"HOUR": "hour", "H": "hour", "HOURS": "hour", "HR": "hour", "HRS": "hour",
	"MINUTE": "minute", "M": "minute", "MIN": "minute", "MINS": "minute", "MINUTES": "minute",
}

func extractFn(t *tr, c *ast.Call, a []frag) frag {
	var field string
	var x frag
	switch {
	case c.Unit != nil && len(a) == 1:
		field, x = strings.ToUpper(c.Unit.Name), a[0]
	case len(a) == 2:
		l, ok := c.Args[0].(*ast.Literal)
		if !ok || l.Kind != ast.LitString {
			t.refuse(c.Args[0], "the field must be a string literal natively")
			return null(c)
		}
		field, x = strings.ToUpper(l.Str.Value), a[1]
	default:
		t.refuse(c, "EXTRACT(field FROM x) or date_part('field', x)")
		return null(c)
	}
	if x.typ.is(Time) {
		return t.extractTime(c, field, x)
	}
	ts := cat("CAST(", x, " AS TIMESTAMP)")
	switch field {
	case "DAYOFWEEK", "DOW":
		return at(c, tInt, cat("CAST(dayofweek(", ts, ") + 1 AS INTEGER)"))
	case "DAYOFWEEK_ISO", "DOW_ISO":
		return at(c, tInt, cat("CAST(isodow(", ts, ") AS INTEGER)"))
	case "SECOND", "S", "SEC", "SECONDS", "SECS":
		return at(c, decimalOf(8, 6), cat("CAST(date_part('microsecond', ", ts, ") / 1000000 AS DECIMAL(8, 6))"))
	}
	f, ok := extractFields[field]
	if !ok {
		t.refuse(c, "EXTRACT of %s does not run natively", field)
		return null(c)
	}
	return at(c, tInt, cat("CAST(date_part('"+f+"', ", ts, ") AS INTEGER)"))
}

func sizeFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	n := "len"
	switch {
	case a[0].typ.is(Map):
		n = "cardinality"
	case a[0].typ.is(Array), a[0].typ.is(Null):
	default:
		t.refuse(c.Args[0], "size needs an array or a map, and the type of %s is not known here", t.text(c.Args[0]))
	}
	if !t.ansi() && !strings.EqualFold(c.Name.String(), "array_size") {
		return at(c, tInt, cat("CAST(coalesce("+n+"(", a[0], "), -1) AS INTEGER)"))
	}
	return at(c, tInt, cat("CAST("+n+"(", a[0], ") AS INTEGER)"))
}

func elementAtFn(try bool) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		switch {
		case a[0].typ.is(Map):
			return at(c, a[0].typ.Val, cat("(", a[0], ")[", t.compatible(a[1], a[0].typ.Key), "]"))
		case a[0].typ.is(Array):
			id := t.check(c)
			fn := "thund_element_at"
			if try || !t.ansi() {
				fn = "thund_try_element_at"
			}
			return at(c, a[0].typ.Elem, cat(fn+"(", a[0], ", ", a[1], ", "+strconv.Itoa(id)+")"))
		}
		t.refuse(c.Args[0], "element_at counts from 1 in an array and looks a key up in a map; the type of %s is not known here", t.text(c.Args[0]))
		return null(c)
	}
}

func sequenceFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 2, 3) {
		return null(c)
	}
	if len(a) == 2 {
		if !a[0].typ.integral() || !a[1].typ.integral() {
			t.refuse(c, "sequence without a step runs natively for integers only")
			return null(c)
		}
		return at(c, arrayOf(widen(a[0].typ, a[1].typ)), cat("generate_series(", a[0], ", ", a[1], ", CASE WHEN ", a[0], " <= ", a[1], " THEN 1 ELSE -1 END)"))
	}
	return at(c, arrayOf(widen(a[0].typ, a[1].typ)), cat("generate_series(", a, ")"))
}

func namedStructFn(t *tr, c *ast.Call, a []frag) frag {
	if len(a)%2 != 0 {
		t.refuse(c, "named_struct takes names and values in pairs")
		return null(c)
	}
	st := &Type{Kind: Struct}
	var fields []frag
	for i := 0; i < len(a); i += 2 {
		l, ok := c.Args[i].(*ast.Literal)
		if !ok || l.Kind != ast.LitString {
			t.refuse(c.Args[i], "a field name of named_struct must be a string literal")
			return null(c)
		}
		st.Fields = append(st.Fields, Field{Name: l.Str.Value, Type: a[i+1].typ})
		fields = append(fields, cat(quoteIdent(l.Str.Value)+" := ", a[i+1]))
	}
	return at(c, st, cat("struct_pack(", fields, ")"))
}

func structFn(t *tr, c *ast.Call, a []frag) frag {
	st := &Type{Kind: Struct}
	var fields []frag
	for i, x := range c.Args {
		name := "col" + strconv.Itoa(i+1)
		v := a[i]
		switch x := x.(type) {
		case *ast.NamedArg:
			name = x.Name.Name
		case *ast.Column:
			name = x.Parts[len(x.Parts)-1].Name
		}
		st.Fields = append(st.Fields, Field{Name: name, Type: v.typ})
		fields = append(fields, cat(quoteIdent(name)+" := ", v))
	}
	return at(c, st, cat("struct_pack(", fields, ")"))
}

func roundFn(fn string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 2) {
			return null(c)
		}
		d := 0
		scale := cat("0")
		x := a[0]
		if len(a) == 2 {
			l, ok := c.Args[1].(*ast.Literal)
			if u, neg := c.Args[1].(*ast.Unary); neg && u.Op == "-" {
				l, ok = u.X.(*ast.Literal)
			}
			n, err := strconv.Atoi(strings.TrimSpace(t.text(c.Args[1])))
			if !ok || l.Kind != ast.LitInteger || err != nil {
				t.refuse(c.Args[1], "the scale of %s must be an integer literal natively", c.Name.String())
				return null(c)
			}
			if n < 0 {
				if x.typ.integral() && t.ansi() {
					return at(c, x.typ, roundTens(fn, x, -n))
				}
				t.refuse(c.Args[1], "a negative scale of %s runs natively for integers in ANSI mode only", c.Name.String())
				return null(c)
			}
			d, scale = n, a[1]
		}
		out := cat(fn+"(", x, ", ", scale, ")")
		switch {
		case x.typ.is(Decimal):
			ty := decimalOf(min(38, max(1, x.typ.P-x.typ.S+d+1)), min(d, x.typ.S))
			if d >= x.typ.S {
				ty = x.typ
			}
			return at(c, ty, cat("CAST(", out, " AS "+ty.duck()+")"))
		case x.typ.integral():
			return at(c, x.typ, cat("CAST(", out, " AS "+x.typ.duck()+")"))
		case x.typ.is(Double):
			if r, ok := roundDoubleText(fn, x, d); ok {
				return at(c, x.typ, r)
			}
			return at(c, x.typ, cat("CAST(", out, " AS "+x.typ.duck()+")"))
		case x.typ.fractional():
			return at(c, x.typ, cat("CAST(", out, " AS "+x.typ.duck()+")"))
		}
		t.refuse(c.Args[0], "%s's result type depends on the type of %s, which is not known here", c.Name.String(), t.text(c.Args[0]))
		return null(c)
	}
}

// roundTens rounds the integer x to a multiple of 10^e as Spark's round
// (HALF_UP) or bround (HALF_EVEN) with scale -e does, exactly (as
// HUGEINT), and fails where the result leaves x's type as Spark's
// ARITHMETIC_OVERFLOW does (math.sql: round(127y, -1)).
func roundTens(fn string, x frag, e int) frag {
	if e > 19 {
		// Every BIGINT is below half of 10^20.
		return cat("CAST(0 AS " + x.typ.duck() + ")")
	}
	m := "CAST('" + pow10(e) + "' AS HUGEINT)"
	h := cat("CAST(", x, " AS HUGEINT)")
	away := cat("abs(", h, " % "+m+") * 2 >= "+m)
	if fn != "round" {
		away = cat("(abs(", h, " % "+m+") * 2 > "+m+" OR abs(", h, " % "+m+") * 2 = "+m+" AND abs(", h, " // "+m+") % 2 = 1)")
	}
	name := "round"
	if fn != "round" {
		name = "bround"
	}
	v := cat("((", h, " // "+m+") + CASE WHEN ", away, " THEN sign(", h, ") ELSE 0 END) * "+m)
	return cat("CASE WHEN ", v, " BETWEEN "+minOf(x.typ)+" AND "+maxOf(x.typ)+" THEN CAST(", v, " AS "+x.typ.duck()+") ELSE error('[ARITHMETIC_OVERFLOW] Overflow in "+name+". If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error. SQLSTATE: 22003') END")
}

// minOf and maxOf are the bounds of an integer type, as SQL literals.
func minOf(ty *Type) string {
	return map[Kind]string{TinyInt: "-128", SmallInt: "-32768", Int: "-2147483648", BigInt: "-9223372036854775808"}[ty.Kind]
}

func maxOf(ty *Type) string {
	return map[Kind]string{TinyInt: "127", SmallInt: "32767", Int: "2147483647", BigInt: "9223372036854775807"}[ty.Kind]
}

func tryArith(op string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		o := op
		switch strings.ToLower(c.Name.String()) {
		case "try_subtract":
			o = "-"
		case "try_multiply":
			o = "*"
		}
		b := &ast.Binary{Range: c.Range, Op: o, L: c.Args[0], R: c.Args[1]}
		return t.binaryOf(b, a[0], a[1], true)
	}
}

// hof translates a higher-order function with its lambda.
func (t *tr) hof(name string, c *ast.Call) frag {
	switch name {
	case "map_zip_with":
		return t.mapZipWith(c)
	case "map_filter":
		return t.mapFilter(c)
	case "transform_keys", "transform_values":
		return t.transformMap(name, c)
	case "zip_with":
		return t.zipWith(c)
	}
	if len(c.Args) < 2 {
		t.refuse(c, "%s takes an array and a function", name)
		return null(c)
	}
	arr := t.expr(c.Args[0])
	if !arr.typ.is(Array) {
		t.refuse(c.Args[0], "%s needs an array, and the type of %s is not known here", name, t.text(c.Args[0]))
		return null(c)
	}
	lambda := func(x ast.Expr, types []*Type, indexFrom0 int) (frag, bool) {
		return t.hofLambda(name, x, types, indexFrom0)
	}
	elem := arr.typ.Elem
	switch name {
	case "transform", "filter":
		fn, ok := lambda(c.Args[1], []*Type{elem, tInt}, 1)
		if !ok || name == "filter" && !t.predicate(c, fn) {
			return null(c)
		}
		if name == "transform" {
			return at(c, arrayOf(fn.typ), cat("list_transform(", arr, ", ", fn, ")"))
		}
		return at(c, arr.typ, cat("list_filter(", arr, ", ", fn, ")"))
	case "exists", "forall":
		fn, ok := lambda(c.Args[1], []*Type{elem}, -1)
		if !ok || !t.predicate(c, fn) {
			return null(c)
		}
		return at(c, tBool, cat("thund_"+name+"(list_transform(", arr, ", ", fn, "))"))
	case "aggregate", "reduce":
		if len(c.Args) < 3 || len(c.Args) > 4 {
			t.refuse(c, "%s takes an array, a start value, a merge function and an optional finish function", name)
			return null(c)
		}
		var start frag
		if row, ok := c.Args[1].(*ast.Row); ok {
			start = t.rowStruct(row)
		} else {
			start = t.expr(c.Args[1])
		}
		if start.typ.duck() != elem.duck() || start.typ.duck() == "" {
			// DuckDB's list_reduce keeps its state in the element type.
			return t.aggregateState(name, c, arr, start)
		}
		if l, isLambda := c.Args[2].(*ast.Lambda); isLambda && !t.closedMerge(name, l) {
			return null(c)
		}
		merge, ok := lambda(c.Args[2], []*Type{start.typ, elem}, -1)
		if !ok {
			return null(c)
		}
		red := cat("list_reduce(", arr, ", ", merge, ", ", start, ")")
		if len(c.Args) == 4 {
			fin, ok := lambda(c.Args[3], []*Type{start.typ}, -1)
			if !ok {
				return null(c)
			}
			return at(c, fin.typ, cat("list_transform([", red, "], ", fin, ")[1]"))
		}
		return at(c, start.typ, red)
	}
	t.refuse(c, "%s does not run natively", name)
	return null(c)
}

// hofLambda translates the lambda x of the higher-order function name,
// its parameters of the given types; the parameter at indexFrom0 (-1 for
// none) counts from 0 as Spark's index does, and a parameter with a
// render in renders is written as that SQL.
func (t *tr) hofLambda(name string, x ast.Expr, types []*Type, indexFrom0 int, renders ...string) (frag, bool) {
	l, ok := x.(*ast.Lambda)
	if !ok {
		return t.constLambda(x, types, renders...), true
	}
	body, names, ok := t.lambdaBody(l, types, indexFrom0, renders...)
	if !ok {
		return frag{}, false
	}
	if len(names) == 0 {
		// Every parameter is rendered: DuckDB's lambda takes thund_e,
		// which the renders read.
		names = []string{"thund_e"}
	}
	return at(l, body.typ, cat("lambda "+strings.Join(names, ", ")+": ", body)), true
}

// lambdaBody translates the body of the lambda l as hofLambda does and
// returns it with the names of the parameters that are not rendered.
func (t *tr) lambdaBody(l *ast.Lambda, types []*Type, indexFrom0 int, renders ...string) (frag, []string, bool) {
	if len(l.Params) > len(types) {
		t.refuse(l, "this lambda takes too many parameters")
		return frag{}, nil, false
	}
	own := map[*ast.Ident]bool{}
	for _, p := range l.Params {
		own[p] = true
	}
	outer := false
	ast.Inspect(l.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.Column); ok {
			if ref := t.model.Column(c); ref != nil && ref.Kind == sema.RefLambda && !own[ref.Param] {
				if _, ok := t.lambdas[ref.Param]; ok {
					outer = true
				}
			}
		}
		return !outer
	})
	if outer {
		// DuckDB computes a nested lambda that reads the enclosing
		// lambda's parameter wrongly (seen on Spark's golden files,
		// higher-order-functions.sql).
		t.refuse(l, "a lambda that reads the parameter of an enclosing lambda does not run natively")
		return frag{}, nil, false
	}
	var names []string
	for i, p := range l.Params {
		lp := lamParam{typ: types[i]}
		if i == indexFrom0 {
			lp.render = "CAST(" + quoteIdent(p.Name) + " - 1 AS INTEGER)"
		}
		if i < len(renders) && renders[i] != "" {
			// Not a parameter of DuckDB's lambda: written as this SQL.
			lp.render = renders[i]
		} else {
			names = append(names, quoteIdent(p.Name))
		}
		t.lambdas[p] = lp
	}
	if row, ok := l.Body.(*ast.Row); ok {
		// (a, b) -> a struct, its fields named as Spark names them.
		return t.rowStruct(row), names, true
	}
	return t.expr(l.Body), names, true
}

// orderedWindowFunctions are the window functions Spark's analyzer
// requires an ordered window for.
var orderedWindowFunctions = map[string]bool{
	"row_number": true, "rank": true, "dense_rank": true, "percent_rank": true,
	"cume_dist": true, "ntile": true, "lag": true, "lead": true,
}

// windowCallChecks raises the errors Spark's analyzer raises for a call
// over a window: a ranking function over an unordered window, an
// aggregate with FILTER.
func (t *tr) windowCallChecks(c *ast.Call) {
	name := strings.ToLower(c.Name.String())
	if orderedWindowFunctions[name] && c.Over.Ref == nil && len(c.Over.OrderBy) == 0 {
		t.typeError(c, "_LEGACY_ERROR_TEMP_1037", "Window function %s() requires window to be ordered, please add ORDER BY clause. For example SELECT %s()(value_expr) OVER (PARTITION BY window_partition ORDER BY window_ordering) from table.", name, name)
	}
	if c.Filter != nil {
		t.typeError(c, "_LEGACY_ERROR_TEMP_1030", "Window aggregate function with filter predicate is not supported yet.")
	}
}
