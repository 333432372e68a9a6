package watch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/preview"
	"github.com/thund-dev/thund/report"
)

// RunJSON is the NDJSON object closing each run (or each batch that needed
// no run): the files that changed, the datasets the run covered in the
// order they ran (completed, failed or skipped), the datasets that no
// longer exist, and the time from applying the batch to printing this.
type RunJSON struct {
	Type      string   `json:"type"`
	Changed   []string `json:"changed"`
	Reran     []string `json:"reran"`
	Removed   []string `json:"removed"`
	Completed int      `json:"completed"`
	Failed    int      `json:"failed"`
	Skipped   int      `json:"skipped"`
	// Cancelled marks a run a newer save interrupted; Reran then lists
	// only what completed, and the next run takes over the rest.
	Cancelled bool   `json:"cancelled"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Note      string `json:"note,omitempty"`
}

// DiagnosticJSON is a diagnostic that appeared ("added") or went away
// ("removed") since the previous snapshot.
type DiagnosticJSON struct {
	report.JSONDiagnostic
	Change string `json:"change"`
}

// output serialises everything watch mode prints: NDJSON objects, or text
// lines with an optional live progress line rewritten in place.
type output struct {
	mu    sync.Mutex
	w     *bufio.Writer
	json  bool
	color bool
	live  bool // a progress line is on screen
	// width is the terminal's width tables are fitted to (0: none).
	width int
	// err is the first failure to encode or write output, not yet
	// reported (see takeErr).
	err error
}

// fail records a failure to encode or write; callers hold mu.
func (o *output) fail(err error) {
	if err != nil && o.err == nil {
		o.err = err
	}
}

// takeErr returns the failure recorded since the last call, if any.
func (o *output) takeErr() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	err := o.err
	o.err = nil
	return err
}

func newOutput(w io.Writer, json, color bool, width int) *output {
	return &output{w: bufio.NewWriter(w), json: json, color: color, width: width}
}

// clearLive erases the progress line; callers hold mu.
func (o *output) clearLive() {
	if o.live {
		o.w.WriteString("\r\x1b[K")
		o.live = false
	}
}

// text prints lines of text (each ends with a newline added here).
func (o *output) text(lines ...string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.clearLive()
	for _, l := range lines {
		o.w.WriteString(l)
		o.w.WriteByte('\n')
	}
	o.fail(o.w.Flush())
}

// objects prints NDJSON objects.
func (o *output) objects(vs ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	enc := json.NewEncoder(o.w)
	for _, v := range vs {
		o.fail(enc.Encode(v))
	}
	o.fail(o.w.Flush())
}

// progress shows s as the live line, replacing the previous one.
func (o *output) progress(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.w.WriteString("\r\x1b[K" + s)
	o.live = true
	o.w.Flush()
}

// stopProgress erases the live line, if any.
func (o *output) stopProgress() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.clearLive()
	o.w.Flush()
}

// style returns ANSI codes when colour is on.
func (o *output) style(code string) string {
	if !o.color {
		return ""
	}
	return code
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// diagKey identifies a diagnostic regardless of where it is, so a
// diagnostic that only moved (lines added above it) is no change.
func diagKey(d ir.Diagnostic) string {
	return strings.Join([]string{d.Loc.File, d.Severity.String(), string(d.Code), string(d.Backend), d.Message}, "\x00")
}

// diffDiagnostics returns the diagnostics of next that prev lacks, and
// those of prev that next lacks (counting repeats); a cycle counts once
// (report.Collapse).
func diffDiagnostics(prev, next *analysis.Snapshot) (added, removed []ir.Diagnostic) {
	var before []ir.Diagnostic
	if prev != nil {
		before = report.Collapse(prev.Diagnostics)
	}
	after := report.Collapse(next.Diagnostics)
	count := map[string]int{}
	for _, d := range before {
		count[diagKey(d)]++
	}
	for _, d := range after {
		k := diagKey(d)
		if count[k] > 0 {
			count[k]--
			continue
		}
		added = append(added, d)
	}
	if prev == nil {
		return added, nil
	}
	left := map[string]int{}
	for _, d := range after {
		left[diagKey(d)]++
	}
	for _, d := range before {
		k := diagKey(d)
		if left[k] > 0 {
			left[k]--
			continue
		}
		removed = append(removed, d)
	}
	return added, removed
}

// diagnosticJSON converts a diagnostic located in snap.
func diagnosticJSON(snap *analysis.Snapshot, d ir.Diagnostic, change string) DiagnosticJSON {
	p := report.Locate(snap, d.Loc)
	jd := report.JSONDiagnostic{
		Type: "diagnostic", File: d.Loc.File, Line: p.Line, Column: p.Column, EndLine: p.EndLine, EndColumn: p.EndColumn,
		Severity: d.Severity.String(), Code: string(d.Code), Message: d.Message, Backend: string(d.Backend),
		Related: []report.JSONRelated{},
	}
	for _, r := range d.Related {
		rp := report.Locate(snap, r.Loc)
		jd.Related = append(jd.Related, report.JSONRelated{File: r.Loc.File, Line: rp.Line, Column: rp.Column, Message: r.Message})
	}
	return DiagnosticJSON{JSONDiagnostic: jd, Change: change}
}

// diagnostics prints what changed among the diagnostics.
func (o *output) diagnostics(prev, next *analysis.Snapshot) {
	added, removed := diffDiagnostics(prev, next)
	if len(added) == 0 && len(removed) == 0 {
		return
	}
	added = report.ProjectFirst(next, added)
	if o.json {
		var vs []any
		for _, d := range removed {
			vs = append(vs, diagnosticJSON(prev, d, "removed"))
		}
		for _, d := range added {
			vs = append(vs, diagnosticJSON(next, d, "added"))
		}
		o.objects(vs...)
		return
	}
	var lines []string
	gone := map[string]int{}
	var goneFiles []string
	for _, d := range removed {
		if deleted(prev, next, d.Loc.File) {
			// Not fixed: its file is gone, and its diagnostics with it.
			if gone[d.Loc.File] == 0 {
				goneFiles = append(goneFiles, d.Loc.File)
			}
			gone[d.Loc.File]++
			continue
		}
		p := report.Locate(prev, d.Loc)
		lines = append(lines, fmt.Sprintf("%sfixed %s:%d:%d: %s: %s [%s]%s", o.style(ansiGreen), d.Loc.File, p.Line, p.Column, d.Severity, oneLine(d.Message), d.Code, o.style(ansiReset)))
	}
	for _, f := range goneFiles {
		lines = append(lines, fmt.Sprintf("%s%s was deleted: its %s went with it%s", o.style(ansiDim), f, plural(gone[f], "diagnostic"), o.style(ansiReset)))
	}
	for _, d := range added {
		p := report.Locate(next, d.Loc)
		col := ansiYellow
		if d.Severity == ir.Error {
			col = ansiRed
		}
		msg := oneLine(d.Message)
		for _, r := range d.Related {
			rp := report.Locate(next, r.Loc)
			msg += fmt.Sprintf(" (%s: %s:%d:%d)", r.Message, r.Loc.File, rp.Line, rp.Column)
		}
		lines = append(lines, fmt.Sprintf("%s:%d:%d: %s%s%s: %s [%s]", d.Loc.File, p.Line, p.Column, o.style(col), d.Severity, o.style(ansiReset), msg, d.Code))
	}
	o.text(lines...)
}

// deleted reports whether file, which prev had, is gone from next.
func deleted(prev, next *analysis.Snapshot, file string) bool {
	if _, ok := prev.Text(file); !ok {
		return false
	}
	_, ok := next.Text(file)
	return !ok
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// event prints one engine event as it happens: every event as NDJSON,
// failures and skips as text lines (the status line sums up the rest).
func (o *output) event(e engine.Event) {
	if o.json {
		o.objects(report.EventJSON(e))
		return
	}
	if e.Phase == engine.Failed || e.Phase == engine.Skipped || e.Phase == engine.Planning && e.Message != "" {
		o.text("  " + report.EventText(e, o.color))
	}
}

// results prints a finished run's expectations, increments and previews;
// prev holds the pages printed last time, for highlighting new rows.
func (o *output) results(res *engine.Result, pages []*preview.Page, prev map[string]*preview.Page) {
	if o.json {
		var vs []any
		for _, e := range res.SortedExpectations() {
			vs = append(vs, report.JSONExpectation{Type: "expectation", Dataset: e.Dataset, Name: e.Name, Action: string(e.Action),
				Violations: e.Violations, Dropped: e.Dropped, Failed: e.Failed, Columns: e.Columns, Samples: preview.JSONRows(e.Samples)})
		}
		for _, inc := range res.Increments {
			vs = append(vs, report.JSONIncrement{Type: "increment", Dataset: inc.Dataset, Flow: inc.Flow, Trigger: inc.Trigger, Files: inc.Files,
				Arrived: inc.Arrived, Late: inc.Late, Emitted: inc.Emitted, Columns: inc.Columns, Rows: preview.JSONRows(inc.Rows)})
		}
		for _, p := range pages {
			vs = append(vs, report.JSONPreview{Type: "preview", Dataset: p.Dataset, Columns: p.Columns, Rows: p.Rows, TotalRows: p.TotalRows})
		}
		o.objects(vs...)
		return
	}
	var lines []string
	for _, e := range res.SortedExpectations() {
		var status string
		switch {
		case e.Failed:
			status = fmt.Sprintf("%sFAILED%s: %d violating rows", o.style(ansiRed), o.style(ansiReset), e.Violations)
		case e.Action == ir.Drop && e.Violations > 0:
			status = fmt.Sprintf("%d rows dropped", e.Dropped)
		case e.Violations > 0:
			status = fmt.Sprintf("%d rows violate (kept)", e.Violations)
		default:
			continue
		}
		lines = append(lines, fmt.Sprintf("  expectation %s.%s (%s): %s", e.Dataset, e.Name, e.Action, status))
	}
	for _, inc := range res.Increments {
		lines = append(lines, fmt.Sprintf("  %s trigger %d: %d arrived, %d late, %d emitted", report.IncrementName(inc), inc.Trigger, inc.Arrived, inc.Late, inc.Emitted))
	}
	if len(lines) > 0 {
		o.text(lines...)
	}
	for _, p := range pages {
		o.text(o.table(p, prev[ir.NameKey(p.Dataset)]))
	}
}

// table renders a preview page, fitted to the terminal's width (long
// values elided, then columns on the right left out, which a note
// names). On a colour terminal, rows the previous page of the dataset
// did not have are marked with a green "+", and when both pages hold
// every row of the dataset, the rows the new one lost follow, marked
// with a red "-".
func (o *output) table(p, old *preview.Page) string {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "\n%s%s%s\n", o.style(ansiBold), p.Dataset, o.style(ansiReset))
	margin := 0
	if o.color && old != nil {
		margin = 2
	}
	fit := report.Fit(p, o.width, margin)
	note := fit.HiddenNote(max(o.width-margin, 0))
	if margin == 0 {
		preview.WriteTable(&buf, fit.Page, preview.TableOptions{Color: o.color, MaxWidth: fit.MaxCell})
		if note != "" {
			buf.WriteString(o.style(ansiDim) + note + o.style(ansiReset) + "\n")
		}
		return strings.TrimSuffix(buf.String(), "\n")
	}
	fresh := newRows(old, p)
	var gone [][]any
	if int64(len(old.Rows)) == old.TotalRows && int64(len(p.Rows)) == p.TotalRows && sameColumns(old, p) {
		gone = newRows(p, old).rows(old.Rows)
	}
	// The lost rows are rendered with the page, so the columns align;
	// the footer is the page's own.
	both := *fit.Page
	both.Rows = append(append([][]any(nil), fit.Page.Rows...), cutRows(gone, len(both.Columns))...)
	var tbl, foot bytes.Buffer
	preview.WriteTable(&tbl, &both, preview.TableOptions{Color: o.color, MaxWidth: fit.MaxCell})
	preview.WriteTable(&foot, fit.Page, preview.TableOptions{Color: o.color, MaxWidth: fit.MaxCell})
	lines := strings.Split(strings.TrimSuffix(tbl.String(), "\n"), "\n")
	footer := strings.Split(strings.TrimSuffix(foot.String(), "\n"), "\n")[3+len(fit.Page.Rows):]
	lines = append(lines[:3+len(both.Rows)], footer...)
	added := 0
	for i, l := range lines {
		row := i - 3 // names, types and the rule come first
		switch {
		case row >= 0 && row < len(p.Rows) && fresh[row]:
			added++
			buf.WriteString(o.style(ansiGreen+ansiBold) + "+ " + o.style(ansiReset) + l)
		case row >= len(p.Rows) && row < len(both.Rows):
			buf.WriteString(o.style(ansiRed+ansiBold) + "- " + o.style(ansiReset) + o.style(ansiRed) + l + o.style(ansiReset))
		case i == len(lines)-len(footer) && (added > 0 || len(gone) > 0):
			var since []string
			if added > 0 {
				since = append(since, fmt.Sprintf("%d new", added))
			}
			if len(gone) > 0 {
				since = append(since, fmt.Sprintf("%d removed", len(gone)))
			}
			buf.WriteString("  " + l + fmt.Sprintf(" %s(%s since the last run)%s", o.style(ansiGreen), strings.Join(since, ", "), o.style(ansiReset)))
		default:
			buf.WriteString("  " + l)
		}
		buf.WriteByte('\n')
	}
	if note != "" {
		buf.WriteString("  " + o.style(ansiDim) + note + o.style(ansiReset) + "\n")
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// marks flags rows of a page (see newRows).
type marks []bool

// rows returns the rows marked.
func (m marks) rows(rows [][]any) [][]any {
	var out [][]any
	for i, r := range rows {
		if i < len(m) && m[i] {
			out = append(out, r)
		}
	}
	return out
}

// cutRows keeps the first n values of each row.
func cutRows(rows [][]any, n int) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = r[:min(n, len(r))]
	}
	return out
}

// sameColumns reports whether two pages have the same column names and
// types (rows of another shape are no "removed" rows).
func sameColumns(a, b *preview.Page) bool {
	if len(a.Columns) != len(b.Columns) {
		return false
	}
	for i := range a.Columns {
		if a.Columns[i] != b.Columns[i] {
			return false
		}
	}
	return true
}

// newRows marks the rows of p that old did not show (as a multiset: a
// row shown twice now but once before counts once as new).
func newRows(old, p *preview.Page) marks {
	count := map[string]int{}
	for _, r := range old.Rows {
		count[rowKey(r)]++
	}
	out := make([]bool, len(p.Rows))
	for i, r := range p.Rows {
		k := rowKey(r)
		if count[k] > 0 {
			count[k]--
			continue
		}
		out[i] = true
	}
	return out
}

func rowKey(r []any) string {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Sprint(r)
	}
	return string(b)
}

// statusLine sums up a run for people: when, what changed, what re-ran
// with row counts, and how long it took.
func (o *output) statusLine(j *job, elapsed time.Duration) string {
	var b strings.Builder
	b.WriteString(o.style(ansiDim) + time.Now().Format("15:04:05") + o.style(ansiReset) + " ")
	b.WriteString(describeChanged(j.changed, j.startup))
	b.WriteString(": ")
	if len(j.removed) > 0 {
		fmt.Fprintf(&b, "removed %s; ", strings.Join(j.removedNames, ", "))
	}
	switch {
	case j.note != "":
		b.WriteString(j.note)
		return b.String()
	case j.cancelled:
		why := "by a newer save"
		if j.stopping {
			why = "on stopping"
		}
		fmt.Fprintf(&b, "%scancelled%s %s after %d of %d datasets (%s)", o.style(ansiYellow), o.style(ansiReset), why, len(j.completedNames()), len(j.order), fmtDuration(elapsed))
		return b.String()
	case j.err != nil:
		fmt.Fprintf(&b, "%srun failed%s: %v", o.style(ansiRed), o.style(ansiReset), j.err)
		return b.String()
	}
	verb := "re-ran"
	if j.startup {
		verb = "ran"
	}
	var parts []string
	failed, skipped := 0, 0
	for _, k := range j.res.Order {
		d := j.res.Datasets[k]
		switch d.Phase {
		case engine.Completed:
			parts = append(parts, fmt.Sprintf("%s %s(%s)%s", d.Name, o.style(ansiDim), rows(d.Rows), o.style(ansiReset)))
		case engine.Failed:
			failed++
			parts = append(parts, fmt.Sprintf("%s%s failed%s", o.style(ansiRed), d.Name, o.style(ansiReset)))
		case engine.Skipped:
			skipped++
			parts = append(parts, fmt.Sprintf("%s%s skipped%s", o.style(ansiDim), d.Name, o.style(ansiReset)))
		}
	}
	const shown = 6
	if skipped > 0 && skipped == len(j.res.Order) {
		// Nothing ran: say so, rather than "re-ran" a list of skips.
		var names []string
		for _, k := range j.res.Order {
			names = append(names, j.res.Datasets[k].Name)
		}
		if len(names) > shown {
			names = append(names[:shown], fmt.Sprintf("and %d more", len(names)-shown))
		}
		fmt.Fprintf(&b, "%s- nothing ran%s: %s skipped (%s), for the reasons above", o.style(ansiDim), o.style(ansiReset), plural(skipped, "dataset"), strings.Join(names, ", "))
		return b.String()
	}
	if len(parts) > shown {
		parts = append(parts[:shown], fmt.Sprintf("and %d more", len(parts)-shown))
	}
	mark := o.style(ansiGreen) + "✓" + o.style(ansiReset)
	if failed > 0 {
		mark = o.style(ansiRed) + "✗" + o.style(ansiReset)
	}
	fmt.Fprintf(&b, "%s %s %s: %s in %s", mark, verb, plural(len(j.res.Order), "dataset"), strings.Join(parts, ", "), fmtDuration(elapsed))
	return b.String()
}

func describeChanged(files []string, startup bool) string {
	if startup {
		return fmt.Sprintf("start (%s)", plural(len(files), "file"))
	}
	const shown = 3
	if len(files) <= shown {
		return strings.Join(files, ", ")
	}
	return strings.Join(files[:shown], ", ") + fmt.Sprintf(" and %d more", len(files)-shown)
}

func rows(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func fmtDuration(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
