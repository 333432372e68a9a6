package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/pragma"
	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/textpos"
)

// DiagnosticsDocs is where the diagnostic codes are documented; a
// diagnostic's codeDescription links to its code's section.
const DiagnosticsDocs = "https://github.com/thund-dev/thund/blob/main/docs/diagnostics.md"

// FixData is the data field of a published diagnostic: what its quick
// fixes need, so that textDocument/codeAction builds them from the
// diagnostic the client sends back without reading its message.
type FixData struct {
	// Replace are replacements of the diagnostic's range (did-you-mean
	// names, backquoted names), nearest first.
	Replace []string `json:"replace,omitempty"`
	// At, when set, is the range Replace replaces, when it is not the
	// diagnostic's own (a misspelt keyword before the token the parser
	// stopped at).
	At *protocol.Range `json:"at,omitempty"`
	// Table is a table read without sample data: a fix creates
	// samples/Table.csv.
	Table string `json:"table,omitempty"`
	// SamplePath is a sample file that does not exist: a fix creates it.
	SamplePath string `json:"samplePath,omitempty"`
	// Dataset is the dataset a capability or streaming finding is about.
	Dataset string `json:"dataset,omitempty"`
	// Backend is the backend a capability finding holds for; Keep are the
	// backends the dataset would keep without it.
	Backend string   `json:"backend,omitempty"`
	Keep    []string `json:"keep,omitempty"`
	// Watermark is the column a fix adding `-- @watermark:` names.
	Watermark string `json:"watermark,omitempty"`
	// OutputModes are the output modes a fix can switch to.
	OutputModes []string `json:"outputModes,omitempty"`
}

// codeDescription links a code to its documentation.
func codeDescription(code ir.Code) *protocol.CodeDescription {
	if code == "" {
		return nil
	}
	return &protocol.CodeDescription{Href: protocol.URI(DiagnosticsDocs + "#" + string(code))}
}

// textAt is the text of a diagnostic's range.
func textAt(snap *analysis.Snapshot, loc ir.Loc) string {
	text, ok := snap.Text(loc.File)
	if !ok || loc.Start < 0 || loc.End > len(text) || loc.Start > loc.End {
		return ""
	}
	return text[loc.Start:loc.End]
}

var (
	// keywordHint is the Spark SQL parser's hint for a misspelt keyword.
	// The parser (analysis/sparksql/parser) gives it in its message only;
	// this is the one fix read from a message.
	keywordHint = regexp.MustCompile(`did you mean ([A-Z][A-Z_ ]*[A-Z])\?`)
	// createAt is a CREATE statement's start.
	createAt = regexp.MustCompile(`(?i)^\s*CREATE\b`)
	// misspeltHint is the parser's hint for a keyword misspelt before the
	// token it stopped at ("is FORM a misspelt FROM?").
	misspeltHint = regexp.MustCompile(`\bis ([A-Za-z_][A-Za-z0-9_]*) a misspelt ([A-Z][A-Z_]*)\?`)
	// sampleKey is a `-- @sample.NAME:` pragma.
	sampleKey = regexp.MustCompile(`@sample\.([^:\s]+)\s*:`)
	// windowCall is the first argument of a window() or session_window()
	// call, the event time of a streaming aggregation.
	windowCall = regexp.MustCompile("(?i)\\b(?:session_)?window\\s*\\(\\s*([A-Za-z_`][A-Za-z0-9_.`]*)")
)

