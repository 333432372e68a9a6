package analysis

import (
	"testing"

	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

// TestPythonPathlessStreams: a Kafka readStream is a streaming read of
// its topic's source, and a stream load whose path is computed at run
// time makes a streaming flow of a streaming table too.
func TestPythonPathlessStreams(t *testing.T) {
	text := "from pyspark import pipelines as dp\n\n@dp.table\ndef events():\n" +
		"    return spark.readStream.format(\"kafka\").option(\"subscribe\", \"orders\").load()\n\n" +
		"@dp.table\ndef landed():\n    return spark.readStream.format(\"cloudFiles\").option(\"cloudFiles.format\", \"json\").load(BASE + \"/x\")\n"
	res := analysePython("t.py", text, sqlfront.DialectSpark, nil)
	if len(res.flows) != 2 || len(res.datasets) != 2 {
		t.Fatalf("flows %d, datasets %d", len(res.flows), len(res.datasets))
	}
	for i, f := range res.flows {
		if !f.Streaming || res.datasets[i].Kind != ir.StreamingTable {
			t.Errorf("%s: streaming %v, kind %s", f.Target, f.Streaming, res.datasets[i].Kind)
		}
	}
	if r := res.flows[0].Reads; len(r) != 1 || r[0].Name != "orders" || !r[0].Streaming {
		t.Errorf("events reads %+v", r)
	}
	if len(res.flows[1].Reads) != 0 {
		t.Errorf("landed reads %+v", res.flows[1].Reads)
	}
}
