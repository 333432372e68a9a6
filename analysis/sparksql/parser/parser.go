// Package parser reads Spark SQL into the syntax tree of package ast. It is
// a hand-written recursive-descent parser over the tokens of package lex,
// following the rules of Spark's grammar (SqlBaseParser.g4) for Spark 4.1
// to 4.3, with Spark's keyword behaviour: by default every keyword can be
// an identifier (the join and set-operation words only where the grammar
// allows a non-strict identifier); with [Options.ANSI] the reserved
// keywords cannot.
//
// Where Spark's ANTLR parser decides between two readings by looking
// arbitrarily far ahead (a parenthesis that opens a query or an
// expression, TIMESTAMPADD(unit, ...) or timestampadd(x, y)), the parser
// tries the first reading and falls back to the second, as ANTLR's
// prediction does. Each statement gets at most one syntax error, at the
// token where no reading goes on; the parser then skips to the next
// semicolon and goes on, so a broken statement never hides the rest of
// the file.
package parser

import (
	"fmt"
	"strings"
	"sync"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// Version is a Spark version the grammar differs between.
type Version uint8

// The Spark versions the parser knows. The zero value is Spark 4.1.
const (
	Spark41 Version = iota
	Spark42
	Spark43
)

// String returns "4.1", "4.2" or "4.3".
func (v Version) String() string {
	switch v {
	case Spark41:
		return "4.1"
	case Spark42:
		return "4.2"
	case Spark43:
		return "4.3"
	}
	return fmt.Sprintf("Version(%d)", uint8(v))
}

// Options are the settings that change how Spark parses.
type Options struct {
	// Version is the Spark version whose grammar applies.
	Version Version
	// ANSI is Spark's SQL-standard keyword behaviour
	// (spark.sql.ansi.enabled with spark.sql.ansi.enforceReservedKeywords):
	// reserved keywords are not identifiers.
	ANSI bool
	// DoubleQuotedIdentifiers is spark.sql.ansi.doubleQuotedIdentifiers:
	// "x" is an identifier, not a string.
	DoubleQuotedIdentifiers bool
	// Databricks reads the Lakeflow Declarative Pipelines (Delta Live
	// Tables) forms that Databricks SQL has and Spark does not: CREATE OR
	// REFRESH, CREATE PRIVATE | TEMPORARY STREAMING TABLE | MATERIALIZED
	// VIEW, CREATE [STREAMING] LIVE TABLE, CREATE [TEMPORARY] LIVE VIEW,
	// CONSTRAINT c EXPECT (cond) [ON VIOLATION DROP ROW | FAIL UPDATE],
	// APPLY CHANGES INTO with APPLY AS TRUNCATE WHEN and IGNORE NULL
	// UPDATES, CLUSTER BY AUTO | NONE, a streaming table's FLOW INSERT
	// [ONCE] BY NAME and FLOW REPLACE WHERE ... BY NAME flows, and AUTO
	// CDC whatever the Version. Without it each of them is Spark's syntax
	// error with a note naming the Databricks form.
	Databricks bool
	// Vars are the pipeline's parameters (its `configuration:`), which
	// Spark substitutes into the text wherever ${key} appears before it
	// parses (see lex.LexParams): the tree holds the substituted names and
	// values, at the ranges of the references as written. With Vars nil
	// nothing is substituted, as in a plain Spark SQL text. A reference
	// whose value is surely wrong on Spark (an unset key, which Spark reads
	// as empty text, a redacted value, the server's environment) is the
	// statement's error, at the reference.
	Vars map[string]string
}

// maxDepth bounds the nesting of expressions and queries; Spark's own
// parser fails on deep nesting with a stack overflow, Thund with an error.
const maxDepth = 1000

// maxTries bounds the readings tried per statement, so that no text can
// make the parser's fall-backs take exponential time.
const maxTries = 20000

// Parse parses src, a whole text of statements separated by semicolons.
// It never fails: syntax errors are in the script's Errors (at most one
// per statement, whose node is then an *ast.BadStmt).
func Parse(src string, opts Options) *ast.Script {
	p := newParser(src, opts)
	defer p.release()
	sc := &ast.Script{Range: ast.Range{Start: 0, End: len(src)}, Comments: p.comments}
	for {
		for p.tok().Kind == lex.Semicolon {
			p.pos++
		}
		if p.atEOF() {
			break
		}
		st, err := p.statementRecover(false)
		sc.Stmts = append(sc.Stmts, st)
		if err != nil {
			sc.Errors = append(sc.Errors, err)
		}
	}
	if p.unclosed != nil {
		sc.Errors = append(sc.Errors, p.unclosed)
	}
	return sc
}

// ParseStatement parses src as exactly one statement, as Spark's
// singleStatement rule does (the statement, any semicolons after it, and
// the end of the text), SQL scripting blocks (BEGIN ... END) included.
// The statement is an *ast.BadStmt when there are errors.
func ParseStatement(src string, opts Options) (ast.Stmt, []*ast.SyntaxError) {
	p := newParser(src, opts)
	defer p.release()
	if p.unclosed != nil {
		return &ast.BadStmt{Range: ast.Range{Start: 0, End: len(src)}}, []*ast.SyntaxError{p.unclosed}
	}
	for p.tok().Kind == lex.Semicolon {
		p.pos++
	}
	if p.atEOF() {
		return &ast.BadStmt{Range: ast.Range{Start: 0, End: len(src)}}, []*ast.SyntaxError{{
			Range: ast.Range{Start: 0, End: len(src)}, Class: "PARSE_EMPTY_STATEMENT",
			Message: "syntax error, unexpected empty statement: write a query or a command",
		}}
	}
	st, err := p.statementRecover(true)
	if err != nil {
		return st, []*ast.SyntaxError{err}
	}
	return st, nil
}

// ParseStatementAt is ParseStatement of text[start:end], with every range
// of the tree and the errors an offset into text: a caller holding a whole
// file parses one of its statements without copying it.
func ParseStatementAt(text string, start, end int, opts Options) (ast.Stmt, []*ast.SyntaxError) {
	start = max(0, min(start, len(text)))
	end = max(start, min(end, len(text)))
	p := newParserAt(text, start, end, opts)
	defer p.release()
	whole := ast.Range{Start: start, End: end}
	if p.unclosed != nil {
		return &ast.BadStmt{Range: whole}, []*ast.SyntaxError{p.unclosed}
	}
	for p.tok().Kind == lex.Semicolon {
		p.pos++
	}
	if p.atEOF() {
		return &ast.BadStmt{Range: whole}, []*ast.SyntaxError{{
			Range: whole, Class: "PARSE_EMPTY_STATEMENT",
			Message: "syntax error, unexpected empty statement: write a query or a command",
		}}
	}
	st, err := p.statementRecover(true)
	if err != nil {
		return st, []*ast.SyntaxError{err}
	}
	return st, nil
}

// ParseExpression parses src as one expression with an optional alias
// (Spark's singleExpression).
func ParseExpression(src string, opts Options) (ast.Expr, []*ast.SyntaxError) {
	p := newParser(src, opts)
	defer p.release()
	if p.unclosed != nil {
		return &ast.BadExpr{Range: ast.Range{Start: 0, End: len(src)}}, []*ast.SyntaxError{p.unclosed}
	}
	var x ast.Expr
	err := p.guard(func() {
		x = p.expr()
		if !p.atEOF() {
			p.fail("")
		}
	})
	if p.params != nil {
		err = p.paramError(0, len(src)+1, err)
	}
	if err != nil {
		return &ast.BadExpr{Range: ast.Range{Start: 0, End: len(src)}}, []*ast.SyntaxError{err}
	}
	return x, nil
}

// ParseDataType parses src as one data type (Spark's singleDataType).
func ParseDataType(src string, opts Options) (*ast.DataType, []*ast.SyntaxError) {
	p := newParser(src, opts)
	defer p.release()
	if p.unclosed != nil {
		return nil, []*ast.SyntaxError{p.unclosed}
	}
	var t *ast.DataType
	err := p.guard(func() {
		t = p.dataType()
		if !p.atEOF() {
			p.fail("")
		}
	})
	if err != nil {
		return nil, []*ast.SyntaxError{err}
	}
	return t, nil
}

type parser struct {
	src  string
	opts Options
	// toks are the tokens without comments, ending with an EOF token
	// (Kind Invalid) at len(src).
	toks     []lex.Token
	comments []ast.Range
	pos      int
	depth    int
	tries    int
	// far is the furthest error of the current statement: when every
	// reading fails, the error reported is the one that got furthest, as
	// ANTLR reports.
	far *ast.SyntaxError
	// unclosed is the error of an unterminated /* comment, which Spark
	// reports for the whole text.
	unclosed *ast.SyntaxError
	// idents is the rest of the chunk identifiers are taken from (see
	// newIdent).
	idents []ast.Ident
	// identHint is the size of the first chunk: the number of tokens
	// that are identifiers and no keyword, which is how many identifiers
	// the tree of a statement without keywords used as names holds.
	identHint int
	// alloc are the chunks other nodes are taken from (alloc.go).
	alloc allocs
	// params are the ${...} references of the text (Options.Vars).
	params []lex.Param
}

// bailout is the panic value that abandons the statement being parsed.
type bailout struct{ err *ast.SyntaxError }

func newParser(src string, opts Options) *parser { return newParserAt(src, 0, len(src), opts) }

// tokenBufs recycles the parsers' token slices: the tree keeps no token,
// so a parse's tokens are garbage as soon as it returns, and a cold load
// of thousands of files would otherwise allocate (and clear) one slice
// per statement.
var tokenBufs = sync.Pool{New: func() any { return new([]lex.Token) }}

// maxPooledTokens bounds the slices kept for reuse (a huge statement's
// tokens are left to the collector).
const maxPooledTokens = 1 << 14

// release hands p's token slice back for reuse; p must not be used after.
func (p *parser) release() {
	if cap(p.toks) > maxPooledTokens {
		return
	}
	buf := p.toks[:0]
	p.toks = nil
	tokenBufs.Put(&buf)
}

// newParserAt makes a parser of src[start:end] whose offsets are offsets
// into src. The caller releases it when done.
func newParserAt(src string, start, end int, opts Options) *parser {
	p := &parser{src: src, opts: opts}
	bufp := tokenBufs.Get().(*[]lex.Token)
	dst := (*bufp)[:0]
	if want := (end-start)/4 + 4; cap(dst) < want {
		dst = make([]lex.Token, 0, want)
	}
	var all []lex.Token
	if opts.Vars != nil {
		all, p.params = lex.LexParams(dst, src, start, end, opts.Vars)
	} else {
		all = lex.LexInto(dst, src, start, end)
	}
	// comments move out of the token stream, which is filtered in place
	p.toks = all[:0]
	for _, t := range all {
		switch {
		case t.Kind.IsComment():
			p.comments = append(p.comments, ast.Range{Start: t.Start, End: t.End})
		case t.Kind == lex.UnterminatedComment:
			p.comments = append(p.comments, ast.Range{Start: t.Start, End: t.End})
			if p.unclosed == nil {
				p.unclosed = &ast.SyntaxError{
					Range: ast.Range{Start: t.Start, End: min(t.Start+2, t.End)},
					Class: "UNCLOSED_BRACKETED_COMMENT", Message: t.Message(),
				}
			}
		default:
			if t.Kind == lex.QuotedIdent || t.Kind == lex.Ident && t.Keyword == lex.NoKeyword {
				p.identHint++
			}
			p.toks = append(p.toks, t)
		}
	}
	p.toks = append(p.toks, lex.Token{Kind: lex.Invalid, Start: end, End: end})
	return p
}

// statementRecover parses one statement; on a syntax error it skips to
// the next top-level semicolon (single: to the end) and returns a BadStmt.
func (p *parser) statementRecover(single bool) (ast.Stmt, *ast.SyntaxError) {
	start := p.pos
	p.far, p.tries = nil, 0
	var st ast.Stmt
	var partial ast.Stmt
	err := p.guard(func() {
		st = p.statement(&partial)
		if o, ok := st.(*ast.Other); ok {
			p.otherTexts(o)
		}
		for p.tok().Kind == lex.Semicolon && single {
			p.pos++
		}
		if single && !p.atEOF() {
			p.fail("")
		}
		if !single && !p.atEOF() && p.tok().Kind != lex.Semicolon {
			p.failMissingSemicolon()
		}
	})
	from := p.toks[start].Start
	if p.params != nil {
		// up to the next token (a reference read as empty text may end
		// the statement); a reference after a syntax error does not matter
		to := p.toks[min(max(p.pos, start), len(p.toks)-1)].Start
		if err != nil {
			to = err.Start + 1
		}
		if perr := p.paramError(from, max(to, from+1), err); perr != err {
			if err == nil {
				return &ast.BadStmt{Range: ast.Range{Start: from, End: max(from, st.Span().End)}, Partial: st}, perr
			}
			err = perr
		}
	}
	if err == nil {
		return st, nil
	}
	if single {
		p.pos = len(p.toks) - 1
	} else {
		p.pos = max(p.pos, start)
		p.skipStatement(err.Start)
	}
	end := p.toks[max(p.pos-1, start)].End
	if end < from {
		end = from
	}
	bad := &ast.BadStmt{Range: ast.Range{Start: from, End: end}, Partial: partial}
	// The partial statement was abandoned before its range was set: it
	// covers what the bad statement covers.
	switch st := partial.(type) {
	case *ast.Create:
		st.Range = bad.Range
	case *ast.CreateFlow:
		st.Range = bad.Range
	}
	return bad, err
}

// otherTexts sets the Text of o and of the Other statements inside it
// (the statements of a scripting block) but a multi-table INSERT's.
func (p *parser) otherTexts(o *ast.Other) {
	ast.Inspect(o, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Other:
			if n.Kind != "MULTI INSERT" && n.Start >= 0 && n.End <= len(p.src) && n.Start <= n.End {
				n.Text = p.src[n.Start:n.End]
			}
		case nil:
			return false
		}
		return true
	})
}

