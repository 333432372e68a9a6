package engine

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/thund-dev/thund/ir"
)

// Sample CSV files are checked before DuckDB reads them, for what its
// reader would otherwise accept without a word: a row with more or fewer
// fields than the header (DuckDB pads a short row with NULLs and gives
// extra fields columns of their own), a micro-batch whose header adds or
// lacks columns of the folder's first file (the folder is read by name,
// so the others get NULLs), and a quoted field that is never closed,
// which is an error naming the file and line where the quote opens.

// SampleWarning is a finding about a sample file that did not stop the
// run: File is root-relative, Line 1-based. Code is the finding's code
// when it is not a sample's shape (ir.CodeSampleShape, when empty): the
// changes of a CDC flow that tie on their sequence (CodeCDCSequenceTies).
type SampleWarning struct {
	File    string
	Line    int
	Message string
	Code    string
}

// CodeCDCSequenceTies is the code of the run's warning about CDC changes
// that tie on their sequence value (cdc.go, warnTies), the code the
// analysis gives the cause it can see (analysis/capab).
const CodeCDCSequenceTies = string(ir.CodeCDCSequenceTies)

// csvCheckBytes is how much of a file is checked; a longer file is
// checked in its first part only.
const csvCheckBytes = 64 << 20

// csvReportRows is how many rows of one file are reported one by one.
const csvReportRows = 3

// csvShape is what checking one file found.
type csvShape struct {
	header   []string
	warnings []SampleWarning
	err      error
	// text holds the columns whose dates are written in more than one
	// way (mixedDates): read as text, as Spark infers them.
	text []string
	// ways holds, per column name, the first value of each way the
	// column writes its dates, in the order seen.
	ways map[string][]dateWaySeen
	// types holds Spark's inferred type of each header column
	// (csvinfer.go); delim is the delimiter read.
	types []csvType
	delim byte
	multi bool
}

// csvCache keeps each file's shape while it is unchanged (same path,
// size and modification time), so a run re-reads only what changed.
var csvCache = struct {
	sync.Mutex
	m map[string]*csvShape
}{m: map[string]*csvShape{}}

// checkCSVSample checks the CSV files behind a sample (a file, glob or
// folder), returning the warnings, or an error for a file DuckDB would
// misread.
func (s *Session) checkCSVSample(sample string) ([]SampleWarning, error) {
	rels, err := s.sampleRels(sample)
	if err != nil || len(rels) == 0 {
		return nil, nil // the reader says what is wrong with the path
	}
	var out []SampleWarning
	var first []string
	firstRel := ""
	var shapes []*csvShape
	var shapeRels []string
	// The text columns are noted once the files are checked, also when
	// one stops the check early.
	noteText := func() {
		text := textAcross(shapes, shapeRels, &out)
		for _, rel := range shapeRels {
			s.noteTextColumns(rel, text)
		}
		s.noteCSVTypes(shapes, shapeRels)
	}
	for i, rel := range rels {
		ext := strings.ToLower(path.Ext(rel))
		if ext != ".csv" && ext != ".tsv" {
			continue
		}
		real, _, err := s.checkedFile(rel)
		if err != nil {
			return nil, nil // refused by the reader, with its reason
		}
		sh := csvShapeOf(real, rel, ext == ".tsv")
		if sh.err != nil {
			noteText()
			return out, sh.err
		}
		out = append(out, sh.warnings...)
		shapes = append(shapes, sh)
		shapeRels = append(shapeRels, rel)
		if i == 0 || firstRel == "" {
			first, firstRel = sh.header, rel
			continue
		}
		if added, missing := headerDiff(first, sh.header); len(added)+len(missing) > 0 {
			var parts []string
			if len(added) > 0 {
				parts = append(parts, fmt.Sprintf("adds %s, which %s lacks (NULL in its rows)", names(added), path.Base(firstRel)))
			}
			if len(missing) > 0 {
				parts = append(parts, fmt.Sprintf("lacks %s of %s (NULL in this file's rows)", names(missing), path.Base(firstRel)))
			}
			out = append(out, SampleWarning{File: rel, Line: 1, Message: "this micro-batch " + strings.Join(parts, " and ") + "; the folder is read by column name natively, while Spark's CSV reader reads every file's fields by position under one file's header, so on Spark the values land in other columns: give every file the same header"})
		}
	}
	noteText()
	return out, nil
}

