package analysis

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/pragma"
	"github.com/thund-dev/thund/analysis/pylib"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

// PythonNotRun is why the native engine skips a dataset a Python file
// defines in a form Thund does not state in SQL, when no sample stands in
// for its rows.
const PythonNotRun = "defined in Python in a form Thund does not run natively"

// DefinedInPython reports whether flow f comes from a Python file in a
// form Thund does not state in SQL (no SQL): the native engine runs it
// from its stand-in sample (samples/<dataset>.csv), or skips it.
func DefinedInPython(f *ir.Flow) bool {
	return f.SQL == "" && isPython(f.QueryLoc.File)
}

// isPython reports whether a library is a Python file.
func isPython(file string) bool { return strings.HasSuffix(file, ".py") }

// PythonOpaque returns why Thund cannot state flow f of a Python file in
// SQL (its body is more than spark.sql, spark.range or a table read with
// simple steps), or "" for any other flow.
func (s *Snapshot) PythonOpaque(f *ir.Flow) string {
	if f == nil || !DefinedInPython(f) {
		return ""
	}
	if r, ok := s.results[f.QueryLoc.File]; ok && r.opaque != nil {
		return r.opaque[f]
	}
	return ""
}

// analysePython reads one .py library with pylib: each dataset, flow or
// sink it defines becomes an ir.Dataset / ir.Flow located in the file, and
// each table its function reads becomes a Ref. A function body whose
// meaning pylib states in Spark SQL (spark.sql of a literal, spark.range,
// a table read with simple steps) gets that SQL, parsed by the SQL front
// end at its ranges in the .py file, and runs natively like a .sql
// dataset; any other body has no SQL (DefinedInPython). A syntax error,
// and a name or query computed at run time, are diagnostics
// (ir.CodeLibraryPython): the graph may miss what they define or read.
func analysePython(file, text string, dialect sqlfront.Dialect, vars map[string]string) *fileResult {
	return analysePythonWith(file, text, dialect, vars, nil)
}

// analysePythonWith is analysePython given the reader of the helper
// modules the file imports (PythonModules; nil: none is read), whose
// literal rules and names the file's definitions then use.
func analysePythonWith(file, text string, dialect sqlfront.Dialect, vars map[string]string, modules func(string) (string, bool)) *fileResult {
	res := &fileResult{path: file, text: text, hash: hashText(text), dialect: dialect, vars: vars}
	res.readPython(modules)
	return res
}

// analysePythonFrom is analysePythonWith reading the helper modules
// through src, the result recording what each name it asked found
// (fileResult.moduleReads), so a build re-reads the file when one of
// them changes.
func analysePythonFrom(file, text string, dialect sqlfront.Dialect, vars map[string]string, src moduleSource) *fileResult {
	res := &fileResult{path: file, text: text, hash: hashText(text), dialect: dialect, vars: vars}
	res.moduleReads = map[string]moduleRead{}
	res.readPython(recordModules(src, file, res.moduleReads))
	return res
}

// readPython fills res from its .py text, read with the helper modules
// that modules gives (nil: none).
func (res *fileResult) readPython(modules func(string) (string, bool)) {
	file, text, vars := res.path, res.text, res.vars
	if !validUTF8(text) {
		res.diags = append(res.diags, encodingDiag(file, text))
		return
	}
	parsed, err := pylib.ParseWith(file, text, pylib.Options{Conf: vars, Module: modules})
	if err != nil {
		res.diags = append(res.diags, ir.Diagnostic{Loc: ir.Loc{File: file}, Severity: ir.Warning, Code: ir.CodeLibraryPython,
			Message: fmt.Sprintf("Thund cannot read %s (%v), so the datasets it defines are unknown to Thund", file, err)})
		return
	}
	for _, se := range parsed.Errors {
		res.unnamed = true
		res.diags = append(res.diags, ir.Diagnostic{Loc: ir.Loc{File: file, Start: se.Offset, End: se.Offset}, Severity: ir.Warning, Code: ir.CodeLibraryPython,
			Message: fmt.Sprintf("Python syntax error: %s; the definition around it is unknown to Thund, and Python will refuse the file: fix the syntax", se.Message)})
	}
	seen := map[pylib.Unknown]bool{}
	for _, u := range parsed.Unknown {
		if !seen[u] { // a loop expanded twice says it once
			seen[u] = true
			res.unnamed = res.unnamed || u.What == pylib.UnknownName || u.What == pylib.UnknownLoop
			res.diags = append(res.diags, unknownDiag(file, u, ""))
		}
	}
	res.modules = parsed.Modules
	res.foreignImports(parsed.Foreign)
	for i := range parsed.Definitions {
		res.pythonDefinition(&parsed.Definitions[i], modules != nil)
	}
	if at := parsed.DLTImport; at != (pylib.Span{}) && len(res.flows) > 0 {
		// Spark imports the file and fails there: said once, on the
		// file's first flow.
		f := res.flows[0]
		f.Syntax = append(f.Syntax, ir.Construct{Name: string(SynPyDLTModule), Loc: ir.Loc{File: file, Start: at.Start, End: at.End}})
	}
	if cells := pyNotebookCells(text); cells != nil {
		res.analyseNotebookSQL(cells)
	}
}

// foreignImports says, at each import of a module named like a
// pipelines API that Thund does not read (databricks.pipelines) whose
// name the file then uses, that the definitions written with it are
// unknown to Thund, and which imports it reads.
func (res *fileResult) foreignImports(foreign []pylib.ForeignImport) {
	for _, fi := range foreign {
		if !strings.Contains(res.text, "@"+fi.Local+".") && !strings.Contains(res.text, fi.Local+".create_") {
			continue
		}
		res.unnamed = true
		res.diags = append(res.diags, ir.Diagnostic{Loc: ir.Loc{File: res.path, Start: fi.At.Start, End: fi.At.End}, Severity: ir.Info, Code: ir.CodeLibraryPython,
			Message: fmt.Sprintf("Thund reads Python pipelines written with `from pyspark import pipelines as dp` (Spark and Databricks) or `import dlt` (Databricks), not with %s: "+
				"the datasets and flows this file defines through %s are unknown to Thund; import one of those modules instead", fi.Module, fi.Local)})
	}
}

// SynPyDLTModule is a Python library that imports Databricks' dlt module
// (import dlt). Databricks provides it to its pipelines; Spark's
// pipelines API is pyspark.pipelines, and spark-pipelines imports each
// file, so Spark 4.1.4 fails the file at the import with
// ModuleNotFoundError: No module named 'dlt' (checked with spark-pipelines
// dry-run). The native engine reads the file without importing it.
const SynPyDLTModule capab.Feature = "Databricks' dlt module (import dlt)"

