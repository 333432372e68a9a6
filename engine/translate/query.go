package translate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
)

// query translates a query with its WITH and its ordering clauses.
func (t *tr) query(q *ast.Query) frag {
	var parts []any
	if q.With != nil {
		parts = append(parts, t.with(q.With), " ")
	}
	if s, ok := q.Body.(*ast.Select); ok && len(q.OrderBy) > 0 {
		if t.orderKeys == nil {
			t.orderKeys = map[*ast.Select][]*ast.SortItem{}
		}
		t.orderKeys[s] = q.OrderBy
	}
	parts = append(parts, t.body(q.Body))
	if len(q.Windows) > 0 {
		t.refuse(q.Windows[0], "a WINDOW clause after a set operation does not run natively; define the window in the SELECT it belongs to")
	}
	if keys := sortKeys(q.OrderBy); len(keys) > 0 {
		saved, savedGS, savedAnalytic := t.shadow, t.groupingSelect, t.analytic
		if s, ok := q.Body.(*ast.Select); ok {
			t.shadow = t.shadows[s]
			// grouping(), grouping_id() and grouping__id order by the
			// SELECT's grouping sets.
			t.groupingSelect, t.analytic = s, analyticGroups(s.GroupBy)
		}
		parts = append(parts, " ORDER BY ", t.sortItems(keys))
		t.shadow, t.groupingSelect, t.analytic = saved, savedGS, savedAnalytic
	}
	// SORT BY, DISTRIBUTE BY and CLUSTER BY order or place rows within
	// Spark's partitions: a dataset's rows are the same without them.
	if q.Limit != nil {
		parts = append(parts, " LIMIT ", t.raw(q.Limit))
	}
	if q.Offset != nil {
		parts = append(parts, " OFFSET ", t.raw(q.Offset))
	}
	return at(q, nil, cat(parts...))
}

// raw translates an expression whose integer literals stay bare (LIMIT,
// OFFSET, ordinals).
func (t *tr) raw(x ast.Expr) frag {
	if l, ok := x.(*ast.Literal); ok && l.Kind == ast.LitInteger {
		return at(l, tInt, cat(l.Text))
	}
	return t.expr(x)
}

func (t *tr) with(w *ast.With) frag {
	parts := []any{"WITH "}
	if w.Recursive {
		parts = append(parts, "RECURSIVE ")
	}
	for i, c := range w.CTEs {
		if i > 0 {
			parts = append(parts, ", ")
		}
		if c.MaxRecursion != nil {
			t.refuse(c.MaxRecursion, "MAX RECURSION LEVEL does not run natively")
		}
		cols := ""
		if len(c.Columns) > 0 {
			names := make([]string, len(c.Columns))
			for j, id := range c.Columns {
				names[j] = quoteIdent(id.Name)
			}
			cols = "(" + strings.Join(names, ", ") + ")"
		}
		parts = append(parts, at(c, nil, cat(quoteIdent(c.Name.Name), cols, " AS (", t.query(c.Query), ")")))
	}
	return at(w, nil, cat(parts...))
}

// body translates a query body.
func (t *tr) body(b ast.QueryExpr) frag {
	switch b := b.(type) {
	case *ast.Select:
		return t.selectQ(b)
	case *ast.SetOp:
		op := b.Op
		if op == "MINUS" {
			op = "EXCEPT"
		}
		if b.Quantifier != "" {
			op += " " + b.Quantifier
		}
		t.setDepth++
		l, r := t.body(b.L), t.body(b.R)
		t.setDepth--
		if lt, rt := t.bodyTypes[b.L], t.bodyTypes[b.R]; lt != nil && len(lt) == len(rt) {
			out := make([]*Type, len(lt))
			for i := range lt {
				if (lt[i].is(Boolean) && rt[i].numeric()) || (rt[i].is(Boolean) && lt[i].numeric()) {
					// Checked on Spark 4.1.4, with and without ANSI.
					t.typeError(b, "INCOMPATIBLE_COLUMN_TYPE", "%s can only be performed on tables with compatible column types. The %s column of the second table is \"%s\" type which is not compatible with \"%s\" at the same column of the first table. SQLSTATE: 42825",
						strings.ToUpper(b.Op), ordinalWord(i+1), strings.ToUpper(rt[i].String()), strings.ToUpper(lt[i].String()))
				}
				out[i] = t.setOpType(lt[i], rt[i])
			}
			t.bodyTypes[b] = out
			l = t.castColumns(b.L, l, lt, out)
			r = t.castColumns(b.R, r, rt, out)
		}
		if t.setDepth == 0 {
			t.setVoids(b)
		}
		return at(b, nil, cat(l, " "+op+" ", r))
	case *ast.ParenQuery:
		f := at(b, nil, cat("(", t.query(b.Query), ")"))
		if b.Query != nil && len(b.Query.OrderBy) == 0 && b.Query.Limit == nil {
			if ts, ok := t.bodyTypes[b.Query.Body]; ok {
				t.bodyTypes[b] = ts
			}
		}
		return f
	case *ast.Values:
		f := at(b, nil, cat("SELECT * FROM ", t.values(b)))
		if ts := t.relCols[b]; len(ts) > 0 {
			t.bodyTypes[b] = ts
		}
		return f
	case *ast.TableQuery:
		f := at(b, nil, cat("SELECT * FROM ", t.tableName(b.Name)))
		if out := t.model.Output(b); out != nil && out.Complete {
			ts := make([]*Type, len(out.Columns))
			for i, c := range out.Columns {
				ts[i] = t.outputType(c)
			}
			t.bodyTypes[b] = ts
		}
		return f
	case *ast.Pipe:
		return t.pipe(b)
	default:
		t.refuse(b, "this query does not run natively")
	}
	return at(b, nil, cat("SELECT NULL"))
}

// setOpType is the type of a column of a set operation whose sides have
// types a and b, as Spark's golden files show it (typeCoercion/native/
// widenSetOperationTypes.sql): numbers widen, a FLOAT with an integer or
// decimal to DOUBLE in ANSI mode; in ANSI mode a string with an integer
// is a BIGINT, with a fractional or decimal number a DOUBLE.
func (t *tr) setOpType(a, b *Type) *Type {
	number := func(x *Type) bool { return x.integral() || x.is(Decimal) }
	switch {
	case t.ansi() && (a.is(Float) && number(b) || b.is(Float) && number(a)):
		return tDouble
	case t.ansi() && (a.is(String) && b.integral() || b.is(String) && a.integral()):
		return tBigInt
	case t.ansi() && (a.is(String) && (b.fractional() || b.is(Decimal)) || b.is(String) && (a.fractional() || a.is(Decimal))):
		return tDouble
	case t.ansi() && (a.is(String) && b.is(Boolean) || b.is(String) && a.is(Boolean)):
		return tBool
	case t.ansi() && a.is(String) && (b.is(Date) || b.is(Timestamp)):
		return b
	case t.ansi() && b.is(String) && (a.is(Date) || a.is(Timestamp)):
		return a
	case a.is(String) && b.is(Binary) || b.is(String) && a.is(Binary):
		return tBinary
	}
	return widen(a, b)
}