// skipStatement moves to the first top-level semicolon at or after the
// error offset (or the end).
func (p *parser) skipStatement(errAt int) {
	for p.pos > 0 && p.toks[p.pos].Start > errAt {
		p.pos--
	}
	depth := 0
	for !p.atEOF() {
		switch p.tok().Kind {
		case lex.LeftParen:
			depth++
		case lex.RightParen:
			if depth > 0 {
				depth--
			}
		case lex.Semicolon:
			if depth == 0 {
				return
			}
		}
		p.pos++
	}
}

// guard runs f and turns a bailout into the furthest error seen.
func (p *parser) guard(f func()) (err *ast.SyntaxError) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			err = b.err
			// a grammar error is reported where the furthest reading
			// stopped; an error Spark raises after its grammar accepted
			// the text stands where it is
			if p.far != nil && p.far.Start > err.Start && !committed(err.Class) {
				err = p.far
			}
			err = p.relocate(err)
		}
	}()
	f()
	return nil
}

// try runs f; if f fails, the position is restored and try reports false.
// The failure is remembered as a candidate for the statement's error.
func (p *parser) try(f func()) (ok bool) {
	save, depth := p.pos, p.depth
	p.tries++
	if p.tries > maxTries {
		p.failLimit("this statement is too complex to read: split it into smaller queries (CTEs or views)")
	}
	defer func() {
		if r := recover(); r != nil {
			b, isB := r.(bailout)
			if !isB {
				panic(r)
			}
			if committed(b.err.Class) {
				// a limit, or an error Spark raises once the grammar has
				// accepted the text (an invalid literal, a clause written
				// twice): no other reading is tried
				panic(r)
			}
			if p.far == nil || b.err.Start > p.far.Start {
				p.far = b.err
			}
			p.pos, p.depth = save, depth
			ok = false
		}
	}()
	f()
	return true
}

