package translate

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// t16MathRegistered adds log1p as fdlibm computes it to the session's
// macros and atanh to the function table.
var t16MathRegistered = registerT16Math()

func registerT16Math() bool {
	macros = append(macros, log1pMacros...)
	macros = append(macros, expm1Macros...)
	set := func(f Function) {
		for i := range functions {
			if functions[i].Name == f.Name {
				functions[i] = f
				return
			}
		}
		functions = append(functions, f)
	}
	set(dbl(custom("atanh", "0.5 * (log1p(x) - log1p(-x)), Spark's formula, log1p as fdlibm's s_log1p.c (Java's StrictMath) computes it (thund_log1p)", atanhFn)))
	return true
}

// log1pMacros are fdlibm's s_log1p.c (Java's StrictMath.log1p, which
// Spark's atanh calls) written over doubles: the tests of the high word
// become comparisons with the doubles where it changes
// (0x3FDA827A: 0.4142136573791504, 0x3fd2bec4: 0.2928934097290039), and
// the high-word surgery that takes 1 + x to [sqrt(2)/2, sqrt(2)) is a
// division by the power of two of its exponent (exact); hu is the top
// 20 bits of the significand, as fdlibm reads them.
var log1pMacros = [][2]string{
	// The polynomial of s = f / (2 + f).
	{"thund_log1p_poly", `(s) AS list_transform([s * s], lambda z: z * (6.666666666666735130e-01 + z * (3.999999999940941908e-01 + z * (2.857142874366239149e-01 + z * (2.222219843214978396e-01 + z * (1.818357216161805012e-01 + z * (1.531383769920937332e-01 + z * 1.479819860511658591e-01)))))))[1]`},
	// The result from f, k, the correction c and whether the high bits
	// hz of f are zero.
	{"thund_log1p_end", `(f, k, c, hz) AS list_transform([{'f': f, 'k': CAST(k AS DOUBLE), 'c': c, 'h': (0.5e0 * f) * f}], lambda p:
		CASE WHEN hz = 0 THEN
			CASE WHEN p.f = 0 THEN CASE WHEN p.k = 0 THEN 0e0 ELSE p.k * 6.93147180369123816490e-01 + (p.c + p.k * 1.90821492927058770002e-10) END
			WHEN p.k = 0 THEN p.f - p.h * (1e0 - 6.6666666666666666e-01 * p.f)
			ELSE p.k * 6.93147180369123816490e-01 - ((p.h * (1e0 - 6.6666666666666666e-01 * p.f) - (p.k * 1.90821492927058770002e-10 + p.c)) - p.f) END
		ELSE list_transform([p.f / (2e0 + p.f)], lambda s:
			CASE WHEN p.k = 0 THEN p.f - (p.h - s * (p.h + thund_log1p_poly(s)))
			ELSE p.k * 6.93147180369123816490e-01 - ((p.h - (s * (p.h + thund_log1p_poly(s)) + (p.k * 1.90821492927058770002e-10 + p.c))) - p.f) END)[1] END)[1]`},
	// The reduction of 1 + x (or x itself from 2^53 on).
	{"thund_log1p_k", `(x) AS list_transform([CASE WHEN x < 9007199254740992e0 THEN 1e0 + x ELSE x END], lambda u:
		list_transform([CAST(floor(log2(u)) AS INTEGER)], lambda e:
		list_transform([CASE WHEN u / pow(2e0, e) >= 2e0 THEN e + 1 WHEN u / pow(2e0, e) < 1e0 THEN e - 1 ELSE e END], lambda k:
		list_transform([{'m': u / pow(2e0, k), 'c': CASE WHEN x < 9007199254740992e0 THEN (CASE WHEN k > 0 THEN 1e0 - (u - x) ELSE x - (u - 1e0) END) / u ELSE 0e0 END}], lambda q:
		list_transform([CAST(floor((q.m - 1e0) * 1048576e0) AS INTEGER)], lambda hu:
		CASE WHEN hu < 434334 THEN thund_log1p_end(q.m - 1e0, k, q.c, hu)
		ELSE thund_log1p_end(q.m * 0.5e0 - 1e0, k + 1, q.c, (1048576 - hu) >> 2) END)[1])[1])[1])[1])[1]`},
	{"thund_log1p", `(x) AS CASE WHEN x IS NULL THEN NULL WHEN isnan(x) THEN x
		WHEN x < 0.4142136573791504e0 THEN
			CASE WHEN x <= -1e0 THEN CASE WHEN x = -1e0 THEN CAST('-Infinity' AS DOUBLE) ELSE CAST('NaN' AS DOUBLE) END
			WHEN abs(x) < 1.862645149230957e-09 THEN CASE WHEN abs(x) < 5.551115123125783e-17 THEN x ELSE x - (x * x) * 0.5e0 END
			WHEN x > 0 OR abs(x) < 0.2928934097290039e0 THEN thund_log1p_end(x, 0, 0e0, 1)
			ELSE thund_log1p_k(x) END
		WHEN isinf(x) THEN x
		ELSE thund_log1p_k(x) END`},
}

