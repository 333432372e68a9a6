package parser

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// query reads ctes? queryTerm queryOrganization.
func (p *parser) query() *ast.Query {
	p.enter()
	defer p.leave()
	start := p.tok().Start
	q := &ast.Query{}
	if p.at("WITH") {
		q.With = p.with()
	}
	q.Body = p.queryTerm(0)
	p.organization(q)
	q.Range = p.rangeFrom(start)
	return q
}

// with reads WITH [RECURSIVE] name [(cols)] [MAX RECURSION LEVEL n] [AS] (query), ...
func (p *parser) with() *ast.With {
	start := p.expect("WITH").Start
	w := &ast.With{}
	if p.at("RECURSIVE") && !(p.peek(1).Kind == lex.LeftParen || isKw(p.peek(1), "AS")) {
		p.pos++
		w.Recursive = true
	}
	for {
		cs := p.tok().Start
		c := &ast.CTE{Name: p.errIdent(anyIdent)}
		if p.tok().Kind == lex.LeftParen && !p.startsQueryAfterParens(0) {
			c.Columns = p.identList()
		}
		if p.acceptSeq("MAX", "RECURSION", "LEVEL") {
			c.MaxRecursion = p.integer()
		}
		p.accept("AS")
		p.expectKind(lex.LeftParen)
		c.Query = p.query()
		p.expectKind(lex.RightParen)
		c.Range = p.rangeFrom(cs)
		w.CTEs = append(w.CTEs, c)
		if !p.acceptKind(lex.Comma) {
			break
		}
	}
	w.Range = p.rangeFrom(start)
	return w
}

// organization reads queryOrganization into q.
func (p *parser) organization(q *ast.Query) {
	if p.atSeq("ORDER", "BY") {
		p.pos += 2
		q.OrderBy = p.sortList()
	}
	if p.atSeq("CLUSTER", "BY") {
		p.pos += 2
		q.ClusterBy = p.exprList()
	}
	if p.atSeq("DISTRIBUTE", "BY") {
		p.pos += 2
		q.DistributeBy = p.exprList()
	}
	if p.atSeq("SORT", "BY") {
		p.pos += 2
		q.SortBy = p.sortList()
	}
	if p.at("WINDOW") {
		q.Windows = p.windowClause()
	}
	if p.at("LIMIT") {
		p.pos++
		if p.at("ALL") {
			p.pos++
			q.LimitAll = true
		} else {
			q.Limit = p.expr()
		}
	}
	if p.at("OFFSET") {
		p.pos++
		q.Offset = p.expr()
	}
}

// windowClause reads WINDOW name AS spec, ...
func (p *parser) windowClause() []*ast.NamedWindow {
	p.expect("WINDOW")
	var ws []*ast.NamedWindow
	for {
		start := p.tok().Start
		name := p.errIdent(anyIdent)
		p.expect("AS")
		w := p.windowSpec()
		ws = append(ws, &ast.NamedWindow{Range: p.rangeFrom(start), Name: name, Window: w})
		if !p.acceptKind(lex.Comma) {
			return ws
		}
	}
}

// setOpPrec returns the precedence of the set operation at the current
// token (INTERSECT binds tighter than UNION, EXCEPT and MINUS), or 0.
func (p *parser) setOpPrec() int {
	switch {
	case p.at("INTERSECT"):
		return 2
	case p.at("UNION"), p.at("EXCEPT"), p.at("SETMINUS"):
		return 1
	}
	return 0
}

// queryTerm reads set operations and pipes over query primaries, by
// precedence climbing; a pipe binds loosest.
func (p *parser) queryTerm(min int) ast.QueryExpr {
	p.enter()
	defer p.leave()
	x := p.queryPrimary()
	for {
		if p.tok().Kind == lex.OperatorPipe {
			if min > 0 {
				return x
			}
			x = p.pipe(x)
			continue
		}
		prec := p.setOpPrec()
		if prec == 0 || prec <= min {
			return x
		}
		op := p.next()
		so := &ast.SetOp{Op: strings.ToUpper(op.Text), OpRange: tokRange(op), L: x}
		if op.Keyword.Token() == "SETMINUS" {
			so.Op = "MINUS"
		}
		if p.at("DISTINCT") || p.at("ALL") {
			so.Quantifier = strings.ToUpper(p.next().Text)
		}
		so.R = p.queryTerm(prec)
		so.Range = span(x, so.R)
		x = so
	}
}

// queryPrimary reads a SELECT, FROM-first query, TABLE t, VALUES or
// (query).
func (p *parser) queryPrimary() ast.QueryExpr {
	t := p.tok()
	switch {
	case isKw(t, "SELECT"), isKw(t, "MAP"), isKw(t, "REDUCE"):
		return p.selectSpec()
	case isKw(t, "FROM"):
		return p.fromFirst()
	case isKw(t, "TABLE"):
		p.pos++
		n := p.identifierReference()
		return &ast.TableQuery{Range: p.rangeFrom(t.Start), Name: n}
	case isKw(t, "VALUES"):
		return p.values()
	case t.Kind == lex.LeftParen:
		p.pos++
		q := p.query()
		p.expectKind(lex.RightParen)
		return &ast.ParenQuery{Range: p.rangeFrom(t.Start), Query: q}
	}
	p.fail("a query (SELECT, WITH, VALUES, FROM or TABLE)")
	return nil
}

// values reads VALUES expr, expr ... [alias], as a query or a relation.
func (p *parser) values() *ast.Values {
	start := p.expect("VALUES").Start
	v := &ast.Values{Rows: p.exprList()}
	v.Alias = p.tableAlias()
	v.Range = p.rangeFrom(start)
	return v
}

