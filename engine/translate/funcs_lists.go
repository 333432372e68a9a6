package translate

import (
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
		" WHEN abs(", p, ") > 2147483632 THEN error('[COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER] Can''t create array with ' || CAST(abs(", p, ") AS VARCHAR) || ' elements which exceeding the array size limit 2147483632, the value of parameter(s) `pos` is invalid. SQLSTATE: 54000')",
		" WHEN ", p, " > 0 AND ", p, " - 1 <= ", n, " THEN list_concat(", l, "[1:", p, " - 1], ", x, ", ", l, "[", p, ":])",
		" WHEN ", p, " > 0 THEN list_concat(", l, ", ", nulls(cat(p, " - 1 - ", n)), ", ", x, ")",
		" WHEN -", p, " > ", n, " THEN list_concat(", x, ", ", nulls(cat("-", p, " - 1 - ", n)), ", ", l, ")",
		" ELSE list_concat(", l, "[1:", n, " + ", p, " + 1], ", x, ", ", l, "[", n, " + ", p, " + 2:]) END"))
}
