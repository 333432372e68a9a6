package parser

import (
	"regexp"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// statement reads one statement. *partial is set to what was read of a
// CREATE before its query, so a broken query keeps its statement's name.
func (p *parser) statement(partial *ast.Stmt) ast.Stmt {
	t := p.tok()
	start := t.Start
	switch {
	case isKw(t, "SELECT"), isKw(t, "VALUES"), isKw(t, "TABLE"), isKw(t, "MAP"), isKw(t, "REDUCE"):
		q := p.query()
		return &ast.QueryStmt{Range: q.Range, Query: q}
	case t.Kind == lex.LeftParen:
		q := p.query()
		return &ast.QueryStmt{Range: q.Range, Query: q}
	case isKw(t, "FROM"):
		if st := p.multiInsert(nil); st != nil {
			return st
		}
		q := p.query()
		return &ast.QueryStmt{Range: q.Range, Query: q}
	case isKw(t, "WITH"):
		w := p.with()
		switch {
		case p.at("INSERT"):
			ins := p.insert()
			ins.With = w
			ins.Range = p.rangeFrom(start)
			return ins
		case p.at("FROM"):
			if st := p.multiInsert(w); st != nil {
				return st
			}
		case p.at("DELETE"), p.at("UPDATE"), p.at("MERGE"):
			st := p.otherWith(w)
			if o, ok := st.(*ast.Other); ok {
				o.Range = p.rangeFrom(start)
			}
			return st
		}
		q := &ast.Query{With: w}
		q.Body = p.queryTerm(0)
		p.organization(q)
		q.Range = p.rangeFrom(start)
		return &ast.QueryStmt{Range: q.Range, Query: q}
	case isKw(t, "CREATE"), isKw(t, "REPLACE"):
		return p.create(partial)
	case isWord(t, "APPLY") && isWord(p.peek(1), "CHANGES"):
		return p.applyChanges()
	case isKw(t, "INSERT"):
		return p.insert()
	case isKw(t, "SET"):
		return p.set()
	case isKw(t, "RESET"):
		p.pos++
		ks := p.tok().Start
		p.skipToEnd()
		return &ast.Set{Range: p.rangeFrom(start), Kind: "RESET", Key: strings.TrimSpace(p.src[ks:max(ks, p.prevEnd())]),
			KeyRange: ast.Range{Start: ks, End: max(ks, p.prevEnd())}}
	case isKw(t, "USE"):
		p.pos++
		u := &ast.Use{}
		if (p.at("NAMESPACE") || p.at("DATABASE") || p.at("SCHEMA")) && p.canIdent(p.peek(1), anyIdent) {
			u.Kind = strings.ToUpper(p.next().Keyword.Token())
		}
		u.Name = p.identifierReference()
		u.Range = p.rangeFrom(start)
		return u
	}
	return p.otherStatement()
}

// skipToEnd consumes every token up to the next semicolon or the end
// (Spark's .*? in SET and RESET).
func (p *parser) skipToEnd() {
	for !p.atEOF() && p.tok().Kind != lex.Semicolon {
		p.pos++
	}
}

// multiInsert reads FROM ... INSERT ... SELECT ... [INSERT ...]; it
// returns nil, having consumed nothing, when the FROM clause is not
// followed by INSERT.
func (p *parser) multiInsert(w *ast.With) ast.Stmt {
	save := p.pos
	start := p.tok().Start
	if w != nil {
		start = w.Start
	}
	var from *ast.From
	if !p.try(func() { from = p.fromClause() }) || !p.at("INSERT") {
		p.pos = save
		return nil
	}
	o := &ast.Other{Kind: "MULTI INSERT"}
	for p.at("INSERT") {
		ins := p.insertHeader()
		bs := p.tok().Start
		s := &ast.Select{From: from, FromFirst: true}
		if p.isTransformStart() {
			p.transformClause(s)
			if p.at("WHERE") {
				p.pos++
				s.Where = p.expr()
			}
		} else {
			p.selectClause(s)
			p.selectTail(s)
		}
		s.Range = p.rangeFrom(bs)
		q := &ast.Query{Body: s, With: w}
		p.organization(q)
		q.Range = p.rangeFrom(bs)
		ins.Query = q
		ins.Range = p.rangeFrom(ins.Start)
		o.Stmts = append(o.Stmts, ins)
	}
	o.Range = p.rangeFrom(start)
	return o
}

// insert reads INSERT ... query.
func (p *parser) insert() *ast.Insert {
	ins := p.insertHeader()
	ins.Query = p.query()
	ins.Range = p.rangeFrom(ins.Start)
	return ins
}

// insertHeader reads the insertInto rule (everything before the query).
func (p *parser) insertHeader() *ast.Insert {
	start := p.expect("INSERT").Start
	ins := &ast.Insert{Range: ast.Range{Start: start}}
	if p.accept("OVERWRITE") {
		ins.Overwrite = true
		if p.at("LOCAL") || p.at("DIRECTORY") {
			p.accept("LOCAL")
			p.expect("DIRECTORY")
			if p.isStringTok(p.tok()) {
				ins.Directory = p.stringLit()
			}
			if p.at("USING") {
				p.pos++
				p.multipart()
				if p.accept("OPTIONS") {
					ins.Options = p.propertyList(false)
				}
			} else {
				if ins.Directory == nil {
					p.fail("a directory path")
				}
				p.rowFormat()
				p.fileFormat()
			}
			return ins
		}
	} else {
		p.expect("INTO")
	}
	p.accept("TABLE")
	ins.Table = p.identifierReference()
	if p.at("WITH") && p.peek(1).Kind == lex.LeftParen {
		p.pos++
		ins.Options = p.propertyList(false)
	}
	if !ins.Overwrite && p.at("REPLACE") && isKw(p.peek(1), "WHERE") {
		p.pos += 2
		ins.ReplaceWhere = p.expr()
		return ins
	}
	if p.at("PARTITION") && p.peek(1).Kind == lex.LeftParen {
		ins.Partition = p.partitionSpec()
	}
	if p.atSeq("IF", "NOT", "EXISTS") {
		p.pos += 3
	}
	switch {
	case p.atSeq("BY", "NAME"):
		p.pos += 2
		ins.ByName = true
	case p.tok().Kind == lex.LeftParen && !p.startsQueryAfterParens(0):
		ins.Columns = p.identList()
	}
	return ins
}

// partitionSpec reads PARTITION (name [= constant | = DEFAULT], ...).
func (p *parser) partitionSpec() []*ast.Property {
	p.expect("PARTITION")
	p.expectKind(lex.LeftParen)
	var props []*ast.Property
	for {
		start := p.tok().Start
		id := p.ident(anyIdent)
		pr := &ast.Property{Key: id.Name, KeyRange: id.Range}
		if p.acceptKind(lex.Eq) {
			if p.at("DEFAULT") {
				t := p.next()
				pr.Value = &ast.Column{Range: tokRange(t), Parts: []*ast.Ident{p.identToken(t)}}
			} else {
				pr.Value = p.constant()
			}
		}
		pr.Range = p.rangeFrom(start)
		props = append(props, pr)
		if !p.acceptKind(lex.Comma) {
			break
		}
	}
	p.expectKind(lex.RightParen)
	return props
}

// constant reads Spark's constant rule: NULL, a parameter, an interval, a
// typed literal, a number (with its sign), a boolean or a string.
func (p *parser) constant() ast.Expr {
	t := p.tok()
	if t.Kind == lex.Minus && p.peek(1).Kind.IsNumber() {
		p.pos++
		n := p.next()
		return &ast.Unary{Range: ast.Range{Start: t.Start, End: n.End}, Op: "-", OpRange: tokRange(t),
			X: &ast.Literal{Range: tokRange(n), Kind: numKind(n.Kind), Text: n.Text}}
	}
	switch {
	case t.Kind.IsNumber(), p.isStringTok(t), t.Kind == lex.Question, t.Kind == lex.Colon:
		return p.primary()
	case t.Kind == lex.Ident:
		if x := p.keywordPrimary(t); x != nil {
			switch x.(type) {
			case *ast.Literal, *ast.TypedLiteral, *ast.Interval:
				return x
			}
		}
		if p.isStringTok(p.peek(1)) {
			return p.primary()
		}
	}
	p.fail("a constant")
	return nil
}

// fileFormat reads an optional STORED AS format | STORED BY handler.
func (p *parser) fileFormat() {
	if !p.at("STORED") {
		return
	}
	p.pos++
	if p.accept("BY") {
		p.stringLit()
		if p.acceptSeq("WITH", "SERDEPROPERTIES") {
			p.propertyList(false)
		}
		return
	}
	p.expect("AS")
	if p.accept("INPUTFORMAT") {
		p.stringLit()
		p.expect("OUTPUTFORMAT")
		p.stringLit()
		return
	}
	p.ident(anyIdent)
}

// setConfig matches the text of SET key = value and SET key that Spark
// accepts without quotes.
var (
	setKeyValue = regexp.MustCompile(`^([a-zA-Z_\d.:]+)\s*=([^;]*);*$`)
	setKeyOnly  = regexp.MustCompile(`^([a-zA-Z_\d.:]+)$`)
)

// set reads SET in all its forms.
func (p *parser) set() ast.Stmt {
	start := p.expect("SET").Start
	s := &ast.Set{}
	switch {
	case p.at("CATALOG"):
		save := p.pos
		ok := p.try(func() {
			p.pos++
			if p.isStringTok(p.tok()) {
				sl := p.stringLit()
				s.Catalog = &ast.Name{Range: sl.Range, Parts: []*ast.Ident{{Range: sl.Range, Name: sl.Value, Quoted: true}}}
			} else {
				s.Catalog = &ast.Name{Parts: []*ast.Ident{p.errIdent(anyIdent)}}
				s.Catalog.Range = s.Catalog.Parts[0].Range
			}
			if !p.atEOF() && p.tok().Kind != lex.Semicolon {
				p.fail("")
			}
		})
		if ok {
			s.Kind = "CATALOG"
			s.Key, s.KeyRange = s.Catalog.String(), s.Catalog.Range
			s.Range = p.rangeFrom(start)
			return s
		}
		p.pos = save
	case p.atSeq("TIME", "ZONE"):
		p.pos += 2
		s.Kind = "TIME ZONE"
		vs := p.tok().Start
		save := p.pos
		if !p.try(func() {
			if p.at("LOCAL") {
				p.pos++
			} else if p.at("INTERVAL") {
				s.Expr = p.interval()
			} else {
				s.Expr = p.primary()
			}
			if !p.atEOF() && p.tok().Kind != lex.Semicolon {
				p.fail("")
			}
		}) {
			p.pos = save
			p.skipToEnd()
			p.failRange(p.rangeFrom(vs), "INVALID_INTERVAL_FORMAT",
				"invalid time zone: write SET TIME ZONE LOCAL, SET TIME ZONE 'region/city' or SET TIME ZONE INTERVAL ...")
		}
		s.Value, s.ValueRange = strings.TrimSpace(p.src[vs:max(vs, p.prevEnd())]), p.rangeFrom(vs)
		s.Range = p.rangeFrom(start)
		return s
	case p.at("ROLE"):
		r := p.tok()
		p.skipToEnd()
		p.failRange(ast.Range{Start: start, End: r.End}, "INVALID_STATEMENT_OR_CLAUSE", "SET ROLE is a Hive command that Spark does not run")
	case (p.at("VAR") || p.at("VARIABLE")) && (p.canIdent(p.peek(1), anyIdent) || p.peek(1).Kind == lex.LeftParen):
		save := p.pos
		if p.try(func() {
			p.pos++
			s.Kind = "VAR"
			p.setVariableBody(s)
		}) {
			s.Range = p.rangeFrom(start)
			return s
		}
		p.pos = save
	}
	// SET, SET key, SET key = value, SET `key` = `value`, SET -v
	ks := p.tok().Start
	p.skipToEnd()
	text := ""
	if p.prevEnd() > ks {
		text = strings.TrimSpace(p.src[ks:p.prevEnd()])
	}
	s.Range = p.rangeFrom(start)
	switch {
	case text == "", text == "-v":
		s.Key = text
	case setKeyValue.MatchString(text):
		m := setKeyValue.FindStringSubmatch(text)
		s.Key, s.Value = m[1], strings.TrimSpace(m[2])
	case setKeyOnly.MatchString(text):
		s.Key = text
	default:
		if k, v, ok := quotedSet(text); ok {
			s.Key, s.Value = k, v
			break
		}
		p.failRange(ast.Range{Start: ks, End: max(ks, p.prevEnd())}, "INVALID_SET_SYNTAX",
			"invalid SET: expected SET, SET key or SET key = value; quote a key or value with special characters in backquotes: SET `key` = `value`")
	}
	s.KeyRange = ast.Range{Start: ks, End: ks + len(s.Key)}
	if s.Value != "" {
		if i := strings.LastIndex(p.src[ks:p.prevEnd()], s.Value); i >= 0 {
			s.ValueRange = ast.Range{Start: ks + i, End: ks + i + len(s.Value)}
		}
	}
	return s
}

// quotedSet reads `key` = value, key = `value` and `key` = `value` and
// their forms with a quoted key alone; ok is false for anything else.
func quotedSet(text string) (key, value string, ok bool) {
	toks := lex.Lex(text)
	if len(toks) == 0 {
		return "", "", false
	}
	i := 0
	if toks[0].Kind == lex.QuotedIdent {
		k, err := lex.Unquote(toks[0])
		if err != nil {
			return "", "", false
		}
		key = k
		i = 1
	} else {
		// a plain key up to '='
		eq := strings.IndexByte(text, '=')
		if eq < 0 || !setKeyOnly.MatchString(strings.TrimSpace(text[:eq])) {
			return "", "", false
		}
		key = strings.TrimSpace(text[:eq])
		for i < len(toks) && toks[i].Kind != lex.Eq {
			i++
		}
	}
	if i == len(toks) {
		return key, "", toks[0].Kind == lex.QuotedIdent
	}
	if toks[i].Kind != lex.Eq {
		return "", "", false
	}
	rest := strings.TrimSpace(text[toks[i].End:])
	if toks[0].Kind != lex.QuotedIdent {
		// key = `value`: the value must be one backquoted identifier
		if len(toks) != i+2 || toks[i+1].Kind != lex.QuotedIdent {
			return "", "", false
		}
	}
	if len(toks) == i+2 && toks[i+1].Kind == lex.QuotedIdent {
		v, err := lex.Unquote(toks[i+1])
		if err != nil {
			return "", "", false
		}
		return key, v, true
	}
	return key, rest, true
}

// setVariableBody reads name = expr, ... or (names) = (query).
func (p *parser) setVariableBody(s *ast.Set) {
	if p.acceptKind(lex.LeftParen) {
		s.Names = p.multipartList()
		p.expectKind(lex.RightParen)
		p.expectKind(lex.Eq)
		p.expectKind(lex.LeftParen)
		s.Query = p.query()
		p.expectKind(lex.RightParen)
		return
	}
	for {
		as := p.tok().Start
		n := p.multipart()
		p.expectKind(lex.Eq)
		var v ast.Expr
		if p.at("DEFAULT") && (p.peek(1).Kind == lex.Comma || p.peek(1).Kind == lex.Semicolon || p.peek(1).Kind == lex.Invalid) {
			t := p.next()
			v = &ast.Column{Range: tokRange(t), Parts: []*ast.Ident{p.identToken(t)}}
		} else {
			v = p.expr()
		}
		s.Assignments = append(s.Assignments, &ast.Assignment{Range: p.rangeFrom(as), Name: n, Value: v})
		if !p.acceptKind(lex.Comma) {
			return
		}
	}
}
