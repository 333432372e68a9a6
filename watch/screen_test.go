package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/internal/testutil"
	"github.com/thund-dev/thund/preview"
	"github.com/thund-dev/thund/report"
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

// textWatch runs watch mode on dir with text output; lines waits for a
// line containing want and returns the output so far.
type textWatch struct {
	t      *testing.T
	out    *syncBuffer
	cancel context.CancelFunc
	done   chan error
}

func startText(t *testing.T, dir string) *textWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &textWatch{t: t, out: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	go func() {
		w.done <- Run(ctx, Options{Dir: dir, Out: w.out, Warn: w.out, Debounce: 30 * time.Millisecond, Engine: engine.Options{Threads: 1}})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-w.done:
		case <-time.After(wait):
			t.Error("watch mode did not stop")
		}
	})
	return w
}

// waitFor returns the output once it holds want n times.
func (w *textWatch) waitFor(want string, n int) string {
	w.t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		if s := w.out.String(); strings.Count(s, want) >= n {
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.t.Fatalf("no %q (x%d) within %s:\n%s", want, n, wait, w.out.String())
	return ""
}

func writeIn(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWatchStatusLines: a run where everything was skipped says nothing
// ran; a deleted file's diagnostics are not "fixed"; breaking a cycle
// says the pipeline is valid again.
func TestWatchStatusLines(t *testing.T) {
	dir := t.TempDir()
	writeIn(t, dir, "a.sql", "SELECT 1 AS x\n")
	writeIn(t, dir, "b.sql", "SELECT x FROM a\n")
	writeIn(t, dir, "broken.sql", "SELECT * FROM no_such_table\n")
	w := startText(t, dir)
	out := w.waitFor("start (", 1)
	writeIn(t, dir, "a.sql", "SELECT x FROM b\n")
	out = w.waitFor("fix the cycle first", 1)
	writeIn(t, dir, "a.sql", "SELECT 1 AS x\n")
	out = w.waitFor("a.sql: the cycle is gone and the pipeline is valid again", 1)
	if strings.Contains(out, noChange) {
		t.Errorf("fixing the cycle printed %q:\n%s", noChange, out)
	}
	if err := os.Remove(filepath.Join(dir, "broken.sql")); err != nil {
		t.Fatal(err)
	}
	out = w.waitFor("broken.sql was deleted: its 1 diagnostic went with it", 1)
	if strings.Contains(out, "fixed broken.sql") {
		t.Errorf("a deleted file's diagnostic is called fixed:\n%s", out)
	}

	dir = t.TempDir()
	writeIn(t, dir, "only.sql", "SELECT * FROM no_such_table\n")
	out = startText(t, dir).waitFor("start (", 1)
	if !strings.Contains(out, "- nothing ran: 1 dataset skipped (only), for the reasons above") || strings.Contains(out, "ran 1 dataset") {
		t.Errorf("an all-skipped run:\n%s", out)
	}
}

// TestWatchRefusesAFolderWithoutPipeline: watch mode in a folder with no
// spec, thund.yaml or .sql file refuses, as --check does.
func TestWatchRefusesAFolderWithoutPipeline(t *testing.T) {
	dir := t.TempDir()
	writeIn(t, dir, "notes.txt", "not a pipeline\n")
	err := Run(context.Background(), Options{Dir: dir, Out: &syncBuffer{}, Warn: &syncBuffer{}})
	if err == nil || !strings.Contains(err.Error(), "holds no pipeline") {
		t.Fatalf("got %v, want a refusal", err)
	}
	if err := Run(context.Background(), Options{Dir: t.TempDir(), Out: &syncBuffer{}, Warn: &syncBuffer{}}); err == nil {
		t.Fatal("an empty folder is watched")
	}
}

// TestStreamResumesInWatchMode: without --state, a new micro-batch file
// is one new trigger of the session's stream, numbered after the earlier
// ones, and the files read before are not read again.
func TestStreamResumesInWatchMode(t *testing.T) {
	dir := testutil.CopyToTemp(t, filepath.Join("..", "testdata", "clickstream"))
	w := startWatch(t, dir, Options{Debounce: 50 * time.Millisecond})
	w.run()
	src := filepath.Join(dir, "samples", "clicks", "batch-004.json")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeAtomic(t, filepath.Join(dir, "samples", "clicks", "batch-005.json"), string(b))
	_, objs := w.run()
	var incs []report.JSONIncrement
	for _, o := range objs {
		if o.Type == "increment" {
			var inc report.JSONIncrement
			if err := json.Unmarshal(o.raw, &inc); err != nil {
				t.Fatal(err)
			}
			incs = append(incs, inc)
		}
	}
	found := false
	for _, inc := range incs {
		if inc.Dataset != "clicks_raw" {
			continue
		}
		found = true
		if inc.Trigger != 5 || inc.Arrived != 10 || len(inc.Files) != 1 || inc.Files[0] != "samples/clicks/batch-005.json" {
			t.Errorf("clicks_raw: trigger %d, %d arrived from %v; want trigger 5, 10 rows of batch-005.json", inc.Trigger, inc.Arrived, inc.Files)
		}
	}
	if !found {
		t.Errorf("no increment of clicks_raw after a new file: %v", incs)
	}
}

// TestWatchSampleWarnings: a sample's short row is reported by file and
// line at the start, and not again on a save that leaves it as it is.
func TestWatchSampleWarnings(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "samples"), 0o755)
	writeIn(t, dir, "samples/t.csv", "id,name\n1,a\n2\n")
	writeIn(t, dir, "a.sql", "SELECT id FROM t\n")
	w := startText(t, dir)
	w.waitFor("start (", 1)
	writeIn(t, dir, "a.sql", "SELECT id, name FROM t\n")
	out := w.waitFor("a.sql: ✓ re-ran", 1)
	if n := strings.Count(out, "samples/t.csv:3:1: warning: this row has 1 of the header's 2 fields"); n != 1 {
		t.Errorf("the short row reported %d times, want once:\n%s", n, out)
	}
}

// TestWatchHintsAtStart: the backends: hint of --check is printed when
// watching starts, after the findings it sums up.
func TestWatchHintsAtStart(t *testing.T) {
	dir := t.TempDir()
	writeIn(t, dir, "a.sql", "-- @expect.one: x > 0\n-- @expect.two: x < 9\nSELECT 1 AS x\n")
	out := startText(t, dir).waitFor("start (", 1)
	i := strings.Index(out, "hint: 2 findings in 1 file say spark-4.3 cannot run this pipeline")
	if i < 0 || strings.Index(out, "a.sql:2:4: warning:") > i {
		t.Errorf("no hint after the findings:\n%s", out)
	}
}
