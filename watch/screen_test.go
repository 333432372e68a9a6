package watch

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/thund-dev/thund/preview"
)

// failing fails every write, as a closed pipe does.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestOutputRecordsWriteFailures: a failure to write or encode output is
// kept for the next report to warn about, once.
func TestOutputRecordsWriteFailures(t *testing.T) {
	o := newOutput(failing{}, true, false, 0)
	o.objects(map[string]any{"type": "run"})
	if err := o.takeErr(); err == nil {
		t.Fatal("a failed write left no error")
	}
	if err := o.takeErr(); err != nil {
		t.Fatalf("the error was reported twice: %v", err)
	}
	ok := newOutput(&syncBuffer{}, true, false, 0)
	ok.objects(map[string]any{"bad": make(chan int)})
	if err := ok.takeErr(); err == nil {
		t.Fatal("a value JSON cannot encode left no error")
	}
}

// TestRemovedRowsShown: after a save, a colour table marks the rows the
// dataset lost with "-" (after the others, aligned with them) and counts
// them; a page that holds only part of the dataset marks none.
func TestRemovedRowsShown(t *testing.T) {
	o := newOutput(&syncBuffer{}, false, true, 0)
	old := pageOf("a", []any{int64(1)}, []any{int64(22)}, []any{int64(3)})
	now := pageOf("a", []any{int64(1)}, []any{int64(3)}, []any{int64(4)})
	got := o.table(now, old)
	var minus, plus []string
	for _, l := range strings.Split(got, "\n") {
		plain := stripANSI(l)
		switch {
		case strings.HasPrefix(plain, "- "):
			minus = append(minus, plain)
		case strings.HasPrefix(plain, "+ "):
			plus = append(plus, plain)
		}
	}
	if len(minus) != 1 || strings.TrimSpace(minus[0]) != "- 22" || len(plus) != 1 || strings.TrimSpace(plus[0]) != "+ 4" {
		t.Errorf("want + 4 and - 22, got + %q, - %q:\n%s", plus, minus, got)
	}
	if !strings.Contains(stripANSI(got), "3 rows (1 new, 1 removed since the last run)") {
		t.Errorf("no count of new and removed rows:\n%s", got)
	}
	part := pageOf("a", []any{int64(1)}, []any{int64(3)})
	part.TotalRows = 10
	if got := stripANSI(o.table(part, old)); strings.Contains(got, "- ") {
		t.Errorf("a partial page marked removed rows:\n%s", got)
	}
}

// TestTablesFitTheTerminal: at 80 columns a wide table keeps every line
// within 80 characters, eliding long values and leaving out the
// rightmost columns, which a note names.
func TestTablesFitTheTerminal(t *testing.T) {
	p := &preview.Page{Dataset: "wide", TotalRows: 1}
	var row []any
	for i := range 9 {
		p.Columns = append(p.Columns, preview.Column{Name: fmt.Sprintf("column_%d", i), Type: "VARCHAR"})
		row = append(row, strings.Repeat("x", 30))
	}
	p.Rows = [][]any{row}
	for _, color := range []bool{false, true} {
		o := newOutput(&syncBuffer{}, false, color, 80)
		got := stripANSI(o.table(p, p))
		for _, l := range strings.Split(got, "\n") {
			if n := utf8.RuneCountInString(l); n > 80 {
				t.Errorf("colour %v: a line of %d characters: %q", color, n, l)
			}
		}
		if !strings.Contains(got, "…") || !strings.Contains(got, "column_0") || !strings.Contains(got, "4 columns more not shown (see them with --json): column_5") {
			t.Errorf("colour %v: no elision or no note of the hidden columns:\n%s", color, got)
		}
	}
	if got := newOutput(&syncBuffer{}, false, false, 0).table(p, nil); strings.Contains(got, "not shown") {
		t.Errorf("no width: columns hidden:\n%s", got)
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func stripANSI(s string) string { return ansi.ReplaceAllString(s, "") }
