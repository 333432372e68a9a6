package parser

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// expr reads an expression (Spark's expression, a booleanExpression).
func (p *parser) expr() ast.Expr {
	p.enter()
	defer p.leave()
	x := p.andExpr()
	for p.at("OR") {
		op := p.next()
		r := p.andExpr()
		x = &ast.Binary{Range: span(x, r), Op: "OR", OpRange: tokRange(op), L: x, R: r}
	}
	return x
}

func (p *parser) andExpr() ast.Expr {
	x := p.notExpr()
	for p.at("AND") {
		op := p.next()
		r := p.notExpr()
		x = &ast.Binary{Range: span(x, r), Op: "AND", OpRange: tokRange(op), L: x, R: r}
	}
	return x
}

func (p *parser) notExpr() ast.Expr {
	t := p.tok()
	if isKw(t, "NOT") || t.Kind == lex.Bang {
		p.pos++
		p.enter()
		x := p.notExpr()
		p.leave()
		op := "NOT"
		if t.Kind == lex.Bang {
			op = "!"
		}
		return &ast.Unary{Range: ast.Range{Start: t.Start, End: x.Span().End}, Op: op, OpRange: tokRange(t), X: x}
	}
	if isKw(t, "EXISTS") && p.peek(1).Kind == lex.LeftParen && p.startsQueryAfterParens(1) {
		var q *ast.Query
		if p.try(func() {
			p.pos += 2
			q = p.query()
			p.expectKind(lex.RightParen)
		}) {
			return &ast.Exists{Range: p.rangeFrom(t.Start), Query: q}
		}
	}
	return p.predicated()
}

// predicated reads valueExpression predicate?.
func (p *parser) predicated() ast.Expr {
	x := p.valueExpr(0)
	start := x.Span().Start
	not := false
	t := p.tok()
	if isKw(t, "NOT") || t.Kind == lex.Bang {
		n := p.peek(1)
		if isKw(n, "BETWEEN") || isKw(n, "IN") || isKw(n, "RLIKE") || isKw(n, "LIKE") || isKw(n, "ILIKE") {
			not = true
			p.pos++
			t = p.tok()
		} else {
			return x
		}
	}
	switch {
	case isKw(t, "BETWEEN"):
		p.pos++
		lo := p.valueExpr(0)
		p.expect("AND")
		hi := p.valueExpr(0)
		return &ast.Between{Range: p.rangeFrom(start), X: x, Lo: lo, Hi: hi, Not: not}
	case isKw(t, "IN"):
		p.pos++
		p.expectKind(lex.LeftParen)
		in := &ast.In{X: x, Not: not}
		if p.startsQueryAfterParens(0) {
			var q *ast.Query
			if p.try(func() { q = p.query(); p.expectKind(lex.RightParen) }) {
				in.Query = q
				in.Range = p.rangeFrom(start)
				return in
			}
		}
		in.List = p.exprList()
		p.expectKind(lex.RightParen)
		in.Range = p.rangeFrom(start)
		return in
	case isKw(t, "RLIKE"):
		p.pos++
		pat := p.valueExpr(0)
		return &ast.Like{Range: p.rangeFrom(start), X: x, Not: not, Op: strings.ToUpper(t.Text), Patterns: []ast.Expr{pat}}
	case isKw(t, "LIKE"), isKw(t, "ILIKE"):
		p.pos++
		lk := &ast.Like{X: x, Not: not, Op: strings.ToUpper(t.Text)}
		if (p.at("ANY") || p.at("SOME") || p.at("ALL")) && p.peek(1).Kind == lex.LeftParen {
			lk.Quantifier = strings.ToUpper(p.next().Text)
			p.expectKind(lex.LeftParen)
			if p.tok().Kind != lex.RightParen {
				lk.Patterns = p.exprList()
			}
			p.expectKind(lex.RightParen)
		} else {
			lk.Patterns = []ast.Expr{p.valueExpr(0)}
			if p.accept("ESCAPE") {
				lk.Escape = p.stringLit()
			}
		}
		lk.Range = p.rangeFrom(start)
		p.checkLikeList(lk)
		return lk
	case isKw(t, "IS"):
		p.pos++
		is := &ast.Is{X: x}
		if p.accept("NOT") || p.acceptKind(lex.Bang) {
			is.Not = true
		}
		switch {
		case p.at("NULL"), p.at("TRUE"), p.at("FALSE"), p.at("UNKNOWN"):
			is.What = strings.ToUpper(p.next().Text)
		case p.at("DISTINCT"):
			p.pos++
			p.expect("FROM")
			is.What = "DISTINCT FROM"
			is.Other = p.valueExpr(0)
		default:
			p.fail("NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM")
		}
		is.Range = p.rangeFrom(start)
		return is
	}
	return x
}

// Binary operator precedence of valueExpression, lowest first.
const (
	precCompare = 1 + iota
	precBitOr
	precBitXor
	precBitAnd
	precShift
	precAdd
	precMul
)

// binaryOp returns the operator and precedence of the current token if it
// is a binary operator of valueExpression.
func (p *parser) binaryOp() (string, int) {
	t := p.tok()
	switch t.Kind {
	case lex.Eq, lex.NotEq, lex.BangEq, lex.Lt, lex.Lte, lex.Gt, lex.Gte, lex.NullSafeEq:
		return t.Text, precCompare
	case lex.Pipe:
		return "|", precBitOr
	case lex.Hat:
		return "^", precBitXor
	case lex.Ampersand:
		return "&", precBitAnd
	case lex.ShiftLeft, lex.ShiftRight, lex.ShiftRightUnsigned:
		return t.Text, precShift
	case lex.Plus, lex.Minus, lex.ConcatPipe:
		return t.Text, precAdd
	case lex.Asterisk, lex.Slash, lex.Percent:
		return t.Text, precMul
	case lex.Ident:
		if isKw(t, "DIV") {
			return "DIV", precMul
		}
	}
	return "", 0
}

