package translate

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// intConst reads an integer literal, possibly negated and in
// parentheses.
func intConst(x ast.Expr) (int64, bool) {
	x = unparenExpr(x)
	neg := false
	if u, ok := x.(*ast.Unary); ok && u.Op == "-" {
		neg, x = true, unparenExpr(u.X)
	}
	l, ok := x.(*ast.Literal)
	if !ok || l.Kind != ast.LitInteger {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimRight(strings.ToUpper(l.Text), "LSY"), 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// isNullLit reports whether x is the literal NULL.
func isNullLit(x ast.Expr) bool {
	l, ok := unparenExpr(x).(*ast.Literal)
	return ok && l.Kind == ast.LitNull
}

const convAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// convDigits is the number of digits of 2^64 - 1 in base b.
func convDigits(b int) int {
	return len(new(big.Int).SetUint64(^uint64(0)).Text(b))
}

// convFn is conv(num, fromBase, toBase) as Spark's NumberConverter
// computes it, for constant bases: num as text; a leading '-' marks it
// negative; the digits of fromBase that follow (ASCII, either case) up
// to the first other character are read as an unsigned 64-bit number
// (none: 0), whose overflow fails in ANSI mode (ARITHMETIC_OVERFLOW)
// and gives 2^64 - 1 otherwise; a negative number with toBase > 0 is
// written as its two's complement; with toBase < 0 the value is read as
// signed and written with a '-' when negative. Upper-case digits. NULL
// for an empty text or a base outside 2..36.
func convFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 3, 3) {
		return null(c)
	}
	if isNullLit(c.Args[0]) || isNullLit(c.Args[1]) || isNullLit(c.Args[2]) {
		return at(c, tString, cat("CAST(NULL AS VARCHAR)"))
	}
	from, ok1 := intConst(c.Args[1])
	to, ok2 := intConst(c.Args[2])
	if !ok1 || !ok2 {
		t.refuse(c, "conv runs natively with integer literals as its bases only")
		return null(c)
	}
	if from < 2 || from > 36 || to < -36 || to > 36 || to > -2 && to < 2 {
		return at(c, tString, cat("CAST(NULL AS VARCHAR)"))
	}
	x := a[0]
	switch ty := x.typ; {
	case ty.is(String), ty.integral(), ty.is(Decimal), ty.is(Boolean):
	default:
		t.refuse(c.Args[0], "conv of a %s does not run natively; cast it to a string", ty)
		return null(c)
	}
	fb, tb := int(from), int(to)
	digits := "0-9"
	if fb <= 10 {
		digits = "0-" + strconv.Itoa(fb-1)
	} else {
		hi := string(rune('a' + fb - 11))
		digits = "0-9a-" + hi + "A-" + strings.ToUpper(hi)
	}
	overflow := "CAST(18446744073709551615 AS UHUGEINT)"
	if t.ansi() {
		overflow = "CAST(error('[ARITHMETIC_OVERFLOW] Overflow in function conv(). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error. SQLSTATE: 22003" + markOpen + strconv.Itoa(t.check(c)) + markClose + "') AS UHUGEINT)"
	}
	// p: the digits read; u: their value, 2^64 - 1 (or the error) past
	// 64 bits.
	p := "regexp_extract(s, '^-?([" + digits + "]*)', 1)"
	u := "CASE WHEN length(ltrim(" + p + ", '0')) > " + strconv.Itoa(convDigits(fb)) + " THEN " + overflow +
		" ELSE list_transform([thund_conv_value(" + p + ", " + strconv.Itoa(fb) + ")], lambda w: CASE WHEN w > 18446744073709551615 THEN " + overflow + " ELSE w END)[1] END"
	neg := "starts_with(s, '-')"
	// v: the 64 bits Spark writes, as an unsigned number; minus: whether
	// a '-' comes first.
	v, minus := "u", "false"
	switch {
	case tb > 0:
		v = "CASE WHEN NOT " + neg + " THEN u WHEN u >= 9223372036854775808 THEN CAST(18446744073709551615 AS UHUGEINT) WHEN u = 0 THEN u ELSE 18446744073709551616 - u END"
	default:
		v = "CASE WHEN u >= 9223372036854775808 THEN 18446744073709551616 - u ELSE u END"
		minus = "(" + neg + " OR u >= 9223372036854775808)"
	}
	text := "list_transform([" + v + "], lambda w: " + convText("w", abs(tb)) + ")[1]"
	body := "CASE WHEN s IS NULL OR s = '' THEN NULL ELSE list_transform([" + u + "], lambda u: (CASE WHEN " + minus + " THEN '-' ELSE '' END) || " + text + ")[1] END"
	return at(c, tString, cat("list_transform([", t.asString(x), "], lambda s: "+body+")[1]"))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// convText is the SQL of the digits of the number w (a UHUGEINT below
// 2^64) in base b, upper case, no leading zeros ("0" for 0): one term
// per digit place, so that no lambda reads w.
func convText(w string, b int) string {
	n := convDigits(b)
	terms := make([]string, n)
	p := big.NewInt(1)
	for i := n - 1; i >= 0; i-- {
		terms[i] = "substr('" + convAlphabet + "', CAST((" + w + " // CAST('" + p.String() + "' AS UHUGEINT)) % " + strconv.Itoa(b) + " AS INTEGER) + 1, 1)"
		p.Mul(p, big.NewInt(int64(b)))
	}
	return "coalesce(nullif(ltrim(" + strings.Join(terms, " || ") + ", '0'), ''), '0')"
}
