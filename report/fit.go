package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/thund-dev/thund/preview"
)

// Cell widths Fit tries, widest first: the preview table's own cap, and
// the narrowest it goes to before leaving columns out.
const (
	fitWidestCell    = 40
	fitNarrowestCell = 12
)

// Fitted is a preview page cut to a terminal's width.
type Fitted struct {
	// Page holds the columns shown (the page itself when all fit).
	Page *preview.Page
	// MaxCell is the cell width to render with (preview.TableOptions).
	MaxCell int
	// Hidden names the columns left out, on the right.
	Hidden []string
}

// Fit cuts a page to width characters (0: no limit), keeping margin of
// them for a prefix each line gets: it first narrows long values (down
// to 12 characters, elided with …), then leaves out columns on the
// right, keeping at least one.
func Fit(p *preview.Page, width, margin int) Fitted {
	if width <= 0 || len(p.Columns) == 0 {
		return Fitted{Page: p, MaxCell: fitWidestCell}
	}
	avail := width - margin
	heads := make([]int, len(p.Columns))
	longest := make([]int, len(p.Columns))
	for c, col := range p.Columns {
		heads[c] = max(runes(col.Name), runes(preview.SparkType(col.Type))) // as WriteTable prints it
	}
	for _, row := range p.Rows {
		for c, v := range row {
			if c < len(longest) {
				longest[c] = max(longest[c], runes(preview.Cell(v)))
			}
		}
	}
	total := func(cell, n int) int {
		sum := 3 * (n - 1)
		for c := 0; c < n; c++ {
			sum += max(heads[c], min(cell, longest[c]))
		}
		return sum
	}
	for cell := fitWidestCell; cell >= fitNarrowestCell; cell-- {
		if total(cell, len(p.Columns)) <= avail {
			return Fitted{Page: p, MaxCell: cell}
		}
	}
	n := len(p.Columns)
	for n > 1 && total(fitNarrowestCell, n) > avail {
		n--
	}
	out := *p
	out.Columns = p.Columns[:n]
	out.Rows = make([][]any, len(p.Rows))
	for i, row := range p.Rows {
		out.Rows[i] = row[:min(n, len(row))]
	}
	out.Truncated = nil
	for _, t := range p.Truncated {
		if t.Column < n {
			out.Truncated = append(out.Truncated, t)
		}
	}
	f := Fitted{Page: &out, MaxCell: fitNarrowestCell}
	for _, col := range p.Columns[n:] {
		f.Hidden = append(f.Hidden, col.Name)
	}
	return f
}

// HiddenNote says which columns Fit left out ("" when none), in at most
// width characters (0: any).
func (f Fitted) HiddenNote(width int) string {
	if len(f.Hidden) == 0 {
		return ""
	}
	note := fmt.Sprintf("%s more not shown (see them with --json): %s", plural(len(f.Hidden), "column"), strings.Join(f.Hidden, ", "))
	if width > 0 && runes(note) > width {
		note = string([]rune(note)[:max(width-1, 0)]) + "…"
	}
	return note
}

// WriteFitted writes a page as a table fitted to width (0: no limit),
// then the note of hidden columns, if any.
func WriteFitted(w io.Writer, p *preview.Page, width int, color bool) error {
	f := Fit(p, width, 0)
	if err := preview.WriteTable(w, f.Page, preview.TableOptions{Color: color, MaxWidth: f.MaxCell}); err != nil {
		return err
	}
	if note := f.HiddenNote(width); note != "" {
		_, err := fmt.Fprintln(w, note)
		return err
	}
	return nil
}

func runes(s string) int { return utf8.RuneCountInString(strings.ReplaceAll(s, "\n", "↵")) }
