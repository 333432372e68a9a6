package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnceFileMetadata: --once runs a Databricks bronze table that
// selects the file metadata column (_metadata.file_path, .file_name,
// .file_modification_time) and the rescued-data column of read_files, as
// QA found them in public projects: every dataset runs, downstream ones
// too, the preview shows the sample file's path in Spark's form, and no
// DuckDB wording or internal name is printed.
func TestOnceFileMetadata(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"thund.yaml":           "backends: [native, databricks]\n",
		"samples/ev/001.json":  `{"id": 1, "kind": "a"}` + "\n",
		"samples/cust/001.csv": "id\n7\n",
		"transformations/a.sql": "CREATE OR REFRESH STREAMING TABLE bronze AS SELECT *, _metadata.file_path AS src, _metadata.file_name, _metadata.file_modification_time AS m\n" +
			"FROM STREAM read_files('/Volumes/c/s/landing/ev/', format => 'json');\n" +
			"CREATE OR REFRESH MATERIALIZED VIEW silver AS SELECT id, kind, file_name FROM bronze;\n" +
			"CREATE OR REFRESH STREAMING TABLE cust AS SELECT id, _rescued_data\n" +
			"FROM STREAM read_files('/Volumes/c/s/raw/cust', format => 'csv', header => true, rescueddatacolumn => '_rescued_data');\n",
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
	code := run([]string{"--once", "--backend", "databricks", "--preview", "bronze,silver,cust", dir}, &out, &errb)
	all := out.String() + errb.String()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, all)
	}
	for _, want := range []string{"3 completed, 0 failed, 0 skipped", "file:/", "001.json", "_rescued_data"} {
		if !strings.Contains(all, want) {
			t.Errorf("output lacks %q:\n%s", want, all)
		}
	}
	for _, bad := range []string{"Referenced", "Binder", "__thund", "_metadata │", "│ _metadata"} {
		if strings.Contains(all, bad) {
			t.Errorf("output has %q:\n%s", bad, all)
		}
	}
}
