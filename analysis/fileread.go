package analysis

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

// A read of files by path (read_files, cloud_files, format.`path`) stands
// for a source named after the path's last segment (a read_kafka for one
// named after its topic), written into the query's text in place of the
// call (sqlfront.FileRead). That name is
// chosen per file, before the pipeline's other names are known, so it can
// be a dataset's name: /landing/customers read by customers_raw while a
// dataset customers reads customers_raw would be a read of the dataset,
// and a cycle. Once the pipeline is assembled such a read is renamed to a
// name no dataset has (customers_files), in the reference and in the
// query's texts alike; the flow is copied, since file results are shared
// between snapshots.

// renamedFlow is the pipeline's version of a flow whose file reads were
// renamed: the copy, its Spark tree (for the column check) and the names
// given, which decide whether the next snapshot can keep the copy.
type renamedFlow struct {
	flow  *ir.Flow
	tree  *ast.Query
	names string
}

// renameFileReads replaces, in a.pipeline.Flows, every flow with a file
// read named like a dataset by a copy whose read has a free name. A flow
// of an unchanged file renamed the same way as in prev keeps prev's copy,
// so the pipeline can follow prev's (ir.Pipeline.Follow).
func (a *assembly) renameFileReads(prev *assembly, vars map[string]string) {
	p := a.pipeline
	var taken map[string]bool
	for fi, f := range p.Flows {
		for _, r := range f.Reads {
			if !sourceRead(r) {
				continue
			}
			if taken == nil {
				taken = takenNames(p)
			}
			if !taken[ir.NameKey(r.Name)] {
				continue
			}
			if nf := a.renamed1(prev, f, taken, vars); nf != nil {
				p.Flows[fi] = nf
			}
			break
		}
	}
}

// takenNames are the names a file read's source must not have: every
// dataset's name and its last part (the native engine keeps relations
// under it), and every other table a flow reads by name.
func takenNames(p *ir.Pipeline) map[string]bool {
	taken := make(map[string]bool, 2*len(p.Datasets))
	for _, d := range p.Datasets {
		taken[ir.NameKey(d.Name)] = true
		taken[ir.NameKey(lastSegment(d.Name))] = true
	}
	for _, f := range p.Flows {
		for _, r := range f.Reads {
			if !sourceRead(r) {
				taken[ir.NameKey(r.Name)] = true
			}
		}
	}
	return taken
}

// renamed1 returns f's copy with each file read named like a dataset
// renamed, or nil when none can be (the name does not fit the call).
func (a *assembly) renamed1(prev *assembly, f *ir.Flow, taken map[string]bool, vars map[string]string) *ir.Flow {
	reads := append([]ir.Ref(nil), f.Reads...)
	sqlText, norm := []byte(f.SQL), []byte(f.Normalized)
	var names []string
	pyFrom := 0
	for i, r := range reads {
		if !sourceRead(r) || !taken[ir.NameKey(r.Name)] {
			continue
		}
		at, size := r.Loc.Start-f.QueryLoc.Start, r.Loc.End-r.Loc.Start
		if strings.HasSuffix(f.QueryLoc.File, ".py") {
			// A Python load: the reference is the path's literal in
			// the .py file, the SQL pylib wrote holds the name.
			var ok bool
			if at, size, ok = pythonLoadAt(f.SQL, sqlQuote(r.Name, '`'), pyFrom); !ok {
				continue
			}
			pyFrom = at + size
		}
		if r.Loc.File != f.QueryLoc.File || at < 0 || at+size > len(sqlText) || at+size > len(norm) ||
			!strings.HasPrefix(f.SQL[at:], sqlQuote(r.Name, '`')) {
			continue // not the text sqlfront wrote
		}
		name := freeName(r, taken, size)
		if name == "" {
			continue
		}
		writeName(sqlText[at:at+size], sqlQuote(name, '`'))
		writeName(norm[at:at+size], sqlQuote(name, '"'))
		reads[i].Name = name
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil
	}
	sig := strings.Join(names, "\x00")
	if prev != nil {
		if old, ok := prev.renamed[f]; ok && old.names == sig {
			a.keepRenamed(f, old)
			return old.flow
		}
	}
	nf := *f
	nf.Reads = reads
	nf.SQL, nf.Normalized = string(sqlText), string(norm)
	rf := &renamedFlow{flow: &nf, names: sig}
	if a.hasTree(f) {
		// The column check reads the tree: the renamed read must be
		// the source there too.
		virtual := strings.Repeat(" ", f.QueryLoc.Start) + nf.SQL
		rf.tree = sqlfront.SparkTree(virtual, sqlfront.Span{Start: f.QueryLoc.Start, End: len(virtual)}, vars)
	}
	a.keepRenamed(f, rf)
	return &nf
}