// valueExpr reads a valueExpression whose operators bind at least as
// tightly as min (precedence climbing; every operator is left
// associative).
func (p *parser) valueExpr(min int) ast.Expr {
	p.enter()
	defer p.leave()
	x := p.unaryExpr()
	for {
		op, prec := p.binaryOp()
		if prec == 0 || prec <= min {
			return x
		}
		opTok := p.next()
		r := p.valueExpr(prec)
		x = &ast.Binary{Range: span(x, r), Op: op, OpRange: tokRange(opTok), L: x, R: r}
	}
}

// unaryExpr reads - + ~ prefixes and a primary expression.
func (p *parser) unaryExpr() ast.Expr {
	t := p.tok()
	switch t.Kind {
	case lex.Minus, lex.Plus, lex.Tilde:
		p.pos++
		p.enter()
		var x ast.Expr
		if t.Kind == lex.Minus && numberLit(p.tok().Kind) {
			x = p.postfix(p.numberPrimary(true))
		} else {
			x = p.unaryExpr()
		}
		p.leave()
		return &ast.Unary{Range: ast.Range{Start: t.Start, End: x.Span().End}, Op: t.Text, OpRange: tokRange(t), X: x}
	}
	return p.postfix(p.primary())
}

// numberPrimary reads a number and checks its range (neg: after a unary
// minus, which Spark's grammar takes into the number).
func (p *parser) numberPrimary(neg bool) ast.Expr {
	t := p.next()
	lit := &ast.Literal{Range: tokRange(t), Kind: numKind(t.Kind), Text: t.Text}
	r := lit.Range
	if neg {
		r.Start = p.toks[p.pos-2].Start
	}
	p.checkNumber(lit, r, neg)
	return lit
}

// postfix reads what can follow a primary expression: [index], .field,
// .*, ::type, :path and COLLATE name.
func (p *parser) postfix(x ast.Expr) ast.Expr {
	for {
		t := p.tok()
		switch {
		case t.Kind == lex.LeftBracket:
			p.pos++
			i := p.valueExpr(0)
			p.expectKind(lex.RightBracket)
			x = &ast.Subscript{Range: p.rangeFrom(x.Span().Start), X: x, Index: i}
		case t.Kind == lex.Dot && p.peek(1).Kind == lex.Asterisk:
			c, ok := x.(*ast.Column)
			if !ok {
				p.pos++
				p.fail("a field name")
			}
			p.pos += 2
			st := &ast.Star{Qualifier: &ast.Name{Range: c.Range, Parts: c.Parts}}
			p.starExcept(st)
			st.Range = p.rangeFrom(c.Start)
			x = st
		case t.Kind == lex.Dot:
			p.pos++
			id := p.ident(anyIdent)
			if c, ok := x.(*ast.Column); ok {
				c.Parts = append(c.Parts, id)
				c.End = id.End
			} else {
				x = &ast.Field{Range: ast.Range{Start: x.Span().Start, End: id.End}, X: x, Name: id}
			}
		case t.Kind == lex.DoubleColon:
			p.pos++
			dt := p.dataType()
			x = &ast.Cast{Range: p.rangeFrom(x.Span().Start), Form: "::", X: x, Type: dt}
		case t.Kind == lex.Colon && (p.canIdent(p.peek(1), anyIdent) || p.peek(1).Kind == lex.LeftBracket):
			p.pos++
			ps := p.tok().Start
			p.jsonPath()
			x = &ast.Extract{Range: p.rangeFrom(x.Span().Start), X: x, Path: p.src[ps:p.prevEnd()], PathRange: p.rangeFrom(ps)}
		case isKw(t, "COLLATE"):
			p.pos++
			n := p.multipart()
			x = &ast.Collate{Range: p.rangeFrom(x.Span().Start), X: x, Collation: n}
		default:
			return x
		}
	}
}

// jsonPath reads semiStructuredExtractionPath.
func (p *parser) jsonPath() {
	first := true
	for {
		t := p.tok()
		switch {
		case t.Kind == lex.LeftBracket:
			p.pos++
			switch {
			case p.isStringTok(p.tok()):
				p.stringLit()
			case p.tok().Kind == lex.Integer:
				p.pos++
			default:
				p.ident(anyIdent)
			}
			p.expectKind(lex.RightBracket)
		case first && p.canIdent(t, anyIdent):
			p.ident(anyIdent)
		case !first && t.Kind == lex.Dot && p.canIdent(p.peek(1), anyIdent):
			p.pos++
			p.ident(anyIdent)
		default:
			if first {
				p.fail("a path")
			}
			return
		}
		first = false
	}
}

// starExcept reads the optional EXCEPT (cols) after a star.
func (p *parser) starExcept(st *ast.Star) {
	if p.at("EXCEPT") && p.peek(1).Kind == lex.LeftParen {
		save := p.pos
		if !p.try(func() {
			p.pos += 2
			st.Except = p.multipartList()
			p.expectKind(lex.RightParen)
		}) {
			p.pos = save
		}
	}
}

// exprList reads expression, expression, ...
func (p *parser) exprList() []ast.Expr {
	xs := []ast.Expr{p.expr()}
	for p.acceptKind(lex.Comma) {
		xs = append(xs, p.expr())
	}
	return xs
}

// niladic are the keywords that are calls without parentheses.
var niladic = map[string]bool{"CURRENT_DATE": true, "CURRENT_TIMESTAMP": true, "CURRENT_USER": true,
	"USER": true, "SESSION_USER": true, "CURRENT_TIME": true}

// unitFuncs are the functions that take a date-time unit as their first
// argument.
var unitFuncs = map[string]bool{"TIMESTAMPADD": true, "DATEADD": true, "DATE_ADD": true,
	"TIMESTAMPDIFF": true, "DATEDIFF": true, "DATE_DIFF": true, "TIMEDIFF": true}

