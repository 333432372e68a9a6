package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/pylib"
	"github.com/thund-dev/thund/analysis/sqlfront"
)

// TestPythonModules: a helper module is found in the importing file's
// folder, else at the pipeline root, as a module or a package; nothing
// outside the folder is read (a link, a name with a path in it), nor a
// file that is not a regular one or is too large.
func TestPythonModules(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.py"), []byte(`RULES = {"x": "1 = 1"}`), 0o644)
	root := writeTree(t, map[string]string{
		"transformations/t.py":          "",
		"transformations/rules.py":      "A = 1",
		"rules.py":                      "A = 2",
		"utilities/__init__.py":         "A = 3",
		"utilities/more.py":             "A = 4",
		"utilities/big.py":              "A = '" + strings.Repeat("x", pylib.MaxModuleBytes) + "'",
		"transformations/t_readme.txt":  "",
		"transformations/inner/deep.py": "A = 5",
	})
	if err := os.Symlink(filepath.Join(outside, "secret.py"), filepath.Join(root, "secret.py")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	read := PythonModules(root, "transformations/t.py", nil)
	cases := map[string]string{
		"rules": "A = 1", "utilities": "A = 3", "utilities.more": "A = 4", "inner.deep": "A = 5",
		"secret": "", "linked.secret": "", "utilities.big": "", "..rules": "", "utilities/more": "", "missing": "",
	}
	for name, want := range cases {
		got, ok := read(name)
		if ok != (want != "") || got != want {
			t.Errorf("%s: got %q %v, want %q", name, got, ok, want)
		}
	}
	// The caller's texts (an editor's buffers) come first.
	read = PythonModules(root, "transformations/t.py", func(rel string) (string, bool) {
		return "A = 9", rel == "transformations/rules.py"
	})
	if got, _ := read("rules"); got != "A = 9" {
		t.Errorf("the held text is not read first: %q", got)
	}
}

// TestPythonHelperRulesEnforced: a file read with its helper modules has
// the helper's rules as its flow's expectations, and no warning for them.
func TestPythonHelperRulesEnforced(t *testing.T) {
	root := writeTree(t, map[string]string{
		"transformations/rules.py": "RULES = {\"positive\": \"amount > 0\"}\n",
	})
	text := "from pyspark import pipelines as dp\nfrom rules import RULES\n\n@dp.materialized_view\n@dp.expect_all_or_drop(RULES)\ndef checked():\n    return spark.read.table(\"orders\")\n"
	res := analysePythonWith("transformations/t.py", text, sqlfront.DialectSpark, nil, PythonModules(root, "transformations/t.py", nil))
	if len(res.flows) != 1 || len(res.flows[0].Expectations) != 1 || res.flows[0].Expectations[0].SQL != "amount > 0" || res.flows[0].Expectations[0].Action != "drop" {
		t.Fatalf("flows: %+v", res.flows)
	}
	for _, d := range res.diags {
		if strings.Contains(d.Message, "which Thund does not read") {
			t.Errorf("a warning for rules that were read: %s", d.Message)
		}
	}
	res = analysePython("transformations/t.py", text, sqlfront.DialectSpark, nil)
	if len(res.flows[0].Expectations) != 0 || len(res.diags) == 0 {
		t.Errorf("without the helper: %+v %+v", res.flows[0].Expectations, res.diags)
	}
}

// TestSnapshotPythonModules: a snapshot's reader of helper modules reads
// the texts it holds before the disk (an editor's unsaved helper).
func TestSnapshotPythonModules(t *testing.T) {
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/a.py":             "from rules import RULES\n",
		"t/rules.py":         "RULES = {}\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	edited := "RULES = {\"x\": \"1 = 1\"}\n"
	n := s.Update([]Change{{Path: "t/rules.py", Text: &edited}})
	if got, ok := n.pythonModulesOf("t/a.py")("rules"); !ok || got != edited {
		t.Errorf("rules = %q %v, want the edited text", got, ok)
	}
	if got, ok := s.pythonModulesOf("t/a.py")("rules"); !ok || got != "RULES = {}\n" {
		t.Errorf("rules before the edit = %q %v", got, ok)
	}
}