// pythonLoadAt finds, from byte from on, the name sqlfront wrote over a
// file read in the SQL pylib wrote for a Python load (after FROM, JOIN
// or STREAM): its offset and the bytes it may take (the name and the
// blanks after it, which were the call's).
func pythonLoadAt(sql, name string, from int) (at, size int, ok bool) {
	for i := from; i < len(sql); {
		j := strings.Index(sql[i:], name)
		if j < 0 {
			return 0, 0, false
		}
		at = i + j
		end := at + len(name)
		i = end
		before := strings.TrimRight(sql[:at], " \t\n")
		word := before[strings.LastIndexAny(before, " \t\n(")+1:]
		if end < len(sql) && !strings.ContainsRune(" \t\n)", rune(sql[end])) {
			continue
		}
		if len(before) == at || !slices.Contains([]string{"FROM", "JOIN", "STREAM"}, strings.ToUpper(word)) {
			continue
		}
		for end < len(sql) && sql[end] == ' ' {
			end++
		}
		return at, end - at, true
	}
	return 0, 0, false
}

// keepRenamed records rf as the pipeline's version of f.
func (a *assembly) keepRenamed(f *ir.Flow, rf *renamedFlow) {
	if a.renamed == nil {
		a.renamed = map[*ir.Flow]*renamedFlow{}
	}
	a.renamed[f] = rf
}

// hasTree reports whether one of the assembled files noted a Spark tree
// for f.
func (a *assembly) hasTree(f *ir.Flow) bool {
	for _, r := range a.ordered {
		if r.path == f.QueryLoc.File && r.tree(f) != nil {
			return true
		}
	}
	return false
}

// freeName is the name for file read r: the path's last segment (or the
// name sqlfront gave) with _files, then _files_2, _files_3..., the first
// that no dataset or other table has and that fits the call's size bytes;
// for a read of Kafka, the topic with _kafka, _kafka_2...
func freeName(r ir.Ref, taken map[string]bool, size int) string {
	base, suffix := sqlfront.FileSourceName(r.Path), "_files"
	if r.Kind == ir.Kafka {
		base, suffix = kafkaTopic(r), "_kafka"
	}
	if base == "" {
		base = r.Name
	}
	for n := 1; n < 100; n++ {
		name := base + suffix
		if n > 1 {
			name += "_" + strconv.Itoa(n)
		}
		if taken[ir.NameKey(name)] {
			continue
		}
		if len(sqlQuote(name, '`')) > size {
			return ""
		}
		return name
	}
	return ""
}

// sqlQuote writes name as an identifier: as is when it needs no quotes,
// else between q characters (` for Spark SQL, " for DuckDB).
func sqlQuote(name string, q byte) string {
	plain := name != ""
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return name
	}
	qs := string(q)
	return qs + strings.ReplaceAll(name, qs, qs+qs) + qs
}

// writeName writes name at the start of call (the bytes sqlfront wrote
// over a file read) and blanks the rest but for line breaks, so the text
// keeps its length.
func writeName(call []byte, name string) {
	for i := range call {
		if call[i] != '\n' && call[i] != '\r' {
			call[i] = ' '
		}
	}
	copy(call, name)
}

