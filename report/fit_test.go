package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/thund-dev/thund/preview"
)

// TestFitNarrowsBeforeHiding: long values are elided first; columns go
// only when even 12-character cells do not fit, and one always stays.
func TestFitNarrowsBeforeHiding(t *testing.T) {
	p := &preview.Page{Columns: []preview.Column{{Name: "a", Type: "VARCHAR"}, {Name: "b", Type: "VARCHAR"}},
		Rows: [][]any{{strings.Repeat("x", 50), strings.Repeat("y", 50)}}, TotalRows: 1}
	f := Fit(p, 60, 0)
	if len(f.Hidden) != 0 || f.MaxCell >= 40 || f.MaxCell < 12 {
		t.Fatalf("60 wide: hidden %v, cell %d", f.Hidden, f.MaxCell)
	}
	var b strings.Builder
	if err := WriteFitted(&b, p, 60, false); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if utf8.RuneCountInString(l) > 60 {
			t.Errorf("line over 60: %q", l)
		}
	}
	if f := Fit(p, 20, 0); len(f.Hidden) != 1 || f.Hidden[0] != "b" || len(f.Page.Columns) != 1 || len(f.Page.Rows[0]) != 1 {
		t.Errorf("20 wide: %+v", f)
	}
	if f := Fit(p, 5, 0); len(f.Page.Columns) != 1 {
		t.Errorf("5 wide: %d columns, want 1", len(f.Page.Columns))
	}
	if f := Fit(p, 0, 0); f.Page != p || f.MaxCell != 40 {
		t.Errorf("no width: the page changed")
	}
}
