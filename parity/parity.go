// Package parity compares what the native engine (embedded DuckDB) and
// Spark produce for the same pipeline. Both sides are read as Arrow
// records and normalised to text cells that ignore what legitimately
// differs between the engines (integer widths, DECIMAL against DOUBLE,
// the time zone a timestamp carries, float noise in the last digits), then
// compared as multisets of rows, so row order does not matter.
//
// The suite in parity_test.go runs every testdata pipeline both ways and
// writes docs/parity.md.
package parity

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
)

// Digits is how many significant digits a non-integral number keeps: two
// engines summing the same doubles in another order agree to about 15
// digits, and a DECIMAL and a DOUBLE of the same value agree to all of
// them.
const Digits = 12

// Table is a result normalised for comparison: lower-case column names and
// one text cell per value (NULL is the cell "NULL", strings are quoted).
type Table struct {
	Columns []string
	Types   []string
	Rows    [][]string
	// Scales holds each column's DECIMAL scale (-1 for other types) and
	// Floats whether it is a floating-point column: Compare rounds a float
	// column to the scale of the other side's decimal column.
	Scales []int32
	Floats []bool
}

// Read drains r into a normalised table. It does not release r.
func Read(r array.RecordReader) (*Table, error) {
	t := &Table{}
	for _, f := range r.Schema().Fields() {
		t.Columns = append(t.Columns, strings.ToLower(f.Name))
		t.Types = append(t.Types, f.Type.String())
		scale := int32(-1)
		switch dt := f.Type.(type) {
		case *arrow.Decimal128Type:
			scale = dt.Scale
		case *arrow.Decimal256Type:
			scale = dt.Scale
		}
		t.Scales = append(t.Scales, scale)
		t.Floats = append(t.Floats, f.Type.ID() == arrow.FLOAT32 || f.Type.ID() == arrow.FLOAT64)
	}
	for r.Next() {
		rec := r.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]string, rec.NumCols())
			for c := range row {
				row[c] = Cell(rec.Column(c), i)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("read records: %w", err)
	}
	return t, nil
}

