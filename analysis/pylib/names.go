package pylib

import (
	"fmt"
	"regexp"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// This file reads what the module's imports bind: the functions of
// pyspark.sql.functions under their own or another local name (from
// pyspark.sql.functions import sum as _sum; import pyspark.sql.functions
// as F; from pyspark.sql import functions as F), the DataType classes of
// pyspark.sql.types, and the names other modules give, which are no
// pyspark functions.

// Modules a body's Column expressions come from.
const (
	modFunctions = "pyspark.sql.functions"
	modTypes     = "pyspark.sql.types"
)

// importNames are the module-level bindings of imports.
type importNames struct {
	// funcs maps a local name imported from pyspark.sql.functions to
	// the function's own name (_sum: sum); funcMods are the local names
	// of the functions module itself (F).
	funcs    map[string]string
	funcMods map[string]bool
	// types maps a local name imported from pyspark.sql.types to the
	// class's name; typeMods are the local names of the module (T).
	types    map[string]string
	typeMods map[string]bool
	// foreign are local names another module binds (from helpers
	// import clean; import numpy as np): not pyspark's functions.
	foreign map[string]string
}

// bindName records one local name an import binds.
func (n *importNames) bindName(local, module, name string) {
	if n.funcs == nil {
		n.funcs, n.funcMods, n.types, n.typeMods, n.foreign = map[string]string{}, map[string]bool{}, map[string]string{}, map[string]bool{}, map[string]string{}
	}
	delete(n.funcs, local)
	delete(n.funcMods, local)
	delete(n.types, local)
	delete(n.typeMods, local)
	delete(n.foreign, local)
	switch {
	case module == modFunctions && name == "":
		n.funcMods[local] = true
	case module == modTypes && name == "":
		n.typeMods[local] = true
	case module == modFunctions:
		n.funcs[local] = name
	case module == modTypes:
		n.types[local] = name
	case module == "pyspark.sql" && name == "functions":
		n.funcMods[local] = true
	case module == "pyspark.sql" && name == "types":
		n.typeMods[local] = true
	default:
		if name != "" {
			module += "." + name
		}
		n.foreign[local] = module
	}
}

// importModule records `import mod` and `import mod as alias`.
func (r *reader) importModule(mod string, alias *sitter.Node) {
	if alias != nil {
		r.imp.bindName(r.srcOf(alias), mod, "")
		return
	}
	if !strings.Contains(mod, ".") {
		r.imp.bindName(mod, mod, "")
	}
	// import pyspark.sql.functions binds pyspark, used through the full
	// dotted path (funcName reads it).
}

// importFrom records `from mod import a, b as c` (and a wildcard import
// of pyspark.sql.functions, whose names are then the functions').
func (r *reader) importFrom(mod string, st *sitter.Node) {
	for _, c := range children(st)[1:] {
		if c.Kind() == "wildcard_import" {
			continue // every name may be the module's: read as before
		}
		name, alias := c, (*sitter.Node)(nil)
		if c.Kind() == "aliased_import" {
			name, alias = c.ChildByFieldName("name"), c.ChildByFieldName("alias")
		}
		if name == nil {
			continue
		}
		local := dottedName(r, name)
		if alias != nil {
			local = r.srcOf(alias)
		}
		r.imp.bindName(local, mod, dottedName(r, name))
	}
}

// funcName is the pyspark.sql.functions function a call's callee names:
// a bare name (imported from the module, under its own name or another),
// an attribute of a local name of the module (F.col), or the full path
// (pyspark.sql.functions.col). ok is false for a method of spark, of a
// pipelines module or of a DataFrame, and for a name another module's
// import binds. A name no import binds (a wildcard import's, or a file
// that does not import it) is read as the function of that name.
func (r *reader) funcName(fn *sitter.Node) (string, bool) {
	fn = unparen(fn)
	if fn == nil {
		return "", false
	}
	switch fn.Kind() {
	case "identifier":
		local := r.srcOf(fn)
		if f, ok := r.imp.funcs[local]; ok {
			return f, true
		}
		if _, ok := r.imp.foreign[local]; ok {
			return "", false
		}
		if _, ok := r.imp.types[local]; ok {
			return "", false
		}
		return local, true
	case "attribute":
		attr := r.srcOf(fn.ChildByFieldName("attribute"))
		obj := unparen(fn.ChildByFieldName("object"))
		if obj == nil {
			return "", false
		}
		if r.dotted(obj) == modFunctions {
			return attr, true
		}
		if obj.Kind() != "identifier" || r.srcOf(obj) == "spark" {
			return "", false
		}
		mod := r.srcOf(obj)
		if _, isAPI := r.aliases[mod]; isAPI {
			return "", false
		}
		if r.imp.funcMods[mod] {
			return attr, true
		}
		if _, ok := r.imp.foreign[mod]; ok || r.imp.typeMods[mod] {
			return "", false
		}
		if _, ok := r.imp.funcs[mod]; ok {
			return "", false
		}
		return attr, true
	}
	return "", false
}

// typeName is the DataType class a callee names (DecimalType, T.LongType,
// pyspark.sql.types.DateType), or "".
func (r *reader) typeName(fn *sitter.Node) string {
	fn = unparen(fn)
	if fn == nil {
		return ""
	}
	switch fn.Kind() {
	case "identifier":
		local := r.srcOf(fn)
		if t, ok := r.imp.types[local]; ok {
			return t
		}
		if _, ok := r.imp.foreign[local]; ok {
			return ""
		}
		if _, ok := simpleTypes[local]; ok || local == "DecimalType" {
			return local // a wildcard import's
		}
	case "attribute":
		obj := unparen(fn.ChildByFieldName("object"))
		attr := r.srcOf(fn.ChildByFieldName("attribute"))
		if obj != nil && (r.dotted(obj) == modTypes || obj.Kind() == "identifier" && r.imp.typeMods[r.srcOf(obj)]) {
			return attr
		}
	}
	return ""
}

// simpleTypes are pyspark.sql.types' classes of no argument and the
// Spark SQL type each stands for.
var simpleTypes = map[string]string{
	"StringType": "STRING", "IntegerType": "INT", "LongType": "BIGINT", "ShortType": "SMALLINT", "ByteType": "TINYINT",
	"DoubleType": "DOUBLE", "FloatType": "FLOAT", "BooleanType": "BOOLEAN", "DateType": "DATE",
	"TimestampType": "TIMESTAMP", "TimestampNTZType": "TIMESTAMP_NTZ", "BinaryType": "BINARY",
}

// ddlType matches a type written as a DDL string that Thund passes to
// CAST as it is: a name, optionally with numbers (decimal(10,2)), or a
// nested type of such names (array<int>, map<string,int>).
var ddlType = regexp.MustCompile(`^\s*[A-Za-z_][A-Za-z0-9_]*\s*(\(\s*\d+\s*(,\s*\d+\s*)?\))?\s*$|^\s*[A-Za-z_][A-Za-z0-9_]*\s*<[A-Za-z0-9_<>,:() ]*>\s*$`)

// castType reads a cast's argument as a Spark SQL type: a DDL string
// ("decimal(10,2)", "int") or a DataType instance (DecimalType(10, 2),
// LongType()); the reason is set when it is neither.
func (r *reader) castType(n *sitter.Node) (string, string) {
	if t, ok := r.literal(n); ok {
		if !ddlType.MatchString(t.Value) {
			return "", fmt.Sprintf("%q is not a type Thund reads (a type name such as \"int\" or \"decimal(10,2)\")", t.Value)
		}
		return strings.TrimSpace(t.Value), ""
	}
	fn, args, kw, _, ok := r.call(r.constant(n))
	if !ok {
		return "", fmt.Sprintf("%s is not a type Thund reads (a DDL string, or a DataType such as DecimalType(10, 2))", clip(r.srcOf(n)))
	}
	name := r.typeName(fn)
	if t, ok := simpleTypes[name]; ok {
		if len(args) > 0 || len(kw) > 0 {
			return "", fmt.Sprintf("%s() takes no argument", name)
		}
		return t, ""
	}
	if name != "DecimalType" {
		return "", fmt.Sprintf("%s is not a type Thund reads (a DDL string, or one of pyspark.sql.types' scalar types)", clip(r.srcOf(n)))
	}
	// DecimalType(precision=10, scale=0), as pyspark defines it.
	p, s := int64(10), int64(0)
	if a := arg(args, kw, 0, "precision"); a != nil {
		v, ok := r.integer(a)
		if !ok {
			return "", "DecimalType is given a precision computed at run time"
		}
		p = v
	}
	if a := arg(args, kw, 1, "scale"); a != nil {
		v, ok := r.integer(a)
		if !ok {
			return "", "DecimalType is given a scale computed at run time"
		}
		s = v
	}
	if len(args) > 2 || p < 1 || p > 38 || s < 0 || s > p {
		return "", fmt.Sprintf("DecimalType(%d, %d) is not a decimal type Spark has (precision 1 to 38, scale 0 to the precision)", p, s)
	}
	return fmt.Sprintf("DECIMAL(%d,%d)", p, s), ""
}

// assignedNames are the names a function body assigns (a local variable
// shadows the module's constant of its name), nested functions aside.
func (r *reader) assignedNames(body *sitter.Node) map[string]bool {
	out := map[string]bool{}
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		switch n.Kind() {
		case "function_definition", "class_definition", "lambda":
			return
		case "assignment", "augmented_assignment", "for_statement", "named_expression":
			field := "left"
			if n.Kind() == "named_expression" {
				field = "name"
			}
			if l := n.ChildByFieldName(field); l != nil {
				r.targetNames(l, out)
			}
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i))
		}
	}
	for _, st := range children(body) {
		walk(st)
	}
	return out
}

// targetNames adds the identifiers an assignment's target binds.
func (r *reader) targetNames(n *sitter.Node, out map[string]bool) {
	switch n.Kind() {
	case "identifier":
		out[r.srcOf(n)] = true
	case "pattern_list", "tuple_pattern", "list_pattern", "tuple", "list":
		for _, c := range children(n) {
			r.targetNames(c, out)
		}
	}
}
