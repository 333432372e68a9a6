package engine

import (
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/pylib"
	"github.com/thund-dev/thund/ir"
)

// A CSV sample stands for a table Spark reads as CSV with header and
// inferSchema (parity.SampleTable: CREATE TABLE ... USING csv OPTIONS
// (header 'true', inferSchema 'true')). Its column types are Spark's
// inference over every row, not DuckDB's sniffer's: DuckDB gives BIGINT
// to every integer column, DOUBLE past 64 bits, TIMESTAMP WITH TIME ZONE
// to a timestamp with an offset, BOOLEAN to t/f and yes/no, a DATE to
// 2025-1-5 and to Infinity, and names an empty header column column2.
// Checked on Spark 4.1.4 (spark.read.csv(path, header=True,
// inferSchema=True), session zone UTC):
//
//   - a column whose values all fit 32 bits is INT ("007" is 7, "+5" is
//     5), BIGINT past it, DECIMAL(p,0) past 64 bits (p the digits),
//     DOUBLE past 38 digits; an integer among decimals or doubles widens
//     to them (INT as DECIMAL(10,0), BIGINT as DECIMAL(20,0));
//   - 1.5, 1e3, .5, 5., NaN, Infinity and -Infinity are DOUBLE;
//   - true and false in any case are BOOLEAN; t/f, yes/no are STRING, 1/0
//     INT;
//   - yyyy-MM-dd is DATE; 2025-1-5, 2025-01-5 and any timestamp form
//     (a space or T, hh:mm[:ss[.fraction]], an optional Z or offset)
//     are TIMESTAMP, an offset converted to UTC; a date among
//     timestamps is TIMESTAMP (midnight); 2025/01/05 and 05/01/2025
//     are STRING, 20250105 INT;
//   - an empty field and "" are NULL; a column only ever empty is
//     STRING; values of kinds that do not widen into one another (an
//     integer and a word, an integer and true) make the column STRING;
//   - a header name keeps its spaces (" sp "), a repeated one gets its
//     position appended (dup1, dup2), an empty one is _c<position>.
//
// A value Spark reads as the column's type but DuckDB's cast would read
// otherwise or not at all (a timestamp such as 2025-01, a zone name, a
// number with spaces or a d suffix) makes the column STRING natively,
// with a warning at the value naming the form to write.

// csvKind is a type of Spark's CSV inference, ordered as its inference
// tries them.
type csvKind int

const (
	csvNull csvKind = iota
	csvInt
	csvLong
	csvDecimal
	csvDouble
	csvDate
	csvTimestamp
	csvBoolean
	csvString
)

// csvType is an inferred type: a kind, and a decimal's precision.
type csvType struct {
	kind csvKind
	prec int
}

// duck is the DuckDB type the native run reads a column of t as.
func (t csvType) duck() string {
	switch t.kind {
	case csvInt:
		return "INTEGER"
	case csvLong:
		return "BIGINT"
	case csvDecimal:
		return fmt.Sprintf("DECIMAL(%d,0)", t.prec)
	case csvDouble:
		return "DOUBLE"
	case csvDate:
		return "DATE"
	case csvTimestamp:
		// Read as text and converted by the read's SELECT
		// (csvTimestampExpr): DuckDB's TIMESTAMP cast drops an offset.
		return "VARCHAR"
	case csvBoolean:
		return "BOOLEAN"
	}
	return "VARCHAR"
}

// spark names t as Spark's schema does.
func (t csvType) spark() string {
	switch t.kind {
	case csvInt:
		return "INT"
	case csvLong:
		return "BIGINT"
	case csvDecimal:
		return fmt.Sprintf("DECIMAL(%d,0)", t.prec)
	case csvDouble:
		return "DOUBLE"
	case csvDate:
		return "DATE"
	case csvTimestamp:
		return "TIMESTAMP"
	case csvBoolean:
		return "BOOLEAN"
	}
	return "STRING"
}

