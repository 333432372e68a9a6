package engine

import (
	"fmt"
	"testing"
)

// TestFailedExpectationSamplesWriteDates: the violating rows of a failed
// expectation show a DATE column as a date (2025-01-02), not as the
// midnight timestamp the driver scans.
func TestFailedExpectationSamplesWriteDates(t *testing.T) {
	_, res := runFiles(t, t.TempDir(), map[string]string{
		"thund.yaml":     "dialect: databricks\n",
		"samples/tx.csv": "id,amount,day\n1,5,2025-01-01\n2,-3,2025-01-02\n",
		"a.sql": "CREATE OR REFRESH MATERIALIZED VIEW checked (CONSTRAINT pos EXPECT (amount >= 0) ON VIOLATION FAIL UPDATE)\n" +
			"AS SELECT id, amount, day FROM tx;\n",
	})
	var got string
	for _, r := range res.Expectations {
		if r.Name == "pos" {
			got = fmt.Sprint(r.Samples)
		}
	}
	if got != "[[2 -3 2025-01-02]]" {
		t.Errorf("samples %s, want [[2 -3 2025-01-02]]", got)
	}
}
