package capab

import (
	"maps"
	"slices"

	"github.com/thund-dev/thund/ir"
)

// Cache is what CheckIncremental keeps of one pipeline's Check and
// Streaming results for the next: the results per dataset node. It is
// immutable; every call returns a new one.
//
// The results of a node n are the matrix diagnostics (useDiagnostics) of
// every dataset named like n, the streaming diagnostics of those datasets
// and of the flows into n, and, per Spark backend, the Spark rules'
// findings about n. They are a function of n's neighbourhood: its
// datasets, the flows into it, and the datasets those flows read with
// the flows into them. So they are kept while all of these are the very
// same values (flows and datasets are never changed once built, and an
// unchanged file keeps its own), and computed again, for that
// neighbourhood only, otherwise. A Spark rule must therefore be about one
// dataset (Finding.Dataset) and read only that neighbourhood; the rules
// that read the whole pipeline are listed in globalRules and run on every
// call. TestCacheEqualsCheck compares the two on random pipelines and
// edits.
type Cache struct {
	p        *ir.Pipeline
	backends []ir.Backend
	// dsStart and dsList list the datasets of each node (indexes into
	// p.Datasets): node n's are dsList[dsStart[n]:dsStart[n+1]].
	dsStart, dsList []int32
	// nodes holds each node's results (nil: none).
	nodes []*nodeResult
}

// nodeResult is one node's share of Check and Streaming.
type nodeResult struct {
	uses, stream []ir.Diagnostic
	// spark holds the Spark rules' findings per backend (aligned with
	// Cache.backends), before unreadCDC.
	spark [][]Finding
}

func (r *nodeResult) empty() bool {
	if len(r.uses) > 0 || len(r.stream) > 0 {
		return false
	}
	for _, fs := range r.spark {
		if len(fs) > 0 {
			return false
		}
	}
	return true
}

// globalRules are the Spark rules that read the whole pipeline; they
// run on the whole pipeline on every call, and their findings on a
// neighbourhood are not a node's.
var globalRules = []func(*ir.Pipeline, ir.Backend) []Finding{onlyTemporary}

// CheckIncremental returns Check(p, backends) and Streaming(p), computing
// again only the nodes whose neighbourhood differs from prev's (prev may
// be nil), and the cache for the next call. The diagnostics are the same
// as Check's and Streaming's, in another order.
func CheckIncremental(p *ir.Pipeline, backends []ir.Backend, prev *Cache) (check, streaming []ir.Diagnostic, next *Cache) {
	nodes := p.Nodes()
	next = &Cache{p: p, backends: backends, nodes: make([]*nodeResult, len(nodes))}
	reuse := prev != nil && slices.Equal(prev.backends, backends) && sameSettings(p, prev.p) && p.SameNames(prev.p)
	dirty := make([]bool, len(nodes))
	if reuse {
		next.dsStart, next.dsList = prev.dsStart, prev.dsList
		changed := make([]bool, len(nodes))
		for i, d := range p.Datasets {
			if prev.p.Datasets[i] != d {
				changed[p.DatasetNode(i)] = true
			}
		}
		for n := range nodes {
			if !changed[n] && !slices.Equal(p.FlowsIntoNode(n), prev.p.FlowsIntoNode(n)) {
				changed[n] = true
			}
		}
		for n := range nodes {
			if !changed[n] {
				continue
			}
			dirty[n] = true
			p.ReaderNodes(n, func(r int) { dirty[r] = true })
		}
	} else {
		next.dsStart, next.dsList = datasetsByNode(p)
		for n := range dirty {
			dirty[n] = true
		}
	}
	sparkAt := sparkBackends(backends)
	for n := range nodes {
		if !dirty[n] {
			next.nodes[n] = prev.nodes[n]
			continue
		}
		if r := next.nodeResults(n, sparkAt); !r.empty() {
			next.nodes[n] = r
		}
	}
	// Flows into no dataset: their streaming checks (a target named with
	// the pipeline's qualifiers) and Spark findings, every time.
	var orphans []*ir.Flow
	for fi, f := range p.Flows {
		if p.FlowNode(fi) >= 0 {
			continue
		}
		orphans = append(orphans, f)
		if t := p.ResolvedTargetNode(fi); t >= 0 {
			streaming = append(streaming, streamingFlow(p, f, nodes[t])...)
		}
	}
	for _, r := range next.nodes {
		if r != nil {
			check = append(check, r.uses...)
			streaming = append(streaming, r.stream...)
		}
	}
	for bi, b := range backends {
		if sparkAt[bi] < 0 {
			continue
		}
		var fs []Finding
		for _, r := range next.nodes {
			if r != nil {
				fs = append(fs, r.spark[sparkAt[bi]]...)
			}
		}
		if len(orphans) > 0 {
			for _, f := range SparkRules(neighbourhood(p, nil, orphans), b) {
				if p.Dataset(f.Dataset) == nil {
					fs = append(fs, f)
				}
			}
		}
		for _, rule := range globalRules {
			fs = append(fs, rule(p, b)...)
		}
		for _, f := range unreadCDC(p, b, fs) {
			check = append(check, f.Diagnostic)
		}
	}
	return check, streaming, next
}

