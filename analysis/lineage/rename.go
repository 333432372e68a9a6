package lineage

import (
	"fmt"
	"sort"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/ir"
)

// Edit is one replacement of a file's text (an insertion when Loc is
// empty).
type Edit struct {
	Loc     ir.Loc
	NewText string
}

// RenameError is a rename refused: each reason names a place that cannot
// be rewritten, with its file, line and column.
type RenameError struct {
	Reasons []string
}

// Error joins the reasons.
func (e *RenameError) Error() string {
	return "cannot rename: " + strings.Join(e.Reasons, "; ")
}

// renamer collects the edits of one column rename.
type renamer struct {
	g        *Graph
	old, new string
	edits    map[[3]any]Edit
	reasons  []string
	cascaded map[string]bool
}

func (g *Graph) newRenamer(old, newName string) *renamer {
	return &renamer{g: g, old: old, new: newName, edits: map[[3]any]Edit{}, cascaded: map[string]bool{}}
}

func (r *renamer) edit(loc ir.Loc, text string) {
	r.edits[[3]any{loc.File, loc.Start, loc.End}] = Edit{Loc: loc, NewText: text}
}

func (r *renamer) refuse(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, x := range r.reasons {
		if x == msg {
			return
		}
	}
	r.reasons = append(r.reasons, msg)
}

// result returns the edits sorted by file and position, or the refusal.
func (r *renamer) result() ([]Edit, error) {
	if len(r.reasons) > 0 {
		return nil, &RenameError{Reasons: r.reasons}
	}
	out := make([]Edit, 0, len(r.edits))
	for _, e := range r.edits {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Loc.File != out[j].Loc.File {
			return out[i].Loc.File < out[j].Loc.File
		}
		return out[i].Loc.Start < out[j].Loc.Start
	})
	return out, nil
}

