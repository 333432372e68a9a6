package parser

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// script is the state of a SQL script being read: the labels in scope,
// the conditions declared, and the errors Spark raises while building it
// (which come after every syntax error of the script).
type script struct {
	sem sem
	// labels are the enclosing labelled statements, innermost last.
	labels []scriptLabel
	// seen are the labels and FOR variables in scope, in lower case.
	seen map[string]bool
	// conds are the conditions declared in the enclosing blocks, in
	// upper case.
	conds map[string]bool
}

// scriptLabel is one label in scope.
type scriptLabel struct {
	name string
	// block is set for the label of BEGIN ... END, which ITERATE cannot
	// name.
	block bool
}

// the kinds of statement a compound body orders (Spark's
// CompoundBodyParsingContext).
const (
	bodyInit = iota
	bodyVariable
	bodyCondition
	bodyHandler
	bodyStatement
)

// scriptCmd reads a SQL script: BEGIN [NOT ATOMIC] statements END.
func (p *parser) scriptCmd(c *cmd) {
	sc := &script{seen: map[string]bool{}, conds: map[string]bool{}}
	c.o.Kind = "BEGIN"
	p.expect("BEGIN")
	p.acceptSeq("NOT", "ATOMIC")
	p.compoundBody(sc, c.o, true, false, func() bool { return p.at("END") })
	p.expect("END")
	c.sem.merge(&sc.sem)
}

// compoundBody reads statement; ... until ends reports the end of the
// body; the statements go to o's Stmts. scope is set for the body of a
// block (where DECLARE may come), required when the body needs a
// statement.
func (p *parser) compoundBody(sc *script, o *ast.Other, scope, required bool, ends func() bool) {
	state := bodyInit
	var declared []string
	n := 0
	for !(ends() && p.peek(1).Kind != lex.Colon) {
		// the bound on readings tried is per statement of the script, so
		// that a long script is no "complex statement"
		p.tries = 0
		start := p.tok().Start
		st, kind, cond := p.compoundStatement(sc)
		end := p.prevEnd()
		if !p.acceptKind(lex.Semicolon) {
			p.fail("';' (every statement of a script ends with one)")
		}
		o.Stmts = append(o.Stmts, st)
		n++
		r := ast.Range{Start: start, End: end}
		switch kind {
		case bodyVariable:
			name := ""
			if v, ok := st.(*ast.Other); ok && len(v.Names) > 0 {
				name = v.Names[0].String()
			}
			switch {
			case !scope:
				sc.sem.add(end, 0, r, "INVALID_VARIABLE_DECLARATION.NOT_ALLOWED_IN_SCOPE",
					"DECLARE "+name+" is only allowed at the start of a BEGIN ... END block, not inside IF, CASE or a loop")
			case state == bodyHandler || state == bodyStatement:
				sc.sem.add(end, 0, r, "INVALID_VARIABLE_DECLARATION.ONLY_AT_BEGINNING",
					"DECLARE "+name+" must come at the start of its block, before its other statements and handlers")
			default:
				state = bodyVariable
			}
		case bodyCondition:
			switch {
			case !scope || state == bodyStatement || state == bodyHandler:
				sc.sem.add(end, 0, r, "INVALID_ERROR_CONDITION_DECLARATION.NOT_AT_START_OF_COMPOUND_STATEMENT",
					"DECLARE "+cond+" CONDITION must come at the start of a BEGIN ... END block")
			default:
				state = bodyCondition
			}
			if sc.conds[cond] {
				sc.sem.add(end, 1, r, "DUPLICATE_CONDITION_IN_SCOPE", "the condition "+cond+" is declared twice in scope")
			}
			sc.conds[cond] = true
			declared = append(declared, cond)
		case bodyHandler:
			if state == bodyStatement {
				sc.sem.add(end, 0, r, "INVALID_HANDLER_DECLARATION.WRONG_PLACE_OF_DECLARATION",
					"DECLARE ... HANDLER must come before the block's other statements")
			} else {
				state = bodyHandler
			}
		default:
			state = bodyStatement
		}
	}
	if required && n == 0 {
		p.fail("a statement")
	}
	for _, d := range declared {
		delete(sc.conds, d)
	}
}

