package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestPythonSampleHints: the missing-sample hints of a read in a .py file
// bind the sample with thund.yaml, since a Python library has no
// `-- @sample` or `-- @trigger` pragma; a .sql file keeps the pragma forms.
func TestPythonSampleHints(t *testing.T) {
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///tmp/p\nlibraries:\n  - glob:\n      include: transformations/**\n",
		"thund.yaml":         "backends: [native]\n",
		"transformations/t.py": `from pyspark import pipelines as dp

@dp.materialized_view
def totals():
    return spark.read.table("orderz")

@dp.table
def clicks():
    return spark.readStream.format("json").schema("id BIGINT").load("/landing/events")
`,
		"transformations/s.sql": "CREATE MATERIALIZED VIEW s AS SELECT * FROM orderz;\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	unknown := findDiag(s, ir.CodeUnknownRef, "transformations/t.py")
	if unknown == nil || !strings.Contains(unknown.Message, "add samples/orderz.csv (or thund.yaml `samples: {orderz: path}`)") || strings.Contains(unknown.Message, "@sample") {
		t.Errorf("unknown read in Python: %v", diagStrings(s))
	}
	files := findDiag(s, ir.CodeMissingSample, "transformations/t.py")
	if files == nil || !strings.Contains(files.Message, "a folder samples/events/") || !strings.Contains(files.Message, "or bind one with thund.yaml `samples: {events: path}`") ||
		strings.Contains(files.Message, "-- @") {
		t.Errorf("stream of files in Python: %v", diagStrings(s))
	}
	sql := findDiag(s, ir.CodeUnknownRef, "transformations/s.sql")
	if sql == nil || !strings.Contains(sql.Message, "(or a @sample.orderz pragma)") {
		t.Errorf("unknown read in SQL: %v", diagStrings(s))
	}
}

// TestPythonSameLastPartRuns: a Python stream of raw.orders into a
// dataset orders is no longer refused natively (the engine keeps the two
// apart, engine/run.go relationsOf).
func TestPythonSameLastPartRuns(t *testing.T) {
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///tmp/p\nlibraries:\n  - glob:\n      include: transformations/**\n",
		"thund.yaml":         "backends: [native]\n",
		"transformations/t.py": `from pyspark import pipelines as dp

@dp.table
def orders():
    return spark.readStream.table("raw.orders")
`,
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := findDiagMsg(s, "transformations/t.py", "end in the same name"); d != nil {
		t.Errorf("a stream of raw.orders into orders is refused: %v", diagStrings(s))
	}
}

// TestSampleBinding: the binding a fix names is the pragma in SQL and
// thund.yaml in Python.
func TestSampleBinding(t *testing.T) {
	if got := SampleBinding(ir.Ref{Name: "raw.orders", Loc: ir.Loc{File: "a.sql"}}); got != "a @sample.raw.orders pragma" {
		t.Errorf("SQL: %s", got)
	}
	if got := SampleBinding(ir.Ref{Name: "orders", Loc: ir.Loc{File: "t/a.py"}}); got != "thund.yaml `samples: {orders: path}`" {
		t.Errorf("Python: %s", got)
	}
}
