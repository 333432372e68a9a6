package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

// TestForeignPipelinesImportInfo: a file whose @dp.table decorators come
// from a pipelines module Thund does not read (databricks.pipelines)
// gets one info at that import naming the imports Thund reads, and may
// define datasets Thund cannot name; an unused such import says nothing.
func TestForeignPipelinesImportInfo(t *testing.T) {
	text := "import databricks.pipelines as dp\n\n@dp.table\ndef a():\n    return spark.range(3)\n"
	res := analysePython("t.py", text, sqlfront.DialectSpark, nil)
	var infos []ir.Diagnostic
	for _, d := range res.diags {
		if d.Severity == ir.Info && d.Code == ir.CodeLibraryPython {
			infos = append(infos, d)
		}
	}
	if len(infos) != 1 || infos[0].Loc.Start != 0 || infos[0].Loc.End != len("import databricks.pipelines as dp") ||
		!strings.Contains(infos[0].Message, "from pyspark import pipelines as dp") || !strings.Contains(infos[0].Message, "import dlt") ||
		!strings.Contains(infos[0].Message, "databricks.pipelines") {
		t.Errorf("infos: %+v", infos)
	}
	if len(res.datasets) != 0 || !res.unnamed {
		t.Errorf("datasets %d, unnamed %v", len(res.datasets), res.unnamed)
	}
	res = analysePython("t.py", "import databricks.pipelines as dp\nfrom pyspark import pipelines as sdp\n\n@sdp.table\ndef a():\n    return spark.range(3)\n", sqlfront.DialectSpark, nil)
	for _, d := range res.diags {
		if strings.Contains(d.Message, "databricks.pipelines") {
			t.Errorf("an unused import is reported: %s", d.Message)
		}
	}
	if len(res.datasets) != 1 {
		t.Errorf("datasets %d, want 1", len(res.datasets))
	}
}
