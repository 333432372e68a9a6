package sqlfront

import (
	"strings"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
	"github.com/thund-dev/thund/ir"
)

// Databricks' Lakeflow Declarative Pipelines SQL (formerly Delta Live
// Tables) and Spark 4.3's AUTO CDC. The front end reads these forms
// whatever the backends, so a pipeline written for Databricks opens with
// its datasets, flows, expectations and CDC flows; each construct only
// some backends read is recorded (SyntaxUse) and the capability matrix
// (package capab) says, per backend, who refuses it and what to write
// instead.

// SyntaxUse is one use of a construct only some backends read, at its
// range; Feature is the capability matrix's name for it.
type SyntaxUse struct {
	Feature capab.Feature
	Span
}

// Expect is one CONSTRAINT name EXPECT (cond) [ON VIOLATION DROP ROW |
// FAIL UPDATE] of a CREATE statement.
type Expect struct {
	Name    string
	NameLoc Span
	// Cond is the condition as written; DuckCond the same condition with
	// Spark's "double-quoted" strings and `backquoted` names written as
	// DuckDB reads them, which the native engine runs.
	Cond, DuckCond string
	CondLoc        Span
	Action         ir.Action
	// Span is the whole constraint.
	Span
}

// CDCSpec is the change-data-capture flow of APPLY CHANGES INTO, CREATE
// FLOW ... AS AUTO CDC INTO or CREATE STREAMING TABLE ... FLOW AUTO CDC.
type CDCSpec struct {
	// Loc is the statement's leading keywords (APPLY CHANGES INTO, AUTO
	// CDC).
	Loc           Span
	Keys          []string
	SequenceBy    string
	DeleteWhen    string
	TruncateWhen  string
	SCD           int
	Columns       []string
	ColumnsExcept bool
	// TrackHistory is TRACK HISTORY ON's column list, the EXCEPT list
	// with TrackHistoryExcept.
	TrackHistory       []string
	TrackHistoryExcept bool
	// Syntax are the CDC clauses only some backends read (TRACK HISTORY
	// ON, IGNORE NULL UPDATES, APPLY AS TRUNCATE WHEN) and the CDC form
	// itself.
	Syntax []SyntaxUse
}

// sparkOptions reads every Databricks form and Spark 4.3's AUTO CDC.
var sparkOptions = parser.Options{Version: parser.Spark43, Databricks: true}

// queryOptions is the grammar a query is read with: the newest Spark's,
// so that a construct only later versions read (QUALIFY, Spark 4.2) is a
// query with a tree, recorded as a construct (versionSyntax) that the
// capability matrix refuses on the backends before it, at its place,
// rather than a syntax error on every backend.
var queryOptions = parser.Options{Version: parser.Spark43}

// versionSyntax records the constructs of q's Spark tree that only some
// Spark versions read: each QUALIFY clause (capab.SynQualify), at its
// keyword. toks are the query's tokens in text.
func versionSyntax(text string, q *Query, toks []token) {
	if q == nil || q.Spark == nil || !mayQualify(text, q, toks) {
		return
	}
	ast.Inspect(q.Spark, func(n ast.Node) bool {
		s, ok := n.(*ast.Select)
		if !ok || s == nil || s.Qualify == nil {
			return true
		}
		at := s.Qualify.Span().Start
		kw := Span{at, at}
		for _, t := range toks {
			if t.start >= at {
				break
			}
			if t.kind == tkWord && t.start >= s.Start && strings.EqualFold(text[t.start:t.end], "QUALIFY") {
				kw = Span{t.start, t.end}
			}
		}
		q.Syntax = append(q.Syntax, SyntaxUse{Feature: capab.SynQualify, Span: kw})
		return true
	})
}

// mayQualify reports whether q, whose tokens are toks, may have a QUALIFY
// clause, which only the word QUALIFY or a pipeline parameter (Spark
// substitutes a ${key} anywhere in the text before it reads it) can
// start: most queries have neither, and their trees need no walk.
func mayQualify(text string, q *Query, toks []token) bool {
	if q.Span.Start < 0 || q.Span.End > len(text) || q.Span.Start > q.Span.End || strings.Contains(text[q.Span.Start:q.Span.End], "${") {
		return true
	}
	for _, t := range toks {
		if t.kind == tkWord && t.end-t.start == len("QUALIFY") && strings.EqualFold(text[t.start:t.end], "QUALIFY") {
			return true
		}
	}
	return false
}

