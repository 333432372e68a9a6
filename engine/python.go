package engine

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/pylib"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/ir"
)

// standInExts are the sample formats a Python dataset's stand-in may
// have, in the order analysis's convention prefers them (by path).
var standInExts = []string{".csv", ".json", ".ndjson", ".parquet"}

// pythonStandIn returns the sample that stands in for the rows of dataset
// d when a flow into it is a Python function Thund does not state in SQL
// (analysis.DefinedInPython): samples/<name>.csv, .json, .ndjson or
// .parquet in the pipeline folder, or "" when there is none. A qualified
// name (cat.sch.x) looks for samples/cat.sch.x.* first, then for the
// file of its last part, samples/x.* (analysis.StandInNames).
func (st *runState) pythonStandIn(d *ir.Dataset) string {
	if s := st.standInSample(d); s != "" {
		return s
	}
	// A body that needs only its inputs' columns is stated in SQL when
	// it runs (standInFlow): it is not skipped for want of a sample.
	for _, f := range st.p.FlowsInto(d.Name) {
		if analysis.DefinedInPython(f) && st.needsColumns(f) {
			return loweredAtRun
		}
	}
	return ""
}

// loweredAtRun is pythonStandIn's answer for a dataset whose Python body
// is stated in SQL when it runs.
const loweredAtRun = "(stated in SQL when it runs)"

// standInSample is the stand-in sample of d (pythonStandIn), "" when none.
func (st *runState) standInSample(d *ir.Dataset) string {
	for _, name := range analysis.StandInNames(d.Name) {
		for _, ext := range standInExts {
			rel := "samples/" + name + ext
			if fi, err := os.Stat(filepath.Join(st.s.Root, filepath.FromSlash(rel))); err == nil && fi.Mode().IsRegular() {
				return rel
			}
		}
	}
	return ""
}

// standInRelation is the DuckDB relation a stand-in sample is read into
// for dataset name: never the dataset's own relation (the last part of
// its name), whatever its qualifiers.
func standInRelation(name string) string {
	return "thund_standin_" + strings.ReplaceAll(strings.ToLower(name), ".", "__")
}

// standInFlow returns the flow that runs in place of the Python flow f
// into d: f stated in SQL when its inputs' columns were all it needed
// (pythonLowered), else the flow that fills d from its stand-in sample:
// the sample is read as a view (like a source's), and the flow selects
// every row of it as a batch.
func (st *runState) standInFlow(ctx context.Context, d *ir.Dataset, f *ir.Flow) (*ir.Flow, error) {
	lowered, why := st.pythonLowered(ctx, f)
	if lowered != nil {
		return lowered, nil
	}
	sample := st.standInSample(d)
	if sample == "" {
		if why != "" {
			// why begins with the definition's file:line:col.
			at, reason, _ := strings.Cut(why, ": ")
			names := analysis.StandInNames(d.Name)
			return nil, &flowError{f.Name, fmt.Errorf("%s: %s (%s): add samples/%s.csv (or .json, .parquet) to stand in for its rows", at, analysis.PythonNotRun, reason, names[len(names)-1])}
		}
		return nil, &flowError{f.Name, fmt.Errorf("%s", analysis.PythonNotRun)}
	}
	// Read once, as a table: a value the reader cannot convert is then
	// an error of the sample, at its line, before the flow runs.
	if err := st.registerSample(ctx, standInRelation(d.Name), sample, true, "stand-in sample of "+d.Name); err != nil {
		return nil, &flowError{f.Name, err}
	}
	// Said once per run, as a plan worth saying: the rows are the
	// sample's, not the body's.
	st.emit(Event{Dataset: d.Name, Flow: f.Name, Phase: Planning,
		Message: fmt.Sprintf("the Python body of %s is not run: its rows come from %s", d.Name, sample)})
	g := *f
	g.SQL = ""
	g.Normalized = "SELECT * FROM " + quoteIdent(standInRelation(d.Name))
	g.Dialect = "duckdb"
	g.Streaming, g.CDC, g.Watermark, g.Reads = false, nil, nil, nil
	return &g, nil
}

