package translate

import (
	"strconv"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// decimalProduct translates a * b of exact numbers with a DECIMAL result
// whose operands together have more than DuckDB's 38 digits (DuckDB's
// product type is DECIMAL(p1 + p2, s1 + s2), which then overflows where
// Spark's does not): Spark multiplies the BigDecimals exactly, rounds the
// product HALF_UP to the result's scale and fails (ANSI:
// NUMERIC_VALUE_OUT_OF_RANGE) or gives NULL where it does not fit. The
// product is computed exactly in 128-bit integers from the operands'
// magnitudes cut into three limbs of 12 digits, then split at 10^36 into
// a high and a low part, from which the rounded quotient by 10^k (k =
// s1 + s2 - the result's scale) is taken. ok is false where DuckDB's
// product is exact, or k is past 36 digits.
func (t *tr) decimalProduct(b *ast.Binary, l, r frag, ty *Type, try bool) (frag, bool) {
	if b.Op != "*" || !ty.is(Decimal) {
		return frag{}, false
	}
	exact := func(x *Type) bool { return x.integral() || x.is(Decimal) }
	if !exact(l.typ) || !exact(r.typ) {
		return frag{}, false
	}
	a, c := asDecimalLit(b, true, l.typ), asDecimalLit(b, false, r.typ)
	k := a.S + c.S - ty.S
	if a.P+c.P <= 38 || k < 0 || k > 36 || ty.P > 38 {
		return frag{}, false
	}
	hp := func(n int) string { return "CAST('" + pow10(n) + "' AS HUGEINT)" }
	bl, b2 := hp(12), hp(24)
	lo := func(v string) string { return "(" + v + " % " + bl + ")" }
	mid := func(v string) string { return "((" + v + " // " + bl + ") % " + bl + ")" }
	hi := func(v string) string { return "(" + v + " // " + b2 + ")" }
	x, y := "p.x", "p.y"
	limbs := "{'c0': " + lo(x) + " * " + lo(y) +
		", 'c1': " + lo(x) + " * " + mid(y) + " + " + mid(x) + " * " + lo(y) +
		", 'c2': " + lo(x) + " * " + hi(y) + " + " + mid(x) + " * " + mid(y) + " + " + hi(x) + " * " + lo(y) +
		", 'c3': " + mid(x) + " * " + hi(y) + " + " + hi(x) + " * " + mid(y) +
		", 'c4': " + hi(x) + " * " + hi(y) + "}"
	// NULL marks a product out of the result's range.
	rounded := "CASE WHEN CAST(c.c4 AS DOUBLE) * 1e12 + CAST(c.c3 AS DOUBLE) + CAST(c.c2 AS DOUBLE) / 1e12 >= 1.01e" + strconv.Itoa(2+k) + " THEN NULL" +
		" ELSE list_transform([{'hi': c.c2 // " + bl + " + c.c3 + c.c4 * " + bl + ", 'lo': c.c0 + c.c1 * " + bl + " + (c.c2 % " + bl + ") * " + b2 + "}], lambda h: " +
		"list_transform([{'hi': h.hi + h.lo // " + hp(36) + ", 'lo': h.lo % " + hp(36) + "}], lambda n: " +
		"list_transform([n.hi * " + hp(36-k) + " + n.lo // " + hp(k) + " + CASE WHEN 2 * (n.lo % " + hp(k) + ") >= " + hp(k) + " THEN 1 ELSE 0 END], lambda q: " +
		"CASE WHEN q >= " + hp(ty.P) + " THEN NULL ELSE p.g * q END)[1])[1])[1] END"
	product := cat("list_transform([{'x': abs(", unscaled(l, a), "), 'y': abs(", unscaled(r, c), "), 'g': sign(", unscaled(l, a), ") * sign(", unscaled(r, c), ")}], lambda p: list_transform(["+limbs+"], lambda c: "+rounded+")[1])[1]")
	bad := "NULL"
	if !try && t.ansi() {
		msg := "[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION]  The result of " + t.text(b) + " cannot be represented as Decimal(" + strconv.Itoa(ty.P) + ", " + strconv.Itoa(ty.S) + "). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error, and return NULL instead. SQLSTATE: 22003" + markOpen + strconv.Itoa(t.check(b)) + markClose
		bad = "error(" + quoteString(msg) + ")"
	}
	value := "(CAST(q AS DECIMAL(38, 0)) * CAST('0." + zeros(ty.S-1) + "1' AS DECIMAL(38, " + strconv.Itoa(ty.S) + ")))"
	if ty.S == 0 {
		value = "CAST(q AS DECIMAL(38, 0))"
	}
	return at(b, ty, cat("CAST(CASE WHEN (", l, ") IS NULL OR (", r, ") IS NULL THEN NULL ELSE list_transform([", product, "], lambda q: CASE WHEN q IS NULL THEN "+bad+" ELSE "+value+" END)[1] END AS "+ty.duck()+")")), true
}
