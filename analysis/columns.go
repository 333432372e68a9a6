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
type columnCheck struct {
	s     *Snapshot
	p     *ir.Pipeline
	trees map[*ir.Flow]*ast.Query
	texts map[*ir.Flow]string
	// outputs memoises each dataset's columns; inProgress breaks cycles
	// (reported elsewhere).
	outputs    map[*ir.Dataset][]sema.Column
	known      map[*ir.Dataset]bool
	inProgress map[*ir.Dataset]bool
	samples    map[string][]sema.Column
	models     map[*ir.Flow]*sema.Model
}

// columns runs the column check over the pipeline.
func (s *Snapshot) columns(p *ir.Pipeline, results []*fileResult) []ir.Diagnostic {
	c := &columnCheck{s: s, p: p, trees: map[*ir.Flow]*ast.Query{}, texts: map[*ir.Flow]string{},
		outputs: map[*ir.Dataset][]sema.Column{}, known: map[*ir.Dataset]bool{},
		inProgress: map[*ir.Dataset]bool{}, samples: map[string][]sema.Column{}, models: map[*ir.Flow]*sema.Model{}}
	for _, r := range results {
		for f, q := range r.trees {
			c.trees[f] = q
			c.texts[f] = r.text
		}
	}
	if len(c.trees) == 0 {
		return nil
	}
	var diags []ir.Diagnostic
	for _, f := range p.Flows {
		m := c.model(f)
		if m == nil {
			continue
		}
		for _, d := range m.Diagnostics {
			diags = append(diags, ir.Diagnostic{
				Loc:      ir.Loc{File: f.QueryLoc.File, Start: d.Start, End: d.End},
				Severity: ir.Error, Code: columnCode(d.Code), Message: d.Message,
			})
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

// model analyses f's query once.
func (c *columnCheck) model(f *ir.Flow) *sema.Model {
	if m, ok := c.models[f]; ok {
		return m
	}
	q := c.trees[f]
	if q == nil {
		c.models[f] = nil
		return nil
	}
	m := sema.Analyze(q, catalog{c}, sema.Options{Source: c.texts[f]})
	c.models[f] = m
	return m
}

// catalog is the sema.Catalog of the pipeline.
type catalog struct{ c *columnCheck }

// Table resolves a name to a dataset (its computed output) or a source
// (its CSV sample's header).
func (k catalog) Table(name []string) ([]sema.Column, bool) {
	full := strings.Join(name, ".")
	if d := k.c.p.Resolve(full); d != nil {
		return k.c.datasetColumns(d), true
	}
	for _, src := range k.c.p.Sources {
		if ir.NameKey(src.Name) == ir.NameKey(full) || ir.NameKey(src.Name) == ir.NameKey(name[len(name)-1]) {
			return k.c.sampleColumns(src), true
		}
	}
	return nil, false
}

// datasetColumns returns the output columns of d's own query, or nil when
// they are not known.
func (c *columnCheck) datasetColumns(d *ir.Dataset) []sema.Column {
	if c.known[d] {
		return c.outputs[d]
	}
	if c.inProgress[d] {
		return nil
	}
	c.inProgress[d] = true
	defer delete(c.inProgress, d)
	var cols []sema.Column
	for _, f := range c.p.Flows {
		if ir.NameKey(f.Target) != ir.NameKey(d.Name) || f.Append {
			continue
		}
		q := c.trees[f]
		m := c.model(f)
		if m == nil || q == nil {
			break
		}
		out := m.Output(q)
		if out == nil || !out.Complete {
			break
		}
		for _, oc := range out.Columns {
			cols = append(cols, sema.Column{Name: oc.Name, Type: oc.Type})
		}
		break
	}
	c.known[d] = true
	c.outputs[d] = cols
	return cols
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
