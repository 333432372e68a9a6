package translate

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
)

// pivotIn is the input of a PIVOT or UNPIVOT: its DuckDB relation, as a
// FROM item, and how to find the type of one of its columns by name.
type pivotIn struct {
	from frag
	// colType returns the type of the input column name (nil when the
	// name is not one, or names two, or its type is not known).
	colType func(name string) *Type
}

// pivotAggs are the aggregate functions a PIVOT translates when its
// aggregates are not all numbers or booleans (Spark's If rewrite,
// agg(if(col <=> value, x, null))): each ignores NULL and gives NULL
// over no rows, as the FILTER the translation uses does.
// count gives 0 there (checked on Spark 4.1.4: count(x) beside max(a
// string) is 0 for a value with no rows, NULL beside sum(x)).
var pivotAggs = map[string]bool{"sum": true, "avg": true, "mean": true, "min": true, "max": true, "count": true}

// pivot translates PIVOT (aggregates FOR columns IN (values)) over in as
// Spark computes it (its analyzer's two-step aggregate): the rows are
// grouped by the input columns neither the aggregates nor the FOR columns
// read plus the FOR columns, the aggregates computed per group, and each
// value's aggregate picked into a column of its own. A combination of
// grouping columns with no row of a value gives NULL there (also for
// count, which is not 0 then). The result is a parenthesised query,
// without an alias.
func (t *tr) pivot(p *ast.Pivot, in pivotIn) (frag, bool) {
	rel := t.relationOf(p)
	if rel == nil || !rel.Complete {
		t.refuse(p, "PIVOT does not run natively here: the columns of its input are not all known")
		return frag{}, false
	}
	nOut := len(p.Values)
	if len(p.Aggregates) > 1 {
		nOut *= len(p.Aggregates)
	}
	nKept := len(rel.Columns) - nOut
	if nKept < 0 {
		t.refuse(p, "PIVOT does not run natively here")
		return frag{}, false
	}
	// The aggregates: each must hold an aggregate function, outside a
	// window (Spark: "Aggregate expression required for pivot").
	for _, ag := range p.Aggregates {
		if ag == nil || ag.X == nil {
			return frag{}, false
		}
		if !holdsAggregate(ag.X) {
			t.typeError(ag.X, "_LEGACY_ERROR_TEMP_1006", "Aggregate expression required for pivot, but '%s' did not appear in any aggregate function.", t.text(ag.X))
			return frag{}, false
		}
	}
	// The FOR columns and their types.
	colTypes := make([]*Type, len(p.Columns))
	for i, id := range p.Columns {
		if id == nil || id.Expr != nil {
			t.refuse(p, "PIVOT does not run natively here")
			return frag{}, false
		}
		ty := in.colType(id.Name)
		switch {
		case ty == nil || !ty.known():
			t.refuse(id, "PIVOT ... FOR %s does not run natively: the type of %s is not known here", id.Name, id.Name)
			return frag{}, false
		case ty.is(Map):
			t.typeError(id, "INCOMPARABLE_PIVOT_COLUMN", "Invalid pivot column `%s`. Pivot columns must be comparable. SQLSTATE: 42818", id.Name)
			return frag{}, false
		case !ty.is(String) && !ty.integral() && !ty.is(Boolean):
			t.refuse(id, "PIVOT ... FOR a column of type %s does not run natively; the native engine pivots on strings, integers and booleans", ty)
			return frag{}, false
		}
		colTypes[i] = ty
	}
	// The values: literals (a tuple of them for several columns).
	conds := make([]frag, len(p.Values))
	for i, v := range p.Values {
		if v == nil || v.X == nil {
			return frag{}, false
		}
		parts := []ast.Expr{v.X}
		if len(p.Columns) > 1 {
			r, ok := unparenExpr(v.X).(*ast.Row)
			if !ok || len(r.Items) != len(p.Columns) {
				t.typeError(v.X, "PIVOT_VALUE_DATA_TYPE_MISMATCH", "Invalid pivot value '%s': value data type does not match pivot column data type. SQLSTATE: 42K09", t.text(v.X))
				return frag{}, false
			}
			parts = parts[:0]
			for _, it := range r.Items {
				if it == nil || it.Alias != nil {
					t.refuse(v.X, "this PIVOT value does not run natively")
					return frag{}, false
				}
				parts = append(parts, it.X)
			}
		}
		var cs []frag
		for j, x := range parts {
			lit, ok := unparenExpr(x).(*ast.Literal)
			if !ok {
				if c, col := unparenExpr(x).(*ast.Column); col {
					if len(c.Parts) == 1 && in.colType(c.Parts[0].Name) == nil && t.model.Column(c) == nil {
						t.typeError(x, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION", "A column, variable, or function parameter with name `%s` cannot be resolved. SQLSTATE: 42703", c.Parts[0].Name)
					} else {
						t.typeError(x, "NON_LITERAL_PIVOT_VALUES", "Literal expressions required for pivot values, found \"%s\". SQLSTATE: 42K08", t.text(x))
					}
				} else {
					t.refuse(x, "this PIVOT value does not run natively; the native engine pivots on string, integer and boolean literals")
				}
				return frag{}, false
			}
			ty := colTypes[j]
			okType := false
			switch lit.Kind {
			case ast.LitString:
				okType = ty.is(String)
			case ast.LitInteger:
				okType = ty.integral()
			case ast.LitTrue, ast.LitFalse:
				okType = ty.is(Boolean)
			}
			if !okType {
				t.refuse(x, "a PIVOT value %s for a column of type %s does not run natively (Spark casts the value to the column's type); write it as a %s literal", t.text(x), ty, ty)
				return frag{}, false
			}
			cs = append(cs, cat(quoteIdent(p.Columns[j].Name), " = ", t.expr(x)))
		}
		conds[i] = join(cs, " AND ")
	}
	// The aggregates' values, and which of Spark's two plans applies: a
	// two-step aggregate when every aggregate is a number or a boolean,
	// else each aggregate over the rows of one value (the same except
	// for functions that give a value over no rows, which are refused).
	aggs := make([]frag, len(p.Aggregates))
	twoStep := true
	zero := map[*ast.SelectItem]bool{}
	for i, ag := range p.Aggregates {
		aggs[i] = t.expr(ag.X)
		ty := aggs[i].typ
		if !ty.known() {
			t.refuse(ag.X, "the type of this PIVOT aggregate is not known here, and Spark's result for a missing value depends on it")
			return frag{}, false
		}
		if !ty.numeric() && !ty.is(Boolean) {
			twoStep = false
		}
	}
	if !twoStep {
		for _, ag := range p.Aggregates {
			c, ok := unparenExpr(ag.X).(*ast.Call)
			if !ok || c.Over != nil || !pivotAggs[strings.ToLower(c.Name.String())] {
				t.refuse(ag.X, "this PIVOT aggregate does not run natively: with an aggregate of a type other than a number or a boolean, Spark computes each aggregate per value, which the native engine does for sum, avg, min, max and count only")
				return frag{}, false
			}
			zero[ag] = strings.EqualFold(c.Name.String(), "count")
		}
	}
	// Two values alike: Spark fails at run time (INVALID_ARRAY_INDEX);
	// two output columns of one name: DuckDB would rename one.
	outNames := map[string]bool{}
	for _, c := range rel.Columns[nKept:] {
		k := strings.ToLower(c.Name)
		if outNames[k] {
			t.refuse(p, "PIVOT does not run natively here: two of its columns are named %s (or two values are alike, which fails on Spark); give the values distinct aliases", c.Name)
			return frag{}, false
		}
		outNames[k] = true
	}
	// The grouping columns: the input's columns the pivot does not read.
	var groups []string
	seen := map[string]bool{}
	for _, c := range rel.Columns[:nKept] {
		k := strings.ToLower(c.Name)
		if c.Name == "" || seen[k] {
			t.refuse(p, "PIVOT does not run natively here: its input has two columns named %s", c.Name)
			return frag{}, false
		}
		seen[k] = true
		groups = append(groups, quoteIdent(c.Name))
	}
	for _, id := range p.Columns {
		seen[strings.ToLower(id.Name)] = true
	}
	aggName := func(i int) string {
		for n := i + 1; ; n++ {
			s := "agg" + strconv.Itoa(n)
			if !seen[s] {
				return quoteIdent(s)
			}
		}
	}
	names := make([]string, len(aggs))
	for i := range aggs {
		names[i] = aggName(i)
		seen[strings.ToLower(strings.Trim(names[i], `"`))] = true
	}
	pcols := make([]string, len(p.Columns))
	for i, id := range p.Columns {
		pcols[i] = quoteIdent(id.Name)
	}
	// Inner: one row per grouping columns and FOR columns' values.
	innerItems := append(append([]string(nil), groups...), pcols...)
	inner := []any{"SELECT ", strings.Join(innerItems, ", ")}
	for i, a := range aggs {
		inner = append(inner, ", ", a, " AS "+names[i])
	}
	inner = append(inner, " FROM ", in.from, " GROUP BY "+strings.Join(innerItems, ", "))
	// Outer: each value's aggregates as columns.
	outer := []any{"SELECT "}
	if len(groups) > 0 {
		outer = append(outer, strings.Join(groups, ", "), ", ")
	}
	k := nKept
	for i := range p.Values {
		for j := range aggs {
			if i > 0 || j > 0 {
				outer = append(outer, ", ")
			}
			// Each group of the inner query holds one value's rows:
			// at most one per outer group matches.
			pick := cat("any_value("+names[j]+") FILTER (WHERE ", conds[i], ")")
			if zero[p.Aggregates[j]] {
				// count per value (Spark's If rewrite): 0 for none.
				pick = cat("coalesce(", pick, ", 0)")
			}
			outer = append(outer, pick, " AS "+quoteIdent(rel.Columns[k].Name))
			k++
		}
	}
	outer = append(outer, " FROM (")
	outer = append(outer, inner...)
	outer = append(outer, ")")
	if len(groups) > 0 {
		outer = append(outer, " GROUP BY "+strings.Join(groups, ", "))
	}
	// The output's types, for what reads it.
	types := make([]*Type, 0, len(rel.Columns))
	for _, c := range rel.Columns[:nKept] {
		types = append(types, in.colType(c.Name))
	}
	for range p.Values {
		for _, a := range aggs {
			types = append(types, a.typ)
		}
	}
	all := true
	for _, ty := range types {
		if !ty.known() {
			all = false
		}
	}
	if all {
		t.relCols[p] = types
	}
	return at(p, nil, cat("(", cat(outer...), ")")), true
}

// relationOf returns the semantic model's relation of node n.
func (t *tr) relationOf(n ast.Node) *sema.Relation {
	for _, r := range t.model.Relations {
		if r.Node == n {
			return r
		}
	}
	return nil
}

// holdsAggregate reports an aggregate function call in x outside a
// window and a subquery.
func holdsAggregate(x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Call:
			if n.Over != nil {
				return false
			}
			if f := funcIndex[strings.ToLower(n.Name.String())]; f != nil && f.Agg {
				found = true
			}
		case *ast.Subquery, *ast.Exists:
			return false
		}
		return !found
	})
	return found
}