// selectSpec reads SELECT [hints] [DISTINCT | ALL] items [FROM ...]
// [LATERAL VIEW ...] [WHERE] [GROUP BY] [HAVING] [WINDOW], or its
// TRANSFORM form.
func (p *parser) selectSpec() *ast.Select {
	start := p.tok().Start
	s := &ast.Select{}
	// SELECT TRANSFORM(...) USING is a script; SELECT transform(...) ...
	// without USING is the higher-order function.
	if !p.isTransformStart() || !p.try(func() { p.transformClause(s) }) {
		*s = ast.Select{}
		p.selectClause(s)
	}
	if p.at("FROM") {
		s.From = p.fromClause()
	}
	p.selectTail(s)
	s.Range = p.rangeFrom(start)
	return s
}

// isTransformStart reports whether a TRANSFORM, MAP or REDUCE clause starts.
func (p *parser) isTransformStart() bool {
	if p.at("SELECT") && isKw(p.peek(1), "TRANSFORM") && p.peek(2).Kind == lex.LeftParen {
		return true
	}
	return p.at("MAP") || p.at("REDUCE")
}

// selectTail reads lateralView* whereClause? aggregationClause?
// havingClause? windowClause?.
func (p *parser) selectTail(s *ast.Select) {
	for p.atSeq("LATERAL", "VIEW") {
		s.LateralViews = append(s.LateralViews, p.lateralView())
	}
	if p.at("WHERE") {
		p.pos++
		s.Where = p.expr()
	}
	if p.atSeq("GROUP", "BY") {
		s.GroupBy = p.groupBy(false)
	}
	if p.at("HAVING") {
		p.pos++
		s.Having = p.expr()
	}
	p.qualify(s)
	if p.at("WINDOW") {
		s.Windows = p.windowClause()
	}
	if s.Qualify == nil {
		p.qualify(s)
	}
}

// qualify reads Spark 4.2's QUALIFY cond, written before or after the
// WINDOW clause.
func (p *parser) qualify(s *ast.Select) {
	if p.opts.Version >= Spark42 && isWord(p.tok(), "QUALIFY") && p.clauseWord(p.tok()) {
		p.pos++
		s.Qualify = p.expr()
	}
}

// selectClause reads SELECT hints* [DISTINCT | ALL] namedExpressionSeq.
func (p *parser) selectClause(s *ast.Select) {
	p.expect("SELECT")
	for p.tok().Kind == lex.HintStart {
		s.Hints = append(s.Hints, p.hint())
	}
	if p.at("DISTINCT") || (p.at("ALL") && !(p.peek(1).Kind == lex.Comma || p.peek(1).Kind == lex.Dot)) {
		s.Quantifier = strings.ToUpper(p.next().Text)
	}
	s.Items = p.selectItems()
}

// selectItems reads namedExpression, ...
func (p *parser) selectItems() []*ast.SelectItem {
	items := make([]*ast.SelectItem, 1, 4) // room for a few: most lists have several
	items[0] = p.namedExpr()
	for p.acceptKind(lex.Comma) {
		items = append(items, p.namedExpr())
	}
	return items
}

// transformClause reads SELECT TRANSFORM(...) | MAP ... | REDUCE ...
// [ROW FORMAT ...] [RECORDWRITER '...'] USING 'script' [AS ...]
// [ROW FORMAT ...] [RECORDREADER '...'].
func (p *parser) transformClause(s *ast.Select) {
	start := p.tok().Start
	tr := &ast.Transform{}
	if p.at("SELECT") {
		p.pos++
		tr.Kind = "TRANSFORM"
		p.pos++
		p.expectKind(lex.LeftParen)
		if p.at("DISTINCT") || p.at("ALL") {
			s.Quantifier = strings.ToUpper(p.next().Text)
		}
		for _, x := range p.exprList() {
			s.Items = append(s.Items, &ast.SelectItem{Range: x.Span(), X: x})
		}
		p.expectKind(lex.RightParen)
	} else {
		tr.Kind = strings.ToUpper(p.next().Text)
		if p.at("DISTINCT") || p.at("ALL") {
			s.Quantifier = strings.ToUpper(p.next().Text)
		}
		for _, x := range p.exprList() {
			s.Items = append(s.Items, &ast.SelectItem{Range: x.Span(), X: x})
		}
	}
	p.rowFormat()
	if p.accept("RECORDWRITER") {
		p.stringLit()
	}
	p.expect("USING")
	tr.Script = p.stringLit()
	if p.accept("AS") {
		paren := p.acceptKind(lex.LeftParen)
		for {
			cs := p.tok().Start
			c := &ast.ColumnDef{Name: p.errIdent(anyIdent)}
			if p.tok().Kind != lex.Comma && p.tok().Kind != lex.RightParen && !p.at("ROW") &&
				!p.at("RECORDREADER") && !p.at("FROM") && !p.at("WHERE") && !p.atEOF() && p.tok().Kind != lex.Semicolon {
				c.Type = p.dataType()
				if (p.at("NOT") || p.tok().Kind == lex.Bang) && isKw(p.peek(1), "NULL") {
					p.pos += 2
					c.NotNull = true
				}
				if p.accept("COMMENT") {
					c.Comment = p.stringLit()
				}
			}
			c.Range = p.rangeFrom(cs)
			tr.Output = append(tr.Output, c)
			if !p.acceptKind(lex.Comma) {
				break
			}
		}
		if paren {
			p.expectKind(lex.RightParen)
		}
	}
	p.rowFormat()
	if p.accept("RECORDREADER") {
		p.stringLit()
	}
	tr.Range = p.rangeFrom(start)
	s.Transform = tr
}

