package sema

import (
	"sort"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/internal/editdist"
)

// The error classes of the diagnostics, as Spark names them.
const (
	CodeUnresolvedColumn   = "UNRESOLVED_COLUMN"
	CodeAmbiguous          = "AMBIGUOUS_REFERENCE"
	CodeMissingAggregation = "MISSING_AGGREGATION"
	CodeMissingGroupBy     = "MISSING_GROUP_BY"
	CodeFieldNotFound      = "FIELD_NOT_FOUND"
)

// report records a diagnostic, unless the statement's names may be
// local variables or parameters the model cannot see.
func (a *analyzer) report(d Diagnostic) {
	if !a.quiet {
		a.m.Diagnostics = append(a.m.Diagnostics, d)
	}
}

// quote writes a name as Spark's messages do: `name`.
func quote(s string) string { return "`" + s + "`" }

// partsText returns the parts of a reference joined by dots.
func partsText(parts []string) string { return strings.Join(parts, ".") }

// quoteParts writes a multi-part name as Spark does in its messages, each
// part in backquotes: `t`.`c`.
func quoteParts(parts []string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = quote(p)
	}
	return strings.Join(q, ".")
}

// display returns how a column of a scope is best written: qualified by
// its relation's last qualifier part when it has one.
func display(at attr) string {
	if len(at.qual) > 0 {
		return at.qual[len(at.qual)-1] + "." + at.name
	}
	return at.name
}

// unresolved reports a column reference that certainly resolves to
// nothing, with the nearest names in scope.
func (a *analyzer) unresolved(ref *ColumnRef, parts []string, c ctx) {
	lvls := c.levels(nil)
	var msg strings.Builder
	var sugg []string
	msg.WriteString("unknown column " + quoteParts(parts))

	// a qualified reference whose qualifier names a relation in scope:
	// that relation lacks the column
	if len(parts) >= 2 {
		for k := min(len(parts)-1, 3); k >= 1; k-- {
			var rel []attr
			for _, lv := range lvls {
				rel = append(rel, a.qualified(lv.sc, parts[:k])...)
			}
			if len(rel) == 0 {
				continue
			}
			q := partsText(parts[:k])
			msg.WriteString(": " + quoteParts(parts[:k]) + " has no column " + quote(parts[k]))
			var names []string
			for _, at := range rel {
				if !at.hidden {
					names = append(names, at.name)
				}
			}
			for _, n := range nearest(parts[k], names, 3) {
				sugg = append(sugg, q+"."+n)
			}
			a.finishUnresolved(ref, &msg, sugg, names)
			return
		}
	}

	// every column in scope, written as the user would write it
	var all []attr
	for _, lv := range lvls {
		if lv.sc != nil {
			all = append(all, lv.sc.visible()...)
		}
	}
	counts := map[string]int{}
	for _, at := range all {
		counts[strings.ToLower(at.name)]++
	}
	written := func(at attr) string {
		if counts[strings.ToLower(at.name)] > 1 {
			return display(at)
		}
		return at.name
	}
	var names []string
	seen := map[string]bool{}
	for _, at := range all {
		w := written(at)
		if !seen[w] {
			seen[w] = true
			names = append(names, w)
		}
	}
	if len(parts) >= 2 {
		// neither a relation nor a struct column is called parts[0]
		msg.WriteString(": no table, alias or column named " + quote(parts[0]) + " is in scope")
		var rels []string
		relCols := map[string][]string{}
		for _, at := range all {
			if len(at.qual) > 0 {
				q := at.qual[len(at.qual)-1]
				if _, ok := relCols[q]; !ok {
					rels = append(rels, q)
				}
				relCols[q] = append(relCols[q], at.name)
			}
		}
		for _, q := range nearest(parts[0], rels, 2) {
			for _, n := range relCols[q] {
				if a.eqName(n, parts[1]) {
					sugg = append(sugg, q+"."+n)
				}
			}
		}
		if len(sugg) == 0 {
			for _, n := range nearest(parts[len(parts)-1], names, 3) {
				sugg = append(sugg, n)
			}
		}
		a.finishUnresolved(ref, &msg, sugg, nil)
		return
	}
	var bare []string
	for _, at := range all {
		bare = append(bare, at.name)
	}
	for _, n := range nearest(parts[0], bare, 3) {
		for _, at := range all {
			if at.name == n {
				if w := written(at); !contains(sugg, w) {
					sugg = append(sugg, w)
				}
			}
		}
	}
	if len(sugg) > 3 {
		sugg = sugg[:3]
	}
	if c.clause == "WHERE" && a.contains(c.whereAliases, parts[0]) {
		msg.WriteString(": " + quote(parts[0]) + " is an alias of the select list, which WHERE cannot see " +
			"(repeat the expression, or filter in an outer query)")
		a.finishUnresolved(ref, &msg, nil, nil)
		return
	}
	a.finishUnresolved(ref, &msg, sugg, names)
}