// castColumns wraps one side of a set operation so that its columns have
// the types want, where a number, string or boolean column of another
// type would make DuckDB's union type differ from Spark's: SELECT
// conversion AS name, ... FROM (side) AS s(_1, ...), with the side's own
// column names. A string becomes a number, boolean or binary as Spark's
// CAST does (checked, failing in ANSI mode on a malformed value).
func (t *tr) castColumns(side ast.Node, f frag, have, want []*Type) frag {
	out := t.model.Output(side)
	if out == nil || len(out.Columns) != len(have) {
		return f
	}
	convert := func(i int) (string, bool) {
		h, w := have[i], want[i]
		if !w.known() || h.duck() == w.duck() {
			return "", false
		}
		col := quoteIdent("_" + strconv.Itoa(i+1))
		switch {
		case h.is(String) && w.integral():
			fn := "thund_int_text"
			if !t.ansi() {
				fn = "thund_legacy_int_text"
			}
			return "TRY_CAST(" + fn + "(" + col + ", " + quoteString(w.String()) + ", " + strconv.Itoa(t.check(side)) + ") AS " + w.duck() + ")", true
		case h.is(String) && w.is(Boolean):
			fn := "thund_bool_text"
			if !t.ansi() {
				fn = "thund_try_bool_text"
			}
			return fn + "(" + col + ", " + strconv.Itoa(t.check(side)) + ")", true
		case h.is(String) && w.is(Binary):
			return "encode(" + col + ")", true
		case h.is(String) && (w.is(Date) || w.is(Timestamp)):
			return "CAST(" + col + " AS " + w.duck() + ")", true
		case h.is(String) && (w.fractional() || w.is(Decimal)):
			kw := "CAST"
			if !t.ansi() {
				kw = "TRY_CAST"
			}
			return kw + "(trim(" + col + ") AS " + w.duck() + ")", true
		case w.is(String) && h.fractional():
			return "thund_double_text(" + col + ")", true
		case (h.numeric() || h.is(String) || h.is(Null)) && (w.numeric() || w.is(String)):
			return "CAST(" + col + " AS " + w.duck() + ")", true
		}
		return "", false
	}
	items := make([]string, len(have))
	cols := make([]string, len(have))
	changed := false
	for i, c := range out.Columns {
		cols[i] = quoteIdent("_" + strconv.Itoa(i+1))
		items[i] = cols[i]
		if x, ok := convert(i); ok {
			items[i], changed = x, true
		}
		items[i] += " AS " + quoteIdent(c.Name)
	}
	if !changed {
		return f
	}
	return cat("SELECT "+strings.Join(items, ", ")+" FROM (", f, ") AS s("+strings.Join(cols, ", ")+")")
}

// ordinalWord writes n as Spark's messages do: first, second, ..., 11th.
func ordinalWord(n int) string {
	words := []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}
	if n >= 1 && n <= len(words) {
		return words[n-1]
	}
	return strconv.Itoa(n) + "th"
}

// tableName is the DuckDB relation of a table as written.
func (t *tr) tableName(n *ast.Name) frag {
	parts := make([]string, len(n.Parts))
	for i, p := range n.Parts {
		if p.Expr != nil {
			t.refuse(p, "IDENTIFIER(expr) does not run natively")
		}
		parts[i] = p.Name
	}
	if t.opts.Relation != nil {
		return at(n, nil, cat(t.opts.Relation(parts)))
	}
	return at(n, nil, cat(quoteIdent(parts[len(parts)-1])))
}

// values translates VALUES as a relation, naming its columns as Spark
// does (col1, col2, ...) unless an alias names them.
func (t *tr) values(v *ast.Values) frag {
	rows := make([]frag, len(v.Rows))
	width := 0
	var types []*Type
	note := func(j int, ty *Type) {
		for len(types) <= j {
			types = append(types, tNull)
		}
		types[j] = widen(types[j], ty)
	}
	for i, r := range v.Rows {
		if row, ok := r.(*ast.Row); ok {
			items := make([]frag, len(row.Items))
			for j, it := range row.Items {
				t.inlineValue(it.X)
				items[j] = t.expr(it.X)
				note(j, items[j].typ)
			}
			rows[i] = at(row, nil, cat("(", items, ")"))
			width = max(width, len(items))
		} else {
			x := r
			if p, ok := x.(*ast.Paren); ok {
				x = p.X
			}
			t.inlineValue(x)
			f := t.expr(x)
			note(0, f.typ)
			rows[i] = cat("(", f, ")")
			width = max(width, 1)
		}
	}
	alias := "values"
	var cols []string
	if v.Alias != nil {
		alias = v.Alias.Name.Name
		for _, c := range v.Alias.Columns {
			cols = append(cols, quoteIdent(c.Name))
		}
	}
	for i := len(cols); i < width; i++ {
		cols = append(cols, quoteIdent("col"+strconv.Itoa(i+1)))
	}
	t.relCols[v] = types
	return at(v, nil, cat("(VALUES ", rows, ") AS ", quoteIdent(alias), "(", strings.Join(cols, ", "), ")"))
}

// inlineValue rejects, as Spark's analyzer does, a value of an inline
// table (VALUES) that is not a constant: a column (of an outer query: cte.sql,
// VALUES(id)), an aggregate or a window (inline-table.sql, count(1)).
func (t *tr) inlineValue(x ast.Expr) {
	var bad ast.Node
	ast.Inspect(x, func(n ast.Node) bool {
		if bad != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.Subquery, *ast.Exists, *ast.Lambda:
			return false
		case *ast.Column:
			bad = n
		case *ast.Call:
			if f := funcIndex[strings.ToLower(n.Name.String())]; n.Over != nil || f != nil && f.Agg {
				bad = n
			}
		}
		return bad == nil
	})
	if bad == nil {
		return
	}
	shown := t.text(bad)
	if c, ok := bad.(*ast.Column); ok {
		shown = "outer(" + t.text(c) + ")"
	}
	t.typeError(bad, "INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE", "Invalid inline table. Cannot evaluate the expression \"%s\" in inline table definition. SQLSTATE: 42000", shown)
}

// aliasOf prints a table alias.
func aliasOf(a *ast.TableAlias) string {
	if a == nil {
		return ""
	}
	s := " AS " + quoteIdent(a.Name.Name)
	if len(a.Columns) > 0 {
		names := make([]string, len(a.Columns))
		for i, c := range a.Columns {
			names[i] = quoteIdent(c.Name)
		}
		s += "(" + strings.Join(names, ", ") + ")"
	}
	return s
}