// pipelineFlow returns the pipeline's version of a file result's flow:
// its copy when a file read was renamed, else f itself.
func (s *Snapshot) pipelineFlow(f *ir.Flow) *ir.Flow {
	if a := s.asm; a != nil {
		if rf, ok := a.renamed[f]; ok {
			return rf.flow
		}
	}
	return f
}

// pipelineFlows returns flows with each replaced by its pipeline version.
func (s *Snapshot) pipelineFlows(flows []*ir.Flow) []*ir.Flow {
	if s.asm == nil || len(s.asm.renamed) == 0 {
		return flows
	}
	var out []*ir.Flow
	for i, f := range flows {
		if g := s.pipelineFlow(f); g != f {
			if out == nil {
				out = append([]*ir.Flow(nil), flows...)
			}
			out[i] = g
		}
	}
	if out == nil {
		return flows
	}
	return out
}

// A read of files has Spark's hidden _metadata column (the file's path,
// name, size, block and modification time; sema.FileMetadata): a query
// reading the source a file read stands for may name it, and * leaves it
// out. The column check's catalog says so through sema.HiddenCatalog.

// Hidden implements sema.HiddenCatalog: a source that a read of files
// stands for has the hidden _metadata column, and the hidden
// _rescued_data column when Databricks adds it by default (RescuedColumn)
// and * leaves it out natively (rescuedOf).
func (r *recorder) Hidden(name []string) []sema.Column {
	if len(name) == 0 || r.c.p == nil {
		return nil
	}
	full := strings.Join(name, ".")
	if r.c.p.Resolve(full) != nil {
		return nil // a dataset: its columns are its query's
	}
	keys := fileReadKeys(r.c.p)
	for _, key := range []string{ir.NameKey(full), ir.NameKey(name[len(name)-1])} {
		if _, ok := keys[key]; ok && r.c.sources[key] != nil {
			if _, hidden := r.c.rescuedOf(key); hidden {
				return []sema.Column{sema.FileMetadata, RescuedData}
			}
			return []sema.Column{sema.FileMetadata}
		}
	}
	return nil
}

// rescuedOf is the rescued-data column of the source key as a native
// run reads it (engine/sources.go fileReadOf): visible, one of the
// columns of *, when a read of files standing for it names one
// (rescuedDataColumn => 'x'), or gets Databricks' default _rescued_data
// in a pipeline checked against the databricks backend, as Databricks
// gives it; hidden (named, not in *) when a read gets the default one
// elsewhere; "" when no read has one.
func (c *columnCheck) rescuedOf(key string) (visible string, hidden bool) {
	if c.s == nil || c.p == nil || !fileReadKeys(c.p)[key] {
		return "", false
	}
	databricks := slices.Contains(c.p.Backends, ir.Databricks)
	for _, f := range c.p.Flows {
		for _, ref := range f.Reads {
			if ref.Path == "" || ir.NameKey(ref.Name) != key {
				continue
			}
			text, ok := c.s.Text(ref.Loc.File)
			if !ok || ref.Loc.Start < 0 || ref.Loc.End > len(text) || ref.Loc.End <= ref.Loc.Start {
				continue
			}
			name, dflt := RescuedColumn(text[ref.Loc.Start:ref.Loc.End])
			switch {
			case name == "":
			case !dflt || databricks:
				if visible == "" {
					visible = name
				}
			default:
				hidden = true
			}
		}
	}
	return visible, hidden
}

// withRescued returns cols, the columns of source key's sample, with the
// rescued-data column a native run gives in * appended (rescuedOf), unless
// the sample has a column of that name; cols itself is not changed.
func (c *columnCheck) withRescued(key string, cols []sema.Column) []sema.Column {
	if len(cols) == 0 {
		return cols
	}
	name, _ := c.rescuedOf(key)
	if name == "" {
		return cols
	}
	for _, col := range cols {
		if strings.EqualFold(col.Name, name) {
			return cols
		}
	}
	out := make([]sema.Column, len(cols), len(cols)+1)
	copy(out, cols)
	return append(out, sema.Column{Name: name, Type: RescuedData.Type})
}

