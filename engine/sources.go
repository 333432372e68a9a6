package engine

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/pylib"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/ir"
)

// sampleFormats maps a sample file's extension to the DuckDB reader.
var sampleFormats = map[string]string{
	".csv":     "read_csv_auto",
	".tsv":     "read_csv_auto",
	".json":    "read_json_auto",
	".ndjson":  "read_json_auto",
	".jsonl":   "read_json_auto",
	".parquet": "read_parquet",
}

// reader returns the DuckDB table function reading a sample path (a file,
// a glob, or a folder's files) and the pattern it reads: a path in the
// session's mirror (samples.go), made current here from the files Thund
// checked.
func (s *Session) reader(sample string) (fn, pattern string, err error) {
	rel := path.Clean(filepath.ToSlash(sample))
	if path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", "", fmt.Errorf("%w: %s is not inside the pipeline folder", ErrSamplePath, sample)
	}
	abs := filepath.Join(s.Root, filepath.FromSlash(rel))
	if fi, statErr := os.Stat(abs); statErr == nil && fi.IsDir() {
		// The folder itself first: never list a folder outside the root.
		realDir, _, err := s.checkedFile(rel)
		if err != nil {
			return "", "", err
		}
		files, err := BatchFiles(realDir)
		if err != nil {
			return "", "", err
		}
		if len(files) == 0 {
			return "", "", fmt.Errorf("sample folder %s holds no .csv, .json, .ndjson or .parquet file", sample)
		}
		ext := strings.ToLower(filepath.Ext(files[0]))
		rels := make([]string, len(files))
		for i, f := range files {
			// One reader reads the folder: files of another format would
			// be silently left out.
			if other := strings.ToLower(filepath.Ext(f)); other != ext {
				return "", "", fmt.Errorf("sample folder %s mixes %s files (%s) with %s files (%s); keep one format per folder", sample, ext, filepath.Base(files[0]), other, filepath.Base(f))
			}
			rels[i] = path.Join(rel, filepath.Base(f))
		}
		dir := s.mirrorPath(rel)
		if err := s.mirrorFiles(rels, filepath.Join(dir, "*")); err != nil {
			return "", "", err
		}
		return sampleFormats[ext], filepath.Join(dir, "*"+ext), nil
	}
	ext := strings.ToLower(path.Ext(sample))
	fn, ok := sampleFormats[ext]
	if !ok {
		return "", "", fmt.Errorf("sample %s: unknown format %q; use .csv, .json, .ndjson or .parquet", sample, ext)
	}
	if strings.ContainsAny(rel, "*?[") {
		matches, err := filepath.Glob(abs)
		if err != nil {
			return "", "", fmt.Errorf("sample %s: %w", sample, err)
		}
		var rels []string
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.IsDir() {
				continue
			}
			rels = append(rels, s.relOf(m))
		}
		if err := s.mirrorFiles(rels, s.mirrorPath(rel)); err != nil {
			return "", "", err
		}
		return fn, s.mirrorPath(rel), nil
	}
	if err := s.mirrorFiles([]string{rel}, ""); err != nil {
		return "", "", err
	}
	return fn, s.mirrorPath(rel), nil
}

// A folder sample that a Python load of CSV files reads, a batch read of
// the directory (spark.read.csv(dir)) or a stream of its micro-batch
// files (spark.readStream...csv(dir)), is read with the load's reader
// options as a single file is (LoadReading): Spark's CSV reader takes a
// first line for a header only when the load says header, so without it
// the columns are _c0, _c1, ... and each file's first line is a row.
// DuckDB's read_csv_auto would guess a header instead. Checked on Spark
// 4.1.4: spark.read.csv of a folder of two files with a header line each
// gives _c0, _c1 STRING and both header lines as rows; with header, each
// file's first line is its header; a readStream with a schema and no
// header, to a memory sink under availableNow, gives the header lines as
// rows too.

