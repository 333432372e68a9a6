package preview

import (
	"math"
	"testing"
)

// Cells of DOUBLE and FLOAT columns read as Spark prints them (Java's
// Double.toString and Float.toString).
func TestJavaDouble(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{8.0, "8.0"}, {0.25, "0.25"}, {-3.5, "-3.5"}, {1e7, "1.0E7"}, {12345678.9, "1.23456789E7"},
		{1.5e-4, "1.5E-4"}, {0.001, "0.001"}, {1e21, "1.0E21"}, {0.0, "0.0"}, {math.Copysign(0, -1), "-0.0"},
		{float32(0.1), "0.1"}, {float32(3), "3.0"}, {float32(1e10), "1.0E10"}, {1.0 / 3, "0.3333333333333333"},
	} {
		if got := Cell(c.v); got != c.want {
			t.Errorf("Cell(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := JavaDouble(math.Inf(-1), 64); got != "-Infinity" {
		t.Errorf("JavaDouble(-Inf) = %q", got)
	}
}
