package sema

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// attr is one column visible in a scope: Spark's attribute, with the
// qualifier it can be named by.
type attr struct {
	name string
	// qual is the qualifier (an alias, or the table's name as written);
	// partial says the real qualifier may be longer (a catalog table
	// written t is spark_catalog.default.t), so a longer qualifier that
	// ends with qual may name it too.
	qual []string
	src  ColumnSource
	// eq identifies the attribute: two attrs with the same eq are the
	// same column (the two sides of a USING column count as one).
	eq  int
	typ string
	// item is the select item of an output column; alias says the item
	// has an explicit alias, and a reference to it is a RefAlias.
	item *ast.SelectItem
	// (the one-byte fields last, packed together: an attr is copied
	// into every scope that sees it)
	partial bool
	// hidden is set for the right-hand copy of a USING or NATURAL join
	// column: qualified names still reach it, unqualified ones do not.
	hidden bool
	// fuzzy is set for a name Spark generates from an expression, which
	// the model cannot be sure of.
	fuzzy fuzz
	alias bool
	// meta is set for a table's hidden column (a file read's
	// _metadata, HiddenCatalog): names reach it, qualified or not,
	// when no other column has its name, and neither * nor t.* gives
	// it. metaUnsure says the table's own columns are unknown, so one
	// of them may have the name and win (Spark then reads the data's
	// column): a reference to it is tentative.
	meta, metaUnsure bool
}

// fuzz says how sure the model is of a column's name.
type fuzz uint8

const (
	// sure: the name is Spark's.
	sure fuzz = iota
	// quotedOnly: Spark's name is not a plain identifier (it has
	// parentheses, spaces, operators, or it is a literal such as 1 or
	// true), so only a `quoted` reference can name the column.
	quotedOnly
	// unsure: any reference may name the column.
	unsure
)

// scope is the columns visible at one level of name resolution.
type scope struct {
	attrs []attr
	// complete says every relation's columns are known: a name not
	// found here is certainly not here, unless a column's name is fuzzy.
	complete bool
	// qualLoose says some relation's qualifier is unknown (a table
	// function without an alias), so a qualified name not found here
	// may still be here.
	qualLoose bool
	// catalog says a catalog table is in scope, whose hidden metadata
	// columns (_metadata, ...) Spark may supply.
	catalog bool
}

// emptyScope is a scope with no columns, which is complete.
func emptyScope() *scope { return &scope{complete: true} }

// unknownScope is a scope with unknown columns.
func unknownScope() *scope { return &scope{} }

// concat joins two scopes side by side (a comma join, a join's ON).
func concat(l, r *scope) *scope {
	if l == nil {
		return r
	}
	if r == nil {
		return l
	}
	attrs := make([]attr, 0, len(l.attrs)+len(r.attrs))
	attrs = append(attrs, l.attrs...)
	attrs = append(attrs, r.attrs...)
	return &scope{attrs: attrs, complete: l.complete && r.complete, qualLoose: l.qualLoose || r.qualLoose,
		catalog: l.catalog || r.catalog}
}

// visible returns the attrs an unqualified * expands to.
func (s *scope) visible() []attr {
	var out []attr
	for _, at := range s.attrs {
		if !at.hidden && !at.meta {
			out = append(out, at)
		}
	}
	return out
}

// env is the chain of enclosing scopes a correlated subquery (or a
// LATERAL item) sees.
type env struct {
	sc     *scope
	parent *env
	// lateral marks the FROM items before a LATERAL subquery, which Spark
	// lets only the subquery's own query see, not a query nested in it.
	lateral bool
}

// match is the result of looking a name up in one scope.
type match struct {
	cands     []attr
	nameParts int
	// loose says a candidate matched only by the partial rule.
	loose bool
}

// eqName compares two names as Spark's resolver does.
func (a *analyzer) eqName(x, y string) bool {
	if a.opts.CaseSensitive {
		return x == y
	}
	return x == y || strings.EqualFold(x, y)
}

