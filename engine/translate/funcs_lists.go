package translate

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// arrayInsertFn is array_insert(arr, pos, item) as Spark 4.1 computes it
// (spark.sql.legacy.negativeIndexInArrayInsert off): pos counts from 1;
// past the end the array is padded with NULLs up to the item; -1 appends
// and a negative pos counts from the end, padding with NULLs after the
// item when it reaches before the start; pos 0 fails
// (INVALID_INDEX_OF_ZERO); a NULL array or pos gives NULL. The item and
// the elements take their common type.
func arrayInsertFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 3, 3) {
		return null(c)
	}
	arr, pos, item := a[0], a[1], a[2]
	if !arr.typ.is(Array) {
		t.refuse(c.Args[0], "array_insert needs an array, and the type of %s is not known here", t.text(c.Args[0]))
		return null(c)
	}
	if !pos.typ.integral() && !pos.typ.is(Null) {
		t.refuse(c.Args[1], "array_insert's position runs natively as an integer only")
		return null(c)
	}
	elem := arr.typ.Elem
	ty := widen(elem, item.typ)
	switch {
	case elem.is(Null) || item.typ.is(Null) || elem.Kind == item.typ.Kind && !elem.is(Decimal) && !elem.is(Array) && !elem.is(Map) && !elem.is(Struct):
	case elem.numeric() && item.typ.numeric():
	case elem.known() && item.typ.known():
		t.typeError(c, "DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES", "Cannot resolve \"%s\" due to data type mismatch: Input to `array_insert` should have been \"ARRAY\" followed by a value with same element type, but it's [\"%s\", \"%s\"]. SQLSTATE: 42K09",
			t.text(c), strings.ToUpper(arr.typ.String()), strings.ToUpper(item.typ.String()))
		return null(c)
	}
	if ty.is(Null) {
		ty = tInt
	}
	d := ty.duck()
	if !ty.known() || d == "" {
		t.refuse(c, "array_insert of %s and %s does not run natively", arr.typ, item.typ)
		return null(c)
	}
	l := cat("CAST(", arr, " AS "+d+"[])")
	x := cat("[CAST(", item, " AS "+d+")]")
	p := cat("CAST(", pos, " AS BIGINT)")
	n := cat("CAST(len(", l, ") AS BIGINT)")
	nulls := func(k frag) frag { return cat("list_resize(CAST([] AS "+d+"[]), ", k, ")") }
	return at(c, arrayOf(ty), cat("CASE WHEN ", arr, " IS NULL OR ", pos, " IS NULL THEN NULL",
		" WHEN ", p, " = 0 THEN error('[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1). SQLSTATE: 22003')",
		" WHEN abs(", p, ") > 2147483632 THEN error('[COLLECTION_SIZE_LIMIT_EXCEEDED.FUNCTION] Can''t create array with ' || CAST(abs(", p, ") AS VARCHAR) || ' elements which exceeding the array size limit 2147483632, unsuccessful try to create arrays in the function `array_insert`. SQLSTATE: 54000')",
		" WHEN ", p, " > 0 AND ", p, " - 1 <= ", n, " THEN list_concat(", l, "[1:", p, " - 1], ", x, ", ", l, "[", p, ":])",
		" WHEN ", p, " > 0 THEN list_concat(", l, ", ", nulls(cat(p, " - 1 - ", n)), ", ", x, ")",
		" WHEN -", p, " > ", n, " THEN list_concat(", x, ", ", nulls(cat("-", p, " - 1 - ", n)), ", ", l, ")",
		" ELSE list_concat(", l, "[1:", n, " + ", p, " + 1], ", x, ", ", l, "[", n, " + ", p, " + 2:]) END"))
}