// folderReadings maps the mirror folder of a stream's folder sample to
// the options (after the files argument) of the read_csv call that reads
// it as its Python load does, for the micro-batch reads of readCall.
var folderReadings sync.Map

// sampleReading is LoadReading, and for a folder sample (src.Stream) the
// reading of folderLoadReading: the call reading src's sample as the
// Python load that reads it does, "" when it is read as DuckDB reads it.
func (s *Session) sampleReading(p *ir.Pipeline, src *ir.Source) (string, error) {
	if !src.Stream {
		return s.LoadReading(p, src)
	}
	return s.folderLoadReading(p, src)
}

// folderLoadReading is the read_csv call over every file of src's folder
// sample that reads them as the Python loads of CSV files that read src
// do, batch or stream ("" when none does; loads that read it otherwise
// are an error), recording the options for the micro-batch reads of a
// stream (folderReadings). With header and inferSchema the schema is
// inferred over the files without their header lines
// (headedFolderReading).
func (s *Session) folderLoadReading(p *ir.Pipeline, src *ir.Source) (string, error) {
	what := "source " + src.Name
	l, file, text, err := s.pythonLoad(p, src)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	sl, sfile, stext, err := s.streamingLoad(p, src)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	switch {
	case l == nil:
		l, file, text = sl, sfile, stext
	case sl != nil && !sameReading(l, sl):
		return "", fmt.Errorf("%s: the loads at %s and %s read %s with other formats, options or schemas, and the native engine reads its sample %s one way: load it once (a temporary view) and read that",
			what, lineCol(file, text, l.Loc.Start), lineCol(sfile, stext, sl.Loc.Start), l.Path, src.Sample)
	}
	dir := s.mirrorPath(path.Clean(filepath.ToSlash(src.Sample)))
	folderReadings.Delete(dir)
	if l == nil || !strings.EqualFold(l.Format, "csv") {
		return "", nil
	}
	var call string
	if o, oerr := pylib.CSVReading(l.Options); oerr == nil && o.Header && o.InferSchema && l.Schema == "" {
		call, err = s.headedFolderReading(src.Sample, what, o)
	} else {
		call, err = s.loadReading(src.Sample, what, l, file, text)
	}
	if err != nil || call == "" {
		return call, err
	}
	_, pattern, err := s.reader(src.Sample)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if opts, ok := strings.CutPrefix(call, "read_csv("+quoteString(pattern)+", "); ok {
		folderReadings.Store(filepath.Dir(pattern), strings.TrimSuffix(opts, ")"))
	}
	return call, nil
}

// headedFolderReading is the read_csv call over the files of a folder
// sample that a load with header and inferSchema (options o) reads: the
// schema Spark infers from every file's rows, each file's first line
// being its header, so the header lines after the first file's are no
// rows of the inference. Files whose headers differ keep DuckDB's reading
// ("": it reads them by name, which Thund does not state as Spark's).
func (s *Session) headedFolderReading(sample, what string, o pylib.CSVOptions) (string, error) {
	_, pattern, err := s.reader(sample)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		return "", nil
	}
	sort.Strings(files)
	var data []byte
	header := ""
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("%s (%s): read the sample: %w", what, sample, s.scrubbed(err))
		}
		first, rest, _ := strings.Cut(string(b), "\n")
		first = strings.TrimSuffix(first, "\r")
		body := string(b)
		switch {
		case i == 0:
			header = first
		case first != header:
			return "", nil
		default:
			body = rest
		}
		data = append(data, body...)
		if len(body) > 0 && !strings.HasSuffix(body, "\n") {
			data = append(data, '\n')
		}
		if len(data) > maxLoadSample {
			return "", fmt.Errorf("%s: the sample %s is over %d MiB; keep a sample small", what, sample, maxLoadSample>>20)
		}
	}
	fields, err := pylib.InferCSV(data, o)
	if err != nil {
		return "", fmt.Errorf("%s (%s): %w", what, sample, err)
	}
	if len(fields) == 0 {
		return "", fmt.Errorf("%s: %s holds no CSV line", what, sample)
	}
	nulls := "['']"
	if o.NullValue != "" {
		nulls = "[" + quoteString(o.NullValue) + ", '']"
	}
	return "read_csv(" + quoteString(pattern) + ", header = true, delim = " + quoteString(o.Sep) + ", quote = '\"', auto_detect = false, null_padding = true, nullstr = " + nulls +
		", columns = " + duckColumns(fields) + ", union_by_name = true)", nil
}

