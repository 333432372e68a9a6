package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/ir"
)

// standInExts are the sample formats a Python dataset's stand-in may
// have, in the order analysis's convention prefers them (by path).
var standInExts = []string{".csv", ".json", ".ndjson", ".parquet"}

// pythonStandIn returns the sample that stands in for the rows of dataset
// d when a flow into it is a Python function Thund does not state in SQL
// (analysis.DefinedInPython): samples/<name>.csv, .json, .ndjson or
// .parquet in the pipeline folder, or "" when there is none. A qualified
// name (cat.sch.x) looks for samples/cat.sch.x.* first, then for the
// file of its last part, samples/x.* (analysis.StandInNames).
func (st *runState) pythonStandIn(d *ir.Dataset) string {
	for _, name := range analysis.StandInNames(d.Name) {
		for _, ext := range standInExts {
			rel := "samples/" + name + ext
			if fi, err := os.Stat(filepath.Join(st.s.Root, filepath.FromSlash(rel))); err == nil && fi.Mode().IsRegular() {
				return rel
			}
		}
	}
	return ""
}

// standInRelation is the DuckDB relation a stand-in sample is read into
// for dataset name: never the dataset's own relation (the last part of
// its name), whatever its qualifiers.
func standInRelation(name string) string {
	return "thund_standin_" + strings.ReplaceAll(strings.ToLower(name), ".", "__")
}

// standInFlow returns the flow that fills d from its stand-in sample in
// place of the Python flow f: the sample is read as a view (like a
// source's), and the flow selects every row of it as a batch.
func (st *runState) standInFlow(ctx context.Context, d *ir.Dataset, f *ir.Flow) (*ir.Flow, error) {
	sample := st.pythonStandIn(d)
	if sample == "" {
		return nil, &flowError{f.Name, fmt.Errorf("%s", analysis.PythonNotRun)}
	}
	if err := st.registerSample(ctx, standInRelation(d.Name), sample, false, "stand-in sample of "+d.Name); err != nil {
		return nil, &flowError{f.Name, err}
	}
	// Said once per run, as a plan worth saying: the rows are the
	// sample's, not the body's.
	st.emit(Event{Dataset: d.Name, Flow: f.Name, Phase: Planning,
		Message: fmt.Sprintf("the Python body of %s is not run: its rows come from %s", d.Name, sample)})
	g := *f
	g.SQL = ""
	g.Normalized = "SELECT * FROM " + quoteIdent(standInRelation(d.Name))
	g.Dialect = "duckdb"
	g.Streaming, g.CDC, g.Watermark, g.Reads = false, nil, nil, nil
	return &g, nil
}
