package results

import (
	"math"
	"math/big"
	mathbits "math/bits"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/thund-dev/thund/engine/translate"
)

// hiveString prints a value DuckDB returned the way Spark's
// SQLQueryTestSuite prints one of type ty (HiveResult.toHiveString): NULL
// (null when nested), strings bare at the top and double-quoted inside
// arrays, maps and structs, decimals with their scale, doubles as Java
// writes them (1.0, 1.0E10), arrays [a,b], maps {k:v} sorted by their
// text, structs {"name":value}, dates yyyy-MM-dd, timestamps yyyy-MM-dd
// HH:mm:ss with the fraction of a second trimmed, binary as UTF-8 text.
// ok is false for a value it cannot print as Spark would.
func hiveString(v any, ty *translate.Type, nested bool) (string, bool) {
	if v == nil {
		if nested {
			return "null", true
		}
		return "NULL", true
	}
	switch v := v.(type) {
	case bool:
		return strconv.FormatBool(v), true
	case int8:
		return strconv.FormatInt(int64(v), 10), true
	case int16:
		return strconv.FormatInt(int64(v), 10), true
	case int32:
		return strconv.FormatInt(int64(v), 10), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case uint8:
		return strconv.FormatUint(uint64(v), 10), true
	case uint16:
		return strconv.FormatUint(uint64(v), 10), true
	case uint32:
		return strconv.FormatUint(uint64(v), 10), true
	case uint64:
		return strconv.FormatUint(v, 10), true
	case *big.Int:
		return v.String(), true
	case float64:
		if ty != nil && ty.Kind == translate.Float {
			return javaFloat(v, 32), true
		}
		return javaFloat(v, 64), true
	case float32:
		return javaFloat(float64(v), 32), true
	case duckdb.Decimal:
		return decimalString(v.Value, int(v.Scale)), true
	case string:
		if nested {
			return `"` + v + `"`, true
		}
		return v, true
	case []byte:
		// Java's new String(bytes, UTF_8): each malformed byte becomes
		// U+FFFD.
		var b strings.Builder
		for len(v) > 0 {
			r, n := utf8.DecodeRune(v)
			b.WriteRune(r)
			v = v[n:]
		}
		return b.String(), true
	case time.Time:
		// Years past 9999 are written with a sign, as Java's formatter
		// does.
		plus := ""
		if v.UTC().Year() > 9999 {
			plus = "+"
		}
		if ty != nil && ty.Kind == translate.Date {
			return plus + v.UTC().Format("2006-01-02"), true
		}
		if ty != nil && ty.Kind == translate.Time {
			// A TIME: hh:mm:ss with the fraction trimmed.
			s := strings.TrimRight(v.UTC().Format("15:04:05.000000"), "0")
			return strings.TrimSuffix(s, "."), true
		}
		s := v.UTC().Format("2006-01-02 15:04:05.000000")
		s = strings.TrimRight(s, "0")
		return plus + strings.TrimSuffix(s, "."), true
	case []any:
		var elem *translate.Type
		if ty != nil {
			elem = ty.Elem
		}
		parts := make([]string, len(v))
		for i, x := range v {
			s, ok := hiveString(x, elem, true)
			if !ok {
				return "", false
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ",") + "]", true
	case duckdb.OrderedMap:
		var kt, vt *translate.Type
		if ty != nil {
			kt, vt = ty.Key, ty.Val
		}
		keys, vals := v.Keys(), v.Values()
		parts := make([]string, len(keys))
		for i := range keys {
			k, ok1 := hiveString(keys[i], kt, true)
			x, ok2 := hiveString(vals[i], vt, true)
			if !ok1 || !ok2 {
				return "", false
			}
			parts[i] = k + ":" + x
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ",") + "}", true
	case map[string]any:
		if ty == nil || ty.Kind != translate.Struct || len(ty.Fields) != len(v) {
			return "", false
		}
		parts := make([]string, len(ty.Fields))
		for i, f := range ty.Fields {
			x, ok := hiveString(v[f.Name], f.Type, true)
			if !ok {
				return "", false
			}
			parts[i] = `"` + f.Name + `":` + x
		}
		return "{" + strings.Join(parts, ",") + "}", true
	}
	return "", false
}

// decimalString writes unscaled × 10^-scale with exactly scale digits
// after the point, as Java's BigDecimal.toPlainString does.
func decimalString(unscaled *big.Int, scale int) string {
	if unscaled == nil {
		return "NULL"
	}
	neg := unscaled.Sign() < 0
	digits := new(big.Int).Abs(unscaled).String()
	if scale > 0 {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// javaFloat writes f as Java's Double.toString (bits 64) or
// Float.toString (bits 32) does: plain notation with at least one
// fractional digit between 10^-3 and 10^7, computerized scientific
// notation (1.0E10, 1.5E-5) outside, NaN and Infinity by name. The digits
// are those of the JDK 17 that recorded Spark's golden files (javaDigits):
// mostly the shortest that read back as the same value, but not always.
func javaFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	digits, exp := javaDigits(math.Abs(f), bits)
	sign := ""
	if f < 0 {
		sign = "-"
	}
	if a := math.Abs(f); a >= 1e-3 && a < 1e7 {
		// Plain notation: exp is the power of ten of the first digit.
		var s string
		switch {
		case exp < 0:
			s = "0." + strings.Repeat("0", -exp-1) + digits
		case exp+1 >= len(digits):
			s = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
		default:
			s = digits[:exp+1] + "." + digits[exp+1:]
		}
		return sign + s
	}
	mant := digits[:1] + "."
	if len(digits) > 1 {
		mant += digits[1:]
	} else {
		mant += "0"
	}
	return sign + mant + "E" + strconv.Itoa(exp)
}

// javaDigits returns the significant digits (no trailing zeros) JDK 17's
// FloatingDecimal writes for a positive finite f, and the power of ten of
// the first digit. JDK 17 differs from the shortest digits in two cases
// seen in Spark's golden files: a double holding an integer below 2^63 is
// written from its exact digits, dropping only as many low digits as the
// binary exponent beyond 53 bits makes insignificant, rounding half up
// (2^62 is 4.6116860184273879E18, not 4.611686018427388E18); and a power
// of two takes the shortest digits within half the gap to the double below
// on both sides (2^-31 is 4.6566128730773926E-10), though the gap above
// is twice that.
func javaDigits(f float64, bits int) (string, int) {
	shortest := func() (string, int) {
		s := strconv.FormatFloat(f, 'e', -1, bits)
		mant, exp, _ := strings.Cut(s, "e")
		e, _ := strconv.Atoi(exp)
		return strings.TrimRight(strings.Replace(mant, ".", "", 1), "0"), e
	}
	if bits != 64 {
		return shortest()
	}
	b := math.Float64bits(f)
	biased := int(b >> 52 & 0x7ff)
	frac := b & (1<<52 - 1)
	if biased == 0 {
		return shortest() // subnormal
	}
	binExp := biased - 1023
	mant := frac | 1<<52
	fracBits := 53 - mathbits.TrailingZeros64(mant) // significant bits of the mantissa
	if binExp >= 0 && binExp <= 62 && fracBits-binExp-1 <= 0 {
		// An integer that fits in a long: its exact digits, the
		// insignificant low ones dropped.
		var v uint64
		if binExp >= 52 {
			v = mant << (binExp - 52)
		} else {
			v = mant >> (52 - binExp)
		}
		drop := 0
		if p2 := binExp - 53 - 1; p2 > 1 {
			drop = len(new(big.Int).Lsh(big.NewInt(1), uint(p2)).String()) - 1
		}
		if drop > 0 {
			p := uint64(1)
			for i := 0; i < drop; i++ {
				p *= 10
			}
			rest := v % p
			v /= p
			if rest >= p/2 {
				v++
			}
		}
		s := strconv.FormatUint(v, 10)
		return strings.TrimRight(s, "0"), len(s) - 1 + drop
	}
	if frac != 0 {
		return shortest()
	}
	// A power of two: the shortest correctly rounded digits within half
	// the gap below, on either side.
	x := new(big.Rat).SetFloat64(f)
	half := new(big.Rat).SetFrac(big.NewInt(1), big.NewInt(1))
	if e := binExp - 54; e >= 0 {
		half.SetInt(new(big.Int).Lsh(big.NewInt(1), uint(e)))
	} else {
		half.SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-e)))
	}
	for n := 1; n <= 17; n++ {
		s := strconv.FormatFloat(f, 'e', n-1, 64)
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			break
		}
		d := new(big.Rat).Sub(r, x)
		if d.Sign() < 0 {
			d.Neg(d)
		}
		if d.Cmp(half) < 0 {
			mant, exp, _ := strings.Cut(s, "e")
			e, _ := strconv.Atoi(exp)
			return strings.TrimRight(strings.Replace(mant, ".", "", 1), "0"), e
		}
	}
	return shortest()
}
