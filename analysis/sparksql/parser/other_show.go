package parser

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// showCmd reads SHOW NAMESPACES | TABLES | TABLE EXTENDED | TBLPROPERTIES
// | COLUMNS | VIEWS | PARTITIONS | [scope] FUNCTIONS | PROCEDURES |
// CREATE TABLE | CURRENT NAMESPACE | CATALOGS, and the Hive SHOW commands
// Spark refuses.
func (p *parser) showCmd(c *cmd) {
	if !isKw(p.peek(2), "FUNCTIONS") {
		for _, w := range [][]string{{"GRANT"}, {"ROLE", "GRANT"}, {"ROLE"}, {"PRINCIPALS"}, {"ROLES"},
			{"CURRENT", "ROLES"}, {"COMPACTIONS"}, {"TRANSACTIONS"}, {"INDEXES"}, {"LOCKS"}} {
			if p.nativeCmd(c, 1, w...) {
				return
			}
		}
	}
	p.expect("SHOW")
	switch {
	case p.at("NAMESPACES"), p.at("DATABASES"), p.at("SCHEMAS"):
		c.o.Kind = "SHOW NAMESPACES"
		p.pos++
		if p.at("FROM") || p.at("IN") {
			p.pos++
			c.multipart()
		}
		p.showPattern()
	case p.at("TABLES"):
		c.o.Kind = "SHOW TABLES"
		p.pos++
		p.showFromIn(c)
		p.showPattern()
	case p.atSeq("TABLE", "EXTENDED"):
		c.o.Kind = "SHOW TABLE EXTENDED"
		p.pos += 2
		p.showFromIn(c)
		p.expect("LIKE")
		p.stringLit()
		if p.at("PARTITION") {
			c.partition(true)
		}
	case p.at("TBLPROPERTIES"):
		c.o.Kind = "SHOW TBLPROPERTIES"
		p.pos++
		c.name()
		if p.acceptKind(lex.LeftParen) {
			if p.isStringTok(p.tok()) {
				p.stringLit()
			} else {
				p.errIdent(anyIdent)
				for p.acceptKind(lex.Dot) {
					p.errIdent(anyIdent)
				}
			}
			p.expectKind(lex.RightParen)
		}
	case p.at("COLUMNS"):
		c.o.Kind = "SHOW COLUMNS"
		p.pos++
		if !p.accept("FROM") && !p.accept("IN") {
			p.fail("FROM or IN")
		}
		c.name()
		if p.at("FROM") || p.at("IN") {
			p.pos++
			c.multipart()
		}
	case p.at("VIEWS"):
		c.o.Kind = "SHOW VIEWS"
		p.pos++
		p.showFromIn(c)
		p.showPattern()
	case p.at("PARTITIONS"):
		c.o.Kind = "SHOW PARTITIONS"
		p.pos++
		c.name()
		if p.at("PARTITION") {
			c.partition(true)
		}
	case p.at("PROCEDURES"):
		c.o.Kind = "SHOW PROCEDURES"
		p.pos++
		p.showFromIn(c)
	case p.atSeq("CREATE", "TABLE"):
		save := p.pos
		t := &cmd{p: p, o: &ast.Other{}, start: c.start, sc: c.sc}
		read := func(c *cmd) {
			c.o.Kind = "SHOW CREATE TABLE"
			p.pos += 2
			c.name()
			p.acceptSeq("AS", "SERDE")
		}
		if p.try(func() { read(t); p.otherExpectEnd() }) {
			*c.o, c.sem = *t.o, t.sem
			return
		}
		p.pos = save - 1
		if !p.nativeCmd(c, 1, "CREATE", "TABLE") {
			p.pos = save
			read(c)
		}
	case p.at("CURRENT"):
		c.o.Kind = "SHOW CURRENT NAMESPACE"
		p.pos++
		if !p.atNamespace() {
			p.fail("NAMESPACE")
		}
		p.pos++
	case p.at("CATALOGS"):
		c.o.Kind = "SHOW CATALOGS"
		p.pos++
		p.showPattern()
	default:
		p.showFunctions(c)
	}
}

// showFromIn reads an optional FROM | IN namespace.
func (p *parser) showFromIn(c *cmd) *ast.Name {
	if p.at("FROM") || p.at("IN") {
		p.pos++
		return c.name()
	}
	return nil
}

// showPattern reads an optional [LIKE] 'pattern'.
func (p *parser) showPattern() {
	if p.accept("LIKE") || p.isStringTok(p.tok()) {
		p.stringLit()
	}
}