// parseWhole parses the statement with Spark's grammar and the
// Databricks forms, returning what was read (a statement broken after
// its header still gives its header).
func (p *stmtParser) parseWhole() (ast.Stmt, []*ast.SyntaxError) {
	if p.whole != nil {
		return p.whole.st, p.whole.errs
	}
	text := p.text
	if p.wholeText != nil {
		text = string(p.wholeText)
	}
	st, errs := parser.ParseStatementAt(text, p.st.Start, p.end, p.databricksOptions())
	if b, ok := st.(*ast.BadStmt); ok {
		st = b.Partial
	}
	p.whole = &wholeParse{st: st, errs: errs}
	return st, errs
}

// wholeParse is the statement as Spark's grammar (with the Databricks
// forms) read it, and its errors.
type wholeParse struct {
	st   ast.Stmt
	errs []*ast.SyntaxError
	// reported is set once the error in the column list is reported.
	reported bool
}

// sparkErr reports Spark's syntax error e, its message followed by
// more, on at least one byte where the text has one.
func (p *stmtParser) sparkErr(e *ast.SyntaxError, more string) {
	start := max(0, min(e.Start, len(p.text)))
	end := max(start, min(max(e.End, start+1), len(p.text)))
	p.errSpan(start, lineEnd(p.text, start, end), e.Message+more)
}

// syntax records a construct at [start, end).
func (p *stmtParser) syntax(f capab.Feature, start, end int) {
	p.st.Syntax = append(p.st.Syntax, SyntaxUse{Feature: f, Span: Span{start, end}})
}

// orReplaceDataset records the OR REPLACE (at mod) of CREATE OR REPLACE
// MATERIALIZED VIEW | STREAMING TABLE, which every backend refuses, each
// with the form it reads (capab.SynOrReplaceMV, SynOrReplaceST).
func (p *stmtParser) orReplaceDataset(mod Span) {
	f := capab.SynOrReplaceMV
	if p.st.Kind == CreateStreamingTable {
		f = capab.SynOrReplaceST
	}
	p.syntax(f, mod.Start, mod.End)
}

// hasWord reports whether a token from i on is the word w.
func (p *stmtParser) hasWord(i int, w string) bool {
	for k := i; k < len(p.toks); k++ {
		if p.kw(k, w) {
			return true
		}
	}
	return false
}

// expectations reads the CONSTRAINT ... EXPECT clauses of the CREATE
// statement (in its column list, table constraints or a column's), the
// list ending at listEnd. A list Spark's grammar does not read is an
// error there: its expectations would otherwise be dropped unsaid.
func (p *stmtParser) expectations(listEnd int) {
	st, errs := p.parseWhole()
	if len(errs) > 0 && errs[0].Start < listEnd && !constraintRefusal(errs[0]) {
		if p.whole != nil && !p.whole.reported {
			p.whole.reported = true
			p.sparkErr(errs[0], "; the column list holds expectations, which are not applied until it reads")
		}
		return
	}
	c, ok := st.(*ast.Create)
	if !ok || c == nil {
		return
	}
	all := append([]*ast.Constraint(nil), c.Constraints...)
	for _, col := range c.Columns {
		all = append(all, col.Constraints...)
	}
	for _, k := range all {
		if k == nil || k.Kind != "EXPECT" || k.Check == nil {
			continue
		}
		cond := k.Check.Span()
		e := Expect{
			Cond:     p.text[cond.Start:cond.End],
			DuckCond: duckExpr(p.text[cond.Start:cond.End]),
			CondLoc:  Span{cond.Start, cond.End},
			Action:   ir.Warn,
			Span:     Span{k.Start, k.End},
		}
		if k.Name != nil {
			e.Name, e.NameLoc = k.Name.Name, Span{k.Name.Start, k.Name.End}
		}
		switch k.OnViolation {
		case "DROP ROW":
			e.Action = ir.Drop
		case "FAIL UPDATE":
			e.Action = ir.Fail
		}
		p.st.Expects = append(p.st.Expects, e)
		p.syntax(capab.SynExpect, k.Start, k.End)
	}
}

