package sema

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// The error classes of the analysis checks beyond name resolution, as
// Spark names them.
const (
	CodeUnsupportedExpr      = "UNSUPPORTED_EXPR_FOR_OPERATOR"
	CodeOrderByPos           = "ORDER_BY_POS_OUT_OF_RANGE"
	CodeStarGroupByPos       = "STAR_GROUP_BY_POS"
	CodeArityMismatch        = "ASSIGNMENT_ARITY_MISMATCH"
	CodeUnionInRecursiveCTE  = "UNION_NOT_SUPPORTED_IN_RECURSIVE_CTE"
	CodeUnsupportedSyntax    = "INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX"
	CodeInvalidWindowForAgg  = "INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC"
	CodeLateralAliasGroupAll = "UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_GROUP_BY"
)

// Codes are the error classes of every Diagnostic the model reports.
var Codes = map[string]bool{
	CodeUnresolvedColumn: true, CodeAmbiguous: true, CodeMissingAggregation: true,
	CodeMissingGroupBy: true, CodeFieldNotFound: true,
	CodeUnsupportedExpr: true, CodeOrderByPos: true, CodeStarGroupByPos: true, CodeArityMismatch: true,
	CodeUnionInRecursiveCTE: true, CodeUnsupportedSyntax: true, CodeInvalidWindowForAgg: true,
	CodeLateralAliasGroupAll: true,
}

// NameCodes are the error classes of the name diagnostics (an unknown,
// ambiguous or ungrouped column, a missing struct field); every other
// code of a Diagnostic is an analysis error of another kind.
var NameCodes = map[string]bool{
	CodeUnresolvedColumn: true, CodeAmbiguous: true, CodeMissingAggregation: true,
	CodeMissingGroupBy: true, CodeFieldNotFound: true,
}