// rowFormat reads an optional ROW FORMAT SERDE ... | ROW FORMAT DELIMITED ...
func (p *parser) rowFormat() {
	if !p.atSeq("ROW", "FORMAT") {
		return
	}
	p.pos += 2
	if p.accept("SERDE") {
		p.stringLit()
		if p.acceptSeq("WITH", "SERDEPROPERTIES") {
			p.propertyList(false)
		}
		return
	}
	p.expect("DELIMITED")
	if p.acceptSeq("FIELDS", "TERMINATED", "BY") {
		p.stringLit()
		if p.acceptSeq("ESCAPED", "BY") {
			p.stringLit()
		}
	}
	if p.acceptSeq("COLLECTION", "ITEMS", "TERMINATED", "BY") {
		p.stringLit()
	}
	if p.acceptSeq("MAP", "KEYS", "TERMINATED", "BY") {
		p.stringLit()
	}
	if p.acceptSeq("LINES", "TERMINATED", "BY") {
		p.stringLit()
	}
	if p.acceptSeq("NULL", "DEFINED", "AS") {
		p.stringLit()
	}
}

// hint reads /*+ name(params), ... */.
func (p *parser) hint() *ast.Hint {
	start := p.expectKind(lex.HintStart).Start
	h := &ast.Hint{}
	for {
		hs := p.tok().Start
		it := &ast.HintItem{Name: p.ident(anyIdent)}
		if p.acceptKind(lex.LeftParen) {
			for {
				it.Params = append(it.Params, p.postfix(p.primary()))
				if !p.acceptKind(lex.Comma) {
					break
				}
			}
			p.expectKind(lex.RightParen)
		}
		it.Range = p.rangeFrom(hs)
		h.Items = append(h.Items, it)
		p.acceptKind(lex.Comma)
		if p.tok().Kind == lex.HintEnd {
			break
		}
	}
	p.expectKind(lex.HintEnd)
	h.Range = p.rangeFrom(start)
	return h
}

// fromFirst reads FROM ... followed by zero or more SELECT bodies.
func (p *parser) fromFirst() ast.QueryExpr {
	start := p.tok().Start
	from := p.fromClause()
	var x ast.QueryExpr
	for {
		if !(p.at("SELECT") || p.at("MAP") || p.at("REDUCE")) {
			break
		}
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
		if p.organizationStarts() {
			// each body of fromStatementBody+ has its own
			// queryOrganization; a lone body leaves it to the query
			save, os := p.pos, p.tok().Start
			org := &ast.Query{}
			p.organization(org)
			if x == nil && !(p.at("SELECT") || p.at("MAP") || p.at("REDUCE")) {
				p.pos = save
			} else {
				org.Range = p.rangeFrom(os)
				s.Organization = org
			}
		}
		s.Range = p.rangeFrom(bs)
		if x == nil {
			s.Range.Start = start
			x = s
		} else {
			x = &ast.SetOp{Range: p.rangeFrom(start), Op: "UNION", Quantifier: "ALL", L: x, R: s}
		}
		if p.organizationStarts() {
			break
		}
	}
	if x == nil {
		return &ast.Select{Range: p.rangeFrom(start), From: from, FromFirst: true}
	}
	return x
}

// organizationStarts reports whether a queryOrganization clause is next.
func (p *parser) organizationStarts() bool {
	return p.atSeq("ORDER", "BY") || p.atSeq("CLUSTER", "BY") || p.atSeq("DISTRIBUTE", "BY") ||
		p.atSeq("SORT", "BY") || p.at("LIMIT") || p.at("OFFSET")
}

// fromClause reads FROM relation, ... lateralView* pivot? unpivot?.
func (p *parser) fromClause() *ast.From {
	start := p.expect("FROM").Start
	f := &ast.From{}
	for {
		f.Relations = append(f.Relations, p.relation(len(f.Relations) > 0))
		if !p.acceptKind(lex.Comma) {
			break
		}
	}
	for p.atSeq("LATERAL", "VIEW") {
		f.LateralViews = append(f.LateralViews, p.lateralView())
	}
	if p.at("PIVOT") && p.peek(1).Kind == lex.LeftParen {
		f.Pivot = p.pivot(nil)
	}
	if p.at("UNPIVOT") {
		f.Unpivot = p.unpivot(nil)
	}
	f.Range = p.rangeFrom(start)
	return f
}

// lateralView reads LATERAL VIEW [OUTER] f(args) table [AS] col, ...
func (p *parser) lateralView() *ast.LateralView {
	start := p.tok().Start
	p.pos += 2
	lv := &ast.LateralView{}
	if p.at("OUTER") {
		p.pos++
		lv.Outer = true
	}
	cs := p.tok().Start
	c := &ast.Call{Name: p.qualifiedName()}
	p.expectKind(lex.LeftParen)
	if p.tok().Kind != lex.RightParen {
		c.Args = p.exprList()
	}
	p.expectKind(lex.RightParen)
	c.Range = p.rangeFrom(cs)
	lv.Call = c
	lv.Table = p.ident(anyIdent)
	if p.at("AS") {
		p.pos++
		lv.Columns = []*ast.Ident{p.ident(anyIdent)}
	} else if p.isIdentStart(anyIdent) && !p.clauseWord(p.tok()) {
		lv.Columns = []*ast.Ident{p.ident(anyIdent)}
	}
	if lv.Columns != nil {
		for p.tok().Kind == lex.Comma && p.canIdent(p.peek(1), anyIdent) && !p.lateralListEnds() {
			p.pos++
			lv.Columns = append(lv.Columns, p.ident(anyIdent))
		}
	}
	lv.Range = p.rangeFrom(start)
	return lv
}

