package schema

import (
	"reflect"
	"testing"
)

// A CDC target is described with the columns a run stores: the COLUMNS
// clause applied, and for SCD 2 the validity columns __START_AT and
// __END_AT, typed like the sequence column, which readers may name.
func TestCDCTargetColumns(t *testing.T) {
	root := tree(t, map[string]string{
		"thund.yaml":                  "dialect: databricks\n",
		"samples/raw_changes/001.csv": "id,name,op,seq\n1,Ada,UPSERT,1\n2,Blaise,UPSERT,2\n",
		"transformations/t.sql": `CREATE OR REFRESH STREAMING TABLE changes AS SELECT * FROM STREAM read_files('/landing/raw_changes', format => 'csv');
CREATE OR REFRESH STREAMING TABLE people;
APPLY CHANGES INTO LIVE.people FROM STREAM(LIVE.changes) KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq COLUMNS * EXCEPT (op) STORED AS SCD TYPE 2;
CREATE OR REFRESH STREAMING TABLE people1;
CREATE FLOW people1_cdc AS AUTO CDC INTO people1 FROM STREAM(changes) KEYS (id) SEQUENCE BY seq COLUMNS (id, name, seq) STORED AS SCD TYPE 1;
CREATE OR REFRESH MATERIALIZED VIEW current_people AS
SELECT id, name, __START_AT AS since FROM LIVE.people WHERE __END_AT IS NULL;
`,
	})
	snap, s := load(t, root)
	res := describe(t, snap, s)
	if len(res.Diagnostics) > 0 {
		t.Fatalf("diagnostics: %v", diagStrings(snap, res.Diagnostics))
	}
	for name, want := range map[string][]string{
		"people":         {"id BIGINT", "name VARCHAR", "seq BIGINT", "__START_AT BIGINT", "__END_AT BIGINT"},
		"people1":        {"id BIGINT", "name VARCHAR", "seq BIGINT"},
		"current_people": {"id BIGINT", "name VARCHAR", "since BIGINT"},
	} {
		d := res.Datasets[name]
		if d == nil || d.Status != Described {
			t.Fatalf("%s: %+v", name, d)
		}
		if got := columnStrings(d.Columns); !reflect.DeepEqual(got, want) {
			t.Errorf("%s columns = %v, want %v", name, got, want)
		}
	}
}
