package translate

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
)

// naturalWithoutCommon reports a NATURAL join whose sides share no
// column name, as far as the model knows every column of both: Spark
// joins such sides on nothing (an inner NATURAL JOIN is a cross join,
// checked on Spark 4.1.4), where DuckDB refuses the join.
func (t *tr) naturalWithoutCommon(j *ast.Join) bool {
	if !j.Natural {
		return false
	}
	l, lok := t.visibleNames(j.L)
	r, rok := t.visibleNames(j.R)
	if !lok || !rok || len(l) == 0 || len(r) == 0 {
		return false
	}
	for n := range l {
		if r[n] {
			return false
		}
	}
	return true
}

// visibleNames returns the lower-cased names of the columns a FROM item
// gives a join, and whether the model knows all of them.
func (t *tr) visibleNames(rel ast.Relation) (map[string]bool, bool) {
	names := map[string]bool{}
	var walk func(r ast.Relation) bool
	walk = func(r ast.Relation) bool {
		switch r := r.(type) {
		case *ast.Join:
			if !walk(r.L) {
				return false
			}
			if r.Kind == "LEFT SEMI" || r.Kind == "LEFT ANTI" || r.Kind == "SEMI" || r.Kind == "ANTI" {
				return true
			}
			return walk(r.R)
		case *ast.ParenRel:
			if r.Alias == nil {
				return walk(r.Rel)
			}
		case nil:
			return false
		}
		for _, m := range t.model.Relations {
			if m.Node != ast.Node(r) {
				continue
			}
			if !m.Complete {
				return false
			}
			for _, c := range m.Columns {
				names[strings.ToLower(c.Name)] = true
			}
			return true
		}
		return false
	}
	if !walk(rel) {
		return nil, false
	}
	return names, true
}

// onFlag is a conjunct of an outer join's ON condition computed as a
// column of one join input (flaggedJoin): the relation's name, as a
// qualified star names it, and the column's.
type onFlag struct {
	qual, name string
}

// andTerms splits a condition into its AND-ed terms.
func andTerms(x ast.Expr) []ast.Expr {
	if b, ok := unparenExpr(x).(*ast.Binary); ok && strings.EqualFold(b.Op, "AND") {
		return append(andTerms(b.L), andTerms(b.R)...)
	}
	return []ast.Expr{x}
}

// termSide says which input of join j the columns of term, read outside
// the subqueries of term, belong to: 'L', 'R', 0 for none, or '?' when
// they belong to both or are not known; outer says term reads a column
// of a query around the join's (a correlation).
func (t *tr) termSide(j *ast.Join, term ast.Expr) (side byte, outer bool) {
	var subs []ast.Range
	ast.Inspect(term, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Subquery:
			subs = append(subs, n.Query.Span())
		case *ast.Exists:
			subs = append(subs, n.Query.Span())
		case *ast.In:
			if n.Query != nil {
				subs = append(subs, n.Query.Span())
			}
		}
		return true
	})
	inside := func(r ast.Range) bool {
		for _, s := range subs {
			if contains(s, r) {
				return true
			}
		}
		return false
	}
	note := func(s byte) {
		switch {
		case side == 0:
			side = s
		case side != s:
			side = '?'
		}
	}
	ast.Inspect(term, func(n ast.Node) bool {
		c, ok := n.(*ast.Column)
		if !ok {
			return true
		}
		ref := t.model.Column(c)
		switch {
		case ref == nil:
			note('?')
		case ref.Kind == sema.RefLambda:
		case ref.Kind != sema.RefColumn || ref.Source.Rel == nil || ref.Source.Rel.Node == nil:
			note('?')
		default:
			rel := ref.Source.Rel.Node.Span()
			switch {
			case inside(rel):
			case contains(j.L.Span(), rel):
				note('L')
			case contains(j.R.Span(), rel):
				note('R')
			case ref.Outer >= 1 && !inside(c.Span()):
				outer = true
			default:
				note('?')
			}
		}
		return true
	})
	return side, outer
}

