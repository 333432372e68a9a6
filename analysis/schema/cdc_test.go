package schema

import (
	"reflect"
	"strings"
	"testing"
)

// A CDC target is described with the columns a run stores: the COLUMNS
// clause applied, and for SCD 2 the validity columns __START_AT and
// __END_AT, typed like the sequence column, which readers may name; a
// read of files in a Databricks pipeline gives the default _rescued_data
// in *, which COLUMNS * EXCEPT (op) keeps, as on Databricks.
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
		"people":         {"id INTEGER", "name VARCHAR", "seq INTEGER", "_rescued_data VARCHAR", "__START_AT INTEGER", "__END_AT INTEGER"},
		"people1":        {"id INTEGER", "name VARCHAR", "seq INTEGER"},
		"current_people": {"id INTEGER", "name VARCHAR", "since INTEGER"},
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

// A column a CDC flow's COLUMNS or TRACK HISTORY ON list names that the
// changes lack fails the run; the description reports it at the name in
// the list. Excepting Databricks' default _rescued_data of a read of
// files is no error: * of the read holds it. Checked against the
// databricks backend alone, the lists are checked all the same.
func TestCDCListColumnsChecked(t *testing.T) {
	for _, yaml := range []string{"dialect: databricks\n", "dialect: databricks\nbackends: [databricks]\n"} {
		checkCDCLists(t, yaml)
	}
}

func checkCDCLists(t *testing.T, yaml string) {
	root := tree(t, map[string]string{
		"thund.yaml":                  yaml,
		"samples/raw_changes/001.csv": "id,name,op,seq\n1,Ada,UPSERT,1\n",
		"t.sql": `CREATE OR REFRESH STREAMING TABLE changes AS SELECT * FROM STREAM read_files('/landing/raw_changes', format => 'csv');
CREATE OR REFRESH STREAMING TABLE people;
CREATE FLOW f AS AUTO CDC INTO people FROM STREAM(changes) KEYS (id) SEQUENCE BY seq
  COLUMNS * EXCEPT (op, _rescued_data, nmae)
  STORED AS SCD TYPE 2 TRACK HISTORY ON (name, sq);
`,
	})
	snap, s := load(t, root)
	res := describe(t, snap, s)
	got := diagStrings(snap, res.Diagnostics)
	if len(got) != 2 || !strings.Contains(got[0], "[nmae] error unknown-column COLUMNS names nmae, which is not a column of the changes") ||
		!strings.Contains(got[1], "[sq] error unknown-column TRACK HISTORY ON names sq") {
		t.Errorf("%s: diagnostics: %v", yaml, got)
	}
}

// TestPythonCDCListColumnsNamedAsWritten: the same check for
// dlt.apply_changes names the keyword the user wrote
// (except_column_list=, track_history_column_list=), not SQL's clause.
func TestPythonCDCListColumnsNamedAsWritten(t *testing.T) {
	root := tree(t, map[string]string{
		"thund.yaml":       "dialect: databricks\n",
		"samples/feed.csv": "id,name,op,seq\n1,Ada,U,1\n",
		"c.py": "import dlt\n\n@dlt.view(name=\"v\")\ndef v():\n    return spark.readStream.table(\"feed\")\n\n" +
			"dlt.create_streaming_table(\"people\")\n\n" +
			"dlt.apply_changes(target=\"people\", source=\"v\", keys=[\"id\"], sequence_by=\"seq\", except_column_list=[\"op\", \"nmae\"],\n" +
			"    stored_as_scd_type=2, track_history_column_list=[\"name\", \"sq\"])\n",
	})
	snap, s := load(t, root)
	res := describe(t, snap, s)
	all := strings.Join(diagStrings(snap, res.Diagnostics), "\n")
	if !strings.Contains(all, "except_column_list= names nmae") || !strings.Contains(all, "track_history_column_list= names sq") || strings.Contains(all, "COLUMNS names") {
		t.Errorf("diagnostics:\n%s", all)
	}
}