// sampleRels lists the root-relative files a sample path reads.
func (s *Session) sampleRels(sample string) ([]string, error) {
	rel := path.Clean(filepath.ToSlash(sample))
	abs := filepath.Join(s.Root, filepath.FromSlash(rel))
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		real, _, err := s.checkedFile(rel)
		if err != nil {
			return nil, err
		}
		files, err := BatchFiles(real)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(files))
		for i, f := range files {
			out[i] = path.Join(rel, filepath.Base(f))
		}
		return out, nil
	}
	if strings.ContainsAny(rel, "*?[") {
		matches, err := filepath.Glob(abs)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, m := range matches {
			out = append(out, s.relOf(m))
		}
		return out, nil
	}
	return []string{rel}, nil
}

func csvShapeOf(real, rel string, tsv bool) *csvShape {
	fi, err := os.Stat(real)
	if err != nil {
		return &csvShape{}
	}
	key := fmt.Sprintf("%s\x00%s\x00%d\x00%d", real, rel, fi.Size(), fi.ModTime().UnixNano())
	csvCache.Lock()
	sh, ok := csvCache.m[key]
	csvCache.Unlock()
	if ok {
		return sh
	}
	f, err := os.Open(real)
	if err != nil {
		return &csvShape{}
	}
	defer f.Close()
	sh = scanCSV(io.LimitReader(f, csvCheckBytes), rel, tsv)
	csvCache.Lock()
	if len(csvCache.m) > 4096 {
		csvCache.m = map[string]*csvShape{}
	}
	csvCache.m[key] = sh
	csvCache.Unlock()
	return sh
}

// errUnclosedQuote marks a quoted field that never ends.
var errUnclosedQuote = errors.New("unclosed quote")

// scanCSV reads CSV text record by record (RFC 4180 quoting: a field in
// double quotes may hold delimiters, newlines and doubled quotes) and
// compares each record's field count with the header's. The delimiter is
// a tab for .tsv; for .csv, a comma, unless the header has none but
// holds semicolons, tabs or bars, which DuckDB's sniffer would pick.
func scanCSV(r io.Reader, rel string, tsv bool) *csvShape {
	br := bufio.NewReaderSize(r, 64<<10)
	sh := &csvShape{}
	var delim byte = ','
	if tsv {
		delim = '\t'
	}
	line := 1
	header := true
	short, long := 0, 0
	var firstShort, firstLong []SampleWarning
	var dates dateShapes
	var infer csvInference
	multi := 0
	var multiLines []SampleWarning
	for {
		start := line
		fields, err := readRecord(br, &delim, header, &line)
		if errors.Is(err, errUnclosedQuote) {
			sh.err = fmt.Errorf("sample %s:%d: a quoted field opens on this line and is never closed: add the closing \" (or double a \" inside the field)", rel, start)
			return sh
		}
		if fields == nil {
			break
		}
		if len(fields) == 1 && fields[0] == "" {
			// A blank line: DuckDB skips it.
		} else if header {
			sh.header = fields
			header = false
		} else {
			dates.note(fields, start)
			infer.note(fields, len(sh.header), start)
			if end := line - 1; err == nil && end > start || err != nil && line > start {
				if err != nil {
					end = line
				}
				multi++
				if multi <= csvReportRows {
					multiLines = append(multiLines, csvMultiLineWarning(rel, start, end))
				}
			}
			if n, want := len(fields), len(sh.header); n < want {
				short++
				if short <= csvReportRows {
					firstShort = append(firstShort, SampleWarning{File: rel, Line: start, Message: fmt.Sprintf("this row has %d of the header's %d fields: %s read as NULL; complete the row", n, want, columnList(sh.header[n:]))})
				}
			} else if n > want {
				long++
				if long <= csvReportRows {
					firstLong = append(firstLong, SampleWarning{File: rel, Line: start, Message: fmt.Sprintf("this row has %d fields, the header names %d: the extra ones are read into unnamed columns; name them in the header, or fix the row", n, want)})
				}
			}
		}
		if err != nil {
			break
		}
	}
	sh.warnings = append(append(firstShort, firstLong...), multiLines...)
	sh.delim = delim
	sh.multi = multi > 0
	sh.types = infer.result(rel, sh.header, &sh.warnings)
	sh.ways = dates.byName(sh.header)
	for _, m := range dates.mixed(sh.header) {
		sh.text = append(sh.text, m.column)
		sh.warnings = append(sh.warnings, SampleWarning{File: rel, Line: m.second.line, Message: fmt.Sprintf(
			"column %s writes its dates in more than one way (%s on line %d, %s on this line): Spark's schema inference reads such a column as STRING, and so does the native run; write every date as yyyy-MM-dd to read the column as a DATE",
			m.column, m.first.value, m.first.line, m.second.value)})
	}
	sort.SliceStable(sh.warnings, func(i, j int) bool { return sh.warnings[i].Line < sh.warnings[j].Line })
	if short > csvReportRows {
		sh.warnings = append(sh.warnings, SampleWarning{File: rel, Line: firstShort[0].Line, Message: fmt.Sprintf("%d more rows have fewer fields than the header", short-csvReportRows)})
	}
	if long > csvReportRows {
		sh.warnings = append(sh.warnings, SampleWarning{File: rel, Line: firstLong[0].Line, Message: fmt.Sprintf("%d more rows have more fields than the header", long-csvReportRows)})
	}
	if multi > csvReportRows {
		sh.warnings = append(sh.warnings, SampleWarning{File: rel, Line: multiLines[0].Line, Message: fmt.Sprintf("%d more records hold a quoted line break", multi-csvReportRows)})
	}
	return sh
}

