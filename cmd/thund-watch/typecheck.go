package main

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/lineage"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/engine/translate"
	"github.com/thund-dev/thund/ir"
)

// typeChecks returns the type errors of plain --check: each Spark SQL
// batch flow is translated as a native run would translate it (pure Go,
// no DuckDB), against the columns the analysis knows of the tables it
// reads (each dataset's computed output, each source's CSV header), and
// every expression Spark's analyzer rejects for its operands' types
// (DATATYPE_MISMATCH.* and the like, as the translator is sure of them)
// is an error at its range. Where a type is unknown (a CSV column, say)
// nothing is said; --check --columns binds on DuckDB for those. Name
// errors are left out: the analysis reports them already, at the same
// ranges.
func typeChecks(snap *analysis.Snapshot) []ir.Diagnostic {
	if snap.Pipeline == nil {
		return nil
	}
	g := lineage.New(lineage.Input{Pipeline: snap.Pipeline, Tree: snap.SparkTree, Text: snap.Text, SourceColumns: snap.SampleColumns})
	cat := graphCatalog{g}
	seen := map[ir.Loc]bool{}
	for _, d := range snap.Diagnostics {
		seen[ir.Loc{File: d.Loc.File, Start: d.Loc.Start, End: d.Loc.End}] = true
	}
	macros := engine.SparkMacroNames()
	flows := snap.Pipeline.Flows
	found := make([][]translate.Finding, len(flows))
	// The flows are translated on every core; the graph computes each
	// table once, under its lock.
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(flows) {
					return
				}
				found[i] = translateFlow(snap, flows[i], cat, macros)
			}
		}()
	}
	wg.Wait()
	var out []ir.Diagnostic
	for i, f := range flows {
		file := f.QueryLoc.File
		for _, x := range found[i] {
			if x.Code != translate.CodeTypeError || nameClass(x.Message) {
				continue
			}
			loc := ir.Loc{File: file, Start: x.Start, End: x.End}
			if seen[loc] {
				continue
			}
			seen[loc] = true
			out = append(out, ir.Diagnostic{Loc: loc, Severity: ir.Error, Code: ir.CodeBinder,
				Message: x.Message})
		}
	}
	return out
}

// translateFlow returns the findings of f's translation; nil for a flow a
// run does not translate (DuckDB dialect, streaming, CDC, no Spark tree).
func translateFlow(snap *analysis.Snapshot, f *ir.Flow, cat sema.Catalog, macros map[string]bool) []translate.Finding {
	if f == nil || f.Dialect == "duckdb" || f.Streaming || f.CDC != nil || strings.TrimSpace(f.SQL) == "" {
		return nil
	}
	tree := snap.SparkTree(f)
	if tree == nil {
		return nil
	}
	text, ok := snap.Text(f.QueryLoc.File)
	if !ok {
		return nil
	}
	return translate.Translate(tree, text, translate.Options{Catalog: cat, Macros: macros}).Findings
}

// nameClass reports whether a finding's message is one of sema's name
// errors (its error class in brackets): the analysis reports those
// itself, through its column check, as unknown-column and its kin. Its
// other analysis errors come through the column check too, at the same
// ranges, and are left out as repeats.
func nameClass(msg string) bool {
	if !strings.HasPrefix(msg, "[") {
		return false
	}
	i := strings.IndexByte(msg, ']')
	if i < 0 {
		return false
	}
	return sema.NameCodes[msg[1:i]]
}

// graphCatalog answers the translator's table lookups with the columns
// the lineage graph computes (types where the analysis knows them).
type graphCatalog struct{ g *lineage.Graph }

// Table implements sema.Catalog.
func (c graphCatalog) Table(name []string) ([]sema.Column, bool) {
	t := c.g.Table(strings.Join(name, "."))
	if t == nil {
		return nil, false
	}
	if !t.Complete {
		return nil, true
	}
	cols := make([]sema.Column, len(t.Columns))
	for i, col := range t.Columns {
		cols[i] = sema.Column{Name: col.ID.Column, Type: col.Type}
	}
	return cols, true
}
