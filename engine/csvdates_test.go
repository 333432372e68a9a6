package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestScanCSVMixedDates: a column whose dates are written two ways is a
// text column, with a warning at the first value of the second way naming
// the column and one value of each; dates written one way, a date and a
// timestamp of the same way, and words among dates are not.
func TestScanCSVMixedDates(t *testing.T) {
	sh := scanCSV(strings.NewReader("id,d,e,f\n1,2024-01-05,2024-01-05,2024-01-05\n2,2024-02-07,2024-01-06 10:00:00,n/a\n3,05/01/2024,2024-01-07,2024-01-08\n"), "samples/o.csv", false)
	if strings.Join(sh.text, ",") != "d" {
		t.Fatalf("text columns %v, want d", sh.text)
	}
	if len(sh.warnings) != 1 || sh.warnings[0].Line != 4 || sh.warnings[0].File != "samples/o.csv" ||
		!strings.Contains(sh.warnings[0].Message, "column d writes its dates in more than one way (2024-01-05 on line 2, 05/01/2024 on this line)") ||
		!strings.Contains(sh.warnings[0].Message, "Spark's schema inference reads such a column as STRING") {
		t.Errorf("warnings %+v", sh.warnings)
	}
	for _, mixed := range []string{"01.02.2024", "2024/01/05", "1-2-2024"} {
		if sh := scanCSV(strings.NewReader("d\n2024-01-05\n"+mixed+"\n"), "x.csv", false); len(sh.text) != 1 {
			t.Errorf("%s after 2024-01-05: text %v", mixed, sh.text)
		}
	}
	for _, same := range []string{"d\n05/01/2024\n31/12/2023\n", "d\n2024-1-5\n2024-12-31\n"} {
		if sh := scanCSV(strings.NewReader(same), "x.csv", false); len(sh.text) != 0 || len(sh.warnings) != 0 {
			t.Errorf("%q: %v %+v", same, sh.text, sh.warnings)
		}
	}
}

// TestMixedDateSampleIsText: a run over a sample whose column mixes date
// formats reads the column as STRING, as Spark 4.1.4's inferSchema does,
// instead of failing on the values DuckDB's chosen format does not read;
// the warning names the sample file and the column, and the Describer
// gives the column the same type.
func TestMixedDateSampleIsText(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "samples", "orders.csv"), "id,d\n1,2024-01-05\n2,2024-02-07\n3,05/01/2024\n")
	writeTestFile(t, filepath.Join(root, "samples", "ev", "001.csv"), "id,d\n1,2024-01-05\n")
	writeTestFile(t, filepath.Join(root, "samples", "ev", "002.csv"), "id,d\n2,05/01/2024\n")
	writeTestFile(t, filepath.Join(root, "o.sql"), "SELECT id, d FROM orders\n")
	writeTestFile(t, filepath.Join(root, "e.sql"), "-- @kind: streaming_table\nSELECT id, d FROM STREAM(ev)\n")
	snap, s := load(t, root)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Datasets["o"]; r == nil || r.Phase != Completed || r.Rows != 3 {
		t.Fatalf("o: %+v", r)
	}
	if got := strings.Join(rowsOf(t, s, "SELECT id, d, typeof(d) FROM o"), " "); got != "1|2024-01-05|VARCHAR 2|2024-02-07|VARCHAR 3|05/01/2024|VARCHAR" {
		t.Errorf("o: %s", got)
	}
	found := false
	for _, w := range res.SampleWarnings {
		if w.File == "samples/orders.csv" && w.Line == 4 && strings.Contains(w.Message, "column d writes its dates in more than one way") {
			found = true
		}
	}
	if !found {
		t.Errorf("warnings %+v, want samples/orders.csv:4 about column d", res.SampleWarnings)
	}
	// A folder whose files write the dates each its own way: each file
	// is one way, the folder two, and the folder is one table: text too.
	if r := res.Datasets["e"]; r == nil || r.Phase != Completed || r.Rows != 2 {
		t.Errorf("e: %+v", r)
	}
	if got := strings.Join(rowsOf(t, s, "SELECT id, d, typeof(d) FROM e"), " "); got != "1|2024-01-05|VARCHAR 2|05/01/2024|VARCHAR" {
		t.Errorf("e: %s", got)
	}
	found = false
	for _, w := range res.SampleWarnings {
		if w.File == "samples/ev/002.csv" && w.Line == 2 && strings.Contains(w.Message, "column d writes its dates otherwise than in 001.csv (2024-01-05 there, 05/01/2024 on this line)") {
			found = true
		}
	}
	if !found {
		t.Errorf("warnings %+v, want samples/ev/002.csv:2 about column d", res.SampleWarnings)
	}
	ctx := context.Background()
	d, err := s.Describer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if failed := d.RegisterSources(ctx, snap.Pipeline); len(failed) > 0 {
		t.Fatal(failed)
	}
	if cols, err := d.Columns(ctx, "orders"); err != nil || len(cols) != 2 || cols[1] != (Column{"d", "VARCHAR"}) {
		t.Errorf("described orders: %v %v", cols, err)
	}
}
