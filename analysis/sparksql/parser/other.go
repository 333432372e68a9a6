package parser

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// This file and the other_*.go files read every statement of Spark's
// grammar that is not a query, CREATE of a table, view, dataset or flow,
// INSERT, SET or USE, into an *ast.Other:
//
//   - Kind is the command's leading keywords as Spark names the command:
//     "CREATE NAMESPACE" (also for DATABASE and SCHEMA), "ALTER NAMESPACE",
//     "DROP NAMESPACE", "SHOW NAMESPACES", "CREATE FUNCTION", "DROP
//     FUNCTION", "CREATE INDEX", "DROP INDEX", "DECLARE VARIABLE", "DROP
//     VARIABLE", "ALTER TABLE", "ALTER VIEW", "DROP TABLE", "DROP VIEW",
//     "SHOW TABLES", "SHOW TABLE EXTENDED", "SHOW TBLPROPERTIES", "SHOW
//     COLUMNS", "SHOW VIEWS", "SHOW PARTITIONS", "SHOW FUNCTIONS", "SHOW
//     PROCEDURES", "SHOW CREATE TABLE", "SHOW CURRENT NAMESPACE", "SHOW
//     CATALOGS", "DESCRIBE" (a table or view), "DESCRIBE FUNCTION",
//     "DESCRIBE PROCEDURE", "DESCRIBE NAMESPACE", "DESCRIBE QUERY",
//     "COMMENT ON NAMESPACE", "COMMENT ON TABLE", "REFRESH TABLE", "REFRESH
//     FUNCTION", "REFRESH", "CACHE TABLE", "UNCACHE TABLE", "CLEAR CACHE",
//     "LOAD DATA", "TRUNCATE TABLE", "REPAIR TABLE", "ADD FILE", "ADD JAR",
//     "ADD ARCHIVE", "LIST FILE", "LIST JAR", "LIST ARCHIVE", "CALL",
//     "ANALYZE TABLE", "ANALYZE TABLES", "EXPLAIN", "EXECUTE IMMEDIATE",
//     "DELETE FROM", "UPDATE", "MERGE INTO", and for SQL scripting "BEGIN"
//     (a compound block), "IF", "CASE", "WHILE", "REPEAT", "LOOP", "FOR",
//     "LEAVE", "ITERATE", "DECLARE CONDITION" and "DECLARE HANDLER".
//   - Names are the objects the command names, in text order: namespaces,
//     tables, views, functions, procedures, variables, indexes, the new
//     name of a RENAME TO.
//   - Exprs are its expressions in text order; a column the command names
//     (DROP COLUMN c, DESCRIBE t c, UPDATE's SET c = ...) is an
//     *ast.Column there.
//   - Queries are its queries (the CTEs written before DELETE, UPDATE or
//     MERGE first); Stmts its nested statements (EXPLAIN's statement, the
//     bodies of scripting blocks, flattened in order).
//
// Spark's parser accepts some of these statements and then refuses them
// while building its plan (the Hive commands it does not run, an ALTER
// COLUMN without an action, CREATE TEMPORARY FUNCTION db.f, ...). Those
// are reported with the class Spark raises, after the statement's syntax
// has been read to its end, so that a syntax error always wins as it does
// in Spark.

// otherStatement reads a statement that is not a query, CREATE of a
// table, view, dataset or flow, INSERT, SET or USE (see the comment above
// for what it builds). The position is at the statement's first keyword
// (at CREATE or REPLACE when create hands it over).
func (p *parser) otherStatement() ast.Stmt {
	return p.otherIn(nil)
}

// otherWith reads DELETE, UPDATE or MERGE after the WITH clause w; the
// CTEs' queries come first in the statement's Queries.
func (p *parser) otherWith(w *ast.With) ast.Stmt {
	st := p.otherStatement()
	if o, ok := st.(*ast.Other); ok && w != nil {
		qs := make([]*ast.Query, 0, len(w.CTEs)+len(o.Queries))
		for _, c := range w.CTEs {
			qs = append(qs, c.Query)
		}
		o.Queries = append(qs, o.Queries...)
		o.Range.Start = w.Start
	}
	return st
}

// semErr is an error Spark raises while building its plan, with the
// offset of the construct Spark was visiting: Spark visits in text order,
// so the first such error is the one of the earliest construct.
type semErr struct {
	key, rank int
	err       *ast.SyntaxError
}

// sem collects the errors Spark raises after parsing.
type sem struct{ first *semErr }