func init() {
	spark := capab.Support{Severity: ir.Error, Reason: "spark-pipelines imports the file, and pyspark has no dlt module, so Spark fails it at the import with ModuleNotFoundError: No module named 'dlt': " +
		"write `from pyspark import pipelines as dp` and its decorators (@dp.materialized_view, @dp.table, @dp.temporary_view, dp.create_streaming_table, @dp.append_flow) " +
		"(dlt is Databricks' module: check against the databricks backend, or run natively)"}
	capab.Matrix[SynPyDLTModule] = map[ir.Backend]capab.Support{
		ir.Native: {OK: true}, ir.Spark41: spark, ir.Spark42: spark, ir.Spark43: spark, ir.Databricks: {OK: true},
	}
}

// SynPyCloudFiles is a Python load of Databricks' Auto Loader source
// (format("cloudFiles")). Spark has no data source of that name: the
// load fails with DATA_SOURCE_NOT_FOUND there.
const SynPyCloudFiles capab.Feature = "Auto Loader's format(\"cloudFiles\")"

func init() {
	spark := capab.Support{Severity: ir.Error, Reason: "Spark has no cloudFiles data source (it is Databricks' Auto Loader), so the load fails with [DATA_SOURCE_NOT_FOUND] Failed to find the data source: cloudFiles: " +
		"load the files with the format cloudFiles.format names, spark.readStream.format(\"csv\" or \"json\" ...).schema(...).load(path) " +
		"(Auto Loader is Databricks': check against the databricks backend, or run natively)"}
	capab.Matrix[SynPyCloudFiles] = map[ir.Backend]capab.Support{
		ir.Native: {OK: true}, ir.Spark41: spark, ir.Spark42: spark, ir.Spark43: spark, ir.Databricks: {OK: true},
	}
}

// SynPyMainGuard is a definition under `if __name__ == "__main__":`.
// Databricks runs a pipeline's Python file as its main module, so the
// branch is taken there; spark-pipelines imports each file as a module
// named after the file (importlib's spec_from_file_location(file.stem),
// pyspark/pipelines/cli.py), where __name__ is not "__main__" and the
// definitions under the branch are never made (checked with
// spark-pipelines dry-run on Spark 4.1.4: a view reading one fails with
// TABLE_OR_VIEW_NOT_FOUND).
const SynPyMainGuard capab.Feature = "a definition under if __name__ == \"__main__\""

func init() {
	spark := capab.Support{Severity: ir.Error, Reason: "spark-pipelines imports the file as a module named after the file, so __name__ is not \"__main__\" there and the definitions under this if are never made: " +
		"move them out of the if (it is Databricks' way of running the file: check against the databricks backend, or run natively)"}
	capab.Matrix[SynPyMainGuard] = map[ir.Backend]capab.Support{
		ir.Native: {OK: true}, ir.Spark41: spark, ir.Spark42: spark, ir.Spark43: spark, ir.Databricks: {OK: true},
	}
}

// SynPyClusterAuto is the cluster_by_auto= keyword of a Python table
// decorator (True: Databricks' automatic liquid clustering): SQL's
// CLUSTER BY AUTO, with the same rows per backend (capab.SynClusterAuto),
// Spark's reason being pyspark's: its decorators have no such keyword,
// whatever its value (pyspark 4.1.4 and 4.3.0: TypeError: table() got an
// unexpected keyword argument 'cluster_by_auto', raised when
// spark-pipelines imports the file).
const SynPyClusterAuto capab.Feature = "cluster_by_auto="

func init() {
	reason := "pyspark's pipelines decorators have no cluster_by_auto keyword (Spark 4.1 to 4.3: spark-pipelines fails importing the file with TypeError: unexpected keyword argument 'cluster_by_auto'): " +
		"leave it out, clustering changes no rows (it is Databricks' automatic liquid clustering: check against the databricks backend, or run natively)"
	rows := map[ir.Backend]capab.Support{}
	for b, s := range capab.Matrix[capab.SynClusterAuto] {
		if !s.OK {
			s.Reason = reason
		}
		rows[b] = s
	}
	capab.Matrix[SynPyClusterAuto] = rows
}

// unknownDiag says what a computed value keeps Thund from knowing.
func unknownDiag(file string, u pylib.Unknown, dataset string) ir.Diagnostic {
	loc := ir.Loc{File: file, Start: u.Loc.Start, End: u.Loc.End}
	var msg string
	switch u.What {
	case pylib.UnknownName:
		msg = fmt.Sprintf("the name %s is given here is computed at run time, so Thund cannot put this definition in the graph; write the name as a string literal to have it checked", u.Call)
	case pylib.UnknownLoop:
		msg = "the datasets defined here are named from values computed at run time (the loop's or the call's values are not literals), so Thund cannot put them in the graph; loop over a list of string literals (for t in [\"a\", \"b\"]) or call the function with literals to have them expanded"
	case pylib.UnknownCondition:
		msg = "this condition is computed at run time, so Thund does not know which branch of the if defines its datasets: it reads every branch (a name defined in several, once); write the condition over module constants or spark.conf.get of keys the spec's configuration sets to have the branch known"
	case pylib.UnknownSetting:
		msg = fmt.Sprintf("the value of %s is computed at run time, so Thund does not know it: the native run and the Spark push go without it; write it as a literal (a list of names, a dict of strings) to have it read", u.Call)
	case pylib.UnknownSQL:
		msg = fmt.Sprintf("the query spark.sql runs here is computed at run time (an f-string with placeholders, or a variable), so the tables it reads are edges of the graph Thund cannot know, and %s cannot run natively from it; write the query as a literal, or add samples/%s.csv to stand in for its rows", dataset, lastStandIn(dataset))
	default:
		msg = fmt.Sprintf("the table %s reads here is computed at run time, so this edge of the graph cannot be known without running the file", u.Call)
	}
	return ir.Diagnostic{Loc: loc, Severity: ir.Info, Code: ir.CodeLibraryPython, Message: msg}
}