// showFunctions reads [USER | SYSTEM | ALL] FUNCTIONS [FROM | IN ns]
// [[LIKE] name | 'pattern'].
func (p *parser) showFunctions(c *cmd) {
	c.o.Kind = "SHOW FUNCTIONS"
	var scope *ast.Ident
	if !p.at("FUNCTIONS") || isKw(p.peek(1), "FUNCTIONS") {
		if !p.canIdent(p.tok(), anyIdent) {
			p.fail("TABLES, VIEWS, FUNCTIONS, COLUMNS, PARTITIONS, NAMESPACES, CATALOGS or TBLPROPERTIES")
		}
		scope = p.simpleIdent()
		if !p.at("FUNCTIONS") {
			p.pos--
			p.fail("TABLES, VIEWS, FUNCTIONS, COLUMNS, PARTITIONS, NAMESPACES, CATALOGS or TBLPROPERTIES")
		}
	}
	p.expect("FUNCTIONS")
	ns := p.showFromIn(c)
	var legacy *ast.Name
	switch {
	case p.at("LIKE"):
		save := p.pos
		var n *ast.Name
		if !p.try(func() {
			p.pos++
			if p.isStringTok(p.tok()) {
				p.stringLit()
			} else {
				n = p.multipart()
			}
			p.otherExpectEnd()
		}) {
			p.pos = save
			n = p.multipart()
		}
		legacy = n
	case p.isStringTok(p.tok()):
		p.stringLit()
	case p.canIdent(p.tok(), anyIdent):
		legacy = p.multipart()
	}
	if legacy != nil {
		c.o.Names = append(c.o.Names, legacy)
	}
	if scope != nil {
		switch strings.ToLower(scope.Name) {
		case "all", "system", "user":
		default:
			c.refuse(scope.Range, "INVALID_SQL_SYNTAX.SHOW_FUNCTIONS_INVALID_SCOPE",
				"SHOW "+scope.Name+" FUNCTIONS: the scope is USER, SYSTEM or ALL")
		}
	}
	if ns != nil && legacy != nil {
		c.refuse(legacy.Range, "INVALID_SQL_SYNTAX.SHOW_FUNCTIONS_INVALID_PATTERN",
			"with FROM or IN, the pattern of SHOW FUNCTIONS is a string: LIKE '"+legacy.String()+"'")
	}
}

// optKeyword reads [one of kws] rest, taking the keyword as a keyword if
// the statement then parses, else as the start of rest.
func (p *parser) optKeyword(c *cmd, rest func(*cmd), kws ...string) {
	for _, kw := range kws {
		if p.at(kw) {
			n := p.peek(1)
			if n.Kind == lex.Semicolon || n.Kind == lex.Invalid {
				break
			}
			p.alts(c, func(c *cmd) { p.pos++; rest(c) }, rest)
			return
		}
	}
	rest(c)
}

// describeCmd reads DESCRIBE | DESC FUNCTION, PROCEDURE, NAMESPACE, a
// table (with a partition, a column, AS JSON) or QUERY query.
func (p *parser) describeCmd(c *cmd) {
	p.pos++
	var readings []func(*cmd)
	switch {
	case p.at("FUNCTION"):
		readings = append(readings, p.describeFunction)
	case p.at("PROCEDURE"):
		readings = append(readings, func(c *cmd) {
			c.o.Kind = "DESCRIBE PROCEDURE"
			p.pos++
			c.name()
		})
	case p.atNamespace():
		readings = append(readings, func(c *cmd) {
			c.o.Kind = "DESCRIBE NAMESPACE"
			p.pos++
			p.optKeyword(c, func(c *cmd) { c.name() }, "EXTENDED")
		})
	}
	readings = append(readings, func(c *cmd) {
		p.optKeyword(c, func(c *cmd) {
			if p.at("EXTENDED") || p.at("FORMATTED") {
				p.optKeyword(c, func(c *cmd) { p.describeRelation(c, true) }, "EXTENDED", "FORMATTED")
				return
			}
			p.describeRelation(c, false)
		}, "TABLE")
	})
	if p.startsQuery() || p.at("QUERY") {
		readings = append(readings, func(c *cmd) {
			c.o.Kind = "DESCRIBE QUERY"
			if p.at("QUERY") && !p.startsQuery() {
				p.pos++
			} else if p.at("QUERY") {
				save := p.pos
				var q *ast.Query
				if p.try(func() { p.pos++; q = p.query(); p.otherExpectEnd() }) {
					c.o.Queries = append(c.o.Queries, q)
					return
				}
				p.pos = save
			}
			c.query()
		})
	}
	p.alts(c, readings...)
}