// Cell normalises one Arrow value: every number as its value (integers
// exactly, others to Digits significant digits, so 14.50 as DECIMAL(4,2)
// and 14.5 as DOUBLE are both 14.5), dates as YYYY-MM-DD, timestamps as
// the UTC wall-clock time (a zoned timestamp is converted, a local one
// taken as UTC, which is how Thund reads Spark's session time zone),
// strings quoted, lists and structs element by element.
func Cell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch a := a.(type) {
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Uint8:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint16:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint32:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.FormatUint(a.Value(i), 10)
	case *array.Float32:
		return Float(float64(a.Value(i)))
	case *array.Float64:
		return Float(a.Value(i))
	case *array.Decimal128:
		return decimal(a.Value(i).BigInt(), a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Decimal256:
		return decimal(a.Value(i).BigInt(), a.DataType().(*arrow.Decimal256Type).Scale)
	case *array.String:
		return strconv.Quote(a.Value(i))
	case *array.LargeString:
		return strconv.Quote(a.Value(i))
	case *array.StringView:
		return strconv.Quote(a.Value(i))
	case *array.Binary:
		return fmt.Sprintf("x'%x'", a.Value(i))
	case *array.Date32:
		return a.Value(i).ToTime().Format("2006-01-02")
	case *array.Date64:
		return a.Value(i).ToTime().Format("2006-01-02")
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(i).ToTime(unit).UTC().Format("2006-01-02 15:04:05.999999")
	case *array.List:
		lo, hi := a.ValueOffsets(i)
		return list(a.ListValues(), int(lo), int(hi))
	case *array.LargeList:
		lo, hi := a.ValueOffsets(i)
		return list(a.ListValues(), int(lo), int(hi))
	case *array.FixedSizeList:
		lo, hi := a.ValueOffsets(i)
		return list(a.ListValues(), int(lo), int(hi))
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		parts := make([]string, a.NumField())
		for f := range parts {
			parts[f] = strings.ToLower(st.Field(f).Name) + ": " + Cell(a.Field(f), i)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return a.ValueStr(i)
}

func list(values arrow.Array, lo, hi int) string {
	parts := make([]string, 0, hi-lo)
	for j := lo; j < hi; j++ {
		parts = append(parts, Cell(values, j))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Float normalises a floating-point number: an integral value exactly,
// any other to Digits significant digits.
func Float(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', Digits, 64)
}

func decimal(unscaled *big.Int, scale int32) string {
	if scale <= 0 {
		v := new(big.Int).Set(unscaled)
		if scale < 0 {
			v.Mul(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil))
		}
		return v.String()
	}
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	q, r := new(big.Int).QuoRem(unscaled, den, new(big.Int))
	if r.Sign() == 0 {
		return q.String()
	}
	f, _ := new(big.Rat).SetFrac(unscaled, den).Float64()
	return Float(f)
}

// Outcome is a comparison's result.
type Outcome struct {
	Equal bool
	// Diff says how the tables differ: the columns, the row counts, or the
	// first row (in sorted order) one side has and the other lacks.
	Diff string
}

// Compare compares two normalised tables as multisets of rows.
func Compare(native, spark *Table) Outcome {
	if strings.Join(native.Columns, ",") != strings.Join(spark.Columns, ",") {
		return Outcome{Diff: fmt.Sprintf("columns differ: native (%s), Spark (%s)",
			strings.Join(native.Columns, ", "), strings.Join(spark.Columns, ", "))}
	}
	native, spark = alignScales(native, spark)
	a, b := sortedRows(native), sortedRows(spark)
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			i++
			j++
		case a[i] < b[j]:
			return Outcome{Diff: only("native", a[i], "Spark", b)}
		default:
			return Outcome{Diff: only("Spark", b[j], "native", a)}
		}
	}
	switch {
	case i < len(a):
		return Outcome{Diff: only("native", a[i], "Spark", b)}
	case j < len(b):
		return Outcome{Diff: only("Spark", b[j], "native", a)}
	}
	return Outcome{Equal: true}
}

// only describes a row one side has and the other lacks, with the other
// side's row of the same first value, if any, to compare with.
func only(side, row, other string, others []string) string {
	msg := fmt.Sprintf("only %s has (%s)", side, display(row))
	first, _, _ := strings.Cut(row, sep)
	for _, o := range others {
		if f, _, _ := strings.Cut(o, sep); f == first {
			return msg + fmt.Sprintf("; %s has (%s)", other, display(o))
		}
	}
	return msg
}

// alignScales rounds a floating-point column to the scale of the other
// side's DECIMAL column: Spark divides DECIMALs into a DECIMAL rounded to
// (at least) 6 places where DuckDB gives a DOUBLE, and both are right to
// the decimal's scale.
func alignScales(a, b *Table) (*Table, *Table) {
	round := func(t *Table, col int, scale int32) *Table {
		out := *t
		out.Rows = make([][]string, len(t.Rows))
		for i, r := range t.Rows {
			r = append([]string(nil), r...)
			if v, err := strconv.ParseFloat(r[col], 64); err == nil {
				p := math.Pow(10, float64(scale))
				r[col] = Float(math.Round(v*p) / p)
			}
			out.Rows[i] = r
		}
		return &out
	}
	for c := range a.Columns {
		if c >= len(a.Scales) || c >= len(b.Scales) {
			break
		}
		switch {
		case a.Floats[c] && b.Scales[c] >= 0:
			a = round(a, c, b.Scales[c])
		case b.Floats[c] && a.Scales[c] >= 0:
			b = round(b, c, a.Scales[c])
		}
	}
	return a, b
}

const sep = "\x1f"

func sortedRows(t *Table) []string {
	out := make([]string, len(t.Rows))
	for i, r := range t.Rows {
		out[i] = strings.Join(r, sep)
	}
	sort.Strings(out)
	return out
}

func display(row string) string { return strings.ReplaceAll(row, sep, ", ") }

// Excluded is a dataset the target backend cannot run, and why.
type Excluded struct {
	Dataset string
	// Reason is the capability diagnostic (file:line: message) or the
	// dataset it reads that is excluded.
	Reason string
}

// Portable splits the snapshot's datasets into those backend b can run
// and those it cannot: a dataset with a capability error for b (the
// diagnostics analysis gives before any run, capab.DatasetErrors), with a
// not-portable-to-spark warning for b in one of its queries, restricted
// away from b by @backends, or reading such a dataset. It
// returns the runnable datasets' keys and the excluded ones in pipeline
// order.
func Portable(s *analysis.Snapshot, b ir.Backend) (map[string]bool, []Excluded) {
	p := s.Pipeline
	reason := map[string]string{}
	python := map[string]ir.Loc{}
	for _, f := range p.Flows {
		if analysis.DefinedInPython(f) {
			python[ir.NameKey(f.Target)] = f.Loc
		}
	}
	for _, d := range p.Datasets {
		k := ir.NameKey(d.Name)
		if loc, ok := python[k]; ok {
			reason[k] = describe(s, ir.Diagnostic{Loc: loc, Message: "defined in Python: Thund reads it for the graph but neither runs it natively nor pushes it"})
			continue
		}
		if len(capab.Backends([]ir.Backend{b}, d)) == 0 {
			reason[k] = fmt.Sprintf("restricted to %v by @backends", d.Backends)
			continue
		}
		if errs := capab.DatasetErrors(p, d, b); len(errs) > 0 {
			reason[k] = describe(s, errs[0])
			continue
		}
		// DuckDB-only syntax is a warning for Spark, whichever backends
		// thund.yaml checks: Spark rejects it.
		for _, u := range capab.Uses(p, d) {
			if c, ok := capab.Matrix[u.Feature][b]; ok && u.Feature == capab.DuckDBSyntax && !c.OK {
				reason[k] = describe(s, ir.Diagnostic{Loc: u.Loc, Message: fmt.Sprintf("%s uses %s, which %s cannot run: %s", d.Name, u.Feature, b, c.Reason)})
				break
			}
		}
	}
	// A query analysis warns is not portable (a DuckDB-only function, one
	// that means something else on Spark, or DuckDB-only syntax in the
	// duckdb dialect) would fail or differ there.
	for _, d := range s.Diagnostics {
		if (d.Code != ir.CodeNotPortable && d.Code != ir.CodeUnsupported) || d.Backend != b {
			continue
		}
		for _, f := range p.Flows {
			q := f.QueryLoc
			if q.File == d.Loc.File && q.Start <= d.Loc.Start && d.Loc.Start < q.End && reason[ir.NameKey(f.Target)] == "" {
				reason[ir.NameKey(f.Target)] = describe(s, d)
			}
		}
	}
	// Whatever reads an excluded dataset is excluded too, until nothing
	// changes.
	for changed := true; changed; {
		changed = false
		for _, f := range p.Flows {
			k := ir.NameKey(f.Target)
			if reason[k] != "" {
				continue
			}
			for _, r := range f.Reads {
				if d := p.Resolve(r.Name); d != nil && reason[ir.NameKey(d.Name)] != "" {
					reason[k] = "reads " + d.Name + ", which is not portable"
					changed = true
					break
				}
			}
		}
	}
	keep := map[string]bool{}
	var out []Excluded
	for _, d := range p.Datasets {
		if r := reason[ir.NameKey(d.Name)]; r != "" {
			out = append(out, Excluded{Dataset: d.Name, Reason: r})
			continue
		}
		keep[ir.NameKey(d.Name)] = true
	}
	return keep, out
}

// describe renders a diagnostic as file:line: message.
func describe(s *analysis.Snapshot, d ir.Diagnostic) string {
	pos := s.Index(d.Loc.File).Rune(d.Loc.Start)
	return fmt.Sprintf("%s:%d: %s", d.Loc.File, pos.Line+1, d.Message)
}

// Status is a dataset's line in the parity table.
type Status string

// Statuses.
const (
	// Equal: both engines produce the same rows.
	Equal Status = "equal"
	// Differs: they do not; Detail has the first differing row.
	Differs Status = "DIFFERS"
	// NotPortable: analysis refuses the dataset for Spark before any run
	// (Detail is the diagnostic), so there is nothing to compare.
	NotPortable Status = "not portable"
	// NotStored: a temporary view, which Spark keeps no table for.
	NotStored Status = "not stored"
)

// Row is one dataset's outcome.
type Row struct {
	Pipeline, Dataset     string
	NativeRows, SparkRows int
	Status                Status
	Detail                string
}

// Report renders docs/parity.md: one column per Spark release of runs
// (release, such as "4.1.4", to that run's rows), oldest first, one row
// per dataset of latest's run (the run that writes the file; a dataset
// another release has no row for says "not run"), sorted by pipeline and
// dataset. Each release's summary line counts its own rows.
func Report(runs map[string][]Row, latest string) string {
	var releases []string
	for r := range runs {
		releases = append(releases, r)
	}
	sort.Slice(releases, func(i, j int) bool { return releaseLess(releases[i], releases[j]) })
	type key struct{ pipeline, dataset string }
	cells := map[string]map[key]Row{}
	for rel, rows := range runs {
		cells[rel] = map[key]Row{}
		for _, r := range rows {
			cells[rel][key{r.Pipeline, r.Dataset}] = r
		}
	}
	rows := append([]Row(nil), runs[latest]...)
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Pipeline != rows[j].Pipeline {
			return rows[i].Pipeline < rows[j].Pipeline
		}
		return rows[i].Dataset < rows[j].Dataset
	})
	var b strings.Builder
	b.WriteString(`# Parity: native preview against Spark

Written by the parity suite (package ` + "`parity`" + `): every testdata pipeline
runs on embedded DuckDB and, through ` + "`sdplower.Push`" + `, on a real Spark
Connect server; every dataset Spark materialises is read back over Spark
Connect (Arrow batches) and compared with the native rows. One column per
Spark release the suite ran on: ` + "`make test`" + ` runs it on the oldest
supported release, 4.1.4, and on the newest, 4.3.0, one server at a time.
Regenerate a column with ` + "`go test -tags duckdb_arrow ./parity -update`" + `
against that release's server (` + "`THUND_SPARK_VERSION=4.3.0`" + ` selects the
server the suite starts or finds); the other columns are kept as they are.
Without ` + "`-update`" + ` the suite fails when the server's column is not what it
produces, and always fails when a dataset differs.

Pipelines: every folder of testdata/ as written; retail again with its
` + "`@expect`" + ` lines removed (as written it is not portable, yet its SQL is the
richest of the testdata); clickstream again with page_views_per_minute
written on the Spark side as Spark runs it (grouped by
` + "`window(event_time, '1 minute')`" + ` instead of
` + "`date_trunc('minute', event_time)`" + `, which Spark
refuses in append mode; the native engine runs both forms alike and keeps
the pipeline's own); and parity/testdata/spark_sql, the suite's
own pipeline calling the Spark SQL functions Thund maps onto DuckDB.

Comparison: order-insensitive (rows as a multiset); column names compared
ignoring case; numbers by value whatever their type (INT against BIGINT,
DECIMAL against DOUBLE; non-integral values to 12 significant digits, and
a DOUBLE against a DECIMAL at the decimal's scale, as Spark divides
DECIMALs into a DECIMAL rounded to 6 places where DuckDB gives a DOUBLE);
timestamps as UTC wall-clock times (Spark runs with session time zone UTC,
as Thund reads TIMESTAMP); NULL equals NULL only. Samples reach Spark as
tables over the same files (CSV with a header and inferred types, JSON,
Parquet; a micro-batch folder as one table that is read as a stream).
Spark's own bookkeeping column of an SCD 2 table
(` + "`__spark_autocdc_metadata`" + `) is left out of the comparison.

A dataset a Spark release cannot run is "not portable" there: analysis
reports it before any run (the diagnostic is quoted), and datasets reading
it are left out with it. A Python dataset whose body Thund cannot state
in SQL is one of them: Thund reads it for the graph but neither runs nor
pushes it; the ` + "`spark-pipelines run`" + ` check of the suite runs it on Spark.

Two folders are left out of the comparison (` + "`notCompared`" + ` in
parity/parity_test.go) because the suite cannot model them:
` + "`parameters`" + ` reads a source in another schema
(` + "`${source_schema}.zones`" + `) and ` + "`naming_qualified`" + ` defines datasets in two
schemas (` + "`a.x`" + ` beside ` + "`b.x`" + `), while the suite's sample tables live in
the run's one database.

`)
	for _, rel := range releases {
		count := map[Status]int{}
		for _, r := range rows {
			if c, ok := cells[rel][key{r.Pipeline, r.Dataset}]; ok {
				count[c.Status]++
			}
		}
		fmt.Fprintf(&b, "- Spark %s: %d datasets: %d equal, %d differ, %d not portable, %d not stored (temporary views).\n",
			rel, count[Equal]+count[Differs]+count[NotPortable]+count[NotStored], count[Equal], count[Differs], count[NotPortable], count[NotStored])
	}
	b.WriteString("\n| pipeline | dataset |")
	for _, rel := range releases {
		b.WriteString(" Spark " + rel + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(releases)) + "\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s |", escapeCell(r.Pipeline), escapeCell(r.Dataset))
		for _, rel := range releases {
			c, ok := cells[rel][key{r.Pipeline, r.Dataset}]
			text := notRun
			if ok {
				text = cellText(c)
			}
			b.WriteString(" " + escapeCell(text) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// notRun is the cell of a dataset a release's run did not have.
const notRun = "not run"

// cellText is one release's cell of row r: the status, the row counts
// of a comparison ("equal (6 / 6)"), and the detail after a colon.
func cellText(r Row) string {
	s := string(r.Status)
	if r.Status == Equal || r.Status == Differs {
		s += fmt.Sprintf(" (%d / %d)", r.NativeRows, r.SparkRows)
	}
	if r.Detail != "" {
		s += ": " + r.Detail
	}
	return s
}

func escapeCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// ParseReport reads back what Report wrote: each release's rows, keyed
// by release. Cells that say "not run" give no row. It fails on a table
// it cannot read, naming the line.
func ParseReport(text string) (map[string][]Row, error) {
	out := map[string][]Row{}
	var releases []string
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := splitRow(line)
		if len(cells) >= 2 && cells[0] == "pipeline" && cells[1] == "dataset" {
			releases = nil
			for _, c := range cells[2:] {
				rel, ok := strings.CutPrefix(c, "Spark ")
				if !ok {
					return nil, fmt.Errorf("line %d: column %q names no Spark release", i+1, c)
				}
				releases = append(releases, rel)
			}
			continue
		}
		if releases == nil {
			return nil, fmt.Errorf("line %d: a table row before the table's header", i+1)
		}
		if len(cells) != 2+len(releases) {
			return nil, fmt.Errorf("line %d: %d cells, want %d", i+1, len(cells), 2+len(releases))
		}
		for j, rel := range releases {
			if cells[2+j] == notRun {
				continue
			}
			r, err := parseCell(cells[2+j])
			if err != nil {
				return nil, fmt.Errorf("line %d, Spark %s: %w", i+1, rel, err)
			}
			r.Pipeline, r.Dataset = cells[0], cells[1]
			out[rel] = append(out[rel], r)
		}
	}
	return out, nil
}

// splitRow splits a Markdown table row at its unescaped bars, unescaping
// the cells.
func splitRow(line string) []string {
	var cells []string
	var cur strings.Builder
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	if rest := strings.TrimSpace(cur.String()); rest != "" {
		cells = append(cells, rest)
	}
	return cells
}

// parseCell reads a cell cellText wrote.
func parseCell(c string) (Row, error) {
	for _, st := range []Status{Equal, Differs, NotPortable, NotStored} {
		rest, ok := strings.CutPrefix(c, string(st))
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != ':') {
			continue
		}
		r := Row{Status: st}
		if st == Equal || st == Differs {
			if _, err := fmt.Sscanf(rest, " (%d / %d)", &r.NativeRows, &r.SparkRows); err != nil {
				return Row{}, fmt.Errorf("cell %q: no row counts: %w", c, err)
			}
			rest = rest[strings.IndexByte(rest, ')')+1:]
		}
		if d, ok := strings.CutPrefix(rest, ": "); ok {
			r.Detail = d
		} else if rest != "" {
			return Row{}, fmt.Errorf("cell %q: %q after the status", c, rest)
		}
		return r, nil
	}
	return Row{}, fmt.Errorf("cell %q: no status (equal, DIFFERS, not portable, not stored)", c)
}

