package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestPythonApplyChangesOptions: dlt.apply_changes' ignore_null_updates
// (SCD 1) and track_history_except_column_list (SCD 2) are applied as the
// SQL clauses are (they were ignored without a word), and the SCD 2
// validity columns are Databricks' __START_AT and __END_AT.
func TestPythonApplyChangesOptions(t *testing.T) {
	feed := "import dlt\n\n@dlt.view(name=\"feed\")\ndef feed():\n    return spark.readStream.table(\"cust\")\n\n"
	for _, tc := range []struct {
		name, py, query, want string
	}{
		{"ignore_null_updates", feed + "dlt.create_streaming_table(\"dim\")\n\n" +
			"dlt.apply_changes(target=\"dim\", source=\"feed\", keys=[\"id\"], sequence_by=\"seq\", stored_as_scd_type=1, ignore_null_updates=True)\n",
			"SELECT id, name, tier FROM dim ORDER BY id", "[[1 Ann silver] [2 Bob gold]]"},
		{"track_history_except_column_list", feed + "dlt.create_streaming_table(\"dim\")\n\n" +
			"dlt.apply_changes(target=\"dim\", source=\"feed\", keys=[\"id\"], sequence_by=\"seq\", stored_as_scd_type=2, track_history_except_column_list=[\"seq\"])\n",
			"SELECT id, tier, __START_AT, __END_AT FROM dim ORDER BY id, __START_AT", "[[1 gold 1 2] [1 silver 2 <nil>] [2 gold 1 2] [2 gold 2 <nil>]]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, res := runFiles(t, t.TempDir(), map[string]string{
				"thund.yaml":       "dialect: databricks\n",
				"samples/cust.csv": "id,name,tier,seq\n1,Ann,gold,1\n1,Ann,silver,2\n1,Ann,silver,3\n2,Bob,gold,1\n2,,gold,2\n",
				"cdc.py":           tc.py,
			})
			if d := res.Datasets["dim"]; d == nil || d.Phase != Completed {
				t.Fatalf("dim = %+v", d)
			}
			conn, err := s.DB().Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_, got, err := queryRows(context.Background(), conn, strings.ReplaceAll(tc.query, " dim ", " "+s.RelationSQL("dim")+" "))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != tc.want {
				t.Errorf("rows %v, want %s", got, tc.want)
			}
		})
	}
}
