// Package pylib reads a Python pipeline file without running it: it parses
// the file with a pure-Go Python parser (github.com/go-python/gpython's,
// the Python 3.4 grammar) and returns the datasets and flows the file
// defines through SDP's Python API (pyspark.pipelines, conventionally
// imported as dp) or Databricks' (dlt), and the tables each dataset
// function reads, each with its byte range in the file. The file is never
// executed; a table name computed at run time is reported as unknown.
package pylib

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-python/gpython/ast"
	"github.com/go-python/gpython/parser"
	"github.com/go-python/gpython/py"

	"github.com/thund-dev/thund/ir"
)

// Span is a byte range [Start, End) in the file.
type Span struct {
	Start, End int
}

// Read is one table a dataset function reads.
type Read struct {
	// Name is the table as written in the string literal.
	Name string
	// Streaming marks spark.readStream.table and dlt.read_stream /
	// dp.read_stream.
	Streaming bool
	// Loc is the string literal, quotes included.
	Loc Span
	// Call is the reading call's method, for messages (spark.read.table).
	Call string
}

// Unknown is a read whose table name is not a string literal, so the edge
// cannot be known without running the file.
type Unknown struct {
	// Call is the reading call's method (spark.table, dlt.read, ...).
	Call string
	// Loc is the argument that computes the name.
	Loc Span
}

// Definition is a dataset or a flow the file defines.
type Definition struct {
	// Name is the dataset's (or flow's) name: the name= keyword, or the
	// function's name.
	Name string
	// Kind is the dataset kind; empty for an append flow.
	Kind ir.Kind
	// Target is the dataset an append flow writes into (target=).
	Target string
	// TargetLoc is the target= literal.
	TargetLoc Span
	// Comment is the comment= keyword, when a string literal.
	Comment string
	// Loc spans the definition: the decorators and the function, or the
	// create_streaming_table call.
	Loc Span
	// NameLoc is the name= literal, or the function's name.
	NameLoc Span
	// API is the module alias the definition is written with (dp, dlt).
	API string
	// Reads are the tables the function body reads, in source order.
	Reads []Read
	// Unknown are the reads whose table name is computed at run time.
	Unknown []Unknown
}

// File is what Parse learns from one .py file.
type File struct {
	// Definitions are the datasets and flows in source order.
	Definitions []Definition
	// Aliases maps each local name bound to a pipelines module (dp, dlt)
	// to the module it imports.
	Aliases map[string]string
}

// SyntaxError is a Python syntax error at a byte offset of the file.
type SyntaxError struct {
	Offset  int
	Line    int // 1-based
	Column  int // 1-based, in bytes
	Message string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Message)
}

// Parse reads the Python file text (named filename in errors). A file
// that does not parse gives a *SyntaxError. Parse never panics.
func Parse(filename, text string) (f File, err error) {
	lines := lineStarts(text)
	defer func() {
		if r := recover(); r != nil {
			f, err = File{}, &SyntaxError{Line: 1, Column: 1, Message: fmt.Sprintf("the Python parser stopped: %v", r)}
		}
	}()
	mod, perr := parser.Parse(strings.NewReader(text), filename, py.ExecMode)
	if perr != nil {
		return File{}, syntaxError(perr, lines, text)
	}
	m, ok := mod.(*ast.Module)
	if !ok {
		return File{}, &SyntaxError{Line: 1, Column: 1, Message: "not a Python module"}
	}
	r := &reader{text: text, lines: lines, aliases: map[string]string{}}
	r.imports(m.Body)
	for i, st := range m.Body {
		next := len(text)
		if i+1 < len(m.Body) {
			next = r.stmtStart(m.Body[i+1])
		}
		r.statement(st, next)
	}
	return File{Definitions: r.defs, Aliases: r.aliases}, nil
}

// Modules a pipeline file imports its API from.
const (
	modPipelines = "pyspark.pipelines"
	modDLT       = "dlt"
)

type reader struct {
	text    string
	lines   []int
	aliases map[string]string
	defs    []Definition
}

