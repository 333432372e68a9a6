package translate

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// pipeAggregateOp translates |> AGGREGATE aggregates [GROUP BY items]
// over src, the operators before it (whose columns prev's output gives),
// as Spark computes it: one column per grouping item (an ordinal names
// the input's column of that position), then one per aggregate.
func (t *tr) pipeAggregateOp(op *ast.PipeOp, src frag, prev ast.Node) (frag, bool) {
	s := op.Select
	if s == nil {
		t.refuse(op, "this |> AGGREGATE does not run natively")
		return frag{}, false
	}
	unsupported := func(n ast.Node, what string) (frag, bool) {
		t.typeError(n, "UNSUPPORTED_FEATURE.PIPE_OPERATOR_AGGREGATE_UNSUPPORTED_CASE", "The feature is not supported: The SQL pipe operator syntax with aggregation (using |> AGGREGATE) does not support %s. SQLSTATE: 0A000", what)
		return frag{}, false
	}
	var groups []*ast.GroupItem
	if g := s.GroupBy; g != nil {
		switch {
		case g.With != "":
			return unsupported(g, "GROUP BY "+g.With)
		case len(g.GroupingSets) > 0:
			return unsupported(g, "GROUPING SETS")
		}
		for _, gi := range g.Items {
			if gi == nil {
				return frag{}, false
			}
			switch gi.Kind {
			case "":
			case "SET", "GROUPING SETS":
				return unsupported(g, "GROUPING SETS")
			default:
				return unsupported(g, "GROUP BY "+gi.Kind)
			}
			if c, ok := gi.X.(*ast.Column); ok && len(c.Parts) == 1 && strings.EqualFold(c.Parts[0].Name, "ALL") && !c.Parts[0].Quoted {
				return unsupported(g, "GROUP BY ALL")
			}
			groups = append(groups, gi)
		}
	}
	for _, it := range s.Items {
		if it == nil || it.X == nil {
			return frag{}, false
		}
		bad := ""
		ast.Inspect(it.X, func(n ast.Node) bool {
			if c, ok := n.(*ast.Call); ok {
				switch {
				case c.Over != nil:
					bad = "window functions; please update the query to move the window functions to a subsequent |> SELECT operator instead"
				case strings.EqualFold(c.Name.String(), "grouping"):
					bad = "GROUPING"
				case strings.EqualFold(c.Name.String(), "grouping_id"):
					bad = "GROUPING_ID"
				}
			}
			return bad == ""
		})
		if bad != "" {
			return unsupported(it, bad)
		}
		if !holdsAggregate(it.X) {
			t.typeError(it.X, "PIPE_OPERATOR_AGGREGATE_EXPRESSION_CONTAINS_NO_AGGREGATE_FUNCTION", "Non-grouping expression %s is provided as an argument to the |> AGGREGATE pipe operator but does not contain any aggregate function; please update it to include an aggregate function and then retry the query again. SQLSTATE: 0A000", t.text(it.X))
			return frag{}, false
		}
	}
	out := t.model.Output(op)
	// (With no aggregate the model reads the empty list as the input's
	// columns, after the grouping items.)
	if out == nil || len(out.Columns) != len(groups)+len(s.Items) && (len(s.Items) > 0 || len(out.Columns) < len(groups)) {
		t.refuse(op, "this |> AGGREGATE does not run natively: its columns are not known here")
		return frag{}, false
	}
	var in []*Type
	var inNames []string
	if po := t.model.Output(prev); po != nil && po.Complete {
		in = make([]*Type, len(po.Columns))
		for i, c := range po.Columns {
			in[i] = t.outputType(c)
			inNames = append(inNames, c.Name)
		}
		if ts, ok := t.bodyTypes[prev]; ok && len(ts) == len(in) {
			for i := range in {
				if !in[i].known() {
					in[i] = ts[i]
				}
			}
		}
	}
	items := make([]frag, 0, len(out.Columns))
	types := make([]*Type, 0, len(out.Columns))
	ords := make([]string, 0, len(groups))
	for i, gi := range groups {
		name := out.Columns[i].Name
		var x frag
		if l, ok := gi.X.(*ast.Literal); ok && l.Kind == ast.LitInteger {
			// GROUP BY 2: the input's second column.
			n, err := strconv.Atoi(l.Text)
			if err != nil || n < 1 || n > len(inNames) {
				t.refuse(l, "this GROUP BY ordinal does not run natively: the input's columns are not known here")
				return frag{}, false
			}
			name = inNames[n-1]
			x = at(l, in[n-1], cat(quoteIdent(name)))
		} else {
			x = t.expr(gi.X)
		}
		if name == "" {
			t.refuse(gi, "this GROUP BY item's column name is not known here")
			return frag{}, false
		}
		items = append(items, at(gi, x.typ, cat(x, " AS "+quoteIdent(name))))
		types = append(types, x.typ)
		ords = append(ords, strconv.Itoa(i+1))
	}
	for j, it := range s.Items {
		f := t.selectItem(it, out.Columns[len(groups)+j].Name)
		items = append(items, f)
		types = append(types, f.typ)
	}
	parts := []any{"SELECT ", items, " FROM ", src}
	if len(ords) > 0 {
		parts = append(parts, " GROUP BY "+strings.Join(ords, ", "))
	}
	all := true
	for _, ty := range types {
		all = all && ty.known()
	}
	if all {
		t.bodyTypes[op] = types
	}
	return at(op, nil, cat(parts...)), true
}

// pipePivotOp translates |> PIVOT (...) and |> UNPIVOT (...) over src, the
// operators before it (whose columns prev's output gives). The result is
// a parenthesised query.
func (t *tr) pipePivotOp(op *ast.PipeOp, src frag, prev ast.Node) (frag, bool) {
	if op.Pivot != nil && op.Unpivot != nil {
		t.refuse(op, "this |> %s does not run natively", op.Kind)
		return frag{}, false
	}
	in := pivotIn{from: src, colType: t.outputColType(prev)}
	if op.Pivot != nil {
		f, ok := t.pivot(op.Pivot, in)
		if ok {
			t.pipeTypes(op, op.Pivot)
		}
		return f, ok
	}
	if op.Unpivot != nil {
		f, ok := t.unpivot(op.Unpivot, in)
		if ok {
			t.pipeTypes(op, op.Unpivot)
		}
		return f, ok
	}
	t.refuse(op, "this |> %s does not run natively", op.Kind)
	return frag{}, false
}

// pipeTypes records the column types of a pipe operator that is a PIVOT
// or UNPIVOT (rel) for the operators after it.
func (t *tr) pipeTypes(op *ast.PipeOp, rel ast.Node) {
	if ts, ok := t.relCols[rel]; ok {
		t.bodyTypes[op] = ts
	}
}

// outputColType returns a colType for the output of n (a query body or a
// pipe operator): the type of its one column of that name.
func (t *tr) outputColType(n ast.Node) func(string) *Type {
	return func(name string) *Type {
		out := t.model.Output(n)
		if out == nil {
			return nil
		}
		ts := t.bodyTypes[n]
		var found *Type
		k := 0
		for i, c := range out.Columns {
			if !strings.EqualFold(c.Name, name) {
				continue
			}
			k++
			found = t.outputType(c)
			if !found.known() && len(ts) == len(out.Columns) {
				found = ts[i]
			}
		}
		if k != 1 {
			return nil
		}
		return found
	}
}
