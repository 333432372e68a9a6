package translate

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// bitAggFn is bit_and, bit_or and bit_xor over an integer column: DuckDB's
// aggregates of the same names, which keep the argument's type as Spark's
// do (BIT_XOR of a TINYINT is a TINYINT); NULLs are skipped and no rows
// give NULL on both. Spark takes integers only.
func bitAggFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	x := a[0]
	name := strings.ToLower(c.Name.String())
	switch {
	case x.typ.integral():
	case x.typ.known() && !x.typ.is(Null):
		t.typeError(c, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve \"%s\" due to data type mismatch: The first parameter requires the \"INTEGRAL\" type, however \"%s\" has the type \"%s\". SQLSTATE: 42K09",
			t.text(c), t.text(c.Args[0]), strings.ToUpper(x.typ.String()))
		return null(c)
	default:
		t.refuse(c.Args[0], "%s keeps the type of its argument, and the type of %s is not known here", name, t.text(c.Args[0]))
		return null(c)
	}
	return at(c, x.typ, cat(name+"(", t.distinct(c), x, ")"))
}

// zeroIfNullFn is zeroifnull(x): coalesce(x, 0), of the common type of
// x and INT as Spark's coalesce gives it (a TINYINT becomes an INT). A
// string is read as a number by Spark (and fails when it is not one),
// which is refused here.
func zeroIfNullFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	x := a[0]
	switch {
	case x.typ.is(Null):
		return at(c, tInt, cat("CAST(0 AS INTEGER)"))
	case x.typ.integral() || x.typ.is(Decimal) || x.typ.fractional():
	default:
		t.refuse(c.Args[0], "zeroifnull of a %s does not run natively (Spark reads it as a number); cast it to a number", x.typ)
		return null(c)
	}
	fs := []frag{x, at(c, tInt, cat("CAST(0 AS INTEGER)"))}
	ty := t.unify(c, "coalesce", fs, nil)
	return at(c, ty, cat("coalesce(", fs[0], ", ", fs[1], ")"))
}

// nullIfZeroFn is nullifzero(x): NULL where the number x is 0, else x,
// of x's type. A string, which Spark compares with 0 as a number, is
// refused.
func nullIfZeroFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	x := a[0]
	if !(x.typ.integral() || x.typ.is(Decimal) || x.typ.fractional()) {
		t.refuse(c.Args[0], "nullifzero of a %s does not run natively; cast it to a number", x.typ)
		return null(c)
	}
	return at(c, x.typ, cat("CASE WHEN ", x, " = 0 THEN NULL ELSE ", x, " END"))
}

// binFn is bin(x): the binary digits of x cast to BIGINT as Spark casts
// it (a fraction truncated), a negative number in 64-bit two's
// complement, as DuckDB's bin of a BIGINT writes it.
func binFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	x := a[0]
	switch {
	case x.typ.is(Null):
		return at(c, tString, cat("CAST(NULL AS VARCHAR)"))
	case x.typ.integral():
		return at(c, tString, cat("bin(CAST(", x, " AS BIGINT))"))
	case x.typ.numeric() || x.typ.is(String):
		y := t.cast(&ast.Cast{Range: c.Args[0].Span(), Form: "CAST", X: c.Args[0], Type: &ast.DataType{Range: c.Args[0].Span(), Name: "BIGINT"}})
		return at(c, tString, cat("bin(", y, ")"))
	}
	t.refuse(c.Args[0], "bin of a %s does not run natively", x.typ)
	return null(c)
}

// reciprocalFn is sec(x) = 1 / cos(x) and csc(x) = 1 / sin(x) in
// doubles, as Spark computes them (csc(0) is Infinity).
func reciprocalFn(of string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		x := a[0]
		if !x.typ.numeric() && !x.typ.is(Null) {
			t.refuse(c.Args[0], "%s of a %s does not run natively", strings.ToLower(c.Name.String()), x.typ)
			return null(c)
		}
		return at(c, tDouble, cat("(CAST(1 AS DOUBLE) / "+of+"(CAST(", x, " AS DOUBLE)))"))
	}
}

// cotFn is cot(x) = 1 / tan(x) in doubles, as Spark computes it (cot(0)
// is Infinity), tan being DuckDB's as for tan itself.
func cotFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	x := a[0]
	if !x.typ.numeric() && !x.typ.is(Null) {
		t.refuse(c.Args[0], "cot of a %s does not run natively", x.typ)
		return null(c)
	}
	return at(c, tDouble, cat("(CAST(1 AS DOUBLE) / tan(CAST(", x, " AS DOUBLE)))"))
}

// invHyperbolicFn is asinh(x) = log(x + sqrt(x * x + 1)) (-Infinity for
// -Infinity) and acosh(x) = log(x + sqrt(x * x - 1)), the formulas of
// Spark's Asinh and Acosh, in doubles: NaN where the square root or the
// logarithm has no real value (acosh(0.5)), -Infinity for the logarithm
// of 0, as Java's Math gives them.
func invHyperbolicFn(fn string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		x := a[0]
		if !x.typ.numeric() && !x.typ.is(Null) {
			t.refuse(c.Args[0], "%s of a %s does not run natively", fn, x.typ)
			return null(c)
		}
		sign := "+"
		if fn == "acosh" {
			sign = "-"
		}
		sq := "v * v " + sign + " 1"
		arg := "v + sqrt(" + sq + ")"
		body := "CASE WHEN isnan(v) THEN v WHEN " + sq + " < 0 THEN CAST('NaN' AS DOUBLE)"
		if fn == "asinh" {
			body += " WHEN v = CAST('-Infinity' AS DOUBLE) THEN v"
		}
		body += " WHEN " + arg + " = 0 THEN CAST('-Infinity' AS DOUBLE) WHEN " + arg + " < 0 THEN CAST('NaN' AS DOUBLE) ELSE ln(" + arg + ") END"
		return at(c, tDouble, cat("list_transform([CAST(", x, " AS DOUBLE)], lambda v: "+body+")[1]"))
	}
}