// datetimeUnits are Spark's datetimeUnit keywords.
var datetimeUnits = map[string]bool{"YEAR": true, "QUARTER": true, "MONTH": true, "WEEK": true,
	"DAY": true, "DAYOFYEAR": true, "HOUR": true, "MINUTE": true, "SECOND": true,
	"MILLISECOND": true, "MICROSECOND": true}

// literalTypes are the type keywords of a typed literal (literalType).
var literalTypes = map[string]bool{"DATE": true, "TIME": true, "TIMESTAMP": true,
	"TIMESTAMP_LTZ": true, "TIMESTAMP_NTZ": true, "INTERVAL": true, "BINARY_HEX": true}

// primary reads a primaryExpression without its postfix operators.
func (p *parser) primary() ast.Expr {
	t := p.tok()
	r := tokRange(t)
	switch t.Kind {
	case lex.Integer, lex.BigInt, lex.SmallInt, lex.TinyInt, lex.Decimal, lex.Exponent,
		lex.Float, lex.Double, lex.BigDecimal:
		return p.numberPrimary(false)
	case lex.String:
		s := p.stringLit()
		return &ast.Literal{Range: s.Range, Kind: ast.LitString, Text: t.Text, Str: s}
	case lex.DoubleQuotedString:
		if !p.opts.DoubleQuotedIdentifiers {
			s := p.stringLit()
			return &ast.Literal{Range: s.Range, Kind: ast.LitString, Text: t.Text, Str: s}
		}
	case lex.Question:
		return p.param()
	case lex.Colon:
		if p.canIdent(p.peek(1), anyIdent) {
			return p.param()
		}
	case lex.Asterisk:
		p.pos++
		st := &ast.Star{}
		p.starExcept(st)
		st.Range = p.rangeFrom(t.Start)
		return st
	case lex.LeftParen:
		return p.parenExpr()
	case lex.Ident:
		if x := p.keywordPrimary(t); x != nil {
			return x
		}
	}
	if !p.canIdent(t, anyIdent) && !(t.Kind == lex.Ident && (isKw(t, "FILTER") || isKw(t, "LEFT") || isKw(t, "RIGHT"))) {
		if t.Kind.IsError() {
			p.failAt(t, "", t.Message())
		}
		p.fail("an expression")
	}
	// identifier -> body
	if p.peek(1).Kind == lex.Arrow && t.Kind != lex.DoubleQuotedString {
		id := p.ident(anyIdent)
		p.pos++
		body := p.expr()
		return &ast.Lambda{Range: p.rangeFrom(t.Start), Params: []*ast.Ident{id}, Body: body}
	}
	// a typed literal: type 'value'
	if t.Kind == lex.Ident && p.isStringTok(p.peek(1)) {
		p.pos++
		v := p.singleString()
		tl := &ast.TypedLiteral{Range: p.rangeFrom(t.Start), Type: strings.ToUpper(t.Text), TypeRange: r, Value: v}
		p.checkTypedLiteral(tl)
		return tl
	}
	// a function call: name(...) or a.b.name(...)
	if n := p.callNameLen(); n > 0 {
		return p.call()
	}
	id := p.ident(anyIdent)
	return p.newColumn(id)
}

// columnAlloc is a column reference with room for two name parts (a or
// t.a, most references), allocated at once: one allocation instead of
// two or three when postfix appends the second part in place.
type columnAlloc struct {
	col   ast.Column
	parts [2]*ast.Ident
}

// newColumn returns the column reference id.
func (p *parser) newColumn(id *ast.Ident) *ast.Column {
	a := p.alloc.columns.next(columnChunk)
	a.parts[0] = id
	a.col.Range, a.col.Parts = id.Range, a.parts[:1:2]
	return &a.col
}

// callNameLen reports how many tokens the qualified function name at the
// current position has when a ( follows it, or 0 when it is no call.
func (p *parser) callNameLen() int {
	i := 0
	if isKw(p.tok(), "IDENTIFIER_KW") && p.peek(1).Kind == lex.LeftParen {
		// IDENTIFIER(expr)(args) or IDENTIFIER('f')(...): find the ).
		depth := 0
		for j := 1; ; j++ {
			switch p.peek(j).Kind {
			case lex.LeftParen:
				depth++
			case lex.RightParen:
				depth--
				if depth == 0 {
					if p.peek(j+1).Kind == lex.LeftParen {
						return j + 1
					}
					return 0
				}
			case lex.Invalid:
				return 0
			}
		}
	}
	for {
		t := p.peek(i)
		if !p.canIdent(t, anyIdent) && !(t.Kind == lex.Ident && t.Keyword != lex.NoKeyword) {
			return 0
		}
		i++
		switch p.peek(i).Kind {
		case lex.LeftParen:
			return i
		case lex.Dot:
			i++
		default:
			return 0
		}
	}
}

