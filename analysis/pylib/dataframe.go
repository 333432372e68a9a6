package pylib

import (
	"fmt"
	"strconv"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// This file maps the DataFrame methods whose meaning Spark SQL states
// exactly (select, filter, withColumn, join, groupBy(...).agg, drop,
// withColumnRenamed, distinct, limit, union, unionByName) and the Column
// expressions they take (column names, col, lit, expr, the aggregate
// functions, alias). Anything else leaves the body opaque, with the
// reason.

// step maps one method call on a frame.
func (r *reader) step(in frame, method string, args []*sitter.Node, kw map[string]*sitter.Node, env map[string]frame, why map[string]string) (frame, string) {
	keep := func(q string) (frame, string) { return frame{query: q, cols: in.cols, types: in.types}, "" }
	prev := r.cur
	r.cur = &in
	defer func() { r.cur = prev }()
	unknownCols := func(msg string) (frame, string) {
		// The steps after this one are still read, so one Thund cannot
		// state whatever the columns are is said before the run.
		r.needCols = true
		return frame{needs: msg, query: "SELECT * FROM " + in.from()}, ""
	}
	switch method {
	case "alias":
		a, ok := r.literal(arg(args, kw, 0, "alias"))
		if !ok || len(args) != 1 {
			return frame{}, ".alias is given a name computed at run time"
		}
		if in.joinFrom != "" {
			in = frame{query: in.query, cols: in.cols, types: in.types}
		}
		out := in
		out.alias, out.varName = a.Value, ""
		return out, ""
	case "select":
		args = spread(args)
		if len(args) == 0 || len(kw) > 0 {
			return frame{}, ".select() without columns"
		}
		var items, cols []string
		known := true
		for _, a := range args {
			c, w := r.colExpr(a, true)
			if w != "" {
				return frame{}, fmt.Sprintf(".select(%s): %s", clip(r.srcOf(a)), w)
			}
			items = append(items, c.sql)
			switch {
			case c.star && in.cols != nil:
				cols = append(cols, in.cols...)
			case c.star, c.name == "":
				known = false
			default:
				cols = append(cols, c.name)
			}
		}
		if !known {
			cols = nil
		}
		return frame{query: "SELECT " + strings.Join(items, ", ") + " FROM " + in.selectFrom(), cols: cols, types: typesOf(in, cols)}, ""
	case "selectExpr":
		var cols []string
		for _, a := range spread(args) {
			lit, ok := r.literal(a)
			if !ok {
				return frame{}, ".selectExpr is given an expression computed at run time"
			}
			cols = append(cols, lit.Value)
		}
		if len(cols) == 0 {
			return frame{}, ".selectExpr() without expressions"
		}
		return frame{query: "SELECT " + strings.Join(cols, ", ") + " FROM " + in.from()}, ""
	case "filter", "where":
		c := arg(args, kw, 0, "condition")
		if c == nil || len(args) > 1 {
			return frame{}, fmt.Sprintf(".%s takes one condition", method)
		}
		cond, ok := r.sqlExpr(c)
		if !ok {
			x, w := r.colExpr(c, false)
			if w != "" {
				return frame{}, fmt.Sprintf(".%s(%s): %s", method, clip(r.srcOf(c)), w)
			}
			cond = x.sql
		}
		if in.joinFrom != "" {
			// A join's filter keeps its sides' names for later steps.
			out := frame{joinFrom: in.joinFrom, sides: in.sides, where: append(append([]string(nil), in.where...), "("+cond+")"), cols: in.cols, types: in.types}
			out.query = "SELECT * FROM " + out.joinFrom + whereOf(out.where)
			return out, ""
		}
		return keep("SELECT * FROM " + in.from() + " WHERE " + cond)
	case "limit":
		n, ok := r.integer(arg(args, kw, 0, "num"))
		if !ok || n < 0 || len(args) > 1 {
			return frame{}, ".limit is given a number computed at run time"
		}
		if in.ordered {
			// After orderBy: the first n rows of that order, as Spark's
			// limit of a sort is.
			return keep(in.query + " LIMIT " + strconv.FormatInt(n, 10))
		}
		return keep("SELECT * FROM " + in.from() + " LIMIT " + strconv.FormatInt(n, 10))
	case "orderBy", "sort":
		return r.orderBy(in, method, args, kw)
	case "distinct":
		if len(args) > 0 || len(kw) > 0 {
			return frame{}, ".distinct takes no argument"
		}
		return keep("SELECT DISTINCT * FROM " + in.from())
	case "dropDuplicates", "drop_duplicates":
		return r.dropDuplicates(in, method, args, kw)
	case "withColumns":
		return r.withColumns(in, args, kw)
	case "withColumn":
		name, ok := r.literal(arg(args, kw, 0, "colName"))
		c := arg(args, kw, 1, "col")
		if !ok || c == nil {
			return frame{}, ".withColumn is given a column name computed at run time"
		}
		x, w := r.colExpr(c, false)
		if w != "" {
			return frame{}, fmt.Sprintf(".withColumn(%q, %s): %s", name.Value, clip(r.srcOf(c)), w)
		}
		if in.cols == nil {
			return unknownCols(fmt.Sprintf(".withColumn(%q, ...) replaces a column of that name if the DataFrame has one, and "+ColumnsUnknown+" (give the input a sample, or .select(...) its columns first)", name.Value))
		}
		var items, cols []string
		done := false
		for _, c := range in.cols {
			if strings.EqualFold(c, name.Value) && !done {
				items, cols, done = append(items, x.sql+" AS "+quoteName(name.Value)), append(cols, name.Value), true
				continue
			}
			items, cols = append(items, quoteName(c)), append(cols, c)
		}
		if !done {
			items, cols = append(items, x.sql+" AS "+quoteName(name.Value)), append(cols, name.Value)
		}
		return frame{query: "SELECT " + strings.Join(items, ", ") + " FROM " + in.selectFrom(), cols: cols}, ""
	case "withColumnRenamed":
		old, ok1 := r.literal(arg(args, kw, 0, "existing"))
		nw, ok2 := r.literal(arg(args, kw, 1, "new"))
		if !ok1 || !ok2 {
			return frame{}, ".withColumnRenamed is given a name computed at run time"
		}
		if in.cols == nil {
			return unknownCols(fmt.Sprintf(".withColumnRenamed(%q, %q) needs the DataFrame's columns, and "+ColumnsUnknown+" (give the input a sample, or .select(...) its columns first)", old.Value, nw.Value))
		}
		var items, cols []string
		for _, c := range in.cols {
			if strings.EqualFold(c, old.Value) {
				items, cols = append(items, quoteName(c)+" AS "+quoteName(nw.Value)), append(cols, nw.Value)
				continue
			}
			items, cols = append(items, quoteName(c)), append(cols, c)
		}
		return frame{query: "SELECT " + strings.Join(items, ", ") + " FROM " + in.selectFrom(), cols: cols}, ""
	case "drop":
		var gone []string
		for _, a := range spread(args) {
			name, ok := r.column(a)
			if !ok {
				return frame{}, fmt.Sprintf(".drop(%s) names a column Thund cannot read as a name or col(...)", clip(r.srcOf(a)))
			}
			gone = append(gone, name)
		}
		if in.cols == nil {
			return unknownCols(".drop(...) needs the DataFrame's columns, and " + ColumnsUnknown + " (give the input a sample, or .select(...) the ones to keep instead)")
		}
		var items, cols []string
		for _, c := range in.cols {
			dropped := false
			for _, g := range gone {
				dropped = dropped || strings.EqualFold(c, g)
			}
			if !dropped {
				items, cols = append(items, quoteName(c)), append(cols, c)
			}
		}
		if len(items) == 0 {
			return frame{}, ".drop(...) drops every column"
		}
		return frame{query: "SELECT " + strings.Join(items, ", ") + " FROM " + in.selectFrom(), cols: cols}, ""
	case "join":
		return r.join(in, args, kw, env, why)
	case "union", "unionAll":
		if len(args) != 1 || len(kw) > 0 {
			return frame{}, fmt.Sprintf(".%s takes one DataFrame", method)
		}
		other, w := r.frameIn(args[0], env, why)
		if w != "" {
			return frame{}, w
		}
		out, _ := keep("SELECT * FROM " + in.from() + " UNION ALL SELECT * FROM " + other.from())
		return out.needing(other), ""
	case "unionByName":
		other, w := r.frameIn(arg(args, kw, 0, "other"), env, why)
		if w != "" {
			return frame{}, w
		}
		if m := kw["allowMissingColumns"]; m != nil && r.srcOf(m) != "False" {
			return frame{}, ".unionByName(allowMissingColumns=...) fills missing columns with NULL, which Thund does not state in SQL"
		}
		if in.cols == nil || other.cols == nil {
			in = in.needing(other)
			return unknownCols(".unionByName needs the columns of both DataFrames, and " + ColumnsUnknown + " (give the inputs samples, or .select(...) them first, or use .union)")
		}
		if len(in.cols) != len(other.cols) {
			return frame{}, ".unionByName of DataFrames with different columns"
		}
		var items []string
		for _, c := range in.cols {
			found := ""
			for _, o := range other.cols {
				if strings.EqualFold(o, c) {
					found = o
				}
			}
			if found == "" {
				return frame{}, fmt.Sprintf(".unionByName: the other DataFrame has no column %s", c)
			}
			items = append(items, quoteName(found))
		}
		out, _ := keep("SELECT * FROM " + in.from() + " UNION ALL SELECT " + strings.Join(items, ", ") + " FROM " + other.from())
		return out.needing(other), ""
	case "agg":
		return r.grouped(group{in: in}, "agg", args, kw)
	}
	return frame{}, fmt.Sprintf("it calls .%s, which Thund does not map to SQL", method)
}

// ColumnsUnknown is in the reason of a body that is opaque only because a
// step needs its input's columns (Definition.NeedsColumns).
const ColumnsUnknown = "Thund does not know the columns of its input here"

// joinTypes maps join's how= to SQL.
var joinTypes = map[string]string{
	"inner": "JOIN", "cross": "CROSS JOIN",
	"outer": "FULL OUTER JOIN", "full": "FULL OUTER JOIN", "fullouter": "FULL OUTER JOIN", "full_outer": "FULL OUTER JOIN",
	"left": "LEFT OUTER JOIN", "leftouter": "LEFT OUTER JOIN", "left_outer": "LEFT OUTER JOIN",
	"right": "RIGHT OUTER JOIN", "rightouter": "RIGHT OUTER JOIN", "right_outer": "RIGHT OUTER JOIN",
	"semi": "LEFT SEMI JOIN", "leftsemi": "LEFT SEMI JOIN", "left_semi": "LEFT SEMI JOIN",
	"anti": "LEFT ANTI JOIN", "leftanti": "LEFT ANTI JOIN", "left_anti": "LEFT ANTI JOIN",
}

// join maps df.join(other, on, how): on a column name or a list of them
// is SQL's USING (the keys once, first, as Spark's join on names does);
// no on is a cross join.
func (r *reader) join(in frame, args []*sitter.Node, kw map[string]*sitter.Node, env map[string]frame, why map[string]string) (frame, string) {
	other, w := r.frameIn(arg(args, kw, 0, "other"), env, why)
	if w != "" {
		return frame{}, w
	}
	out, w := r.joinWith(in, other, args, kw)
	return out.needing(other), w
}

// joinWith is join once the other side is read.
func (r *reader) joinWith(in, other frame, args []*sitter.Node, kw map[string]*sitter.Node) (frame, string) {
	how := "JOIN"
	if h := arg(args, kw, 2, "how"); h != nil {
		v, ok := r.literal(h)
		if !ok {
			return frame{}, ".join is given a join type computed at run time"
		}
		t, known := joinTypes[strings.ToLower(v.Value)]
		if !known {
			return frame{}, fmt.Sprintf(".join(how=%q) is not a join type Spark knows", v.Value)
		}
		how = t
	}
	on := arg(args, kw, 1, "on")
	if on == nil || r.srcOf(on) == "None" {
		if how != "JOIN" && how != "CROSS JOIN" {
			return frame{}, ".join without on= and with a join type"
		}
		var cols []string
		if in.cols != nil && other.cols != nil {
			cols = append(append(cols, in.cols...), other.cols...)
		}
		in, other = in.flat(), other.flat()
		return frame{query: "SELECT * FROM " + in.from() + " CROSS JOIN " + other.from(), cols: cols}, ""
	}
	var keys []string
	n := r.constant(on)
	if _, isName := r.literal(n); !isName && n.Kind() != "list" && n.Kind() != "tuple" {
		return r.joinOn(in, other, on, how)
	}
	if in.joinFrom != "" || other.joinFrom != "" {
		in, other = in.flat(), other.flat()
	}
	if n.Kind() == "list" || n.Kind() == "tuple" {
		for _, c := range children(n) {
			v, ok := r.literal(c)
			if !ok {
				return frame{}, fmt.Sprintf(".join(on=%s): Thund maps only column names (a Column condition is not stated in SQL here)", clip(r.srcOf(on)))
			}
			keys = append(keys, v.Value)
		}
	} else if v, ok := r.literal(n); ok {
		keys = []string{v.Value}
	} else {
		return frame{}, fmt.Sprintf(".join(on=%s): Thund maps only column names (a Column condition is not stated in SQL here)", clip(r.srcOf(on)))
	}
	if len(keys) == 0 || how == "CROSS JOIN" {
		return frame{}, ".join with an empty on= list"
	}
	var quoted []string
	for _, k := range keys {
		quoted = append(quoted, quoteName(k))
	}
	var cols []string
	if in.cols != nil && (other.cols != nil || strings.HasPrefix(how, "LEFT SEMI") || strings.HasPrefix(how, "LEFT ANTI")) {
		isKey := func(c string) bool {
			for _, k := range keys {
				if strings.EqualFold(c, k) {
					return true
				}
			}
			return false
		}
		if strings.HasPrefix(how, "LEFT SEMI") || strings.HasPrefix(how, "LEFT ANTI") {
			cols = in.cols
		} else {
			cols = append(cols, keys...)
			for _, side := range [][]string{in.cols, other.cols} {
				for _, c := range side {
					if !isKey(c) {
						cols = append(cols, c)
					}
				}
			}
		}
	}
	return frame{query: "SELECT * FROM " + in.from() + " " + how + " " + other.from() + " USING (" + strings.Join(quoted, ", ") + ")", cols: cols}, ""
}

// group is df.groupBy(keys): the frame and its grouping columns.
type group struct {
	in   frame
	keys []string
	why  string
}

// aggMethods are GroupedData's shorthand aggregates (.sum("x")).
var aggMethods = map[string]bool{"sum": true, "avg": true, "mean": true, "min": true, "max": true}

// groupOf reads n as df.groupBy(...) / df.groupby(...); ok is false when
// it is no such call.
func (r *reader) groupOf(n *sitter.Node, env map[string]frame, why map[string]string) (group, bool) {
	fn, args, kw, _, ok := r.call(n)
	fn = unparen(fn)
	if !ok || fn == nil || fn.Kind() != "attribute" {
		return group{}, false
	}
	switch r.srcOf(fn.ChildByFieldName("attribute")) {
	case "groupBy", "groupby":
	default:
		return group{}, false
	}
	in, w := r.frameIn(fn.ChildByFieldName("object"), env, why)
	if w != "" {
		return group{why: w}, true
	}
	in.lit = nil
	g := group{in: in}
	if len(kw) > 0 {
		return group{why: ".groupBy with keyword arguments"}, true
	}
	for _, a := range spread(args) {
		name, ok := r.column(a)
		if !ok {
			return group{why: fmt.Sprintf(".groupBy(%s) names a column Thund cannot read as a name or col(...)", clip(r.srcOf(a)))}, true
		}
		g.keys = append(g.keys, name)
	}
	return g, true
}

// grouped maps .agg(...), .count() or .sum(...)... on a group (or .agg on
// a whole frame, a group without keys).
func (r *reader) grouped(g group, method string, args []*sitter.Node, kw map[string]*sitter.Node) (frame, string) {
	var items, cols []string
	known := true
	for _, k := range g.keys {
		items, cols = append(items, quoteName(k)), append(cols, k)
	}
	add := func(x colx) {
		items = append(items, x.sql)
		if x.name == "" {
			known = false
		}
		cols = append(cols, x.name)
	}
	switch method {
	case "count":
		if len(args) > 0 || len(kw) > 0 {
			return frame{}, ".count takes no argument"
		}
		add(colx{sql: "count(1) AS `count`", name: "count"})
	case "agg":
		if len(kw) > 0 {
			return frame{}, ".agg with keyword arguments"
		}
		if len(args) == 1 && unparen(r.constant(args[0])).Kind() == "dictionary" {
			for _, p := range children(unparen(r.constant(args[0]))) {
				k, okK := r.literal(p.ChildByFieldName("key"))
				v, okV := r.literal(p.ChildByFieldName("value"))
				if p.Kind() != "pair" || !okK || !okV || !aggFuncs[strings.ToLower(v.Value)] {
					return frame{}, fmt.Sprintf(".agg(%s): Thund maps a dict of column names to aggregate function names", clip(r.srcOf(args[0])))
				}
				col := quoteName(k.Value)
				if k.Value == "*" {
					col = "*"
				}
				add(colx{sql: aggName(strings.ToLower(v.Value)) + "(" + col + ")"})
			}
			break
		}
		if len(args) == 0 {
			return frame{}, ".agg() without aggregates"
		}
		for _, a := range args {
			x, w := r.colExpr(a, false)
			if w != "" {
				return frame{}, fmt.Sprintf(".agg(%s): %s", clip(r.srcOf(a)), w)
			}
			add(x)
		}
	default:
		if len(args) == 0 || len(kw) > 0 {
			return frame{}, fmt.Sprintf(".%s() without columns aggregates every numeric column, which Thund does not know here", method)
		}
		for _, a := range args {
			v, ok := r.literal(a)
			if !ok {
				return frame{}, fmt.Sprintf(".%s is given a column computed at run time", method)
			}
			add(colx{sql: aggName(method) + "(" + quoteName(v.Value) + ")"})
		}
	}
	if !known {
		cols = nil
	}
	q := "SELECT " + strings.Join(items, ", ") + " FROM " + g.in.from()
	if len(g.keys) > 0 {
		var ks []string
		for _, k := range g.keys {
			ks = append(ks, quoteName(k))
		}
		q += " GROUP BY " + strings.Join(ks, ", ")
	}
	return frame{query: q, cols: cols, needs: g.in.needs}, ""
}

// aggFuncs are the aggregate functions of pyspark.sql.functions Thund
// maps one to one to Spark SQL's functions of the same meaning.
var aggFuncs = map[string]bool{
	"sum": true, "avg": true, "mean": true, "min": true, "max": true, "count": true,
	"first": true, "last": true, "stddev": true, "stddev_samp": true, "stddev_pop": true,
	"variance": true, "var_samp": true, "var_pop": true, "collect_list": true, "collect_set": true,
	"approx_count_distinct": true, "countdistinct": true, "count_distinct": true,
	"sum_distinct": true, "sumdistinct": true, "any_value": true, "bool_and": true, "bool_or": true,
	"median": true,
}

// aggName is the SQL function for a functions module aggregate; mean is
// avg, as pyspark defines it (its column is then named avg(x) in both).
func aggName(f string) string {
	if f == "mean" {
		return "avg"
	}
	return f
}

// colx is a Column expression in SQL, and its column name when known.
type colx struct {
	sql  string
	name string
	star bool
	// cases are the WHEN ... THEN ... parts of F.when(...) chained with
	// .when(...), before .otherwise(...) closes them: sql is then the
	// CASE without an ELSE.
	cases []string
}

// colExpr maps a Column expression: a column name (where strIsCol: a
// select or an aggregate's argument reads a string as a column),
// col/column("a"), lit(v), expr("sql"), an aggregate function of a
// column, and .alias("y") / .name("y") on any of these. The reason is
// set when it is anything else.
func (r *reader) colExpr(n *sitter.Node, strIsCol bool) (colx, string) {
	n = unparen(r.constant(n))
	if n == nil {
		return colx{}, "no column"
	}
	if v, ok := r.literal(n); ok {
		if !strIsCol {
			return colx{}, "a string where a Column is expected (col(...) or lit(...))"
		}
		if v.Value == "*" {
			return colx{sql: "*", star: true}, ""
		}
		return colx{sql: quoteTable(v.Value), name: lastPart(v.Value)}, ""
	}
	if x, w, ok := r.opExpr(n); ok {
		return x, w
	}
	if x, w, ok := r.frameColumn(n); ok {
		return x, w
	}
	fn, args, kw, _, ok := r.call(n)
	if !ok {
		return colx{}, fmt.Sprintf("%s is a Column expression Thund does not state in SQL (write it as expr(\"...\"))", clip(r.srcOf(n)))
	}
	fn = unparen(fn)
	if x, w, ok := r.columnMethod(fn, args, kw); ok {
		return x, w
	}
	f, ok := r.funcName(fn)
	if !ok {
		return colx{}, fmt.Sprintf("it calls %s, which Thund does not map to Spark SQL", clip(r.srcOf(fn)))
	}
	switch {
	case f == "col" || f == "column":
		v, ok := r.literal(arg(args, kw, 0, "col"))
		if !ok || len(args) != 1 {
			return colx{}, fmt.Sprintf("%s is given a name computed at run time", f)
		}
		if v.Value == "*" {
			return colx{sql: "*", star: true}, ""
		}
		return colx{sql: quoteTable(v.Value), name: lastPart(v.Value)}, ""
	case f == "lit":
		if len(args) != 1 {
			return colx{}, "lit takes one value"
		}
		s, name, ok := r.sqlValue(args[0])
		if !ok {
			return colx{}, fmt.Sprintf("lit(%s) is not a literal Thund reads (a number, a string, True, False, None)", clip(r.srcOf(args[0])))
		}
		return colx{sql: s, name: name}, ""
	case f == "expr":
		v, ok := r.literal(arg(args, kw, 0, "str"))
		if !ok {
			return colx{}, "expr is given a text computed at run time"
		}
		return colx{sql: v.Value}, ""
	case aggFuncs[strings.ToLower(f)]:
		if len(args) != 1 || len(kw) > 0 {
			return colx{}, fmt.Sprintf("%s with %d arguments", f, len(args))
		}
		x, w := r.colExpr(args[0], true)
		if w != "" {
			return colx{}, w
		}
		name := strings.ToLower(f)
		switch name {
		case "countdistinct", "count_distinct":
			return colx{sql: "count(DISTINCT " + x.sql + ")"}, ""
		case "sumdistinct", "sum_distinct":
			return colx{sql: "sum(DISTINCT " + x.sql + ")"}, ""
		}
		return colx{sql: aggName(name) + "(" + x.sql + ")"}, ""
	}
	if x, w, ok := r.funcCall(f, args, kw); ok {
		return x, w
	}
	return colx{}, fmt.Sprintf("it calls %s, which Thund does not map to Spark SQL", clip(r.srcOf(fn)))
}

// sqlValue maps a Python literal to a Spark SQL literal and the column
// name Spark gives it.
func (r *reader) sqlValue(n *sitter.Node) (sql, name string, ok bool) {
	n = unparen(n)
	if v, ok := r.literal(n); ok {
		return "'" + strings.ReplaceAll(strings.ReplaceAll(v.Value, `\`, `\\`), "'", `\'`) + "'", v.Value, true
	}
	if v, ok := r.integer(n); ok {
		s := strconv.FormatInt(v, 10)
		return s, s, true
	}
	if n.Kind() == "unary_operator" {
		// -2.5: the float's negation (an integer's is read above).
		op, a := n.ChildByFieldName("operator"), unparen(n.ChildByFieldName("argument"))
		if op != nil && r.srcOf(op) == "-" && a != nil && a.Kind() == "float" {
			if s, name, ok := r.sqlValue(a); ok {
				return "-" + s, "-" + name, true
			}
		}
		return "", "", false
	}
	switch n.Kind() {
	case "true":
		return "true", "true", true
	case "false":
		return "false", "false", true
	case "none":
		return "NULL", "NULL", true
	case "float":
		if f, err := strconv.ParseFloat(strings.ReplaceAll(r.srcOf(n), "_", ""), 64); err == nil {
			s := strconv.FormatFloat(f, 'g', -1, 64)
			if !strings.ContainsAny(s, ".eE") {
				s += ".0"
			}
			return s + "D", s, true
		}
	}
	return "", "", false
}

// spread expands a single list or tuple argument (select(["a", "b"])).
func spread(args []*sitter.Node) []*sitter.Node {
	if len(args) == 1 {
		if a := unparen(args[0]); a.Kind() == "list" || a.Kind() == "tuple" {
			return children(a)
		}
	}
	return args
}

// quoteName backquotes one column name.
func quoteName(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// lastPart is the last dotted part of a column reference (a.b names b).
func lastPart(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// typesOf gives the types of columns cols picked by name from frame in,
// or nil unless Thund knows every one.
func typesOf(in frame, cols []string) []string {
	if cols == nil || len(in.types) != len(in.cols) {
		return nil
	}
	var out []string
	for _, c := range cols {
		found := ""
		for i, ic := range in.cols {
			if strings.EqualFold(ic, c) {
				if found != "" {
					return nil // ambiguous
				}
				found = in.types[i]
			}
		}
		if found == "" {
			return nil
		}
		out = append(out, found)
	}
	return out
}

// flat is f without its join's side names: a subquery from here on.
func (f frame) flat() frame {
	if f.joinFrom == "" {
		return f
	}
	return frame{query: f.query, cols: f.cols, types: f.types, alias: f.alias}
}

// side is the name a frame's columns are qualified with in a join: its
// .alias, else the variable it was read from ("" when neither).
func (f frame) side() string {
	if f.alias != "" {
		return f.alias
	}
	return f.varName
}

// joinOn maps df.join(other, on=<Column condition>, how): the two frames
// joined ON the condition, each side named by its .alias or its variable
// (df.x == other.y, col("a.x") == col("b.y")). Both sides' columns stay
// in the output, left first, as Spark's join on a condition keeps them.
// A join of a join stays one FROM clause, so every side's columns can be
// named after it; a filter between the joins moves after them, which
// gives the same rows for inner, left, semi and anti joins only.
func (r *reader) joinOn(in, other frame, on *sitter.Node, how string) (frame, string) {
	if how == "CROSS JOIN" {
		how = "JOIN"
	}
	sides := map[string]string{}
	from := ""
	var where []string
	if in.joinFrom != "" {
		for k, v := range in.sides {
			sides[k] = v
		}
		from, where = in.joinFrom, in.where
		if len(where) > 0 && how != "JOIN" && how != "LEFT OUTER JOIN" && !strings.HasPrefix(how, "LEFT SEMI") && !strings.HasPrefix(how, "LEFT ANTI") {
			from, where, sides = "("+in.query+")", nil, map[string]string{}
		}
	} else {
		from = in.from()
		if a := in.side(); a != "" {
			if in.alias == "" {
				from += " AS " + quoteName(a)
			}
			sides[a] = a
			if in.varName != "" {
				sides[in.varName] = a
			}
		}
	}
	otherVar := other.varName
	other = other.flat()
	right := other.from()
	if a := other.side(); a != "" {
		if other.alias == "" {
			right += " AS " + quoteName(a)
		}
		if _, taken := sides[a]; taken {
			return frame{}, fmt.Sprintf(".join: both sides are named %s; give one of them another name with .alias(...)", a)
		}
		sides[a] = a
		if otherVar != "" {
			sides[otherVar] = a
		}
	}
	cur := frame{joinFrom: from, sides: sides}
	prev := r.cur
	r.cur = &cur
	cond, w := r.colExpr(on, false)
	r.cur = prev
	if w != "" {
		return frame{}, fmt.Sprintf(".join(on=%s): %s", clip(r.srcOf(on)), w)
	}
	out := frame{joinFrom: from + " " + how + " " + right + " ON " + cond.sql, sides: sides, where: where}
	out.query = "SELECT * FROM " + out.joinFrom + whereOf(where)
	switch {
	case strings.HasPrefix(how, "LEFT SEMI"), strings.HasPrefix(how, "LEFT ANTI"):
		out.cols = in.cols
	case in.cols != nil && other.cols != nil:
		out.cols = append(append([]string(nil), in.cols...), other.cols...)
	}
	return out, ""
}