// pythonDefinition adds one definition's dataset and flow; helpers is
// set when the file was read with its helper modules.
func (res *fileResult) pythonDefinition(def *pylib.Definition, helpers bool) {
	file, text := res.path, res.text
	loc := ir.Loc{File: file, Start: def.Loc.Start, End: def.Loc.End}
	nameLoc := ir.Loc{File: file, Start: def.NameLoc.Start, End: def.NameLoc.End}
	if def.Kind != "" {
		res.datasets = append(res.datasets, &ir.Dataset{Name: def.Name, Kind: def.Kind, Comment: def.Comment, Loc: loc, NameLoc: nameLoc,
			Format: def.Format, KindLoc: ir.Loc{File: file, Start: def.Loc.Start, End: firstLineEnd(text, def.Loc.Start, def.Loc.End)},
			PartitionBy: def.PartitionCols, ClusterBy: def.ClusterBy, Properties: def.Properties,
			Declared: res.pythonSchema(def)})
	}
	if at := def.ClusterByAuto; at != (pylib.Span{}) && def.Kind != "" {
		d := res.datasets[len(res.datasets)-1]
		d.Syntax = append(d.Syntax, ir.Construct{Name: string(SynPyClusterAuto), Loc: ir.Loc{File: file, Start: at.Start, End: at.End}})
	}
	if g := def.MainGuard; g != (pylib.Span{}) && def.Kind != "" {
		d := res.datasets[len(res.datasets)-1]
		d.Syntax = append(d.Syntax, ir.Construct{Name: string(SynPyMainGuard), Loc: ir.Loc{File: file, Start: g.Start, End: g.End}})
	}
	if def.Kind == ir.Sink || def.Kind == ir.StreamingTable && def.Query == nil && def.Opaque == "" {
		return // filled by flows (create_streaming_table, create_sink)
	}
	flow := &ir.Flow{Name: def.Name, Target: def.Name, QueryLoc: loc, Loc: nameLoc}
	if g := def.MainGuard; g != (pylib.Span{}) && def.Kind == "" {
		flow.Syntax = append(flow.Syntax, ir.Construct{Name: string(SynPyMainGuard), Loc: ir.Loc{File: file, Start: g.Start, End: g.End}})
	}
	if def.Query != nil {
		flow = res.pythonQuery(def)
		res.pythonLoads(def)
	} else {
		for _, rd := range def.Reads {
			flow.Reads = append(flow.Reads, pyRef(file, rd))
		}
		if res.opaque == nil {
			res.opaque = map[*ir.Flow]string{}
		}
		res.opaque[flow] = res.opaqueWhere(def)
	}
	liveConstructs(file, def, flow)
	if def.Query != nil {
		for _, l := range def.Query.Loads {
			if l.CloudFormat != "" || strings.EqualFold(l.Format, "cloudFiles") {
				flow.Syntax = append(flow.Syntax, ir.Construct{Name: string(SynPyCloudFiles), Loc: ir.Loc{File: file, Start: l.Loc.Start, End: l.Loc.End}})
			}
		}
	}
	for _, rd := range flow.Reads {
		if rd.Streaming {
			flow.Streaming = true
		}
	}
	if def.Streams {
		flow.Streaming = true // a stream load whose path is computed
	}
	for _, u := range def.Unknown {
		res.diags = append(res.diags, unknownDiag(file, u, firstNonEmpty(def.Target, def.Name)))
	}
	for _, e := range def.Expectations {
		start, end := e.Cond.Loc.Start, e.Cond.Loc.End
		if e.Cond.Contiguous() {
			start, end = e.Cond.Offsets[0], e.Cond.Offsets[len(e.Cond.Offsets)-1]
		}
		// A decorator is the platform's own form (InSQL): Databricks runs
		// it, and Spark's Python API has none, which SynPyExpect says.
		x := ir.Expectation{Name: e.Name, SQL: e.Cond.Value, Action: ir.Action(e.Action),
			Loc: ir.Loc{File: file, Start: e.Loc.Start, End: e.Loc.End}, SQLLoc: ir.Loc{File: file, Start: start, End: end}, InSQL: true}
		flow.Expectations = append(flow.Expectations, x)
		flow.Syntax = append(flow.Syntax, ir.Construct{Name: string(capab.SynPyExpect), Loc: x.Loc})
		res.diags = append(res.diags, sqlfront.CheckExpression("expectation "+e.Name, x.SQL, x.SQLLoc)...)
	}
	for _, u := range def.UnknownExpectations {
		if u.Single {
			flow.Syntax = append(flow.Syntax, ir.Construct{Name: string(capab.SynPyExpect), Loc: ir.Loc{File: file, Start: u.Loc.Start, End: u.Loc.End}})
			res.diags = append(res.diags, ir.Diagnostic{Loc: ir.Loc{File: file, Start: u.Loc.Start, End: u.Loc.End}, Severity: ir.Warning, Code: ir.CodeLibraryPython,
				Message: fmt.Sprintf("the rule of this @%s is computed at run time (%s), so the native run neither checks nor %s %s's rows by it: its results are unchecked; write the rule as a string literal, or an f-string over module constants or spark.conf.get of keys the spec's configuration sets, to have it enforced natively",
					u.Decorator, u.From, map[string]string{"warn": "counts", "drop": "drops", "fail": "fails on"}[u.Action], firstNonEmpty(def.Target, def.Name))})
			continue
		}
		res.diags = append(res.diags, ir.Diagnostic{Loc: ir.Loc{File: file, Start: u.Loc.Start, End: u.Loc.End}, Severity: ir.Warning, Code: ir.CodeLibraryPython,
			Message: fmt.Sprintf("the expectations of this @%s come from %s, which Thund does not read (it reads %s), so the native run neither checks nor %s its rows by them: %s's results are unchecked; write the rules as a dict in this file to have them enforced natively",
				u.Decorator, u.From, rulesRead(helpers), map[string]string{"warn": "counts", "drop": "drops", "fail": "fails on"}[u.Action], firstNonEmpty(def.Target, def.Name))})
	}
	if def.CDC != nil {
		c := def.CDC
		// Databricks' (and Spark 4.3's) SCD 2 columns are __START_AT and
		// __END_AT, in Python as in SQL.
		flow.CDC = &ir.CDC{Keys: c.Keys, SequenceBy: c.SequenceBy, SCD: c.SCD, Deletes: c.Deletes, Columns: c.Columns,
			ColumnsExcept: c.ColumnsExcept, Loc: loc, StartAt: "__START_AT", EndAt: "__END_AT", SparkText: true,
			IgnoreNullUpdates: c.IgnoreNullUpdates, TrackHistory: c.TrackHistory, TrackHistoryExcept: c.TrackHistoryExcept}
		if c.SCD == 1 {
			flow.CDC.TruncateWhen = c.TruncateWhen
		}
		for _, u := range c.Unapplied {
			at := ir.Loc{File: file, Start: u.Loc.Start, End: u.Loc.End}
			flow.CDC.Unapplied = append(flow.CDC.Unapplied, ir.Construct{Name: u.Name, Loc: at})
			msg := fmt.Sprintf("the native run does not apply %s= (Thund cannot read its value), so its apply-changes results may differ from Databricks': write it as a literal (a list of column names, True, a condition string or expr(...))", u.Name)
			if u.SCD1 {
				msg = fmt.Sprintf("%s= is applied natively for SCD type 1 only: with stored_as_scd_type=2 the native run ignores it, so its versions may differ from Databricks'", u.Name)
			}
			res.diags = append(res.diags, ir.Diagnostic{
				Loc: at, Severity: ir.Warning, Code: ir.CodeUnsupported, Backend: ir.Native, Message: msg,
			})
		}
		flow.Streaming = true
	}
	if flow.Streaming || flow.CDC != nil {
		flow.Trigger.Kind = ir.AvailableNow
		flow.OutputMode = ir.Append
	}
	if def.Kind == ir.Table && def.Query != nil && !flow.Streaming && flow.CDC == nil {
		// @table over a body Thund reads in full that reads no stream:
		// a streaming table of a batch relation on Spark, a
		// materialized view on Databricks (capab.SynPyTableBatch).
		at := def.Decorator
		if at == (pylib.Span{}) {
			at = def.Loc
		}
		flow.Syntax = append(flow.Syntax, ir.Construct{Name: string(capab.SynPyTableBatch), Loc: ir.Loc{File: file, Start: at.Start, End: at.End}})
	}
	if len(def.Conf) > 0 {
		flow.Conf = mergeConf(flow.Conf, def.Conf)
	}
	flow.Name, flow.Loc = def.Name, nameLoc
	flow.Target = def.Name
	if def.Kind == "" {
		flow.Target, flow.Append = def.Target, true
		flow.TargetLoc = ir.Loc{File: file, Start: def.TargetLoc.Start, End: def.TargetLoc.End}
	}
	res.flows = append(res.flows, flow)
}

