package sqlfront

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/ir"
)

// sdpAccepts lists the statements SDP accepts, for messages.
const sdpAccepts = "CREATE MATERIALIZED VIEW, CREATE STREAMING TABLE, CREATE FLOW ... AS INSERT INTO, " +
	"CREATE TEMPORARY VIEW, CREATE VIEW, SET, USE CATALOG and USE SCHEMA"

// stmtParser reads the SDP header of one statement from its tokens.
type stmtParser struct {
	file, text string
	toks       []token
	end        int // end of the statement
	st         *Statement
	diags      []ir.Diagnostic
	dialect    Dialect
	// whole caches parseWhole's answer; wholeText, when set, is the text
	// it reads: the file's, with the clauses Spark's grammar lacks blanked.
	whole     *wholeParse
	wholeText []byte
	// vars are the pipeline's parameters (ParsePipeline).
	vars map[string]string
}

// parseStatement classifies and parses one statement found by the splitter.
func parseStatement(file, text string, r rawStmt, dialect Dialect, vars map[string]string) (Statement, []ir.Diagnostic) {
	st := Statement{Span: r.Span, CommentStart: commentStart(text, r.Start, r.segStart)}
	toks := r.toks
	if toks == nil {
		toks = lexRange(text, r.Start, r.End)
	}
	p := &stmtParser{file: file, text: text, toks: toks, end: r.End, st: &st, dialect: dialect, vars: vars}
	switch {
	case len(p.toks) == 0: // cannot happen: the splitter only returns statements with tokens
		st.Kind = Unsupported
	case p.kw(0, "CREATE"):
		p.create()
	case p.kw(0, "SET"):
		p.set()
	case p.kw(0, "USE"):
		p.use()
	case p.kw(0, "APPLY") && p.kw(1, "CHANGES"):
		p.applyChanges()
	case startsQuery(text, p.toks):
		st.Kind = QueryStmt
		var d []ir.Diagnostic
		st.Query, d = parseQuery(file, text, r.Span, p.toks, dialect, vars)
		p.diags = append(p.diags, d...)
	default:
		p.unsupported()
	}
	return st, p.diags
}

// word returns the text of token i in upper case if it is a word, else "".
func (p *stmtParser) word(i int) string {
	if i < 0 || i >= len(p.toks) || p.toks[i].kind != tkWord {
		return ""
	}
	return strings.ToUpper(p.text[p.toks[i].start:p.toks[i].end])
}

// kw reports whether token i is one of the keywords (upper case) given.
func (p *stmtParser) kw(i int, kws ...string) bool {
	w := p.word(i)
	if w == "" {
		return false
	}
	for _, k := range kws {
		if w == k {
			return true
		}
	}
	return false
}

func (p *stmtParser) punct(i int, c byte) bool {
	return i >= 0 && i < len(p.toks) && p.toks[i].kind == tkPunct && p.text[p.toks[i].start] == c
}

// tokDesc describes token i for a message.
func (p *stmtParser) tokDesc(i int) string {
	if i >= len(p.toks) {
		return "the end of the statement"
	}
	t := p.toks[i]
	s := p.text[t.start:t.end]
	if t.open && t.kind == tkQuoted {
		return fmt.Sprintf("an unterminated quoted name (%s): close it with a matching %c", firstLine(s, 20), s[0])
	}
	return `"` + firstLine(s, 40) + `"`
}

// firstLine is s up to its first line break, cut to n bytes (at a rune
// boundary), with "..." when anything was left out.
func firstLine(s string, n int) string {
	cut := false
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s, cut = s[:i], true
	}
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, cut = s[:n], true
	}
	if cut {
		s += "..."
	}
	return s
}

// errSpan reports a syntax error on [start, end).
func (p *stmtParser) errSpan(start, end int, msg string) {
	p.diags = append(p.diags, ir.Diagnostic{
		Loc:      ir.Loc{File: p.file, Start: start, End: end},
		Severity: ir.Error, Code: ir.CodeSQLSyntax, Message: msg,
	})
}

// errTok reports a syntax error on token i, or on the last token when i is
// past the end of the statement.
func (p *stmtParser) errTok(i int, msg string) {
	if i >= len(p.toks) {
		i = len(p.toks) - 1
	}
	t := p.toks[i]
	p.errSpan(t.start, lineEnd(p.text, t.start, t.end), msg)
}

// lineEnd caps end at the end of the line holding start, so that a
// diagnostic on an unterminated quote does not cover the rest of the file.
func lineEnd(text string, start, end int) int {
	if j := strings.IndexByte(text[start:end], '\n'); j > 0 {
		return start + j
	}
	return end
}

