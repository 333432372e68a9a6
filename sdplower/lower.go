// Package sdplower lowers Thund's pipeline IR to a Spark Declarative
// Pipelines dataflow graph and pushes it to a Spark Connect server: one
// DefineOutput per dataset, one DefineFlow per flow (each query sent as
// Spark SQL, as written), then a run or a dry run whose events it parses.
//
// Lowering refuses, with the diagnostics analysis gives (package capab:
// its capability matrix and its Spark rules, such as a persistent view
// reading a temporary view), whatever the target Spark version cannot
// run, before any call. It also refuses, on its own account, any flow it
// cannot send as what it is (an apply-changes flow, say), even when the
// matrix would let it through: such a flow is never sent as a plain
// append.
package sdplower

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sparkconnect/pb"
)

// OutputType is how an output is declared to Spark.
type OutputType int

// Output types. PersistentView has no DefineOutput type in Spark 4.1: it
// is sent as SQL text (CREATE VIEW) through DefineSqlGraphElements.
const (
	MaterializedView OutputType = iota + 1
	// Table is a streaming table (or a table filled by append flows);
	// Spark calls both TABLE.
	Table
	TemporaryView
	PersistentView
)

func (t OutputType) String() string {
	switch t {
	case MaterializedView:
		return "materialized view"
	case Table:
		return "table"
	case TemporaryView:
		return "temporary view"
	case PersistentView:
		return "view"
	}
	return fmt.Sprintf("OutputType(%d)", int(t))
}

func (t OutputType) proto() pb.OutputType {
	switch t {
	case MaterializedView:
		return pb.OutputType_MATERIALIZED_VIEW
	case Table:
		return pb.OutputType_TABLE
	case TemporaryView:
		return pb.OutputType_TEMPORARY_VIEW
	}
	return pb.OutputType_OUTPUT_TYPE_UNSPECIFIED
}

// Output is one dataset of the graph.
type Output struct {
	Name        string
	Type        OutputType
	Comment     string
	PartitionBy []string
	ClusterBy   []string
	Format      string
	Properties  map[string]string
	// Schema is a Python dataset's schema= DDL string, sent as pyspark
	// sends it (TableDetails.schema_string).
	Schema string
	// Kind is the IR kind it was lowered from.
	Kind ir.Kind
	Loc  ir.Loc
}

// Flow is one query writing into an output.
type Flow struct {
	Name   string
	Target string
	// SQL is the query as written in the file (Spark SQL, STREAM(...)
	// included), and QueryLoc where it is, so Spark's line and position
	// map back to the file.
	SQL      string
	QueryLoc ir.Loc
	// Relation, when set, is sent instead of SQL: the plan pyspark's
	// pipelines client sends for a Python dataset (a range, a table or
	// files read, SQL over loads of files; see python.go).
	Relation *pb.Relation
	// Conf holds the flow's SQL settings (SET statements, @conf).
	Conf map[string]string
	// Append marks a flow into another dataset (CREATE FLOW ... INSERT
	// INTO); Once a one-time backfill flow.
	Append bool
	Once   bool
	Loc    ir.Loc
	// Shift is how many bytes Thund wrote before the query as written in
	// SQL (an apply-changes source's wrapper), so Spark's positions map
	// back to the file.
	Shift int
	// CDC, when set, makes this an apply-changes flow: SQL is empty and
	// the changes come from the view CDC.Source, which a flow of its own
	// fills with the query as written.
	CDC *CDCDetails
	// Dataset is the dataset Spark's reports about this flow are shown
	// for, when it is not Target (an apply-changes source view's flow is
	// shown for the table the changes go to).
	Dataset string
}

// CDCDetails is an apply-changes flow as Spark 4.2 and later take it
// (AutoCdcFlowDetails): the source view's changes applied to the target
// by key, in sequence order.
type CDCDetails struct {
	// Source is the temporary view holding the changes.
	Source string
	// Keys are column names; SequenceBy a column name or expression;
	// Deletes the condition that makes a change a delete.
	Keys       []string
	SequenceBy string
	Deletes    string
	// Except are the columns the target does not keep.
	Except []string
	// SCD is 1 or 2.
	SCD int
}