// RenameColumn renames a dataset's output column: where each flow into
// the dataset names it (its alias, or a new alias after a plain column),
// the expectations that read it, and every reader downstream, through
// CTEs, subqueries and *, dataset after dataset for as long as the column
// is passed on under its name. It refuses, with the reasons, when a
// place cannot be rewritten for certain: the column comes from a * (its
// name is the upstream column's), a reader's query does not parse with
// Spark's grammar, a reference may or may not be the column, a USING
// join names it, a partitioning or clustering column is it, or the new
// name is taken.
//
// A column a * passes on is renamed where its name is written: upstream,
// in the dataset or CTE the * reads (its readers here follow through the
// *).
func (g *Graph) RenameColumn(id ColumnID, newName string) ([]Edit, error) {
	for i := 0; i < 64; i++ {
		g.mu.Lock()
		fm, local, via := g.starOrigin(id)
		g.mu.Unlock()
		if local != nil {
			return g.RenameLocal(fm, local, newName)
		}
		if via == nil {
			break
		}
		id = *via
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.table(id.Table)
	if t != nil && t.Source != nil {
		return nil, &RenameError{Reasons: []string{fmt.Sprintf("%s is a column of the source %s, which this pipeline reads but does not define: rename it where the source is defined, then rename its readers", id.Column, t.Name)}}
	}
	if t == nil || t.Dataset == nil {
		return nil, &RenameError{Reasons: []string{fmt.Sprintf("%s is not a dataset of this pipeline", id.Table)}}
	}
	c := t.Column(id.Column)
	if c == nil {
		return nil, &RenameError{Reasons: []string{fmt.Sprintf("%s has no column %s", t.Name, id.Column)}}
	}
	r := g.newRenamer(c.ID.Column, newName)
	for _, f := range g.into[ir.NameKey(t.Name)] {
		fm := g.flow(f)
		if fm == nil {
			r.refuse("the query of flow %s (%s) does not parse with Spark's grammar, so where it names %s cannot be found", f.Name, f.Loc.File, c.ID)
			continue
		}
		out := fm.Model.Output(fm.Tree)
		if out == nil {
			continue
		}
		for _, oc := range out.Columns {
			if strings.EqualFold(oc.Name, r.old) {
				r.define(fm, oc)
				r.inFlow(fm, []*sema.OutputColumn{oc}, nil)
			}
		}
	}
	r.cascade(t.Name)
	return r.result()
}

// RenameLocal renames a column of a CTE or subquery of one flow (oc, a
// column of fm's model): its alias, the references to it in the query,
// and, when the query's output passes it on under its name, the readers
// downstream as RenameColumn does.
func (g *Graph) RenameLocal(fm *FlowModel, oc *sema.OutputColumn, newName string) ([]Edit, error) {
	if local, via := fm.nameOrigin(oc); via != nil {
		return g.RenameColumn(*via, newName)
	} else if local != nil {
		oc = local
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.newRenamer(oc.Name, newName)
	r.define(fm, oc)
	r.inFlow(fm, []*sema.OutputColumn{oc}, nil)
	return r.result()
}

// starOrigin returns, for a dataset's column that its one flow takes from
// a *, where its name is written: a column of that flow's query (fm,
// local) or an upstream table's column (via); all nil otherwise. g.mu is
// held.
func (g *Graph) starOrigin(id ColumnID) (fm *FlowModel, local *sema.OutputColumn, via *ColumnID) {
	t := g.table(id.Table)
	if t == nil || t.Dataset == nil {
		return nil, nil, nil
	}
	flows := g.into[ir.NameKey(t.Name)]
	if len(flows) != 1 {
		return nil, nil, nil
	}
	fm = g.flow(flows[0])
	if fm == nil {
		return nil, nil, nil
	}
	out := fm.Model.Output(fm.Tree)
	if out == nil {
		return nil, nil, nil
	}
	for _, oc := range out.Columns {
		if strings.EqualFold(oc.Name, id.Column) && oc.Item == nil {
			local, via = fm.nameOrigin(oc)
			return fm, local, via
		}
	}
	return nil, nil, nil
}

// nameOrigin follows a column of the query that a * passes on (no select
// item of its own) to where its name is written: a column of the query
// with a select item (local), or an upstream table's column (via). For a
// column with its own select item, both are nil.
func (fm *FlowModel) nameOrigin(oc *sema.OutputColumn) (local *sema.OutputColumn, via *ColumnID) {
	if oc == nil || oc.Item != nil {
		return nil, nil
	}
	for i := 0; oc != nil && i < 64; i++ {
		if oc.Item != nil {
			return oc, nil
		}
		if oc.Source == nil {
			return nil, nil
		}
		src := *oc.Source
		if t := src.Rel.Table; t != nil && t.Kind == sema.TableCatalog {
			col := src.Column()
			name := fm.names[t]
			if name == "" || col == nil {
				return nil, nil
			}
			cn := col.Name
			if src.Index < len(t.Columns) {
				cn = t.Columns[src.Index].Name
			}
			return nil, &ColumnID{name, cn}
		}
		oc = src.Column()
	}
	return nil, nil
}

// where returns file:line:col of an offset of fm's file.
func (fm *FlowModel) where(off int) string {
	return position(fm.File(), fm.Text, off)
}

func position(file, text string, off int) string {
	if off > len(text) {
		off = len(text)
	}
	line := strings.Count(text[:max(off, 0)], "\n") + 1
	col := off - (strings.LastIndexByte(text[:max(off, 0)], '\n') + 1) + 1
	return fmt.Sprintf("%s:%d:%d", file, line, col)
}

// define rewrites where a flow names an output column.
func (r *renamer) define(fm *FlowModel, oc *sema.OutputColumn) {
	it := oc.Item
	switch {
	case it != nil && it.Alias != nil:
		r.edit(fm.Loc(it.Alias.Range), r.new)
	case it != nil && len(it.Aliases) > 0:
		for _, id := range it.Aliases {
			if id != nil && strings.EqualFold(id.Name, oc.Name) {
				r.edit(fm.Loc(id.Range), r.new)
			}
		}
	case it != nil && it.X != nil:
		end := it.X.Span().End
		r.edit(ir.Loc{File: fm.File(), Start: end, End: end}, " AS "+r.new)
	default:
		_, via := fm.defOf(oc)
		from := "a *"
		if via != nil {
			from = "a * over " + via.Table
		}
		r.refuse("%s takes %s from %s in %s, so its name is the upstream column's: rename %s where it is defined, or list the columns instead of *",
			fm.Flow.Target, oc.Name, from, fm.File(), oc.Name)
	}
}

// noAlias reports whether a column keeps the name of the column it
// passes on.
func noAlias(c *sema.OutputColumn) bool {
	return c.Item == nil || c.Item.Alias == nil && len(c.Item.Aliases) == 0
}

// inFlow renames, in one flow, the columns seeds and every column of the
// upstream table matched by match, with everything that passes them on
// under their name and every reference to them.
func (r *renamer) inFlow(fm *FlowModel, seeds []*sema.OutputColumn, match func(table, col string) bool) {
	S := map[*sema.OutputColumn]bool{}
	for _, s := range seeds {
		S[s] = true
	}
	if match != nil {
		for _, rel := range fm.Model.Relations {
			t := rel.Table
			if t == nil || t.Kind != sema.TableCatalog || fm.names[t] == "" {
				continue
			}
			for i, c := range rel.Columns {
				cn := c.Name
				if i < len(t.Columns) {
					cn = t.Columns[i].Name
				}
				if match(fm.names[t], cn) {
					S[c] = true
				}
			}
		}
	}
	if len(S) == 0 {
		return
	}
	for changed := true; changed; {
		changed = false
		for _, c := range fm.all {
			if S[c] {
				continue
			}
			pass := c.Source != nil && S[c.Source.Column()] && noAlias(c)
			if arms := fm.arms[c]; len(arms) > 0 && S[arms[0]] {
				pass = true
			}
			if pass {
				S[c] = true
				changed = true
			}
		}
	}
	for _, ref := range fm.Model.Columns {
		if ref.Node == nil || ref.NameParts <= 0 || ref.NameParts > len(ref.Node.Parts) {
			continue
		}
		id := ref.Node.Parts[ref.NameParts-1]
		if id == nil {
			continue
		}
		hit := false
		switch ref.Kind {
		case sema.RefColumn:
			hit = S[ref.Source.Column()]
		case sema.RefAlias:
			for _, c := range fm.all {
				if c.Item == ref.Alias && S[c] {
					hit = true
				}
			}
		}
		switch {
		case hit && ref.Tentative:
			r.refuse("%s at %s may not be the renamed column (a table read before it has unknown columns)", id.Name, fm.where(id.Start))
		case hit:
			r.edit(fm.Loc(id.Range), r.new)
		case (ref.Kind == sema.RefUnknown || ref.Kind == sema.RefAmbiguous) && strings.EqualFold(id.Name, r.old):
			r.refuse("%s at %s cannot be resolved for certain, so whether it reads the renamed column is not known", id.Name, fm.where(id.Start))
		}
	}
	ast.Inspect(fm.Tree, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Star:
			for _, ex := range n.Except {
				if last := ex.Last(); last != nil && strings.EqualFold(last.Name, r.old) {
					r.edit(fm.Loc(last.Range), r.new)
				}
			}
		case *ast.Join:
			for _, u := range n.Using {
				if u != nil && strings.EqualFold(u.Name, r.old) {
					r.refuse("USING (%s) at %s joins on the column by name on both sides: write the join with ON first", u.Name, fm.where(u.Start))
				}
			}
		}
		return true
	})
	if out := fm.Model.Output(fm.Tree); out != nil {
		for _, c := range out.Columns {
			if S[c] {
				r.cascade(fm.Flow.Target)
			}
		}
	}
}