// committed reports whether an error of this class ends the statement
// even inside a tentative reading: the limits, and the errors Spark raises
// once its grammar has accepted the text. A grammar error, an unknown type
// name or a name needing backquotes may just mean another reading applies.
func committed(class string) bool {
	switch class {
	case "PARSE_SYNTAX_ERROR", "UNSUPPORTED_DATATYPE", "INVALID_IDENTIFIER":
		return false
	}
	return true
}

// tok returns the current token; peek(n) the one n tokens ahead.
func (p *parser) tok() lex.Token { return p.toks[p.pos] }

func (p *parser) peek(n int) lex.Token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) atEOF() bool { return p.pos >= len(p.toks)-1 }

// next consumes and returns the current token.
func (p *parser) next() lex.Token {
	t := p.toks[p.pos]
	if p.pos < len(p.toks)-1 {
		p.pos++
	}
	return t
}

// prevEnd is the end offset of the last consumed token.
func (p *parser) prevEnd() int {
	if p.pos == 0 {
		return 0
	}
	return p.toks[p.pos-1].End
}

// rangeFrom is the range from start to the end of the last consumed token.
func (p *parser) rangeFrom(start int) ast.Range {
	end := p.prevEnd()
	if end < start {
		end = start
	}
	return ast.Range{Start: start, End: end}
}

