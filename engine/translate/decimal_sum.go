package translate

import (
	"strconv"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// decimalSum translates a + b and a - b of exact numbers with a DECIMAL
// result where DuckDB's own sum would need more than 38 digits (its type
// is the operands' widest integer part plus the widest scale, plus one)
// and so could overflow where Spark's does not: Spark adds the two
// BigDecimals exactly, then rounds the sum HALF_UP to the result's scale
// (which, past 38 digits, is below the operands' scale) and fails
// (ANSI: NUMERIC_VALUE_OUT_OF_RANGE) or gives NULL when it does not fit.
// The sum is computed in 128-bit integers: the operands' integer parts
// and their fractions (at the wider scale) apart, the fraction then cut
// to the result's scale and rounded as the whole sum's sign says. ok is
// false where DuckDB's sum is exact, or a scale of 38 leaves no room.
func (t *tr) decimalSum(b *ast.Binary, l, r frag, ty *Type, try bool) (frag, bool) {
	if (b.Op != "+" && b.Op != "-") || !ty.is(Decimal) {
		return frag{}, false
	}
	exact := func(x *Type) bool { return x.integral() || x.is(Decimal) }
	if !exact(l.typ) || !exact(r.typ) {
		return frag{}, false
	}
	a, c := asDecimalLit(b, true, l.typ), asDecimalLit(b, false, r.typ)
	s := max(a.S, c.S)
	k := s - ty.S
	if max(a.P-a.S, c.P-c.S)+s+1 <= 38 || s > 37 || k < 0 || ty.P > 38 {
		return frag{}, false
	}
	hp := func(n int) string { return "CAST('" + pow10(n) + "' AS HUGEINT)" }
	// Integer part and fraction (at scale s) of an operand.
	parts := func(f frag, ty *Type) (frag, frag) {
		u := unscaled(f, ty)
		if ty.S == 0 {
			return u, cat("CAST(0 AS HUGEINT)")
		}
		return cat("(", u, " // "+hp(ty.S)+")"), cat("((", u, " % "+hp(ty.S)+") * "+hp(s-ty.S)+")")
	}
	ia, fa := parts(l, a)
	ic, fc := parts(r, c)
	op := b.Op
	bad := "NULL"
	if !try && t.ansi() {
		msg := "[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION]  The result of " + t.text(b) + " cannot be represented as Decimal(" + strconv.Itoa(ty.P) + ", " + strconv.Itoa(ty.S) + "). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error, and return NULL instead. SQLSTATE: 22003" + markOpen + strconv.Itoa(t.check(b)) + markClose
		bad = "error(" + quoteString(msg) + ")"
	}
	// p.i: the integer parts' sum (checked in doubles first: past 1.5e38
	// it neither fits 128 bits nor the result); p.f: the fractions'.
	limit := hp(ty.P - ty.S)
	m := "(p.i * " + hp(ty.S) + " + p.f // " + hp(k) + ")"
	rem := "(p.f % " + hp(k) + ")"
	half := "2 * abs(" + rem + ")"
	rounded := "CASE WHEN " + rem + " = 0 THEN " + m +
		" WHEN " + m + " = 0 OR sign(" + m + ") = sign(" + rem + ") THEN " + m + " + sign(" + rem + ") * CASE WHEN " + half + " >= " + hp(k) + " THEN 1 ELSE 0 END" +
		" ELSE " + m + " - sign(" + m + ") * CASE WHEN " + half + " > " + hp(k) + " THEN 1 ELSE 0 END END"
	value := "(CAST(q AS DECIMAL(38, 0)) * CAST('0." + zeros(ty.S-1) + "1' AS DECIMAL(38, " + strconv.Itoa(ty.S) + ")))"
	if ty.S == 0 {
		value = "CAST(q AS DECIMAL(38, 0))"
	}
	body := "CASE WHEN p.i IS NULL OR p.f IS NULL THEN NULL WHEN abs(p.i) > " + limit + " + 2 THEN " + bad +
		" ELSE list_transform([" + rounded + "], lambda q: CASE WHEN abs(q) >= " + hp(ty.P) + " THEN " + bad + " ELSE " + value + " END)[1] END"
	pair := cat("[{'i': CASE WHEN abs(CAST(", ia, " AS DOUBLE) "+op+" CAST(", ic, " AS DOUBLE)) > 1.5e38 THEN ", limit, " * 10 ELSE ", ia, " "+op+" ", ic, " END, 'f': ", fa, " "+op+" ", fc, "}]")
	return at(b, ty, cat("CAST(list_transform(", pair, ", lambda p: "+body+")[1] AS "+ty.duck()+")")), true
}

// zeros is n zeros ("" for n <= 0).
func zeros(n int) string {
	if n <= 0 {
		return ""
	}
	return pow10(n)[1:]
}
