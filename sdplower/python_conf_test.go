package sdplower

import (
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestParsePythonConf: with the spec's configuration, the definitions a
// push sends are named and read as analysis names and reads them
// (spark.conf.get of a configured key), so the push finds each flow's
// definition; without it, the configured names are unknown.
func TestParsePythonConf(t *testing.T) {
	texts := map[string]string{"t/a.py": `from pyspark import pipelines as dp

cat = spark.conf.get("cat")
n = int(spark.conf.get("rows", "3"))

@dp.materialized_view(name=f"{cat}_numbers")
def numbers():
    return spark.range(n)
`}
	flow := &ir.Flow{Name: "dev_numbers", QueryLoc: ir.Loc{File: "t/a.py"}}
	def := parsePythonConf(texts, map[string]string{"cat": "dev", "rows": "5"}).def(flow)
	if def == nil || def.Query == nil || def.Query.Relation == nil || def.Query.Relation.Range == nil || def.Query.Relation.Range.End != 5 {
		t.Fatalf("with the configuration: %+v", def)
	}
	if def := parsePython(texts).def(flow); def != nil {
		t.Errorf("without the configuration the name is known: %+v", def)
	}
}