// isKw reports whether t is the keyword with grammar token name name.
func isKw(t lex.Token, name string) bool {
	return t.Kind == lex.Ident && t.Keyword != lex.NoKeyword && t.Keyword.Token() == name
}

// at reports whether the current token is the keyword name.
func (p *parser) at(name string) bool { return isKw(p.tok(), name) }

// atSeq reports whether the next tokens are the keywords names.
func (p *parser) atSeq(names ...string) bool {
	for i, n := range names {
		if !isKw(p.peek(i), n) {
			return false
		}
	}
	return true
}

// accept consumes the keyword name if it is next.
func (p *parser) accept(name string) bool {
	if p.at(name) {
		p.pos++
		return true
	}
	return false
}

// acceptSeq consumes the keywords names if they are all next.
func (p *parser) acceptSeq(names ...string) bool {
	if p.atSeq(names...) {
		p.pos += len(names)
		return true
	}
	return false
}

// expect consumes the keyword name or fails.
func (p *parser) expect(name string) lex.Token {
	if !p.at(name) {
		p.fail(name)
	}
	return p.next()
}

// acceptKind consumes a token of kind k if it is next.
func (p *parser) acceptKind(k lex.Kind) bool {
	if p.tok().Kind == k {
		p.pos++
		return true
	}
	return false
}

