package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/thund-dev/thund/ir"
)

// Broken returns, per dataset key, why the dataset must not run natively:
// a definition in a Python file Thund does not state in SQL and no
// sample stands in for (PythonNotRun, python.go), an error in its own definition (a pragma with a bad value, a query that
// does not parse, a second definition of its name...). Run anyway, such a
// dataset would run with default settings (a CDC flow with an unknown SCD
// type as a plain append) or append into the first definition of its
// name, and show as done. An error belongs to the dataset whose statement
// it lies in, or to the next one below it (pragmas sit above their
// statement). Errors for other backends, and cycles (which the run
// reports itself), do not count.
func (s *Snapshot) Broken() map[string]string {
	byFile := map[string][]*ir.Dataset{}
	for _, d := range s.Pipeline.Datasets {
		byFile[d.Loc.File] = append(byFile[d.Loc.File], d)
	}
	for _, ds := range byFile {
		sort.SliceStable(ds, func(i, j int) bool { return ds[i].Loc.Start < ds[j].Loc.Start })
	}
	out := map[string]string{}
	for _, d := range s.Pipeline.Datasets {
		if why, ok := s.pythonBlocked(d); ok {
			out[ir.NameKey(d.Name)] = why
		}
	}
	for _, diag := range s.Diagnostics {
		if diag.Severity != ir.Error || (diag.Backend != "" && diag.Backend != ir.Native) || diag.Code == ir.CodeCycle {
			continue
		}
		var owner *ir.Dataset
		for _, d := range byFile[diag.Loc.File] {
			if diag.Loc.Start <= d.Loc.End {
				owner = d
				break
			}
		}
		if owner == nil {
			// A flow statement after every dataset of its file (APPLY
			// CHANGES INTO t ..., CREATE FLOW f AS ...): its target.
			for _, f := range s.Pipeline.Flows {
				if q := f.QueryLoc; q.File == diag.Loc.File && q.Start <= diag.Loc.Start && diag.Loc.Start < q.End {
					owner = s.Pipeline.Dataset(f.Target)
					break
				}
			}
		}
		if owner == nil {
			continue
		}
		key := ir.NameKey(owner.Name)
		if _, seen := out[key]; seen {
			continue
		}
		where := diag.Loc.File
		if ix := s.Index(diag.Loc.File); ix != nil {
			p := ix.Rune(diag.Loc.Start)
			where = fmt.Sprintf("%s:%d:%d", diag.Loc.File, p.Line+1, p.Column+1)
		}
		msg := headline(diag.Message)
		// Keep a suggestion: the skip line is often the one read.
		if i := strings.Index(diag.Message, "did you mean "); i >= 0 && !strings.Contains(msg, "did you mean ") {
			if j := strings.IndexByte(diag.Message[i:], '?'); j >= 0 {
				msg += "; " + diag.Message[i:i+j+1]
			}
		}
		out[key] = fmt.Sprintf("not run: its definition has an error (%s: %s); fix it first", where, msg)
	}
	return out
}

// headline is a diagnostic's message up to its advice (the first ": " or
// "; "), which the full diagnostic gives where it is printed.
func headline(msg string) string {
	depth, quoted := 0, false
	for i := 0; i+1 < len(msg); i++ {
		switch c := msg[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0 && (c == ':' || c == ';') && msg[i+1] == ' ':
			return msg[:i]
		}
	}
	return msg
}
