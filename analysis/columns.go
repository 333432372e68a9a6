package analysis

import (
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/ir"
)

// noteTree remembers a flow's Spark syntax tree for the column check.
func (res *fileResult) noteTree(f *ir.Flow, q *ast.Query) {
	if q == nil {
		return
	}
	if res.trees == nil {
		res.trees = map[*ir.Flow]*ast.Query{}
	}
	res.trees[f] = q
}

// columnCheck resolves every column of every flow's query with the Spark
// semantic model (analysis/sparksql/sema) against the pipeline's own
// datasets and the header of each source's CSV sample, and reports the
// name errors it is certain of: unknown and ambiguous columns and
// columns neither grouped nor aggregated. A table whose columns are not
// known (a source without a CSV sample, a dataset whose output the model
// cannot compute) is never checked, so there is no false alarm there.
//
// A flow's result is kept in the snapshot and reused by the next one when
// the flow is the same (its file did not change) and every table it read
// answers with the same columns, so an edit re-resolves only the edited
// file and the flows whose inputs' columns changed.
type columnCheck struct {
	s     *Snapshot
	p     *ir.Pipeline
	trees map[*ir.Flow]*ast.Query
	texts map[*ir.Flow]string
	// prev are the previous snapshot's results; done this build's.
	prev, done map[*ir.Flow]*flowColumns
	inProgress map[*ir.Flow]bool
	samples    map[string][]sema.Column
	// own is each dataset's own flow (not an append flow), and sources
	// the sources by name key.
	own     map[string]*ir.Flow
	sources map[string]*ir.Source
}

// flowColumns is the column check's result for one flow.
type flowColumns struct {
	diags []ir.Diagnostic
	// out are the query's output columns, nil when not known.
	out []sema.Column
	// deps are the catalog's answers the result rests on.
	deps []catalogAnswer
}

// catalogAnswer is one table lookup and what it returned.
type catalogAnswer struct {
	name []string
	cols []sema.Column
	ok   bool
}

// columns runs the column check over the pipeline.
func (s *Snapshot) columns(p *ir.Pipeline, results []*fileResult, prev map[*ir.Flow]*flowColumns) []ir.Diagnostic {
	c := &columnCheck{s: s, p: p, trees: map[*ir.Flow]*ast.Query{}, texts: map[*ir.Flow]string{},
		prev: prev, done: map[*ir.Flow]*flowColumns{}, inProgress: map[*ir.Flow]bool{},
		samples: map[string][]sema.Column{}}
	defer func() { s.colCache = c.done }()
	for _, r := range results {
		for f, q := range r.trees {
			c.trees[f] = q
			c.texts[f] = r.text
		}
	}
	if len(c.trees) == 0 {
		return nil
	}
	c.own = make(map[string]*ir.Flow, len(p.Flows))
	for _, f := range p.Flows {
		if k := ir.NameKey(f.Target); !f.Append && c.own[k] == nil {
			c.own[k] = f
		}
	}
	c.sources = make(map[string]*ir.Source, len(p.Sources))
	for _, src := range p.Sources {
		if k := ir.NameKey(src.Name); c.sources[k] == nil {
			c.sources[k] = src
		}
	}
	var diags []ir.Diagnostic
	for _, f := range p.Flows {
		if r := c.result(f); r != nil {
			diags = append(diags, r.diags...)
		}
	}
	return diags
}

// columnCode maps Spark's error class to Thund's diagnostic code.
func columnCode(class string) ir.Code {
	switch class {
	case "AMBIGUOUS_REFERENCE":
		return ir.CodeAmbiguousColumn
	case "MISSING_AGGREGATION", "MISSING_GROUP_BY":
		return ir.CodeMissingAggregation
	}
	return ir.CodeUnknownColumn
}

// result checks f once per build, reusing the previous snapshot's result
// when it still holds.
func (c *columnCheck) result(f *ir.Flow) *flowColumns {
	if r, ok := c.done[f]; ok {
		return r
	}
	q := c.trees[f]
	if q == nil || c.inProgress[f] {
		return nil // no tree, or a cycle (reported elsewhere)
	}
	c.inProgress[f] = true
	defer delete(c.inProgress, f)
	if old := c.prev[f]; old != nil && c.still(old) {
		c.done[f] = old
		return old
	}
	rec := &recorder{c: c}
	m := sema.Analyze(q, rec, sema.Options{Source: c.texts[f]})
	r := &flowColumns{deps: rec.answers}
	for _, d := range m.Diagnostics {
		r.diags = append(r.diags, ir.Diagnostic{
			Loc:      ir.Loc{File: f.QueryLoc.File, Start: d.Start, End: d.End},
			Severity: ir.Error, Code: columnCode(d.Code), Message: d.Message,
		})
	}
	if out := m.Output(q); out != nil && out.Complete {
		r.out = make([]sema.Column, 0, len(out.Columns))
		for _, oc := range out.Columns {
			r.out = append(r.out, sema.Column{Name: oc.Name, Type: oc.Type})
		}
	}
	c.done[f] = r
	return r
}