// unparenExpr strips parentheses around x.
func unparenExpr(x ast.Expr) ast.Expr {
	for {
		p, ok := x.(*ast.Paren)
		if !ok || p.X == nil {
			return x
		}
		x = p.X
	}
}

// fromColType returns a colType for the relations of a FROM clause: the
// type of the one column of that name among their columns.
func (t *tr) fromColType(rels []ast.Relation) func(string) *Type {
	var leaves []ast.Node
	var walk func(r ast.Relation)
	walk = func(r ast.Relation) {
		switch r := r.(type) {
		case *ast.Join:
			walk(r.L)
			walk(r.R)
		case nil:
		default:
			leaves = append(leaves, r)
		}
	}
	for _, r := range rels {
		walk(r)
	}
	return func(name string) *Type {
		var found *Type
		n := 0
		for _, leaf := range leaves {
			rel := t.relationOf(leaf)
			if rel == nil {
				continue
			}
			for i, c := range rel.Columns {
				if !strings.EqualFold(c.Name, name) {
					continue
				}
				n++
				ty := t.outputType(c)
				if !ty.known() {
					if ts, ok := t.relTypes(leaf); ok && i < len(ts) {
						ty = ts[i]
					}
				}
				found = ty
			}
		}
		if n != 1 {
			return nil
		}
		return found
	}
}

