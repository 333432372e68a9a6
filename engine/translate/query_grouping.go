package translate

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
)

// virtual reports a reference to a column Spark adds itself
// (grouping__id, window), which DuckDB names by its translation unless
// aliased.
func (t *tr) virtual(x ast.Expr) bool {
	c, ok := x.(*ast.Column)
	if !ok {
		return false
	}
	ref := t.model.Column(c)
	return ref != nil && ref.Kind == sema.RefVirtual
}

// groupingExprs returns the grouping expressions of g as Spark's
// grouping__id counts them: every expression of its ROLLUP, CUBE and
// GROUPING SETS (or, for GROUP BY a, b GROUPING SETS (...), the list
// before the sets), each once, in the order first written. ok is false
// when g groups by an ordinal or by ALL, whose expressions are not
// written there.
func groupingExprs(g *ast.GroupBy) (xs []ast.Expr, ok bool) {
	seen := map[string]bool{}
	ok = true
	var walk func(items []*ast.GroupItem)
	walk = func(items []*ast.GroupItem) {
		for _, it := range items {
			if it.Kind != "" {
				walk(it.Items)
				continue
			}
			switch x := unparenExpr(it.X).(type) {
			case *ast.Literal:
				if x.Kind == ast.LitInteger {
					ok = false
				}
			case *ast.Column:
				if len(x.Parts) == 1 && !x.Parts[0].Quoted && strings.EqualFold(x.Parts[0].Name, "ALL") {
					ok = false
				}
			}
			if k := canonical(it.X); !seen[k] {
				seen[k] = true
				xs = append(xs, it.X)
			}
		}
	}
	walk(g.Items)
	return xs, ok
}

// groupingID translates Spark's grouping__id in a SELECT grouping by
// ROLLUP, CUBE or GROUPING SETS (its items, HAVING and ORDER BY): a
// BIGINT whose bits say which grouping expressions the row's grouping set
// leaves out, the first expression the highest bit, as DuckDB's
// grouping_id of the same expressions in the same order counts them.
func (t *tr) groupingID(c *ast.Column) (frag, bool) {
	if len(c.Parts) != 1 || !strings.EqualFold(c.Parts[0].Name, "grouping__id") || !t.virtual(c) {
		return frag{}, false
	}
	s := t.groupingSelect
	if s == nil || !analyticGroups(s.GroupBy) {
		return frag{}, false
	}
	xs, ok := groupingExprs(s.GroupBy)
	if !ok || len(xs) == 0 {
		t.refuse(c, "grouping__id of a GROUP BY by ordinals or ALL does not run natively; name the grouping columns")
		return at(c, tBigInt, cat("NULL")), true
	}
	saved := t.groupCanon
	t.groupCanon = nil
	args := make([]frag, len(xs))
	for i, x := range xs {
		args[i] = t.raw(x)
	}
	t.groupCanon = saved
	return at(c, tBigInt, cat("CAST(grouping_id(", args, ") AS BIGINT)")), true
}

// groupingRegistered is set by registerGroupingFunctions (the way
// interval.go registers its functions): grouping_id is this file's.
var groupingRegistered = registerGroupingFunctions()

// registerGroupingFunctions adds grouping_id to the table of funcs.go.
func registerGroupingFunctions() bool {
	f := agg(custom("grouping_id", "CAST(grouping_id(the grouping expressions) AS BIGINT), with ROLLUP, CUBE or GROUPING SETS", groupingIDFn))
	for i := range functions {
		if functions[i].Name == f.Name {
			functions[i] = f
			return true
		}
	}
	functions = append(functions, f)
	return true
}