// streamingLoad returns the streaming load (spark.readStream) of a Python
// file that reads source src by path, the file and its text, as
// pythonLoad does for batch loads; nil when none does. Loads that read
// src with other options are an error: the native engine reads one
// sample one way.
func (s *Session) streamingLoad(p *ir.Pipeline, src *ir.Source) (*pylib.Load, string, string, error) {
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
			if ref.Path == "" || !ref.Streaming || ir.NameKey(ref.Name) != key {
				continue
			}
			file := f.QueryLoc.File
			pf, ok := parsed[file]
			if !ok {
				b, err := os.ReadFile(filepath.Join(s.Root, filepath.FromSlash(file)))
				if err != nil {
					return nil, "", "", fmt.Errorf("read %s: %w", file, err)
				}
				if pf, err = pylib.ParseWith(file, string(b), pylib.Options{Conf: p.Configuration}); err != nil {
					return nil, "", "", fmt.Errorf("read %s: %w", file, err)
				}
				parsed[file], texts[file] = pf, string(b)
			}
			for _, l := range streamingLoadsOf(pf, f.Name, ref.Path) {
				if first == nil {
					first, firstFile, firstText = l, file, texts[file]
				} else if !sameReading(first, l) {
					return nil, "", "", fmt.Errorf("the loads at %s and %s read %s with other formats, options or schemas, and the native engine reads its sample %s one way: load it once (a temporary view) and read that",
						lineCol(firstFile, firstText, first.Loc.Start), lineCol(file, texts[file], l.Loc.Start), ref.Path, src.Sample)
				}
			}
		}
	}
	return first, firstFile, firstText, nil
}

// streamingLoadsOf are the streaming loads of path in the definition
// named name of pf.
func streamingLoadsOf(pf pylib.File, name, path string) []*pylib.Load {
	var out []*pylib.Load
	for i := range pf.Definitions {
		def := &pf.Definitions[i]
		if def.Name != name || def.Query == nil {
			continue
		}
		for j := range def.Query.Loads {
			if l := &def.Query.Loads[j]; l.Path == path && l.Streaming {
				out = append(out, l)
			}
		}
	}
	return out
}

// folderReading returns the read_csv options recorded for the stream
// folder a reader argument reads (folderReadings).
func folderReading(arg string) (string, bool) {
	files := splitQuoted(arg)
	if len(files) == 0 {
		return "", false
	}
	v, ok := folderReadings.Load(filepath.Dir(files[0]))
	if !ok {
		return "", false
	}
	return v.(string), true
}

// readCall is the SQL calling reader fn over what arg names (a quoted
// pattern, or a list of quoted paths), with extra arguments. CSV rows
// shorter than the header are padded with NULLs, as Spark's permissive
// reader does; without it DuckDB's sniffer reads a file with one short
// row as a single text column. A CSV file's column types are sniffed
// from every row (sample_size = -1), as Spark's schema inference reads
// every row (samplingRatio 1.0): a column whose later rows do not fit
// the type of its first ones (a date written another way, a word among
// numbers) is text, as Spark infers it, rather than a conversion error
// when the run reads past the rows DuckDB sniffed.
//
// A stream folder of a read of files (registered by registerFileRead) read
// with a file-name column (the streaming run's micro-batches) is read with
// its metadata column too: the call is then a subquery.
func readCall(fn, arg string, extra ...string) string {
	if fn == "read_csv_auto" {
		// A stream folder a Python load reads: as the load reads it.
		if opts, ok := folderReading(arg); ok {
			return "read_csv(" + strings.Join(append([]string{arg, opts}, extra...), ", ") + ")"
		}
	}
	for _, e := range extra {
		keep, ok := strings.CutPrefix(e, "filename = ")
		if !ok {
			continue
		}
		if fm, ok := streamMeta(arg); ok {
			if names := splitQuoted(keep); len(names) == 1 {
				return "(" + fm.metadataRead(fn, arg, fm.has, names[0], extra...) + ")"
			}
		}
	}
	return plainReadCall(fn, arg, extra...)
}