// imports records the names bound to pyspark.pipelines or dlt by the
// module's top-level imports.
func (r *reader) imports(body []ast.Stmt) {
	for _, st := range body {
		switch s := st.(type) {
		case *ast.Import:
			for _, a := range s.Names {
				name := string(a.Name)
				if name != modPipelines && name != modDLT {
					continue
				}
				if a.AsName != "" {
					r.aliases[string(a.AsName)] = name
				} else if name == modDLT {
					r.aliases[modDLT] = modDLT
				}
				// A bare `import pyspark.pipelines` is used through the
				// full dotted path, handled in apiOf.
			}
		case *ast.ImportFrom:
			if string(s.Module) != "pyspark" || s.Level != 0 {
				continue
			}
			for _, a := range s.Names {
				if string(a.Name) != "pipelines" {
					continue
				}
				local := string(a.AsName)
				if local == "" {
					local = "pipelines"
				}
				r.aliases[local] = modPipelines
			}
		}
	}
}

// apiOf returns the alias and the attribute when e is ALIAS.attr for a
// pipelines module alias (or pyspark.pipelines.attr spelled out).
func (r *reader) apiOf(e ast.Expr) (alias, attr string, ok bool) {
	// The parser gives a decorator's dotted name as one ast.Name (dp.table).
	full := dotted(e)
	i := strings.LastIndexByte(full, '.')
	if i < 0 {
		return "", "", false
	}
	base, attr := full[:i], full[i+1:]
	if base == modPipelines {
		return modPipelines, attr, true
	}
	if _, known := r.aliases[base]; known {
		return base, attr, true
	}
	return "", "", false
}

// dotted returns a.b.c for a chain of names, or "".
func dotted(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Name:
		return string(x.Id)
	case *ast.Attribute:
		if v := dotted(x.Value); v != "" {
			return v + "." + string(x.Attr)
		}
	}
	return ""
}

// decoratorKinds maps a decorator to the kind it defines; "" marks a flow.
var decoratorKinds = map[string]ir.Kind{
	"materialized_view": ir.MaterializedView,
	"table":             ir.Table,
	"temporary_view":    ir.TemporaryView,
	"view":              ir.View,
	"append_flow":       "",
}

// statement reads one top-level statement; next is where the following
// one starts (the end of this one's span is found before it).
func (r *reader) statement(st ast.Stmt, next int) {
	switch s := st.(type) {
	case *ast.FunctionDef:
		r.function(s, next)
	case *ast.ExprStmt:
		call, ok := s.Value.(*ast.Call)
		if !ok {
			return
		}
		alias, attr, ok := r.apiOf(call.Func)
		if !ok || attr != "create_streaming_table" {
			return
		}
		d := Definition{Kind: ir.StreamingTable, API: alias, Loc: Span{r.lineStart(s), r.trimEnd(r.lineStart(s), next)}}
		var nameArg ast.Expr
		if len(call.Args) > 0 {
			nameArg = call.Args[0]
		}
		for _, k := range call.Keywords {
			switch string(k.Arg) {
			case "name":
				nameArg = k.Value
			case "comment":
				d.Comment, _ = r.literal(k.Value)
			}
		}
		if nameArg == nil {
			return
		}
		name, ok := r.literal(nameArg)
		if !ok {
			return // a computed name: nothing Thund can name
		}
		d.Name, d.NameLoc = name, r.stringSpan(nameArg)
		r.defs = append(r.defs, d)
	}
}

