package pylib

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
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
	r.loads, r.drops, r.needCols, r.cur = nil, nil, false, nil
	r.stops, r.opaqueAt, r.windows = map[string]Span{}, Span{}, map[string]*sitter.Node{}
	defer func() { r.stops, r.windows = nil, nil }()
	env := map[string]frame{}
	r.env = env
	defer func() { r.env = nil }()
	why := map[string]string{}
	var ret *sitter.Node
	for i, st := range children(body) {
		if ret != nil {
			r.opaqueAt = span(st)
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
					if r.isWindowSpec(right) {
						// w = Window.partitionBy(...): read where .over(w) uses it.
						r.windows[name] = right
						delete(env, name)
						delete(why, name)
						continue
					}
					f, w := r.frameIn(right, env, why)
					f.tables = r.tablesIn(right, env)
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
		r.opaqueAt = span(st)
		return nil, fmt.Sprintf("its body does more than assign DataFrames and return one (line %d)", int(st.StartPosition().Row)+1)
	}
	if ret == nil || len(children(ret)) != 1 {
		r.opaqueAt = span(body)
		return nil, "its body returns nothing Thund can read"
	}
	e := unparen(children(ret)[0])
	f, w := r.frameIn(e, env, why)
	if w == "" && f.needs != "" {
		w = f.needs
	}
	if w != "" {
		// Only the columns stand in the way when the reason says so; any
		// other reason holds whatever the columns are.
		r.needCols = r.needCols && strings.Contains(w, ColumnsUnknown)
		r.opaqueAt = r.stops[w]
		if r.opaqueAt == (Span{}) {
			r.opaqueAt = span(e)
		}
		return nil, w
	}
	if f.lit != nil {
		return &Query{SQL: f.lit.Value, Lit: f.lit, Loc: f.loc}, ""
	}
	q := &Query{SQL: f.sql(), Loc: f.loc, Relation: f.rel, Loads: r.loads, Drops: r.drops}
	if f.cols != nil && len(f.types) == len(f.cols) {
		for i, c := range f.cols {
			q.Columns = append(q.Columns, Column{Name: c, Type: f.types[i]})
		}
	}
	return q, ""
}

// frame is a DataFrame expression as SQL: a table, or a query.
type frame struct {
	table string // a quoted table name, when the frame is a plain read
	query string // otherwise
	// lit is set when the frame is spark.sql(LITERAL) as it is, and loc
	// is then that call.
	lit *Literal
	loc Span
	// cols are the frame's column names in order when Thund knows them
	// (after a select of names, spark.range, an aggregation...), else nil:
	// the steps that depend on them (withColumn, drop, withColumnRenamed,
	// unionByName) need them.
	cols []string
	// types are the Spark types of cols, in the same order, when Thund
	// knows every one of them (spark.range, a load with a schema, and
	// steps that keep or pick columns of such a frame), else nil.
	types []string
	// rel is set while the frame is one read with no step after it.
	rel *Relation
	// tables are the tables read by name under a frame bound to a name
	// (df = ...), for tablesIn.
	tables []string
	// alias is the frame's .alias("a"); varName the body's variable the
	// frame was read from (df), which names its side in a join.
	alias, varName string
	// joinFrom is set for a join with a Column condition: its FROM
	// clause, whose sides are named (sides: a variable or alias to its
	// SQL alias), and where the filters applied since, so later steps
	// can still name each side's columns.
	joinFrom string
	sides    map[string]string
	where    []string
	// ordered is set when query ends with its ORDER BY (orderBy, sort),
	// which a limit then keeps.
	ordered bool
	// needs is set when a step needs its input's columns, which Thund
	// does not know here: why (with ColumnsUnknown). The steps after it
	// are still read for what they do regardless of the columns; the
	// frame's SQL means nothing.
	needs string
}

// needing is f, needing what other needs when f needs nothing itself.
func (f frame) needing(other frame) frame {
	if f.needs == "" {
		f.needs = other.needs
	}
	return f
}

