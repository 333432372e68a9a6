package lsp

import (
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/lineage"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/preview"
)

// symbolDataset returns the dataset a position names beyond what
// Snapshot.At knows: a flow's target (the @target value, INSERT INTO t of
// CREATE FLOW), or a pragma-form file's own dataset from its header
// comment or its query's first keyword. loc is the name's range.
func symbolDataset(dp docPos) (*ir.Dataset, ir.Loc) {
	if f := targetAt(dp.snap, dp.rel, dp.off); f != nil {
		if d := dp.snap.Pipeline.Resolve(f.Target); d != nil {
			return d, f.TargetLoc
		}
	}
	t := dp.snap.At(dp.rel, dp.off)
	if t.Dataset != nil || t.Ref != nil || t.Pragma != nil {
		return nil, ir.Loc{}
	}
	if d := ownDatasetAt(dp.snap, dp.rel, dp.off); d != nil {
		return d, ownDatasetWord(dp.snap, dp.rel, dp.off)
	}
	return nil, ir.Loc{}
}

// symbolHover answers a hover on a column, a *, a CTE, a flow target or
// a pragma-form file's own dataset; ok is false for anything else.
func (s *Server) symbolHover(dp docPos) (md string, loc ir.Loc, ok bool) {
	if d, l := symbolDataset(dp); d != nil {
		return s.datasetHover(dp, d), l, true
	}
	if t := dp.snap.At(dp.rel, dp.off); t.Dataset != nil || t.Ref != nil || t.Pragma != nil {
		return "", ir.Loc{}, false // a table or a pragma: hover.go's
	}
	g, fm, sp := s.colSpot(dp)
	if fm == nil {
		return "", ir.Loc{}, false
	}
	loc = fm.Loc(sp.Range)
	switch {
	case sp.Star != nil:
		return starHover(dp.snap, g, fm, sp), loc, true
	case sp.CTE != nil:
		return cteHover(dp.snap, fm, sp), loc, true
	case sp.Ref != nil || sp.Out != nil:
		if md := columnSymbolHover(dp.snap, g, fm, sp); md != "" {
			return md, loc, true
		}
	}
	return "", ir.Loc{}, false
}

// relationPhrase says which relation a column reference reads.
func relationPhrase(fm *lineage.FlowModel, g *lineage.Graph, src sema.ColumnSource) string {
	rel := src.Rel
	if rel == nil {
		return ""
	}
	alias := ""
	if rel.Table != nil && rel.Table.Name != nil && rel.Name != "" && !strings.EqualFold(rel.Name, rel.Table.Name.String()) {
		alias = fmt.Sprintf(" (as `%s`)", rel.Name)
	}
	switch {
	case rel.Table != nil && rel.Table.Kind == sema.TableCatalog:
		name := fm.TableName(rel.Table)
		if t := g.Table(name); t != nil && t.Source != nil {
			return fmt.Sprintf("source table `%s`%s", name, alias)
		}
		return fmt.Sprintf("dataset `%s`%s", name, alias)
	case rel.Table != nil && rel.Table.Kind == sema.TableCTE && rel.Table.CTE != nil && rel.Table.CTE.Name != nil:
		return fmt.Sprintf("CTE `%s`%s", rel.Table.CTE.Name.Name, alias)
	case rel.Name != "":
		return fmt.Sprintf("subquery `%s`", rel.Name)
	}
	return "a subquery"
}