// fixData computes what a diagnostic's quick fixes need, or nil when it
// has none.
func fixData(snap *analysis.Snapshot, d ir.Diagnostic) *FixData {
	fd := &FixData{}
	switch d.Code {
	case ir.CodeUnknownColumn, ir.CodeAmbiguousColumn, ir.CodeMissingAggregation:
		fd.Replace = d.Suggestions
	case ir.CodeUnknownRef:
		name := textAt(snap, d.Loc)
		if name == "" {
			return nil
		}
		fd.Replace = d.Suggestions
		if len(fd.Replace) == 0 {
			names := make([]string, 0, len(snap.Pipeline.Datasets))
			for _, ds := range snap.Pipeline.Datasets {
				names = append(names, ds.Name)
			}
			if best := analysis.Nearest(name, names); best != "" && !strings.EqualFold(best, name) {
				fd.Replace = []string{best}
			}
		}
		table := strings.NewReplacer("`", "", `"`, "").Replace(name)
		if !hasSampleFor(snap, table) {
			fd.Table = table
		}
	case ir.CodeMissingSample:
		p := strings.Trim(textAt(snap, d.Loc), `"' `)
		if strings.EqualFold(path.Ext(p), ".csv") && !strings.ContainsAny(p, "*?[") {
			fd.SamplePath = path.Clean(strings.TrimPrefix(p, "./"))
		}
	case ir.CodePragmaUnknown:
		key := strings.TrimPrefix(textAt(snap, d.Loc), "@")
		names := make([]string, 0, len(pragma.Keys))
		for _, k := range pragma.Keys {
			names = append(names, k.Key)
		}
		if best := analysis.Nearest(key, names); best != "" {
			fd.Replace = []string{"@" + best}
		}
	case ir.CodePragmaValue:
		fd.Replace = pragmaValueFix(snap, d.Loc)
	case ir.CodeSQLSyntax:
		if m := keywordHint.FindStringSubmatch(d.Message); m != nil && isWordText(textAt(snap, d.Loc)) {
			fd.Replace = []string{m[1]}
		} else if m := misspeltHint.FindStringSubmatch(d.Message); m != nil {
			// the misspelt word is before the error's token, in its
			// statement
			text, _ := snap.Text(d.Loc.File)
			lo, _ := statementAround(text, d.Loc.Start)
			if i := lastWord(text[lo:min(d.Loc.Start, len(text))], m[1]); i >= 0 {
				r := rangeIn(snap.Index(d.Loc.File), lo+i, lo+i+len(m[1]))
				fd.Replace, fd.At = []string{m[2]}, &r
			}
		}
	case ir.CodeNotPortable:
		if t := textAt(snap, d.Loc); len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' {
			inner := strings.ReplaceAll(t[1:len(t)-1], `""`, `"`)
			fd.Replace = []string{"`" + strings.ReplaceAll(inner, "`", "``") + "`"}
		}
	case ir.CodeUnsupported:
		ds := datasetAt(snap, d.Loc)
		if ds == nil || d.Backend == "" {
			return nil
		}
		fd.Dataset, fd.Backend = ds.Name, string(d.Backend)
		for _, b := range capab.Backends(snap.Backends(), ds) {
			if b != d.Backend {
				fd.Keep = append(fd.Keep, string(b))
			}
		}
		if len(fd.Keep) == 0 {
			return nil
		}
	case ir.CodeStreamAggNoWatermark, ir.CodeStreamJoinWatermark:
		ds := datasetAt(snap, d.Loc)
		if ds == nil {
			return nil
		}
		fd.Dataset = ds.Name
		fd.Watermark = "event_time"
		if f := flowAt(snap, d.Loc.File, d.Loc.Start); f != nil {
			text, _ := snap.Text(f.QueryLoc.File)
			if m := windowCall.FindStringSubmatch(text[f.QueryLoc.Start:min(len(text), f.QueryLoc.End)]); m != nil {
				fd.Watermark = strings.Trim(m[1], "`")
				if i := strings.LastIndexByte(fd.Watermark, '.'); i >= 0 {
					fd.Watermark = fd.Watermark[i+1:]
				}
			}
		}
	case ir.CodeStreamCompleteNoAgg:
		if strings.Contains(strings.ToLower(textAt(snap, d.Loc)), "complete") {
			fd.OutputModes = []string{"append", "update"}
		}
	default:
		return nil
	}
	if len(fd.Replace) == 0 && fd.Table == "" && fd.SamplePath == "" && fd.Dataset == "" && len(fd.OutputModes) == 0 {
		return nil
	}
	return fd
}

// lastWord returns the offset of the last whole-word occurrence of word
// in s, or -1.
func lastWord(s, word string) int {
	for end := len(s); end > 0; {
		i := strings.LastIndex(s[:end], word)
		if i < 0 {
			return -1
		}
		j := i + len(word)
		if (i == 0 || !isWordByte(s[i-1])) && (j == len(s) || !isWordByte(s[j])) {
			return i
		}
		end = i
	}
	return -1
}

