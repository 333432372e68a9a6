package parser

import "github.com/thund-dev/thund/analysis/sparksql/ast"

// The nodes most statements have many of (select items, column
// references, names, calls) are taken from chunks a parser allocates a few
// at a time, as identifiers are (newIdent): one allocation for several
// nodes. A chunk holds nodes of one parser, that is of one file's
// statements, so a tree kept alive keeps no other file's nodes.

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

// Chunk sizes: about what one pipeline query holds.
const (
	itemChunk   = 8
	columnChunk = 16
	nameChunk   = 8
	callChunk   = 4
)

// allocs are a parser's node chunks.
type allocs struct {
	items   chunk[ast.SelectItem]
	columns chunk[columnAlloc]
	names   chunk[nameAlloc]
	calls   chunk[ast.Call]
}

// nameAlloc is a name with room for two parts (t, or s.t), allocated
// at once.
type nameAlloc struct {
	name  ast.Name
	parts [2]*ast.Ident
}

// newName returns an empty name whose parts have room for two.
func (p *parser) newName() *ast.Name {
	a := p.alloc.names.next(nameChunk)
	a.name.Parts = a.parts[:0:2]
	return &a.name
}

// newSelectItem returns a new select item of x.
func (p *parser) newSelectItem(x ast.Expr) *ast.SelectItem {
	it := p.alloc.items.next(itemChunk)
	it.X = x
	return it
}

// newCall returns a new, empty call.
func (p *parser) newCall() *ast.Call { return p.alloc.calls.next(callChunk) }