// reported is the dataset Spark's reports about f are shown for.
func (f *Flow) reported() string {
	if f.Dataset != "" {
		return f.Dataset
	}
	return f.Target
}

// SQLFile is a file sent as written through DefineSqlGraphElements.
type SQLFile struct {
	// Path is root-relative (for locations) and Text the file's text.
	Path string
	Text string
	// Datasets and Flows are the names it defines; Queries the range of
	// each one's query in the file, by name key.
	Datasets []string
	Flows    []string
	Queries  map[string]ir.Loc
	// Synthetic is true for text Thund wrote (a persistent view's CREATE
	// VIEW), whose positions are not those of a file; Offset is where the
	// query starts in the synthetic text.
	Synthetic bool
	QueryLoc  ir.Loc
	Offset    int
}

// Graph is a lowered pipeline, ready to push.
type Graph struct {
	Name     string
	Backend  ir.Backend
	Catalog  string
	Database string
	// Conf is the spec's configuration, given to the graph as SQL settings.
	Conf map[string]string
	// Storage is the spec's storage as an absolute URI.
	Storage string
	Outputs []*Output
	Flows   []*Flow
	Files   []*SQLFile
	// Skipped lists datasets left out because their @backends exclude the
	// target.
	Skipped []string
}

// Options adjust lowering.
type Options struct {
	// Texts, when set, gives the text of library files by root-relative
	// path. A file in SDP form (CREATE statements) without any pragma is
	// then sent as written through DefineSqlGraphElements, as
	// spark-pipelines would, instead of one define per dataset and flow.
	Texts map[string]string
	// Paths, when set, replaces a path a Python library loads (as
	// written) by the one sent to Spark: a test points the loads at its
	// sample files this way.
	Paths map[string]string
}

// Lower lowers p for a Spark backend (spark-4.1, spark-4.2 or spark-4.3). When p uses
// anything that backend cannot run, it returns no graph and the capability
// errors analysis reports for that backend, plus an error for anything
// else the lowering cannot send faithfully (see unfaithful).
func Lower(p *ir.Pipeline, backend ir.Backend) (*Graph, []ir.Diagnostic) {
	return LowerWith(p, backend, Options{})
}

