package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// cluster_by_auto= of a Python table decorator is SQL's CLUSTER BY AUTO:
// a construct of the dataset at the keyword, fine natively and on
// databricks, an error on each Spark backend with pyspark's reason
// (pyspark 4.1.4 and 4.3.0 fail importing the file with TypeError:
// table() got an unexpected keyword argument 'cluster_by_auto', checked
// with spark-pipelines dry-run on 4.1.4 and the decorators' signatures
// of 4.3.0), whatever the value.
func TestPythonClusterByAuto(t *testing.T) {
	py := "from pyspark import pipelines as dp\n\n" +
		"@dp.materialized_view(cluster_by_auto=True)\ndef t():\n    return spark.range(3)\n\n" +
		"@dp.materialized_view(name=\"m\", cluster_by_auto=False)\ndef m():\n    return spark.range(2)\n\n" +
		"@dp.materialized_view\ndef plain():\n    return spark.range(1)\n"
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml":   "name: cba\nstorage: file:///tmp/thund-cba\nlibraries:\n  - glob:\n      include: transformations/**\n",
		"thund.yaml":           "backends: [native, spark-4.1, spark-4.3, databricks]\n",
		"transformations/a.py": py,
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]ir.Backend{}
	for _, d := range s.Diagnostics {
		if d.Code != ir.CodeUnsupported || !strings.Contains(d.Message, "cluster_by_auto") {
			continue
		}
		at := py[d.Loc.Start:d.Loc.End]
		if !strings.HasPrefix(at, "cluster_by_auto=") || d.Severity != ir.Error {
			t.Errorf("finding at %q: %+v", at, d)
		}
		if !strings.Contains(d.Message, "TypeError: unexpected keyword argument 'cluster_by_auto'") {
			t.Errorf("message lacks pyspark's reason: %s", d.Message)
		}
		got[at] = append(got[at], d.Backend)
	}
	for _, kw := range []string{"cluster_by_auto=True", "cluster_by_auto=False"} {
		bs := got[kw]
		if len(bs) != 2 || !containsBackend(bs, ir.Spark41) || !containsBackend(bs, ir.Spark43) {
			t.Errorf("%s refused on %v, want spark-4.1 and spark-4.3 only", kw, bs)
		}
	}
	if d := s.Pipeline.Dataset("t"); d == nil || len(d.Syntax) != 1 || d.Syntax[0].Name != string(SynPyClusterAuto) {
		t.Errorf("t's constructs: %+v", d)
	}
	if d := s.Pipeline.Dataset("plain"); d == nil || len(d.Syntax) != 0 {
		t.Errorf("plain's constructs: %+v", d)
	}
}

func containsBackend(bs []ir.Backend, b ir.Backend) bool {
	for _, x := range bs {
		if x == b {
			return true
		}
	}
	return false
}