func (t *tr) selectQ(s *ast.Select) frag {
	if s.Transform != nil {
		t.refuse(s.Transform, "SELECT TRANSFORM runs a script, which the native engine does not")
	}
	var from frag
	hasFrom := s.From != nil
	if hasFrom {
		from = t.from(s.From)
	}
	pipe := t.pipeFrom
	t.pipeFrom = nil
	savedAnalytic, savedWindow, savedWS, savedGS := t.analytic, t.timeWindow, t.windowSelect, t.groupingSelect
	t.analytic = analyticGroups(s.GroupBy)
	t.groupingSelect = s
	t.timeWindow, t.windowSelect = nil, false
	var windowTime frag
	if c := timeWindowOf(s); c != nil && len(c.Args) > 0 {
		t.windowSelect = true
		w := t.expr(c)
		t.timeWindow = &w
		windowTime = t.expr(c.Args[0])
	}
	defer func() {
		t.analytic, t.timeWindow, t.windowSelect, t.groupingSelect = savedAnalytic, savedWindow, savedWS, savedGS
	}()
	if pipe != nil && !hasFrom {
		hasFrom, from = true, pipe.from
	}
	lvs := s.LateralViews
	if s.From != nil {
		lvs = append(append([]*ast.LateralView(nil), s.From.LateralViews...), lvs...)
	}
	var lateral []frag
	for _, lv := range lvs {
		lateral = append(lateral, t.lateralView(lv))
	}
	out := t.model.Output(s)
	names := map[*ast.SelectItem]string{}
	if out != nil {
		for _, c := range out.Columns {
			if c.Item != nil && c.Name != "" {
				names[c.Item] = c.Name
			}
		}
	}
	items := make([]frag, 0, len(s.Items))
	types := make([]*Type, 0, len(s.Items))
	// GROUP BY a, b GROUPING SETS (...): a column of the list that no
	// set holds is NULL outside aggregates.
	setless := t.setlessColumns(s, t.orderKeys[s])
	savedShadow, savedSetless := t.shadow, t.setlessItems
	t.setlessItems = setlessExprs(s)
	defer func() { t.setlessItems = savedSetless }()
	if setless != nil {
		t.shadow = setless
	}
	for _, it := range s.Items {
		var f frag
		if !hasFrom && isStarItem(it) {
			f = t.starWithoutFrom(it, s, out)
		} else {
			f = t.selectItem(it, names[it])
		}
		items = append(items, f)
		if p, ok := it.X.(*ast.Paren); ok && isStarItem(it) && t.opts.TypedColumns {
			// The model does not expand (*): its columns' types are
			// not known to be others than VOID and TIMESTAMP_NTZ.
			t.carried = append(t.carried, carried{n: p, why: "the columns of (*) are not typed here, and the native engine may give one another type than Spark (VOID, TIMESTAMP_NTZ); write *"})
		}
		if isStarItem(it) || len(it.Aliases) > 0 {
			types = nil
		} else if types != nil {
			types = append(types, f.typ)
		}
	}
	t.shadow = savedShadow
	var starItem ast.Node
	for _, it := range s.Items {
		if isStarItem(it) {
			starItem = it.X
			break
		}
	}
	if out != nil && starItem != nil {
		// The columns a * expands to (they have no select item).
		for _, c := range out.Columns {
			if c.Item != nil || c.Expr != nil || c.Source == nil {
				continue
			}
			if ty := t.outputType(c); ty.has(Null) && t.opts.TypedColumns && t.opts.VoidColumns {
				t.carried = append(t.carried, carried{n: starItem, ty: ty})
			} else if ty.has(Null) {
				t.refuse(starItem, "the column %s holds NULL alone, which has Spark's type VOID; the native engine cannot give it (it types it INTEGER), and tables cannot store it; give it a type: CAST(NULL AS INT)", c.Name)
				break
			}
		}
	}
	if types == nil && out != nil && out.Complete {
		// A star's columns: their types as the model passes them on.
		types = make([]*Type, len(out.Columns))
		for i, c := range out.Columns {
			types[i] = t.outputType(c)
		}
	}
	if types != nil {
		t.bodyTypes[s] = types
	}
	parts := []any{"SELECT "}
	if s.Quantifier == "DISTINCT" {
		parts = append(parts, "DISTINCT ")
	}
	if pipe != nil && pipe.star {
		parts = append(parts, "*")
		if len(items) > 0 {
			parts = append(parts, ", ")
		}
	}
	parts = append(parts, items)
	if hasFrom {
		parts = append(parts, " FROM ", from)
	}
	for _, l := range lateral {
		parts = append(parts, l)
	}
	switch {
	case t.timeWindow != nil && s.Where != nil:
		// Spark drops the rows whose window time is NULL.
		parts = append(parts, " WHERE (", t.cond(s.Where), ") AND (", windowTime, ") IS NOT NULL")
	case t.timeWindow != nil:
		parts = append(parts, " WHERE (", windowTime, ") IS NOT NULL")
	case s.Where != nil:
		parts = append(parts, " WHERE ", t.cond(s.Where))
	}
	if s.GroupBy != nil {
		if constantGroups(s) {
			// GROUP BY ALL over constants and aggregates only: Spark
			// groups by the constants (one row, none for no input);
			// DuckDB would not aggregate at all.
			parts = append(parts, " GROUP BY 'all'")
		} else {
			parts = append(parts, " GROUP BY ", t.groupBy(s.GroupBy))
			if deps := dependentGroups(s, t.orderKeys[s]); len(deps) > 0 {
				fs := make([]frag, len(deps))
				for i, x := range deps {
					fs[i] = t.expr(x)
				}
				parts = append(parts, ", ", cat(fs))
			}
		}
	}
	t.shadows[s] = mergeShadows(t.sharedNames(s, out, false), setless)
	if s.Having != nil {
		saved := t.shadow
		t.shadow = mergeShadows(t.sharedNames(s, out, true), setless)
		parts = append(parts, " HAVING ", t.cond(s.Having))
		t.shadow = saved
	}
	if len(s.Windows) > 0 {
		ws := make([]frag, len(s.Windows))
		for i, w := range s.Windows {
			ws[i] = at(w, nil, cat(quoteIdent(w.Name.Name), " AS (", t.windowBody(w.Window), ")"))
		}
		parts = append(parts, " WINDOW ", ws)
	}
	if s.Qualify != nil {
		// Spark 4.2's and Databricks' QUALIFY filters on the window
		// functions after they are computed, as DuckDB's does; a name
		// there may be a SELECT alias in both.
		parts = append(parts, " QUALIFY ", t.cond(s.Qualify))
	}
	return at(s, nil, cat(parts...))
}

// grouped reports an input column name s groups by: listed in its GROUP
// BY, or (GROUP BY ALL) a plain column item of its SELECT.
func grouped(s *ast.Select, name string) bool {
	if s.GroupBy == nil {
		return false
	}
	is := func(x ast.Expr) bool {
		c, ok := x.(*ast.Column)
		return ok && len(c.Parts) == 1 && strings.EqualFold(c.Parts[0].Name, name)
	}
	for _, it := range s.GroupBy.Items {
		if it.Kind == "" && is(it.X) {
			return true
		}
		if c, ok := it.X.(*ast.Column); ok && len(c.Parts) == 1 && strings.EqualFold(c.Parts[0].Name, "ALL") {
			for _, si := range s.Items {
				if is(si.X) {
					return true
				}
			}
		}
	}
	return false
}

// constantGroups reports GROUP BY ALL whose SELECT has an item without
// an aggregate and no column outside an aggregate.
func constantGroups(s *ast.Select) bool {
	g := s.GroupBy
	if g == nil || len(g.Items) != 1 || g.With != "" || len(g.GroupingSets) > 0 || g.Items[0].Kind != "" {
		return false
	}
	c, ok := g.Items[0].X.(*ast.Column)
	if !ok || len(c.Parts) != 1 || c.Parts[0].Quoted || !strings.EqualFold(c.Parts[0].Name, "ALL") {
		return false
	}
	plain := false
	for _, it := range s.Items {
		agg, col := false, false
		if _, star := it.X.(*ast.Star); star {
			return false
		}
		ast.Inspect(it.X, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Call:
				if f := funcIndex[strings.ToLower(n.Name.String())]; f != nil && f.Agg && n.Over == nil {
					agg = true
					return false
				}
			case *ast.Column:
				col = true
			case *ast.Subquery, *ast.Exists, *ast.Lambda:
				return false
			}
			return true
		})
		if col {
			return false
		}
		if !agg {
			plain = true
		}
	}
	return plain
}

// sharedNames finds the output names of s that two or more of its
// columns share and that name a column of its input, with that input
// column qualified (when s reads one table or aliased subquery).
func (t *tr) sharedNames(s *ast.Select, out *sema.Output, having bool) map[string]shadowed {
	if out == nil {
		return nil
	}
	count := map[string]int{}
	for _, c := range out.Columns {
		count[strings.ToLower(c.Name)]++
		if having && c.Item != nil && grouped(s, c.Name) {
			if col, ok := c.Item.X.(*ast.Column); !ok || !strings.EqualFold(col.Parts[len(col.Parts)-1].Name, c.Name) {
				// In HAVING Spark reads a name first as a grouped
				// input column, then as a SELECT alias.
				count[strings.ToLower(c.Name)]++
			}
		}
	}
	var m map[string]shadowed
	for name, n := range count {
		if n < 2 || name == "" {
			continue
		}
		sh, ok := t.inputColumn(s, name)
		if !ok {
			continue
		}
		if m == nil {
			m = map[string]shadowed{}
		}
		m[name] = sh
	}
	return m
}

// inputColumn finds column name of s's input: ok is false when no
// relation of s has it; the SQL is empty when it cannot be qualified
// (the type is still given).
func (t *tr) inputColumn(s *ast.Select, name string) (shadowed, bool) {
	if s.From == nil {
		return shadowed{}, false
	}
	for _, rel := range t.model.Relations {
		for i, c := range rel.Columns {
			if !strings.EqualFold(c.Name, name) || !within(rel.Node, s.From) {
				continue
			}
			ty := t.outputType(c)
			if ts, ok := t.relTypes(rel.Node); ok && !ty.known() && i < len(ts) {
				ty = ts[i]
			}
			if len(s.From.Relations) != 1 || rel.Node != s.From.Relations[0] {
				return shadowed{typ: ty}, true
			}
			q := ""
			switch r := rel.Node.(type) {
			case *ast.Table:
				if r.Alias != nil {
					q = quoteIdent(r.Alias.Name.Name)
				} else {
					q = t.tableName(r.Name).s
				}
			case *ast.SubqueryRel:
				if r.Alias != nil {
					q = quoteIdent(r.Alias.Name.Name)
				}
			case *ast.Values:
				// VALUES ... AS t(a, b): the translation keeps the alias
				// (values).
				if r.Alias != nil {
					q = quoteIdent(r.Alias.Name.Name)
				}
			}
			if q == "" {
				return shadowed{typ: ty}, true
			}
			return shadowed{sql: q + "." + quoteIdent(c.Name), typ: ty}, true
		}
	}
	return shadowed{}, false
}

// within reports whether n lies inside the range of f.
func within(n ast.Node, f *ast.From) bool {
	r, fr := n.Span(), f.Span()
	return r.Start >= fr.Start && r.End <= fr.End
}

// cond translates a condition (WHERE, HAVING, ON).
func (t *tr) cond(x ast.Expr) frag { return t.expr(x) }