func (f frame) from() string {
	if f.joinFrom != "" && len(f.where) == 0 {
		return f.joinFrom
	}
	s := "(" + f.query + ")"
	if f.table != "" {
		s = f.table
	}
	if f.alias != "" {
		s += " AS " + quoteName(f.alias)
	}
	return s
}

// selectFrom is the FROM clause (and WHERE) a select-like step over f
// writes after its items: a join's own clause, so its sides' columns can
// be named.
func (f frame) selectFrom() string {
	if f.joinFrom != "" {
		return f.joinFrom + whereOf(f.where)
	}
	return f.from()
}

func whereOf(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
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
	if w != "" {
		r.stopAt(w, e)
	}
	if w == "" && f.loc == (Span{}) && e != nil {
		f.loc = span(unparen(e))
	}
	return f, w
}

// stopAt records where the reason why was first met: the step e calls
// (from its method's name to the call's end), or e itself.
func (r *reader) stopAt(why string, e *sitter.Node) {
	if e == nil || r.stops == nil {
		return
	}
	if _, seen := r.stops[why]; seen {
		return
	}
	r.stops[why] = stepSpan(e)
}

// stepSpan is the range of the step a DataFrame expression ends with:
// .method(...) from its name to the call's end, or the whole expression.
func stepSpan(e *sitter.Node) Span {
	e = unparen(e)
	if e.Kind() == "call" {
		if fn := unparen(e.ChildByFieldName("function")); fn != nil && fn.Kind() == "attribute" {
			if a := fn.ChildByFieldName("attribute"); a != nil {
				return Span{int(a.StartByte()), int(e.EndByte())}
			}
		}
	}
	return span(e)
}

