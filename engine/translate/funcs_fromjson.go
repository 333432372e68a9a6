package translate

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

// fromJSONFn is from_json(s, schema) in Spark's default PERMISSIVE mode,
// for a schema written as a string constant (a DDL list of fields,
// 'a INT, b STRING', or a type, 'struct<...>', 'array<...>',
// 'map<string, ...>') of INT, BIGINT, SMALLINT, BOOLEAN, STRING and
// structs, arrays and maps of them. What Spark's Jackson reader gives:
//
//   - a text that is not JSON, or JSON whose root is a scalar, is a
//     struct of NULLs for a struct schema and NULL for an array or map;
//   - an element or map value of another JSON type than its type (a
//     string for an INT, a number out of range) makes an array or map
//     schema's result NULL;
//   - an object for an array of structs is read as an array of one.
//
// Where Spark's result is less certain the call fails at run time as not
// portable: a field that fails in a struct (Spark keeps the other
// fields), a non-string value for a STRING field (Spark writes its
// JSON text), duplicate keys, a key differing from a field only in case,
// a root of JSON null or an array for a struct, an empty text, and a text
// Jackson and DuckDB's reader could read differently (as for
// json_object_keys). Options are refused.
func fromJSONFn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) == 3 {
		t.refuse(c.Args[2], "from_json's options do not run natively")
		return null(c)
	}
	if !t.arity(c, a, 2, 2) {
		return null(c)
	}
	s := a[0]
	if k := s.typ; k.known() && !k.is(String) && !k.is(Null) {
		t.refuse(c.Args[0], "from_json of a %s does not run natively", k)
		return null(c)
	}
	var schema string
	switch x := unparenExpr(c.Args[1]).(type) {
	case *ast.Literal:
		if x.Kind != ast.LitString || x.Str == nil {
			t.refuse(c.Args[1], "from_json's schema runs natively as a string constant only")
			return null(c)
		}
		schema = x.Str.Value
	case *ast.Call:
		s, ok := "", strings.EqualFold(x.Name.String(), "schema_of_json")
		if ok {
			s, ok = t.inferJSONSchema(x)
		}
		if !ok {
			t.refuse(c.Args[1], "from_json's schema runs natively as a string constant or schema_of_json of one only")
			return null(c)
		}
		schema = s
	default:
		t.refuse(c.Args[1], "from_json's schema runs natively as a string constant only")
		return null(c)
	}
	ty, ok := jsonSchema(schema)
	if !ok {
		t.refuse(c.Args[1], "this schema does not run natively: from_json runs with INT, BIGINT, SMALLINT, BOOLEAN, STRING and structs, arrays and maps (of STRING keys) of them")
		return null(c)
	}
	g := &jsonReader{}
	j := "j0"
	why := "CAST(error('not-portable: from_json of ' || " + "j0" + " || ': Spark''s JSON reader (Jackson) may read this text otherwise than the native engine') AS " + ty.duck() + ")"
	nulls := "CAST(NULL AS " + ty.duck() + ")"
	if ty.is(Struct) {
		parts := make([]string, len(ty.Fields))
		for i, f := range ty.Fields {
			parts[i] = quoteIdent(f.Name) + " := CAST(NULL AS " + f.Type.duck() + ")"
		}
		nulls = "struct_pack(" + strings.Join(parts, ", ") + ")"
	}
	jv := "CAST(" + j + " AS JSON)"
	unsure, good, val := g.read(jv, ty)
	var valid string
	switch ty.Kind {
	case Struct:
		valid = "CASE WHEN json_type(" + jv + ") IN ('ARRAY', 'NULL') THEN " + why +
			" WHEN json_type(" + jv + ") <> 'OBJECT' THEN " + nulls +
			" WHEN " + unsure + " OR NOT (" + good + ") THEN " + why + " ELSE " + val + " END"
	default:
		var wrap string
		if ty.is(Array) && ty.Elem.is(Struct) {
			u, ok2, v := g.read(jv, ty.Elem)
			wrap = " WHEN json_type(" + jv + ") = 'OBJECT' THEN CASE WHEN " + u + " THEN " + why + " WHEN " + ok2 + " THEN [" + v + "] ELSE NULL END"
		}
		valid = "CASE WHEN json_type(" + jv + ") = 'NULL' THEN " + why + wrap +
			" WHEN " + unsure + " THEN " + why + " WHEN " + good + " THEN " + val + " ELSE NULL END"
	}
	open := "\\{"
	if ty.is(Array) {
		open = "\\["
	}
	closer := strings.NewReplacer("\\{", "}", "\\[", "\\]").Replace(open)
	invalid := "CASE WHEN regexp_full_match(" + j + ", '\\s*') THEN " + why
	if ty.is(Struct) {
		invalid += " WHEN NOT regexp_matches(" + j + ", '^\\s*[\\{\\[]') THEN " + nulls
	} else {
		invalid += " WHEN NOT regexp_matches(" + j + ", '^\\s*[\\{\\[]') THEN NULL"
	}
	invalid += " WHEN regexp_matches(" + j + ", '^\\s*" + open + "') AND regexp_full_match(" + j + ", '[^" + closer + "]*(" + closer + "\\s*)?') THEN " + nulls +
		" ELSE " + why + " END"
	body := "CASE WHEN " + j + " IS NULL THEN NULL WHEN json_valid(" + j + ") THEN CASE WHEN regexp_matches(" + j + ", '(,\\s*[}\\]])|((?i)[:\\[,]\\s*[-+]?(nan|inf))') THEN " + why +
		" ELSE " + valid + " END ELSE " + invalid + " END"
	return at(c, ty, cat("list_transform([CAST(", s, " AS VARCHAR)], lambda j0: "+body+")[1]"))
}

