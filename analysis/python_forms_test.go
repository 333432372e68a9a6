package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestPythonStepSkipNamesItsPlace: a chain whose first step needs its
// input's columns and whose later step Thund cannot state is blocked
// before the run (not run to fail there), and the reason names the file,
// line and column of the later step.
func TestPythonStepSkipNamesItsPlace(t *testing.T) {
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"samples/orders.csv": "id,customer\n1,a\n",
		"t/a.py": `from pyspark import pipelines as dp
from pyspark.sql import functions as F

@dp.materialized_view
def hashed():
    return (
        spark.read.table("orders")
        .withColumn("twice", F.col("id") * 2)
        .withColumn("h", F.hash("customer"))
    )
`,
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	why, ok := s.Broken()["hashed"]
	if !ok || !strings.Contains(why, "t/a.py:9:10: ") || !strings.Contains(why, "hash(...)") {
		t.Errorf("hashed is not blocked at its hash step: %q (blocked %v)", why, ok)
	}
}

// TestPythonComputedExpectation: a rule the file builds from what Thund
// knows (a module constant, the spec's configuration) is enforced; one
// built from what only the run gives is a warning at its decorator, not
// dropped.
func TestPythonComputedExpectation(t *testing.T) {
	text := `from pyspark import pipelines as dp

MIN = 5
CONF_MIN = spark.conf.get("min_amount")

@dp.materialized_view
@dp.expect("valid", f"amount > {MIN}")
@dp.expect_or_drop("conf_valid", f"amount > {CONF_MIN}")
@dp.expect_or_fail("direct", f"amount < {spark.conf.get('max_amount', '100')}")
@dp.expect("later", f"amount > {compute()}")
@dp.expect_all({"known": "amount IS NOT NULL", "dynamic": f"amount < {limit()}"})
def checked():
    return spark.read.table("orders")
`
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nconfiguration:\n  min_amount: \"6\"\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/a.py":             text,
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	flows := s.Pipeline.FlowsInto("checked")
	if len(flows) != 1 {
		t.Fatalf("flows: %+v", flows)
	}
	got := map[string]string{}
	for _, e := range flows[0].Expectations {
		got[e.Name] = string(e.Action) + " " + e.SQL
	}
	want := map[string]string{"valid": "warn amount > 5", "conf_valid": "drop amount > 6", "direct": "fail amount < 100", "known": "warn amount IS NOT NULL"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("expectation %s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if _, ok := got["later"]; ok {
		t.Errorf("a rule computed at run time was given a text: %v", got)
	}
	d := findDiagMsg(s, "t/a.py", "the rule of this @expect is computed at run time")
	if d == nil || d.Severity != ir.Warning {
		t.Fatalf("no warning for the computed rule: %+v", s.Diagnostics)
	}
	if at := strings.Index(text, `@dp.expect("later"`); d.Loc.Start != at {
		t.Errorf("the warning is at %d, want the decorator at %d", d.Loc.Start, at)
	}
	if d := findDiagMsg(s, "t/a.py", `the rule of this @expect_all is computed at run time ("dynamic": f"amount < {limit()}")`); d == nil {
		t.Errorf("no warning for the dict's computed rule: %+v", s.Diagnostics)
	}
}

// TestPythonIfBlocks: definitions under module-level ifs are read: the
// branch a known condition takes, `if __name__ == "__main__":` as
// Databricks runs the file (and an error for Spark, which imports it as
// another module), every branch of a condition computed at run time.
func TestPythonIfBlocks(t *testing.T) {
	root := writeTree(t, map[string]string{
		"thund.yaml": "dialect: databricks\n",
		"t/a.py": `import dlt

DEBUG = False
ENV = spark.conf.get("env", "prod")

if DEBUG:
    @dlt.table
    def debug_orders():
        return spark.read.table("orders")
elif ENV == "prod" and not DEBUG:
    @dlt.table
    def prod_orders():
        return spark.read.table("orders")
else:
    @dlt.table
    def other_orders():
        return spark.read.table("orders")

if __name__ == "__main__":
    @dlt.table
    def main_orders():
        return spark.read.table("orders")

if today() > 3:
    @dlt.table
    def maybe():
        return spark.read.table("orders")
else:
    @dlt.table
    def maybe():
        return spark.read.table("orders")
`,
	})
	s, err := Load(root, Options{Backends: []ir.Backend{ir.Native, ir.Databricks, ir.Spark41}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range s.Pipeline.Datasets {
		names = append(names, d.Name)
	}
	if strings.Join(names, ",") != "prod_orders,main_orders,maybe" {
		t.Errorf("datasets = %v, want prod_orders, main_orders, maybe", names)
	}
	if d := findDiagMsg(s, "t/a.py", "under if __name__"); d == nil || d.Severity != ir.Error || d.Backend != ir.Spark41 {
		t.Errorf("no Spark error for the main guard: %+v", s.Diagnostics)
	}
	if d := findDiagMsg(s, "t/a.py", "this condition is computed at run time"); d == nil {
		t.Errorf("no word on the computed condition: %+v", s.Diagnostics)
	}
	for _, d := range s.Diagnostics {
		if d.Severity == ir.Error && d.Backend != ir.Spark41 && !strings.Contains(d.Message, "orders") {
			t.Errorf("unexpected error: %+v", d)
		}
	}
}

// TestPythonLiveRefs: spark.table("LIVE.x") reads the pipeline's dataset
// x, as SQL's LIVE.x does, with Spark's error at the LIVE. qualifier.
func TestPythonLiveRefs(t *testing.T) {
	text := "import dlt\n\n@dlt.table\ndef a():\n    return spark.range(2)\n\n@dlt.table\ndef b():\n    return spark.table(\"LIVE.a\").where(\"id > 0\")\n"
	root := writeTree(t, map[string]string{"thund.yaml": "dialect: databricks\n", "t/a.py": text})
	s, err := Load(root, Options{Backends: []ir.Backend{ir.Databricks, ir.Spark41}})
	if err != nil {
		t.Fatal(err)
	}
	flows := s.Pipeline.FlowsInto("b")
	if len(flows) != 1 || len(flows[0].Reads) != 1 || flows[0].Reads[0].Name != "a" || !strings.Contains(flows[0].SQL, "FROM `a`") {
		t.Fatalf("b's flow: %+v", flows)
	}
	if r := flows[0].Reads[0].Loc; text[r.Start:r.End] != "a" {
		t.Errorf("the read is at %q, want the name a", text[r.Start:r.End])
	}
	d := findDiagMsg(s, "t/a.py", "uses a LIVE.x reference")
	if d == nil || d.Backend != ir.Spark41 || text[d.Loc.Start:d.Loc.End] != "LIVE." {
		t.Errorf("no Spark error at LIVE.: %+v", d)
	}
	for _, d := range s.Diagnostics {
		if d.Code == ir.CodeUnknownRef {
			t.Errorf("false unknown reference: %+v", d)
		}
	}
}
