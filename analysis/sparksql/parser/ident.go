package parser

import (
	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// identMode says which keywords an identifier position accepts.
type identMode uint8

const (
	// anyIdent is the grammar's identifier: in the default keyword
	// behaviour every keyword.
	anyIdent identMode = iota
	// strictIdent is strictIdentifier: not the join and set-operation
	// words (JOIN, LEFT, UNION, ON, USING, ...).
	strictIdent
)

// canIdent reports whether t can be an identifier in mode m.
func (p *parser) canIdent(t lex.Token, m identMode) bool {
	switch t.Kind {
	case lex.QuotedIdent:
		return true
	case lex.DoubleQuotedString:
		return p.opts.DoubleQuotedIdentifiers
	case lex.Ident:
	default:
		return false
	}
	if t.Keyword == lex.NoKeyword {
		return true
	}
	if p.opts.ANSI {
		return !t.Keyword.ReservedANSI()
	}
	if m == strictIdent {
		return !t.Keyword.StrictNonReserved()
	}
	return true
}

// isIdentStart reports whether the current token starts an identifier in
// mode m (including IDENTIFIER('...')).
func (p *parser) isIdentStart(m identMode) bool {
	return p.canIdent(p.tok(), m)
}

// ident reads one identifier in mode m, or IDENTIFIER(expr).
func (p *parser) ident(m identMode) *ast.Ident {
	t := p.tok()
	if isKw(t, "IDENTIFIER_KW") && p.peek(1).Kind == lex.LeftParen {
		p.pos += 2
		x := p.expr()
		p.expectKind(lex.RightParen)
		id := &ast.Ident{Range: p.rangeFrom(t.Start)}
		if l, ok := x.(*ast.Literal); ok && l.Kind == ast.LitString {
			id.Name, id.Quoted = l.Str.Value, true
		} else {
			id.Expr = x
		}
		return id
	}
	if !p.canIdent(t, m) {
		if t.Kind == lex.Ident && t.Keyword != lex.NoKeyword && p.opts.ANSI {
			p.failAt(t, "", syntaxMessage(t, "")+": "+t.Text+" is a reserved keyword under ANSI mode; quote it with backquotes to use it as a name: `"+t.Text+"`")
		}
		p.fail("an identifier")
	}
	p.pos++
	return p.identToken(t)
}

// identToken turns an identifier token into an Ident.
func (p *parser) identToken(t lex.Token) *ast.Ident {
	id := p.newIdent()
	id.Range, id.Name = ast.Range{Start: t.Start, End: t.End}, t.Text
	if t.Kind == lex.QuotedIdent || t.Kind == lex.DoubleQuotedString {
		v, err := lex.Unquote(t)
		if err == nil {
			id.Name = v
		}
		id.Quoted = true
	}
	return id
}

// identChunk is how many identifiers newIdent allocates at a time once
// the first chunk (as many as the text has plain identifier tokens) is
// used up: a query of a pipeline names a few dozen, and one allocation
// for many costs the allocator and the collector less than one each. The
// tree keeps every identifier as long as any of them, which it does
// anyway; sizing the first chunk by the tokens leaves no unused tail
// behind in a tree an editor keeps for every file.
const identChunk = 8

// maxIdentHint bounds the first chunk, so that a huge text's chunk is not
// kept whole by a tree that uses part of it (a statement that fails).
const maxIdentHint = 4096

// newIdent returns a zero identifier from the parser's current chunk.
func (p *parser) newIdent() *ast.Ident {
	if len(p.idents) == 0 {
		n := identChunk
		if p.identHint > 0 {
			n = min(p.identHint, maxIdentHint)
			p.identHint = 0
		}
		p.idents = make([]ast.Ident, n)
	}
	id := &p.idents[0]
	p.idents = p.idents[1:]
	return id
}

// errIdent reads Spark's errorCapturingIdentifier: an identifier after
// which a - and another word mean a name that needed backquotes.
func (p *parser) errIdent(m identMode) *ast.Ident {
	id := p.ident(m)
	if p.tok().Kind == lex.Minus && p.canIdent(p.peek(1), anyIdent) && p.peek(1).Kind == lex.Ident {
		start := id.Start
		end := id.End
		for p.tok().Kind == lex.Minus && p.peek(1).Kind == lex.Ident {
			end = p.peek(1).End
			p.pos += 2
		}
		text := p.src[start:end]
		p.failRange(ast.Range{Start: start, End: end}, "INVALID_IDENTIFIER",
			"invalid identifier "+text+": a name with '-' must be quoted with backquotes: `"+text+"`")
	}
	return id
}

// multipart reads a dotted name of error-capturing identifiers
// (multipartIdentifier).
func (p *parser) multipart() *ast.Name {
	start := p.tok().Start
	n := p.newName()
	n.Parts = append(n.Parts, p.errIdent(anyIdent))
	for p.tok().Kind == lex.Dot && p.canIdent(p.peek(1), anyIdent) {
		p.pos++
		n.Parts = append(n.Parts, p.errIdent(anyIdent))
	}
	n.Range = p.rangeFrom(start)
	return n
}

// qualifiedName reads identifier (. identifier)*.
func (p *parser) qualifiedName() *ast.Name {
	start := p.tok().Start
	n := &ast.Name{Parts: []*ast.Ident{p.ident(anyIdent)}}
	for p.tok().Kind == lex.Dot && p.canIdent(p.peek(1), anyIdent) {
		p.pos++
		n.Parts = append(n.Parts, p.ident(anyIdent))
	}
	n.Range = p.rangeFrom(start)
	return n
}

// identifierReference reads IDENTIFIER(expr) or a multipart name.
func (p *parser) identifierReference() *ast.Name {
	return p.multipart()
}

// identList reads ( ident, ... ).
func (p *parser) identList() []*ast.Ident {
	p.expectKind(lex.LeftParen)
	ids := p.identSeq()
	p.expectKind(lex.RightParen)
	return ids
}

// identSeq reads ident, ident, ...
func (p *parser) identSeq() []*ast.Ident {
	ids := []*ast.Ident{p.errIdent(anyIdent)}
	for p.acceptKind(lex.Comma) {
		ids = append(ids, p.errIdent(anyIdent))
	}
	return ids
}

// multipartList reads name, name, ...
func (p *parser) multipartList() []*ast.Name {
	ns := []*ast.Name{p.multipart()}
	for p.acceptKind(lex.Comma) {
		ns = append(ns, p.multipart())
	}
	return ns
}

// isStringTok reports whether t is a string literal in the current mode.
func (p *parser) isStringTok(t lex.Token) bool {
	return t.Kind == lex.String || (t.Kind == lex.DoubleQuotedString && !p.opts.DoubleQuotedIdentifiers)
}

// stringLit reads one or more adjacent string literals (stringLit).
func (p *parser) stringLit() *ast.StringLit {
	t := p.tok()
	if !p.isStringTok(t) {
		p.fail("a string literal")
	}
	s := &ast.StringLit{DoubleQuoted: t.Kind == lex.DoubleQuotedString}
	for p.isStringTok(p.tok()) {
		u := p.next()
		v, err := lex.Unquote(u)
		if err != nil {
			p.failAt(u, "", "invalid string literal: "+err.Error())
		}
		s.Value += v
		s.Parts = append(s.Parts, ast.Range{Start: u.Start, End: u.End})
	}
	s.Range = p.rangeFrom(t.Start)
	return s
}

// singleString reads exactly one string literal (no concatenation).
func (p *parser) singleString() *ast.StringLit {
	t := p.tok()
	if !p.isStringTok(t) {
		p.fail("a string literal")
	}
	p.pos++
	v, err := lex.Unquote(t)
	if err != nil {
		p.failAt(t, "", "invalid string literal: "+err.Error())
	}
	r := ast.Range{Start: t.Start, End: t.End}
	return &ast.StringLit{Range: r, Value: v, DoubleQuoted: t.Kind == lex.DoubleQuotedString, Parts: []ast.Range{r}}
}

// integer reads an INTEGER_VALUE (or a parameter marker) as an expression.
func (p *parser) integer() ast.Expr {
	t := p.tok()
	switch {
	case t.Kind == lex.Integer:
		p.pos++
		return &ast.Literal{Range: ast.Range{Start: t.Start, End: t.End}, Kind: ast.LitInteger, Text: t.Text}
	case t.Kind == lex.Question || (t.Kind == lex.Colon && p.peek(1).Kind == lex.Ident):
		return p.param()
	}
	p.fail("an integer")
	return nil
}

// intValue reads an INTEGER_VALUE as an int (for type parameters).
func (p *parser) intValue() int {
	t := p.expectKind(lex.Integer)
	n := 0
	for i := 0; i < len(t.Text); i++ {
		n = n*10 + int(t.Text[i]-'0')
		if n > 1<<30 {
			p.failAt(t, "", "integer "+t.Text+" is too large here")
		}
	}
	return n
}

// param reads ? or :name.
func (p *parser) param() ast.Expr {
	t := p.next()
	if t.Kind == lex.Question {
		return &ast.Param{Range: ast.Range{Start: t.Start, End: t.End}}
	}
	id := p.ident(anyIdent)
	return &ast.Param{Range: p.rangeFrom(t.Start), Name: id.Name}
}

// propertyList reads ( key [=] value, ... ) of TBLPROPERTIES and WITH
// options; values are literals unless exprValues.
func (p *parser) propertyList(exprValues bool) []*ast.Property {
	p.expectKind(lex.LeftParen)
	var props []*ast.Property
	for {
		start := p.tok().Start
		pr := &ast.Property{}
		if p.isStringTok(p.tok()) {
			// 'a' 'b' = v has the key 'ab'; 'a' 'b' has the key 'a' and
			// the value 'b'.
			n := 0
			for p.isStringTok(p.peek(n)) {
				n++
			}
			var s *ast.StringLit
			if p.peek(n).Kind == lex.Eq {
				s = p.stringLit()
			} else {
				s = p.singleString()
			}
			pr.Key, pr.KeyRange = s.Value, s.Range
		} else {
			n := &ast.Name{Parts: []*ast.Ident{p.errIdent(anyIdent)}}
			for p.acceptKind(lex.Dot) {
				n.Parts = append(n.Parts, p.errIdent(anyIdent))
			}
			n.Range = p.rangeFrom(start)
			pr.Key, pr.KeyRange = n.String(), n.Range
		}
		eq := p.acceptKind(lex.Eq)
		if eq || (p.tok().Kind != lex.Comma && p.tok().Kind != lex.RightParen) {
			if exprValues {
				pr.Value = p.expr()
			} else {
				pr.Value = p.propertyValue()
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

// propertyValue reads INTEGER_VALUE | DECIMAL_VALUE | TRUE | FALSE |
// string.
func (p *parser) propertyValue() ast.Expr {
	t := p.tok()
	switch {
	case t.Kind == lex.Integer:
		p.pos++
		return &ast.Literal{Range: ast.Range{Start: t.Start, End: t.End}, Kind: ast.LitInteger, Text: t.Text}
	case t.Kind == lex.Decimal:
		p.pos++
		return &ast.Literal{Range: ast.Range{Start: t.Start, End: t.End}, Kind: ast.LitDecimal, Text: t.Text}
	case isKw(t, "TRUE"), isKw(t, "FALSE"):
		p.pos++
		k := ast.LitTrue
		if isKw(t, "FALSE") {
			k = ast.LitFalse
		}
		return &ast.Literal{Range: ast.Range{Start: t.Start, End: t.End}, Kind: k, Text: t.Text}
	case p.isStringTok(t):
		s := p.stringLit()
		return &ast.Literal{Range: s.Range, Kind: ast.LitString, Text: t.Text, Str: s}
	}
	p.fail("a property value (a string, number or boolean)")
	return nil
}