// cascade renames the column old of a dataset in its readers, its
// expectations, and checks the new name is free there.
func (r *renamer) cascade(dataset string) {
	d, _ := r.g.resolveName(strings.Split(dataset, "."))
	if d == nil {
		return
	}
	k := ir.NameKey(d.Name)
	if r.cascaded[k] {
		return
	}
	r.cascaded[k] = true
	if t := r.g.dataset(d); t != nil {
		if c := t.Column(r.new); c != nil && !strings.EqualFold(r.new, r.old) {
			r.refuse("%s already has a column named %s", d.Name, c.ID.Column)
		}
	}
	for _, list := range [][]string{d.PartitionBy, d.ClusterBy} {
		for _, p := range list {
			if strings.EqualFold(strings.Trim(p, "` "), r.old) {
				r.refuse("%s is partitioned or clustered by %s: change that setting with the rename", d.Name, r.old)
			}
		}
	}
	for _, f := range r.g.into[k] {
		for _, e := range f.Expectations {
			r.expectation(e)
		}
	}
	for _, f := range r.g.p.Flows {
		reads := false
		for _, ref := range f.Reads {
			if r.g.p.Resolve(ref.Name) == d {
				reads = true
			}
		}
		if !reads {
			continue
		}
		fm := r.g.flow(f)
		if fm == nil {
			r.refuse("the query of %s (%s) reads %s but does not parse with Spark's grammar, so its uses of %s cannot be found",
				f.Target, f.Loc.File, d.Name, r.old)
			continue
		}
		r.inFlow(fm, nil, func(table, col string) bool {
			return ir.NameKey(table) == k && strings.EqualFold(col, r.old)
		})
	}
}