// RescuedData is the hidden rescued-data column Databricks gives a read
// of files that infers its schema (RescuedColumn).
var RescuedData = sema.Column{Name: "_rescued_data", Type: "string"}

// rescuedRe finds the rescuedDataColumn option of a read_files or
// cloud_files call: `rescueddatacolumn => 'name'` or, in cloud_files'
// map(...), 'rescuedDataColumn', 'name' (any case, either quote).
var rescuedRe = regexp.MustCompile("(?i)(?:\\brescueddatacolumn`?\\s*=>\\s*|['\"](?:cloudfiles\\.)?rescueddatacolumn['\"]\\s*,\\s*)(?:'([^']*)'|\"([^\"]*)\")")

// schemaRe finds a schema given to read_files (schema => ...) or to
// cloud_files' options ('schema', ...): the schema is then not inferred.
var schemaRe = regexp.MustCompile("(?i)(?:\\bschema`?\\s*=>|['\"]schema['\"]\\s*,)")

// formatRe finds read_files' format => 'fmt' or cloud_files' second
// argument.
var formatRe = regexp.MustCompile("(?i)(?:\\bformat`?\\s*=>\\s*|^cloud_files\\s*\\(\\s*(?:'[^']*'|\"[^\"]*\")\\s*,\\s*)(?:'([^']*)'|\"([^\"]*)\")")

// RescuedColumn returns the rescued-data column of a read_files or
// cloud_files call (its text as written): the one it names with
// rescuedDataColumn, which is one of its columns (hidden false); else,
// for a read that infers the schema of JSON, CSV or XML files (no schema
// given), Databricks' default _rescued_data, returned as hidden: a native
// run gives it in * only in a pipeline checked against the databricks
// backend (rescuedOf, docs/format.md); "" for none.
func RescuedColumn(call string) (name string, hidden bool) {
	call = strings.TrimSpace(call)
	low := strings.ToLower(call)
	if !strings.HasPrefix(low, "read_files") && !strings.HasPrefix(low, "cloud_files") {
		return "", false
	}
	if m := rescuedRe.FindStringSubmatch(call); m != nil {
		return m[1] + m[2], false
	}
	if schemaRe.MatchString(call) {
		return "", false
	}
	if m := formatRe.FindStringSubmatch(call); m != nil {
		switch strings.ToLower(m[1] + m[2]) {
		case "json", "csv", "xml":
		default:
			return "", false
		}
	}
	return RescuedData.Name, true
}

// fileReadCache holds the name keys of the file-read sources of the
// pipeline last asked about (fileReadKeys).
var fileReadCache atomic.Pointer[fileReadSet]

type fileReadSet struct {
	p    *ir.Pipeline
	keys map[string]bool
}

// fileReadKeys returns the name keys of the sources p's file reads stand
// for (each flow read with a path).
func fileReadKeys(p *ir.Pipeline) map[string]bool {
	if c := fileReadCache.Load(); c != nil && c.p == p {
		return c.keys
	}
	keys := map[string]bool{}
	for _, f := range p.Flows {
		for _, r := range f.Reads {
			if r.Path != "" {
				keys[ir.NameKey(r.Name)] = true
			}
		}
	}
	fileReadCache.Store(&fileReadSet{p: p, keys: keys})
	return keys
}