// correlatedOn reports an ON condition of j that reads a column of a
// query around the join's, outside its subqueries: DuckDB does not
// decorrelate such an outer join ("Non-inner join on correlated
// columns").
func (t *tr) correlatedOn(j *ast.Join) bool {
	if j.On == nil {
		return false
	}
	for _, term := range andTerms(j.On) {
		if _, outer := t.termSide(j, term); outer {
			return true
		}
	}
	return false
}

// flaggedJoin translates a RIGHT or FULL join whose ON condition holds a
// subquery, which DuckDB evaluates in the ON of an inner join only, and
// an outer join whose ON reads a column of a query around it, which
// DuckDB does not decorrelate. Each AND-ed term holding a subquery or
// such a column that reads one input alone (besides the subquery's own
// tables and the outer query's) becomes a column of that input, computed
// for each of its rows:
//
//	L RIGHT JOIN R ON a AND p(R)  ->  L RIGHT JOIN (SELECT *, p(R) AS f FROM R) AS R ON a AND R.f
//
// which pairs the same rows, since the term's value depends on the R row
// alone (a NULL is no match, as before). The stars of the SELECT over the
// join leave the flag out (hiddenUnder). ok is false where it does not
// apply: a term reading both inputs, an input that is not a table or a
// subquery, NATURAL, LATERAL, a pipe's JOIN, a
// join under PIVOT or UNPIVOT.
func (t *tr) flaggedJoin(j *ast.Join, kind string, l, r frag) (frag, bool) {
	if j.Natural || j.Lateral || t.pivoting {
		return frag{}, false
	}
	if _, bad := j.L.(*ast.BadRelation); bad || t.hasPipe() {
		return frag{}, false
	}
	var flagsL, flagsR, rest []frag
	var flags []onFlag
	lname, lok := relName(j.L)
	rname, rok := relName(j.R)
	for _, term := range andTerms(j.On) {
		side, outer := t.termSide(j, term)
		if !hasSubquery(term) && !outer {
			rest = append(rest, cat("(", t.cond(term), ")"))
			continue
		}
		if side == 0 {
			side = 'L'
		}
		name := "__thund_on" + strconv.Itoa(len(t.onFlags)+len(flags)+1)
		switch {
		case side == 'L' && lok:
			flagsL = append(flagsL, cat("(", t.cond(term), ") AS ", quoteIdent(name)))
			flags = append(flags, onFlag{qual: rawRelName(j.L), name: name})
			rest = append(rest, cat(qualified(lname, name)))
		case side == 'R' && rok:
			flagsR = append(flagsR, cat("(", t.cond(term), ") AS ", quoteIdent(name)))
			flags = append(flags, onFlag{qual: rawRelName(j.R), name: name})
			rest = append(rest, cat(qualified(rname, name)))
		default:
			return frag{}, false
		}
	}
	if len(flagsL) > 0 {
		l = cat("(SELECT *, ", flagsL, " FROM ", l, ")", lname)
	}
	if len(flagsR) > 0 {
		r = cat("(SELECT *, ", flagsR, " FROM ", r, ")", rname)
	}
	t.onFlags = append(t.onFlags, flags...)
	if t.joinFlags == nil {
		t.joinFlags = map[*ast.Join][]onFlag{}
	}
	t.joinFlags[j] = flags
	return at(j, nil, cat(l, " "+kind+" JOIN ", r, " ON ", join(rest, " AND "))), true
}

// qualified is the reference to column name of the relation moved under
// alias (" AS name", or "" for none).
func qualified(alias, name string) string {
	if alias == "" {
		return quoteIdent(name)
	}
	return strings.TrimPrefix(alias, " AS ") + "." + quoteIdent(name)
}

// rawRelName is the name a qualified star gives relation rel (relName's,
// unquoted): its alias, or a table's name.
func rawRelName(rel ast.Relation) string {
	switch rel := rel.(type) {
	case *ast.Table:
		if rel.Alias != nil {
			return rel.Alias.Name.Name
		}
		if rel.Name != nil && len(rel.Name.Parts) > 0 {
			return rel.Name.Last().Name
		}
	case *ast.SubqueryRel:
		if rel.Alias != nil {
			return rel.Alias.Name.Name
		}
	}
	return ""
}

