//go:build duckdb_arrow

package engine

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

// TestSQLJSONReadsInferAsSpark: a SQL read of JSON files gets the schema
// Spark's reader infers from them, as a Python load does: fields ordered
// by name, a date-like string a STRING, an integer past a long a
// DECIMAL(20,0); Auto Loader (cloud_files) reads every column as a
// STRING unless cloudFiles.inferColumnTypes is true; streamed
// micro-batches are read with the same columns; the Describer gives the
// run's columns.
func TestSQLJSONReadsInferAsSpark(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "thund.yaml"), "dialect: databricks\n")
	batch := `{"id": 1, "d": "2024-01-02", "big": 12345678901234567890, "amount": 5.5}` + "\n" + `{"id": 2, "d": "2024-01-03", "big": 1, "amount": -1}` + "\n"
	writeTestFile(t, filepath.Join(dir, "samples", "orders.json"), batch)
	writeTestFile(t, filepath.Join(dir, "samples", "clicks", "001.json"), `{"user": "a", "n": 3, "at": "2024-01-01 10:00:00"}`+"\n")
	writeTestFile(t, filepath.Join(dir, "samples", "clicks", "002.json"), `{"user": "b", "n": 4, "at": "2024-01-01 11:00:00"}`+"\n")
	writeTestFile(t, filepath.Join(dir, "samples", "events.json"), `{"kind": "x", "n": 1}`+"\n")
	writeTestFile(t, filepath.Join(dir, "a.sql"),
		"CREATE OR REFRESH MATERIALIZED VIEW o AS SELECT * FROM read_files('/Volumes/v/orders', format => 'json');\n"+
			"CREATE OR REFRESH STREAMING TABLE c AS SELECT * FROM STREAM read_files('/Volumes/v/clicks', format => 'json');\n"+
			"CREATE OR REFRESH STREAMING TABLE e AS SELECT * FROM cloud_files('/Volumes/v/events', 'json');\n")
	snap, s := load(t, dir)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{Blocked: snap.Broken()})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"o", "c", "e"} {
		if d := res.Datasets[name]; d == nil || d.Phase != Completed {
			t.Fatalf("%s: %+v", name, d)
		}
	}
	columns := func(rel string) []string {
		t.Helper()
		rows, err := s.DB().Query("SELECT column_name || ' ' || data_type FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position", relationName(rel))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				t.Fatal(err)
			}
			out = append(out, c)
		}
		return out
	}
	if got, want := columns("o"), []string{"amount DOUBLE", "big DECIMAL(20,0)", "d VARCHAR", "id BIGINT", "_rescued_data VARCHAR"}; !reflect.DeepEqual(got, want) {
		t.Errorf("read_files of JSON: columns %v, want %v (Spark's inference, then Databricks' default rescued-data column)", got, want)
	}
	if got, want := columns("c"), []string{"at VARCHAR", "n BIGINT", "user VARCHAR", "_rescued_data VARCHAR"}; !reflect.DeepEqual(got, want) {
		t.Errorf("STREAM read_files of JSON micro-batches: columns %v, want %v", got, want)
	}
	if n := res.Datasets["c"].Rows; n != 2 {
		t.Errorf("c has %d rows, want 2 (both micro-batches)", n)
	}
	if got, want := columns("e"), []string{"kind VARCHAR", "n VARCHAR", "_rescued_data VARCHAR"}; !reflect.DeepEqual(got, want) {
		t.Errorf("cloud_files without inferColumnTypes: columns %v, want %v (Auto Loader infers strings)", got, want)
	}
}