// mapZipWith is map_zip_with(m1, m2, (k, v1, v2) -> ...): a map over the
// keys of m1 in order, then those of m2 that m1 lacks, each key's value
// the lambda of the key and its values in m1 and m2 (NULL where a map
// lacks it). The keys take the maps' common key type; keys of other
// types fail as Spark's analyzer fails them (MAP_ZIP_WITH_DIFF_TYPES).
func (t *tr) mapZipWith(c *ast.Call) frag {
	if len(c.Args) != 3 {
		t.refuse(c, "map_zip_with takes two maps and a function")
		return null(c)
	}
	m1, m2 := t.expr(c.Args[0]), t.expr(c.Args[1])
	for i, m := range []frag{m1, m2} {
		if !m.typ.is(Map) {
			t.refuse(c.Args[i], "map_zip_with needs a map, and the type of %s is not known here", t.text(c.Args[i]))
			return null(c)
		}
	}
	k1, k2 := m1.typ.Key, m2.typ.Key
	kt := widen(k1, k2)
	sameKind := k1.Kind == k2.Kind || k1.numeric() && k2.numeric()
	if !sameKind || !kt.known() {
		if k1.known() && k2.known() && !sameKind {
			t.typeError(c, "DATATYPE_MISMATCH.MAP_ZIP_WITH_DIFF_TYPES", "Cannot resolve \"%s\" due to data type mismatch: Input to the `map_zip_with` should have been two maps with compatible key types, but it's [\"%s\", \"%s\"]. SQLSTATE: 42K09",
				t.text(c), strings.ToUpper(k1.String()), strings.ToUpper(k2.String()))
			return null(c)
		}
		t.refuse(c, "map_zip_with of maps with keys of %s and %s does not run natively", k1, k2)
		return null(c)
	}
	if (k1.is(Decimal) || k2.is(Decimal)) && !k1.fractional() && !k2.fractional() {
		a, b := asDecimal(k1), asDecimal(k2)
		if max(a.P-a.S, b.P-b.S)+max(a.S, b.S) > 38 {
			// Spark narrows the scale of a common decimal past 38 digits
			// in its own way.
			t.refuse(c, "map_zip_with of maps with keys of %s and %s does not run natively", k1, k2)
			return null(c)
		}
	}
	d := kt.duck()
	if d == "" || kt.is(Map) || kt.is(Array) || kt.is(Struct) {
		t.refuse(c, "map_zip_with of maps with %s keys does not run natively", kt)
		return null(c)
	}
	l, ok := c.Args[2].(*ast.Lambda)
	if ok && len(l.Params) != 3 {
		t.refuse(c.Args[2], "map_zip_with needs a lambda of three parameters (k, v1, v2) -> ... here")
		return null(c)
	}
	key := "thund_u0" // the key of a constant function (constLambda)
	if ok {
		key = quoteIdent(l.Params[0].Name)
	}
	keys1 := cat("CAST(map_keys(", m1, ") AS "+d+"[])")
	keys2 := cat("CAST(map_keys(", m2, ") AS "+d+"[])")
	v1 := "(map_extract_value(" + m1.s + ", " + key + "))"
	v2 := "(map_extract_value(" + m2.s + ", " + key + "))"
	fn, ok := t.hofLambda("map_zip_with", c.Args[2], []*Type{kt, m1.typ.Val, m2.typ.Val}, -1, "", v1, v2)
	if !ok {
		return null(c)
	}
	if !fn.typ.known() {
		t.refuse(c.Args[2], "the type of map_zip_with's function is not known here")
		return null(c)
	}
	keys := cat("list_concat(", keys1, ", list_filter(", keys2, ", lambda thund_k: NOT list_contains(", keys1, ", thund_k)))")
	return at(c, &Type{Kind: Map, Key: kt, Val: fn.typ}, cat("CASE WHEN ", m1, " IS NULL OR ", m2, " IS NULL THEN NULL ELSE map(", keys, ", list_transform(", keys, ", ", fn, ")) END"))
}

