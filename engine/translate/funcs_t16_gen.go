package translate

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// moreGenerators are generators beyond explode, posexplode and inline:
// generator names them, and generatorItem hands their calls (as a
// SELECT item, in LATERAL VIEW, as a FROM item) to moreGenerator, which
// returns the select items of one generated row set and sets t.genTypes.
var moreGenerators = map[string]bool{"json_tuple": true, "stack": true}

func (t *tr) moreGenerator(g string, c *ast.Call, cols []*ast.Ident) frag {
	if g == "stack" {
		return t.stackItems(c, cols)
	}
	return t.jsonTupleItems(c, cols)
}

var t16GenRegistered = registerT16Generators()

func registerT16Generators() bool {
	f := refused("json_tuple", "json_tuple is a generator: it runs natively as a SELECT item, in LATERAL VIEW or in FROM, not inside an expression")
	for i := range functions {
		if functions[i].Name == f.Name {
			functions[i] = f
			return true
		}
	}
	functions = append(functions, f)
	return true
}

// genNames returns the names of a generator's n output columns: cols
// when given, else prefix0, prefix1, ...; ok is false (a type error
// recorded) when cols does not name n columns.
func (t *tr) genNames(c *ast.Call, cols []*ast.Ident, n int, prefix string) ([]string, bool) {
	if len(cols) > 0 && len(cols) != n {
		t.typeError(c, "UDTF_ALIAS_NUMBER_MISMATCH", "The number of aliases supplied in the AS clause does not match the number of columns output by the UDTF. Expected %d aliases, but got %d. Please ensure that the number of aliases provided matches the number of columns output by the UDTF. SQLSTATE: 42802", n, len(cols))
		return nil, false
	}
	out := make([]string, n)
	for i := range out {
		if i < len(cols) {
			out[i] = cols[i].Name
		} else {
			out[i] = prefix + strconv.Itoa(i)
		}
	}
	return out, true
}