// LowerWith is Lower with options.
func LowerWith(p *ir.Pipeline, backend ir.Backend, opts Options) (*Graph, []ir.Diagnostic) {
	if !ir.IsSpark(backend) {
		return nil, []ir.Diagnostic{{
			Severity: ir.Error, Code: ir.CodeUnsupported, Backend: backend,
			Message: fmt.Sprintf("cannot lower to %q: Spark lowering targets %s", backend, backendList()),
		}}
	}
	var errs []ir.Diagnostic
	for _, d := range capab.Check(p, []ir.Backend{backend}) {
		if d.Severity == ir.Error && d.Backend == backend {
			errs = append(errs, d)
		}
	}
	g := &Graph{
		Name:     p.Name,
		Backend:  backend,
		Catalog:  p.Catalog,
		Database: p.Database,
		Conf:     p.Configuration,
		Storage:  StorageURI(p.Root, p.Storage),
	}
	included := map[string]bool{}
	py := parsePythonConf(opts.Texts, p.Configuration)
	for _, d := range p.Datasets {
		if !runsOn(d, backend) {
			g.Skipped = append(g.Skipped, d.Name)
			continue
		}
		// A dataset a Python library defines in a form Thund does not
		// read without running the file has nothing Thund could send:
		// the push is refused (leaving it out would run another
		// pipeline than spark-pipelines run does). A Python sink is left
		// out as before (sinks are refused below when read).
		if pythonOnly(p, d) {
			if d.Kind == ir.Sink {
				g.Skipped = append(g.Skipped, d.Name)
				continue
			}
			for _, f := range p.FlowsInto(d.Name) {
				if f.SQL == "" {
					why := ""
					if def := py.def(f); def != nil {
						why = def.Opaque
					}
					errs = append(errs, pythonRefusal(d, f, why, backend))
				}
			}
		}
		included[ir.NameKey(d.Name)] = true
	}
	// A dataset Spark runs must not read one it does not.
	for _, f := range p.Flows {
		if !included[ir.NameKey(f.Target)] {
			continue
		}
		for _, r := range f.Reads {
			if d := p.Resolve(r.Name); d != nil && !included[ir.NameKey(d.Name)] && pythonOnly(p, d) {
				errs = append(errs, ir.Diagnostic{
					Loc: r.Loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: backend,
					Message: fmt.Sprintf("%s reads %s, which %s defines in Python in a form Thund cannot send to %s (Thund never runs Python; it sends only the Python datasets it states in SQL: spark.sql of a literal, spark.range, table reads with simple steps), so this push cannot run %s: run the folder with spark-pipelines run, or write %s in SQL",
						f.Target, d.Name, d.Loc.File, backend, f.Target, d.Name),
				})
			} else if d != nil && !included[ir.NameKey(d.Name)] {
				errs = append(errs, ir.Diagnostic{
					Loc: r.Loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: backend,
					Message: fmt.Sprintf("%s reads %s, which is restricted to other backends (@backends), so %s cannot run %s: restrict %s the same way, or let %s run on %s",
						f.Target, d.Name, backend, f.Target, f.Target, d.Name, backend),
				})
			}
		}
	}
	errs = append(errs, unfaithful(p, backend, included, errs)...)
	sqls := map[*ir.Flow]string{}
	rels := map[*ir.Flow]*pb.Relation{}
	for _, f := range p.Flows {
		if d := p.Dataset(f.Target); d == nil || !included[ir.NameKey(d.Name)] {
			continue
		}
		sql, err := withWatermark(f)
		if err != nil {
			errs = append(errs, ir.Diagnostic{Loc: err.loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: backend, Message: err.msg})
			continue
		}
		sqls[f] = sql
		if isPython(f.QueryLoc.File) && f.SQL != "" {
			pl := pythonFlow(f, sql, py.def(f), backend, opts.Paths)
			if pl.err != "" {
				errs = append(errs, ir.Diagnostic{Loc: pl.loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: backend, Message: pl.err})
				continue
			}
			if pl.rel != nil {
				rels[f] = pl.rel
			}
		}
	}
	if len(errs) > 0 {
		ir.SortDiagnostics(errs)
		return nil, errs
	}

	asWritten := sdpFiles(p, opts.Texts, included)
	for _, d := range p.Datasets {
		if !included[ir.NameKey(d.Name)] || asWritten[d.Loc.File] != nil {
			continue
		}
		if d.Kind == ir.View {
			g.Files = append(g.Files, viewFile(p, d))
			continue
		}
		g.Outputs = append(g.Outputs, &Output{
			Name:        d.Name,
			Type:        outputType(p, d),
			Comment:     d.Comment,
			PartitionBy: d.PartitionBy,
			ClusterBy:   d.ClusterBy,
			Format:      d.Format,
			Properties:  d.Properties,
			Schema:      py.schema(d),
			Kind:        d.Kind,
			Loc:         d.Loc,
		})
	}
	taken := map[string]bool{}
	for _, d := range p.Datasets {
		taken[ir.NameKey(d.Name)] = true
	}
	for _, f := range p.Flows {
		taken[ir.NameKey(f.Name)] = true
	}
	for _, f := range p.Flows {
		d := p.Dataset(f.Target)
		if d == nil || !included[ir.NameKey(d.Name)] || d.Kind == ir.View || asWritten[f.QueryLoc.File] != nil {
			continue
		}
		if f.CDC != nil {
			view, fill, apply := cdcFlows(f, d, sqls[f], taken)
			g.Outputs = append(g.Outputs, view)
			g.Flows = append(g.Flows, fill, apply)
			continue
		}
		g.Flows = append(g.Flows, &Flow{
			Name:     f.Name,
			Target:   d.Name,
			SQL:      sqls[f],
			Relation: rels[f],
			QueryLoc: f.QueryLoc,
			Conf:     f.Conf,
			Append:   f.Append,
			Loc:      f.Loc,
		})
	}
	var files []string
	for path := range asWritten {
		files = append(files, path)
	}
	sort.Strings(files)
	for _, path := range files {
		g.Files = append(g.Files, asWritten[path])
	}
	return g, nil
}

