package sdplower

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/thund-dev/thund/analysis/pylib"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sparkconnect/pb"
)

// A Python dataset reaches Spark as pyspark's pipelines client registers
// it (spark-pipelines run calls the dataset's function and sends the
// DataFrame's plan in DefineFlow's relation_flow_details): Thund never
// runs the file, so it sends the plan of the bodies whose meaning it
// reads without running them (docs/format.md, Python files):
//
//   - spark.range(...): a Range relation;
//   - a table read with nothing after it: Read.NamedTable (is_streaming
//     for spark.readStream.table, dlt.read_stream);
//   - a load of files with nothing after it: Read.DataSource with the
//     format, options, schema and path as the reader was given them;
//   - a DataFrame chain over loads: the SQL Thund states the chain in,
//     over each load by the name of its source, as a WithRelations whose
//     references are the loads under those names (pyspark sends
//     spark.sql("... {df} ...", df=...) the same way);
//   - spark.sql of a literal, and any other chain: the SQL.
//
// Any other body (opaque) is refused with its place and the way out: the
// user runs the folder with spark-pipelines run, which runs its Python.

// pyDefs indexes the definitions of the Python libraries in texts by file
// and name.
type pyDefs map[string]map[string]*pylib.Definition

func parsePython(texts map[string]string) pyDefs {
	return parsePythonConf(texts, nil)
}

// parsePythonConf is parsePython with the pipeline's configuration (the
// spec's configuration:), which spark.conf.get reads as analysis and the
// native run read it: a name, a path or a rule built from it is then the
// one pushed.
func parsePythonConf(texts map[string]string, conf map[string]string) pyDefs {
	out := pyDefs{}
	for file, text := range texts {
		if !isPython(file) {
			continue
		}
		f, err := pylib.ParseWith(file, text, pylib.Options{Conf: conf})
		if err != nil {
			continue
		}
		m := map[string]*pylib.Definition{}
		for i := range f.Definitions {
			d := &f.Definitions[i]
			m[ir.NameKey(d.Name)] = d
		}
		out[file] = m
	}
	return out
}

// def is the definition of Python flow f, or nil when its file's text was
// not given.
func (p pyDefs) def(f *ir.Flow) *pylib.Definition {
	if m := p[f.QueryLoc.File]; m != nil {
		return m[ir.NameKey(f.Name)]
	}
	return nil
}

// schema is the schema= string of a dataset a Python library defines, ""
// for any other (or when its text was not given).
func (p pyDefs) schema(d *ir.Dataset) string {
	if m := p[d.Loc.File]; m != nil {
		if def := m[ir.NameKey(d.Name)]; def != nil && def.Kind != "" {
			return def.Schema
		}
	}
	return ""
}

// pyLowering is what lowering a Python flow gives: the relation to send
// (nil: the flow's SQL), or why it cannot be sent.
type pyLowering struct {
	rel *pb.Relation
	err string
	loc ir.Loc
}

