package main

import (
	"bytes"
	"strings"
	"testing"
)

// firstPipeline is a first pipeline as a new user writes it: no
// thund.yaml, no spec, expectations, and a misspelt table name.
func firstPipeline(t *testing.T, typo bool) string {
	from := "clean_orders"
	if typo {
		from = "clean_order"
	}
	return writePipeline(t, map[string]string{
		"samples/orders.csv": "id,amount,customer\n1,10.5,a\n2,-3,b\n3,7,\n",
		"clean_orders.sql": "-- @expect.pos: amount > 0 ON VIOLATION DROP ROW\n-- @expect.cust: customer IS NOT NULL\n" +
			"SELECT cast(id AS INT) AS id, cast(amount AS DOUBLE) AS amount, customer FROM orders\n",
		"totals.sql": "SELECT customer, sum(amount) AS total FROM " + from + " GROUP BY customer\n",
	})
}

// TestDefaultBackendsDoNotFailANativeRun: without thund.yaml or a spec,
// what spark-4.3 (the newest Spark backend) cannot run is a warning: --check and --once exit 0, and
// the repeated finding comes with the one-line fix for the pipeline.
func TestDefaultBackendsDoNotFailANativeRun(t *testing.T) {
	dir := firstPipeline(t, false)
	for _, args := range [][]string{{"--check", dir}, {"--once", dir}} {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		out := stdout.String()
		if code != 0 {
			t.Errorf("%v: exit %d, want 0\n%s%s", args, code, out, stderr.String())
		}
		if !strings.Contains(out, "clean_orders.sql:1:4: warning: clean_orders uses expectations, which spark-4.3 cannot run") {
			t.Errorf("%v: the spark-4.3 finding is not a warning:\n%s", args, out)
		}
		if !strings.Contains(out, "hint: 2 findings in 1 file say spark-4.3 cannot run this pipeline: if it only runs natively, add `backends: [native]` to thund.yaml") {
			t.Errorf("%v: no hint for thund.yaml's backends:\n%s", args, out)
		}
	}
	// Chosen in thund.yaml, spark-4.1 is checked for real.
	dir = firstPipeline(t, false)
	writeFileIn(t, dir, "thund.yaml", "backends: [native, spark-4.1]\n")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--check", dir}, &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), "error: clean_orders uses expectations") ||
		!strings.Contains(stdout.String(), "set `backends: [native]` in thund.yaml") {
		t.Errorf("backends: [native, spark-4.1]: exit %d\n%s", code, stdout.String())
	}
}

// TestMisspeltReferenceIsAnError: a read of a name that is no dataset,
// source or sample fails --check and --once, and the skip line keeps the
// did-you-mean.
func TestMisspeltReferenceIsAnError(t *testing.T) {
	dir := firstPipeline(t, true)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--check", dir}, &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), "totals.sql:1:44: error: clean_order is not a dataset") {
		t.Errorf("--check: exit %d\n%s", code, stdout.String())
	}
	stdout.Reset()
	code := run([]string{"--once", dir}, &stdout, &stderr)
	if code != 1 {
		t.Errorf("--once: exit %d, want 1\n%s", code, stdout.String())
	}
	if !strings.Contains(stdout.String(), "- totals") || !strings.Contains(stdout.String(), "skipped: not run: its definition has an error (totals.sql:1:44: clean_order is not a dataset of this pipeline and has no sample data; did you mean clean_orders?)") {
		t.Errorf("--once: the skip line lacks the did-you-mean:\n%s", stdout.String())
	}
}

// TestCycleReportedOnce: a cycle of four datasets is one diagnostic,
// with the other three edges as related locations, in text and JSON.
func TestCycleReportedOnce(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"a.sql": "SELECT * FROM d\n", "b.sql": "SELECT * FROM a\n", "c.sql": "SELECT * FROM b\n", "d.sql": "SELECT * FROM c\n",
	})
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--check", dir}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || strings.Count(lines[0], " here: ") != 3 || !strings.HasSuffix(lines[1], "1 error, 0 warnings") {
		t.Errorf("want one cycle line naming three other edges and 1 error:\n%s", stdout.String())
	}
	stdout.Reset()
	run([]string{"--check", "--json", dir}, &stdout, &stderr)
	if n := strings.Count(stdout.String(), `"code":"cycle"`); n != 1 || strings.Count(stdout.String(), `"message":"`) != 4 {
		t.Errorf("JSON: %d cycle objects, want 1 with 3 related:\n%s", n, stdout.String())
	}
}

// TestSampleRowsReported: --once names a sample's short and long rows by
// file and line (as warnings, text and JSON), and an unclosed quote fails
// the dataset with the file and line, not a cast.
func TestSampleRowsReported(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"samples/t.csv": "id,name\n1,a\n2,b,extra\n3\n",
		"a.sql":         "SELECT cast(id AS INT) AS id, name FROM t\n",
	})
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--once", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stdout.String())
	}
	for _, want := range []string{
		"samples/t.csv:3:1: warning: this row has 3 fields, the header names 2",
		"samples/t.csv:4:1: warning: this row has 1 of the header's 2 fields: column name is read as NULL",
		"0 errors, 2 warnings",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	stdout.Reset()
	run([]string{"--once", "--json", dir}, &stdout, &stderr)
	if !strings.Contains(stdout.String(), `"file":"samples/t.csv","line":3,`) || !strings.Contains(stdout.String(), `"code":"sample-shape"`) {
		t.Errorf("JSON lacks the sample diagnostics:\n%s", stdout.String())
	}
	writeFileIn(t, dir, "samples/t.csv", "id,name\n1,\"a\n2,b\n")
	stdout.Reset()
	if code := run([]string{"--once", dir}, &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), "sample samples/t.csv:2: a quoted field opens on this line and is never closed") {
		t.Errorf("unclosed quote: exit %d\n%s", code, stdout.String())
	}
}

// TestConfigErrorsFirst: a thund.yaml error is printed at its own line,
// without restating the line, and before the errors it causes.
func TestConfigErrorsFirst(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"thund.yaml": "backends: [native]\nsamples:\n  orders: [unclosed\n",
		"a.sql":      "SELECT * FROM orders\n",
	})
	var stdout, stderr bytes.Buffer
	run([]string{"--check", dir}, &stdout, &stderr)
	lines := strings.Split(stdout.String(), "\n")
	if !strings.HasPrefix(lines[0], "thund.yaml:3:3: error: YAML syntax error") || strings.Contains(lines[0], "(line") || !strings.HasPrefix(lines[1], "a.sql:1:15: error: orders") {
		t.Errorf("want the thund.yaml error first, at 3:3, then the reference it causes:\n%s", stdout.String())
	}
}
