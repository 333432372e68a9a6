package translate

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
)

// aggregateState translates aggregate(arr, start, merge[, finish]) (and
// reduce) whose start value has another type than the array's elements.
// DuckDB's list_reduce keeps its state in the element type, so the
// reduction runs over structs of both: the first holds the start value,
// each next one an element, and the merge lambda reads the state as
// thund_acc.a and the element as thund_el.x. Spark's merge must give the
// start value's type (field names aside, which the state takes from the
// start value); a NULL array gives NULL.
func (t *tr) aggregateState(name string, c *ast.Call, arr, start frag) frag {
	elem, acc := arr.typ.Elem, start.typ
	if acc.duck() == "" || elem.duck() == "" || acc.is(Null) {
		t.refuse(c.Args[1], "%s with a start value of type %s over elements of type %s does not run natively", name, acc, elem)
		return null(c)
	}
	var merge frag
	switch m := c.Args[2].(type) {
	case *ast.Lambda:
		if !t.closedMerge(name, m) {
			return null(c)
		}
		if len(m.Params) != 2 {
			t.refuse(m, "%s's merge function takes the state and an element (acc, x) -> ...", name)
			return null(c)
		}
		body, _, ok := t.lambdaBody(m, []*Type{acc, elem}, -1, "(thund_acc.a)", "(thund_el.x)")
		if !ok {
			return null(c)
		}
		merge = body
	default:
		if !foldable(m) {
			t.refuse(m, "%s needs a lambda ((acc, x) -> ...) here", name)
			return null(c)
		}
		// Spark takes an expression as a lambda of two unused parameters.
		merge = t.expr(m)
	}
	state, ok := t.asState(merge, acc)
	if !ok {
		t.refuse(c.Args[2], "the merge function of %s gives a %s, and Spark wants the start value's type %s", name, merge.typ, acc)
		return null(c)
	}
	nullElem := "CAST(NULL AS " + elem.duck() + ")"
	nullAcc := "CAST(NULL AS " + acc.duck() + ")"
	steps := cat("list_prepend({'a': CAST(", start, " AS "+acc.duck()+"), 'x': "+nullElem+"}, list_transform(", arr, ", lambda thund_x: {'a': "+nullAcc+", 'x': thund_x}))")
	red := cat("CASE WHEN ", arr, " IS NULL THEN "+nullAcc+" ELSE list_reduce(", steps, ", lambda thund_acc, thund_el: {'a': ", state, ", 'x': "+nullElem+"}).a END")
	if len(c.Args) == 4 {
		fin, ok := t.hofLambda(name, c.Args[3], []*Type{acc}, -1)
		if !ok {
			return null(c)
		}
		return at(c, fin.typ, cat("list_transform([", red, "], ", fin, ")[1]"))
	}
	return at(c, acc, red)
}

// asState casts the merge function's value m to the state's type acc:
// the same type, or a struct of the same shape whose fields are named
// otherwise (Spark compares the types ignoring names), rebuilt with the
// state's names.
func (t *tr) asState(m frag, acc *Type) (frag, bool) {
	if !m.typ.known() {
		return frag{}, false
	}
	if m.typ.duck() == acc.duck() {
		return m, true
	}
	if m.typ.is(Null) {
		return cat("CAST(", m, " AS "+acc.duck()+")"), true
	}
	if !acc.is(Struct) || !m.typ.is(Struct) || len(acc.Fields) != len(m.typ.Fields) {
		return frag{}, false
	}
	parts := make([]frag, len(acc.Fields))
	for i, f := range acc.Fields {
		g := m.typ.Fields[i]
		if g.Type.duck() != f.Type.duck() && !g.Type.is(Null) {
			return frag{}, false
		}
		parts[i] = cat(quoteIdent(f.Name)+" := CAST((", m, ")."+quoteIdent(g.Name)+" AS "+f.Type.duck()+")")
	}
	return cat("struct_pack(", parts, ")"), true
}

