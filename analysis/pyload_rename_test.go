package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestPythonLoadNamedLikeDataset: a Python load of files whose last path
// segment is a dataset's name (/landing/customers read into
// customers_raw, while a dataset customers reads customers_raw) is a
// source, not a read of that dataset: no cycle, and customers_raw's only
// read is the files.
func TestPythonLoadNamedLikeDataset(t *testing.T) {
	files := map[string]string{
		"spark-pipeline.yml":    "name: p\nstorage: st\nlibraries:\n  - glob:\n      include: t/**\n",
		"samples/customers.csv": "id,name\n1,a\n",
		"t/bronze.py": "from pyspark import pipelines as dp\n\n" +
			"@dp.materialized_view\n" +
			"def customers_raw():\n" +
			"    return spark.read.format(\"csv\").option(\"header\", \"true\").load(\"/landing/customers\")\n",
		"t/silver.sql": "CREATE MATERIALIZED VIEW customers AS SELECT id, name FROM customers_raw;\n",
	}
	s, err := Load(writeTree(t, files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.Diagnostics {
		if d.Severity == ir.Error || strings.Contains(strings.ToLower(d.Message), "cycle") {
			t.Errorf("false finding: %s", d.Message)
		}
	}
	p := s.Pipeline
	var raw *ir.Flow
	for _, f := range p.Flows {
		if ir.NameKey(f.Target) == "customers_raw" {
			raw = f
		}
	}
	if raw == nil {
		t.Fatalf("no flow into customers_raw: %v", diagStrings(s))
	}
	for _, r := range raw.Reads {
		if r.Path == "" {
			t.Errorf("customers_raw reads %q, not only its files", r.Name)
			continue
		}
		if ir.NameKey(r.Name) == "customers" {
			t.Errorf("the files' source is named like the dataset customers")
		}
	}
}