// startsQuery reports whether toks begin a query.
func startsQuery(text string, toks []token) bool {
	t := toks[0]
	if t.kind == tkPunct {
		return text[t.start] == '('
	}
	if t.kind != tkWord {
		return false
	}
	switch strings.ToUpper(text[t.start:t.end]) {
	case "SELECT", "WITH", "VALUES", "FROM", "TABLE":
		return true
	}
	return false
}

// leadingModifiers are the words that may continue the leading keywords of
// an unsupported statement ("CREATE OR REPLACE TABLE", "INSERT INTO").
var leadingModifiers = map[string]bool{
	"OR": true, "REPLACE": true, "REFRESH": true, "TEMPORARY": true, "TEMP": true, "GLOBAL": true,
	"EXTERNAL": true, "TABLE": true, "VIEW": true, "SCHEMA": true, "DATABASE": true, "NAMESPACE": true,
	"CATALOG": true, "FUNCTION": true, "INTO": true, "OVERWRITE": true, "LIVE": true, "STREAMING": true,
	"MATERIALIZED": true, "INDEX": true, "MACRO": true, "SEQUENCE": true, "TYPE": true, "FROM": true,
	"LOCAL": true, "UNLOGGED": true, "TRANSIENT": true, "FLOW": true, "SINK": true, "UNIQUE": true,
}

// leadingKeywords returns the range of the statement's leading keywords and
// their text, words joined by single spaces, as written.
func leadingKeywords(text string, toks []token) (Span, string) {
	first := toks[0]
	if first.kind != tkWord {
		end := lineEnd(text, first.start, first.end)
		return Span{first.start, end}, text[first.start:end]
	}
	sp := Span{first.start, first.end}
	words := []string{text[first.start:first.end]}
	for _, t := range toks[1:] {
		if len(words) == 5 || t.kind != tkWord || !leadingModifiers[strings.ToUpper(text[t.start:t.end])] {
			break
		}
		words = append(words, text[t.start:t.end])
		sp.End = t.end
	}
	return sp, strings.Join(words, " ")
}

// tokText returns the text of sp with runs of whitespace collapsed.
func tokText(text string, sp Span) string {
	return strings.Join(strings.Fields(text[sp.Start:sp.End]), " ")
}

func (p *stmtParser) unsupported() {
	sp, kw := leadingKeywords(p.text, p.toks)
	p.st.Kind = Unsupported
	p.st.Keyword = kw
	var hint string
	switch p.word(0) {
	case "INSERT":
		hint = "; to append rows to a dataset, write CREATE FLOW name AS INSERT INTO target SELECT ..."
	case "CREATE":
		hint = "; define a dataset with CREATE MATERIALIZED VIEW name AS SELECT ... or CREATE STREAMING TABLE name AS SELECT ..."
	case "DROP", "ALTER", "DELETE", "UPDATE", "MERGE", "TRUNCATE":
		hint = "; a pipeline declares its datasets and does not modify them: remove the statement"
	default:
		hint = "; remove the statement or move it out of the pipeline's SQL files"
		if kw := nearKeyword(p.word(0)); kw != "" {
			// SELEC, CRATE: a misspelt keyword rather than a statement
			// pipelines refuse.
			p.diags = append(p.diags, ir.Diagnostic{
				Loc:      ir.Loc{File: p.file, Start: p.toks[0].start, End: p.toks[0].end},
				Severity: ir.Error, Code: ir.CodeSQLSyntax,
				Message: fmt.Sprintf("%s is not an SQL keyword: did you mean %s?", p.text[p.toks[0].start:p.toks[0].end], kw),
			})
			return
		}
	}
	p.diags = append(p.diags, ir.Diagnostic{
		Loc:      ir.Loc{File: p.file, Start: sp.Start, End: sp.End},
		Severity: ir.Error, Code: ir.CodeSQLUnsupported,
		Message: fmt.Sprintf("%s is not supported in a pipeline: Spark Declarative Pipelines accept only %s%s",
			kw, sdpAccepts, hint),
	})
}

