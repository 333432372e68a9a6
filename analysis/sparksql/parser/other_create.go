package parser

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// createCmd reads the CREATE statements create leaves: NAMESPACE,
// FUNCTION (both forms), INDEX, and the Hive commands CREATE ROLE and
// CREATE TEMPORARY MACRO.
func (p *parser) createCmd(c *cmd) {
	if p.nativeCmd(c, 1, "ROLE") || p.nativeCmd(c, 1, "TEMPORARY", "MACRO") {
		return
	}
	p.expect("CREATE")
	orReplace := p.acceptSeq("OR", "REPLACE")
	switch {
	case !orReplace && p.atNamespace():
		p.createNamespace(c)
	case p.at("FUNCTION"), p.at("TEMPORARY") && isKw(p.peek(1), "FUNCTION"):
		p.createFunction(c, orReplace)
	case !orReplace && p.at("INDEX"):
		save := p.pos
		n := &cmd{p: p, o: &ast.Other{}, start: c.start, sc: c.sc}
		if p.try(func() { p.createIndex(n); p.otherExpectEnd() }) {
			*c.o, c.sem = *n.o, n.sem
			return
		}
		p.pos = save - 1
		if !p.nativeCmd(c, 1, "INDEX") {
			p.pos = save
			p.createIndex(c)
		}
	default:
		p.accept("GLOBAL")
		p.accept("TEMPORARY")
		p.fail("TABLE, VIEW, NAMESPACE, FUNCTION or INDEX")
	}
}

// createNamespace reads CREATE NAMESPACE | DATABASE | SCHEMA [IF NOT
// EXISTS] name [COMMENT | LOCATION | DEFAULT COLLATION | WITH
// [DB]PROPERTIES (...)]...
func (p *parser) createNamespace(c *cmd) {
	c.o.Kind = "CREATE NAMESPACE"
	p.pos++
	c.rank = 9
	c.ifNotExists(true)
	c.name()
	seen := map[string]ast.Range{}
	for {
		start := p.tok().Start
		kw := ""
		switch {
		case p.at("COMMENT"):
			p.pos++
			kw = "COMMENT"
			p.stringLit()
		case p.at("LOCATION"):
			p.pos++
			kw = "LOCATION"
			p.stringLit()
		case p.atSeq("DEFAULT", "COLLATION"):
			p.pos += 2
			kw = "DEFAULT COLLATION"
			p.ident(anyIdent)
		case p.atSeq("WITH", "DBPROPERTIES"), p.atSeq("WITH", "PROPERTIES"):
			kw = "WITH " + strings.ToUpper(p.peek(1).Keyword.Token())
			p.pos += 2
			c.rank = 2
			c.props(propsValues, reservedNamespace, "UNSUPPORTED_FEATURE.SET_NAMESPACE_PROPERTY")
		}
		if kw == "" {
			break
		}
		r := p.rangeFrom(start)
		c.rank = 0
		if _, dup := seen[kw]; dup {
			c.refuse(r, "DUPLICATE_CLAUSES", "found duplicate clauses: "+kw+"; write it once")
		}
		seen[kw] = r
	}
	_, props := seen["WITH PROPERTIES"]
	if r, db := seen["WITH DBPROPERTIES"]; db && props {
		c.rank = 1
		c.refuse(r, "UNSUPPORTED_FEATURE.SET_PROPERTIES_AND_DBPROPERTIES",
			"set either PROPERTIES or DBPROPERTIES, not both")
	}
}

// createFunction reads CREATE [OR REPLACE] [TEMPORARY] FUNCTION [IF NOT
// EXISTS] name, either AS 'class' [USING JAR 'x', ...] or a SQL function:
// (params) [RETURNS type | TABLE (cols)] [characteristics] RETURN query |
// expression.
func (p *parser) createFunction(c *cmd, orReplace bool) {
	c.o.Kind = "CREATE FUNCTION"
	temp := p.accept("TEMPORARY")
	p.expect("FUNCTION")
	ine := c.ifNotExists(false)
	n := c.name()
	if p.accept("AS") {
		p.stringLit()
		if p.accept("USING") {
			for {
				start := p.tok().Start
				kind := p.simpleIdent()
				p.stringLit()
				switch strings.ToLower(kind.Name) {
				case "jar", "file", "archive":
				default:
					c.notAllowed(p.rangeFrom(start), "CREATE FUNCTION with resource type '"+strings.ToLower(kind.Name)+"'")
				}
				if !p.acceptKind(lex.Comma) {
					break
				}
			}
		}
	} else {
		p.sqlFunctionBody(c)
	}
	c.rank = 1
	if ine && orReplace {
		c.refuse(c.whole(), "INVALID_SQL_SYNTAX.CREATE_ROUTINE_WITH_IF_NOT_EXISTS_AND_REPLACE",
			"CREATE OR REPLACE FUNCTION cannot have IF NOT EXISTS: keep one of them")
	}
	if temp {
		c.rank = 5
		switch parts := p.nameParts(n); {
		case ine:
			c.refuse(c.whole(), "INVALID_SQL_SYNTAX.CREATE_TEMP_FUNC_WITH_IF_NOT_EXISTS",
				"CREATE TEMPORARY FUNCTION cannot have IF NOT EXISTS")
		case parts > 2:
			c.refuse(n.Range, "INVALID_SQL_SYNTAX.MULTI_PART_NAME",
				"a temporary function's name "+n.String()+" has too many parts")
		case parts == 2:
			c.refuse(n.Range, "INVALID_SQL_SYNTAX.CREATE_TEMP_FUNC_WITH_DATABASE",
				"a temporary function's name cannot have a database: "+n.String())
		}
	}
}