// originLines follows a dataset column through the * that pass it on to
// the expression computing it, and lists what it is computed from.
func originLines(snap *analysis.Snapshot, g *lineage.Graph, c *lineage.Column) []string {
	var lines []string
	for i := 0; c != nil && i < 32; i++ {
		next, star := passesOn(c)
		if next == nil {
			break
		}
		how := ""
		if star {
			how = " (through `*`)"
		}
		lines = append(lines, fmt.Sprintf("`%s` passes on `%s`%s", c.ID, *next, how))
		c = g.Lookup(*next)
	}
	if c == nil {
		return lines
	}
	switch {
	case c.Flow == nil:
		lines = append(lines, fmt.Sprintf("`%s` is a column of the source table", c.ID))
	case c.Def.End > c.Def.Start:
		lines = append(lines, fmt.Sprintf("`%s` is computed in `%s` as `%s`", c.ID, line1(snap, c.Def), snippet(snap, c.Def)))
	}
	if deps := depList(c.Deps); deps != "" {
		lines = append(lines, "From: "+deps)
	}
	return lines
}

// passesOn returns the upstream column a dataset column passes on
// unchanged (through a * or as a plain column), or nil when it computes
// its value.
func passesOn(c *lineage.Column) (*lineage.ColumnID, bool) {
	if c.Via != nil {
		return c.Via, true
	}
	var only *lineage.ColumnID
	n := 0
	for i, d := range c.Deps {
		if d.Kind == lineage.Filter || d.Kind == lineage.Join {
			continue
		}
		n++
		if d.Kind == lineage.Passthrough {
			only = &c.Deps[i].From
		}
	}
	if n == 1 {
		return only, false
	}
	return nil, false
}

// depList lists the value dependencies (not filters and join keys).
func depList(deps []lineage.Dep) string {
	var out []string
	for _, d := range deps {
		if d.Kind == lineage.Filter || d.Kind == lineage.Join {
			continue
		}
		out = append(out, fmt.Sprintf("`%s` (%s)", d.From, d.Kind))
	}
	return strings.Join(out, ", ")
}

// columnSymbolHover describes a column reference or an output column's
// alias: type, the relation read, and where the value comes from.
func columnSymbolHover(snap *analysis.Snapshot, g *lineage.Graph, fm *lineage.FlowModel, sp lineage.Spot) string {
	var name, typ, of string
	var oc *sema.OutputColumn
	if r := sp.Ref; r != nil {
		switch r.Kind {
		case sema.RefColumn:
			oc = r.Source.Column()
			of = "Column of " + relationPhrase(fm, g, r.Source)
		case sema.RefAlias:
			of = "Alias of this query's select list"
		case sema.RefLambda:
			return fmt.Sprintf("**%s** · lambda parameter", r.Node.Parts[r.NameParts-1].Name)
		case sema.RefVariable:
			return fmt.Sprintf("**%s** · session variable", r.Node.Parts[r.NameParts-1].Name)
		default:
			return ""
		}
		name = r.Node.Parts[r.NameParts-1].Name
		if oc != nil {
			name, typ = oc.Name, oc.Type
		}
	} else {
		oc = sp.Out
		if oc == nil {
			return ""
		}
		name, typ = oc.Name, oc.Type
		of = "Output column of this query"
	}
	id, ok := identity(fm, sp)
	var lines []string
	switch {
	case ok && id.dataset != nil:
		c := g.Lookup(*id.dataset)
		if c != nil && typ == "" {
			typ = c.Type
		}
		if sp.Out != nil || ir.NameKey(id.dataset.Table) == ir.NameKey(fm.Flow.Target) {
			of = fmt.Sprintf("Output column of `%s`", id.dataset.Table)
		}
		lines = originLines(snap, g, c)
		if c != nil && c.Flow != nil {
			var rs []string
			for _, r := range g.Readers(*id.dataset) {
				if r.Kind == lineage.Filter || r.Kind == lineage.Join {
					continue
				}
				if len(rs) == 10 {
					rs = append(rs, "...")
					break
				}
				rs = append(rs, fmt.Sprintf("`%s` (%s)", r.From, r.Kind))
			}
			if len(rs) > 0 {
				lines = append(lines, "Read by: "+strings.Join(rs, ", "))
			}
		}
	case ok && id.local != nil:
		def, via := fm.Origin(id.local)
		if def.End > def.Start {
			lines = append(lines, fmt.Sprintf("Computed in this query (`%s`) as `%s`", line1(snap, def), snippet(snap, def)))
			if deps := depList(fm.Deps(id.local)); deps != "" {
				lines = append(lines, "From: "+deps)
			}
		} else if via != nil {
			lines = append(lines, fmt.Sprintf("Passes on `%s`", *via))
			lines = append(lines, originLines(snap, g, g.Lookup(*via))...)
		}
	}
	md := fmt.Sprintf("**%s**", name)
	if typ != "" {
		md += " · " + preview.SparkType(typ)
	}
	md += "\n\n" + of
	if len(lines) > 0 {
		md += "\n\n" + strings.Join(lines, "  \n")
	}
	return md
}