// rulesRead says where the rules of an @expect_all* are read from: this
// file, and the helper modules of the pipeline folder when the reading
// was given them (analysePythonWith).
func rulesRead(helpers bool) string {
	if helpers {
		return "a dict literal, a name bound to one in this file or in a helper module of the pipeline folder, or a function of no argument of either that returns one"
	}
	return "a dict literal, a name bound to one in this file, or a function of this file that returns one"
}

// opaqueWhere is why def's body is not stated in SQL, after the place
// it stops being one (file:line:col of the step or statement), when
// pylib gives it.
func (res *fileResult) opaqueWhere(def *pylib.Definition) string {
	at := def.OpaqueLoc
	if def.Opaque == "" || at == (pylib.Span{}) || at.Start > len(res.text) {
		return def.Opaque
	}
	return fmt.Sprintf("%s: %s", PyLineCol(res.path, res.text, at.Start), def.Opaque)
}

// PyLineCol is file:line:col of byte offset off of text (columns in
// characters, from 1).
func PyLineCol(file, text string, off int) string {
	if off < 0 || off > len(text) {
		return file
	}
	line, col := 1, 1
	for _, r := range text[:off] {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("%s:%d:%d", file, line, col)
}

// pythonLoads reports each load of def's body that the native engine
// cannot read as Spark reads it (pylib.Load.NotNative), at the load; each
// .drop(...) over tables read by name, which spark-pipelines run fails on
// when they are the pipeline's (pylib.Drop), as a warning at the drop;
// and a schema= that the body's columns (when Thund knows all of them and
// their types) do not fit as Spark requires, at the schema= string.
func (res *fileResult) pythonLoads(def *pylib.Definition) {
	file := res.path
	for _, l := range def.Query.Loads {
		if l.NotNative == "" {
			continue
		}
		res.diags = append(res.diags, ir.Diagnostic{
			Loc: ir.Loc{File: file, Start: l.Loc.Start, End: l.Loc.End}, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: ir.Native,
			Message: fmt.Sprintf("%s cannot run natively as Spark runs it: %s", firstNonEmpty(def.Target, def.Name), l.NotNative),
		})
	}
	if def.API != "dlt" {
		// pyspark's pipelines client (spark-pipelines run); Databricks'
		// own runtime is not Spark Connect's planner.
		for _, dr := range def.Query.Drops {
			res.diags = append(res.diags, ir.Diagnostic{
				Loc: ir.Loc{File: file, Start: dr.Loc.Start, End: dr.Loc.End}, Severity: ir.Warning, Code: ir.CodeUnsupported,
				Message: fmt.Sprintf("spark-pipelines run (Spark 4.1 to 4.3) resolves the DataFrame under .drop(...) when it registers %s, before the pipeline has created its tables: where a table it reads (%s) is a dataset of this pipeline, the run fails here with TABLE_OR_VIEW_NOT_FOUND (Thund's native run and push are not affected); .select(...) the columns to keep instead",
					firstNonEmpty(def.Target, def.Name), strings.Join(dr.Tables, ", ")),
			})
		}
	}
	if def.Kind == "" || len(def.Query.Columns) == 0 || len(res.datasets) == 0 {
		return
	}
	d := res.datasets[len(res.datasets)-1]
	if d.Name != def.Name || len(d.Declared) == 0 {
		return
	}
	out := make([]sema.Column, len(def.Query.Columns))
	for i, c := range def.Query.Columns {
		out[i] = sema.Column{Name: c.Name, Type: strings.ToLower(c.Type)}
	}
	at := ir.Loc{File: file, Start: def.SchemaLoc.Start, End: def.SchemaLoc.End}
	res.diags = append(res.diags, sqlfront.SchemaErrors(d, nil, at, out)...)
}

// liveConstructs records each LIVE.x read of def (Databricks' legacy
// schema), at its LIVE. qualifier when the name is written as it is, as
// SQL's LIVE.x is (capab.SynLiveRef).
func liveConstructs(file string, def *pylib.Definition, flow *ir.Flow) {
	for _, rd := range def.Reads {
		if !rd.Live {
			continue
		}
		at := ir.Loc{File: file, Start: rd.Loc.Start, End: rd.Loc.End}
		if rd.Inner != rd.Loc {
			at = ir.Loc{File: file, Start: rd.Loc.Start + 1, End: rd.Inner.Start}
		}
		flow.Syntax = append(flow.Syntax, ir.Construct{Name: string(capab.SynLiveRef), Loc: at})
	}
}

func pyRef(file string, rd pylib.Read) ir.Ref {
	return ir.Ref{Name: rd.Name, Streaming: rd.Streaming, Path: rd.Path, Loc: ir.Loc{File: file, Start: rd.Inner.Start, End: rd.Inner.End}}
}

// pythonQuery parses the SQL a definition's body stands for with the SQL
// front end, so its ranges are ranges of the .py file:
//
//   - spark.sql of a literal written as it is (or whose escapes and
//     pieces can be blanked out without changing the SQL, pylib.Overlay):
//     parsed in place, so every diagnostic and reference, and the column
//     check, are at their exact ranges;
//   - spark.sql of any other literal (escapes such as \' inside SQL
//     strings): parsed from its value, and each range mapped back
//     through the literal's byte offsets; the column check skips it;
//   - a DataFrame expression (spark.range, a read with steps): parsed
//     from the SQL pylib wrote; references are the reads' literals, and
//     anything the parser says is put on the expression.
func (res *fileResult) pythonQuery(def *pylib.Definition) *ir.Flow {
	file, text := res.path, res.text
	qd := def.Query
	var q *sqlfront.Query
	var diags []ir.Diagnostic
	var remap func(int) int
	tree := false
	switch lit := qd.Lit; {
	case lit != nil && len(lit.Offsets) > 1:
		first, last := lit.Offsets[0], lit.Offsets[len(lit.Offsets)-1]
		if over, ok := pylib.Overlay(text, lit); ok {
			q, diags = sqlfront.ParseQueryDialect(file, over, sqlfront.Span{Start: first, End: last}, res.dialect)
			tree = sameBytes(text, lit)
			break
		}
		b := []byte(text)
		for i := lit.Loc.Start; i < lit.Loc.End; i++ {
			b[i] = ' '
		}
		copy(b[lit.Loc.Start:], lit.Value)
		q, diags = sqlfront.ParseQueryDialect(file, string(b), sqlfront.Span{Start: lit.Loc.Start, End: lit.Loc.Start + len(lit.Value)}, res.dialect)
		remap = func(o int) int { return lit.FileOffset(o - lit.Loc.Start) }
	case lit != nil:
		// An empty spark.sql(""): the front end says there is no query.
		q, diags = sqlfront.ParseQueryDialect(file, text, sqlfront.Span{Start: lit.Loc.Start, End: lit.Loc.Start}, res.dialect)
	case hasPathRead(def):
		// A path load is read_files(...) in the SQL: parsed as the query
		// of a statement defining the dataset, so a source named like the
		// dataset itself is <name>_files, as in SQL.
		blank := []byte(text)
		for i, c := range blank {
			if c != '\n' {
				blank[i] = ' '
			}
		}
		virtual := string(blank) + "\nCREATE MATERIALIZED VIEW " + quoteSQLName(def.Owner()) + " AS " + qd.SQL
		parsed := sqlfront.ParseDialect(file, virtual, res.dialect)
		diags = parsed.Diags
		for i := range parsed.Statements {
			if st := &parsed.Statements[i]; st.Query != nil && st.Query.Start > len(text) {
				q = st.Query
			}
		}
		remap = func(int) int { return -1 }
		for i := range diags {
			diags[i].Message = fmt.Sprintf("in the SQL Thund reads this expression as (%s): %s", qd.SQL, diags[i].Message)
		}
	default:
		virtual := text + "\n" + qd.SQL
		q, diags = sqlfront.ParseQueryDialect(file, virtual, sqlfront.Span{Start: len(text) + 1, End: len(virtual)}, res.dialect)
		at := ir.Loc{File: file, Start: qd.Loc.Start, End: qd.Loc.End}
		remap = func(int) int { return -1 }
		for i := range diags {
			diags[i].Loc = at
			diags[i].Message = fmt.Sprintf("in the SQL Thund reads this expression as (%s): %s", qd.SQL, diags[i].Message)
		}
	}
	mapLoc := func(l *ir.Loc, whole ir.Loc) {
		if remap == nil || l.File != file {
			return
		}
		s, e := remap(l.Start), remap(l.End)
		if s < 0 || e < 0 {
			*l = whole
			return
		}
		l.Start, l.End = s, e
	}
	whole := ir.Loc{File: file, Start: qd.Loc.Start, End: qd.Loc.End}
	if qd.Lit == nil {
		for i := range diags {
			diags[i].Loc = whole
		}
	} else {
		for i := range diags {
			mapLoc(&diags[i].Loc, whole)
		}
	}
	res.diags = append(res.diags, diags...)
	flow := newFlow(file, q, pragma.Settings{})
	if q == nil {
		flow.QueryLoc = whole
		return flow
	}
	if qd.Lit == nil {
		flow.QueryLoc = whole
		flow.Reads = nil
		for _, rd := range def.Reads {
			flow.Reads = append(flow.Reads, pyRef(file, rd))
		}
		if flow.Aggregates {
			flow.AggLoc = whole
		}
		if flow.SparkSyntax != nil {
			flow.SparkSyntax.Loc = whole
		}
		return flow
	}
	if remap != nil {
		mapLoc(&flow.QueryLoc, whole)
		for i := range flow.Reads {
			mapLoc(&flow.Reads[i].Loc, whole)
		}
		mapLoc(&flow.AggLoc, whole)
		if flow.SparkSyntax != nil {
			mapLoc(&flow.SparkSyntax.Loc, whole)
		}
	}
	if remap == nil {
		res.noteFuncs(flow, q)
	}
	if tree {
		res.noteTree(flow, q.Spark)
	}
	return flow
}

// hasPathRead reports whether a definition loads files by path.
func hasPathRead(def *pylib.Definition) bool {
	for _, rd := range def.Reads {
		if rd.Path != "" {
			return true
		}
	}
	return false
}

// quoteSQLName backquotes each part of a dotted name.
func quoteSQLName(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = "`" + strings.ReplaceAll(p, "`", "``") + "`"
	}
	return strings.Join(parts, ".")
}

