package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/pylib"
	"github.com/thund-dev/thund/ir"
)

// A read of JSON files written in SQL (read_files(..., format => 'json'),
// cloud_files(path, 'json'), json.`path`) gets the columns Spark's reader
// infers from the same files, as a Python load of them does
// (pylib.InferJSON, checked against Spark 4.1.4): fields ordered by name,
// integers BIGINT, strings STRING however they look (DuckDB's reader
// detects dates and timestamps in them and keeps the file's order).
// Auto Loader (cloud_files) without cloudFiles.inferColumnTypes reads
// every column as a STRING, as Databricks documents.
//
// jsonColumns maps each mirrored file of such a sample to the `columns`
// argument of its reads; plainReadCall adds it to every read_json_auto
// call over those files, batch, folder or micro-batch alike.
var jsonColumns sync.Map // mirrored file path -> "columns = {...}"

// noteFileReadColumns records (or forgets) the columns the JSON files of
// source src's sample, which reader fn reads from pattern, are read with:
// noted when the pipeline's SQL reads the source as files whose schema
// is inferred with options Thund knows (no schema given, no computed
// option, every read of it alike); forgotten otherwise, so DuckDB's
// reader types the rows as before.
func (s *Session) noteFileReadColumns(p *ir.Pipeline, src, fn, pattern string) {
	files := mirrorFiles(quoteString(pattern))
	cols := ""
	if fn == "read_json_auto" {
		cols = s.sparkJSONColumns(p, src, pattern)
	}
	for _, f := range files {
		if cols == "" {
			jsonColumns.Delete(f)
		} else {
			jsonColumns.Store(f, cols)
		}
	}
}

// sparkJSONColumns is the columns argument for the JSON sample of src at
// pattern, "" when its SQL reads do not say how to infer it.
func (s *Session) sparkJSONColumns(p *ir.Pipeline, src, pattern string) string {
	fr, ok := s.sqlFileRead(p, src)
	if !ok {
		// A Python Auto Loader load of JSON (format("cloudFiles") with
		// cloudFiles.format json): Auto Loader's inference, as
		// cloud_files(path, 'json') has it.
		if l, _, _, err := s.pythonLoadOf(p, &ir.Source{Name: src}, true); err == nil && l != nil &&
			strings.EqualFold(l.CloudFormat, "json") && l.Schema == "" && l.Computed == "" {
			fr, ok = analysis.FileRead{Format: "json", AutoLoader: true, Options: l.Options}, true
		}
	}
	if !ok && namedOnly(p, src) {
		// A source table read by name: its JSON sample stands for a
		// table Spark reads with the JSON reader's default options
		// (parity.SampleTable: USING json), so its schema is Spark's
		// inference too.
		fr, ok = analysis.FileRead{Format: "json", Options: map[string]string{}}, true
	}
	if !ok || fr.Schema || fr.Computed || (fr.Format != "" && fr.Format != "json") {
		return ""
	}
	data, err := s.loadSampleBytes(pattern)
	if err != nil {
		return ""
	}
	fields, err := pylib.InferJSON(data, fr.Options)
	if err != nil || len(fields) == 0 {
		return ""
	}
	for _, f := range fields {
		if f.Name == pylib.CorruptRecord {
			return ""
		}
	}
	if !fr.InfersColumnTypes() {
		for i := range fields {
			fields[i].Type = &pylib.Type{Kind: "string"}
		}
	}
	return "columns = " + duckColumns(fields)
}

// namedOnly reports whether every read of source src in p is a read of
// the table by name (no read of files, no Python load by path).
func namedOnly(p *ir.Pipeline, src string) bool {
	key := ir.NameKey(src)
	for _, f := range p.Flows {
		for _, r := range f.Reads {
			if ir.NameKey(r.Name) == key && r.Path != "" {
				return false
			}
		}
	}
	return true
}

// sqlFileRead reads how the .sql flows of p read source src as files
// (analysis.FileReadOf of each reference's call as written); ok is false
// when none does, a call cannot be read, or two read it differently.
func (s *Session) sqlFileRead(p *ir.Pipeline, src string) (analysis.FileRead, bool) {
	key := ir.NameKey(src)
	var first *analysis.FileRead
	texts := map[string][]byte{}
	for _, f := range p.Flows {
		for _, r := range f.Reads {
			if r.Path == "" || ir.NameKey(r.Name) != key || !strings.HasSuffix(strings.ToLower(r.Loc.File), ".sql") {
				continue
			}
			text, ok := texts[r.Loc.File]
			if !ok {
				b, err := os.ReadFile(filepath.Join(s.Root, filepath.FromSlash(r.Loc.File)))
				if err != nil {
					return analysis.FileRead{}, false
				}
				text, texts[r.Loc.File] = b, b
			}
			if r.Loc.End <= r.Loc.Start || r.Loc.End > len(text) {
				return analysis.FileRead{}, false
			}
			fr, ok := analysis.FileReadOf(string(text[r.Loc.Start:r.Loc.End]))
			if !ok {
				return analysis.FileRead{}, false
			}
			if first == nil {
				first = &fr
			} else if !sameFileRead(*first, fr) {
				return analysis.FileRead{}, false
			}
		}
	}
	if first == nil {
		return analysis.FileRead{}, false
	}
	return *first, true
}

// sameFileRead reports whether two reads of one source infer its files'
// schema alike.
func sameFileRead(a, b analysis.FileRead) bool {
	if a.Format != b.Format || a.AutoLoader != b.AutoLoader || a.Schema != b.Schema || a.Computed != b.Computed || len(a.Options) != len(b.Options) {
		return false
	}
	for k, v := range a.Options {
		if b.Options[k] != v {
			return false
		}
	}
	return true
}

// jsonColumnsArg is the noted columns argument for the files a
// read_json_auto argument names, "" when none is noted.
func jsonColumnsArg(arg string) string {
	for _, f := range mirrorFiles(arg) {
		if v, ok := jsonColumns.Load(f); ok {
			return v.(string)
		}
	}
	return ""
}

// jsonSampleWarnings says where a JSON sample of a source read by name
// has a line Spark's JSON reader does not read as records: without
// multiLine it reads each line as one document (an object, or an array
// of objects), so a document written over several lines (a
// pretty-printed array) gives _corrupt_record rows on Spark (checked on
// Spark 4.1.4: such a file of two objects is four rows, two of them
// corrupt), while DuckDB's reader reads the document whole. The first
// such line of each file is named.
func (s *Session) jsonSampleWarnings(p *ir.Pipeline, src, fn, pattern string) []SampleWarning {
	if fn != "read_json_auto" || !namedOnly(p, src) {
		return nil
	}
	var out []SampleWarning
	for _, f := range mirrorFiles(quoteString(pattern)) {
		b, err := os.ReadFile(f)
		if err != nil || len(b) > maxLoadSample {
			continue
		}
		for i, line := range strings.Split(string(b), "\n") {
			t := strings.TrimSpace(line)
			if t == "" || jsonRecordLine(t) {
				continue
			}
			out = append(out, SampleWarning{File: filepath.ToSlash(s.relOf(s.fromMirror(f))), Line: i + 1, Message: "this line is no JSON object on its own: Spark's JSON reader (without multiLine) reads every line as one record, so on Spark it is a _corrupt_record row, while the native run reads the document whole; write one JSON object per line"})
			break
		}
	}
	return out
}

// jsonRecordLine reports whether a line is a JSON object or an array
// (of objects), which Spark reads as records.
func jsonRecordLine(t string) bool {
	return (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t))
}