// sqlFunctionBody reads a SQL function's (params) [RETURNS ...]
// characteristics RETURN body. Spark keeps the parameter and return types
// as text, so an unknown type is no error here.
func (p *parser) sqlFunctionBody(c *cmd) {
	p.expectKind(lex.LeftParen)
	if p.tok().Kind != lex.RightParen {
		for {
			p.routineParam(c)
			if !p.acceptKind(lex.Comma) {
				break
			}
		}
	}
	p.expectKind(lex.RightParen)
	if p.at("RETURNS") && !p.atSeq("RETURNS", "NULL", "ON", "NULL", "INPUT") {
		p.pos++
		if p.at("TABLE") && p.peek(1).Kind == lex.LeftParen {
			p.pos += 2
			for {
				p.errIdent(anyIdent)
				p.lenientType()
				if p.atNot() && isKw(p.peek(1), "NULL") {
					p.pos += 2
				}
				if p.accept("COMMENT") {
					p.stringLit()
				}
				if !p.acceptKind(lex.Comma) {
					break
				}
			}
			p.expectKind(lex.RightParen)
		} else {
			p.lenientType()
		}
	}
	p.routineCharacteristics(c)
	p.expect("RETURN")
	save := p.pos
	var q *ast.Query
	if p.startsQuery() && p.try(func() { q = p.query(); p.otherExpectEnd() }) {
		c.o.Queries = append(c.o.Queries, q)
		return
	}
	p.pos = save
	c.expr()
}

// routineParam reads one parameter: name type [NOT NULL | DEFAULT expr |
// COMMENT '...' | GENERATED ... | constraint]..., recording Spark's
// refusal of generated columns and constraints as parameters.
func (p *parser) routineParam(c *cmd) {
	p.errIdent(anyIdent)
	p.lenientType()
	for {
		switch {
		case p.atNot() && isKw(p.peek(1), "NULL"):
			p.pos += 2
		case p.at("DEFAULT"):
			p.pos++
			c.expr()
		case p.at("COMMENT"):
			p.pos++
			p.stringLit()
		case p.at("GENERATED"):
			gs := p.tok().Start
			p.pos++
			if p.atSeq("ALWAYS", "AS") && p.peek(2).Kind == lex.LeftParen {
				p.pos += 3
				c.expr()
				p.expectKind(lex.RightParen)
			} else {
				if !p.accept("ALWAYS") {
					p.expect("BY")
					p.expect("DEFAULT")
				}
				p.expect("AS")
				p.expect("IDENTITY")
				if p.acceptKind(lex.LeftParen) {
					for !p.acceptKind(lex.RightParen) {
						if !p.acceptSeq("START", "WITH") && !p.acceptSeq("INCREMENT", "BY") {
							p.fail("START WITH or INCREMENT BY")
						}
						p.acceptKind(lex.Minus)
						if p.tok().Kind != lex.Integer && p.tok().Kind != lex.BigInt {
							p.fail("an integer")
						}
						p.pos++
					}
				}
			}
			c.rank = 1
			c.refuse(p.rangeFrom(gs), "INVALID_SQL_SYNTAX.CREATE_FUNC_WITH_GENERATED_COLUMNS_AS_PARAMETERS",
				"a function's parameter cannot be a generated column")
		case p.at("CONSTRAINT") || p.atSeq("PRIMARY", "KEY") || p.at("UNIQUE") || p.at("REFERENCES") ||
			(p.at("CHECK") && p.peek(1).Kind == lex.LeftParen):
			ks := p.tok().Start
			k := p.columnConstraint()
			if k.Check != nil {
				c.o.Exprs = append(c.o.Exprs, k.Check)
			}
			c.rank = 1
			c.refuse(p.rangeFrom(ks), "INVALID_SQL_SYNTAX.CREATE_FUNC_WITH_COLUMN_CONSTRAINTS",
				"a function's parameter cannot have a constraint")
		default:
			return
		}
	}
}

