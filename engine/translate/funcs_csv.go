package translate

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

// from_csv and schema_of_csv read one CSV record as Spark's CSV reader
// does with its default options (comma-separated, PERMISSIVE mode),
// checked on Spark 4.1.4: a field is not trimmed; an empty field is NULL;
// a field that does not convert to its type is NULL and the others are
// kept; missing fields are NULL, extra ones dropped. A record holding a
// quote or a backslash (whose reading depends on the reader's quote and
// escape rules) fails as not portable.

// csvFieldTypes are the field types from_csv reads natively.
func csvFieldType(ty *Type) bool {
	switch ty.Kind {
	case Int, BigInt, SmallInt, TinyInt, Boolean, String, Double, Float, Decimal:
		return true
	}
	return false
}

// csvSchema reads from_csv's schema: a DDL list of fields, or the text
// schema_of_csv gives; ok is false for a type outside those that run
// natively.
func (t *tr) csvSchema(x ast.Expr) (*Type, bool) {
	var text string
	switch x := unparenExpr(x).(type) {
	case *ast.Literal:
		if x.Kind != ast.LitString {
			return nil, false
		}
		text = x.Str.Value
	case *ast.Call:
		if !strings.EqualFold(x.Name.String(), "schema_of_csv") {
			return nil, false
		}
		s, ok := t.inferCSVSchema(x)
		if !ok {
			return nil, false
		}
		text = s
	default:
		return nil, false
	}
	dt, errs := parser.ParseDataType("struct<"+text+">", parser.Options{})
	if len(errs) > 0 || dt == nil {
		dt, errs = parser.ParseDataType(text, parser.Options{})
		if len(errs) > 0 || dt == nil || dt.Name != "STRUCT" {
			return nil, false
		}
	}
	ty, ok := typeOfAST(dt)
	if !ok || !ty.is(Struct) {
		return nil, false
	}
	for _, f := range ty.Fields {
		if !csvFieldType(f.Type) {
			return nil, false
		}
	}
	return ty, true
}

// csvField is the SQL converting the field text f (a VARCHAR, NULL when
// missing) to ty as Spark's CSV reader does: integers as Java's
// parseInt/parseLong read them (sign and digits, in range), a boolean
// true or false in any case, a decimal rounded HALF_UP (NULL when it does
// not fit), a double or float in plain decimal notation (blanks around
// it trimmed, as Java's parseDouble does) or NaN, Inf, -Inf; what Java
// may read otherwise fails as not portable.
func csvField(f string, ty *Type, unsure string) string {
	plain := "'[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?'"
	// Java reads the digits of other scripts too.
	wide := "regexp_matches(" + f + ", '[^\\x00-\\x7f]')"
	switch ty.Kind {
	case String:
		return "nullif(" + f + ", '')"
	case Boolean:
		return "CASE lower(" + f + ") WHEN 'true' THEN true WHEN 'false' THEN false END"
	case Int, BigInt, SmallInt, TinyInt:
		return "CASE WHEN regexp_full_match(" + f + ", '[+-]?[0-9]+') THEN TRY_CAST(" + f + " AS " + ty.duck() + ") WHEN " + wide + " THEN " + unsure + " END"
	case Decimal:
		return "CASE WHEN regexp_full_match(" + f + ", " + plain + ") THEN TRY_CAST(" + f + " AS " + ty.duck() + ") WHEN " + wide + " THEN " + unsure + " END"
	}
	return "CASE WHEN " + f + " IS NULL OR " + f + " = '' THEN NULL WHEN " + wide + " THEN " + unsure + " WHEN " + f + " = 'NaN' THEN CAST('NaN' AS " + ty.duck() + ") WHEN " + f + " = 'Inf' THEN CAST('Infinity' AS " + ty.duck() + ") WHEN " + f + " = '-Inf' THEN CAST('-Infinity' AS " + ty.duck() + ")" +
		" WHEN regexp_full_match(" + f + ", '[ \\t]*' || " + plain + " || '[ \\t]*') THEN CAST(trim(" + f + ", ' ' || chr(9)) AS " + ty.duck() + ") WHEN regexp_full_match(" + f + ", '[A-Za-z ]*') AND NOT regexp_matches(lower(" + f + "), 'nan|inf') THEN NULL ELSE " + unsure + " END"
}

