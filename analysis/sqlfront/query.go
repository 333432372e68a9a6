package sqlfront

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/pganalyze/pg_query_go/v6/parser"
	"github.com/thund-dev/thund/analysis/sparksql/ast"

	"github.com/thund-dev/thund/ir"
)

// found is what a parser walk collects, as offsets into the parser input
// (that is, relative to the query's start).
type found struct {
	refs []foundRef
	// groups holds, per grouping SELECT, the offset of its first grouping
	// expression, or -1 when unknown (GROUP BY ALL).
	groups []int
	// aggs holds the offsets of aggregate calls' names.
	aggs []int
	// funcs holds every function call the parser saw.
	funcs []foundFunc
	// windows holds the offsets of window function calls (with OVER).
	windows []int
}

// foundFunc is a function call in a parse tree: where the parser says its
// name starts, and its argument count.
type foundFunc struct {
	off  int
	args int
}

type foundRef struct {
	off  int
	name string // the parser's (possibly case-folded) dotted name, a fallback
}

// scope is a chain of CTE names visible at a point of a query.
type scope struct {
	names  []string
	parent *scope
}

func (s *scope) has(name string, fold bool) bool {
	for ; s != nil; s = s.parent {
		for _, n := range s.names {
			if n == name || fold && strings.EqualFold(n, name) {
				return true
			}
		}
	}
	return false
}

// parseQuery parses the query text[sp], whose tokens are toks.
func parseQuery(file, text string, sp Span, toks []token, dialect Dialect, vars map[string]string) (*Query, []ir.Diagnostic) {
	return withFileReads(file, text, sp, toks, dialect, "", vars)
}

// parseQueryText is parseQuery once file reads are written as names.
func parseQueryText(file, text string, sp Span, toks []token, dialect Dialect, vars map[string]string) (*Query, []ir.Diagnostic) {
	q := &Query{Span: sp, Text: text[sp.Start:sp.End]}
	for k, t := range toks {
		// A quoted function name is a call (its name is checked as one),
		// and a quoted alias after AS names a column on Spark too.
		if t.kind != tkQuoted || text[t.start] != '"' || t.open {
			continue
		}
		if k+1 < len(toks) && toks[k+1].kind == tkPunct && text[toks[k+1].start] == '(' {
			continue
		}
		if k > 0 && toks[k-1].kind == tkWord && strings.EqualFold(text[toks[k-1].start:toks[k-1].end], "AS") {
			continue
		}
		q.DoubleQuoted = append(q.DoubleQuoted, Span{t.start, t.end})
	}
	norm, streams := normalize(text, sp, toks)
	q.Normalized = norm
	if sp.End-sp.Start > MaxQueryBytes {
		return q, []ir.Diagnostic{{
			Loc:      ir.Loc{File: file, Start: sp.Start, End: lineEnd(text, sp.Start, sp.End)},
			Severity: ir.Warning, Code: ir.CodeSQLSyntax,
			Message: fmt.Sprintf("query not analysed: it is %d MB, over Thund's %d MB limit, so its syntax and the tables it reads are not checked; split it into smaller views",
				(sp.End-sp.Start)>>20, MaxQueryBytes>>20),
		}}
	}
	// An unterminated `quoted name`: DuckDB would read the backtick as an
	// operator and the query would seem fine.
	for _, t := range toks {
		if t.kind == tkQuoted && t.open {
			return q, []ir.Diagnostic{{
				Loc:      ir.Loc{File: file, Start: t.start, End: lineEnd(text, t.start, t.end)},
				Severity: ir.Error, Code: ir.CodeSQLSyntax,
				Message: fmt.Sprintf("unterminated quoted name: close it with a matching %c", text[t.start]),
			}}
		}
	}
	input := sanitize(norm)
	if dialect == DialectSpark {
		return sparkQuery(file, text, sp, toks, q, input, vars)
	}
	var f found
	var diags []ir.Diagnostic
	parsed, pgErr, res, d := parseInput(file, text, sp, toks, input, &f)
	if parsed == "" && d == nil {
		if alt, changed := sparkTolerant(text, input, sp, toks); changed {
			duckRes := res
			parsed, _, _, d = parseInput(file, text, sp, toks, alt, &f)
			if parsed != "" && d == nil {
				q.SparkOnly, q.SparkOnlyMessage = duckStop(text, sp, toks, input, duckRes)
			}
		}
	}
	if parsed == "postgres" && d == nil && q.SparkOnly == nil && usesDuckReserved(text, toks) {
		// PostgreSQL read it, but a word DuckDB reserves (a table called
		// pivot, an alias semi) stops DuckDB's parser, so it cannot run
		// natively. Checked only when such a word appears.
		if r, err := duckParse(input); err == nil && r.failed {
			q.SparkOnly, q.SparkOnlyMessage = duckStop(text, sp, toks, input, r)
		}
	}
	switch {
	case d != nil:
		return q, d
	case parsed != "":
		q.Parser = parsed
		if parsed == "duckdb" && sparkOnlyGroupByAll(input) {
			// GROUP BY ALL is Spark SQL too (since 3.4): a query whose only
			// DuckDB-ism it is stays portable.
			q.Parser = "postgres"
		}
	default:
		diags = append(diags, syntaxDiag(file, text, sp, toks, input, pgErr, res))
	}
	q.Refs = makeRefs(file, text, sp, f.refs, streams)
	q.Normalized = unqualify(q.Normalized, text, sp, q.Refs)
	q.Funcs = makeFuncs(file, text, sp, f.funcs)
	if len(f.groups) > 0 || len(f.aggs) > 0 {
		q.Aggregates = true
		q.AggLoc = aggLoc(text, sp, toks, &f)
	}
	return q, diags
}

