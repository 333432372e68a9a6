package lsp

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/lineage"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/preview"
)

// Columns and CTEs as symbols: hover, definition, references and rename
// of the columns and CTEs of the queries, read from the column lineage
// of package analysis/lineage, and the flow targets as references of
// their datasets.

// graphCache keeps the column graphs of the last snapshots: a graph is
// computed lazily and shared by every request on one snapshot (and one
// description of its columns' types).
var graphCache struct {
	sync.Mutex
	entries []graphEntry
}

type graphEntry struct {
	snap  *analysis.Snapshot
	types any // the description whose types the graph carries
	g     *lineage.Graph
}

const graphCacheSize = 8

// lineageGraph returns the column graph of a document's snapshot.
func (s *Server) lineageGraph(dp docPos) *lineage.Graph {
	desc := s.describeResult(dp.root)
	graphCache.Lock()
	defer graphCache.Unlock()
	for _, e := range graphCache.entries {
		if e.snap == dp.snap && e.types == desc {
			return e.g
		}
	}
	root := dp.root
	snap := dp.snap
	// The newest graph of the same root: the flows of unchanged files
	// whose inputs kept their columns are not analyzed again.
	var prev *lineage.Graph
	for _, e := range graphCache.entries {
		if e.snap.Root == snap.Root && e.types == desc {
			prev = e.g
		}
	}
	g := lineage.New(lineage.Input{
		Prev:     prev,
		Pipeline: snap.Pipeline,
		Tree:     snap.SparkTree,
		Text:     snap.Text,
		SourceColumns: func(src *ir.Source) []sema.Column {
			if cols := s.describedColumns(root, src.Name); len(cols) > 0 {
				return semaColumns(cols)
			}
			return snap.SampleColumns(src)
		},
		Types: func(dataset string) map[string]string {
			cols := s.describedColumns(root, dataset)
			if len(cols) == 0 {
				return nil
			}
			out := make(map[string]string, len(cols))
			for _, c := range cols {
				out[strings.ToLower(c.Name)] = c.Type
			}
			return out
		},
	})
	graphCache.entries = append(graphCache.entries, graphEntry{snap: snap, types: desc, g: g})
	if len(graphCache.entries) > graphCacheSize {
		graphCache.entries = graphCache.entries[1:]
	}
	return g
}

func semaColumns(cols []preview.Column) []sema.Column {
	out := make([]sema.Column, len(cols))
	for i, c := range cols {
		out[i] = sema.Column{Name: c.Name, Type: c.Type}
	}
	return out
}

// colSpot returns the flow model and what is at the position, for a
// position in a query that parsed with Spark's grammar.
func (s *Server) colSpot(dp docPos) (*lineage.Graph, *lineage.FlowModel, lineage.Spot) {
	f := flowAt(dp.snap, dp.rel, dp.off)
	if f == nil || dp.snap.SparkTree(f) == nil {
		return nil, nil, lineage.Spot{}
	}
	s.useColumns(dp.root)
	g := s.lineageGraph(dp)
	fm := g.Flow(f)
	if fm == nil {
		return nil, nil, lineage.Spot{}
	}
	return g, fm, fm.At(dp.off)
}

// colIdentity is the column a spot names: a dataset's output column
// (dataset set), or a column local to the flow's query (local set).
type colIdentity struct {
	dataset *lineage.ColumnID
	local   *sema.OutputColumn
}

// identity returns the column a spot names.
func identity(fm *lineage.FlowModel, sp lineage.Spot) (colIdentity, bool) {
	var oc *sema.OutputColumn
	switch {
	case sp.Ref != nil && sp.Ref.Kind == sema.RefColumn:
		src := sp.Ref.Source
		if t := src.Rel.Table; t != nil && t.Kind == sema.TableCatalog {
			name := fm.TableName(t)
			col := src.Column()
			if name == "" || col == nil {
				return colIdentity{}, false
			}
			cn := col.Name
			if src.Index < len(t.Columns) {
				cn = t.Columns[src.Index].Name
			}
			return colIdentity{dataset: &lineage.ColumnID{Table: name, Column: cn}}, true
		}
		oc = src.Column()
	case sp.Ref != nil && sp.Ref.Kind == sema.RefAlias:
		for _, c := range fm.Columns() {
			if c.Item == sp.Ref.Alias {
				oc = c
				break
			}
		}
	case sp.Out != nil:
		oc = sp.Out
	}
	if oc == nil {
		return colIdentity{}, false
	}
	if out := fm.Model.Output(fm.Tree); out != nil {
		for _, c := range out.Columns {
			if c == oc {
				return colIdentity{dataset: &lineage.ColumnID{Table: fm.Flow.Target, Column: oc.Name}}, true
			}
		}
	}
	return colIdentity{local: oc}, true
}