// still reports whether every table a previous result read answers the
// same now.
func (c *columnCheck) still(r *flowColumns) bool {
	for _, a := range r.deps {
		cols, ok := c.lookup(a.name)
		if ok != a.ok || !sameColumns(cols, a.cols) {
			return false
		}
	}
	return true
}

func sameColumns(a, b []sema.Column) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// recorder is the sema.Catalog of one flow: the pipeline's, recording
// each answer.
type recorder struct {
	c       *columnCheck
	answers []catalogAnswer
}

// Table resolves a name to a dataset (its computed output) or a source
// (its CSV sample's header).
func (r *recorder) Table(name []string) ([]sema.Column, bool) {
	cols, ok := r.c.lookup(name)
	r.answers = append(r.answers, catalogAnswer{name: append([]string(nil), name...), cols: cols, ok: ok})
	return cols, ok
}

// lookup answers a table name.
func (c *columnCheck) lookup(name []string) ([]sema.Column, bool) {
	if len(name) == 0 {
		return nil, false
	}
	full := strings.Join(name, ".")
	if d := c.p.Resolve(full); d != nil {
		if f := c.own[ir.NameKey(d.Name)]; f != nil {
			if r := c.result(f); r != nil {
				return r.out, true
			}
		}
		return nil, true
	}
	if src := c.sources[ir.NameKey(full)]; src != nil {
		return c.sampleColumns(src), true
	}
	if src := c.sources[ir.NameKey(name[len(name)-1])]; src != nil {
		return c.sampleColumns(src), true
	}
	return nil, false
}

// maxHeader bounds what is read of a sample to find its header.
const maxHeader = 64 << 10

// sampleColumns returns the column names of src's CSV sample (its header
// line), or nil when it has none or it is not a plain CSV file.
func (c *columnCheck) sampleColumns(src *ir.Source) []sema.Column {
	if src.Sample == "" || src.Stream || !strings.EqualFold(filepath.Ext(src.Sample), ".csv") {
		return nil
	}
	if cols, ok := c.samples[src.Sample]; ok {
		return cols
	}
	var cols []sema.Column
	if text, ok := c.s.heads[src.Sample]; ok {
		// a sample an editor or watcher handed over with its text
		cols = csvHeader(strings.NewReader(text))
	} else {
		cols = readCSVHeader(filepath.Join(c.s.Root, filepath.FromSlash(src.Sample)))
	}
	c.samples[src.Sample] = cols
	return cols
}

// readCSVHeader reads the first record of a CSV file. Only a regular file
// is opened (never a FIFO or a device, which could block), and at most
// maxHeader bytes are read.
func readCSVHeader(path string) []sema.Column {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	return csvHeader(f)
}

// csvHeader reads the first record of a CSV text as column names.
func csvHeader(in io.Reader) []sema.Column {
	r := csv.NewReader(io.LimitReader(in, maxHeader))
	r.FieldsPerRecord = -1
	rec, err := r.Read()
	if err != nil || len(rec) == 0 {
		return nil
	}
	cols := make([]sema.Column, 0, len(rec))
	for i, name := range rec {
		name = strings.TrimSpace(name)
		if i == 0 {
			name = strings.TrimPrefix(name, "\uFEFF")
		}
		if name == "" || looksNumeric(name) {
			// DuckDB would name it column0..., or read the line as data
			// (no header): the columns are not known
			return nil
		}
		cols = append(cols, sema.Column{Name: name})
	}
	return cols
}

// looksNumeric reports whether a header field reads as a number, which
// DuckDB's sniffer may take for a data row.
func looksNumeric(s string) bool {
	digits := 0
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case (r == '-' || r == '+') && i == 0, r == '.', r == 'e', r == 'E':
		default:
			return false
		}
	}
	return digits > 0
}