// compoundStatement reads one statement of a script; it returns the
// statement, its kind for the body's order and, for DECLARE CONDITION,
// the condition's name.
func (p *parser) compoundStatement(sc *script) (ast.Stmt, int, string) {
	start := p.tok().Start
	var label *ast.Ident
	if p.canIdent(p.tok(), strictIdent) && p.peek(1).Kind == lex.Colon {
		n := p.peek(2)
		if isKw(n, "BEGIN") || isKw(n, "WHILE") || isKw(n, "REPEAT") || isKw(n, "LOOP") || isKw(n, "FOR") {
			label = p.ident(strictIdent)
			p.pos++
		}
	}
	c := &cmd{p: p, o: &ast.Other{}, start: start, sc: sc}
	switch {
	case p.at("BEGIN"):
		p.blockStmt(c, label)
	case p.at("WHILE"), p.at("REPEAT"), p.at("LOOP"), p.at("FOR"):
		p.loopStmt(c, label)
	case p.at("DECLARE") && p.canIdent(p.peek(1), strictIdent) && isKw(p.peek(2), "CONDITION"):
		return p.declareCondition(c), bodyCondition, strings.ToUpper(c.o.Names[0].String())
	case p.at("DECLARE") && (isKw(p.peek(1), "CONTINUE") || isKw(p.peek(1), "EXIT")) && isKw(p.peek(2), "HANDLER"):
		p.handlerStmt(c)
		sc.sem.merge(&c.sem)
		return c.o, bodyHandler, ""
	case p.at("IF"):
		p.ifStmt(c)
	case p.at("CASE"):
		p.caseStmt(c)
	case p.at("LEAVE"), p.at("ITERATE"):
		p.leaveStmt(c)
	case p.at("SET"):
		return p.scriptSet(), bodyStatement, ""
	case p.at("RESET"):
		p.fail("a statement of a script")
	default:
		st := p.nestedStatement(sc)
		if o, ok := st.(*ast.Other); ok && o.Kind == "DECLARE VARIABLE" {
			return st, bodyVariable, ""
		}
		return st, bodyStatement, ""
	}
	c.o.Range = p.rangeFrom(start)
	sc.sem.merge(&c.sem)
	return c.o, bodyStatement, ""
}

// scriptSet reads SET CATALOG c or a script's SET var = expr, ... | SET
// (vars) = (query).
func (p *parser) scriptSet() ast.Stmt {
	start := p.tok().Start
	if p.atSeq("SET", "CATALOG") {
		save := p.pos
		var st ast.Stmt
		if p.try(func() {
			st = p.set()
			if s, ok := st.(*ast.Set); !ok || s.Kind != "CATALOG" {
				p.fail("")
			}
		}) {
			return st
		}
		p.pos = save
	}
	p.expect("SET")
	s := &ast.Set{Kind: "VAR"}
	p.setVariableBody(s)
	s.Range = p.rangeFrom(start)
	return s
}

// enterLabel puts label (nil: none) in scope for the statement at start.
func (p *parser) enterLabel(sc *script, label *ast.Ident, block bool) (name string, added bool) {
	if label == nil {
		return "", false
	}
	name = strings.ToLower(p.labelText(label))
	if sc.seen[name] {
		return name, false
	}
	sc.seen[name] = true
	sc.labels = append(sc.labels, scriptLabel{name: name, block: block})
	return name, true
}

// labelText is the name a label stands for (IDENTIFIER('x') included).
func (p *parser) labelText(id *ast.Ident) string {
	if s, ok := p.identifierClauseText(id); ok {
		return s
	}
	return id.Name
}