// fromPivot translates the PIVOT or UNPIVOT written after a FROM
// clause's relations (rels, translated).
func (t *tr) fromPivot(f *ast.From, rels frag) frag {
	in := pivotIn{from: rels, colType: t.fromColType(f.Relations)}
	if f.Pivot != nil {
		pf, ok := t.pivot(f.Pivot, in)
		if !ok {
			return rels
		}
		return cat(pf, pivotAlias(f.Pivot.Alias))
	}
	uf, ok := t.unpivot(f.Unpivot, in)
	if !ok {
		return rels
	}
	return cat(uf, pivotAlias(f.Unpivot.Alias))
}

// pivotRelation translates a PIVOT or UNPIVOT relation (after a relation
// of a join, say).
func (t *tr) pivotRelation(r ast.Relation) (frag, bool) {
	switch r := r.(type) {
	case *ast.Pivot:
		if r.Input == nil {
			break
		}
		in := pivotIn{from: t.relation(r.Input), colType: t.fromColType([]ast.Relation{r.Input})}
		pf, ok := t.pivot(r, in)
		if !ok {
			return frag{}, false
		}
		return cat(pf, pivotAlias(r.Alias)), true
	case *ast.Unpivot:
		if r.Input == nil {
			break
		}
		in := pivotIn{from: t.relation(r.Input), colType: t.fromColType([]ast.Relation{r.Input})}
		uf, ok := t.unpivot(r, in)
		if !ok {
			return frag{}, false
		}
		return cat(uf, pivotAlias(r.Alias)), true
	}
	t.refuse(r, "PIVOT does not run natively here")
	return frag{}, false
}