// A Python load of files (spark.read.format("csv")...load(path)) reads
// the source named after its path, whose sample stands in for the files.
// Spark reads the files with the load's format and options, and infers
// their schema when the load gives none; the native engine reads the
// sample the same way (pylib.InferJSON, pylib.InferCSV) instead of with
// DuckDB's own sniffing, so the columns, their order and their types are
// Spark's. The load is read from the Python file itself (pylib, no
// execution), as the run reads the samples: from the pipeline folder.

// maxLoadSample bounds the bytes of a load's sample read to infer its
// schema.
const maxLoadSample = 64 << 20

// pythonLoad returns the load of a Python file that reads source src by
// path, the file, and its text; nil when no Python load reads src (a
// streaming load reads micro-batches, which streaming.go reads). Loads
// of one source that read it with other options are an error: the
// native engine reads one sample one way.
func (s *Session) pythonLoad(p *ir.Pipeline, src *ir.Source) (*pylib.Load, string, string, error) {
	return s.pythonLoadOf(p, src, false)
}

// pythonLoadOf is pythonLoad, taking the loads of streams (readStream)
// too when streams is set.
func (s *Session) pythonLoadOf(p *ir.Pipeline, src *ir.Source, streams bool) (*pylib.Load, string, string, error) {
	key := ir.NameKey(src.Name)
	var first *pylib.Load
	var firstFile, firstText string
	parsed := map[string]pylib.File{}
	texts := map[string]string{}
	for _, f := range p.Flows {
		if !strings.HasSuffix(f.QueryLoc.File, ".py") {
			continue
		}
		for _, ref := range f.Reads {
			if ref.Path == "" || ref.Streaming && !streams || ir.NameKey(ref.Name) != key {
				continue
			}
			file := f.QueryLoc.File
			pf, ok := parsed[file]
			if !ok {
				b, err := os.ReadFile(filepath.Join(s.Root, filepath.FromSlash(file)))
				if err != nil {
					return nil, "", "", fmt.Errorf("read %s: %w", file, err)
				}
				if pf, err = pylib.ParseWith(file, string(b), pylib.Options{Conf: p.Configuration, Module: analysis.PythonModules(s.Root, file, nil)}); err != nil {
					return nil, "", "", fmt.Errorf("read %s: %w", file, err)
				}
				parsed[file], texts[file] = pf, string(b)
			}
			for i := range pf.Definitions {
				def := &pf.Definitions[i]
				if def.Name != f.Name || def.Query == nil {
					continue
				}
				for j := range def.Query.Loads {
					l := &def.Query.Loads[j]
					if l.Path != ref.Path || l.Streaming && !streams {
						continue
					}
					if first == nil {
						first, firstFile, firstText = l, file, texts[file]
					} else if !sameReading(first, l) {
						return nil, "", "", fmt.Errorf("the loads at %s and %s read %s with other formats, options or schemas, and the native engine reads its sample %s one way: load it once (a temporary view) and read that", lineCol(firstFile, firstText, first.Loc.Start), lineCol(file, texts[file], l.Loc.Start), ref.Path, src.Sample)
					}
				}
			}
		}
	}
	return first, firstFile, firstText, nil
}