// plainReadCall is readCall without the metadata of a read of files.
func plainReadCall(fn, arg string, extra ...string) string {
	args := append([]string{arg}, extra...)
	if strings.Contains(arg, "*") {
		// A folder's files, read as one table: a batch that adds a column
		// leaves it NULL in the others, instead of failing the read.
		args = append(args, "union_by_name = true")
	}
	if fn == "read_json_auto" {
		if c := jsonColumnsArg(arg); c != "" {
			// Spark's inferred schema of a SQL read of JSON files
			// (fileread_json.go).
			args = append(args, c)
		}
	}
	if fn == "read_csv_auto" {
		args = append(args, "null_padding = true", "sample_size = -1")
		if spark, convert, ok := csvReadArgs(arg); ok {
			// The names and types Spark's inference gives the files
			// (csvinfer.go), timestamps converted by a SELECT.
			call := fn + "(" + strings.Join(append(args, spark...), ", ") + ")"
			if convert == "" {
				return call
			}
			return "(SELECT " + convert + " FROM " + call + ")"
		}
		if t := textTypes(arg); t != "" {
			// Dates written more than one way: text, as Spark infers
			// them (csvcheck.go).
			args = append(args, t)
		}
	}
	return fn + "(" + strings.Join(args, ", ") + ")"
}

// BatchFiles lists the micro-batch files of a sample folder in name order
// (files of a known sample format only; hidden files are skipped).
func BatchFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read sample folder: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if _, ok := sampleFormats[strings.ToLower(filepath.Ext(e.Name()))]; ok {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}

// registerSources defines each source with a sample as a view over its
// files, so every run reads the samples as they are now.
func (st *runState) registerSources(ctx context.Context) error {
	for _, src := range st.p.Sources {
		if src.Sample == "" {
			continue
		}
		if err := st.registerSource(ctx, src); err != nil {
			if ctx.Err() != nil {
				return err
			}
			// A sample that cannot be read fails the datasets that read
			// it (sourceError), not the whole run.
			if st.badSources == nil {
				st.badSources = map[string]error{}
			}
			st.badSources[ir.NameKey(src.Name)] = err
		}
	}
	return nil
}

func (st *runState) registerSource(ctx context.Context, src *ir.Source) error {
	materialise := !src.Stream && st.reading[ir.NameKey(src.Name)]
	call, err := st.s.sampleReading(st.p, src)
	if err != nil {
		return err
	}
	if call != "" {
		return st.registerLoad(ctx, relationName(src.Name), call, materialise, "source "+src.Name, src.Sample)
	}
	fm, ok := st.s.fileReadOf(st.p, src)
	if !ok {
		fileMetaRels.Delete(metaKey(st.s, src.Name))
		fileMetas.Delete(st.s.mirrorPath(path.Clean(filepath.ToSlash(src.Sample))))
		return st.registerSample(ctx, relationName(src.Name), src.Sample, materialise, "source "+src.Name)
	}
	return st.registerSampleAs(ctx, relationName(src.Name), src.Sample, materialise, "source "+src.Name, &fm, src.Name)
}