func isWordText(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return true
}

// hasSampleFor reports whether the pipeline holds samples/TABLE.* or a
// samples/TABLE/ folder.
func hasSampleFor(snap *analysis.Snapshot, table string) bool {
	want := "samples/" + strings.ToLower(table)
	for _, f := range snap.Files {
		l := strings.ToLower(f)
		if strings.HasPrefix(l, want+".") || strings.HasPrefix(l, want+"/") {
			return true
		}
	}
	return false
}

// pragmaValueFix suggests the nearest allowed word for a bad pragma value
// of a key whose values are words (kind, output_mode, format, backends).
func pragmaValueFix(snap *analysis.Snapshot, loc ir.Loc) []string {
	bad := strings.TrimSpace(textAt(snap, loc))
	if !isWordText(strings.ReplaceAll(strings.ReplaceAll(bad, "-", "_"), ".", "_")) {
		return nil
	}
	for _, p := range snap.Pragmas(loc.File) {
		if p.ValueLoc.Start > loc.Start || loc.End > p.ValueLoc.End {
			continue
		}
		doc, ok := pragma.LookupKey(p.Key)
		if !ok {
			return nil
		}
		var words []string
		for _, v := range doc.Values {
			if isWordText(strings.ReplaceAll(strings.ReplaceAll(v, "-", "_"), ".", "_")) && strings.ToLower(v) == v {
				words = append(words, v)
			}
		}
		if best := analysis.Nearest(bad, words); best != "" && best != bad {
			return []string{best}
		}
		return nil
	}
	return nil
}

// datasetAt returns the dataset whose definition or flow holds loc.
func datasetAt(snap *analysis.Snapshot, loc ir.Loc) *ir.Dataset {
	if f := flowAt(snap, loc.File, loc.Start); f != nil {
		if ds := snap.Pipeline.Resolve(f.Target); ds != nil {
			return ds
		}
	}
	for _, ds := range snap.DatasetsIn(loc.File) {
		if ds.Loc.Start <= loc.Start && loc.End <= ds.Loc.End {
			return ds
		}
	}
	return nil
}

// workspaceEdit is LSP's WorkspaceEdit with documentChanges that may
// create files (go.lsp.dev/protocol's holds text edits only).
type workspaceEdit struct {
	Changes         map[protocol.DocumentURI][]protocol.TextEdit `json:"changes,omitempty"`
	DocumentChanges []any                                        `json:"documentChanges,omitempty"`
}

// codeAction is LSP's CodeAction with that edit.
type codeAction struct {
	Title       string                  `json:"title"`
	Kind        protocol.CodeActionKind `json:"kind"`
	Diagnostics []protocol.Diagnostic   `json:"diagnostics"`
	IsPreferred bool                    `json:"isPreferred,omitempty"`
	Edit        *workspaceEdit          `json:"edit"`
}

// codeActionParams are the parts of textDocument/codeAction's params the
// server reads (the diagnostics with their raw data).
type codeActionParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Range        protocol.Range                  `json:"range"`
	Context      struct {
		Diagnostics []struct {
			Range   protocol.Range  `json:"range"`
			Code    json.RawMessage `json:"code"`
			Source  string          `json:"source"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"diagnostics"`
		Only []string `json:"only"`
	} `json:"context"`
}

// codeAction answers textDocument/codeAction with the quick fixes of the
// diagnostics the client sends (their data field); a diagnostic sent
// without data (a client that drops it) is matched by range and code to
// the server's current findings.
func (s *Server) codeAction(_ context.Context, params json.RawMessage) (any, error) {
	var p codeActionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	out := []codeAction{}
	if len(p.Context.Only) > 0 {
		ok := false
		for _, k := range p.Context.Only {
			if k == "quickfix" || strings.HasPrefix("quickfix", k+".") || k == "" {
				ok = true
			}
		}
		if !ok {
			return out, nil
		}
	}
	dp, err := s.resolve(p.TextDocument.URI, nil)
	if err != nil {
		return out, nil
	}
	var current []ir.Diagnostic
	loaded := false
	for _, cd := range p.Context.Diagnostics {
		if cd.Source != "" && cd.Source != "thund" {
			continue
		}
		var code string
		_ = json.Unmarshal(cd.Code, &code)
		var fd *FixData
		if len(cd.Data) > 0 && string(cd.Data) != "null" {
			fd = &FixData{}
			if json.Unmarshal(cd.Data, fd) != nil {
				fd = nil
			}
		}
		if fd == nil {
			if !loaded {
				current, loaded = s.currentDiagnostics(dp), true
			}
			for _, d := range current {
				if string(d.Code) == code && rangeOf(dp.snap, d.Loc) == cd.Range {
					fd = fixData(dp.snap, d)
					break
				}
			}
		}
		if fd == nil {
			continue
		}
		pd := protocol.Diagnostic{Range: cd.Range, Code: code, Source: "thund", Message: cd.Message}
		out = append(out, s.fixes(dp, pd, ir.Code(code), fd)...)
	}
	return out, nil
}