// pivotAlias is the alias of a PIVOT or UNPIVOT's result ("" for none).
func pivotAlias(a *ast.Ident) string {
	if a == nil {
		return ""
	}
	return " AS " + quoteIdent(a.Name)
}

// unpivot translates UNPIVOT [INCLUDE | EXCLUDE NULLS] (values FOR name IN
// (columns)) over in as Spark computes it: for each row of the input, one
// row per entry of the IN list holding the input's other columns, the
// entry's name (its alias, else its columns' names joined by _) and its
// columns' values; without INCLUDE NULLS a row whose values are all NULL
// is dropped. The values of one value column must have one type (Spark
// would widen them). The result is a parenthesised query, without an
// alias.
func (t *tr) unpivot(u *ast.Unpivot, in pivotIn) (frag, bool) {
	rel := t.relationOf(u)
	if rel == nil || !rel.Complete || u.NameColumn == nil || len(u.ValueColumns) == 0 {
		t.refuse(u, "UNPIVOT does not run natively here: the columns of its input are not all known")
		return frag{}, false
	}
	nKept := len(rel.Columns) - 1 - len(u.ValueColumns)
	if nKept < 0 {
		t.refuse(u, "UNPIVOT does not run natively here")
		return frag{}, false
	}
	var kept []string
	seen := map[string]bool{}
	for _, c := range append(append([]*sema.OutputColumn(nil), rel.Columns[:nKept]...), rel.Columns[nKept:]...) {
		k := strings.ToLower(c.Name)
		if c.Name == "" || seen[k] {
			t.refuse(u, "UNPIVOT does not run natively here: its result would have two columns named %s", c.Name)
			return frag{}, false
		}
		seen[k] = true
	}
	for _, c := range rel.Columns[:nKept] {
		kept = append(kept, quoteIdent(c.Name))
	}
	types := make([]*Type, len(u.ValueColumns))
	var branches []frag
	for _, uc := range u.Columns {
		if uc == nil || len(uc.Names) != len(u.ValueColumns) {
			t.refuse(u, "UNPIVOT does not run natively here")
			return frag{}, false
		}
		var names []string
		parts := []any{"SELECT "}
		for _, k := range kept {
			parts = append(parts, k, ", ")
		}
		var vals []frag
		for j, n := range uc.Names {
			if n == nil || len(n.Parts) == 0 {
				return frag{}, false
			}
			last := n.Parts[len(n.Parts)-1]
			if last.Expr != nil {
				t.refuse(n, "IDENTIFIER(expr) does not run natively")
				return frag{}, false
			}
			names = append(names, last.Name)
			ty := in.colType(last.Name)
			if len(n.Parts) > 1 || ty == nil || !ty.known() {
				t.refuse(n, "UNPIVOT of %s does not run natively: its type is not known here", t.text(n))
				return frag{}, false
			}
			if ty.has(Null) || ty.has(IntervalKind) {
				t.refuse(n, "UNPIVOT of a column of type %s does not run natively", ty)
				return frag{}, false
			}
			switch {
			case types[j] == nil:
				types[j] = ty
			case types[j].String() != ty.String():
				t.refuse(n, "UNPIVOT of columns of types %s and %s into one column does not run natively: Spark widens them to a common type; cast them to one type", types[j], ty)
				return frag{}, false
			}
			vals = append(vals, at(n, ty, cat(quoteIdent(last.Name))))
		}
		label := strings.Join(names, "_")
		if uc.Alias != nil {
			if uc.Alias.Expr != nil {
				t.refuse(uc.Alias, "IDENTIFIER(expr) does not run natively")
				return frag{}, false
			}
			label = uc.Alias.Name
		}
		parts = append(parts, quoteString(label)+" AS "+quoteIdent(u.NameColumn.Name))
		for j, v := range vals {
			parts = append(parts, ", ", v, " AS "+quoteIdent(u.ValueColumns[j].Name))
		}
		parts = append(parts, " FROM ", in.from)
		branches = append(branches, cat(parts...))
	}
	if len(branches) == 0 {
		t.refuse(u, "UNPIVOT does not run natively here")
		return frag{}, false
	}
	body := join(branches, " UNION ALL ")
	if !u.IncludeNulls {
		conds := make([]string, len(u.ValueColumns))
		for j, v := range u.ValueColumns {
			conds[j] = quoteIdent(v.Name) + " IS NULL"
		}
		body = cat("SELECT * FROM (", body, ") WHERE NOT ("+strings.Join(conds, " AND ")+")")
	}
	out := make([]*Type, 0, len(rel.Columns))
	all := true
	for _, c := range rel.Columns[:nKept] {
		ty := in.colType(c.Name)
		all = all && ty.known()
		out = append(out, ty)
	}
	out = append(out, tString)
	out = append(out, types...)
	if all {
		t.relCols[u] = out
	}
	return at(u, nil, cat("(", body, ")")), true
}
