package main

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestRefusalSummary: a push refused only because Thund cannot send a
// Python dataset does not say the backend cannot run the pipeline
// (QA15 F27: spark-pipelines dry-run completed the same folder).
func TestRefusalSummary(t *testing.T) {
	py := ir.Diagnostic{Severity: ir.Error, Message: "b is defined in Python in a form Thund cannot send to spark-4.1 (it loads a path computed at run time): ..."}
	spark := ir.Diagnostic{Severity: ir.Error, Message: "a uses CREATE OR REFRESH, which spark-4.1 cannot run"}
	got := refusalSummary([]ir.Diagnostic{py}, ir.Spark41)
	if strings.Contains(got, "spark-4.1 cannot run") || !strings.Contains(got, "1 dataset(s) defined in Python in a form Thund cannot send") || !strings.Contains(got, "spark-pipelines dry-run") {
		t.Errorf("Python only: %q", got)
	}
	got = refusalSummary([]ir.Diagnostic{spark, py}, ir.Spark41)
	if !strings.HasPrefix(got, "1 finding(s) spark-4.1 cannot run, and 1 dataset(s)") {
		t.Errorf("both: %q", got)
	}
}