// cascadeSource finds the reads of a source's column in the flows reading
// the source, and follows them downstream as cascade does; g.mu is held.
func (r *renamer) cascadeSource(src *ir.Source) {
	if r.g.readIndex == nil {
		r.g.indexReads()
	}
	k := ir.NameKey(src.Name)
	for _, f := range r.g.readIndex[readKey(nil, src)] {
		fm := r.g.flow(f)
		if fm == nil {
			r.refuse("the query of %s (%s) reads %s but does not parse with Spark's grammar, so its uses of %s cannot be found",
				f.Target, f.Loc.File, src.Name, r.old)
			continue
		}
		r.inFlow(fm, nil, func(table, col string) bool {
			return ir.NameKey(table) == k && strings.EqualFold(col, r.old)
		})
	}
}

// expectation rewrites the names old in an expectation's condition, which
// reads the dataset's columns by name.
func (r *renamer) expectation(e ir.Expectation) {
	s := e.SQL
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == '\'' || ch == '"':
			j := i + 1
			for j < len(s) && s[j] != ch {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
		case ch == '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				return
			}
			if strings.EqualFold(s[i+1:i+1+j], r.old) {
				r.edit(ir.Loc{File: e.SQLLoc.File, Start: e.SQLLoc.Start + i, End: e.SQLLoc.Start + i + j + 2}, r.new)
			}
			i += j + 2
		case identStart(ch):
			j := i
			for j < len(s) && (identStart(s[j]) || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			qualified := i > 0 && s[i-1] == '.'
			if !qualified && strings.EqualFold(s[i:j], r.old) && !(j < len(s) && s[j] == '(') {
				r.edit(ir.Loc{File: e.SQLLoc.File, Start: e.SQLLoc.Start + i, End: e.SQLLoc.Start + j}, r.new)
			}
			i = j
		default:
			i++
		}
	}
}

func identStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// RenameCTE renames a CTE of the flow's query: its definition and every
// reference to it. It refuses a name another CTE or table of the query
// has.
func (fm *FlowModel) RenameCTE(cte *ast.CTE, newName string) ([]Edit, error) {
	if cte == nil || cte.Name == nil {
		return nil, &RenameError{Reasons: []string{"not a CTE"}}
	}
	var reasons []string
	ast.Inspect(fm.Tree, func(n ast.Node) bool {
		if c, ok := n.(*ast.CTE); ok && c != cte && c.Name != nil && strings.EqualFold(c.Name.Name, newName) {
			reasons = append(reasons, fmt.Sprintf("the query already has a CTE named %s at %s", c.Name.Name, fm.where(c.Name.Start)))
		}
		return true
	})
	for _, t := range fm.Model.Tables {
		if t.Kind != sema.TableCTE && t.Name != nil && len(t.Name.Parts) == 1 && strings.EqualFold(t.Name.String(), newName) {
			reasons = append(reasons, fmt.Sprintf("the query reads a table named %s at %s, which the CTE would hide", newName, fm.where(t.Name.Start)))
		}
	}
	if len(reasons) > 0 {
		return nil, &RenameError{Reasons: reasons}
	}
	out := []Edit{{Loc: fm.Loc(cte.Name.Range), NewText: newName}}
	for _, r := range fm.CTERefs(cte) {
		out = append(out, Edit{Loc: fm.Loc(r), NewText: newName})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Loc.Start < out[j].Loc.Start })
	return out, nil
}

