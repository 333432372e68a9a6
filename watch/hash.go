package watch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"sort"
	"strings"

	"github.com/thund-dev/thund/ir"
)

// SourceFingerprint returns the fingerprint of a source's sample data (its
// files' contents, or sizes and modification times for big files); Hashes
// folds it into the hash of every dataset reading the source.
type SourceFingerprint func(src *ir.Source) string

// Hashes returns a content hash per dataset key. A dataset's hash covers
// what decides its rows: the normalised SQL of every flow into it (see
// ir.NormalizeSQL), its settings (kind, expectations, trigger, output mode,
// watermark, CDC, conf, source declarations, layout), the pipeline's
// catalog, database and configuration, and the hashes of its inputs:
// upstream datasets' hashes and, for sources, the sample binding and the
// fingerprint sample returns. Comments, blank lines and documentation do
// not count, so a save that changes none of these keeps every hash.
//
// Datasets on a cycle get a hash too (their cyclic inputs count as
// "cycle"), so the result always has every dataset key.
func Hashes(p *ir.Pipeline, sample SourceFingerprint) map[string]string {
	g := p.Graph()
	order, _ := g.TopoOrder()
	inOrder := make(map[string]bool, len(order))
	for _, k := range order {
		inOrder[k] = true
	}
	for _, k := range g.Nodes {
		if !inOrder[k] {
			order = append(order, k)
		}
	}
	sources := make(map[string]*ir.Source, len(p.Sources))
	for _, s := range p.Sources {
		sources[ir.NameKey(s.Name)] = s
	}
	global := pipelineHash(p)
	out := make(map[string]string, len(order))
	for _, k := range order {
		out[k] = datasetHash(p, k, global, out, sources, sample)
	}
	return out
}

// pipelineHash covers the pipeline-wide settings every dataset depends on.
func pipelineHash(p *ir.Pipeline) string {
	h := sha256.New()
	field(h, "catalog", p.Catalog)
	field(h, "database", p.Database)
	mapField(h, "configuration", p.Configuration)
	return sum(h)
}

func datasetHash(p *ir.Pipeline, key, global string, done map[string]string, sources map[string]*ir.Source, sample SourceFingerprint) string {
	h := sha256.New()
	field(h, "pipeline", global)
	d := p.Dataset(key)
	field(h, "name", d.Name)
	field(h, "kind", string(d.Kind))
	field(h, "format", d.Format)
	field(h, "partition_by", strings.Join(d.PartitionBy, ","))
	field(h, "cluster_by", strings.Join(d.ClusterBy, ","))
	for _, e := range d.Expectations { // of a table declared without a query, checked on every flow into it
		field(h, "expect", e.Name+" "+string(e.Action)+" "+ir.NormalizeSQL(e.SQL))
	}
	mapField(h, "properties", d.Properties)
	backends := make([]string, len(d.Backends))
	for i, b := range d.Backends {
		backends[i] = string(b)
	}
	field(h, "backends", strings.Join(backends, ","))
	inputs := map[string]string{}
	for _, f := range p.FlowsInto(key) {
		flowHash(h, f)
		for _, r := range f.Reads {
			if up := p.Resolve(r.Name); up != nil {
				uk := ir.NameKey(up.Name)
				uh, ok := done[uk]
				if !ok || uk == key {
					uh = "cycle"
				}
				inputs["dataset "+uk] = uh
				continue
			}
			rk := ir.NameKey(r.Name)
			src := sources[rk]
			if src == nil {
				inputs["unknown "+rk] = ""
				continue
			}
			inputs["source "+rk] = sourceHash(src, sample)
		}
	}
	mapField(h, "inputs", inputs)
	return sum(h)
}

// flowHash writes everything about a flow that decides what it writes.
func flowHash(h hash.Hash, f *ir.Flow) {
	field(h, "flow", f.Name)
	field(h, "target", ir.NameKey(f.Target))
	field(h, "mode", f.Mode())
	field(h, "sql", ir.NormalizeSQL(f.Normalized))
	if s := f.Source; s != nil {
		field(h, "source", string(s.Kind)+" "+s.Table)
		mapField(h, "source_options", s.Options)
	}
	field(h, "trigger", string(f.Trigger.Kind)+" "+f.Trigger.Interval)
	field(h, "output_mode", string(f.OutputMode))
	if w := f.Watermark; w != nil {
		field(h, "watermark", w.Column+" "+w.Delay)
	}
	for _, e := range f.Expectations {
		field(h, "expect", e.Name+" "+string(e.Action)+" "+ir.NormalizeSQL(e.SQL))
	}
	if c := f.CDC; c != nil {
		field(h, "cdc", fmt.Sprintf("keys=%s seq=%s scd=%d deletes=%s", strings.Join(c.Keys, ","), c.SequenceBy, c.SCD, ir.NormalizeSQL(c.Deletes)))
	}
	mapField(h, "conf", f.Conf)
}

// sourceHash covers a source's binding and its sample data.
func sourceHash(src *ir.Source, sample SourceFingerprint) string {
	h := sha256.New()
	field(h, "name", src.Name)
	field(h, "sample", src.Sample)
	field(h, "stream", fmt.Sprint(src.Stream))
	if d := src.Declared; d != nil {
		field(h, "declared", string(d.Kind)+" "+d.Table)
		mapField(h, "options", d.Options)
	}
	if src.Sample != "" && sample != nil {
		field(h, "data", sample(src))
	}
	return sum(h)
}

// field writes a length-prefixed name and value, so no two different
// sequences of fields write the same bytes.
func field(w io.Writer, name, value string) {
	fmt.Fprintf(w, "%d:%s=%d:%s;", len(name), name, len(value), value)
}

func mapField(w io.Writer, name string, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	field(w, name, fmt.Sprint(len(keys)))
	for _, k := range keys {
		field(w, k, m[k])
	}
}

func sum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)[:16]) }
