package translate

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// intWidth is the number of bits of an integer type Spark's shifts and
// getbit work in: INT for TINYINT, SMALLINT and INT (Spark widens them),
// 64 for BIGINT; 0 for another type.
func intWidth(ty *Type) int {
	switch {
	case ty.is(TinyInt), ty.is(SmallInt), ty.is(Int):
		return 32
	case ty.is(BigInt):
		return 64
	}
	return 0
}

// wrapBits is the SQL reading the HUGEINT h as a signed integer of bits
// bits, two's complement (Java's overflow of int and long arithmetic).
func wrapBits(h string, bits int) string {
	m := "CAST('" + pow2(bits) + "' AS HUGEINT)"
	half := "CAST('" + pow2(bits-1) + "' AS HUGEINT)"
	u := "(((" + h + ") % " + m + " + " + m + ") % " + m + ")"
	return "CASE WHEN " + u + " >= " + half + " THEN " + u + " - " + m + " ELSE " + u + " END"
}

// pow2 is 2^n in decimal.
func pow2(n int) string { return new(big.Int).Lsh(big.NewInt(1), uint(n)).String() }

// shiftFn is shiftleft, shiftright and shiftrightunsigned(x, n) as Java's
// <<, >> and >>> of an int (TINYINT, SMALLINT and INT widened) or a long:
// the count taken modulo 32 or 64, a left shift wrapping, >> keeping the
// sign (rounding down), >>> filling with zeros.
func shiftFn(kind string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		x, n := a[0], a[1]
		bits := intWidth(x.typ)
		if bits == 0 || !n.typ.integral() && !n.typ.is(Null) {
			t.refuse(c, "%s runs natively over integers only", kind)
			return null(c)
		}
		ty := tInt
		if bits == 64 {
			ty = tBigInt
		}
		p := "(CAST(1 AS HUGEINT) << CAST(CAST(e.n AS BIGINT) & " + strconv.Itoa(bits-1) + " AS INTEGER))"
		h := "CAST(e.v AS HUGEINT)"
		var body string
		switch kind {
		case "shiftleft":
			body = wrapBits(h+" * "+p, bits)
		case "shiftright":
			body = "CASE WHEN e.v >= 0 THEN " + h + " // " + p + " ELSE -((-" + h + " - 1) // " + p + ") - 1 END"
		default:
			m := "CAST('" + pow2(bits) + "' AS HUGEINT)"
			body = wrapBits("((("+h+") % "+m+" + "+m+") % "+m+") // "+p, bits)
		}
		return at(c, ty, cat("list_transform([{'v': ", x, ", 'n': ", n, "}], lambda e: CASE WHEN e.v IS NULL OR e.n IS NULL THEN NULL ELSE CAST("+body+" AS "+ty.duck()+") END)[1]"))
	}
}

// getbitFn is getbit(x, pos) (bit_get): the bit at pos (0 the lowest)
// of the integer x in its type's two's complement, as TINYINT; a pos
// outside the type's bits fails as Spark's
// INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE.
func getbitFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 2, 2) {
		return null(c)
	}
	x, pos := a[0], a[1]
	bits := map[Kind]int{TinyInt: 8, SmallInt: 16, Int: 32, BigInt: 64}[x.typ.Kind]
	if bits == 0 || !pos.typ.integral() && !pos.typ.is(Null) {
		t.refuse(c, "getbit runs natively over integers only")
		return null(c)
	}
	name := strings.ToLower(c.Name.String())
	bad := "error('[INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE] The value of parameter(s) `pos` in `" + name + "` is invalid: expects an integer value in [0, " + strconv.Itoa(bits) + "), but got ' || CAST(p AS VARCHAR) || '. SQLSTATE: 22023" + markOpen + strconv.Itoa(t.check(c)) + markClose + "')"
	body := "CASE WHEN e.v IS NULL OR e.p IS NULL THEN NULL WHEN e.p < 0 OR e.p >= " + strconv.Itoa(bits) + " THEN " + strings.ReplaceAll(bad, "CAST(p AS", "CAST(e.p AS") +
		" ELSE CAST((CAST(e.v AS BIGINT) >> CAST(e.p AS INTEGER)) & 1 AS TINYINT) END"
	return at(c, &Type{Kind: TinyInt}, cat("list_transform([{'v': ", x, ", 'p': ", pos, "}], lambda e: "+body+")[1]"))
}