// releaseLess orders Spark releases by their numbers (4.1.4 before
// 4.3.0, 4.10 after 4.9).
func releaseLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, errx := strconv.Atoi(as[i])
		y, erry := strconv.Atoi(bs[i])
		if errx != nil || erry != nil {
			if as[i] != bs[i] {
				return as[i] < bs[i]
			}
			continue
		}
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}

// SampleTable returns the Spark statement that makes a source's sample a
// table in database db: a table over the sample file or micro-batch
// folder (root is the pipeline root), in the sample's format. A folder
// table is read as a stream by STREAM(...), one file set per trigger.
func SampleTable(db string, src *ir.Source, root string) (string, error) {
	abs, err := filepath.Abs(filepath.Join(root, filepath.FromSlash(src.Sample)))
	if err != nil {
		return "", fmt.Errorf("sample of %s: %w", src.Name, err)
	}
	ext := strings.ToLower(filepath.Ext(abs))
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		files, err := engine.BatchFiles(abs)
		if err != nil || len(files) == 0 {
			return "", fmt.Errorf("sample folder %s of %s holds no sample file (%v)", src.Sample, src.Name, err)
		}
		ext = strings.ToLower(filepath.Ext(files[0]))
	}
	var using string
	switch ext {
	case ".csv":
		using = "csv OPTIONS (header 'true', inferSchema 'true', path '%s')"
	case ".tsv":
		using = "csv OPTIONS (header 'true', inferSchema 'true', sep '\\t', path '%s')"
	case ".json", ".ndjson", ".jsonl":
		using = "json OPTIONS (path '%s')"
	case ".parquet":
		using = "parquet OPTIONS (path '%s')"
	default:
		return "", fmt.Errorf("sample %s of %s: no Spark reader for %q", src.Sample, src.Name, ext)
	}
	name := src.Name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	path := strings.ReplaceAll(filepath.ToSlash(abs), "'", "\\'")
	return fmt.Sprintf("CREATE TABLE %s.`%s` USING "+using, db, strings.ReplaceAll(name, "`", "``"), path), nil
}
