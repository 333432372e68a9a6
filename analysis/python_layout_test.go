package analysis

import (
	"slices"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestPythonOnlyLakeflowFolder: an all-Python Lakeflow folder (no spec,
// no SQL) checked against databricks reads its transformations/*.py as
// the pipeline's libraries, so its datasets are in the graph; checked
// against Spark, whose spark-pipelines needs a spec, it reads none.
func TestPythonOnlyLakeflowFolder(t *testing.T) {
	root := writeTree(t, map[string]string{
		"transformations/orders.py": "import dlt\n\n@dlt.table\ndef orders():\n    return spark.read.table(\"raw\")\n",
	})
	s, err := Load(root, Options{Backends: []ir.Backend{ir.Databricks}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(s.Libraries, "transformations/orders.py") || s.Pipeline.Dataset("orders") == nil {
		t.Errorf("databricks: libraries %v, datasets %+v", s.Libraries, s.Pipeline.Datasets)
	}
	s, err = Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Libraries) != 0 {
		t.Errorf("spark: libraries %v, want none", s.Libraries)
	}
}