// groupingIDFn translates grouping_id(), which is grouping__id, and
// grouping_id(a, b, ...), which Spark takes only with the grouping
// expressions themselves, in their order.
func groupingIDFn(t *tr, c *ast.Call, a []frag) frag {
	s := t.groupingSelect
	if s != nil && s.GroupBy != nil && !analyticGroups(s.GroupBy) {
		t.typeError(c, "UNSUPPORTED_GROUPING_EXPRESSION", "grouping()/grouping_id() can only be used with GroupingSets/Cube/Rollup. SQLSTATE: 42K0E")
		return null(c)
	}
	if !t.analytic || s == nil {
		t.refuse(c, "grouping_id() runs natively in the SELECT list, HAVING or ORDER BY of a GROUP BY with ROLLUP, CUBE or GROUPING SETS only")
		return null(c)
	}
	xs, ok := groupingExprs(s.GroupBy)
	if !ok || len(xs) == 0 {
		t.refuse(c, "grouping_id of a GROUP BY by ordinals or ALL does not run natively; name the grouping columns")
		return null(c)
	}
	if len(c.Args) > 0 {
		same := len(c.Args) == len(xs)
		for i := 0; same && i < len(xs); i++ {
			same = canonical(c.Args[i]) == canonical(xs[i])
		}
		if !same {
			t.refuse(c, "grouping_id takes the grouping expressions of the GROUP BY, in their order, or none")
			return null(c)
		}
	}
	saved := t.groupCanon
	t.groupCanon = nil
	args := make([]frag, len(xs))
	for i, x := range xs {
		args[i] = t.raw(x)
	}
	t.groupCanon = saved
	return at(c, tBigInt, cat("CAST(grouping_id(", args, ") AS BIGINT)"))
}

// dependentGroups returns the expressions of s's SELECT items, HAVING
// and ORDER BY (orderBy, without a HAVING) outside aggregates that Spark takes as one of
// its grouping expressions but that are written otherwise (1 + a for
// a + 1, the operands of a commutative operator swapped), each once.
// DuckDB wants such an expression grouped: GROUP BY then lists it too,
// which does not change the groups, as its value follows from the
// grouping expression it equals. Only a plain GROUP BY (no ROLLUP, CUBE,
// GROUPING SETS or ALL) has them.
func dependentGroups(s *ast.Select, orderBy []*ast.SortItem) []ast.Expr {
	g := s.GroupBy
	if g == nil || g.With != "" || len(g.GroupingSets) > 0 {
		return nil
	}
	written := map[string]bool{}
	canon := map[string]bool{}
	for _, it := range g.Items {
		if it.Kind != "" {
			return nil
		}
		if c, ok := it.X.(*ast.Column); ok && len(c.Parts) == 1 && strings.EqualFold(c.Parts[0].Name, "ALL") {
			return nil
		}
		written[ast.Format(it.X)] = true
		canon[canonical(it.X)] = true
	}
	var out []ast.Expr
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Subquery, *ast.Exists, *ast.Lambda:
			return false
		case *ast.In:
			if n.Query != nil {
				return false
			}
		case *ast.Call:
			if f := funcIndex[strings.ToLower(n.Name.String())]; n.Over != nil || f != nil && f.Agg {
				return false
			}
		case *ast.Binary:
			if k := ast.Format(n); !written[k] && canon[canonical(n)] {
				written[k] = true
				out = append(out, n)
				return false
			}
		}
		return true
	}
	for _, it := range s.Items {
		if it.X != nil {
			ast.Inspect(it.X, visit)
		}
	}
	if s.Having != nil {
		ast.Inspect(s.Having, visit)
	}
	if s.Having == nil {
		// After HAVING, Spark's ORDER BY sees the select list alone
		// (UNRESOLVED_COLUMN, checked on Spark 4.1.4): DuckDB must keep
		// failing there too.
		for _, o := range orderBy {
			ast.Inspect(o.X, visit)
		}
	}
	return out
}

// setlessColumns returns, for GROUP BY a, b GROUPING SETS (...), the
// columns of the list before the sets that no set holds, each as a NULL
// of its type: Spark's value of such a column outside aggregates, in
// every row. Each is a plain column of the SELECT's input, named alone
// (not qualified) everywhere outside aggregates; none is returned when
// one is read inside an aggregate too (there it is the input's value)
// or when the SELECT holds a subquery (whose own columns could share the
// name).
func (t *tr) setlessColumns(s *ast.Select, orderBy []*ast.SortItem) map[string]shadowed {
	g := s.GroupBy
	if g == nil || len(g.GroupingSets) == 0 {
		return nil
	}
	inSets := setExprs(g.GroupingSets)
	exprs := make([]ast.Expr, 0, len(s.Items)+len(orderBy)+1)
	for _, it := range s.Items {
		exprs = append(exprs, it.X)
	}
	if s.Having != nil {
		exprs = append(exprs, s.Having)
	}
	for _, o := range orderBy {
		exprs = append(exprs, o.X)
	}
	for _, x := range exprs {
		if x == nil || hasSubquery(x) {
			return nil
		}
	}
	var out map[string]shadowed
	for _, it := range g.Items {
		c, ok := it.X.(*ast.Column)
		if it.Kind != "" || !ok || len(c.Parts) != 1 || inSets[canonical(c)] {
			continue
		}
		name := c.Parts[0].Name
		if t.readInAggregate(exprs, name) || aliasedOther(s, name) {
			return nil
		}
		col, ok := t.inputColumn(s, name)
		if !ok || !col.typ.known() || col.typ.duck() == "" {
			return nil
		}
		if out == nil {
			out = map[string]shadowed{}
		}
		out[strings.ToLower(name)] = shadowed{sql: "CAST(NULL AS " + col.typ.duck() + ")", typ: col.typ}
	}
	return out
}