// sameBytes reports whether every byte of lit's value is written as it is
// at its offset in text (pieces of a concatenation, no escapes), so the
// file text can serve as the SQL's source.
func sameBytes(text string, lit *pylib.Literal) bool {
	for i := 0; i < len(lit.Value); i++ {
		if o := lit.Offsets[i]; o >= len(text) || text[o] != lit.Value[i] {
			return false
		}
	}
	return true
}

// PythonFlow returns the flow a definition of Python file file (whose
// text is text) fills its dataset with, as analysis makes it for a body
// with a Query (its SQL parsed by the SQL front end, its reads,
// expectations, CDC and streaming as the file gives them), and the
// diagnostics of its SQL. The native engine calls it for a body it
// states in SQL once it knows its inputs' columns
// (pylib.Definition.NeedsColumns); vars is the pipeline's configuration.
func PythonFlow(file, text string, def *pylib.Definition, vars map[string]string) (*ir.Flow, []ir.Diagnostic) {
	res := &fileResult{path: file, text: text, hash: hashText(text), dialect: sqlfront.DialectSpark, vars: vars}
	res.pythonDefinition(def, false)
	if len(res.flows) == 0 {
		return nil, res.diags
	}
	return res.flows[len(res.flows)-1], res.diags
}

// pythonStandIn is the message for an opaque Python dataset with no
// sample: why Thund does not run it, and the sample that would stand in.
func pythonStandIn(name, why string) string {
	if why == "" {
		why = "its body is not one Thund states in SQL"
	}
	return fmt.Sprintf("%s (%s): add samples/%s.csv (or .json, .parquet) to stand in for its rows", PythonNotRun, why, lastStandIn(name))
}