// sparkQuery reads the query text[sp] in the Spark dialect: Spark's grammar
// decides whether it is valid and which tables it reads; PostgreSQL's and
// DuckDB's parsers only say whether the native engine can run it as
// written (Query.SparkOnly).
func sparkQuery(file, text string, sp Span, toks []token, q *Query, input string, vars map[string]string) (*Query, []ir.Diagnostic) {
	sr := readSpark(file, text, sp, vars)
	if sr.notQuery {
		lead, kw := leadingKeywords(text, toks)
		return q, []ir.Diagnostic{{
			Loc:      lead.Loc(file),
			Severity: ir.Error, Code: ir.CodeSQLNotQuery,
			Message: kw + " is not a query: a dataset or flow is defined by a query (SELECT, WITH, VALUES or FROM ...)",
		}}
	}
	if sr.err != nil {
		return q, []ir.Diagnostic{sparkSyntaxDiag(file, text, sp, toks, sr.err)}
	}
	q.Spark = sr.query
	if sr.watermark != nil {
		q.Watermark = sqlWatermark(file, text, sr.watermark)
	}
	for _, r := range sr.refs {
		q.Refs = append(q.Refs, ir.Ref{Name: r.name, Streaming: r.stream, Loc: ir.Loc{File: file, Start: r.loc.Start, End: r.loc.End}})
	}
	sort.SliceStable(q.Refs, func(i, j int) bool { return q.Refs[i].Loc.Start < q.Refs[j].Loc.Start })
	q.Normalized = unqualify(q.Normalized, text, sp, q.Refs)
	q.Funcs = sr.funcs
	sort.SliceStable(q.Funcs, func(i, j int) bool { return q.Funcs[i].Loc.Start < q.Funcs[j].Loc.Start })
	switch {
	case len(sr.groups) > 0:
		first := sr.groups[0]
		for _, g := range sr.groups {
			if g.Start < first.Start {
				first = g
			}
		}
		q.Aggregates, q.AggLoc = true, groupByKeywords(text, first)
	case len(sr.aggs) > 0:
		first := sr.aggs[0]
		for _, a := range sr.aggs {
			if a.Start < first.Start {
				first = a
			}
		}
		q.Aggregates, q.AggLoc = true, Span{first.Start, first.End}
	}
	q.Shape = queryShape(file, sr.query)
	q.Parser = "postgres"
	q.native = nativeCheck{pending: true, file: file, text: text, input: input, sp: sp, tree: sr.query}
	return q, nil
}