// registerSample defines the relation rel as the rows of sample: a view
// over its files, or, when materialise is set and the sample is text, a
// table read once per run (a text sample the run's flows read is parsed
// once, not once per reader; Parquet stays a view, whose readers read
// only the columns and row groups they need). what names the sample in
// errors (source x, stand-in sample of y).
func (st *runState) registerSample(ctx context.Context, rel, sample string, materialise bool, what string) error {
	return st.registerSampleAs(ctx, rel, sample, materialise, what, nil, "")
}

// registerSampleAs is registerSample, for the source named src that a
// read of files stands for when fm is set: its rows then carry the
// metadata column (and the rescued-data column fm asks for).
func (st *runState) registerSampleAs(ctx context.Context, rel, sample string, materialise bool, what string, fm *fileMeta, src string) error {
	fn, pattern, err := st.s.reader(sample)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	st.s.noteFileReadColumns(st.p, src, fn, pattern)
	if st.res != nil {
		st.res.SampleWarnings = append(st.res.SampleWarnings, st.s.jsonSampleWarnings(st.p, src, fn, pattern)...)
	}
	if fn == "read_csv_auto" {
		warnings, err := st.s.checkCSVSample(sample)
		if st.res != nil {
			st.res.SampleWarnings = append(st.res.SampleWarnings, warnings...)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if st.s.autoLoaderText(st.p, src) {
			st.s.csvAllText(pattern)
		}
	}
	name := quoteIdent(rel)
	body := "SELECT * FROM " + readCall(fn, quoteString(pattern))
	if fm != nil {
		if b, ok := st.s.fileReadBody(ctx, st.conn, fn, pattern, sample, fm, metaKey(st.s, src)); ok {
			body = b
		}
	}
	q := fmt.Sprintf("CREATE OR REPLACE VIEW %s AS %s", name, body)
	if fn != "read_parquet" && materialise {
		st.conn.ExecContext(ctx, "DROP VIEW IF EXISTS "+name)
		q = fmt.Sprintf("CREATE OR REPLACE TABLE %s AS %s", name, body)
	} else {
		st.conn.ExecContext(ctx, "DROP TABLE IF EXISTS "+name)
	}
	if _, err := st.conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s (%s): %w", what, sample, sampleReadError(st.s.scrubbed(explain(err)), sample, rel))
	}
	return nil
}

// sourceError returns the error of a sample that d's flows read and that
// could not be registered, or nil.
func (st *runState) sourceError(d *ir.Dataset) error {
	if len(st.badSources) == 0 {
		return nil
	}
	for _, f := range st.p.FlowsInto(d.Name) {
		for _, ref := range f.Reads {
			if err, ok := st.badSources[ir.NameKey(ref.Name)]; ok && st.p.Resolve(ref.Name) == nil {
				return &flowError{f.Name, err}
			}
		}
	}
	return nil
}

// streamSourceFolder returns the sample folder a streaming flow reads
// micro-batches from ("" when its streams have no folder sample).
func (st *runState) streamSourceFolder(f *ir.Flow) string {
	for _, r := range f.Reads {
		if !r.Streaming && (f.Source == nil || ir.NameKey(r.Name) != ir.NameKey(f.Source.Table)) {
			continue
		}
		if src := st.p.Source(r.Name); src != nil && src.Stream {
			return src.Sample
		}
	}
	return ""
}

// A read of files (read_files(...), cloud_files(...), json.`path`)
// stands for a source whose sample the native run reads. Spark gives such
// a read the hidden column _metadata (sema.FileMetadata): natively its
// values are the sample file's, file_path the file's file:// URI in the
// pipeline folder, where Spark gives the path the pipeline reads. The
// rows of such a source carry it as a DuckDB column of that name, which
// the translator leaves out of * (the catalog says it is hidden,
// duckCatalog.Hidden). A read that asks for a rescued-data column
// (rescuedDataColumn) gets that column too: a STRING, NULL on every row,
// since natively the schema is inferred from the sample itself and no
// field is left over.

// fileNameCol is the column DuckDB's reader names each row's file in,
// for the metadata; it never leaves the source's SQL.
const fileNameCol = "__thund_fn"