// currentDiagnostics are the findings of the document's pipeline now:
// the analysis's and the column findings of the last description.
func (s *Server) currentDiagnostics(dp docPos) []ir.Diagnostic {
	out := append([]ir.Diagnostic(nil), dp.snap.Diagnostics...)
	out = append(out, s.columnDiagnostics(dp.root, dp.snap)...)
	var mine []ir.Diagnostic
	for _, d := range out {
		if d.Loc.File == dp.rel {
			mine = append(mine, d)
		}
	}
	return mine
}

// fixes builds the code actions of one diagnostic.
func (s *Server) fixes(dp docPos, d protocol.Diagnostic, code ir.Code, fd *FixData) []codeAction {
	docURI := uri.File(dp.snap.Abs(dp.rel))
	var out []codeAction
	action := func(title string, preferred bool, edit *workspaceEdit) {
		out = append(out, codeAction{Title: title, Kind: protocol.QuickFix, Diagnostics: []protocol.Diagnostic{d}, IsPreferred: preferred, Edit: edit})
	}
	replace := func(r protocol.Range, text string) *workspaceEdit {
		return &workspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{docURI: {{Range: r, NewText: text}}}}
	}
	for _, r := range fd.Replace {
		title := "Change to " + r
		if code == ir.CodeNotPortable {
			title = "Quote the name with backticks: " + r
		}
		// One suggestion is the obvious fix; of several, none is.
		at := d.Range
		if fd.At != nil {
			at = *fd.At
		}
		action(title, len(fd.Replace) == 1 && code != ir.CodeMissingAggregation, replace(at, r))
	}
	if fd.Table != "" {
		rel := "samples/" + fd.Table + ".csv"
		if e := s.createFile(dp, rel, sampleHeader(dp.snap, fd.Table)); e != nil {
			action("Create sample "+rel, len(fd.Replace) == 0, e)
		}
	}
	if fd.SamplePath != "" {
		table := ""
		if m := sampleKey.FindStringSubmatch(lineAt(dp, d.Range.Start.Line)); m != nil {
			table = m[1]
		}
		if e := s.createFile(dp, fd.SamplePath, sampleHeader(dp.snap, table)); e != nil {
			action("Create sample "+fd.SamplePath, true, e)
		}
	}
	if fd.Dataset != "" && fd.Backend != "" {
		if ds := dp.snap.Pipeline.Dataset(fd.Dataset); ds != nil {
			value := strings.Join(fd.Keep, ", ")
			if e := s.setPragma(dp, ds, "backends", value); e != nil {
				action(fmt.Sprintf("Restrict %s to %s (-- @backends: %s)", ds.Name, value, value), false, e)
			}
		}
		if e := s.configBackends(dp, fd.Backend); e != nil {
			action(fmt.Sprintf("Stop checking %s for the whole pipeline (backends: in thund.yaml)", fd.Backend), false, e)
		}
	}
	if fd.Watermark != "" && fd.Dataset != "" {
		if ds := dp.snap.Pipeline.Dataset(fd.Dataset); ds != nil {
			value := fd.Watermark + ", 10 minutes"
			if e := s.setPragma(dp, ds, "watermark", value); e != nil {
				action("Add -- @watermark: "+value, true, e)
			}
		}
	}
	for i, m := range fd.OutputModes {
		if e := s.replaceWord(dp, d.Range, "complete", m); e != nil {
			action("Switch the output mode to "+m, i == 0, e)
		}
	}
	return out
}