// keywordPrimary reads the primary expressions that start with a keyword
// of their own (CASE, CAST, INTERVAL, literals, the keyword forms of
// calls); it returns nil, having consumed nothing, when t starts none.
func (p *parser) keywordPrimary(t lex.Token) ast.Expr {
	if t.Keyword == lex.NoKeyword {
		return nil
	}
	r := tokRange(t)
	name := t.Keyword.Token()
	next := p.peek(1)
	switch name {
	case "NULL":
		p.pos++
		return &ast.Literal{Range: r, Kind: ast.LitNull, Text: t.Text}
	case "TRUE", "FALSE":
		if next.Kind == lex.LeftParen || next.Kind == lex.Arrow {
			return nil
		}
		p.pos++
		k := ast.LitTrue
		if name == "FALSE" {
			k = ast.LitFalse
		}
		return &ast.Literal{Range: r, Kind: k, Text: t.Text}
	case "CASE":
		return p.caseExpr()
	case "CAST", "TRY_CAST":
		if next.Kind == lex.LeftParen {
			p.pos += 2
			x := p.expr()
			p.expect("AS")
			dt := p.dataType()
			p.expectKind(lex.RightParen)
			return &ast.Cast{Range: p.rangeFrom(t.Start), Form: name, X: x, Type: dt}
		}
	case "INTERVAL":
		var iv *ast.Interval
		if p.try(func() { iv = p.interval() }) {
			return iv
		}
		if p.isStringTok(next) {
			p.pos++
			v := p.singleString()
			iv := &ast.Interval{Range: p.rangeFrom(t.Start), Value: v}
			p.checkIntervalString(iv)
			return iv
		}
	case "STRUCT":
		if next.Kind == lex.LeftParen {
			p.pos += 2
			c := &ast.Call{Name: nameOf(p.identToken(t))}
			if p.tok().Kind != lex.RightParen {
				for {
					it := p.namedExpr()
					if it.Alias != nil || it.Aliases != nil {
						c.Args = append(c.Args, &ast.NamedArg{Range: it.Range, Name: it.Alias, Value: it.X, Aliases: it.Aliases})
					} else {
						c.Args = append(c.Args, it.X)
					}
					if !p.acceptKind(lex.Comma) {
						break
					}
				}
			}
			p.expectKind(lex.RightParen)
			c.Range = p.rangeFrom(t.Start)
			return p.postfix(c)
		}
	case "EXTRACT":
		if next.Kind == lex.LeftParen {
			var c *ast.Call
			if p.try(func() {
				p.pos += 2
				f := p.ident(anyIdent)
				p.expect("FROM")
				src := p.valueExpr(0)
				p.expectKind(lex.RightParen)
				c = &ast.Call{Range: p.rangeFrom(t.Start), Name: nameOf(p.identToken(t)), Form: "EXTRACT", Unit: f, Args: []ast.Expr{src}}
			}) {
				return c
			}
		}
	case "SUBSTR", "SUBSTRING":
		if next.Kind == lex.LeftParen {
			var c *ast.Call
			if p.try(func() {
				p.pos += 2
				str := p.valueExpr(0)
				if !p.accept("FROM") {
					p.expectKind(lex.Comma)
				}
				pos := p.valueExpr(0)
				c = &ast.Call{Name: nameOf(p.identToken(t)), Form: "SUBSTRING FROM", Args: []ast.Expr{str, pos}}
				if p.accept("FOR") || p.acceptKind(lex.Comma) {
					c.Args = append(c.Args, p.valueExpr(0))
				}
				p.expectKind(lex.RightParen)
				c.Range = p.rangeFrom(t.Start)
			}) {
				return c
			}
		}
	case "TRIM":
		if next.Kind == lex.LeftParen {
			var c *ast.Call
			if p.try(func() {
				p.pos += 2
				c = &ast.Call{Name: nameOf(p.identToken(t)), Form: "TRIM"}
				if p.at("BOTH") || p.at("LEADING") || p.at("TRAILING") {
					c.TrimSide = strings.ToUpper(p.next().Text)
				}
				if !p.at("FROM") {
					c.Args = append(c.Args, p.valueExpr(0))
				}
				p.expect("FROM")
				c.Args = append([]ast.Expr{p.valueExpr(0)}, c.Args...)
				p.expectKind(lex.RightParen)
				c.Range = p.rangeFrom(t.Start)
			}) {
				return c
			}
		}
	case "POSITION":
		if next.Kind == lex.LeftParen {
			var c *ast.Call
			if p.try(func() {
				p.pos += 2
				sub := p.valueExpr(0)
				p.expect("IN")
				str := p.valueExpr(0)
				p.expectKind(lex.RightParen)
				c = &ast.Call{Range: p.rangeFrom(t.Start), Name: nameOf(p.identToken(t)), Form: "POSITION", Args: []ast.Expr{sub, str}}
			}) {
				return c
			}
		}
	case "OVERLAY":
		if next.Kind == lex.LeftParen {
			var c *ast.Call
			if p.try(func() {
				p.pos += 2
				in := p.valueExpr(0)
				p.expect("PLACING")
				rep := p.valueExpr(0)
				p.expect("FROM")
				pos := p.valueExpr(0)
				c = &ast.Call{Name: nameOf(p.identToken(t)), Form: "OVERLAY", Args: []ast.Expr{in, rep, pos}}
				if p.accept("FOR") {
					c.Args = append(c.Args, p.valueExpr(0))
				}
				p.expectKind(lex.RightParen)
				c.Range = p.rangeFrom(t.Start)
			}) {
				return c
			}
		}
	}
	if niladic[name] && next.Kind != lex.LeftParen && next.Kind != lex.Dot && next.Kind != lex.Arrow {
		p.pos++
		return &ast.Call{Range: r, Name: nameOf(p.identToken(t)), NoParens: true}
	}
	if unitFuncs[name] && next.Kind == lex.LeftParen {
		u := p.peek(2)
		if (u.Kind == lex.Ident && datetimeUnits[u.Keyword.Token()]) || p.isStringTok(u) {
			var c *ast.Call
			if p.try(func() {
				p.pos += 2
				c = &ast.Call{Name: nameOf(p.identToken(t)), Form: "UNIT"}
				var unitStr *ast.StringLit
				if p.isStringTok(p.tok()) {
					unitStr = p.stringLit()
				} else {
					c.Unit = p.ident(anyIdent)
				}
				p.expectKind(lex.Comma)
				a := p.valueExpr(0)
				p.expectKind(lex.Comma)
				b := p.valueExpr(0)
				p.expectKind(lex.RightParen)
				if unitStr != nil {
					// the grammar read it (invalidUnit=stringLit); Spark then refuses it
					p.failRange(unitStr.Range, "INVALID_PARAMETER_VALUE.DATETIME_UNIT",
						"the unit of "+strings.ToUpper(t.Text)+" is a keyword, not a string: write "+strings.ToUpper(unitStr.Value)+" without quotes"+unitHint(t.Keyword.Token()))
				}
				c.Args = []ast.Expr{a, b}
				c.Range = p.rangeFrom(t.Start)
			}) {
				return c
			}
		}
	}
	if literalTypes[name] && p.isStringTok(next) {
		p.pos++
		v := p.singleString()
		typ := strings.ToUpper(t.Text)
		if name == "INTERVAL" {
			iv := &ast.Interval{Range: p.rangeFrom(t.Start), Value: v}
			p.checkIntervalString(iv)
			return iv
		}
		tl := &ast.TypedLiteral{Range: p.rangeFrom(t.Start), Type: typ, TypeRange: r, Value: v}
		p.checkTypedLiteral(tl)
		return tl
	}
	return nil
}