// pythonBlocked reports why dataset d, when a Python file defines it,
// cannot run natively: a flow into it has no SQL (DefinedInPython) and no
// sample samples/<d>.* stands in for its rows.
func (s *Snapshot) pythonBlocked(d *ir.Dataset) (string, bool) {
	if !isPython(d.Loc.File) {
		return "", false
	}
	for _, f := range s.Pipeline.FlowsInto(d.Name) {
		if !DefinedInPython(f) {
			continue
		}
		if s.standInSample(d.Name) != "" {
			return "", false
		}
		if why := s.PythonOpaque(f); strings.Contains(why, pylib.ColumnsUnknown) {
			// The native run states it in SQL over its inputs' columns
			// (engine/python.go), or says why it cannot.
			continue
		}
		return pythonStandIn(d.Name, s.PythonOpaque(f)), true
	}
	return "", false
}

// standInSample is the sample found by convention for a dataset's name
// (samples/<name>.csv|json|ndjson|parquet, StandInNames), or "".
func (s *Snapshot) standInSample(name string) string {
	for _, key := range StandInNames(name) {
		for _, c := range s.conventions {
			if c.Table == key && !c.Stream {
				return c.Path
			}
		}
	}
	return ""
}

// lastStandIn is the stand-in sample name Thund suggests for a dataset:
// the last of StandInNames.
func lastStandIn(name string) string {
	names := StandInNames(name)
	return names[len(names)-1]
}

// StandInNames are the sample file names (lower case, no extension) that
// may stand in for an opaque Python dataset's rows, in the order they are
// looked for: the name itself, then, for a qualified name (cat.sch.x),
// its last part (x), which is how the native engine names the dataset.
func StandInNames(name string) []string {
	key := strings.ToLower(name)
	if i := strings.LastIndexByte(key, '.'); i >= 0 && i < len(key)-1 {
		return []string{key, key[i+1:]}
	}
	return []string{key}
}

// PythonStandIn reports, for a dataset a Python file defines in a form
// Thund does not state in SQL, why (the body's opaque reason) and the
// sample that stands in for its rows natively ("" when none does, and the
// dataset is skipped). ok is false for any other dataset, and for a body
// that needs only its inputs' columns, which the native run states in SQL
// over them (engine/python.go).
func (s *Snapshot) PythonStandIn(d *ir.Dataset) (why, sample string, ok bool) {
	if d == nil || !isPython(d.Loc.File) {
		return "", "", false
	}
	for _, f := range s.Pipeline.FlowsInto(d.Name) {
		if DefinedInPython(f) {
			why = s.PythonOpaque(f)
			if strings.Contains(why, pylib.ColumnsUnknown) {
				continue // run from its body once the run knows its inputs' columns
			}
			if why == "" {
				why = "its body is not one Thund states in SQL"
			}
			return why, s.standInSample(d.Name), true
		}
	}
	return "", "", false
}

// pythonSchema reads a definition's schema= DDL string as the dataset's
// declared columns, as a CREATE statement's column list is read (Spark's
// grammar, Spark's type names), so describe, hover and the column check
// give the declared schema and a run stores it. Each column's ranges are
// in the literal when it is written as it is, else the whole literal. A
// string Spark's grammar does not read as a column list is a warning at
// the literal.
func (res *fileResult) pythonSchema(def *pylib.Definition) []ir.DeclaredColumn {
	if strings.TrimSpace(def.Schema) == "" || def.Kind == ir.TemporaryView || def.Kind == ir.Sink {
		return nil
	}
	file, text := res.path, res.text
	head := "\nCREATE MATERIALIZED VIEW `x` ("
	blank := []byte(text)
	for i, c := range blank {
		if c != '\n' {
			blank[i] = ' '
		}
	}
	virtual := string(blank) + head + def.Schema + ") AS SELECT 1"
	at := len(text) + len(head)
	parsed := sqlfront.ParseDialect(file, virtual, sqlfront.DialectSpark)
	lit := ir.Loc{File: file, Start: def.SchemaLoc.Start, End: def.SchemaLoc.End}
	var cols []ir.DeclaredColumn
	for _, st := range parsed.Statements {
		if st.Start >= len(text) {
			cols = sqlfront.DeclaredColumns(file, st.Declared)
		}
	}
	if len(cols) == 0 {
		res.diags = append(res.diags, ir.Diagnostic{Loc: lit, Severity: ir.Warning, Code: ir.CodeLibraryPython,
			Message: fmt.Sprintf("schema=%q is not a column list Spark reads (name TYPE, ...), so Thund does not use it as %s's schema", def.Schema, def.Name)})
		return nil
	}
	exact := def.SchemaLoc.End-def.SchemaLoc.Start == len(def.Schema) && def.SchemaLoc.End <= len(text) && text[def.SchemaLoc.Start:def.SchemaLoc.End] == def.Schema
	move := func(l *ir.Loc) {
		if !exact || l.Start < at || l.End > at+len(def.Schema) {
			*l = lit
			return
		}
		l.Start += def.SchemaLoc.Start - at
		l.End += def.SchemaLoc.Start - at
	}
	for i := range cols {
		move(&cols[i].Loc)
		move(&cols[i].NameLoc)
		move(&cols[i].TypeLoc)
	}
	return cols
}

// pyNotebookHeader begins a Databricks notebook exported as a .py file.
const pyNotebookHeader = "# Databricks notebook source"

// pyCell is a magic cell of a .py notebook export: its language (%sql,
// %md, ...), the magic's range (the `%sql` word), and the cell's lines.
type pyCell struct {
	lang       string
	magic      pylib.Span
	start, end int
}

