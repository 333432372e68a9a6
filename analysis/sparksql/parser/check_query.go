package parser

// The checks of this file are the ones Spark's AstBuilder makes on
// predicates and clauses once the grammar has read them.

import (
	"strconv"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
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