// orderAfterAggregate checks the ORDER BY of a grouping SELECT where
// Spark's analyzer cannot reach below the aggregate: when the select list
// has a window function (the sort sits on the window's projection, not on
// the aggregate) or, with HAVING, when the FROM clause is a NATURAL join
// (Spark 4.1 resolves such an ORDER BY against the aggregate's output
// only). There ORDER BY sees the select list's columns and the plain
// GROUP BY columns and nothing else: another column is UNRESOLVED_COLUMN,
// and an aggregate function, which Spark would otherwise compute in the
// aggregate, stays in the sort (UNSUPPORTED_EXPR_FOR_OPERATOR). Without
// HAVING, a NATURAL join's ORDER BY may aggregate, but a column outside
// an aggregate must still be one of those. Nothing is said unless every
// reference involved resolved with certainty.
func (a *analyzer) orderAfterAggregate(q *ast.Query, sel *selInfo) {
	if sel == nil || sel.s == nil || len(q.OrderBy) == 0 || !sel.from.complete {
		return
	}
	s := sel.s
	if s.GroupBy == nil || len(s.GroupBy.GroupingSets) > 0 || s.GroupBy.With != "" || s.Transform != nil {
		return
	}
	natural := false
	if s.From != nil && len(s.From.Relations) == 1 && len(s.From.LateralViews) == 0 && s.From.Pivot == nil && s.From.Unpivot == nil {
		if j, ok := s.From.Relations[0].(*ast.Join); ok && j.Natural {
			natural = true
		}
	}
	strict := sel.window || (natural && s.Having != nil)
	if !strict && !natural {
		return
	}
	visible := map[ColumnSource]bool{}
	var names []string
	for _, gi := range s.GroupBy.Items {
		if gi == nil || gi.Kind != "" || len(gi.Items) > 0 {
			return
		}
		switch x := unparen(gi.X).(type) {
		case *ast.Column:
			r := a.m.columns[x]
			if r == nil || r.Kind != RefColumn || r.Outer != 0 || r.Tentative || r.NameParts != len(x.Parts) {
				return // GROUP BY ALL, an alias, a field, an outer column
			}
			visible[r.Source] = true
			names = append(names, r.Source.String())
		case *ast.Literal:
			if x.Kind == ast.LitInteger {
				return // an ordinal
			}
		case *ast.Unary:
			return
		default:
			if !strict {
				// ORDER BY may name a GROUP BY expression (Spark
				// compares them up to commutation): not modelled
				return
			}
		}
	}
	for _, it := range s.Items {
		if it == nil {
			continue
		}
		if _, star := it.X.(*ast.Star); star {
			return
		}
		if cx, ok := unparen(it.X).(*ast.Column); ok && it.Alias == nil {
			if r := a.m.columns[cx]; r != nil && r.Kind == RefColumn && r.NameParts == len(cx.Parts) {
				if !visible[r.Source] {
					names = append(names, r.Source.String())
				}
				visible[r.Source] = true
				continue
			}
		}
		switch {
		case it.Alias != nil:
			names = append(names, it.Alias.Name)
		case len(it.Aliases) > 0:
			return
		}
	}
	var missing *ColumnRef
	var aggs []*ast.Call
	ok := true
	var walk func(x ast.Expr, inAgg bool)
	walk = func(x ast.Expr, inAgg bool) {
		visitExpr(x, func(y ast.Expr) bool {
			if !ok {
				return false
			}
			switch y := y.(type) {
			case *ast.Call:
				n, builtin := funcName(y.Name)
				switch {
				case y.Over != nil:
					ok = false // a window function of its own
				case builtin && IsAggregate(n):
					if !inAgg {
						aggs = append(aggs, y)
					}
					for _, arg := range y.Args {
						walk(arg, true)
					}
					walk(y.Filter, true)
					return false
				case !builtin || !isScalar(n):
					ok = false // perhaps a user-defined aggregate
				}
			case *ast.Lambda:
				ok = false
			case *ast.Column:
				r := a.m.columns[y]
				if r == nil {
					ok = false
					return false
				}
				switch r.Kind {
				case RefAlias:
				case RefColumn:
					if r.Tentative {
						ok = false
					} else if r.Outer == 0 && !visible[r.Source] && (strict || !inAgg) && missing == nil {
						missing = r
					}
				default:
					ok = false
				}
			}
			return ok
		})
	}
	for _, si := range q.OrderBy {
		if si != nil {
			walk(si.X, false)
		}
	}
	if !ok {
		return
	}
	why := "a NATURAL join's aggregate"
	if sel.window {
		why = "an aggregate whose select list has a window function"
	} else if s.Having != nil {
		why = "a NATURAL join's aggregate with HAVING"
	}
	if missing != nil {
		var parts []string
		for _, p := range missing.Node.Parts[:missing.NameParts] {
			parts = append(parts, p.Name)
		}
		msg := "unknown column " + quoteParts(parts) + " in ORDER BY: the ORDER BY of " + why +
			" sees only the select list's columns and the plain GROUP BY columns"
		if len(names) > 0 && len(names) <= 8 {
			q := make([]string, len(names))
			for i, n := range names {
				q[i] = quote(n)
			}
			msg += " (" + strings.Join(q, ", ") + ")"
		}
		msg += "; add it to the select list (and to GROUP BY) to order by it"
		a.report(Diagnostic{Range: missing.Node.Range, Code: CodeUnresolvedColumn, Message: msg})
		return
	}
	if strict && len(aggs) > 0 {
		ag := aggs[0]
		a.report(Diagnostic{Range: ag.Range, Code: CodeUnsupportedExpr,
			Message: "the aggregate " + quote(a.text(ag)) + " cannot be computed in the ORDER BY of " + why +
				"; compute it in the select list under an alias and order by the alias"})
	}
}