// create parses CREATE [OR REFRESH|OR REPLACE] {MATERIALIZED VIEW | STREAMING
// TABLE | FLOW | TEMP[ORARY] VIEW | VIEW} ..., and Databricks' forms:
// CREATE [OR REFRESH] [PRIVATE | TEMPORARY] {MATERIALIZED VIEW | STREAMING
// TABLE} and the legacy CREATE [OR REFRESH] [TEMPORARY] {[STREAMING] LIVE
// TABLE | LIVE VIEW}, each recorded as a construct.
func (p *stmtParser) create() {
	i := 1
	modIdx := -1
	if p.kw(i, "OR") && p.kw(i+1, "REFRESH", "REPLACE") {
		modIdx = i
		i += 2
	}
	if p.kw(i, "PRIVATE") && p.kw(i+1, "MATERIALIZED", "STREAMING") {
		p.syntax(capab.SynPrivate, p.toks[i].start, p.toks[i].end)
		i++
	}
	tempTable := -1
	streamingLiveView := p.kw(i, "STREAMING") && p.kw(i+1, "LIVE") && p.kw(i+2, "VIEW")
	if p.kw(i, "TEMPORARY", "TEMP") && p.kw(i+1, "STREAMING") && p.kw(i+2, "LIVE") && p.kw(i+3, "VIEW") {
		// Databricks' legacy CREATE TEMPORARY STREAMING LIVE VIEW: a
		// view of the pipeline over a stream, as CREATE STREAMING LIVE VIEW.
		streamingLiveView = true
	}
	if !streamingLiveView && p.kw(i, "TEMPORARY", "TEMP") && (p.kw(i+1, "MATERIALIZED") || p.kw(i+1, "STREAMING") || p.kw(i+1, "LIVE") && p.kw(i+2, "TABLE")) {
		tempTable = i
		p.syntax(capab.SynTemporary, p.toks[i].start, p.toks[i].end)
		i++
	}
	kindStart := i
	live := false
	switch {
	case p.kw(i, "MATERIALIZED") && p.kw(i+1, "VIEW"):
		p.st.Kind = CreateMaterializedView
		i += 2
	case p.kw(i, "STREAMING") && p.kw(i+1, "TABLE"):
		p.st.Kind = CreateStreamingTable
		i += 2
	case streamingLiveView:
		p.st.Kind, live = CreateTemporaryView, true
		if p.kw(i, "TEMPORARY", "TEMP") {
			i++
		}
		i += 3
	case p.kw(i, "STREAMING") && p.kw(i+1, "LIVE") && p.kw(i+2, "TABLE"):
		p.st.Kind, live = CreateStreamingTable, true
		i += 3
	case p.kw(i, "LIVE") && p.kw(i+1, "TABLE"):
		p.st.Kind, live = CreateMaterializedView, true
		i += 2
	case p.kw(i, "LIVE") && p.kw(i+1, "VIEW"), p.kw(i, "TEMPORARY", "TEMP") && p.kw(i+1, "LIVE") && p.kw(i+2, "VIEW"):
		p.st.Kind, live = CreateTemporaryView, true
		if !p.kw(i, "LIVE") {
			i++
		}
		i += 2
	case tempTable >= 0:
		p.unsupported()
		return
	case p.kw(i, "FLOW"):
		p.st.Kind = CreateFlow
		i++
	case p.kw(i, "TEMPORARY", "TEMP") && p.kw(i+1, "VIEW"):
		p.st.Kind = CreateTemporaryView
		i += 2
	case p.kw(i, "VIEW"):
		p.st.Kind = CreateView
		i++
	default:
		p.unsupported()
		return
	}
	if live {
		p.syntax(capab.SynLive, p.toks[kindStart].start, p.toks[i-1].end)
	}
	kindWords := Span{p.toks[kindStart].start, p.toks[i-1].end}
	if modIdx >= 0 {
		mod := p.word(modIdx + 1)
		modSpan := Span{p.toks[modIdx].start, p.toks[modIdx+1].end}
		if mod == "REFRESH" {
			p.syntax(capab.SynOrRefresh, modSpan.Start, modSpan.End)
		}
		switch {
		case live && mod == "REFRESH":
			// CREATE OR REFRESH LIVE VIEW: Databricks reads it
		case p.st.Kind == CreateMaterializedView, p.st.Kind == CreateStreamingTable:
			if mod != "REFRESH" {
				p.orReplaceDataset(modSpan) // databricks.go: refused per backend
			}
		case p.st.Kind == CreateFlow:
			p.errSpan(modSpan.Start, modSpan.End, fmt.Sprintf("CREATE FLOW does not take OR %s: write CREATE FLOW name AS INSERT INTO target SELECT ...", mod))
		default:
			if mod != "REPLACE" {
				p.errSpan(modSpan.Start, modSpan.End, fmt.Sprintf("%s does not take OR REFRESH: write CREATE OR REPLACE %s or plain CREATE %s",
					p.st.Kind, tokText(p.text, kindWords), tokText(p.text, kindWords)))
			}
		}
	}
	if p.st.Kind != CreateFlow && p.kw(i, "IF") && p.kw(i+1, "NOT") && p.kw(i+2, "EXISTS") {
		i += 3
	}
	what := "the dataset's name"
	if p.st.Kind == CreateFlow {
		what = "the flow's name"
	}
	name, sp, next, ok := p.name(i, what, p.st.Kind.String())
	if !ok {
		return
	}
	p.st.Name, p.st.NameLoc = name, sp
	i = next
	if p.st.Kind == CreateTemporaryView && strings.Contains(name, ".") {
		p.qualifiedTempView(sp)
	}
	if p.st.Kind == CreateFlow {
		p.flow(i)
		return
	}
	p.dataset(i)
}