// describeFunction reads FUNCTION [EXTENDED] name | 'name' | operator.
func (p *parser) describeFunction(c *cmd) {
	c.o.Kind = "DESCRIBE FUNCTION"
	p.pos++
	p.optKeyword(c, func(c *cmd) {
		t := p.tok()
		switch {
		case p.isStringTok(t):
			p.stringLit()
		case isKw(t, "OR"), isKw(t, "AND"), isKw(t, "IN"), isKw(t, "NOT"), isKw(t, "DIV"):
			if p.canIdent(t, anyIdent) && p.peek(1).Kind == lex.Dot {
				c.name()
				return
			}
			p.pos++
		case describeOps[t.Kind]:
			p.pos++
		default:
			c.name()
		}
	}, "EXTENDED")
}

// describeOps are the operators DESCRIBE FUNCTION takes as names.
var describeOps = map[lex.Kind]bool{lex.Eq: true, lex.NotEq: true, lex.BangEq: true, lex.Lt: true, lex.Lte: true,
	lex.Gt: true, lex.Gte: true, lex.NullSafeEq: true, lex.Plus: true, lex.Minus: true, lex.Asterisk: true,
	lex.Slash: true, lex.Percent: true, lex.Tilde: true, lex.Ampersand: true, lex.Pipe: true,
	lex.ConcatPipe: true, lex.Hat: true, lex.ShiftLeft: true, lex.ShiftRight: true,
	lex.ShiftRightUnsigned: true, lex.Bang: true}

// describeRelation reads name [PARTITION (...)] [column] [AS JSON] with
// Spark's checks; extended is EXTENDED or FORMATTED.
func (p *parser) describeRelation(c *cmd, extended bool) {
	c.o.Kind = "DESCRIBE"
	c.name()
	var spec *cmd
	var specRange ast.Range
	if p.at("PARTITION") && p.peek(1).Kind == lex.LeftParen {
		ps := p.tok().Start
		spec = &cmd{p: p, o: &ast.Other{}, start: c.start, rank: 2}
		spec.partition(true)
		specRange = p.rangeFrom(ps)
	}
	var col *ast.Name
	atJSON := func() bool {
		n := p.peek(2)
		return p.atSeq("AS", "JSON") && (n.Kind == lex.Semicolon || n.Kind == lex.Invalid)
	}
	if p.canIdent(p.tok(), anyIdent) && !atJSON() {
		start := p.tok().Start
		col = &ast.Name{Parts: []*ast.Ident{p.errIdent(anyIdent)}}
		for p.acceptKind(lex.Dot) {
			col.Parts = append(col.Parts, p.errIdent(anyIdent))
		}
		col.Range = p.rangeFrom(start)
		c.column(col)
	}
	json := false
	if p.atSeq("AS", "JSON") {
		p.pos += 2
		json = true
	}
	switch {
	case json && !extended:
		c.refuse(c.whole(), "DESCRIBE_JSON_NOT_EXTENDED",
			"DESCRIBE ... AS JSON needs EXTENDED or FORMATTED: DESCRIBE EXTENDED "+c.o.Names[0].String()+" AS JSON")
	case col != nil && spec != nil:
		c.refuse(specRange, "UNSUPPORTED_FEATURE.DESC_TABLE_COLUMN_PARTITION",
			"DESCRIBE of a column cannot take a partition spec")
	case col != nil && json:
		c.refuse(col.Range, "UNSUPPORTED_FEATURE.DESC_TABLE_COLUMN_JSON",
			"DESCRIBE of a column cannot be AS JSON")
	case spec != nil:
		c.sem.merge(&spec.sem)
	}
}

// commentCmd reads COMMENT ON NAMESPACE | TABLE name IS 'text' | NULL.
func (p *parser) commentCmd(c *cmd) {
	p.pos++
	p.expect("ON")
	if p.atNamespace() {
		c.o.Kind = "COMMENT ON NAMESPACE"
		p.pos++
	} else {
		c.o.Kind = "COMMENT ON TABLE"
		p.expect("TABLE")
	}
	c.name()
	p.expect("IS")
	if !p.accept("NULL") {
		p.stringLit()
	}
}