// groupAllHaving checks the HAVING of a GROUP BY ALL query: ALL groups by
// the select list's expressions that do not aggregate, so a column HAVING
// uses outside an aggregate function must be one the select list uses
// outside one; Spark cannot resolve any other (UNRESOLVED_COLUMN).
func (a *analyzer) groupAllHaving(s *ast.Select, from *scope) {
	if s.Having == nil || s.GroupBy == nil || len(s.GroupBy.Items) != 1 || len(s.GroupBy.GroupingSets) > 0 || !from.complete {
		return
	}
	if !a.isGroupAll(s.GroupBy.Items[0]) {
		return
	}
	used := map[ColumnSource]bool{}
	ok := true
	collect := func(x ast.Expr, check func(*ast.Column, *ColumnRef)) {
		var walk func(ast.Expr)
		walk = func(x ast.Expr) {
			visitExpr(x, func(y ast.Expr) bool {
				if !ok {
					return false
				}
				switch y := y.(type) {
				case *ast.Call:
					n, builtin := funcName(y.Name)
					switch {
					case y.Over != nil, builtin && IsAggregate(n):
						return false
					case !builtin || !isScalar(n):
						ok = false
					}
				case *ast.Lambda, *ast.Subquery, *ast.Exists, *ast.In:
					if _, in := y.(*ast.In); in && y.(*ast.In).Query == nil {
						return true
					}
					ok = false
				case *ast.Column:
					if r := a.m.columns[y]; r != nil {
						check(y, r)
					} else {
						ok = false
					}
				}
				return ok
			})
		}
		walk(x)
	}
	for _, it := range s.Items {
		if it == nil {
			continue
		}
		if _, star := it.X.(*ast.Star); star {
			return
		}
		collect(it.X, func(_ *ast.Column, r *ColumnRef) {
			if r.Kind == RefColumn {
				used[r.Source] = true
			}
		})
	}
	var missing *ColumnRef
	collect(s.Having, func(_ *ast.Column, r *ColumnRef) {
		switch r.Kind {
		case RefColumn:
			if r.Tentative {
				ok = false
			} else if r.Outer == 0 && !used[r.Source] && missing == nil {
				missing = r
			}
		case RefAlias, RefLambda:
		default:
			ok = false
		}
	})
	if !ok || missing == nil {
		return
	}
	var parts []string
	for _, p := range missing.Node.Parts[:missing.NameParts] {
		parts = append(parts, p.Name)
	}
	a.report(Diagnostic{Range: missing.Node.Range, Code: CodeUnresolvedColumn,
		Message: "unknown column " + quoteParts(parts) + " in HAVING: GROUP BY ALL groups by the select list's " +
			"expressions that do not aggregate, and none of them uses it; aggregate it, or add it to the select list"})
}

// isGroupAll reports whether a GROUP BY item is ALL: the word, unquoted,
// when no column or select-list alias is named all (GROUP BY all then
// groups by that column).
func (a *analyzer) isGroupAll(gi *ast.GroupItem) bool {
	if gi == nil || gi.Kind != "" {
		return false
	}
	x, ok := unparen(gi.X).(*ast.Column)
	if !ok || len(x.Parts) != 1 || x.Parts[0] == nil || x.Parts[0].Quoted || !strings.EqualFold(x.Parts[0].Name, "ALL") {
		return false
	}
	if r := a.m.columns[x]; r != nil && ((r.Kind == RefColumn && r.Outer == 0) || r.Kind == RefAlias || r.Kind == RefAmbiguous) {
		return false
	}
	return true
}

// lateralAliasInGroupBy reports a GROUP BY that groups by a select item
// using a lateral column alias (SELECT k AS a, a + 1 AS b ... GROUP BY b,
// or GROUP BY ALL over such an item): Spark resolves lateral aliases
// after grouping, so it cannot group by them
// (UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_GROUP_BY).
func (a *analyzer) lateralAliasInGroupBy(s *ast.Select, groupRefs []*ColumnRef) {
	if s.GroupBy == nil || a.opts.NoLateralAliases {
		return
	}
	var items []*ast.SelectItem
	if len(s.GroupBy.Items) == 1 && len(s.GroupBy.GroupingSets) == 0 && a.isGroupAll(s.GroupBy.Items[0]) {
		for _, it := range s.Items {
			if it != nil && !hasAggregate(it.X) {
				items = append(items, it)
			}
		}
	} else {
		for _, r := range groupRefs {
			if r.Kind == RefAlias && r.Alias != nil && r.NameParts == len(r.Node.Parts) {
				items = append(items, r.Alias)
			}
		}
	}
	for _, it := range items {
		var lca *ColumnRef
		visitExpr(it.X, func(y ast.Expr) bool {
			if c, ok := y.(*ast.Column); ok && lca == nil {
				if r := a.m.columns[c]; r != nil && r.Kind == RefAlias {
					lca = r
				}
			}
			return lca == nil
		})
		if lca == nil {
			continue
		}
		a.report(Diagnostic{Range: lca.Node.Range, Code: CodeLateralAliasGroupAll,
			Message: quote(a.text(lca.Node)) + " is a lateral column alias (an alias of an earlier select item), " +
				"and GROUP BY cannot group by an item that uses one: repeat the aliased expression instead"})
		return
	}
}

