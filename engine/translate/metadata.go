package translate

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
)

// A read of files has hidden columns (Spark's _metadata), which the
// catalog names through sema.HiddenCatalog: a query may name them, but *
// leaves them out. The relation the native engine reads carries them as
// ordinary columns, so a * over such a relation excludes them.

// excludeHidden returns s, the translation of star st, with the hidden
// columns of the relations st expands over excluded (added to its
// EXCLUDE list, or given one).
func (t *tr) excludeHidden(st *ast.Star, s string) string {
	names := t.hiddenUnder(st)
	if len(names) == 0 {
		return s
	}
	list := make([]string, len(names))
	for i, n := range names {
		list[i] = quoteIdent(n)
	}
	if strings.HasSuffix(s, ")") && strings.Contains(s, " EXCLUDE (") {
		return s[:len(s)-1] + ", " + strings.Join(list, ", ") + ")"
	}
	return s + " EXCLUDE (" + strings.Join(list, ", ") + ")"
}

// hiddenUnder returns the names of the hidden columns of the table reads
// that star st expands over: the FROM items of the SELECT holding it
// (through joins and parentheses; not a subquery's, whose * already left
// them out), only the one its qualifier names for t.*.
func (t *tr) hiddenUnder(st *ast.Star) []string {
	s := t.selectOf(st)
	if s == nil || s.From == nil {
		return nil
	}
	qual := ""
	if st.Qualifier != nil {
		qual = st.Qualifier.Last().Name
	}
	var names []string
	seen := map[string]bool{}
	var walk func(r ast.Relation)
	walk = func(r ast.Relation) {
		switch r := r.(type) {
		case *ast.Table:
			ref := t.model.Table(r)
			if ref == nil || len(ref.Hidden) == 0 {
				return
			}
			if qual != "" {
				name := r.Name.Last().Name
				if r.Alias != nil && r.Alias.Name != nil {
					name = r.Alias.Name.Name
				}
				if !strings.EqualFold(name, qual) {
					return
				}
			}
			for _, h := range ref.Hidden {
				if k := strings.ToLower(h.Name); !seen[k] && !t.excepted(st, h.Name) {
					seen[k] = true
					names = append(names, h.Name)
				}
			}
		case *ast.Join:
			walk(r.L)
			if r.Kind != "LEFT SEMI" && r.Kind != "LEFT ANTI" {
				walk(r.R)
			}
		case *ast.ParenRel:
			if r.Alias == nil {
				walk(r.Rel)
			}
		}
	}
	for _, r := range s.From.Relations {
		walk(r)
		for _, f := range t.flagsUnder(r, qual) {
			if k := strings.ToLower(f); !seen[k] {
				seen[k] = true
				names = append(names, f)
			}
		}
	}
	return names
}

// excepted reports whether st's EXCEPT list names column n itself.
func (t *tr) excepted(st *ast.Star, n string) bool {
	for _, e := range st.Except {
		if len(e.Parts) == 1 && strings.EqualFold(e.Last().Name, n) {
			return true
		}
	}
	return false
}

// selectOf returns the innermost SELECT of the translated query that
// holds st.
func (t *tr) selectOf(st *ast.Star) *ast.Select {
	if t.root == nil {
		return nil
	}
	var best *ast.Select
	r := st.Span()
	ast.Inspect(t.root, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		sp := n.Span()
		if sp.End < r.Start || sp.Start > r.End {
			return false
		}
		if s, ok := n.(*ast.Select); ok && contains(sp, r) {
			best = s
		}
		return true
	})
	return best
}

// fieldOfColumn reports whether x is a struct field of a column written
// as a two-part name (_metadata.file_name, s.x): Spark names it after
// the field, DuckDB after the whole expression.
func (t *tr) fieldOfColumn(x ast.Expr) bool {
	c, ok := x.(*ast.Column)
	if !ok {
		return false
	}
	ref := t.model.Column(c)
	return ref != nil && ref.Kind == sema.RefColumn && ref.NameParts > 0 && ref.NameParts < len(c.Parts)
}
