package sema

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// kind is the family of a Spark type the type checks tell apart: the
// implicit casts Spark makes stay inside a family, or start from a string.
type kind uint8

const (
	kUnknown kind = iota
	kNull
	kNumeric
	kString
	kBoolean
	kDate
	kTimestamp
	kBinary
	kArray
	kMap
	kStruct
	kInterval
)

var kindNames = [...]string{"?", "VOID", "a number", "STRING", "BOOLEAN", "DATE", "TIMESTAMP", "BINARY", "ARRAY", "MAP", "STRUCT", "INTERVAL"}

// kindOf returns the family of x's type when the model is sure of it: a
// literal, a typed literal, a cast, a column of a known type, or a call
// that certainly builds an array, a map or a struct.
func (a *analyzer) kindOf(x ast.Expr) kind {
	switch x := unparen(x).(type) {
	case *ast.Literal:
		switch x.Kind {
		case ast.LitNull:
			return kNull
		case ast.LitTrue, ast.LitFalse:
			return kBoolean
		case ast.LitString:
			return kString
		default:
			return kNumeric
		}
	case *ast.TypedLiteral:
		switch strings.ToUpper(x.Type) {
		case "DATE":
			return kDate
		case "TIMESTAMP", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ":
			return kTimestamp
		case "X":
			return kBinary
		}
	case *ast.Interval:
		return kInterval
	case *ast.Cast:
		if x.Type != nil {
			return typeKind(x.Type.Name)
		}
	case *ast.Column:
		if r := a.m.columns[x]; r != nil && r.Kind == RefColumn && !r.Tentative && r.NameParts == len(x.Parts) && r.typ != "" {
			t := strings.ToUpper(strings.TrimSpace(r.typ))
			if i := strings.IndexAny(t, "(<: "); i > 0 {
				t = t[:i]
			}
			return typeKind(t)
		}
	case *ast.Call:
		if n, builtin := funcName(x.Name); builtin && x.Over == nil {
			switch {
			case n == "array":
				return kArray
			case n == "map":
				return kMap
			case n == "struct" || n == "named_struct":
				return kStruct
			}
		}
	}
	return kUnknown
}

// typeKind returns the family of a type name (upper case).
func typeKind(name string) kind {
	switch name {
	case "TINYINT", "BYTE", "SMALLINT", "SHORT", "INT", "INTEGER", "BIGINT", "LONG", "FLOAT", "REAL", "DOUBLE",
		"DECIMAL", "DEC", "NUMERIC":
		return kNumeric
	case "STRING", "VARCHAR", "CHAR":
		return kString
	case "BOOLEAN":
		return kBoolean
	case "DATE":
		return kDate
	case "TIMESTAMP", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ":
		return kTimestamp
	case "BINARY":
		return kBinary
	case "ARRAY":
		return kArray
	case "MAP":
		return kMap
	case "STRUCT":
		return kStruct
	case "VOID":
		return kNull
	}
	return kUnknown
}

// Error classes of the type checks.
const (
	CodeBinaryOpWrongType   = "DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE"
	CodeUnexpectedInputType = "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"
	CodeDataDiffTypes       = "DATATYPE_MISMATCH.DATA_DIFF_TYPES"
	CodeCastInvalidInput    = "CAST_INVALID_INPUT"
)

func init() {
	for _, c := range []string{CodeBinaryOpWrongType, CodeUnexpectedInputType, CodeDataDiffTypes, CodeCastInvalidInput} {
		Codes[c] = true
	}
}

// binaryTypes checks + and - of a string with a type Spark does not add
// a string to: BINARY and BOOLEAN (either operator), TIMESTAMP (+; '1'
// is no interval), DATE (+, which Spark reads as date_add and wants a
// number of days).
func (a *analyzer) binaryTypes(x *ast.Binary) {
	if x.Op != "+" && x.Op != "-" {
		return
	}
	l, r := a.kindOf(x.L), a.kindOf(x.R)
	other := kUnknown
	switch {
	case l == kString:
		other = r
	case r == kString:
		other = l
	default:
		return
	}
	switch {
	case other == kBinary, other == kBoolean, other == kTimestamp && x.Op == "+":
		a.report(Diagnostic{Range: x.Range, Code: CodeBinaryOpWrongType,
			Message: "cannot " + map[string]string{"+": "add", "-": "subtract"}[x.Op] + " a STRING and " + kindNames[other] +
				" (" + quote(a.text(x)) + "): cast the operands to the type meant" + hintFor(other)})
	case other == kDate && x.Op == "+":
		a.report(Diagnostic{Range: x.Range, Code: CodeUnexpectedInputType,
			Message: "DATE + STRING (" + quote(a.text(x)) + ") adds a number of days, which a STRING is not: write date_add(d, n) with an INT, or d + INTERVAL ..."})
	}
}

func hintFor(k kind) string {
	if k == kTimestamp {
		return " (to add time to a TIMESTAMP, add an INTERVAL)"
	}
	return ""
}