func backendList() string {
	names := make([]string, len(ir.SparkBackends))
	for i, b := range ir.SparkBackends {
		names[i] = string(b)
	}
	return strings.Join(names, ", ")
}

// changeTypeCol is the changelog column that says what a change is
// (docs/format.md, @cdc): INSERT, UPDATE_BEFORE, UPDATE_AFTER or DELETE.
const changeTypeCol = "_change_type"

// cdcFlows lowers an apply-changes flow f into d: AutoCdcFlowDetails
// takes its changes from a dataset of the graph, so the flow's query as
// written fills a temporary view of its own (without the UPDATE_BEFORE
// rows, which the native engine ignores too, and which Spark would
// otherwise apply as upserts), and the apply flow reads that view. The
// view's name is the flow's with a suffix no other name of the pipeline
// has. Like the native engine, Spark deletes on `_change_type =
// 'DELETE'` (or the @cdc deletes predicate) and the target keeps every
// column but `_change_type`; a changelog without that column fails on
// Spark when the view is resolved.
func cdcFlows(f *ir.Flow, d *ir.Dataset, sql string, taken map[string]bool) (*Output, *Flow, *Flow) {
	name := f.Name + "_changes"
	for i := 2; taken[ir.NameKey(name)]; i++ {
		name = fmt.Sprintf("%s_changes%d", f.Name, i)
	}
	taken[ir.NameKey(name)] = true
	ct := "upper(CAST(" + changeTypeCol + " AS STRING))"
	prefix := "SELECT * FROM (\n"
	wrapped := prefix + sql + "\n) WHERE coalesce(" + ct + " <> 'UPDATE_BEFORE', true)"
	deletes := "coalesce(" + ct + " = 'DELETE', false)"
	if p := strings.TrimSpace(f.CDC.Deletes); p != "" {
		deletes += " OR coalesce((" + p + "), false)"
	}
	scd := f.CDC.SCD
	if scd == 0 {
		scd = 1
	}
	view := &Output{Name: name, Type: TemporaryView, Kind: ir.TemporaryView, Loc: d.Loc,
		Comment: "the changes " + f.Name + " applies to " + d.Name + " (written by Thund)"}
	fill := &Flow{Name: name, Target: name, SQL: wrapped, Shift: len(prefix), QueryLoc: f.QueryLoc, Conf: f.Conf, Loc: f.Loc, Dataset: d.Name}
	apply := &Flow{Name: f.Name, Target: d.Name, QueryLoc: f.QueryLoc, Conf: f.Conf, Append: f.Append, Loc: f.Loc,
		CDC: &CDCDetails{Source: name, Keys: f.CDC.Keys, SequenceBy: f.CDC.SequenceBy, Deletes: deletes, Except: []string{changeTypeCol}, SCD: scd}}
	return view, fill, apply
}

// wmError is a watermark the lowering cannot write into a query.
type wmError struct {
	loc ir.Loc
	msg string
}

var delayRe = regexp.MustCompile(`^\s*(\d+)\s+([A-Za-z]+)\s*$`)

