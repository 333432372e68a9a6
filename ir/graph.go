package ir

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// NameKey is the identity of a dataset or table name: SQL identifiers are
// case-insensitive in Spark and DuckDB, so names match ignoring case.
func NameKey(name string) string { return strings.ToLower(name) }

// Resolve returns the dataset a table reference names, or nil when it names
// none (a source table or an unknown name). A qualified reference resolves
// when its qualifiers match the pipeline's catalog and database.
func (p *Pipeline) Resolve(ref string) *Dataset {
	p.index()
	if n := p.resolveNode(ref); n >= 0 {
		return p.nodes[n]
	}
	return nil
}

// ResolveIn is Resolve for a name written under use (USE CATALOG / USE
// SCHEMA earlier in its file): Spark reads it in the current schema, so
// it is the qualified name's dataset, or, for a name no qualifier changes
// there or a temporary view's (in no schema), the name's own.
func (p *Pipeline) ResolveIn(name string, use Scope) *Dataset {
	q := use.Qualify(name)
	if q == name {
		return p.Resolve(name)
	}
	if d := p.Resolve(q); d != nil {
		return d
	}
	if d := p.Resolve(name); d != nil && d.Kind == TemporaryView {
		return d
	}
	return nil
}

// Spark's current catalog and database when the spec names none.
const (
	defaultCatalog  = "spark_catalog"
	defaultDatabase = "default"
)

// ownCatalog is the catalog unqualified names are in: the spec's, else
// Spark's default (name keys).
func (p *Pipeline) ownCatalog() string {
	if p.Catalog != "" {
		return NameKey(p.Catalog)
	}
	return defaultCatalog
}

// ownDatabase is the database unqualified names are in: the spec's, else
// Spark's default.
func (p *Pipeline) ownDatabase() string {
	if p.Database != "" {
		return NameKey(p.Database)
	}
	return defaultDatabase
}

// ownQualifiers reports whether quals (the part of a name before its last
// dot) names the pipeline's database, or its catalog and database (the
// spec's, else Spark's spark_catalog and default, so default.x and
// spark_catalog.default.x are x, as Spark resolves them).
func (p *Pipeline) ownQualifiers(quals string) bool {
	q := strings.Split(NameKey(quals), ".")
	switch len(q) {
	case 1:
		return q[0] == p.ownDatabase()
	case 2:
		return q[0] == p.ownCatalog() && q[1] == p.ownDatabase()
	}
	return false
}

// inOwnCatalog returns the other spellings of ref in the pipeline's
// catalog, as Spark reads a two-part name in the current catalog:
// schema.t is also catalog.schema.t, and catalog.schema.t is schema.t
// (name keys; "" when ref has neither form).
func (p *Pipeline) inOwnCatalog(ref string) string {
	k := NameKey(ref)
	switch strings.Count(k, ".") {
	case 1:
		return p.ownCatalog() + "." + k
	case 2:
		if c, rest, _ := strings.Cut(k, "."); c == p.ownCatalog() {
			return rest
		}
	}
	return ""
}

// Edge is one dependency: flow Flow, writing To, reads From through Ref.
type Edge struct {
	From string // dataset key of the upstream dataset
	To   string // dataset key of the flow's target
	Flow *Flow
	// Ref points into Flow.Reads (flows are never changed once built).
	Ref *Ref
}

// edge is an Edge as the graph stores it: node and flow numbers only.
type edge struct {
	from, to   int32
	flow, read int32 // index into the pipeline's flows, and into its reads
}

// Graph is the dataset dependency graph of a pipeline. Nodes are dataset
// keys (NameKey); edges point downstream, from the dataset read to the
// dataset written. It is immutable once built.
//
// Analysis rebuilds it on every edit, so it is kept compact: edges are
// numbers in one array sorted by upstream node (node i's are
// edges[outStart[i]:outStart[i+1]]), with a second array of edge indexes
// sorted by downstream node; Edge values are made only when asked for.
type Graph struct {
	// Nodes holds every dataset key once, in declaration order.
	Nodes    []string
	index    map[string]int32
	flows    []*Flow
	edges    []edge
	outStart []int32
	inEdges  []int32
	inStart  []int32
	// acyclic is stateAcyclic or stateCyclic once known (cycles holds
	// the cycles, computed once).
	acyclic    atomic.Int32
	cyclesOnce sync.Once
	cycles     []CycleEdge
}