// aliasKind says which clause checks a name several select items have.
type aliasKind uint8

const (
	aliasNone aliasKind = iota
	aliasInHaving
)

// aliasAmbiguous reports whether the name parts, which several distinct
// select-list columns (cands) have, is ambiguous for Spark in c's clause:
// in HAVING, when the FROM clause has no such column, or only one that
// GROUP BY ALL does not group by. (GROUP BY itself takes the first.)
func (a *analyzer) aliasAmbiguous(cands []attr, parts []string, c ctx) bool {
	if c.aliasCheck == aliasNone || len(parts) != 1 || len(cands) < 2 {
		return false
	}
	for _, at := range cands {
		if at.item == nil {
			return false
		}
	}
	pm := a.lookup(c.primary, parts)
	if len(pm.cands) == 0 {
		return a.certainMiss(c.primary, parts, false)
	}
	if !c.groupAll || len(pm.cands) != 1 {
		return false
	}
	src := pm.cands[0].src
	for _, it := range c.items {
		if it.item != nil && it.src == src {
			return false
		}
	}
	return src.Rel != nil
}

// ambiguousAlias reports a name of HAVING or GROUP BY that several
// select-list columns have, when no column of the FROM clause can be
// meant instead (Spark's AMBIGUOUS_REFERENCE).
func (a *analyzer) ambiguousAlias(ref *ColumnRef, name string) {
	a.report(Diagnostic{Range: ref.Node.Range, Code: CodeAmbiguous,
		Message: "column " + quote(name) + " is ambiguous: more than one column of the select list is named " +
			quote(name) + "; give them different aliases"})
}

// orderOrdinals checks ORDER BY positions (ORDER BY 2) against the number
// of output columns: Spark's ORDER_BY_POS_OUT_OF_RANGE. Only a list of
// constants is checked: a column ORDER BY names that the select list lacks
// may add a column to the sort's input.
func (a *analyzer) orderOrdinals(q *ast.Query, res *result) {
	if a.opts.NoOrderByOrdinal || len(q.OrderBy) == 0 || !res.out.Complete {
		return
	}
	for _, si := range q.OrderBy {
		if si == nil {
			return
		}
		switch x := unparen(si.X).(type) {
		case *ast.Literal:
		case *ast.Unary:
			if _, lit := unparen(x.X).(*ast.Literal); !lit || x.Op != "-" {
				return
			}
		default:
			return
		}
	}
	n := len(res.out.Columns)
	for _, c := range res.out.Columns {
		if c.Generated && c.Expr == nil {
			return
		}
	}
	for _, si := range q.OrderBy {
		pos, ok := ordinal(si.X)
		if !ok {
			continue
		}
		if pos < 1 || pos > n {
			a.report(Diagnostic{Range: si.X.Span(), Code: CodeOrderByPos,
				Message: "ORDER BY position " + strconv.Itoa(pos) + " is not in the select list: it has " +
					strconv.Itoa(n) + " column" + plural(n) + ", numbered from 1"})
			return
		}
	}
}