// csvValueType is the type Spark's CSV inference gives the text s (not
// empty), and whether DuckDB's cast to that type reads s as Spark does
// (native).
func csvValueType(s string) (t csvType, native bool) {
	if _, err := strconv.ParseInt(s, 10, 32); err == nil {
		return csvType{kind: csvInt}, true
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return csvType{kind: csvLong}, true
	}
	if p, ok := csvDecimalDigits(s); ok {
		return csvType{kind: csvDecimal, prec: p}, true
	}
	if csvPlainDouble.MatchString(s) || csvSpecialDouble[s] {
		return csvType{kind: csvDouble}, true
	}
	if csvJavaDouble(s) {
		// Java's Double.parseDouble reads it (spaces, a d or f suffix,
		// hex); DuckDB's cast does not read it alike.
		return csvType{kind: csvDouble}, false
	}
	if csvStrictDate(s) {
		return csvType{kind: csvDate}, true
	}
	if ok, native := csvTimestampForm(s); ok {
		return csvType{kind: csvTimestamp}, native
	}
	if strings.EqualFold(s, "true") || strings.EqualFold(s, "false") {
		return csvType{kind: csvBoolean}, true
	}
	return csvType{kind: csvString}, true
}

// csvDecimalDigits reports whether s is an integer Spark's inference
// reads as a DECIMAL (past 64 bits, at most 38 digits, as
// java.math.BigDecimal reads it with no fraction), and its precision.
func csvDecimalDigits(s string) (int, bool) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || strings.HasPrefix(s, "+-") {
		return 0, false
	}
	digits := len(strings.TrimPrefix(n.String(), "-"))
	if digits > 38 {
		return 0, false
	}
	return digits, true
}

// csvPlainDouble is a number DuckDB's DOUBLE cast reads as Java does.
var csvPlainDouble = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

// csvSpecialDouble are the words Spark reads as a DOUBLE: Java's (NaN,
// Infinity) and the CSV reader's nanValue, positiveInf and negativeInf.
var csvSpecialDouble = map[string]bool{"NaN": true, "Infinity": true, "+Infinity": true, "-Infinity": true, "Inf": true, "-Inf": true}

// csvJavaDouble reports whether Java's Double.parseDouble reads s in a
// form DuckDB does not: around spaces, a d/f suffix, or hex.
var csvJavaDoubleRe = regexp.MustCompile(`^[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|NaN|Infinity|0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*[pP][+-]?\d+)[fFdD]?$`)

func csvJavaDouble(s string) bool {
	t := strings.Trim(s, " \t")
	return t != "" && csvJavaDoubleRe.MatchString(t)
}

