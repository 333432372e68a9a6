package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckTypeErrors checks that plain --check (no --columns, no DuckDB)
// reports the type errors Spark's analyzer raises, at the expression and
// with Spark's error class, across datasets (a column's type passes from
// the dataset that computes it to its reader), once each; that a valid
// query gets none; and that --columns does not report them twice.
func TestCheckTypeErrors(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"typed.sql":   "SELECT true = 1 AS x, CAST(1 AS BOOLEAN) AS flag, DATE'2024-01-01' AS d\n",
		"reader.sql":  "SELECT date_add(d, 1L) AS next_day, CASE WHEN flag THEN 1 ELSE false END AS c FROM typed\n",
		"fine.sql":    "SELECT date_add(d, 1) AS next_day, CASE WHEN flag THEN 1 ELSE 0 END AS c FROM typed\n",
		"ordered.sql": "SELECT d, count(*) AS n, rank() OVER (ORDER BY d) AS r FROM typed GROUP BY d ORDER BY count(*)\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--check", dir}, &out, &errb); code != 1 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{
		"typed.sql:1:8: error: [DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES]",
		"reader.sql:1:8: error: [DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE]",
		"reader.sql:1:37: error: [DATATYPE_MISMATCH.DATA_DIFF_TYPES]",
		// the semantic model's own analysis errors, with Spark's class
		"ordered.sql:1:87: error: [UNSUPPORTED_EXPR_FOR_OPERATOR]",
	} {
		if strings.Count(out.String(), want) != 1 {
			t.Errorf("plain --check does not report %q once:\n%s", want, out.String())
		}
	}
	if n := strings.Count(out.String(), "[sql-binder]"); n != 4 {
		t.Errorf("%d sql-binder errors, want 4:\n%s", n, out.String())
	}
	if strings.Contains(out.String(), "fine.sql") {
		t.Errorf("a valid query has an error:\n%s", out.String())
	}
	out.Reset()
	if code := run([]string{"--check", "--columns", dir}, &out, &errb); code != 1 {
		t.Fatalf("--columns: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if n := strings.Count(out.String(), "typed.sql:1:8: error:"); n != 1 {
		t.Errorf("--columns reports true = 1 %d times:\n%s", n, out.String())
	}
}

// TestCheckReportsNativeRefusals checks that plain --check reports what a
// native run refuses before running a flow (a construct the translation
// does not take, whatever the types), at its range and for the native
// backend, as --once does; that a refusal resting on a type only the run
// knows (a sample column's) is left to the run; and that a pipeline not
// checked against native gets none.
func TestCheckReportsNativeRefusals(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"samples/src.csv": "id,v\n1,2.5\n",
		"script.sql":      "CREATE MATERIALIZED VIEW script AS SELECT TRANSFORM(id) USING 'cat' AS (x) FROM src\n",
		"typed.sql":       "CREATE MATERIALIZED VIEW typed AS SELECT CAST(v AS INT) AS i FROM src\n",
		"pattern.sql":     "CREATE MATERIALIZED VIEW pattern AS SELECT date_format(DATE'2024-01-01', 'yyyy QQ') AS q\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--check", "--backend", "native", dir}, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errb.String())
	}
	want := "script.sql:1:36: error: SELECT TRANSFORM runs a script"
	if strings.Count(out.String(), want) != 1 || !strings.Contains(out.String(), "[unsupported-on-backend]") {
		t.Errorf("plain --check does not report the native refusal %q once:\n%s", want, out.String())
	}
	// A reason that does not say "native" gets the backend named.
	if !strings.Contains(out.String(), "pattern.sql:1:") || !strings.Contains(out.String(), "error: pattern cannot run on the native backend: this datetime pattern") {
		t.Errorf("the refusal does not name the backend:\n%s", out.String())
	}
	if strings.Contains(out.String(), "typed.sql") {
		t.Errorf("a refusal resting on a sample column's type (known only to the run) is reported:\n%s", out.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"--check", "--backend", "spark-4.1", dir}, &out, &errb); strings.Contains(out.String(), "SELECT TRANSFORM runs") {
		t.Errorf("exit %d: a pipeline not checked against native gets a native refusal:\n%s", code, out.String())
	}
}