// expm1Macros are fdlibm's s_expm1.c for a finite x >= 0 below 56 ln2
// (all sinh needs: |x| < 22), as Java's StrictMath.expm1 computes it;
// the C library's expm1, which DuckDB's sinh calls, differs from it in
// the last digit now and then (sinh(0.4624871531346352D) is
// 0.4791516128961536 on Spark 4.1.4, 0.4791516128961537 by DuckDB's
// sinh). thund_expm1_r is the primary range: x reduced, k, the
// correction c.
var expm1Macros = [][2]string{
	{"thund_expm1_r", `(x, k, c) AS list_transform([{'hfx': 0.5e0 * x, 'hxs': x * (0.5e0 * x)}], lambda p:
		list_transform([1e0 + p.hxs * (-3.33333333333331316428e-02 + p.hxs * (1.58730158725481460165e-03 + p.hxs * (-7.93650757867487942473e-05 + p.hxs * (4.00821782732936239552e-06 + p.hxs * -2.01099218183624371326e-07))))], lambda r1:
		list_transform([3e0 - r1 * p.hfx], lambda t:
		list_transform([p.hxs * ((r1 - t) / (6e0 - x * t))], lambda e:
		CASE WHEN k = 0 THEN x - (x * e - p.hxs)
		ELSE list_transform([(x * (e - c) - c) - p.hxs], lambda e2:
			CASE WHEN k = 1 THEN CASE WHEN x < -0.25e0 THEN -2e0 * (e2 - (x + 0.5e0)) ELSE 1e0 + 2e0 * (x - e2) END
			WHEN k <= -2 OR k > 56 THEN (1e0 - (e2 - x)) * pow(2e0, k) - 1e0
			WHEN k < 20 THEN ((1e0 - pow(2e0, -k)) - (e2 - x)) * pow(2e0, k)
			ELSE ((x - (e2 + pow(2e0, -k))) + 1e0) * pow(2e0, k) END)[1] END)[1])[1])[1])[1]`},
	{"thund_expm1p", `(y) AS CASE WHEN y < 5.551115123125783e-17 THEN y
		WHEN y < ` + expHalfLn2 + ` THEN thund_expm1_r(y, 0, 0e0)
		WHEN y < ` + expOneAndHalfLn2 + ` THEN list_transform([{'hi': y - 6.93147180369123816490e-01, 'lo': 1.90821492927058770002e-10}], lambda hl: thund_expm1_r(hl.hi - hl.lo, 1, (hl.hi - (hl.hi - hl.lo)) - hl.lo))[1]
		ELSE list_transform([trunc(1.44269504088896338700e+00 * y + 0.5e0)], lambda kd:
			list_transform([{'hi': y - kd * 6.93147180369123816490e-01, 'lo': kd * 1.90821492927058770002e-10}], lambda hl: thund_expm1_r(hl.hi - hl.lo, CAST(kd AS INTEGER), (hl.hi - (hl.hi - hl.lo)) - hl.lo))[1])[1] END`},
}

// atanhFn is atanh(x) as Spark's Atanh computes it: 0.5 * (log1p(x) -
// log1p(-x)) with StrictMath.log1p (NaN beyond 1, an infinity at 1 and
// -1).
func atanhFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	x := a[0]
	if !x.typ.numeric() && !x.typ.is(Null) {
		if x.typ.known() {
			t.typeError(c, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve \"%s\" due to data type mismatch: The first parameter requires the \"DOUBLE\" type, however \"%s\" has the type \"%s\". SQLSTATE: 42K09",
				t.text(c), t.text(c.Args[0]), strings.ToUpper(x.typ.String()))
		} else {
			t.refuse(c.Args[0], "atanh of a value of unknown type does not run natively")
		}
		return null(c)
	}
	return at(c, tDouble, cat("list_transform([CAST(", x, " AS DOUBLE)], lambda v: 0.5e0 * (thund_log1p(v) - thund_log1p(-v)))[1]"))
}