// datasetTargets returns the append flows whose target (the @target
// value, INSERT INTO t of CREATE FLOW) is the dataset.
func datasetTargets(snap *analysis.Snapshot, d *ir.Dataset) []*ir.Flow {
	var out []*ir.Flow
	for _, f := range snap.Pipeline.Flows {
		if f.Append && f.TargetLoc.End > f.TargetLoc.Start && snap.Pipeline.Resolve(f.Target) == d {
			out = append(out, f)
		}
	}
	return out
}

// targetAt returns the append flow whose target name holds the offset.
func targetAt(snap *analysis.Snapshot, rel string, off int) *ir.Flow {
	for _, f := range snap.FlowsIn(rel) {
		if f.Append && f.TargetLoc.File == rel && f.TargetLoc.Start <= off && off <= f.TargetLoc.End && f.TargetLoc.End > f.TargetLoc.Start {
			return f
		}
	}
	return nil
}

// ownDatasetAt returns the dataset a pragma-form file defines when the
// offset is on the file's header comment (not on a pragma) or on the
// query's first keyword: the places that stand for the dataset in a file
// that does not name it.
func ownDatasetAt(snap *analysis.Snapshot, rel string, off int) *ir.Dataset {
	ds := snap.DatasetsIn(rel)
	if len(ds) != 1 || ds[0].Loc.Start != 0 {
		return nil
	}
	d := ds[0]
	var flow *ir.Flow
	for _, f := range snap.FlowsIn(rel) {
		if ir.NameKey(f.Target) == ir.NameKey(d.Name) {
			flow = f
		}
	}
	if flow == nil || flow.QueryLoc.File != rel {
		return nil
	}
	text, _ := snap.Text(rel)
	q := flow.QueryLoc.Start
	kw := q
	for kw < len(text) && isIdentByte(text[kw]) {
		kw++
	}
	if off >= q && off <= kw && kw > q {
		return d
	}
	if off >= q {
		return nil
	}
	for _, p := range snap.Pragmas(rel) {
		if p.Line.Start <= off && off <= p.Line.End {
			return nil
		}
	}
	// a comment line of the header
	ls := strings.LastIndexByte(text[:off], '\n') + 1
	if strings.HasPrefix(strings.TrimSpace(text[ls:]), "--") {
		return d
	}
	return nil
}

// ownDatasetWord is the range a hover or rename on a pragma-form file's
// own dataset covers: the query's first keyword, or the comment line.
func ownDatasetWord(snap *analysis.Snapshot, rel string, off int) ir.Loc {
	text, _ := snap.Text(rel)
	lo, hi := off, off
	for lo > 0 && isIdentByte(text[lo-1]) {
		lo--
	}
	for hi < len(text) && isIdentByte(text[hi]) {
		hi++
	}
	return ir.Loc{File: rel, Start: lo, End: hi}
}

// datasetLocs returns the references of a dataset: its reads and the
// targets of the flows appending into it.
func datasetLocs(snap *analysis.Snapshot, d *ir.Dataset) []ir.Loc {
	var out []ir.Loc
	for _, r := range snap.References(d.Name) {
		out = append(out, r.Loc)
	}
	for _, f := range datasetTargets(snap, d) {
		out = append(out, f.TargetLoc)
	}
	return out
}

// line1 returns file:line (1-based) of a location.
func line1(snap *analysis.Snapshot, loc ir.Loc) string {
	return fmt.Sprintf("%s:%d", loc.File, snap.Index(loc.File).Rune(loc.Start).Line+1)
}

// snippet returns the text of a location on one line, shortened.
func snippet(snap *analysis.Snapshot, loc ir.Loc) string {
	text, ok := snap.Text(loc.File)
	if !ok || loc.Start < 0 || loc.End > len(text) || loc.Start >= loc.End {
		return ""
	}
	s := strings.Join(strings.Fields(text[loc.Start:loc.End]), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// validColumnName checks a new column or CTE name.
var validColumnName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// editsOf groups lineage edits per file as protocol edits.
func editsOf(snap *analysis.Snapshot, edits []lineage.Edit) map[string][]protocol.TextEdit {
	out := map[string][]protocol.TextEdit{}
	for _, e := range edits {
		out[e.Loc.File] = append(out[e.Loc.File], protocol.TextEdit{Range: rangeOf(snap, e.Loc), NewText: e.NewText})
	}
	return out
}
