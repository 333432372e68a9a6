package analysis

import (
	"testing"

	"github.com/thund-dev/thund/ir"
)

// A PARTITIONED BY column the dataset's query does not give is an
// unknown-column error at the name, in --check and the editor (Spark
// 4.1.4 fails such a flow with COLUMN_NOT_DEFINED_IN_TABLE); one the
// query gives, in any case, is none.
func TestPartitionColumnNotInQuery(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"thund.yaml": "backends: [native]\n",
		"a.sql": "CREATE MATERIALIZED VIEW mv PARTITIONED BY (regin) AS SELECT 1 AS id, 'x' AS region;\n" +
			"CREATE MATERIALIZED VIEW ok PARTITIONED BY (REGION) CLUSTER BY (id) AS SELECT 1 AS id, 'x' AS region;\n",
	})
	snap, err := Load(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var found []ir.Diagnostic
	for _, d := range snap.Diagnostics {
		if d.Code == ir.CodeUnknownColumn {
			found = append(found, d)
		}
	}
	text := "CREATE MATERIALIZED VIEW mv PARTITIONED BY (regin)"
	if len(found) != 1 || found[0].Loc.Start != len(text)-len("regin)") || found[0].Loc.End != len(text)-1 ||
		len(found[0].Suggestions) != 1 || found[0].Suggestions[0] != "region" {
		t.Fatalf("got %+v, want one unknown-column at regin suggesting region", found)
	}
}
