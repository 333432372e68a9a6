package analysis

import (
	"testing"

	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

// TestPythonPathlessStreams: a Kafka readStream, and a stream load
// whose path is computed at run time, make a streaming flow (no source
// edge: a native run needs the dataset's own stand-in sample).
func TestPythonPathlessStreams(t *testing.T) {
	text := "from pyspark import pipelines as dp\n\n@dp.table\ndef events():\n" +
		"    return spark.readStream.format(\"kafka\").option(\"subscribe\", \"orders\").load()\n\n" +
		"@dp.table\ndef landed():\n    return spark.readStream.format(\"cloudFiles\").option(\"cloudFiles.format\", \"json\").load(BASE + \"/x\")\n"
	res := analysePython("t.py", text, sqlfront.DialectSpark, nil)
	if len(res.flows) != 2 || len(res.datasets) != 2 {
		t.Fatalf("flows %d, datasets %d", len(res.flows), len(res.datasets))
	}
	for i, f := range res.flows {
		if !f.Streaming || res.datasets[i].Kind != ir.Table {
			t.Errorf("%s: streaming %v, kind %s", f.Target, f.Streaming, res.datasets[i].Kind)
		}
	}
	for _, f := range res.flows {
		if len(f.Reads) != 0 {
			t.Errorf("%s reads %+v", f.Target, f.Reads)
		}
	}
}