// ordinal returns the position an integer literal (or a negated one)
// gives.
func ordinal(x ast.Expr) (int, bool) {
	neg := false
	if u, ok := unparen(x).(*ast.Unary); ok && u.Op == "-" {
		neg, x = true, u.X
	}
	l, ok := unparen(x).(*ast.Literal)
	if !ok || l.Kind != ast.LitInteger {
		return 0, false
	}
	n, err := strconv.Atoi(l.Text)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// starGroupByPos reports GROUP BY n where the n-th select item is a *
// (Spark's STAR_GROUP_BY_POS).
func (a *analyzer) starGroupByPos(s *ast.Select) {
	if s.GroupBy == nil || a.opts.NoGroupByOrdinal {
		return
	}
	for _, gi := range s.GroupBy.Items {
		if gi == nil || gi.Kind != "" {
			continue
		}
		l, ok := unparen(gi.X).(*ast.Literal)
		if !ok || l.Kind != ast.LitInteger {
			continue
		}
		n, err := strconv.Atoi(l.Text)
		if err != nil || n < 1 || n > len(s.Items) || s.Items[n-1] == nil {
			continue
		}
		if _, star := s.Items[n-1].X.(*ast.Star); star {
			a.report(Diagnostic{Range: l.Range, Code: CodeStarGroupByPos,
				Message: "GROUP BY position " + l.Text + " is a * of the select list, which is no single column: " +
					"name the columns to group by"})
		}
	}
}

// aliasArity reports a column alias list of a table read whose length
// differs from the table's columns (Spark's ASSIGNMENT_ARITY_MISMATCH).
func (a *analyzer) aliasArity(alias *ast.TableAlias, n int) {
	if alias == nil || len(alias.Columns) == 0 || len(alias.Columns) == n {
		return
	}
	first, last := alias.Columns[0], alias.Columns[len(alias.Columns)-1]
	if first == nil || last == nil {
		return
	}
	a.report(Diagnostic{Range: ast.Range{Start: first.Start, End: last.End}, Code: CodeArityMismatch,
		Message: "the alias names " + strconv.Itoa(len(alias.Columns)) + " column" + plural(len(alias.Columns)) +
			", but the table has " + strconv.Itoa(n) + ": name every column, in order"})
}

// recursiveUnion reports WITH RECURSIVE whose recursive step is joined
// to the anchor by UNION without ALL: Spark's recursive CTEs take UNION
// ALL only (UNION_NOT_SUPPORTED_IN_RECURSIVE_CTE).
func (a *analyzer) recursiveUnion(c *ast.CTE) {
	if c == nil || c.Query == nil || c.Name == nil || c.Name.Expr != nil {
		return
	}
	op, ok := c.Query.Body.(*ast.SetOp)
	if !ok || op == nil || !strings.EqualFold(op.Op, "UNION") || strings.EqualFold(op.Quantifier, "ALL") {
		return
	}
	if !a.readsCTE(op.R, c.Name.Name) {
		return
	}
	a.report(Diagnostic{Range: op.OpRange, Code: CodeUnionInRecursiveCTE,
		Message: "a recursive CTE joins its recursive step with UNION ALL only; write UNION ALL " +
			"(and SELECT DISTINCT outside the CTE, if duplicates must go)"})
}

// readsCTE reports whether the query body b reads the table name (not
// shadowed by a nested WITH, which the check does not follow).
func (a *analyzer) readsCTE(b ast.Node, name string) bool {
	found := false
	ast.Inspect(b, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.With:
			for _, c := range n.CTEs {
				if c != nil && c.Name != nil && a.eqName(c.Name.Name, name) {
					found = false
					return false
				}
			}
		case *ast.Table:
			if parts, ok := nameParts(n.Name); ok && len(parts) == 1 && a.eqName(parts[0], name) {
				found = true
			}
		}
		return !found
	})
	return found
}

// withinGroupFuncs are the functions that take WITHIN GROUP (ORDER BY
// ...).
var withinGroupFuncs = set("percentile_cont", "percentile_disc", "mode", "listagg", "string_agg")

// orderedSetNoFrame are the aggregates that, over a window, take neither
// an ORDER BY nor a frame in the window (Spark's
// INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC): their order is their own.
var orderedSetNoFrame = set("median", "percentile_cont", "percentile_disc", "listagg", "string_agg")