// add records an error of class over r for the construct at key; rank
// orders the checks Spark makes on one construct.
func (s *sem) add(key, rank int, r ast.Range, class, message string) {
	e := &semErr{key: key, rank: rank, err: &ast.SyntaxError{Range: r, Class: class, Message: message}}
	if s.first == nil || e.before(s.first) {
		s.first = e
	}
}

// before reports whether Spark raises e before f.
func (e *semErr) before(f *semErr) bool {
	return e.key < f.key || (e.key == f.key && e.rank < f.rank)
}

// merge records t's error into s.
func (s *sem) merge(t *sem) {
	if t != nil && t.first != nil && (s.first == nil || t.first.before(s.first)) {
		s.first = t.first
	}
}

// cmd is one command being read: its node, where it starts and the
// errors Spark would raise while building it.
type cmd struct {
	p     *parser
	o     *ast.Other
	start int
	sem   sem
	// rank is the order, among the checks Spark makes on the command, of
	// the errors refuse records now.
	rank int
	// sc is the script the command is nested in, nil at the top.
	sc *script
}

// name reads an identifierReference and records it in Names.
func (c *cmd) name() *ast.Name {
	n := c.p.identifierReference()
	c.o.Names = append(c.o.Names, n)
	return n
}

// multipart reads a multipartIdentifier and records it in Names.
func (c *cmd) multipart() *ast.Name {
	n := c.p.multipart()
	c.o.Names = append(c.o.Names, n)
	return n
}

// expr reads an expression and records it in Exprs.
func (c *cmd) expr() ast.Expr {
	x := c.p.expr()
	c.o.Exprs = append(c.o.Exprs, x)
	return x
}

// query reads a query and records it in Queries.
func (c *cmd) query() *ast.Query {
	q := c.p.query()
	c.o.Queries = append(c.o.Queries, q)
	return q
}

// column records the column name n in Exprs.
func (c *cmd) column(n *ast.Name) {
	c.o.Exprs = append(c.o.Exprs, &ast.Column{Range: n.Range, Parts: n.Parts})
}

// refuse records an error Spark raises while building the command.
func (c *cmd) refuse(r ast.Range, class, message string) {
	c.sem.add(c.start, c.rank, r, class, message)
}

// notAllowed records Spark's "Operation not allowed" error.
func (c *cmd) notAllowed(r ast.Range, message string) {
	c.refuse(r, "_LEGACY_ERROR_TEMP_0035", "Operation not allowed: "+message+".")
}

// invalidStatement records Spark's INVALID_STATEMENT_OR_CLAUSE error:
// what is not valid, why says so.
func (c *cmd) invalidStatement(r ast.Range, what, why string) {
	c.refuse(r, "INVALID_STATEMENT_OR_CLAUSE", what+" "+why)
}

// whole is the range of the command read so far.
func (c *cmd) whole() ast.Range { return c.p.rangeFrom(c.start) }

// otherIn reads one other statement; the errors Spark would raise while
// building it go to sc's errors when it is nested in a script, else they
// are raised once the statement has ended.
func (p *parser) otherIn(sc *script) ast.Stmt {
	start := p.tok().Start
	c := &cmd{p: p, o: &ast.Other{}, start: start, sc: sc}
	p.otherDispatch(c)
	c.o.Range = p.rangeFrom(start)
	if sc != nil {
		sc.sem.merge(&c.sem)
	} else if c.sem.first != nil && p.otherAtEnd() {
		// the statement parsed: a reading that failed on the way is no
		// candidate for its error
		p.far = nil
		e := c.sem.first.err
		p.failRange(e.Range, e.Class, e.Message)
	}
	return c.o
}

