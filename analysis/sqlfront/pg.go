package sqlfront

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// pgWalker collects table references and aggregation from a PostgreSQL
// parse tree. CTE names are compared as PostgreSQL folded them, so "Orders"
// and orders are different names, as in PostgreSQL.
type pgWalker struct{ f *found }

func (w *pgWalker) node(n *pg_query.Node, sc *scope, expr bool) {
	if n != nil {
		w.msg(n.ProtoReflect(), sc, expr)
	}
}

func (w *pgWalker) nodes(ns []*pg_query.Node, sc *scope, expr bool) {
	for _, n := range ns {
		w.node(n, sc, expr)
	}
}

// msg walks any node. expr is set inside expression subqueries, whose
// aggregates are not the query's own.
func (w *pgWalker) msg(m protoreflect.Message, sc *scope, expr bool) {
	if !m.IsValid() {
		return
	}
	switch x := m.Interface().(type) {
	case *pg_query.RangeVar:
		if x.Schemaname == "" && x.Catalogname == "" && sc.has(x.Relname, false) {
			return
		}
		name := x.Relname
		if x.Schemaname != "" {
			name = x.Schemaname + "." + name
		}
		if x.Catalogname != "" {
			name = x.Catalogname + "." + name
		}
		w.f.refs = append(w.f.refs, foundRef{off: int(x.Location), name: name})
		return
	case *pg_query.SelectStmt:
		w.sel(x, sc, expr)
		return
	case *pg_query.SubLink:
		w.node(x.Testexpr, sc, expr)
		w.node(x.Subselect, sc, true)
		return
	case *pg_query.IntoClause, *pg_query.LockingClause:
		return
	case *pg_query.FuncCall:
		w.f.funcs = append(w.f.funcs, foundFunc{off: int(x.Location), args: len(x.Args)})
		if !expr && x.Over == nil && (x.AggWithinGroup || x.AggFilter != nil || pgIsAggregate(x.Funcname)) {
			w.f.aggs = append(w.f.aggs, int(x.Location))
		}
		if x.Over != nil {
			w.f.windows = append(w.f.windows, int(x.Location))
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				w.msg(l.Get(i).Message(), sc, expr)
			}
			return true
		}
		w.msg(v.Message(), sc, expr)
		return true
	})
}

// sel walks a SELECT (or set operation), scoping its WITH clause: a CTE is
// visible in the statement's body and in later CTEs, and under WITH
// RECURSIVE in every CTE of the clause, itself included.
func (w *pgWalker) sel(s *pg_query.SelectStmt, sc *scope, expr bool) {
	if s == nil {
		return
	}
	if wc := s.WithClause; wc != nil {
		var names []string
		var ctes []*pg_query.CommonTableExpr
		for _, c := range wc.Ctes {
			if cte := c.GetCommonTableExpr(); cte != nil {
				names = append(names, cte.Ctename)
				ctes = append(ctes, cte)
			}
		}
		inner := &scope{names: names, parent: sc}
		for i, cte := range ctes {
			body := inner
			if !wc.Recursive {
				body = &scope{names: names[:i], parent: sc}
			}
			w.node(cte.Ctequery, body, expr)
		}
		sc = inner
	}
	if !expr && len(s.GroupClause) > 0 {
		w.f.groups = append(w.f.groups, pgMinLocation(s.GroupClause))
	}
	w.nodes(s.DistinctClause, sc, expr)
	w.nodes(s.TargetList, sc, expr)
	w.nodes(s.FromClause, sc, expr)
	w.node(s.WhereClause, sc, expr)
	w.nodes(s.GroupClause, sc, expr)
	w.node(s.HavingClause, sc, expr)
	w.nodes(s.WindowClause, sc, expr)
	w.nodes(s.ValuesLists, sc, expr)
	w.nodes(s.SortClause, sc, expr)
	w.node(s.LimitOffset, sc, expr)
	w.node(s.LimitCount, sc, expr)
	w.sel(s.Larg, sc, expr)
	w.sel(s.Rarg, sc, expr)
}

func pgIsAggregate(funcname []*pg_query.Node) bool {
	if len(funcname) == 0 {
		return false
	}
	s := funcname[len(funcname)-1].GetString_()
	return s != nil && aggregateFuncs[strings.ToLower(s.Sval)]
}

// pgMinLocation returns the smallest positive "location" in the trees, or
// -1.
func pgMinLocation(ns []*pg_query.Node) int {
	best := -1
	var visit func(m protoreflect.Message)
	visit = func(m protoreflect.Message) {
		if !m.IsValid() {
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Name() == "location" && fd.Kind() == protoreflect.Int32Kind:
				if l := int(v.Int()); l > 0 && (best < 0 || l < best) {
					best = l
				}
			case fd.Kind() != protoreflect.MessageKind || fd.IsMap():
			case fd.IsList():
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					visit(l.Get(i).Message())
				}
			default:
				visit(v.Message())
			}
			return true
		})
	}
	for _, n := range ns {
		if n != nil {
			visit(n.ProtoReflect())
		}
	}
	return best
}