// callSyntax checks the clauses of a call that only some functions take.
func (a *analyzer) callSyntax(x *ast.Call) {
	name, builtin := funcName(x.Name)
	if !builtin {
		return
	}
	if len(x.WithinGroup) > 0 && !withinGroupFuncs[name] && (IsAggregate(name) || isScalar(name) || windowFuncs[name]) {
		a.report(Diagnostic{Range: x.Range, Code: CodeUnsupportedSyntax,
			Message: "function " + quote(name) + " does not take WITHIN GROUP (ORDER BY ...); only " +
				"percentile_cont, percentile_disc, mode, listagg and string_agg do"})
		return
	}
	if x.Over == nil || !orderedSetNoFrame[name] {
		return
	}
	if name != "median" && len(x.WithinGroup) == 0 {
		return
	}
	w := a.namedWindow(x.Over)
	if w == nil {
		return
	}
	if len(w.OrderBy) > 0 || w.Frame != nil {
		a.report(Diagnostic{Range: x.Range, Code: CodeInvalidWindowForAgg,
			Message: "the window of " + quote(name) + " may only partition: " + name +
				" orders its input itself, so its window takes no ORDER BY and no frame"})
	}
}

// namedWindow returns the window definition of OVER: its own, or the
// one of the WINDOW clause it names; nil when not known.
func (a *analyzer) namedWindow(w *ast.Window) *ast.Window {
	if w.Ref == nil {
		return w
	}
	for _, list := range a.windows {
		for _, nw := range list {
			if nw != nil && nw.Name != nil && a.eqName(nw.Name.Name, w.Ref.Name) && nw.Window != nil {
				if len(w.OrderBy) > 0 || w.Frame != nil {
					return w
				}
				if nw.Window.Ref != nil {
					return nil
				}
				return nw.Window
			}
		}
	}
	return nil
}

// More error classes of Spark's checks on subqueries and table functions.
const (
	CodeMixedOuterLocal       = "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.AGGREGATE_FUNCTION_MIXED_OUTER_LOCAL_REFERENCES"
	CodeInExistsInSort        = "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_IN_EXISTS_SUBQUERY"
	CodeCorrelatedScalarInOp  = "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY"
	CodeCorrelatedReference   = "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_REFERENCE"
	CodeInSubqueryLength      = "DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH"
	CodeNonFoldableArgument   = "NON_FOLDABLE_ARGUMENT"
	CodeUnexpectedInput       = "UNEXPECTED_INPUT_TYPE"
	codeUnresolvedNoSuggested = CodeUnresolvedColumn
)

func init() {
	for _, c := range []string{CodeMixedOuterLocal, CodeInExistsInSort, CodeCorrelatedScalarInOp, CodeCorrelatedReference,
		CodeInSubqueryLength, CodeNonFoldableArgument, CodeUnexpectedInput} {
		Codes[c] = true
	}
}

// lateralTooDeep reports a column of the FROM items before a LATERAL
// subquery named from a query nested inside that subquery: Spark resolves
// such a name only in the subquery's own query.
func (a *analyzer) lateralTooDeep(ref *ColumnRef, parts []string) {
	a.report(Diagnostic{Range: ref.Node.Range, Code: codeUnresolvedNoSuggested,
		Message: "unknown column " + quoteParts(parts) + ": it is a column of the FROM items before a LATERAL subquery, " +
			"which only the LATERAL subquery's own query can name, not a query nested in it; " +
			"select it in the LATERAL subquery and use it from there"})
}

// mixedAggregate reports an aggregate function in a subquery whose
// argument mixes columns of the subquery with columns of an outer query
// (Spark cannot decide which query aggregates it).
func (a *analyzer) mixedAggregate(x *ast.Call) {
	local, outer := false, false
	for _, arg := range x.Args {
		visitExpr(arg, func(y ast.Expr) bool {
			if c, ok := y.(*ast.Column); ok {
				if r := a.m.columns[c]; r != nil && r.Kind == RefColumn && !r.Tentative {
					if r.Outer == 0 {
						local = true
					} else {
						outer = true
					}
				}
			}
			_, lam := y.(*ast.Lambda)
			return !lam
		})
	}
	if local && outer {
		a.report(Diagnostic{Range: x.Range, Code: CodeMixedOuterLocal,
			Message: "the aggregate " + quote(a.text(x)) + " mixes columns of this subquery with columns of an outer query: " +
				"aggregate the outer columns in the outer query, or the subquery's own columns only"})
	}
}