// transformMap is transform_keys(m, (k, v) -> ...) and
// transform_values(m, (k, v) -> ...): the map with each key (or value)
// replaced by the lambda of the entry, in the map's order. A key that
// comes out twice or NULL fails, on DuckDB's map() as on Spark
// (DUPLICATED_MAP_KEY, NULL_MAP_KEY).
func (t *tr) transformMap(name string, c *ast.Call) frag {
	if len(c.Args) != 2 {
		t.refuse(c, "%s takes a map and a function", name)
		return null(c)
	}
	m := t.expr(c.Args[0])
	if !m.typ.is(Map) {
		t.refuse(c.Args[0], "%s needs a map, and the type of %s is not known here", name, t.text(c.Args[0]))
		return null(c)
	}
	if l, ok := c.Args[1].(*ast.Lambda); ok && len(l.Params) != 2 {
		t.refuse(c.Args[1], "%s needs a lambda of two parameters (k, v) -> ... here", name)
		return null(c)
	}
	fn, ok := t.hofLambda(name, c.Args[1], []*Type{m.typ.Key, m.typ.Val}, -1, "(thund_e.key)", "(thund_e.value)")
	if !ok {
		return null(c)
	}
	if !fn.typ.known() {
		t.refuse(c.Args[1], "the type of %s's function is not known here", name)
		return null(c)
	}
	mapped := cat("list_transform(map_entries(", m, "), ", fn, ")")
	if name == "transform_keys" {
		return at(c, &Type{Kind: Map, Key: fn.typ, Val: m.typ.Val}, cat("CASE WHEN ", m, " IS NULL THEN NULL",
			" WHEN len(list_filter(", mapped, ", lambda thund_k: thund_k IS NULL)) > 0 THEN error('[NULL_MAP_KEY] Cannot use null as map key. SQLSTATE: 2200E')",
			" WHEN len(list_distinct(", mapped, ")) < len(", mapped, ") THEN error('[DUPLICATED_MAP_KEY] Duplicate map key ' || CAST(list_filter(", mapped, ", lambda thund_k, thund_i: list_position(", mapped, ", thund_k) < thund_i)[1] AS VARCHAR) || ' was found, please check the input data. If you want to remove the duplicated keys, you can set \"spark.sql.mapKeyDedupPolicy\" to \"LAST_WIN\" so that the key inserted at last takes precedence. SQLSTATE: 23505')",
			" ELSE map(", mapped, ", map_values(", m, ")) END"))
	}
	return at(c, &Type{Kind: Map, Key: m.typ.Key, Val: fn.typ}, cat("CASE WHEN ", m, " IS NULL THEN NULL ELSE map(map_keys(", m, "), ", mapped, ") END"))
}

// zipWith is zip_with(a, b, (x, y) -> ...): the lambda of the elements
// at each position up to the longer array's length, an element past
// the end of the shorter array being NULL; NULL when either array is.
func (t *tr) zipWith(c *ast.Call) frag {
	if len(c.Args) != 3 {
		t.refuse(c, "zip_with takes two arrays and a function")
		return null(c)
	}
	x, y := t.expr(c.Args[0]), t.expr(c.Args[1])
	for i, a := range []frag{x, y} {
		if !a.typ.is(Array) {
			t.refuse(c.Args[i], "zip_with needs an array, and the type of %s is not known here", t.text(c.Args[i]))
			return null(c)
		}
	}
	if l, ok := c.Args[2].(*ast.Lambda); ok && len(l.Params) != 2 {
		t.refuse(c.Args[2], "zip_with needs a lambda of two parameters (x, y) -> ... here")
		return null(c)
	}
	fn, ok := t.hofLambda("zip_with", c.Args[2], []*Type{x.typ.Elem, y.typ.Elem}, -1, "(("+x.s+")[thund_e])", "(("+y.s+")[thund_e])")
	if !ok {
		return null(c)
	}
	if !fn.typ.known() {
		t.refuse(c.Args[2], "the type of zip_with's function is not known here")
		return null(c)
	}
	return at(c, arrayOf(fn.typ), cat("CASE WHEN ", x, " IS NULL OR ", y, " IS NULL THEN NULL ELSE list_transform(range(1, greatest(len(", x, "), len(", y, ")) + 1), ", fn, ") END"))
}