// selectItem translates one select item, naming a computed column as
// Spark names it.
func (t *tr) selectItem(it *ast.SelectItem, name string) frag {
	saved := t.projecting
	t.projecting = true
	defer func() { t.projecting = saved }()
	if st, ok := it.X.(*ast.Star); ok {
		return t.star(st)
	}
	if p, ok := it.X.(*ast.Paren); ok && it.Alias == nil {
		if st, ok := p.X.(*ast.Star); ok {
			// Spark reads SELECT (*) as SELECT *.
			return t.star(st)
		}
	}
	if c, ok := it.X.(*ast.Call); ok && generator(c) != "" {
		if it.Alias != nil {
			return t.generatorItem(c, []*ast.Ident{it.Alias})
		}
		return t.generatorItem(c, it.Aliases)
	}
	if len(it.Aliases) > 0 {
		if c, ok := it.X.(*ast.Call); ok && generator(c) != "" {
			return t.generatorItem(c, it.Aliases)
		}
		t.refuse(it, "a multi-column alias AS (a, b) is for generator functions only")
	}
	x := t.expr(it.X)
	if t.setlessItems[canonical(it.X)] && x.typ.known() && !x.typ.has(Null) && x.typ.duck() != "" {
		// GROUP BY a + b, k GROUPING SETS (k): a + b is NULL.
		x = at(it.X, x.typ, cat("CAST(NULL AS "+x.typ.duck()+")"))
	}
	switch {
	case t.opts.TypedColumns && t.opts.VoidColumns && x.typ.has(Null) && !voidCertain(it.X):
		t.refuse(it.X, "the type of %s is not known to be VOID here: the native engine would type it INTEGER; give it a type: CAST(... AS INT)", t.text(it.X))
	case x.typ.has(Null) && t.opts.TypedColumns && t.opts.VoidColumns, x.typ.has(TimestampNTZ) && !x.typ.has(Null) && t.opts.TypedColumns:
		t.carried = append(t.carried, carried{n: it.X, ty: x.typ})
	case (x.typ.is(Null) || x.typ.has(Null)) && t.setDepth > 0:
		t.voidDeferred = append(t.voidDeferred, it.X)
	case x.typ.is(Null), x.typ.has(Null):
		t.refuse(it.X, voidRefusal)
	case x.typ.is(TimestampNTZ):
		t.refuse(it.X, ntzRefusal)
	}
	if x.typ.has(IntervalKind) && !ansiIntervalsOnly(x.typ) {
		t.refuse(it.X, "an interval value does not run natively: Spark's ANSI interval types (INTERVAL DAY TO SECOND, INTERVAL YEAR TO MONTH) print differently from DuckDB's INTERVAL")
	}
	alias := ""
	switch {
	case it.Alias != nil:
		alias = it.Alias.Name
	case isPlainColumn(it.X) && !t.fieldOfColumn(it.X) && !t.virtual(it.X):
		// DuckDB names a column reference as Spark does.
	case name != "":
		alias = name
	default:
		alias = t.text(it.X)
	}
	if alias == "" {
		return at(it, x.typ, x)
	}
	return at(it, x.typ, cat(x, " AS ", quoteIdent(alias)))
}

// setVoids settles the VOID columns found in the sides of set operation
// b, the outermost: a column of NULL alone in one side takes the type of
// the others' (SELECT NULL AS c UNION ALL SELECT 'x' is a STRING), so it
// is refused only where b's column is VOID too, or is not known.
func (t *tr) setVoids(b *ast.SetOp) {
	found := t.voidDeferred
	t.voidDeferred = nil
	if len(found) == 0 {
		return
	}
	out := t.bodyTypes[b]
	for _, x := range found {
		i := setColumn(b, x)
		if i < 0 || i >= len(out) || !out[i].known() || out[i].has(Null) {
			t.refuse(x, voidRefusal)
		}
	}
}

// setColumn is the column of set operation b that select item x of one of
// its sides gives, or -1 when a star before it hides the number.
func setColumn(b ast.QueryExpr, x ast.Expr) int {
	switch b := b.(type) {
	case *ast.SetOp:
		if i := setColumn(b.L, x); i >= 0 {
			return i
		}
		return setColumn(b.R, x)
	case *ast.ParenQuery:
		if b.Query != nil {
			return setColumn(b.Query.Body, x)
		}
	case *ast.Select:
		for i, it := range b.Items {
			if it.X == x {
				return i
			}
			if _, ok := it.X.(*ast.Star); ok || len(it.Aliases) > 0 {
				return -1
			}
		}
	}
	return -1
}

// ntzRefusal and voidRefusal are the findings at a TIMESTAMP_NTZ and a
// VOID output column whose type the caller cannot carry
// (Options.TypedColumns).
const (
	ntzRefusal  = "a TIMESTAMP_NTZ value runs natively as a TIMESTAMP, so its column would have another type than on Spark"
	voidRefusal = "a column of NULL alone has Spark's type VOID, which the native engine cannot give (it types it INTEGER), and which tables cannot store; give it a type: CAST(NULL AS INT)"
)

// voidCertain reports an expression whose type, VOID or holding VOID,
// is certain: NULL, a column, and array, struct and named_struct of
// those. Elsewhere the translation's NULL type may be its own guess (a
// function of NULL it does not type).
func voidCertain(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.Literal:
		return x.Kind == ast.LitNull
	case *ast.Column:
		return true
	case *ast.Paren:
		return voidCertain(x.X)
	case *ast.Call:
		if x.Name == nil || len(x.Name.Parts) != 1 || x.Quantifier != "" || len(x.Args) == 0 {
			return false
		}
		n := strings.ToLower(x.Name.Last().Name)
		if n != "array" && n != "struct" && n != "named_struct" {
			return false
		}
		for i, a := range x.Args {
			if n == "named_struct" && i%2 == 0 {
				if l, ok := a.(*ast.Literal); !ok || l.Kind != ast.LitString {
					return false
				}
				continue
			}
			if !voidCertain(a) && !typedNonVoid(a) {
				return false
			}
		}
		return true
	}
	return false
}

// typedNonVoid reports a literal that is not NULL (its type is certain).
func typedNonVoid(x ast.Expr) bool {
	l, ok := x.(*ast.Literal)
	return ok && l.Kind != ast.LitNull
}

// carried is a select item whose Spark type DuckDB's does not give
// (Options.TypedColumns).
type carried struct {
	n  ast.Node
	ty *Type
	// why, when set, is the finding instead of the type's refusal.
	why string
}

// starWithoutFrom translates the star of a SELECT without FROM, which
// Spark expands to the columns of the FROM items before a LATERAL subquery
// (SELECT * FROM t1, LATERAL (SELECT t1.*)), into those columns, each
// qualified: DuckDB expands no star without FROM.
func (t *tr) starWithoutFrom(it *ast.SelectItem, s *ast.Select, out *sema.Output) frag {
	stars := 0
	for _, x := range s.Items {
		if isStarItem(x) {
			stars++
		}
	}
	var cols []string
	if out != nil && out.Complete && stars == 1 {
		for _, c := range out.Columns {
			if c.Item != nil || c.Expr != nil {
				continue
			}
			var col *sema.OutputColumn
			if c.Source != nil {
				col = c.Source.Column()
			}
			if col == nil || c.Source.Rel.Name == "" || strings.Contains(c.Source.Rel.Name, ".") {
				cols = nil
				break
			}
			cols = append(cols, quoteIdent(c.Source.Rel.Name)+"."+quoteIdent(col.Name))
		}
	}
	if len(cols) == 0 {
		t.refuse(it, "a * without FROM does not run natively here")
		return at(it, nil, cat("NULL"))
	}
	return at(it, nil, cat(strings.Join(cols, ", ")))
}

// isStarItem reports a select item that is a star, * or (*) (Spark reads
// SELECT (*) as SELECT *).
func isStarItem(it *ast.SelectItem) bool {
	if p, ok := it.X.(*ast.Paren); ok && it.Alias == nil {
		_, star := p.X.(*ast.Star)
		return star
	}
	_, star := it.X.(*ast.Star)
	return star
}

// isPlainColumn reports a column reference without struct fields.
func isPlainColumn(x ast.Expr) bool {
	c, ok := x.(*ast.Column)
	return ok && len(c.Parts) <= 2
}