// jsonSchema reads from_json's schema: a data type, or a DDL list of
// fields (a struct); ok is false for a type outside the subset that
// runs natively.
func jsonSchema(s string) (*Type, bool) {
	dt, errs := parser.ParseDataType(s, parser.Options{})
	if len(errs) > 0 || dt == nil || (dt.Name != "STRUCT" && dt.Name != "ARRAY" && dt.Name != "MAP") {
		dt, errs = parser.ParseDataType("struct<"+s+">", parser.Options{})
		if len(errs) > 0 || dt == nil {
			return nil, false
		}
	}
	ty, ok := typeOfAST(dt)
	if !ok || !jsonReadable(ty, true) {
		return nil, false
	}
	return ty, true
}

// plainName is a field name a JSON path can name as written.
var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// jsonReadable reports whether from_json of type ty runs natively.
func jsonReadable(ty *Type, top bool) bool {
	switch ty.Kind {
	case Int, BigInt, SmallInt, Boolean, String:
		return !top
	case Struct:
		if len(ty.Fields) == 0 {
			return false
		}
		seen := map[string]bool{}
		for _, f := range ty.Fields {
			if !plainName.MatchString(f.Name) || seen[strings.ToLower(f.Name)] || !jsonReadable(f.Type, false) {
				return false
			}
			seen[strings.ToLower(f.Name)] = true
		}
		return true
	case Array:
		return jsonReadable(ty.Elem, false)
	case Map:
		return ty.Key.is(String) && jsonReadable(ty.Val, false)
	}
	return false
}

// jsonReader writes the DuckDB expressions that read a JSON value as a
// Spark type.
type jsonReader struct{ depth int }

