package translate

import (
	"strconv"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// userError is the SQL failing with Spark's USER_RAISED_EXCEPTION, its
// message the SQL text msg, at the range of n.
func (t *tr) userError(n ast.Node, msg frag) frag {
	return cat("error('[USER_RAISED_EXCEPTION] ' || coalesce(", msg, ", 'null') || ' SQLSTATE: P0001"+markOpen+strconv.Itoa(t.check(n))+markClose+"')")
}

// raiseErrorFn is raise_error(msg): fails with msg (Spark's
// USER_RAISED_EXCEPTION; "null" for NULL); of type VOID.
func raiseErrorFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	msg := a[0]
	switch {
	case msg.typ.is(String), msg.typ.is(Null):
	case msg.typ.integral():
		msg = t.asString(msg)
	default:
		t.refuse(c.Args[0], "raise_error of a %s does not run natively; give it a string", msg.typ)
		return null(c)
	}
	return at(c, tNull, t.userError(c, msg))
}

// assertTrueFn is assert_true(cond[, msg]): NULL where cond is true,
// else fails with msg or Spark's "'cond' is not true!" (cond as
// written); of type VOID.
func assertTrueFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 2) {
		return null(c)
	}
	cond := a[0]
	if !cond.typ.is(Boolean) && !cond.typ.is(Null) {
		t.refuse(c.Args[0], "assert_true of a %s does not run natively; give it a condition", cond.typ)
		return null(c)
	}
	msg := cat(quoteString("'" + t.text(c.Args[0]) + "' is not true!"))
	if len(a) == 2 {
		if !a[1].typ.is(String) && !a[1].typ.is(Null) {
			t.refuse(c.Args[1], "assert_true's message runs natively as a string only")
			return null(c)
		}
		msg = a[1]
	}
	return at(c, tNull, cat("CASE WHEN ", cond, " THEN NULL ELSE ", t.userError(c, msg), " END"))
}

// mapConcatFn is map_concat(m1, m2, ...): the entries of the maps in
// order; a key in two of them fails as Spark's DUPLICATED_MAP_KEY (its
// default mapKeyDedupPolicy), a NULL map gives NULL. Maps of different
// types (which Spark widens) are refused.
func mapConcatFn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) == 0 {
		t.refuse(c, "map_concat() without maps does not run natively")
		return null(c)
	}
	ty := a[0].typ
	if ty.is(Map) && (ty.Key.is(Array) || ty.Key.is(Map) || ty.Key.is(Struct)) {
		t.refuse(c.Args[0], "map_concat of maps whose keys are %s does not run natively", ty.Key)
		return null(c)
	}
	for i, m := range a {
		if !m.typ.is(Map) || m.typ.duck() == "" || m.typ.duck() != ty.duck() {
			t.refuse(c.Args[i], "map_concat runs natively over maps of one type, and this argument is a %s", m.typ)
			return null(c)
		}
	}
	nulls := make([]frag, len(a))
	entries := make([]frag, len(a))
	for i, m := range a {
		nulls[i] = cat(m, " IS NULL")
		entries[i] = cat("map_entries(", m, ")")
	}
	all := cat("list_concat(", join(entries, ", "), ")")
	if len(a) == 1 {
		all = entries[0]
	}
	dup := "error('[DUPLICATED_MAP_KEY] Duplicate map key ' || CAST(list_filter(list_transform(e, lambda x: x.key), lambda k, i: list_position(list_transform(e, lambda x: x.key), k) < i)[1] AS VARCHAR) || ' was found, please check the input data. If you want to remove the duplicated keys, you can set \"spark.sql.mapKeyDedupPolicy\" to \"LAST_WIN\" so that the key inserted at last takes precedence. SQLSTATE: 23505" + markOpen + strconv.Itoa(t.check(c)) + markClose + "')"
	body := "CASE WHEN len(list_distinct(list_transform(e, lambda x: x.key))) < len(e) THEN " + dup + " ELSE map_from_entries(e) END"
	return at(c, ty, cat("CASE WHEN ", join(nulls, " OR "), " THEN NULL ELSE list_transform([", all, "], lambda e: "+body+")[1] END"))
}
