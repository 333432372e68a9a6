package analysis

import (
	"fmt"
	"hash/maphash"
	"path"
	"strings"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/pragma"
	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

// fileResult is everything analysis learns from one .sql file alone. It
// depends only on the file's path and text, so a snapshot update reuses it
// for every file whose text did not change.
type fileResult struct {
	path     string
	text     string
	dialect  sqlfront.Dialect
	vars     map[string]string // the pipeline's parameters the file was read with
	hash     uint64
	datasets []*ir.Dataset
	flows    []*ir.Flow
	samples  []pragma.Sample
	sources  []*ir.SourceSpec
	diags    []ir.Diagnostic
	// trees holds each flow's Spark syntax tree (columns.go).
	trees []flowTree
	// funcs holds each flow's function calls (portable.go).
	funcs map[*ir.Flow][]unportableCall
	// pragmas holds every pragma line of the file, applied or not, for
	// hovers and highlighting.
	pragmas []pragma.Pragma
	// opaque holds, for each flow of a .py file that has no SQL, why
	// (python.go).
	opaque map[*ir.Flow]string
	// modules are the helper modules a .py file's reading used, by
	// dotted name (pylib.File.Modules); moduleReads, set when the build
	// read them (analysePythonFrom), what each name asked found, so a
	// change of one re-reads the file (moduleReadsCurrent).
	modules     []string
	moduleReads map[string]moduleRead
	// unnamed is set when the file may define datasets Thund cannot name
	// (a .py file's name computed at run time, or a syntax error around a
	// definition), so a pipeline without known datasets is not known to
	// be empty.
	unnamed bool
}

var hashSeed = maphash.MakeSeed()

func hashText(text string) uint64 { return maphash.String(hashSeed, text) }

// analyseFile parses one .sql file (or reads one .py file, python.go) into datasets, flows and file-local
// diagnostics. It never panics on bad input: parsers are fuzzed, and a
// recover turns anything that slips through into a diagnostic.
func analyseFile(file, text string, dialect sqlfront.Dialect, vars map[string]string) (res *fileResult) {
	return analyseFileWith(file, text, dialect, vars, nil)
}

// analyseFileWith is analyseFile reading a .py file's helper modules
// through mods (nil: none is read).
func analyseFileWith(file, text string, dialect sqlfront.Dialect, vars map[string]string, mods moduleSource) (res *fileResult) {
	if isPython(file) {
		if mods == nil {
			return analysePython(file, text, dialect, vars)
		}
		return analysePythonFrom(file, text, dialect, vars, mods)
	}
	res = &fileResult{path: file, text: text, dialect: dialect, vars: vars, hash: hashText(text)}
	defer func() {
		if r := recover(); r != nil {
			res.datasets, res.flows = nil, nil
			res.diags = append(res.diags, ir.Diagnostic{
				Loc: ir.Loc{File: file}, Severity: ir.Error, Code: ir.CodeSQLSyntax,
				Message: fmt.Sprintf("internal error while analysing this file (%v); please report it with the file attached", r),
			})
		}
	}()
	if !validUTF8(text) {
		res.diags = append(res.diags, encodingDiag(file, text))
	}
	header := pragma.ScanHeader(file, text)
	res.diags = append(res.diags, header.Diags...)
	// Each query's native check waits for its flow (newFlow): only a
	// query that runs as written needs it.
	parsed := sqlfront.ParsePipeline(file, text, dialect, vars)
	res.diags = append(res.diags, parsed.Diags...)

	sdp := false
	for _, st := range parsed.Statements {
		if st.Kind != sqlfront.QueryStmt {
			sdp = true
			break
		}
	}
	consumed := map[int]bool{}
	if sdp {
		res.sdpForm(header, parsed, consumed)
	} else {
		for _, p := range header.Pragmas {
			consumed[p.Line.Start] = true
		}
		res.pragmaForm(header, parsed)
	}
	res.misplacedPragmas(header, consumed)
	for _, f := range res.flows {
		for _, e := range f.Expectations {
			res.diags = append(res.diags, sqlfront.CheckExpression("expectation "+e.Name, e.SQL, e.SQLLoc)...)
		}
	}
	return res
}

// misplacedPragmas warns about pragma lines that apply to nothing: below
// the header of a pragma-form file, or not directly above a statement.
func (res *fileResult) misplacedPragmas(header pragma.Block, consumed map[int]bool) {
	if !strings.Contains(res.text, "@") {
		return
	}
	res.pragmas = filePragmas(res.path, res.text, header)
	for _, p := range res.pragmas {
		if consumed[p.Line.Start] {
			continue
		}
		res.diags = append(res.diags, ir.Diagnostic{
			Loc: p.KeyLoc, Severity: ir.Warning, Code: ir.CodePragmaMisplaced,
			Message: fmt.Sprintf("@%s applies to nothing here: pragmas belong in the comment lines at the top of the file (pragma form) or directly above the CREATE statement they describe; move it there", p.Key),
		})
	}
}

// filePragmas returns every pragma line of the file, as
// pragma.ParseBlock over the whole text finds them. A pragma line holds
// an '@', so when none is left below the header (most files) they are
// the header's, already parsed; a file starting with a byte order mark
// is parsed again, since the header skips the mark and a whole-text
// block does not.
func filePragmas(file, text string, header pragma.Block) []pragma.Pragma {
	if header.End <= len(text) && !strings.HasPrefix(text, "\ufeff") && strings.IndexByte(text[header.End:], '@') < 0 {
		return header.Pragmas
	}
	return pragma.ParseBlock(file, text, 0, len(text)).Pragmas
}

// pragmaForm handles a file whose body is one query and whose header
// pragmas describe the dataset (format §2a).
func (res *fileResult) pragmaForm(header pragma.Block, parsed sqlfront.File) {
	file, text := res.path, res.text
	set, diags := pragma.Interpret(file, header)
	res.diags = append(res.diags, diags...)
	res.samples = append(res.samples, set.Samples...)
	if set.Source != nil {
		res.sources = append(res.sources, set.Source)
	}
	if len(parsed.Statements) == 0 {
		if strings.TrimSpace(text[header.End:]) == "" {
			res.diags = append(res.diags, ir.Diagnostic{
				Loc: ir.Loc{File: file, Start: 0, End: 0}, Severity: ir.Warning, Code: ir.CodeSQLEmpty,
				Message: "this file defines no dataset: write a query below the header (SELECT ...), or delete the file",
			})
		}
		return
	}
	for _, extra := range parsed.Statements[1:] {
		res.diags = append(res.diags, ir.Diagnostic{
			Loc: ir.Loc{File: file, Start: extra.Start, End: firstLineEnd(text, extra.Start, extra.End)}, Severity: ir.Error, Code: ir.CodeSQLMultiQuery,
			Message: "a pragma-form file holds exactly one query; move this query into its own file, or write the file in SDP form (CREATE MATERIALIZED VIEW name AS ...)",
		})
	}
	st := parsed.Statements[0]
	q := st.Query
	stem := strings.TrimSuffix(path.Base(file), path.Ext(file))
	fileLoc := ir.Loc{File: file, Start: 0, End: 0}
	flow, nd := nativeFlow(file, text, q, set)
	res.diags = append(res.diags, nd...)
	res.noteFuncs(flow, q)
	if q != nil {
		res.noteTree(flow, q.Spark)
	}
	flow.Loc = ir.Loc{File: file, Start: st.Start, End: firstLineEnd(text, st.Start, st.End)}
	if set.Target != "" {
		flow.Target = set.Target
		flow.TargetLoc = set.TargetLoc
		flow.Append = true
		flow.Name = firstNonEmpty(set.Flow, stem)
		flow.Loc = set.TargetLoc
		res.flows = append(res.flows, flow)
		for _, misplaced := range datasetOnlyKeys(header) {
			res.diags = append(res.diags, ir.Diagnostic{
				Loc: misplaced.KeyLoc, Severity: ir.Warning, Code: ir.CodePragmaMisplaced,
				Message: fmt.Sprintf("@%s has no effect in a file with @target: this file appends into %s and defines no dataset; set it in %s's own file", misplaced.Key, set.Target, set.Target),
			})
		}
		return
	}
	d := &ir.Dataset{
		Name:        firstNonEmpty(set.Name, stem),
		Kind:        set.Kind,
		Comment:     header.Doc,
		PartitionBy: set.PartitionBy,
		ClusterBy:   set.ClusterBy,
		Format:      set.Format,
		Properties:  set.Properties,
		Backends:    set.Backends,
		Loc:         ir.Loc{File: file, Start: 0, End: len(text)},
		NameLoc:     set.NameLoc,
		KindLoc:     set.KindLoc,
	}
	if set.CommentSet {
		d.Comment = set.Comment
	}
	if set.Name == "" {
		d.NameLoc = fileLoc
		d.FromStem = true
	}
	if d.Kind == "" {
		d.Kind = ir.MaterializedView
		if flow.Streaming || set.CDC != nil {
			d.Kind = ir.StreamingTable
		}
		d.KindLoc = ir.Loc{File: file, Start: st.Start, End: firstLineEnd(text, st.Start, st.End)}
	}
	flow.Name = firstNonEmpty(set.Flow, d.Name)
	flow.Target = d.Name
	res.datasets = append(res.datasets, d)
	res.flows = append(res.flows, flow)
}

// datasetOnlyKeys returns the pragmas that describe a dataset, which a
// file appending into another dataset cannot set.
func datasetOnlyKeys(b pragma.Block) []pragma.Pragma {
	var out []pragma.Pragma
	for _, p := range b.Pragmas {
		switch p.Key {
		case "kind", "name", "comment", "partition_by", "cluster_by", "format", "property":
			out = append(out, p)
		}
	}
	return out
}

// sdpForm handles a file of SDP statements (format §2b); the pragma block
// directly above a statement applies to its dataset and flow.
func (res *fileResult) sdpForm(header pragma.Block, parsed sqlfront.File, consumed map[int]bool) {
	file, text := res.path, res.text
	conf := map[string]string{}
	firstBlockStart := -1
	// use is the current catalog and schema (USE CATALOG, USE SCHEMA, SET
	// CATALOG) for the statements after it; temporary views are never in
	// a schema, so a name of one is never qualified.
	var use ir.Scope
	tempViews := map[string]bool{}
	for _, st := range parsed.Statements {
		if st.Kind == sqlfront.CreateTemporaryView {
			tempViews[ir.NameKey(st.Name)] = true
		}
	}
	for i, st := range parsed.Statements {
		block := pragma.ParseBlock(file, text, st.CommentStart, st.Start)
		if i == 0 {
			firstBlockStart = st.CommentStart
		}
		set, diags := pragma.Interpret(file, block)
		res.diags = append(res.diags, diags...)
		res.samples = append(res.samples, set.Samples...)
		if set.Source != nil {
			res.sources = append(res.sources, set.Source)
		}
		for _, p := range block.Pragmas {
			consumed[p.Line.Start] = true
			switch p.Key {
			case "name", "kind", "target":
				res.diags = append(res.diags, ir.Diagnostic{
					Loc: p.KeyLoc, Severity: ir.Warning, Code: ir.CodePragmaMisplaced,
					Message: fmt.Sprintf("@%s has no effect above an SDP statement: the statement itself says it; change the statement instead", p.Key),
				})
			}
		}
		stmtLoc := ir.Loc{File: file, Start: st.Start, End: st.End}
		kwLoc := ir.Loc{File: file, Start: st.Start, End: minInt(st.NameLoc.Start, firstLineEnd(text, st.Start, st.End))}
		if kwLoc.End <= kwLoc.Start {
			kwLoc.End = firstLineEnd(text, st.Start, st.End)
		}
		nameLoc := ir.Loc{File: file, Start: st.NameLoc.Start, End: st.NameLoc.End}
		var kind ir.Kind
		switch st.Kind {
		case sqlfront.Set:
			conf[st.SetKey] = st.SetValue
			continue
		case sqlfront.UseCatalog:
			// Spark: the catalog's default namespace becomes current too.
			if st.SetValue != "" {
				use = ir.Scope{Catalog: st.SetValue, Schema: "default"}
			}
			continue
		case sqlfront.UseSchema:
			if c, sch, ok := strings.Cut(st.SetValue, "."); ok && !strings.Contains(sch, ".") {
				use = ir.Scope{Catalog: c, Schema: sch}
			} else if st.SetValue != "" {
				use.Schema = st.SetValue
			}
			continue
		case sqlfront.Unsupported:
			continue
		case sqlfront.QueryStmt:
			res.diags = append(res.diags, ir.Diagnostic{
				Loc: ir.Loc{File: file, Start: st.Start, End: firstLineEnd(text, st.Start, st.End)}, Severity: ir.Error, Code: ir.CodeSQLNotQuery,
				Message: "a bare query in a file of SDP statements defines nothing: wrap it as CREATE MATERIALIZED VIEW name AS ..., or move it into its own pragma-form file",
			})
			continue
		case sqlfront.CreateFlow, sqlfront.ApplyChanges:
			if st.Query == nil {
				continue
			}
			f, nd := nativeFlow(file, text, st.Query, set)
			res.diags = append(res.diags, nd...)
			res.fromStatement(f, st)
			res.noteFuncs(f, st.Query)
			res.noteTree(f, st.Query.Spark)
			f.Name = st.Name
			f.Target = qualifyName(use, st.Target, tempViews)
			f.Use = use
			f.Reads = qualifyReads(use, f.Reads, tempViews)
			f.Once = st.Once
			f.TargetLoc = ir.Loc{File: file, Start: st.TargetLoc.Start, End: st.TargetLoc.End}
			f.Append = true
			f.Loc = nameLoc
			f.Conf = mergeConf(conf, f.Conf)
			res.flows = append(res.flows, f)
			continue
		case sqlfront.CreateMaterializedView:
			kind = ir.MaterializedView
		case sqlfront.CreateStreamingTable:
			kind = ir.StreamingTable
		case sqlfront.CreateTemporaryView:
			kind = ir.TemporaryView
		case sqlfront.CreateView:
			kind = ir.View
		default:
			continue
		}
		d := &ir.Dataset{
			Name:        qualifyName(use, st.Name, tempViews),
			Kind:        kind,
			Comment:     st.Comment,
			PartitionBy: firstList(st.PartitionBy, set.PartitionBy),
			ClusterBy:   firstList(st.ClusterBy, set.ClusterBy),
			Format:      firstNonEmpty(st.Using, set.Format),
			Properties:  mergeConf(set.Properties, st.Properties),
			Backends:    set.Backends,
			Loc:         stmtLoc,
			NameLoc:     nameLoc,
			KindLoc:     kwLoc,
			Syntax:      constructs(file, st.Syntax),
			Declared:    sqlfront.DeclaredColumns(file, st.Declared),
		}
		d.PartitionLocs, d.ClusterLocs = sqlfront.Spans(file, st.PartitionSpans), sqlfront.Spans(file, st.ClusterSpans)
		if d.Comment == "" {
			d.Comment = firstNonEmpty(set.Comment, block.Doc)
		}
		res.datasets = append(res.datasets, d)
		if st.Query == nil {
			d.Unfinished = syntaxErrorIn(parsed.Diags, st.Start, st.End)
			// A streaming table without AS is filled by CREATE FLOW
			// statements elsewhere; pragmas above it cannot apply to a flow.
			d.Expectations = sqlfront.Expectations(file, st.Expects) // every flow's rows meet them
			continue
		}
		f, nd := nativeFlow(file, text, st.Query, set)
		res.diags = append(res.diags, nd...)
		res.fromStatement(f, st)
		res.noteFuncs(f, st.Query)
		res.noteTree(f, st.Query.Spark)
		f.Name = firstNonEmpty(set.Flow, d.Name)
		f.Target = d.Name
		f.Use = use
		f.Reads = qualifyReads(use, f.Reads, tempViews)
		f.Loc = nameLoc
		f.Conf = mergeConf(conf, f.Conf)
		res.flows = append(res.flows, f)
	}
	// Header pragmas that are not directly above the first statement apply
	// to nothing, except sample bindings, which are pipeline-wide.
	for _, p := range header.Pragmas {
		if firstBlockStart >= 0 && p.Line.Start >= firstBlockStart {
			continue
		}
		consumed[p.Line.Start] = true
		if p.Key == "sample" {
			if s, ok := sampleOf(file, p); ok {
				res.samples = append(res.samples, s)
			}
			continue
		}
		res.diags = append(res.diags, ir.Diagnostic{
			Loc: p.KeyLoc, Severity: ir.Warning, Code: ir.CodePragmaMisplaced,
			Message: fmt.Sprintf("@%s is not directly above a statement, so it applies to nothing; move it to the comment lines right above the CREATE statement it is for", p.Key),
		})
	}
}

// syntaxErrorIn reports a syntax error among diags within [start, end]
// (a statement's range).
func syntaxErrorIn(diags []ir.Diagnostic, start, end int) bool {
	for _, d := range diags {
		if d.Code == ir.CodeSQLSyntax && d.Severity == ir.Error && d.Loc.Start >= start && d.Loc.Start <= end {
			return true
		}
	}
	return false
}

// qualifyName is name as Spark reads it under use (ir.Scope.Qualify),
// except the name of a temporary view, which no schema holds.
func qualifyName(use ir.Scope, name string, tempViews map[string]bool) string {
	if use == (ir.Scope{}) || tempViews[ir.NameKey(name)] {
		return name
	}
	return use.Qualify(name)
}

// qualifyReads returns reads with their table names as Spark reads them
// under use (a copy; reads may be shared with the parsed query). A read of
// files by path or of a Kafka topic is not a table name.
func qualifyReads(use ir.Scope, reads []ir.Ref, tempViews map[string]bool) []ir.Ref {
	if use == (ir.Scope{}) || len(reads) == 0 {
		return reads
	}
	out := make([]ir.Ref, len(reads))
	for i, r := range reads {
		if r.Path == "" && r.Kind == "" {
			r.Name = qualifyName(use, r.Name, tempViews)
		}
		out[i] = r
	}
	return out
}

// sampleOf reads a `@sample.TABLE: path` pragma.
func sampleOf(file string, p pragma.Pragma) (pragma.Sample, bool) {
	if p.Name == "" || p.Value == "" {
		return pragma.Sample{}, false
	}
	return pragma.Sample{Table: p.Name, Path: p.Value, Loc: p.ValueLoc, KeyLoc: p.KeyLoc}, true
}

// newFlow builds a flow from a parsed query and the pragmas above it.
// A query whose native check is still to run (sqlfront.ParseDialectDeferred)
// goes to nativeFlow instead, which returns the check's errors.
func newFlow(file string, q *sqlfront.Query, set pragma.Settings) *ir.Flow {
	f, _ := nativeFlow(file, "", q, set)
	return f
}

// nativeFlow is newFlow, running the query's native check where the flow
// needs it (a query that runs as written) and returning its errors. text
// is the file's text, from which each read of a source that is no table
// (read_files, read_kafka...) takes its options (sourceReads); "" when
// the query's offsets are not offsets of a text at hand.
func nativeFlow(file, text string, q *sqlfront.Query, set pragma.Settings) (*ir.Flow, []ir.Diagnostic) {
	f := &ir.Flow{
		Expectations: set.Expectations,
		Source:       set.Source,
		OutputMode:   set.OutputMode,
		OutputLoc:    set.OutputLoc,
		Watermark:    set.Watermark,
		CDC:          set.CDC,
		Conf:         set.Conf,
	}
	if set.Trigger != nil {
		f.Trigger = *set.Trigger
	}
	if q == nil {
		return f, nil
	}
	f.SQL = q.Text
	f.Normalized = q.Normalized
	f.QueryLoc = ir.Loc{File: file, Start: q.Start, End: q.End}
	f.Reads = sourceReads(text, q)
	f.Aggregates = q.Aggregates
	f.Shape = q.Shape
	if q.Aggregates {
		f.AggLoc = ir.Loc{File: file, Start: q.AggLoc.Start, End: q.AggLoc.End}
	}
	f.Dialect = q.Parser
	if f.Watermark == nil && q.Watermark != nil {
		f.Watermark = q.Watermark
	}
	for _, r := range q.Refs {
		if r.Streaming || (set.Source != nil && ir.NameKey(r.Name) == ir.NameKey(set.Source.Table)) {
			f.Streaming = true
		}
	}
	// A batch query Thund's Spark parser read runs natively through the
	// translator (engine/translate), which refuses what it cannot run at
	// its range: whether DuckDB reads the text as written does not matter.
	var diags []ir.Diagnostic
	// A streaming flow's query runs its translation too (engine/run.go
	// check); a CDC flow's still goes through the native check
	// (sqlfront.Query.CheckNative), as does a query Spark's parser did not
	// read.
	if q.Spark == nil || f.CDC != nil {
		diags = q.CheckNative()
	}
	if q.SparkOnly != nil && (q.Spark == nil || f.CDC != nil) {
		f.SparkSyntax = &ir.SyntaxStop{Loc: ir.Loc{File: file, Start: q.SparkOnly.Start, End: q.SparkOnly.End}, Message: q.SparkOnlyMessage}
	}
	if f.Streaming || f.CDC != nil {
		if f.Trigger.Kind == "" {
			f.Trigger.Kind = ir.AvailableNow
		}
		if f.OutputMode == "" {
			f.OutputMode = ir.Append
		}
	}
	return f, diags
}

func mergeConf(base, over map[string]string) map[string]string {
	if len(base) == 0 && len(over) == 0 {
		return nil
	}
	out := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func firstList(ls ...[]string) []string {
	for _, l := range ls {
		if len(l) > 0 {
			return l
		}
	}
	return nil
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// firstLineEnd returns the end of the first line of text[start:end], so a
// diagnostic on a long statement underlines its first line only.
func firstLineEnd(text string, start, end int) int {
	if end > len(text) {
		end = len(text)
	}
	if start > end {
		return start
	}
	if i := strings.IndexAny(text[start:end], "\r\n"); i >= 0 {
		return start + i
	}
	return end
}

// constructs turns the front end's construct uses into the IR's.
func constructs(file string, us []sqlfront.SyntaxUse) []ir.Construct {
	var out []ir.Construct
	for _, u := range us {
		out = append(out, ir.Construct{Name: string(u.Feature), Loc: u.Loc(file)})
	}
	return out
}

// fromStatement adds to f what its statement says beyond the query: the
// CONSTRAINT ... EXPECT expectations (before the pragmas', as written
// first), the CDC flow of APPLY CHANGES INTO / AUTO CDC, and the
// constructs of its query and CDC clauses.
func (res *fileResult) fromStatement(f *ir.Flow, st sqlfront.Statement) {
	file := res.path
	if st.Kind == sqlfront.CreateFlow || st.Kind == sqlfront.ApplyChanges {
		// a flow's statement constructs (INSERT INTO ONCE, INTO LIVE.x)
		// are the flow's; a CREATE's are its dataset's
		f.Syntax = append(f.Syntax, constructs(file, st.Syntax)...)
	}
	if st.Query != nil {
		f.Syntax = append(f.Syntax, constructs(file, st.Query.Syntax)...)
	}
	if len(st.Expects) > 0 {
		var exps []ir.Expectation
		for _, e := range st.Expects {
			exps = append(exps, ir.Expectation{
				Name: e.Name, SQL: e.DuckCond, Action: e.Action, InSQL: true,
				Loc: e.Span.Loc(file), SQLLoc: e.CondLoc.Loc(file),
			})
		}
		f.Expectations = append(exps, f.Expectations...)
	}
	if c := st.CDC; c != nil {
		if f.CDC != nil {
			res.diags = append(res.diags, ir.Diagnostic{
				Loc: f.CDC.Loc, Severity: ir.Warning, Code: ir.CodePragmaMisplaced,
				Message: "@cdc has no effect here: the statement is a CDC flow itself (its KEYS, SEQUENCE BY and STORED AS say it); remove the pragma",
			})
		}
		f.CDC = &ir.CDC{
			Keys: c.Keys, SequenceBy: c.SequenceBy, SCD: c.SCD, Deletes: c.DeleteWhen,
			Loc: c.Loc.Loc(file), Columns: c.Columns, ColumnsExcept: c.ColumnsExcept,
			TrackHistory: c.TrackHistory, TrackHistoryExcept: c.TrackHistoryExcept,
			TruncateWhen: c.TruncateWhen,
			StartAt:      "__START_AT", EndAt: "__END_AT",
		}
		f.Syntax = append(f.Syntax, constructs(file, c.Syntax)...)
		for _, u := range c.Syntax {
			switch u.Feature {
			case capab.SynIgnoreNulls:
				f.CDC.IgnoreNullUpdates = true
				if c.SCD == 2 {
					f.CDC.Unapplied = append(f.CDC.Unapplied, ir.Construct{Name: string(u.Feature), Loc: u.Loc(file)})
					res.diags = append(res.diags, ir.Diagnostic{
						Loc: u.Loc(file), Severity: ir.Warning, Code: ir.CodeUnsupported, Backend: ir.Native,
						Message: "IGNORE NULL UPDATES is applied natively for SCD type 1 only: with STORED AS SCD TYPE 2 the native run opens each version with the change's NULLs",
					})
				}
			case capab.SynTruncateWhen:
				if c.SCD == 2 {
					f.CDC.Unapplied = append(f.CDC.Unapplied, ir.Construct{Name: string(u.Feature), Loc: u.Loc(file)})
					res.diags = append(res.diags, ir.Diagnostic{
						Loc: u.Loc(file), Severity: ir.Warning, Code: ir.CodeUnsupported, Backend: ir.Native,
						Message: "APPLY AS TRUNCATE WHEN is for SCD type 1 (Databricks refuses it with SCD type 2); the native run ignores it here",
					})
				}
			}
		}
		f.Streaming = true
		if f.Trigger.Kind == "" {
			f.Trigger.Kind = ir.AvailableNow
		}
		if f.OutputMode == "" {
			f.OutputMode = ir.Append
		}
	}
}
