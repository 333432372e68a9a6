package translate

import (
	"strconv"
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

// toJSONFn is to_json(x) of a struct, an array or a map, written as
// Spark's JacksonGenerator writes it with the default options: no
// spaces, a struct's NULL fields left out (ignoreNullFields), a NULL
// element or map value written null, strings escaped as Jackson does
// (\" \\ \b \f \n \r \t; another control character fails as not
// portable), a decimal as its text, a boolean true or false. Options, and
// values whose text Spark formats with them (dates, timestamps, floats,
// binary), are refused; a double runs where its text is not scientific.
func toJSONFn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) == 2 {
		t.refuse(c.Args[1], "to_json's options do not run natively")
		return null(c)
	}
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	x := a[0]
	switch {
	case x.typ.is(Struct), x.typ.is(Array), x.typ.is(Map):
	case x.typ.known():
		t.typeError(c, "DATATYPE_MISMATCH.INVALID_JSON_SCHEMA", "Cannot resolve \"%s\" due to data type mismatch: Input schema \"%s\" must be a struct, an array, a map or a variant. SQLSTATE: 42K09", t.text(c), strings.ToUpper(x.typ.String()))
		return null(c)
	default:
		t.refuse(c.Args[0], "to_json's text depends on the type of %s, which is not known here", t.text(c.Args[0]))
		return null(c)
	}
	g := &jsonGen{}
	body, ok := g.value("v0", x.typ)
	if !ok {
		t.refuse(c.Args[0], "to_json of a value holding %s does not run natively", g.why)
		return null(c)
	}
	// The value is bound once, by a lambda over a one-element list.
	return at(c, tString, cat("list_transform([", x, "], lambda v0: CASE WHEN v0 IS NULL THEN NULL ELSE "+body+" END)[1]"))
}

// jsonGen writes the DuckDB expression that renders a value as Spark's
// JSON text; why says what it could not render.
type jsonGen struct {
	depth int
	why   string
}

// jsonString is the DuckDB expression of a string s written as a JSON
// string, escaped as Jackson escapes it.
func jsonString(s string) string {
	return "('\"' || CASE WHEN regexp_matches(" + s + ", '[\\x00-\\x07\\x0B\\x0E-\\x1F]') THEN CAST(error('not-portable: to_json of a string holding a control character: Spark writes it as Jackson escapes it, which the native engine does not reproduce') AS VARCHAR)" +
		" ELSE replace(replace(replace(replace(replace(replace(replace(" + s + ", '\\', '\\\\'), '\"', '\\\"'), chr(10), '\\n'), chr(13), '\\r'), chr(9), '\\t'), chr(8), '\\b'), chr(12), '\\f') END || '\"')"
}

// value is the JSON text of v, a non-NULL value of type ty.
func (g *jsonGen) value(v string, ty *Type) (string, bool) {
	switch ty.Kind {
	case Boolean, TinyInt, SmallInt, Int, BigInt:
		return "CAST(" + v + " AS VARCHAR)", true
	case Decimal:
		if ty.S > 6 {
			// Java's BigDecimal writes 0.0000001 as 1E-7.
			g.why = "a decimal of scale above 6"
			return "", false
		}
		return "CAST(" + v + " AS VARCHAR)", true
	case Double:
		return "CASE WHEN isnan(" + v + ") OR isinf(" + v + ") THEN '\"' || thund_double_text(" + v + ") || '\"' ELSE thund_double_text(" + v + ") END", true
	case String:
		return jsonString(v), true
	case Struct:
		if len(ty.Fields) == 0 {
			return "'{}'", true
		}
		parts := make([]string, len(ty.Fields))
		for i, f := range ty.Fields {
			fv := "(" + v + ")." + quoteIdent(f.Name)
			s, ok := g.value(fv, f.Type)
			if !ok {
				return "", false
			}
			parts[i] = "CASE WHEN " + fv + " IS NULL THEN NULL ELSE " + jsonString(quoteString(f.Name)) + " || ':' || " + s + " END"
		}
		return "('{' || concat_ws(','," + strings.Join(parts, ", ") + ") || '}')", true
	case Array:
		g.depth++
		e := "v" + strconv.Itoa(g.depth)
		s, ok := g.value(e, ty.Elem)
		if !ok {
			return "", false
		}
		return "('[' || array_to_string(list_transform(" + v + ", lambda " + e + ": CASE WHEN " + e + " IS NULL THEN 'null' ELSE " + s + " END), ',') || ']')", true
	case Map:
		var key string
		switch {
		case ty.Key.is(String):
			key = "e.key"
		case ty.Key.integral():
			key = "CAST(e.key AS VARCHAR)"
		default:
			g.why = "a map whose keys are of type " + ty.Key.String()
			return "", false
		}
		g.depth++
		e := "v" + strconv.Itoa(g.depth)
		s, ok := g.value(e+".value", ty.Val)
		if !ok {
			return "", false
		}
		key = strings.ReplaceAll(key, "e.key", e+".key")
		return "('{' || array_to_string(list_transform(map_entries(" + v + "), lambda " + e + ": " + jsonString(key) + " || ':' || CASE WHEN " + e + ".value IS NULL THEN 'null' ELSE " + s + " END), ',') || '}')", true
	}
	g.why = "a " + ty.String()
	return "", false
}