// starHover lists the columns a * expands to.
func starHover(snap *analysis.Snapshot, g *lineage.Graph, fm *lineage.FlowModel, sp lineage.Spot) string {
	var b strings.Builder
	b.WriteString("**`*`** expands to ")
	if len(sp.StarCols) == 0 {
		b.WriteString("columns that are not known (a table it reads has unknown columns)\n")
		return b.String()
	}
	fmt.Fprintf(&b, "%d columns\n\n| column | type | from |\n|---|---|---|\n", len(sp.StarCols))
	for _, c := range sp.StarCols {
		from := ""
		if c.Source != nil {
			from = relationPhrase(fm, g, *c.Source)
		}
		typ := c.Type
		if typ == "" && c.Source != nil {
			if t := c.Source.Rel.Table; t != nil && t.Kind == sema.TableCatalog {
				if col := g.Lookup(lineage.ColumnID{Table: fm.TableName(t), Column: c.Name}); col != nil {
					typ = col.Type
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", c.Name, preview.SparkType(typ), from)
	}
	return b.String()
}

// cteHover describes a CTE: where it is defined, its columns and readers.
func cteHover(snap *analysis.Snapshot, fm *lineage.FlowModel, sp lineage.Spot) string {
	cte := sp.CTE
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** · common table expression\n\nDefined at `%s`", cte.Name.Name, line1(snap, fm.Loc(cte.Name.Range)))
	if n := len(fm.CTERefs(cte)); n > 0 {
		fmt.Fprintf(&b, ", read %d time(s) in this query", n)
	}
	b.WriteString("\n")
	if out := fm.Model.Output(cte); out != nil && len(out.Columns) > 0 {
		var names []string
		for _, c := range out.Columns {
			names = append(names, c.Name)
		}
		b.WriteString("\nColumns: " + strings.Join(names, ", ") + "\n")
	}
	return b.String()
}

// symbolDefinition answers go-to-definition on a column (the expression
// computing it, in this query or upstream), a CTE reference (its
// definition) or a flow target (its dataset); ok is false otherwise.
func (s *Server) symbolDefinition(dp docPos) ([]protocol.Location, bool) {
	if f := targetAt(dp.snap, dp.rel, dp.off); f != nil {
		if d := dp.snap.Pipeline.Resolve(f.Target); d != nil {
			return []protocol.Location{locationOf(dp.snap, definitionLoc(d))}, true
		}
	}
	g, fm, sp := s.colSpot(dp)
	if fm == nil {
		return nil, false
	}
	if sp.CTE != nil {
		return []protocol.Location{locationOf(dp.snap, fm.Loc(sp.CTE.Name.Range))}, true
	}
	id, ok := identity(fm, sp)
	if !ok {
		return nil, false
	}
	var c *lineage.Column
	if id.local != nil {
		def, via := fm.Origin(id.local)
		if def.End > def.Start {
			return []protocol.Location{locationOf(dp.snap, def)}, true
		}
		if via == nil {
			return nil, false
		}
		c = g.Lookup(*via)
	} else {
		c = g.Lookup(*id.dataset)
	}
	for i := 0; c != nil && i < 32; i++ {
		next, _ := passesOn(c)
		if next == nil {
			break
		}
		c = g.Lookup(*next)
	}
	switch {
	case c == nil:
		return nil, false
	case c.Def.End > c.Def.Start:
		return []protocol.Location{locationOf(dp.snap, c.Def)}, true
	case c.Flow == nil:
		if src := dp.snap.Pipeline.Source(c.ID.Table); src != nil && src.Sample != "" {
			return []protocol.Location{fileStart(dp.snap, sampleTarget(dp.snap, src.Sample))}, true
		}
	}
	return nil, false
}

// symbolReferences answers references on a column, a CTE, a flow target
// or a pragma-form file's own dataset; ok is false otherwise.
func (s *Server) symbolReferences(dp docPos, decl bool) ([]protocol.Location, bool) {
	if d, _ := symbolDataset(dp); d != nil {
		out := []protocol.Location{}
		if decl {
			out = append(out, locationOf(dp.snap, definitionLoc(d)))
		}
		for _, l := range datasetLocs(dp.snap, d) {
			out = append(out, locationOf(dp.snap, l))
		}
		return out, true
	}
	defs, refs, ok := s.columnRefs(dp)
	if !ok {
		return nil, false
	}
	out := []protocol.Location{}
	if decl {
		for _, l := range defs {
			out = append(out, locationOf(dp.snap, l))
		}
	}
	for _, l := range refs {
		out = append(out, locationOf(dp.snap, l))
	}
	return out, true
}

// columnRefs returns the definitions and references of the column or CTE
// at a position.
func (s *Server) columnRefs(dp docPos) (defs, refs []ir.Loc, ok bool) {
	g, fm, sp := s.colSpot(dp)
	if fm == nil {
		return nil, nil, false
	}
	if sp.CTE != nil {
		for _, r := range fm.CTERefs(sp.CTE) {
			refs = append(refs, fm.Loc(r))
		}
		return []ir.Loc{fm.Loc(sp.CTE.Name.Range)}, refs, true
	}
	id, ok := identity(fm, sp)
	if !ok {
		return nil, nil, false
	}
	if id.local != nil {
		defs, refs = g.LocalReferences(fm, id.local)
	} else {
		defs, refs = g.References(*id.dataset)
	}
	return defs, refs, true
}

// symbolHighlight highlights a column's or CTE's names in the document.
func (s *Server) symbolHighlight(dp docPos) ([]protocol.DocumentHighlight, bool) {
	if d, _ := symbolDataset(dp); d != nil {
		out := []protocol.DocumentHighlight{}
		if d.Loc.File == dp.rel && !d.FromStem {
			out = append(out, protocol.DocumentHighlight{Range: rangeOf(dp.snap, d.NameLoc), Kind: protocol.DocumentHighlightKindWrite})
		}
		for _, l := range datasetLocs(dp.snap, d) {
			if l.File == dp.rel {
				out = append(out, protocol.DocumentHighlight{Range: rangeOf(dp.snap, l), Kind: protocol.DocumentHighlightKindRead})
			}
		}
		return out, true
	}
	defs, refs, ok := s.columnRefs(dp)
	if !ok {
		return nil, false
	}
	out := []protocol.DocumentHighlight{}
	for _, l := range defs {
		if l.File == dp.rel {
			out = append(out, protocol.DocumentHighlight{Range: rangeOf(dp.snap, l), Kind: protocol.DocumentHighlightKindWrite})
		}
	}
	for _, l := range refs {
		if l.File == dp.rel {
			out = append(out, protocol.DocumentHighlight{Range: rangeOf(dp.snap, l), Kind: protocol.DocumentHighlightKindRead})
		}
	}
	return out, true
}

// symbolPrepareRename answers prepareRename on a column or CTE; a column
// of a source is refused (err), with the reason.
func (s *Server) symbolPrepareRename(dp docPos) (any, bool, error) {
	if d, loc := symbolDataset(dp); d != nil {
		if !d.FromStem || loc.File == "" {
			loc = lastSegmentLoc(dp.snap, loc)
		}
		return map[string]any{"range": rangeOf(dp.snap, loc), "placeholder": lastPart(d.Name)}, true, nil
	}
	g, fm, sp := s.colSpot(dp)
	if fm == nil {
		return nil, false, nil
	}
	if sp.CTE != nil {
		return map[string]any{"range": rangeOf(dp.snap, fm.Loc(sp.Range)), "placeholder": sp.CTE.Name.Name}, true, nil
	}
	id, ok := identity(fm, sp)
	if !ok {
		return nil, false, nil
	}
	name := ""
	if id.local != nil {
		name = id.local.Name
	} else {
		name = id.dataset.Column
		if err := sourceColumnRefusal(g, *id.dataset); err != nil {
			return nil, true, err
		}
	}
	return map[string]any{"range": rangeOf(dp.snap, fm.Loc(sp.Range)), "placeholder": name}, true, nil
}

// sourceColumnRefusal is the refusal to rename a column of a source table:
// its name comes from outside the pipeline.
func sourceColumnRefusal(g *lineage.Graph, id lineage.ColumnID) error {
	t := g.Table(id.Table)
	if t == nil || t.Source == nil {
		return nil
	}
	where := "the external table"
	if t.Source.Sample != "" {
		where = t.Source.Sample + " and the external table"
	}
	return jsonrpc2.Errorf(RequestFailed, "%s is a column of the source %s, which this pipeline reads but does not define: rename it in %s, then rename its readers here", id.Column, t.Name, where)
}

// symbolRename renames the column or CTE at a position; ok is false when
// the position is on neither.
func (s *Server) symbolRename(dp docPos, newName string) (map[string][]protocol.TextEdit, bool, error) {
	g, fm, sp := s.colSpot(dp)
	if fm == nil {
		return nil, false, nil
	}
	var id colIdentity
	if sp.CTE == nil {
		var ok bool
		if id, ok = identity(fm, sp); !ok {
			return nil, false, nil
		}
	}
	if !validColumnName.MatchString(newName) {
		return nil, true, jsonrpc2.Errorf(RequestFailed, "%q is not a plain SQL identifier: use letters, digits and underscores, not starting with a digit", newName)
	}
	if w := strings.ToLower(newName); reservedWords[w] {
		return nil, true, jsonrpc2.Errorf(RequestFailed, "%q is an SQL keyword: pick another name", newName)
	}
	var edits []lineage.Edit
	var err error
	switch {
	case sp.CTE != nil:
		edits, err = fm.RenameCTE(sp.CTE, newName)
	case id.local != nil:
		edits, err = g.RenameLocal(fm, id.local, newName)
	default:
		if err := sourceColumnRefusal(g, *id.dataset); err != nil {
			return nil, true, err
		}
		edits, err = g.RenameColumn(*id.dataset, newName)
	}
	if err != nil {
		return nil, true, jsonrpc2.Errorf(RequestFailed, "%v", err)
	}
	return editsOf(dp.snap, edits), true, nil
}

// documentChanges turns edits per file into the documentChanges of a
// workspace edit, each versioned by its open buffer.
func (s *Server) documentChanges(snap *analysis.Snapshot, edits map[string][]protocol.TextEdit) []any {
	changes := []any{}
	for _, f := range sortedKeys(edits) {
		abs := snap.Abs(f)
		s.mu.Lock()
		var version *int32
		if o, ok := s.overlays[abs]; ok {
			v := o.version
			version = &v
		}
		s.mu.Unlock()
		changes = append(changes, map[string]any{
			"textDocument": map[string]any{"uri": uri.File(abs), "version": version},
			"edits":        edits[f],
		})
	}
	return changes
}
