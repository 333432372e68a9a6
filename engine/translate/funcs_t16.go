package translate

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// t16Registered is set by registerT16Functions, which puts this file's
// functions into the table of funcs.go before its init builds the index
// (the way interval.go registers its own): an entry of the same name is
// replaced, a new name is added.
var t16Registered = registerT16Functions()

func registerT16Functions() bool {
	set := func(f Function) {
		for i := range functions {
			if functions[i].Name == f.Name {
				functions[i] = f
				return
			}
		}
		functions = append(functions, f)
	}
	set(custom("get", "arr[i + 1], NULL out of bounds (i counts from 0); a first argument that is no array fails as on Spark", getFn))
	set(custom("zeroifnull", "coalesce(x, 0) of a number, of Spark's common type of x and INT; a string is read as a BIGINT (ANSI)", zeroIfNullT16Fn))
	set(custom("nullifzero", "CASE WHEN x = 0 THEN NULL ELSE x END of a number; a string is compared as a BIGINT (ANSI) and kept", nullIfZeroT16Fn))
	set(custom("width_bucket", "Spark's bucket arithmetic over doubles, strings read as doubles and the number of buckets cast to BIGINT", widthBucketT16Fn))
	set(dbl(custom("sinh", "fdlibm's sinh (Java's StrictMath): below 22 from fdlibm's expm1 (thund_expm1p), above 0.5 * exp(|x|) by fdlibm's exp (thund_exp)", hyperbolicFn("sinh"))))
	set(dbl(custom("cosh", "fdlibm's cosh (Java's StrictMath): DuckDB's cosh below 0.5 ln2, 0.5 * exp(|x|) + 0.5 / exp(|x|) by fdlibm's exp (thund_exp) above", hyperbolicFn("cosh"))))
	set(dbl(custom("tanh", "tanh(x) (fdlibm's s_tanh.c, which the C library shares)", hyperbolicFn("tanh"))))
	return true
}

// getFn is get(arr, i): the element at index i counting from 0, NULL out
// of bounds. Spark's analyzer rejects a first argument that is no array
// (array.sql: get(1, 0), get('1', 0), get(NULL, 0) fail with
// DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE).
func getFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 2, 2) {
		return null(c)
	}
	switch {
	case a[0].typ.is(Array):
	case a[0].typ.known():
		t.typeError(c, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve \"%s\" due to data type mismatch: The first parameter requires the \"ARRAY\" type, however \"%s\" has the type \"%s\". SQLSTATE: 42K09",
			t.text(c), t.text(c.Args[0]), strings.ToUpper(a[0].typ.String()))
		return null(c)
	default:
		t.refuse(c, "get needs an array here, and the type of its first argument is not known")
		return null(c)
	}
	i := a[1]
	if !i.typ.integral() && !i.typ.is(Null) {
		// Checked on Spark 4.1.4: get(array(1, 2), '1') and get(array(1,
		// 2), 1.5) are 2, the index cast to INT.
		i = t.castAs(c.Args[1], "INT")
	}
	return at(c, a[0].typ.Elem, cat("CASE WHEN ", i, " < 0 OR ", i, " >= len(", a[0], ") THEN NULL ELSE (", a[0], ")[", i, " + 1] END"))
}

// castAs is Spark's CAST(x AS name) of the argument x of c, translated
// as the cast itself is (ANSI: a malformed string fails).
func (t *tr) castAs(x ast.Expr, name string) frag {
	return t.cast(&ast.Cast{Range: x.Span(), Form: "CAST", X: x, Type: &ast.DataType{Range: x.Span(), Name: name}})
}

// zeroIfNullT16Fn is zeroifnull(x), coalesce(x, 0): of a number as
// zeroIfNullFn; of a string, in ANSI mode, Spark's coalesce of STRING
// and INT is a BIGINT, the string cast to it (zeroifnull('abc') fails
// with CAST_INVALID_INPUT to BIGINT, conditional-functions.sql).
func zeroIfNullT16Fn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) == 1 && a[0].typ.is(String) && t.ansi() {
		x := t.castAs(c.Args[0], "BIGINT")
		return at(c, tBigInt, cat("coalesce(", x, ", CAST(0 AS BIGINT))"))
	}
	return zeroIfNullFn(t, c, a)
}

// nullIfZeroT16Fn is nullifzero(x): NULL where x = 0, else x. A string
// keeps its type and value; in ANSI mode Spark compares it with 0 as a
// BIGINT (nullifzero('0') is NULL of type STRING, nullifzero('abc')
// fails with CAST_INVALID_INPUT to BIGINT, conditional-functions.sql).
func nullIfZeroT16Fn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) == 1 && a[0].typ.is(String) && t.ansi() {
		n := t.castAs(c.Args[0], "BIGINT")
		return at(c, tString, cat("CASE WHEN ", n, " = 0 THEN NULL ELSE ", a[0], " END"))
	}
	if len(a) == 1 && a[0].typ.is(Null) {
		return at(c, tNull, cat("NULL"))
	}
	return nullIfZeroFn(t, c, a)
}

