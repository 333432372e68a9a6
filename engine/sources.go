package engine

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

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
func readCall(fn, arg string, extra ...string) string {
	args := append([]string{arg}, extra...)
	if strings.Contains(arg, "*") {
		// A folder's files, read as one table: a batch that adds a column
		// leaves it NULL in the others, instead of failing the read.
		args = append(args, "union_by_name = true")
	}
	if fn == "read_csv_auto" {
		args = append(args, "null_padding = true", "sample_size = -1")
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
	call, err := st.s.LoadReading(st.p, src)
	if err != nil {
		return err
	}
	if call != "" {
		return st.registerLoad(ctx, relationName(src.Name), call, materialise, "source "+src.Name, src.Sample)
	}
	return st.registerSample(ctx, relationName(src.Name), src.Sample, materialise, "source "+src.Name)
}

// registerSample defines the relation rel as the rows of sample: a view
// over its files, or, when materialise is set and the sample is text, a
// table read once per run (a text sample the run's flows read is parsed
// once, not once per reader; Parquet stays a view, whose readers read
// only the columns and row groups they need). what names the sample in
// errors (source x, stand-in sample of y).
func (st *runState) registerSample(ctx context.Context, rel, sample string, materialise bool, what string) error {
	fn, pattern, err := st.s.reader(sample)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if fn == "read_csv_auto" {
		warnings, err := st.s.checkCSVSample(sample)
		if st.res != nil {
			st.res.SampleWarnings = append(st.res.SampleWarnings, warnings...)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	name := quoteIdent(rel)
	q := fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM %s", name, readCall(fn, quoteString(pattern)))
	if fn != "read_parquet" && materialise {
		st.conn.ExecContext(ctx, "DROP VIEW IF EXISTS "+name)
		q = fmt.Sprintf("CREATE OR REPLACE TABLE %s AS SELECT * FROM %s", name, readCall(fn, quoteString(pattern)))
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