// lateralListEnds reports whether the comma at the current token ends a
// LATERAL VIEW's column list (a relation or select item follows instead):
// Spark reads such a comma as part of the list only when a bare name
// follows it that is not followed by something a relation starts with.
func (p *parser) lateralListEnds() bool {
	n := p.peek(2)
	return n.Kind == lex.LeftParen || n.Kind == lex.Dot
}

// relation reads LATERAL? relationPrimary (join | pivot | unpivot)*;
// afterComma is set for a relation after a comma in FROM, where Spark's
// AST builder allows LATERAL only before a subquery or a table function
// (it ignores LATERAL before the first relation).
func (p *parser) relation(afterComma bool) ast.Relation {
	p.enter()
	defer p.leave()
	lateral := false
	if p.at("LATERAL") && !isKw(p.peek(1), "VIEW") {
		p.pos++
		lateral = true
	}
	x := p.relationPrimary(lateral)
	if lateral && afterComma && !lateralOK(x) {
		p.failRange(x.Span(), "INVALID_SQL_SYNTAX.LATERAL_WITHOUT_SUBQUERY_OR_TABLE_VALUED_FUNC",
			"invalid SQL syntax: LATERAL can only be used with subquery and table-valued functions; remove LATERAL")
	}
	for {
		switch {
		case p.joinStarts():
			x = p.join(x)
		case p.at("PIVOT") && p.peek(1).Kind == lex.LeftParen:
			x = p.pivot(x)
		case p.at("UNPIVOT") && (p.peek(1).Kind == lex.LeftParen || isKw(p.peek(1), "INCLUDE") || isKw(p.peek(1), "EXCLUDE")):
			x = p.unpivot(x)
		default:
			return x
		}
	}
}

// joinStarts reports whether a join begins at the current token.
func (p *parser) joinStarts() bool {
	i := 0
	if p.at("NATURAL") {
		i = 1
	}
	t := p.peek(i)
	switch {
	case isKw(t, "JOIN"):
		return true
	case isKw(t, "INNER"), isKw(t, "CROSS"), isKw(t, "SEMI"), isKw(t, "ANTI"):
		return isKw(p.peek(i+1), "JOIN")
	case isKw(t, "LEFT"), isKw(t, "RIGHT"), isKw(t, "FULL"):
		n := p.peek(i + 1)
		if isKw(n, "OUTER") || isKw(n, "SEMI") || isKw(n, "ANTI") {
			n = p.peek(i + 2)
		}
		return isKw(n, "JOIN")
	}
	return false
}

// join reads [NATURAL] kind JOIN [LATERAL] relationPrimary [ON | USING].
func (p *parser) join(l ast.Relation) ast.Relation {
	j := &ast.Join{L: l}
	ks := p.tok().Start
	if p.accept("NATURAL") {
		j.Natural = true
	}
	var kind []string
	for !p.at("JOIN") {
		if len(kind) == 1 && (kind[0] == "RIGHT" || kind[0] == "FULL") && (p.at("SEMI") || p.at("ANTI")) {
			// joinType has LEFT? SEMI and LEFT? ANTI only
			p.failAt(p.tok(), "", syntaxMessage(p.tok(), "")+": extra input '"+p.tok().Text+
				"' (Spark has LEFT SEMI and LEFT ANTI joins only: a "+kind[0]+" "+strings.ToUpper(p.tok().Text)+
				" JOIN is the LEFT one with the sides swapped)")
		}
		kind = append(kind, strings.ToUpper(p.next().Text))
	}
	j.KindRange = ast.Range{Start: ks, End: p.tok().End}
	p.pos++ // JOIN
	k := strings.Join(kind, " ")
	switch k {
	case "", "INNER":
		j.Kind = "INNER"
	case "LEFT OUTER":
		j.Kind = "LEFT"
	case "RIGHT OUTER":
		j.Kind = "RIGHT"
	case "FULL OUTER":
		j.Kind = "FULL"
	case "SEMI":
		j.Kind = "LEFT SEMI"
	case "ANTI":
		j.Kind = "LEFT ANTI"
	default:
		j.Kind = k
	}
	if p.at("LATERAL") {
		p.pos++
		j.Lateral = true
	}
	j.R = p.relationPrimary(j.Lateral)
	if !j.Natural {
		switch {
		case p.at("ON"):
			p.pos++
			j.On = p.expr()
		case p.at("USING"):
			p.pos++
			j.Using = p.identList()
		}
	}
	j.Range = ast.Range{Start: l.Span().Start, End: p.prevEnd()}
	if j.Lateral {
		p.checkLateralJoin(j)
	}
	return j
}

// lateralOK reports whether a LATERAL relation is one Spark allows.
func lateralOK(r ast.Relation) bool {
	switch r.(type) {
	case *ast.SubqueryRel, *ast.TableFunc:
		return true
	}
	return false
}

// checkLateralJoin refuses the LATERAL joins Spark's AST builder refuses:
// a relation that is not a subquery or table function, NATURAL, a join
// kind other than INNER, CROSS and LEFT OUTER, and USING.
func (p *parser) checkLateralJoin(j *ast.Join) {
	switch {
	case !lateralOK(j.R):
		p.failRange(j.R.Span(), "INVALID_SQL_SYNTAX.LATERAL_WITHOUT_SUBQUERY_OR_TABLE_VALUED_FUNC",
			"invalid SQL syntax: LATERAL can only be used with subquery and table-valued functions; remove LATERAL")
	case j.Natural:
		p.failRange(j.KindRange, "INCOMPATIBLE_JOIN_TYPES", "the join types LATERAL and NATURAL are incompatible")
	case j.Kind != "INNER" && j.Kind != "CROSS" && j.Kind != "LEFT":
		kind := j.Kind
		switch kind {
		case "RIGHT", "FULL":
			kind += " OUTER"
		}
		p.failRange(j.KindRange, "INVALID_LATERAL_JOIN_TYPE", "the "+kind+" JOIN with LATERAL correlation is not "+
			"allowed because an OUTER subquery cannot correlate to its join partner: remove LATERAL or use an "+
			"INNER JOIN or LEFT OUTER JOIN")
	case j.Using != nil:
		p.failRange(j.KindRange, "UNSUPPORTED_FEATURE.LATERAL_JOIN_USING",
			"the feature is not supported: JOIN USING with LATERAL correlation; write the condition with ON")
	}
}

