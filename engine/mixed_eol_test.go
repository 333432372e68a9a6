package engine

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestCSVSampleWithMixedLineEnds: a CSV sample whose lines end some with
// CRLF and some with LF (two files concatenated) is read as Spark reads
// it, every line a row and no CR left in a value, where DuckDB's sniffer
// alone gives up on the file; the sample file itself is not changed.
func TestCSVSampleWithMixedLineEnds(t *testing.T) {
	text := "id,name,city\n1,Ann,Austin\n2,Bob,Boston\r\n3,Cy,Chicago\r\n4,Di,Denver\n"
	dir := writePipeline(t, map[string]string{
		"a.sql":              "CREATE MATERIALIZED VIEW m AS SELECT id, name, city, length(city) AS n FROM people;\n",
		"samples/people.csv": text,
	})
	_, s := runOK(t, dir)
	got := rowsOf(t, s, "SELECT * FROM "+s.RelationSQL("m"))
	want := []string{"1|Ann|Austin|6", "2|Bob|Boston|6", "3|Cy|Chicago|7", "4|Di|Denver|6"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "samples", "people.csv")); err != nil || string(b) != text {
		t.Errorf("the sample changed: %q, %v", b, err)
	}
}