// sameReading reports whether two loads read their files alike: the same
// format and options, and either both with a schema or both without.
func sameReading(a, b *pylib.Load) bool {
	if !strings.EqualFold(a.Format, b.Format) || (a.Schema == "") != (b.Schema == "") || len(a.Options) != len(b.Options) {
		return false
	}
	for k, v := range a.Options {
		found := false
		for k2, v2 := range b.Options {
			if strings.EqualFold(k, k2) && v == v2 {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// loadFormats are the DuckDB readers of the formats whose inference the
// engine states as Spark's.
var loadFormats = map[string]string{"csv": "read_csv_auto", "json": "read_json_auto"}

// LoadReading returns the DuckDB table function call that reads the
// sample of source src as Spark's reader reads the files of the Python
// load that reads src by path (pylib.Load: its format's options, its
// schema, or the schema Spark infers), or "" when no Python load reads
// src or its format is read as DuckDB reads it (Parquet, ORC). Whoever
// reads a source's sample (the run, a description) reads it so.
func (s *Session) LoadReading(p *ir.Pipeline, src *ir.Source) (string, error) {
	if src.Stream || src.Sample == "" {
		return "", nil
	}
	what := "source " + src.Name
	l, file, text, err := s.pythonLoad(p, src)
	if err != nil || l == nil {
		if err != nil {
			err = fmt.Errorf("%s: %w", what, err)
		}
		return "", err
	}
	return s.loadReading(src.Sample, what, l, file, text)
}

// loadReading is LoadReading for load l (written in file, whose text is
// text) over sample.
func (s *Session) loadReading(sample, what string, l *pylib.Load, file, text string) (string, error) {
	format := strings.ToLower(l.Format)
	want, ok := loadFormats[format]
	if !ok {
		return "", nil
	}
	fn, pattern, err := s.reader(sample)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if fn != want {
		return "", fmt.Errorf("%s: the load at %s reads %s files, and its sample %s is another format: give the sample the load's format", what, lineCol(file, text, l.Loc.Start), format, sample)
	}
	data, err := s.loadSampleBytes(pattern)
	if err != nil {
		return "", fmt.Errorf("%s (%s): %w", what, sample, err)
	}
	at := lineCol(file, text, l.Loc.Start)
	if l.Schema != "" {
		at = lineCol(file, text, l.SchemaLoc.Start)
	}
	var call string
	switch format {
	case "json":
		fields, err := pylib.InferJSON(data, l.Options)
		if err != nil {
			return "", fmt.Errorf("%s: the load at %s: %w", what, at, err)
		}
		for _, f := range fields {
			if f.Name == pylib.CorruptRecord {
				return "", fmt.Errorf("%s: %s has lines that are no JSON object, which Spark reads into a %s column the native engine does not make: fix those lines", what, sample, pylib.CorruptRecord)
			}
		}
		if l.Schema != "" {
			if err := schemaAgrees(l.Schema, fields, sample); err != nil {
				return "", fmt.Errorf("%s: the schema at %s disagrees with the sample: %w", what, at, err)
			}
			// The load's SQL reads the schema's fields by name and casts
			// them; the fields the sample has are read as inferred.
		}
		if len(fields) == 0 {
			return "", fmt.Errorf("%s: %s holds no JSON record", what, sample)
		}
		call = "read_json(" + quoteString(pattern) + ", format = 'auto', columns = " + duckColumns(fields) + ")"
	case "csv":
		o, err := pylib.CSVReading(l.Options)
		if err != nil {
			return "", fmt.Errorf("%s: the load at %s: %w", what, at, err)
		}
		byPosition := l.Schema != ""
		if byPosition {
			o.InferSchema = false // the schema's types, cast by the load's SQL
		}
		fields, err := pylib.InferCSV(data, o)
		if err != nil {
			return "", fmt.Errorf("%s (%s): %w", what, sample, err)
		}
		if len(fields) == 0 {
			return "", fmt.Errorf("%s: %s holds no CSV line", what, sample)
		}
		if byPosition {
			if err := csvSchemaAgrees(l.Schema, fields, data, o, sample); err != nil {
				return "", fmt.Errorf("%s: the schema at %s disagrees with the sample: %w", what, at, err)
			}
		}
		nulls := "['']"
		if o.NullValue != "" {
			nulls = "[" + quoteString(o.NullValue) + ", '']"
		}
		header := "false"
		if o.Header {
			header = "true"
		}
		call = "read_csv(" + quoteString(pattern) + ", header = " + header + ", delim = " + quoteString(o.Sep) + ", quote = '\"', auto_detect = false, null_padding = true, nullstr = " + nulls + ", columns = " + duckColumns(fields) + ")"
		if strings.Contains(pattern, "*") {
			call = strings.TrimSuffix(call, ")") + ", union_by_name = true)"
		}
		call = loadTimestamps(call, fields) // csvinfer.go
	}
	return call, nil
}

// registerLoad defines the relation rel as the rows of call (a
// LoadReading), a view or, when materialise is set, a table.
func (st *runState) registerLoad(ctx context.Context, rel, call string, materialise bool, what, sample string) error {
	name := quoteIdent(rel)
	q := fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM %s", name, call)
	if materialise {
		st.conn.ExecContext(ctx, "DROP VIEW IF EXISTS "+name)
		q = fmt.Sprintf("CREATE OR REPLACE TABLE %s AS SELECT * FROM %s", name, call)
	} else {
		st.conn.ExecContext(ctx, "DROP TABLE IF EXISTS "+name)
	}
	if _, err := st.conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s (%s, read as Spark reads its Python load): %w", what, sample, sampleReadError(st.s.scrubbed(explain(err)), sample, rel))
	}
	return nil
}

// loadSampleBytes reads the mirrored files a reader pattern names, in
// name order, up to maxLoadSample bytes.
func (s *Session) loadSampleBytes(pattern string) ([]byte, error) {
	files := []string{pattern}
	if strings.ContainsAny(pattern, "*?[") {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return nil, fmt.Errorf("list the sample's files: %w", err)
		}
		sort.Strings(m)
		files = m
	}
	var out []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read the sample: %w", s.scrubbed(err))
		}
		if len(out)+len(b) > maxLoadSample {
			return nil, fmt.Errorf("the sample is over %d MiB, more than Thund reads to infer its schema as Spark does: give the load its schema with .schema(\"...\")", maxLoadSample>>20)
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, b...)
	}
	return out, nil
}

