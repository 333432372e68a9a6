package sdplower

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestLowerPython: a Python dataset whose body analysis states in SQL is
// sent as that SQL; one it does not is left out, and an SQL dataset
// reading it is refused in words about Python, not @backends.
func TestLowerPython(t *testing.T) {
	_, p, _ := analyse(t, map[string]string{
		"transformations/a.py": "from pyspark import pipelines as dp\n\n@dp.materialized_view\ndef nums():\n    return spark.range(10)\n\n" +
			"@dp.materialized_view\ndef scored():\n    return my_model(spark.read.table(\"nums\"))\n",
		"transformations/even.sql": "CREATE MATERIALIZED VIEW even AS SELECT id FROM nums WHERE id % 2 = 0\n",
	})
	g, errs := Lower(p, ir.Spark41)
	if g == nil || len(errs) != 0 {
		t.Fatalf("nothing reads scored, so the graph is sent: %+v", errs)
	}
	if got := flowNames(g); !strings.Contains(got, "nums") || strings.Contains(got, "scored") {
		t.Errorf("flows sent: %s (want nums as SQL, scored left out: %v)", got, g.Skipped)
	}
	_, p, _ = analyse(t, map[string]string{
		"transformations/a.py": "from pyspark import pipelines as dp\n\n@dp.materialized_view\ndef nums():\n    return spark.range(10)\n\n" +
			"@dp.materialized_view\ndef scored():\n    return my_model(spark.read.table(\"nums\"))\n",
		"transformations/even.sql": "CREATE MATERIALIZED VIEW even AS SELECT id FROM scored\n",
	})
	g, errs = Lower(p, ir.Spark41)
	if g != nil || len(errs) != 1 || !strings.Contains(errs[0].Message, "defines in Python in a form Thund cannot send") || strings.Contains(errs[0].Message, "@backends") {
		t.Fatalf("want one Python refusal, got %+v", errs)
	}
}
