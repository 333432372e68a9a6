package ir

import (
	"fmt"
	"strings"
)

// NameKey is the identity of a dataset or table name: SQL identifiers are
// case-insensitive in Spark and DuckDB, so names match ignoring case.
func NameKey(name string) string { return strings.ToLower(name) }

// Resolve returns the dataset a table reference names, or nil when it names
// none (a source table or an unknown name). A qualified reference resolves
// when its qualifiers match the pipeline's catalog and database.
func (p *Pipeline) Resolve(ref string) *Dataset {
	key := NameKey(ref)
	parts := strings.Split(key, ".")
	name := parts[len(parts)-1]
	quals := parts[:len(parts)-1]
	switch len(quals) {
	case 0:
	case 1:
		if quals[0] != NameKey(p.Database) {
			return nil
		}
	case 2:
		if quals[0] != NameKey(p.Catalog) || quals[1] != NameKey(p.Database) {
			return nil
		}
	default:
		return nil
	}
	return p.Dataset(name)
}

// Edge is one dependency: flow Flow, writing To, reads From through Ref.
type Edge struct {
	From string // dataset key of the upstream dataset
	To   string // dataset key of the flow's target
	Flow *Flow
	Ref  Ref
}

// Graph is the dataset dependency graph of a pipeline. Nodes are dataset
// keys (NameKey); edges point downstream, from the dataset read to the
// dataset written.
type Graph struct {
	// Nodes holds every dataset key once, in declaration order.
	Nodes []string
	Out   map[string][]Edge
	In    map[string][]Edge
	index map[string]int
}

// Graph builds the dependency graph. Reads that resolve to no dataset
// (sources, unknown names) and flows into unknown targets add no edge.
func (p *Pipeline) Graph() *Graph {
	g := &Graph{Out: map[string][]Edge{}, In: map[string][]Edge{}, index: map[string]int{}}
	for _, d := range p.Datasets {
		k := NameKey(d.Name)
		if _, dup := g.index[k]; dup {
			continue
		}
		g.index[k] = len(g.Nodes)
		g.Nodes = append(g.Nodes, k)
	}
	for _, f := range p.Flows {
		to := NameKey(f.Target)
		if _, ok := g.index[to]; !ok {
			continue
		}
		for _, r := range f.Reads {
			d := p.Resolve(r.Name)
			if d == nil {
				continue
			}
			e := Edge{From: NameKey(d.Name), To: to, Flow: f, Ref: r}
			g.Out[e.From] = append(g.Out[e.From], e)
			g.In[e.To] = append(g.In[e.To], e)
		}
	}
	return g
}

// CycleError is returned by TopoOrder when the graph has a cycle.
type CycleError struct{ Path []string }

func (e *CycleError) Error() string {
	return "cycle: " + strings.Join(e.Path, " -> ")
}

// TopoOrder returns the dataset keys so that every dataset comes after all
// it reads. Among ready datasets, declaration order decides, so the order is
// stable. A cycle gives a *CycleError naming one cycle's path.
func (g *Graph) TopoOrder() ([]string, error) {
	indeg := make(map[string]int, len(g.Nodes))
	for _, n := range g.Nodes {
		indeg[n] = len(g.In[n])
	}
	ready := &intHeap{}
	for _, n := range g.Nodes {
		if indeg[n] == 0 {
			ready.push(g.index[n])
		}
	}
	out := make([]string, 0, len(g.Nodes))
	for ready.len() > 0 {
		n := g.Nodes[ready.pop()]
		out = append(out, n)
		for _, e := range g.Out[n] {
			indeg[e.To]--
			if indeg[e.To] == 0 {
				ready.push(g.index[e.To])
			}
		}
	}
	if len(out) < len(g.Nodes) {
		cs := g.Cycles()
		if len(cs) > 0 {
			return out, &CycleError{Path: cs[0].Path}
		}
		return out, &CycleError{}
	}
	return out, nil
}

// CycleEdge is an edge that lies on a cycle, with one cycle through it:
// Path starts and ends at Edge.From and follows edges downstream.
type CycleEdge struct {
	Edge Edge
	Path []string
}

// Cycles returns every edge that lies on a cycle, each with the shortest
// cycle through it, in a stable order. An edge u -> v lies on a cycle
// exactly when u and v are in the same strongly connected component (or
// u == v).
func (g *Graph) Cycles() []CycleEdge {
	comp := g.components()
	var out []CycleEdge
	for _, n := range g.Nodes {
		for _, e := range g.Out[n] {
			if comp[e.From] != comp[e.To] {
				continue
			}
			back := g.shortestPath(e.To, e.From, comp)
			path := append([]string{e.From}, back...)
			out = append(out, CycleEdge{Edge: e, Path: path})
		}
	}
	return out
}