// cdc reads the AUTO CDC (or APPLY CHANGES) part a of the statement: its
// spec, and a query over its source, "SELECT * FROM STREAM(source)",
// written over the statement's own text from the leading keywords to the
// source (same length, so offsets stay those of the file).
func (p *stmtParser) cdc(a *ast.AutoCDC, form capab.Feature, kwEnd int) {
	if a == nil || a.Source == nil {
		return
	}
	spec := &CDCSpec{Loc: Span{a.Start, kwEnd}, SCD: a.SCDType}
	if spec.SCD == 0 {
		spec.SCD = 1
	}
	spec.Syntax = append(spec.Syntax, SyntaxUse{Feature: form, Span: spec.Loc})
	for _, k := range a.Keys {
		if l := k.Last(); l != nil {
			spec.Keys = append(spec.Keys, l.Name)
		}
	}
	if a.SequenceBy != nil {
		r := a.SequenceBy.Span()
		spec.SequenceBy = p.text[r.Start:r.End]
		if c, ok := a.SequenceBy.(*ast.Column); ok && len(c.Parts) > 0 {
			spec.SequenceBy = c.Parts[len(c.Parts)-1].Name
		}
	}
	if a.DeleteWhen != nil {
		r := a.DeleteWhen.Span()
		spec.DeleteWhen = duckExpr(p.text[r.Start:r.End])
	}
	if a.TruncateWhen != nil {
		r := a.TruncateWhen.Span()
		spec.TruncateWhen = duckExpr(p.text[r.Start:r.End])
	}
	for _, c := range a.Columns {
		if l := c.Last(); l != nil {
			spec.Columns = append(spec.Columns, l.Name)
		}
	}
	spec.ColumnsExcept = a.ColumnsExcept
	for _, c := range a.TrackHistory {
		if l := c.Last(); l != nil {
			spec.TrackHistory = append(spec.TrackHistory, l.Name)
		}
	}
	spec.TrackHistoryExcept = a.TrackHistoryExcept
	for _, cl := range a.Clauses {
		switch cl.Keyword {
		case "TRACK HISTORY":
			spec.Syntax = append(spec.Syntax, SyntaxUse{Feature: capab.SynTrackHistory, Span: Span{cl.Start, cl.End}})
		case "IGNORE NULL UPDATES":
			spec.Syntax = append(spec.Syntax, SyntaxUse{Feature: capab.SynIgnoreNulls, Span: Span{cl.Start, cl.End}})
		case "APPLY AS TRUNCATE WHEN":
			spec.Syntax = append(spec.Syntax, SyntaxUse{Feature: capab.SynTruncateWhen, Span: Span{cl.Start, cl.End}})
		}
	}
	p.st.CDC = spec
	if a.Target != nil {
		p.st.Target = a.Target.String()
		p.st.TargetLoc = Span{a.Target.Start, a.Target.End}
		p.liveTarget()
	}
	// The source query: blank from the leading keywords to FROM, and
	// write SELECT * there. The source is the relation from FROM to
	// KEYS: STREAM(s) [alias] or a subquery over it (whose STREAM read
	// is a.Source), so the query reads every relation the subquery does.
	after := kwEnd
	if a.Target != nil {
		after = a.Target.End
	}
	from, srcEnd, prevEnd := -1, a.Source.End, -1
	for _, t := range p.toks {
		if len(a.Keys) > 0 && t.start >= a.Keys[0].Start {
			break
		}
		w := ""
		if t.kind == tkWord {
			w = p.text[t.start:t.end]
		}
		switch {
		case from < 0 && t.start >= after && strings.EqualFold(w, "FROM"):
			from = t.start
		case from >= 0 && prevEnd > from && strings.EqualFold(w, "KEYS"):
			srcEnd = max(srcEnd, prevEnd)
		}
		prevEnd = t.end
	}
	const sel = "SELECT *"
	if from < 0 || from-a.Start < len(sel)+1 {
		return
	}
	b := []byte(p.text)
	for i := a.Start; i < from; i++ {
		if b[i] != '\n' && b[i] != '\r' {
			b[i] = ' '
		}
	}
	copy(b[a.Start:], sel)
	text := string(b)
	sp := Span{a.Start, srcEnd}
	q, d := parseQuery(p.file, text, sp, lexRange(text, sp.Start, sp.End), p.dialect, p.vars)
	p.st.Query = q
	p.diags = append(p.diags, d...)
}

