package translate

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// namedParam is one parameter of a function that takes its arguments by
// name too: its name and, for an optional one, the string literal Spark
// takes when it is not given (nil: required; "" with null set: NULL).
type namedParam struct {
	name string
	def  *string
	null bool
}

func str(s string) *string { return &s }

// namedParams are the parameters of the functions whose named arguments
// (f(x => 1)) are read here, in order (Spark's ExpressionBuilder
// signatures).
var namedParams = map[string][]namedParam{
	"mask": {{name: "str"}, {name: "upperChar", def: str("X")}, {name: "lowerChar", def: str("x")}, {name: "digitChar", def: str("n")}, {name: "otherChar", null: true}},
}

// hasNamedArg reports whether a call passes an argument by name.
func hasNamedArg(c *ast.Call) bool {
	for _, a := range c.Args {
		if na, ok := a.(*ast.NamedArg); ok && na.Name != nil {
			return true
		}
	}
	return false
}

// positional rewrites a call with named arguments into one with its
// arguments in the parameters' order, the omitted optional ones as
// Spark's defaults; a call Spark rejects (a positional argument after a
// named one, a name given twice or unknown, a required parameter
// missing) is refused.
func (t *tr) positional(c *ast.Call, params []namedParam) (*ast.Call, bool) {
	name := strings.ToLower(c.Name.String())
	args := make([]ast.Expr, len(params))
	named := false
	for i, a := range c.Args {
		na, ok := a.(*ast.NamedArg)
		if !ok || na.Name == nil {
			if named {
				t.refuse(a, "Spark rejects a positional argument after a named one in %s (UNEXPECTED_POSITIONAL_ARGUMENT)", name)
				return nil, false
			}
			if i >= len(params) {
				t.refuse(c, "%s takes %d arguments at most", name, len(params))
				return nil, false
			}
			args[i] = a
			continue
		}
		named = true
		k := -1
		for j, p := range params {
			if strings.EqualFold(p.name, na.Name.Name) {
				k = j
			}
		}
		switch {
		case k < 0:
			t.refuse(na.Name, "%s has no parameter %s (Spark's UNRECOGNIZED_PARAMETER_NAME)", name, na.Name.Name)
			return nil, false
		case args[k] != nil:
			t.refuse(na.Name, "the parameter %s of %s is given twice (Spark's DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT)", na.Name.Name, name)
			return nil, false
		}
		args[k] = na.Value
	}
	for j, p := range params {
		if args[j] != nil {
			continue
		}
		switch {
		case p.def != nil:
			args[j] = &ast.Literal{Range: c.Range, Kind: ast.LitString, Text: quoteString(*p.def), Str: &ast.StringLit{Range: c.Range, Value: *p.def}}
		case p.null:
			args[j] = &ast.Literal{Range: c.Range, Kind: ast.LitNull, Text: "NULL"}
		default:
			t.refuse(c, "%s needs its parameter %s (Spark's REQUIRED_PARAMETER_NOT_FOUND)", name, p.name)
			return nil, false
		}
	}
	out := *c
	out.Args = args
	return &out, true
}
