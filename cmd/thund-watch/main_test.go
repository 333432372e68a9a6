package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/internal/testutil"
	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata pipelines")

// pipelines lists the testdata pipelines.
func pipelines(t *testing.T) []string {
	return testutil.Pipelines(t, "../../testdata")
}

// TestGolden runs `thund-watch --check` on every testdata pipeline and
// compares its output with the pipeline's check.golden file (regenerate
// with go test ./cmd/thund-watch -update, then review the diff).
func TestGolden(t *testing.T) {
	for _, dir := range pipelines(t) {
		t.Run(strings.TrimPrefix(filepath.ToSlash(dir), "../../testdata/"), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"--check", dir}, &stdout, &stderr)
			got := stdout.String() + "exit status " + string(rune('0'+code)) + "\n"
			golden := filepath.Join(dir, "check.golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/thund-watch -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s\n--- got\n%s--- want\n%s", golden, got, want)
			}
			if stderr.Len() > 0 {
				t.Errorf("stderr: %s", stderr.String())
			}
		})
	}
}

// TestJSONMatchesText checks that --json carries the same diagnostics as
// the text output, with valid objects and a final summary.
func TestJSONMatchesText(t *testing.T) {
	for _, dir := range pipelines(t) {
		var text, js, stderr bytes.Buffer
		codeText := run([]string{"--check", dir}, &text, &stderr)
		codeJSON := run([]string{"--check", "--json", dir}, &js, &stderr)
		if codeText != codeJSON {
			t.Fatalf("%s: exit %d with text, %d with --json", dir, codeText, codeJSON)
		}
		lines := strings.Split(strings.TrimSpace(text.String()), "\n")
		lines = lines[:len(lines)-1] // the summary line
		for len(lines) > 0 && strings.HasPrefix(lines[len(lines)-1], "hint: ") {
			lines = lines[:len(lines)-1]
		}
		sc := bufio.NewScanner(&js)
		var diags, errors int
		var summary map[string]any
		for sc.Scan() {
			var obj map[string]any
			if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
				t.Fatalf("%s: invalid JSON line %q: %v", dir, sc.Text(), err)
			}
			switch obj["type"] {
			case "diagnostic":
				for _, k := range []string{"file", "line", "column", "end_line", "end_column", "severity", "code", "message", "backend", "related"} {
					if _, ok := obj[k]; !ok {
						t.Fatalf("%s: diagnostic lacks %q: %s", dir, k, sc.Text())
					}
				}
				if obj["severity"] == "error" {
					errors++
				}
				diags++
			case "summary":
				summary = obj
			default:
				t.Fatalf("%s: unexpected object %s", dir, sc.Text())
			}
		}
		if summary == nil {
			t.Fatalf("%s: no summary object", dir)
		}
		if len(text.String()) > 0 && diags != len(lines) && !(diags == 0 && len(lines) == 0) {
			t.Fatalf("%s: %d JSON diagnostics, %d text lines", dir, diags, len(lines))
		}
		if int(summary["errors"].(float64)) != errors {
			t.Fatalf("%s: summary says %v errors, counted %d", dir, summary["errors"], errors)
		}
		if (errors > 0) != (codeJSON == 1) {
			t.Fatalf("%s: %d errors but exit status %d", dir, errors, codeJSON)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	empty := t.TempDir()
	for _, args := range [][]string{
		{"--check", "--backend", "spark-9", "."},
		{"--check", "a", "b"},
		{"--no-such-flag"},
		{"--graph", "."},             // would start watch mode
		{"--columns", "--once", "."}, // --columns is --check's
		{"--check", empty},           // not a pipeline: no spec, thund.yaml or .sql
		{"--once", empty},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %s)", args, code, stderr.String())
		}
		if stderr.Len() == 0 {
			t.Errorf("%v: no message on stderr", args)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, flagName := range []string{"--check", "--json", "--backend", "--graph"} {
		if !strings.Contains(stdout.String(), flagName) {
			t.Errorf("--help does not document %s", flagName)
		}
	}
}

func TestBackendFlagOverridesConfig(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"thund.yaml":    "backends: [native]\n",
		"checked.sql":   "-- @expect.pos: x > 0\nSELECT 1 AS x\n",
		"other.sql":     "SELECT x FROM checked\n",
		"unrelated.sql": "SELECT 2 AS y\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--check", dir}, &out, &errb); code != 0 {
		t.Fatalf("native only: exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := run([]string{"--check", "--backend", "native,spark-4.1", dir}, &out, &errb); code != 1 {
		t.Fatalf("with spark-4.1: exit %d, want 1\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "checked.sql:1:4: error:") || !strings.Contains(out.String(), "[unsupported-on-backend]") {
		t.Fatalf("expectation not reported for spark-4.1:\n%s", out.String())
	}
}

// TestOnceJSON runs the retail pipeline with --once --json and checks the
// objects a tool would read: events for every dataset, expectation
// results, previews with typed columns, and the summary.
func TestOnceJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"--once", "--json", "--preview", "daily_revenue", "--limit", "3", "../../testdata/retail"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	completed := map[string]bool{}
	var exps, previews int
	var summary map[string]any
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var obj map[string]any
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			t.Fatalf("invalid JSON %q: %v", sc.Text(), err)
		}
		switch obj["type"] {
		case "event":
			for _, k := range []string{"dataset", "flow", "phase", "message", "rows", "elapsed_ms"} {
				if _, ok := obj[k]; !ok {
					t.Fatalf("event lacks %s: %s", k, sc.Text())
				}
			}
			if obj["phase"] == "completed" {
				completed[obj["dataset"].(string)] = true
			}
		case "expectation":
			exps++
			if obj["dataset"] == "clean_orders" && obj["name"] == "valid_amount" {
				if obj["action"] != "drop" || obj["violations"].(float64) != 4 || obj["dropped"].(float64) != 4 {
					t.Fatalf("valid_amount: %s", sc.Text())
				}
			}
		case "preview":
			previews++
			if obj["dataset"] != "daily_revenue" || obj["total_rows"].(float64) != 31 || len(obj["rows"].([]any)) != 3 {
				t.Fatalf("preview: %s", sc.Text())
			}
			first := obj["rows"].([]any)[0].([]any)
			if d, ok := first[0].(string); !ok || len(d) != 10 || d[4] != '-' || d[7] != '-' {
				t.Fatalf("dates must be ISO strings: %v", first)
			}
		case "summary":
			summary = obj
		}
	}
	if len(completed) != 8 || exps != 4 || previews != 1 || summary == nil || summary["failed"].(float64) != 0 {
		t.Fatalf("completed %v, %d expectations, %d previews, summary %v", completed, exps, previews, summary)
	}
}