// read returns, for the JSON value j (a DuckDB JSON, SQL NULL where a
// key is missing) read as ty: unsure, where Spark's reading is not
// certain to be the native one; good, where the value converts (Spark
// fails the record otherwise); val, the value when good.
func (g *jsonReader) read(j string, ty *Type) (unsure, good, val string) {
	typ := "coalesce(json_type(" + j + "), 'NULL')"
	switch ty.Kind {
	case Int, BigInt, SmallInt:
		good = "(" + typ + " = 'NULL' OR (" + typ + " IN ('BIGINT', 'UBIGINT') AND TRY_CAST(CAST(" + j + " AS VARCHAR) AS " + ty.duck() + ") IS NOT NULL))"
		val = "CASE WHEN " + typ + " = 'NULL' THEN NULL ELSE TRY_CAST(CAST(" + j + " AS VARCHAR) AS " + ty.duck() + ") END"
		return "false", good, val
	case Boolean:
		good = "(" + typ + " IN ('NULL', 'BOOLEAN'))"
		val = "CASE WHEN " + typ + " = 'BOOLEAN' THEN CAST(CAST(" + j + " AS VARCHAR) AS BOOLEAN) END"
		return "false", good, val
	case String:
		unsure = "(" + typ + " NOT IN ('NULL', 'VARCHAR'))"
		val = "CASE WHEN " + typ + " = 'VARCHAR' THEN json_extract_string(" + j + ", '$') END"
		return unsure, "true", val
	case Struct:
		keys := "json_keys(" + j + ")"
		names := make([]string, len(ty.Fields))
		lower := make([]string, len(ty.Fields))
		for i, f := range ty.Fields {
			names[i] = quoteString(f.Name)
			lower[i] = quoteString(strings.ToLower(f.Name))
		}
		g.depth++
		k := "k" + strconv.Itoa(g.depth)
		us := []string{"(" + typ + " = 'OBJECT' AND (len(" + keys + ") <> len(list_distinct(" + keys + ")) OR len(list_filter(" + keys + ", lambda " + k + ": lower(" + k + ") IN (" + strings.Join(lower, ", ") + ") AND " + k + " NOT IN (" + strings.Join(names, ", ") + "))) > 0))"}
		vals := make([]string, len(ty.Fields))
		for i, f := range ty.Fields {
			fj := "json_extract(" + j + ", " + quoteString("$."+f.Name) + ")"
			u, gd, v := g.read(fj, f.Type)
			// A field that fails keeps the others on Spark (a partial
			// result), whose way through the enclosing values is not
			// modelled: not portable.
			us = append(us, "("+typ+" = 'OBJECT' AND ("+u+" OR NOT "+gd+"))")
			vals[i] = quoteIdent(f.Name) + " := " + v
		}
		val = "CASE WHEN " + typ + " = 'OBJECT' THEN struct_pack(" + strings.Join(vals, ", ") + ") END"
		return "(" + strings.Join(us, " OR ") + ")", "(" + typ + " IN ('NULL', 'OBJECT'))", val
	case Array:
		g.depth++
		e := "e" + strconv.Itoa(g.depth)
		u, gd, v := g.read(e, ty.Elem)
		elems := "CAST(" + j + " AS JSON[])"
		unsure = "(" + typ + " = 'ARRAY' AND coalesce(list_bool_or(list_transform(" + elems + ", lambda " + e + ": " + u + ")), false))"
		good = "(" + typ + " = 'NULL' OR (" + typ + " = 'ARRAY' AND coalesce(list_bool_and(list_transform(" + elems + ", lambda " + e + ": " + gd + ")), true)))"
		val = "CASE WHEN " + typ + " = 'ARRAY' THEN list_transform(" + elems + ", lambda " + e + ": " + v + ") END"
		return unsure, good, val
	case Map:
		keys := "json_keys(" + j + ")"
		g.depth++
		k := "k" + strconv.Itoa(g.depth)
		vj := "json_extract(" + j + ", '$.\"' || " + k + " || '\"')"
		u, gd, v := g.read(vj, ty.Val)
		unsure = "(" + typ + " = 'OBJECT' AND (len(" + keys + ") <> len(list_distinct(" + keys + ")) OR len(list_filter(" + keys + ", lambda " + k + ": NOT regexp_full_match(" + k + ", '[A-Za-z0-9_ ]*'))) > 0 OR coalesce(list_bool_or(list_transform(" + keys + ", lambda " + k + ": " + u + ")), false)))"
		good = "(" + typ + " = 'NULL' OR (" + typ + " = 'OBJECT' AND coalesce(list_bool_and(list_transform(" + keys + ", lambda " + k + ": " + gd + ")), true)))"
		val = "CASE WHEN " + typ + " = 'OBJECT' THEN map_from_entries(list_transform(" + keys + ", lambda " + k + ": {'key': " + k + ", 'value': " + v + "})) END"
		return unsure, good, val
	}
	return "true", "false", "NULL"
}