// CTERefs returns the references to a CTE of the flow's query: the
// table names reading it, and the qualifiers naming it (cte.col, cte.*)
// where it is read without an alias.
func (fm *FlowModel) CTERefs(cte *ast.CTE) []ast.Range {
	var out []ast.Range
	unaliased := map[*sema.Relation]bool{}
	for _, t := range fm.Model.Tables {
		if t.Kind == sema.TableCTE && t.CTE == cte && t.Name != nil {
			if last := t.Name.Last(); last != nil {
				out = append(out, last.Range)
			}
		}
	}
	for _, rel := range fm.Model.Relations {
		if t := rel.Table; t != nil && t.Kind == sema.TableCTE && t.CTE == cte && cte.Name != nil && strings.EqualFold(rel.Name, cte.Name.Name) {
			unaliased[rel] = true
		}
	}
	if len(unaliased) == 0 {
		return out
	}
	for _, r := range fm.Model.Columns {
		if r.Kind == sema.RefColumn && r.NameParts >= 2 && r.NameParts <= len(r.Node.Parts) && unaliased[r.Source.Rel] {
			if q := r.Node.Parts[r.NameParts-2]; q != nil {
				out = append(out, q.Range)
			}
		}
	}
	ast.Inspect(fm.Tree, func(n ast.Node) bool {
		if st, ok := n.(*ast.Star); ok && st.Qualifier != nil && len(st.Qualifier.Parts) == 1 {
			if q := st.Qualifier.Parts[0]; q != nil && strings.EqualFold(q.Name, cte.Name.Name) {
				out = append(out, q.Range)
			}
		}
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// References returns where a dataset's output column is named: where its
// flows define it (defs) and every reference to it downstream, through
// the columns that pass it on under its name (refs), as RenameColumn
// would rewrite them.
func (g *Graph) References(id ColumnID) (defs, refs []ir.Loc) {
	g.mu.Lock()
	t := g.table(id.Table)
	g.mu.Unlock()
	c := t.Column(id.Column)
	if c == nil {
		return nil, nil
	}
	if t.Source != nil {
		// a source's column: its reads, and downstream what passes it on
		edits, _ := g.collect(func(r *renamer) { r.cascadeSource(t.Source) }, c.ID.Column)
		return splitDefs(edits, nil)
	}
	if t.Dataset == nil {
		return nil, nil
	}
	edits, _ := g.collect(func(r *renamer) { r.columnDefs(t); r.cascade(t.Name) }, c.ID.Column)
	return splitDefs(edits, r0defs(g, t, c.ID.Column))
}

// LocalReferences returns where a column of a CTE or subquery of one
// flow is named: its definition and the references to it (and, when the
// query passes it on under its name, downstream).
func (g *Graph) LocalReferences(fm *FlowModel, oc *sema.OutputColumn) (defs, refs []ir.Loc) {
	edits, _ := g.collect(func(r *renamer) {
		r.define(fm, oc)
		r.inFlow(fm, []*sema.OutputColumn{oc}, nil)
	}, oc.Name)
	var def []ir.Loc
	if oc.Item != nil && oc.Item.Alias != nil {
		def = append(def, fm.Loc(oc.Item.Alias.Range))
	}
	return splitDefs(edits, def)
}

// collect runs a rename to a name no column has and returns where it
// would edit, refusals ignored.
func (g *Graph) collect(run func(*renamer), old string) ([]Edit, []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.newRenamer(old, "\x00")
	run(r)
	r2 := *r
	r2.reasons = nil
	edits, _ := r2.result()
	return edits, r.reasons
}

// columnDefs names the column in every flow into t.
func (r *renamer) columnDefs(t *Table) {
	for _, f := range r.g.into[ir.NameKey(t.Name)] {
		fm := r.g.flow(f)
		if fm == nil {
			continue
		}
		if out := fm.Model.Output(fm.Tree); out != nil {
			for _, oc := range out.Columns {
				if strings.EqualFold(oc.Name, r.old) {
					r.define(fm, oc)
					r.inFlow(fm, []*sema.OutputColumn{oc}, nil)
				}
			}
		}
	}
}

// r0defs returns the alias ranges naming a dataset's column in its flows.
func r0defs(g *Graph, t *Table, name string) []ir.Loc {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []ir.Loc
	for _, f := range g.into[ir.NameKey(t.Name)] {
		fm := g.flow(f)
		if fm == nil {
			continue
		}
		if o := fm.Model.Output(fm.Tree); o != nil {
			for _, oc := range o.Columns {
				if !strings.EqualFold(oc.Name, name) || oc.Item == nil {
					continue
				}
				if oc.Item.Alias != nil {
					out = append(out, fm.Loc(oc.Item.Alias.Range))
				} else if oc.Expr != nil {
					out = append(out, fm.Loc(oc.Expr.Span()))
				}
			}
		}
	}
	return out
}

// splitDefs returns the definitions and the other (non-empty) edit
// ranges.
func splitDefs(edits []Edit, defs []ir.Loc) ([]ir.Loc, []ir.Loc) {
	isDef := map[ir.Loc]bool{}
	for _, d := range defs {
		isDef[d] = true
	}
	var refs []ir.Loc
	for _, e := range edits {
		if e.Loc.End > e.Loc.Start && !isDef[e.Loc] {
			refs = append(refs, e.Loc)
		}
	}
	return defs, refs
}