// qualMatch reports whether pre names the qualifier of at, and whether
// only the partial rule made it match.
func (a *analyzer) qualMatch(at *attr, pre []string) (ok, loose bool) {
	q := at.qual
	if len(q) == 0 {
		return false, false
	}
	if len(pre) <= len(q) {
		off := len(q) - len(pre)
		for i, p := range pre {
			if !a.eqName(p, q[off+i]) {
				return false, false
			}
		}
		return true, false
	}
	if !at.partial {
		return false, false
	}
	off := len(pre) - len(q)
	for i, p := range q {
		if !a.eqName(pre[off+i], p) {
			return false, false
		}
	}
	return true, true
}

// lookup finds parts in s as Spark's AttributeSeq.resolve does: the
// longest qualifier first (three parts, two, one), then the first part
// as the column's name with the rest struct fields. A single candidate
// (the usual case) is a one-element window on s.attrs, not a copy; the
// candidates are only read.
func (a *analyzer) lookup(s *scope, parts []string) match {
	if s == nil {
		return match{}
	}
	if len(parts) >= 2 {
		for k := min(len(parts)-1, 3); k >= 1; k-- {
			var m match
			for i := range s.attrs {
				at := &s.attrs[i]
				if !a.eqName(at.name, parts[k]) {
					continue
				}
				if ok, loose := a.qualMatch(at, parts[:k]); ok {
					m.cands = addCandidate(m.cands, s.attrs, i)
					m.loose = m.loose || loose
				}
			}
			if len(m.cands) > 0 {
				m.nameParts = k + 1
				return preferOwn(m)
			}
		}
	}
	var m match
	for i := range s.attrs {
		if at := &s.attrs[i]; !at.hidden && a.eqName(at.name, parts[0]) {
			m.cands = addCandidate(m.cands, s.attrs, i)
		}
	}
	m.nameParts = 1
	return preferOwn(m)
}

// preferOwn drops the hidden metadata columns from m's candidates when
// another column matched too, as Spark adds a metadata column only for
// a name nothing else resolves; a hidden column of a table whose own
// columns are unknown makes the match loose.
func preferOwn(m match) match {
	own, meta := 0, false
	for _, at := range m.cands {
		if at.meta {
			meta = true
		} else {
			own++
		}
	}
	if !meta {
		return m
	}
	if own == 0 {
		for _, at := range m.cands {
			m.loose = m.loose || at.metaUnsure
		}
		return m
	}
	kept := make([]attr, 0, own)
	for _, at := range m.cands {
		if !at.meta {
			kept = append(kept, at)
		}
	}
	m.cands = kept
	return m
}

// addCandidate adds attrs[i] to the candidates list unless the same
// column is already there. The first candidate is attrs[i:i+1] itself
// (capacity one, so a later append copies); only a second distinct one
// allocates.
func addCandidate(list, attrs []attr, i int) []attr {
	if len(list) == 0 {
		return attrs[i : i+1 : i+1]
	}
	return appendDistinct(list, attrs[i])
}

// appendDistinct appends at unless the same column is already there.
func appendDistinct(list []attr, at attr) []attr {
	for _, x := range list {
		if x.eq == at.eq {
			return list
		}
	}
	return append(list, at)
}

// certainMiss reports whether parts, not found in s, is certainly not
// there; quoted says a part of the reference was written `quoted`.
func (a *analyzer) certainMiss(s *scope, parts []string, quoted bool) bool {
	if s == nil {
		return true
	}
	if !s.complete {
		return false
	}
	for _, at := range s.attrs {
		if at.fuzzy == unsure || (at.fuzzy == quotedOnly && quoted) {
			return false
		}
	}
	if len(parts) > 1 && s.qualLoose {
		return false
	}
	if s.catalog {
		for _, p := range parts {
			if strings.HasPrefix(p, "_") {
				// a hidden metadata column: _metadata, Delta's and
				// Iceberg's _commit_version, _file, _pos, ...
				return false
			}
		}
	}
	return true
}