// readRecord reads one record; it returns nil fields at the end of the
// text, and advances *line past the newlines it read. For the header it
// settles the delimiter first (see scanCSV).
func readRecord(br *bufio.Reader, delim *byte, header bool, line *int) ([]string, error) {
	var fields []string
	var cur strings.Builder
	quoted, inQuotes, read := false, false, false
	if header && *delim == ',' {
		if peek, _ := br.Peek(4096); len(peek) > 0 {
			first := string(peek)
			if i := strings.IndexByte(first, '\n'); i >= 0 {
				first = first[:i]
			}
			if !strings.Contains(first, ",") {
				for _, c := range []byte{';', '\t', '|'} {
					if strings.IndexByte(first, c) >= 0 {
						*delim = c
						break
					}
				}
			}
		}
	}
	for {
		c, err := br.ReadByte()
		if err != nil {
			if inQuotes {
				return nil, errUnclosedQuote
			}
			if !read {
				return nil, io.EOF
			}
			return append(fields, cur.String()), io.EOF
		}
		read = true
		switch {
		case inQuotes:
			if c == '"' {
				if next, err := br.Peek(1); err == nil && next[0] == '"' {
					br.ReadByte()
					cur.WriteByte('"')
					continue
				}
				inQuotes = false
				continue
			}
			if c == '\n' {
				*line++
			}
			cur.WriteByte(c)
		case c == '"' && cur.Len() == 0 && !quoted:
			inQuotes, quoted = true, true
		case c == *delim:
			fields = append(fields, cur.String())
			cur.Reset()
			quoted = false
		case c == '\n':
			*line++
			s := strings.TrimSuffix(cur.String(), "\r")
			return append(fields, s), nil
		default:
			cur.WriteByte(c)
		}
	}
}

// headerDiff returns the columns b has that a lacks, and those a has
// that b lacks (compared without regard to case, as DuckDB's union by
// name does).
func headerDiff(a, b []string) (added, missing []string) {
	in := func(list []string, name string) bool {
		for _, x := range list {
			if strings.EqualFold(strings.TrimSpace(x), strings.TrimSpace(name)) {
				return true
			}
		}
		return false
	}
	for _, c := range b {
		if !in(a, c) {
			added = append(added, c)
		}
	}
	for _, c := range a {
		if !in(b, c) {
			missing = append(missing, c)
		}
	}
	return added, missing
}