// relationPrimary reads a table, STREAM table, (query), (relation),
// VALUES or a table-valued function, each with its suffixes.
func (p *parser) relationPrimary(lateral bool) ast.Relation {
	t := p.tok()
	start := t.Start
	switch {
	case isKw(t, "STREAM") && p.streamStarts():
		return p.streamTable()
	case isKw(t, "VALUES"):
		return p.values()
	case t.Kind == lex.LeftParen:
		if p.startsQueryAfterParens(0) {
			var sq *ast.SubqueryRel
			if p.try(func() {
				p.pos++
				q := p.query()
				p.expectKind(lex.RightParen)
				sq = &ast.SubqueryRel{Lateral: lateral, Query: q}
				sq.Sample = p.sample()
				sq.Watermark = p.watermark()
				sq.Alias = p.tableAlias()
				sq.Range = p.rangeFrom(start)
			}) {
				return sq
			}
		}
		p.pos++
		r := p.relation(false)
		p.expectKind(lex.RightParen)
		pr := &ast.ParenRel{Rel: r}
		pr.Sample = p.sample()
		pr.Watermark = p.watermark()
		pr.Alias = p.tableAlias()
		pr.Range = p.rangeFrom(start)
		return pr
	}
	if n := p.callNameLen(); n > 0 {
		c := p.tableFuncCall()
		tf := &ast.TableFunc{Lateral: lateral, Call: c}
		tf.Watermark = p.watermark()
		tf.Alias = p.tableAlias()
		tf.Range = p.rangeFrom(start)
		return tf
	}
	if !p.isIdentStart(anyIdent) {
		if t.Kind.IsError() {
			p.failAt(t, "", t.Message())
		}
		p.fail("a table name, (query), VALUES or a table function")
	}
	tb := &ast.Table{Name: p.identifierReference()}
	tb.Temporal = p.temporal()
	if p.at("WITH") && p.peek(1).Kind == lex.LeftParen {
		p.pos++
		tb.Options = p.propertyList(false)
	}
	tb.Sample = p.sample()
	tb.Watermark = p.watermark()
	tb.Alias = p.tableAlias()
	tb.Range = p.rangeFrom(start)
	return tb
}

// streamStarts reports whether STREAM at the current token begins a
// stream read (STREAM name or STREAM(name)) rather than naming a table.
func (p *parser) streamStarts() bool {
	n := p.peek(1)
	if n.Kind == lex.LeftParen {
		return true
	}
	return p.canIdent(n, anyIdent) && !p.clauseWord(n)
}

// streamTable reads STREAM name | STREAM(name) [WITH (options)]
// [WATERMARK ...] [alias].
func (p *parser) streamTable() *ast.Table {
	st := p.next()
	tb := &ast.Table{Stream: true, StreamRange: tokRange(st)}
	if p.acceptKind(lex.LeftParen) {
		tb.StreamParen = true
		tb.Name = p.multipart()
		p.expectKind(lex.RightParen)
	} else {
		tb.Name = p.multipart()
	}
	if p.at("WITH") && p.peek(1).Kind == lex.LeftParen {
		p.pos++
		tb.Options = p.propertyList(false)
	}
	tb.Watermark = p.watermark()
	tb.Alias = p.tableAlias()
	tb.Range = p.rangeFrom(st.Start)
	return tb
}

// tableFuncCall reads a table function's name and arguments.
func (p *parser) tableFuncCall() *ast.Call {
	start := p.tok().Start
	c := &ast.Call{}
	if isKw(p.tok(), "IDENTIFIER_KW") && p.callNameLen() > 1 {
		c.Name = nameOf(p.ident(anyIdent))
	} else {
		c.Name = p.funcName()
	}
	p.expectKind(lex.LeftParen)
	if p.tok().Kind != lex.RightParen {
		for {
			c.Args = append(c.Args, p.funcArg())
			if !p.acceptKind(lex.Comma) {
				break
			}
		}
	}
	p.expectKind(lex.RightParen)
	c.Range = p.rangeFrom(start)
	return c
}

// temporal reads FOR? (SYSTEM_VERSION | VERSION | SYSTEM_TIME |
// TIMESTAMP) AS OF value.
func (p *parser) temporal() *ast.Temporal {
	i := 0
	if p.at("FOR") {
		i = 1
	}
	k := p.peek(i)
	if !(isKw(k, "SYSTEM_VERSION") || isKw(k, "VERSION") || isKw(k, "SYSTEM_TIME") || isKw(k, "TIMESTAMP")) ||
		!isKw(p.peek(i+1), "AS") || !isKw(p.peek(i+2), "OF") {
		return nil
	}
	start := p.tok().Start
	p.pos += i + 3
	tp := &ast.Temporal{}
	if isKw(k, "SYSTEM_VERSION") || isKw(k, "VERSION") {
		tp.Kind = "VERSION"
		if p.tok().Kind == lex.Integer {
			t := p.next()
			tp.Value = &ast.Literal{Range: tokRange(t), Kind: ast.LitInteger, Text: t.Text}
		} else {
			s := p.stringLit()
			tp.Value = &ast.Literal{Range: s.Range, Kind: ast.LitString, Str: s, Text: p.src[s.Start:s.End]}
		}
	} else {
		tp.Kind = "TIMESTAMP"
		tp.Value = p.valueExpr(0)
	}
	tp.Range = p.rangeFrom(start)
	return tp
}

