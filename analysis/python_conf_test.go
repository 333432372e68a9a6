package analysis

import (
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
}