// otherDispatch reads the statement by its first keyword.
func (p *parser) otherDispatch(c *cmd) {
	t := p.tok()
	if t.Kind != lex.Ident || t.Keyword == lex.NoKeyword {
		p.otherFailStart(t)
	}
	switch t.Keyword.Token() {
	case "CREATE":
		p.createCmd(c)
	case "REPLACE":
		p.pos++
		p.fail("TABLE")
	case "ALTER":
		p.alterCmd(c)
	case "DROP":
		p.dropCmd(c)
	case "SHOW":
		p.showCmd(c)
	case "DESC", "DESCRIBE":
		p.describeCmd(c)
	case "EXPLAIN":
		p.explainCmd(c)
	case "COMMENT":
		p.commentCmd(c)
	case "REFRESH":
		p.refreshCmd(c)
	case "CACHE":
		p.cacheCmd(c)
	case "UNCACHE":
		c.o.Kind = "UNCACHE TABLE"
		p.pos++
		p.expect("TABLE")
		p.otherIfExists()
		c.name()
	case "CLEAR":
		c.o.Kind = "CLEAR CACHE"
		p.pos++
		p.expect("CACHE")
	case "LOAD":
		p.loadCmd(c)
	case "TRUNCATE":
		c.o.Kind = "TRUNCATE TABLE"
		p.pos++
		p.expect("TABLE")
		c.name()
		if p.at("PARTITION") {
			c.partition(true)
		}
	case "MSCK", "REPAIR":
		c.o.Kind = "REPAIR TABLE"
		p.accept("MSCK")
		p.expect("REPAIR")
		p.expect("TABLE")
		c.name()
		if (p.at("ADD") || p.at("DROP") || p.at("SYNC")) && isKw(p.peek(1), "PARTITIONS") {
			p.pos += 2
		}
	case "ADD", "LIST":
		p.resourceCmd(c)
	case "CALL":
		p.callCmd(c)
	case "ANALYZE":
		p.analyzeCmd(c)
	case "DECLARE":
		p.declareVariable(c)
	case "EXECUTE":
		p.executeCmd(c)
	case "DELETE":
		p.deleteCmd(c)
	case "UPDATE":
		p.updateCmd(c)
	case "MERGE":
		p.mergeCmd(c)
	case "BEGIN":
		if p.pos > 0 && p.toks[p.pos-1].Kind != lex.Semicolon {
			p.fail("")
		}
		p.scriptCmd(c)
	case "GRANT", "REVOKE":
		if !p.nativeCmd(c, 1, "ROLE") {
			p.nativeCmd(c, 1)
		}
	case "EXPORT", "IMPORT":
		if !p.nativeCmd(c, 1, "TABLE") {
			p.pos++
			p.fail("TABLE")
		}
	case "LOCK", "UNLOCK":
		if !p.nativeCmd(c, 1, "TABLE") && !p.nativeCmd(c, 1, "DATABASE") {
			p.pos++
			p.fail("TABLE or DATABASE")
		}
	case "START":
		if !p.nativeCmd(c, 1, "TRANSACTION") {
			p.pos++
			p.fail("TRANSACTION")
		}
	case "COMMIT", "ROLLBACK", "DFS":
		p.nativeCmd(c, 1)
	case "IF", "WHILE", "REPEAT", "LOOP", "FOR", "CASE", "LEAVE", "ITERATE":
		p.failAt(t, "", syntaxMessage(t, "a statement")+": "+strings.ToUpper(t.Text)+
			" is a SQL scripting statement, which only stands inside BEGIN ... END")
	default:
		p.otherFailStart(t)
	}
}

// otherFailStart fails at t, the first token of a statement no rule
// reads.
func (p *parser) otherFailStart(t lex.Token) {
	if p.canIdent(t, strictIdent) && p.peek(1).Kind == lex.Colon {
		p.failAt(t, "", syntaxMessage(t, "a statement")+": a label ("+t.Text+":) only stands inside BEGIN ... END")
	}
	p.fail("a statement")
}

// otherAtEnd reports whether the statement ends here (a semicolon or the
// end of the text).
func (p *parser) otherAtEnd() bool {
	return p.atEOF() || p.tok().Kind == lex.Semicolon
}

// otherExpectEnd fails unless the statement ends here.
func (p *parser) otherExpectEnd() {
	if !p.otherAtEnd() {
		p.failMissingSemicolon()
	}
}

// alts reads the statement by the first of readings that gets to the end
// of the statement, as Spark's parser predicts which of its alternatives
// applies; the last reading's error stands when none does (or an earlier
// one's, when it got further).
func (p *parser) alts(c *cmd, readings ...func(*cmd)) {
	save := p.pos
	for i, f := range readings {
		if i == len(readings)-1 {
			f(c)
			return
		}
		n := c.clone()
		if p.try(func() { f(n); p.otherExpectEnd() }) {
			*c.o = *n.o
			c.sem, c.rank = n.sem, n.rank
			return
		}
		p.pos = save
	}
}

// clone returns a copy of c to read one reading into.
func (c *cmd) clone() *cmd {
	o := *c.o
	o.Names = append([]*ast.Name(nil), c.o.Names...)
	o.Exprs = append([]ast.Expr(nil), c.o.Exprs...)
	o.Queries = append([]*ast.Query(nil), c.o.Queries...)
	o.Stmts = append([]ast.Stmt(nil), c.o.Stmts...)
	return &cmd{p: c.p, o: &o, start: c.start, sem: c.sem, rank: c.rank, sc: c.sc}
}

// otherIfExists consumes IF EXISTS.
func (p *parser) otherIfExists() bool {
	return p.acceptSeq("IF", "EXISTS")
}

