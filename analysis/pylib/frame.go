package pylib

import (
	"fmt"
	"strconv"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// query states a dataset function's body in Spark SQL when its meaning is
// certain: the body assigns DataFrames to names (df = ...) and returns
// one (a docstring and comments aside), each of them
//
//   - spark.sql(LITERAL): the literal's text;
//   - spark.range(end) / spark.range(start, end[, step]) with integer
//     literals: SELECT id FROM range(...);
//   - a table read (spark.read.table, spark.table, spark.readStream.table,
//     dp.read, dlt.read, dlt.read_stream, with a literal name): SELECT *;
//   - one of these followed by .select(names or col(...)), .selectExpr(SQL
//     literals), .filter / .where(SQL literal), .limit(n), .distinct() or
//     .dropDuplicates().
//
// Anything else (other statements, UDFs, joins, withColumn...) is opaque:
// the reason says what Thund stopped at.
func (r *reader) query(d *Definition, body *sitter.Node) (*Query, string) {
	env := map[string]frame{}
	why := map[string]string{}
	var ret *sitter.Node
	for i, st := range children(body) {
		if ret != nil {
			return nil, fmt.Sprintf("its body goes on after its return (line %d)", int(st.StartPosition().Row)+1)
		}
		switch st.Kind() {
		case "pass_statement":
			continue
		case "return_statement":
			ret = st
			continue
		case "expression_statement":
			kids := children(st)
			if i == 0 && len(kids) == 1 && kids[0].Kind() == "string" {
				continue // the docstring
			}
			if len(kids) == 1 && kids[0].Kind() == "assignment" {
				left, right := kids[0].ChildByFieldName("left"), kids[0].ChildByFieldName("right")
				if left != nil && right != nil && left.Kind() == "identifier" {
					// df = spark.read.table("x"): the name stands for the
					// frame from here on (a later df = df.filter(...)
					// builds on it).
					name := r.srcOf(left)
					f, w := r.frameIn(right, env, why)
					delete(env, name)
					delete(why, name)
					if w == "" {
						env[name] = f
					} else {
						why[name] = w
					}
					continue
				}
			}
		}
		return nil, fmt.Sprintf("its body does more than assign DataFrames and return one (line %d)", int(st.StartPosition().Row)+1)
	}
	if ret == nil || len(children(ret)) != 1 {
		return nil, "its body returns nothing Thund can read"
	}
	e := unparen(children(ret)[0])
	f, w := r.frameIn(e, env, why)
	if w != "" {
		return nil, w
	}
	if f.lit != nil {
		return &Query{SQL: f.lit.Value, Lit: f.lit, Loc: f.loc}, ""
	}
	return &Query{SQL: f.sql(), Loc: f.loc}, ""
}

// frame is a DataFrame expression as SQL: a table, or a query.
type frame struct {
	table string // a quoted table name, when the frame is a plain read
	query string // otherwise
	// lit is set when the frame is spark.sql(LITERAL) as it is, and loc
	// is then that call.
	lit *Literal
	loc Span
}

func (f frame) from() string {
	if f.table != "" {
		return f.table
	}
	return "(" + f.query + ")"
}

func (f frame) sql() string {
	if f.table != "" {
		return "SELECT * FROM " + f.table
	}
	return f.query
}

// frameIn maps a DataFrame expression, whose names are looked up in env
// (or, for a name bound to what Thund cannot map, why); its reason is set
// when it cannot.
func (r *reader) frameIn(e *sitter.Node, env map[string]frame, why map[string]string) (frame, string) {
	f, w := r.frameOf(e, env, why)
	if w == "" && f.loc == (Span{}) && e != nil {
		f.loc = span(unparen(e))
	}
	return f, w
}

// frameOf is frameIn without the frame's location.
func (r *reader) frameOf(e *sitter.Node, env map[string]frame, why map[string]string) (frame, string) {
	e = unparen(e)
	if e != nil && e.Kind() == "identifier" {
		name := r.srcOf(e)
		if f, ok := env[name]; ok {
			return f, ""
		}
		if w, ok := why[name]; ok {
			return frame{}, w
		}
		return frame{}, fmt.Sprintf("it returns %s, which is not a DataFrame Thund can read", name)
	}
	fn, args, kw, _, ok := r.call(e)
	if !ok {
		return frame{}, fmt.Sprintf("it returns %s, which is not a DataFrame Thund can read", clip(r.srcOf(e)))
	}
	full := r.dotted(fn)
	if full == "spark.range" {
		return r.sparkRange(args, kw)
	}
	if full == "spark.sql" {
		if len(args) != 1 || len(kw) > 0 {
			return frame{}, "spark.sql with arguments beside the query"
		}
		lit, computed, ok := r.literalNode(r.constant(args[0]))
		if !ok {
			if computed {
				return frame{}, "spark.sql is given an f-string with placeholders, whose text is only known when the file runs"
			}
			return frame{}, "spark.sql is given a text computed at run time"
		}
		return frame{query: lit.Value, lit: &lit, loc: span(e)}, ""
	}
	if _, streaming, ok := r.readCall(fn); ok {
		a := arg(args, kw, 0, "name")
		lit, ok := r.literal(a)
		if !ok {
			return frame{}, fmt.Sprintf("%s reads a table whose name is computed at run time", full)
		}
		if streaming {
			return frame{table: "STREAM(" + quoteTable(lit.Value) + ")"}, ""
		}
		return frame{table: quoteTable(lit.Value)}, ""
	}
	if root, format, ok := r.loadChain(e); ok {
		what := root + ".format(...).load(...)"
		if format != "" {
			what = fmt.Sprintf("%s.format(%q)", root, format)
		}
		return frame{}, fmt.Sprintf("it loads data with %s, which Thund does not read natively", what)
	}
	fn = unparen(fn)
	if fn == nil || fn.Kind() != "attribute" {
		return frame{}, fmt.Sprintf("it calls %s, which Thund does not run", clip(r.srcOf(fn)))
	}
	method := r.srcOf(fn.ChildByFieldName("attribute"))
	inner, w := r.frameIn(fn.ChildByFieldName("object"), env, why)
	if w != "" {
		return frame{}, w
	}
	inner.lit = nil
	switch method {
	case "select":
		var cols []string
		for _, a := range args {
			c, ok := r.selectItem(a)
			if !ok {
				return frame{}, fmt.Sprintf(".select(%s) names a column Thund cannot read as a name or col(...)", clip(r.srcOf(a)))
			}
			cols = append(cols, c)
		}
		if len(cols) == 0 || len(kw) > 0 {
			return frame{}, ".select() without column names"
		}
		return frame{query: "SELECT " + strings.Join(cols, ", ") + " FROM " + inner.from()}, ""
	case "selectExpr":
		var cols []string
		for _, a := range args {
			lit, ok := r.literal(a)
			if !ok {
				return frame{}, ".selectExpr is given an expression computed at run time"
			}
			cols = append(cols, lit.Value)
		}
		if len(cols) == 0 {
			return frame{}, ".selectExpr() without expressions"
		}
		return frame{query: "SELECT " + strings.Join(cols, ", ") + " FROM " + inner.from()}, ""
	case "filter", "where":
		if len(args) != 1 {
			return frame{}, fmt.Sprintf(".%s takes one condition", method)
		}
		cond, ok := r.sqlExpr(args[0])
		if !ok {
			return frame{}, fmt.Sprintf(".%s(%s) is a Column expression; Thund maps only a SQL string condition (.%s(\"x > 0\"))", method, clip(r.srcOf(args[0])), method)
		}
		return frame{query: "SELECT * FROM " + inner.from() + " WHERE " + cond}, ""
	case "limit":
		if len(args) != 1 {
			return frame{}, ".limit takes one number"
		}
		n, ok := r.integer(args[0])
		if !ok || n < 0 {
			return frame{}, ".limit is given a number computed at run time"
		}
		return frame{query: "SELECT * FROM " + inner.from() + " LIMIT " + strconv.FormatInt(n, 10)}, ""
	case "distinct":
		if len(args) > 0 || len(kw) > 0 {
			return frame{}, ".distinct takes no argument"
		}
		return frame{query: "SELECT DISTINCT * FROM " + inner.from()}, ""
	case "dropDuplicates", "drop_duplicates":
		if len(args) > 0 || len(kw) > 0 {
			return frame{}, fmt.Sprintf(".%s(columns) keeps an arbitrary row per key, which Thund does not state in SQL", method)
		}
		return frame{query: "SELECT DISTINCT * FROM " + inner.from()}, ""
	}
	return frame{}, fmt.Sprintf("it calls .%s, which Thund does not map to SQL", method)
}

// loadChain reports a chain of calls on spark.read or spark.readStream
// (format, option, schema, load...), which reads files or a stream: its
// root and the format= literal when there is one.
func (r *reader) loadChain(e *sitter.Node) (root, format string, ok bool) {
	for {
		e = unparen(e)
		fn, args, _, _, isCall := r.call(e)
		if !isCall {
			break
		}
		if _, _, isRead := r.readCall(fn); isRead {
			return "", "", false // spark.read.table(...): a table read
		}
		fn = unparen(fn)
		if fn == nil || fn.Kind() != "attribute" {
			return "", "", false
		}
		if r.srcOf(fn.ChildByFieldName("attribute")) == "format" && len(args) == 1 {
			if v, ok := r.literal(args[0]); ok {
				format = v.Value
			}
		}
		e = fn.ChildByFieldName("object")
	}
	switch root = r.dotted(e); root {
	case "spark.read", "spark.readStream":
		return root, format, true
	}
	return "", "", false
}

// sparkRange maps spark.range(start, end=None, step=1, numPartitions=None):
// with one number, it is the end and the start is 0 (as in Spark).
func (r *reader) sparkRange(args []*sitter.Node, kw map[string]*sitter.Node) (frame, string) {
	names := []string{"start", "end", "step", "numPartitions"}
	var val [4]int64
	var set [4]bool
	for i, name := range names {
		n := arg(args, kw, i, name)
		if n == nil {
			continue
		}
		v, ok := r.integer(n)
		if !ok {
			return frame{}, "spark.range is given a number computed at run time"
		}
		val[i], set[i] = v, true
	}
	if len(args) > 4 || !set[0] {
		return frame{}, "spark.range without its numbers"
	}
	start, end, step := val[0], val[1], int64(1)
	if !set[1] {
		start, end = 0, val[0]
	}
	if set[2] {
		step = val[2]
	}
	if step == 0 {
		return frame{}, "spark.range with step 0"
	}
	return frame{query: fmt.Sprintf("SELECT id FROM range(%d, %d, %d)", start, end, step)}, ""
}

// integer reads an integer literal, with an optional sign.
func (r *reader) integer(n *sitter.Node) (int64, bool) {
	n = unparen(n)
	if n == nil {
		return 0, false
	}
	neg := false
	if n.Kind() == "unary_operator" {
		op := n.ChildByFieldName("operator")
		if op == nil || (r.srcOf(op) != "-" && r.srcOf(op) != "+") {
			return 0, false
		}
		neg = r.srcOf(op) == "-"
		n = unparen(n.ChildByFieldName("argument"))
		if n == nil {
			return 0, false
		}
	}
	if n.Kind() != "integer" {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(r.srcOf(n), "_", ""), 0, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// selectItem is one .select argument: "name", "*", col("name").
func (r *reader) selectItem(n *sitter.Node) (string, bool) {
	name, ok := r.column(n)
	if !ok {
		return "", false
	}
	if name == "*" {
		return "*", true
	}
	return quoteTable(name), true
}

// quoteTable backquotes each part of a dotted name.
func quoteTable(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = "`" + strings.ReplaceAll(p, "`", "``") + "`"
	}
	return strings.Join(parts, ".")
}

// clip shortens source text for a message.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 48 {
		s = s[:45] + "..."
	}
	return s
}