// example returns a short example of the statement kind, for messages.
func example(k StmtKind) string {
	switch k {
	case CreateFlow:
		return "CREATE FLOW name AS INSERT INTO target SELECT ..."
	case CreateStreamingTable:
		return "CREATE STREAMING TABLE name AS SELECT * FROM STREAM(source)"
	}
	return k.String() + " name AS SELECT ..."
}

// name reads a possibly qualified name at token i.
func (p *stmtParser) name(i int, what, after string) (string, Span, int, bool) {
	switch {
	case i >= len(p.toks):
		p.errTok(i, fmt.Sprintf("missing %s after %s: write %s", what, after, example(p.st.Kind)))
		return "", Span{}, i, false
	case p.kw(i, "AS") && p.st.Kind != CreateFlow || p.kw(i, "AS") && p.kw(i+1, "INSERT"):
		p.errTok(i, fmt.Sprintf("missing %s before AS: write %s", what, example(p.st.Kind)))
		return "", Span{}, i, false
	}
	name, sp, next, ok := p.dottedName(i)
	if !ok {
		p.errTok(i, fmt.Sprintf("expected %s after %s, found %s: write %s (quote unusual names with `backticks`)",
			what, after, p.tokDesc(i), example(p.st.Kind)))
		return "", Span{}, i, false
	}
	return name, sp, next, true
}

// dottedName reads identifier parts joined by dots at token i.
func (p *stmtParser) dottedName(i int) (string, Span, int, bool) {
	if name, sp, next, ok := p.paramName(i); ok {
		return name, sp, next, true
	}
	ident := func(k int) bool {
		return k < len(p.toks) && (p.toks[k].kind == tkWord || p.toks[k].kind == tkQuoted) && !p.toks[k].open
	}
	if !ident(i) {
		return "", Span{}, i, false
	}
	parts := []string{unquoteIdent(p.text[p.toks[i].start:p.toks[i].end])}
	sp := Span{p.toks[i].start, p.toks[i].end}
	i++
	for p.punct(i, '.') && ident(i+1) {
		parts = append(parts, unquoteIdent(p.text[p.toks[i+1].start:p.toks[i+1].end]))
		sp.End = p.toks[i+1].end
		i += 2
	}
	return strings.Join(parts, "."), sp, i, true
}