// nativeCheck holds what CheckNative needs of a Spark dialect query: the
// text it was parsed from (file reads written as names), the sanitised
// query and its Spark tree.
type nativeCheck struct {
	pending           bool
	file, text, input string
	sp                Span
	tree              *ast.Query
}

// CheckNative answers, once, whether the native engine can run the query
// as written (Spark dialect; it does nothing otherwise, or the second
// time): it sets SparkOnly and SparkOnlyMessage when DuckDB's parser
// stops (Parser is then "spark"), and returns the syntax error of a text
// DuckDB reads as a statement that is no query. ParseDialect runs it for
// every query; after ParseDialectDeferred the caller does, for the
// queries that run as written. Like the rest of a Query, it is not safe
// for concurrent use.
func (q *Query) CheckNative() []ir.Diagnostic {
	n := q.native
	if !n.pending {
		return nil
	}
	q.native = nativeCheck{}
	file, text, input, sp := n.file, n.text, n.input, n.sp
	if n.tree != nil && strings.Contains(text[sp.Start:sp.End], "${") {
		// Spark substitutes the pipeline's parameters before it parses,
		// so the text as written is not what runs: the translation of
		// the substituted tree is.
		return nil
	}
	// The query's tokens are scanned again here rather than kept from
	// the parse: most queries are never checked (only the flows that run
	// as written are), and a kept token list held its whole file's
	// tokens alive in the snapshot. They are the ones the parse had:
	// the splitter's tokens of a statement are lexRange's over its span
	// (TestSplitterTokensAreLexRange).
	toks := lexRange(text, sp.Start, sp.End)
	// Can the native engine run the text as written? It hands it to
	// DuckDB, which reads a large part of Spark SQL but not all of it.
	// PostgreSQL's grammar, which DuckDB's derives from, answers most
	// texts without building a tree; DuckDB's own parser the rest. The
	// Spark tree already answers for the plain queries most pipelines
	// are made of (pgfast.go), so those never reach PostgreSQL's parser.
	fast := pgReadsTree(text, input, sp, n.tree)
	if pgFastHook != nil {
		pgFastHook(text[sp.Start:sp.End], fast, pgReads(input))
	}
	if fast || pgReads(input) {
		if usesDuckReserved(text, toks) {
			if r, err := duckParse(input); err == nil && r.failed {
				q.SparkOnly, q.SparkOnlyMessage = duckStop(text, sp, toks, input, r)
			}
		}
		return nil
	}
	res, err := duckParse(input)
	switch {
	case err == nil && !res.failed:
		return nil
	case res.opaque && strings.Contains(res.message, "Only SELECT"):
		_, pgErr := pg_query.Parse(input)
		return []ir.Diagnostic{syntaxDiag(file, text, sp, toks, input, pgErr, res)}
	}
	q.Parser = "spark"
	q.SparkOnly, q.SparkOnlyMessage = duckStop(text, sp, toks, input, res)
	return nil
}

// pgFastHook, when set (by tests), is told for every query of the Spark
// dialect what pgReadsTree and pgReads answered.
var pgFastHook func(query string, fast, postgres bool)

// pgReads reports whether PostgreSQL's grammar reads input as exactly one
// statement. It asks the parser for the statements' bounds only, which
// costs a fraction of a full parse tree.
func pgReads(input string) bool {
	stmts, err := pg_query.SplitWithParser(input, true)
	return err == nil && len(stmts) == 1
}