// lenientType reads a data type, returning rather than raising Spark's
// refusal of an unknown type name (Spark raises it only when it builds
// the type, after parsing, and not at all for a function's parameters).
func (p *parser) lenientType() (unsupported *ast.SyntaxError) {
	start := p.tok().Start
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok || b.err.Class != "UNSUPPORTED_DATATYPE" || b.err.Start != start {
				// a syntax error, or an unknown type nested in ARRAY<...>
				// and the like, whose rest is not read
				panic(r)
			}
			unsupported = b.err
		}
	}()
	p.dataType()
	return nil
}

// dataType reads a data type whose refusal, for an unknown type name, is
// raised once the statement has parsed, as in Spark.
func (c *cmd) dataType() {
	if bad := c.p.lenientType(); bad != nil {
		c.refuse(bad.Range, bad.Class, bad.Message)
	}
}

// routineCharacteristics reads LANGUAGE, SPECIFIC, [NOT] DETERMINISTIC,
// the SQL data access, the NULL call, COMMENT and SQL SECURITY clauses in
// any order, with Spark's checks.
func (p *parser) routineCharacteristics(c *cmd) {
	seen := map[string]bool{}
	type later struct {
		r   ast.Range
		msg string
	}
	var refusals []later
	for {
		start := p.tok().Start
		group := ""
		msg := ""
		switch {
		case p.at("LANGUAGE"):
			p.pos++
			group = "LANGUAGE"
			t := p.tok()
			switch {
			case p.at("SQL"):
				p.pos++
			case t.Kind == lex.Ident && t.Keyword == lex.NoKeyword:
				p.pos++
				msg = "Unsupported language for user defined functions: " + t.Text
			default:
				p.fail("SQL")
			}
		case p.at("SPECIFIC"):
			p.pos++
			group = "SPECIFIC"
			p.errIdent(anyIdent)
			msg = "SQL function with SPECIFIC name is not supported"
		case p.at("DETERMINISTIC"):
			p.pos++
			group = "DETERMINISTIC"
		case p.atNot() && isKw(p.peek(1), "DETERMINISTIC"):
			group = "DETERMINISTIC"
			c.rank = 3
			c.acceptNot("DETERMINISTIC")
		case p.atSeq("NO", "SQL"):
			p.pos += 2
			group = "SQL DATA ACCESS"
			msg = "SQL function with NO SQL is not supported"
		case p.atSeq("CONTAINS", "SQL"):
			p.pos += 2
			group = "SQL DATA ACCESS"
		case p.atSeq("READS", "SQL", "DATA"):
			p.pos += 3
			group = "SQL DATA ACCESS"
		case p.atSeq("MODIFIES", "SQL", "DATA"):
			p.pos += 3
			group = "SQL DATA ACCESS"
			msg = "SQL function with MODIFIES SQL DATA is not supported"
		case p.atSeq("RETURNS", "NULL", "ON", "NULL", "INPUT"):
			p.pos += 5
			group = "NULL CALL"
			msg = "SQL function with RETURNS NULL ON NULL INPUT is not supported"
		case p.atSeq("CALLED", "ON", "NULL", "INPUT"):
			p.pos += 4
			group = "NULL CALL"
		case p.at("COMMENT"):
			p.pos++
			group = "COMMENT"
			p.stringLit()
		case p.atSeq("SQL", "SECURITY"):
			p.pos += 2
			group = "SQL SECURITY RIGHTS"
			if p.at("INVOKER") {
				msg = "SQL function with SQL SECURITY INVOKER is not supported"
				p.pos++
			} else {
				p.expect("DEFINER")
			}
		}
		if group == "" {
			break
		}
		r := p.rangeFrom(start)
		c.rank = 2
		if seen[group] {
			c.refuse(r, "DUPLICATE_CLAUSES", "found duplicate clauses: "+group+"; write it once")
		}
		seen[group] = true
		if msg != "" {
			refusals = append(refusals, later{r, msg})
		}
	}
	c.rank = 4
	for _, l := range refusals {
		c.notAllowed(l.r, l.msg)
	}
}