// jsonTupleItems translates json_tuple(json, k1, ..., kn): one row of n
// strings c0..c(n-1), the values of the top-level fields k1..kn of the
// JSON object, as Spark's JsonTuple writes them: a string unquoted, a
// number, true or false as written by Jackson, an object or array in
// Jackson's compact form, NULL for a missing field, a JSON null, a NULL
// key; a row of NULLs for a NULL text or one that is no object or that
// Jackson cannot read (generators.sql, join-lateral.sql). Spark reads
// with Jackson allowing single quotes and unescaped control characters,
// stops at the object's closing brace, and takes the last non-null value
// of a field given twice; a text where DuckDB's reader could disagree
// (single quotes, control characters, a trailing comma, NaN, text after
// the closing brace, a requested field given twice), a number Java
// writes in scientific notation and a nested value holding a fraction
// fail at run time as not portable.
func (t *tr) jsonTupleItems(c *ast.Call, cols []*ast.Ident) frag {
	if len(c.Args) < 2 {
		t.typeError(c, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "The `json_tuple` requires > 1 parameters but the actual number is %d. Please, refer to '%s/sql-ref-functions.html' for a fix. SQLSTATE: 42605", len(c.Args), "https://spark.apache.org/docs/latest")
		return at(c, nil, cat("NULL"))
	}
	args := make([]frag, len(c.Args))
	for i, x := range c.Args {
		if hasGenerator(x) {
			t.typeError(c, "UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS", "The generator is not supported: nested in expressions \"%s\". SQLSTATE: 42K0E", t.text(c))
			return at(c, nil, cat("NULL"))
		}
		args[i] = t.expr(x)
	}
	for i, a := range args {
		switch {
		case a.typ.is(String):
		case !a.typ.known():
			t.refuse(c.Args[i], "the type of this argument of json_tuple is not known here, and Spark takes strings only")
			return at(c, nil, cat("NULL"))
		default:
			// Spark's golden files (generators.sql): json_tuple('{"a":
			// 1}', 1) and json_tuple('{"a": 1}', null) fail.
			t.typeError(c, "DATATYPE_MISMATCH.NON_STRING_TYPE", "Cannot resolve \"%s\" due to data type mismatch: all arguments of the function `json_tuple` must be strings. SQLSTATE: 42K09", t.text(c))
			return at(c, nil, cat("NULL"))
		}
	}
	names, ok := t.genNames(c, cols, len(args)-1, "c")
	if !ok {
		return at(c, nil, cat("NULL"))
	}
	const notPortable = "CAST(error('not-portable: json_tuple of ' || j || ': Spark''s JSON reader (Jackson) and DuckDB''s read this text differently') AS VARCHAR)"
	// ok: the text is an object both read alike (NULL: a row of NULLs).
	okJSON := "CASE WHEN j IS NULL THEN NULL" +
		" WHEN json_valid(j) THEN CASE WHEN regexp_matches(j, '(,\\s*[}\\]])|((?i)[:\\[,]\\s*[-+]?(nan|inf))|[''\\x00-\\x1f]') THEN " + notPortable +
		" WHEN json_type(j) = 'OBJECT' THEN 'ok' ELSE NULL END" +
		" WHEN NOT regexp_matches(j, '^\\s*\\{') THEN NULL" +
		" WHEN regexp_matches(j, '[''\\x00-\\x1f]|\\\\u') THEN " + notPortable +
		" WHEN regexp_full_match(j, '[^}]*(\\}\\s*)?') THEN NULL" +
		" ELSE " + notPortable + " END"
	// The value of field k (a pointer /k) of the object j.
	value := func(k string) string {
		p := "('/' || replace(replace(" + k + ", '~', '~0'), '/', '~1'))"
		v := "json_extract(j, " + p + ")"
		return "CASE WHEN " + k + " IS NULL THEN NULL" +
			" WHEN len(list_filter(json_keys(j), lambda n: n = " + k + ")) > 1 THEN CAST(error('not-portable: json_tuple of ' || j || ': the field ' || " + k + " || ' is given twice, and Spark takes its last value that is not null') AS VARCHAR)" +
			" ELSE CASE json_type(" + v + ")" +
			" WHEN 'NULL' THEN NULL WHEN 'VARCHAR' THEN json_extract_string(j, " + p + ")" +
			" WHEN 'BIGINT' THEN CAST(" + v + " AS VARCHAR) WHEN 'UBIGINT' THEN CAST(" + v + " AS VARCHAR) WHEN 'BOOLEAN' THEN CAST(" + v + " AS VARCHAR)" +
			" WHEN 'DOUBLE' THEN thund_double_text(CAST(" + v + " AS DOUBLE))" +
			" WHEN 'OBJECT' THEN CASE WHEN regexp_full_match(CAST(" + v + " AS VARCHAR), '(\"[^\"\\\\\\x00-\\x1f]*\"|-?(0|[1-9][0-9]*)|true|false|null|[\\[\\]{},:])*') THEN CAST(" + v + " AS VARCHAR) ELSE " + nestedNotPortable + " END" +
			" WHEN 'ARRAY' THEN CASE WHEN regexp_full_match(CAST(" + v + " AS VARCHAR), '(\"[^\"\\\\\\x00-\\x1f]*\"|-?(0|[1-9][0-9]*)|true|false|null|[\\[\\]{},:])*') THEN CAST(" + v + " AS VARCHAR) ELSE " + nestedNotPortable + " END" +
			" ELSE NULL END END"
	}
	// One struct of the n values, computed once per row.
	var keys []frag
	for i := 1; i < len(args); i++ {
		keys = append(keys, cat(", 'k"+strconv.Itoa(i)+"': ", args[i]))
	}
	var vals []string
	for i := 1; i < len(args); i++ {
		vals = append(vals, "'f"+strconv.Itoa(i)+"': "+value("p.k"+strconv.Itoa(i)))
	}
	row := cat("list_transform([{'j': ", args[0], join(keys, ""), "}], lambda p: list_transform([p.j], lambda j: CASE WHEN ("+okJSON+") IS NULL THEN NULL ELSE {"+strings.Join(vals, ", ")+"} END)[1])[1]")
	t.genTypes = nil
	var items []frag
	for i, n := range names {
		t.genTypes = append(t.genTypes, tString)
		if i > 0 {
			items = append(items, cat(", "))
		}
		items = append(items, cat("CAST(unnest([", row, "])."+quoteIdent("f"+strconv.Itoa(i+1))+" AS VARCHAR) AS ", quoteIdent(n)))
	}
	return at(c, nil, join(items, ""))
}