// fromCSVFn is from_csv(s, schema): the struct of the record's fields.
func fromCSVFn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) == 3 {
		t.refuse(c.Args[2], "from_csv's options do not run natively")
		return null(c)
	}
	if !t.arity(c, a, 2, 2) {
		return null(c)
	}
	if k := a[0].typ; k.known() && !k.is(String) && !k.is(Null) {
		t.refuse(c.Args[0], "from_csv of a %s does not run natively", k)
		return null(c)
	}
	ty, ok := t.csvSchema(c.Args[1])
	if !ok {
		t.refuse(c.Args[1], "this schema does not run natively: from_csv runs with a constant list of INT, BIGINT, SMALLINT, TINYINT, BOOLEAN, STRING, DOUBLE, FLOAT and DECIMAL fields")
		return null(c)
	}
	unsure := "CAST(error('not-portable: from_csv of ''' || r || ''': Spark''s CSV reader may read it otherwise" + markOpen + strconv.Itoa(t.check(c)) + markClose + "') AS VARCHAR)"
	fields := make([]string, len(ty.Fields))
	for i, f := range ty.Fields {
		v := "p[" + strconv.Itoa(i+1) + "]"
		fields[i] = quoteIdent(f.Name) + " := " + csvField(v, f.Type, strings.Replace(unsure, "AS VARCHAR", "AS "+f.Type.duck(), 1))
	}
	body := "CASE WHEN r IS NULL THEN NULL WHEN regexp_matches(r, '[\"\\\\\\n\\r]') THEN " + strings.Replace(unsure, "AS VARCHAR", "AS "+ty.duck(), 1) +
		" ELSE list_transform([string_split(r, ',')], lambda p: struct_pack(" + strings.Join(fields, ", ") + "))[1] END"
	return at(c, ty, cat("list_transform([CAST(", a[0], " AS VARCHAR)], lambda r: "+body+")[1]"))
}

// schemaOfCSVFn is schema_of_csv(csv[, options]) of a constant record:
// Spark's inferred schema as text (STRUCT<_c0: INT, ...>), computed here.
func schemaOfCSVFn(t *tr, c *ast.Call, a []frag) frag {
	s, ok := t.inferCSVSchema(c)
	if !ok {
		return null(c)
	}
	return at(c, tString, cat(quoteString("STRUCT<"+s+">")))
}

var (
	csvInt     = regexp.MustCompile(`^[+-]?[0-9]+$`)
	csvDouble  = regexp.MustCompile(`^[+-]?([0-9]+\.[0-9]*|\.[0-9]+)$`)
	csvDate    = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	csvUnclear = regexp.MustCompile(`["\\:]|^\s|\s$|^[+-]?[0-9.]*[eE][+-]?[0-9]*$|^[+-]?[0-9.]+[dDfFlL]$`)
)

// inferCSVSchema infers the schema of schema_of_csv's constant record as
// Spark's CSVInferSchema does for the plain cases: INT, BIGINT past it, a
// decimal point DOUBLE, yyyy-MM-dd DATE, true or false BOOLEAN, an empty
// field or any other text STRING, fields named _c0, _c1, ... The
// delimiter option (one character) is read; a field Spark may infer
// otherwise (exponents, quotes, times, white space) is refused.
func (t *tr) inferCSVSchema(c *ast.Call) (string, bool) {
	if len(c.Args) < 1 || len(c.Args) > 2 {
		t.refuse(c, "schema_of_csv takes a record and optional options")
		return "", false
	}
	l, ok := unparenExpr(c.Args[0]).(*ast.Literal)
	if !ok || l.Kind != ast.LitString {
		t.refuse(c.Args[0], "schema_of_csv runs natively over a string literal only")
		return "", false
	}
	sep := ","
	if len(c.Args) == 2 {
		d, ok := delimiterOption(c.Args[1])
		if !ok {
			t.refuse(c.Args[1], "schema_of_csv's options run natively as map('delimiter', 'c') only")
			return "", false
		}
		sep = d
	}
	parts := strings.Split(l.Str.Value, sep)
	out := make([]string, len(parts))
	for i, p := range parts {
		var ty string
		switch {
		case p == "":
			ty = "STRING"
		case csvUnclear.MatchString(p):
			t.refuse(c.Args[0], "schema_of_csv of the field %q does not run natively (Spark may infer it otherwise)", p)
			return "", false
		case csvInt.MatchString(p):
			ty = "BIGINT"
			if n, err := strconv.ParseInt(p, 10, 64); err == nil && n >= -1<<31 && n < 1<<31 {
				ty = "INT"
			} else if err != nil {
				ty = "DECIMAL"
			}
		case csvDouble.MatchString(p):
			ty = "DOUBLE"
		case csvDate.MatchString(p):
			ty = "DATE"
		case strings.EqualFold(p, "true") || strings.EqualFold(p, "false"):
			ty = "BOOLEAN"
		default:
			ty = "STRING"
		}
		if ty == "DECIMAL" {
			t.refuse(c.Args[0], "schema_of_csv of the field %q does not run natively", p)
			return "", false
		}
		out[i] = "_c" + strconv.Itoa(i) + ": " + ty
	}
	return strings.Join(out, ", "), true
}

