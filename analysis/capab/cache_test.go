package capab

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// cacheFile is one file of a random pipeline: its datasets and flows.
type cacheFile struct {
	datasets []*ir.Dataset
	flows    []*ir.Flow
}

// cacheGen makes random pipelines over a small pool of names, so that
// duplicates, orphan flows, qualified names, temporary views read by
// views, streams, CDC flows and watermarks all meet.
type cacheGen struct {
	r     *rand.Rand
	names []string
	edit  int
}

func (g *cacheGen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

func (g *cacheGen) loc(file string) ir.Loc {
	s := g.r.Intn(50)
	return ir.Loc{File: file, Start: s, End: s + 1 + g.r.Intn(5)}
}

// file makes file number i; keep, when set, gives it those dataset names.
func (g *cacheGen) file(i int, keep []string) cacheFile {
	g.edit++
	name := fmt.Sprintf("f%02d.sql", i)
	var out cacheFile
	n := 1 + g.r.Intn(2)
	if keep != nil {
		n = len(keep)
	}
	kinds := []ir.Kind{ir.MaterializedView, ir.StreamingTable, ir.StreamingTable, ir.View, ir.TemporaryView, ir.Table, ir.Sink}
	for k := 0; k < n; k++ {
		dn := g.names[g.r.Intn(len(g.names))]
		if keep != nil {
			dn = keep[k]
		}
		d := &ir.Dataset{Name: dn, Kind: kinds[g.r.Intn(len(kinds))], Loc: g.loc(name), NameLoc: g.loc(name), KindLoc: g.loc(name),
			Format: g.pick("", "", "delta", "parquet")}
		if g.r.Intn(6) == 0 {
			d.Backends = []ir.Backend{ir.Backend(g.pick(string(ir.Native), string(ir.Spark41), string(ir.Spark43)))}
		}
		if g.r.Intn(8) == 0 {
			d.Syntax = []ir.Construct{{Name: string(SynOrRefresh), Loc: g.loc(name)}}
		}
		out.datasets = append(out.datasets, d)
		for j := 0; j < 1+g.r.Intn(2); j++ {
			out.flows = append(out.flows, g.flow(name, d.Name, j > 0 || g.r.Intn(5) == 0))
		}
	}
	if g.r.Intn(5) == 0 {
		// A flow into a name no file may define, or one with the
		// pipeline's qualifiers.
		out.flows = append(out.flows, g.flow(name, g.pick("nowhere", "sales.a", "SALES.b", "main.sales.c"), true))
	}
	return out
}

func (g *cacheGen) flow(file, target string, appendFlow bool) *ir.Flow {
	f := &ir.Flow{Name: target, Target: target, Loc: g.loc(file), QueryLoc: g.loc(file)}
	if appendFlow {
		f.Append = true
		f.Name = g.pick("f1", "f2", "db.f3", fmt.Sprintf("e%d", g.edit))
		f.TargetLoc = g.loc(file)
	}
	for k := 0; k < g.r.Intn(3); k++ {
		ref := ir.Ref{Name: g.pick(append(g.names, "src", "sales.src")...), Loc: g.loc(file), Streaming: g.r.Intn(2) == 0}
		f.Reads = append(f.Reads, ref)
		f.Streaming = f.Streaming || ref.Streaming
	}
	if g.r.Intn(4) == 0 {
		f.Watermark = &ir.Watermark{Column: "ts", Delay: "1 minute", Loc: g.loc(file)}
	}
	if g.r.Intn(3) == 0 {
		f.Aggregates = true
		f.AggLoc = g.loc(file)
		f.SQL = "SELECT k, count(*) FROM s GROUP BY k"
	}
	if g.r.Intn(5) == 0 {
		f.CDC = &ir.CDC{Keys: []string{"id"}, SequenceBy: "seq", SCD: 1 + g.r.Intn(2), Loc: g.loc(file)}
		if g.r.Intn(2) == 0 {
			f.Syntax = []ir.Construct{{Name: g.pick(string(SynApplyChanges), string(SynAutoCDC)), Loc: f.CDC.Loc}}
		}
	}
	switch g.r.Intn(6) {
	case 0:
		f.OutputMode, f.OutputLoc = ir.Update, g.loc(file)
	case 1:
		f.OutputMode, f.OutputLoc = ir.Complete, g.loc(file)
	}
	if g.r.Intn(6) == 0 {
		f.Trigger = ir.Trigger{Kind: ir.ProcessingTime, Interval: "1 minute", Loc: g.loc(file)}
	}
	if g.r.Intn(6) == 0 {
		f.Expectations = []ir.Expectation{{Name: "e", SQL: "id > 0", Action: ir.Warn, Loc: g.loc(file)}}
	}
	if g.r.Intn(8) == 0 {
		f.SparkSyntax = &ir.SyntaxStop{Loc: g.loc(file), Message: "syntax error"}
	}
	f.Once = g.r.Intn(10) == 0
	return f
}

func assembled(files []cacheFile, database string) *ir.Pipeline {
	p := &ir.Pipeline{Name: "p", Database: database, Backends: ir.AllBackends}
	for _, f := range files {
		p.Datasets = append(p.Datasets, f.datasets...)
		p.Flows = append(p.Flows, f.flows...)
	}
	return p
}

func diagStrings(ds []ir.Diagnostic) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = fmt.Sprintf("%+v", d)
	}
	slices.Sort(out)
	return out
}

// TestCacheEqualsCheck edits random pipelines file by file and checks
// that CheckIncremental, following the previous pipeline's cache, gives
// exactly Check and Streaming of a fresh pipeline: a result kept for a
// node whose neighbourhood changed would differ.
func TestCacheEqualsCheck(t *testing.T) {
	seeds := 25
	if testing.Short() {
		seeds = 6
	}
	kept := 0
	for seed := 1; seed <= seeds; seed++ {
		r := rand.New(rand.NewSource(int64(seed)))
		g := &cacheGen{r: r, names: []string{"a", "b", "c", "A", "sales.a", "d", "e", "tv", "src2"}}
		database := ""
		if seed%3 == 0 {
			database = "sales"
		}
		files := make([]cacheFile, 6+r.Intn(6))
		for i := range files {
			files[i] = g.file(i, nil)
		}
		backends := ir.AllBackends
		var cache *Cache
		for step := 0; step < 40; step++ {
			i := r.Intn(len(files))
			switch r.Intn(10) {
			case 0: // new names
				files[i] = g.file(i, nil)
			case 1:
				backends = []ir.Backend{ir.Native, ir.Spark43}
			default: // same names, new contents
				var names []string
				for _, d := range files[i].datasets {
					names = append(names, d.Name)
				}
				files[i] = g.file(i, names)
			}
			p := assembled(files, database)
			check, streaming, next := CheckIncremental(p, backends, cache)
			fresh := assembled(files, database)
			want := diagStrings(append(Check(fresh, backends), Streaming(fresh)...))
			got := diagStrings(append(check, streaming...))
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d step %d: incremental check differs from a fresh one\n got %q\nwant %q", seed, step, got, want)
			}
			if cache != nil {
				for n, res := range next.nodes {
					if n < len(cache.nodes) && res != nil && res == cache.nodes[n] {
						kept++
					}
				}
			}
			cache = next
		}
	}
	if kept == 0 {
		t.Fatal("no node result was ever kept: the test does not exercise the cache")
	}
}