// sample reads TABLESAMPLE (method) [REPEATABLE (seed)].
func (p *parser) sample() *ast.Sample {
	if !p.at("TABLESAMPLE") {
		return nil
	}
	start := p.next().Start
	p.expectKind(lex.LeftParen)
	s := &ast.Sample{}
	switch {
	case p.tok().Kind == lex.RightParen:
	case p.at("BUCKET"):
		p.pos++
		s.Method = "BUCKET"
		s.Value = p.integer()
		p.expect("OUT")
		p.expect("OF")
		s.Denominator = p.integer()
		if p.at("ON") {
			p.bucketOn(s)
		}
		p.checkBucketFraction(s)
	default:
		i := 0
		if p.tok().Kind == lex.Minus {
			i = 1
		}
		if k := p.peek(i).Kind; (k == lex.Integer || k == lex.Decimal) && isKw(p.peek(i+1), "PERCENTLIT") {
			vs := p.tok().Start
			p.pos += i + 1
			s.Value = &ast.Literal{Range: p.rangeFrom(vs), Kind: numKind(p.toks[p.pos-1].Kind), Text: p.src[vs:p.prevEnd()]}
			p.pos++
			s.Method = "PERCENT"
			p.checkSamplePercent(s.Value.(*ast.Literal))
			break
		}
		s.Value = p.expr()
		if p.accept("ROWS") {
			s.Method = "ROWS"
		} else {
			s.Method = "BYTES"
		}
	}
	p.expectKind(lex.RightParen)
	if p.at("REPEATABLE") {
		p.pos++
		p.expectKind(lex.LeftParen)
		s.Seed = p.integer()
		p.expectKind(lex.RightParen)
	}
	s.Range = p.rangeFrom(start)
	return s
}

// watermark reads WATERMARK col DELAY OF interval.
func (p *parser) watermark() *ast.Watermark {
	if !p.at("WATERMARK") {
		return nil
	}
	start := p.next().Start
	w := &ast.Watermark{}
	x := p.expr()
	it := &ast.SelectItem{X: x}
	if p.accept("AS") {
		it.Alias = p.errIdent(anyIdent)
	} else if p.isIdentStart(strictIdent) && !p.at("DELAY") {
		it.Alias = p.errIdent(anyIdent)
	}
	it.Range = p.rangeFrom(x.Span().Start)
	w.Column = it
	p.expect("DELAY")
	p.expect("OF")
	w.Delay = p.interval()
	w.Range = p.rangeFrom(start)
	return w
}

// tableAlias reads (AS? strictIdentifier identifierList?)?.
func (p *parser) tableAlias() *ast.TableAlias {
	start := p.tok().Start
	if p.at("AS") && !(p.peek(1).Kind == lex.LeftParen && p.canIdent(p.tok(), strictIdent)) {
		// (AS (a, b) names the alias AS where AS is not reserved)
		p.pos++
	} else if !p.isIdentStart(strictIdent) || p.clauseWord(p.tok()) && !p.at("AS") {
		return nil
	}
	a := &ast.TableAlias{Name: p.errIdent(strictIdent)}
	if p.tok().Kind == lex.LeftParen && p.canIdent(p.peek(1), anyIdent) {
		a.Columns = p.identList()
	}
	a.Range = p.rangeFrom(start)
	return a
}

// groupBy reads GROUP BY items [WITH ROLLUP | WITH CUBE | GROUPING SETS (...)];
// aliases allows an alias after each item, as |> AGGREGATE does.
func (p *parser) groupBy(aliases bool) *ast.GroupBy {
	start := p.tok().Start
	p.pos += 2
	g := &ast.GroupBy{}
	for {
		g.Items = append(g.Items, p.groupItem(aliases))
		if !p.acceptKind(lex.Comma) {
			break
		}
	}
	switch {
	case p.atSeq("WITH", "ROLLUP"), p.atSeq("WITH", "CUBE"):
		p.pos++
		g.With = strings.ToUpper(p.next().Text)
	case p.atSeq("GROUPING", "SETS"):
		p.pos += 2
		p.expectKind(lex.LeftParen)
		for {
			g.GroupingSets = append(g.GroupingSets, p.groupingSet())
			if !p.acceptKind(lex.Comma) {
				break
			}
		}
		p.expectKind(lex.RightParen)
	}
	g.Range = p.rangeFrom(start)
	return g
}

// groupItem reads ROLLUP(...), CUBE(...), GROUPING SETS(...) or an
// expression; with aliases (the GROUP BY of |> AGGREGATE) an alias may
// follow it, with or without AS. Spark's SELECT refuses an alias there.
func (p *parser) groupItem(aliases bool) *ast.GroupItem {
	start := p.tok().Start
	switch {
	case (p.at("ROLLUP") || p.at("CUBE")) && p.peek(1).Kind == lex.LeftParen:
		// rollup(a) + 1 is an expression: as ANTLR's prediction does,
		// the reading that goes further wins, ROLLUP when both end at the
		// same token
		save := p.pos
		var gi *ast.GroupItem
		if p.try(func() { gi = p.groupingAnalytics() }) {
			end := p.pos
			p.pos = save
			if !(p.try(func() { p.expr() }) && p.pos > end) {
				p.pos = end
				return gi
			}
			p.pos = save
		}
	case p.atSeq("GROUPING", "SETS"):
		return p.groupingAnalytics()
	}
	if p.atSeq("WITH", "ROLLUP") || p.atSeq("WITH", "CUBE") {
		p.fail("an expression")
	}
	x := p.expr()
	if !aliases {
		return &ast.GroupItem{Range: p.rangeFrom(start), X: x}
	}
	if p.at("AS") {
		p.pos++
		if p.tok().Kind == lex.LeftParen {
			p.identList()
		} else {
			p.errIdent(anyIdent)
		}
	} else if p.isIdentStart(strictIdent) && !p.clauseWord(p.tok()) && !p.atSeq("GROUPING", "SETS") {
		p.errIdent(anyIdent)
	}
	return &ast.GroupItem{Range: p.rangeFrom(start), X: x}
}

