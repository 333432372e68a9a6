package ir

import "strings"

// followed is what Follow hands a pipeline before it is indexed.
type followed struct {
	prev *Pipeline
	// origin[i] is the index in prev.Flows of p.Flows[i], or -1.
	origin []int32
}

// carried is what the graph of a following pipeline needs once the
// previous pipeline is let go: whether that graph was acyclic, and which
// flows were resolved afresh (only their edges can be new).
type carried struct {
	from        bool // the names were shared with a previous pipeline
	prevAcyclic bool
	prevNodes   []string // the previous graph's node keys (the same)
	fresh       []int32
}

// Follow tells p, before anything reads it, that it was built from prev
// with some flows in common: origin[i] is the index in prev.Flows of the
// flow p.Flows[i] when it is the very same *Flow (flows are never changed
// once built), or -1 for a flow prev does not have. When both pipelines
// define the same dataset names in the same order, with the same catalog
// and database, p shares prev's name index and takes the resolution of
// every flow in common (its target and what each read names) from prev,
// resolving only the others; its graph is then known to be acyclic
// without a search when prev's was and no new edge closes a cycle. With
// other names everything is computed afresh. Either way every answer is
// the one p gives without Follow. An origin entry that does not name the
// same flow is ignored. Follow must be called before p's first query;
// p keeps no reference to prev once it is indexed.
func (p *Pipeline) Follow(prev *Pipeline, origin []int32) {
	if prev == nil || len(origin) != len(p.Flows) {
		return
	}
	p.follow = followed{prev: prev, origin: origin}
}

// SameNames reports whether p defines exactly prev's dataset name keys in
// the same order under the same catalog and database: then a name
// resolves to the same node number in both, and p.Datasets[i] has the
// node prev.Datasets[i] has.
func (p *Pipeline) SameNames(prev *Pipeline) bool {
	p.index()
	return p == prev || p.sameNames(prev)
}

// sameNames reports whether p defines exactly prev's dataset name keys in
// the same order under the same qualifiers, so that every name resolves
// in p as in prev.
func (p *Pipeline) sameNames(prev *Pipeline) bool {
	if len(p.Datasets) != len(prev.Datasets) || NameKey(p.Catalog) != NameKey(prev.Catalog) || NameKey(p.Database) != NameKey(prev.Database) {
		return false
	}
	prev.index()
	for i, d := range p.Datasets {
		if o := prev.Datasets[i]; o != d && NameKey(o.Name) != NameKey(d.Name) {
			return false
		}
	}
	return true
}

// resolveFlows fills flowTarget, readStart, readFrom and flowFirst: from
// prev for the flows in common when the names are shared, afresh for
// the others.
func (p *Pipeline) resolveFlows(prev *Pipeline, shared bool) {
	origin := p.follow.origin
	if prev != nil {
		prev.index()
	}
	reads := 0
	for _, f := range p.Flows {
		reads += len(f.Reads)
	}
	p.flowTarget = make([]int32, len(p.Flows))
	p.flowResolved = make([]int32, len(p.Flows))
	p.readStart = make([]int32, len(p.Flows)+1)
	p.readFrom = make([]int32, 0, reads)
	p.carry = carried{from: shared}
	if shared {
		prevGraph := prev.Graph()
		p.carry.prevAcyclic = prevGraph.acyclicState() == stateAcyclic
		p.carry.prevNodes = prevGraph.Nodes
	}
	for i, f := range p.Flows {
		p.readStart[i] = int32(len(p.readFrom))
		if shared && origin[i] >= 0 && int(origin[i]) < len(prev.Flows) && prev.Flows[origin[i]] == f {
			o := origin[i]
			p.flowTarget[i] = prev.flowTarget[o]
			p.flowResolved[i] = prev.flowResolved[o]
			p.readFrom = append(p.readFrom, prev.readFrom[prev.readStart[o]:prev.readStart[o+1]]...)
			continue
		}
		if shared {
			p.carry.fresh = append(p.carry.fresh, int32(i))
		}
		t, ok := p.ids[NameKey(f.Target)]
		if !ok {
			t = -1
		}
		p.flowTarget[i] = t
		if t >= 0 {
			p.flowResolved[i] = t
		} else {
			p.flowResolved[i] = p.resolveNode(f.Target)
		}
		for _, r := range f.Reads {
			p.readFrom = append(p.readFrom, p.resolveNode(r.Name))
		}
	}
	p.readStart[len(p.Flows)] = int32(len(p.readFrom))
	p.flowFirst = nil
	if prev != nil && len(prev.Flows) == len(p.Flows) && prev.flowFirst != nil {
		same := true
		for i, f := range p.Flows {
			if o := prev.Flows[i]; o != f && NameKey(o.Name) != NameKey(f.Name) {
				same = false
				break
			}
		}
		if same {
			p.flowFirst = prev.flowFirst
		}
	}
	if p.flowFirst == nil {
		first := make(map[string]int32, len(p.Flows))
		p.flowFirst = make([]int32, len(p.Flows))
		for i, f := range p.Flows {
			k := NameKey(f.Name)
			j, ok := first[k]
			if !ok {
				j = int32(i)
				first[k] = j
			}
			p.flowFirst[i] = j
		}
	}
}