// expectKind consumes a token of kind k or fails.
func (p *parser) expectKind(k lex.Kind) lex.Token {
	if p.tok().Kind != k {
		p.fail(kindText(k))
	}
	return p.next()
}

func kindText(k lex.Kind) string {
	switch k {
	case lex.LeftParen:
		return "'('"
	case lex.RightParen:
		return "')'"
	case lex.Comma:
		return "','"
	case lex.Dot:
		return "'.'"
	case lex.RightBracket:
		return "']'"
	case lex.Gt:
		return "'>'"
	case lex.Lt:
		return "'<'"
	case lex.Eq:
		return "'='"
	case lex.HintEnd:
		return "'*/'"
	case lex.Arrow:
		return "'->'"
	}
	return strings.ToLower(k.String())
}

// enter and leave bound the nesting depth.
func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.failLimit("expression or query nested too deeply (more than 1000 levels)")
	}
}

func (p *parser) leave() { p.depth-- }

// fail abandons the statement with a syntax error at the current token;
// expected, if not empty, says what the grammar wanted there.
func (p *parser) fail(expected string) {
	p.failAt(p.tok(), expected, "")
}

// failAt abandons the statement with an error at t.
func (p *parser) failAt(t lex.Token, expected, message string) {
	err := &ast.SyntaxError{Range: ast.Range{Start: t.Start, End: t.End}, Class: "PARSE_SYNTAX_ERROR"}
	if message != "" {
		err.Message = message
	} else {
		err.Message = syntaxMessage(t, expected) + p.fixHint(t)
	}
	panic(bailout{err})
}