// duckColumns is a DuckDB columns = {...} argument for fields.
func duckColumns(fields []pylib.Field) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = quoteString(f.Name) + ": " + quoteString(f.Type.DuckDB())
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// lineCol is file:line:col of a byte offset of text (columns in
// characters).
func lineCol(file, text string, off int) string {
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

// schemaAgrees checks a JSON load's schema against the fields inferred
// from its sample: every schema field is in the sample, with values Spark
// reads as the field's type (not NULL).
func schemaAgrees(schema string, inferred []pylib.Field, sample string) error {
	fields, ok := pylib.SchemaFields(schema)
	if !ok {
		return nil // nested types: Spark applies them, Thund does not check
	}
	for _, f := range fields {
		typ := pylib.CanonicalType(f[1])
		var found *pylib.Field
		for i := range inferred {
			if strings.EqualFold(inferred[i].Name, f[0]) {
				found = &inferred[i]
				break
			}
		}
		if found == nil {
			return fmt.Errorf("it gives %s %s, and no record of %s has a field %s, so Spark reads it as NULL in every row: add it to the sample, or drop it from the schema", f[0], typ, sample, f[0])
		}
		if !pylib.JSONFits(found.Type, typ) {
			return fmt.Errorf("it gives %s %s, and %s holds %s values in %s, which Spark reads as NULL: fix the sample's values or the schema's type", f[0], typ, sample, found.Type.Spark(), f[0])
		}
	}
	return nil
}

// csvSchemaAgrees checks a CSV load's schema, applied by position,
// against its sample: as many columns, and every value that is not null
// one Spark parses as its column's type (not NULL).
func csvSchemaAgrees(schema string, cols []pylib.Field, data []byte, o pylib.CSVOptions, sample string) error {
	fields, ok := pylib.SchemaFields(schema)
	if !ok {
		return nil
	}
	if len(fields) != len(cols) {
		return fmt.Errorf("it has %d columns and %s has %d, and Spark applies a CSV schema by position: give the schema one column per column of the sample", len(fields), sample, len(cols))
	}
	rows, err := pylib.CSVRows(data, o.Sep)
	if err != nil {
		return err
	}
	line := 1
	if o.Header && len(rows) > 0 {
		rows, line = rows[1:], 2
	}
	for r, row := range rows {
		for i, v := range row {
			if i >= len(fields) || v == "" || v == o.NullValue {
				continue
			}
			if typ := pylib.CanonicalType(fields[i][1]); !pylib.ValueFits(v, typ) {
				return fmt.Errorf("it gives column %d as %s %s, and record %d of %s has %q there, which Spark reads as NULL: fix the sample's value or the schema's type", i+1, fields[i][0], typ, line+r, sample, v)
			}
		}
	}
	return nil
}

// A Python body whose steps need its input's columns (withColumn,
// withColumnRenamed, drop, unionByName over a table read or a load whose
// columns the file does not give) is stated in SQL when the run reaches
// it: by then every input is a relation of the run (a source's sample,
// an upstream dataset's rows) or a sample Spark's inference reads, so
// pylib is given their columns and writes the SQL, which runs as any
// other flow's does.

// pythonLowered returns flow f of a Python file in SQL, reading the file
// again with its inputs' columns (pylib.Options.Columns), or nil and why
// it still cannot be ("" when the body is opaque for another reason than
// its inputs' columns).
func (st *runState) pythonLowered(ctx context.Context, f *ir.Flow) (*ir.Flow, string) {
	return st.lowerPython(ctx, f)
}

func (st *runState) lowerPython(ctx context.Context, f *ir.Flow) (*ir.Flow, string) {
	file := f.QueryLoc.File
	b, err := os.ReadFile(filepath.Join(st.s.Root, filepath.FromSlash(file)))
	if err != nil {
		return nil, fmt.Sprintf("%s: the run cannot read the file again (%v)", file, st.s.scrubbed(err))
	}
	text := string(b)
	first, err := pylib.ParseWith(file, text, pylib.Options{Conf: st.p.Configuration, Module: analysis.PythonModules(st.s.Root, file, nil)})
	if err != nil {
		return nil, fmt.Sprintf("%s: %v", file, err)
	}
	def := pythonDef(&first, f)
	if def == nil || !def.NeedsColumns {
		return nil, ""
	}
	var missing []string
	columns := func(in pylib.Input) []string {
		cols := st.inputColumns(ctx, f, in)
		if cols == nil {
			what := in.Table
			if in.Load != nil {
				what = in.Load.Path
			}
			missing = append(missing, what)
		}
		return cols
	}
	parsed, err := pylib.ParseWith(file, text, pylib.Options{Conf: st.p.Configuration, Columns: columns, Module: analysis.PythonModules(st.s.Root, file, nil)})
	if err != nil {
		return nil, fmt.Sprintf("%s: %v", file, err)
	}
	def = pythonDef(&parsed, f)
	if def == nil {
		return nil, ""
	}
	if def.Query == nil {
		why := def.Opaque
		if def.NeedsColumns && len(missing) > 0 {
			why = fmt.Sprintf("%s; the run has no columns for %s", why, strings.Join(missing, ", "))
		}
		at := def.Loc.Start
		if def.OpaqueLoc != (pylib.Span{}) {
			at = def.OpaqueLoc.Start
		}
		return nil, lineCol(file, text, at) + ": " + why
	}
	flow, diags := analysis.PythonFlow(file, text, def, st.p.Configuration)
	for _, d := range diags {
		if d.Severity == ir.Error {
			return nil, fmt.Sprintf("%s: %s", lineCol(file, text, d.Loc.Start), d.Message)
		}
	}
	if flow == nil || strings.TrimSpace(flow.SQL) == "" {
		return nil, ""
	}
	return flow, ""
}

// needsColumns reports whether flow f of a Python file is opaque only
// because a step needs its input's columns (pylib.Definition.NeedsColumns),
// which the run gives.
func (st *runState) needsColumns(f *ir.Flow) bool {
	file := f.QueryLoc.File
	b, err := os.ReadFile(filepath.Join(st.s.Root, filepath.FromSlash(file)))
	if err != nil {
		return false
	}
	pf, err := pylib.ParseWith(file, string(b), pylib.Options{Conf: st.p.Configuration, Module: analysis.PythonModules(st.s.Root, file, nil)})
	if err != nil {
		return false
	}
	def := pythonDef(&pf, f)
	return def != nil && def.NeedsColumns
}

// pythonDef is the definition of a parsed file that flow f stands for.
func pythonDef(pf *pylib.File, f *ir.Flow) *pylib.Definition {
	for i := range pf.Definitions {
		d := &pf.Definitions[i]
		if d.Name == f.Name && ir.NameKey(d.Owner()) == ir.NameKey(f.Target) && d.Loc.Start == f.QueryLoc.Start {
			return d
		}
	}
	for i := range pf.Definitions {
		d := &pf.Definitions[i]
		if d.Name == f.Name && ir.NameKey(d.Owner()) == ir.NameKey(f.Target) {
			return d
		}
	}
	return nil
}

// inputColumns are the column names of an input of flow f's Python body
// as Spark gives them: a dataset's or a source's relation of the run, or,
// for a load of files, its sample read as Spark's reader infers it (JSON,
// CSV) or as DuckDB reads it (Parquet, the formats Auto Loader reads);
// nil when the run does not know them.
func (st *runState) inputColumns(ctx context.Context, f *ir.Flow, in pylib.Input) []string {
	cat := &duckCatalog{ctx: ctx, conn: st.conn, cols: map[string][]sema.Column{}, run: st}
	names := func(cols []sema.Column) []string {
		out := make([]string, len(cols))
		for i, c := range cols {
			out[i] = c.Name
		}
		return out
	}
	if in.Load == nil {
		if in.Table == "" {
			return nil
		}
		if cols, ok := cat.Table(strings.Split(in.Table, ".")); ok && len(cols) > 0 {
			return names(cols)
		}
		return nil
	}
	var src *ir.Source
	for _, ref := range f.Reads {
		if ref.Path == in.Load.Path {
			src = st.p.Source(ref.Name)
			break
		}
	}
	if src == nil || src.Sample == "" {
		return nil
	}
	format := strings.ToLower(in.Load.Format)
	if format == "cloudfiles" {
		format = "" // Auto Loader's own reading: the sample as the run reads it
	}
	fn, pattern, err := st.s.reader(src.Sample)
	if err != nil {
		return nil
	}
	switch format {
	case "json", "csv":
		data, err := st.s.loadSampleBytes(pattern)
		if err != nil {
			return nil
		}
		var fields []pylib.Field
		if format == "json" {
			fields, err = pylib.InferJSON(data, in.Load.Options)
		} else {
			var o pylib.CSVOptions
			if o, err = pylib.CSVReading(in.Load.Options); err == nil {
				fields, err = pylib.InferCSV(data, o)
			}
		}
		if err != nil || len(fields) == 0 {
			return nil
		}
		out := make([]string, len(fields))
		for i, fl := range fields {
			out[i] = fl.Name
		}
		return out
	}
	rows, err := st.conn.QueryContext(ctx, "DESCRIBE SELECT * FROM "+fn+"("+quoteString(pattern)+")")
	if err != nil {
		return nil
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n, t string
		var rest [4]sql.NullString
		if rows.Scan(&n, &t, &rest[0], &rest[1], &rest[2], &rest[3]) != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}
