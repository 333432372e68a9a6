package translate

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// pipe translates input |> op |> op ...: each operator becomes a query
// over the one before it, as a subquery named as Spark names the columns'
// table there (the input's table or alias, the name of |> AS). SELECT,
// EXTEND, WHERE, DROP, AS, JOIN, AGGREGATE, PIVOT, UNPIVOT and ORDER
// BY/LIMIT/OFFSET translate; the other operators are refused.
func (t *tr) pipe(p *ast.Pipe) frag {
	var cur frag
	if s, ok := p.Input.(*ast.Select); ok && len(s.Items) == 0 && s.From != nil && s.Where == nil && s.GroupBy == nil && s.Having == nil && len(s.LateralViews) == 0 && len(s.From.LateralViews) == 0 {
		// FROM t |> ...: the relation's columns.
		cur = cat("SELECT * FROM ", t.from(s.From))
	} else {
		cur = t.body(p.Input)
	}
	alias := pipeAlias(p.Input)
	var last ast.Node = p.Input
	// joined is the FROM item of a JOIN just made: the next operator
	// reads it as it is, so that both sides' names stay in scope.
	var joined *frag
	for _, op := range p.Ops {
		if op == nil {
			continue
		}
		src := cat("(", cur, ") AS ", quoteIdent(alias))
		if joined != nil {
			src, joined = *joined, nil
		}
		switch op.Kind {
		case "SELECT", "EXTEND":
			if op.Select == nil || t.pipeAggregate(op) {
				return null(p)
			}
			saved := t.pipeFrom
			t.pipeFrom = &pipeInput{from: src, star: op.Kind == "EXTEND"}
			cur = t.selectQ(op.Select)
			t.pipeFrom = saved
			if op.Kind == "SELECT" {
				if ts, ok := t.bodyTypes[op.Select]; ok {
					t.bodyTypes[op] = ts
				}
			}
			alias = "pipe"
		case "WHERE":
			if op.Select == nil || op.Select.Where == nil || len(op.Select.Windows) > 0 {
				t.refuse(op, "this |> WHERE does not run natively")
				return null(p)
			}
			cur = cat("SELECT * FROM ", src, " WHERE ", t.cond(op.Select.Where))
		case "DROP":
			names := make([]string, 0, len(op.Names))
			for _, id := range op.Names {
				if id == nil {
					t.refuse(op, "this |> DROP does not run natively")
					return null(p)
				}
				names = append(names, quoteIdent(id.Name))
			}
			cur = cat("SELECT * EXCLUDE ("+strings.Join(names, ", ")+") FROM ", src)
		case "AS":
			if len(op.Names) == 0 || op.Names[0] == nil {
				t.refuse(op, "this |> AS does not run natively")
				return null(p)
			}
			cur = cat("SELECT * FROM ", src)
			alias = op.Names[0].Name
			last = op
			continue
		case "JOIN":
			if _, bad := op.Join.L.(*ast.BadRelation); op.Join == nil || !bad {
				t.refuse(op, "this |> JOIN does not run natively")
				return null(p)
			}
			t.pipeLeft, t.pipeLeftName = &src, alias
			j := t.join(op.Join)
			t.pipeLeft, t.pipeLeftName = nil, ""
			cur = cat("SELECT * FROM ", j)
			joined = &j
			alias = "pipe"
		case "ORDER":
			q := op.Org
			if q == nil || len(q.SortBy) > 0 || len(q.ClusterBy) > 0 || len(q.DistributeBy) > 0 || len(q.Windows) > 0 {
				t.refuse(op, "this |> operator does not run natively; write the query as SELECT ... FROM ...")
				return null(p)
			}
			parts := []any{"SELECT * FROM ", src}
			if len(q.OrderBy) > 0 {
				parts = append(parts, " ORDER BY ", t.sortItems(q.OrderBy))
			}
			if q.Limit != nil {
				parts = append(parts, " LIMIT ", t.raw(q.Limit))
			}
			if q.Offset != nil {
				parts = append(parts, " OFFSET ", t.raw(q.Offset))
			}
			cur = cat(parts...)
		case "AGGREGATE":
			f, ok := t.pipeAggregateOp(op, src, last)
			if !ok {
				return null(p)
			}
			cur = f
			alias = "pipe"
		case "PIVOT", "UNPIVOT":
			f, ok := t.pipePivotOp(op, src, last)
			if !ok {
				return null(p)
			}
			cur = cat("SELECT * FROM ", f)
			alias = "pipe"
		default:
			t.refuse(op, "|> %s does not run natively; write the query as SELECT ... FROM ...", op.Kind)
			return null(p)
		}
		if op.Kind != "SELECT" && op.Kind != "EXTEND" && op.Kind != "JOIN" && op.Kind != "AGGREGATE" && op.Kind != "PIVOT" && op.Kind != "UNPIVOT" {
			if ts, ok := t.bodyTypes[last]; ok && op.Kind != "DROP" {
				t.bodyTypes[op] = ts
			}
		}
		last = op
	}
	if ts, ok := t.bodyTypes[last]; ok {
		t.bodyTypes[p] = ts
	}
	return at(p, nil, cur)
}

// pipeInput is the relation a pipe's SELECT or EXTEND reads, and whether
// (EXTEND) its columns come first.
type pipeInput struct {
	from frag
	star bool
}

// pipeAlias is the name a pipe's first operator sees its input's columns
// qualified by: the table of TABLE t or FROM t, the alias of VALUES or
// FROM ... AS a.
func pipeAlias(in ast.QueryExpr) string {
	switch in := in.(type) {
	case *ast.TableQuery:
		if in.Name != nil && len(in.Name.Parts) > 0 {
			return in.Name.Parts[len(in.Name.Parts)-1].Name
		}
	case *ast.Values:
		if in.Alias != nil && in.Alias.Name != nil {
			return in.Alias.Name.Name
		}
	}
	return "pipe"
}

// pipeAggregate refuses an aggregate function outside a window in |>
// SELECT or |> EXTEND: Spark's analyzer rejects it there (AGGREGATE
// computes aggregates), DuckDB would aggregate.
func (t *tr) pipeAggregate(op *ast.PipeOp) bool {
	found := false
	for _, it := range op.Select.Items {
		ast.Inspect(it, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Call:
				if f := funcIndex[strings.ToLower(n.Name.String())]; f != nil && f.Agg && n.Over == nil {
					found = true
				}
				if n.Over != nil {
					return false
				}
			case *ast.Subquery, *ast.Exists:
				return false
			}
			return !found
		})
	}
	if found {
		t.typeError(op, "PIPE_OPERATOR_CONTAINS_AGGREGATE_FUNCTION", "Aggregate function is not allowed when using the pipe operator |> %s clause; please use the pipe operator |> AGGREGATE clause instead. SQLSTATE: 0A000", op.Kind)
	}
	return found
}