// applyChanges parses Databricks' APPLY CHANGES INTO target FROM
// STREAM(source) KEYS (...) ... statement.
func (p *stmtParser) applyChanges() {
	p.st.Kind = ApplyChanges
	if p.snapshotCDC(0) {
		return
	}
	st, errs := parser.ParseStatementAt(p.text, p.st.Start, p.end, p.databricksOptions())
	if len(errs) > 0 {
		p.sparkErr(errs[0], "")
		return
	}
	ac, ok := st.(*ast.ApplyChanges)
	if !ok || ac.CDC == nil || ac.CDC.Target == nil {
		return
	}
	p.st.Name, p.st.NameLoc = ac.CDC.Target.String(), Span{ac.CDC.Target.Start, ac.CDC.Target.End}
	// APPLY CHANGES INTO: the three words.
	end := p.toks[min(2, len(p.toks)-1)].end
	p.cdc(ac.CDC, capab.SynApplyChanges, end)
}

// autoCDCFlow parses CREATE FLOW name AS AUTO CDC INTO target ... (Spark
// 4.3 and Databricks).
func (p *stmtParser) autoCDCFlow(auto int) {
	if p.snapshotCDC(auto) {
		return
	}
	st, errs := parser.ParseStatementAt(p.text, p.st.Start, p.end, p.databricksOptions())
	if len(errs) > 0 {
		p.sparkErr(errs[0], "")
		return
	}
	cf, ok := st.(*ast.CreateFlow)
	if !ok || cf.AutoCDC == nil {
		return
	}
	form := capab.SynAutoCDC
	if p.kw(auto, "APPLY") {
		form = capab.SynApplyChanges // CREATE FLOW f AS APPLY CHANGES INTO: Databricks' older name
	}
	p.cdc(cf.AutoCDC, form, p.toks[auto+1].end)
}

// autoCDCTable parses the FLOW AUTO CDC FROM ... of CREATE STREAMING
// TABLE t ... (Spark 4.3): the token at flow is FLOW.
func (p *stmtParser) autoCDCTable(flow int) {
	st, errs := parser.ParseStatementAt(p.text, p.st.Start, p.end, p.databricksOptions())
	if len(errs) > 0 {
		p.sparkErr(errs[0], "")
		return
	}
	c, ok := st.(*ast.Create)
	if !ok || c.AutoCDC == nil {
		return
	}
	p.cdc(c.AutoCDC, capab.SynAutoCDC, p.toks[min(flow+2, len(p.toks)-1)].end)
}

// liveTarget turns the statement's target LIVE.x (INSERT INTO LIVE.x,
// APPLY CHANGES INTO LIVE.x) into x, recording the LIVE. qualifier.
func (p *stmtParser) liveTarget() {
	t := p.st.Target
	if len(t) < 6 || !strings.EqualFold(t[:5], "LIVE.") || strings.Count(t, ".") != 1 {
		return
	}
	written := p.text[p.st.TargetLoc.Start:p.st.TargetLoc.End]
	dot := strings.LastIndexByte(written, '.')
	if dot < 0 {
		return
	}
	p.syntax(capab.SynLiveRef, p.st.TargetLoc.Start, p.st.TargetLoc.Start+dot+1)
	p.st.Target = t[5:]
	p.st.TargetLoc.Start += dot + 1
	if p.st.Kind == ApplyChanges {
		p.st.Name, p.st.NameLoc = p.st.Target, p.st.TargetLoc
	}
}