// frameOf is frameIn without the frame's location.
func (r *reader) frameOf(e *sitter.Node, env map[string]frame, why map[string]string) (frame, string) {
	e = unparen(e)
	if e != nil && e.Kind() == "identifier" {
		name := r.srcOf(e)
		if f, ok := env[name]; ok {
			f.varName = name
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
	if full == "spark.createDataFrame" {
		return r.createDataFrame(args, kw)
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
	if method, _, ok := r.optionedTableRead(fn); ok {
		return frame{}, fmt.Sprintf("%s reads a table with reader options (.option/.options/.format before .table), which Thund does not apply natively", method)
	}
	if _, streaming, ok := r.readCall(fn); ok {
		a := arg(args, kw, 0, "name")
		lit, ok := r.literal(a)
		if !ok {
			return frame{}, fmt.Sprintf("%s reads a table whose name is computed at run time", full)
		}
		name, _ := liveName(lit.Value)
		rel := &Relation{Table: name, Streaming: streaming}
		var cols []string
		if r.columnsOf != nil {
			cols = r.columnsOf(Input{Table: name, Streaming: streaming})
		}
		if streaming {
			return frame{table: "STREAM(" + quoteTable(name) + ")", rel: rel, cols: cols}, ""
		}
		return frame{table: quoteTable(name), rel: rel, cols: cols}, ""
	}
	if ld, ok := r.loadChain(e); ok {
		if ld.path == nil {
			what := ld.root + ".format(...).load()"
			if ld.format != "" {
				what = fmt.Sprintf("%s.format(%q).load()", ld.root, ld.format)
			}
			return frame{}, fmt.Sprintf("it loads data with %s without a path, which Thund does not read natively", what)
		}
		if ld.why != "" {
			return frame{}, ld.why
		}
		// The load as Spark's reader gives it (loadColumns): its columns
		// and types when Thund knows them, and why the native run cannot
		// read the sample as Spark reads the files, if it cannot.
		lc := loadColumns(ld.format, ld.options, ld.schema)
		if ld.cloud != "" || ld.computed != "" {
			// Auto Loader's own inference (cloudFiles.inferColumnTypes,
			// schema hints) is Databricks', not the reader's; and with an
			// option computed at run time the options are not known.
			lc.notNative = ""
		}
		q := "SELECT " + lc.items + " FROM read_files(" + sqlString(ld.path.Value)
		if ld.format != "" {
			q += ", format => " + sqlString(ld.format)
		}
		q += ")" + lc.alias
		if ld.root == "spark.readStream" {
			q = strings.Replace(q, "FROM read_files(", "FROM STREAM read_files(", 1)
		}
		l := Load{Format: ld.format, CloudFormat: ld.cloud, Options: ld.options, Schema: ld.schema, SchemaLoc: ld.schemaLoc, Path: ld.path.Value,
			Streaming: ld.root == "spark.readStream", Computed: ld.computed, Loc: span(e), NotNative: lc.notNative}
		if ld.cloud != "" {
			l.Format = "cloudFiles"
		}
		r.loads = append(r.loads, l)
		cols, types := lc.cols, lc.types
		if cols == nil && r.columnsOf != nil {
			cols = r.columnsOf(Input{Load: &l, Streaming: l.Streaming})
		}
		out := frame{query: q, cols: cols, types: types, rel: &Relation{Load: &l}}
		if lc.items == "*" && lc.alias == "" {
			// The load as the FROM item itself, not a subquery: a step
			// over it may name the read's hidden _metadata column, as on
			// the DataFrame Spark loads (a subquery's * leaves it out).
			out.table = strings.TrimPrefix(q, "SELECT * FROM ")
		}
		return out, ""
	}
	fn = unparen(fn)
	if fn == nil || fn.Kind() != "attribute" {
		return frame{}, fmt.Sprintf("it calls %s, which Thund does not run", clip(r.srcOf(fn)))
	}
	method := r.srcOf(fn.ChildByFieldName("attribute"))
	obj := fn.ChildByFieldName("object")
	if method == "agg" || method == "count" || aggMethods[method] {
		if g, ok := r.groupOf(obj, env, why); ok {
			if g.why != "" {
				return frame{}, g.why
			}
			return r.grouped(g, method, args, kw)
		}
	}
	if g, ok := r.groupOf(obj, env, why); ok && g.why == "" {
		return frame{}, fmt.Sprintf("it calls .groupBy(...).%s, which Thund does not map to SQL (it maps .agg, .count, .sum, .avg, .mean, .min and .max of a group)", method)
	}
	inner, w := r.frameIn(obj, env, why)
	if w != "" {
		return frame{}, w
	}
	inner.lit = nil
	out, w := r.step(inner, method, args, kw, env, why)
	out.rel = nil
	if w == "" && out.needs != "" && inner.needs == "" {
		r.stopAt(out.needs, e)
	}
	if inner.needs != "" {
		out.needs = inner.needs
	}
	if w == "" && method == "drop" {
		if tables := r.tablesIn(obj, env); len(tables) > 0 {
			r.drops = append(r.drops, Drop{Loc: Span{int(fn.ChildByFieldName("attribute").StartByte()), int(e.EndByte())}, Tables: tables})
		}
	}
	return out, w
}

// tablesIn lists the tables read by name (spark.read.table("x") and the
// like, with a literal name) in the DataFrame expression e, and under
// the names it uses that env binds, in order, each once.
func (r *reader) tablesIn(e *sitter.Node, env map[string]frame) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		if !seen[strings.ToLower(t)] {
			seen[strings.ToLower(t)] = true
			out = append(out, t)
		}
	}
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if n == nil {
			return
		}
		switch n.Kind() {
		case "identifier":
			if f, ok := env[r.srcOf(n)]; ok {
				for _, t := range f.tables {
					add(t)
				}
			}
			return
		case "call":
			if fn, args, kw, _, ok := r.call(n); ok {
				if _, _, isRead := r.readCall(fn); isRead {
					if lit, ok := r.literal(arg(args, kw, 0, "name")); ok {
						name, _ := liveName(lit.Value)
						add(name)
					}
					return
				}
			}
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i))
		}
	}
	walk(e)
	return out
}