// leaveLabel reads the optional end label of the statement at start that
// label began, checks both as Spark does, and takes label out of scope.
func (p *parser) leaveLabel(c *cmd, label *ast.Ident, name string, added bool) {
	sc := c.sc
	var end *ast.Ident
	if p.canIdent(p.tok(), strictIdent) {
		end = p.ident(strictIdent)
	}
	switch {
	case label != nil && end != nil && !strings.EqualFold(p.labelText(label), p.labelText(end)):
		sc.sem.add(c.start, 0, end.Range, "LABELS_MISMATCH",
			"the end label "+quoteName(p.labelText(end))+" does not match the begin label "+quoteName(p.labelText(label)))
	case label == nil && end != nil:
		sc.sem.add(c.start, 0, end.Range, "END_LABEL_WITHOUT_BEGIN_LABEL",
			"the end label "+quoteName(p.labelText(end))+" has no begin label: write "+p.labelText(end)+": before the statement")
	}
	if label != nil {
		switch {
		case !added:
			sc.sem.add(c.start, 1, label.Range, "LABEL_OR_FOR_VARIABLE_ALREADY_EXISTS",
				"the label "+quoteName(name)+" is already in scope: choose another name")
		case forbiddenLabel(name):
			sc.sem.add(c.start, 2, label.Range, "LABEL_OR_FOR_VARIABLE_NAME_FORBIDDEN",
				"the label "+quoteName(name)+" is reserved: choose another name")
		}
	}
	if added {
		delete(sc.seen, name)
		sc.labels = sc.labels[:len(sc.labels)-1]
	}
}

// forbiddenLabel reports whether Spark keeps the name (builtin, session,
// sys...) from labels and FOR variables.
func forbiddenLabel(name string) bool {
	return name == "builtin" || name == "session" || strings.HasPrefix(name, "sys")
}

// blockStmt reads [label:] BEGIN [NOT ATOMIC] [statements] END [label].
func (p *parser) blockStmt(c *cmd, label *ast.Ident) {
	c.o.Kind = "BEGIN"
	name, added := p.enterLabel(c.sc, label, true)
	p.expect("BEGIN")
	p.acceptSeq("NOT", "ATOMIC")
	p.compoundBody(c.sc, c.o, true, false, func() bool { return p.at("END") })
	p.expect("END")
	p.leaveLabel(c, label, name, added)
}

// loopStmt reads [label:] WHILE cond DO ... END WHILE, REPEAT ... UNTIL
// cond END REPEAT, LOOP ... END LOOP or FOR [var AS] query DO ... END FOR,
// each with an optional end label.
func (p *parser) loopStmt(c *cmd, label *ast.Ident) {
	sc := c.sc
	kw := strings.ToUpper(p.tok().Keyword.Token())
	c.o.Kind = kw
	name, added := p.enterLabel(sc, label, false)
	p.pos++
	atEnd := func() bool { return p.at("END") }
	switch kw {
	case "WHILE":
		c.expr()
		p.expect("DO")
		p.compoundBody(sc, c.o, false, true, atEnd)
	case "REPEAT":
		p.compoundBody(sc, c.o, false, true, func() bool { return p.at("UNTIL") })
		p.expect("UNTIL")
		c.expr()
	case "LOOP":
		p.compoundBody(sc, c.o, false, true, atEnd)
	case "FOR":
		var v *ast.Ident
		if p.canIdent(p.tok(), strictIdent) && isKw(p.peek(1), "AS") {
			v = p.ident(strictIdent)
			p.pos++
		}
		c.o.Queries = append(c.o.Queries, p.queryBefore("DO"))
		vname := ""
		if v != nil {
			vname = strings.ToLower(p.labelText(v))
			switch {
			case sc.seen[vname]:
				sc.sem.add(v.Start, 0, v.Range, "LABEL_OR_FOR_VARIABLE_ALREADY_EXISTS",
					"the FOR variable "+quoteName(vname)+" is already a label or FOR variable in scope: choose another name")
				vname = ""
			case forbiddenLabel(vname):
				sc.sem.add(v.Start, 0, v.Range, "LABEL_OR_FOR_VARIABLE_NAME_FORBIDDEN",
					"the FOR variable name "+quoteName(vname)+" is reserved: choose another name")
			}
			if vname != "" {
				sc.seen[vname] = true
			}
		}
		p.expect("DO")
		p.compoundBody(sc, c.o, false, true, atEnd)
		if vname != "" {
			delete(sc.seen, vname)
		}
	}
	p.expect("END")
	p.expect(kw)
	p.leaveLabel(c, label, name, added)
}