// pyNotebookCells returns the magic cells of a Databricks .py notebook
// export (cells between `# COMMAND ----------` lines whose first line is
// `# MAGIC %lang`), nil when text is no notebook export. A Python cell
// is Python, and the `# MAGIC` lines of a magic cell are comments to it.
func pyNotebookCells(text string) []pyCell {
	body := strings.TrimPrefix(text, "\ufeff")
	if !strings.HasPrefix(body, pyNotebookHeader) {
		return nil
	}
	var cells []pyCell
	var cur *pyCell
	first := true
	for off := len(text) - len(body); off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		next := off + end + 1
		if end < 0 {
			end, next = len(text)-off, len(text)
		}
		line := strings.TrimRight(text[off:off+end], "\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "# COMMAND") && strings.Trim(strings.TrimPrefix(trimmed, "# COMMAND"), " -") == "":
			if cur != nil {
				cur.end = off
				cells = append(cells, *cur)
				cur = nil
			}
			first = true
		case first && trimmed != "":
			first = false
			if rest, ok := strings.CutPrefix(line, "# MAGIC "); ok && strings.HasPrefix(strings.TrimSpace(rest), "%") {
				word := strings.Fields(rest)[0]
				at := off + len("# MAGIC ") + strings.Index(rest, word)
				cur = &pyCell{lang: word, magic: pylib.Span{Start: at, End: at + len(word)}, start: off}
			}
		}
		off = next
	}
	if cur != nil {
		cur.end = len(text)
		cells = append(cells, *cur)
	}
	return cells
}

// notebookSQL is the text of a .py notebook export's %sql cells, of the
// file's length: every byte outside them blank (line breaks kept), and
// in them each line's `# MAGIC ` prefix and the %sql word blank, so the
// SQL keeps its exact offsets in the file; a ';' stands at the start of
// the `# COMMAND` line that ends a cell.
func notebookSQL(text string, cells []pyCell) (string, bool) {
	b := []byte(text)
	for i, c := range b {
		if c != '\n' && c != '\r' {
			b[i] = ' '
		}
	}
	found := false
	for _, c := range cells {
		if c.lang != "%sql" {
			continue
		}
		found = true
		for off := c.start; off < c.end; {
			end := strings.IndexByte(text[off:c.end], '\n')
			next := off + end + 1
			if end < 0 {
				end, next = c.end-off, c.end
			}
			line := text[off : off+end]
			if rest, ok := strings.CutPrefix(line, "# MAGIC"); ok {
				from := off + len("# MAGIC")
				if strings.HasPrefix(rest, " ") {
					from++
				}
				copy(b[from:off+end], text[from:off+end])
			}
			off = next
		}
		for i := c.magic.Start; i < c.magic.End; i++ {
			b[i] = ' '
		}
		if c.end < len(text) && text[c.end] == '#' {
			// Databricks runs each cell on its own: the cell's
			// statement ends at the `# COMMAND` line, blank here.
			b[c.end] = ';'
		}
	}
	return string(b), found
}

// analyseNotebookSQL analyses the %sql cells of a Databricks .py notebook
// export as the SQL of an SDP-form file at their exact ranges (the
// `# MAGIC ` prefixes blank), and adds their datasets, flows and
// diagnostics to res. Each dataset records, at its cell's %sql, that it
// is a SQL cell of a Python notebook (capab.SynPyNotebookSQL): Spark
// imports the file as Python, where the cell is comments, and
// Databricks runs one language per source file, so only the native
// engine runs it. %md and other magic cells are documentation.
func (res *fileResult) analyseNotebookSQL(cells []pyCell) {
	virtual, found := notebookSQL(res.text, cells)
	if !found {
		return
	}
	file := res.path
	sub := &fileResult{path: file, text: virtual, dialect: res.dialect, hash: res.hash, vars: res.vars}
	header := pragma.ScanHeader(file, virtual)
	// The pipeline's ${key} parameters hold in a %sql cell as in a .sql file.
	parsed := sqlfront.ParsePipeline(file, virtual, res.dialect, res.vars)
	sub.diags = append(sub.diags, parsed.Diags...)
	sub.sdpForm(header, parsed, map[int]bool{})
	for _, f := range sub.flows {
		for _, e := range f.Expectations {
			sub.diags = append(sub.diags, sqlfront.CheckExpression("expectation "+e.Name, e.SQL, e.SQLLoc)...)
		}
	}
	cellOf := func(off int) *pyCell {
		for i := range cells {
			if cells[i].lang == "%sql" && off >= cells[i].start && off < cells[i].end {
				return &cells[i]
			}
		}
		return nil
	}
	sub.diags = skipCommandCells(file, cells, sub)
	for _, d := range sub.datasets {
		if c := cellOf(d.Loc.Start); c != nil {
			d.Syntax = append(d.Syntax, ir.Construct{Name: string(capab.SynPyNotebookSQL), Loc: ir.Loc{File: file, Start: c.magic.Start, End: c.magic.End}})
		}
	}
	for _, f := range sub.flows {
		if f.Append {
			if c := cellOf(f.Loc.Start); c != nil {
				f.Syntax = append(f.Syntax, ir.Construct{Name: string(capab.SynPyNotebookSQL), Loc: ir.Loc{File: file, Start: c.magic.Start, End: c.magic.End}})
			}
		}
	}
	res.datasets = append(res.datasets, sub.datasets...)
	res.flows = append(res.flows, sub.flows...)
	res.diags = append(res.diags, sub.diags...)
	res.samples = append(res.samples, sub.samples...)
	res.sources = append(res.sources, sub.sources...)
	res.trees = append(res.trees, sub.trees...)
	if len(sub.funcs) > 0 {
		if res.funcs == nil {
			res.funcs = map[*ir.Flow][]unportableCall{}
		}
		for f, c := range sub.funcs {
			res.funcs[f] = c
		}
	}
}