// createIndex reads CREATE INDEX [IF NOT EXISTS] index ON [TABLE] t
// [USING type] (col [OPTIONS (...)], ...) [OPTIONS (...)].
func (p *parser) createIndex(c *cmd) {
	c.o.Kind = "CREATE INDEX"
	p.expect("INDEX")
	c.ifNotExists(true)
	id := p.ident(anyIdent)
	c.o.Names = append(c.o.Names, nameOf(id))
	p.expect("ON")
	p.accept("TABLE")
	c.name()
	if p.accept("USING") {
		p.ident(anyIdent)
	}
	p.expectKind(lex.LeftParen)
	for {
		c.column(p.multipart())
		if p.accept("OPTIONS") {
			c.props(propsValues, nil, "")
		}
		if !p.acceptKind(lex.Comma) {
			break
		}
	}
	p.expectKind(lex.RightParen)
	if p.accept("OPTIONS") {
		c.props(propsValues, nil, "")
	}
}

// dropCmd reads DROP NAMESPACE | TABLE | VIEW | [TEMPORARY] FUNCTION |
// TEMPORARY VARIABLE | INDEX, and the Hive commands DROP ROLE and DROP
// TEMPORARY MACRO.
func (p *parser) dropCmd(c *cmd) {
	if p.nativeCmd(c, 1, "ROLE") || p.nativeCmd(c, 1, "TEMPORARY", "MACRO") {
		return
	}
	p.expect("DROP")
	switch {
	case p.atNamespace():
		c.o.Kind = "DROP NAMESPACE"
		p.pos++
		p.otherIfExists()
		c.name()
		if !p.accept("RESTRICT") {
			p.accept("CASCADE")
		}
	case p.at("TABLE"):
		c.o.Kind = "DROP TABLE"
		p.pos++
		p.otherIfExists()
		c.name()
		p.accept("PURGE")
	case p.at("VIEW"):
		c.o.Kind = "DROP VIEW"
		p.pos++
		p.otherIfExists()
		c.name()
	case p.at("FUNCTION"), p.atSeq("TEMPORARY", "FUNCTION"):
		c.o.Kind = "DROP FUNCTION"
		temp := p.accept("TEMPORARY")
		p.pos++
		p.otherIfExists()
		n := c.name()
		if temp && p.nameParts(n) > 1 {
			c.refuse(n.Range, "INVALID_SQL_SYNTAX.MULTI_PART_NAME",
				"a temporary function's name cannot have several parts: "+n.String())
		}
	case p.at("TEMPORARY"):
		c.o.Kind = "DROP VARIABLE"
		p.pos++
		if !p.accept("VARIABLE") && !p.accept("VAR") {
			p.fail("FUNCTION or VARIABLE")
		}
		p.otherIfExists()
		c.name()
	case p.at("INDEX"):
		save := p.pos
		n := &cmd{p: p, o: &ast.Other{}, start: c.start, sc: c.sc}
		if p.try(func() { p.dropIndex(n); p.otherExpectEnd() }) {
			*c.o, c.sem = *n.o, n.sem
			return
		}
		p.pos = save - 1
		if !p.nativeCmd(c, 1, "INDEX") {
			p.pos = save
			p.dropIndex(c)
		}
	default:
		p.fail("TABLE, VIEW, NAMESPACE, FUNCTION, TEMPORARY VARIABLE or INDEX")
	}
}

// dropIndex reads INDEX [IF EXISTS] index ON [TABLE] t.
func (p *parser) dropIndex(c *cmd) {
	c.o.Kind = "DROP INDEX"
	p.expect("INDEX")
	p.otherIfExists()
	id := p.ident(anyIdent)
	c.o.Names = append(c.o.Names, nameOf(id))
	p.expect("ON")
	p.accept("TABLE")
	c.name()
}

// declareVariable reads DECLARE [OR REPLACE] [VARIABLE] name, ... [type]
// [DEFAULT | = expr].
func (p *parser) declareVariable(c *cmd) {
	c.o.Kind = "DECLARE VARIABLE"
	p.expect("DECLARE")
	p.acceptSeq("OR", "REPLACE")
	if (p.at("VARIABLE") || p.at("VAR")) && p.canIdent(p.peek(1), anyIdent) {
		p.pos++
	}
	first := c.name()
	for p.acceptKind(lex.Comma) {
		c.name()
	}
	typed := false
	if !p.at("DEFAULT") && p.tok().Kind != lex.Eq && !p.otherAtEnd() {
		c.dataType()
		typed = true
	}
	if p.at("DEFAULT") || p.tok().Kind == lex.Eq {
		p.pos++
		c.expr()
	} else if !typed {
		c.refuse(first.Range, "INVALID_SQL_SYNTAX.VARIABLE_TYPE_OR_DEFAULT_REQUIRED",
			"a variable needs a type or a DEFAULT value: DECLARE "+first.String()+" INT or DECLARE "+first.String()+" = 1")
	}
}