// relocate moves a grammar error found just after a name left unfinished
// at the end of a line (WHERE l. then GROUP BY on the next: Spark reads
// l.GROUP and stops at BY) to the '.' that ends the line, where the
// mistake is, and says so.
func (p *parser) relocate(err *ast.SyntaxError) *ast.SyntaxError {
	if err == nil || err.Class != "PARSE_SYNTAX_ERROR" {
		return err
	}
	i := p.indexOf(lex.Token{Start: err.Start})
	if i >= len(p.toks) || p.toks[i].Start != err.Start {
		return err
	}
	dot, word, ok := p.danglingDot(p.toks[i])
	if !ok {
		return err
	}
	name := p.toks[i-3]
	e := *err
	e.Range = ast.Range{Start: dot.Start, End: dot.End}
	e.Message += "; this line ends with " + p.src[name.Start:dot.End] + ", so Spark read it and " + word.Text +
		" on the next line as one name, " + p.src[name.Start:dot.End] + word.Text + ": finish the name after the '.'"
	return &e
}

// danglingDot reports whether the tokens before t are a name, a '.' that
// ends its line and a keyword on the next line (WHERE l. then GROUP BY:
// Spark reads l.GROUP as a name and fails at BY).
func (p *parser) danglingDot(t lex.Token) (dot, word lex.Token, ok bool) {
	i := p.indexOf(t)
	if i < 3 || i > len(p.toks) {
		return dot, word, false
	}
	name, dot, word := p.toks[i-3], p.toks[i-2], p.toks[i-1]
	if name.Kind != lex.Ident && name.Kind != lex.QuotedIdent || dot.Kind != lex.Dot ||
		word.Kind != lex.Ident || word.Keyword == lex.NoKeyword || name.End != dot.Start {
		return dot, word, false
	}
	return dot, word, dot.End <= word.Start && strings.Contains(p.src[dot.End:word.Start], "\n")
}

// fixHint suggests a fix for a syntax error at t: a keyword written twice, a
// GROUP or ORDER without BY, a misspelt keyword.
func (p *parser) fixHint(t lex.Token) string {
	i := p.indexOf(t)
	if h := p.semicolonHint(t, i); h != "" {
		return h
	}
	if i >= 2 {
		a, b := p.toks[i-2], p.toks[i-1]
		if a.Kind == lex.Ident && b.Kind == lex.Ident && a.Keyword != lex.NoKeyword && a.Keyword == b.Keyword &&
			(isKw(a, "AND") || isKw(a, "OR") || isKw(a, "FROM") || isKw(a, "WHERE") || isKw(a, "SELECT") || isKw(a, "ON")) {
			return "; " + strings.ToUpper(a.Text) + " is written twice just before this point: remove one"
		}
	}
	if i >= 1 {
		if h := duckdbHint(p.toks[i-1], t, i >= 2 && p.toks[i-2].Kind == lex.Asterisk); h != "" {
			return h
		}
	}
	if i >= 1 {
		b := p.toks[i-1]
		if (isKw(b, "GROUP") || isKw(b, "ORDER") || isKw(b, "SORT") || isKw(b, "CLUSTER") || isKw(b, "DISTRIBUTE") ||
			isKw(b, "PARTITION")) && !isKw(t, "BY") {
			return "; " + strings.ToUpper(b.Text) + " needs BY: write " + strings.ToUpper(b.Text) + " BY " + t.Text
		}
	}
	if t.Kind == lex.Ident && t.Keyword == lex.NoKeyword {
		if kw := nearKeyword(t.Text); kw != "" {
			return "; did you mean " + kw + "?"
		}
	}
	if i >= 1 {
		if b := p.toks[i-1]; b.Kind == lex.Ident && b.Keyword == lex.NoKeyword {
			if kw := nearKeyword(b.Text); kw != "" {
				return "; is " + b.Text + " a misspelt " + kw + "? (Spark read it as a name)"
			}
		}
	}
	return ""
}