// function reads a decorated dataset or flow function.
func (r *reader) function(fn *ast.FunctionDef, next int) {
	for _, dec := range fn.DecoratorList {
		call, _ := dec.(*ast.Call)
		fexpr := dec
		if call != nil {
			fexpr = call.Func
		}
		alias, attr, ok := r.apiOf(fexpr)
		if !ok {
			continue
		}
		kind, known := decoratorKinds[attr]
		if !known {
			continue // @dp.expect... and the like: not a definition
		}
		if kind == ir.View && r.aliases[alias] != modDLT {
			continue // SDP has temporary_view, not view
		}
		start := r.lineStart(fn.DecoratorList[0])
		d := Definition{Name: string(fn.Name), Kind: kind, API: alias,
			Loc: Span{start, r.trimEnd(start, next)}, NameLoc: r.defName(fn)}
		if call != nil {
			for _, k := range call.Keywords {
				switch string(k.Arg) {
				case "name":
					if v, ok := r.literal(k.Value); ok {
						d.Name, d.NameLoc = v, r.stringSpan(k.Value)
					}
				case "comment":
					d.Comment, _ = r.literal(k.Value)
				case "target":
					if v, ok := r.literal(k.Value); ok {
						d.Target, d.TargetLoc = v, r.stringSpan(k.Value)
					}
				}
			}
		}
		if kind == "" && d.Target == "" {
			continue // an append flow without a literal target
		}
		r.body(&d, fn.Body)
		r.defs = append(r.defs, d)
		return
	}
}

// body collects the reads in a function body, in source order.
func (r *reader) body(d *Definition, body []ast.Stmt) {
	for _, st := range body {
		ast.Walk(st, func(n ast.Ast) bool {
			call, ok := n.(*ast.Call)
			if !ok {
				return true
			}
			method, streaming, ok := r.readCall(call.Func)
			if !ok {
				return true
			}
			var arg ast.Expr
			if len(call.Args) > 0 {
				arg = call.Args[0]
			}
			for _, k := range call.Keywords {
				if string(k.Arg) == "name" || string(k.Arg) == "tableName" {
					arg = k.Value
				}
			}
			if arg == nil {
				return true
			}
			if name, ok := r.literal(arg); ok {
				d.Reads = append(d.Reads, Read{Name: name, Streaming: streaming, Loc: r.stringSpan(arg), Call: method})
			} else {
				s := r.offset(arg)
				d.Unknown = append(d.Unknown, Unknown{Call: method, Loc: Span{s, s + 1}})
			}
			return true
		})
	}
	sort.SliceStable(d.Reads, func(i, j int) bool { return d.Reads[i].Loc.Start < d.Reads[j].Loc.Start })
}

// readCall recognises a table read: spark.read.table, spark.readStream.table,
// spark.table, and read / read_stream of a pipelines module alias.
func (r *reader) readCall(f ast.Expr) (method string, streaming, ok bool) {
	if alias, attr, isAPI := r.apiOf(f); isAPI && (attr == "read" || attr == "read_stream") {
		return alias + "." + attr, attr == "read_stream", true
	}
	switch dotted(f) {
	case "spark.read.table":
		return "spark.read.table", false, true
	case "spark.readStream.table":
		return "spark.readStream.table", true, true
	case "spark.table":
		return "spark.table", false, true
	}
	return "", false, false
}

// literal returns the value of a plain string literal (implicit
// concatenation included).
func (r *reader) literal(e ast.Expr) (string, bool) {
	s, ok := e.(*ast.Str)
	if !ok {
		return "", false
	}
	return string(s.S), true
}

