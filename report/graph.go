package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/ir"
)

// Graph writes the pipeline's datasets in topological order, each with its
// kind, defining file, flows, what it reads and where it cannot run.
func Graph(w io.Writer, s *analysis.Snapshot) error {
	p := s.Pipeline
	g := p.Graph()
	order, err := g.TopoOrder()
	if err != nil {
		fmt.Fprintf(w, "(the graph has a cycle, %v; datasets on it are listed last)\n", err)
		seen := map[string]bool{}
		for _, k := range order {
			seen[k] = true
		}
		for _, k := range g.Nodes {
			if !seen[k] {
				order = append(order, k)
			}
		}
	}
	supports := capab.Supports(p)
	streamed := streamedSources(p)
	fmt.Fprintf(w, "pipeline %s: %d datasets, %d flows, %d sources\n", p.Name, len(p.Datasets), len(p.Flows), len(p.Sources))
	for _, src := range p.Sources {
		sample := "no sample"
		if src.Sample != "" {
			sample = src.Sample
		}
		switch {
		case streamed[ir.NameKey(src.Name)] && src.Stream:
			sample += " (a stream: micro-batches)"
		case streamed[ir.NameKey(src.Name)]:
			sample += " (a stream)"
		case src.Stream:
			sample += " (micro-batches)"
		}
		fmt.Fprintf(w, "  %-8s %-28s %s\n", "source", src.Name, sample)
	}
	for _, k := range order {
		d := p.Resolve(k)
		if d == nil {
			continue
		}
		fmt.Fprintf(w, "  %-8s %-28s %s\n", shortKind(d.Kind), d.Name, d.Loc.File)
		for _, f := range p.FlowsInto(d.Name) {
			var reads []string
			for _, r := range f.Reads {
				name := r.Name
				if r.Streaming {
					name = "STREAM " + name
				}
				reads = append(reads, name)
			}
			line := fmt.Sprintf("    <- %s", strings.Join(reads, ", "))
			if len(reads) == 0 {
				line = "    <- (no inputs)"
			}
			extra := []string{f.Mode()}
			if len(f.Expectations) > 0 {
				extra = append(extra, plural(len(f.Expectations), "expectation"))
			}
			if f.Name != d.Name {
				extra = append(extra, "flow "+f.Name)
			}
			fmt.Fprintf(w, "%s  [%s]\n", line, strings.Join(extra, ", "))
		}
		support := supports(d, capab.Backends(p.Backends, d))
		for _, b := range p.Backends {
			if reasons, ok := support[b]; ok && len(reasons) > 0 {
				fmt.Fprintf(w, "    not on %s: %s\n", b, strings.Join(reasons, "; "))
			}
		}
	}
	return nil
}

// streamedSources are the sources (by name key) a flow of p reads as a
// stream: STREAM(x), a read of files as a stream (Auto Loader's STREAM
// read_files and cloud_files, spark.readStream loads) or an @source.
func streamedSources(p *ir.Pipeline) map[string]bool {
	out := map[string]bool{}
	for _, f := range p.Flows {
		for _, r := range f.Reads {
			if (r.Streaming || f.Source != nil && ir.NameKey(r.Name) == ir.NameKey(f.Source.Table)) && p.Resolve(r.Name) == nil {
				out[ir.NameKey(r.Name)] = true
			}
		}
	}
	return out
}

// streams reports whether a flow into d reads a stream (or applies
// changes from one).
func streams(p *ir.Pipeline, d *ir.Dataset) bool {
	for _, f := range p.FlowsInto(d.Name) {
		if f.Streaming || f.CDC != nil {
			return true
		}
	}
	return false
}

func shortKind(k ir.Kind) string {
	switch k {
	case ir.MaterializedView:
		return "mview"
	case ir.StreamingTable:
		return "stream"
	case ir.TemporaryView:
		return "tempview"
	}
	return string(k)
}

// JSONGraph is the NDJSON form of Graph: the sources and the datasets in
// dependency order (a cycle's datasets last, with Cycle set).
type JSONGraph struct {
	Type     string             `json:"type"`
	Pipeline string             `json:"pipeline"`
	Cycle    bool               `json:"cycle"`
	Sources  []JSONGraphSource  `json:"sources"`
	Datasets []JSONGraphDataset `json:"datasets"`
}

// JSONGraphSource is a table no dataset defines, with its sample.
// Stream is set when a flow reads it as a stream (STREAM(x), Auto
// Loader's STREAM read_files or cloud_files, a spark.readStream load) or
// its sample is a folder of micro-batch files.
type JSONGraphSource struct {
	Name   string `json:"name"`
	Sample string `json:"sample"`
	Stream bool   `json:"stream"`
}

// JSONGraphDataset is one dataset of JSONGraph: what it reads, over all
// its flows, and why a checked backend cannot run it.
type JSONGraphDataset struct {
	Name         string   `json:"name"`
	Kind         string   `json:"kind"`
	File         string   `json:"file"`
	Reads        []string `json:"reads"`
	Streams      []string `json:"streams"`
	Flows        []string `json:"flows"`
	Expectations int      `json:"expectations"`
	// Streaming is set when a flow into the dataset reads a stream (a
	// streaming table's, or a temporary view's that streams).
	Streaming bool                `json:"streaming"`
	NotOn     map[string][]string `json:"not_on,omitempty"`
}

// GraphJSONOf builds the graph object of the snapshot.
func GraphJSONOf(s *analysis.Snapshot) JSONGraph {
	p := s.Pipeline
	g := p.Graph()
	order, err := g.TopoOrder()
	out := JSONGraph{Type: "graph", Pipeline: p.Name, Cycle: err != nil, Sources: []JSONGraphSource{}, Datasets: []JSONGraphDataset{}}
	if err != nil {
		seen := map[string]bool{}
		for _, k := range order {
			seen[k] = true
		}
		for _, k := range g.Nodes {
			if !seen[k] {
				order = append(order, k)
			}
		}
	}
	streamed := streamedSources(p)
	for _, src := range p.Sources {
		out.Sources = append(out.Sources, JSONGraphSource{Name: src.Name, Sample: src.Sample, Stream: src.Stream || streamed[ir.NameKey(src.Name)]})
	}
	supports := capab.Supports(p)
	for _, k := range order {
		d := p.Resolve(k)
		if d == nil {
			continue
		}
		jd := JSONGraphDataset{Name: d.Name, Kind: string(d.Kind), File: d.Loc.File, Reads: []string{}, Streams: []string{}, Flows: []string{}, Streaming: streams(p, d)}
		seen := map[string]bool{}
		for _, f := range p.FlowsInto(d.Name) {
			jd.Flows = append(jd.Flows, f.Name)
			jd.Expectations += len(f.Expectations)
			for _, r := range f.Reads {
				if seen[ir.NameKey(r.Name)] {
					continue
				}
				seen[ir.NameKey(r.Name)] = true
				jd.Reads = append(jd.Reads, r.Name)
				if r.Streaming {
					jd.Streams = append(jd.Streams, r.Name)
				}
			}
		}
		support := supports(d, capab.Backends(p.Backends, d))
		for _, b := range p.Backends {
			if reasons, ok := support[b]; ok && len(reasons) > 0 {
				if jd.NotOn == nil {
					jd.NotOn = map[string][]string{}
				}
				jd.NotOn[string(b)] = reasons
			}
		}
		out.Datasets = append(out.Datasets, jd)
	}
	return out
}