// columnList names columns: "column x" or "columns x, y".
func columnList(cols []string) string {
	if len(cols) == 1 {
		return "column " + cols[0] + " is"
	}
	if len(cols) > 5 {
		return fmt.Sprintf("columns %s and %d more are", strings.Join(cols[:5], ", "), len(cols)-5)
	}
	return "columns " + strings.Join(cols, ", ") + " are"
}

// names names columns without a verb: "column x", "columns x, y".
func names(cols []string) string {
	s := columnList(cols)
	return strings.TrimSuffix(strings.TrimSuffix(s, " is"), " are")
}

// csvConversion matches DuckDB's error for a CSV value its reader cannot
// convert to the type it gave the column.
var csvConversion = regexp.MustCompile(`(?s)CSV Error on Line: (\d+).*?Error when converting column "((?:[^"]|"")*)"\. Could not convert string "((?:[^"]|"")*)" to '([^']+)'`)

// sampleReadError restates an error DuckDB gave reading sample (its
// relation rel) in the sample's terms: a value the reader could not
// convert is named by the sample's file and line, its column and the
// type the column was read as, without DuckDB's settings and advice
// (which name its reader's options, not anything in the pipeline); the
// relation's name, which is Thund's, is replaced by the sample's path.
func sampleReadError(err error, sample, rel string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if m := csvConversion.FindStringSubmatch(msg); m != nil {
		col := strings.ReplaceAll(m[2], `""`, `"`)
		val := strings.ReplaceAll(m[3], `""`, `"`)
		file := sample
		if f := csvErrorFile.FindStringSubmatch(msg); f != nil {
			file = f[1]
		}
		typ := SparkTypeName(m[4])
		if typ == "" {
			typ = m[4]
		}
		return fmt.Errorf("%s:%s: column %s holds %q, which is not a %s as the column's other values are: write the value as the others are written (a date as yyyy-MM-dd), or leave it empty for NULL", file, m[1], col, val, typ)
	}
	if rel != "" && strings.Contains(msg, rel) {
		return errors.New(strings.ReplaceAll(msg, rel, sample))
	}
	return err
}

// csvErrorFile matches the file DuckDB's CSV error names (the sample's
// path, once the mirror's paths are mapped back).
var csvErrorFile = regexp.MustCompile(`(?m)^\s*file = (.+)$`)

// A column whose dates are written in more than one way (2024-01-05 on
// some rows, 05/01/2024 on others) is no DATE to Spark: its CSV schema
// inference takes a value for a date only in the dateFormat, yyyy-MM-dd
// by default, so the column is STRING. DuckDB's sniffer picks one date
// format for the column and then fails on the values written the other
// way. Such a column is read as text (the reader's types option), with a
// warning naming the file, the column and one value of each way.

// dateShape matches a value written as a date (or a timestamp starting
// with one); its groups tell the ways apart: the separator and where the
// four-digit year is.
var dateShape = regexp.MustCompile(`^\s*(?:(\d{4})([-/.])\d{1,2}[-/.]\d{1,2}|\d{1,2}([-/.])\d{1,2}[-/.](\d{4}|\d{2}))(?:[ T]\d{1,2}:\d{2}.*)?\s*$`)

// dateWay names how a value writes its date ("" when it is no date):
// year first or last, and the separator.
func dateWay(v string) string {
	m := dateShape.FindStringSubmatch(v)
	if m == nil {
		return ""
	}
	if m[1] != "" {
		return "y" + m[2]
	}
	return m[3] + "y"
}

// dateSeen is one value of a way of writing dates, and its line.
type dateSeen struct {
	value string
	line  int
}

// dateShapes records, per column (by position), the first value of each
// way of writing a date it holds.
type dateShapes struct {
	cols []map[string]dateSeen
	// order keeps, per column, the ways in the order they were first seen.
	order [][]string
}

// note records the date-like values of one record starting at line.
func (d *dateShapes) note(fields []string, line int) {
	for i, v := range fields {
		way := dateWay(v)
		if way == "" {
			continue
		}
		for len(d.cols) <= i {
			d.cols = append(d.cols, nil)
			d.order = append(d.order, nil)
		}
		if d.cols[i] == nil {
			d.cols[i] = map[string]dateSeen{}
		}
		if _, ok := d.cols[i][way]; !ok && len(d.cols[i]) < 4 {
			d.cols[i][way] = dateSeen{value: strings.TrimSpace(v), line: line}
			d.order[i] = append(d.order[i], way)
		}
	}
}