// ifNotExists consumes IF NOT EXISTS (or IF ! EXISTS, which Spark refuses
// since 4.0 where bang is set).
func (c *cmd) ifNotExists(bang bool) bool {
	p := c.p
	if !p.at("IF") || !isKw(p.peek(2), "EXISTS") {
		return false
	}
	switch n := p.peek(1); {
	case isKw(n, "NOT"):
	case n.Kind == lex.Bang:
		if bang {
			c.refuse(tokRange(n), "SYNTAX_DISCONTINUED.BANG_EQUALS_NOT",
				"'!' for NOT is no longer supported here: write IF NOT EXISTS")
		}
	default:
		return false
	}
	p.pos += 3
	return true
}

// atNamespace reports whether the current token is NAMESPACE, DATABASE
// or SCHEMA.
func (p *parser) atNamespace() bool {
	return p.at("NAMESPACE") || p.at("DATABASE") || p.at("SCHEMA")
}

// atNot reports whether the current token is NOT or '!' (Spark's
// errorCapturingNot).
func (p *parser) atNot() bool { return p.at("NOT") || p.tok().Kind == lex.Bang }

// acceptNot consumes NOT or '!' before the keyword next, recording Spark's
// refusal of '!'.
func (c *cmd) acceptNot(next string) bool {
	p := c.p
	if !p.atNot() || !isKw(p.peek(1), next) {
		return false
	}
	if t := p.tok(); t.Kind == lex.Bang {
		c.refuse(tokRange(t), "SYNTAX_DISCONTINUED.BANG_EQUALS_NOT",
			"'!' for NOT is no longer supported here: write NOT "+next)
	}
	p.pos += 2
	return true
}

// simpleIdent reads Spark's simpleIdentifier: an identifier, but not
// IDENTIFIER('...').
func (p *parser) simpleIdent() *ast.Ident {
	if p.at("IDENTIFIER_KW") && p.peek(1).Kind == lex.LeftParen {
		p.pos++
		p.fail("")
	}
	return p.ident(anyIdent)
}

// partition reads a PARTITION (...) spec with Spark's checks: no DEFAULT
// values, no key twice, and, where the command needs them, every value.
func (c *cmd) partition(values bool) []*ast.Property {
	p := c.p
	start := p.tok().Start
	props := p.partitionSpec()
	r := p.rangeFrom(start)
	seen := map[string]bool{}
	for _, pr := range props {
		if col, ok := pr.Value.(*ast.Column); ok && len(col.Parts) == 1 && strings.EqualFold(col.Parts[0].Name, "DEFAULT") {
			c.refuse(r, "REF_DEFAULT_VALUE_IS_NOT_ALLOWED_IN_PARTITION",
				"a partition spec cannot refer to a column's DEFAULT value: write the value")
		}
	}
	for _, pr := range props {
		k := strings.ToLower(pr.Key)
		if seen[k] {
			c.refuse(r, "DUPLICATE_KEY", "duplicate key "+quoteName(pr.Key)+" in the partition spec")
		}
		seen[k] = true
	}
	if values {
		for _, pr := range props {
			if pr.Value == nil {
				c.refuse(r, "INVALID_SQL_SYNTAX.EMPTY_PARTITION_VALUE",
					"partition key "+quoteName(pr.Key)+" needs a value here: write "+pr.Key+" = value")
			}
		}
	}
	return props
}

// propMode says what a property list must hold.
type propMode uint8

const (
	// propsAny is a list as written.
	propsAny propMode = iota
	// propsValues needs a value for every key.
	propsValues
	// propsKeys needs keys without values.
	propsKeys
)

// reservedTable and reservedNamespace are the properties Spark keeps for
// its own clauses, with the hint Spark gives.
var (
	reservedTable = map[string]string{
		"provider": "please use the USING clause to specify it", "location": "please use the LOCATION clause to specify it",
		"owner": "it will be set to the current user", "external": "please use CREATE EXTERNAL TABLE",
		"collation": "please use the DEFAULT COLLATION clause to specify it", "is_managed_location": "please remove it from the TBLPROPERTIES list",
		"table_type": "please remove it from the TBLPROPERTIES list"}
	reservedNamespace = map[string]string{
		"location": "please use the LOCATION clause to specify it", "collation": "please use the DEFAULT COLLATION clause to specify it",
		"owner": "it will be set to the current user"}
)