// rowStruct translates a row (a, b AS n, ...) written as a value: Spark's
// struct of the items, each field named by its alias, by the column or
// field it reads (the last part of its name), else col1, col2, ...
func (t *tr) rowStruct(row *ast.Row) frag {
	st := &Type{Kind: Struct}
	fields := make([]frag, len(row.Items))
	for i, it := range row.Items {
		name := "col" + strconv.Itoa(i+1)
		switch x := it.X.(type) {
		case *ast.Column:
			name = x.Parts[len(x.Parts)-1].Name
		}
		if it.Alias != nil {
			name = it.Alias.Name
		}
		v := t.expr(it.X)
		st.Fields = append(st.Fields, Field{Name: name, Type: v.typ})
		fields[i] = cat(quoteIdent(name)+" := ", v)
	}
	return at(row, st, cat("struct_pack(", fields, ")"))
}

// constLambda translates an expression given where a function is
// expected: Spark takes it as a lambda whose parameters it does not read
// (transform(arr, 0) is [0, 0, ...]). The DuckDB lambda takes one
// parameter per type that has no render (thund_e when all have one).
func (t *tr) constLambda(x ast.Expr, types []*Type, renders ...string) frag {
	var names []string
	for i := range types {
		if i < len(renders) && renders[i] != "" {
			continue
		}
		names = append(names, "thund_u"+strconv.Itoa(i))
	}
	if len(names) == 0 {
		names = []string{"thund_e"}
	}
	if row, ok := x.(*ast.Row); ok {
		body := t.rowStruct(row)
		return at(x, body.typ, cat("lambda "+strings.Join(names, ", ")+": ", body))
	}
	body := t.expr(x)
	return at(x, body.typ, cat("lambda "+strings.Join(names, ", ")+": ", body))
}

// predicate checks that the function of filter, exists or forall gives a
// BOOLEAN, as Spark's analyzer does (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE
// for exists(arr, 1)).
func (t *tr) predicate(c *ast.Call, fn frag) bool {
	if !fn.typ.known() || fn.typ.is(Boolean) || fn.typ.is(Null) {
		return true
	}
	x := c.Args[1]
	t.typeError(c, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve \"%s\" due to data type mismatch: The second parameter requires the \"BOOLEAN\" type, however \"%s\" has the type \"%s\". SQLSTATE: 42K09",
		t.text(c), t.text(x), strings.ToUpper(fn.typ.String()))
	return false
}

// mapFilter is map_filter(m, (k, v) -> ...): the entries of m, in order,
// for which the function is true (NULL drops the entry); NULL for a NULL
// map.
func (t *tr) mapFilter(c *ast.Call) frag {
	if len(c.Args) != 2 {
		t.refuse(c, "map_filter takes a map and a function")
		return null(c)
	}
	m := t.expr(c.Args[0])
	if !m.typ.is(Map) {
		t.refuse(c.Args[0], "map_filter needs a map, and the type of %s is not known here", t.text(c.Args[0]))
		return null(c)
	}
	if l, ok := c.Args[1].(*ast.Lambda); ok && len(l.Params) != 2 {
		t.refuse(c.Args[1], "map_filter needs a lambda of two parameters (k, v) -> ... here")
		return null(c)
	}
	fn, ok := t.hofLambda("map_filter", c.Args[1], []*Type{m.typ.Key, m.typ.Val}, -1, "(thund_e.key)", "(thund_e.value)")
	if !ok || !t.predicate(c, fn) {
		return null(c)
	}
	return at(c, m.typ, cat("CASE WHEN ", m, " IS NULL THEN NULL ELSE map_from_entries(list_filter(map_entries(", m, "), ", fn, ")) END"))
}

// closedMerge reports whether the merge lambda of aggregate reads only
// its own parameters (and constants), refusing it otherwise: DuckDB's
// list_reduce pairs a column a lambda reads with the wrong rows once the
// arrays of a batch have different lengths.
func (t *tr) closedMerge(name string, l *ast.Lambda) bool {
	own := map[*ast.Ident]bool{}
	for _, p := range l.Params {
		own[p] = true
	}
	var outside ast.Node
	ast.Inspect(l.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Column:
			if ref := t.model.Column(n); ref == nil || ref.Kind != sema.RefLambda || !own[ref.Param] {
				outside = n
			}
		case *ast.Subquery, *ast.Exists:
			outside = n
		}
		return outside == nil
	})
	if outside != nil {
		t.refuse(outside, "%s's merge function reads %s, which the native engine's reduction pairs with the wrong rows; compute it outside %s", name, t.text(outside), name)
		return false
	}
	return true
}
