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
// NormalizeSQL), its settings (kind, expectations, trigger, output mode,
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
	field(h, "sql", NormalizeSQL(f.Normalized))
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
		field(h, "expect", e.Name+" "+string(e.Action)+" "+NormalizeSQL(e.SQL))
	}
	if c := f.CDC; c != nil {
		field(h, "cdc", fmt.Sprintf("keys=%s seq=%s scd=%d deletes=%s", strings.Join(c.Keys, ","), c.SequenceBy, c.SCD, NormalizeSQL(c.Deletes)))
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

// NormalizeSQL returns a query's text with what cannot change its meaning
// removed: comments (-- to the end of the line, and /* */ blocks, nested
// as in DuckDB) are dropped, every run of whitespace outside string
// literals and quoted identifiers becomes one space (none next to a comma
// or parenthesis, nor at either end), and a trailing semicolon goes.
// Literals ('...', E'...' with backslash escapes, $tag$...$tag$) and
// quoted identifiers ("...") are kept byte for byte.
func NormalizeSQL(q string) string {
	var b strings.Builder
	b.Grow(len(q))
	gap := false // whitespace or a comment since the last token byte
	emit := func(s string) {
		if gap && b.Len() > 0 && !tight(lastByte(&b)) && !tight(s[0]) {
			b.WriteByte(' ')
		}
		gap = false
		b.WriteString(s)
	}
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			gap = true
			i++
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			for i < len(q) && q[i] != '\n' {
				i++
			}
			gap = true
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			i = skipBlockComment(q, i)
			gap = true
		case c == '\'':
			escapes := i > 0 && (q[i-1] == 'e' || q[i-1] == 'E') && (i < 2 || !identByte(q[i-2]))
			j := skipQuoted(q, i, '\'', escapes)
			emit(q[i:j])
			i = j
		case c == '"':
			j := skipQuoted(q, i, '"', false)
			emit(q[i:j])
			i = j
		case c == '$' && (i == 0 || !identByte(q[i-1])):
			if j, ok := skipDollar(q, i); ok {
				emit(q[i:j])
				i = j
				continue
			}
			emit(q[i : i+1])
			i++
		case c == ';':
			// A statement's trailing semicolon means nothing; one in the
			// middle (never in a valid query) is kept.
			j := i + 1
			for j < len(q) && isSpaceOrComment(q, j) {
				j = skipSpaceOrComment(q, j)
			}
			if j >= len(q) {
				i = j
				continue
			}
			emit(";")
			i++
		default:
			j := i + 1
			for j < len(q) && plainByte(q[j]) {
				j++
			}
			emit(q[i:j])
			i = j
		}
	}
	return b.String()
}

// tight bytes need no space around them: SQL tokens never merge across
// them.
func tight(c byte) bool { return c == ',' || c == '(' || c == ')' }

func lastByte(b *strings.Builder) byte {
	s := b.String()
	return s[len(s)-1]
}

// plainByte is a byte that can continue a run of ordinary token text.
func plainByte(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '\'', '"', '$', '-', '/', ';', ',', '(', ')':
		return false
	}
	return true
}

func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// skipQuoted returns the index after the quoted text starting at q[i]; a
// doubled quote is an escaped quote, and with backslash escapes so is \'.
// An unterminated literal runs to the end.
func skipQuoted(q string, i int, quote byte, backslash bool) int {
	for j := i + 1; j < len(q); j++ {
		switch {
		case backslash && q[j] == '\\':
			j++
		case q[j] == quote:
			if j+1 < len(q) && q[j+1] == quote {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(q)
}

// skipDollar recognises a dollar-quoted string ($$...$$ or $tag$...$tag$)
// at q[i] and returns the index after it.
func skipDollar(q string, i int) (int, bool) {
	j := i + 1
	for j < len(q) && (q[j] == '_' || q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z' || j > i+1 && q[j] >= '0' && q[j] <= '9') {
		j++
	}
	if j >= len(q) || q[j] != '$' {
		return 0, false
	}
	tag := q[i : j+1]
	end := strings.Index(q[j+1:], tag)
	if end < 0 {
		return len(q), true
	}
	return j + 1 + end + len(tag), true
}

// skipBlockComment returns the index after the /* */ comment at q[i],
// counting nested comments.
func skipBlockComment(q string, i int) int {
	depth := 0
	for i < len(q) {
		switch {
		case strings.HasPrefix(q[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(q[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(q)
}

func isSpaceOrComment(q string, i int) bool {
	switch q[i] {
	case ' ', '\t', '\n', '\r', '\f', '\v':
		return true
	case '-':
		return i+1 < len(q) && q[i+1] == '-'
	case '/':
		return i+1 < len(q) && q[i+1] == '*'
	}
	return false
}

func skipSpaceOrComment(q string, i int) int {
	switch q[i] {
	case '-':
		for i < len(q) && q[i] != '\n' {
			i++
		}
		return i
	case '/':
		return skipBlockComment(q, i)
	}
	return i + 1
}