// unitHint adds Spark's two-argument form to the error of a quoted unit.
func unitHint(fn string) string {
	switch fn {
	case "DATEDIFF", "DATE_DIFF":
		return ", or use datediff(end, start) for the days between two dates"
	case "DATEADD", "DATE_ADD":
		return ", or use date_add(start, days) to add days"
	}
	return ""
}

// interval reads INTERVAL value unit [value unit ...] | value unit TO unit.
func (p *parser) interval() *ast.Interval {
	start := p.expect("INTERVAL").Start
	iv := &ast.Interval{}
	for {
		u := p.intervalUnit()
		if u == nil {
			break
		}
		iv.Units = append(iv.Units, u)
		if p.at("TO") {
			p.pos++
			t := p.tok()
			if !(t.Kind == lex.Ident && unitToUnit[t.Keyword.Token()]) {
				p.fail("SECOND, MINUTE, HOUR, DAY, MONTH or YEAR")
			}
			p.pos++
			iv.To, iv.ToRange = strings.ToUpper(t.Text), tokRange(t)
			if len(iv.Units) > 1 {
				p.failRange(p.rangeFrom(start), "INVALID_INTERVAL_FORMAT",
					"an interval with unit TO unit has one value: write INTERVAL 'value' "+iv.Units[0].Unit+" TO "+iv.To)
			}
			break
		}
	}
	if len(iv.Units) == 0 {
		p.fail("an interval value and unit")
	}
	iv.Range = p.rangeFrom(start)
	p.checkInterval(iv)
	return iv
}

var unitToUnit = map[string]bool{"SECOND": true, "MINUTE": true, "HOUR": true, "DAY": true, "MONTH": true, "YEAR": true}

var multiUnits = map[string]bool{"NANOSECOND": true, "NANOSECONDS": true, "MICROSECOND": true,
	"MICROSECONDS": true, "MILLISECOND": true, "MILLISECONDS": true, "SECOND": true, "SECONDS": true,
	"MINUTE": true, "MINUTES": true, "HOUR": true, "HOURS": true, "DAY": true, "DAYS": true,
	"WEEK": true, "WEEKS": true, "MONTH": true, "MONTHS": true, "YEAR": true, "YEARS": true}

// intervalUnit reads [+|-] (integer | decimal | string) unit, or returns
// nil without consuming when no value and unit follow.
func (p *parser) intervalUnit() *ast.IntervalUnit {
	i := 0
	neg := false
	if k := p.peek(0).Kind; k == lex.Plus || k == lex.Minus {
		neg = k == lex.Minus
		i = 1
	}
	v := p.peek(i)
	if v.Kind != lex.Integer && v.Kind != lex.Decimal && !p.isStringTok(v) {
		return nil
	}
	// adjacent strings coalesce into one value
	j := i + 1
	if p.isStringTok(v) {
		for p.isStringTok(p.peek(j)) {
			j++
		}
	}
	u := p.peek(j)
	if !(u.Kind == lex.Ident && multiUnits[u.Keyword.Token()]) {
		return nil
	}
	start := p.tok().Start
	p.pos += i
	var val ast.Expr
	if p.isStringTok(v) {
		s := p.stringLit()
		val = &ast.Literal{Range: s.Range, Kind: ast.LitString, Text: v.Text, Str: s}
	} else {
		p.pos++
		val = &ast.Literal{Range: tokRange(v), Kind: numKind(v.Kind), Text: v.Text}
	}
	p.pos++
	return &ast.IntervalUnit{Range: p.rangeFrom(start), Value: val, Negative: neg,
		Unit: strings.ToUpper(u.Text), UnitRange: tokRange(u)}
}

// caseExpr reads CASE [x] WHEN ... THEN ... [ELSE ...] END.
func (p *parser) caseExpr() ast.Expr {
	start := p.expect("CASE").Start
	c := &ast.Case{}
	if !p.at("WHEN") {
		c.Operand = p.expr()
	}
	for p.at("WHEN") {
		ws := p.next().Start
		cond := p.expr()
		p.expect("THEN")
		res := p.expr()
		c.Whens = append(c.Whens, &ast.When{Range: p.rangeFrom(ws), Cond: cond, Result: res})
	}
	if len(c.Whens) == 0 {
		p.fail("WHEN")
	}
	if p.accept("ELSE") {
		c.Else = p.expr()
	}
	p.expect("END")
	c.Range = p.rangeFrom(start)
	return c
}