// fileMeta says how the rows of one file-read source are read: with the
// metadata column unless the data has a column of that name, and with a
// rescued-data column when one is asked for.
type fileMeta struct {
	root, mirror string
	// rescued is the rescued-data column a read names ("" for none);
	// hiddenRescued says a read gets Databricks' default one, hidden
	// natively (analysis.RescuedColumn).
	rescued       string
	hiddenRescued bool
	// has holds the data's own columns, lower-cased.
	has map[string]bool
}

// fileMetas maps a sample folder's mirror path (a stream of micro-batch
// files, read by the streaming run through readCall) to its fileMeta;
// fileMetaRels holds, by session mirror and relation name, the relations
// that carry the hidden column.
var fileMetas, fileMetaRels sync.Map

// fileReadOf returns how the rows of src are read when a read of files
// of p stands for it (ok false when none does).
func (s *Session) fileReadOf(p *ir.Pipeline, src *ir.Source) (fm fileMeta, ok bool) {
	key := ir.NameKey(src.Name)
	for _, f := range p.Flows {
		for _, r := range f.Reads {
			if r.Path == "" || ir.NameKey(r.Name) != key {
				continue
			}
			ok = true
			name, hidden := s.rescuedColumn(r)
			if hidden && checksDatabricks(p) {
				// On Databricks * of such a read holds the default
				// rescued-data column too.
				hidden = false
			}
			switch {
			case name == "":
			case !hidden && fm.rescued == "":
				fm.rescued = name
			case hidden:
				fm.hiddenRescued = true
			}
		}
	}
	fm.root, fm.mirror = s.Root, s.mirror
	return fm, ok
}

// checksDatabricks reports whether p is a Databricks pipeline: checked
// against the databricks backend (dialect databricks in thund.yaml, or
// --backend databricks). Its reads of files give Databricks' default
// rescued-data column in *, as Databricks does.
func checksDatabricks(p *ir.Pipeline) bool {
	for _, b := range p.Backends {
		if b == ir.Databricks {
			return true
		}
	}
	return false
}

// rescuedColumn returns the rescued-data column of a read of files
// (analysis.RescuedColumn), read from the call as written; "" when it
// has none or the file cannot be read.
func (s *Session) rescuedColumn(r ir.Ref) (string, bool) {
	if r.Loc.File == "" || r.Loc.End <= r.Loc.Start {
		return "", false
	}
	text, err := os.ReadFile(filepath.Join(s.Root, filepath.FromSlash(r.Loc.File)))
	if err != nil || r.Loc.End > len(text) {
		return "", false
	}
	return analysis.RescuedColumn(string(text[r.Loc.Start:r.Loc.End]))
}

// metadataRead is the SELECT of the rows reader fn reads from arg (a
// quoted pattern or a list of quoted mirror paths), with the metadata
// column (unless has says the data has one) and the rescued-data column
// fm asks for (unless the data has it). When keep names the reader's
// file-name column the caller asked for, that column stays; otherwise
// the metadata's own file-name column is dropped.
func (fm fileMeta) metadataRead(fn, arg string, has map[string]bool, keep string, extra ...string) string {
	col := keep
	if col == "" {
		col = fileNameCol
		extra = append(extra, "filename = "+quoteString(col))
	}
	sel := "*"
	if keep == "" {
		sel = "* EXCLUDE (" + quoteIdent(col) + ")"
	}
	if !has["_metadata"] {
		sel += ", " + fm.metadataExpr(col, mirrorFiles(arg)) + " AS " + quoteIdent("_metadata")
	}
	if fm.rescued != "" && !has[strings.ToLower(fm.rescued)] {
		sel += ", CAST(NULL AS VARCHAR) AS " + quoteIdent(fm.rescued)
	}
	if fm.hiddenRescued && fm.rescued == "" && !has[analysis.RescuedData.Name] {
		sel += ", CAST(NULL AS VARCHAR) AS " + quoteIdent(analysis.RescuedData.Name)
	}
	return "SELECT " + sel + " FROM " + plainReadCall(fn, arg, extra...)
}

