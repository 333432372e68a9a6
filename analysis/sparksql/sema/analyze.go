package sema

import (
	"strings"
	"sync"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// analyzer holds the state of one analysis.
type analyzer struct {
	cat  Catalog
	opts Options
	m    *Model
	// refs is the rest of the chunk new column references come from.
	refs []ColumnRef
	// cols, tables and rels are the rests of the chunks new output
	// columns, table references and relations come from.
	cols   []OutputColumn
	tables []TableRef
	rels   []Relation
	// ctes are the CTEs in scope, innermost first; rec is the WITH
	// RECURSIVE CTE being analyzed.
	ctes *cteEnv
	rec  *cteDef
	eqs  int
	// froms remembers analyzed FROM clauses (FROM t SELECT a SELECT b
	// shares one between two bodies).
	froms map[*ast.From]*scope
	types map[string]*ast.DataType
	// quiet drops the diagnostics of the statement being analyzed (a
	// SQL script, a routine's body, a DML statement's subqueries).
	quiet bool
	// windows are the WINDOW clauses in scope, innermost last.
	windows [][]*ast.NamedWindow
}

func newAnalyzer(cat Catalog, opts Options) *analyzer {
	am := &analyzerModel{}
	am.m = Model{tables: map[ast.Node]*TableRef{}, columns: map[*ast.Column]*ColumnRef{}, outputs: map[ast.Node]*Output{}}
	am.a = analyzer{cat: cat, opts: opts, froms: map[*ast.From]*scope{}, types: map[string]*ast.DataType{}, m: &am.m}
	a := &am.a
	a.refs = takeRefs()
	it := &items{}
	a.cols, a.tables, a.rels = it.cols[:], it.tables[:], it.rels[:]
	a.m.Columns, a.m.Tables, a.m.Relations = am.columns[:0:len(am.columns)], am.tables[:0:len(am.tables)], am.rels[:0:len(am.rels)]
	return a
}

// analyzerModel is an analyzer with its model, allocated together, with
// room for the lists of a typical query's model.
type analyzerModel struct {
	a       analyzer
	m       Model
	columns [16]*ColumnRef
	tables  [4]*TableRef
	rels    [4]*Relation
}

// items is room for the output columns, table references and relations
// of a typical query. It is an allocation of its own, apart from the
// model: column references (which come from chunks shared between
// analyses) point to relations and output columns, and were those in the
// block that also holds the model's lists of references, a kept chunk of
// references would keep the models of its analyses alive, their lists
// the next chunk, and so on through every analysis. Items point only to
// items of their own analysis and to the syntax tree.
type items struct {
	cols   [8]OutputColumn
	tables [4]TableRef
	rels   [4]Relation
}

// The chunks an analysis takes its items from when those of its
// analyzerModel are used up hold this many.
const (
	colChunk   = 16
	tableChunk = 4
)

// newCol returns a new, zero output column.
func (a *analyzer) newCol() *OutputColumn {
	if len(a.cols) == 0 {
		a.cols = make([]OutputColumn, colChunk)
	}
	c := &a.cols[0]
	a.cols = a.cols[1:]
	return c
}

// newTable returns a new, zero table reference.
func (a *analyzer) newTable() *TableRef {
	if len(a.tables) == 0 {
		a.tables = make([]TableRef, tableChunk)
	}
	t := &a.tables[0]
	a.tables = a.tables[1:]
	return t
}

// newRelation returns a new, zero relation.
func (a *analyzer) newRelation() *Relation {
	if len(a.rels) == 0 {
		a.rels = make([]Relation, tableChunk)
	}
	r := &a.rels[0]
	a.rels = a.rels[1:]
	return r
}

// refSlab is how many column references a shared chunk holds. A query has
// a few dozen at most, so one chunk serves many analyses in turn: each
// takes the unused rest of the chunk the previous one left (refPool), and
// the many models of a pipeline's column check share a few allocations
// instead of one chunk each, mostly unused. A reference is handed out
// once and never reused, so models never share one. (Only references
// are shared this way: a reference points to its own analysis's items,
// never to another chunk of references, so a chunk kept alive keeps at
// most the models of its own analyses alive, not a chain of them.)
const refSlab = 512

// refPool holds the unused rests of column-reference chunks.
var refPool sync.Pool

// refRest is a chunk rest in refPool.
type refRest struct{ refs []ColumnRef }

// takeRefs returns a chunk rest for a new analysis.
func takeRefs() []ColumnRef {
	if p, ok := refPool.Get().(*refRest); ok {
		return p.refs
	}
	return make([]ColumnRef, refSlab)
}

// finish gives the unused rest of the analysis's reference chunk back
// for the next analysis, and returns the model.
func (a *analyzer) finish() *Model {
	// (a model without references has nil lists, as it always had)
	if len(a.m.Columns) == 0 {
		a.m.Columns = nil
	}
	if len(a.m.Tables) == 0 {
		a.m.Tables = nil
	}
	if len(a.m.Relations) == 0 {
		a.m.Relations = nil
	}
	if len(a.refs) >= refChunk {
		refPool.Put(&refRest{refs: a.refs})
	}
	a.refs, a.cols, a.tables, a.rels = nil, nil, nil, nil
	return a.m
}

// cteDef is one CTE in scope.
type cteDef struct {
	cte       *ast.CTE
	recursive bool
	// out is the CTE's output, nil while its query is analyzed; anchor
	// is then the output of a recursive CTE's first UNION arm.
	out     *Output
	anchor  *result
	catalog bool
}

// cteEnv is the list of CTEs in scope.
type cteEnv struct {
	def    *cteDef
	parent *cteEnv
}

// result is what analyzing a query body gives: its output, the attrs of
// the output columns (with their qualifiers, for ORDER BY and pipes), and
// for a SELECT the scope its clauses saw.
type result struct {
	out   *Output
	attrs []attr
	sel   *selInfo
	// catalog says a catalog table's metadata columns may pass through.
	catalog bool
	// hidden are the columns that are no output columns but that a
	// qualified name in the next pipe operator still reaches (the other
	// side of a USING join's column).
	hidden []attr
}

// selInfo is the scope of a SELECT, which the query's ORDER BY also sees.
type selInfo struct {
	from    *scope
	outer   *env
	virtual bool
	// group are the GROUP BY expressions ORDER BY can name.
	group []attr
	// s is the SELECT; window says its select list has a window
	// function.
	s      *ast.Select
	window bool
}

// query analyzes a query with its WITH and ORDER BY, LIMIT, ...
func (a *analyzer) query(q *ast.Query, outer *env) *result {
	saved := a.ctes
	if q.With != nil {
		a.with(q.With, outer)
	}
	nw := len(a.windows)
	if len(q.Windows) > 0 {
		a.windows = append(a.windows, q.Windows)
	}
	res := a.body(q.Body, outer)
	a.organization(q, res, outer)
	a.windows = a.windows[:nw]
	a.ctes = saved
	r := newResult(Output{Node: q, Columns: res.out.Columns, Complete: res.out.Complete})
	a.m.outputs[q] = r.out
	r.attrs, r.sel, r.catalog, r.hidden = res.attrs, res.sel, res.catalog, res.hidden
	return r
}

// resultOut is a result with its output, allocated together: most
// results are made with an output of their own.
type resultOut struct {
	r result
	o Output
}

// newResult returns a result whose output is out.
func newResult(out Output) *result {
	ro := &resultOut{o: out}
	ro.r.out = &ro.o
	return &ro.r
}

// with puts the CTEs of w in scope, each visible to the CTEs after it
// and to the query (and, under RECURSIVE, to itself).
func (a *analyzer) with(w *ast.With, outer *env) {
	for _, c := range w.CTEs {
		if c == nil {
			continue
		}
		d := &cteDef{cte: c, recursive: w.Recursive}
		if w.Recursive {
			a.ctes = &cteEnv{def: d, parent: a.ctes}
		}
		var res *result
		if c.Query != nil {
			prev := a.rec
			if w.Recursive {
				a.rec = d
				a.recursiveUnion(c)
			}
			res = a.query(c.Query, outer)
			a.rec = prev
		} else {
			res = &result{out: &Output{}}
		}
		cols, complete := rename(res.out.Columns, res.out.Complete, c.Columns)
		d.out = &Output{Node: c, Columns: cols, Complete: complete}
		d.catalog = res.catalog
		a.m.outputs[c] = d.out
		if !w.Recursive {
			a.ctes = &cteEnv{def: d, parent: a.ctes}
		}
	}
}

// findCTE returns the CTE in scope named name, or nil.
func (a *analyzer) findCTE(name string) *cteDef {
	for e := a.ctes; e != nil; e = e.parent {
		if e.def.cte.Name != nil && e.def.cte.Name.Expr == nil && a.eqName(e.def.cte.Name.Name, name) {
			return e.def
		}
	}
	return nil
}

// columns returns a CTE's columns as a reference sees them.
func (d *cteDef) columns() ([]*OutputColumn, bool) {
	if d.out != nil {
		return d.out.Columns, d.out.Complete
	}
	// a recursive reference from inside the CTE's own query
	if len(d.cte.Columns) > 0 {
		cols := make([]*OutputColumn, len(d.cte.Columns))
		for i, id := range d.cte.Columns {
			cols[i] = &OutputColumn{Name: id.Name}
		}
		return cols, true
	}
	if d.anchor != nil {
		return d.anchor.out.Columns, d.anchor.out.Complete
	}
	return nil, false
}

// organization resolves ORDER BY, SORT BY, CLUSTER BY, DISTRIBUTE BY,
// WINDOW, LIMIT and OFFSET: against the output first, then (for a
// SELECT) the FROM scope.
func (a *analyzer) organization(q *ast.Query, res *result, outer *env) {
	c := ctx{outer: outer, allowAll: true}
	if res.sel != nil {
		c.primary, c.outer, c.virtual = res.sel.from, res.sel.outer, res.sel.virtual
	}
	if len(q.OrderBy)+len(q.SortBy)+len(q.ClusterBy)+len(q.DistributeBy) > 0 {
		c.first = a.outScope(res, q.Body, true)
		if res.sel != nil {
			c.first.attrs = append(c.first.attrs, res.sel.group...)
		}
	}
	for _, list := range [][]*ast.SortItem{q.OrderBy, q.SortBy} {
		c.clause = "ORDER BY"
		for _, s := range list {
			if s != nil {
				a.expr(s.X, c)
			}
		}
	}
	for _, list := range [][]ast.Expr{q.ClusterBy, q.DistributeBy} {
		c.clause = "CLUSTER BY"
		for _, x := range list {
			a.expr(x, c)
		}
	}
	if len(q.Windows) > 0 {
		wc := c
		wc.first = nil
		if wc.primary == nil {
			wc.primary = a.outScope(res, q.Body, false)
		}
		for _, nw := range q.Windows {
			if nw != nil {
				a.window(nw.Window, wc)
			}
		}
	}
	if res.sel != nil && res.sel.s != nil && res.sel.s.Organization == nil {
		a.orderAfterAggregate(q, res.sel)
		a.orderDuplicateNames(q, res)
	}
	if res.sel != nil && res.sel.s != nil && res.sel.s.Organization == nil {
		a.sortSubqueries(q.OrderBy, res.sel.s)
	}
	a.orderOrdinals(q, res)
	lc := ctx{outer: outer, quiet: true}
	a.expr(q.Limit, lc)
	a.expr(q.Offset, lc)
}

// outScope returns the scope of a result's output columns. With
// keepAlias, a select item's column resolves to the item (an alias);
// without, computed columns are columns of a relation for node.
func (a *analyzer) outScope(res *result, node ast.Node, keepAlias bool) *scope {
	attrs := make([]attr, len(res.attrs))
	copy(attrs, res.attrs)
	var rel *Relation
	complete := res.out.Complete
	for i := range attrs {
		at := &attrs[i]
		if !keepAlias {
			at.item, at.alias = nil, false
		}
		if at.src.Rel == nil && at.item == nil {
			if rel == nil {
				rel = a.newRel(node, "", res.out.Columns, res.out.Complete)
			}
			at.src = ColumnSource{Rel: rel, Index: i}
		}
	}
	for _, at := range res.hidden {
		at.hidden = true
		attrs = append(attrs, at)
	}
	return &scope{attrs: attrs, complete: complete, catalog: res.catalog}
}

// body analyzes a query body.
func (a *analyzer) body(b ast.QueryExpr, outer *env) *result {
	var res *result
	switch b := b.(type) {
	case *ast.Select:
		if b != nil {
			res = a.selectQ(b, outer, nil)
		}
	case *ast.SetOp:
		if b != nil {
			l := a.body(b.L, outer)
			if a.rec != nil && a.rec.cte.Query != nil && a.rec.cte.Query.Body == ast.QueryExpr(b) {
				a.rec.anchor = l
			}
			a.body(b.R, outer)
			res = a.setResult(l)
		}
	case *ast.ParenQuery:
		if b != nil && b.Query != nil {
			res = a.query(b.Query, outer)
		}
	case *ast.Values:
		if b != nil {
			rel, sc := a.valuesRel(b, outer)
			res = &result{out: &Output{Columns: rel.Columns, Complete: rel.Complete}, attrs: sc.attrs}
		}
	case *ast.TableQuery:
		if b != nil {
			_, sc := a.tableRead(b, b.Name, nil)
			res = a.scopeResult(sc)
		}
	case *ast.Pipe:
		if b != nil {
			res = a.pipe(b, outer)
		}
	}
	if res == nil {
		res = &result{out: &Output{}}
	}
	r := newResult(Output{Node: b, Columns: res.out.Columns, Complete: res.out.Complete})
	if b != nil {
		a.m.outputs[b] = r.out
	}
	r.attrs, r.sel, r.catalog, r.hidden = res.attrs, res.sel, res.catalog, res.hidden
	return r
}

// setResult is the output of a set operation: the left arm's columns.
func (a *analyzer) setResult(l *result) *result {
	attrs := make([]attr, len(l.attrs))
	cols := make([]*OutputColumn, len(l.attrs))
	var same map[int]int // past 32 columns; a scan of the columns before finds the few
	if len(l.attrs) > 32 {
		same = make(map[int]int, len(l.attrs))
	}
	for i, at := range l.attrs {
		eq, ok := 0, false
		if same != nil {
			eq, ok = same[at.eq]
		} else {
			for j := 0; j < i && !ok; j++ {
				if l.attrs[j].eq == at.eq {
					eq, ok = attrs[j].eq, true
				}
			}
		}
		if !ok {
			eq = a.newEq()
			if same != nil {
				same[at.eq] = eq
			}
		}
		attrs[i] = attr{name: at.name, qual: at.qual, partial: at.partial, fuzzy: at.fuzzy, eq: eq, typ: at.typ}
		c := a.newCol()
		*c = OutputColumn{Name: at.name, Generated: at.fuzzy != sure, fuzz: at.fuzzy, Type: at.typ, eq: eq}
		cols[i] = c
	}
	return &result{out: &Output{Columns: cols, Complete: l.out.Complete}, attrs: attrs, catalog: l.catalog}
}

// scopeResult is the output of a scope's visible columns, passed
// through.
func (a *analyzer) scopeResult(sc *scope) *result {
	attrs := sc.visible()
	return &result{out: &Output{Columns: colsOf(attrs), Complete: sc.complete}, attrs: attrs, catalog: sc.catalog,
		hidden: hiddenOf(sc)}
}

// selectQ analyzes a SELECT (or a pipe operator's SELECT, EXTEND,
// WHERE or AGGREGATE, whose FROM scope is input).
func (a *analyzer) selectQ(s *ast.Select, outer *env, input *scope) *result {
	var S *scope
	switch {
	case input != nil:
		S = input
	case s.From != nil:
		S = a.from(s.From, outer)
	default:
		S = emptyScope()
	}
	for _, lv := range s.LateralViews {
		if lv != nil {
			S = a.lateralView(lv, S, outer)
		}
	}
	virtual := hasTimeWindow(s)
	base := ctx{primary: S, outer: outer, virtual: virtual}
	nw := len(a.windows)
	if len(s.Windows) > 0 {
		a.windows = append(a.windows, s.Windows)
	}
	defer func() { a.windows = a.windows[:nw] }()
	if s.Where != nil {
		c := base
		c.clause = "WHERE"
		for _, it := range s.Items {
			if it != nil && it.Alias != nil {
				c.whereAliases = append(c.whereAliases, it.Alias.Name)
			}
		}
		a.expr(s.Where, c)
	}
	gc := &groupCheck{}
	cols := make([]*OutputColumn, 0, len(s.Items))
	attrs := make([]attr, 0, len(s.Items))
	// The lateral column aliases an item sees are the attrs of the items
	// before it: attrs itself until a * puts its columns among them, a
	// list of their own (lca) after that.
	var lca []attr
	star := false
	var after *scope // the lateral aliases' scope, one for all items
	complete := true
	var hidden []attr
	for _, it := range s.Items {
		if it == nil {
			continue
		}
		if st, ok := it.X.(*ast.Star); ok && s.Transform == nil && it.Alias == nil && it.Aliases == nil {
			if !star {
				star, lca = true, append(make([]attr, 0, len(s.Items)), attrs...)
			}
			sa, ok := a.expand(st, S, outer)
			complete = complete && ok
			cols = append(cols, colsOf(sa)...)
			attrs = append(attrs, sa...)
			continue
		}
		c := base
		c.gc, c.collect, c.clause = gc, true, "SELECT"
		seen := attrs
		if star {
			seen = lca
		}
		if !a.opts.NoLateralAliases && len(seen) > 0 {
			// (an item's scope is read only while the item is resolved,
			// so the next item's can be the same scope with more attrs)
			if after == nil {
				after = &scope{complete: true}
			}
			after.attrs = seen[:len(seen):len(seen)]
			c.after = after
		}
		a.expr(it.X, c)
		na := len(attrs)
		var ok bool
		cols, attrs, ok = a.itemOutput(it, cols, attrs)
		complete = complete && ok
		if star {
			lca = append(lca, attrs[na:]...)
		}
	}
	if len(s.Items) == 0 && s.Transform == nil {
		// FROM t alone (a pipe's input): the FROM scope is the output
		sr := a.scopeResult(S)
		cols, attrs, complete, hidden = sr.out.Columns, sr.attrs, S.complete, sr.hidden
	}
	for _, nw := range s.Windows {
		if nw != nil {
			a.window(nw.Window, base)
		}
	}
	var groupRefs []*ColumnRef
	var groupAttrs []attr
	if s.GroupBy != nil {
		c := base
		c.allowAll, c.clause, c.groupRefs = true, "GROUP BY", &groupRefs
		if !a.opts.NoGroupByAliases {
			c.after = itemScope(attrs)
		}
		a.groupItems(s.GroupBy.Items, c)
		a.groupItems(s.GroupBy.GroupingSets, c)
		groupAttrs = a.groupScope(s.GroupBy.GroupingSets, a.groupScope(s.GroupBy.Items, nil))
	}
	if s.Having != nil {
		c := base
		c.first = &scope{attrs: append(append([]attr(nil), attrs...), groupAttrs...), complete: complete, catalog: S.catalog}
		c.gc, c.clause = gc, "HAVING"
		if s.GroupBy != nil {
			c.aliasCheck = aliasInHaving
			c.groupAll = len(s.GroupBy.Items) == 1 && a.isGroupAll(s.GroupBy.Items[0])
			c.items = attrs
		}
		a.expr(s.Having, c)
		a.groupAllHaving(s, S)
	}
	a.starGroupByPos(s)
	if outer != nil {
		a.outerGroupBy(groupRefs)
	}
	a.lateralAliasInGroupBy(s, groupRefs)
	if tr := s.Transform; tr != nil {
		cols, attrs, complete = nil, nil, true
		names := []string{"key", "value"}
		if len(tr.Output) > 0 {
			names = names[:0]
			for _, cd := range tr.Output {
				if cd == nil || cd.Name == nil {
					complete = false
					continue
				}
				names = append(names, cd.Name.Name)
			}
		}
		for _, n := range names {
			cols = append(cols, &OutputColumn{Name: n})
			attrs = append(attrs, attr{name: n, eq: a.newEq()})
		}
	}
	// HAVING alone, without an aggregate, is a filter under
	// spark.sql.legacy.parser.havingWithoutGroupByAsWhere: not counted
	grouping := s.GroupBy != nil || gc.agg
	if grouping && input == nil && s.Transform == nil && !gc.window && S.complete {
		a.checkGrouping(s, gc, groupRefs)
	}
	ro := &selectResult{
		ro:  resultOut{o: Output{Node: s, Columns: cols, Complete: complete}},
		sel: selInfo{from: S, outer: outer, virtual: virtual, group: groupAttrs, s: s, window: gc.window},
	}
	r := &ro.ro.r
	r.out, r.attrs, r.sel, r.catalog, r.hidden = &ro.ro.o, attrs, &ro.sel, S.catalog, hidden
	return r
}

// selectResult is a SELECT's result with its output and scope, allocated
// together.
type selectResult struct {
	ro  resultOut
	sel selInfo
}

// itemScope is the scope of the select items (not the columns of a *)
// among attrs: GROUP BY sees their aliases, explicit or Spark's own.
func itemScope(attrs []attr) *scope {
	s := &scope{complete: true}
	for i, at := range attrs {
		if at.item == nil {
			// a star's columns among them: the items' attrs are a list
			// of their own
			s.attrs = append(make([]attr, 0, len(attrs)), attrs[:i]...)
			for _, at := range attrs[i+1:] {
				if at.item != nil {
					s.attrs = append(s.attrs, at)
				}
			}
			return s
		}
	}
	if len(attrs) > 0 {
		s.attrs = attrs[:len(attrs):len(attrs)] // all of them, shared: only read
	}
	return s
}

// groupScope returns the GROUP BY expressions that are not plain
// columns, as columns named the way Spark names them: ORDER BY and
// HAVING of an aggregation can name them (ORDER BY `(d + 1)`).
func (a *analyzer) groupScope(items []*ast.GroupItem, out []attr) []attr {
	for _, gi := range items {
		if gi == nil {
			continue
		}
		switch x := unparen(gi.X).(type) {
		case nil, *ast.Column:
		case *ast.Literal:
			if x.Kind != ast.LitInteger {
				n, fz := a.exprName(x)
				out = append(out, attr{name: n, fuzzy: fz, eq: a.newEq()})
			}
		default:
			n, fz := a.exprName(x)
			out = append(out, attr{name: n, fuzzy: fz, eq: a.newEq()})
		}
		out = a.groupScope(gi.Items, out)
	}
	return out
}

// groupItems resolves GROUP BY items, ROLLUP, CUBE and GROUPING SETS.
func (a *analyzer) groupItems(items []*ast.GroupItem, c ctx) {
	for _, gi := range items {
		if gi == nil {
			continue
		}
		a.expr(gi.X, c)
		a.groupItems(gi.Items, c)
	}
}

// itemOutput appends the output columns of one select item to cols and
// their attributes to attrs, and says whether they are known (when not,
// nothing is appended); a generator (explode(x) AS (k, v)) may give
// several. Appending to the caller's slices spares two one-element slices
// per item.
func (a *analyzer) itemOutput(it *ast.SelectItem, cols []*OutputColumn, attrs []attr) ([]*OutputColumn, []attr, bool) {
	x := unparen(it.X)
	if len(it.Aliases) > 0 {
		for _, id := range it.Aliases {
			if id == nil {
				continue
			}
			cols = append(cols, &OutputColumn{Name: id.Name, Expr: it.X, Item: it})
			attrs = append(attrs, attr{name: id.Name, eq: a.newEq(), item: it, alias: true})
		}
		return cols, attrs, true
	}
	if call, ok := x.(*ast.Call); ok && call.Over == nil {
		if name, builtin := funcName(call.Name); builtin && generators[name] {
			names, known := a.generatorCols(call)
			if it.Alias != nil {
				names, known = []string{it.Alias.Name}, true
			}
			if !known {
				return cols, attrs, false
			}
			for _, n := range names {
				cols = append(cols, &OutputColumn{Name: n, Expr: it.X, Item: it})
				attrs = append(attrs, attr{name: n, eq: a.newEq(), item: it, alias: it.Alias != nil})
			}
			return cols, attrs, true
		}
	}
	name, fz := a.exprName(x)
	if it.Alias != nil {
		name, fz = it.Alias.Name, sure
		if it.Alias.Expr != nil {
			fz = unsure
		}
	}
	at := attr{name: name, fuzzy: fz, eq: a.newEq(), item: it, alias: it.Alias != nil}
	col := a.newCol()
	*col = OutputColumn{Name: name, Generated: fz != sure, fuzz: fz, Expr: it.X, Item: it}
	if cx, ok := x.(*ast.Column); ok {
		if ref := a.m.columns[cx]; ref != nil && ref.Kind == RefColumn && ref.NameParts == len(cx.Parts) {
			src := ref.Source
			col.Source, col.Type = &src, ref.typ
			at.src, at.qual, at.partial, at.eq, at.typ = src, ref.qual, ref.partial, ref.eq, ref.typ
		}
	}
	col.eq = at.eq
	return append(cols, col), append(attrs, at), true
}

// exprName returns the name Spark gives a select item without an alias,
// and how sure the model is of it. A column's (or struct field's) last
// name is Spark's, as is a string literal's value and the column name of
// a cast of a column (Spark names CAST(a AS INT) a). For anything else
// Spark prints the expression its own way: the name is the text as
// written (when the source is known), and for the expressions whose
// printed form is never a plain identifier (calls, operators, casts,
// CASE, literals, ...) only a quoted reference could name the column.
func (a *analyzer) exprName(x ast.Expr) (string, fuzz) {
	switch y := x.(type) {
	case *ast.Column:
		if len(y.Parts) > 0 {
			if last := y.Parts[len(y.Parts)-1]; last != nil && last.Expr == nil && last.Name != "" {
				return last.Name, sure
			}
		}
	case *ast.Literal:
		if y.Kind == ast.LitString && y.Str != nil {
			return y.Str.Value, sure
		}
		return y.Text, quotedOnly
	case *ast.Cast:
		if cx, ok := unparen(y.X).(*ast.Column); ok {
			if r := a.m.columns[cx]; r != nil && (r.Kind == RefColumn || r.Kind == RefLambda || r.Kind == RefAlias) &&
				r.NameParts == len(cx.Parts) {
				return a.exprName(cx)
			}
			break
		}
		return a.text(x), quotedOnly
	case *ast.Call:
		// a built-in's name is name(args); a function the model does not
		// know may be a generator (a Hive UDTF) naming its own columns
		if n, builtin := funcName(y.Name); builtin && n != "window" && n != "session_window" &&
			(isScalar(n) || IsAggregate(n) || windowFuncs[n]) {
			return a.text(x), quotedOnly
		}
	case *ast.Binary, *ast.Unary, *ast.Case, *ast.Between, *ast.In, *ast.Like, *ast.Is, *ast.Exists,
		*ast.Subquery, *ast.Subscript, *ast.Extract, *ast.Collate, *ast.Interval, *ast.TypedLiteral, *ast.Row:
		return a.text(x), quotedOnly
	}
	return a.text(x), unsure
}

// text returns the source text of x, or "" without a source.
func (a *analyzer) text(x ast.Expr) string {
	if x == nil {
		return ""
	}
	r := x.Span()
	if r.Start >= 0 && r.Start <= r.End && r.End <= len(a.opts.Source) {
		return a.opts.Source[r.Start:r.End]
	}
	return ""
}

// expand returns the columns of * or t.* (without the EXCEPT columns)
// and whether they are all known. In the query of a LATERAL subquery
// (outer marked lateral) t.* may name a FROM item before LATERAL, as
// Spark expands it (join-lateral.sql: LATERAL (SELECT t1.*, t2.* FROM
// t2)); a * without FROM expands to nothing there, not to those items.
func (a *analyzer) expand(st *ast.Star, S *scope, outer *env) ([]attr, bool) {
	var src []attr
	complete := S.complete
	if st.Qualifier == nil {
		src = S.visible()
	} else {
		parts, ok := nameParts(st.Qualifier)
		if !ok {
			return nil, false
		}
		src = a.qualified(S, parts)
		if len(src) == 0 && complete && !S.qualLoose && outer != nil && outer.lateral && outer.sc != nil {
			src = a.qualified(outer.sc, parts)
			S = outer.sc
		}
		if len(src) == 0 {
			// s.* of a struct column, or a relation the model cannot see
			return nil, false
		}
		complete = !S.qualLoose
		for _, at := range src {
			if at.src.Rel == nil || !at.src.Rel.Complete {
				complete = false
			}
		}
	}
	var out []attr
	used := make([]bool, len(st.Except))
	for _, at := range src {
		if i := a.excepted(&at, st.Except); i >= 0 {
			used[i] = true
			continue
		}
		at.item, at.alias = nil, false
		if i := a.fieldExcepted(&at, st.Except); i >= 0 {
			// * EXCEPT (s.f): the column is s without the field, a
			// computed struct of its own (its type no longer s's).
			used[i] = true
			at = attr{name: at.name, qual: at.qual, partial: at.partial, eq: a.newEq()}
		}
		out = append(out, at)
	}
	if complete && !S.qualLoose {
		for i, n := range st.Except {
			if !used[i] && n != nil && len(n.Parts) == 1 && n.Parts[0] != nil && n.Parts[0].Expr == nil {
				a.unknownName(n.Range, n.Parts[0], src, "* EXCEPT")
			}
		}
	}
	return out, complete
}

// fieldExcepted returns the index of a * EXCEPT (names) name that drops
// a field of struct column at (at.f, at.s.f), or -1.
func (a *analyzer) fieldExcepted(at *attr, names []*ast.Name) int {
	for i, n := range names {
		parts, ok := nameParts(n)
		if ok && len(parts) > 1 && a.eqName(at.name, parts[0]) {
			return i
		}
	}
	return -1
}

// excepted returns the index of the * EXCEPT (names) name that drops at,
// or -1.
func (a *analyzer) excepted(at *attr, names []*ast.Name) int {
	for i, n := range names {
		parts, ok := nameParts(n)
		if !ok {
			continue
		}
		if len(parts) == 1 && a.eqName(at.name, parts[0]) {
			return i
		}
		if len(parts) > 1 && a.eqName(at.name, parts[len(parts)-1]) {
			if ok, _ := a.qualMatch(at, parts[:len(parts)-1]); ok {
				return i
			}
		}
	}
	return -1
}

// nameParts returns the parts of a name, or false when one is not known
// as written (IDENTIFIER(expr)).
func nameParts(n *ast.Name) ([]string, bool) {
	if n == nil || len(n.Parts) == 0 {
		return nil, false
	}
	parts := make([]string, 0, len(n.Parts))
	for _, p := range n.Parts {
		if p == nil || p.Expr != nil || p.Name == "" {
			return nil, false
		}
		if identifierClause(p) && strings.ContainsAny(p.Name, ".`") {
			// IDENTIFIER('db.t'): Spark reads the string as a name
			if strings.Contains(p.Name, "`") {
				return nil, false
			}
			parts = append(parts, strings.Split(p.Name, ".")...)
			continue
		}
		parts = append(parts, p.Name)
	}
	return parts, true
}

// hasTimeWindow reports whether a SELECT calls window, session_window
// or window_time, which make a window (session_window) column.
func hasTimeWindow(s *ast.Select) bool {
	found := false
	fn := func(x ast.Expr) bool {
		if c, ok := x.(*ast.Call); ok {
			switch n, _ := funcName(c.Name); n {
			case "window", "session_window", "window_time":
				found = true
			}
		}
		return !found
	}
	for _, it := range s.Items {
		if it != nil {
			visitExpr(it.X, fn)
		}
	}
	if s.GroupBy != nil {
		var walk func([]*ast.GroupItem)
		walk = func(items []*ast.GroupItem) {
			for _, gi := range items {
				if gi != nil {
					visitExpr(gi.X, fn)
					walk(gi.Items)
				}
			}
		}
		walk(s.GroupBy.Items)
		walk(s.GroupBy.GroupingSets)
	}
	visitExpr(s.Where, fn)
	visitExpr(s.Having, fn)
	return found
}

// checkGrouping reports the select list's column references that are
// neither grouped nor aggregated (Spark's MISSING_AGGREGATION), where
// that is certain: a plain column of the query's own FROM, outside every
// aggregate, window, lambda, subquery and unknown function, when no
// GROUP BY expression mentions that column at all.
func (a *analyzer) checkGrouping(s *ast.Select, gc *groupCheck, groupRefs []*ColumnRef) {
	grouped := map[int]bool{}
	if s.GroupBy != nil {
		if !a.groupedCols(s, s.GroupBy.Items, grouped) || !a.groupedCols(s, s.GroupBy.GroupingSets, grouped) {
			return
		}
	}
	for _, r := range groupRefs {
		switch r.Kind {
		case RefColumn:
			grouped[r.eq] = true
		case RefAlias:
			if r.Alias == nil || !a.itemCols(r.Alias.X, grouped) {
				return
			}
		case RefUnknown, RefUnresolved, RefAmbiguous:
			return
		}
	}
	for _, r := range gc.refs {
		if r.Kind != RefColumn || r.Outer != 0 || r.Tentative || grouped[r.eq] {
			continue
		}
		a.missingAggregation(r, s.GroupBy != nil)
	}
}

// groupedCols marks the columns of GROUP BY ordinals (GROUP BY 1) as
// grouped; it returns false when the check must not run (GROUP BY ALL,
// an ordinal past the list or pointing at a *).
func (a *analyzer) groupedCols(s *ast.Select, items []*ast.GroupItem, grouped map[int]bool) bool {
	for _, gi := range items {
		if gi == nil {
			continue
		}
		switch x := unparen(gi.X).(type) {
		case *ast.Column:
			if a.isGroupAll(gi) {
				return false
			}
		case *ast.Unary:
			if _, lit := unparen(x.X).(*ast.Literal); lit {
				// GROUP BY -1: Spark's GROUP_BY_POS_OUT_OF_RANGE
				return false
			}
		case *ast.Literal:
			// an integer is an ordinal (GROUP BY 1); any other constant
			// groups no column
			if x.Kind == ast.LitInteger && !a.ordinalCols(s, x, grouped) {
				return false
			}
		}
		if !a.groupedCols(s, gi.Items, grouped) {
			return false
		}
	}
	return true
}

// ordinalCols marks the columns of the select item GROUP BY n names as
// grouped; false when the check must not run: an ordinal past the list
// (Spark's GROUP_BY_POS_OUT_OF_RANGE), of a * or of an aggregate
// (GROUP_BY_POS_AGGREGATE).
func (a *analyzer) ordinalCols(s *ast.Select, x *ast.Literal, grouped map[int]bool) bool {
	n := 0
	for _, ch := range x.Text {
		if ch < '0' || ch > '9' || n > 1<<20 {
			return false
		}
		n = n*10 + int(ch-'0')
	}
	if n < 1 || n > len(s.Items) || s.Items[n-1] == nil {
		return false
	}
	it := s.Items[n-1]
	if _, star := it.X.(*ast.Star); star || hasAggregate(it.X) {
		return false
	}
	return a.itemCols(it.X, grouped)
}

// hasAggregate reports whether x calls an aggregate function.
func hasAggregate(x ast.Expr) bool {
	found := false
	visitExpr(x, func(y ast.Expr) bool {
		if c, ok := y.(*ast.Call); ok && c.Over == nil {
			if n, builtin := funcName(c.Name); builtin && IsAggregate(n) {
				found = true
			}
		}
		return !found
	})
	return found
}

// itemCols marks the columns x references as grouped; false when one of
// them is not resolved with certainty.
func (a *analyzer) itemCols(x ast.Expr, grouped map[int]bool) bool {
	ok := true
	visitExpr(x, func(y ast.Expr) bool {
		c, isCol := y.(*ast.Column)
		if !isCol {
			return true
		}
		r := a.m.columns[c]
		switch {
		case r == nil:
		case r.Kind == RefColumn:
			grouped[r.eq] = true
		case r.Kind == RefUnknown || r.Kind == RefUnresolved || r.Kind == RefAmbiguous:
			ok = false
		}
		return true
	})
	return ok
}