// TestOnceFailExpectationExitsOne checks that a FAIL expectation fails
// its dataset, skips its readers, keeps the rest, and exits 1.
func TestOnceFailExpectationExitsOne(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"samples/orders.csv": "id,amount\n1,5\n2,-3\n3,7\n",
		"checked.sql":        "-- @expect.positive: amount > 0 ON VIOLATION FAIL UPDATE\nSELECT * FROM orders\n",
		"reader.sql":         "SELECT count(*) AS n FROM checked\n",
		"independent.sql":    "SELECT sum(amount) AS total FROM orders\n",
	}
	for name, text := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	var out, errb bytes.Buffer
	code := run([]string{"--once", dir}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out.String())
	}
	for _, want := range []string{"✗ checked", "expectation positive failed: 1 row(s) violate amount > 0", "- reader", "skipped: upstream checked failed", "✓ independent", "FAILED: 1 violating rows", "2 | -3"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestCheckColumns checks that plain --check reports a misspelt column at
// the place it is written, with a suggestion, from the Spark semantic model
// alone; that --columns (DuckDB) does not report it a second time; and that
// --columns still finds what only DuckDB can see, such as a column of a
// JSON sample, whose columns the analysis does not read.
func TestCheckColumns(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "samples"), 0o755)
	os.WriteFile(filepath.Join(dir, "samples", "orders.csv"), []byte("id,amount\n1,5\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "big.sql"), []byte("SELECT id, amout FROM orders\n"), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"--check", dir}, &out, &errb); code != 1 {
		t.Fatalf("plain --check: exit %d\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "big.sql:1:12: error:") || !strings.Contains(out.String(), "`amount`") || !strings.Contains(out.String(), "[unknown-column]") {
		t.Fatalf("plain --check output:\n%s", out.String())
	}
	out.Reset()
	if code := run([]string{"--check", "--columns", dir}, &out, &errb); code != 1 {
		t.Fatalf("--columns: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if n := strings.Count(out.String(), "[unknown-column]"); n != 1 {
		t.Fatalf("--columns reports the typo %d times:\n%s", n, out.String())
	}

	js := t.TempDir()
	os.MkdirAll(filepath.Join(js, "samples"), 0o755)
	os.WriteFile(filepath.Join(js, "samples", "orders.json"), []byte(`{"id": 1, "amount": 5}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(js, "big.sql"), []byte("SELECT id, amout FROM orders\n"), 0o644)
	out.Reset()
	if code := run([]string{"--check", js}, &out, &errb); code != 0 {
		t.Fatalf("plain --check of a JSON sample: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"--check", "--columns", js}, &out, &errb); code != 1 {
		t.Fatalf("--columns of a JSON sample: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "big.sql:1:12: error:") || !strings.Contains(out.String(), `"amount"`) {
		t.Fatalf("--columns output:\n%s", out.String())
	}
}

// TestOnceSparkDryRun pushes testdata/sdp_project to a real Spark Connect
// server after the local run (a dry run), then a copy with a misspelt
// column: Spark's error comes back as a file:line diagnostic and exit 1.
func TestOnceSparkDryRun(t *testing.T) {
	remote := sparktest.Need(t)
	var out, errb bytes.Buffer
	if code := run([]string{"--once", "--limit", "1", "--spark", remote, "--dry-run", "../../testdata/sdp_project"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "spark  dry run completed") {
		t.Fatalf("no completed dry run:\n%s", out.String())
	}
	dir := t.TempDir()
	copyDir(t, "../../testdata/sdp_project", dir)
	zones := filepath.Join(dir, "transformations", "zones.sql")
	b, _ := os.ReadFile(zones)
	// string_split is DuckDB's: the local run succeeds (with a
	// not-portable warning), Spark rejects the dataset.
	broken := strings.Replace(string(b), "SELECT pickup_borough, dropoff_borough, count(*) AS trips", "SELECT pickup_borough, dropoff_borough, count(*) AS trips, max(string_split(pickup_borough, '_')) AS parts", 1)
	if broken == string(b) {
		t.Fatal("test setup: cross_borough_trips query not found")
	}
	os.WriteFile(zones, []byte(broken), 0o644)
	out.Reset()
	if code := run([]string{"--once", "--limit", "1", "--spark", remote, "--dry-run", dir}, &out, &errb); code != 1 {
		t.Fatalf("exit %d for a pipeline Spark rejects\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "transformations/zones.sql:") || !strings.Contains(out.String(), "cross_borough_trips") || !strings.Contains(out.String(), "spark  dry run failed") {
		t.Fatalf("Spark's error is not reported at its file and line:\n%s", out.String())
	}
}
func copyDir(t *testing.T, src, dst string) { testutil.CopyTree(t, src, dst) }