// delimiterOption reads map('delimiter', 'c') (or 'sep') with one
// character.
func delimiterOption(x ast.Expr) (string, bool) {
	m, ok := unparenExpr(x).(*ast.Call)
	if !ok || !strings.EqualFold(m.Name.String(), "map") || len(m.Args) != 2 {
		return "", false
	}
	k, ok1 := unparenExpr(m.Args[0]).(*ast.Literal)
	v, ok2 := unparenExpr(m.Args[1]).(*ast.Literal)
	if !ok1 || !ok2 || k.Kind != ast.LitString || v.Kind != ast.LitString {
		return "", false
	}
	if key := strings.ToLower(k.Str.Value); key != "delimiter" && key != "sep" || len(v.Str.Value) != 1 {
		return "", false
	}
	return v.Str.Value, true
}

// toCSVFn is to_csv(struct): the fields written as Spark's CSV writer
// does with its default options (checked on Spark 4.1.4): separated by
// commas, NULL as nothing, an empty string as "", a string holding a
// comma or a quote in quotes with the quote escaped by a backslash,
// numbers and booleans as Spark writes them. A string with a backslash,
// a line break or white space at either end (which the writer trims or
// escapes by rules not modelled) fails as not portable; other field types
// are refused.
func toCSVFn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) == 2 {
		t.refuse(c.Args[1], "to_csv's options do not run natively")
		return null(c)
	}
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	st := a[0].typ
	if !st.is(Struct) || len(st.Fields) == 0 {
		t.refuse(c.Args[0], "to_csv runs natively over a struct only, and this is a %s", st)
		return null(c)
	}
	unsure := "error('not-portable: to_csv of a string with a backslash, a line break or white space at an end" + markOpen + strconv.Itoa(t.check(c)) + markClose + "')"
	parts := make([]string, len(st.Fields))
	for i, f := range st.Fields {
		v := "r." + quoteIdent(f.Name)
		switch ty := f.Type; {
		case ty.is(String):
			parts[i] = "CASE WHEN " + v + " IS NULL THEN '' WHEN " + v + " = '' THEN '\"\"' WHEN regexp_matches(" + v + ", '[\\\\\\r\\n]|^\\s|\\s$') THEN " + unsure +
				" WHEN regexp_matches(" + v + ", '[,\"]') THEN '\"' || replace(" + v + ", '\"', '\\\"') || '\"' ELSE " + v + " END"
		case ty.integral(), ty.is(Boolean), ty.is(Decimal) && ty.S <= 6:
			parts[i] = "coalesce(CAST(" + v + " AS VARCHAR), '')"
		case ty.is(Double):
			parts[i] = "coalesce(thund_double_text(" + v + "), '')"
		case ty.is(Null):
			parts[i] = "''"
		default:
			t.refuse(c.Args[0], "to_csv of a %s field does not run natively", ty)
			return null(c)
		}
	}
	return at(c, tString, cat("list_transform([", a[0], "], lambda r: CASE WHEN r IS NULL THEN NULL ELSE "+strings.Join(parts, " || ',' || ")+" END)[1]"))
}