// unknownName reports a column named outside an expression (* EXCEPT,
// a pipe's SET and DROP, PIVOT ... FOR, UNPIVOT ... IN) that none of
// attrs has; the caller has checked that attrs are all the columns.
func (a *analyzer) unknownName(r ast.Range, id *ast.Ident, attrs []attr, clause string) {
	var names []string
	for _, at := range attrs {
		if !at.hidden && !contains(names, at.name) {
			names = append(names, at.name)
		}
	}
	if id.Quoted && anyFuzz(attrs) {
		return
	}
	var msg strings.Builder
	msg.WriteString("unknown column " + quote(id.Name) + " in " + clause)
	ref := &ColumnRef{Node: &ast.Column{Range: r}}
	a.finishUnresolved(ref, &msg, nearest(id.Name, names, 3), names)
}

// anyFuzz reports whether an attr's name is not certain.
func anyFuzz(attrs []attr) bool {
	for _, at := range attrs {
		if at.fuzzy != sure {
			return true
		}
	}
	return false
}

// finishUnresolved ends the message with the suggestions (or, when
// there are none, the columns in scope if they are few) and records the
// diagnostic.
func (a *analyzer) finishUnresolved(ref *ColumnRef, msg *strings.Builder, sugg, inScope []string) {
	switch {
	case len(sugg) == 1:
		msg.WriteString("; did you mean " + quote(sugg[0]) + "?")
	case len(sugg) > 1:
		q := make([]string, len(sugg))
		for i, s := range sugg {
			q[i] = quote(s)
		}
		msg.WriteString("; did you mean one of " + strings.Join(q, ", ") + "?")
	case len(inScope) == 0:
	case len(inScope) <= 8:
		q := make([]string, len(inScope))
		for i, s := range inScope {
			q[i] = quote(s)
		}
		msg.WriteString(" (the columns here are " + strings.Join(q, ", ") + ")")
	}
	a.report(Diagnostic{Range: ref.Node.Range, Code: CodeUnresolvedColumn,
		Message: msg.String(), Suggestions: sugg})
}