// withWatermark returns f's SQL with an @watermark pragma written into it
// as the query's own WATERMARK clause, which every supported Spark's
// grammar has (`FROM STREAM(src) WATERMARK col DELAY OF INTERVAL 2
// MINUTES`): right after the one stream the flow reads, before any alias.
// A query with its own clause (InSQL) or without a watermark is returned
// as written. A flow reading no stream, or several, gets an error: the
// pragma does not say which stream it is for.
func withWatermark(f *ir.Flow) (string, *wmError) {
	w := f.Watermark
	if w == nil || w.InSQL {
		return f.SQL, nil
	}
	var streams []ir.Ref
	for _, r := range f.Reads {
		if r.Streaming {
			streams = append(streams, r)
		}
	}
	if len(streams) != 1 {
		return "", &wmError{loc: w.Loc, msg: fmt.Sprintf("flow %s reads %d streams, and the @watermark pragma does not say which one it is for, so Thund cannot write it into the query for Spark: write the WATERMARK clause in the query after the stream it is for (`FROM STREAM(src) WATERMARK %s DELAY OF INTERVAL %s`) instead of the pragma", f.Name, len(streams), w.Column, w.Delay)}
	}
	at, ok := afterStream(f.SQL, streams[0].Loc.Start-f.QueryLoc.Start, streams[0].Loc.End-f.QueryLoc.Start)
	if !ok {
		return "", &wmError{loc: w.Loc, msg: fmt.Sprintf("Thund cannot find where the stream %s ends in the query of %s to write the @watermark pragma there for Spark: write the WATERMARK clause in the query instead (`FROM STREAM(src) WATERMARK %s DELAY OF INTERVAL %s`)", streams[0].Name, f.Name, w.Column, w.Delay)}
	}
	delay := "'" + strings.ReplaceAll(w.Delay, "'", "\\'") + "'"
	if m := delayRe.FindStringSubmatch(w.Delay); m != nil {
		delay = m[1] + " " + strings.ToUpper(m[2])
	}
	clause := " WATERMARK " + quoteIdent(w.Column) + " DELAY OF INTERVAL " + delay
	return f.SQL[:at] + clause + f.SQL[at:], nil
}

