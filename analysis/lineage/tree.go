package lineage

// Node is one column of a lineage tree: the column, how its parent
// depends on it (upstream) or it on its parent (downstream), and its own
// children. Repeated is set on a column already shown higher in the tree
// (its children are not repeated).
type Node struct {
	ID       ColumnID `json:"id"`
	Kind     Kind     `json:"kind,omitempty"`
	Repeated bool     `json:"repeated,omitempty"`
	Children []*Node  `json:"children,omitempty"`
}

// maxTree bounds the nodes of one tree (a wide pipeline's downstream
// cone can be large).
const maxTree = 5000

// Upstream returns the tree of the columns id is computed from, up to
// the source tables.
func (g *Graph) Upstream(id ColumnID) *Node {
	return g.tree(id, func(id ColumnID) []Dep {
		if c := g.Lookup(id); c != nil {
			return c.Deps
		}
		return nil
	})
}

// Downstream returns the tree of the columns computed from id, down to
// the last datasets.
func (g *Graph) Downstream(id ColumnID) *Node {
	return g.tree(id, g.Readers)
}

func (g *Graph) tree(id ColumnID, next func(ColumnID) []Dep) *Node {
	if c := g.Lookup(id); c != nil {
		id = c.ID
	}
	root := &Node{ID: id}
	seen := map[string]bool{id.key(): true}
	count := 0
	var walk func(n *Node)
	walk = func(n *Node) {
		for _, d := range next(n.ID) {
			if count++; count > maxTree {
				return
			}
			child := &Node{ID: d.From, Kind: d.Kind}
			n.Children = append(n.Children, child)
			if seen[d.From.key()] {
				child.Repeated = true
				continue
			}
			seen[d.From.key()] = true
			walk(child)
		}
	}
	walk(root)
	return root
}

// Closure returns every column of a tree but its root, once each.
func (n *Node) Closure() []ColumnID {
	var out []ColumnID
	seen := map[string]bool{n.ID.key(): true}
	var walk func(*Node)
	walk = func(x *Node) {
		for _, c := range x.Children {
			if !seen[c.ID.key()] {
				seen[c.ID.key()] = true
				out = append(out, c.ID)
			}
			walk(c)
		}
	}
	walk(n)
	return out
}
