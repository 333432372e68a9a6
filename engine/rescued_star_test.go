package engine

import (
	"reflect"
	"strings"
	"testing"
)

// TestRescuedDataInStarOnDatabricks: in a Databricks pipeline, * of a
// read of CSV files without a schema holds Databricks' default
// _rescued_data (NULL natively, the schema being the sample's), so an
// AUTO CDC that excepts it, as Databricks' examples do, runs; the SCD 2
// target keeps the other columns.
func TestRescuedDataInStarOnDatabricks(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"thund.yaml": "backends: [native, databricks]\ndialect: databricks\n",
		"t.sql": "CREATE OR REFRESH STREAMING TABLE raw\nAS SELECT * FROM STREAM read_files('/Volumes/dev/raw/customers/', format => 'csv');\n" +
			"CREATE OR REFRESH STREAMING TABLE cur;\nCREATE FLOW f AS AUTO CDC INTO cur FROM stream(raw) KEYS (id)\n" +
			"  APPLY AS DELETE WHEN operation = 'DELETE' SEQUENCE BY seq\n  COLUMNS * EXCEPT (operation, seq, _rescued_data)\n  STORED AS SCD TYPE 2;\n",
		"samples/customers/001.csv": "id,city,operation,seq\n1,Austin,INSERT,1\n2,Boston,INSERT,1\n1,Denver,UPDATE,2\n2,Boston,DELETE,3\n",
	})
	_, s := runOK(t, dir)
	cols := columnNames(t, s, "raw")
	if want := []string{"id", "city", "operation", "seq", "_rescued_data"}; !reflect.DeepEqual(cols, want) {
		t.Errorf("* of the read: %v, want %v", cols, want)
	}
	if got := rowsOf(t, s, `SELECT count(*) FROM `+s.RelationSQL("raw")+` WHERE _rescued_data IS NOT NULL`); got[0] != "0" {
		t.Errorf("rescued values: %v, want none", got)
	}
	got := rowsOf(t, s, `SELECT id, city, __START_AT, __END_AT FROM `+s.RelationSQL("cur"))
	want := []string{"1|Austin|1|2", "1|Denver|2|NULL", "2|Boston|1|3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cur: %v, want %v", got, want)
	}
	if cols := columnNames(t, s, "cur"); strings.Contains(strings.Join(cols, ","), "_rescued_data") {
		t.Errorf("cur keeps the excepted column: %v", cols)
	}
}

// columnNames lists the columns of a dataset as the run stored it.
func columnNames(t *testing.T, s *Session, dataset string) []string {
	t.Helper()
	rows := rowsOf(t, s, `SELECT column_name || '|' || CAST(column_index AS VARCHAR) FROM duckdb_columns() WHERE table_name = '`+strings.Trim(s.RelationSQL(dataset), `"`)+`'`)
	out := make([]string, len(rows))
	for _, r := range rows {
		var name string
		var i int
		for j := len(r) - 1; j >= 0; j-- {
			if r[j] == '|' {
				name = r[:j]
				for _, c := range r[j+1:] {
					i = i*10 + int(c-'0')
				}
				break
			}
		}
		if i >= 1 && i <= len(out) {
			out[i-1] = name
		}
	}
	return out
}
