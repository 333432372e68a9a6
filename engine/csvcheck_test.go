package engine

import (
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
