package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPythonHelperRulesRun: @dp.expect_all_or_drop(RULES) whose rules a
// helper module at the pipeline root binds (a file that is no library)
// is enforced by a native run of the snapshot: each rule's dropped rows
// counted, the survivors kept.
func TestPythonHelperRulesRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: transformations/**\n",
		"thund.yaml":         "backends: [native, databricks]\n",
		"rules.py":           "RULES = {\"positive\": \"amount > 0\", \"small\": \"amount < 100\"}\n",
		"transformations/t.py": "from pyspark import pipelines as dp\nfrom rules import RULES\n\n" +
			"@dp.materialized_view\ndef orders():\n    return spark.sql(\"SELECT * FROM VALUES (1, 5), (2, -3), (3, 500), (4, 7) AS t(id, amount)\")\n\n" +
			"@dp.materialized_view\n@dp.expect_all_or_drop(RULES)\ndef checked():\n    return spark.read.table(\"orders\")\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := runPython(t, dir)
	if d := res.Datasets["checked"]; d == nil || d.Phase != Completed || d.Rows != 2 {
		t.Fatalf("checked = %+v, want 2 rows", d)
	}
	for _, name := range []string{"positive", "small"} {
		if e := expectation(t, res, "checked", name); e.Dropped != 1 || e.Action != "drop" {
			t.Errorf("%s: %+v, want 1 row dropped", name, e)
		}
	}
}
