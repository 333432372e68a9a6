package sema

import (
	"strconv"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// from analyzes a FROM clause: its relations side by side (each LATERAL
// one seeing those before it), then its LATERAL VIEWs, PIVOT and
// UNPIVOT.
func (a *analyzer) from(f *ast.From, outer *env) *scope {
	if s, ok := a.froms[f]; ok {
		return s
	}
	var sc *scope
	for _, r := range f.Relations {
		rs := a.relation(r, outer, sc)
		sc = concat(sc, rs)
	}
	if sc == nil {
		sc = emptyScope()
	}
	for _, lv := range f.LateralViews {
		if lv != nil {
			sc = a.lateralView(lv, sc, outer)
		}
	}
	if f.Pivot != nil {
		sc = a.pivot(f.Pivot, sc, outer)
	}
	if f.Unpivot != nil {
		sc = a.unpivot(f.Unpivot, sc, outer)
	}
	a.froms[f] = sc
	return sc
}

// relation analyzes one FROM item; left is what precedes it (which a
// LATERAL item, and a table function's arguments, see).
func (a *analyzer) relation(r ast.Relation, outer *env, left *scope) *scope {
	switch r := r.(type) {
	case *ast.Table:
		if r == nil {
			break
		}
		_, sc := a.tableRead(r, r.Name, r.Alias)
		if r.Temporal != nil {
			a.expr(r.Temporal.Value, ctx{outer: outer, quiet: true})
		}
		return a.watermark(r.Watermark, sc, outer, r.Alias != nil)
	case *ast.SubqueryRel:
		if r == nil || r.Query == nil {
			break
		}
		o := outer
		if r.Lateral && left != nil {
			o = &env{sc: left, parent: outer, lateral: true}
		}
		res := a.query(r.Query, o)
		var aliases []*ast.Ident
		name := ""
		var qual []string
		if r.Alias != nil && r.Alias.Name != nil {
			name, qual, aliases = r.Alias.Name.Name, []string{r.Alias.Name.Name}, r.Alias.Columns
		}
		cols, complete := rename(res.out.Columns, res.out.Complete, aliases)
		rel := a.newRel(r, name, cols, complete)
		sc := a.relScope(rel, qual, false)
		sc.catalog = res.catalog
		return a.watermark(r.Watermark, sc, outer, r.Alias != nil)
	case *ast.ParenRel:
		if r == nil {
			break
		}
		inner := a.relation(r.Rel, outer, left)
		if r.Alias == nil || r.Alias.Name == nil {
			return a.watermark(r.Watermark, inner, outer, false)
		}
		vis := inner.visible()
		cols, complete := rename(colsOf(vis), inner.complete, r.Alias.Columns)
		rel := a.newRel(r, r.Alias.Name.Name, cols, complete)
		sc := a.relScope(rel, []string{r.Alias.Name.Name}, false)
		sc.catalog = inner.catalog
		return a.watermark(r.Watermark, sc, outer, true)
	case *ast.Values:
		if r == nil {
			break
		}
		_, sc := a.valuesRel(r, outer)
		return sc
	case *ast.TableFunc:
		if r == nil {
			break
		}
		return a.tableFunc(r, outer, left)
	case *ast.Join:
		if r == nil {
			break
		}
		l := a.relation(r.L, outer, left)
		rr := a.relation(r.R, outer, l)
		if r.On != nil {
			a.expr(r.On, ctx{primary: concat(l, rr), outer: outer, clause: "ON"})
		}
		return a.joinScope(r, l, rr)
	case *ast.Pivot:
		if r == nil {
			break
		}
		in := unknownScope()
		if r.Input != nil {
			in = a.relation(r.Input, outer, left)
		}
		return a.pivot(r, in, outer)
	case *ast.Unpivot:
		if r == nil {
			break
		}
		in := unknownScope()
		if r.Input != nil {
			in = a.relation(r.Input, outer, left)
		}
		return a.unpivot(r, in, outer)
	}
	return unknownScope()
}

// tableRead resolves a table read by name (FROM t, TABLE t) to a CTE or a
// catalog table and returns its relation and scope.
func (a *analyzer) tableRead(node ast.Node, name *ast.Name, alias *ast.TableAlias) (*Relation, *scope) {
	ref := a.newTable()
	ref.Node, ref.Name = node, name
	a.m.Tables = append(a.m.Tables, ref)
	a.m.tables[node] = ref
	var cols []*OutputColumn
	complete, catalog := false, true
	parts, ok := nameParts(name)
	if ok && len(parts) == 1 {
		if d := a.findCTE(parts[0]); d != nil {
			ref.Kind, ref.CTE = TableCTE, d.cte
			cols, complete = d.columns()
			catalog = d.catalog
			ref.ColumnsKnown = complete
		}
	}
	if ok && ref.Kind == TableUnknown && a.cat != nil {
		if tc, found := a.cat.Table(parts); found {
			tc, ref.Hidden = a.hiddenColumns(parts, tc)
			ref.Kind, ref.Columns, ref.ColumnsKnown = TableCatalog, tc, tc != nil
			cols = make([]*OutputColumn, len(tc))
			all := make([]OutputColumn, len(tc)) // one allocation for the table's columns
			for i, c := range tc {
				all[i] = OutputColumn{Name: c.Name, Type: c.Type}
				cols[i] = &all[i]
			}
			complete = tc != nil
		}
	}
	relName := name.String()
	qual, partial := parts, ref.Kind != TableCTE
	if alias != nil && alias.Name != nil {
		if complete {
			a.aliasArity(alias, len(cols))
		}
		relName, qual, partial = alias.Name.Name, []string{alias.Name.Name}, false
		cols, complete = rename(cols, complete, alias.Columns)
	}
	rel := a.newRel(node, relName, cols, complete)
	rel.Table = ref
	sc := a.relScope(rel, qual, partial)
	sc.catalog = catalog
	if len(ref.Hidden) > 0 {
		sc.attrs = append(sc.attrs, a.hiddenAttrs(rel, qual, partial)...)
	}
	return rel, sc
}

// HiddenCatalog is a [Catalog] that knows the hidden columns of some
// tables: columns Spark resolves by name but leaves out of * and t.*,
// as the _metadata column of a read of files (read_files(...),
// json.`path`). Hidden returns a table's hidden columns, nil when it has
// none. A column of Table's answer with a hidden column's name is that
// hidden column (the relation the caller reads carries it), not one of
// the table's own.
type HiddenCatalog interface {
	Catalog
	Hidden(name []string) []Column
}

// FileMetadataType is the Spark type of the _metadata column of a read
// of files, its fields in Spark's order.
const FileMetadataType = "struct<file_path:string,file_name:string,file_size:bigint,file_block_start:bigint," +
	"file_block_length:bigint,file_modification_time:timestamp>"

// FileMetadata is the hidden column of a read of files, as a
// [HiddenCatalog] gives it.
var FileMetadata = Column{Name: "_metadata", Type: FileMetadataType}

// hiddenColumns asks a HiddenCatalog for table parts' hidden columns and
// returns the table's own columns (cols without them) and the hidden
// ones.
func (a *analyzer) hiddenColumns(parts []string, cols []Column) ([]Column, []Column) {
	hc, ok := a.cat.(HiddenCatalog)
	if !ok {
		return cols, nil
	}
	hidden := hc.Hidden(parts)
	if len(hidden) == 0 {
		return cols, nil
	}
	var own []Column
	if cols != nil {
		own = make([]Column, 0, len(cols))
	}
	for _, c := range cols {
		isHidden := false
		for _, h := range hidden {
			if a.eqName(c.Name, h.Name) {
				isHidden = true
				break
			}
		}
		if !isHidden {
			own = append(own, c)
		}
	}
	return own, hidden
}

// hiddenAttrs returns the attrs of the hidden columns of the table read
// rel, qualified as its columns are. Each is the only column of a
// relation of its own on the same node, so a reference to it has a
// source with its name and type.
func (a *analyzer) hiddenAttrs(rel *Relation, qual []string, partial bool) []attr {
	hidden := rel.Table.Hidden
	attrs := make([]attr, len(hidden))
	for i, h := range hidden {
		hr := &Relation{Node: rel.Node, Name: rel.Name, Table: rel.Table,
			Columns: []*OutputColumn{{Name: h.Name, Type: h.Type}}, Complete: true}
		attrs[i] = attr{name: h.Name, qual: qual, partial: partial, src: ColumnSource{Rel: hr, Index: 0},
			eq: a.newEq(), typ: h.Type, meta: true, metaUnsure: !rel.Complete}
	}
	return attrs
}

// watermark resolves WATERMARK col DELAY OF ... against the relation's
// own columns; an alias there adds a column. The clause is written before
// the relation's alias (STREAM t WATERMARK ts DELAY OF ... AS x), and
// whether a qualified name in it sees the alias or the table's name is
// not certain: with aliased set, such a name is not reported.
func (a *analyzer) watermark(w *ast.Watermark, sc *scope, outer *env, aliased bool) *scope {
	if w == nil || w.Column == nil {
		return sc
	}
	a.expr(w.Column.X, ctx{primary: sc, outer: outer, clause: "WATERMARK", quietQualified: aliased})
	if w.Column.Alias == nil {
		return sc
	}
	rel := a.newRel(w, "", []*OutputColumn{{Name: w.Column.Alias.Name, Expr: w.Column.X, Item: w.Column}}, true)
	return concat(sc, a.relScope(rel, nil, false))
}

// valuesRel analyzes VALUES rows: columns col1, col2, ... unless the
// alias names them.
func (a *analyzer) valuesRel(v *ast.Values, outer *env) (*Relation, *scope) {
	for _, row := range v.Rows {
		a.expr(row, ctx{outer: outer, clause: "VALUES"})
	}
	n := 0
	if len(v.Rows) > 0 {
		n = 1
		if r, ok := v.Rows[0].(*ast.Row); ok {
			n = len(r.Items)
		}
	}
	cols := make([]*OutputColumn, n)
	for i := range cols {
		cols[i] = &OutputColumn{Name: "col" + strconv.Itoa(i+1)}
	}
	complete := len(v.Rows) > 0
	name := ""
	var qual []string
	if v.Alias != nil && v.Alias.Name != nil {
		name, qual = v.Alias.Name.Name, []string{v.Alias.Name.Name}
		cols, complete = rename(cols, complete, v.Alias.Columns)
	}
	rel := a.newRel(v, name, cols, complete)
	return rel, a.relScope(rel, qual, false)
}

// tableFunc analyzes a table-valued function in FROM.
func (a *analyzer) tableFunc(t *ast.TableFunc, outer *env, left *scope) *scope {
	var names []string
	known := false
	if t.Call != nil {
		// the arguments see the items before the function (which Spark
		// requires LATERAL for in some cases and not others: the model
		// lets them resolve rather than guess)
		c := ctx{primary: left, outer: outer, clause: "FROM"}
		for _, arg := range t.Call.Args {
			a.expr(arg, c)
		}
		names, known = a.generatorCols(t.Call)
		a.foldableArgs(t)
	}
	cols := make([]*OutputColumn, len(names))
	for i, n := range names {
		cols[i] = &OutputColumn{Name: n}
	}
	if len(names) == 1 && names[0] == "id" && t.Call != nil {
		if n, _ := funcName(t.Call.Name); n == "range" {
			cols[0].Type = "bigint"
		}
	}
	name := ""
	var qual []string
	if t.Alias != nil && t.Alias.Name != nil {
		name, qual = t.Alias.Name.Name, []string{t.Alias.Name.Name}
		cols, known = rename(cols, known, t.Alias.Columns)
	}
	rel := a.newRel(t, name, cols, known)
	sc := a.relScope(rel, qual, false)
	// without an alias, what a qualified name may call the function's
	// columns is not certain
	sc.qualLoose = qual == nil
	return a.watermark(t.Watermark, sc, outer, t.Alias != nil)
}

// tableArg analyzes a TABLE argument of a table function.
func (a *analyzer) tableArg(t *ast.TableArg, outer *env) {
	var sc *scope
	switch {
	case t.Query != nil:
		res := a.query(t.Query, outer)
		rel := a.newRel(t, "", res.out.Columns, res.out.Complete)
		sc = a.relScope(rel, nil, false)
	case t.Name != nil:
		_, sc = a.tableRead(t, t.Name, nil)
	default:
		sc = unknownScope()
	}
	c := ctx{primary: sc, outer: outer, clause: "PARTITION BY"}
	for _, x := range t.PartitionBy {
		a.expr(x, c)
	}
	for _, s := range t.OrderBy {
		if s != nil {
			a.expr(s.X, c)
		}
	}
}

// lateralView analyzes LATERAL VIEW f(args) t AS cols over sc.
func (a *analyzer) lateralView(lv *ast.LateralView, sc *scope, outer *env) *scope {
	var names []string
	known := false
	if lv.Call != nil {
		c := ctx{primary: sc, outer: outer, clause: "LATERAL VIEW"}
		for _, arg := range lv.Call.Args {
			a.expr(arg, c)
		}
		names, known = a.generatorCols(lv.Call)
	}
	if len(lv.Columns) > 0 {
		names, known = nil, true
		for _, id := range lv.Columns {
			if id != nil {
				names = append(names, id.Name)
			}
		}
	}
	cols := make([]*OutputColumn, len(names))
	for i, n := range names {
		cols[i] = &OutputColumn{Name: n}
	}
	name := ""
	var qual []string
	if lv.Table != nil && lv.Table.Expr == nil {
		name, qual = lv.Table.Name, []string{lv.Table.Name}
	}
	rel := a.newRel(lv, name, cols, known)
	return concat(sc, a.relScope(rel, qual, false))
}

// joinScope is the scope after a join: both sides, with USING and
// NATURAL columns merged (the kept copy first, the other hidden from
// unqualified names), and only the left side after a semi or anti join.
func (a *analyzer) joinScope(j *ast.Join, l, r *scope) *scope {
	if j.Kind == "LEFT SEMI" || j.Kind == "LEFT ANTI" {
		return l
	}
	var names []string
	if j.Natural {
		if !l.complete || !r.complete {
			return concat(l, r)
		}
		rv := r.visible()
		for _, at := range l.visible() {
			for _, b := range rv {
				if a.eqName(at.name, b.name) && !a.contains(names, at.name) {
					names = append(names, at.name)
				}
			}
		}
	} else {
		for _, id := range j.Using {
			if id != nil && id.Expr == nil {
				names = append(names, id.Name)
			}
		}
	}
	if len(names) == 0 {
		return concat(l, r)
	}
	la := append([]attr(nil), l.attrs...)
	ra := append([]attr(nil), r.attrs...)
	usedL, usedR := map[int]bool{}, map[int]bool{}
	var merged []attr
	find := func(attrs []attr, used map[int]bool, n string) int {
		for i, at := range attrs {
			if !at.hidden && !at.meta && !used[i] && a.eqName(at.name, n) {
				return i
			}
		}
		return -1
	}
	for _, n := range names {
		li, ri := find(la, usedL, n), find(ra, usedR, n)
		if li >= 0 && ri >= 0 {
			ra[ri].eq = la[li].eq
		}
		keepRight := j.Kind == "RIGHT" || li < 0
		switch {
		case keepRight && ri >= 0:
			merged = append(merged, ra[ri])
			usedR[ri] = true
			if li >= 0 {
				la[li].hidden = true
			}
		case li >= 0:
			merged = append(merged, la[li])
			usedL[li] = true
			if ri >= 0 {
				ra[ri].hidden = true
			}
		}
	}
	attrs := merged
	for i, at := range la {
		if !usedL[i] {
			attrs = append(attrs, at)
		}
	}
	for i, at := range ra {
		if !usedR[i] {
			attrs = append(attrs, at)
		}
	}
	return &scope{attrs: attrs, complete: l.complete && r.complete, qualLoose: l.qualLoose || r.qualLoose,
		catalog: l.catalog || r.catalog}
}

// contains reports whether names has n.
func (a *analyzer) contains(names []string, n string) bool {
	for _, x := range names {
		if a.eqName(x, n) {
			return true
		}
	}
	return false
}

// pivot is the scope after PIVOT: the input's columns that neither the
// aggregates nor the FOR columns use (the implicit grouping), then one
// column per value (and aggregate).
func (a *analyzer) pivot(p *ast.Pivot, in *scope, outer *env) *scope {
	var refs []*ColumnRef
	c := ctx{primary: in, outer: outer, clause: "PIVOT", groupRefs: &refs}
	for _, it := range p.Aggregates {
		if it != nil {
			a.expr(it.X, c)
		}
	}
	used := map[int]bool{}
	for _, r := range refs {
		if r.Kind == RefColumn && r.Outer == 0 {
			used[r.eq] = true
		}
	}
	for _, id := range p.Columns {
		if id == nil || id.Expr != nil {
			continue
		}
		cands := a.lookup(in, []string{id.Name}).cands
		for _, at := range cands {
			used[at.eq] = true
		}
		if len(cands) == 0 && a.certainMiss(in, []string{id.Name}, id.Quoted) {
			a.unknownName(id.Range, id, in.attrs, "PIVOT ... FOR")
		}
	}
	for _, v := range p.Values {
		if v != nil {
			a.expr(v.X, ctx{outer: outer, quiet: true})
		}
	}
	var kept []attr
	for _, at := range in.visible() {
		if !used[at.eq] {
			kept = append(kept, at)
		}
	}
	cols := colsOf(kept)
	for _, v := range p.Values {
		if v == nil {
			continue
		}
		vname, vok := a.pivotValueName(v)
		if len(p.Aggregates) == 1 {
			cols = append(cols, &OutputColumn{Name: vname, Generated: !vok})
			continue
		}
		for _, ag := range p.Aggregates {
			if ag == nil {
				continue
			}
			aname, aok := "", false
			if ag.Alias != nil {
				aname, aok = ag.Alias.Name, true
			} else {
				aname, _ = a.exprName(ag.X)
			}
			cols = append(cols, &OutputColumn{Name: vname + "_" + aname, Generated: !vok || !aok})
		}
	}
	name := ""
	if p.Alias != nil {
		name = p.Alias.Name
	}
	rel := a.newRel(p, name, cols, in.complete)
	sc := a.relScope(rel, nil, false)
	for i := range sc.attrs {
		switch {
		case name != "":
			sc.attrs[i].qual = []string{name}
		case i < len(kept):
			sc.attrs[i].qual, sc.attrs[i].partial = kept[i].qual, kept[i].partial
		}
	}
	sc.qualLoose = in.qualLoose
	return sc
}

// pivotValueName returns the column name of a PIVOT value: its alias, or
// the value of a string or integer literal; anything else Spark names
// itself.
func (a *analyzer) pivotValueName(v *ast.SelectItem) (string, bool) {
	if v.Alias != nil {
		return v.Alias.Name, v.Alias.Expr == nil
	}
	if l, ok := unparen(v.X).(*ast.Literal); ok {
		switch {
		case l.Kind == ast.LitString && l.Str != nil:
			return l.Str.Value, true
		case l.Kind == ast.LitInteger:
			return l.Text, true
		}
	}
	n, _ := a.exprName(v.X)
	return n, false
}

// unpivot is the scope after UNPIVOT: the input's columns that are not
// unpivoted, then the name column and the value columns.
func (a *analyzer) unpivot(u *ast.Unpivot, in *scope, outer *env) *scope {
	removed := map[int]bool{}
	for _, uc := range u.Columns {
		if uc == nil {
			continue
		}
		for _, n := range uc.Names {
			if parts, ok := nameParts(n); ok {
				cands := a.lookup(in, parts).cands
				for _, at := range cands {
					removed[at.eq] = true
				}
				if len(cands) == 0 && len(parts) == 1 && a.certainMiss(in, parts, n.Parts[0].Quoted) {
					a.unknownName(n.Range, n.Parts[0], in.attrs, "UNPIVOT ... IN")
				}
			}
		}
	}
	var kept []attr
	for _, at := range in.visible() {
		if !removed[at.eq] {
			kept = append(kept, at)
		}
	}
	cols := colsOf(kept)
	if u.NameColumn != nil {
		cols = append(cols, &OutputColumn{Name: u.NameColumn.Name})
	}
	for _, id := range u.ValueColumns {
		if id != nil {
			cols = append(cols, &OutputColumn{Name: id.Name})
		}
	}
	name := ""
	if u.Alias != nil {
		name = u.Alias.Name
	}
	rel := a.newRel(u, name, cols, in.complete)
	sc := a.relScope(rel, nil, false)
	for i := range sc.attrs {
		switch {
		case name != "":
			sc.attrs[i].qual = []string{name}
		case i < len(kept):
			sc.attrs[i].qual, sc.attrs[i].partial = kept[i].qual, kept[i].partial
		}
	}
	sc.qualLoose = in.qualLoose
	return sc
}
