package lineage

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
)

// Spot is what sits at an offset of a flow's query, as far as columns
// and CTEs go. At most one of Ref, Star, CTE and Out is set.
type Spot struct {
	// Range is the name (or *) under the offset.
	Range ast.Range
	// Ref is a column reference, when the offset is on its column name
	// (not on its qualifier or on a struct field after it).
	Ref *sema.ColumnRef
	// Star is a * or t.* select item; StarCols are its columns.
	Star     *ast.Star
	StarCols []*sema.OutputColumn
	// CTE is the CTE whose name is under the offset, at its definition
	// (TableRef nil) or at a reference to it (TableRef set).
	CTE      *ast.CTE
	TableRef *sema.TableRef
	// Out is the output column whose alias (AS name) is under the
	// offset; Item is its select item.
	Out  *sema.OutputColumn
	Item *ast.SelectItem
}

// in reports whether off is inside r or at its end (a cursor right after
// a name is on it).
func in(r ast.Range, off int) bool { return r.Start <= off && off <= r.End && r.End > r.Start }

// At returns what is at offset off of the flow's file.
func (fm *FlowModel) At(off int) Spot {
	var best Spot
	size := -1
	better := func(r ast.Range) bool {
		if !in(r, off) {
			return false
		}
		if size < 0 || r.End-r.Start < size {
			size = r.End - r.Start
			return true
		}
		return false
	}
	for _, r := range fm.Model.Columns {
		if r.Node == nil || r.NameParts <= 0 || r.NameParts > len(r.Node.Parts) {
			continue
		}
		id := r.Node.Parts[r.NameParts-1]
		if id != nil && better(id.Range) {
			best = Spot{Range: id.Range, Ref: r}
		}
		// the qualifier of a column of a CTE read under its own name
		// (product_sales.category): a reference to the CTE
		if r.Kind == sema.RefColumn && r.NameParts >= 2 && r.Source.Rel != nil {
			if t := r.Source.Rel.Table; t != nil && t.Kind == sema.TableCTE && t.CTE != nil && t.CTE.Name != nil {
				if q := r.Node.Parts[r.NameParts-2]; q != nil && strings.EqualFold(q.Name, t.CTE.Name.Name) && better(q.Range) {
					best = Spot{Range: q.Range, CTE: t.CTE, TableRef: t}
				}
			}
		}
	}
	for _, t := range fm.Model.Tables {
		if t.Kind != sema.TableCTE || t.Name == nil {
			continue
		}
		if last := t.Name.Last(); last != nil && better(last.Range) {
			best = Spot{Range: last.Range, CTE: t.CTE, TableRef: t}
		}
	}
	ast.Inspect(fm.Tree, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CTE:
			if n.Name != nil && better(n.Name.Range) {
				best = Spot{Range: n.Name.Range, CTE: n}
			}
		case *ast.Select:
			fm.selectSpots(n, off, better, &best)
		}
		return true
	})
	return best
}

// selectSpots finds the stars and aliases of a SELECT's items at off.
func (fm *FlowModel) selectSpots(s *ast.Select, off int, better func(ast.Range) bool, best *Spot) {
	for _, it := range s.Items {
		if it == nil {
			continue
		}
		if st, ok := it.X.(*ast.Star); ok && better(st.Range) {
			*best = Spot{Range: st.Range, Star: st, StarCols: fm.StarColumns(s, st)}
			// on the qualifier of t.*, where t is a CTE read under its
			// own name: a reference to the CTE
			if q := st.Qualifier.Last(); q != nil && len(st.Qualifier.Parts) == 1 && in(q.Range, off) {
				if t := fm.cteRead(s, q.Name); t != nil {
					*best = Spot{Range: q.Range, CTE: t.CTE, TableRef: t}
				}
			}
		}
		if it.Alias != nil && better(it.Alias.Range) {
			*best = Spot{Range: it.Alias.Range, Out: fm.itemColumn(s, it), Item: it}
		}
	}
}

// cteRead returns the table reference of a CTE that a relation of s
// reads under the CTE's own name (no other alias), or nil.
func (fm *FlowModel) cteRead(s *ast.Select, name string) *sema.TableRef {
	span := s.Span()
	for _, rel := range fm.Model.Relations {
		t := rel.Table
		if t == nil || t.Kind != sema.TableCTE || t.CTE == nil || t.CTE.Name == nil || t.Name == nil {
			continue
		}
		if at := t.Name.Span(); at.Start < span.Start || at.End > span.End {
			continue
		}
		if strings.EqualFold(rel.Name, name) && strings.EqualFold(t.CTE.Name.Name, name) {
			return t
		}
	}
	return nil
}

// itemColumn returns the output column of a select item of s.
func (fm *FlowModel) itemColumn(s *ast.Select, it *ast.SelectItem) *sema.OutputColumn {
	if out := fm.Model.Output(s); out != nil {
		for _, c := range out.Columns {
			if c.Item == it {
				return c
			}
		}
	}
	for _, c := range fm.all {
		if c.Item == it {
			return c
		}
	}
	return nil
}

// StarColumns returns the columns a * select item of s expands to: the
// run of item-less columns the SELECT's output has at its place.
func (fm *FlowModel) StarColumns(s *ast.Select, st *ast.Star) []*sema.OutputColumn {
	out := fm.Model.Output(s)
	if out == nil {
		return nil
	}
	cols := out.Columns
	i := 0
	for _, it := range s.Items {
		if it == nil {
			continue
		}
		if x, ok := it.X.(*ast.Star); ok && it.Alias == nil && it.Aliases == nil {
			j := i
			for j < len(cols) && cols[j].Item == nil {
				j++
			}
			if x == st {
				return cols[i:j]
			}
			i = j
			continue
		}
		for i < len(cols) && cols[i].Item == it {
			i++
		}
	}
	return nil
}