// inLength reports x IN (subquery) whose left side has another number of
// values than the subquery has columns.
func (a *analyzer) inLength(x *ast.In) {
	if x.Query == nil {
		return
	}
	out := a.m.Output(x.Query)
	if out == nil || !out.Complete {
		return
	}
	n := 1
	if r, ok := x.X.(*ast.Row); ok {
		n = len(r.Items)
	}
	if n == len(out.Columns) {
		return
	}
	a.report(Diagnostic{Range: x.Range, Code: CodeInSubqueryLength,
		Message: "the left side of IN has " + strconv.Itoa(n) + " value" + plural(n) + " but the subquery returns " +
			strconv.Itoa(len(out.Columns)) + " column" + plural(len(out.Columns)) + ": they must match one for one " +
			"(write (a, b) IN (SELECT x, y ...))"})
}

// sortSubqueries checks the subqueries of the ORDER BY of a SELECT that
// does not aggregate: an IN or EXISTS subquery, and a correlated scalar
// subquery, cannot be sorted on (Spark allows them in filters,
// projections, aggregates and joins). An ORDER BY expression written as
// in the select list is that column, and is not checked.
func (a *analyzer) sortSubqueries(items []*ast.SortItem, s *ast.Select) {
	if s.GroupBy != nil || s.Having != nil {
		return
	}
	for _, it := range s.Items {
		if it != nil && hasAggregate(it.X) {
			return
		}
	}
	for _, si := range items {
		if si == nil {
			continue
		}
		same := false
		for _, it := range s.Items {
			if it != nil && a.text(it.X) != "" && a.text(it.X) == a.text(si.X) {
				same = true
			}
		}
		if same {
			continue
		}
		done := false
		visitExpr(si.X, func(y ast.Expr) bool {
			if done {
				return false
			}
			switch y := y.(type) {
			case *ast.Exists:
				a.report(Diagnostic{Range: y.Range, Code: CodeInExistsInSort,
					Message: "an EXISTS subquery cannot be used in ORDER BY: compute it in the select list under an alias and order by the alias"})
				done = true
			case *ast.In:
				if y.Query != nil {
					a.report(Diagnostic{Range: y.Range, Code: CodeInExistsInSort,
						Message: "an IN subquery cannot be used in ORDER BY: compute it in the select list under an alias and order by the alias"})
					done = true
				}
			case *ast.Subquery:
				if a.correlated(y.Query) {
					a.report(Diagnostic{Range: y.Range, Code: CodeCorrelatedScalarInOp,
						Message: "a correlated scalar subquery cannot be used in ORDER BY: compute it in the select list under an alias and order by the alias"})
					done = true
				}
			}
			return !done
		})
	}
}

// correlated reports whether q's own clauses (not a query nested in it)
// name a column of the query around it.
func (a *analyzer) correlated(q *ast.Query) bool {
	if q == nil {
		return false
	}
	found := false
	ast.Inspect(q, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.Query:
			return n == q
		case *ast.Column:
			if r := a.m.columns[n]; r != nil && r.Kind == RefColumn && r.Outer == 1 && !r.Tentative {
				found = true
			}
		}
		return !found
	})
	return found
}

// outerGroupBy reports a GROUP BY of a subquery that groups by a column of
// an outer query (Spark takes outer columns in WHERE and HAVING only).
func (a *analyzer) outerGroupBy(groupRefs []*ColumnRef) {
	for _, r := range groupRefs {
		if len(r.Node.Parts) == 1 && !r.Node.Parts[0].Quoted && strings.EqualFold(r.Node.Parts[0].Name, "ALL") {
			continue // GROUP BY ALL, which Spark reads so before any outer column
		}
		if r.Kind == RefColumn && r.Outer > 0 && !r.Tentative {
			a.report(Diagnostic{Range: r.Node.Range, Code: CodeCorrelatedReference,
				Message: quote(a.text(r.Node)) + " is a column of an outer query, which a subquery's GROUP BY cannot group by: " +
					"group by the subquery's own columns, or correlate in WHERE"})
			return
		}
	}
}

