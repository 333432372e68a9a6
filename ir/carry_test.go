package ir

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

// carryFile is one file of a random pipeline.
type carryFile struct {
	datasets []*Dataset
	flows    []*Flow
}

func randomCarryFile(r *rand.Rand, i int, names []string, keep []string) carryFile {
	file := fmt.Sprintf("f%d.sql", i)
	pick := func() string { return names[r.Intn(len(names))] }
	var out carryFile
	n := 1 + r.Intn(2)
	if keep != nil {
		n = len(keep)
	}
	for k := 0; k < n; k++ {
		name := pick()
		if keep != nil {
			name = keep[k]
		}
		out.datasets = append(out.datasets, &Dataset{Name: name, NameLoc: Loc{File: file, Start: r.Intn(40)}})
		f := &Flow{Name: name, Target: name, Loc: Loc{File: file, Start: r.Intn(40)}}
		if r.Intn(4) == 0 {
			f.Name, f.Append, f.Target = []string{"x", "y", ""}[r.Intn(3)], true, []string{name, "nowhere", "sales.b", pick()}[r.Intn(4)]
		}
		for j := 0; j < r.Intn(3); j++ {
			f.Reads = append(f.Reads, Ref{Name: []string{pick(), "src", "sales.a", "main.sales.q", "SALES.Q"}[r.Intn(5)], Loc: Loc{File: file, Start: 50 + j}})
		}
		out.flows = append(out.flows, f)
	}
	return out
}

func carryPipeline(files []carryFile, database string) *Pipeline {
	p := &Pipeline{Catalog: "main", Database: database}
	for _, f := range files {
		p.Datasets = append(p.Datasets, f.datasets...)
		p.Flows = append(p.Flows, f.flows...)
	}
	return p
}

// carryView is everything a pipeline answers about its structure.
func carryView(p *Pipeline) string {
	g := p.Graph()
	order, err := g.TopoOrder()
	s := fmt.Sprintf("order %v %v\nproblems %+v\ncycles %d\n", order, err, p.Validate(), len(g.Cycles()))
	for _, k := range g.Nodes {
		var in, out []string
		for _, e := range g.In(k) {
			in = append(in, fmt.Sprintf("%s<%s@%d", e.To, e.From, e.Ref.Loc.Start))
		}
		for _, e := range g.Out(k) {
			out = append(out, fmt.Sprintf("%s>%s@%d", e.From, e.To, e.Ref.Loc.Start))
		}
		s += fmt.Sprintf("%s in %v out %v flows %d\n", k, in, out, len(p.FlowsInto(k)))
	}
	for fi, f := range p.Flows {
		if p.FlowTarget(fi) != p.Dataset(f.Target) {
			s += "target mismatch " + f.Target + "\n"
		}
		if n := p.ResolvedTargetNode(fi); (n < 0) != (p.Resolve(f.Target) == nil) || (n >= 0 && p.Nodes()[n] != p.Resolve(f.Target)) {
			s += "resolved target mismatch " + f.Target + "\n"
		}
		for ri, r := range f.Reads {
			if p.ResolveRead(fi, ri) != p.Resolve(r.Name) {
				s += "read mismatch " + r.Name + "\n"
			}
		}
	}
	return s
}

// TestFollowEqualsFresh edits random pipelines file by file, each
// following the one before, and compares everything the pipeline answers
// (graph, order, cycles, Validate's problems, resolutions) with a fresh
// pipeline of the same files; edits keep the names most of the time, so
// the shared index and the carried resolutions are what is compared.
func TestFollowEqualsFresh(t *testing.T) {
	shared := 0
	for seed := int64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewSource(seed))
		names := []string{"a", "b", "c", "d", "A", "sales.a", "q", "sales.q", "e"}
		database := []string{"", "sales"}[seed%2]
		files := make([]carryFile, 5+r.Intn(5))
		for i := range files {
			files[i] = randomCarryFile(r, i, names, nil)
		}
		prev := carryPipeline(files, database)
		carryView(prev)
		for step := 0; step < 40; step++ {
			i := r.Intn(len(files))
			if r.Intn(6) == 0 {
				files[i] = randomCarryFile(r, i, names, nil)
			} else {
				var keep []string
				for _, d := range files[i].datasets {
					keep = append(keep, d.Name)
				}
				files[i] = randomCarryFile(r, i, names, keep)
			}
			p := carryPipeline(files, database)
			// Flows of unchanged files are found by position, as
			// analysis finds them.
			origin := make([]int32, len(p.Flows))
			at := map[*Flow]int32{}
			for k, f := range prev.Flows {
				at[f] = int32(k)
			}
			for k, f := range p.Flows {
				origin[k] = -1
				if o, ok := at[f]; ok {
					origin[k] = o
				}
			}
			p.Follow(prev, origin)
			got := carryView(p)
			if want := carryView(carryPipeline(files, database)); got != want {
				t.Fatalf("seed %d step %d: a following pipeline differs from a fresh one\ngot:\n%s\nwant:\n%s", seed, step, got, want)
			}
			if p.carry.from {
				shared++
			}
			prev = p
		}
	}
	if shared == 0 {
		t.Fatal("no pipeline shared its predecessor's names: the test does not exercise Follow")
	}
}

// TestFollowCycleSearch: an edit that closes a cycle in a pipeline whose
// previous graph was acyclic is found by the carried search, and one that
// does not close one skips Tarjan's search entirely.
func TestFollowCycleSearch(t *testing.T) {
	prev := pipeline("a:", "b: a", "c: b")
	if len(prev.Graph().Cycles()) != 0 {
		t.Fatal("the first pipeline has a cycle")
	}
	// a now reads c: a -> b -> c -> a.
	p := pipeline("a: c", "b: a", "c: b")
	p.Datasets = prev.Datasets
	p.Flows[1], p.Flows[2] = prev.Flows[1], prev.Flows[2]
	p.Follow(prev, []int32{-1, 1, 2})
	if got := len(p.Graph().Cycles()); got != 3 {
		t.Fatalf("%d cycle edges after closing a -> b -> c -> a, want 3", got)
	}
	if !p.carry.from || !p.carry.prevAcyclic {
		t.Fatalf("carry %+v: the names are shared and the previous graph had no cycle", p.carry)
	}
	// c reads a as well as b: still acyclic, proven without the search.
	q := pipeline("a:", "b: a", "c: b a")
	q.Datasets = prev.Datasets
	q.Flows[0], q.Flows[1] = prev.Flows[0], prev.Flows[1]
	q.Follow(prev, []int32{0, 1, -1})
	if q.Graph().acyclicState() != stateAcyclic {
		t.Fatal("an edge that closes no cycle did not leave the graph known acyclic")
	}
	if !reflect.DeepEqual(q.Graph().Cycles(), []CycleEdge(nil)) {
		t.Fatalf("cycles %v", q.Graph().Cycles())
	}
}
