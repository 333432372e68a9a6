package sqlfront

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/ir"
)

// queryShape reads q's joins, and the window functions and ORDER BYs of
// its parts that read a stream (STREAM name, a CTE or subquery that
// does), for the streaming checks; nil without a tree.
func queryShape(file string, q *ast.Query) *ir.QueryShape {
	if q == nil {
		return nil
	}
	sh := &shaper{file: file, ctes: map[string]bool{}, out: &ir.QueryShape{}}
	sh.query(q)
	return sh.out
}

// shaper walks a query for queryShape.
type shaper struct {
	file string
	// ctes tells, by lower-case name, whether each CTE in scope reads a
	// stream.
	ctes map[string]bool
	out  *ir.QueryShape
}

func (s *shaper) loc(r ast.Range) ir.Loc {
	return ir.Loc{File: s.file, Start: r.Start, End: r.End}
}

// query reports whether q reads a stream.
func (s *shaper) query(q *ast.Query) bool {
	if q == nil {
		return false
	}
	if q.With != nil {
		for _, c := range q.With.CTEs {
			if c.Name != nil {
				s.ctes[strings.ToLower(c.Name.Name)] = s.query(c.Query)
			}
		}
	}
	streaming := s.body(q.Body)
	if streaming && s.out.StreamOrderBy == (ir.Loc{}) {
		switch {
		case len(q.OrderBy) > 0:
			s.out.StreamOrderBy = s.loc(ast.Range{Start: q.OrderBy[0].Range.Start, End: q.OrderBy[len(q.OrderBy)-1].Range.End})
		case len(q.SortBy) > 0:
			s.out.StreamOrderBy = s.loc(ast.Range{Start: q.SortBy[0].Range.Start, End: q.SortBy[len(q.SortBy)-1].Range.End})
		}
	}
	return streaming
}

// body reports whether a query body reads a stream.
func (s *shaper) body(b ast.QueryExpr) bool {
	switch b := b.(type) {
	case *ast.Select:
		streaming := false
		if b.From != nil {
			if len(b.From.Relations) > 1 {
				s.out.Joins = true
			}
			for _, r := range b.From.Relations {
				streaming = s.rel(r) || streaming
			}
		}
		if streaming {
			ast.Inspect(b, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.Subquery, *ast.Exists, *ast.From:
					return false // their own queries, and the relations above
				case *ast.Call:
					if n.Over != nil {
						s.out.StreamWindows = append(s.out.StreamWindows, s.loc(n.Range))
					}
				}
				return true
			})
		}
		return streaming
	case *ast.SetOp:
		l := s.body(b.L)
		r := s.body(b.R)
		return l || r
	case *ast.ParenQuery:
		return s.query(b.Query)
	}
	return false
}

// rel reports whether a relation of FROM reads a stream.
func (s *shaper) rel(r ast.Relation) bool {
	switch r := r.(type) {
	case *ast.Table:
		if r.Stream {
			return true
		}
		if r.Name != nil && len(r.Name.Parts) == 1 {
			return s.ctes[strings.ToLower(r.Name.Parts[0].Name)]
		}
	case *ast.Join:
		s.out.Joins = true
		l := s.rel(r.L)
		rr := s.rel(r.R)
		return l || rr
	case *ast.SubqueryRel:
		return s.query(r.Query)
	case *ast.ParenRel:
		return s.rel(r.Rel)
	}
	return false
}