// Graph returns the dependency graph, built on first use. Reads that
// resolve to no dataset (sources, unknown names) and flows into unknown
// targets add no edge.
func (p *Pipeline) Graph() *Graph {
	p.graphOnce.Do(func() { p.graph = p.buildGraph() })
	return p.graph
}

func (p *Pipeline) buildGraph() *Graph {
	p.index()
	n := len(p.nodes)
	g := &Graph{index: p.ids, flows: p.Flows}
	if p.carry.from && p.carry.prevNodes != nil {
		g.Nodes = p.carry.prevNodes // the same keys, shared
	} else {
		g.Nodes = make([]string, n)
		for i, d := range p.nodes {
			g.Nodes[i] = NameKey(d.Name)
		}
	}
	// Two passes over the resolved reads: count the edges per node, then
	// place them (one allocation per array, no regrowth).
	g.outStart = make([]int32, n+1)
	g.inStart = make([]int32, n+1)
	total := 0
	for fi := range p.Flows {
		to := p.flowTarget[fi]
		if to < 0 {
			continue
		}
		for _, from := range p.readFrom[p.readStart[fi]:p.readStart[fi+1]] {
			if from >= 0 {
				g.outStart[from+1]++
				g.inStart[to+1]++
				total++
			}
		}
	}
	for i := 1; i <= n; i++ {
		g.outStart[i] += g.outStart[i-1]
		g.inStart[i] += g.inStart[i-1]
	}
	g.edges = make([]edge, total)
	next := append([]int32(nil), g.outStart[:n]...)
	placed := make([]int32, 0, total) // edge indexes in read order
	for fi := range p.Flows {
		to := p.flowTarget[fi]
		if to < 0 {
			continue
		}
		start := p.readStart[fi]
		for i, from := range p.readFrom[start:p.readStart[fi+1]] {
			if from >= 0 {
				g.edges[next[from]] = edge{from: from, to: to, flow: int32(fi), read: int32(i)}
				placed = append(placed, next[from])
				next[from]++
			}
		}
	}
	// In-edges in the order of the reads, as the flows declare them.
	g.inEdges = make([]int32, total)
	copy(next, g.inStart[:n])
	for _, ei := range placed {
		to := g.edges[ei].to
		g.inEdges[next[to]] = ei
		next[to]++
	}
	if g.provenAcyclic(p.carry) {
		g.acyclic.Store(stateAcyclic)
	}
	return g
}

// out returns node n's outgoing edges.
func (g *Graph) out(n int32) []edge { return g.edges[g.outStart[n]:g.outStart[n+1]] }

// edgeValue makes the Edge of a stored edge.
func (g *Graph) edgeValue(e edge) Edge {
	f := g.flows[e.flow]
	return Edge{From: g.Nodes[e.from], To: g.Nodes[e.to], Flow: f, Ref: &f.Reads[e.read]}
}

// Out returns the edges from dataset key (to the datasets that read it).
func (g *Graph) Out(key string) []Edge {
	i, ok := g.index[key]
	if !ok {
		return nil
	}
	var out []Edge
	for _, e := range g.out(i) {
		out = append(out, g.edgeValue(e))
	}
	return out
}

// In returns the edges into dataset key (from the datasets it reads).
func (g *Graph) In(key string) []Edge {
	i, ok := g.index[key]
	if !ok {
		return nil
	}
	var out []Edge
	for _, ei := range g.inEdges[g.inStart[i]:g.inStart[i+1]] {
		out = append(out, g.edgeValue(g.edges[ei]))
	}
	return out
}

// CycleError is returned by TopoOrder when the graph has a cycle.
type CycleError struct{ Path []string }

