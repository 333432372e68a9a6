package lsp

import (
	"fmt"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/pragma"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/preview"
)

// hoverAt answers a hover at a resolved position; sh maps the model's
// locations into the buffer's text when the model is older (nil if not).
func (s *Server) hoverAt(dp docPos, sh *editShift) (any, error) {
	if md, loc, ok := s.symbolHover(dp); ok {
		r := sh.rangeOf(dp.snap, loc)
		return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}, Range: &r}, nil
	}
	t := dp.snap.At(dp.rel, dp.off)
	var md string
	var rng *protocol.Range
	switch {
	case t.Dataset != nil:
		md = s.datasetHover(dp, t.Dataset)
		loc := t.Dataset.NameLoc
		if t.Ref != nil {
			loc = t.Ref.Loc
		}
		r := sh.rangeOf(dp.snap, loc)
		rng = &r
	case t.Ref != nil:
		md = sourceHover(t)
		r := sh.rangeOf(dp.snap, t.Ref.Loc)
		rng = &r
	case t.Pragma != nil:
		md = pragmaHover(*t.Pragma, dp.off)
		r := sh.rangeOf(dp.snap, t.Pragma.Line)
		rng = &r
	default:
		var loc ir.Loc
		md, loc = s.columnHover(dp)
		if md != "" {
			r := sh.rangeOf(dp.snap, loc)
			rng = &r
		}
	}
	if pm, loc, ok := paramHover(dp); ok {
		// A ${key} reference: what Spark substitutes, before what the
		// substituted text is.
		if md != "" {
			pm += "\n\n---\n\n" + md
		}
		md = pm
		r := sh.rangeOf(dp.snap, loc)
		rng = &r
	}
	if md == "" {
		return nil, nil
	}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}, Range: rng}, nil
}

// paramHover describes the pipeline parameter reference ${key} under the
// cursor: the value Spark substitutes for it and where it is set.
func paramHover(dp docPos) (string, ir.Loc, bool) {
	if dp.snap.Pipeline == nil {
		return "", ir.Loc{}, false
	}
	text, ok := dp.snap.Text(dp.rel)
	if !ok {
		return "", ir.Loc{}, false
	}
	pr, ok := lex.ParamAt(text, dp.off, dp.snap.Pipeline.Configuration)
	if !ok {
		return "", ir.Loc{}, false
	}
	where := "the pipeline's `configuration:`"
	if f := dp.snap.Project.SpecFile; f != "" {
		where = "`configuration:` in " + f
	}
	written := text[pr.Start:pr.End]
	var md string
	switch pr.Kind {
	case lex.ParamSet:
		md = fmt.Sprintf("`%s` = `%s` (pipeline parameter, from %s)", written, pr.Value, where)
	case lex.ParamUnset:
		md = fmt.Sprintf("`%s`: no such key in %s, so Spark substitutes empty text", written, where)
	case lex.ParamRedacted:
		md = fmt.Sprintf("`%s`: Spark redacts this setting and substitutes `%s`", written, lex.RedactedValue)
	case lex.ParamServer:
		md = fmt.Sprintf("`%s`: a value only the Spark server knows (its environment or JVM properties)", written)
	case lex.ParamCircular:
		md = fmt.Sprintf("`%s`: its value refers back to itself, which Spark refuses", written)
	default:
		md = fmt.Sprintf("`%s`: Spark leaves a reference with this prefix as written", written)
	}
	return md, ir.Loc{File: dp.rel, Start: pr.Start, End: pr.End}, true
}