// skipCommandCells returns sub's diagnostics without those of the %sql
// cells that define no dataset or flow (a notebook's commands: list,
// SHOW, DESCRIBE), each of which gets one info at its %sql instead. Such
// a cell is not part of the pipeline anywhere (Databricks runs one
// language per source file, Spark reads the file as Python), so the
// statement errors of a .sql file do not apply to it.
func skipCommandCells(file string, cells []pyCell, sub *fileResult) []ir.Diagnostic {
	defines := func(c pyCell) bool {
		for _, d := range sub.datasets {
			if d.Loc.Start >= c.start && d.Loc.Start < c.end {
				return true
			}
		}
		for _, f := range sub.flows {
			if f.Loc.Start >= c.start && f.Loc.Start < c.end {
				return true
			}
		}
		return false
	}
	// A cell whose text does not parse keeps its syntax error: it may
	// be a definition mistyped.
	onlyCommands := func(c pyCell) bool {
		for _, d := range sub.diags {
			if d.Loc.Start >= c.start && d.Loc.Start < c.end && !commandCellCode(d.Code) {
				return false
			}
		}
		return true
	}
	var skipped []pyCell
	for _, c := range cells {
		if c.lang == "%sql" && !defines(c) && strings.TrimSpace(sub.text[c.start:c.end]) != "" && onlyCommands(c) {
			skipped = append(skipped, c)
		}
	}
	if len(skipped) == 0 {
		return sub.diags
	}
	inSkipped := func(off int) bool {
		for _, c := range skipped {
			if off >= c.start && off < c.end {
				return true
			}
		}
		return false
	}
	out := sub.diags[:0:0]
	for _, d := range sub.diags {
		if !inSkipped(d.Loc.Start) {
			out = append(out, d)
		}
	}
	for _, c := range skipped {
		out = append(out, ir.Diagnostic{Loc: ir.Loc{File: file, Start: c.magic.Start, End: c.magic.End}, Severity: ir.Info, Code: ir.CodeNotebookCell,
			Message: "this %sql cell defines no dataset or flow, and a %sql cell of a Python notebook is not part of the pipeline (Databricks runs one language per source file; Spark reads the file as Python): Thund skips it; a command like this one belongs in a notebook outside the pipeline's sources"})
	}
	return out
}

// commandCellCode reports whether code is what a .sql file's statement
// that defines nothing gets (a command, a bare query), which a skipped
// %sql cell does not get.
func commandCellCode(code ir.Code) bool {
	switch code {
	case ir.CodeSQLUnsupported, ir.CodeSQLNotQuery, ir.CodeSQLMultiQuery, ir.CodeSQLEmpty:
		return true
	}
	return false
}

// PythonModules returns the reader of the helper modules the Python
// library file (relative to root, slash-separated) imports: a dotted
// name a.b is a/b.py, or a/b/__init__.py, in the file's folder, else at
// the pipeline root (Databricks puts the pipeline's root on sys.path).
// Only files inside root are read: no name part that is not an
// identifier, no symbolic link, nothing but a regular file of at most
// pylib.MaxModuleBytes. text gives the texts the caller holds (an
// editor's unsaved buffers), which are read first; nil reads the disk
// only. The module is parsed, never run (pylib).
func PythonModules(root, file string, text func(rel string) (string, bool)) func(string) (string, bool) {
	return func(name string) (string, bool) {
		_, t, ok := pythonModuleAt(root, file, text, name)
		return t, ok
	}
}

// pythonModuleAt finds the helper module name of library file as
// PythonModules does, and returns its path under root too.
func pythonModuleAt(root, file string, text func(rel string) (string, bool), name string) (at, got string, ok bool) {
	parts := strings.Split(name, ".")
	for _, p := range parts {
		if !pyIdentifier(p) {
			return "", "", false
		}
	}
	rel := strings.Join(parts, "/")
	for _, dir := range []string{path.Dir(file), "."} {
		for _, cand := range []string{rel + ".py", rel + "/__init__.py"} {
			p := path.Clean(path.Join(dir, cand))
			if strings.HasPrefix(p, "../") || p == file {
				continue
			}
			if text != nil {
				if t, ok := text(p); ok {
					return p, t, len(t) <= pylib.MaxModuleBytes
				}
			}
			if t, ok := readHelper(root, p); ok {
				return p, t, true
			}
		}
	}
	return "", "", false
}

// moduleSource finds the helper module name that library file imports:
// its path, its text, and whether there is one (pythonModuleAt).
type moduleSource func(file, name string) (at, text string, ok bool)

// moduleRead is what a reading of a library found for one module name:
// the file (empty when none) and its text. A result is stale when the
// name now finds another file or text (moduleReadsCurrent).
type moduleRead struct {
	at, text string
	ok       bool
}

// recordModules returns the module reader of library file over src,
// which records each name it is asked in reads.
func recordModules(src moduleSource, file string, reads map[string]moduleRead) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if r, seen := reads[name]; seen {
			return r.text, r.ok
		}
		at, text, ok := src(file, name)
		reads[name] = moduleRead{at: at, text: text, ok: ok}
		return text, ok
	}
}

// moduleReadsCurrent reports whether every module name r's reading
// asked for still finds what it found then, through src.
func moduleReadsCurrent(r *fileResult, src moduleSource) bool {
	for name, was := range r.moduleReads {
		at, text, ok := src(r.path, name)
		if ok != was.ok || at != was.at || text != was.text {
			return false
		}
	}
	return true
}

// readsModuleAt reports whether r's reading used the helper module file
// at p.
func readsModuleAt(r *fileResult, p string) bool {
	for _, was := range r.moduleReads {
		if was.at == p {
			return true
		}
	}
	return false
}

// pythonModulesOf is PythonModules for library file of s: the texts s
// holds (an editor's buffers) first, then the disk under s.Root. The
// snapshot's build passes it to analysePythonWith for each .py library;
// a result then depends on the modules it read (pylib.File.Modules) as
// well as on its own text.
func (s *Snapshot) pythonModulesOf(file string) func(string) (string, bool) {
	return PythonModules(s.Root, file, s.texts.get)
}

// moduleSource is the helper modules' finder of s's build: the texts s
// holds first, then the disk under s.Root.
func (s *Snapshot) moduleSource() moduleSource {
	return func(file, name string) (string, string, bool) {
		return pythonModuleAt(s.Root, file, s.texts.get, name)
	}
}

// readHelper reads the helper module at rel under root when every part
// of its path is a folder or a regular file (no link), of at most
// pylib.MaxModuleBytes.
func readHelper(root, rel string) (string, bool) {
	at := root
	for _, part := range strings.Split(rel, "/") {
		at = filepath.Join(at, part)
		fi, err := os.Lstat(at)
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			return "", false
		}
	}
	fi, err := os.Lstat(at)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > pylib.MaxModuleBytes {
		return "", false
	}
	b, err := os.ReadFile(at)
	if err != nil || len(b) > pylib.MaxModuleBytes {
		return "", false
	}
	return string(b), true
}

// pyIdentifier reports whether s is a Python identifier (ASCII).
func pyIdentifier(s string) bool {
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}