// qualified returns the attrs of s that qualifier pre names (a t.* or
// a qualified EXCEPT).
func (a *analyzer) qualified(s *scope, pre []string) []attr {
	var out []attr
	for i := range s.attrs {
		if ok, _ := a.qualMatch(&s.attrs[i], pre); ok && !s.attrs[i].meta {
			out = append(out, s.attrs[i])
		}
	}
	return out
}

// relAttrs returns the attrs of relation rel's columns, qualified by
// qual. Columns of one attribute (SELECT a, a) share a new identity; the
// first column of an attribute is found by a scan of the columns before
// it, which for the few columns of a relation costs less than a map.
func (a *analyzer) relAttrs(rel *Relation, qual []string, partial bool) []attr {
	attrs := make([]attr, len(rel.Columns))
	var same map[int]int // for a wide relation, where a scan would be slow
	if len(rel.Columns) > 32 {
		same = make(map[int]int, len(rel.Columns))
	}
	for i, c := range rel.Columns {
		eq := 0
		switch {
		case c.eq == 0:
		case same != nil:
			if e, ok := same[c.eq]; ok {
				eq = e
			}
		default:
			for j := 0; j < i; j++ {
				if rel.Columns[j].eq == c.eq {
					eq = attrs[j].eq
					break
				}
			}
		}
		if eq == 0 {
			eq = a.newEq()
			if same != nil && c.eq != 0 {
				same[c.eq] = eq
			}
		}
		attrs[i] = attr{name: c.Name, qual: qual, partial: partial, src: ColumnSource{Rel: rel, Index: i},
			fuzzy: c.fuzziness(), eq: eq, typ: c.Type}
	}
	return attrs
}

// relScope returns the scope of one relation.
func (a *analyzer) relScope(rel *Relation, qual []string, partial bool) *scope {
	return &scope{attrs: a.relAttrs(rel, qual, partial), complete: rel.Complete}
}

// newEq returns a new attribute identity.
func (a *analyzer) newEq() int {
	a.eqs++
	return a.eqs
}

// newRel records a relation.
func (a *analyzer) newRel(node ast.Node, name string, cols []*OutputColumn, complete bool) *Relation {
	r := a.newRelation()
	*r = Relation{Node: node, Name: name, Columns: cols, Complete: complete}
	a.m.Relations = append(a.m.Relations, r)
	return r
}

// rename returns cols with the names of aliases (a column alias list
// AS t(a, b)), or cols itself when there is no list. A list names all
// columns, so the result is complete whenever the list is given.
func rename(cols []*OutputColumn, complete bool, aliases []*ast.Ident) ([]*OutputColumn, bool) {
	if len(aliases) == 0 {
		return cols, complete
	}
	out := make([]*OutputColumn, len(aliases))
	for i, id := range aliases {
		c := &OutputColumn{Name: id.Name}
		if i < len(cols) {
			cp := *cols[i]
			c = &cp
			c.Name = id.Name
			c.Generated, c.fuzz = false, sure
		}
		out[i] = c
	}
	return out, true
}

// fuzziness returns how sure the model is of c's name.
func (c *OutputColumn) fuzziness() fuzz {
	switch {
	case !c.Generated:
		return sure
	case c.fuzz == sure:
		return unsure
	}
	return c.fuzz
}

// colsOf returns output columns for attrs, passing each through.
func colsOf(attrs []attr) []*OutputColumn {
	cols := make([]*OutputColumn, len(attrs))
	all := make([]OutputColumn, len(attrs)) // one allocation for them all
	srcs := 0
	for _, at := range attrs {
		if at.src.Rel != nil {
			srcs++
		}
	}
	var src []ColumnSource
	if srcs > 0 {
		src = make([]ColumnSource, 0, srcs)
	}
	for i, at := range attrs {
		c := &all[i]
		*c = OutputColumn{Name: at.name, Generated: at.fuzzy != sure, fuzz: at.fuzzy, Type: at.typ, eq: at.eq}
		if at.src.Rel != nil {
			src = append(src, at.src)
			c.Source = &src[len(src)-1]
		}
		cols[i] = c
	}
	return cols
}