// dateWaySeen is the first value of one way of writing dates in a file.
type dateWaySeen struct {
	way string
	dateSeen
}

// byName returns the ways each column of header writes its dates, by
// column name (lower case).
func (d *dateShapes) byName(header []string) map[string][]dateWaySeen {
	out := map[string][]dateWaySeen{}
	for i, ways := range d.order {
		if i >= len(header) || len(ways) == 0 {
			continue
		}
		k := strings.ToLower(strings.TrimSpace(header[i]))
		for _, w := range ways {
			out[k] = append(out[k], dateWaySeen{way: w, dateSeen: d.cols[i][w]})
		}
	}
	return out
}

// textAcross returns the columns of a sample's files (shapes, of the
// files rels) to read as text: those a file writes dates of more than
// one way in, and those whose files each write their dates one way, but
// not all the same (a folder read as one table is inferred over all its
// files, as Spark infers a directory's schema), adding a warning for the
// latter to out.
func textAcross(shapes []*csvShape, rels []string, out *[]SampleWarning) []string {
	seen := map[string]bool{}
	var text []string
	add := func(c string) {
		if k := strings.ToLower(c); !seen[k] {
			seen[k] = true
			text = append(text, c)
		}
	}
	for _, sh := range shapes {
		for _, c := range sh.text {
			add(c)
		}
	}
	type firstWay struct {
		rel string
		dateWaySeen
	}
	firsts := map[string]firstWay{}
	for i, sh := range shapes {
		for _, c := range sh.header {
			k := strings.ToLower(strings.TrimSpace(c))
			ways := sh.ways[k]
			if len(ways) == 0 || seen[k] {
				continue
			}
			f, ok := firsts[k]
			if !ok {
				firsts[k] = firstWay{rels[i], ways[0]}
				continue
			}
			if ways[0].way != f.way {
				add(c)
				*out = append(*out, SampleWarning{File: rels[i], Line: ways[0].line, Message: fmt.Sprintf(
					"column %s writes its dates otherwise than in %s (%s there, %s on this line), and the folder is read as one table: Spark's schema inference reads such a column as STRING, and so does the native run; write every date as yyyy-MM-dd to read the column as a DATE",
					c, path.Base(f.rel), f.value, ways[0].value)})
			}
		}
	}
	return text
}

// mixedDate is a column holding dates written two ways: a value of the
// first way seen and one of the second.
type mixedDate struct {
	column        string
	first, second dateSeen
}

// mixed lists the columns of header whose dates are written in more than
// one way.
func (d *dateShapes) mixed(header []string) []mixedDate {
	var out []mixedDate
	for i, ways := range d.order {
		if len(ways) < 2 || i >= len(header) {
			continue
		}
		out = append(out, mixedDate{column: header[i], first: d.cols[i][ways[0]], second: d.cols[i][ways[1]]})
	}
	return out
}

// textColumns maps a mirrored CSV file's path to the columns its reads
// take as text (mixedDates), noted by checkCSVSample before the file is
// read; readCall adds them to the reader's types.
var textColumns sync.Map

// noteTextColumns records the text columns of the sample file rel.
func (s *Session) noteTextColumns(rel string, cols []string) {
	key := s.mirrorPath(rel)
	if len(cols) == 0 {
		textColumns.Delete(key)
		return
	}
	textColumns.Store(key, cols)
}

// textTypes is the read_csv_auto types argument reading the text columns
// noted for the files a reader argument names as VARCHAR, "" when none.
func textTypes(arg string) string {
	seen := map[string]bool{}
	var parts []string
	for _, f := range mirrorFiles(arg) {
		v, ok := textColumns.Load(f)
		if !ok {
			continue
		}
		for _, c := range v.([]string) {
			if k := strings.ToLower(c); !seen[k] {
				seen[k] = true
				parts = append(parts, quoteString(c)+": 'VARCHAR'")
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	sort.Strings(parts)
	return "types = {" + strings.Join(parts, ", ") + "}"
}