// liveRefs turns the legacy LIVE.x references of q into references to x,
// at x, and records each LIVE. qualifier as a construct.
func liveRefs(text string, q *Query) {
	if q == nil {
		return
	}
	for i, r := range q.Refs {
		if len(r.Name) < 6 || !strings.EqualFold(r.Name[:5], "LIVE.") || strings.Count(r.Name, ".") != 1 {
			continue
		}
		written := text[r.Loc.Start:r.Loc.End]
		dot := strings.LastIndexByte(written, '.')
		if dot < 0 {
			continue
		}
		q.Syntax = append(q.Syntax, SyntaxUse{Feature: capab.SynLiveRef, Span: Span{r.Loc.Start, r.Loc.Start + dot + 1}})
		q.Refs[i].Name = r.Name[5:]
		q.Refs[i].Loc.Start = r.Loc.Start + dot + 1
		for q.Refs[i].Loc.Start < r.Loc.End && isSpace(text[q.Refs[i].Loc.Start]) {
			q.Refs[i].Loc.Start++
		}
	}
}

// duckExpr rewrites a Spark SQL boolean expression (an expectation's
// condition, evaluated by DuckDB) into DuckDB's syntax: "..." is a string
// in Spark and an identifier in DuckDB, `name` is an identifier; a
// single-quoted string with backslash escapes is written unescaped, as
// Spark reads it; and x [NOT] RLIKE | REGEXP p, which DuckDB has no
// operator for, is [NOT] regexp_matches(x, p): true when p matches a part
// of x, as Spark's RLIKE is.
func duckExpr(s string) string {
	x, errs := parser.ParseExpression(s, parser.Options{})
	if len(errs) > 0 || x == nil {
		return duckTokens(s)
	}
	var b strings.Builder
	last := 0
	ast.Inspect(x, func(n ast.Node) bool {
		l, ok := n.(*ast.Like)
		if !ok || (l.Op != "RLIKE" && l.Op != "REGEXP") || l.Quantifier != "" || len(l.Patterns) != 1 || l.X == nil {
			return true
		}
		xs, ps := l.X.Span(), l.Patterns[0].Span()
		b.WriteString(duckTokens(s[last:l.Start]))
		if l.Not {
			b.WriteString("NOT ")
		}
		b.WriteString("regexp_matches(" + duckExpr(s[xs.Start:xs.End]) + ", " + duckExpr(s[ps.Start:ps.End]) + ")")
		last = l.End
		return false
	})
	b.WriteString(duckTokens(s[last:]))
	return b.String()
}