// csvStrictDate reports whether s is a date in yyyy-MM-dd, the form
// Spark's inference takes for a DATE.
func csvStrictDate(s string) bool {
	if len(s) != 10 {
		return false
	}
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// csvTimestampRe is the form Spark's lenient timestamp parsing reads:
// a year, then optionally -month, -day (one or two digits each), a space
// or T, h[h]:m[m][:s[s][.fraction]] and a zone.
var csvTimestampRe = regexp.MustCompile(`^[+-]?(\d{4,6})(?:-(\d{1,2})(?:-(\d{1,2})(?:[ T](?:(\d{1,2})(?::(\d{1,2})(?::(\d{1,2})(?:\.(\d{0,9}))?)?)?)?\s*(Z|[+-]\d{1,2}(?::?\d{2})?|(?:UTC|GMT|UT)(?:[+-]\d{1,2}(?::?\d{2})?)?|[A-Za-z]+/[A-Za-z_/+-]+)?)?)?)?$`)

// csvNativeTimestampRe is the part of it DuckDB's casts read as Spark
// does (csvTimestampExpr): a full date, a time with seconds when a zone
// follows, and a zone of Z or a numeric offset.
var csvNativeTimestampRe = regexp.MustCompile(`^\d{4}-\d{1,2}-\d{1,2}(?:[ T]\d{1,2}:\d{1,2}(?::\d{1,2}(?:\.\d{1,9})?)?|[ T]\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}(?::?\d{2})?))?$`)

// csvTimestampForm reports whether Spark's inference reads s as a
// TIMESTAMP, and whether the native run converts it alike.
func csvTimestampForm(s string) (ok, native bool) {
	t := strings.TrimSpace(s)
	m := csvTimestampRe.FindStringSubmatch(t)
	if m == nil {
		return false, false
	}
	num := func(i int) int {
		if m[i] == "" {
			return -1
		}
		n, _ := strconv.Atoi(m[i])
		return n
	}
	year, month, day, hour, minute, sec := num(1), num(2), num(3), num(4), num(5), num(6)
	if month == 0 || month > 12 || day == 0 || hour > 23 || minute > 59 || sec > 59 {
		return false, false
	}
	if day > 0 && month > 0 {
		if last := time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day(); day > last {
			return false, false
		}
	}
	return true, t == s && csvNativeTimestampRe.MatchString(t)
}

// csvMerge is Spark's CSV compatibleType: numbers widen (an INT as
// DECIMAL(10,0), a BIGINT as DECIMAL(20,0), DOUBLE past 38 digits), a
// date and a timestamp are a TIMESTAMP, anything else is STRING.
func csvMerge(a, b csvType) csvType {
	switch {
	case a.kind == csvNull:
		return b
	case b.kind == csvNull:
		return a
	case a.kind == b.kind && a.kind == csvDecimal:
		return csvType{kind: csvDecimal, prec: max(a.prec, b.prec)}
	case a.kind == b.kind:
		return a
	}
	if a.kind > b.kind {
		a, b = b, a
	}
	switch {
	case b.kind <= csvDouble && (b.kind != csvDecimal || a.kind == csvDecimal):
		return b
	case b.kind == csvDecimal:
		p := max(b.prec, map[csvKind]int{csvInt: 10, csvLong: 20}[a.kind])
		if p > 38 {
			return csvType{kind: csvDouble}
		}
		return csvType{kind: csvDecimal, prec: p}
	case a.kind == csvDate && b.kind == csvTimestamp:
		return b
	}
	return csvType{kind: csvString}
}

// csvColumn is what the inference found in one column of a file.
type csvColumn struct {
	typ csvType
	// odd is the first value Spark reads as a number or a timestamp
	// that the native run cannot read alike, by the kind Spark gave it
	// (csvDouble or csvTimestamp), with its line.
	odd     map[csvKind]csvValue
	unnamed bool
}

type csvValue struct {
	value string
	line  int
}

// csvInference accumulates Spark's inference over a file's records.
type csvInference struct {
	cols []csvColumn
}

// note records a record's values (fields beyond the header's are not
// Spark's columns).
func (c *csvInference) note(fields []string, width, line int) {
	for len(c.cols) < width {
		c.cols = append(c.cols, csvColumn{})
	}
	for i, v := range fields {
		if i >= width || v == "" {
			continue
		}
		t, native := csvValueType(v)
		col := &c.cols[i]
		col.typ = csvMerge(col.typ, t)
		if !native {
			if col.odd == nil {
				col.odd = map[csvKind]csvValue{}
			}
			if _, seen := col.odd[t.kind]; !seen {
				col.odd[t.kind] = csvValue{v, line}
			}
		}
	}
}

// csvSparkNames are the column names Spark gives a header: spaces
// kept, an empty name _c<position>, a name repeated (ignoring case)
// suffixed with its position.
func csvSparkNames(header []string) []string {
	seen := map[string]int{}
	for _, h := range header {
		seen[strings.ToLower(h)]++
	}
	out := make([]string, len(header))
	for i, h := range header {
		switch {
		case h == "":
			out[i] = "_c" + strconv.Itoa(i)
		case seen[strings.ToLower(h)] > 1:
			out[i] = h + strconv.Itoa(i)
		default:
			out[i] = h
		}
	}
	return out
}

// csvFileTypes is how the native run reads one CSV sample file: Spark's
// names and types for its header's columns, in order, and the delimiter.
type csvFileTypes struct {
	header []string
	names  []string
	types  []csvType
	delim  byte
	// byName holds the types of the columns of a folder read by name
	// (the inference merged over the folder's files), by lower-case
	// name, for the names DuckDB gives as the header writes them.
	byName map[string]csvType
	plain  map[string]string
	// multi says a record holds a quoted line break, which DuckDB's
	// parallel reader refuses with null_padding.
	multi bool
}

// csvFileInfo maps a mirrored CSV file's path to its csvFileTypes,
// noted by checkCSVSample before the file is read; plainReadCall reads
// the file with them.
var csvFileInfo sync.Map

// result is the inferred types of the header's columns (csvNull for a
// column with no value), odd values making a column STRING (with a
// warning to out).
func (c *csvInference) result(rel string, header []string, out *[]SampleWarning) []csvType {
	types := make([]csvType, len(header))
	names := csvSparkNames(header)
	for i := range header {
		if i >= len(c.cols) {
			types[i] = csvType{kind: csvNull}
			continue
		}
		// A column only ever empty stays null here, so a folder's other
		// files type it; it is read as STRING (duck).
		col := c.cols[i]
		t := col.typ
		if odd, ok := col.odd[t.kind]; ok && (t.kind == csvDouble || t.kind == csvTimestamp) {
			form := "a number as 1.5, 1e3 or NaN, without spaces or a suffix"
			if t.kind == csvTimestamp {
				form = "every timestamp as yyyy-MM-dd HH:mm:ss, with Z or an offset such as +02:00 if it has a zone"
			}
			*out = append(*out, SampleWarning{File: rel, Line: odd.line, Message: fmt.Sprintf(
				"column %s: Spark reads %q as a %s, which the native run cannot read the same way, so it reads the column as STRING; write %s",
				names[i], odd.value, t.spark(), form)})
			t = csvType{kind: csvString}
		}
		types[i] = t
	}
	return types
}

// csvMultiLine is a record whose quoted field holds a line break.
func csvMultiLineWarning(rel string, line, end int) SampleWarning {
	return SampleWarning{File: rel, Line: line, Message: fmt.Sprintf(
		"a quoted field of this record runs to line %d: Spark's CSV reader, without the multiLine option, ends a record at every line break, so on Spark this row is read as %d records; the native run reads it as one; keep each record on one line (or read the files with multiLine in a Python load)", end, end-line+1)}
}

// noteCSVTypes records how the native run reads each file of a sample
// (rels, with their shapes): for a folder or glob, the types merged by
// column name over every file, as Spark infers one schema for them.
func (s *Session) noteCSVTypes(shapes []*csvShape, rels []string) {
	merged := map[string]csvType{}
	plain := map[string]string{}
	for _, sh := range shapes {
		for i, h := range sh.header {
			if i >= len(sh.types) {
				continue
			}
			k := strings.ToLower(h)
			if prev, ok := merged[k]; ok {
				merged[k] = csvMergeFinal(prev, sh.types[i])
			} else {
				merged[k] = sh.types[i]
			}
			plain[k] = h
		}
	}
	for i, rel := range rels {
		sh := shapes[i]
		if len(sh.header) == 0 {
			csvFileInfo.Delete(s.mirrorPath(rel))
			continue
		}
		csvFileInfo.Store(s.mirrorPath(rel), &csvFileTypes{header: sh.header, names: csvSparkNames(sh.header), types: sh.types, delim: sh.delim, byName: merged, plain: plain, multi: sh.multi})
	}
}

// autoLoaderText reports whether source src stands for files Auto
// Loader reads as CSV without cloudFiles.inferColumnTypes and without a
// schema (cloud_files(path, 'csv') in SQL, a cloudFiles load in Python),
// every read of it alike: Databricks then reads every column as a STRING.
func (s *Session) autoLoaderText(p *ir.Pipeline, src string) bool {
	if src == "" {
		return false
	}
	sqlReads, pyReads := false, false
	key := ir.NameKey(src)
	for _, f := range p.Flows {
		for _, r := range f.Reads {
			if r.Path == "" || ir.NameKey(r.Name) != key {
				continue
			}
			if strings.HasSuffix(strings.ToLower(r.Loc.File), ".sql") {
				sqlReads = true
			} else {
				pyReads = true
			}
		}
	}
	if !sqlReads && !pyReads {
		return false
	}
	if sqlReads {
		fr, ok := s.sqlFileRead(p, src)
		if !ok || !fr.AutoLoader || fr.Schema || fr.Computed || fr.InfersColumnTypes() {
			return false
		}
	}
	if pyReads {
		l, _, _, err := s.pythonLoadOf(p, &ir.Source{Name: src}, true)
		if err != nil || l == nil || l.CloudFormat == "" || l.Schema != "" || l.Computed != "" ||
			(analysis.FileRead{AutoLoader: true, Options: l.Options}).InfersColumnTypes() {
			return false
		}
	}
	return true
}

// csvAllText makes every column of the CSV files pattern names a STRING
// in the types the native run reads them with (csvFileInfo).
func (s *Session) csvAllText(pattern string) {
	for _, f := range mirrorFiles(quoteString(pattern)) {
		v, ok := csvFileInfo.Load(f)
		if !ok {
			continue
		}
		info := *v.(*csvFileTypes)
		info.types = make([]csvType, len(info.types))
		for i := range info.types {
			info.types[i] = csvType{kind: csvString}
		}
		info.byName = make(map[string]csvType, len(v.(*csvFileTypes).byName))
		for k := range v.(*csvFileTypes).byName {
			info.byName[k] = csvType{kind: csvString}
		}
		csvFileInfo.Store(f, &info)
	}
}

// csvMergeFinal merges two files' final types of one column; a column
// one file reads as STRING is STRING.
func csvMergeFinal(a, b csvType) csvType {
	if a.kind == csvString || b.kind == csvString {
		return csvType{kind: csvString}
	}
	return csvMerge(a, b)
}

// csvReadArgs returns the read_csv_auto arguments reading the files arg
// names with Spark's names and types, and the SELECT list converting its
// timestamp columns ("" when none); ok is false when a file was not
// checked (the reader's own detection then applies).
func csvReadArgs(arg string) (args []string, convert string, ok bool) {
	files := mirrorFiles(arg)
	if len(files) == 0 {
		return nil, "", false
	}
	var infos []*csvFileTypes
	for _, f := range files {
		v, ok := csvFileInfo.Load(f)
		if !ok {
			return nil, "", false
		}
		infos = append(infos, v.(*csvFileTypes))
	}
	var tsCols []string
	if len(files) == 1 && !strings.ContainsAny(strings.Trim(arg, "'[]"), "*?") {
		info := infos[0]
		names := make([]string, len(info.names))
		types := make([]string, len(info.types))
		for i := range info.names {
			names[i] = quoteString(info.names[i])
			types[i] = quoteString(info.types[i].duck())
			if info.types[i].kind == csvTimestamp {
				tsCols = append(tsCols, info.names[i])
			}
		}
		args = []string{"header = true", "delim = " + quoteString(string(info.delim)), "names = [" + strings.Join(names, ", ") + "]", "types = [" + strings.Join(types, ", ") + "]"}
	} else {
		// A folder read by name: the types of the columns whose names
		// DuckDB keeps as written in every file (no spaces around, not
		// empty, not repeated in a file).
		keep := map[string]bool{}
		for _, in := range infos {
			seen := map[string]bool{}
			for _, h := range in.header {
				k := strings.ToLower(h)
				if _, ok := keep[k]; !ok {
					keep[k] = true
				}
				if seen[k] || h == "" || h != strings.TrimSpace(h) || h != in.plain[k] {
					keep[k] = false
				}
				seen[k] = true
			}
		}
		info := infos[0]
		var parts []string
		for k, t := range info.byName {
			if !keep[k] {
				continue
			}
			parts = append(parts, quoteString(info.plain[k])+": "+quoteString(t.duck()))
			if t.kind == csvTimestamp {
				tsCols = append(tsCols, info.plain[k])
			}
		}
		if len(parts) == 0 {
			return nil, "", false
		}
		sort.Strings(parts)
		args = []string{"header = true", "types = {" + strings.Join(parts, ", ") + "}"}
	}
	for _, in := range infos {
		if in.multi {
			args = append(args, "parallel = false")
			break
		}
	}
	// Spark infers DATE only for yyyy-MM-dd; DuckDB would otherwise take
	// the date format its sniffer found in another column (4/14/2024 in
	// a STRING column) for every DATE column, and fail on 2025-01-01.
	if strings.Contains(strings.Join(args, " "), "'DATE'") {
		args = append(args, "dateformat = '%Y-%m-%d'")
	}
	if len(tsCols) > 0 {
		sort.Strings(tsCols)
		repl := make([]string, len(tsCols))
		for i, c := range tsCols {
			repl[i] = csvTimestampExpr(quoteIdent(c)) + " AS " + quoteIdent(c)
		}
		convert = "* REPLACE (" + strings.Join(repl, ", ") + ")"
	}
	return args, convert, true
}

// csvTimestampExpr converts the text column c to Spark's TIMESTAMP (UTC
// wall-clock time, as native runs hold it): a value with Z or an offset
// is that instant, one without is read as written (the session zone is
// UTC). DuckDB's TIMESTAMP cast alone would drop the offset.
func csvTimestampExpr(c string) string {
	return "CASE WHEN regexp_matches(" + c + ", '[0-9]:[0-9]{1,2}(\\.[0-9]*)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)$') THEN CAST(timezone('UTC', CAST(" + c + " AS TIMESTAMPTZ)) AS TIMESTAMP) ELSE CAST(" + c + " AS TIMESTAMP) END"
}

// loadTimestamps is the read_csv call of a Python load of one CSV file
// (LoadReading), whose fields Spark's inference typed, with its
// TIMESTAMP columns read as text and converted by csvTimestampExpr:
// DuckDB's reader would drop a Z or an offset (2025-01-01T10:00:00+02:00
// is 08:00:00 UTC on Spark 4.1.4, 10:00:00 in DuckDB's TIMESTAMP). A call
// over a folder's files, or with no TIMESTAMP column, is returned as it
// is.
func loadTimestamps(call string, fields []pylib.Field) string {
	var ts []string
	text := make([]pylib.Field, len(fields))
	for i, f := range fields {
		text[i] = f
		if f.Type != nil && f.Type.Kind == "timestamp" {
			ts = append(ts, f.Name)
			text[i].Type = &pylib.Type{Kind: "string"}
		}
	}
	cols := "columns = " + duckColumns(fields)
	if len(ts) == 0 || strings.Contains(call, "union_by_name") || !strings.HasPrefix(call, "read_csv(") || strings.Count(call, cols) != 1 {
		return call
	}
	repl := make([]string, len(ts))
	for i, c := range ts {
		repl[i] = csvTimestampExpr(quoteIdent(c)) + " AS " + quoteIdent(c)
	}
	return "(SELECT * REPLACE (" + strings.Join(repl, ", ") + ") FROM " + strings.Replace(call, cols, "columns = "+duckColumns(text), 1) + ")"
}
