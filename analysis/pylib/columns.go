package pylib

import (
	"fmt"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// This file maps the Column expressions beyond names, lit and expr: the
// functions of pyspark.sql.functions that are Spark SQL's function of the
// same name over columns, Column operators (==, &, ~, +...), Column
// methods (isNull, cast, alias...) and columns of a DataFrame variable
// (df.x, df["x"]), which a join reads by side.

// clockFuncs are the functions of no argument that read the run's clock:
// pyspark's current_timestamp() is Spark SQL's current_timestamp(), and
// so on; Spark names the column as the SQL call is written.
var clockFuncs = map[string]string{
	"current_timestamp": "current_timestamp()",
	"current_date":      "current_date()",
}

// columnFuncs are functions of pyspark.sql.functions that call Spark SQL's
// function of the same name with their arguments as columns (a string is
// a column's name), with how many arguments each takes (-1: one or
// more). The native run translates the SQL as it translates a .sql
// file's, and refuses there what it cannot compute as Spark does.
var columnFuncs = map[string]int{
	"upper": 1, "lower": 1, "trim": 1, "ltrim": 1, "rtrim": 1, "initcap": 1, "length": 1, "reverse": 1,
	"abs": 1, "sqrt": 1, "isnull": 1, "md5": 1, "sha1": 1,
	"year": 1, "month": 1, "dayofmonth": 1, "hour": 1, "minute": 1, "second": 1,
	"concat": -1, "coalesce": -1, "greatest": -1, "least": -1,
	"size": 1,
}

// roundFuncs are the functions of a column and an optional scale (an
// integer literal, 0 when not given).
var roundFuncs = map[string]bool{"round": true, "bround": true}

// unportableFuncs are functions whose Spark values the native engine
// does not compute, and why.
var unportableFuncs = map[string]string{
	"hash":                        "Spark's hash() is Murmur3_x86_32 (seed 42) over Spark's own binary forms of its arguments, and DuckDB's hash() is another function, so the native run would give other numbers: key the rows with the columns themselves (or a sha2/md5 of them), or run the dataset on Spark",
	"xxhash64":                    "Spark's xxhash64() hashes Spark's own binary forms of its arguments (seed 42), which the native engine does not compute as Spark does: key the rows with the columns themselves, or run the dataset on Spark",
	"monotonically_increasing_id": "monotonically_increasing_id() numbers rows by Spark's partitions, which the native run does not have, so its values would differ",
	"rand":                        "rand() draws from Spark's own generator, whose values the native run cannot reproduce",
	"randn":                       "randn() draws from Spark's own generator, whose values the native run cannot reproduce",
	"uuid":                        "uuid() gives random values the native run cannot reproduce",
}

// comparisons are Python's comparison operators on Columns and Spark
// SQL's.
var comparisons = map[string]string{"==": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

// binaryOps are Python's binary operators on Columns and Spark SQL's: &
// and | are Column's and/or, the arithmetic ones Spark's.
var binaryOps = map[string]string{"&": "AND", "|": "OR", "+": "+", "-": "-", "*": "*", "/": "/", "%": "%"}

// operand maps an operand of a Column operator: a Python literal is lit(v)
// there (a string is a string, not a column), anything else a Column.
func (r *reader) operand(n *sitter.Node) (colx, string) {
	if s, _, ok := r.sqlValue(r.constant(n)); ok {
		return colx{sql: s}, ""
	}
	return r.colExpr(n, false)
}

// opExpr maps a Column operator expression, or ok is false when n is
// none.
func (r *reader) opExpr(n *sitter.Node) (x colx, why string, ok bool) {
	switch n.Kind() {
	case "comparison_operator":
		ops := children(n)
		var sym []string
		for i := uint(0); i < n.ChildCount(); i++ {
			if c := n.Child(i); !c.IsNamed() {
				sym = append(sym, r.srcOf(c))
			}
		}
		if len(ops) != 2 || len(sym) != 1 || comparisons[sym[0]] == "" {
			return colx{}, fmt.Sprintf("%s compares in a way Thund does not state in SQL (one comparison of two Columns: ==, !=, <, <=, >, >=)", clip(r.srcOf(n))), true
		}
		a, w := r.operand(ops[0])
		if w != "" {
			return colx{}, w, true
		}
		b, w := r.operand(ops[1])
		if w != "" {
			return colx{}, w, true
		}
		return colx{sql: "(" + a.sql + " " + comparisons[sym[0]] + " " + b.sql + ")"}, "", true
	case "binary_operator":
		op := n.ChildByFieldName("operator")
		if op == nil || binaryOps[r.srcOf(op)] == "" {
			return colx{}, fmt.Sprintf("%s uses an operator Thund does not state in SQL", clip(r.srcOf(n))), true
		}
		a, w := r.operand(n.ChildByFieldName("left"))
		if w != "" {
			return colx{}, w, true
		}
		b, w := r.operand(n.ChildByFieldName("right"))
		if w != "" {
			return colx{}, w, true
		}
		return colx{sql: "(" + a.sql + " " + binaryOps[r.srcOf(op)] + " " + b.sql + ")"}, "", true
	case "unary_operator":
		op := n.ChildByFieldName("operator")
		if op == nil {
			return colx{}, "an operator Thund does not read", true
		}
		a, w := r.operand(n.ChildByFieldName("argument"))
		if w != "" {
			return colx{}, w, true
		}
		switch r.srcOf(op) {
		case "~":
			return colx{sql: "(NOT " + a.sql + ")"}, "", true
		case "-":
			return colx{sql: "(- " + a.sql + ")"}, "", true
		}
		return colx{}, fmt.Sprintf("%s uses an operator Thund does not state in SQL", clip(r.srcOf(n))), true
	case "boolean_operator", "not_operator":
		return colx{}, fmt.Sprintf("%s uses Python's and/or/not, which pyspark refuses on Columns (ValueError): write & | ~", clip(r.srcOf(n))), true
	}
	return colx{}, "", false
}

// frameColumn maps df.x and df["x"] for a DataFrame variable df of the
// body: the column x, qualified by df's side when the frame being stepped
// on is a join of it; ok is false when n is no such reference.
func (r *reader) frameColumn(n *sitter.Node) (x colx, why string, ok bool) {
	var obj *sitter.Node
	var name string
	switch n.Kind() {
	case "attribute":
		obj = unparen(n.ChildByFieldName("object"))
		if a := n.ChildByFieldName("attribute"); a != nil {
			name = r.srcOf(a)
		}
	case "subscript":
		obj = unparen(n.ChildByFieldName("value"))
		subs := children(n)
		if len(subs) != 2 {
			return colx{}, "", false
		}
		v, isLit := r.literal(subs[1])
		if !isLit {
			return colx{}, fmt.Sprintf("%s names a column computed at run time", clip(r.srcOf(n))), true
		}
		name = v.Value
	default:
		return colx{}, "", false
	}
	if obj == nil || obj.Kind() != "identifier" || name == "" {
		return colx{}, "", false
	}
	v := r.srcOf(obj)
	fr, isFrame := r.env[v]
	if !isFrame {
		return colx{}, "", false
	}
	if n.Kind() == "attribute" {
		// pyspark's df.x looks x up among the DataFrame's columns, by
		// its exact name (ATTRIBUTE_NOT_SUPPORTED otherwise, checked on
		// Spark Connect 4.1.4); df["x"] resolves as SQL does.
		if fr.cols == nil {
			r.needCols = true
			return colx{}, fmt.Sprintf("%s needs the DataFrame's columns (pyspark looks the attribute up among them), and %s", clip(r.srcOf(n)), ColumnsUnknown), true
		}
		found := false
		for _, c := range fr.cols {
			found = found || c == name
		}
		if !found {
			return colx{}, fmt.Sprintf("%s: the DataFrame %s has no column named exactly %s, so pyspark fails with ATTRIBUTE_NOT_SUPPORTED (df[%q] matches the name as SQL does)", clip(r.srcOf(n)), v, name, name), true
		}
	}
	if r.cur != nil {
		if alias, joined := r.cur.sides[v]; joined {
			return colx{sql: quoteName(alias) + "." + quoteName(name), name: name}, "", true
		}
		if len(r.cur.sides) > 0 {
			return colx{}, fmt.Sprintf("%s is a column of a DataFrame that is not a side of the join here", clip(r.srcOf(n))), true
		}
	}
	return colx{sql: quoteName(name), name: name}, "", true
}

// columnMethod maps a Column method call x.m(...) for the methods Spark
// SQL states (alias, name, isNull, isNotNull, cast, astype, like, rlike,
// isin); ok is false when n is no such call.
func (r *reader) columnMethod(fn *sitter.Node, args []*sitter.Node, kw map[string]*sitter.Node) (x colx, why string, ok bool) {
	if fn.Kind() != "attribute" {
		return colx{}, "", false
	}
	base := unparen(fn.ChildByFieldName("object"))
	if base == nil {
		return colx{}, "", false
	}
	switch base.Kind() {
	case "call", "attribute", "subscript", "parenthesized_expression", "comparison_operator", "binary_operator":
	case "identifier":
		if _, isFrame := r.env[r.srcOf(base)]; isFrame {
			return colx{}, "", false // a DataFrame's method, not a Column's
		}
		return colx{}, "", false // a module's function (F.upper)
	default:
		return colx{}, "", false
	}
	if base.Kind() == "attribute" {
		if _, _, isCol := r.frameColumn(base); !isCol {
			return colx{}, "", false // F.col.x: not a Column
		}
	}
	m := r.srcOf(fn.ChildByFieldName("attribute"))
	switch m {
	case "alias", "name", "isNull", "isNotNull", "cast", "astype", "like", "rlike", "isin", "when", "otherwise", "between", "over":
	case "asc", "desc", "asc_nulls_first", "asc_nulls_last", "desc_nulls_first", "desc_nulls_last":
		return colx{}, fmt.Sprintf(".%s() is a sort order, which only .orderBy / .sort take", m), true
	default:
		return colx{}, "", false
	}
	b, w := r.colExpr(base, false)
	if w != "" {
		return colx{}, w, true
	}
	if b.star {
		return colx{}, "a method of *", true
	}
	switch m {
	case "alias", "name":
		a, isLit := r.literal(arg(args, kw, 0, "alias"))
		if !isLit || len(args) > 1 {
			return colx{}, fmt.Sprintf(".%s is given a name computed at run time", m), true
		}
		return colx{sql: b.sql + " AS " + quoteName(a.Value), name: a.Value}, "", true
	case "isNull":
		return colx{sql: "(" + b.sql + " IS NULL)"}, "", true
	case "isNotNull":
		return colx{sql: "(" + b.sql + " IS NOT NULL)"}, "", true
	case "cast", "astype":
		a := arg(args, kw, 0, "dataType")
		if a == nil || len(args)+len(kw) != 1 {
			return colx{}, fmt.Sprintf(".%s takes one type", m), true
		}
		t, w := r.castType(a)
		if w != "" {
			return colx{}, fmt.Sprintf(".%s(%s): %s", m, clip(r.srcOf(a)), w), true
		}
		return colx{sql: "CAST(" + b.sql + " AS " + t + ")"}, "", true
	case "when":
		if b.cases == nil {
			return colx{}, ".when applies only to a Column F.when(...) made (pyspark refuses it on any other)", true
		}
		part, w := r.whenPart(args, kw)
		if w != "" {
			return colx{}, w, true
		}
		cases := append(append([]string(nil), b.cases...), part)
		return colx{sql: "CASE " + strings.Join(cases, " ") + " END", cases: cases}, "", true
	case "otherwise":
		if b.cases == nil {
			return colx{}, ".otherwise applies only to a Column F.when(...) made (pyspark refuses it on any other)", true
		}
		v := arg(args, kw, 0, "value")
		if v == nil || len(args)+len(kw) != 1 {
			return colx{}, ".otherwise takes one value", true
		}
		x, w := r.operand(v)
		if w != "" {
			return colx{}, w, true
		}
		return colx{sql: "CASE " + strings.Join(b.cases, " ") + " ELSE " + x.sql + " END"}, "", true
	case "over":
		w := arg(args, kw, 0, "window")
		if w == nil || len(args)+len(kw) != 1 {
			return colx{}, ".over takes one window", true
		}
		x, why := r.over(b, w)
		return x, why, true
	case "between":
		lo, hi := arg(args, kw, 0, "lowerBound"), arg(args, kw, 1, "upperBound")
		if lo == nil || hi == nil || len(args)+len(kw) != 2 {
			return colx{}, ".between takes a lower and an upper bound", true
		}
		l, w := r.operand(lo)
		if w != "" {
			return colx{}, w, true
		}
		h, w := r.operand(hi)
		if w != "" {
			return colx{}, w, true
		}
		// pyspark's between is (x >= lower) & (x <= upper).
		return colx{sql: "((" + b.sql + " >= " + l.sql + ") AND (" + b.sql + " <= " + h.sql + "))"}, "", true
	case "like", "rlike":
		p, isLit := r.literal(arg(args, kw, 0, "other"))
		if !isLit || len(args) != 1 {
			return colx{}, fmt.Sprintf(".%s is given a pattern computed at run time", m), true
		}
		return colx{sql: "(" + b.sql + " " + strings.ToUpper(m) + " " + sqlString(p.Value) + ")"}, "", true
	case "isin":
		var vals []string
		for _, a := range spread(args) {
			s, _, isLit := r.sqlValue(r.constant(a))
			if !isLit {
				return colx{}, ".isin is given a value Thund does not read as a literal", true
			}
			vals = append(vals, s)
		}
		if len(vals) == 0 || len(kw) > 0 {
			return colx{}, ".isin without values", true
		}
		return colx{sql: "(" + b.sql + " IN (" + strings.Join(vals, ", ") + "))"}, "", true
	}
	return colx{}, "", false
}

// funcCall maps a call of a pyspark.sql.functions function f beyond col,
// lit, expr and the aggregates; ok is false when f is none Thund knows.
func (r *reader) funcCall(f string, args []*sitter.Node, kw map[string]*sitter.Node) (x colx, why string, ok bool) {
	if why, bad := unportableFuncs[f]; bad {
		return colx{}, fmt.Sprintf("it calls %s(...), which the native engine does not compute as Spark does: %s", f, why), true
	}
	if sql, clock := clockFuncs[f]; clock {
		if len(args) > 0 || len(kw) > 0 {
			return colx{}, fmt.Sprintf("%s takes no argument", f), true
		}
		return colx{sql: sql, name: sql}, "", true
	}
	switch {
	case f == "when":
		part, w := r.whenPart(args, kw)
		if w != "" {
			return colx{}, w, true
		}
		return colx{sql: "CASE " + part + " END", cases: []string{part}}, "", true
	case roundFuncs[f]:
		return r.roundCall(f, args, kw)
	case signatures[f] != "":
		return r.signedCall(f, signatures[f], args, kw)
	}
	if x, w, ok := r.windowFunc(f, args, kw); ok {
		return x, w, true
	}
	want, known := columnFuncs[f]
	if !known {
		return colx{}, "", false
	}
	if len(kw) > 0 || (want > 0 && len(args) != want) || len(args) == 0 {
		return colx{}, fmt.Sprintf("%s with %d arguments", f, len(args)), true
	}
	var parts []string
	for _, a := range args {
		c, w := r.colExpr(a, true)
		if w != "" {
			return colx{}, w, true
		}
		if c.star {
			return colx{}, fmt.Sprintf("%s(*)", f), true
		}
		parts = append(parts, c.sql)
	}
	return colx{sql: f + "(" + strings.Join(parts, ", ") + ")"}, "", true
}

// whenPart maps when(condition, value)'s arguments to WHEN ... THEN ...:
// the value is a literal unless it is a Column, as pyspark reads it.
func (r *reader) whenPart(args []*sitter.Node, kw map[string]*sitter.Node) (string, string) {
	c, v := arg(args, kw, 0, "condition"), arg(args, kw, 1, "value")
	if c == nil || v == nil || len(args)+len(kw) != 2 {
		return "", "when takes a condition and a value"
	}
	cond, w := r.colExpr(c, false)
	if w != "" {
		return "", w
	}
	val, w := r.operand(v)
	if w != "" {
		return "", w
	}
	return "WHEN " + cond.sql + " THEN " + val.sql, ""
}

// roundCall maps round(col, scale=0) and bround(col, scale=0): Spark
// SQL's functions of the same names (HALF_UP and HALF_EVEN), which the
// native run computes as Spark does or refuses.
func (r *reader) roundCall(f string, args []*sitter.Node, kw map[string]*sitter.Node) (colx, string, bool) {
	c := arg(args, kw, 0, "col")
	if c == nil || len(args)+len(kw) > 2 {
		return colx{}, fmt.Sprintf("%s takes a column and a scale", f), true
	}
	x, w := r.colExpr(c, true)
	if w != "" {
		return colx{}, w, true
	}
	if x.star {
		return colx{}, fmt.Sprintf("%s(*)", f), true
	}
	s := arg(args, kw, 1, "scale")
	if s == nil || r.srcOf(s) == "None" {
		return colx{sql: f + "(" + x.sql + ", 0)"}, "", true
	}
	n, ok := r.integer(s)
	if !ok {
		return colx{}, fmt.Sprintf("%s is given a scale Thund does not read as an integer literal", f), true
	}
	return colx{sql: fmt.Sprintf("%s(%s, %d)", f, x.sql, n)}, "", true
}

// signatures are functions of pyspark.sql.functions whose arguments are
// not all columns, each the Spark SQL function of the same name: per
// argument, c a Column (a string is a column's name), s a Python string
// (a literal, as pyspark passes it), i an integer, n an integer or a
// Column (date_add's days: pyspark makes an int a literal and reads a
// string as a column's name), v a value (a Python literal of any type,
// or a Column); a ? makes
// the rest optional, and a trailing c* takes one or more Columns.
var signatures = map[string]string{
	"date_format": "cs", "to_date": "c?s", "to_timestamp": "c?s",
	"regexp_replace": "css", "regexp_extract": "csi", "split": "cs?i",
	"concat_ws": "sc*", "substring": "cii", "lpad": "cis", "rpad": "cis",
	"date_add": "cn", "date_sub": "cn", "datediff": "cc", "months_between": "cc",
	"floor": "c", "ceil": "c", "dayofweek": "c", "weekofyear": "c", "quarter": "c",
	"ifnull": "cc", "nvl": "cc", "nullif": "cc",
	"sha2": "ci", "crc32": "c", "hex": "c", "base64": "c", "last_day": "c", "add_months": "cn",
	"from_unixtime": "c?s", "date_trunc": "sc", "trunc": "cs", "instr": "cs", "locate": "sc?i",
	"format_number": "ci", "translate": "css", "struct": "c*", "array": "c*",
	"explode": "c", "explode_outer": "c", "array_contains": "cv", "element_at": "cv", "array_distinct": "c",
	"flatten": "c", "array_join": "cs?s", "get_json_object": "cs", "signum": "c", "exp": "c",
}

// signedCall maps a call of f by its signature (see signatures).
func (r *reader) signedCall(f, sig string, args []*sitter.Node, kw map[string]*sitter.Node) (colx, string, bool) {
	if len(kw) > 0 {
		return colx{}, fmt.Sprintf("%s with keyword arguments", f), true
	}
	var parts []string
	optional := false
	i := 0
	for k := 0; k < len(sig); k++ {
		kind := sig[k]
		if kind == '?' {
			optional = true
			continue
		}
		variadic := k+1 < len(sig) && sig[k+1] == '*'
		if i >= len(args) {
			if optional {
				break
			}
			return colx{}, fmt.Sprintf("%s with %d arguments", f, len(args)), true
		}
		for {
			p, w := r.signedArg(f, kind, args[i])
			if w != "" {
				return colx{}, w, true
			}
			parts = append(parts, p)
			i++
			if !variadic || i >= len(args) {
				break
			}
		}
		if variadic {
			k++
		}
	}
	if i != len(args) {
		return colx{}, fmt.Sprintf("%s with %d arguments", f, len(args)), true
	}
	return colx{sql: f + "(" + strings.Join(parts, ", ") + ")"}, "", true
}

// signedArg maps one argument of kind c, s or i.
func (r *reader) signedArg(f string, kind byte, a *sitter.Node) (string, string) {
	switch kind {
	case 'v':
		x, w := r.operand(a)
		return x.sql, w
	case 's':
		v, ok := r.literal(a)
		if !ok {
			return "", fmt.Sprintf("%s is given a text Thund does not read as a string literal (%s)", f, clip(r.srcOf(a)))
		}
		return sqlString(v.Value), ""
	case 'n':
		if v, ok := r.integer(a); ok {
			return fmt.Sprint(v), ""
		}
	case 'i':
		v, ok := r.integer(a)
		if !ok {
			return "", fmt.Sprintf("%s is given a number Thund does not read as an integer literal (%s)", f, clip(r.srcOf(a)))
		}
		return fmt.Sprint(v), ""
	}
	c, w := r.colExpr(a, true)
	if w != "" {
		return "", w
	}
	if c.star {
		return "", fmt.Sprintf("%s(*)", f)
	}
	return c.sql, ""
}
