package sema

import (
	"strings"
	"unicode"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// pipe analyzes input |> op |> op ...: each operator sees the columns of
// what precedes it.
func (a *analyzer) pipe(p *ast.Pipe, outer *env) *result {
	cur := a.body(p.Input, outer)
	var prev ast.Node = p.Input
	for _, op := range p.Ops {
		if op == nil {
			continue
		}
		cur = a.pipeOp(op, cur, prev, outer)
		a.m.outputs[op] = &Output{Node: op, Columns: cur.out.Columns, Complete: cur.out.Complete}
		prev = op
	}
	cur.sel = nil
	return cur
}

// hiddenOf returns the hidden attrs of a scope.
func hiddenOf(s *scope) []attr {
	var out []attr
	for _, at := range s.attrs {
		if at.hidden {
			out = append(out, at)
		}
	}
	return out
}

// groupAlias returns the alias written after a group item's expression
// (AGGREGATE ... GROUP BY x AS name), read from the source text.
func (a *analyzer) groupAlias(gi *ast.GroupItem) (string, fuzz) {
	start, end := gi.X.Span().End, gi.End
	if start < 0 || start > end || end > len(a.opts.Source) {
		return "", unsure
	}
	t := strings.TrimSpace(a.opts.Source[start:end])
	if len(t) > 3 && strings.EqualFold(t[:3], "AS ") {
		t = strings.TrimSpace(t[3:])
	}
	for _, r := range t {
		if !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return strings.Trim(t, "`"), unsure
		}
	}
	return t, sure
}