// datasetHover describes a dataset: kind, file, comment, columns, lineage,
// support per backend and the last preview.
func (s *Server) datasetHover(dp docPos, d *ir.Dataset) string {
	snap := dp.snap
	p := snap.Pipeline
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** · %s\n\n", d.Name, strings.ReplaceAll(string(d.Kind), "_", " "))
	line := snap.Index(d.Loc.File).Rune(d.NameLoc.Start).Line + 1
	fmt.Fprintf(&b, "Defined in `%s:%d`", d.Loc.File, line)
	flows := p.FlowsInto(d.Name)
	if len(flows) > 1 {
		fmt.Fprintf(&b, ", filled by %d flows", len(flows))
	}
	b.WriteString("\n\n")
	if d.Comment != "" {
		b.WriteString(d.Comment + "\n\n")
	}
	if cols := s.columnsOf(dp.root, d.Name); len(cols) > 0 {
		b.WriteString("| column | type |\n|---|---|\n")
		for _, c := range cols {
			fmt.Fprintf(&b, "| %s | %s |\n", c.Name, preview.SparkType(c.Type))
		}
		b.WriteString("\n")
	}
	pythonHover(&b, snap, d, flows)
	g := p.Graph()
	key := ir.NameKey(d.Name)
	var up, down []string
	for _, e := range g.In(key) {
		up = appendUnique(up, p.Dataset(e.From).Name)
	}
	for _, f := range flows {
		for _, r := range f.Reads {
			if p.Resolve(r.Name) == nil {
				up = appendUnique(up, r.Name+" (source)")
			}
		}
	}
	for _, e := range g.Out(key) {
		down = appendUnique(down, p.Dataset(e.To).Name)
	}
	fmt.Fprintf(&b, "Upstream: %s  \nDownstream: %s\n\n", listOr(up, "none"), listOr(down, "none"))
	support := capab.DatasetSupport(p, d, capab.Backends(p.Backends, d))
	var backends []string
	for _, be := range p.Backends {
		reasons, ok := support[be]
		switch {
		case !ok:
			backends = append(backends, fmt.Sprintf("%s: not targeted (@backends)", be))
		case len(reasons) == 0:
			backends = append(backends, fmt.Sprintf("%s: yes", be))
		default:
			// One reason per feature, not per use (each expectation).
			var once []string
			for _, r := range reasons {
				once = appendUnique(once, r)
			}
			backends = append(backends, fmt.Sprintf("%s: no (%s)", be, strings.Join(once, "; ")))
		}
	}
	b.WriteString("Backends: " + strings.Join(backends, "  \n") + "\n")
	if lp := s.lastPreviewOf(dp.root, key); lp != nil {
		fmt.Fprintf(&b, "\nLast preview: %d rows in %d ms\n", lp.page.TotalRows, lp.elapsed.Milliseconds())
	}
	return b.String()
}

// pythonHover adds, for a dataset a Python file defines, its table
// settings (partition_cols, cluster_by, format, table_properties, its
// flows' spark_conf) and, for a body Thund does not run natively, why
// and which sample stands in for its rows.
func pythonHover(b *strings.Builder, snap *analysis.Snapshot, d *ir.Dataset, flows []*ir.Flow) {
	if !strings.HasSuffix(d.Loc.File, ".py") {
		return
	}
	var lines []string
	if len(d.PartitionBy) > 0 {
		lines = append(lines, "partition_cols: `"+strings.Join(d.PartitionBy, "`, `")+"`")
	}
	if len(d.ClusterBy) > 0 {
		lines = append(lines, "cluster_by: `"+strings.Join(d.ClusterBy, "`, `")+"`")
	}
	if d.Format != "" {
		lines = append(lines, "format: `"+d.Format+"`")
	}
	if kv := keyValues(d.Properties); kv != "" {
		lines = append(lines, "table_properties: "+kv)
	}
	for _, f := range flows {
		if kv := keyValues(f.Conf); kv != "" {
			what := "spark_conf"
			if len(flows) > 1 {
				what += " of " + f.Name
			}
			lines = append(lines, what+": "+kv)
		}
	}
	if len(lines) > 0 {
		b.WriteString(strings.Join(lines, "  \n") + "\n\n")
	}
	if why, sample, ok := snap.PythonStandIn(d); ok {
		if sample != "" {
			fmt.Fprintf(b, "Its Python body is not run (%s): its rows come from `%s`.\n\n", why, sample)
		} else {
			fmt.Fprintf(b, "Its Python body is not run (%s), and no sample stands in: add `samples/%s.csv` (or .json, .parquet) for its rows.\n\n", why, strings.ToLower(d.Name))
		}
	}
}

// keyValues lists a map as `k` = `v`, sorted by key.
func keyValues(m map[string]string) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		out = append(out, "`"+k+"` = `"+m[k]+"`")
	}
	return strings.Join(out, ", ")
}

func sourceHover(t analysis.Target) string {
	if t.Source == nil {
		return fmt.Sprintf("**%s** · unknown table\n\nNot a dataset of this pipeline, and no sample binds it.", t.Ref.Name)
	}
	src := t.Source
	stream := streamedRead(t)
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** · source table\n\n", src.Name)
	if r := t.Ref; r != nil && r.Kind == ir.Kafka {
		if topic, ok := r.Option("subscribe"); ok && !strings.Contains(topic, ",") {
			fmt.Fprintf(&b, "A Kafka source: the topic `%s`", topic)
		} else if ok {
			fmt.Fprintf(&b, "A Kafka source: the topics `%s`", topic)
		} else {
			b.WriteString("A Kafka source (subscribed by pattern or assignment)")
		}
		if servers, ok := r.Option("bootstrapServers"); ok {
			fmt.Fprintf(&b, " on `%s`", servers)
		} else if servers, ok := r.Option("kafka.bootstrap.servers"); ok {
			fmt.Fprintf(&b, " on `%s`", servers)
		}
		b.WriteString(".\n\n")
	}
	if src.Sample != "" {
		// The sample's shape says how a run reads it, the flow's read
		// whether it streams.
		kind := "sample"
		switch {
		case src.Stream && stream:
			kind = "micro-batch folder"
		case src.Stream:
			kind = "sample folder (every file at once, a batch read)"
		case stream:
			kind = "sample (one micro-batch)"
		}
		fmt.Fprintf(&b, "Reads the %s `%s` (bound by %s)\n", kind, src.Sample, src.Origin)
	}
	if src.Declared != nil {
		fmt.Fprintf(&b, "\nDeclared `@source: %s`\n", src.Declared.Kind)
	}
	if stream {
		fmt.Fprintf(&b, "\nRead as a stream (%s).\n", streamHow(t))
	}
	return b.String()
}

