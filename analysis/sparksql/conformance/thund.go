package conformance

import (
	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

// Thund is Thund's parser as the harness calls it: one statement, under
// the parser options the settings give (Spark 4.1's grammar).
func Thund(src string, s Settings) []*ast.SyntaxError {
	_, errs := parser.ParseStatement(src, Options(s))
	return errs
}

// Options are the parser options for s: keywords reserved when Spark
// reserves them, double-quoted identifiers when Spark reads them so.
func Options(s Settings) parser.Options {
	return parser.Options{ANSI: s.Reserved(), DoubleQuotedIdentifiers: s.DoubleQuotedIdentifiers()}
}
