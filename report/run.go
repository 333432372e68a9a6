package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/preview"
)

// JSONEvent is the NDJSON form of a run event.
type JSONEvent struct {
	Type      string `json:"type"`
	Dataset   string `json:"dataset"`
	Flow      string `json:"flow"`
	Phase     string `json:"phase"`
	Message   string `json:"message"`
	Rows      int64  `json:"rows"`
	ElapsedMS int64  `json:"elapsed_ms"`
	// Backend is set on events from Spark (thund-watch --spark).
	Backend string `json:"backend,omitempty"`
}

// JSONExpectation is the NDJSON form of an expectation result.
type JSONExpectation struct {
	Type       string   `json:"type"`
	Dataset    string   `json:"dataset"`
	Name       string   `json:"name"`
	Action     string   `json:"action"`
	Violations int64    `json:"violations"`
	Dropped    int64    `json:"dropped"`
	Failed     bool     `json:"failed"`
	Columns    []string `json:"columns,omitempty"`
	Samples    [][]any  `json:"samples,omitempty"`
}

// JSONPreview is the NDJSON form of a previewed dataset.
type JSONPreview struct {
	Type      string           `json:"type"`
	Dataset   string           `json:"dataset"`
	Columns   []preview.Column `json:"columns"`
	Rows      [][]any          `json:"rows"`
	TotalRows int64            `json:"total_rows"`
}

// JSONIncrement is the NDJSON form of one streaming trigger.
type JSONIncrement struct {
	Type    string   `json:"type"`
	Dataset string   `json:"dataset"`
	Flow    string   `json:"flow"`
	Trigger int      `json:"trigger"`
	Files   []string `json:"files"`
	Arrived int64    `json:"arrived"`
	Late    int64    `json:"late"`
	Emitted int64    `json:"emitted"`
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
}

// RunSummary closes the NDJSON output of a run.
type RunSummary struct {
	Type      string `json:"type"`
	Datasets  int    `json:"datasets"`
	Completed int    `json:"completed"`
	Failed    int    `json:"failed"`
	Skipped   int    `json:"skipped"`
	Errors    int    `json:"errors"`
	Warnings  int    `json:"warnings"`
	ElapsedMS int64  `json:"elapsed_ms"`
	// Hints are the analysis' one-line fixes (Summary.Hints).
	Hints []string `json:"hints,omitempty"`
}

// EventJSON converts an engine event.
func EventJSON(e engine.Event) JSONEvent {
	return JSONEvent{Type: "event", Dataset: e.Dataset, Flow: e.Flow, Phase: string(e.Phase), Message: e.Message, Rows: e.Rows, ElapsedMS: e.Elapsed.Milliseconds()}
}

// SummarizeRun counts the outcome of a run.
func SummarizeRun(res *engine.Result, diags Summary) RunSummary {
	s := RunSummary{Type: "summary", Datasets: len(res.Datasets), Errors: diags.Errors, Warnings: diags.Warnings, ElapsedMS: res.Elapsed.Milliseconds(), Hints: diags.Hints}
	for _, d := range res.Datasets {
		switch d.Phase {
		case engine.Completed:
			s.Completed++
		case engine.Failed:
			s.Failed++
		case engine.Skipped:
			s.Skipped++
		}
	}
	return s
}

// RunJSON writes a run's expectations, increments and previews as NDJSON
// (events are written as they happen, by the caller), then the summary.
// An object that cannot be encoded does not stop the others: the first
// error is returned once the summary is written.
func RunJSON(w io.Writer, res *engine.Result, previews []*preview.Page, sum RunSummary) error {
	enc := json.NewEncoder(w)
	var first error
	put := func(v any) {
		if err := enc.Encode(v); err != nil && first == nil {
			first = err
		}
	}
	for _, e := range res.SortedExpectations() {
		put(JSONExpectation{Type: "expectation", Dataset: e.Dataset, Name: e.Name, Action: string(e.Action),
			Violations: e.Violations, Dropped: e.Dropped, Failed: e.Failed, Columns: e.Columns, Samples: preview.JSONRows(e.Samples)})
	}
	for _, inc := range res.Increments {
		rows := inc.Rows
		if rows == nil {
			rows = [][]any{}
		}
		put(JSONIncrement{Type: "increment", Dataset: inc.Dataset, Flow: inc.Flow, Trigger: inc.Trigger, Files: inc.Files,
			Arrived: inc.Arrived, Late: inc.Late, Emitted: inc.Emitted, Columns: inc.Columns, Rows: preview.JSONRows(rows)})
	}
	for _, p := range previews {
		cols := make([]preview.Column, len(p.Columns))
		for i, c := range p.Columns {
			cols[i] = preview.Column{Name: c.Name, Type: preview.SparkType(c.Type)} // Spark's names, as the table and the editor show them
		}
		put(JSONPreview{Type: "preview", Dataset: p.Dataset, Columns: cols, Rows: p.Rows, TotalRows: p.TotalRows})
	}
	put(sum)
	return first
}