// arraysZipFn is arrays_zip(a1, a2, ...): the array of structs whose
// i-th holds the i-th element of each array (NULL past an array's end),
// as long as the longest; NULL when an array is NULL. A field is named
// after its argument when that is a column, else by its position from 0,
// as Spark names them.
func arraysZipFn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) == 0 {
		t.refuse(c, "arrays_zip() of no arrays does not run natively")
		return null(c)
	}
	st := &Type{Kind: Struct}
	var anyNull bool
	for i, x := range a {
		name := strconv.Itoa(i)
		if col, ok := unparenExpr(c.Args[i]).(*ast.Column); ok && len(col.Parts) > 0 {
			name = col.Parts[len(col.Parts)-1].Name
		}
		switch {
		case x.typ.is(Array):
			st.Fields = append(st.Fields, Field{Name: name, Type: x.typ.Elem})
		case x.typ.is(Null):
			anyNull = true
			st.Fields = append(st.Fields, Field{Name: name, Type: tNull})
		default:
			t.refuse(c.Args[i], "arrays_zip runs natively over arrays only, and the type of %s is %s here", t.text(c.Args[i]), x.typ)
			return null(c)
		}
	}
	for i, f := range st.Fields {
		for _, g := range st.Fields[:i] {
			if strings.EqualFold(f.Name, g.Name) {
				t.refuse(c, "arrays_zip of two columns of the same name does not run natively")
				return null(c)
			}
		}
	}
	ty := arrayOf(st)
	if anyNull {
		return at(c, ty, cat("NULL"))
	}
	lens := make([]frag, len(a))
	conds := make([]frag, len(a))
	fields := make([]frag, len(a))
	for i, x := range a {
		lens[i] = cat("len(", x, ")")
		conds[i] = cat(x, " IS NULL")
		fields[i] = cat(quoteIdent(st.Fields[i].Name)+" := (", x, ")[thund_z]")
	}
	return at(c, ty, cat("CASE WHEN ", join(conds, " OR "), " THEN NULL ELSE list_transform(range(1, greatest(", lens, ") + 1), lambda thund_z: struct_pack(", fields, ")) END"))
}

// arraySetFn is array_remove(a, x), array_union(a, b), array_intersect(a,
// b) and array_except(a, b), as Spark keeps their elements: in the order
// of their first occurrence (a's, then b's for the union), each once
// (but array_remove, which keeps the others as they are), a NULL element
// counting as a value (array_remove keeps them; array_remove of a NULL x
// is NULL); NULL when an argument is. Arrays of different element types
// (which Spark widens) are refused.
func arraySetFn(kind string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 2, 2) {
			return null(c)
		}
		x, y := a[0], a[1]
		if !x.typ.is(Array) || x.typ.duck() == "" {
			t.refuse(c.Args[0], "%s needs an array, and the type of %s is %s here", kind, t.text(c.Args[0]), x.typ)
			return null(c)
		}
		if kind == "array_remove" {
			if !t.sameFamily(x.typ.Elem, y.typ) || y.typ.duck() != x.typ.Elem.duck() && !y.typ.is(Null) {
				t.refuse(c.Args[1], "array_remove of a %s from an array of %s does not run natively", y.typ, x.typ.Elem)
				return null(c)
			}
			return at(c, x.typ, cat("list_transform([{'a': ", x, ", 'x': ", t.castTo(y, x.typ.Elem), "}], lambda e: CASE WHEN e.a IS NULL OR e.x IS NULL THEN NULL ELSE list_filter(e.a, lambda v: v IS NULL OR v <> e.x) END)[1]"))
		}
		if y.typ.duck() != x.typ.duck() {
			t.refuse(c.Args[1], "%s of arrays of %s and %s does not run natively", kind, x.typ.Elem, y.typ.Elem)
			return null(c)
		}
		// in(l, v): whether v (NULL included) is an element of l.
		in := func(l, v string) string {
			return "(CASE WHEN " + v + " IS NULL THEN coalesce(list_position(list_transform(" + l + ", lambda w: w IS NULL), true), 0) > 0 ELSE coalesce(list_contains(" + l + ", " + v + "), false) END)"
		}
		first := func(l string) string {
			return "list_filter(" + l + ", lambda v, i: CASE WHEN v IS NULL THEN list_position(list_transform(" + l + ", lambda w: w IS NULL), true) = i ELSE list_position(" + l + ", v) = i END)"
		}
		var body string
		switch kind {
		case "array_union":
			body = first("list_concat(e.a, e.b)")
		case "array_intersect":
			body = "list_filter(" + first("e.a") + ", lambda v: " + in("e.b", "v") + ")"
		default:
			body = "list_filter(" + first("e.a") + ", lambda v: NOT " + in("e.b", "v") + ")"
		}
		return at(c, x.typ, cat("list_transform([{'a': ", x, ", 'b': ", y, "}], lambda e: CASE WHEN e.a IS NULL OR e.b IS NULL THEN NULL ELSE "+body+" END)[1]"))
	}
}