// parenExpr reads what starts with (: a lambda (a, b) -> x, a subquery,
// a row (a, b) or a parenthesised expression.
func (p *parser) parenExpr() ast.Expr {
	start := p.tok().Start
	// (a, b) -> body
	if p.canIdent(p.peek(1), anyIdent) && (p.peek(2).Kind == lex.Comma || p.peek(2).Kind == lex.RightParen) {
		var l *ast.Lambda
		if p.try(func() {
			p.pos++
			ids := []*ast.Ident{p.ident(anyIdent)}
			for p.acceptKind(lex.Comma) {
				ids = append(ids, p.ident(anyIdent))
			}
			p.expectKind(lex.RightParen)
			p.expectKind(lex.Arrow)
			if len(ids) < 2 {
				// (x) -> body is not a lambda in Spark's grammar
				p.fail("")
			}
			body := p.expr()
			l = &ast.Lambda{Range: p.rangeFrom(start), Params: ids, Body: body}
		}) {
			return l
		}
	}
	if p.startsQueryAfterParens(0) {
		var q *ast.Query
		if p.try(func() {
			p.pos++
			q = p.query()
			p.expectKind(lex.RightParen)
		}) {
			return &ast.Subquery{Range: p.rangeFrom(start), Query: q}
		}
	}
	p.pos++
	first := p.namedExpr()
	if p.tok().Kind == lex.Comma {
		row := &ast.Row{Items: []*ast.SelectItem{first}}
		for p.acceptKind(lex.Comma) {
			row.Items = append(row.Items, p.namedExpr())
		}
		p.expectKind(lex.RightParen)
		row.Range = p.rangeFrom(start)
		return row
	}
	if first.Alias != nil || first.Aliases != nil {
		p.fail("','")
	}
	p.expectKind(lex.RightParen)
	return &ast.Paren{Range: p.rangeFrom(start), X: first.X}
}

// startsQueryAfterParens reports whether, after the ( at offset n and any
// further (s, a query keyword comes.
func (p *parser) startsQueryAfterParens(n int) bool {
	i := n
	for p.peek(i).Kind == lex.LeftParen {
		i++
	}
	t := p.peek(i)
	return isKw(t, "SELECT") || isKw(t, "WITH") || isKw(t, "VALUES") || isKw(t, "FROM") ||
		isKw(t, "TABLE") || isKw(t, "MAP") || isKw(t, "REDUCE")
}

// call reads a function call with everything that may follow it.
func (p *parser) call() ast.Expr {
	start := p.tok().Start
	c := &ast.Call{}
	if isKw(p.tok(), "IDENTIFIER_KW") && p.peek(1).Kind == lex.LeftParen && p.callNameLen() > 1 {
		id := p.ident(anyIdent)
		c.Name = nameOf(id)
	} else {
		c.Name = p.funcName()
	}
	p.expectKind(lex.LeftParen)
	if p.tok().Kind != lex.RightParen {
		if (p.at("DISTINCT") || p.at("ALL")) && !(p.peek(1).Kind == lex.RightParen || p.peek(1).Kind == lex.Comma ||
			p.peek(1).Kind == lex.Dot) {
			c.Quantifier = strings.ToUpper(p.next().Text)
		}
		for {
			c.Args = append(c.Args, p.funcArg())
			if !p.acceptKind(lex.Comma) {
				break
			}
		}
		if p.at("IGNORE") && isKw(p.peek(1), "NULLS") {
			// Spark has IGNORE NULLS inside the parentheses only in
			// FIRST | LAST | ANY_VALUE (expression IGNORE NULLS), a call
			// that nothing (OVER, FILTER, a second IGNORE NULLS) follows
			if !ignoreNullsInside(c) {
				p.fail("')'")
			}
			p.pos += 2
			c.Nulls = "IGNORE"
			p.expectKind(lex.RightParen)
			c.Range = p.rangeFrom(start)
			return c
		}
	}
	p.expectKind(lex.RightParen)
	if p.at("WITHIN") && isKw(p.peek(1), "GROUP") {
		p.pos += 2
		p.expectKind(lex.LeftParen)
		p.expect("ORDER")
		p.expect("BY")
		c.WithinGroup = p.sortList()
		p.expectKind(lex.RightParen)
	}
	if p.at("FILTER") && p.peek(1).Kind == lex.LeftParen && isKw(p.peek(2), "WHERE") {
		p.pos += 3
		c.Filter = p.expr()
		p.expectKind(lex.RightParen)
	}
	if (p.at("IGNORE") || p.at("RESPECT")) && isKw(p.peek(1), "NULLS") {
		c.Nulls = strings.ToUpper(p.next().Text)
		p.pos++
	}
	if p.at("OVER") {
		p.pos++
		c.Over = p.windowSpec()
	}
	c.Range = p.rangeFrom(start)
	return c
}

// ignoreNullsInside reports whether c, read up to its arguments, is one
// of Spark's first, last and any_value forms that take IGNORE NULLS before
// the closing parenthesis: an unquoted one-part name, no DISTINCT or ALL,
// one argument that is not named.
func ignoreNullsInside(c *ast.Call) bool {
	if c.Name == nil || len(c.Name.Parts) != 1 || c.Name.Parts[0].Quoted || c.Quantifier != "" || len(c.Args) != 1 {
		return false
	}
	if _, named := c.Args[0].(*ast.NamedArg); named {
		return false
	}
	switch strings.ToUpper(c.Name.Parts[0].Name) {
	case "FIRST", "LAST", "ANY_VALUE":
		return true
	}
	return false
}

// funcName reads a qualified function name (any keyword is a name part).
func (p *parser) funcName() *ast.Name {
	start := p.tok().Start
	n := p.newName()
	for {
		t := p.tok()
		if !(p.canIdent(t, anyIdent) || (t.Kind == lex.Ident && t.Keyword != lex.NoKeyword)) {
			p.fail("a function name")
		}
		p.pos++
		n.Parts = append(n.Parts, p.identToken(t))
		if p.tok().Kind != lex.Dot {
			break
		}
		p.pos++
	}
	n.Range = p.rangeFrom(start)
	return n
}