// sourceReads returns q's references with each read of a source that is
// no table (a read of files, read_kafka) marked with its kind, format and
// the options its call gives as literals, read from text, the file's
// text (no options when text is "" or does not hold the call). q.Refs is
// not changed: a copy is returned when a reference is marked.
func sourceReads(text string, q *sqlfront.Query) []ir.Ref {
	if len(q.FileReads) == 0 {
		return q.Refs
	}
	refs := append([]ir.Ref(nil), q.Refs...)
	for _, fr := range q.FileReads {
		for i := range refs {
			r := &refs[i]
			if r.Loc.Start != fr.Call.Start {
				continue
			}
			r.Kind, r.Format = ir.Files, strings.ToLower(fr.Format)
			if strings.EqualFold(fr.Func, "read_kafka") {
				r.Kind, r.Format = ir.Kafka, "kafka"
			}
			if fr.Call.End <= len(text) && fr.Call.Start < fr.Call.End && strings.HasPrefix(text[fr.Call.Start:], fr.Func) {
				if opts, ok := FileReadOf(text[fr.Call.Start:fr.Call.End]); ok && len(opts.Options) > 0 {
					r.Options = opts.Options
				}
			}
		}
	}
	return refs
}

// sourceRead reports whether r reads a source that is no table: files by
// path, or a Kafka topic. Such a read never reads a dataset, whatever
// its source's name.
func sourceRead(r ir.Ref) bool { return r.Path != "" || r.Kind == ir.Kafka }

// kafkaTopic is the topic a read of Kafka subscribes to (its subscribe
// option, one topic), "" when it subscribes otherwise (a pattern, an
// assignment, several topics) or is no Kafka read.
func kafkaTopic(r ir.Ref) string {
	if r.Kind != ir.Kafka {
		return ""
	}
	if t, ok := r.Option("subscribe"); ok && t != "" && !strings.Contains(t, ",") {
		return t
	}
	return ""
}

// kafkaStem is the name of the sample file or folder under samples/ a
// read of Kafka takes by convention: its topic, even where the read is
// renamed because a dataset has that name; ok is false for another read.
func kafkaStem(r ir.Ref) (stem string, ok bool) {
	if r.Kind != ir.Kafka {
		return "", false
	}
	if t := kafkaTopic(r); t != "" {
		return t, true
	}
	return r.Name, true
}

// kafkaSample reports a read of a Kafka topic with no sample: which file
// or folder to add under samples/, named after the topic. It is a
// warning: the platform reads the topic itself, and only a native run
// needs the sample.
func kafkaSample(ref ir.Ref) ir.Diagnostic {
	stem, _ := kafkaStem(ref)
	what := "the Kafka topic " + stem
	if kafkaTopic(ref) == "" {
		what = "this Kafka read (it subscribes by pattern or assignment, so its source is " + ref.Name + ")"
	}
	// Spark's Kafka source gives key, value (binary), topic, partition,
	// offset, timestamp and timestampType; a sample gives the columns
	// the query names.
	records := "its records as rows, with the columns the query reads (key, value, topic, partition, offset, timestamp...)"
	want := fmt.Sprintf("samples/%s.json (or .csv, .parquet) holding %s", stem, records)
	if ref.Streaming {
		want = fmt.Sprintf("a folder samples/%s/ of micro-batch files (001.json, 002.json...; .csv and .parquet too) holding %s, which a run reads in name order as one trigger", stem, records)
	}
	bind := fmt.Sprintf("`-- @sample.%s: path` or thund.yaml `samples: {%s: path}`", ref.Name, ref.Name)
	if inPython(ref.Loc.File) {
		bind = fmt.Sprintf("thund.yaml `samples: {%s: path}`", ref.Name)
	}
	msg := fmt.Sprintf("%s has no sample data, so this read cannot be previewed: add %s, or bind one with %s", what, want, bind)
	if stem != ref.Name && kafkaTopic(ref) != "" {
		msg += fmt.Sprintf("; the read is the source %s, not %s, because %s is a dataset of this pipeline", ref.Name, stem, stem)
	}
	msg += " (a warning: the platform reads the topic itself; only a native run needs the sample)"
	return ir.Diagnostic{Loc: ref.Loc, Severity: ir.Warning, Code: ir.CodeMissingSample, Message: msg}
}
