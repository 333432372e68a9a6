package capab

import (
	"testing"

	"github.com/thund-dev/thund/ir"
)

// A sink is defined from Python on every backend that has sinks: only a
// sink written in SQL is refused, at its kind.
func TestSinkFromPythonIsFine(t *testing.T) {
	for _, tc := range []struct {
		file string
		want int
	}{{"sinks.py", 0}, {"sinks.sql", 1}} {
		d := &ir.Dataset{Name: "out", Kind: ir.Sink, Loc: ir.Loc{File: tc.file}, KindLoc: ir.Loc{File: tc.file, Start: 3, End: 7}}
		p := &ir.Pipeline{Datasets: []*ir.Dataset{d}}
		for _, b := range []ir.Backend{ir.Spark41, ir.Spark43, ir.Databricks} {
			got := 0
			for _, diag := range Check(p, []ir.Backend{b}) {
				if diag.Severity == ir.Error && diag.Code == ir.CodeUnsupported {
					got++
					if diag.Loc != d.KindLoc {
						t.Errorf("%s on %s: at %v, want the kind %v", tc.file, b, diag.Loc, d.KindLoc)
					}
				}
			}
			if got != tc.want {
				t.Errorf("a sink in %s on %s: %d errors, want %d", tc.file, b, got, tc.want)
			}
		}
	}
}