// lineStarts returns the byte offset of each line's start.
func lineStarts(text string) []int {
	out := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

// offset turns a node's 1-based line and byte column into a file offset.
func (r *reader) offset(n ast.Ast) int {
	line, col := nodePos(n)
	return posOffset(r.lines, len(r.text), line, col)
}

// nodePos is n's 1-based line and byte column. The parser leaves a
// decorator call's own position unset: its callee's stands in.
func nodePos(n ast.Ast) (line, col int) {
	if c, ok := n.(*ast.Call); ok && c.GetLineno() == 0 && c.Func != nil {
		return nodePos(c.Func)
	}
	return n.GetLineno(), n.GetColOffset()
}

func posOffset(lines []int, size, line, col int) int {
	if line < 1 {
		return 0
	}
	if line > len(lines) {
		return size
	}
	o := lines[line-1] + col
	if o > size {
		o = size
	}
	return o
}

// lineStart is the first non-blank byte of n's line (a decorator's '@').
func (r *reader) lineStart(n ast.Ast) int {
	line, _ := nodePos(n)
	if line < 1 || line > len(r.lines) {
		return r.offset(n)
	}
	o := r.lines[line-1]
	for o < len(r.text) && (r.text[o] == ' ' || r.text[o] == '\t') {
		o++
	}
	return o
}

// stmtStart is where a top-level statement starts: its first decorator's
// line for a decorated function or class.
func (r *reader) stmtStart(st ast.Stmt) int {
	switch s := st.(type) {
	case *ast.FunctionDef:
		if len(s.DecoratorList) > 0 {
			return r.lineStart(s.DecoratorList[0])
		}
	case *ast.ClassDef:
		if len(s.DecoratorList) > 0 {
			return r.lineStart(s.DecoratorList[0])
		}
	}
	return r.lineStart(st)
}

// trimEnd backs off from next over blank space and comment-only lines
// that precede it, so a span ends at its last statement's text.
func (r *reader) trimEnd(start, next int) int {
	end := next
	for {
		for end > 0 && strings.ContainsRune(" \t\r\n", rune(r.text[end-1])) {
			end--
		}
		ls := strings.LastIndexByte(r.text[:end], '\n') + 1
		if strings.HasPrefix(strings.TrimLeft(r.text[ls:end], " \t"), "#") && ls > 0 {
			end = ls
			continue
		}
		if end < start {
			return start
		}
		return end
	}
}

// defName is the function's name after `def`.
func (r *reader) defName(fn *ast.FunctionDef) Span {
	o := r.offset(fn)
	if strings.HasPrefix(r.text[o:], "def") {
		o += 3
	}
	for o < len(r.text) && (r.text[o] == ' ' || r.text[o] == '\t') {
		o++
	}
	return Span{o, o + len(fn.Name)}
}

// stringSpan is the range of the string literal starting at e, quotes and
// prefix included; adjacent literals (implicit concatenation) all count.
func (r *reader) stringSpan(e ast.Expr) Span {
	start := r.offset(e)
	end := literalEnd(r.text, start)
	for {
		o := end
		for o < len(r.text) && strings.ContainsRune(" \t\\\r\n", rune(r.text[o])) {
			o++
		}
		if e2 := literalEnd(r.text, o); e2 > o && o < len(r.text) && isQuoteStart(r.text[o:]) {
			end = e2
			continue
		}
		return Span{start, end}
	}
}

// isQuoteStart reports whether s starts with an optional string prefix and
// a quote.
func isQuoteStart(s string) bool {
	i := 0
	for i < len(s) && i < 2 && strings.ContainsRune("rRbBuU", rune(s[i])) {
		i++
	}
	return i < len(s) && (s[i] == '\'' || s[i] == '"')
}

// literalEnd returns the offset just past the string literal at start (a
// prefix, then '...', "...", ”'...”' or """..."""), honouring
// backslash escapes; start itself when no literal starts there.
func literalEnd(text string, start int) int {
	if !isQuoteStart(text[start:]) {
		return start
	}
	i := start
	for text[i] != '\'' && text[i] != '"' {
		i++
	}
	q := text[i : i+1]
	if strings.HasPrefix(text[i:], q+q+q) {
		q = q + q + q
	}
	i += len(q)
	for i < len(text) {
		if text[i] == '\\' {
			i += 2
			continue
		}
		if strings.HasPrefix(text[i:], q) {
			return i + len(q)
		}
		if len(q) == 1 && text[i] == '\n' {
			return i
		}
		i++
	}
	return len(text)
}

// syntaxError turns the parser's exception into a *SyntaxError.
func syntaxError(err error, lines []int, text string) *SyntaxError {
	se := &SyntaxError{Line: 1, Column: 1, Message: err.Error()}
	if ex, ok := err.(*py.Exception); ok {
		if l, ok := ex.Dict["lineno"].(py.Int); ok {
			se.Line = int(l)
		}
		if c, ok := ex.Dict["offset"].(py.Int); ok {
			se.Column = int(c) + 1
		}
		if len(ex.Args.(py.Tuple)) > 0 {
			se.Message = fmt.Sprint(ex.Args.(py.Tuple)[0])
		}
	}
	if se.Line < 1 {
		se.Line = 1
	}
	se.Offset = posOffset(lines, len(text), se.Line, se.Column-1)
	return se
}
