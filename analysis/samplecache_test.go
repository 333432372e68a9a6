package analysis

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/thund-dev/thund/ir"
)

// TestSampleChangeSeenWithReadingsReused: the column check reuses a
// sample file's reading from one build to the next while the file is
// unchanged, which must never hide a change: a header handed over by an
// update is the one checked, and so is the file's again once it is
// handed back, through later edits of other files.
func TestSampleChangeSeenWithReadingsReused(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	unknown := func(s *Snapshot) int {
		n := 0
		for _, d := range s.Diagnostics {
			if d.Code == ir.CodeUnknownColumn {
				n++
			}
		}
		return n
	}
	os.Mkdir(filepath.Join(root, "samples"), 0o755)
	write("samples/src.csv", "id,name\n1,a\n")
	old := time.Now().Add(-time.Hour) // old enough for its reading to be reused
	if err := os.Chtimes(filepath.Join(root, "samples/src.csv"), old, old); err != nil {
		t.Fatal(err)
	}
	write("a.sql", "SELECT id, name FROM src\n")
	write("b.sql", "SELECT id FROM src\n")
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	step := func(what string, want int, changes ...Change) {
		t.Helper()
		s = s.Update(changes)
		if n := unknown(s); n != want {
			t.Fatalf("%s: %d unknown columns, want %d", what, n, want)
		}
	}
	text := func(v string) *string { return &v }
	step("an edit of another file", 0, Change{Path: "b.sql", Text: text("SELECT id FROM src WHERE id > 1\n")})
	step("a.sql edited", 0, Change{Path: "a.sql", Text: text("-- edit\nSELECT id, name FROM src\n")})
	step("the header renamed by the editor", 1, Change{Path: "samples/src.csv", Text: text("id,nama\n1,a\n")})
	step("a.sql edited again", 1, Change{Path: "a.sql", Text: text("-- edit 2\nSELECT id, name FROM src\n")})
	step("the header handed back", 0, Change{Path: "samples/src.csv", Text: text("id,name\n1,a\n")})
	step("b.sql edited again", 0, Change{Path: "b.sql", Text: text("SELECT id FROM src WHERE id > 2\n")})
}