// shortestPath finds the shortest path from a to b inside one component,
// by breadth-first search; it returns the nodes from a to b inclusive.
func (g *Graph) shortestPath(a, b string, comp map[string]int) []string {
	prev := map[string]string{a: a}
	queue := []string{a}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n == b {
			break
		}
		for _, e := range g.Out[n] {
			if comp[e.To] != comp[a] {
				continue
			}
			if _, seen := prev[e.To]; !seen {
				prev[e.To] = n
				queue = append(queue, e.To)
			}
		}
	}
	if _, ok := prev[b]; !ok {
		return []string{b}
	}
	var rev []string
	for n := b; ; n = prev[n] {
		rev = append(rev, n)
		if n == a {
			break
		}
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// components labels each node with its strongly connected component
// (Tarjan's algorithm, iterative so deep chains cannot overflow the stack).
func (g *Graph) components() map[string]int {
	index := map[string]int{}
	low := map[string]int{}
	onStack := map[string]bool{}
	comp := map[string]int{}
	var stack []string
	next, ncomp := 0, 0
	type frame struct {
		node string
		edge int
	}
	for _, root := range g.Nodes {
		if _, seen := index[root]; seen {
			continue
		}
		work := []frame{{node: root}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(work) > 0 {
			top := &work[len(work)-1]
			out := g.Out[top.node]
			if top.edge < len(out) {
				w := out[top.edge].To
				top.edge++
				if _, seen := index[w]; !seen {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					work = append(work, frame{node: w})
				} else if onStack[w] && index[w] < low[top.node] {
					low[top.node] = index[w]
				}
				continue
			}
			v := top.node
			work = work[:len(work)-1]
			if len(work) > 0 {
				parent := work[len(work)-1].node
				if low[v] < low[parent] {
					low[parent] = low[v]
				}
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = ncomp
					if w == v {
						break
					}
				}
				ncomp++
			}
		}
	}
	return comp
}

// Downstream returns the given datasets and everything that reads them,
// transitively, as a set of keys.
func (g *Graph) Downstream(keys ...string) map[string]bool {
	return g.walk(keys, g.Out, func(e Edge) string { return e.To })
}

// Upstream returns the given datasets and everything they read,
// transitively, as a set of keys.
func (g *Graph) Upstream(keys ...string) map[string]bool {
	return g.walk(keys, g.In, func(e Edge) string { return e.From })
}

func (g *Graph) walk(keys []string, adj map[string][]Edge, next func(Edge) string) map[string]bool {
	seen := map[string]bool{}
	queue := append([]string(nil), keys...)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if seen[n] {
			continue
		}
		seen[n] = true
		for _, e := range adj[n] {
			queue = append(queue, next(e))
		}
	}
	return seen
}

// Problem is a structural fault Validate finds.
type Problem struct {
	Code    Code
	Loc     Loc
	Message string
	Related []Related
}

// Validate checks the pipeline's structure: duplicate dataset and flow
// names, flows into unknown targets, and cycles. It returns problems in a
// stable order; analysis turns them into diagnostics.
func (p *Pipeline) Validate() []Problem {
	var out []Problem
	first := map[string]*Dataset{}
	for _, d := range p.Datasets {
		k := NameKey(d.Name)
		if prev, ok := first[k]; ok {
			out = append(out, Problem{
				Code:    CodeDuplicate,
				Loc:     d.NameLoc,
				Message: fmt.Sprintf("dataset %q is already defined; rename one of the two definitions", d.Name),
				Related: []Related{{Loc: prev.NameLoc, Message: "first definition of " + prev.Name}},
			})
			continue
		}
		first[k] = d
	}
	flows := map[string]*Flow{}
	for _, f := range p.Flows {
		k := NameKey(f.Name)
		if prev, ok := flows[k]; ok && f.Name != "" {
			out = append(out, Problem{
				Code:    CodeDuplicateFlow,
				Loc:     f.Loc,
				Message: fmt.Sprintf("flow %q is already defined; give this flow another name with `@flow: NAME` or CREATE FLOW NAME", f.Name),
				Related: []Related{{Loc: prev.Loc, Message: "first definition of flow " + prev.Name}},
			})
		} else {
			flows[k] = f
		}
		if _, ok := first[NameKey(f.Target)]; !ok {
			out = append(out, Problem{
				Code:    CodeUnknownTarget,
				Loc:     f.Loc,
				Message: fmt.Sprintf("flow %q writes into %q, which no file defines; create it (for example CREATE STREAMING TABLE %s) or fix the name", f.Name, f.Target, f.Target),
			})
		}
	}
	g := p.Graph()
	for _, c := range g.Cycles() {
		path := make([]string, len(c.Path))
		for i, k := range c.Path {
			path[i] = p.displayName(k)
		}
		var related []Related
		for i := 0; i+1 < len(c.Path); i++ {
			for _, e := range g.Out[c.Path[i]] {
				if e.To == c.Path[i+1] && e.Ref.Loc != c.Edge.Ref.Loc {
					related = append(related, Related{Loc: e.Ref.Loc, Message: fmt.Sprintf("%s reads %s here", path[i+1], path[i])})
					break
				}
			}
		}
		msg := fmt.Sprintf("cycle: %s; a pipeline must be acyclic, so remove one of these reads", strings.Join(path, " -> "))
		if len(c.Path) == 2 && c.Path[0] == c.Path[1] {
			msg = fmt.Sprintf("cycle: %s reads itself (%s); read another dataset or a source instead", path[0], strings.Join(path, " -> "))
		}
		out = append(out, Problem{Code: CodeCycle, Loc: c.Edge.Ref.Loc, Message: msg, Related: related})
	}
	return out
}

func (p *Pipeline) displayName(key string) string {
	if d := p.Dataset(key); d != nil {
		return d.Name
	}
	return key
}

// intHeap is a min-heap of node indexes, so topological order prefers
// declaration order.
type intHeap struct{ a []int }

func (h *intHeap) len() int { return len(h.a) }

func (h *intHeap) push(x int) {
	h.a = append(h.a, x)
	i := len(h.a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h.a[p] <= h.a[i] {
			break
		}
		h.a[p], h.a[i] = h.a[i], h.a[p]
		i = p
	}
}

func (h *intHeap) pop() int {
	top := h.a[0]
	last := len(h.a) - 1
	h.a[0] = h.a[last]
	h.a = h.a[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h.a) && h.a[l] < h.a[m] {
			m = l
		}
		if r < len(h.a) && h.a[r] < h.a[m] {
			m = r
		}
		if m == i {
			return top
		}
		h.a[i], h.a[m] = h.a[m], h.a[i]
		i = m
	}
}