// pythonFlow lowers flow f of a Python library (its SQL being sql).
// paths maps a loaded path to the one sent (Options.Paths).
func pythonFlow(f *ir.Flow, sql string, def *pylib.Definition, backend ir.Backend, paths map[string]string) pyLowering {
	hasLoad := false
	for _, r := range f.Reads {
		if r.Path != "" {
			hasLoad = true
		}
	}
	at := ir.Loc{File: f.QueryLoc.File}
	if def == nil {
		if !hasLoad {
			return pyLowering{}
		}
		return pyLowering{loc: f.Loc, err: fmt.Sprintf("%s loads files by path in Python, and Thund was not given the text of %s to send the load as written (its format and options): push through thund-watch or the editor, which read the file", f.Name, f.QueryLoc.File)}
	}
	q := def.Query
	if q == nil || q.Lit != nil {
		return pyLowering{} // spark.sql: the SQL as written
	}
	for _, l := range q.Loads {
		at.Start, at.End = l.Loc.Start, l.Loc.End
		if strings.EqualFold(l.Format, "cloudFiles") {
			return pyLowering{loc: at, err: fmt.Sprintf("%s loads files with Auto Loader (format cloudFiles), which is Databricks' and which %s does not have (DATA_SOURCE_NOT_FOUND): on Spark, load them with spark.readStream.format(%q).schema(\"...\").load(path)", f.Name, backend, orDefault(l.CloudFormat, "json"))}
		}
		if l.Computed != "" {
			return pyLowering{loc: at, err: fmt.Sprintf("%s loads files, and %s, so Thund cannot send the load as Python would build it: write it as a literal, or run the folder with spark-pipelines run", f.Name, l.Computed)}
		}
	}
	if r := q.Relation; r != nil {
		switch {
		case r.Range != nil:
			rg := &pb.Range{Start: ptr(r.Range.Start), End: r.Range.End, Step: r.Range.Step}
			if r.Range.Partitions > 0 {
				rg.NumPartitions = ptr(r.Range.Partitions)
			}
			return pyLowering{rel: &pb.Relation{RelType: &pb.Relation_Range{Range: rg}}}
		case r.Table != "":
			return pyLowering{rel: &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{
				IsStreaming: r.Streaming,
				ReadType:    &pb.Read_NamedTable_{NamedTable: &pb.Read_NamedTable{UnparsedIdentifier: quoteName(r.Table)}},
			}}}}
		case r.Load != nil:
			return pyLowering{rel: loadRelation(r.Load, paths)}
		}
	}
	if len(q.Loads) == 0 {
		return pyLowering{}
	}
	// SQL over loads: each load is referenced by its source's name, the
	// name the SQL reads it by (a streaming load is itself the stream,
	// so the SQL's STREAM before the name goes).
	if namesMetadata(sql) {
		// Spark makes each reference of a WithRelations a temporary view,
		// which hides the load's _metadata column: the SQL would fail at
		// the push (checked on Spark 4.1.4, batch and streaming, in a
		// pipeline run too: UNRESOLVED_COLUMN.WITH_SUGGESTION), while the
		// DataFrame pyspark builds (a Project over the load) resolves it.
		at := f.Loc
		if len(q.Loads) > 0 {
			at.Start, at.End = q.Loads[0].Loc.Start, q.Loads[0].Loc.End
		}
		return pyLowering{loc: at, err: fmt.Sprintf("%s names the hidden _metadata column of a load of files in a step Thund sends to %s as SQL over the load, and Spark does not resolve _metadata through that SQL's reference to the load "+
			"(UNRESOLVED_COLUMN.WITH_SUGGESTION, Spark 4.1.4): run the folder with `spark-pipelines run`, which sends the DataFrame as pyspark builds it (only for a folder you trust), or leave _metadata out of %s", f.Name, backend, f.Name)}
	}
	root := sql
	var refs []*pb.Relation
	done := map[string]bool{}
	for _, r := range f.Reads {
		if r.Path == "" || done[ir.NameKey(r.Name)] {
			continue
		}
		var load *pylib.Load
		for i := range q.Loads {
			if q.Loads[i].Path == r.Path && q.Loads[i].Streaming == r.Streaming {
				load = &q.Loads[i]
			}
		}
		if load == nil {
			return pyLowering{loc: r.Loc, err: fmt.Sprintf("Thund cannot find the load of %s that %s reads to send it to %s: run the folder with spark-pipelines run", r.Path, f.Name, backend)}
		}
		done[ir.NameKey(r.Name)] = true
		if r.Streaming {
			root = streamBefore(r.Name).ReplaceAllString(root, "${1}")
		}
		refs = append(refs, &pb.Relation{RelType: &pb.Relation_SubqueryAlias{SubqueryAlias: &pb.SubqueryAlias{
			Input: loadRelation(load, paths), Alias: r.Name}}})
	}
	return pyLowering{rel: &pb.Relation{RelType: &pb.Relation_WithRelations{WithRelations: &pb.WithRelations{
		Root:       &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: root}}},
		References: refs,
	}}}}
}

// streamBefore matches `STREAM name` (name plain or backquoted) in SQL
// Thund wrote, keeping the name as group 1.
func streamBefore(name string) *regexp.Regexp {
	q := regexp.QuoteMeta(name)
	return regexp.MustCompile(`(?i)\bSTREAM\s+((?:` + q + `|` + "`" + q + "`" + `)\b)`)
}

// loadRelation is a load of files as pyspark's DataFrameReader sends it.
func loadRelation(l *pylib.Load, paths map[string]string) *pb.Relation {
	ds := &pb.Read_DataSource{Options: l.Options, Paths: []string{l.Path}}
	if p, ok := paths[l.Path]; ok {
		ds.Paths = []string{p}
	}
	if l.Format != "" {
		ds.Format = ptr(l.Format)
	}
	if l.Schema != "" {
		ds.Schema = ptr(l.Schema)
	}
	return &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{IsStreaming: l.Streaming, ReadType: &pb.Read_DataSource_{DataSource: ds}}}}
}

// quoteName backquotes each part of a dotted name that is no plain
// identifier.
func quoteName(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = quoteIdent(p)
	}
	return strings.Join(parts, ".")
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// pythonRefusal is the error for a dataset a Python file defines in a
// form Thund cannot send (an opaque body): Thund never runs a folder's
// Python, and sending the dataset's neighbours without it would run a
// different pipeline than spark-pipelines run does.
func pythonRefusal(d *ir.Dataset, f *ir.Flow, why string, backend ir.Backend) ir.Diagnostic {
	if why == "" {
		why = "its body is not one Thund reads without running it"
	}
	return ir.Diagnostic{
		Loc: f.Loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: backend,
		Message: fmt.Sprintf("%s is defined in Python in a form Thund cannot send to %s (%s): Thund never runs a pipeline's Python, so it pushes only the Python datasets it reads without running them (spark.sql of a literal, spark.range, table reads and loads with simple steps). Run the folder with `spark-pipelines run` (which runs its Python on your machine: only for a folder you trust), or write %s in one of those forms",
			d.Name, backend, why, d.Name),
	}
}

// sqlStrings matches the string literals of Spark SQL ('...' and "...",
// backslash escapes and doubled quotes included).
var sqlStrings = regexp.MustCompile(`'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*"`)

// metadataName matches _metadata as a name (plain or backquoted).
var metadataName = regexp.MustCompile("(?i)(?:^|[^A-Za-z0-9_$])`?_metadata`?(?:[^A-Za-z0-9_$]|$)")

// namesMetadata reports whether sql, SQL Thund wrote for a Python body,
// names the hidden _metadata column (outside its string literals).
func namesMetadata(sql string) bool {
	return metadataName.MatchString(sqlStrings.ReplaceAllString(sql, "''"))
}