// queryBefore reads a query that ends at the top-level keyword kw (FOR's
// DO), which Spark's parser never takes as an alias there since the
// statement would not parse.
func (p *parser) queryBefore(kw string) *ast.Query {
	depth := 0
	for i := p.pos + 1; i < len(p.toks)-1 && depth >= 0; i++ {
		t := p.toks[i]
		switch t.Kind {
		case lex.LeftParen:
			depth++
		case lex.RightParen:
			depth--
		case lex.Semicolon:
			if depth == 0 {
				return p.query()
			}
		}
		if depth != 0 || !isKw(t, kw) || isKw(p.toks[i+1], kw) {
			// a kw followed by kw is the alias of the query, as in FOR
			// SELECT * FROM t do DO ...
			continue
		}
		if q := p.queryCut(i); q != nil {
			return q
		}
	}
	return p.query()
}

// queryCut reads a query as if the text ended at token i; nil if that
// does not read.
func (p *parser) queryCut(i int) (q *ast.Query) {
	saved, far := p.toks, p.far
	cut := make([]lex.Token, i+1)
	copy(cut, saved[:i])
	cut[i] = lex.Token{Kind: lex.Invalid, Start: saved[i].Start, End: saved[i].Start}
	p.toks = cut
	defer func() { p.toks, p.far = saved, far }()
	if !p.try(func() {
		q = p.query()
		if !p.atEOF() {
			p.fail("")
		}
	}) {
		return nil
	}
	return q
}

// ifStmt reads IF cond THEN ... [ELSEIF cond THEN ...]... [ELSE ...] END IF.
func (p *parser) ifStmt(c *cmd) {
	c.o.Kind = "IF"
	p.pos++
	branch := func() bool { return p.at("ELSEIF") || p.at("ELSE") || p.at("END") }
	c.expr()
	p.expect("THEN")
	p.compoundBody(c.sc, c.o, false, true, branch)
	for p.accept("ELSEIF") {
		c.expr()
		p.expect("THEN")
		p.compoundBody(c.sc, c.o, false, true, branch)
	}
	if p.accept("ELSE") {
		p.compoundBody(c.sc, c.o, false, true, func() bool { return p.at("END") })
	}
	p.expect("END")
	p.expect("IF")
}

// caseStmt reads CASE [x] WHEN cond THEN ... [ELSE ...] END CASE.
func (p *parser) caseStmt(c *cmd) {
	c.o.Kind = "CASE"
	p.pos++
	if !p.at("WHEN") {
		c.expr()
	}
	branch := func() bool { return p.at("WHEN") || p.at("ELSE") || p.at("END") }
	p.expect("WHEN")
	p.pos--
	for p.accept("WHEN") {
		c.expr()
		p.expect("THEN")
		p.compoundBody(c.sc, c.o, false, true, branch)
	}
	if p.accept("ELSE") {
		p.compoundBody(c.sc, c.o, false, true, func() bool { return p.at("END") })
	}
	p.expect("END")
	p.expect("CASE")
}

// leaveStmt reads LEAVE label or ITERATE label.
func (p *parser) leaveStmt(c *cmd) {
	kw := strings.ToUpper(p.next().Keyword.Token())
	c.o.Kind = kw
	id := p.ident(strictIdent)
	name := strings.ToLower(p.labelText(id))
	for i := len(c.sc.labels) - 1; i >= 0; i-- {
		l := c.sc.labels[i]
		if l.name != name {
			continue
		}
		if l.block && kw == "ITERATE" {
			c.refuse(id.Range, "INVALID_LABEL_USAGE.ITERATE_IN_COMPOUND",
				"ITERATE "+name+" names a BEGIN ... END block: ITERATE works on loops, LEAVE leaves a block")
		}
		return
	}
	c.refuse(id.Range, "INVALID_LABEL_USAGE.DOES_NOT_EXIST",
		kw+" "+name+": no enclosing block or loop has this label")
}

// declareCondition reads DECLARE name CONDITION [FOR SQLSTATE [VALUE]
// 'state'].
func (p *parser) declareCondition(c *cmd) ast.Stmt {
	c.o.Kind = "DECLARE CONDITION"
	p.pos++
	id := p.ident(strictIdent)
	c.o.Names = append(c.o.Names, nameOf(id))
	p.expect("CONDITION")
	if p.accept("FOR") {
		p.expect("SQLSTATE")
		p.accept("VALUE")
		s := p.stringLit()
		c.sqlState(s)
	}
	name := p.labelText(id)
	if !validCondition(name) {
		c.refuse(id.Range, "INVALID_ERROR_CONDITION_DECLARATION.SPECIAL_CHARACTER_FOUND",
			"the condition name "+quoteName(name)+" may only have letters, digits and _")
	}
	c.o.Range = p.rangeFrom(c.start)
	c.sc.sem.merge(&c.sem)
	return c.o
}