// load is a chain of calls on spark.read or spark.readStream (format,
// option, schema, then load(path) or csv/json/parquet/orc/text(path)).
type load struct {
	root   string // spark.read or spark.readStream
	format string // format(...) or the reader method; cloudFiles.format for Auto Loader
	path   *Literal
	// pathLoc is the path literal (or the argument computing it).
	pathLoc Span
	why     string // set when the chain is one Thund does not state
	// options, schema and cloud are what the chain gives the reader (see
	// Load); computed names a part computed at run time.
	options   map[string]string
	schema    string
	schemaLoc Span
	cloud     string
	computed  string
}

// fileFormats are the DataFrameReader methods that load a path in a
// format.
var fileFormats = map[string]bool{"csv": true, "json": true, "parquet": true, "orc": true, "text": true, "avro": true, "xml": true}

// loadChain reads a chain of calls on spark.read or spark.readStream;
// ok is false when e is no such chain (spark.read.table is a table read).
func (r *reader) loadChain(e *sitter.Node) (ld load, ok bool) {
	first := true
	cloud := ""
	for {
		e = unparen(e)
		fn, args, kw, _, isCall := r.call(e)
		if !isCall {
			break
		}
		if _, _, isRead := r.readCall(fn); isRead {
			return load{}, false // spark.read.table(...): a table read
		}
		fn = unparen(fn)
		if fn == nil || fn.Kind() != "attribute" {
			return load{}, false
		}
		method := r.srcOf(fn.ChildByFieldName("attribute"))
		switch method {
		case "load", "format", "option", "options", "schema":
		default:
			if !fileFormats[method] {
				return load{}, false // a DataFrame step after the load
			}
		}
		switch {
		case first && (method == "load" || fileFormats[method]):
			if p := arg(args, kw, 0, "path"); p != nil {
				ld.pathLoc = span(p)
				if v, ok := r.literal(p); ok {
					ld.path = &v
				} else {
					ld.path = &Literal{}
					ld.why = "it loads a path computed at run time"
				}
			}
			if method != "load" {
				ld.format = method
			} else if f := kw["format"]; f != nil {
				if v, ok := r.literal(f); ok {
					ld.format = v.Value
				}
			}
			// The reader's other keywords are options (csv(path,
			// header=True), load(path, format=..., sep=";")).
			for k, v := range kw {
				switch k {
				case "path", "format":
				case "schema":
					r.loadSchema(&ld, v)
				default:
					r.loadOption(&ld, k, v)
				}
			}
		case method == "format" && len(args) == 1:
			if v, ok := r.literal(args[0]); ok && ld.format == "" {
				ld.format = v.Value
			}
		case method == "option" && len(args) == 2:
			k, ok1 := r.literal(args[0])
			v, ok2 := r.literal(args[1])
			if ok1 && ok2 && strings.EqualFold(k.Value, "cloudFiles.format") {
				cloud = v.Value
			}
			if ok1 {
				r.loadOption(&ld, k.Value, args[1])
			} else if ld.computed == "" {
				ld.computed = "an option whose name is computed at run time"
			}
		case method == "options":
			for k, v := range kw {
				r.loadOption(&ld, k, v)
			}
			if len(args) > 0 && ld.computed == "" {
				ld.computed = ".options(...) given a value computed at run time"
			}
		case method == "schema" && len(args) == 1:
			r.loadSchema(&ld, args[0])
		}
		first = false
		e = fn.ChildByFieldName("object")
	}
	switch ld.root = r.dotted(e); ld.root {
	case "spark.read", "spark.readStream":
	default:
		return load{}, false
	}
	if strings.EqualFold(ld.format, "cloudFiles") {
		ld.format = cloud
		ld.cloud = cloud
		if ld.root != "spark.readStream" {
			ld.why = "Auto Loader (cloudFiles) reads a stream: spark.readStream, not spark.read"
		}
	}
	switch strings.ToLower(ld.format) {
	case "", "csv", "json", "parquet", "orc", "text", "avro", "xml", "delta", "binaryfile":
	default:
		if ld.why == "" {
			ld.why = fmt.Sprintf("it loads data with format %q, which Thund does not read from files", ld.format)
		}
	}
	return ld, true
}

