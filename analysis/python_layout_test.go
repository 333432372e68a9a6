package analysis

import (
	"slices"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestPythonOnlyLakeflowFolder: an all-Python Lakeflow folder (no spec,
// no SQL) checked against databricks reads its transformations/*.py as
// the pipeline's libraries, so its datasets are in the graph; checked
// against Spark, whose spark-pipelines needs a spec, it reads only the
// files importing Databricks' dlt module (which can only be a Databricks
// pipeline's sources, where the import is Spark's finding), not one
// written with pyspark.pipelines.
func TestPythonOnlyLakeflowFolder(t *testing.T) {
	root := writeTree(t, map[string]string{
		"transformations/orders.py": "import dlt\n\n@dlt.table\ndef orders():\n    return spark.read.table(\"raw\")\n",
		"transformations/sdp.py":    "from pyspark import pipelines as dp\n\n@dp.materialized_view\ndef sdp():\n    return spark.range(3)\n",
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
	if !slices.Equal(s.Libraries, []string{"transformations/orders.py"}) {
		t.Errorf("spark: libraries %v, want transformations/orders.py alone", s.Libraries)
	}
}
