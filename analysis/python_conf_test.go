package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestPythonConfAndHelperRules: spark.conf.get reads the spec's
// configuration (a computed path and name resolve, and a streaming flow
// over a readStream with such a path reads a stream); rules from a helper
// module are a warning, never silently dropped; a body that needs only
// its inputs' columns is not blocked.
func TestPythonConfAndHelperRules(t *testing.T) {
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nconfiguration:\n  cat: main\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/a.py": `from pyspark import pipelines as dp
from utilities import rules

cat = spark.conf.get("cat")

dp.create_streaming_table(f"{cat}.raw")

@dp.append_flow(name="east", target=f"{cat}.raw")
def east():
    return spark.readStream.format("json").load(f"/Volumes/{cat}/s/east/")

@dp.expect_all_or_drop(rules.get_rules())
@dp.materialized_view(name="clean")
def clean():
    return spark.read.table(f"{cat}.raw").withColumn("n", F.lit(1))
`,
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Pipeline.Dataset("main.raw") == nil || s.Pipeline.Dataset("clean") == nil {
		t.Fatalf("datasets: %+v", s.Pipeline.Datasets)
	}
	flows := s.Pipeline.FlowsInto("main.raw")
	if len(flows) != 1 || len(flows[0].Reads) != 1 || flows[0].Reads[0].Path != "/Volumes/main/s/east/" || !flows[0].Streaming {
		t.Errorf("main.raw flows = %+v", flows)
	}
	for _, d := range s.Diagnostics {
		if d.Code == ir.CodeStreamNoStream {
			t.Errorf("false diagnostic: %+v", d)
		}
	}
	if d := findDiagMsg(s, "t/a.py", "come from rules.get_rules(), which Thund does not read"); d == nil || d.Severity != ir.Warning {
		t.Errorf("no warning for the helper module's rules: %+v", s.Diagnostics)
	}
	if why, ok := s.Broken()["clean"]; ok {
		t.Errorf("clean is blocked (%q), yet the run knows its input's columns", why)
	}
	if why, sample, ok := s.PythonStandIn(s.Pipeline.Dataset("clean")); ok {
		t.Errorf("clean is said to be filled from a stand-in (%q, %q), yet the run states its body", why, sample)
	}
}

// TestPythonDLTImportOnSpark: `import dlt` is an error on a Spark backend
// (spark-pipelines fails the import: ModuleNotFoundError, checked on
// 4.1.4), naming pyspark.pipelines as the fix, once per file; fine on
// databricks and natively.
func TestPythonDLTImportOnSpark(t *testing.T) {
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/p.py":             "import dlt\n\n@dlt.table(name=\"m\")\ndef m():\n    return spark.range(3)\n\n@dlt.view\ndef v():\n    return spark.range(2)\n",
	})
	for _, b := range []ir.Backend{ir.Spark41, ir.Spark43, ir.Databricks} {
		s, err := Load(root, Options{Backends: []ir.Backend{b}})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, d := range s.Diagnostics {
			if strings.Contains(d.Message, "No module named 'dlt'") {
				n++
				if d.Severity != ir.Error || d.Loc.Start != 0 || d.Loc.End != len("import dlt") || !strings.Contains(d.Message, "from pyspark import pipelines as dp") {
					t.Errorf("%s: %+v", b, d)
				}
			}
		}
		if want := map[bool]int{true: 0, false: 1}[b == ir.Databricks]; n != want {
			t.Errorf("%s: %d dlt-import errors, want %d: %+v", b, n, want, s.Diagnostics)
		}
	}
}