// lineAt is the text of a line of the document.
func lineAt(dp docPos, line uint32) string {
	text, _ := dp.snap.Text(dp.rel)
	lines := strings.SplitN(text, "\n", int(line)+2)
	if int(line) < len(lines) {
		return lines[line]
	}
	return ""
}

// replaceWord replaces the first occurrence of a word in a range.
func (s *Server) replaceWord(dp docPos, r protocol.Range, word, with string) *workspaceEdit {
	text, _ := dp.snap.Text(dp.rel)
	ix := dp.snap.Index(dp.rel)
	lo := ix.OffsetUTF16(lspPos(r.Start))
	hi := ix.OffsetUTF16(lspPos(r.End))
	if lo < 0 || hi > len(text) || lo > hi {
		return nil
	}
	i := strings.Index(strings.ToLower(text[lo:hi]), word)
	if i < 0 {
		return nil
	}
	at := rangeIn(ix, lo+i, lo+i+len(word))
	return &workspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{uri.File(dp.snap.Abs(dp.rel)): {{Range: at, NewText: with}}}}
}

// createFile is a WorkspaceEdit creating a file of the pipeline with a
// text, or nil when the file exists.
func (s *Server) createFile(dp docPos, rel, text string) *workspaceEdit {
	if _, ok := dp.snap.Text(rel); ok {
		return nil
	}
	for _, f := range dp.snap.Files {
		if f == rel {
			return nil
		}
	}
	u := uri.File(dp.snap.Abs(rel))
	return &workspaceEdit{DocumentChanges: []any{
		protocol.CreateFile{Kind: "create", URI: u, Options: &protocol.CreateFileOptions{IgnoreIfExists: true}},
		protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}},
			Edits: []protocol.TextEdit{{Range: protocol.Range{}, NewText: text}}},
	}}
}

// setPragma sets a pragma of a dataset: it replaces the value of the
// dataset's `-- @key:` line, or adds the line at the end of its pragma
// header (above its CREATE statement, or above the query of a pragma-form
// file).
func (s *Server) setPragma(dp docPos, ds *ir.Dataset, key, value string) *workspaceEdit {
	file := ds.Loc.File
	text, ok := dp.snap.Text(file)
	if !ok {
		return nil
	}
	var own *ir.Flow
	for _, f := range dp.snap.FlowsIn(file) {
		if ir.NameKey(f.Target) == ir.NameKey(ds.Name) {
			own = f
			break
		}
	}
	// A CREATE statement has its pragma header above it; a pragma-form
	// file (its query alone, named after the file or by @name) has it
	// inside, above the query.
	pragmaForm := own != nil && !createAt.MatchString(text[min(ds.Loc.Start, len(text)):])
	upper := ds.Loc.Start
	if pragmaForm {
		upper = own.QueryLoc.Start
	}
	lower := 0
	for _, other := range dp.snap.DatasetsIn(file) {
		if other != ds && other.Loc.End <= ds.Loc.Start {
			lower = max(lower, other.Loc.End)
		}
	}
	ix := dp.snap.Index(file)
	u := uri.File(dp.snap.Abs(file))
	for _, p := range dp.snap.Pragmas(file) {
		if p.Key == key && p.Line.Start >= lower && p.Line.End <= upper {
			return &workspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{u: {{Range: rangeIn(ix, p.ValueLoc.Start, p.ValueLoc.End), NewText: value}}}}
		}
	}
	at := strings.LastIndexByte(text[:min(upper, len(text))], '\n') + 1
	r := rangeIn(ix, at, at)
	return &workspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{u: {{Range: r, NewText: "-- @" + key + ": " + value + "\n"}}}}
}