func (e *CycleError) Error() string {
	return "cycle: " + strings.Join(e.Path, " -> ")
}

// TopoOrder returns the dataset keys so that every dataset comes after all
// it reads. Among ready datasets, declaration order decides, so the order is
// stable. A cycle gives a *CycleError naming one cycle's path, and the
// order of the datasets not on or after a cycle.
func (g *Graph) TopoOrder() ([]string, error) {
	indeg := make([]int32, len(g.Nodes))
	ready := &intHeap{}
	for i := range g.Nodes {
		indeg[i] = g.inStart[i+1] - g.inStart[i]
		if indeg[i] == 0 {
			ready.push(i)
		}
	}
	out := make([]string, 0, len(g.Nodes))
	for ready.len() > 0 {
		n := ready.pop()
		out = append(out, g.Nodes[n])
		for _, e := range g.out(int32(n)) {
			indeg[e.to]--
			if indeg[e.to] == 0 {
				ready.push(int(e.to))
			}
		}
	}
	if len(out) < len(g.Nodes) {
		if cs := g.Cycles(); len(cs) > 0 {
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
	g.cyclesOnce.Do(func() {
		if g.acyclic.Load() == stateAcyclic {
			return
		}
		g.cycles = g.findCycles()
		if len(g.cycles) == 0 {
			g.acyclic.Store(stateAcyclic)
		} else {
			g.acyclic.Store(stateCyclic)
		}
	})
	return slices.Clone(g.cycles)
}

// findCycles is Cycles' search: strongly connected components, then a
// shortest path back for every edge inside one.
func (g *Graph) findCycles() []CycleEdge {
	comp, sizes := g.components()
	var out []CycleEdge
	for _, e := range g.edges {
		c := comp[e.from]
		if c != comp[e.to] || (sizes[c] == 1 && e.from != e.to) {
			continue
		}
		back := g.shortestPath(e.to, e.from, comp)
		path := make([]string, 0, len(back)+1)
		path = append(path, g.Nodes[e.from])
		for _, k := range back {
			path = append(path, g.Nodes[k])
		}
		out = append(out, CycleEdge{Edge: g.edgeValue(e), Path: path})
	}
	return out
}

// shortestPath finds the shortest path from a to b inside one component,
// by breadth-first search; it returns the nodes from a to b inclusive.
func (g *Graph) shortestPath(a, b int32, comp []int32) []int32 {
	prev := map[int32]int32{a: a}
	queue := []int32{a}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n == b {
			break
		}
		for _, e := range g.out(n) {
			if comp[e.to] != comp[a] {
				continue
			}
			if _, seen := prev[e.to]; !seen {
				prev[e.to] = n
				queue = append(queue, e.to)
			}
		}
	}
	if _, ok := prev[b]; !ok {
		return []int32{b}
	}
	var rev []int32
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
// (Tarjan's algorithm, iterative so deep chains cannot overflow the stack)
// and returns the labels and each component's size.
func (g *Graph) components() ([]int32, []int) {
	n := len(g.Nodes)
	index := make([]int32, n)
	low := make([]int32, n)
	onStack := make([]bool, n)
	comp := make([]int32, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int32
	var sizes []int
	next := int32(0)
	type frame struct {
		node int32
		edge int
	}
	var work []frame
	for root := int32(0); root < int32(n); root++ {
		if index[root] >= 0 {
			continue
		}
		// Nodes without edges are their own component: skip the machinery.
		if len(g.out(root)) == 0 {
			index[root] = next
			next++
			comp[root] = int32(len(sizes))
			sizes = append(sizes, 1)
			continue
		}
		work = append(work[:0], frame{node: root})
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(work) > 0 {
			top := &work[len(work)-1]
			out := g.out(top.node)
			if top.edge < len(out) {
				w := out[top.edge].to
				top.edge++
				if index[w] < 0 {
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
				size := 0
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = int32(len(sizes))
					size++
					if w == v {
						break
					}
				}
				sizes = append(sizes, size)
			}
		}
	}
	return comp, sizes
}

// Downstream returns the given datasets and everything that reads them,
// transitively, as a set of keys.
func (g *Graph) Downstream(keys ...string) map[string]bool {
	return g.walk(keys, func(n int32, visit func(int32)) {
		for _, e := range g.out(n) {
			visit(e.to)
		}
	})
}

// Upstream returns the given datasets and everything they read,
// transitively, as a set of keys.
func (g *Graph) Upstream(keys ...string) map[string]bool {
	return g.walk(keys, func(n int32, visit func(int32)) {
		for _, ei := range g.inEdges[g.inStart[n]:g.inStart[n+1]] {
			visit(g.edges[ei].from)
		}
	})
}

func (g *Graph) walk(keys []string, next func(n int32, visit func(int32))) map[string]bool {
	seen := map[string]bool{}
	var queue []int32
	for _, k := range keys {
		if i, ok := g.index[k]; ok {
			queue = append(queue, i)
		}
	}
	visit := func(n int32) { queue = append(queue, n) }
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if seen[g.Nodes[n]] {
			continue
		}
		seen[g.Nodes[n]] = true
		next(n, visit)
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
	p.index()
	for di, d := range p.Datasets {
		if prev := p.nodes[p.dsNode[di]]; prev != d {
			out = append(out, Problem{
				Code:    CodeDuplicate,
				Loc:     d.NameLoc,
				Message: fmt.Sprintf("dataset %q is already defined; rename one of the two definitions", d.Name),
				Related: []Related{{Loc: prev.NameLoc, Message: "first definition of " + prev.Name}},
			})
		}
	}
	// sales.x and x are one table when the database is sales.
	for i, d := range p.nodes {
		j := strings.LastIndexByte(d.Name, '.')
		if j < 0 || p.ownQualified[NameKey(d.Name[j+1:])] != int32(i) {
			continue
		}
		if m, ok := p.ids[NameKey(d.Name[j+1:])]; ok {
			first, second := p.nodes[m], d
			if int(m) > i {
				first, second = second, first
			}
			out = append(out, Problem{
				Code:    CodeDuplicate,
				Loc:     second.NameLoc,
				Message: fmt.Sprintf("dataset %q is already defined as %q: with the pipeline's database they are one table; rename one of the two definitions", second.Name, first.Name),
				Related: []Related{{Loc: first.NameLoc, Message: "first definition of " + first.Name}},
			})
		}
	}
	// Two datasets with one name already get a duplicate-dataset error;
	// their implicit flows (named after them) are not worth a second.
	implicit := func(x *Flow) bool { return !x.Append && NameKey(x.Name) == NameKey(x.Target) }
	for fi, f := range p.Flows {
		if first := p.flowFirst[fi]; first != int32(fi) && f.Name != "" && !(implicit(f) && implicit(p.Flows[first])) {
			prev := p.Flows[first]
			out = append(out, Problem{
				Code:    CodeDuplicateFlow,
				Loc:     f.Loc,
				Message: fmt.Sprintf("flow %q is already defined; give this flow another name with `@flow: NAME` or CREATE FLOW NAME", f.Name),
				Related: []Related{{Loc: prev.Loc, Message: "first definition of flow " + prev.Name}},
			})
		}
		if p.flowTarget[fi] < 0 {
			loc := f.TargetLoc
			if loc.IsZero() {
				loc = f.Loc
			}
			out = append(out, Problem{
				Code:    CodeUnknownTarget,
				Loc:     loc,
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
			for _, e := range g.Out(c.Path[i]) {
				if e.To == c.Path[i+1] && e.Ref.Loc != c.Edge.Ref.Loc {
					related = append(related, Related{Loc: e.Ref.Loc, Message: fmt.Sprintf("%s reads %s here", path[i+1], path[i])})
					break
				}
			}
		}
		msg := fmt.Sprintf("cycle: %s (each dataset reads the one before it); a pipeline must be acyclic, so remove one of these reads", strings.Join(path, " -> "))
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