// semicolonHint suggests a missing ';' when the error is at, or just
// after, a word that starts a statement at the beginning of a line (SELECT
// 1 then CREATE VIEW ... on the next line reads CREATE as an alias and
// fails at VIEW). i is t's index.
func (p *parser) semicolonHint(t lex.Token, i int) string {
	for _, k := range []int{i, i - 1} {
		if k < 1 || k >= len(p.toks) {
			continue
		}
		s := p.toks[k]
		if !commandStart(s) || !p.atLineStart(s) {
			continue
		}
		return fmt.Sprintf("; a statement starts with %s on line %d: is a ';' missing before it?",
			strings.ToUpper(s.Text), 1+strings.Count(p.src[:s.Start], "\n"))
	}
	return ""
}

// commandStart reports whether t is a keyword that starts a statement
// and never a line inside a query (unlike SELECT, FROM, WITH, VALUES).
func commandStart(t lex.Token) bool {
	for _, k := range []string{"CREATE", "INSERT", "SET", "USE", "DROP", "ALTER", "DESCRIBE", "SHOW",
		"EXPLAIN", "MERGE", "UPDATE", "DELETE", "REFRESH", "CACHE", "UNCACHE", "MSCK", "TRUNCATE", "ANALYZE"} {
		if isKw(t, k) {
			return true
		}
	}
	return false
}

// atLineStart reports whether only spaces come before t on its line, and
// the line is not the first of the statement's text.
func (p *parser) atLineStart(t lex.Token) bool {
	j := t.Start
	for j > 0 && (p.src[j-1] == ' ' || p.src[j-1] == '\t' || p.src[j-1] == '\r') {
		j--
	}
	return j > 0 && p.src[j-1] == '\n'
}

// duckdbHint explains DuckDB syntax that Spark SQL does not have, when an
// error at t follows the word b (afterStar: b follows a *).
func duckdbHint(b, t lex.Token, afterStar bool) string {
	if b.Kind != lex.Ident {
		return ""
	}
	switch strings.ToUpper(b.Text) {
	case "EXCLUDE":
		if afterStar {
			return "; * EXCLUDE (...) is DuckDB syntax: Spark SQL writes * EXCEPT (...)"
		}
	case "REPLACE":
		if afterStar {
			return "; * REPLACE (...) is DuckDB syntax: Spark SQL has no equivalent; list the columns"
		}
	case "QUALIFY":
		return "; QUALIFY is not Spark SQL: filter the window function in an outer query (SELECT * FROM (SELECT ..., row_number() OVER (...) AS rn FROM t) WHERE rn = 1)"
	case "POSITIONAL":
		return "; POSITIONAL JOIN is DuckDB syntax, not Spark SQL"
	case "UNION", "EXCEPT", "INTERSECT":
		if isKw(t, "BY") {
			return "; " + strings.ToUpper(b.Text) + " BY NAME is not Spark SQL 4.1: list the columns of each side in the same order"
		}
	}
	return ""
}