// metadataExpr is the _metadata value of a row whose file (a mirror path)
// is in column col: one struct per file, as Spark's fields, NULL for a
// file not in files.
func (fm fileMeta) metadataExpr(col string, files []string) string {
	var b strings.Builder
	b.WriteString("CASE " + quoteIdent(col))
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			continue
		}
		b.WriteString(" WHEN " + quoteString(f) + " THEN " + fm.fileStruct(f, fi.Size(), fi.ModTime()))
	}
	b.WriteString(" ELSE CAST(NULL AS " + metadataType + ") END")
	return b.String()
}

// metadataType is DuckDB's type of the metadata column.
const metadataType = "STRUCT(file_path VARCHAR, file_name VARCHAR, file_size BIGINT, file_block_start BIGINT, " +
	"file_block_length BIGINT, file_modification_time TIMESTAMP)"

// fileStruct is the metadata of the sample file mirrored at f: its path
// as a file:// URI in the pipeline folder, its name, its size as the one
// block Spark reads of a small file, and its modification time in UTC
// (a TIMESTAMP holds UTC wall-clock time natively).
func (fm fileMeta) fileStruct(f string, size int64, mod time.Time) string {
	real := f
	if rel, err := filepath.Rel(fm.mirror, f); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		real = filepath.Join(fm.root, rel)
	}
	n := strconv.FormatInt(size, 10)
	return "CAST({'file_path': " + quoteString(FileURI(real)) +
		", 'file_name': " + quoteString(filepath.Base(real)) +
		", 'file_size': " + n + ", 'file_block_start': 0, 'file_block_length': " + n +
		", 'file_modification_time': " + quoteString(mod.UTC().Format("2006-01-02 15:04:05.999999")) +
		"} AS " + metadataType + ")"
}

// FileURI is the path Spark's _metadata.file_path gives a local file at
// abs: Hadoop's URI of it, file: and the absolute path, escaped
// (file:/tmp/my%20dir/a.json; checked on Spark 4.1.4).
func FileURI(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return "file:" + (&url.URL{Path: p}).EscapedPath()
}

// mirrorFiles returns the files a reader argument names: the files a
// quoted pattern matches, or the quoted paths of a list.
func mirrorFiles(arg string) []string {
	arg = strings.TrimSpace(arg)
	var quoted []string
	if strings.HasPrefix(arg, "[") {
		quoted = splitQuoted(strings.TrimSuffix(strings.TrimPrefix(arg, "["), "]"))
	} else {
		quoted = splitQuoted(arg)
	}
	var out []string
	for _, q := range quoted {
		if strings.ContainsAny(q, "*?[") {
			m, _ := filepath.Glob(q)
			out = append(out, m...)
			continue
		}
		out = append(out, q)
	}
	return out
}

// splitQuoted returns the SQL string literals of s, a comma-separated
// list of them, unquoted.
func splitQuoted(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '\'' {
			continue
		}
		var b strings.Builder
		j := i + 1
		for ; j < len(s); j++ {
			if s[j] == '\'' {
				if j+1 < len(s) && s[j+1] == '\'' {
					b.WriteByte('\'')
					j++
					continue
				}
				break
			}
			b.WriteByte(s[j])
		}
		out = append(out, b.String())
		i = j
	}
	return out
}

// streamMeta returns the fileMeta of the stream folder a reader argument
// reads, registered by registerFileRead.
func streamMeta(arg string) (fileMeta, bool) {
	files := splitQuoted(arg)
	if len(files) == 0 {
		return fileMeta{}, false
	}
	v, ok := fileMetas.Load(filepath.Dir(files[0]))
	if !ok {
		return fileMeta{}, false
	}
	return v.(fileMeta), true
}