// funcArg reads one argument: name => value, TABLE t, or an expression.
func (p *parser) funcArg() ast.Expr {
	t := p.tok()
	if p.canIdent(t, anyIdent) && p.peek(1).Kind == lex.FatArrow {
		id := p.ident(anyIdent)
		p.pos++
		var v ast.Expr
		if p.at("TABLE") {
			v = p.tableArg()
		} else {
			v = p.expr()
		}
		return &ast.NamedArg{Range: p.rangeFrom(t.Start), Name: id, Value: v}
	}
	if isKw(t, "TABLE") && (p.peek(1).Kind == lex.LeftParen || p.canIdent(p.peek(1), anyIdent)) {
		var ta *ast.TableArg
		if p.try(func() { ta = p.tableArg() }) {
			return ta
		}
	}
	return p.expr()
}

// tableArg reads TABLE t | TABLE(t) | TABLE(query) with partitioning.
func (p *parser) tableArg() *ast.TableArg {
	start := p.expect("TABLE").Start
	ta := &ast.TableArg{}
	if p.acceptKind(lex.LeftParen) {
		if p.startsQueryAfterParens(0) {
			ta.Query = p.query()
		} else {
			ta.Name = p.identifierReference()
		}
		p.expectKind(lex.RightParen)
	} else {
		ta.Name = p.identifierReference()
	}
	switch {
	case p.atSeq("WITH", "SINGLE", "PARTITION"):
		p.pos += 3
		ta.SinglePartition = true
	case (p.at("PARTITION") || p.at("DISTRIBUTE")) && isKw(p.peek(1), "BY"):
		p.pos += 2
		if p.tok().Kind == lex.LeftParen {
			var xs []ast.Expr
			if p.try(func() {
				p.pos++
				xs = p.exprList()
				p.expectKind(lex.RightParen)
				if p.tok().Kind == lex.Comma {
					p.fail("")
				}
			}) {
				ta.PartitionBy = xs
				break
			}
		}
		ta.PartitionBy = []ast.Expr{p.expr()}
		if p.tok().Kind == lex.Comma {
			p.failRange(ast.Range{Start: ta.PartitionBy[0].Span().Start, End: p.tok().End}, "PARSE_SYNTAX_ERROR",
				"several PARTITION BY expressions of a TABLE argument need parentheses: PARTITION BY (a, b)")
		}
	}
	if (p.at("ORDER") || p.at("SORT")) && isKw(p.peek(1), "BY") {
		p.pos += 2
		if p.tok().Kind == lex.LeftParen {
			var items []*ast.SortItem
			if p.try(func() {
				p.pos++
				items = p.sortList()
				p.expectKind(lex.RightParen)
			}) {
				ta.OrderBy = items
			}
		}
		if ta.OrderBy == nil {
			ta.OrderBy = []*ast.SortItem{p.sortItem()}
			if p.tok().Kind == lex.Comma {
				p.failRange(ast.Range{Start: ta.OrderBy[0].Start, End: p.tok().End}, "PARSE_SYNTAX_ERROR",
					"several ORDER BY items of a TABLE argument need parentheses: ORDER BY (a, b)")
			}
		}
	}
	ta.Range = p.rangeFrom(start)
	return ta
}

// namedExpr reads expression [AS] alias | expression AS (a, b).
func (p *parser) namedExpr() *ast.SelectItem {
	x := p.expr()
	it := &ast.SelectItem{X: x}
	if p.at("AS") {
		p.pos++
		if p.tok().Kind == lex.LeftParen {
			it.Aliases = p.identList()
		} else {
			it.Alias = p.errIdent(anyIdent)
		}
	} else if p.isIdentStart(strictIdent) && !p.clauseWord(p.tok()) {
		it.Alias = p.errIdent(anyIdent)
	} else if p.tok().Kind == lex.LeftParen && p.canIdent(p.peek(1), anyIdent) &&
		(p.peek(2).Kind == lex.Comma || p.peek(2).Kind == lex.RightParen) {
		// expression (a, b): the alias list without AS
		it.Aliases = p.identList()
	}
	it.Range = p.rangeFrom(x.Span().Start)
	return it
}

// clauseWords are the keywords that end a select item or a relation when
// they come where an alias without AS could: Spark's parser would only
// read them as the alias if the rest of the statement then parsed, which
// for these words it practically never does.
var clauseWords = map[string]bool{"FROM": true, "WHERE": true, "GROUP": true, "HAVING": true,
	"ORDER": true, "LIMIT": true, "OFFSET": true, "WINDOW": true, "UNION": true, "EXCEPT": true,
	"SETMINUS": true, "INTERSECT": true, "LATERAL": true, "CLUSTER": true, "DISTRIBUTE": true,
	"SORT": true, "INSERT": true, "SELECT": true, "PIVOT": true, "UNPIVOT": true, "TABLESAMPLE": true,
	"WATERMARK": true, "JOIN": true, "ON": true, "USING": true, "INNER": true, "CROSS": true,
	"LEFT": true, "RIGHT": true, "FULL": true, "NATURAL": true, "SEMI": true, "ANTI": true,
	"FOR": true, "AS": true, "MAP": true, "REDUCE": true, "WITH": true, "VERSION": true,
	"SYSTEM_VERSION": true, "SYSTEM_TIME": true, "TIMESTAMP": true, "THEN": true, "WHEN": true, "ELSE": true,
	"END": true, "AND": true, "OR": true, "IN": true, "IS": true, "NOT": true, "BETWEEN": true,
	"LIKE": true, "ILIKE": true, "RLIKE": true, "DIV": true, "ESCAPE": true, "OVER": true,
	"FILTER": true, "IGNORE": true, "RESPECT": true, "WITHIN": true, "COLLATE": true,
	"ROWS": true, "RANGE": true, "PRECEDING": true, "FOLLOWING": true, "ASC": true, "DESC": true,
	"NULLS": true, "DELAY": true, "RETURN": true, "INTO": true, "REPEATABLE": true}