// loadOption records one reader option k with the value n, as pyspark
// passes it to Spark: a string as it is, True and False as "true" and
// "false", a number as written; None sets nothing. An option already
// given is replaced, as DataFrameReader does (the chain is read from its
// last call back, so the first one read is kept).
func (r *reader) loadOption(ld *load, k string, n *sitter.Node) {
	if _, ok := ld.options[k]; ok {
		return
	}
	v, ok := r.optionValue(n)
	if !ok {
		if ld.computed == "" {
			ld.computed = fmt.Sprintf("the value of option %q is computed at run time", k)
		}
		return
	}
	if n = unparen(n); n != nil && n.Kind() == "none" {
		return
	}
	if ld.options == nil {
		ld.options = map[string]string{}
	}
	ld.options[k] = v
}

// optionValue is an option's literal value as pyspark's to_str writes it.
func (r *reader) optionValue(n *sitter.Node) (string, bool) {
	if lit, ok := r.literal(n); ok {
		return lit.Value, true
	}
	n = unparen(r.constant(n))
	if n == nil {
		return "", false
	}
	switch n.Kind() {
	case "true":
		return "true", true
	case "false":
		return "false", true
	case "none":
		return "", true
	case "integer", "float":
		return strings.ReplaceAll(r.srcOf(n), "_", ""), true
	}
	return "", false
}

// loadSchema records a reader's schema: a DDL string literal; anything
// else (a StructType) is computed, for the push.
func (r *reader) loadSchema(ld *load, n *sitter.Node) {
	if ld.schema != "" {
		return
	}
	if lit, ok := r.literal(n); ok {
		ld.schema = lit.Value
		ld.schemaLoc = lit.Loc
		return
	}
	if ld.computed == "" {
		ld.computed = "its schema is not a DDL string literal"
	}
}

// byName are the file formats whose reader applies a given schema to the
// fields by name (CSV applies it by position).
var byName = map[string]bool{"json": true, "parquet": true, "orc": true}

// scalarTypes are the Spark types a load's schema may give for Thund to
// cast to them natively.
var scalarTypes = map[string]bool{"STRING": true, "BIGINT": true, "LONG": true, "INT": true, "INTEGER": true, "SMALLINT": true,
	"SHORT": true, "TINYINT": true, "BYTE": true, "DOUBLE": true, "FLOAT": true, "REAL": true, "BOOLEAN": true, "DATE": true,
	"TIMESTAMP": true, "TIMESTAMP_NTZ": true, "BINARY": true}

var decimalType = regexp.MustCompile(`^(?i)(DECIMAL|DEC|NUMERIC)(\(\s*\d+\s*(,\s*\d+\s*)?\))?$`)

// ddlFields reads a DDL schema ("id BIGINT, name STRING") as its fields'
// names and types; ok is false for anything but plain names of scalar
// types (a nested type, a comment, NOT NULL), which the native run then
// reads as the sample gives it.
func ddlFields(ddl string) (fields [][2]string, ok bool) {
	for _, part := range strings.Split(ddl, ",") {
		f := strings.Fields(part)
		if len(f) == 2 && strings.HasSuffix(f[0], ":") {
			f[0] = strings.TrimSuffix(f[0], ":")
		}
		if len(f) != 2 || !plainIdent(f[0]) {
			return nil, false
		}
		t := strings.ToUpper(f[1])
		if !scalarTypes[t] && !decimalType.MatchString(t) {
			return nil, false
		}
		fields = append(fields, [2]string{f[0], t})
	}
	return fields, len(fields) > 0
}

