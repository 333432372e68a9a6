package analysis

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// helperRules returns the expectations of the flow into target, as
// name=sql pairs in order.
func helperRules(t *testing.T, s *Snapshot, target string) []string {
	t.Helper()
	for _, f := range s.Pipeline.Flows {
		if f.Target == target {
			var out []string
			for _, e := range f.Expectations {
				out = append(out, e.Name+"="+e.SQL)
			}
			return out
		}
	}
	t.Fatalf("no flow into %s among %d flows", target, len(s.Pipeline.Flows))
	return nil
}

func sameRules(got []string, want ...string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// TestSnapshotHelperModuleRules: a snapshot reads the helper module a
// library imports its rules from (a file that is no library), and a
// change of that module alone, as watch mode reports it (a path with an
// empty text: analysis keeps no text of a file that is not a library),
// re-reads the library; an unchanged module keeps the library's result.
func TestSnapshotHelperModuleRules(t *testing.T) {
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: transformations/**\n",
		"transformations/t.py": "from pyspark import pipelines as dp\nfrom rules import RULES\n\n" +
			"@dp.materialized_view\n@dp.expect_all_or_drop(RULES)\ndef checked():\n    return spark.read.table(\"orders\")\n",
		"transformations/other.sql": "CREATE MATERIALIZED VIEW orders AS SELECT 1 AS amount;\n",
		"rules.py":                  "RULES = {\"positive\": \"amount > 0\"}\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := helperRules(t, s, "checked"); !sameRules(got, "positive=amount > 0") {
		t.Fatalf("rules after the load: %v", got)
	}
	for _, d := range s.Diagnostics {
		if d.Code == ir.CodeLibraryPython && d.Severity >= ir.Warning {
			t.Errorf("a warning with the helper read: %s", d.Message)
		}
	}
	kept := s.results["transformations/t.py"]

	// Another file's edit keeps the library's result.
	sql := "CREATE MATERIALIZED VIEW orders AS SELECT 2 AS amount;\n"
	n := s.Update([]Change{{Path: "transformations/other.sql", Text: &sql}})
	if n.results["transformations/t.py"] != kept {
		t.Error("an unrelated edit re-read the library")
	}

	// The helper changes on disk; watch mode reports its path.
	if err := os.WriteFile(filepath.Join(root, "rules.py"), []byte("RULES = {\"small\": \"amount < 10\", \"positive\": \"amount > 0\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := ""
	n = n.Update([]Change{{Path: "rules.py", Text: &empty}})
	if got := helperRules(t, n, "checked"); !sameRules(got, "small=amount < 10", "positive=amount > 0") {
		t.Errorf("rules after the helper changed: %v", got)
	}

	// A new module nearer the file (its folder comes before the root)
	// is a new file: the library reads it instead.
	near := "RULES = {\"near\": \"amount <> 3\"}\n"
	if err := os.WriteFile(filepath.Join(root, "transformations", "rules.py"), []byte(near), 0o644); err != nil {
		t.Fatal(err)
	}
	n = n.Update([]Change{{Path: "transformations/rules.py", Text: &near}})
	if got := helperRules(t, n, "checked"); !sameRules(got, "near=amount <> 3") {
		t.Errorf("rules after a nearer module appeared: %v", got)
	}
	// An editor's unsaved text of that module (a library now, so held)
	// is read before the disk.
	edited := "RULES = {\"edited\": \"amount > 1\"}\n"
	n = n.Update([]Change{{Path: "transformations/rules.py", Text: &edited}})
	if got := helperRules(t, n, "checked"); !sameRules(got, "edited=amount > 1") {
		t.Errorf("rules after the held module was edited: %v", got)
	}
}
