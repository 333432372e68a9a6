package capab

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// CLUSTER BY AUTO | NONE, FLOW REPLACE WHERE and read_kafka are
// Databricks SQL: each Spark version refuses them with what Spark says
// (checked on 4.1.4 and 4.3.0) and a fix, databricks reads them, and the
// native engine runs the clustering and Kafka reads (clustering changes
// no rows; a Kafka read is its sample) but not a REPLACE WHERE flow.
func TestDatabricksClauseCells(t *testing.T) {
	for _, c := range []struct {
		f        Feature
		native   bool
		sparkSay string
	}{
		{SynClusterAuto, true, "missing '('"},
		{SynFlowReplaceWhere, false, "CREATE FLOW f AS INSERT INTO t BY NAME"},
		{SynReadKafka, true, "UNRESOLVABLE_TABLE_VALUED_FUNCTION"},
	} {
		cells := Matrix[c.f]
		if cells == nil {
			t.Errorf("%s: no row", c.f)
			continue
		}
		if cells[ir.Native].OK != c.native || !cells[ir.Databricks].OK {
			t.Errorf("%s: native %+v, databricks %+v", c.f, cells[ir.Native], cells[ir.Databricks])
		}
		for _, b := range []ir.Backend{ir.Spark41, ir.Spark42, ir.Spark43} {
			if s := cells[b]; s.OK || !strings.Contains(s.Reason, c.sparkSay) || !strings.Contains(s.Reason, "databricks backend") {
				t.Errorf("%s on %s: %+v", c.f, b, s)
			}
		}
	}
}

// A declared identity or generated column is refused on every Spark
// version, whose pipelines store what the query gives or fail (Spark
// 4.1.4's spark-pipelines run), naming the column kind and the fix.
func TestGeneratedColumnCells(t *testing.T) {
	for f, what := range map[Feature]string{SynIdentityColumn: "an identity column", SynGeneratedColumn: "a generated column"} {
		cells := Matrix[f]
		if !cells[ir.Native].OK || !cells[ir.Databricks].OK {
			t.Errorf("%s: native %+v, databricks %+v", f, cells[ir.Native], cells[ir.Databricks])
		}
		for _, b := range []ir.Backend{ir.Spark41, ir.Spark42, ir.Spark43} {
			if s := cells[b]; s.OK || !strings.Contains(s.Reason, "do not compute "+what) || !strings.Contains(s.Reason, "declare a plain column") {
				t.Errorf("%s on %s: %+v", f, b, s)
			}
		}
	}
}