// foldableArgs reports a column or subquery in the arguments of range()
// in FROM, which takes constants only (NON_FOLDABLE_ARGUMENT).
func (a *analyzer) foldableArgs(t *ast.TableFunc) {
	if t.Call == nil {
		return
	}
	if n, builtin := funcName(t.Call.Name); !builtin || n != "range" {
		return
	}
	for _, arg := range t.Call.Args {
		if k := a.kindOf(arg); k != kUnknown && k != kNumeric {
			a.report(Diagnostic{Range: arg.Span(), Code: CodeUnexpectedInput,
				Message: "the arguments of range() are whole numbers, and " + quote(a.text(arg)) + " is " + kindNames[k]})
			return
		}
		var bad ast.Expr
		visitExpr(arg, func(y ast.Expr) bool {
			switch y.(type) {
			case *ast.Column, *ast.Subquery, *ast.Exists:
				if bad == nil {
					bad = y
				}
			case *ast.In:
				if y.(*ast.In).Query != nil && bad == nil {
					bad = y
				}
			}
			return bad == nil
		})
		if bad != nil {
			if c, ok := bad.(*ast.Column); ok {
				if r := a.m.columns[c]; r == nil || r.Kind != RefColumn || r.Tentative {
					continue
				}
			}
			a.report(Diagnostic{Range: arg.Span(), Code: CodeNonFoldableArgument,
				Message: "the arguments of range() must be constants, and " + quote(a.text(arg)) +
					" is not: write a number (or a constant expression)"})
			return
		}
	}
}

// orderDuplicateNames checks the ORDER BY of a GROUP BY ALL query for a
// name two select-list columns have: Spark resolves ORDER BY against the
// aggregate's output, where such a name is no single column, and then
// against the grouped FROM columns; when no grouped FROM column has the
// name it is UNRESOLVED_COLUMN.
func (a *analyzer) orderDuplicateNames(q *ast.Query, res *result) {
	sel := res.sel
	if sel == nil || sel.s == nil || sel.s.GroupBy == nil || len(q.OrderBy) == 0 || !sel.from.complete {
		return
	}
	s := sel.s
	if len(s.GroupBy.Items) != 1 || len(s.GroupBy.GroupingSets) > 0 || !a.isGroupAll(s.GroupBy.Items[0]) {
		return
	}
	for _, si := range q.OrderBy {
		if si == nil {
			continue
		}
		cx, ok := unparen(si.X).(*ast.Column)
		if !ok || len(cx.Parts) != 1 || cx.Parts[0] == nil || cx.Parts[0].Expr != nil {
			continue
		}
		name := cx.Parts[0].Name
		eqs := map[int]bool{}
		for _, at := range res.attrs {
			if at.item != nil && at.fuzzy == sure && a.eqName(at.name, name) {
				eqs[at.eq] = true
			}
		}
		if len(eqs) < 2 {
			continue
		}
		pm := a.lookup(sel.from, []string{name})
		switch {
		case len(pm.cands) > 1:
			continue
		case len(pm.cands) == 0:
			if !a.certainMiss(sel.from, []string{name}, cx.Parts[0].Quoted) {
				continue
			}
		default:
			grouped := false
			for _, at := range res.attrs {
				if at.item != nil && at.src.Rel != nil && at.src == pm.cands[0].src {
					grouped = true
				}
			}
			if grouped {
				continue
			}
		}
		a.report(Diagnostic{Range: cx.Range, Code: CodeUnresolvedColumn,
			Message: "unknown column " + quote(name) + " in ORDER BY: more than one column of the select list is named " +
				quote(name) + ", and GROUP BY ALL groups by no column of that name; give the select list's columns different aliases"})
		return
	}
}
