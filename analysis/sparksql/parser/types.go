package parser

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// trivialTypes are the primitive types without parameters.
var trivialTypes = map[string]bool{"BOOLEAN": true, "TINYINT": true, "BYTE": true,
	"SMALLINT": true, "SHORT": true, "INT": true, "INTEGER": true, "BIGINT": true, "LONG": true,
	"FLOAT": true, "REAL": true, "DOUBLE": true, "DATE": true, "TIMESTAMP_LTZ": true,
	"TIMESTAMP_NTZ": true, "BINARY": true, "VOID": true, "VARIANT": true}

// dataType reads a data type.
func (p *parser) dataType() *ast.DataType {
	p.enter()
	defer p.leave()
	t := p.tok()
	start := t.Start
	if t.Kind != lex.Ident && t.Kind != lex.QuotedIdent {
		p.fail("a data type")
	}
	kw := ""
	if t.Kind == lex.Ident {
		kw = t.Keyword.Token()
	}
	dt := &ast.DataType{Name: strings.ToUpper(t.Text)}
	p.pos++
	switch kw {
	case "ARRAY":
		dt.Name = "ARRAY"
		if p.acceptKind(lex.Lt) {
			dt.Elem = p.dataType()
			p.expectKind(lex.Gt)
		}
	case "MAP":
		dt.Name = "MAP"
		if p.acceptKind(lex.Lt) {
			dt.Key = p.dataType()
			p.expectKind(lex.Comma)
			dt.Value = p.dataType()
			p.expectKind(lex.Gt)
		}
	case "STRUCT":
		dt.Name = "STRUCT"
		if p.acceptKind(lex.NotEq) {
			break
		}
		if p.acceptKind(lex.Lt) {
			if p.tok().Kind != lex.Gt {
				for {
					dt.Fields = append(dt.Fields, p.structField())
					if !p.acceptKind(lex.Comma) {
						break
					}
				}
			}
			p.expectKind(lex.Gt)
		}
	case "STRING":
		if p.at("COLLATE") {
			p.pos++
			n := p.multipart()
			dt.Qualifier = "COLLATE " + n.String()
		}
	case "CHARACTER", "CHAR", "VARCHAR":
		if p.acceptKind(lex.LeftParen) {
			dt.Params = []int{p.intValue()}
			p.expectKind(lex.RightParen)
		}
	case "DECIMAL", "DEC", "NUMERIC":
		if p.acceptKind(lex.LeftParen) {
			dt.Params = []int{p.intValue()}
			if p.acceptKind(lex.Comma) {
				dt.Params = append(dt.Params, p.intValue())
			}
			p.expectKind(lex.RightParen)
		}
	case "INTERVAL":
		u := p.tok()
		switch uk := u.Keyword.Token(); {
		case u.Kind == lex.Ident && (uk == "YEAR" || uk == "MONTH"):
			p.pos++
			dt.Qualifier = strings.ToUpper(u.Text)
			if p.at("TO") {
				p.pos++
				to := p.expect("MONTH")
				dt.Qualifier += " TO " + strings.ToUpper(to.Text)
			}
		case u.Kind == lex.Ident && (uk == "DAY" || uk == "HOUR" || uk == "MINUTE" || uk == "SECOND"):
			p.pos++
			dt.Qualifier = strings.ToUpper(u.Text)
			if p.at("TO") {
				p.pos++
				to := p.tok()
				if tk := to.Keyword.Token(); to.Kind != lex.Ident || (tk != "HOUR" && tk != "MINUTE" && tk != "SECOND") {
					p.fail("HOUR, MINUTE or SECOND")
				}
				p.pos++
				dt.Qualifier += " TO " + strings.ToUpper(to.Text)
			}
		}
	case "TIMESTAMP":
		if p.atSeq("WITHOUT", "TIME", "ZONE") {
			p.pos += 3
			dt.Qualifier = "WITHOUT TIME ZONE"
		}
	case "TIME":
		if p.acceptKind(lex.LeftParen) {
			dt.Params = []int{p.intValue()}
			p.expectKind(lex.RightParen)
		}
		if p.atSeq("WITHOUT", "TIME", "ZONE") {
			p.pos += 3
			dt.Qualifier = "WITHOUT TIME ZONE"
		}
	case "GEOGRAPHY", "GEOMETRY":
		p.expectKind(lex.LeftParen)
		if p.accept("ANY") {
			dt.Qualifier = "ANY"
		} else {
			dt.Params = []int{p.intValue()}
		}
		p.expectKind(lex.RightParen)
	default:
		if trivialTypes[kw] {
			break
		}
		// unsupportedType=identifier (LEFT_PAREN integer (, integer)* RIGHT_PAREN)?
		if t.Kind == lex.QuotedIdent || !p.canIdent(t, anyIdent) {
			p.pos--
			p.fail("a data type")
		}
		if p.acceptKind(lex.LeftParen) {
			dt.Params = []int{p.intValue()}
			for p.acceptKind(lex.Comma) {
				dt.Params = append(dt.Params, p.intValue())
			}
			p.expectKind(lex.RightParen)
		}
		dt.Range = p.rangeFrom(start)
		p.failRange(dt.Range, "UNSUPPORTED_DATATYPE", "unsupported data type "+p.src[dt.Start:dt.End]+
			" (Spark's types: BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), STRING, "+
			"CHAR(n), VARCHAR(n), BINARY, DATE, TIMESTAMP, TIMESTAMP_NTZ, INTERVAL, ARRAY<t>, MAP<k, v>, STRUCT<...>, VARIANT)")
	}
	dt.Range = p.rangeFrom(start)
	return dt
}

// structField reads name [:] type [NOT NULL] [COMMENT '...'].
func (p *parser) structField() *ast.StructField {
	start := p.tok().Start
	f := &ast.StructField{Name: p.errIdent(anyIdent)}
	p.acceptKind(lex.Colon)
	f.Type = p.dataType()
	if (p.at("NOT") || p.tok().Kind == lex.Bang) && isKw(p.peek(1), "NULL") {
		p.pos += 2
		f.NotNull = true
	}
	if p.accept("COMMENT") {
		f.Comment = p.stringLit()
	}
	f.Range = p.rangeFrom(start)
	return f
}