// closeParen returns the index of the ')' matching the '(' at token i, or -1.
func (p *stmtParser) closeParen(i int) int {
	depth := 0
	for k := i; k < len(p.toks); k++ {
		switch {
		case p.punct(k, '('):
			depth++
		case p.punct(k, ')'):
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// sparkString reports whether token i is a "double-quoted" string, which
// it is in the Spark dialect.
func (p *stmtParser) sparkString(i int) bool {
	return i < len(p.toks) && p.dialect == DialectSpark && p.toks[i].kind == tkQuoted && p.text[p.toks[i].start] == '"'
}

// stringAt returns the unescaped string literal at token i.
func (p *stmtParser) stringAt(i int, what string) (string, bool) {
	if i < len(p.toks) && p.dialect == DialectSpark && p.toks[i].kind == tkQuoted && !p.toks[i].open && p.text[p.toks[i].start] == '"' {
		// "..." is a string in Spark SQL
		return unescapeString(p.text[p.toks[i].start:p.toks[i].end]), true
	}
	if i >= len(p.toks) || p.toks[i].kind != tkString {
		p.errTok(i, fmt.Sprintf("%s needs a quoted string, found %s: write %s 'text'", what, p.tokDesc(i), what))
		return "", false
	}
	if p.toks[i].open {
		p.errTok(i, "unterminated string: close it with a matching quote (a backslash escapes the next character, so '\\' does not close it)")
		return "", false
	}
	return unescapeString(p.text[p.toks[i].start:p.toks[i].end]), true
}

// dataset parses the part of a CREATE MATERIALIZED VIEW / STREAMING TABLE /
// [TEMPORARY] VIEW after the name: column list, options, AS query.
func (p *stmtParser) dataset(i int) {
	kind := p.st.Kind
	isView := kind == CreateView || kind == CreateTemporaryView
	var colList Span
	if p.punct(i, '(') {
		c := p.closeParen(i)
		if c < 0 {
			p.errTok(i, "unclosed column list: add the missing ')'")
			return
		}
		colList = Span{p.toks[i].start, p.toks[c].end}
		p.st.Columns = p.text[p.toks[i].start:p.toks[c].end]
		if !isView {
			p.masks(i, c)
		}
		if kind == CreateMaterializedView || kind == CreateStreamingTable {
			p.declaredColumns()
		}
		for k := i + 1; k < c; k++ {
			if p.kw(k, "EXPECT") {
				p.expectations(p.toks[c].end)
				break
			}
		}
		i = c + 1
	}
	seen := map[string]bool{}
	for i < len(p.toks) {
		opt := p.word(i)
		if (opt == "PARTITIONED" || opt == "CLUSTER") && p.kw(i+1, "BY") {
			opt += " BY"
		}
		switch opt {
		case "AS":
			p.query(i)
			return
		case "FLOW":
			if kind == CreateStreamingTable && p.kw(i+1, "INSERT") {
				p.flowInsert(i)
				return
			}
			if kind == CreateStreamingTable && p.kw(i+1, "REPLACE") && p.kw(i+2, "WHERE") {
				p.flowReplaceWhere(i)
				return
			}
			if kind == CreateStreamingTable && p.kw(i+1, "AUTO") && p.kw(i+2, "CDC") {
				if colList.End > colList.Start {
					// The AUTO CDC flow's schema is inferred: Spark 4.3
					// refuses a declared one (capab.SynAutoCDCColumns).
					p.syntax(capab.SynAutoCDCColumns, colList.Start, colList.End)
					p.st.Declared = nil
				}
				p.autoCDCTable(i)
				return
			}
			p.errTok(i, fmt.Sprintf("unexpected %s in %s: a streaming table's own flow is FLOW INSERT [ONCE] BY NAME query, FLOW REPLACE WHERE predicate BY NAME query, FLOW AUTO CDC FROM STREAM(source) KEYS (...) SEQUENCE BY ..., or AS followed by a query",
				p.tokDesc(i), kind))
			return
		case "COMMENT", "PARTITIONED BY", "CLUSTER BY", "TBLPROPERTIES", "USING", "LOCATION", "OPTIONS":
		default:
			if next, ok := p.databricksClause(i); ok && !isView {
				if next < 0 {
					return
				}
				i = next
				continue
			}
			p.errTok(i, fmt.Sprintf("unexpected %s in %s: expected AS followed by a query, or one of the options %s",
				p.tokDesc(i), kind, optionList(isView)))
			return
		}
		if isView && opt != "COMMENT" && opt != "TBLPROPERTIES" {
			p.errTok(i, fmt.Sprintf("%s is not allowed on a view: a view takes only COMMENT '...' and TBLPROPERTIES (...)", opt))
			return
		}
		if seen[opt] {
			p.errTok(i, fmt.Sprintf("%s is given twice: keep one", opt))
			return
		}
		seen[opt] = true
		var ok bool
		switch opt {
		case "COMMENT":
			p.st.Comment, ok = p.stringAt(i+1, "COMMENT")
			i += 2
		case "PARTITIONED BY":
			p.st.PartitionBy, p.st.PartitionSpans, i, ok = p.columnList(i+2, opt)
		case "CLUSTER BY":
			start := p.toks[i].start
			if p.kw(i+2, "AUTO", "NONE") {
				// Databricks' automatic clustering or none: no columns
				p.syntax(capab.SynClusterAuto, start, p.toks[i+2].end)
				i, ok = i+3, true
				break
			}
			p.st.ClusterBy, p.st.ClusterSpans, i, ok = p.columnList(i+2, opt)
			if ok {
				p.syntax(capab.SynClusterBy, start, p.toks[i-1].end)
			}
		case "TBLPROPERTIES":
			p.st.Properties, i, ok = p.properties(i + 1)
		case "USING":
			if i+1 < len(p.toks) && (p.toks[i+1].kind == tkWord || p.toks[i+1].kind == tkQuoted) && !p.toks[i+1].open {
				p.st.Using = unquoteIdent(p.text[p.toks[i+1].start:p.toks[i+1].end])
				ok = true
			} else {
				p.errTok(i+1, fmt.Sprintf("USING needs a format name, found %s: write USING parquet (or delta, ...)", p.tokDesc(i+1)))
			}
			i += 2
		case "LOCATION":
			_, ok = p.stringAt(i+1, "LOCATION")
			if ok {
				p.syntax(capab.SynLocation, p.toks[i].start, p.toks[i+1].end)
			}
			i += 2
		case "OPTIONS":
			if c := p.closeParen(i + 1); p.punct(i+1, '(') && c > 0 {
				i, ok = c+1, true
			} else {
				p.errTok(i+1, "OPTIONS needs a parenthesised list: write OPTIONS ('key' = 'value', ...)")
			}
		}
		if !ok {
			return
		}
	}
	if kind != CreateStreamingTable {
		p.errTok(len(p.toks)-1, fmt.Sprintf("%s %s needs AS followed by a query: write %s", kind, p.st.Name, example(kind)))
	}
}

func optionList(view bool) string {
	if view {
		return "COMMENT '...' and TBLPROPERTIES (...)"
	}
	return "COMMENT '...', PARTITIONED BY (...), CLUSTER BY (...) | AUTO | NONE, TBLPROPERTIES (...), USING format, LOCATION '...' and OPTIONS (...)"
}

// query parses the query after the AS at token i.
func (p *stmtParser) query(i int) {
	if i+1 >= len(p.toks) {
		p.errTok(i, fmt.Sprintf("expected a query after AS: write %s", example(p.st.Kind)))
		return
	}
	sp := Span{p.toks[i+1].start, p.end}
	var d []ir.Diagnostic
	// A file read named like the dataset itself (CREATE STREAMING TABLE
	// orders AS ... read_files('/landing/orders')) must not read it.
	own := p.st.Name
	if p.st.Kind == CreateFlow {
		own = p.st.Target
	}
	p.st.Query, d = withFileReads(p.file, p.text, sp, p.toks[i+1:], p.dialect, lastPart(own), p.vars)
	p.diags = append(p.diags, d...)
	p.declaredCase()
}

// lastPart is a dotted name's last part.
func lastPart(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// columnList reads "(a, b, ...)" at token i: the names and their ranges.
func (p *stmtParser) columnList(i int, what string) ([]string, []Span, int, bool) {
	if !p.punct(i, '(') {
		p.errTok(i, fmt.Sprintf("%s needs a parenthesised column list, found %s: write %s (col1, col2)", what, p.tokDesc(i), what))
		return nil, nil, i, false
	}
	c := p.closeParen(i)
	if c < 0 {
		p.errTok(i, fmt.Sprintf("unclosed %s list: add the missing ')'", what))
		return nil, nil, i, false
	}
	var cols []string
	var spans []Span
	k := i + 1
	for k < c {
		name, sp, next, ok := p.dottedName(k)
		if !ok {
			p.errTok(k, fmt.Sprintf("expected a column name in %s, found %s", what, p.tokDesc(k)))
			return nil, nil, c + 1, false
		}
		cols = append(cols, name)
		if p.punct(next, '(') {
			// years(ts), bucket(4, id): a transform, not a column (its
			// span is left empty, so no column check looks it up)
			sp = Span{}
		}
		spans = append(spans, sp)
		if what == "PARTITIONED BY" && p.punct(next, '(') {
			// a transform pipelines refuse (capab.SynPartitionTransform)
			if e := p.closeParen(next); e > 0 && e <= c {
				p.syntax(capab.SynPartitionTransform, p.toks[k].start, p.toks[e].end)
			}
		}
		// Skip anything after the name up to the next top-level comma (a
		// type, a transform's arguments).
		depth := 0
		for k = next; k < c; k++ {
			if p.punct(k, '(') {
				depth++
			} else if p.punct(k, ')') {
				depth--
			} else if depth == 0 && p.punct(k, ',') {
				break
			}
		}
		if k < c {
			k++
			if k == c {
				p.errTok(k, fmt.Sprintf("expected a column name after ',' in %s", what))
				return nil, nil, c + 1, false
			}
		}
	}
	if len(cols) == 0 {
		p.errTok(i, fmt.Sprintf("%s has no columns: list at least one, as in %s (col)", what, what))
		return nil, nil, c + 1, false
	}
	return cols, spans, c + 1, true
}

// properties reads TBLPROPERTIES ('k' = 'v', k.k2 = v, ...) at token i.
func (p *stmtParser) properties(i int) (map[string]string, int, bool) {
	if !p.punct(i, '(') {
		p.errTok(i, fmt.Sprintf("TBLPROPERTIES needs a parenthesised list, found %s: write TBLPROPERTIES ('key' = 'value')", p.tokDesc(i)))
		return nil, i, false
	}
	c := p.closeParen(i)
	if c < 0 {
		p.errTok(i, "unclosed TBLPROPERTIES list: add the missing ')'")
		return nil, i, false
	}
	props := map[string]string{}
	k := i + 1
	for k < c {
		var key string
		if (p.toks[k].kind == tkString || p.sparkString(k)) && !p.toks[k].open {
			key = unescapeString(p.text[p.toks[k].start:p.toks[k].end])
			k++
		} else if name, _, next, ok := p.dottedName(k); ok {
			key = name
			k = next
		} else {
			p.errTok(k, fmt.Sprintf("expected a property key in TBLPROPERTIES, found %s: write 'key' = 'value'", p.tokDesc(k)))
			return nil, c + 1, false
		}
		if p.punct(k, '=') {
			k++
		}
		if k >= c {
			p.errTok(k, fmt.Sprintf("property %q has no value: write '%s' = 'value'", key, key))
			return nil, c + 1, false
		}
		sign := ""
		if (p.punct(k, '-') || p.punct(k, '+')) && k+1 < c && p.toks[k+1].kind == tkNumber {
			sign = p.text[p.toks[k].start:p.toks[k].end]
			k++
		}
		t := p.toks[k]
		switch {
		case (t.kind == tkString || p.sparkString(k)) && !t.open:
			props[key] = unescapeString(p.text[t.start:t.end])
		case t.kind == tkNumber || t.kind == tkWord:
			props[key] = sign + p.text[t.start:t.end]
		default:
			p.errTok(k, fmt.Sprintf("expected a value for property %q, found %s: write '%s' = 'value'", key, p.tokDesc(k), key))
			return nil, c + 1, false
		}
		k++
		if k < c {
			if !p.punct(k, ',') {
				p.errTok(k, fmt.Sprintf("expected ',' or ')' after property %q, found %s", key, p.tokDesc(k)))
				return nil, c + 1, false
			}
			k++
		}
	}
	return props, c + 1, true
}

// flow parses the part of CREATE FLOW after the name:
// [COMMENT '...'] AS INSERT INTO target [BY NAME] query.
func (p *stmtParser) flow(i int) {
	if p.kw(i, "COMMENT") {
		c, ok := p.stringAt(i+1, "COMMENT")
		if !ok {
			return
		}
		p.st.Comment = c
		i += 2
	}
	if !p.kw(i, "AS") {
		p.errTok(i, fmt.Sprintf("expected AS INSERT INTO after CREATE FLOW %s, found %s: write %s",
			p.st.Name, p.tokDesc(i), example(CreateFlow)))
		return
	}
	i++
	if p.kw(i, "AUTO") && p.kw(i+1, "CDC") || p.kw(i, "APPLY") && p.kw(i+1, "CHANGES") {
		p.autoCDCFlow(i)
		return
	}
	if !p.kw(i, "INSERT") || !p.kw(i+1, "INTO") {
		at := i
		if p.kw(i, "INSERT") {
			at = i + 1
		}
		p.errTok(at, fmt.Sprintf("a flow's body is INSERT INTO target followed by a query, found %s: write %s",
			p.tokDesc(at), example(CreateFlow)))
		return
	}
	i += 2
	if p.kw(i, "ONCE") && i+1 < len(p.toks) && (p.toks[i+1].kind == tkWord || p.toks[i+1].kind == tkQuoted) &&
		!p.kw(i+1, "SELECT", "WITH", "VALUES", "FROM", "BY") {
		// Databricks: INSERT INTO ONCE target, a one-time (backfill) flow
		p.syntax(capab.SynOnce, p.toks[i].start, p.toks[i].end)
		p.st.Once = true
		i++
	}
	if p.kw(i, "TABLE") && i+1 < len(p.toks) && (p.toks[i+1].kind == tkWord || p.toks[i+1].kind == tkQuoted) {
		i++
	}
	if p.kw(i, "SELECT", "WITH", "VALUES", "FROM") || p.punct(i, '(') {
		p.errTok(i, fmt.Sprintf("missing the target dataset's name after INSERT INTO: write %s", example(CreateFlow)))
		return
	}
	name, sp, next, ok := p.name(i, "the target dataset's name", "INSERT INTO")
	if !ok {
		return
	}
	p.st.Target, p.st.TargetLoc = name, sp
	p.liveTarget()
	i = next
	if p.kw(i, "BY") && p.kw(i+1, "NAME") {
		p.st.ByName = true
		i += 2
	}
	if i >= len(p.toks) {
		p.errTok(i, fmt.Sprintf("the flow has no query: write %s", example(CreateFlow)))
		return
	}
	if !startsQuery(p.text, p.toks[i:]) {
		p.errTok(i, fmt.Sprintf("expected a query after INSERT INTO %s, found %s: write INSERT INTO %s [BY NAME] SELECT ...",
			name, p.tokDesc(i), name))
		return
	}
	// The query starts at token i; reuse query(), which starts after i-1.
	p.query(i - 1)
}

// set parses SET key = value.
func (p *stmtParser) set() {
	p.st.Kind = Set
	if p.kw(1, "CATALOG") && len(p.toks) == 3 {
		// SET CATALOG c: like USE CATALOG, later unqualified names resolve
		// in c
		p.st.Kind = UseCatalog
		name := p.text[p.toks[2].start:p.toks[2].end]
		if p.toks[2].kind == tkString || p.toks[2].kind == tkQuoted {
			name = unquoteIdent(name)
			if p.toks[2].kind == tkString {
				name = unescapeString(p.text[p.toks[2].start:p.toks[2].end])
			}
		}
		p.st.SetValue = name
		return
	}
	if len(p.toks) == 1 {
		p.errTok(0, "SET needs a key and a value: write SET key = value")
		return
	}
	eq := -1
	for k := 1; k < len(p.toks); k++ {
		if p.punct(k, '=') {
			eq = k
			break
		}
	}
	switch {
	case eq < 0:
		// SET key shows the key's value and sets nothing (Databricks runs
		// it in a pipeline's SQL); not an error that stops the file.
		p.st.Kind = Unsupported
		p.diags = append(p.diags, ir.Diagnostic{
			Loc:      ir.Loc{File: p.file, Start: p.toks[1].start, End: lineEnd(p.text, p.toks[1].start, p.end)},
			Severity: ir.Warning, Code: ir.CodeSQLUnsupported,
			Message: "SET with a key and no value only shows the key's value and sets nothing: write SET key = value to set it, or remove the statement",
		})
		return
	case eq == 1:
		p.errTok(1, "SET is missing its key before '=': write SET key = value")
		return
	}
	key := strings.TrimSpace(p.text[p.toks[1].start:p.toks[eq-1].end])
	if eq == 2 && p.toks[1].kind == tkQuoted {
		key = unquoteIdent(key)
	}
	p.st.SetKey = key
	if eq+1 < len(p.toks) {
		p.st.SetValue = strings.TrimSpace(p.text[p.toks[eq+1].start:p.end])
	}
}

// use parses USE CATALOG c, USE SCHEMA|DATABASE|NAMESPACE s and USE s.
func (p *stmtParser) use() {
	p.st.Kind = UseSchema
	i := 1
	what := "USE"
	switch {
	case p.kw(1, "CATALOG"):
		p.st.Kind = UseCatalog
		what, i = "USE CATALOG", 2
	case p.kw(1, "SCHEMA", "DATABASE", "NAMESPACE"):
		what, i = "USE "+p.word(1), 2
	}
	switch {
	case i < len(p.toks) && p.toks[i].kind == tkString && !p.toks[i].open:
		p.st.SetValue = unescapeString(p.text[p.toks[i].start:p.toks[i].end])
		i++
	default:
		name, _, next, ok := p.dottedName(i)
		if !ok {
			p.errTok(i, fmt.Sprintf("%s needs a name, found %s: write %s name", what, p.tokDesc(i), what))
			return
		}
		p.st.SetValue = name
		i = next
	}
	if i < len(p.toks) {
		p.errTok(i, fmt.Sprintf("unexpected %s after %s %s: the statement takes one name", p.tokDesc(i), what, p.st.SetValue))
	}
}

// statementKeywords start the statements a pipeline file holds.
var statementKeywords = []string{"SELECT", "WITH", "VALUES", "FROM", "CREATE", "INSERT", "SET", "USE"}

// nearKeyword returns the statement keyword w (upper case) is one edit
// (or one swap of neighbours) away from, or "".
func nearKeyword(w string) string {
	if len(w) < 3 {
		return ""
	}
	for _, kw := range statementKeywords {
		if oneEdit(w, kw) {
			return kw
		}
	}
	return ""
}

// oneEdit reports whether a and b differ by one insertion, deletion,
// substitution or swap of neighbouring letters.
func oneEdit(a, b string) bool {
	if a == b {
		return false
	}
	if len(a) == len(b) {
		diff := []int{}
		for i := range a {
			if a[i] != b[i] {
				diff = append(diff, i)
			}
		}
		return len(diff) == 1 || len(diff) == 2 && diff[1] == diff[0]+1 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]]
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)-len(b) != 1 {
		return false
	}
	for i := range b {
		if a[i] != b[i] {
			return a[i+1:] == b[i:]
		}
	}
	return true
}