// props reads a property list with Spark's checks: no key twice, values
// as mode asks, and none of the reserved keys (nil: any key).
func (c *cmd) props(mode propMode, reserved map[string]string, class string) []*ast.Property {
	p := c.p
	start := p.tok().Start
	props := p.propertyList(false)
	r := p.rangeFrom(start)
	seen := map[string]bool{}
	for _, pr := range props {
		if seen[pr.Key] {
			c.refuse(r, "DUPLICATE_KEY", "duplicate key "+quoteName(pr.Key)+" in the property list")
		}
		seen[pr.Key] = true
	}
	var bad []string
	for _, pr := range props {
		if (mode == propsValues && pr.Value == nil) || (mode == propsKeys && pr.Value != nil) {
			bad = append(bad, pr.Key)
		}
	}
	if len(bad) > 0 {
		if mode == propsValues {
			c.notAllowed(r, "Values must be specified for key(s): ["+strings.Join(bad, ",")+"]")
		} else {
			c.notAllowed(r, "Values should not be specified for key(s): ["+strings.Join(bad, ",")+"]")
		}
	}
	for _, pr := range props {
		if hint, ok := reserved[pr.Key]; ok {
			c.refuse(pr.KeyRange, class, "the property "+quoteName(pr.Key)+" is reserved: "+hint)
		}
	}
	return props
}

// quoteName quotes a name as Spark's messages do.
func quoteName(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// nameParts returns how many parts Spark sees in n: an IDENTIFIER('a.b')
// part counts the parts of its string.
func (p *parser) nameParts(n *ast.Name) int {
	k := 0
	for _, id := range n.Parts {
		s, ok := p.identifierClauseText(id)
		if !ok {
			k++
			continue
		}
		k += stringNameParts(s)
	}
	return k
}

// identifierClauseText returns the string of IDENTIFIER('...') (or of an
// expression of string literals joined with ||) that id was written as.
func (p *parser) identifierClauseText(id *ast.Ident) (string, bool) {
	if id.Start >= len(p.src) || !strings.HasPrefix(strings.ToUpper(p.src[id.Start:]), "IDENTIFIER") {
		return "", false
	}
	if id.Expr == nil {
		return id.Name, id.Quoted
	}
	return constString(id.Expr)
}

// constString folds string literals joined with || into their value.
func constString(x ast.Expr) (string, bool) {
	switch x := x.(type) {
	case *ast.Literal:
		if x.Kind == ast.LitString && x.Str != nil {
			return x.Str.Value, true
		}
	case *ast.Paren:
		return constString(x.X)
	case *ast.Binary:
		if x.Op == "||" {
			a, ok1 := constString(x.L)
			b, ok2 := constString(x.R)
			return a + b, ok1 && ok2
		}
	}
	return "", false
}

// stringNameParts counts the dotted parts of a multipart name written as
// a string; a string that is no name counts as one part.
func stringNameParts(s string) int {
	toks := lex.Lex(s)
	n := 0
	for i, t := range toks {
		switch {
		case i%2 == 0 && (t.Kind == lex.Ident || t.Kind == lex.QuotedIdent):
			n++
		case i%2 == 1 && t.Kind == lex.Dot:
		default:
			return 1
		}
	}
	if n == 0 {
		return 1
	}
	return n
}

// restText is the text from the current token to the end of the
// statement, which it consumes (Spark's .*?).
func (p *parser) restText() (string, ast.Range) {
	start := p.tok().Start
	p.skipToEnd()
	end := max(start, p.prevEnd())
	return p.src[start:end], ast.Range{Start: start, End: end}
}

// nativeCmd recognises one of the Hive commands Spark parses and then
// refuses (unsupportedHiveNativeCommands): the tokens from n on must be
// the keywords words. It consumes the statement and records Spark's
// INVALID_STATEMENT_OR_CLAUSE, naming the keywords as written; it
// reports false, consuming nothing, when the words do not match.
func (p *parser) nativeCmd(c *cmd, n int, words ...string) bool {
	for i, w := range words {
		if !isKw(p.peek(n+i), w) {
			return false
		}
	}
	kws := make([]string, 0, n+len(words))
	for i := 0; i < n+len(words); i++ {
		kws = append(kws, p.peek(i).Text)
	}
	p.nativeRefuse(c, kws)
	return true
}

// nativeRefuse consumes the rest of the statement and records that Spark
// refuses the Hive command of keywords kws.
func (p *parser) nativeRefuse(c *cmd, kws []string) {
	if c.o.Kind == "" {
		c.o.Kind = strings.ToUpper(strings.Join(kws, " "))
	}
	p.skipToEnd()
	c.invalidStatement(c.whole(), strings.ToUpper(strings.Join(kws, " ")), "is a Hive command that Spark does not run")
}
