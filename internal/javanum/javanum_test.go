package javanum

import (
	"math"
	"testing"
)

// Doubles and floats read as Java writes them, JDK 17's digits included.
func TestFormat(t *testing.T) {
	for _, c := range []struct {
		f    float64
		bits int
		want string
	}{
		{8, 64, "8.0"}, {0.25, 64, "0.25"}, {1e7, 64, "1.0E7"}, {1.5e-4, 64, "1.5E-4"}, {0.001, 64, "0.001"},
		{math.Copysign(0, -1), 64, "-0.0"}, {math.Inf(1), 64, "Infinity"}, {math.NaN(), 64, "NaN"},
		{math.Ldexp(1, 62), 64, "4.6116860184273879E18"}, {math.Ldexp(1, -31), 64, "4.6566128730773926E-10"},
		{float64(float32(0.1)), 32, "0.1"},
	} {
		if got := Format(c.f, c.bits); got != c.want {
			t.Errorf("Format(%v, %d) = %s, want %s", c.f, c.bits, got, c.want)
		}
	}
}