// afterStream is the offset in sql just after the stream read whose name
// spans [start, end): after the closing parenthesis of STREAM(name), after
// the name of STREAM name, or at end when the range already covers the
// whole STREAM(...) read.
func afterStream(sql string, start, end int) (int, bool) {
	if start < 0 || end > len(sql) || start >= end {
		return 0, false
	}
	if len(sql)-start >= 6 && strings.EqualFold(sql[start:start+6], "stream") {
		return end, true
	}
	// Back over spaces to an opening parenthesis: STREAM(name).
	i := start - 1
	for i >= 0 && isSpace(sql[i]) {
		i--
	}
	if i < 0 || sql[i] != '(' {
		return end, true // STREAM name
	}
	j := end
	for j < len(sql) && isSpace(sql[j]) {
		j++
	}
	if j < len(sql) && sql[j] == ')' {
		return j + 1, true
	}
	return 0, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// faithful lists the capability features (capab.Uses) the lowering
// carries to Spark as they are meant. The graph has no place for any
// other: a flow using one would reach Spark without it and run as
// something else, so Lower refuses it whatever the capability matrix
// says.
var faithful = map[capab.Feature]bool{
	capab.PersistentView:   true, // sent as CREATE VIEW text
	capab.TriggerInterval:  true, // Spark runs available_now; the matrix warns
	capab.DuckDBSyntax:     true, // the query goes as written; the matrix warns
	capab.SparkSyntax:      true, // the query goes as written
	capab.WatermarkSetting: true, // written into the query (withWatermark)
	capab.CDCSCD2:          true, // stored_as_scd_type; the matrix says where
}

// lowered lists the flow kinds (ir.Flow.Mode) the lowering sends as
// DefineFlow with a query relation: a dataset's own query (batch or
// streaming) and an append flow.
var lowered = map[string]bool{"batch": true, "streaming": true, "append": true}

// cdcLowered lists the backends the lowering sends an apply-changes flow
// ("cdc") to, as AutoCdcFlowDetails: the versions whose protocol has it.
// It is the lowering's own list, not the matrix's cell, so that a cell
// marked supported on another version is still refused here.
var cdcLowered = map[ir.Backend]bool{ir.Spark42: true, ir.Spark43: true}

// lowers reports whether the lowering sends flows of kind mode to backend.
func lowers(mode string, backend ir.Backend) bool {
	if mode == "cdc" {
		return cdcLowered[backend]
	}
	return lowered[mode]
}

// unfaithful is the lowering's own guard, beside the capability matrix:
// for the datasets the graph includes, an error for each flow whose kind
// it does not lower to backend (lowers) and for each feature outside
// faithful, so that a matrix cell marked supported before its lowering
// exists (a new Spark version, say) is refused before any call instead of
// pushed as a plain append. The matrix refuses all of these today; a
// place already in refused (analysis's diagnostics) is not reported
// twice.
func unfaithful(p *ir.Pipeline, backend ir.Backend, included map[string]bool, refused []ir.Diagnostic) []ir.Diagnostic {
	seen := map[ir.Loc]bool{}
	for _, d := range refused {
		seen[d.Loc] = true
	}
	var out []ir.Diagnostic
	add := func(loc ir.Loc, msg string) {
		if !seen[loc] {
			seen[loc] = true
			out = append(out, ir.Diagnostic{Loc: loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: backend, Message: msg})
		}
	}
	for _, d := range p.Datasets {
		if !included[ir.NameKey(d.Name)] {
			continue
		}
		for _, f := range p.FlowsInto(d.Name) {
			mode := f.Mode()
			switch {
			case lowers(mode, backend):
			case f.CDC != nil:
				add(f.CDC.Loc, fmt.Sprintf("%s is an apply-changes (@cdc) flow into %s, which Thund cannot lower to %s: sent as a plain append flow, it would store every change row in %s instead of applying them; run it natively: add `-- @backends: native` to %s and to the datasets that read it",
					f.Name, d.Name, backend, d.Name, d.Name))
			default:
				add(f.Loc, fmt.Sprintf("flow %s into %s is a %s flow, which Thund cannot lower to %s (it lowers batch, streaming and append flows); run it natively: add `-- @backends: native` to %s and to the datasets that read it",
					f.Name, d.Name, mode, backend, d.Name))
			}
		}
		for _, u := range capab.Uses(p, d) {
			// The flow's kind is checked above from the flow itself, so
			// a CDC flow is refused even if Uses stopped listing it.
			if faithful[u.Feature] || u.Feature == capab.CDCFlow {
				continue
			}
			add(u.Loc, fmt.Sprintf("%s uses %s, which Thund cannot lower to %s: the Spark graph has no place for it, so Spark would run %s without it; remove it, or run %s natively: add `-- @backends: native` to it and to the datasets that read it",
				d.Name, u.Feature, backend, d.Name, d.Name))
		}
	}
	return out
}

// pythonOnly reports whether a Python library defines d with a flow that
// has no SQL (analysis.DefinedInPython): nothing Thund can send.
func pythonOnly(p *ir.Pipeline, d *ir.Dataset) bool {
	if !isPython(d.Loc.File) {
		return false
	}
	flows := p.FlowsInto(d.Name)
	for _, f := range flows {
		if f.SQL == "" {
			return true
		}
	}
	return len(flows) == 0 && d.Kind == ir.Sink
}

// isPython reports whether file is a Python library.
func isPython(file string) bool { return strings.HasSuffix(strings.ToLower(file), ".py") }

// runsOn reports whether d's @backends (if any) include b.
func runsOn(d *ir.Dataset, b ir.Backend) bool {
	if len(d.Backends) == 0 {
		return true
	}
	for _, x := range d.Backends {
		if x == b {
			return true
		}
	}
	return false
}

// outputType maps an IR kind to a Spark output type. A table is a
// materialized view unless its flows stream or append, as SDP has no batch
// "table" of its own.
func outputType(p *ir.Pipeline, d *ir.Dataset) OutputType {
	switch d.Kind {
	case ir.StreamingTable:
		return Table
	case ir.TemporaryView:
		return TemporaryView
	case ir.View:
		return PersistentView
	case ir.Table:
		for _, f := range p.FlowsInto(d.Name) {
			if f.Streaming || f.Append {
				return Table
			}
		}
	}
	return MaterializedView
}

// viewFile writes a persistent view as SDP SQL: Spark 4.1 has no output
// type for it, only the CREATE VIEW statement.
func viewFile(p *ir.Pipeline, d *ir.Dataset) *SQLFile {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE VIEW %s", quoteIdent(d.Name))
	if d.Comment != "" {
		fmt.Fprintf(&b, " COMMENT '%s'", strings.ReplaceAll(d.Comment, "'", "\\'"))
	}
	b.WriteString(" AS\n")
	f := &SQLFile{Path: d.Loc.File, Datasets: []string{d.Name}, Synthetic: true, Offset: b.Len()}
	for _, fl := range p.FlowsInto(d.Name) {
		b.WriteString(fl.SQL)
		f.QueryLoc = fl.QueryLoc
		f.Flows = append(f.Flows, fl.Name)
		break // a view has one query
	}
	f.Text = b.String()
	return f
}

var plainIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// quoteIdent backquotes a name unless it is a plain identifier.
func quoteIdent(name string) string {
	if plainIdent.MatchString(name) {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

var pragmaLine = regexp.MustCompile(`(?m)^[ \t]*--[ \t]*@`)

// sdpFiles picks the files to send as written: in SDP form (their datasets
// are CREATE statements), free of pragmas (whose meaning Spark would not
// see), and whose every dataset runs on the target.
func sdpFiles(p *ir.Pipeline, texts map[string]string, included map[string]bool) map[string]*SQLFile {
	out := map[string]*SQLFile{}
	if len(texts) == 0 {
		return out
	}
	bad := map[string]bool{}
	for _, d := range p.Datasets {
		file := d.Loc.File
		text, ok := texts[file]
		if !ok || bad[file] {
			continue
		}
		if !included[ir.NameKey(d.Name)] || !isCreate(text, d.KindLoc.Start) || pragmaLine.MatchString(text) {
			bad[file] = true
			delete(out, file)
			continue
		}
		f := out[file]
		if f == nil {
			f = &SQLFile{Path: file, Text: text}
			out[file] = f
		}
		f.Datasets = append(f.Datasets, d.Name)
	}
	for _, fl := range p.Flows {
		if f := out[fl.QueryLoc.File]; f != nil {
			f.Flows = append(f.Flows, fl.Name)
			if f.Queries == nil {
				f.Queries = map[string]ir.Loc{}
			}
			f.Queries[ir.NameKey(fl.Name)] = fl.QueryLoc
			if _, ok := f.Queries[ir.NameKey(fl.Target)]; !ok {
				f.Queries[ir.NameKey(fl.Target)] = fl.QueryLoc
			}
		}
	}
	// A file of flows only (CREATE FLOW into a dataset elsewhere) has no
	// dataset above; it is sent define by define.
	for _, fl := range p.Flows {
		if f := out[fl.QueryLoc.File]; f != nil && !included[ir.NameKey(fl.Target)] {
			delete(out, fl.QueryLoc.File)
		}
	}
	return out
}

func isCreate(text string, at int) bool {
	if at < 0 || at+6 > len(text) {
		return false
	}
	return strings.EqualFold(text[at:at+6], "create")
}

// StorageURI turns the spec's storage into the absolute URI Spark 4.1
// wants: a URI with a scheme is kept; a path is made absolute against the
// pipeline root and given the file scheme.
func StorageURI(root, storage string) string {
	if storage == "" {
		return ""
	}
	if u, err := url.Parse(storage); err == nil && len(u.Scheme) > 1 {
		return storage
	}
	path := storage
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