// widthBucketT16Fn is width_bucket(v, min, max, n) as widthBucketFn
// computes it, with Spark's implicit casts of its inputs: a string
// value or bound is read as a DOUBLE, the number of buckets is cast to
// BIGINT (width_bucket(5.35, 0.024, 10.06, 2.5) has 2 buckets, 0.5
// none: NULL; operators.sql).
func widthBucketT16Fn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) != 4 {
		return widthBucketFn(t, c, a)
	}
	b := append([]frag(nil), a...)
	for i := 0; i < 3; i++ {
		if b[i].typ.is(String) {
			b[i] = t.castAs(c.Args[i], "DOUBLE")
		}
	}
	if n := b[3]; n.typ.is(String) || n.typ.is(Decimal) || n.typ.fractional() {
		b[3] = t.castAs(c.Args[3], "BIGINT")
	}
	return widthBucketFn(t, c, b)
}

// hyperbolicFn is sinh, cosh and tanh as Spark computes them: Java's
// Math.sinh, cosh and tanh are StrictMath's, fdlibm's e_sinh.c, e_cosh.c
// and s_tanh.c. The C library's (DuckDB's) are the same code where it
// goes through expm1 (sinh below 22, cosh below 0.5 ln2, tanh); where
// fdlibm calls exp, the formula is written out here over thund_exp,
// fdlibm's exp, as the C library's exp differs from it in the last
// digit now and then (cosh(1) is 1.543080634815244 on Spark,
// 1.5430806348152437 by DuckDB's cosh). The bounds are fdlibm's tests
// of the high word: 22, ln(MAX_DOUBLE) (high word 0x40862E42) and the
// overflow threshold (0x408633CE8FB9F87D).
func hyperbolicFn(fn string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		x := a[0]
		if !x.typ.numeric() && !x.typ.is(Null) {
			if x.typ.known() {
				t.typeError(c, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve \"%s\" due to data type mismatch: The first parameter requires the \"DOUBLE\" type, however \"%s\" has the type \"%s\". SQLSTATE: 42K09",
					t.text(c), t.text(c.Args[0]), strings.ToUpper(x.typ.String()))
			} else {
				t.refuse(c.Args[0], "%s of a value of unknown type does not run natively", fn)
			}
			return null(c)
		}
		const (
			logMax = "709.7822265625"
			ovf    = "710.4758600739439"
		)
		var body string
		switch fn {
		case "sinh":
			h := "(CASE WHEN v < 0 THEN -0.5e0 ELSE 0.5e0 END)"
			body = "CASE WHEN v IS NULL OR isnan(v) OR isinf(v) OR abs(v) < 3.725290298461914e-09 THEN v" +
				" WHEN abs(v) < 1 THEN list_transform([thund_expm1p(abs(v))], lambda t: " + h + " * (2e0 * t - t * t / (t + 1e0)))[1]" +
				" WHEN abs(v) < 22 THEN list_transform([thund_expm1p(abs(v))], lambda t: " + h + " * (t + t / (t + 1e0)))[1]" +
				" WHEN abs(v) < " + logMax + " THEN " + h + " * thund_exp(abs(v))" +
				" WHEN abs(v) <= " + ovf + " THEN (" + h + " * thund_exp(0.5e0 * abs(v))) * thund_exp(0.5e0 * abs(v))" +
				" ELSE v * CAST('Infinity' AS DOUBLE) END"
		case "cosh":
			body = "CASE WHEN v IS NULL OR isnan(v) OR isinf(v) OR abs(v) < " + expHalfLn2 + " THEN cosh(v)" +
				" WHEN abs(v) < 22 THEN 0.5e0 * thund_exp(abs(v)) + 0.5e0 / thund_exp(abs(v))" +
				" WHEN abs(v) < " + logMax + " THEN 0.5e0 * thund_exp(abs(v))" +
				" WHEN abs(v) <= " + ovf + " THEN (0.5e0 * thund_exp(0.5e0 * abs(v))) * thund_exp(0.5e0 * abs(v))" +
				" ELSE CAST('Infinity' AS DOUBLE) END"
		default:
			return at(c, tDouble, cat(fn+"(CAST(", x, " AS DOUBLE))"))
		}
		return at(c, tDouble, cat("list_transform([CAST(", x, " AS DOUBLE)], lambda v: "+body+")[1]"))
	}
}