// EventText is the terminal line for a finished flow, or "" for the
// intermediate phases.
func EventText(e engine.Event, color bool) string {
	green, red, dim, yellow, reset := "", "", "", "", ""
	if color {
		green, red, dim, yellow, reset = "\x1b[32m", "\x1b[31m", "\x1b[2m", "\x1b[33m", "\x1b[0m"
	}
	name := e.Dataset
	if e.Flow != "" && e.Flow != e.Dataset {
		name += " (" + e.Flow + ")"
	}
	switch e.Phase {
	case engine.Completed:
		return fmt.Sprintf("%s✓%s %-32s %8s  %s%s%s", green, reset, name, rowCount(e.Rows), dim, ms(e.Elapsed), reset)
	case engine.Failed:
		// DuckDB often puts the reason on a later line (a CSV error's
		// cause, a binder error's candidates): keep every line, the
		// later ones indented under the first.
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(e.Message), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		return fmt.Sprintf("%s✗ %-32s failed:%s %s", red, name, reset, strings.Join(lines, "\n    "))
	case engine.Skipped:
		return fmt.Sprintf("%s- %-32s skipped: %s%s", dim, name, e.Message, reset)
	case engine.Planning:
		// A plan worth saying (a stream state discarded and replayed).
		if e.Message != "" {
			return fmt.Sprintf("%s! %-32s %s%s", yellow, name, e.Message, reset)
		}
	}
	return ""
}

// RunText writes expectation results and streaming increments for people.
func RunText(w io.Writer, res *engine.Result) {
	exps := res.SortedExpectations()
	if len(exps) > 0 {
		fmt.Fprintln(w, "\nexpectations:")
		for _, e := range exps {
			status := "passed"
			switch {
			case e.Failed:
				status = fmt.Sprintf("FAILED: %d violating rows", e.Violations)
			case e.Action == "drop" && e.Violations > 0:
				status = fmt.Sprintf("%d rows dropped", e.Dropped)
			case e.Violations > 0:
				status = fmt.Sprintf("%d rows violate (kept)", e.Violations)
			}
			fmt.Fprintf(w, "  %-40s %-5s %s\n", e.Dataset+"."+e.Name, e.Action, status)
			for _, row := range e.Samples {
				cells := make([]string, len(row))
				for i, v := range row {
					cells[i] = preview.Cell(preview.JSONRows([][]any{{v}})[0][0])
				}
				fmt.Fprintf(w, "      %s\n", strings.Join(cells, " | "))
			}
		}
	}
	if len(res.Increments) > 0 {
		fmt.Fprintln(w, "\nstreaming increments:")
		for _, inc := range res.Increments {
			late := ""
			if inc.Late > 0 {
				late = fmt.Sprintf(", %d late (dropped)", inc.Late)
			}
			fmt.Fprintf(w, "  %-32s trigger %d: %d arrived%s, %d emitted  %s\n", IncrementName(inc), inc.Trigger, inc.Arrived, late, inc.Emitted, strings.Join(inc.Files, ", "))
		}
	}
}

func rowCount(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

func ms(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

// IncrementName names an increment's dataset, and its flow when that is
// not the dataset's own (several flows into one table each have triggers).
func IncrementName(inc engine.Increment) string {
	if inc.Flow != "" && inc.Flow != inc.Dataset {
		return inc.Dataset + " (" + inc.Flow + ")"
	}
	return inc.Dataset
}

// CodeSampleShape is the code of a finding about a sample CSV file's
// rows (engine.SampleWarning): a row with more or fewer fields than the
// header, or a micro-batch whose header differs from the folder's first.
const CodeSampleShape = string(ir.CodeSampleShape)

// SampleWarningLines are a run's sample findings as diagnostic lines,
// path:line:1: warning: message [code], the code sample-shape unless the
// warning has its own (cdc-sequence-ties).
func SampleWarningLines(ws []engine.SampleWarning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = fmt.Sprintf("%s:%d:1: warning: %s [%s]", w.File, w.Line, w.Message, sampleCode(w))
	}
	return out
}

// sampleCode is a run warning's code.
func sampleCode(w engine.SampleWarning) string {
	if w.Code != "" {
		return w.Code
	}
	return CodeSampleShape
}

// SampleWarningJSON is a sample finding as a diagnostic object.
func SampleWarningJSON(w engine.SampleWarning) JSONDiagnostic {
	return JSONDiagnostic{Type: "diagnostic", File: w.File, Line: w.Line, Column: 1, EndLine: w.Line, EndColumn: 1,
		Severity: "warning", Code: sampleCode(w), Message: w.Message, Related: []JSONRelated{}}
}
