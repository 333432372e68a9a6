package parser

import (
	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// otherStatement reads a statement that is not a query, CREATE of a
// table, view, dataset or flow, INSERT, SET or USE. Not every such
// statement of Spark's grammar is read yet: the rest is reported with
// class THUND_UNSUPPORTED (see docs/conformance.md).
func (p *parser) otherStatement() ast.Stmt {
	t := p.tok()
	p.failRange(tokRange(t), "THUND_UNSUPPORTED", "Thund does not read "+t.Text+" statements yet")
	return nil
}