// dataColumns returns, lower-cased, the columns reader fn reads from the
// pattern, for a check of the names the metadata would take.
func dataColumns(ctx context.Context, conn *sql.Conn, fn, pattern string) (map[string]bool, error) {
	rows, err := conn.QueryContext(ctx, "SELECT column_name FROM (DESCRIBE SELECT * FROM "+plainReadCall(fn, quoteString(pattern))+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	has := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		has[strings.ToLower(n)] = true
	}
	return has, rows.Err()
}

// fileReadBody is the SELECT of a file-read source's rows with its
// metadata, recording under key that the source's relation carries it;
// ok is false when the sample's columns cannot be read (the plain read
// then says why).
func (s *Session) fileReadBody(ctx context.Context, conn *sql.Conn, fn, pattern, sample string, fm *fileMeta, key string) (string, bool) {
	has, err := dataColumns(ctx, conn, fn, pattern)
	if err != nil {
		fileMetaRels.Delete(key)
		return "", false
	}
	fm.has = has
	if fi, err := os.Stat(filepath.Join(s.Root, filepath.FromSlash(sample))); err == nil && fi.IsDir() {
		fileMetas.Store(filepath.Dir(pattern), *fm)
	} else {
		fileMetas.Delete(s.mirrorPath(path.Clean(filepath.ToSlash(sample))))
	}
	fileMetaRels.Store(key, fm.hidden())
	return fm.metadataRead(fn, quoteString(pattern), has, ""), true
}

// FileReadCall is, for the Describer, the relation SQL of source src of p
// that reader fn reads from pattern: as the run reads it, with the
// metadata column when a read of files stands for it (a subquery), else
// the plain read. The Describer's catalog then says the column is hidden
// (duckCatalog.Hidden, by the connection).
func (d *Describer) FileReadCall(ctx context.Context, p *ir.Pipeline, src *ir.Source, fn, pattern string) string {
	key := connKey(d.conn, d.rel(src.Name))
	fm, ok := d.s.fileReadOf(p, src)
	if ok {
		if body, ok := d.s.fileReadBody(ctx, d.conn, fn, pattern, src.Sample, &fm, key); ok {
			return "(" + body + ")"
		}
	}
	fileMetaRels.Delete(key)
	return readCall(fn, quoteString(pattern))
}

// connKey is the key in fileMetaRels of relation rel of a Describer's
// connection.
func connKey(conn *sql.Conn, rel string) string {
	return fmt.Sprintf("%p\x00%s", conn, strings.ToLower(rel))
}

// hidden returns the hidden columns the rows of fm's source carry.
func (fm fileMeta) hidden() []sema.Column {
	var out []sema.Column
	if !fm.has["_metadata"] {
		out = append(out, sema.FileMetadata)
	}
	if fm.hiddenRescued && fm.rescued == "" && !fm.has[analysis.RescuedData.Name] {
		out = append(out, analysis.RescuedData)
	}
	return out
}

// metaKey is the key of source src of session s in fileMetaRels.
func metaKey(s *Session, src string) string { return s.mirror + "\x00" + ir.NameKey(src) }

// Hidden implements sema.HiddenCatalog: the relation of a file-read
// source registered with the metadata column has it hidden.
func (c *duckCatalog) Hidden(name []string) []sema.Column {
	if len(name) == 0 {
		return nil
	}
	if c.run == nil {
		if v, ok := fileMetaRels.Load(connKey(c.conn, c.rels.read(name, c.use))); ok {
			return v.([]sema.Column)
		}
		return nil
	}
	p := c.run.p
	full := strings.Join(name, ".")
	if p.Resolve(full) != nil {
		return nil
	}
	src := p.Source(full)
	if src == nil {
		src = p.Source(name[len(name)-1])
	}
	if src == nil {
		return nil
	}
	if v, ok := fileMetaRels.Load(metaKey(c.run.s, src.Name)); ok {
		return v.([]sema.Column)
	}
	return nil
}
