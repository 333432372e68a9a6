// Package report renders analysis results for people and tools: diagnostics
// as `path:line:column: severity: message [code]` lines or as NDJSON
// objects, and the pipeline graph as text. Lines and columns are 1-based;
// columns count characters.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/ir"
)

// Position is a 1-based line and character column.
type Position struct {
	Line, Column, EndLine, EndColumn int
}

// Locate converts a location of the snapshot to 1-based line and columns.
func Locate(s *analysis.Snapshot, loc ir.Loc) Position {
	ix := s.Index(loc.File)
	a, b := ix.Rune(loc.Start), ix.Rune(loc.End)
	return Position{Line: a.Line + 1, Column: a.Column + 1, EndLine: b.Line + 1, EndColumn: b.Column + 1}
}

// Text writes one line per diagnostic: path:line:column: severity: message [code].
func Text(w io.Writer, s *analysis.Snapshot) error {
	return TextDiagnostics(w, s, s.Diagnostics)
}

// TextDiagnostics writes diagnostics about the snapshot's files (the
// snapshot's own, or others such as column checks) as Text does.
// A cycle is written once (see Collapse), and the findings about
// spark-pipeline.yml and thund.yaml come first (see ProjectFirst).
func TextDiagnostics(w io.Writer, s *analysis.Snapshot, diags []ir.Diagnostic) error {
	for _, d := range ProjectFirst(s, Collapse(diags)) {
		p := Locate(s, d.Loc)
		msg := strings.ReplaceAll(d.Message, "\n", " ")
		for _, r := range d.Related {
			rp := Locate(s, r.Loc)
			msg += fmt.Sprintf(" (%s: %s:%d:%d)", r.Message, r.Loc.File, rp.Line, rp.Column)
		}
		if _, err := fmt.Fprintf(w, "%s:%d:%d: %s: %s [%s]\n", d.Loc.File, p.Line, p.Column, d.Severity, msg, d.Code); err != nil {
			return err
		}
	}
	return nil
}

// JSONDiagnostic is the NDJSON form of a diagnostic.
type JSONDiagnostic struct {
	Type      string        `json:"type"`
	File      string        `json:"file"`
	Line      int           `json:"line"`
	Column    int           `json:"column"`
	EndLine   int           `json:"end_line"`
	EndColumn int           `json:"end_column"`
	Severity  string        `json:"severity"`
	Code      string        `json:"code"`
	Message   string        `json:"message"`
	Backend   string        `json:"backend"`
	Related   []JSONRelated `json:"related"`
}

// JSONRelated is a related location in NDJSON.
type JSONRelated struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// Summary counts what an analysis found.
type Summary struct {
	Type     string `json:"type"`
	Datasets int    `json:"datasets"`
	Flows    int    `json:"flows"`
	Errors   int    `json:"errors"`
	Warnings int    `json:"warnings"`
	// Hints are one-line fixes for the whole pipeline (see Hints).
	Hints []string `json:"hints,omitempty"`
}

// Summarize counts datasets, flows, errors and warnings (of the snapshot's
// diagnostics and any extra ones).
func Summarize(s *analysis.Snapshot, extra ...ir.Diagnostic) Summary {
	sum := Summary{Type: "summary", Datasets: len(s.Pipeline.Datasets), Flows: len(s.Pipeline.Flows)}
	all := Collapse(append(append([]ir.Diagnostic(nil), s.Diagnostics...), extra...))
	for _, d := range all {
		switch d.Severity {
		case ir.Error:
			sum.Errors++
		case ir.Warning:
			sum.Warnings++
		}
	}
	sum.Hints = Hints(s, all)
	return sum
}