// readInAggregate reports a column named name inside an aggregate call
// of exprs, or one qualified by a table (which the NULL of
// setlessColumns does not replace).
func (t *tr) readInAggregate(exprs []ast.Expr, name string) bool {
	found := false
	var visit func(n ast.Node, inAgg bool) bool
	visit = func(n ast.Node, inAgg bool) bool {
		ast.Inspect(n, func(m ast.Node) bool {
			if found {
				return false
			}
			switch m := m.(type) {
			case *ast.Call:
				if f := funcIndex[strings.ToLower(m.Name.String())]; !inAgg && m != n && (m.Over != nil || f != nil && f.Agg) {
					visit(m, true)
					return false
				}
			case *ast.Column:
				last := m.Parts[len(m.Parts)-1].Name
				if strings.EqualFold(last, name) && (inAgg || len(m.Parts) > 1) {
					found = true
				}
			}
			return true
		})
		return found
	}
	for _, x := range exprs {
		if visit(x, false) {
			return true
		}
	}
	return false
}

// mergeShadows returns a with b's names added (a's win).
func mergeShadows(a, b map[string]shadowed) map[string]shadowed {
	if len(b) == 0 {
		return a
	}
	out := make(map[string]shadowed, len(a)+len(b))
	for k, v := range b {
		out[k] = v
	}
	for k, v := range a {
		out[k] = v
	}
	return out
}

// aliasedOther reports a SELECT item of s named name by an alias, other
// than the column of that name itself: HAVING and ORDER BY may read the
// alias by that name.
func aliasedOther(s *ast.Select, name string) bool {
	for _, it := range s.Items {
		if it.Alias == nil || !strings.EqualFold(it.Alias.Name, name) {
			continue
		}
		if c, ok := it.X.(*ast.Column); !ok || len(c.Parts) != 1 || !strings.EqualFold(c.Parts[0].Name, name) {
			return true
		}
	}
	return false
}

// setlessExprs returns the canonical texts of the expressions (not
// plain columns: setlessColumns has those) of GROUP BY a + b, k
// GROUPING SETS (...) that no set holds: a SELECT item that is one of
// them is NULL in every row on Spark.
func setlessExprs(s *ast.Select) map[string]bool {
	g := s.GroupBy
	if g == nil || len(g.GroupingSets) == 0 {
		return nil
	}
	inSets := setExprs(g.GroupingSets)
	var out map[string]bool
	for _, it := range g.Items {
		if it.Kind != "" || it.X == nil || hasSubquery(it.X) {
			continue
		}
		switch unparenExpr(it.X).(type) {
		case *ast.Column, *ast.Literal:
			continue
		}
		if k := canonical(it.X); !inSets[k] {
			if out == nil {
				out = map[string]bool{}
			}
			out[k] = true
		}
	}
	return out
}

// setExprs is the canonical text of every expression the grouping sets
// items hold, nested sets (ROLLUP, CUBE, GROUPING SETS) walked.
func setExprs(items []*ast.GroupItem) map[string]bool {
	in := map[string]bool{}
	var walk func(items []*ast.GroupItem)
	walk = func(items []*ast.GroupItem) {
		for _, it := range items {
			if it.Kind != "" {
				walk(it.Items)
				continue
			}
			in[canonical(it.X)] = true
		}
	}
	walk(items)
	return in
}
