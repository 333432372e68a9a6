package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// A Databricks Asset Bundle opens as its pipeline: the files the
// pipeline's libraries list (Python too, with its expectation decorators
// accepted by databricks and refused by Spark), not the folder's ad-hoc
// queries.
func TestBundleOpensAsItsPipeline(t *testing.T) {
	root := writeTree(t, map[string]string{
		"databricks.yml": `bundle: {name: shop}
include: [resources/*.yml]
`,
		"resources/p.yml": `resources:
  pipelines:
    shop:
      catalog: main
      schema: sales
      libraries:
        - file: {path: ../src/bronze.sql}
        - notebook: {path: ../src/silver}
`,
		"src/bronze.sql": "CREATE OR REFRESH MATERIALIZED VIEW bronze AS SELECT * FROM VALUES (1, 'a') AS t(id, name);\n",
		"src/silver.py": `import dlt

@dlt.table(name="silver")
@dlt.expect_or_drop("has_id", "id IS NOT NULL")
def silver():
    return dlt.read("bronze")
`,
		"queries/adhoc.sql": "SELECT * FROM main.sales.silver;\nSELECT 1;\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Libraries, ",") != "src/bronze.sql,src/silver.py" {
		t.Fatalf("libraries %v, want the bundle pipeline's two files", s.Libraries)
	}
	if got := s.Backends(); len(got) != 2 || got[1] != ir.Databricks {
		t.Errorf("a bundle is checked against databricks by default, got %v", got)
	}
	for _, d := range s.Diagnostics {
		if d.Severity == ir.Error {
			t.Errorf("databricks accepts this bundle, but: %s:%d: %s [%s]", d.Loc.File, d.Loc.Start, d.Message, d.Code)
		}
	}
	if len(s.Pipeline.Flows) != 2 || len(s.Pipeline.Flows[1].Expectations) != 1 {
		t.Fatalf("flows %d; want bronze and silver with its expectation", len(s.Pipeline.Flows))
	}
	spark := s.WithOptions(Options{Backends: []ir.Backend{ir.Spark43}})
	found := false
	for _, d := range spark.Diagnostics {
		if d.Severity == ir.Error && d.Loc.File == "src/silver.py" && strings.Contains(d.Message, "pyspark.pipelines (Spark 4.1 to 4.3) has no expect") {
			found = true
		}
	}
	if !found {
		t.Errorf("spark-4.3 must refuse the expectation decorator at its range; got %v", spark.Diagnostics)
	}
}