// plainIdent reports whether s is a name that needs no backquotes.
func plainIdent(s string) bool {
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// sqlString is s as a Spark SQL string literal.
func sqlString(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
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
	rg := &Range{Start: start, End: end, Step: step}
	if set[3] {
		rg.Partitions = int32(val[3])
	}
	return frame{query: fmt.Sprintf("SELECT id FROM range(%d, %d, %d)", start, end, step), cols: []string{"id"}, types: []string{"BIGINT"}, rel: &Relation{Range: rg}}, ""
}

// integer reads an integer literal, with an optional sign.
func (r *reader) integer(n *sitter.Node) (int64, bool) {
	n = unparen(r.constant(n))
	if n == nil || r.depth > 8 {
		return 0, false
	}
	if v, ok := r.intOfText(n); ok {
		return v, true
	}
	switch n.Kind() {
	case "unary_operator":
		op := n.ChildByFieldName("operator")
		if op == nil || (r.srcOf(op) != "-" && r.srcOf(op) != "+") {
			return 0, false
		}
		r.depth++
		v, ok := r.integer(n.ChildByFieldName("argument"))
		r.depth--
		if !ok || v == math.MinInt64 {
			return 0, false
		}
		if r.srcOf(op) == "-" {
			v = -v
		}
		return v, true
	case "binary_operator":
		return r.integerArithmetic(n)
	case "integer":
		v, err := strconv.ParseInt(strings.ReplaceAll(r.srcOf(n), "_", ""), 0, 64)
		return v, err == nil
	}
	return 0, false
}

// integerArithmetic folds a binary operation of integers Thund knows
// (365 * 10, N + 1) as Python computes it: + - * exactly, // and % with
// floor division, ** of an exponent of 0 or more; false for another
// operator (/ gives a float), a division by zero, or a value past 64
// bits (Python's exact integer would differ from anything the run does).
func (r *reader) integerArithmetic(n *sitter.Node) (int64, bool) {
	op := n.ChildByFieldName("operator")
	if op == nil {
		return 0, false
	}
	r.depth++
	a, okA := r.integer(n.ChildByFieldName("left"))
	b, okB := r.integer(n.ChildByFieldName("right"))
	r.depth--
	if !okA || !okB {
		return 0, false
	}
	x, y := big.NewInt(a), big.NewInt(b)
	z := new(big.Int)
	switch r.srcOf(op) {
	case "+":
		z.Add(x, y)
	case "-":
		z.Sub(x, y)
	case "*":
		z.Mul(x, y)
	case "//", "%":
		if b == 0 {
			return 0, false
		}
		q, m := new(big.Int).QuoRem(x, y, new(big.Int))
		if m.Sign() != 0 && (m.Sign() < 0) != (y.Sign() < 0) {
			// Python floors: the remainder takes the divisor's sign.
			q.Sub(q, big.NewInt(1))
			m.Add(m, y)
		}
		if r.srcOf(op) == "//" {
			z = q
		} else {
			z = m
		}
	case "**":
		if b < 0 || b > 64 {
			if b < 0 || (a != 0 && a != 1 && a != -1) {
				return 0, false
			}
		}
		z.Exp(x, y, nil)
	default:
		return 0, false
	}
	if !z.IsInt64() {
		return 0, false
	}
	return z.Int64(), true
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

// intOfText reads int(TEXT) of a text Thund knows (a literal, a
// constant, spark.conf.get(...)) as Python's int() does for a plain
// decimal: optional blanks and sign, digits (underscores between them).
func (r *reader) intOfText(n *sitter.Node) (int64, bool) {
	fn, args, kw, _, ok := r.call(n)
	if !ok || r.srcOf(unparen(fn)) != "int" || len(args) != 1 || len(kw) > 0 {
		return 0, false
	}
	r.depth++
	defer func() { r.depth-- }()
	if v, ok := r.integer(args[0]); ok {
		return v, true // int(5)
	}
	lit, ok := r.literal(args[0])
	if !ok {
		return 0, false
	}
	t := strings.TrimSpace(lit.Value)
	digits := strings.TrimLeft(t, "+-")
	if len(t)-len(digits) > 1 || digits == "" || digits[0] == '_' || digits[len(digits)-1] == '_' || strings.Contains(digits, "__") {
		return 0, false
	}
	for _, c := range digits {
		if (c < '0' || c > '9') && c != '_' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(t, "_", ""), 10, 64)
	return v, err == nil
}