// sparkSyntaxDiag turns a Spark syntax error into a diagnostic.
func sparkSyntaxDiag(file, text string, sp Span, toks []token, e *ast.SyntaxError) ir.Diagnostic {
	r := Span{max(e.Start, sp.Start), min(max(e.End, e.Start), sp.End)}
	if r.Start >= sp.End && len(toks) > 0 {
		// at the end of the query: point at its last token
		t := toks[len(toks)-1]
		r = Span{t.start, t.end}
	}
	if r.End > r.Start {
		r.End = lineEnd(text, r.Start, r.End)
	}
	d := ir.Diagnostic{Loc: r.Loc(file), Severity: ir.Error, Code: ir.CodeSQLSyntax, Message: e.Message}
	if e.Class == "THUND_LIMIT" {
		d.Severity = ir.Warning
		d.Message = "query not analysed: it nests too deeply for Thund's parser (" + e.Message +
			"), so its syntax and the tables it reads are not checked; flatten it with WITH clauses"
	}
	return d
}

// duckReserved are words DuckDB's grammar reserves that PostgreSQL's does
// not: a query using one as a name parses with PostgreSQL only.
var duckReserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields("anti asof columns describe glob lambda pivot pivot_longer pivot_wider positional qualify semi show summarize unpivot try_cast struct map") {
		duckReserved[w] = true
	}
}

// DuckDBReserves reports whether DuckDB's grammar reserves word (lower
// case), beyond the words PostgreSQL reserves: such a name must be quoted
// to run natively.
func DuckDBReserves(word string) bool { return duckReserved[word] }

// usesDuckReserved reports whether a query's words include one DuckDB
// reserves.
func usesDuckReserved(text string, toks []token) bool {
	for _, t := range toks {
		if t.kind == tkWord && t.end-t.start <= 12 && in(duckReserved, text[t.start:t.end]) {
			return true
		}
	}
	return false
}

// duckStop is where DuckDB's parser rejected input (the query text[sp]),
// with its message, for a query only Spark's syntax reads.
func duckStop(text string, sp Span, toks []token, input string, res duckResult) (*Span, string) {
	msg := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(res.message)
	if res.hasPos {
		if pos := charToByte(input, res.pos); pos >= 0 && sp.Start+pos < sp.End {
			r := errorRange(text, sp, toks, sp.Start+pos)
			return &r, msg
		}
	}
	if len(toks) == 0 {
		return &Span{sp.Start, lineEnd(text, sp.Start, sp.End)}, msg
	}
	t := toks[0]
	return &Span{t.start, lineEnd(text, t.start, t.end)}, msg
}

var groupByAll = regexp.MustCompile(`(?i)\bGROUP\s+BY\s+ALL\b`)

// sparkOnlyGroupByAll reports whether PostgreSQL accepts the query once
// each GROUP BY ALL is read as GROUP BY 1 (same length), that is, whether
// GROUP BY ALL is what only DuckDB's parser understood.
func sparkOnlyGroupByAll(input string) bool {
	if !groupByAll.MatchString(input) {
		return false
	}
	alt := groupByAll.ReplaceAllStringFunc(input, func(m string) string { return m[:len(m)-3] + "1  " })
	_, err := pg_query.Parse(alt)
	return err == nil
}

// parseInput parses input with PostgreSQL, then DuckDB, and walks the tree
// of the first that accepts it into f. It returns that parser's name ("" if
// neither accepted it), their errors, and a diagnostic when PostgreSQL read
// a statement that is not a query.
func parseInput(file, text string, sp Span, toks []token, input string, f *found) (string, error, duckResult, []ir.Diagnostic) {
	tree, pgErr := pg_query.Parse(input)
	if pgErr == nil {
		if d, ok := pgCheck(file, text, sp, toks, tree); !ok {
			return "", nil, duckResult{}, d
		}
		w := pgWalker{f: f}
		w.sel(tree.Stmts[0].Stmt.GetSelectStmt(), nil, false)
		return "postgres", nil, duckResult{}, nil
	}
	res, duckErr := duckParse(input)
	if duckErr == nil && !res.failed {
		w := duckWalker{f: f, n: len(input)}
		w.walk(res.stmt, nil, false)
		return "duckdb", pgErr, res, nil
	}
	return "", pgErr, res, nil
}