// validCondition reports whether a condition name is letters, digits and _.
func validCondition(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// sqlState records Spark's refusal of an invalid SQLSTATE: five letters
// or digits, not starting with 00, 01 or XX.
func (c *cmd) sqlState(s *ast.StringLit) {
	v := s.Value
	ok := len(v) == 5 && validCondition(v) && !strings.Contains(v, "_") &&
		!strings.HasPrefix(v, "00") && !strings.HasPrefix(v, "01") && !strings.HasPrefix(v, "XX")
	if !ok {
		c.refuse(s.Range, "INVALID_SQLSTATE",
			"invalid SQLSTATE '"+v+"': five letters or digits, not starting with 00, 01 or XX")
	}
}

// handlerStmt reads DECLARE CONTINUE | EXIT HANDLER FOR conditions body.
func (p *parser) handlerStmt(c *cmd) {
	c.o.Kind = "DECLARE HANDLER"
	p.pos++
	cont := p.next()
	p.expect("HANDLER")
	p.expect("FOR")
	conds, states := map[string]bool{}, map[string]bool{}
	general, specific := false, false
	for {
		start := p.tok().Start
		dup := ""
		switch {
		case p.at("SQLSTATE"):
			p.pos++
			p.accept("VALUE")
			s := p.stringLit()
			c.sqlState(s)
			v := strings.ToUpper(s.Value)
			if states[v] {
				c.refuse(s.Range, "INVALID_HANDLER_DECLARATION.DUPLICATE_SQLSTATE_IN_HANDLER_DECLARATION",
					"the SQLSTATE "+v+" is named twice in one handler")
			}
			states[v] = true
			specific = true
		case p.at("SQLEXCEPTION"):
			p.pos++
			dup = "SQLEXCEPTION"
			general = true
		case p.atSeq("NOT", "FOUND"):
			p.pos += 2
			dup = "NOT FOUND"
			general = true
		default:
			n := p.multipart()
			dup = strings.ToUpper(n.String())
			specific = true
		}
		if conds[dup] {
			c.refuse(p.rangeFrom(start), "INVALID_HANDLER_DECLARATION.DUPLICATE_CONDITION_IN_HANDLER_DECLARATION",
				"the condition "+dup+" is named twice in one handler")
		}
		if dup != "" {
			conds[dup] = true
		}
		if !p.acceptKind(lex.Comma) {
			break
		}
	}
	c.rank = 1
	if general && specific {
		c.refuse(c.whole(), "INVALID_HANDLER_DECLARATION.INVALID_CONDITION_COMBINATION",
			"SQLEXCEPTION and NOT FOUND cannot be combined with other conditions in one handler")
	}
	if isKw(cont, "CONTINUE") {
		c.rank = 2
		c.refuse(tokRange(cont), "UNSUPPORTED_FEATURE.CONTINUE_EXCEPTION_HANDLER",
			"CONTINUE handlers are not supported by Spark 4.1: use an EXIT handler")
	}
	var label *ast.Ident
	if p.canIdent(p.tok(), strictIdent) && p.peek(1).Kind == lex.Colon && isKw(p.peek(2), "BEGIN") {
		label = p.ident(strictIdent)
		p.pos++
	}
	switch {
	case p.at("BEGIN"):
		b := &cmd{p: p, o: &ast.Other{}, start: p.tok().Start, sc: c.sc}
		if label != nil {
			b.start = label.Start
		}
		p.blockStmt(b, label)
		b.o.Range = p.rangeFrom(b.start)
		c.sc.sem.merge(&b.sem)
		c.o.Stmts = append(c.o.Stmts, b.o)
	case p.at("SET"):
		c.o.Stmts = append(c.o.Stmts, p.scriptSet())
	default:
		c.o.Stmts = append(c.o.Stmts, p.nestedStatement(c.sc))
	}
	c.o.Range = p.rangeFrom(c.start)
}