// flagsUnder returns the flag columns (flaggedJoin) of the joins under
// FROM item r that a star qualified by qual ("" for none) expands over.
func (t *tr) flagsUnder(r ast.Relation, qual string) []string {
	var out []string
	var walk func(r ast.Relation, all bool)
	walk = func(r ast.Relation, all bool) {
		switch r := r.(type) {
		case *ast.Join:
			for _, f := range t.joinFlags[r] {
				if all || strings.EqualFold(f.qual, qual) {
					out = append(out, f.name)
				}
			}
			walk(r.L, all)
			walk(r.R, all)
		case *ast.ParenRel:
			if r.Alias != nil {
				// (x RIGHT JOIN y ON ...) AS p: p.* holds the flags too.
				walk(r.Rel, all || strings.EqualFold(r.Alias.Name.Name, qual))
				return
			}
			walk(r.Rel, all)
		}
	}
	walk(r, qual == "")
	return out
}

// hasPipe reports a pipe operator in the query translated, whose stars
// the flags of flaggedJoin would not be left out of.
func (t *tr) hasPipe() bool {
	found := false
	ast.Inspect(t.root, func(n ast.Node) bool {
		if _, ok := n.(*ast.Pipe); ok {
			found = true
		}
		return !found
	})
	return found
}

// outerStar translates t.* in a subquery where t is no FROM item of the
// subquery's SELECT but a relation around it (the FROM items before a
// LATERAL subquery): t's columns, each qualified, as Spark expands it;
// DuckDB expands no star of an outer relation. ok is false when t is a
// FROM item of the SELECT itself, or when the model does not know the
// relation's columns.
func (t *tr) outerStar(st *ast.Star) (frag, bool) {
	if st.Qualifier == nil || len(st.Qualifier.Parts) != 1 || len(st.Except) > 0 {
		return frag{}, false
	}
	q := st.Qualifier.Parts[0].Name
	s := t.selectOf(st)
	if s == nil || s.From == nil || t.fromNames(s.From)[strings.ToLower(q)] {
		return frag{}, false
	}
	out := t.model.Output(s)
	if out == nil {
		return frag{}, false
	}
	var rel *sema.Relation
	for _, c := range out.Columns {
		if c.Item == nil && c.Expr == nil && c.Source != nil && c.Source.Rel != nil && strings.EqualFold(c.Source.Rel.Name, q) {
			rel = c.Source.Rel
			break
		}
	}
	if rel == nil || !rel.Complete || len(rel.Columns) == 0 || within(rel.Node, s.From) {
		return frag{}, false
	}
	cols := make([]string, len(rel.Columns))
	for i, c := range rel.Columns {
		cols[i] = quoteIdent(q) + "." + quoteIdent(c.Name)
	}
	return at(st, nil, cat(strings.Join(cols, ", "))), true
}

// fromNames returns the lower-cased names a qualified star may give the
// FROM items of f: aliases and table names, through joins and
// parentheses.
func (t *tr) fromNames(f *ast.From) map[string]bool {
	names := map[string]bool{}
	var walk func(r ast.Relation)
	walk = func(r ast.Relation) {
		switch r := r.(type) {
		case *ast.Join:
			walk(r.L)
			walk(r.R)
		case *ast.ParenRel:
			if r.Alias != nil {
				names[strings.ToLower(r.Alias.Name.Name)] = true
				return
			}
			walk(r.Rel)
		case *ast.TableFunc:
			if r.Alias != nil {
				names[strings.ToLower(r.Alias.Name.Name)] = true
			} else {
				names[strings.ToLower(r.Call.Name.String())] = true
			}
		case *ast.Values:
			if r.Alias != nil {
				names[strings.ToLower(r.Alias.Name.Name)] = true
			}
		default:
			if n := rawRelName(r); n != "" {
				names[strings.ToLower(n)] = true
			} else {
				// A relation of unknown name: it may be the one.
				names[""] = true
			}
		}
	}
	for _, r := range f.Relations {
		walk(r)
	}
	for _, lv := range f.LateralViews {
		if lv.Table != nil {
			names[strings.ToLower(lv.Table.Name)] = true
		}
	}
	return names
}