// streamedRead reports whether the reference of t is a streaming read of
// its flow: STREAM x in SQL, a streaming read in Python, an Auto Loader
// read, or the stream a flow's `@source` declares.
func streamedRead(t analysis.Target) bool {
	if t.Ref == nil {
		return false
	}
	if t.Ref.Streaming {
		return true
	}
	f := t.Flow
	return f != nil && f.Streaming && f.Source != nil && ir.NameKey(f.Source.Table) == ir.NameKey(t.Ref.Name)
}

// streamHow names how the flow of t reads its reference as a stream, in
// the words of the file it is written in.
func streamHow(t analysis.Target) string {
	f := t.Flow
	switch {
	case f != nil && !t.Ref.Streaming && f.Source != nil:
		return "the `@source: " + string(f.Source.Kind) + "` stream"
	case strings.HasSuffix(t.Ref.Loc.File, ".py"):
		return "a streaming read in Python"
	case f != nil && constructAt(f.Syntax, capab.SynCloudFiles, t.Ref.Loc.Start):
		return "Auto Loader, `cloud_files`"
	case f != nil && constructAt(f.Syntax, capab.SynReadKafka, t.Ref.Loc.Start):
		return "`STREAM read_kafka`, a Kafka topic"
	}
	return "`STREAM`"
}

// constructAt reports whether cs hold feature at offset start.
func constructAt(cs []ir.Construct, feature capab.Feature, start int) bool {
	for _, c := range cs {
		if c.Name == string(feature) && c.Loc.Start == start {
			return true
		}
	}
	return false
}

// pragmaHover documents a pragma key, its allowed values and, on the
// value, what the value means.
func pragmaHover(p pragma.Pragma, off int) string {
	doc, ok := pragma.LookupKey(p.Key)
	if !ok {
		return fmt.Sprintf("`@%s` is not a pragma key Thund knows.", p.Key)
	}
	var b strings.Builder
	key := "@" + p.Key
	if doc.Dotted {
		key += ".NAME"
	}
	fmt.Fprintf(&b, "**%s**\n\n%s\n", key, doc.Doc)
	if len(doc.Values) > 0 {
		b.WriteString("\nValues: `" + strings.Join(doc.Values, "` · `") + "`\n")
	}
	if off >= p.ValueLoc.Start && p.ValueLoc.End > p.ValueLoc.Start {
		fmt.Fprintf(&b, "\nSet to `%s`.\n", p.Value)
	}
	return b.String()
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func listOr(list []string, none string) string {
	if len(list) == 0 {
		return none
	}
	sort.Strings(list)
	return strings.Join(list, ", ")
}

// columnHover describes the column under the cursor: its type and the
// table it comes from (an alias before the dot picks the table).
func (s *Server) columnHover(dp docPos) (string, ir.Loc) {
	text, _ := dp.snap.Text(dp.rel)
	start, end := dp.off, dp.off
	for start > 0 && isIdentByte(text[start-1]) {
		start--
	}
	for end < len(text) && isIdentByte(text[end]) {
		end++
	}
	if start == end || flowAt(dp.snap, dp.rel, dp.off) == nil {
		return "", ir.Loc{}
	}
	word := text[start:end]
	tables := tablesInScope(dp.snap, dp.rel, dp.off)
	if start > 1 && text[start-1] == '.' {
		a := start - 1
		for a > 0 && isIdentByte(text[a-1]) {
			a--
		}
		if t := aliasTable(dp.snap, dp.rel, dp.off, text[a:start-1]); t != "" {
			tables = []string{t}
		}
	}
	var found []string
	typ := ""
	for _, t := range tables {
		for _, c := range s.columnsOf(dp.root, t) {
			if strings.EqualFold(c.Name, word) {
				found = append(found, t)
				typ = preview.SparkType(c.Type)
			}
		}
	}
	if len(found) == 0 {
		return "", ir.Loc{}
	}
	loc := ir.Loc{File: dp.rel, Start: start, End: end}
	if len(found) > 1 {
		return fmt.Sprintf("**%s** · %s\n\nColumn of %s (ambiguous without a qualifier)", word, typ, strings.Join(found, ", ")), loc
	}
	return fmt.Sprintf("**%s** · %s\n\nColumn of `%s`", word, typ, found[0]), loc
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
