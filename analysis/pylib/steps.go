package pylib

import (
	"fmt"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// This file maps the DataFrame steps beyond dataframe.go's: orderBy /
// sort with their sort orders, and dropDuplicates over a subset of
// columns.

// sortFuncs are the functions of pyspark.sql.functions that give a sort
// order of a column, and the order each is in Spark SQL (Spark's asc
// puts NULLs first, its desc last).
var sortFuncs = map[string]string{
	"asc": "ASC NULLS FIRST", "desc": "DESC NULLS LAST",
	"asc_nulls_first": "ASC NULLS FIRST", "asc_nulls_last": "ASC NULLS LAST",
	"desc_nulls_first": "DESC NULLS FIRST", "desc_nulls_last": "DESC NULLS LAST",
}

// orderBy maps df.orderBy(...) / df.sort(...): each argument a column
// name, a Column, or a sort order of one (F.desc("x"), col("x").desc());
// ascending= a bool or a list of them, as pyspark takes it.
func (r *reader) orderBy(in frame, method string, args []*sitter.Node, kw map[string]*sitter.Node) (frame, string) {
	args = spread(args)
	if len(args) == 0 {
		return frame{}, fmt.Sprintf(".%s() without columns", method)
	}
	if in.streams() {
		return frame{}, fmt.Sprintf(".%s sorts a stream, which Spark refuses (Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode): sort in a materialized view that reads the streaming table", method)
	}
	for k := range kw {
		if k != "ascending" {
			return frame{}, fmt.Sprintf(".%s(%s=...) is not an argument Thund reads", method, k)
		}
	}
	asc, w := r.ascending(kw["ascending"], len(args), method)
	if w != "" {
		return frame{}, w
	}
	var items []string
	for i, a := range args {
		item, explicit, w := r.sortItem(a)
		if w != "" {
			return frame{}, fmt.Sprintf(".%s(%s): %s", method, clip(r.srcOf(a)), w)
		}
		switch {
		case asc == nil:
			if !explicit {
				item += " ASC NULLS FIRST"
			}
		case explicit:
			return frame{}, fmt.Sprintf(".%s gives %s its own order and ascending= another: give one of them", method, clip(r.srcOf(a)))
		case asc[i]:
			item += " ASC NULLS FIRST"
		default:
			item += " DESC NULLS LAST"
		}
		items = append(items, item)
	}
	q := "SELECT * FROM " + in.selectFrom() + " ORDER BY " + strings.Join(items, ", ")
	return frame{query: q, cols: in.cols, types: in.types, ordered: true}, ""
}

// ascending reads orderBy's ascending= for n columns: nil when not
// given, else one bool per column (a bool, or 0/1, for all of them; a
// list, one per column).
func (r *reader) ascending(n *sitter.Node, cols int, method string) ([]bool, string) {
	if n == nil {
		return nil, ""
	}
	one := func(v *sitter.Node) (bool, bool) {
		v = unparen(r.constant(v))
		switch v.Kind() {
		case "true":
			return true, true
		case "false":
			return false, true
		}
		if i, ok := r.integer(v); ok && (i == 0 || i == 1) {
			return i == 1, true
		}
		return false, false
	}
	if b, ok := one(n); ok {
		out := make([]bool, cols)
		for i := range out {
			out[i] = b
		}
		return out, ""
	}
	l := unparen(r.constant(n))
	if l.Kind() != "list" && l.Kind() != "tuple" {
		return nil, fmt.Sprintf(".%s is given ascending= computed at run time", method)
	}
	var out []bool
	for _, c := range children(l) {
		b, ok := one(c)
		if !ok {
			return nil, fmt.Sprintf(".%s is given ascending= computed at run time", method)
		}
		out = append(out, b)
	}
	if len(out) != cols {
		return nil, fmt.Sprintf(".%s is given %d columns and %d ascending= values, which pyspark refuses", method, cols, len(out))
	}
	return out, ""
}

// sortItem maps one sort argument: explicit is set when it gives its own
// order (F.desc("x"), col("x").asc_nulls_last()).
func (r *reader) sortItem(n *sitter.Node) (sql string, explicit bool, why string) {
	fn, args, kw, _, isCall := r.call(r.constant(n))
	if isCall && len(kw) == 0 {
		fn = unparen(fn)
		if fn.Kind() == "attribute" && len(args) == 0 {
			if order, ok := sortFuncs[r.srcOf(fn.ChildByFieldName("attribute"))]; ok {
				if base := unparen(fn.ChildByFieldName("object")); base != nil && r.isColumnBase(base) {
					x, w := r.colExpr(base, false)
					if w != "" {
						return "", false, w
					}
					return x.sql + " " + order, true, ""
				}
			}
		}
		if f, ok := r.funcName(fn); ok && len(args) == 1 {
			if order, ok := sortFuncs[f]; ok {
				x, w := r.colExpr(args[0], true)
				if w != "" {
					return "", false, w
				}
				return x.sql + " " + order, true, ""
			}
		}
	}
	x, w := r.colExpr(n, true)
	if w != "" {
		return "", false, w
	}
	if x.star {
		return "", false, "a sort by *"
	}
	return x.sql, false, ""
}

// isColumnBase reports whether n, the object of a method call, is a
// Column expression (a call, an operator, df.x) rather than a module
// (F.desc is a function, not a method).
func (r *reader) isColumnBase(n *sitter.Node) bool {
	switch n.Kind() {
	case "call", "subscript", "comparison_operator", "binary_operator", "parenthesized_expression":
		return true
	case "attribute":
		_, _, isCol := r.frameColumn(n)
		return isCol
	}
	return false
}

// dropDuplicates maps df.dropDuplicates() (every column: DISTINCT) and
// df.dropDuplicates([columns]) when the columns are every column of the
// frame. Over fewer columns Spark keeps, per key, the first row it
// meets, which depends on its partitions and the order it reads the
// rows in: the native run has no such order, so it is refused.
func (r *reader) dropDuplicates(in frame, method string, args []*sitter.Node, kw map[string]*sitter.Node) (frame, string) {
	keep := frame{query: "SELECT DISTINCT * FROM " + in.from(), cols: in.cols, types: in.types}
	sub := arg(args, kw, 0, "subset")
	if len(args) > 1 || len(kw) > 1 || len(kw) == 1 && kw["subset"] == nil {
		return frame{}, fmt.Sprintf(".%s takes one list of column names", method)
	}
	if sub == nil || r.srcOf(sub) == "None" {
		return keep, ""
	}
	var keys []string
	l := unparen(r.constant(sub))
	if l.Kind() != "list" && l.Kind() != "tuple" {
		return frame{}, fmt.Sprintf(".%s is given columns computed at run time", method)
	}
	for _, c := range children(l) {
		v, ok := r.literal(c)
		if !ok {
			return frame{}, fmt.Sprintf(".%s is given a column name computed at run time", method)
		}
		keys = append(keys, v.Value)
	}
	if in.cols != nil && len(keys) > 0 && coversAll(keys, in.cols) {
		return keep, ""
	}
	return frame{}, fmt.Sprintf(".%s(%s) keeps one row per %s, the first one Spark meets, which depends on how Spark partitions and reads the rows: the native run cannot pick the same one (not portable); use .select(...) of the key columns with .distinct(), or .groupBy(...).agg(...) with the value each key keeps",
		method, clip(r.srcOf(sub)), strings.Join(keys, ", "))
}

// coversAll reports whether keys name every column of cols.
func coversAll(keys, cols []string) bool {
	for _, c := range cols {
		found := false
		for _, k := range keys {
			found = found || strings.EqualFold(k, c)
		}
		if !found {
			return false
		}
	}
	return true
}

// streams reports whether the frame reads a stream (a streaming table
// read or load in its SQL).
func (f frame) streams() bool {
	return strings.HasPrefix(f.table, "STREAM(") || strings.HasPrefix(f.table, "STREAM read_files(") || strings.Contains(f.query, "FROM STREAM(") || strings.Contains(f.query, "FROM STREAM read_files(") ||
		strings.Contains(f.joinFrom, "STREAM(")
}

// withColumns maps df.withColumns({"a": <Column>, ...}): every column
// computed over the input (not over one another, as pyspark's
// withColumns does it), each replacing the input's column of its name in
// place or added after them, in the dict's order.
func (r *reader) withColumns(in frame, args []*sitter.Node, kw map[string]*sitter.Node) (frame, string) {
	if len(args) != 1 || len(kw) > 0 {
		return frame{}, ".withColumns takes one dict of names to Columns"
	}
	d := unparen(r.constant(args[0]))
	if d == nil || d.Kind() != "dictionary" {
		return frame{}, ".withColumns is given a dict computed at run time"
	}
	var names, exprs []string
	for _, p := range children(d) {
		k, ok := r.literal(p.ChildByFieldName("key"))
		if p.Kind() != "pair" || !ok {
			return frame{}, ".withColumns is given a column name computed at run time"
		}
		x, w := r.colExpr(p.ChildByFieldName("value"), false)
		if w != "" {
			return frame{}, fmt.Sprintf(".withColumns(%q: ...): %s", k.Value, w)
		}
		for _, n := range names {
			if strings.EqualFold(n, k.Value) {
				return frame{}, fmt.Sprintf(".withColumns names %s twice, which pyspark refuses", k.Value)
			}
		}
		names, exprs = append(names, k.Value), append(exprs, x.sql)
	}
	if len(names) == 0 {
		return frame{query: "SELECT * FROM " + in.from(), cols: in.cols, types: in.types}, ""
	}
	if in.cols == nil {
		r.needCols = true
		return frame{needs: ".withColumns(...) replaces the columns of its names the DataFrame has, and " + ColumnsUnknown + " (give the input a sample, or .select(...) its columns first)",
			query: "SELECT * FROM " + in.from()}, ""
	}
	var items, cols []string
	done := make([]bool, len(names))
	for _, c := range in.cols {
		replaced := false
		for i, n := range names {
			if !done[i] && strings.EqualFold(c, n) {
				items, cols, done[i], replaced = append(items, exprs[i]+" AS "+quoteName(n)), append(cols, n), true, true
				break
			}
		}
		if !replaced {
			items, cols = append(items, quoteName(c)), append(cols, c)
		}
	}
	for i, n := range names {
		if !done[i] {
			items, cols = append(items, exprs[i]+" AS "+quoteName(n)), append(cols, n)
		}
	}
	return frame{query: "SELECT " + strings.Join(items, ", ") + " FROM " + in.selectFrom(), cols: cols}, ""
}