// configBackends sets thund.yaml's backends: to the pipeline's backends
// without one (creating thund.yaml when there is none).
func (s *Server) configBackends(dp docPos, drop string) *workspaceEdit {
	var keep []string
	for _, b := range dp.snap.Backends() {
		if string(b) != drop {
			keep = append(keep, string(b))
		}
	}
	if len(keep) == 0 {
		return nil
	}
	value := "[" + strings.Join(keep, ", ") + "]"
	cfg := dp.snap.Project.ConfigFile
	if cfg == "" {
		return s.createFile(dp, "thund.yaml", "backends: "+value+"\n")
	}
	text, ok := dp.snap.Text(cfg)
	if !ok {
		return nil
	}
	ix := dp.snap.Index(cfg)
	u := uri.File(dp.snap.Abs(cfg))
	if loc, ok := dp.snap.Project.Config.Loc["backends"]; ok && loc.End > loc.Start {
		return &workspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{u: {{Range: rangeIn(ix, loc.Start, loc.End), NewText: value}}}}
	}
	add := "backends: " + value + "\n"
	if text != "" && !strings.HasSuffix(text, "\n") {
		add = "\n" + add
	}
	end := rangeIn(ix, len(text), len(text))
	return &workspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{u: {{Range: end, NewText: add}}}}
}

// sampleHeader is the header line of a new sample for a table: the
// columns the pipeline's queries read from it (qualified by its name or
// alias, or unqualified in a query reading only it), in order of first
// use.
func sampleHeader(snap *analysis.Snapshot, table string) string {
	var cols []string
	seen := map[string]bool{}
	add := func(c string) {
		if k := strings.ToLower(c); c != "" && !seen[k] {
			seen[k] = true
			cols = append(cols, c)
		}
	}
	key := ir.NameKey(table)
	for _, f := range snap.Pipeline.Flows {
		reads := false
		for _, r := range f.Reads {
			if ir.NameKey(r.Name) == key {
				reads = true
			}
		}
		if !reads {
			continue
		}
		for _, c := range columnsReadFrom(snap, f, table) {
			add(c)
		}
	}
	if len(cols) == 0 {
		return ""
	}
	return csvLine(cols) + "\n"
}

// columnsReadFrom lists the columns a flow's query reads from a table.
func columnsReadFrom(snap *analysis.Snapshot, f *ir.Flow, table string) []string {
	q := snap.SparkTree(f)
	if q == nil {
		return nil
	}
	m := sema.Analyze(q, unknownCatalog{}, sema.Options{})
	last := table
	if i := strings.LastIndexByte(last, '.'); i >= 0 {
		last = last[i+1:]
	}
	names := map[string]bool{strings.ToLower(last): true, strings.ToLower(table): true}
	tables := 0
	for _, rel := range m.Relations {
		if rel.Table == nil {
			continue
		}
		tables++
		if rel.Table.Name != nil && strings.EqualFold(nameText(rel.Table.Name), table) && rel.Name != "" {
			names[strings.ToLower(rel.Name)] = true
		}
	}
	var refs []*sema.ColumnRef
	for _, ref := range m.Columns {
		if ref.Node != nil {
			refs = append(refs, ref)
		}
	}
	sort.SliceStable(refs, func(i, j int) bool { return refs[i].Node.Start < refs[j].Node.Start })
	var out []string
	for _, ref := range refs {
		if ref.Kind != sema.RefUnknown || ref.Node == nil || len(ref.Node.Parts) == 0 {
			continue
		}
		parts := ref.Node.Parts
		switch {
		case len(parts) >= 2 && names[strings.ToLower(parts[len(parts)-2].Name)]:
			out = append(out, parts[len(parts)-1].Name)
		case len(parts) == 1 && tables == 1:
			out = append(out, parts[0].Name)
		}
	}
	return out
}

// nameText writes a table name's parts with dots.
func nameText(n *ast.Name) string {
	parts := make([]string, len(n.Parts))
	for i, p := range n.Parts {
		parts[i] = p.Name
	}
	return strings.Join(parts, ".")
}

// unknownCatalog knows no table's columns, so every column reference is
// kept as read (RefUnknown).
type unknownCatalog struct{}

func (unknownCatalog) Table([]string) ([]sema.Column, bool) { return nil, false }

// csvLine writes one CSV record.
func csvLine(fields []string) string {
	out := make([]string, len(fields))
	for i, f := range fields {
		if strings.ContainsAny(f, ",\"\n\r") {
			f = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
		}
		out[i] = f
	}
	return strings.Join(out, ",")
}

func lspPos(p protocol.Position) textpos.Position {
	return textpos.Position{Line: int(p.Line), Column: int(p.Character)}
}