// sanitize prepares the normalized text for the C parsers: NUL bytes (which
// would end the C string) become spaces and bytes of invalid UTF-8 become
// '_', one byte for one, so offsets are kept.
func sanitize(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); {
		if b[i] == 0 {
			b[i] = ' '
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			b[i] = '_'
		}
		i += size
	}
	return string(b)
}

// pgCheck verifies that the parse tree is one plain query.
func pgCheck(file, text string, sp Span, toks []token, tree *pg_query.ParseResult) ([]ir.Diagnostic, bool) {
	msg := ""
	switch {
	case len(tree.Stmts) != 1 || tree.Stmts[0].Stmt == nil:
		msg = "expected one query"
	case tree.Stmts[0].Stmt.GetSelectStmt() == nil:
		msg = "this statement is not a query"
	case tree.Stmts[0].Stmt.GetSelectStmt().IntoClause != nil:
		msg = "SELECT ... INTO creates a table and is not a query"
	default:
		return nil, true
	}
	lead, _ := leadingKeywords(text, toks)
	return []ir.Diagnostic{{
		Loc:      lead.Loc(file),
		Severity: ir.Error, Code: ir.CodeSQLNotQuery,
		Message: msg + ": a dataset or flow is defined by a query (SELECT, WITH, VALUES or FROM ...)",
	}}, false
}

// syntaxDiag reports a query neither grammar accepts, at the DuckDB error
// position if there is one, else at PostgreSQL's.
func syntaxDiag(file, text string, sp Span, toks []token, input string, pgErr error, res duckResult) ir.Diagnostic {
	msg, pos := pgErr.Error(), -1
	var pe *parser.Error
	if errors.As(pgErr, &pe) {
		msg = pe.Message
		if pe.Cursorpos > 0 {
			pos = charToByte(input, pe.Cursorpos-1)
		}
	}
	if res.hasPos {
		msg, pos = res.message, charToByte(input, res.pos)
	}
	var r Span
	switch {
	case pos < 0:
		t := toks[0]
		r = Span{t.start, lineEnd(text, t.start, t.end)}
	case sp.Start+pos >= sp.End:
		t := toks[len(toks)-1]
		r = Span{t.start, lineEnd(text, t.start, t.end)}
	default:
		r = errorRange(text, sp, toks, sp.Start+pos)
	}
	if res.opaque && strings.Contains(res.message, "Only SELECT") {
		// DuckDB reads more than one statement, or one that is not a
		// query, where Thund reads one query: the engine would refuse it.
		t := toks[0]
		return ir.Diagnostic{
			Loc:      ir.Loc{File: file, Start: t.start, End: lineEnd(text, t.start, t.end)},
			Severity: ir.Error, Code: ir.CodeRefusedSQL,
			Message: "DuckDB reads this query as more than one statement, or as a statement that is not a query, so it will not run: " +
				"remove what quotes or comments hide from Spark (a number glued to $$, E'...' strings, $$...$$ quotes), or name a PIVOT's values (FOR col IN (...)); PostgreSQL says: " + pgErr.Error(),
		}
	}
	if res.opaque {
		t := toks[0]
		return ir.Diagnostic{
			Loc:      ir.Loc{File: file, Start: t.start, End: lineEnd(text, t.start, t.end)},
			Severity: ir.Warning, Code: ir.CodeSQLSyntax,
			Message: "query not analysed: DuckDB reads it but cannot describe it (" + res.message +
				"), so the tables it reads are not checked; PostgreSQL says: " + pgErr.Error(),
		}
	}
	msg = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(msg)
	if tooDeep(msg) {
		return ir.Diagnostic{
			Loc:      r.Loc(file),
			Severity: ir.Warning, Code: ir.CodeSQLSyntax,
			Message: "query not analysed: it nests too deeply for Thund's parsers (" + msg +
				"), so its syntax and the tables it reads are not checked; flatten it with WITH clauses",
		}
	}
	return ir.Diagnostic{
		Loc:      r.Loc(file),
		Severity: ir.Error, Code: ir.CodeSQLSyntax,
		Message: msg + ": " + syntaxHint(msg),
	}
}

