package translate

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// jsonObjectKeysFn is json_object_keys(json): the keys of the top-level
// object in order (duplicates kept), NULL for a NULL, an empty text, a
// text that is not an object or one Jackson cannot read. Spark stops
// reading at the object's closing brace and Jackson is stricter than
// DuckDB's reader (no trailing commas, no NaN), so a text where the two
// could disagree fails at run time as not portable rather than give
// another value: an invalid text with a closing brace before its end, or
// a valid one with a trailing comma or a NaN or infinity.
func jsonObjectKeysFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	s := a[0]
	if k := s.typ; k.known() && !k.is(String) && !k.is(Null) {
		t.refuse(c.Args[0], "json_object_keys of a %s does not run natively", k)
		return null(c)
	}
	e := func(x frag) frag {
		return cat("CAST(error('not-portable: json_object_keys of ' || ", x, " || ': Spark''s JSON reader (Jackson) and DuckDB''s read this text differently') AS VARCHAR[])")
	}
	return at(c, arrayOf(tString), cat("CASE WHEN ", s, " IS NULL THEN NULL",
		" WHEN json_valid(", s, ") THEN CASE WHEN regexp_matches(", s, ", '(,\\s*[}\\]])|((?i)[:\\[,]\\s*[-+]?(nan|inf))') THEN ", e(s),
		" WHEN json_type(", s, ") = 'OBJECT' THEN json_keys(", s, ") ELSE NULL END",
		" WHEN NOT regexp_matches(", s, ", '^\\s*\\{') OR regexp_full_match(", s, ", '[^}]*(\\}\\s*)?') THEN NULL",
		" ELSE ", e(s), " END"))
}

// jsonArrayLengthFn is json_array_length(json): the number of elements
// of the top-level array, as INT; NULL for a NULL, an empty text, a text
// that is not an array or one Jackson cannot read. As for
// json_object_keys, Spark stops reading at the array's closing bracket
// and Jackson is stricter than DuckDB's reader, so a text where the two
// could disagree fails at run time as not portable.
func jsonArrayLengthFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	s := a[0]
	if k := s.typ; k.known() && !k.is(String) && !k.is(Null) {
		t.typeError(c, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve \"%s\" due to data type mismatch: The first parameter requires the \"STRING\" type, however \"%s\" has the type \"%s\". SQLSTATE: 42K09",
			t.text(c), t.text(c.Args[0]), strings.ToUpper(k.String()))
		return null(c)
	}
	e := func(x frag) frag {
		return cat("CAST(error('not-portable: json_array_length of ' || ", x, " || ': Spark''s JSON reader (Jackson) and DuckDB''s read this text differently') AS INTEGER)")
	}
	return at(c, tInt, cat("CASE WHEN ", s, " IS NULL THEN NULL",
		" WHEN json_valid(", s, ") THEN CASE WHEN regexp_matches(", s, ", '(,\\s*[}\\]])|((?i)[:\\[,]\\s*[-+]?(nan|inf))') THEN ", e(s),
		" WHEN json_type(", s, ") = 'ARRAY' THEN CAST(json_array_length(", s, ") AS INTEGER) ELSE NULL END",
		" WHEN NOT regexp_matches(", s, ", '^\\s*\\[') OR regexp_full_match(", s, ", '[^\\]]*(\\]\\s*)?') THEN NULL",
		" ELSE ", e(s), " END"))
}