// inTypes checks x IN (list): the values must be of one family
// (DATA_DIFF_TYPES). Nothing is said when a value is a STRING, whose
// cast Spark may insert, or of a type the model does not know.
func (a *analyzer) inTypes(x *ast.In) {
	if len(x.List) == 0 {
		return
	}
	first := a.kindOf(x.X)
	if first == kUnknown || first == kString || first == kNull {
		return
	}
	for _, y := range x.List {
		if k := a.kindOf(y); k == kUnknown || k == kString {
			return
		}
	}
	for _, y := range x.List {
		if k := a.kindOf(y); !comparable(first, k) {
			a.report(Diagnostic{Range: x.Range, Code: CodeDataDiffTypes,
				Message: "the values of IN must be of one type, and " + quote(a.text(x.X)) + " is " + kindNames[first] +
					" while " + quote(a.text(y)) + " is " + kindNames[k] + ": cast them to one type"})
			return
		}
	}
}

// comparable reports whether Spark finds a common type for two families
// without a cast written (a string, NULL or an unknown type may be cast).
func comparable(x, y kind) bool {
	switch {
	case x == kUnknown || y == kUnknown || x == kNull || y == kNull || x == kString || y == kString:
		return true
	case x == y:
		return true
	case (x == kDate && y == kTimestamp) || (x == kTimestamp && y == kDate):
		return true
	case x == kNumeric || x == kBoolean || x == kDate || x == kTimestamp || x == kBinary:
		return !(y == kNumeric || y == kBoolean || y == kDate || y == kTimestamp || y == kBinary)
	}
	return true
}

// callTypes checks the argument types of a few functions: sort_array's
// order is a BOOLEAN, array_size takes an ARRAY, and date_add and
// date_sub take a whole number of days (a STRING literal that is none
// fails the cast Spark inserts).
func (a *analyzer) callTypes(x *ast.Call) {
	n, builtin := funcName(x.Name)
	if !builtin || x.Over != nil {
		return
	}
	for _, arg := range x.Args {
		if _, named := arg.(*ast.NamedArg); named {
			return
		}
	}
	switch n {
	case "array":
		a.arrayOfStructs(x)
	case "sort_array":
		if len(x.Args) == 2 {
			if k := a.kindOf(x.Args[1]); k != kUnknown && k != kBoolean && k != kNull {
				a.report(Diagnostic{Range: x.Args[1].Span(), Code: CodeUnexpectedInputType,
					Message: "the second argument of sort_array is whether to sort ascending, a BOOLEAN, and " +
						quote(a.text(x.Args[1])) + " is " + kindNames[k] + ": write true or false"})
			}
		}
	case "array_size":
		if len(x.Args) == 1 {
			if k := a.kindOf(x.Args[0]); k != kUnknown && k != kArray && k != kNull {
				a.report(Diagnostic{Range: x.Args[0].Span(), Code: CodeUnexpectedInputType,
					Message: "array_size takes an ARRAY, and " + quote(a.text(x.Args[0])) + " is " + kindNames[k] +
						"; size() counts the entries of a MAP"})
			}
		}
	case "date_add", "date_sub", "dateadd":
		if len(x.Args) != 2 {
			return
		}
		l, ok := unparen(x.Args[1]).(*ast.Literal)
		if !ok || l.Kind != ast.LitString || l.Str == nil {
			return
		}
		v := strings.TrimSpace(l.Str.Value)
		if isInteger(v) {
			return
		}
		a.report(Diagnostic{Range: l.Range, Code: CodeCastInvalidInput,
			Message: "the number of days of " + n + " must be a whole number, and " + quote(l.Str.Value) +
				" cannot be cast to INT: write an integer"})
	}
}

// isInteger reports whether s is an optionally signed run of digits that
// fits an INT.
func isInteger(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" || len(s) > 10 {
		return false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
	}
	return n <= 1<<31
}

// arrayOfStructs checks array(struct(...), struct(...)): the elements must
// be of one type, and structs whose fields are named differently are not
// (struct(a, 'x') has fields a and col2, struct(b, 'y') b and col2).
func (a *analyzer) arrayOfStructs(x *ast.Call) {
	if len(x.Args) < 2 {
		return
	}
	var first []string
	for i, arg := range x.Args {
		c, ok := unparen(arg).(*ast.Call)
		if !ok || c.Over != nil {
			return
		}
		if n, builtin := funcName(c.Name); !builtin || n != "struct" {
			return
		}
		names := make([]string, len(c.Args))
		for j, fa := range c.Args {
			switch f := unparen(fa).(type) {
			case *ast.Column:
				last := f.Parts[len(f.Parts)-1]
				if last == nil || last.Expr != nil {
					return
				}
				names[j] = strings.ToLower(last.Name)
			case *ast.Literal, *ast.TypedLiteral:
				names[j] = "col" + strconv.Itoa(j+1)
			default:
				return // an alias or an expression: not modelled
			}
		}
		if i == 0 {
			first = names
			continue
		}
		if strings.Join(names, ",") != strings.Join(first, ",") {
			a.report(Diagnostic{Range: x.Range, Code: CodeDataDiffTypes,
				Message: "the elements of array() must be of one type, and " + quote(a.text(x.Args[0])) + " and " +
					quote(a.text(arg)) + " are structs with differently named fields (" + strings.Join(first, ", ") +
					" against " + strings.Join(names, ", ") + "): name the fields alike with named_struct"})
			return
		}
	}
}