// sparkBackends numbers the Spark backends among backends: the index of
// each one's findings in nodeResult.spark, -1 for the others.
func sparkBackends(backends []ir.Backend) []int {
	at := make([]int, len(backends))
	k := 0
	for i, b := range backends {
		at[i] = -1
		if isSpark(b) {
			at[i] = k
			k++
		}
	}
	return at
}

// datasetsByNode groups the indexes of p.Datasets by node.
func datasetsByNode(p *ir.Pipeline) (start, list []int32) {
	n := len(p.Nodes())
	start = make([]int32, n+1)
	for i := range p.Datasets {
		start[p.DatasetNode(i)+1]++
	}
	for k := 1; k <= n; k++ {
		start[k] += start[k-1]
	}
	list = make([]int32, len(p.Datasets))
	next := append([]int32(nil), start[:n]...)
	for i := range p.Datasets {
		k := p.DatasetNode(i)
		list[next[k]] = int32(i)
		next[k]++
	}
	return start, list
}

// nodeResults computes node n's results on c's pipeline.
func (c *Cache) nodeResults(n int, sparkAt []int) *nodeResult {
	p := c.p
	d := p.Nodes()[n]
	flows := p.FlowsIntoNode(n)
	r := &nodeResult{}
	var defs []*ir.Dataset
	for _, i := range c.dsList[c.dsStart[n]:c.dsStart[n+1]] {
		di := p.Datasets[i]
		defs = append(defs, di)
		r.uses = append(r.uses, useDiagnostics(p, di, c.backends)...)
		r.stream = append(r.stream, sharedCDCTarget(di, flows)...)
	}
	for _, f := range flows {
		r.stream = append(r.stream, streamingFlow(p, f, d)...)
	}
	spark := 0
	for _, at := range sparkAt {
		if at >= 0 {
			spark++
		}
	}
	if spark == 0 {
		return r
	}
	r.spark = make([][]Finding, spark)
	mini := neighbourhood(p, defs, flows)
	key := ir.NameKey(d.Name)
	for bi, b := range c.backends {
		if sparkAt[bi] < 0 {
			continue
		}
		var global []Finding
		for _, rule := range globalRules {
			global = append(global, rule(mini, b)...)
		}
		var fs []Finding
		for _, f := range SparkRules(mini, b) {
			if ir.NameKey(f.Dataset) == key && !slices.ContainsFunc(global, func(g Finding) bool { return sameFinding(g, f) }) {
				fs = append(fs, f)
			}
		}
		r.spark[sparkAt[bi]] = fs
	}
	return r
}

// neighbourhood returns a pipeline of p's settings holding the datasets
// defs, the flows, the datasets those flows read (as p resolves them)
// and the flows into those: every name the flows read resolves in it as
// in p.
func neighbourhood(p *ir.Pipeline, defs []*ir.Dataset, flows []*ir.Flow) *ir.Pipeline {
	m := &ir.Pipeline{
		Name: p.Name, Root: p.Root, Catalog: p.Catalog, Database: p.Database,
		Storage: p.Storage, Configuration: p.Configuration, Backends: p.Backends,
		Datasets: slices.Clone(defs), Flows: slices.Clone(flows),
	}
	for _, f := range flows {
		for _, ref := range f.Reads {
			d := p.Resolve(ref.Name)
			if d == nil || slices.Contains(m.Datasets, d) {
				continue
			}
			m.Datasets = append(m.Datasets, d)
			m.Flows = append(m.Flows, p.FlowsInto(d.Name)...)
		}
	}
	// Resolution in m takes the first definition of a name, and of a
	// name's last part with the pipeline's qualifiers, as p does: the
	// datasets keep p's order (by node; defs, one node's, are in order).
	slices.SortStableFunc(m.Datasets, func(a, b *ir.Dataset) int {
		return p.NodeNumber(a.Name) - p.NodeNumber(b.Name)
	})
	return m
}

func sameFinding(a, b Finding) bool {
	return a.Dataset == b.Dataset && a.Diagnostic.Loc == b.Diagnostic.Loc && a.Diagnostic.Code == b.Diagnostic.Code &&
		a.Diagnostic.Backend == b.Diagnostic.Backend && a.Diagnostic.Message == b.Diagnostic.Message
}

// sameSettings reports whether p and q have the same pipeline settings
// (what a rule may read beside the datasets and flows).
func sameSettings(p, q *ir.Pipeline) bool {
	return p.Name == q.Name && p.Root == q.Root && p.Catalog == q.Catalog && p.Database == q.Database &&
		p.Storage == q.Storage && maps.Equal(p.Configuration, q.Configuration) && slices.Equal(p.Backends, q.Backends)
}
