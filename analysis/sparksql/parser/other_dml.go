package parser

import (
	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// dmlAlias reads the table alias of DELETE, UPDATE or MERGE, recording
// Spark's refusal of column aliases there.
func (p *parser) dmlAlias(c *cmd, op string) *ast.TableAlias {
	a := p.tableAlias()
	if a != nil && len(a.Columns) > 0 {
		c.refuse(a.Range, "COLUMN_ALIASES_NOT_ALLOWED",
			"the alias of the table of "+op+" cannot name columns: write "+a.Name.Name+" without ("+a.Columns[0].Name+", ...)")
	}
	return a
}

// deleteCmd reads DELETE FROM t [alias] [WHERE cond].
func (p *parser) deleteCmd(c *cmd) {
	c.o.Kind = "DELETE FROM"
	p.pos++
	p.expect("FROM")
	c.name()
	p.dmlAlias(c, "DELETE")
	if p.accept("WHERE") {
		c.expr()
	}
}

// updateCmd reads UPDATE t [alias] SET col = expr, ... [WHERE cond].
func (p *parser) updateCmd(c *cmd) {
	c.o.Kind = "UPDATE"
	p.pos++
	c.name()
	rest := func(c *cmd) {
		p.expect("SET")
		p.assignments(c)
		if p.accept("WHERE") {
			c.expr()
		}
	}
	withAlias := func(c *cmd) {
		p.dmlAlias(c, "UPDATE")
		rest(c)
	}
	if p.at("SET") {
		p.alts(c, rest, withAlias)
		return
	}
	withAlias(c)
}

// assignments reads col = expr, ...; the columns and values go to Exprs.
func (p *parser) assignments(c *cmd) {
	for {
		c.column(p.multipart())
		p.expectKind(lex.Eq)
		c.expr()
		if !p.acceptKind(lex.Comma) {
			return
		}
	}
}

// mergeCmd reads MERGE [WITH SCHEMA EVOLUTION] INTO t [alias] USING s |
// (query) [alias] ON cond, then its WHEN MATCHED, WHEN NOT MATCHED [BY
// TARGET] and WHEN NOT MATCHED BY SOURCE clauses, in that order.
func (p *parser) mergeCmd(c *cmd) {
	c.o.Kind = "MERGE INTO"
	p.pos++
	p.acceptSeq("WITH", "SCHEMA", "EVOLUTION")
	p.expect("INTO")
	c.name()
	c.rank = 6
	p.dmlAlias(c, "MERGE")
	p.expect("USING")
	if p.acceptKind(lex.LeftParen) {
		c.query()
		p.expectKind(lex.RightParen)
	} else {
		c.name()
	}
	c.rank = 0
	p.dmlAlias(c, "MERGE")
	p.expect("ON")
	c.expr()
	phase := 0
	var kinds [3][]bool // per kind of clause: whether each has a condition
	for p.at("WHEN") {
		start := p.tok().Start
		p.pos++
		kind := 0
		switch {
		case p.at("MATCHED"):
			p.pos++
		case p.atNot() && isKw(p.peek(1), "MATCHED"):
			p.pos += 2
			kind = 1
			if p.atSeq("BY", "SOURCE") {
				p.pos += 2
				kind = 2
			} else {
				p.acceptSeq("BY", "TARGET")
			}
		default:
			p.fail("MATCHED or NOT MATCHED")
		}
		if kind < phase {
			p.failAt(p.toks[p.indexAt(start)], "", "syntax error at or near 'WHEN': MERGE's clauses come in the order WHEN MATCHED, "+
				"WHEN NOT MATCHED [BY TARGET], WHEN NOT MATCHED BY SOURCE")
		}
		phase = kind
		cond := false
		if p.accept("AND") {
			c.expr()
			cond = true
		}
		kinds[kind] = append(kinds[kind], cond)
		p.expect("THEN")
		switch {
		case kind != 1 && p.at("DELETE"):
			p.pos++
		case kind != 1 && p.at("UPDATE"):
			p.pos++
			p.expect("SET")
			if kind == 0 && p.acceptKind(lex.Asterisk) {
				break
			}
			p.assignments(c)
		case kind == 1 && p.at("INSERT"):
			p.pos++
			if p.acceptKind(lex.Asterisk) {
				break
			}
			p.expectKind(lex.LeftParen)
			cols := p.multipartList()
			for _, n := range cols {
				c.column(n)
			}
			p.expectKind(lex.RightParen)
			p.expect("VALUES")
			p.expectKind(lex.LeftParen)
			vals := 0
			for {
				c.expr()
				vals++
				if !p.acceptKind(lex.Comma) {
					break
				}
			}
			p.expectKind(lex.RightParen)
			if vals != len(cols) {
				c.rank = 1
				c.refuse(p.rangeFrom(start), "_LEGACY_ERROR_TEMP_0006",
					"the INSERT of a WHEN NOT MATCHED clause names "+itoa(len(cols))+" columns and gives "+itoa(vals)+" values")
			}
		case kind == 1:
			p.fail("INSERT")
		default:
			p.fail("DELETE or UPDATE")
		}
	}
	if len(kinds[0])+len(kinds[1])+len(kinds[2]) == 0 {
		c.rank = 2
		c.refuse(c.whole(), "MERGE_WITHOUT_WHEN", "MERGE needs at least one WHEN clause")
	}
	classes := [3]string{"NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION", "NON_LAST_NOT_MATCHED_BY_TARGET_CLAUSE_OMIT_CONDITION",
		"NON_LAST_NOT_MATCHED_BY_SOURCE_CLAUSE_OMIT_CONDITION"}
	names := [3]string{"WHEN MATCHED", "WHEN NOT MATCHED", "WHEN NOT MATCHED BY SOURCE"}
	for k, conds := range kinds {
		for i := 0; i+1 < len(conds); i++ {
			if !conds[i] {
				c.rank = 3 + k
				c.refuse(c.whole(), classes[k], "when MERGE has several "+names[k]+" clauses, every one but the last needs a condition (AND ...)")
				break
			}
		}
	}
}