// ambiguous reports a reference several columns could be.
func (a *analyzer) ambiguous(ref *ColumnRef, cands []attr) {
	var names []string
	unnamed := false
	for _, at := range cands {
		d := display(at)
		if len(at.qual) == 0 {
			unnamed = true
			d += " (of a subquery without an alias)"
		}
		names = append(names, quote(d))
	}
	var parts []string
	for _, p := range ref.Node.Parts[:ref.NameParts] {
		parts = append(parts, p.Name)
	}
	msg := "column " + quoteParts(parts) + " is ambiguous: it could be " + orList(names) + "; "
	if unnamed {
		msg += "give the subqueries aliases and qualify the column"
	} else {
		msg += "qualify it with the table or alias it comes from"
	}
	var sugg []string
	for _, at := range cands {
		if len(at.qual) > 0 {
			sugg = append(sugg, display(at))
		}
	}
	a.report(Diagnostic{Range: ref.Node.Range, Code: CodeAmbiguous,
		Message: msg, Suggestions: sugg})
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// missingAggregation reports a column of a grouping query's select list
// that is neither grouped nor aggregated; without GROUP BY (an aggregate
// makes the query one group) Spark calls it MISSING_GROUP_BY.
func (a *analyzer) missingAggregation(ref *ColumnRef, groupBy bool) {
	var parts []string
	for _, p := range ref.Node.Parts {
		parts = append(parts, p.Name)
	}
	n := partsText(parts)
	code := CodeMissingAggregation
	msg := quote(n) + " is neither in GROUP BY nor inside an aggregate function: add it to GROUP BY, " +
		"aggregate it, or write any_value(" + n + ") if any value of each group will do"
	if !groupBy {
		code = CodeMissingGroupBy
		msg = quote(n) + " is not inside an aggregate function, and the aggregates make the query one group: " +
			"add GROUP BY " + n + ", aggregate it, or write any_value(" + n + ")"
	}
	a.report(Diagnostic{Range: ref.Node.Range, Code: code,
		Message: msg, Suggestions: []string{"any_value(" + n + ")"}})
}

// fieldNotFound reports a struct field the column's type does not have.
func (a *analyzer) fieldNotFound(ref *ColumnRef, path, field string, fields []string) {
	msg := "struct " + quote(path) + " has no field " + quote(field)
	sugg := nearest(field, fields, 3)
	for i := range sugg {
		sugg[i] = path + "." + sugg[i]
	}
	switch {
	case len(sugg) == 1:
		msg += "; did you mean " + quote(sugg[0]) + "?"
	case len(sugg) > 1:
		q := make([]string, len(sugg))
		for i, s := range sugg {
			q[i] = quote(s)
		}
		msg += "; did you mean one of " + strings.Join(q, ", ") + "?"
	case len(fields) <= 8:
		q := make([]string, len(fields))
		for i, s := range fields {
			q[i] = quote(s)
		}
		msg += " (its fields are " + strings.Join(q, ", ") + ")"
	}
	a.report(Diagnostic{Range: ref.Node.Range, Code: CodeFieldNotFound,
		Message: msg, Suggestions: sugg})
}

// contains reports whether list has s exactly.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Nearest is the candidate closest to name by edit distance when it is a
// plausible typo (nearest's rule), or "": the did-you-mean of a name
// checked outside sema (a PARTITIONED BY column, say).
func Nearest(name string, candidates []string) string {
	if near := nearest(name, candidates, 1); len(near) > 0 {
		return near[0]
	}
	return ""
}

// nearest returns up to n candidates closest to name by edit distance
// (ignoring case, a swap of neighbours counting as one edit), nearest
// first, among those close enough to be a plausible typo: at most one
// edit for names up to five characters, a third of the length for
// longer ones. An exact match is left out (one differing only in case is
// the nearest: under spark.sql.caseSensitive it is the likely fix).
func nearest(name string, candidates []string, n int) []string {
	limit := max(1, len([]rune(name))/3)
	type scored struct {
		s string
		d int
		i int
	}
	var found []scored
	seen := map[string]bool{}
	a := []rune(strings.ToLower(name))
	var scratch editdist.Scratch
	for i, c := range candidates {
		lc := strings.ToLower(c)
		if seen[lc] || c == name {
			continue
		}
		seen[lc] = true
		if d := scratch.Runes(a, []rune(lc), limit); d <= limit {
			found = append(found, scored{c, d, i})
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].d != found[j].d {
			return found[i].d < found[j].d
		}
		return found[i].i < found[j].i
	})
	var out []string
	for _, f := range found {
		if len(out) == n {
			break
		}
		out = append(out, f.s)
	}
	return out
}