// refreshCmd reads REFRESH TABLE t, REFRESH FUNCTION f, and REFRESH
// 'path' or REFRESH path (the rest of the statement).
func (p *parser) refreshCmd(c *cmd) {
	p.pos++
	var readings []func(*cmd)
	if p.at("TABLE") {
		readings = append(readings, func(c *cmd) { c.o.Kind = "REFRESH TABLE"; p.pos++; c.name() })
	}
	if p.at("FUNCTION") {
		readings = append(readings, func(c *cmd) { c.o.Kind = "REFRESH FUNCTION"; p.pos++; c.name() })
	}
	readings = append(readings, func(c *cmd) {
		c.o.Kind = "REFRESH"
		if p.isStringTok(p.tok()) {
			save := p.pos
			if p.try(func() { p.stringLit(); p.otherExpectEnd() }) {
				return
			}
			p.pos = save
		}
		text, r := p.restText()
		text = strings.TrimSpace(text)
		switch {
		case text == "":
			c.refuse(c.whole(), "_LEGACY_ERROR_TEMP_0064",
				"Resource paths cannot be empty in REFRESH statements. Use / to match everything")
		case strings.ContainsAny(text, " \n\r\t"):
			c.refuse(r, "_LEGACY_ERROR_TEMP_0064",
				"REFRESH statements cannot contain ' ', '\\n', '\\r', '\\t' inside unquoted resource paths")
		}
	})
	p.alts(c, readings...)
}

// cacheCmd reads CACHE [LAZY] TABLE t [OPTIONS (...)] [[AS] query].
func (p *parser) cacheCmd(c *cmd) {
	c.o.Kind = "CACHE TABLE"
	p.pos++
	p.accept("LAZY")
	p.expect("TABLE")
	n := c.name()
	if p.accept("OPTIONS") {
		c.rank = 1
		c.props(propsValues, nil, "")
	}
	if p.accept("AS") || p.startsQuery() {
		c.query()
		if p.nameParts(n) > 1 {
			c.rank = 0
			c.refuse(n.Range, "_LEGACY_ERROR_TEMP_0037",
				"CACHE TABLE ... AS SELECT names a temporary view: its name cannot have a catalog or namespace ("+n.String()+")")
		}
	}
}

// loadCmd reads LOAD DATA [LOCAL] INPATH 'path' [OVERWRITE] INTO TABLE t
// [PARTITION (...)].
func (p *parser) loadCmd(c *cmd) {
	c.o.Kind = "LOAD DATA"
	p.pos++
	p.expect("DATA")
	p.accept("LOCAL")
	p.expect("INPATH")
	p.stringLit()
	p.accept("OVERWRITE")
	p.expect("INTO")
	p.expect("TABLE")
	c.name()
	if p.at("PARTITION") {
		c.partition(true)
	}
}

// resourceCmd reads ADD | LIST FILE | JAR | ARCHIVE paths.
func (p *parser) resourceCmd(c *cmd) {
	op := strings.ToUpper(p.next().Keyword.Token())
	id := p.simpleIdent()
	p.restText()
	switch kind := strings.ToLower(id.Name); kind {
	case "file", "files", "jar", "jars", "archive", "archives":
		c.o.Kind = op + " " + strings.ToUpper(strings.TrimSuffix(kind, "s"))
	default:
		c.o.Kind = op
		c.notAllowed(id.Range, op+" with resource type '"+kind+"'")
	}
}

// callCmd reads CALL procedure(args).
func (p *parser) callCmd(c *cmd) {
	c.o.Kind = "CALL"
	p.pos++
	c.name()
	p.expectKind(lex.LeftParen)
	if p.tok().Kind != lex.RightParen {
		for {
			t := p.tok()
			if p.canIdent(t, anyIdent) && p.peek(1).Kind == lex.FatArrow {
				id := p.ident(anyIdent)
				p.pos++
				v := p.expr()
				c.o.Exprs = append(c.o.Exprs, &ast.NamedArg{Range: p.rangeFrom(t.Start), Name: id, Value: v})
			} else {
				c.expr()
			}
			if !p.acceptKind(lex.Comma) {
				break
			}
		}
	}
	p.expectKind(lex.RightParen)
}