// indexOf returns the index of t among the parser's tokens.
func (p *parser) indexOf(t lex.Token) int {
	lo, hi := 0, len(p.toks)
	for lo < hi {
		m := (lo + hi) / 2
		if p.toks[m].Start < t.Start {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// hintKeywords are the keywords a misspelling is compared with.
var hintKeywords = []string{"SELECT", "FROM", "WHERE", "GROUP", "ORDER", "HAVING", "LIMIT", "JOIN",
	"UNION", "INSERT", "CREATE", "DISTINCT", "BETWEEN", "WINDOW", "PARTITION", "VALUES", "STREAM",
	"MATERIALIZED", "STREAMING", "TABLE", "VIEW", "FLOW", "INTERVAL", "WATERMARK", "EXCEPT", "INTERSECT",
	"LATERAL", "OFFSET", "QUALIFY"}

// nearKeyword returns the keyword one edit (a changed, missing, extra or
// swapped letter) away from word, or "".
func nearKeyword(word string) string {
	w := strings.ToUpper(word)
	if len(w) < 4 {
		return ""
	}
	for _, k := range hintKeywords {
		if k != w && oneEdit(w, k) && k != "QUALIFY" {
			return k
		}
	}
	return ""
}

// oneEdit reports whether a and b differ by one edit.
func oneEdit(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	switch len(b) - len(a) {
	case 0:
		diff := -1
		for i := 0; i < len(a); i++ {
			if a[i] != b[i] {
				if diff >= 0 {
					return diff == i-1 && a[diff] == b[i] && a[i] == b[diff] && a[i+1:] == b[i+1:]
				}
				diff = i
			}
		}
		return true
	case 1:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		return a[i:] == b[i+1:]
	}
	return false
}

// failLimit abandons the statement because it exceeds one of the
// parser's bounds; no fall-back reading is tried after it.
func (p *parser) failLimit(message string) {
	t := p.tok()
	panic(bailout{&ast.SyntaxError{Range: ast.Range{Start: t.Start, End: t.End}, Class: limitClass, Message: message}})
}

// limitClass is the class of an error that ends all fall-backs.
const limitClass = "THUND_LIMIT"

// failRange abandons the statement with an error of a class Spark raises
// while building its plan, over r.
func (p *parser) failRange(r ast.Range, class, message string) {
	panic(bailout{&ast.SyntaxError{Range: r, Class: class, Message: message}})
}

// failMissingSemicolon reports a statement followed by more text.
func (p *parser) failMissingSemicolon() {
	t := p.tok()
	err := &ast.SyntaxError{Range: ast.Range{Start: t.Start, End: t.End}, Class: "PARSE_SYNTAX_ERROR"}
	err.Message = syntaxMessage(t, "")
	if startsStatement(t) {
		err.Message += "; a statement ends here: is a ';' missing before it?"
	} else if !t.Kind.IsError() {
		err.Message += p.fixHint(t)
	}
	panic(bailout{err})
}

// startsStatement reports whether t is a keyword that begins a statement.
func startsStatement(t lex.Token) bool {
	for _, k := range []string{"SELECT", "WITH", "CREATE", "INSERT", "SET", "USE", "FROM", "VALUES",
		"DROP", "ALTER", "DESCRIBE", "DESC", "SHOW", "EXPLAIN", "MERGE", "UPDATE", "DELETE"} {
		if isKw(t, k) {
			return true
		}
	}
	return false
}

// syntaxMessage is Spark's "Syntax error at or near" message, with what
// was expected and the lexer's word on an error token.
func syntaxMessage(t lex.Token, expected string) string {
	if t.Kind.IsError() {
		return t.Message()
	}
	var b strings.Builder
	if t.Kind == lex.Invalid {
		b.WriteString("syntax error at end of input")
	} else {
		fmt.Fprintf(&b, "syntax error at or near %s", quoteToken(t.Text))
	}
	if expected != "" {
		b.WriteString(": expected ")
		b.WriteString(expected)
	}
	return b.String()
}

func quoteToken(s string) string {
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return "'" + s + "'"
}