// pipeOp analyzes one pipe operator over prev, the result of the node
// before it.
func (a *analyzer) pipeOp(op *ast.PipeOp, prev *result, prevNode ast.Node, outer *env) *result {
	in := a.outScope(prev, prevNode, false)
	base := ctx{primary: in, outer: outer}
	switch op.Kind {
	case "SELECT":
		if op.Select != nil {
			r := a.selectQ(op.Select, outer, in)
			r.sel = nil
			return r
		}
	case "EXTEND":
		if op.Select != nil {
			r := a.selectQ(op.Select, outer, in)
			vis := in.visible()
			attrs := append(append([]attr(nil), vis...), r.attrs...)
			cols := append(colsOf(vis), r.out.Columns...)
			return &result{out: &Output{Columns: cols, Complete: in.complete && r.out.Complete}, attrs: attrs,
				catalog: in.catalog, hidden: hiddenOf(in)}
		}
	case "SET":
		attrs := append([]attr(nil), in.visible()...)
		cols := colsOf(attrs)
		c := base
		c.clause = "SET"
		for _, as := range op.Set {
			if as == nil {
				continue
			}
			a.expr(as.Value, c)
			parts, ok := nameParts(as.Name)
			if !ok {
				continue
			}
			found := false
			for i := range attrs {
				if (len(parts) == 1 && a.eqName(attrs[i].name, parts[0])) ||
					(len(parts) > 1 && a.eqName(attrs[i].name, parts[len(parts)-1])) {
					found = true
				}
			}
			if !found && len(parts) == 1 && in.complete && !anyFuzz(attrs) {
				a.unknownName(as.Name.Range, as.Name.Parts[0], attrs, "|> SET")
			}
			for i := range attrs {
				if (len(parts) == 1 && a.eqName(attrs[i].name, parts[0])) ||
					(len(parts) > 1 && a.eqName(attrs[i].name, parts[len(parts)-1])) {
					attrs[i] = attr{name: attrs[i].name, qual: attrs[i].qual, partial: attrs[i].partial, eq: a.newEq()}
					cols[i] = &OutputColumn{Name: attrs[i].name, Expr: as.Value}
				}
			}
		}
		return &result{out: &Output{Columns: cols, Complete: in.complete}, attrs: attrs, catalog: in.catalog,
			hidden: hiddenOf(in)}
	case "DROP":
		var attrs []attr
		vis := in.visible()
		for _, at := range vis {
			drop := false
			for _, id := range op.Names {
				if id != nil && a.eqName(at.name, id.Name) {
					drop = true
				}
			}
			if !drop {
				attrs = append(attrs, at)
			}
		}
		if in.complete && !anyFuzz(vis) {
			for _, id := range op.Names {
				if id == nil || id.Expr != nil {
					continue
				}
				found := false
				for _, at := range vis {
					found = found || a.eqName(at.name, id.Name)
				}
				if !found {
					a.unknownName(id.Range, id, vis, "|> DROP")
				}
			}
		}
		return &result{out: &Output{Columns: colsOf(attrs), Complete: in.complete}, attrs: attrs, catalog: in.catalog,
			hidden: hiddenOf(in)}
	case "AS":
		attrs := append([]attr(nil), in.visible()...)
		if len(op.Names) > 0 && op.Names[0] != nil {
			for i := range attrs {
				attrs[i].qual, attrs[i].partial = []string{op.Names[0].Name}, false
			}
		}
		return &result{out: &Output{Columns: colsOf(attrs), Complete: in.complete}, attrs: attrs, catalog: in.catalog}
	case "WHERE":
		if op.Select != nil {
			c := base
			c.clause = "WHERE"
			a.expr(op.Select.Where, c)
			for _, nw := range op.Select.Windows {
				if nw != nil {
					a.window(nw.Window, base)
				}
			}
		}
	case "AGGREGATE":
		if op.Select != nil {
			r := a.selectQ(op.Select, outer, in)
			var attrs []attr
			var cols []*OutputColumn
			complete := r.out.Complete
			if op.Select.GroupBy != nil {
				var walk func([]*ast.GroupItem)
				walk = func(items []*ast.GroupItem) {
					for _, gi := range items {
						if gi == nil {
							continue
						}
						if gi.X != nil {
							nc, na := len(cols), len(attrs)
							var ok bool
							cols, attrs, ok = a.itemOutput(&ast.SelectItem{Range: gi.Range, X: gi.X}, cols, attrs)
							if ic, ia := cols[nc:], attrs[na:]; gi.End > gi.X.Span().End && len(ic) == 1 {
								// GROUP BY x AS name: the tree keeps no alias
								// of a group item, so it is read from the text
								name, fz := a.groupAlias(gi)
								ic[0].Name, ic[0].Generated, ic[0].fuzz, ic[0].Source = name, fz != sure, fz, nil
								ia[0] = attr{name: name, fuzzy: fz, eq: a.newEq(), item: ia[0].item}
							}
							complete = complete && ok
						}
						walk(gi.Items)
					}
				}
				walk(op.Select.GroupBy.Items)
			}
			return &result{out: &Output{Columns: append(cols, r.out.Columns...), Complete: complete},
				attrs: append(attrs, r.attrs...), catalog: in.catalog}
		}
	case "JOIN":
		if j := op.Join; j != nil {
			rs := a.relation(j.R, outer, in)
			if j.On != nil {
				a.expr(j.On, ctx{primary: concat(in, rs), outer: outer, clause: "ON"})
			}
			return a.scopeResult(a.joinScope(j, in, rs))
		}
	case "UNION", "EXCEPT", "INTERSECT", "MINUS", "SETMINUS":
		a.body(op.Right, outer)
	case "ORDER":
		if q := op.Org; q != nil {
			c := base
			c.allowAll, c.clause = true, "ORDER BY"
			for _, list := range [][]*ast.SortItem{q.OrderBy, q.SortBy} {
				for _, s := range list {
					if s != nil {
						a.expr(s.X, c)
					}
				}
			}
			for _, list := range [][]ast.Expr{q.ClusterBy, q.DistributeBy} {
				for _, x := range list {
					a.expr(x, c)
				}
			}
			lc := ctx{outer: outer, quiet: true}
			a.expr(q.Limit, lc)
			a.expr(q.Offset, lc)
		}
	case "PIVOT", "UNPIVOT":
		sc := in
		if op.Kind == "PIVOT" && op.Pivot != nil {
			sc = a.pivot(op.Pivot, sc, outer)
		}
		if op.Unpivot != nil {
			sc = a.unpivot(op.Unpivot, sc, outer)
		}
		if op.Kind == "UNPIVOT" && op.Pivot != nil {
			sc = a.pivot(op.Pivot, sc, outer)
		}
		return a.scopeResult(sc)
	}
	return a.scopeResult(in)
}