// tooDeep reports whether a parser gave up on the query's nesting rather
// than its syntax.
func tooDeep(msg string) bool {
	for _, s := range []string{"recursion depth", "memory exhausted", "stack depth", "expression depth"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// errorRange is the range of the token at off (from off to the token's end,
// within its line), or of the character(s) there when off is in a comment.
func errorRange(text string, sp Span, toks []token, off int) Span {
	k := sort.Search(len(toks), func(k int) bool { return toks[k].end > off })
	if k < len(toks) && toks[k].start <= off {
		return Span{off, lineEnd(text, off, toks[k].end)}
	}
	n := 1
	if strings.HasPrefix(text[off:], "/*") {
		n = 2
	} else if _, size := utf8.DecodeRuneInString(text[off:]); size > 1 {
		n = size
	}
	return Span{off, min(off+n, sp.End)}
}

func syntaxHint(msg string) string {
	switch {
	case strings.Contains(msg, "unterminated quoted string"):
		return "close the string with a matching quote (in Spark SQL a backslash escapes the next character, so '\\' does not close a string)"
	case strings.Contains(msg, "unterminated quoted identifier"):
		return "close the quoted name with a matching double quote"
	case strings.Contains(msg, "unterminated /* comment"):
		return "close the comment with */ (block comments nest, so every /* needs its own */)"
	case strings.Contains(msg, "unterminated dollar-quoted string"):
		return "close the string with the same $tag$ that opened it"
	case strings.Contains(msg, "at end of input"):
		return "the query ends too early: complete its last clause or close the open parenthesis"
	case strings.Contains(msg, "at or near"):
		return "check the SQL just before this point for a missing comma, parenthesis or keyword, or a misspelt one (Thund reads PostgreSQL and DuckDB syntax)"
	}
	return "Thund reads PostgreSQL and DuckDB syntax; rewrite the query in it"
}

// makeRefs turns the parser's table references into ir.Refs, reading each
// name as written in the file.
func makeRefs(file, text string, sp Span, refs []foundRef, streams map[int]bool) []ir.Ref {
	var out []ir.Ref
	for _, r := range refs {
		off := sp.Start + r.off
		if r.off < 0 || off >= sp.End || text[off] == '\'' {
			continue // no location, or a file path read by DuckDB ('data.csv')
		}
		name, end, ok := scanName(text, off, sp.End)
		if !ok {
			name, end = r.name, off+1
		}
		if isFilePath(name) {
			continue
		}
		out = append(out, ir.Ref{Name: name, Streaming: streams[off], Loc: ir.Loc{File: file, Start: off, End: end}})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Loc.Start < out[j].Loc.Start })
	return out
}

// systemSchemas are qualifiers that name DuckDB's own catalogs, kept as
// written.
var systemSchemas = map[string]bool{"information_schema": true, "pg_catalog": true, "system": true, "temp": true}

// unqualify blanks the qualifiers of the table references in norm (the
// normalized query text[sp]): FROM sales.orders becomes FROM       orders.
// The native engine keeps every dataset and source under its last name
// part (the pipeline's catalog and database are implicit there), so the
// qualified name would not resolve in DuckDB; blanking keeps every offset.
func unqualify(norm, text string, sp Span, refs []ir.Ref) string {
	var b []byte
	for _, r := range refs {
		if !strings.Contains(r.Name, ".") || systemSchemas[strings.ToLower(r.Name[:strings.IndexByte(r.Name, '.')])] {
			continue
		}
		last := lastPartStart(text, r.Loc.Start, r.Loc.End)
		if last <= r.Loc.Start || last > r.Loc.End || r.Loc.Start < sp.Start || r.Loc.End > sp.End {
			continue
		}
		if b == nil {
			b = []byte(norm)
		}
		for i := r.Loc.Start; i < last; i++ {
			if b[i-sp.Start] != '\n' && b[i-sp.Start] != '\r' {
				b[i-sp.Start] = ' '
			}
		}
	}
	if b == nil {
		return norm
	}
	return string(b)
}

// lastPartStart returns where the last part of the dotted name at
// text[start:end] begins (start for a plain name).
func lastPartStart(text string, start, end int) int {
	last := start
	i := start
	for {
		e, _, ok := scanIdentPart(text, i, end)
		if !ok {
			return last
		}
		j := e
		for j < end && isSpace(text[j]) {
			j++
		}
		if j >= end || text[j] != '.' {
			return last
		}
		j++
		for j < end && isSpace(text[j]) {
			j++
		}
		last, i = j, j
	}
}

// makeFuncs turns the parser's function calls into FuncRefs, reading each
// name as written in the file. A call is kept only when the text at its
// location is a name followed by "(": parsers also report operators,
// literals and keyword syntax as calls, and those are not names the user
// wrote.
func makeFuncs(file, text string, sp Span, funcs []foundFunc) []FuncRef {
	var out []FuncRef
	seen := map[int]bool{}
	for _, fn := range funcs {
		off := sp.Start + fn.off
		if fn.off < 0 || off >= sp.End || seen[off] {
			continue
		}
		name, end, ok := scanName(text, off, sp.End)
		if !ok {
			continue
		}
		if next, _ := skipTrivia(text, end, sp.End); next >= sp.End || text[next] != '(' {
			continue
		}
		seen[off] = true
		out = append(out, FuncRef{Name: name, Loc: ir.Loc{File: file, Start: off, End: end}, Args: fn.args})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Loc.Start < out[j].Loc.Start })
	return out
}