// Hints returns a fix for the whole pipeline where the diagnostics
// repeat one: when two or more findings, in any datasets, say that one
// Spark backend cannot run something, the one-line fix is to leave that
// backend out of `backends:` in thund.yaml, rather than a
// `-- @backends: native` pragma in each dataset. It is offered when one of
// the findings is an error, or when nobody chose the Spark backends
// (analysis.Snapshot.SparkChosen), so that they are only warnings.
func Hints(s *analysis.Snapshot, diags []ir.Diagnostic) []string {
	count := map[ir.Backend]int{}
	datasets := map[ir.Backend]map[string]bool{}
	errors, pragmas := false, false
	for _, d := range diags {
		if d.Code != ir.CodeUnsupported || d.Backend == "" || d.Backend == ir.Native {
			continue
		}
		errors = errors || d.Severity == ir.Error
		// A .py file takes no `-- @backends` pragma.
		pragmas = pragmas || !strings.HasSuffix(d.Loc.File, ".py")
		count[d.Backend]++
		if datasets[d.Backend] == nil {
			datasets[d.Backend] = map[string]bool{}
		}
		datasets[d.Backend][d.Loc.File] = true
	}
	var drop []ir.Backend
	for _, b := range ir.AllBackends {
		if count[b] >= 2 {
			drop = append(drop, b)
		}
	}
	if len(drop) == 0 || !errors && s.SparkChosen() {
		// Warnings about a Spark backend someone chose are theirs to weigh.
		return nil
	}
	var keep, dropped []string
	for _, b := range s.Backends() {
		if count[b] >= 2 {
			dropped = append(dropped, string(b))
		} else {
			keep = append(keep, string(b))
		}
	}
	if len(keep) == 0 {
		keep = []string{string(ir.Native)}
	}
	n, files := 0, 0
	for _, b := range drop {
		n += count[b]
		files = max(files, len(datasets[b]))
	}
	where := "add `backends: [%s]` to thund.yaml"
	if len(s.Project.Config.Backends) > 0 {
		where = "set `backends: [%s]` in thund.yaml"
	}
	if s.Pipeline != nil && capab.WrittenForDatabricks(s.Pipeline) && len(s.Project.Config.Backends) == 0 {
		// Databricks SQL: the fix is to check it against databricks,
		// which `dialect: databricks` already does.
		if s.Project.Config.Dialect == "databricks" || slices.Contains(dropped, string(ir.Databricks)) {
			// Already checked against databricks: what it refuses is
			// the finding itself, not a setting to change.
			return nil
		}
		return []string{fmt.Sprintf("%d findings in %s say %s cannot run this pipeline, which is written for Databricks (Lakeflow Declarative Pipelines): add `dialect: databricks` to thund.yaml to check it against native and databricks",
			n, plural(files, "file"), strings.Join(dropped, " and "))}
	}
	instead := " (one line for the whole pipeline) rather than `-- @backends: native` in each dataset"
	if !pragmas {
		instead = " (one line for the whole pipeline: a Python file has no per-dataset `@backends` pragma)"
	}
	return []string{fmt.Sprintf("%d findings in %s say %s cannot run this pipeline: if it only runs natively, "+where+instead,
		n, plural(files, "file"), strings.Join(dropped, " and "), strings.Join(keep, ", "))}
}

// HintLines writes the summary's hints, one "hint: ..." line each.
func HintLines(w io.Writer, sum Summary) error {
	for _, h := range sum.Hints {
		if _, err := fmt.Fprintf(w, "hint: %s\n", h); err != nil {
			return err
		}
	}
	return nil
}

// JSON writes one NDJSON object per diagnostic, then the summary.
func JSON(w io.Writer, s *analysis.Snapshot) error {
	if err := JSONDiagnostics(w, s, s.Diagnostics); err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(Summarize(s))
}

// JSONDiagnostics writes one NDJSON object per diagnostic (no summary);
// a cycle is written once, its other edges as related locations (see
// Collapse).
func JSONDiagnostics(w io.Writer, s *analysis.Snapshot, diags []ir.Diagnostic) error {
	enc := json.NewEncoder(w)
	for _, d := range ProjectFirst(s, Collapse(diags)) {
		p := Locate(s, d.Loc)
		jd := JSONDiagnostic{
			Type: "diagnostic", File: d.Loc.File, Line: p.Line, Column: p.Column, EndLine: p.EndLine, EndColumn: p.EndColumn,
			Severity: d.Severity.String(), Code: string(d.Code), Message: d.Message, Backend: string(d.Backend),
			Related: []JSONRelated{},
		}
		for _, r := range d.Related {
			rp := Locate(s, r.Loc)
			jd.Related = append(jd.Related, JSONRelated{File: r.Loc.File, Line: rp.Line, Column: rp.Column, Message: r.Message})
		}
		if err := enc.Encode(jd); err != nil {
			return err
		}
	}
	return nil
}

// SummaryLine is the closing line of text output.
func SummaryLine(sum Summary) string {
	return fmt.Sprintf("%s, %s: %s, %s", plural(sum.Datasets, "dataset"), plural(sum.Flows, "flow"), plural(sum.Errors, "error"), plural(sum.Warnings, "warning"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Collapse drops the repeats of a cycle: the analysis reports a cycle at
// each of its edges (so an editor marks every one), each naming the
// others as related locations; printed, one line with every edge is
// enough. Other diagnostics, and their order, are kept.
func Collapse(diags []ir.Diagnostic) []ir.Diagnostic {
	seen := map[string]bool{}
	out := make([]ir.Diagnostic, 0, len(diags))
	for _, d := range diags {
		if d.Code != ir.CodeCycle || len(d.Related) == 0 {
			out = append(out, d)
			continue
		}
		locs := []string{locKey(d.Loc)}
		for _, r := range d.Related {
			locs = append(locs, locKey(r.Loc))
		}
		sort.Strings(locs)
		k := strings.Join(locs, "|")
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	return out
}

func locKey(l ir.Loc) string { return fmt.Sprintf("%s:%d:%d", l.File, l.Start, l.End) }

// ProjectFirst moves the diagnostics about the project files (the spec
// and thund.yaml) before the others, keeping each group's order: a
// mistake there (a sample path, a backend) causes findings in the SQL
// files, and is the one to read first.
func ProjectFirst(s *analysis.Snapshot, diags []ir.Diagnostic) []ir.Diagnostic {
	project := func(f string) bool {
		return f != "" && (f == s.Project.SpecFile || f == s.Project.ConfigFile)
	}
	out := make([]ir.Diagnostic, 0, len(diags))
	for _, d := range diags {
		if project(d.Loc.File) {
			out = append(out, d)
		}
	}
	for _, d := range diags {
		if !project(d.Loc.File) {
			out = append(out, d)
		}
	}
	return out
}
