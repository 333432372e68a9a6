package engine

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestScanCSV: rows with fewer or more fields than the header are named
// by line (quoted newlines and delimiters counted right), blank lines
// are not, and an unclosed quote is an error at the line it opens.
func TestScanCSV(t *testing.T) {
	text := "id,name,note\n1,a,\"x, y\"\n2,b\n\n3,\"multi\nline\",z,extra\n4,d,e\n"
	sh := scanCSV(strings.NewReader(text), "samples/t.csv", false)
	if sh.err != nil {
		t.Fatal(sh.err)
	}
	var got []string
	for _, w := range sh.warnings {
		got = append(got, w.File+":"+strconv.Itoa(w.Line)+": "+w.Message)
	}
	want := []string{
		"samples/t.csv:3: this row has 2 of the header's 3 fields: column note is read as NULL; complete the row",
		"samples/t.csv:5: this row has 4 fields, the header names 3: the extra ones are read into unnamed columns; name them in the header, or fix the row",
		"samples/t.csv:5: a quoted field of this record runs to line 6: Spark's CSV reader, without the multiLine option, ends a record at every line break, so on Spark this row is read as 2 records; the native run reads it as one; keep each record on one line (or read the files with multiLine in a Python load)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	sh = scanCSV(strings.NewReader("id;name\n1;a\n2\n"), "s.csv", false)
	if len(sh.warnings) != 1 || sh.warnings[0].Line != 3 {
		t.Errorf("semicolons: %+v", sh.warnings)
	}
	sh = scanCSV(strings.NewReader("id,name\n1,a\n2,\"never closed\n3,c\n"), "samples/t.csv", false)
	if sh.err == nil || !strings.Contains(sh.err.Error(), "sample samples/t.csv:3: a quoted field opens on this line and is never closed") {
		t.Errorf("unclosed quote: %v", sh.err)
	}
	if sh := scanCSV(strings.NewReader("a,b\r\n1,2\r\n3,\"\"\"q\"\"\"\r\n"), "x.csv", false); sh.err != nil || len(sh.warnings) != 0 {
		t.Errorf("a clean file with CRLF and doubled quotes: %+v %v", sh.warnings, sh.err)
	}
	many := "a,b\n" + strings.Repeat("1\n", 5)
	if sh := scanCSV(strings.NewReader(many), "x.csv", false); len(sh.warnings) != csvReportRows+1 || !strings.Contains(sh.warnings[csvReportRows].Message, "2 more rows have fewer fields") {
		t.Errorf("many short rows: %+v", sh.warnings)
	}
}

// TestCheckCSVFolder: a micro-batch whose header adds a column is named.
func TestCheckCSVFolder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "samples", "ev")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "b1.csv"), []byte("id,v\n1,2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b2.csv"), []byte("id,v,extra\n2,3,4\n"), 0o644)
	s, err := Open(root, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ws, err := s.checkCSVSample("samples/ev")
	if err != nil || len(ws) != 1 || ws[0].File != "samples/ev/b2.csv" || !strings.Contains(ws[0].Message, "adds column extra, which b1.csv lacks") {
		t.Fatalf("got %+v, %v", ws, err)
	}
}

// TestCSVSampleReadAsSpark: a CSV sample whose later rows do not fit the
// type of its first ones (a date written another way after 30,000 rows
// in yyyy-MM-dd, CRLF line ends), read by read_files(...) in SQL and as
// a Python dataset's stand-in, runs: its column is text, as Spark's
// inference over every row makes it (DuckDB's sniffer alone reads
// 20,480 rows and then failed the run with a conversion error).
func TestCSVSampleReadAsSpark(t *testing.T) {
	dir := t.TempDir()
	rows := []string{"id,day,amount"}
	for i := 0; i < 30000; i++ {
		rows = append(rows, strconv.Itoa(i)+",2024-01-02,"+strconv.Itoa(i))
	}
	rows = append(rows, "30000,02/01/2024,5")
	sample := strings.Join(rows, "\r\n") + "\r\n"
	files := map[string]string{
		"spark-pipeline.yml":    "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/ev.sql":              "CREATE MATERIALIZED VIEW ev AS SELECT * FROM read_files(\"/landing/events.csv\", format => \"csv\", header => true);\n",
		"t/py.py":               "from pyspark import pipelines as dp\n\n@dp.materialized_view\ndef opaque_ds():\n    return make_it()\n",
		"samples/events.csv":    sample,
		"samples/opaque_ds.csv": sample,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := runPython(t, dir)
	for _, name := range []string{"ev", "opaque_ds"} {
		if d := res.Datasets[name]; d == nil || d.Phase != Completed || d.Rows != 30001 {
			t.Errorf("%s = %+v, want 30001 rows", name, d)
		}
	}
}

// TestSampleReadError: DuckDB's error for a CSV value its reader cannot
// convert (produced here by DuckDB itself, sniffing one row only) is
// restated as the sample's file:line, column, value and type, without
// DuckDB's reader settings; Thund's relation names become the sample's.
func TestSampleReadError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "events.csv")
	if err := os.WriteFile(p, []byte("id,day\r\n1,2024-01-02\r\n2,02/01/2024\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Exec("CREATE TABLE thund_standin_ev AS SELECT * FROM read_csv_auto(" + quoteString(p) + ", sample_size = 1)")
	if err == nil {
		t.Fatal("DuckDB read the file without a conversion error")
	}
	got := sampleReadError(err, "samples/events.csv", "thund_standin_ev").Error()
	// Which line DuckDB stops at depends on the format it sniffed from
	// its one row; either way the message names a line of the file.
	if !strings.HasPrefix(got, p+":2: column day holds \"2024-01-02\", which is not a DATE") &&
		!strings.HasPrefix(got, p+":3: column day holds \"02/01/2024\", which is not a DATE") {
		t.Errorf("got %q, want the file's line, the column, the value and DATE", got)
	}
	if strings.Contains(got, "sample_size") || strings.Contains(got, "Auto-Detected") {
		t.Errorf("DuckDB's settings are left in: %q", got)
	}
	other := sampleReadError(errors.New(`Catalog Error: Table with name thund_standin_ev does not exist!`), "samples/events.csv", "thund_standin_ev").Error()
	if strings.Contains(other, "thund_standin") || !strings.Contains(other, "samples/events.csv") {
		t.Errorf("internal name left in: %q", other)
	}
}