// fileFormats are the qualifiers of Spark's path tables (parquet.`/data/x`).
var fileFormats = map[string]bool{
	"parquet": true, "json": true, "csv": true, "orc": true, "text": true, "avro": true,
	"delta": true, "binaryfile": true, "xml": true,
}

// isFilePath reports whether a reference names a file rather than a table,
// as Spark's parquet.`/data/x` does.
func isFilePath(name string) bool {
	format, path, ok := strings.Cut(name, ".")
	return ok && fileFormats[strings.ToLower(format)] && strings.Contains(path, "/")
}

// aggLoc returns the first GROUP BY's range, else the first aggregate call's
// name.
func aggLoc(text string, sp Span, toks []token, f *found) Span {
	best := Span{-1, -1}
	for _, g := range f.groups {
		s := groupBy(text, sp, toks, g)
		if s.Start >= 0 && (best.Start < 0 || s.Start < best.Start) {
			best = s
		}
	}
	if best.Start >= 0 {
		return best
	}
	for _, a := range f.aggs {
		off := sp.Start + a
		if a < 0 || off >= sp.End {
			continue
		}
		if best.Start >= 0 && off >= best.Start {
			continue
		}
		_, end, ok := scanName(text, off, sp.End)
		if !ok {
			end = off + 1
		}
		best = Span{off, end}
	}
	if best.Start < 0 {
		return Span{sp.Start, sp.Start}
	}
	return best
}

// groupBy finds the GROUP BY keywords before the grouping expression at
// query offset g (or the first GROUP BY when g < 0).
func groupBy(text string, sp Span, toks []token, g int) Span {
	word := func(k int) string {
		if k < 0 || k >= len(toks) || toks[k].kind != tkWord {
			return ""
		}
		return strings.ToUpper(text[toks[k].start:toks[k].end])
	}
	pair := func(k int) (Span, bool) {
		if word(k) == "GROUP" && word(k+1) == "BY" {
			return Span{toks[k].start, toks[k+1].end}, true
		}
		return Span{}, false
	}
	if g >= 0 {
		off := sp.Start + g
		k := sort.Search(len(toks), func(k int) bool { return toks[k].end > off })
		for j := k - 2; j >= 0; j-- {
			if s, ok := pair(j); ok {
				return s
			}
		}
	}
	for j := range toks {
		if s, ok := pair(j); ok {
			return s
		}
	}
	return Span{-1, -1}
}
