package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPythonOnlyFolderAgainstDatabricks: a Lakeflow folder of Python
// files only (no spec, no thund.yaml, no SQL) is a pipeline when checked
// against the databricks backend, whose pipelines run such files, as
// docs/format.md says (QA15 F11); without that backend it is read too,
// since its files import dlt (Spark's finding is the import, with the hint
// to set the dialect), while a folder of pyspark.pipelines files without
// a spec is still refused with the reason.
func TestPythonOnlyFolderAgainstDatabricks(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "transformations", "bronze.py")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "import dlt\n\n@dlt.table\ndef orders():\n    return spark.range(3)\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--check", "--backend", "databricks", dir}, &out, &errb); code != 0 || !strings.Contains(out.String(), "1 dataset, 1 flow: 0 errors") {
		t.Fatalf("exit %d, want 0 and the dataset:\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"--check", dir}, &out, &errb); !strings.Contains(out.String(), "No module named 'dlt'") || !strings.Contains(out.String(), "add `dialect: databricks` to thund.yaml") {
		t.Errorf("without the databricks backend: exit %d, want the import's finding and the hint:\n%s%s", code, out.String(), errb.String())
	}
	sdp := "from pyspark import pipelines as dp\n\n@dp.materialized_view\ndef orders():\n    return spark.range(3)\n"
	if err := os.WriteFile(p, []byte(sdp), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"--check", dir}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "holds no pipeline") {
		t.Errorf("pyspark.pipelines without a spec: exit %d, want the refusal:\n%s%s", code, out.String(), errb.String())
	}
}
