package parser

import "github.com/thund-dev/thund/analysis/sparksql/ast"

// The nodes most statements have many of, column references, are taken
// from chunks a parser allocates a few at a time, as identifiers are
// (newIdent): one allocation for several nodes. A chunk holds nodes of
// one parser, that is of one file's statements, so a tree kept alive
// keeps no other file's nodes.

// chunk hands out zero values of T from slices of n allocated at a time.
type chunk[T any] struct{ free []T }

// next returns a new zero T.
func (c *chunk[T]) next(n int) *T {
	if len(c.free) == 0 {
		c.free = make([]T, n)
	}
	x := &c.free[0]
	c.free = c.free[1:]
	return x
}

// columnChunk is how many column references a chunk holds. A tree keeps
// its chunks' unused rests alive (the tree is kept as long as its file's
// analysis), so chunks are small: on average half a chunk is unused.
const columnChunk = 4

// allocs are a parser's node chunks.
type allocs struct {
	columns chunk[columnAlloc]
}

// nameAlloc is a name with room for two parts (t, or s.t), allocated
// at once.
type nameAlloc struct {
	name  ast.Name
	parts [2]*ast.Ident
}

// newName returns an empty name whose parts have room for two.
func (p *parser) newName() *ast.Name {
	a := &nameAlloc{}
	a.name.Parts = a.parts[:0:2]
	return &a.name
}
