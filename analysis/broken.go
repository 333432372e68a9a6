package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

// Broken returns, per dataset key, why the dataset must not run natively:
// a definition in a Python file Thund does not state in SQL and no
// sample stands in for (PythonNotRun, python.go), an error in its own definition (a pragma with a bad value, a query that
// does not parse, a second definition of its name...). Run anyway, such a
// dataset would run with default settings (a CDC flow with an unknown SCD
// type as a plain append) or append into the first definition of its
// name, and show as done. An error belongs to the dataset whose statement
// it lies in (see errorOwner). Errors for other backends, and cycles
// (which the run reports itself), do not count.
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
		owner := s.errorOwner(diag.Loc, byFile[diag.Loc.File])
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

// errorOwner is the dataset an error at loc belongs to, or nil: the
// dataset whose statement holds it; for an error in a flow statement
// (CREATE FLOW ... INSERT INTO t, APPLY CHANGES INTO t, AUTO CDC INTO t),
// the flow's target, also when the statement is too broken to have
// become a flow; for an error between statements (a pragma above its
// statement), the next dataset below. ds are the file's datasets in text
// order.
func (s *Snapshot) errorOwner(loc ir.Loc, ds []*ir.Dataset) *ir.Dataset {
	text, ok := s.Text(loc.File)
	var stmt *sqlfront.Span
	if ok && !strings.HasSuffix(loc.File, ".py") {
		for _, sp := range sqlfront.Split(text) {
			if sp.Start <= loc.Start && loc.Start <= sp.End {
				sp := sp
				stmt = &sp
				break
			}
		}
	}
	if stmt == nil {
		// Outside every statement (or a file Split does not read): the
		// next dataset below.
		for _, d := range ds {
			if loc.Start <= d.Loc.End {
				return d
			}
		}
		return s.flowTargetAt(loc)
	}
	for _, d := range ds {
		if d.Loc.Start < stmt.End && stmt.Start < d.Loc.End {
			return d
		}
	}
	if d := s.flowTargetAt(loc); d != nil {
		return d
	}
	// A flow statement that did not parse: the dataset it writes into, as
	// its INTO names it.
	if name := intoTarget(text[stmt.Start:stmt.End]); name != "" {
		return s.Pipeline.Dataset(name)
	}
	return nil
}

// flowTargetAt is the target of the flow whose query holds loc.
func (s *Snapshot) flowTargetAt(loc ir.Loc) *ir.Dataset {
	for _, f := range s.Pipeline.Flows {
		if q := f.QueryLoc; q.File == loc.File && q.Start <= loc.Start && loc.Start < q.End {
			return s.Pipeline.Dataset(f.Target)
		}
	}
	return nil
}

// intoTarget is the name after the first INTO of a flow statement's text
// (INSERT INTO t, APPLY CHANGES INTO t, AUTO CDC INTO t), unquoted, or
// "" when the statement is no flow statement or names none.
func intoTarget(stmt string) string {
	fields := strings.Fields(stmt)
	if len(fields) == 0 {
		return ""
	}
	switch strings.ToUpper(fields[0]) {
	case "APPLY", "AUTO", "CREATE", "INSERT":
	default:
		return ""
	}
	for i := 0; i+1 < len(fields); i++ {
		if !strings.EqualFold(fields[i], "INTO") {
			continue
		}
		name := fields[i+1]
		if strings.EqualFold(name, "ONCE") && i+2 < len(fields) {
			name = fields[i+2]
		}
		if j := strings.IndexAny(name, "(;"); j >= 0 {
			name = name[:j]
		}
		name = strings.ReplaceAll(name, "`", "")
		if k := strings.LastIndexByte(name, '.'); k >= 0 && strings.EqualFold(name[:k], "live") {
			name = name[k+1:]
		}
		return name
	}
	return ""
}