// resolveNode is Resolve as a node number (-1 for none), for use while
// the index is being built.
func (p *Pipeline) resolveNode(ref string) int32 {
	if n, ok := p.ids[NameKey(ref)]; ok {
		return n
	}
	if other := p.inOwnCatalog(ref); other != "" {
		if n, ok := p.ids[other]; ok {
			return n
		}
	}
	if p.Catalog == "" {
		// No catalog in the spec: the platform's current one may be any.
		k := NameKey(ref)
		switch strings.Count(k, ".") {
		case 1:
			if n, ok := p.anyCatalog[k]; ok && n >= 0 {
				return n
			}
		case 2:
			_, sn, _ := strings.Cut(k, ".")
			if n, ok := p.ids[sn]; ok {
				return n
			}
		}
	}
	if i := strings.LastIndexByte(ref, '.'); i >= 0 {
		if !p.ownQualifiers(ref[:i]) {
			return -1
		}
		ref = ref[i+1:]
		if n, ok := p.ids[NameKey(ref)]; ok {
			return n
		}
	}
	if n, ok := p.ownQualified[NameKey(ref)]; ok {
		return n
	}
	return -1
}

// ResolveRead returns the dataset read r of p.Flows[flow] names, as
// Resolve(p.Flows[flow].Reads[r].Name) does, from the resolution the
// index keeps (no name is looked up again).
func (p *Pipeline) ResolveRead(flow, r int) *Dataset {
	p.index()
	if n := p.readFrom[p.readStart[flow]+int32(r)]; n >= 0 {
		return p.nodes[n]
	}
	return nil
}

// FlowTarget returns the dataset p.Flows[flow] writes, as
// Dataset(p.Flows[flow].Target) does, or nil.
func (p *Pipeline) FlowTarget(flow int) *Dataset {
	p.index()
	if n := p.flowTarget[flow]; n >= 0 {
		return p.nodes[n]
	}
	return nil
}

// Acyclicity of a graph, as far as it is known.
const (
	stateUnknown int32 = iota
	stateAcyclic
	stateCyclic
)

// acyclicState returns whether g is known to have no cycle (Cycles has
// run or the carry proved it).
func (g *Graph) acyclicState() int32 { return g.acyclic.Load() }

// provenAcyclic reports whether g is acyclic because the pipeline it was
// built from follows an acyclic one and no edge of a freshly resolved
// flow closes a cycle: a cycle of g must use a new edge u -> v, and then
// u is reachable from v.
func (g *Graph) provenAcyclic(c carried) bool {
	if !c.from || !c.prevAcyclic || len(c.fresh) > maxFreshSearch {
		return false
	}
	var seen []bool
	var queue []int32
	for _, e := range g.edges {
		if !freshFlow(c.fresh, e.flow) {
			continue
		}
		if e.from == e.to {
			return false
		}
		if seen == nil {
			seen = make([]bool, len(g.Nodes))
		} else {
			clear(seen)
		}
		queue = append(queue[:0], e.to)
		seen[e.to] = true
		for len(queue) > 0 {
			n := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			for _, o := range g.out(n) {
				if o.to == e.from {
					return false
				}
				if !seen[o.to] {
					seen[o.to] = true
					queue = append(queue, o.to)
				}
			}
		}
	}
	return true
}

// maxFreshSearch bounds the flows whose edges provenAcyclic searches
// from (each search may visit the whole graph); with more, Cycles runs
// its own search.
const maxFreshSearch = 64

// freshFlow reports whether flow number f is in fresh (sorted ascending).
func freshFlow(fresh []int32, f int32) bool {
	lo, hi := 0, len(fresh)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case fresh[m] == f:
			return true
		case fresh[m] < f:
			lo = m + 1
		default:
			hi = m
		}
	}
	return false
}

// Nodes returns the datasets by node number: the first definition of
// each name key, in declaration order. The slice must not be changed.
func (p *Pipeline) Nodes() []*Dataset {
	p.index()
	return p.nodes
}

// DatasetNode returns the node number of p.Datasets[i] (a repeated name
// has its first definition's).
func (p *Pipeline) DatasetNode(i int) int {
	p.index()
	return int(p.dsNode[i])
}

// FlowsIntoNode is FlowsInto for node number n.
func (p *Pipeline) FlowsIntoNode(n int) []*Flow {
	p.index()
	return p.targetFlows[p.flowStart[n]:p.flowStart[n+1]:p.flowStart[n+1]]
}

// FlowNode returns the node p.Flows[flow] writes, as Dataset(Target)
// finds it, or -1; ResolvedTargetNode the node Resolve(Target) finds
// (the same, or a dataset named with the pipeline's qualifiers), or -1.
func (p *Pipeline) FlowNode(flow int) int {
	p.index()
	return int(p.flowTarget[flow])
}

// ResolvedTargetNode: see FlowNode.
func (p *Pipeline) ResolvedTargetNode(flow int) int {
	p.index()
	return int(p.flowResolved[flow])
}

// ReadNode returns the node read r of p.Flows[flow] resolves to, or -1.
func (p *Pipeline) ReadNode(flow, r int) int {
	p.index()
	return int(p.readFrom[p.readStart[flow]+int32(r)])
}

// ReaderNodes calls visit with the node of every flow's target that reads
// node n (once per edge, so a node may come more than once).
func (p *Pipeline) ReaderNodes(n int, visit func(int)) {
	g := p.Graph()
	for _, e := range g.out(int32(n)) {
		visit(int(e.to))
	}
}

// NodeNumber returns the node number of the dataset named name (as
// Dataset finds it), or -1.
func (p *Pipeline) NodeNumber(name string) int {
	if n, ok := p.node(NameKey(name)); ok {
		return int(n)
	}
	return -1
}

// UnresolvedReads calls visit with every read that resolves to no
// dataset (a source or an unknown name), by flow and read number, in
// flow order: from the resolution the index keeps, so flows whose reads
// all resolve are not looked at.
func (p *Pipeline) UnresolvedReads(visit func(flow, read int)) {
	p.index()
	for fi := range p.Flows {
		start, end := p.readStart[fi], p.readStart[fi+1]
		for k := start; k < end; k++ {
			if p.readFrom[k] < 0 {
				visit(fi, int(k-start))
			}
		}
	}
}