func (t *tr) star(st *ast.Star) frag {
	if f, ok := t.outerStar(st); ok {
		return f
	}
	if f, ok := t.structStar(st); ok {
		return f
	}
	s := "*"
	if st.Qualifier != nil {
		s = quoteIdent(st.Qualifier.Last().Name) + ".*"
	}
	replace := ""
	if len(st.Except) > 0 {
		plain, r, ok := t.exceptFields(st)
		if !ok {
			return at(st, nil, cat(s))
		}
		replace = r
		names := make([]string, len(plain))
		for i, n := range plain {
			names[i] = quoteIdent(n.Last().Name)
		}
		if len(names) > 0 {
			s += " EXCLUDE (" + strings.Join(names, ", ") + ")"
		}
	}
	s = t.excludeHidden(st, s) // a file read's _metadata (metadata.go)
	return at(st, nil, cat(s+replace))
}

func (t *tr) from(f *ast.From) frag {
	if (f.Pivot != nil || f.Unpivot != nil) && len(f.LateralViews) > 0 {
		t.refuse(f.LateralViews[0], "a LATERAL VIEW before PIVOT or UNPIVOT does not run natively")
	}
	rels := make([]frag, len(f.Relations))
	saved := t.pivoting
	t.pivoting = f.Pivot != nil || f.Unpivot != nil
	defer func() { t.pivoting = saved }()
	for i, r := range f.Relations {
		rels[i] = t.relation(r)
		if i == 0 && strings.HasPrefix(rels[i].s, "LATERAL ") {
			// A LATERAL subquery with nothing before it is a plain one
			// (DuckDB's grammar has no LATERAL there).
			rels[i] = dropPrefix(rels[i], len("LATERAL "))
		}
	}
	if f.Pivot != nil || f.Unpivot != nil {
		return t.fromPivot(f, cat(rels))
	}
	return cat(rels)
}

// dropPrefix removes the first n bytes of f, moving its mappings.
func dropPrefix(f frag, n int) frag {
	m := make([]Mapping, 0, len(f.m))
	for _, x := range f.m {
		x.Gen.Start, x.Gen.End = max(0, x.Gen.Start-n), x.Gen.End-n
		if x.Gen.End > 0 {
			m = append(m, x)
		}
	}
	return frag{s: f.s[n:], m: m, typ: f.typ}
}

// hasSubquery reports an expression holding a subquery (IN, EXISTS or
// scalar).
func hasSubquery(x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.Subquery, *ast.Exists:
			found = true
		case *ast.In:
			if n.(*ast.In).Query != nil {
				found = true
			}
		}
		return !found
	})
	return found
}

func (t *tr) relation(r ast.Relation) frag {
	switch r := r.(type) {
	case *ast.Table:
		if r.Temporal != nil {
			t.refuse(r.Temporal, "time travel (VERSION | TIMESTAMP AS OF) does not run natively")
		}
		if r.Sample != nil {
			t.refuse(r.Sample, "TABLESAMPLE picks rows at random: the native rows cannot match Spark's")
		}
		if len(r.Options) > 0 {
			t.refuse(r.Options[0], "table options (WITH (...)) do not run natively")
		}
		if c := t.inlinedCTE(r); c != nil {
			return t.cteInline(r, c)
		}
		return at(r, nil, cat(t.tableName(r.Name), aliasOf(r.Alias)))
	case *ast.SubqueryRel:
		if r.Sample != nil {
			t.refuse(r.Sample, "TABLESAMPLE picks rows at random: the native rows cannot match Spark's")
		}
		lat := ""
		if r.Lateral {
			lat = "LATERAL "
		}
		return at(r, nil, cat(lat, "(", t.query(r.Query), ")", aliasOf(r.Alias)))
	case *ast.ParenRel:
		if r.Sample != nil {
			t.refuse(r.Sample, "TABLESAMPLE picks rows at random: the native rows cannot match Spark's")
		}
		return at(r, nil, cat("(", t.relation(r.Rel), ")", aliasOf(r.Alias)))
	case *ast.Values:
		return t.values(r)
	case *ast.TableFunc:
		return t.tableFunc(r)
	case *ast.Join:
		return t.join(r)
	case *ast.Pivot, *ast.Unpivot:
		if f, ok := t.pivotRelation(r); ok {
			return f
		}
	default:
		t.refuse(r, "this relation does not run natively")
	}
	return at(r, nil, cat("(SELECT NULL)"))
}

func (t *tr) join(j *ast.Join) frag {
	var l frag
	leftName := ""
	if _, bad := j.L.(*ast.BadRelation); bad && t.pipeLeft != nil {
		// |> JOIN: the left side is what the pipe's operators made.
		l, t.pipeLeft, leftName = *t.pipeLeft, nil, t.pipeLeftName
	} else {
		l = t.relation(j.L)
	}
	r := t.relation(j.R)
	if tb, ok := j.R.(*ast.Table); ok && tb.Alias == nil && tb.Name != nil && len(tb.Name.Parts) > 0 {
		if n := tb.Name.Last().Name; (unaliasedTable(j.L, n) || strings.EqualFold(leftName, n)) && !t.qualifiedBy(n) {
			// t JOIN t: Spark joins the table with itself (no column
			// can be named by t then); DuckDB wants the second named
			// otherwise.
			r = cat(r, " AS ", quoteIdent(n+" (2)"))
		}
	}
	kind := j.Kind
	if kind == "CROSS" && j.On != nil {
		// Spark reads CROSS JOIN ... ON as an inner join; DuckDB's
		// grammar has no ON after CROSS JOIN.
		kind = ""
	}
	switch kind {
	case "LEFT SEMI", "SEMI":
		kind = "SEMI"
	case "LEFT ANTI", "ANTI":
		kind = "ANTI"
	case "LEFT OUTER":
		kind = "LEFT"
	case "RIGHT OUTER":
		kind = "RIGHT"
	case "FULL OUTER":
		kind = "FULL"
	case "":
		kind = "INNER"
	}
	// A NATURAL join of sides with no column in common joins on
	// nothing.
	natural := j.Natural && !t.naturalWithoutCommon(j)
	parts := []any{l, " "}
	if natural {
		parts = append(parts, "NATURAL ")
	}
	parts = append(parts, kind, " JOIN ")
	if j.Lateral && !strings.HasPrefix(r.s, "LATERAL ") {
		parts = append(parts, "LATERAL ")
	}
	parts = append(parts, r)
	if j.On != nil && hasSubquery(j.On) {
		t.bothSides(j)
	}
	if j.On != nil && (kind == "SEMI" || kind == "ANTI") && !hasSubquery(j.On) && t.leftCorrelated(j) {
		// DuckDB does not flatten a semi or anti join in a correlated
		// subquery: written as [NOT] EXISTS, it does.
		if f, ok := t.subqueryJoin(j, kind, l, r); ok {
			return f
		}
	}
	if j.On != nil && (kind == "LEFT" || kind == "RIGHT" || kind == "FULL") && !hasSubquery(j.On) && t.correlatedOn(j) {
		// An outer join correlated to a query around it.
		if f, ok := t.flaggedJoin(j, kind, l, r); ok {
			return f
		}
	}
	if j.On != nil && kind != "INNER" && kind != "CROSS" && hasSubquery(j.On) {
		if f, ok := t.subqueryJoin(j, kind, l, r); ok {
			return f
		}
		t.refuse(j.On, "a subquery in the ON condition of an outer, semi or anti join (here %s) does not run natively: DuckDB evaluates a subquery there only for an inner join; move it into a WHERE clause or a join of its own", strings.ToLower(kind))
	}
	switch {
	case j.On != nil:
		parts = append(parts, " ON ", t.cond(j.On))
	case len(j.Using) > 0:
		names := make([]string, len(j.Using))
		for i, u := range j.Using {
			names[i] = quoteIdent(u.Name)
		}
		parts = append(parts, " USING ("+strings.Join(names, ", ")+")")
	case kind == "INNER" && !natural:
		parts = append(parts, " ON true")
	case kind == "LEFT" || kind == "RIGHT" || kind == "FULL" || kind == "SEMI" || kind == "ANTI":
		if !natural {
			parts = append(parts, " ON true")
		}
	}
	return at(j, nil, cat(parts...))
}

