package analysis

import (
	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/ir"
)

// SparkTree returns the Spark SQL syntax tree of a flow's query (its
// ranges are offsets in the flow's file), or nil when the query did not
// parse with Spark's grammar.
func (s *Snapshot) SparkTree(f *ir.Flow) *ast.Query {
	if f == nil {
		return nil
	}
	file := f.QueryLoc.File
	if file == "" {
		file = f.Loc.File
	}
	if r, ok := s.results[file]; ok {
		return r.tree(f)
	}
	return nil
}

// SampleColumns returns the column names of a source's CSV sample (its
// header), as the column check reads them; nil when the source has no
// plain CSV sample or its header cannot be read.
func (s *Snapshot) SampleColumns(src *ir.Source) []sema.Column {
	if src == nil {
		return nil
	}
	c := &columnCheck{s: s, samples: map[string][]sema.Column{}}
	return c.sampleColumns(src)
}