// groupingAnalytics reads ROLLUP | CUBE (sets) or GROUPING SETS (elements).
func (p *parser) groupingAnalytics() *ast.GroupItem {
	start := p.tok().Start
	gi := &ast.GroupItem{}
	if p.atSeq("GROUPING", "SETS") {
		p.pos += 2
		gi.Kind = "GROUPING SETS"
		p.expectKind(lex.LeftParen)
		for {
			if (p.at("ROLLUP") || p.at("CUBE")) && p.peek(1).Kind == lex.LeftParen ||
				p.atSeq("GROUPING", "SETS") {
				gi.Items = append(gi.Items, p.groupingAnalytics())
			} else {
				gi.Items = append(gi.Items, p.groupingSet())
			}
			if !p.acceptKind(lex.Comma) {
				break
			}
		}
		p.expectKind(lex.RightParen)
	} else {
		gi.Kind = strings.ToUpper(p.next().Text)
		p.expectKind(lex.LeftParen)
		for {
			gi.Items = append(gi.Items, p.groupingSet())
			if !p.acceptKind(lex.Comma) {
				break
			}
		}
		p.expectKind(lex.RightParen)
	}
	gi.Range = p.rangeFrom(start)
	return gi
}

// groupingSet reads (expr, ...) or expr.
func (p *parser) groupingSet() *ast.GroupItem {
	start := p.tok().Start
	if p.tok().Kind == lex.LeftParen {
		var gi *ast.GroupItem
		if p.try(func() {
			p.pos++
			gi = &ast.GroupItem{Kind: "SET"}
			if p.tok().Kind != lex.RightParen {
				for _, x := range p.exprList() {
					gi.Items = append(gi.Items, &ast.GroupItem{Range: x.Span(), X: x})
				}
			}
			p.expectKind(lex.RightParen)
			if p.tok().Kind != lex.Comma && p.tok().Kind != lex.RightParen {
				p.fail("")
			}
			gi.Range = p.rangeFrom(start)
		}) {
			return gi
		}
	}
	x := p.expr()
	return &ast.GroupItem{Range: p.rangeFrom(start), X: x}
}

// pivot reads PIVOT (aggregates FOR column(s) IN (values)) [alias].
func (p *parser) pivot(in ast.Relation) *ast.Pivot {
	start := p.tok().Start
	if in != nil {
		start = in.Span().Start
	}
	p.expect("PIVOT")
	p.expectKind(lex.LeftParen)
	pv := &ast.Pivot{Input: in, Aggregates: p.selectItems()}
	p.expect("FOR")
	if p.acceptKind(lex.LeftParen) {
		pv.Columns = p.identSeq()
		p.expectKind(lex.RightParen)
	} else {
		pv.Columns = []*ast.Ident{p.errIdent(anyIdent)}
	}
	p.expect("IN")
	p.expectKind(lex.LeftParen)
	for {
		vs := p.tok().Start
		x := p.expr()
		it := &ast.SelectItem{X: x}
		if p.accept("AS") || (p.isIdentStart(anyIdent) && p.tok().Kind != lex.Comma) {
			it.Alias = p.errIdent(anyIdent)
		}
		it.Range = p.rangeFrom(vs)
		pv.Values = append(pv.Values, it)
		if !p.acceptKind(lex.Comma) {
			break
		}
	}
	p.expectKind(lex.RightParen)
	p.expectKind(lex.RightParen)
	pv.Alias = p.clauseAlias()
	pv.Range = p.rangeFrom(start)
	return pv
}

// unpivot reads UNPIVOT [INCLUDE | EXCLUDE NULLS] (...) [alias].
func (p *parser) unpivot(in ast.Relation) *ast.Unpivot {
	start := p.tok().Start
	if in != nil {
		start = in.Span().Start
	}
	p.expect("UNPIVOT")
	u := &ast.Unpivot{Input: in}
	switch {
	case p.atSeq("INCLUDE", "NULLS"):
		p.pos += 2
		u.IncludeNulls = true
	case p.atSeq("EXCLUDE", "NULLS"):
		p.pos += 2
		u.ExcludeNulls = true
	}
	p.expectKind(lex.LeftParen)
	multi := p.acceptKind(lex.LeftParen)
	if multi {
		u.ValueColumns = p.identSeqPlain()
		p.expectKind(lex.RightParen)
	} else {
		u.ValueColumns = []*ast.Ident{p.ident(anyIdent)}
	}
	p.expect("FOR")
	u.NameColumn = p.ident(anyIdent)
	p.expect("IN")
	p.expectKind(lex.LeftParen)
	for {
		cs := p.tok().Start
		uc := &ast.UnpivotColumns{}
		if multi {
			p.expectKind(lex.LeftParen)
			uc.Names = p.multipartList()
			p.expectKind(lex.RightParen)
		} else {
			uc.Names = []*ast.Name{p.multipart()}
		}
		if p.accept("AS") || (p.isIdentStart(anyIdent) && p.tok().Kind != lex.Comma) {
			uc.Alias = p.errIdent(anyIdent)
		}
		uc.Range = p.rangeFrom(cs)
		u.Columns = append(u.Columns, uc)
		if !p.acceptKind(lex.Comma) {
			break
		}
	}
	p.expectKind(lex.RightParen)
	p.expectKind(lex.RightParen)
	u.Alias = p.clauseAlias()
	u.Range = p.rangeFrom(start)
	return u
}