// unaliasedTable reports a table named n (its last name part) without an
// alias among the relations rel joins.
func unaliasedTable(rel ast.Relation, n string) bool {
	switch rel := rel.(type) {
	case *ast.Table:
		return rel.Alias == nil && rel.Name != nil && len(rel.Name.Parts) > 0 && strings.EqualFold(rel.Name.Last().Name, n)
	case *ast.Join:
		return unaliasedTable(rel.L, n) || unaliasedTable(rel.R, n)
	}
	return false
}

// qualifiedBy reports a column of the query qualified by the name n.
func (t *tr) qualifiedBy(n string) bool {
	found := false
	ast.Inspect(t.root, func(x ast.Node) bool {
		if c, ok := x.(*ast.Column); ok && len(c.Parts) >= 2 {
			for _, p := range c.Parts[:len(c.Parts)-1] {
				if strings.EqualFold(p.Name, n) {
					found = true
				}
			}
		}
		if st, ok := x.(*ast.Star); ok && st.Qualifier != nil {
			for _, p := range st.Qualifier.Parts {
				if strings.EqualFold(p.Name, n) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// subqueryJoin translates an outer, semi or anti join whose ON condition
// holds a subquery, which DuckDB evaluates only in an inner join, into a
// form with the same rows where the condition is a WHERE:
//
//	L LEFT JOIN R ON c  ->  L LEFT JOIN LATERAL (SELECT * FROM R WHERE c) AS R ON true
//	L SEMI JOIN R ON c  ->  (SELECT * FROM L WHERE EXISTS (SELECT 1 FROM R WHERE c)) AS L
//	L ANTI JOIN R ON c  ->  (SELECT * FROM L WHERE NOT EXISTS (SELECT 1 FROM R WHERE c)) AS L
//
// Each L row of the left join keeps its matches, or one row of NULLs for
// none; each of the semi (anti) join is kept when some R row satisfies c
// (none does: a NULL condition is no match). The relation moved inside
// keeps its name, so qualified references resolve as before. ok is false
// for the joins it does not rewrite: RIGHT and FULL, NATURAL, a LATERAL
// right side, and a moved side that is not a table or a subquery.
func (t *tr) subqueryJoin(j *ast.Join, kind string, l, r frag) (frag, bool) {
	if j.Natural || j.Lateral {
		return frag{}, false
	}
	if sub := t.correlatedScalar(j); sub != nil {
		// Checked on Spark 4.1.4 (left outer and semi joins).
		t.typeError(sub, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY",
			"Unsupported subquery expression: Correlated scalar subqueries can only be used in filters, aggregations, projections, and UPDATE/MERGE/DELETE commands: %s. SQLSTATE: 0A000", t.text(sub))
		return at(j, nil, cat(l, " CROSS JOIN ", r)), true
	}
	switch kind {
	case "LEFT":
		name, ok := relName(j.R)
		if !ok {
			return frag{}, false
		}
		return at(j, nil, cat(l, " LEFT JOIN LATERAL (SELECT * FROM ", r, " WHERE ", t.cond(j.On), ")", name, " ON true")), true
	case "SEMI", "ANTI":
		if _, bad := j.L.(*ast.BadRelation); bad {
			// |> JOIN: the left side is the pipe's.
			return frag{}, false
		}
		name, ok := relName(j.L)
		if !ok {
			return frag{}, false
		}
		not := ""
		if kind == "ANTI" {
			not = "NOT "
		}
		return at(j, nil, cat("(SELECT * FROM ", l, " WHERE ", not, "EXISTS (SELECT 1 FROM ", r, " WHERE ", t.cond(j.On), "))", name)), true
	case "RIGHT", "FULL":
		return t.flaggedJoin(j, kind, l, r)
	}
	return frag{}, false
}

// correlatedScalar returns a scalar subquery of j's ON condition that
// reads a column of either join input, which Spark's analyzer rejects in
// a join condition; nil when there is none.
func (t *tr) correlatedScalar(j *ast.Join) *ast.Subquery {
	var found *ast.Subquery
	ast.Inspect(j.On, func(n ast.Node) bool {
		sub, ok := n.(*ast.Subquery)
		if !ok || found != nil {
			return found == nil
		}
		ast.Inspect(sub, func(m ast.Node) bool {
			c, ok := m.(*ast.Column)
			if !ok {
				return found == nil
			}
			if ref := t.model.Column(c); ref != nil && ref.Source.Rel != nil && ref.Source.Rel.Node != nil {
				rel := ref.Source.Rel.Node.Span()
				if contains(j.L.Span(), rel) || contains(j.R.Span(), rel) {
					found = sub
				}
			}
			return found == nil
		})
		return found == nil
	})
	return found
}

// relName returns the alias (" AS name") under which a relation moved
// into a subquery keeps the name it is referred to by: its alias, or a
// table's name; "" for a subquery without one. ok is false for the other
// relations and for a LATERAL subquery.
func relName(rel ast.Relation) (string, bool) {
	switch rel := rel.(type) {
	case *ast.Table:
		if rel.Alias != nil {
			return " AS " + quoteIdent(rel.Alias.Name.Name), true
		}
		if rel.Name == nil || len(rel.Name.Parts) == 0 {
			return "", false
		}
		return " AS " + quoteIdent(rel.Name.Last().Name), true
	case *ast.SubqueryRel:
		if rel.Lateral {
			return "", false
		}
		if rel.Alias != nil {
			return " AS " + quoteIdent(rel.Alias.Name.Name), true
		}
		return "", true
	}
	return "", false
}

// tableFunc translates a table-valued function in FROM.
// bothSides rejects, as Spark's analyzer does, a subquery in a join's ON
// condition that reads columns of both join inputs
// (exists-in-join-condition.sql).
func (t *tr) bothSides(j *ast.Join) {
	ast.Inspect(j.On, func(n ast.Node) bool {
		var sub, inner ast.Node
		switch n := n.(type) {
		case *ast.Subquery, *ast.Exists:
			sub, inner = n, n
		case *ast.In:
			if n.Query != nil {
				sub, inner = n, n.Query
			}
		}
		if sub == nil {
			return true
		}
		left, right := false, false
		ast.Inspect(inner, func(m ast.Node) bool {
			c, ok := m.(*ast.Column)
			if !ok {
				return true
			}
			ref := t.model.Column(c)
			if ref == nil || ref.Source.Rel == nil || ref.Source.Rel.Node == nil {
				return true
			}
			rel := ref.Source.Rel.Node.Span()
			switch {
			case contains(j.L.Span(), rel):
				left = true
			case contains(j.R.Span(), rel):
				right = true
			}
			return true
		})
		if left && right {
			t.typeError(sub, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_EXPRESSION_IN_JOIN_CONDITION", "Unsupported subquery expression: Correlated subqueries in the join predicate cannot reference both join inputs: %s. SQLSTATE: 0A000", t.text(sub))
		}
		return false
	})
}

// contains reports whether range a holds range b.
func contains(a, b ast.Range) bool { return a.Start <= b.Start && b.End <= a.End }

func (t *tr) tableFunc(tf *ast.TableFunc) frag {
	c := tf.Call
	name := strings.ToLower(c.Name.String())
	alias := aliasOf(tf.Alias)
	if alias == "" {
		alias = " AS " + quoteIdent(name)
	}
	switch name {
	case "range":
		args := make([]frag, len(c.Args))
		for i, a := range c.Args {
			args[i] = t.castTo(t.expr(a), tBigInt)
		}
		switch len(args) {
		case 1, 2, 3:
		case 4:
			args = args[:3] // the number of partitions does not change the rows
		default:
			t.refuse(c, "range takes 1 to 4 arguments")
			return at(tf, nil, cat("(SELECT NULL)"))
		}
		if len(args) == 1 {
			args = []frag{cat("0"), args[0]}
		}
		return at(tf, nil, cat("(SELECT range AS ", quoteIdent("id"), " FROM range(", args, "))", alias))
	case "stack":
		return t.stackRows(tf, alias)
	}
	if generator(c) != "" {
		var cols []*ast.Ident
		if tf.Alias != nil {
			cols = tf.Alias.Columns
		}
		it := t.generatorItem(c, cols)
		t.relCols[tf] = t.genTypes
		a := ""
		if tf.Alias != nil {
			a = " AS " + quoteIdent(tf.Alias.Name.Name)
		}
		return at(tf, nil, cat("(SELECT ", it, ")", a))
	}
	if !t.duckOnly(c.Name, name, len(c.Args)) {
		t.refuse(c, "the table function %s does not run natively", name)
	}
	return at(tf, nil, cat("(SELECT NULL)"))
}

// lateralView translates LATERAL VIEW [OUTER] gen(args) t AS cols into a
// lateral join.
func (t *tr) lateralView(lv *ast.LateralView) frag {
	if generator(lv.Call) == "" {
		t.refuse(lv.Call, "LATERAL VIEW with %s does not run natively; explode, explode_outer, posexplode, posexplode_outer and inline do", lv.Call.Name.String())
		return at(lv, nil, cat(""))
	}
	it := t.generatorItem(lv.Call, lv.Columns)
	t.relCols[lv] = t.genTypes
	name := "lateral"
	if lv.Table != nil {
		name = lv.Table.Name
	}
	if lv.Outer || strings.HasSuffix(strings.ToLower(lv.Call.Name.String()), "_outer") {
		return at(lv, nil, cat(" LEFT JOIN LATERAL (SELECT ", it, ") AS ", quoteIdent(name), " ON true"))
	}
	return at(lv, nil, cat(" CROSS JOIN LATERAL (SELECT ", it, ") AS ", quoteIdent(name)))
}

// generator names a call's generator (explode, posexplode, inline and
// their _outer forms), or "".
func generator(c *ast.Call) string {
	if n := strings.ToLower(c.Name.String()); moreGenerators[n] {
		return n
	}
	switch n := strings.ToLower(c.Name.String()); n {
	case "explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer":
		return strings.TrimSuffix(n, "_outer")
	}
	return ""
}

// generatorParam is the name of a generator's parameter, as a named
// argument gives it (named-function-arguments.sql).
func generatorParam(g string) string {
	if g == "inline" {
		return "input"
	}
	return "collection"
}

// generatorItem translates a generator call into DuckDB unnest select
// items, named as Spark names the generator's columns (col, pos, key,
// value, the struct's fields) unless cols names them.
func (t *tr) generatorItem(c *ast.Call, cols []*ast.Ident) frag {
	g := generator(c)
	if moreGenerators[g] {
		return t.moreGenerator(g, c, cols)
	}
	outer := strings.HasSuffix(strings.ToLower(c.Name.String()), "_outer")
	if len(c.Args) != 1 {
		t.refuse(c, "%s takes one argument", c.Name.String())
		return at(c, nil, cat("NULL"))
	}
	x := c.Args[0]
	if na, ok := x.(*ast.NamedArg); ok && na.Name != nil && na.Value != nil && na.Name.Name == generatorParam(g) {
		// explode(collection => ...), inline(input => ...): Spark's
		// name of the one parameter.
		x = na.Value
	}
	arg := t.expr(x)
	name := func(i int, def string) string {
		if i < len(cols) {
			return quoteIdent(cols[i].Name)
		}
		return quoteIdent(def)
	}
	// An outer generator of an empty or NULL collection gives one row of
	// NULLs: unnest a list holding one NULL instead.
	list := func(x frag, elem *Type) frag {
		if !outer {
			return x
		}
		return cat("CASE WHEN len(", x, ") > 0 THEN ", x, " ELSE [NULL] END")
	}
	ty := arg.typ
	if ty.has(Null) || ty.has(IntervalKind) {
		t.refuse(c, "a %s of values typed NULL (Spark's VOID) or intervals does not run natively: its columns would have other types than on Spark; cast the values", g)
	}
	t.genTypes = nil
	outputs := 0
	switch {
	case g == "inline" && ty.is(Array) && ty.Elem.is(Struct):
		outputs = len(ty.Elem.Fields)
	case ty.is(Map):
		outputs = 2
	case ty.is(Array):
		outputs = 1
	}
	if g == "posexplode" && outputs > 0 {
		outputs++
	}
	if len(cols) > 0 && outputs > 0 && len(cols) != outputs {
		// Spark's golden files (generators.sql): posexplode(array(a, b))
		// AS elem fails.
		t.typeError(c, "UDTF_ALIAS_NUMBER_MISMATCH", "The number of aliases supplied in the AS clause does not match the number of columns output by the UDTF. Expected %d aliases, but got %d. Please ensure that the number of aliases provided matches the number of columns output by the UDTF. SQLSTATE: 42802", outputs, len(cols))
		return at(c, nil, cat("NULL"))
	}
	switch {
	case g == "inline":
		if !ty.is(Array) || !ty.Elem.is(Struct) {
			t.refuse(c.Args[0], "inline needs an array of structs here, and the type of this argument is %s", ty)
			return at(c, nil, cat("NULL"))
		}
		var items []frag
		for i, f := range ty.Elem.Fields {
			t.genTypes = append(t.genTypes, f.Type)
			items = append(items, cat("unnest(", list(arg, ty.Elem), ")."+quoteIdent(f.Name)+" AS ", name(i, f.Name)))
		}
		return at(c, nil, cat(items))
	case ty.is(Map):
		t.genTypes = []*Type{ty.Key, ty.Val}
		if g == "posexplode" {
			t.genTypes = []*Type{tInt, ty.Key, ty.Val}
			return at(c, nil, cat("CAST(unnest(generate_series(0, CAST(cardinality(", arg, ") AS INTEGER) - 1)) AS INTEGER) AS ", name(0, "pos"),
				", unnest(map_keys(", arg, ")) AS ", name(1, "key"), ", unnest(map_values(", arg, ")) AS ", name(2, "value")))
		}
		if outer {
			return at(c, nil, cat("unnest(", list(cat("map_keys(", arg, ")"), ty.Key), ") AS ", name(0, "key"),
				", unnest(", list(cat("map_values(", arg, ")"), ty.Val), ") AS ", name(1, "value")))
		}
		return at(c, nil, cat("unnest(map_keys(", arg, ")) AS ", name(0, "key"), ", unnest(map_values(", arg, ")) AS ", name(1, "value")))
	case ty.is(Array):
		t.genTypes = []*Type{ty.Elem}
		if g == "posexplode" {
			t.genTypes = []*Type{tInt, ty.Elem}
			pos := cat("generate_series(0, CAST(len(", arg, ") AS INTEGER) - 1)")
			if outer {
				pos = cat("CASE WHEN len(", arg, ") > 0 THEN generate_series(0, CAST(len(", arg, ") AS INTEGER) - 1) ELSE [NULL] END")
			}
			return at(c, nil, cat("CAST(unnest(", pos, ") AS INTEGER) AS ", name(0, "pos"), ", unnest(", list(arg, ty.Elem), ") AS ", name(1, "col")))
		}
		return at(c, nil, cat("unnest(", list(arg, ty.Elem), ") AS ", name(0, "col")))
	}
	if !ty.known() {
		// A run that knows the type (the sample's, as DuckDB reads it)
		// translates it: plain --check leaves this to the run.
		t.refuse(c.Args[0], "%s needs an array or a map, and the type of this argument is not known here", c.Name.String())
		return at(c, nil, cat("NULL"))
	}
	t.refuse(c.Args[0], "%s needs an array or a map, and the type of this argument is %s", c.Name.String(), ty)
	return at(c, nil, cat("NULL"))
}

func (t *tr) groupBy(g *ast.GroupBy) frag {
	saved, proj := t.groupCanon, t.projecting
	t.groupCanon = map[string]ast.Expr{}
	// Grouping expressions are the aggregate's, computed as its SELECT
	// items are (an IN (subquery) as an existence join).
	t.projecting = true
	defer func() { t.groupCanon, t.projecting = saved, proj }()
	items := t.groupItems(g.Items)
	switch g.With {
	case "ROLLUP":
		items = cat("ROLLUP (", items, ")")
	case "CUBE":
		items = cat("CUBE (", items, ")")
	}
	if len(g.GroupingSets) > 0 {
		t.mixedOrdinals(&ast.GroupItem{Range: g.Range, Kind: "GROUPING SETS", Items: g.GroupingSets})
		// Spark's GROUP BY a, b GROUPING SETS (...) groups by the sets
		// alone (the list before only names the columns); DuckDB's
		// GROUP BY a, b, GROUPING SETS (...) would cross them.
		items = cat("GROUPING SETS (", t.groupItems(g.GroupingSets), ")")
	}
	return at(g, nil, items)
}

// mixedOrdinals refuses GROUPING SETS that mix ordinals with other
// expressions: Spark reads GROUPING SETS ((1), (b), (a, 2)) as columns
// 1 and 2, DuckDB then reads the numbers as constants (all ordinals, as
// in GROUPING SETS ((1), (2)), agree).
func (t *tr) mixedOrdinals(g *ast.GroupItem) {
	var ords []*ast.Literal
	others := 0
	var walk func(items []*ast.GroupItem)
	walk = func(items []*ast.GroupItem) {
		for _, it := range items {
			if it.Kind != "" {
				walk(it.Items)
				continue
			}
			if l, ok := it.X.(*ast.Literal); ok && l.Kind == ast.LitInteger {
				ords = append(ords, l)
			} else {
				others++
			}
		}
	}
	walk(g.Items)
	if len(ords) > 0 && others > 0 {
		t.refuse(ords[0], "GROUPING SETS mixing ordinals with other expressions do not run natively (DuckDB then reads the numbers as constants); name the columns")
	}
}

// commutative are the operators whose operands Spark's canonical form of
// an expression orders.
var commutative = map[string]bool{"+": true, "*": true, "AND": true, "OR": true, "=": true, "==": true, "<=>": true, "&": true, "|": true, "^": true}

// canonical is a text of x equal for expressions Spark takes as the same
// grouping expression: parentheses dropped, a commutative operator's
// operands in text order, names in lower case.
func canonical(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.Paren:
		return canonical(x.X)
	case *ast.Binary:
		op := strings.ToUpper(x.Op)
		l, r := canonical(x.L), canonical(x.R)
		if commutative[op] && r < l {
			l, r = r, l
		}
		if op == "==" {
			op = "="
		}
		return "(" + l + " " + op + " " + r + ")"
	}
	return strings.ToLower(ast.Format(x))
}

func (t *tr) groupItems(items []*ast.GroupItem) frag {
	fs := make([]frag, len(items))
	for i, it := range items {
		switch it.Kind {
		case "":
			if c, ok := it.X.(*ast.Column); ok && len(c.Parts) == 1 && strings.EqualFold(c.Parts[0].Name, "ALL") && !c.Parts[0].Quoted {
				if ref := t.model.Column(c); ref == nil || ref.Kind != sema.RefColumn || ref.Outer > 0 {
					fs[i] = at(it, nil, cat("ALL"))
					continue
				}
			}
			x := it.X
			if c, ok := x.(*ast.Column); ok {
				if ref := t.model.Column(c); ref != nil && ref.Kind == sema.RefAlias && ref.Alias != nil && ref.Alias.X != nil && len(ref.Alias.Aliases) == 0 && !isLiteral(ref.Alias.X) {
					// GROUP BY an alias groups by the aliased expression
					// (written out: DuckDB cannot tell two items of one
					// alias apart, group-by-alias.sql); not a literal,
					// which DuckDB would read as an ordinal.
					x = ref.Alias.X
				}
			}
			if t.groupCanon != nil {
				// Spark takes grouping expressions that differ only in
				// the order of a commutative operator's operands (a + b,
				// b + a) as one; DuckDB as two, so the SELECT's a + b
				// would be NULL in the set of b + a (grouping_set.sql).
				k := canonical(x)
				if first, ok := t.groupCanon[k]; ok {
					x = first
				} else {
					t.groupCanon[k] = x
				}
			}
			fs[i] = at(it, nil, t.raw(x))
		case "GROUPING SETS":
			t.mixedOrdinals(it)
			fs[i] = at(it, nil, cat(it.Kind, " (", t.groupItems(it.Items), ")"))
		case "SET":
			fs[i] = at(it, nil, cat("(", t.groupItems(it.Items), ")"))
		default:
			fs[i] = at(it, nil, cat(it.Kind, " (", t.groupItems(it.Items), ")"))
		}
	}
	return cat(fs)
}

// sortItems translates ORDER BY items, with Spark's NULL ordering made
// explicit (NULLS FIRST ascending, NULLS LAST descending; DuckDB's
// default puts NULLs last both ways).
// sortKeys drops the ORDER BY keys that are literals other than an
// integer (ORDER BY 'k', ORDER BY true): Spark sorts by the constant, which
// orders nothing, and DuckDB refuses such a key.
func sortKeys(items []*ast.SortItem) []*ast.SortItem {
	var keys []*ast.SortItem
	for _, it := range items {
		if l, ok := it.X.(*ast.Literal); ok {
			switch l.Kind {
			case ast.LitString, ast.LitTrue, ast.LitFalse, ast.LitNull, ast.LitDecimal, ast.LitExponent, ast.LitFloat, ast.LitDouble, ast.LitBigDecimal:
				continue
			}
		}
		keys = append(keys, it)
	}
	return keys
}

func (t *tr) sortItems(items []*ast.SortItem) frag {
	fs := make([]frag, len(items))
	for i, it := range items {
		dir := it.Dir
		if dir == "" {
			dir = "ASC"
		}
		nulls := it.Nulls
		if nulls == "" {
			nulls = "FIRST"
			if dir == "DESC" {
				nulls = "LAST"
			}
		}
		if c, ok := it.X.(*ast.Column); ok && len(c.Parts) == 1 && strings.EqualFold(c.Parts[0].Name, "ALL") && !c.Parts[0].Quoted {
			if ref := t.model.Column(c); len(items) == 1 && (ref == nil || ref.Kind != sema.RefColumn && ref.Kind != sema.RefAlias || ref.Outer > 0) {
				// ORDER BY ALL: every output column, in order. A column
				// named all of an outer query does not count: Spark
				// reads ALL before it looks outside the subquery
				// (column-resolution-sort.sql).
				fs[i] = at(it, nil, cat(fmt.Sprintf("ALL %s NULLS %s", dir, nulls)))
				continue
			}
		}
		fs[i] = at(it, nil, cat(t.raw(it.X), fmt.Sprintf(" %s NULLS %s", dir, nulls)))
	}
	return cat(fs)
}

// windowBody translates a window definition (inside its parentheses).
func (t *tr) windowBody(w *ast.Window) frag {
	var parts []any
	if w.Ref != nil {
		parts = append(parts, quoteIdent(w.Ref.Name))
	}
	if len(w.PartitionBy) > 0 {
		ps := make([]frag, len(w.PartitionBy))
		for i, p := range w.PartitionBy {
			ps[i] = t.expr(p)
		}
		parts = append(parts, " PARTITION BY ", ps)
	}
	if len(w.OrderBy) > 0 {
		parts = append(parts, " ORDER BY ", t.sortItems(w.OrderBy))
	}
	if w.Frame != nil {
		f := w.Frame
		for _, b := range []*ast.FrameBound{f.Start, f.End} {
			if b == nil || !strings.EqualFold(f.Unit, "ROWS") {
				continue
			}
			if l, ok := b.Offset.(*ast.Literal); ok && l.Kind == ast.LitInteger {
				// A ROWS bound is an INT on Spark: a larger number is a
				// BIGINT, which its analyzer rejects.
				if n, err := strconv.ParseInt(l.Text, 10, 64); err == nil && (n > math.MaxInt32 || n < math.MinInt32) {
					t.typeError(b, "DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE", "Cannot resolve the window frame: the data type of its bound %s is \"BIGINT\", and ROWS takes \"INT\". SQLSTATE: 42K09", l.Text)
				}
			}
		}
		parts = append(parts, " "+f.Unit+" BETWEEN ", t.bound(f.Start), " AND ")
		if f.End != nil {
			parts = append(parts, t.bound(f.End))
		} else {
			parts = append(parts, "CURRENT ROW")
		}
		t.rangeFrameTypes(w)
	}
	return cat(parts...)
}

func (t *tr) bound(b *ast.FrameBound) frag {
	if b.Offset != nil {
		return at(b, nil, cat(t.raw(b.Offset), " "+b.Kind))
	}
	return at(b, nil, cat(b.Kind))
}

// analyticGroups reports a GROUP BY with ROLLUP, CUBE or GROUPING SETS,
// where grouping() is defined.
func analyticGroups(g *ast.GroupBy) bool {
	if g == nil {
		return false
	}
	if g.With != "" || len(g.GroupingSets) > 0 {
		return true
	}
	for _, it := range g.Items {
		if it.Kind != "" {
			return true
		}
	}
	return false
}

// isLiteral reports a literal, in parentheses or not.
func isLiteral(x ast.Expr) bool {
	_, ok := unparenExpr(x).(*ast.Literal)
	return ok
}
