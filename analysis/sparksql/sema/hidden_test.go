package sema

import (
	"strings"
	"testing"
)

// fileCat is a catalog whose file reads (ev, a JSON read with columns
// known; raw, one with unknown columns) carry the hidden _metadata
// column; the DuckDB relation of ev holds it as its last column.
type fileCat struct{ fakeCat }

func (c fileCat) Hidden(name []string) []Column {
	switch strings.ToLower(strings.Join(name, ".")) {
	case "ev", "raw":
		return []Column{FileMetadata}
	}
	return nil
}

var hiddenCat = fileCat{fakeCat{
	"ev":     append(cols("id bigint", "kind string"), FileMetadata),
	"raw":    nil,
	"orders": testCat["orders"],
	"withmd": cols("id bigint", "_metadata string"),
}}

func TestFileMetadataHidden(t *testing.T) {
	// * and ev.* leave the hidden column out.
	r := analyzeWith(t, "SELECT * FROM ev", hiddenCat, Options{})
	r.noDiags()
	wantNames(r, "id, kind")
	r = analyzeWith(t, "SELECT e.* FROM ev e", hiddenCat, Options{})
	r.noDiags()
	wantNames(r, "id, kind")

	// Named, it resolves, qualified or not, with its type.
	r = analyzeWith(t, "SELECT *, _metadata.file_path AS src, ev._metadata.file_name, _metadata FROM ev", hiddenCat, Options{})
	r.noDiags()
	wantNames(r, "id, kind, src, file_name, _metadata")
	var ref *ColumnRef
	for _, c := range r.m.Columns {
		if r.sql[c.Node.Start:c.Node.End] == "_metadata.file_path" {
			ref = c
		}
	}
	if ref == nil || ref.Kind != RefColumn || ref.Tentative {
		t.Fatalf("_metadata.file_path: %+v", ref)
	}
	if c := ref.Source.Column(); c == nil || c.Type != FileMetadataType {
		t.Errorf("_metadata's source column: %+v", c)
	}
	if tr := r.m.Table(r.m.Tables[0].Node); tr == nil || len(tr.Hidden) != 1 || len(tr.Columns) != 2 {
		t.Errorf("table ref: %+v", tr)
	}

	// A field it lacks is Spark's FIELD_NOT_FOUND at the reference, with
	// the nearest field.
	r = analyzeWith(t, "SELECT _metadata.file_nme FROM ev", hiddenCat, Options{})
	r.wantDiags("FIELD_NOT_FOUND _metadata.file_nme")
	if d := r.m.Diagnostics[0]; !strings.Contains(d.Message, "did you mean `_metadata.file_name`") {
		t.Errorf("message: %s", d.Message)
	}
	analyzeWith(t, "SELECT e._metadata.nope FROM ev AS e", hiddenCat, Options{}).wantDiags("FIELD_NOT_FOUND e._metadata.nope")

	// Through a join, and a column of the data with the name wins.
	analyzeWith(t, "SELECT _metadata.file_size FROM orders JOIN ev USING (id)", hiddenCat, Options{}).noDiags()
	r = analyzeWith(t, "SELECT w._metadata FROM withmd w", hiddenCat, Options{})
	r.noDiags()
	r = analyzeWith(t, "SELECT _metadata.x FROM ev JOIN withmd USING (id)", hiddenCat, Options{})
	// withmd's own _metadata (a string) is the one read: no struct field.
	for _, d := range r.m.Diagnostics {
		if d.Code == CodeFieldNotFound {
			t.Errorf("the data's column should win: %v", d)
		}
	}

	// A read whose own columns are unknown may hold a _metadata of its
	// own: nothing certain to say.
	analyzeWith(t, "SELECT _metadata.nope FROM raw", hiddenCat, Options{}).noDiags()

	// Not through a subquery's *.
	r = analyzeWith(t, "SELECT * FROM (SELECT * FROM ev) s", hiddenCat, Options{})
	wantNames(r, "id, kind")
}

// wantNames checks the names of the top query's output columns.
func wantNames(r *run, want string) {
	r.t.Helper()
	var names []string
	for _, c := range r.out().Columns {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ", "); got != want {
		r.t.Errorf("%s: output %q, want %q", r.sql, got, want)
	}
}