// clauseAlias reads the optional [AS] alias after a PIVOT or UNPIVOT
// clause; without AS, a word that starts the next clause is no alias.
func (p *parser) clauseAlias() *ast.Ident {
	if p.accept("AS") {
		return p.errIdent(anyIdent)
	}
	if p.isIdentStart(strictIdent) && !p.clauseWord(p.tok()) {
		return p.errIdent(anyIdent)
	}
	return nil
}

// identSeqPlain reads identifier, identifier, ... (no error capturing).
func (p *parser) identSeqPlain() []*ast.Ident {
	ids := []*ast.Ident{p.ident(anyIdent)}
	for p.acceptKind(lex.Comma) {
		ids = append(ids, p.ident(anyIdent))
	}
	return ids
}

// pipeOpEnds reports whether t ends a pipe operator (the next |>, a
// semicolon, a closing parenthesis or the end): AGGREGATE GROUP BY followed
// by one of them is the column group with the alias by.
func (p *parser) pipeOpEnds(t lex.Token) bool {
	return t.Kind == lex.OperatorPipe || t.Kind == lex.Semicolon || t.Kind == lex.RightParen || t.Kind == lex.Invalid
}

// pipe reads |> operator after x, repeatedly.
func (p *parser) pipe(x ast.QueryExpr) ast.QueryExpr {
	pp, ok := x.(*ast.Pipe)
	if !ok {
		pp = &ast.Pipe{Input: x}
	}
	p.expectKind(lex.OperatorPipe)
	start := p.tok().Start
	op := &ast.PipeOp{}
	t := p.tok()
	switch {
	case isKw(t, "SELECT"):
		op.Kind = "SELECT"
		s := &ast.Select{}
		p.selectClause(s)
		if p.at("WINDOW") {
			s.Windows = p.windowClause()
		}
		op.Select = s
	case isKw(t, "EXTEND"):
		p.pos++
		op.Kind = "EXTEND"
		op.Select = &ast.Select{Items: p.selectItems()}
	case isKw(t, "SET"):
		p.pos++
		op.Kind = "SET"
		for {
			as := p.tok().Start
			n := p.multipart()
			p.expectKind(lex.Eq)
			v := p.expr()
			op.Set = append(op.Set, &ast.Assignment{Range: p.rangeFrom(as), Name: n, Value: v})
			if !p.acceptKind(lex.Comma) {
				break
			}
		}
	case isKw(t, "DROP"):
		p.pos++
		op.Kind = "DROP"
		op.Names = p.identSeq()
	case isKw(t, "AS"):
		p.pos++
		op.Kind = "AS"
		op.Names = []*ast.Ident{p.errIdent(anyIdent)}
	case isKw(t, "WHERE"):
		p.pos++
		op.Kind = "WHERE"
		op.Select = &ast.Select{Where: p.expr()}
		if p.at("WINDOW") {
			op.Select.Windows = p.windowClause()
		}
	case isKw(t, "PIVOT"):
		op.Kind = "PIVOT"
		op.Pivot = p.pivot(nil)
		if p.at("UNPIVOT") {
			op.Unpivot = p.unpivot(nil)
		}
	case isKw(t, "UNPIVOT"):
		op.Kind = "UNPIVOT"
		op.Unpivot = p.unpivot(nil)
		if p.at("PIVOT") {
			op.Pivot = p.pivot(nil)
		}
	case isKw(t, "TABLESAMPLE"):
		op.Kind = "TABLESAMPLE"
		op.Sample = p.sample()
	case p.joinStarts():
		op.Kind = "JOIN"
		j := p.join(&ast.BadRelation{Range: ast.Range{Start: start, End: start}})
		op.Join = j.(*ast.Join)
	case isKw(t, "UNION"), isKw(t, "EXCEPT"), isKw(t, "SETMINUS"), isKw(t, "INTERSECT"):
		p.pos++
		op.Kind = strings.ToUpper(t.Text)
		if p.at("DISTINCT") || p.at("ALL") {
			op.Quantifier = strings.ToUpper(p.next().Text)
		}
		op.Right = p.queryPrimary()
	case isKw(t, "AGGREGATE"):
		p.pos++
		op.Kind = "AGGREGATE"
		s := &ast.Select{}
		groupBy := p.atSeq("GROUP", "BY") && !p.pipeOpEnds(p.peek(2))
		if !groupBy && p.tok().Kind != lex.OperatorPipe && !p.atEOF() && p.tok().Kind != lex.Semicolon &&
			p.tok().Kind != lex.RightParen {
			s.Items = p.selectItems()
		}
		if p.atSeq("GROUP", "BY") && !p.pipeOpEnds(p.peek(2)) {
			s.GroupBy = p.groupBy(true)
		}
		op.Select = s
	default:
		q := &ast.Query{}
		p.organization(q)
		if p.prevEnd() <= start && p.tok().Start == start {
			p.fail("a pipe operator (SELECT, EXTEND, SET, DROP, AS, WHERE, AGGREGATE, JOIN, ORDER BY, LIMIT, ...)")
		}
		op.Kind = "ORDER"
		q.Range = p.rangeFrom(start)
		op.Org = q
	}
	op.Range = p.rangeFrom(start)
	if op.Select != nil {
		// the SELECT, EXTEND, WHERE or AGGREGATE clause is the operator
		op.Select.Range = op.Range
	}
	pp.Ops = append(pp.Ops, op)
	pp.Range = ast.Range{Start: pp.Input.Span().Start, End: p.prevEnd()}
	return pp
}