// nestedNotPortable fails a nested value of json_tuple that Jackson and
// DuckDB may write differently (a fraction, an escape).
const nestedNotPortable = "CAST(error('not-portable: json_tuple of ' || j || ': a nested value with a fraction or an escape is written differently by Spark (Jackson) and DuckDB') AS VARCHAR)"

// stackItems translates stack(n, e1, ..., ek) as select items: n rows
// of ceil(k/n) columns col0, col1, ... (or the aliases), the values in
// row order, NULL where they run out, as stackRows does for a FROM item:
// each column an unnest of its n values, side by side.
func (t *tr) stackItems(c *ast.Call, cols []*ast.Ident) frag {
	if len(c.Args) < 2 {
		t.typeError(c, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "The `stack` requires > 1 parameters but the actual number is %d. Please, refer to '%s/sql-ref-functions.html' for a fix. SQLSTATE: 42605", len(c.Args), "https://spark.apache.org/docs/latest")
		return at(c, nil, cat("NULL"))
	}
	n, ok := stackCount(c.Args[0])
	if !ok {
		t.refuse(c.Args[0], "stack runs natively with a positive integer literal as its number of rows only")
		return at(c, nil, cat("NULL"))
	}
	vals := c.Args[1:]
	width := (len(vals) + n - 1) / n
	names, ok := t.genNames(c, cols, width, "col")
	if !ok {
		return at(c, nil, cat("NULL"))
	}
	fs := make([]frag, len(vals))
	types := make([]*Type, width)
	for i, v := range vals {
		if hasGenerator(v) {
			t.typeError(c, "UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS", "The generator is not supported: nested in expressions \"%s\". SQLSTATE: 42K0E", t.text(c))
			return at(c, nil, cat("NULL"))
		}
		fs[i] = t.expr(v)
		j := i % width
		ty := fs[i].typ
		switch {
		case !ty.known():
			t.refuse(v, "the type of this value of stack is not known here, and Spark wants the values of a column of one type")
			return at(c, nil, cat("NULL"))
		case ty.is(Null):
		case types[j] == nil || types[j].is(Null):
			types[j] = ty
		case types[j].String() != ty.String():
			t.typeError(c, "DATATYPE_MISMATCH.STACK_COLUMN_DIFF_TYPES", "Cannot resolve \"%s\" due to data type mismatch: The data type of the column (%d) do not have the same type: \"%s\" <> \"%s\". SQLSTATE: 42K09",
				t.text(c), j, strings.ToUpper(types[j].String()), strings.ToUpper(ty.String()))
			return at(c, nil, cat("NULL"))
		}
		if types[j] == nil {
			types[j] = ty
		}
	}
	for j, ty := range types {
		if ty == nil || ty.has(Null) {
			t.refuse(c, "a column of stack holding NULL alone has Spark's type VOID, which the native engine cannot give; give its values a type: CAST(NULL AS INT)")
			return at(c, nil, cat("NULL"))
		}
		if ty.has(IntervalKind) || ty.duck() == "" {
			t.refuse(vals[j], "a %s value of stack does not run natively", ty)
			return at(c, nil, cat("NULL"))
		}
	}
	t.genTypes = types
	var items []frag
	for j := 0; j < width; j++ {
		list := []frag{cat("unnest([")}
		for r := 0; r < n; r++ {
			if r > 0 {
				list = append(list, cat(", "))
			}
			v := cat("NULL")
			if k := r*width + j; k < len(vals) {
				v = fs[k]
			}
			list = append(list, cat("CAST(", v, " AS "+types[j].duck()+")"))
		}
		if j > 0 {
			items = append(items, cat(", "))
		}
		items = append(items, join(list, ""), cat("]) AS ", quoteIdent(names[j])))
	}
	return at(c, nil, join(items, ""))
}