// analyzeCmd reads ANALYZE TABLE t [PARTITION (...)] COMPUTE STATISTICS
// [NOSCAN | FOR COLUMNS a, b | FOR ALL COLUMNS] and ANALYZE TABLES [FROM
// | IN ns] COMPUTE STATISTICS [NOSCAN].
func (p *parser) analyzeCmd(c *cmd) {
	p.pos++
	tables := p.at("TABLES")
	if tables {
		c.o.Kind = "ANALYZE TABLES"
		p.pos++
		p.showFromIn(c)
	} else {
		c.o.Kind = "ANALYZE TABLE"
		p.expect("TABLE")
		c.name()
		if p.at("PARTITION") {
			c.partition(false)
		}
	}
	p.expect("COMPUTE")
	p.expect("STATISTICS")
	if p.otherAtEnd() {
		return
	}
	if !tables && p.at("FOR") {
		save := p.pos
		t := &cmd{p: p, o: &ast.Other{}, start: c.start}
		if p.try(func() {
			p.pos++
			if !p.acceptSeq("ALL", "COLUMNS") {
				p.expect("COLUMNS")
				for _, id := range p.identSeq() {
					t.column(nameOf(id))
				}
			}
			p.otherExpectEnd()
		}) {
			c.o.Exprs = append(c.o.Exprs, t.o.Exprs...)
			return
		}
		p.pos = save
	}
	id := p.simpleIdent()
	if !strings.EqualFold(id.Name, "noscan") {
		c.refuse(id.Range, "INVALID_SQL_SYNTAX.ANALYZE_TABLE_UNEXPECTED_NOSCAN",
			"ANALYZE TABLE ... COMPUTE STATISTICS takes NOSCAN here, not "+id.Name)
	}
}

// explainCmd reads EXPLAIN [LOGICAL | FORMATTED | EXTENDED | CODEGEN |
// COST] statement.
func (p *parser) explainCmd(c *cmd) {
	c.o.Kind = "EXPLAIN"
	p.pos++
	t := p.tok()
	for _, m := range []string{"LOGICAL", "FORMATTED", "EXTENDED", "CODEGEN", "COST"} {
		if isKw(t, m) {
			p.pos++
			if m == "LOGICAL" {
				c.invalidStatement(tokRange(t), "EXPLAIN LOGICAL", "is not valid in Spark: write EXPLAIN, EXPLAIN EXTENDED, FORMATTED, CODEGEN or COST")
			}
			break
		}
	}
	nested := &script{}
	c.o.Stmts = append(c.o.Stmts, p.nestedStatement(nested))
	c.sem.merge(&nested.sem)
}

// nestedStatement reads a statement inside another (EXPLAIN's, a script's):
// the statements of other parser files through statement, the rest here
// with their errors going to sc.
func (p *parser) nestedStatement(sc *script) ast.Stmt {
	t := p.tok()
	if t.Kind == lex.LeftParen {
		var partial ast.Stmt
		return p.statement(&partial)
	}
	for _, k := range []string{"SELECT", "VALUES", "TABLE", "MAP", "REDUCE", "FROM", "WITH", "CREATE", "REPLACE",
		"INSERT", "SET", "RESET", "USE"} {
		if isKw(t, k) {
			var partial ast.Stmt
			return p.statement(&partial)
		}
	}
	return p.otherIn(sc)
}

// executeCmd reads EXECUTE IMMEDIATE expr [INTO var, ...] [USING arg
// [AS name], ... | USING (arg, ...)].
func (p *parser) executeCmd(c *cmd) {
	c.o.Kind = "EXECUTE IMMEDIATE"
	p.pos++
	p.expect("IMMEDIATE")
	c.expr()
	if p.accept("INTO") {
		c.o.Names = append(c.o.Names, p.multipartList()...)
	}
	if !p.accept("USING") {
		return
	}
	items := func(c *cmd) {
		seen := map[string]bool{}
		var dups []string
		for {
			it := p.namedExpr()
			c.o.Exprs = append(c.o.Exprs, it.X)
			if it.Alias != nil {
				if seen[it.Alias.Name] {
					dups = append(dups, quoteName(it.Alias.Name))
				}
				seen[it.Alias.Name] = true
			}
			if !p.acceptKind(lex.Comma) {
				break
			}
		}
		if len(dups) > 0 {
			c.refuse(c.whole(), "EXEC_IMMEDIATE_DUPLICATE_ARGUMENT_ALIASES",
				"the arguments of EXECUTE IMMEDIATE ... USING have the same alias twice: "+strings.Join(dups, ", "))
		}
	}
	if p.tok().Kind == lex.LeftParen {
		p.alts(c, func(n *cmd) {
			p.pos++
			items(n)
			p.expectKind(lex.RightParen)
		}, items)
		return
	}
	items(c)
}
