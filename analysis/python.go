package analysis

import (
	"fmt"
	"strings"

	"github.com/thund-dev/thund/analysis/pylib"
	"github.com/thund-dev/thund/ir"
)

// PythonNotRun is why the native engine skips a dataset a Python file
// defines: Thund reads such files but never executes them.
const PythonNotRun = "defined in Python: not run natively"

// DefinedInPython reports whether flow f comes from a Python file: it has
// no SQL, and the native engine skips it with PythonNotRun.
func DefinedInPython(f *ir.Flow) bool {
	return f.SQL == "" && isPython(f.QueryLoc.File)
}

// isPython reports whether a library is a Python file.
func isPython(file string) bool { return strings.HasSuffix(file, ".py") }

// analysePython reads one .py library with pylib: each dataset or flow it
// defines becomes an ir.Dataset / ir.Flow located in the file, with no SQL
// (so the native engine never runs it, see Broken), and each table its
// function reads becomes a Ref. A file the parser cannot read, and a read
// whose table is computed at run time, get an ir.Info diagnostic
// (ir.CodeLibraryPython): the graph may miss what they define or read.
func analysePython(file, text string) *fileResult {
	res := &fileResult{path: file, text: text, hash: hashText(text)}
	if !validUTF8(text) {
		res.diags = append(res.diags, encodingDiag(file, text))
		return res
	}
	parsed, err := pylib.Parse(file, text)
	if err != nil {
		loc := ir.Loc{File: file}
		msg := err.Error()
		if se, ok := err.(*pylib.SyntaxError); ok {
			loc.Start, loc.End = se.Offset, se.Offset
			msg = se.Message
		}
		res.diags = append(res.diags, ir.Diagnostic{Loc: loc, Severity: ir.Info, Code: ir.CodeLibraryPython,
			Message: fmt.Sprintf("Thund's Python parser (the Python 3.4 grammar) cannot read %s here (%s), so the datasets it defines are unknown to Thund; SDP still runs it", file, msg)})
		return res
	}
	for _, def := range parsed.Definitions {
		loc := ir.Loc{File: file, Start: def.Loc.Start, End: def.Loc.End}
		flow := &ir.Flow{Name: def.Name, Target: def.Name, QueryLoc: loc, Loc: loc}
		for _, rd := range def.Reads {
			start, end := innerLiteral(text, rd.Loc)
			flow.Reads = append(flow.Reads, ir.Ref{Name: rd.Name, Streaming: rd.Streaming, Loc: ir.Loc{File: file, Start: start, End: end}})
			if rd.Streaming {
				flow.Streaming = true
			}
		}
		for _, u := range def.Unknown {
			res.diags = append(res.diags, ir.Diagnostic{Loc: ir.Loc{File: file, Start: u.Loc.Start, End: u.Loc.End}, Severity: ir.Info, Code: ir.CodeLibraryPython,
				Message: fmt.Sprintf("the table %s reads here is computed at run time, so this edge of the graph cannot be known without running the file", u.Call)})
		}
		if flow.Streaming {
			flow.Trigger.Kind = ir.AvailableNow
			flow.OutputMode = ir.Append
		}
		if def.Kind == "" {
			flow.Target, flow.Append = def.Target, true
			flow.TargetLoc = ir.Loc{File: file, Start: def.TargetLoc.Start, End: def.TargetLoc.End}
			res.flows = append(res.flows, flow)
			continue
		}
		res.datasets = append(res.datasets, &ir.Dataset{Name: def.Name, Kind: def.Kind, Comment: def.Comment, Loc: loc,
			NameLoc: ir.Loc{File: file, Start: def.NameLoc.Start, End: def.NameLoc.End}})
		if def.Kind != ir.StreamingTable {
			res.flows = append(res.flows, flow)
		}
	}
	return res
}

// innerLiteral narrows a string literal's span to its contents when the
// literal is a single plain one ("x", 'x', r"x"), so a rename edits the
// name only; otherwise the whole span.
func innerLiteral(text string, s pylib.Span) (int, int) {
	lit := text[s.Start:s.End]
	i := strings.IndexAny(lit, `'"`)
	if i < 0 || i > 2 || len(lit) < i+2 || lit[len(lit)-1] != lit[i] {
		return s.Start, s.End
	}
	body := lit[i+1 : len(lit)-1]
	if strings.ContainsAny(body, `'"\`) {
		return s.Start, s.End
	}
	return s.Start + i + 1, s.End - 1
}
