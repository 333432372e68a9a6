// Package javanum writes floating-point numbers as Java does, the way
// Spark prints a DOUBLE or FLOAT: Double.toString / Float.toString of the
// JDK 17 that Spark runs on here (and that recorded Spark's golden
// files). The conformance run compares values in this form and previews
// show them so.
package javanum

import (
	"math"
	"math/big"
	mathbits "math/bits"
	"strconv"
	"strings"
)

// Format writes f as Java's Double.toString (bits 64) or
// Float.toString (bits 32) does: plain notation with at least one
// fractional digit between 10^-3 and 10^7, computerized scientific
// notation (1.0E10, 1.5E-5) outside, NaN and Infinity by name. The digits
// are those of the JDK 17 that recorded Spark's golden files (javaDigits):
// mostly the shortest that read back as the same value, but not always.
func Format(f float64, bits int) string {
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