// clauseWord reports whether t, the current token, is one of clauseWords
// and starts its clause here. Spark's parser reads such a word as an alias
// when the clause cannot go on (GROUP not followed by BY, LIMIT at the end
// of the statement), and so does this one.
func (p *parser) clauseWord(t lex.Token) bool {
	if p.opts.Version >= Spark42 && isWord(t, "QUALIFY") && t.Start == p.tok().Start {
		// Spark 4.2's QUALIFY clause (the lexer follows 4.1, where
		// QUALIFY is a plain name)
		next := p.peek(1)
		return !(next.Kind == lex.Invalid || next.Kind == lex.Semicolon || next.Kind == lex.RightParen)
	}
	if t.Kind != lex.Ident || t.Keyword == lex.NoKeyword || !clauseWords[t.Keyword.Token()] {
		return false
	}
	next := p.peek(1)
	if t.Start != p.tok().Start {
		return true
	}
	switch t.Keyword.Token() {
	case "GROUP", "ORDER", "SORT", "CLUSTER", "DISTRIBUTE":
		return isKw(next, "BY")
	case "LIMIT", "OFFSET", "WHERE", "HAVING", "FROM", "WINDOW":
		return !(next.Kind == lex.Invalid || next.Kind == lex.Semicolon || next.Kind == lex.RightParen)
	}
	return true
}

// sortList reads sortItem, sortItem, ...
func (p *parser) sortList() []*ast.SortItem {
	items := []*ast.SortItem{p.sortItem()}
	for p.acceptKind(lex.Comma) {
		items = append(items, p.sortItem())
	}
	return items
}

// sortItem reads expr [ASC | DESC] [NULLS FIRST | LAST].
func (p *parser) sortItem() *ast.SortItem {
	x := p.expr()
	it := &ast.SortItem{X: x}
	if p.at("ASC") || p.at("DESC") {
		it.Dir = strings.ToUpper(p.next().Keyword.Token())
	}
	if p.at("NULLS") {
		p.pos++
		if !(p.at("FIRST") || p.at("LAST")) {
			p.fail("FIRST or LAST")
		}
		it.Nulls = strings.ToUpper(p.next().Text)
	}
	it.Range = p.rangeFrom(x.Span().Start)
	return it
}

// windowSpec reads the window after OVER or in a WINDOW clause.
func (p *parser) windowSpec() *ast.Window {
	start := p.tok().Start
	w := &ast.Window{}
	if p.tok().Kind != lex.LeftParen {
		w.Ref = p.errIdent(anyIdent)
		w.Range = p.rangeFrom(start)
		return w
	}
	p.pos++
	if p.canIdent(p.tok(), anyIdent) && p.peek(1).Kind == lex.RightParen {
		w.Ref = p.errIdent(anyIdent)
		p.pos++
		w.Range = p.rangeFrom(start)
		return w
	}
	switch {
	case p.at("CLUSTER") && isKw(p.peek(1), "BY"):
		p.pos += 2
		w.PartitionBy = p.exprList()
	case (p.at("PARTITION") || p.at("DISTRIBUTE")) && isKw(p.peek(1), "BY"):
		p.pos += 2
		w.PartitionBy = p.exprList()
		fallthrough
	default:
		if (p.at("ORDER") || p.at("SORT")) && isKw(p.peek(1), "BY") {
			p.pos += 2
			w.OrderBy = p.sortList()
		}
	}
	if p.at("ROWS") || p.at("RANGE") {
		fs := p.tok().Start
		f := &ast.Frame{Unit: strings.ToUpper(p.next().Text)}
		if p.accept("BETWEEN") {
			f.Start = p.frameBound()
			p.expect("AND")
			f.End = p.frameBound()
		} else {
			f.Start = p.frameBound()
		}
		f.Range = p.rangeFrom(fs)
		w.Frame = f
	}
	p.expectKind(lex.RightParen)
	w.Range = p.rangeFrom(start)
	return w
}

// frameBound reads UNBOUNDED PRECEDING | FOLLOWING, CURRENT ROW, or x
// PRECEDING | FOLLOWING.
func (p *parser) frameBound() *ast.FrameBound {
	start := p.tok().Start
	b := &ast.FrameBound{}
	switch {
	case p.at("UNBOUNDED") && (isKw(p.peek(1), "PRECEDING") || isKw(p.peek(1), "FOLLOWING")):
		p.pos++
		b.Kind = "UNBOUNDED " + strings.ToUpper(p.next().Text)
	case p.atSeq("CURRENT", "ROW"):
		p.pos += 2
		b.Kind = "CURRENT ROW"
	default:
		b.Offset = p.expr()
		if !(p.at("PRECEDING") || p.at("FOLLOWING")) {
			p.fail("PRECEDING or FOLLOWING")
		}
		b.Kind = strings.ToUpper(p.next().Text)
	}
	b.Range = p.rangeFrom(start)
	return b
}

func numKind(k lex.Kind) ast.LitKind {
	switch k {
	case lex.BigInt:
		return ast.LitBigInt
	case lex.SmallInt:
		return ast.LitSmallInt
	case lex.TinyInt:
		return ast.LitTinyInt
	case lex.Decimal:
		return ast.LitDecimal
	case lex.Exponent:
		return ast.LitExponent
	case lex.Float:
		return ast.LitFloat
	case lex.Double:
		return ast.LitDouble
	case lex.BigDecimal:
		return ast.LitBigDecimal
	}
	return ast.LitInteger
}

func tokRange(t lex.Token) ast.Range { return ast.Range{Start: t.Start, End: t.End} }

func span(a, b ast.Node) ast.Range { return ast.Range{Start: a.Span().Start, End: b.Span().End} }

func nameOf(id *ast.Ident) *ast.Name { return &ast.Name{Range: id.Range, Parts: []*ast.Ident{id}} }