// duckTokens is duckExpr's token rewrite: strings and quoted names.
func duckTokens(s string) string {
	toks := lex.Lex(s)
	var b strings.Builder
	last := 0
	for _, t := range toks {
		switch t.Kind {
		case lex.DoubleQuotedString:
			b.WriteString(s[last:t.Start])
			v := unescapeString(s[t.Start:t.End])
			b.WriteString("'" + strings.ReplaceAll(v, "'", "''") + "'")
			last = t.End
		case lex.String:
			if !strings.HasPrefix(s[t.Start:t.End], "'") || !strings.Contains(s[t.Start:t.End], "\\") {
				continue
			}
			b.WriteString(s[last:t.Start])
			v := unescapeString(s[t.Start:t.End])
			b.WriteString("'" + strings.ReplaceAll(v, "'", "''") + "'")
			last = t.End
		case lex.QuotedIdent:
			b.WriteString(s[last:t.Start])
			v := unquoteIdent(s[t.Start:t.End])
			b.WriteString(`"` + strings.ReplaceAll(v, `"`, `""`) + `"`)
			last = t.End
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// FileRead is a read of files by path in a query: read_files(path,
// format => ...) or cloud_files(path, format) (Databricks), or Spark's
// format.`path` (parquet.`/data/events/`, delta.`/p`), a source named
// after the path's last segment. The native engine reads that source's
// sample; an SDP file goes to Spark as written.
type FileRead struct {
	// Call is the call as written, function name to closing parenthesis.
	Call Span
	// Func is read_files or cloud_files, or the format of a
	// format.`path` read, as written.
	Func string
	// Path and Format are the path and format arguments ("" when not
	// given as string literals).
	Path, Format string
	// Name is the source the read stands for: the path's last segment
	// without its extension (orders for '/Volumes/raw/orders/' or
	// 'raw/orders.json'), with _files added when the dataset reading it
	// has that name itself.
	Name string
}

// FileSourceName is the source a path read stands for: its last segment
// that is no glob, without extension (orders for "/landing/orders/" or
// "raw/orders.json"); "" when there is none. SQL's read_files and
// Python's path loads both name their sources by it.
func FileSourceName(p string) string {
	segs := strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' })
	for i := len(segs) - 1; i >= 0; i-- {
		s := segs[i]
		if strings.ContainsAny(s, "*?[{") || strings.HasSuffix(s, ":") {
			continue
		}
		if j := strings.IndexByte(s, '.'); j > 0 {
			s = s[:j]
		}
		if s != "" {
			return s
		}
	}
	return ""
}

// plainName reports whether s is an identifier that needs no quotes.
func plainName(s string) bool {
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// fileReads finds the read_files(...) and cloud_files(...) relations of
// the query text[sp] and returns the file text with each call written as
// the name of its source, padded with spaces to the call's length, so
// the query reads a table like any other and offsets do not move. A
// source named like own, the dataset the query defines, is named
// <segment>_files instead, so the dataset does not read itself.
func fileReads(text string, sp Span, toks []token, own string, vars map[string]string) (string, []FileRead) {
	if !mayReadFiles(text[sp.Start:sp.End]) {
		return text, nil
	}
	var reads []FileRead
	var b []byte
	word := func(k int) string {
		if k < 0 || k >= len(toks) || toks[k].kind != tkWord {
			return ""
		}
		return strings.ToUpper(text[toks[k].start:toks[k].end])
	}
	punct := func(k int, c byte) bool {
		return k >= 0 && k < len(toks) && toks[k].kind == tkPunct && text[toks[k].start] == c
	}
	// str: a string literal; "..." is one in Spark SQL.
	str := func(k int) bool {
		return k >= 0 && k < len(toks) && !toks[k].open &&
			(toks[k].kind == tkString || toks[k].kind == tkQuoted && text[toks[k].start] == '"')
	}
	relation := func(k int) bool { // token k is where a relation starts
		prev := word(k - 1)
		return prev == "FROM" || prev == "JOIN" || prev == "STREAM" || punct(k-1, ',') || punct(k-1, '(') && word(k-2) == "STREAM"
	}
	rewrite := func(r FileRead) {
		name := r.Name
		if !plainName(name) {
			name = "`" + strings.ReplaceAll(name, "`", "``") + "`"
		}
		if r.Name == "" || len(name) > r.Call.End-r.Call.Start {
			return
		}
		if b == nil {
			b = []byte(text)
		}
		for i := r.Call.Start; i < r.Call.End; i++ {
			if b[i] != '\n' && b[i] != '\r' {
				b[i] = ' '
			}
		}
		copy(b[r.Call.Start:], name)
		reads = append(reads, r)
	}
	for k := range toks {
		w := word(k)
		if r, ok := pathRead(text, toks, k, w, punct, relation); ok {
			if r.Name != "" && strings.EqualFold(r.Name, own) {
				r.Name += "_files"
			}
			rewrite(r)
			continue
		}
		if w == "READ_KAFKA" && punct(k+1, '(') && relation(k) {
			if r, ok := kafkaRead(text, toks, k, word, punct, str); ok {
				if strings.EqualFold(r.Name, own) {
					r.Name += "_kafka"
				}
				rewrite(r)
			}
			continue
		}
		if w != "READ_FILES" && w != "CLOUD_FILES" || !punct(k+1, '(') || !relation(k) {
			continue
		}
		depth, end := 0, -1
		for j := k + 1; j < len(toks); j++ {
			if punct(j, '(') {
				depth++
			} else if punct(j, ')') {
				depth--
				if depth == 0 {
					end = j
					break
				}
			}
		}
		if end < 0 || k+2 >= end || !str(k+2) {
			continue
		}
		r := FileRead{Call: Span{toks[k].start, toks[end].end}, Func: text[toks[k].start:toks[k].end],
			Path: unescapeString(substitute(text[toks[k+2].start:toks[k+2].end], vars))}
		// The format: cloud_files' second argument, read_files' format =>.
		for j := k + 3; j < end; j++ {
			switch {
			case w == "CLOUD_FILES" && j == k+4 && punct(k+3, ',') && str(j):
				r.Format = unescapeString(text[toks[j].start:toks[j].end])
			case w == "READ_FILES" && word(j) == "FORMAT" && punct(j+1, '=') && punct(j+2, '>') && j+3 < end && str(j+3):
				r.Format = unescapeString(text[toks[j+3].start:toks[j+3].end])
			}
		}
		r.Name = FileSourceName(r.Path)
		if r.Name != "" && strings.EqualFold(r.Name, own) {
			r.Name += "_files"
		}
		rewrite(r)
	}
	if b == nil {
		return text, nil
	}
	return string(b), reads
}

// kafkaRead reads Databricks' read_kafka(...) call whose name is token k
// (its '(' follows): a read of the Kafka topic named by its subscribe =>
// 'topic' argument, the source a sample stands for (kafka when the call
// subscribes otherwise, by pattern or partition assignment). Path stays
// empty: no files are read.
func kafkaRead(text string, toks []token, k int, word func(int) string, punct func(int, byte) bool, str func(int) bool) (FileRead, bool) {
	depth, end := 0, -1
	for j := k + 1; j < len(toks) && end < 0; j++ {
		switch {
		case punct(j, '('):
			depth++
		case punct(j, ')'):
			depth--
			if depth == 0 {
				end = j
			}
		}
	}
	if end < 0 {
		return FileRead{}, false
	}
	r := FileRead{Call: Span{toks[k].start, toks[end].end}, Func: text[toks[k].start:toks[k].end], Format: "kafka", Name: "kafka"}
	for j := k + 2; j+3 < end; j++ {
		if word(j) == "SUBSCRIBE" && punct(j+1, '=') && punct(j+2, '>') && str(j+3) {
			if topic := unescapeString(text[toks[j+3].start:toks[j+3].end]); topic != "" && !strings.Contains(topic, ",") {
				r.Name = topic
			}
			break
		}
	}
	return r, true
}

// withFileReads is parseQuery over the text with the query's file reads
// written as their sources' names (fileReads): each read is a reference
// to that source, at the call, and a construct.
func withFileReads(file, text string, sp Span, toks []token, dialect Dialect, own string, vars map[string]string) (*Query, []ir.Diagnostic) {
	rw, reads := fileReads(text, sp, toks, own, vars)
	if len(reads) == 0 {
		q, d := parseQueryText(file, text, sp, toks, dialect, vars)
		versionSyntax(text, q, toks)
		cellEnd(text, sp, toks, q)
		return q, d
	}
	q, d := parseQueryText(file, rw, sp, lexRange(rw, sp.Start, sp.End), dialect, vars)
	versionSyntax(text, q, toks)
	cellEnd(text, sp, toks, q)
	q.FileReads = reads
	for _, r := range reads {
		f := capab.SynReadFiles
		switch {
		case strings.EqualFold(r.Func, "cloud_files"):
			f = capab.SynCloudFiles
		case strings.EqualFold(r.Func, "read_files"):
		case strings.EqualFold(r.Func, "read_kafka"):
			f = capab.SynReadKafka
		default:
			f = "" // format.`path`: Spark SQL, which every backend reads
		}
		if f != "" {
			q.Syntax = append(q.Syntax, SyntaxUse{Feature: f, Span: Span{r.Call.Start, r.Call.Start + len(r.Func)}})
		}
		for i := range q.Refs {
			if q.Refs[i].Loc.Start == r.Call.Start {
				q.Refs[i].Loc.End = r.Call.End
				q.Refs[i].Path = r.Path
				// Auto Loader (cloud_files) reads a stream with or
				// without STREAM.
				q.Refs[i].Streaming = q.Refs[i].Streaming || f == capab.SynCloudFiles
				if f == "" && q.Refs[i].Streaming && !strings.EqualFold(r.Func, "delta") {
					// STREAM json.`path`: Spark reads a batch relation
					q.Syntax = append(q.Syntax, SyntaxUse{Feature: capab.SynStreamFilePath, Span: r.Call})
				}
			}
		}
	}
	return q, d
}

// cellEnd records, in a notebook export, a query text[sp] that ends its
// statement at a cell boundary with no ';' while another statement
// follows (capab.SynCellNoSemicolon, at the query's last token): Databricks
// runs each cell on its own, Spark splits the file at ';' only and reads
// the two statements as one.
func cellEnd(text string, sp Span, toks []token, q *Query) {
	if q == nil || !strings.HasPrefix(strings.TrimPrefix(text, bom), notebookHeader) {
		return
	}
	last := -1
	for k, t := range toks {
		if t.start >= sp.End {
			break
		}
		if t.end <= sp.End && t.start >= sp.Start {
			last = k
		}
	}
	if last < 0 {
		return
	}
	// What follows: blank lines and comments (-- COMMAND ----------, the
	// -- MAGIC lines of other cells), then a ';', the end, or more SQL.
	crossed := false
	i := toks[last].end
	for i < len(text) {
		switch {
		case isSpace(text[i]):
			i++
		case strings.HasPrefix(text[i:], "--"):
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				end = len(text) - i
			}
			line := strings.TrimSpace(text[i : i+end])
			if strings.HasPrefix(line, "-- COMMAND") && strings.Trim(strings.TrimPrefix(line, "-- COMMAND"), " -") == "" {
				crossed = true
			}
			i += end
		default:
			if crossed && text[i] != ';' {
				t := toks[last]
				q.Syntax = append(q.Syntax, SyntaxUse{Feature: capab.SynCellNoSemicolon, Span: Span{t.start, t.end}})
			}
			return
		}
	}
}

// notebookHeader begins a Databricks notebook exported as a .sql file.
const notebookHeader = "-- Databricks notebook source"

// cell is one cell of a notebook export: its text range (between
// `-- COMMAND ----------` lines) and, for a cell in another language
// (`-- MAGIC %python`), that language and the magic line's range.
type cell struct {
	Span
	lang  string
	magic Span
}

// notebookCells splits a Databricks notebook export into its cells; nil
// when text is no notebook export.
func notebookCells(text string) []cell {
	body := strings.TrimPrefix(text, bom)
	if !strings.HasPrefix(body, notebookHeader) {
		return nil
	}
	var cells []cell
	cur := cell{Span: Span{len(text) - len(body), 0}}
	first := true
	for off := cur.Start; off <= len(text); {
		end := strings.IndexByte(text[off:], '\n')
		next := off + end + 1
		if end < 0 {
			end, next = len(text)-off, len(text)+1
		}
		line := strings.TrimSpace(text[off : off+end])
		switch {
		case strings.HasPrefix(line, "-- COMMAND") && strings.Trim(strings.TrimPrefix(line, "-- COMMAND"), " -") == "":
			cur.End = off
			cells = append(cells, cur)
			cur = cell{Span: Span{min(next, len(text)), 0}}
			first = true
		case first && strings.HasPrefix(line, "-- MAGIC"):
			first = false
			magic := strings.TrimSpace(strings.TrimPrefix(line, "-- MAGIC"))
			if strings.HasPrefix(magic, "%") {
				lang := strings.Fields(magic)[0]
				switch lang {
				case "%md", "%sql", "%pip", "%run":
				default:
					cur.lang, cur.magic = lang, Span{off, off + end}
				}
			}
		case line != "" && !strings.HasPrefix(line, "--"):
			first = false
		}
		off = next
	}
	cur.End = len(text)
	return append(cells, cur)
}

// SparkTree parses the query text[sp] with Spark's grammar, as the front
// end reads a query's tree (offsets are file offsets), with the
// pipeline's parameters vars; nil when it is no query Spark reads. It
// serves a query whose text analysis rewrote after the file was read (a
// file read renamed once the whole pipeline's names are known).
func SparkTree(text string, sp Span, vars map[string]string) *ast.Query {
	sr := readSpark("", text, sp, vars)
	if sr.err != nil || sr.notQuery {
		return nil
	}
	return sr.query
}
