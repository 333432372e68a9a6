package parser

// The checks of this file are the ones Spark's AstBuilder makes on
// predicates and clauses once the grammar has read them.

import (
	"strconv"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// checkLikeList refuses LIKE ANY () and its kin with an empty list, which
// the grammar reads and Spark then refuses.
func (p *parser) checkLikeList(lk *ast.Like) {
	if lk.Quantifier != "" && len(lk.Patterns) == 0 {
		p.failRange(lk.Range, "_LEGACY_ERROR_TEMP_0064", lk.Op+" "+lk.Quantifier+
			" () has no pattern: write at least one between the parentheses, as in "+lk.Op+" "+lk.Quantifier+" ('a%', 'b%')")
	}
}

// checkSamplePercent refuses TABLESAMPLE (n PERCENT) with n outside 0 to
// 100.
func (p *parser) checkSamplePercent(v *ast.Literal) {
	f, err := strconv.ParseFloat(v.Text, 64)
	if err != nil || f < 0 || f > 100 {
		p.failRange(v.Range, "_LEGACY_ERROR_TEMP_0064", "a sample of "+v.Text+
			" PERCENT is outside 0 to 100: write a percentage from 0 to 100")
	}
}

// bucketOn reads the ON part of TABLESAMPLE (BUCKET x OUT OF y ON ...),
// which Spark's grammar allows as a name or a call with no arguments, and
// which its AST builder then refuses either way.
func (p *parser) bucketOn(s *ast.Sample) {
	on := p.next()
	start := p.tok().Start
	what := "colname"
	if p.canIdent(p.tok(), anyIdent) && p.peek(1).Kind != lex.LeftParen && p.peek(1).Kind != lex.Dot {
		id := p.ident(anyIdent)
		s.On = &ast.Column{Range: id.Range, Parts: []*ast.Ident{id}}
	} else {
		n := p.qualifiedName()
		p.expectKind(lex.LeftParen)
		p.expectKind(lex.RightParen)
		s.On = &ast.Call{Range: p.rangeFrom(start), Name: n}
		what = "function"
	}
	if p.tok().Kind != lex.RightParen {
		p.fail("')'")
	}
	p.failRange(ast.Range{Start: on.Start, End: p.prevEnd()}, "_LEGACY_ERROR_TEMP_0015",
		"TABLESAMPLE(BUCKET x OUT OF y ON "+what+") is not supported: leave out ON")
}

// checkBucketFraction refuses TABLESAMPLE (BUCKET x OUT OF y) with x/y
// outside 0 to 1, as Spark does.
func (p *parser) checkBucketFraction(s *ast.Sample) {
	x, ok1 := s.Value.(*ast.Literal)
	y, ok2 := s.Denominator.(*ast.Literal)
	if !ok1 || !ok2 {
		return
	}
	num, err1 := strconv.ParseFloat(x.Text, 64)
	den, err2 := strconv.ParseFloat(y.Text, 64)
	if err1 != nil || err2 != nil {
		return
	}
	if den == 0 || num > den {
		p.failRange(ast.Range{Start: x.Start, End: y.End}, "_LEGACY_ERROR_TEMP_0064", "a sample of bucket "+x.Text+
			" out of "+y.Text+" is a fraction outside 0 to 1: the bucket must be at most the number of buckets")
	}
}