// inlinedCTE returns the CTE a table read names when the read lies in
// an IN (subquery) that lies in another subquery: DuckDB fails to bind
// an IN whose left side is an outer column there when the IN's query
// reads a CTE ("INTERNAL Error: Failed to bind column reference"), and
// runs it when the CTE's query is written in its place. Spark's result is
// the same either way (a CTE that is not recursive is its query). nil
// otherwise.
func (t *tr) inlinedCTE(r *ast.Table) *ast.CTE {
	ref := t.model.Table(r)
	if ref == nil || ref.Kind != sema.TableCTE || ref.CTE == nil || ref.CTE.Query == nil || t.root == nil {
		return nil
	}
	span := r.Span()
	var ins, subs []ast.Range
	recursive := false
	ast.Inspect(t.root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.With:
			if n.Recursive {
				for _, c := range n.CTEs {
					recursive = recursive || c == ref.CTE
				}
			}
		case *ast.In:
			if n.Query != nil {
				ins = append(ins, n.Query.Span())
				subs = append(subs, n.Query.Span())
			}
		case *ast.Subquery:
			subs = append(subs, n.Query.Span())
		case *ast.Exists:
			subs = append(subs, n.Query.Span())
		case *ast.SubqueryRel:
			if n.Lateral {
				subs = append(subs, n.Query.Span())
			}
		}
		return true
	})
	if recursive || contains(ref.CTE.Query.Span(), span) {
		return nil
	}
	for _, in := range ins {
		if !contains(in, span) {
			continue
		}
		for _, s := range subs {
			if s != in && contains(s, in) {
				return ref.CTE
			}
		}
	}
	return nil
}

// cteInline translates a read of CTE c in place: its query, under the
// read's alias or the CTE's name, with the CTE's column names.
func (t *tr) cteInline(r *ast.Table, c *ast.CTE) frag {
	alias := aliasOf(r.Alias)
	if alias == "" {
		alias = " AS " + quoteIdent(c.Name.Name)
		if len(c.Columns) > 0 {
			names := make([]string, len(c.Columns))
			for i, id := range c.Columns {
				names[i] = quoteIdent(id.Name)
			}
			alias += "(" + strings.Join(names, ", ") + ")"
		}
	} else if len(r.Alias.Columns) == 0 && len(c.Columns) > 0 {
		names := make([]string, len(c.Columns))
		for i, id := range c.Columns {
			names[i] = quoteIdent(id.Name)
		}
		alias += "(" + strings.Join(names, ", ") + ")"
	}
	return at(r, nil, cat("(", t.query(c.Query), ")", alias))
}

// leftCorrelated reports a join whose left input reads a column of a
// query around it (a join inside a correlated or LATERAL subquery) while
// its right input and condition do not: Spark refuses a correlation under
// the right side of a semi or anti join
// (ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED, join-lateral.sql).
func (t *tr) leftCorrelated(j *ast.Join) bool {
	outer := func(n ast.Node) bool {
		span := j.Span()
		found := false
		ast.Inspect(n, func(m ast.Node) bool {
			c, ok := m.(*ast.Column)
			if !ok || found {
				return !found
			}
			ref := t.model.Column(c)
			if ref != nil && ref.Kind == sema.RefColumn && ref.Outer >= 1 && ref.Source.Rel != nil && ref.Source.Rel.Node != nil && !contains(span, ref.Source.Rel.Node.Span()) {
				found = true
			}
			return !found
		})
		return found
	}
	return outer(j.L) && !outer(j.R) && (j.On == nil || !outer(j.On))
}
