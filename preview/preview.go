// Package preview pages engine results and renders them: as JSON-ready
// values (numbers as numbers, NULL as nil, dates and timestamps as ISO
// strings), as a terminal table, and as HTML. Rows arrive as Arrow record
// batches; only the rows of the requested page are converted to Go values.
//
// A page is bounded: a value longer than MaxValueBytes is cut, with a
// note in the value itself and in Page.Truncated, and rows stop being
// added once the page holds MaxPageBytes (Page.Cut says so). The number of
// rows per page is bounded by the callers (project.PreviewMaxRows).
package preview

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/thund-dev/thund/engine"
)

// Column is a result column: its name and DuckDB / Arrow type.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// MaxValueBytes is the longest string, binary or nested value a page
// holds whole: a longer one keeps its first MaxValueBytes bytes (a string
// is cut at a character boundary, a binary value is shown as base64, a
// list or struct as its JSON text) followed by TruncatedNote.
const MaxValueBytes = 64 << 10

// MaxPageBytes bounds the values of one page (strings and binary values
// by their length, other values by an estimate): once a page holds this
// much, no further row is added and Page.Cut says why. A page always
// holds at least one row of those asked for.
const MaxPageBytes = 16 << 20

// Truncation is a cell whose value was cut to MaxValueBytes.
type Truncation struct {
	// Row is the index in Page.Rows, Column in Page.Columns.
	Row    int `json:"row"`
	Column int `json:"column"`
	// Bytes is the size of the whole value (for a list or struct, of its
	// JSON text).
	Bytes int `json:"bytes"`
}

// TruncatedNote is what follows the kept part of a value longer than
// MaxValueBytes: "…(truncated, N bytes)", N the size of the whole value.
func TruncatedNote(n int) string {
	return fmt.Sprintf("…(truncated, %d bytes)", n)
}

// Page is one page of a dataset's rows.
type Page struct {
	Dataset   string        `json:"dataset"`
	Columns   []Column      `json:"columns"`
	Rows      [][]any       `json:"rows"`
	TotalRows int64         `json:"total_rows"`
	Offset    int           `json:"offset"`
	Limit     int           `json:"limit"`
	Elapsed   time.Duration `json:"-"`
	// Truncated lists the cells whose value was cut (see MaxValueBytes),
	// in row order.
	Truncated []Truncation `json:"truncated,omitempty"`
	// Cut, when set, says that the page holds fewer rows than asked
	// because its values reached MaxPageBytes, and where to page on.
	Cut string `json:"cut,omitempty"`
}

// Dataset reads one page of a materialised dataset (or view) from the
// session: a count, then the page itself through Arrow.
func Dataset(ctx context.Context, s *engine.Session, name string, offset, limit int) (*Page, error) {
	start := time.Now()
	rel := s.RelationSQL(name)
	var total int64
	if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM "+rel).Scan(&total); err != nil {
		return nil, fmt.Errorf("preview %s: %w", name, err)
	}
	p, err := Query(ctx, s, fmt.Sprintf("SELECT * FROM %s LIMIT %d OFFSET %d", rel, limit, offset), 0, limit)
	if err != nil {
		return nil, fmt.Errorf("preview %s: %w", name, err)
	}
	p.Dataset, p.TotalRows, p.Offset = name, total, offset
	withSparkTypes(p, s.SparkTypes(name))
	if p.Cut != "" {
		p.Cut = cutNote(len(p.Rows), limit, offset)
	}
	p.Elapsed = time.Since(start)
	return p, nil
}

// withSparkTypes names the Spark type of each column of p that the run
// recorded one for (a TIMESTAMP_NTZ column is a TIMESTAMP in DuckDB, the
// Arrow type tells no more); types has one entry per column, or none.
func withSparkTypes(p *Page, types []string) {
	if len(types) != len(p.Columns) {
		return
	}
	for i, t := range types {
		if t != "" {
			p.Columns[i].Type = SparkType(t)
		}
	}
}

// Query runs a query and returns the rows offset..offset+limit of its
// result; TotalRows counts every row of the result.
func Query(ctx context.Context, s *engine.Session, query string, offset, limit int) (*Page, error) {
	start := time.Now()
	var page *Page
	err := s.QueryArrow(ctx, query, func(r array.RecordReader) error {
		var err error
		page, err = FromReader(r, offset, limit)
		return err
	})
	if err != nil {
		return nil, err
	}
	page.Elapsed = time.Since(start)
	return page, nil
}

// FromReader reads every batch of r, converting only the rows in
// [offset, offset+limit) to Go values, within MaxPageBytes.
func FromReader(r array.RecordReader, offset, limit int) (*Page, error) {
	p := &Page{Offset: offset, Limit: limit, Rows: [][]any{}}
	for _, f := range r.Schema().Fields() {
		p.Columns = append(p.Columns, Column{Name: f.Name, Type: TypeName(f.Type)})
	}
	var seen int64
	size := 0
	for r.Next() {
		rec := r.RecordBatch()
		n := rec.NumRows()
		lo, hi := int64(offset)-seen, int64(offset)+int64(limit)-seen
		if lo < 0 {
			lo = 0
		}
		if hi > n {
			hi = n
		}
		for i := lo; i < hi && p.Cut == ""; i++ {
			row := make([]any, rec.NumCols())
			rowSize := 0
			var cut []Truncation
			for c := range row {
				v, whole, sz := value(rec.Column(c), int(i))
				row[c] = v
				rowSize += sz
				if whole > 0 {
					cut = append(cut, Truncation{Row: len(p.Rows), Column: c, Bytes: whole})
				}
			}
			if len(p.Rows) > 0 && size+rowSize > MaxPageBytes {
				p.Cut = cutNote(len(p.Rows), limit, offset)
				break
			}
			size += rowSize
			p.Rows = append(p.Rows, row)
			p.Truncated = append(p.Truncated, cut...)
		}
		seen += n
	}
	p.TotalRows = seen
	return p, r.Err()
}

// cutNote is Page.Cut for a page of rows rows, from offset, that stopped
// at MaxPageBytes.
func cutNote(rows, limit, offset int) string {
	return fmt.Sprintf("the page stops after %d of the %d rows asked for: its values reach %d MiB, the most one page holds; page on from offset %d",
		rows, limit, MaxPageBytes>>20, offset+rows)
}

// Value converts one Arrow cell to a JSON-ready Go value; a value longer
// than MaxValueBytes is cut, and ends with TruncatedNote.
func Value(a arrow.Array, i int) any {
	v, _, _ := value(a, i)
	return v
}

// value is Value, with the size of the whole value when it was cut (else
// 0) and an estimate of the bytes the returned value holds.
func value(a arrow.Array, i int) (v any, whole, size int) {
	if a.IsNull(i) {
		return nil, 0, 1
	}
	switch a := a.(type) {
	// Arrow strings and bytes alias the batch's buffers, which are
	// released after the read: copy them (only the part kept).
	case *array.String:
		return clipString(a.Value(i))
	case *array.LargeString:
		return clipString(a.Value(i))
	case *array.StringView:
		return clipString(a.Value(i))
	case *array.Binary:
		return clipBytes(a.Value(i))
	case *array.LargeBinary:
		return clipBytes(a.Value(i))
	case *array.BinaryView:
		return clipBytes(a.Value(i))
	case *array.List, *array.LargeList, *array.ListView, *array.LargeListView, *array.FixedSizeList, *array.Struct, *array.Map, *array.Dictionary:
		return clipNested(nested(a, i))
	case *array.DenseUnion, *array.SparseUnion:
		return clipNested(copyNestedValue(a.GetOneForMarshal(i)))
	}
	return scalar(a, i), 0, 16
}

// clipString copies s, cut to MaxValueBytes at a character boundary.
func clipString(s string) (any, int, int) {
	if len(s) <= MaxValueBytes {
		return strings.Clone(s), 0, len(s)
	}
	n := MaxValueBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	out := strings.Clone(s[:n]) + TruncatedNote(len(s))
	return out, len(s), len(out)
}

// clipBytes copies b; longer than MaxValueBytes, it becomes the base64
// text of its first MaxValueBytes bytes (what JSON shows of bytes) and
// the note.
func clipBytes(b []byte) (any, int, int) {
	if len(b) <= MaxValueBytes {
		return bytes.Clone(b), 0, len(b) * 4 / 3
	}
	out := base64.StdEncoding.EncodeToString(b[:MaxValueBytes]) + TruncatedNote(len(b))
	return out, len(b), len(out)
}

// clipNested bounds a list, struct or map (as nested converts it) by the
// size of its JSON text: longer than MaxValueBytes, it becomes that text,
// cut, and the note.
func clipNested(v any) (any, int, int) {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v), 0, 16
	}
	if len(b) <= MaxValueBytes {
		return v, 0, len(b)
	}
	s, _, size := clipString(string(b))
	return s, len(b), size
}

// Object is a struct's or a map's value with its entries in order: a
// struct's fields as declared, a map's entries as stored, as Spark shows
// them. JSON encodes it as an object whose keys keep that order (a Go map
// would sort them). A map key that is not a string is its text as Cell
// writes it.
type Object struct {
	Keys   []string
	Values []any
}

// MarshalJSON encodes o as a JSON object in the order of o.Keys.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.Keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, fmt.Errorf("preview: key %q: %w", k, err)
		}
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.Values[i])
		if err != nil {
			return nil, fmt.Errorf("preview: value of %q: %w", k, err)
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// nested converts cell i of a list, struct, map or dictionary array, and
// recursively its elements, into copies that do not alias Arrow's
// buffers: lists as []any, structs and maps as Object (in their order),
// scalars as value converts them, floats that JSON cannot hold as Finite
// does.
func nested(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		o := Object{Keys: make([]string, a.NumField()), Values: make([]any, a.NumField())}
		for f := range a.NumField() {
			o.Keys[f] = st.Field(f).Name
			o.Values[f] = nested(a.Field(f), i)
		}
		return o
	case *array.Map:
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		o := Object{Keys: make([]string, 0, end-start), Values: make([]any, 0, end-start)}
		for j := start; j < end; j++ {
			o.Keys = append(o.Keys, Cell(nested(keys, int(j))))
			o.Values = append(o.Values, nested(items, int(j)))
		}
		return o
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		child := a.ListValues()
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			out = append(out, nested(child, int(j)))
		}
		return out
	case *array.Dictionary:
		return nested(a.Dictionary(), a.GetValueIndex(i))
	case *array.String:
		return strings.Clone(a.Value(i))
	case *array.LargeString:
		return strings.Clone(a.Value(i))
	case *array.StringView:
		return strings.Clone(a.Value(i))
	case *array.Binary:
		return bytes.Clone(a.Value(i))
	case *array.LargeBinary:
		return bytes.Clone(a.Value(i))
	case *array.BinaryView:
		return bytes.Clone(a.Value(i))
	case *array.DenseUnion, *array.SparseUnion:
		return copyNestedValue(a.GetOneForMarshal(i))
	}
	return scalar(a, i)
}

// copyNestedValue is v (a value as Arrow marshals it) read back from its
// JSON text (see copyNested), non-finite floats replaced as Finite does.
func copyNestedValue(v any) any {
	v = finiteNested(v)
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	return copyNested(b, v)
}

// copyNested returns the value of the JSON text b (v's encoding), its
// numbers kept as written (json.Number), so that nothing of it aliases
// Arrow's buffers; v itself if b does not decode.
func copyNested(b []byte, v any) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		return v
	}
	return out
}

// scalar converts a cell that is neither a string, bytes nor nested.
func scalar(a arrow.Array, i int) any {
	switch a := a.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Uint8:
		return uint64(a.Value(i))
	case *array.Uint16:
		return uint64(a.Value(i))
	case *array.Uint32:
		return uint64(a.Value(i))
	case *array.Uint64:
		return a.Value(i)
	case *array.Float32:
		if f := a.Value(i); !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) {
			return f // a float32 keeps its own shortest digits (0.1, not 0.10000000149011612)
		}
		return Finite(float64(a.Value(i)))
	case *array.Float64:
		return Finite(a.Value(i))
	case *array.Date32:
		return a.Value(i).ToTime().Format("2006-01-02")
	case *array.Date64:
		return a.Value(i).ToTime().Format("2006-01-02")
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		t := a.Value(i).ToTime(unit)
		if a.DataType().(*arrow.TimestampType).TimeZone != "" {
			return t.UTC().Format(time.RFC3339Nano)
		}
		return t.UTC().Format("2006-01-02T15:04:05.999999999")
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return json.Number(decimalString(a.Value(i), scale))
	}
	return a.GetOneForMarshal(i)
}

// Finite returns f, or for a value JSON has no number for, the string
// Spark casts it to: "NaN", "Infinity" or "-Infinity". Every preview
// value can then be encoded as JSON.
func Finite(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return f
}

// finiteNested is v (a list, struct or map as Arrow marshals it) with
// every non-finite float replaced as Finite does.
func finiteNested(v any) any {
	switch v := v.(type) {
	case float64:
		return Finite(v)
	case float32:
		return Finite(float64(v))
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = finiteNested(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = finiteNested(e)
		}
		return out
	}
	return v
}

func decimalString(v decimal128.Num, scale int32) string {
	f := new(big.Float).SetInt(v.BigInt())
	if scale > 0 {
		f.Quo(f, new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	}
	return f.Text('f', int(scale))
}

// TypeName names an Arrow type the way DuckDB does (INTEGER, VARCHAR,
// INTEGER[], STRUCT("a" INTEGER)); what users see goes through SparkType.
func TypeName(t arrow.DataType) string {
	switch t.ID() {
	case arrow.BOOL:
		return "BOOLEAN"
	case arrow.INT8:
		return "TINYINT"
	case arrow.INT16:
		return "SMALLINT"
	case arrow.INT32:
		return "INTEGER"
	case arrow.INT64:
		return "BIGINT"
	case arrow.UINT8:
		return "UTINYINT"
	case arrow.UINT16:
		return "USMALLINT"
	case arrow.UINT32:
		return "UINTEGER"
	case arrow.UINT64:
		return "UBIGINT"
	case arrow.FLOAT32:
		return "FLOAT"
	case arrow.FLOAT64:
		return "DOUBLE"
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return "VARCHAR"
	case arrow.DATE32, arrow.DATE64:
		return "DATE"
	case arrow.TIMESTAMP:
		if t.(*arrow.TimestampType).TimeZone != "" {
			return "TIMESTAMP WITH TIME ZONE"
		}
		return "TIMESTAMP"
	case arrow.DECIMAL128:
		d := t.(*arrow.Decimal128Type)
		return fmt.Sprintf("DECIMAL(%d,%d)", d.Precision, d.Scale)
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY:
		return "BLOB"
	case arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTH_DAY_NANO, arrow.DURATION:
		return "INTERVAL"
	case arrow.NULL:
		return "NULL"
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.LIST_VIEW:
		if l, ok := t.(arrow.ListLikeType); ok {
			return TypeName(l.Elem()) + "[]"
		}
	case arrow.MAP:
		m := t.(*arrow.MapType)
		return "MAP(" + TypeName(m.KeyType()) + ", " + TypeName(m.ItemType()) + ")"
	case arrow.STRUCT:
		st := t.(*arrow.StructType)
		fields := make([]string, st.NumFields())
		for i, f := range st.Fields() {
			fields[i] = `"` + strings.ReplaceAll(f.Name, `"`, `""`) + `" ` + TypeName(f.Type)
		}
		return "STRUCT(" + strings.Join(fields, ", ") + ")"
	}
	return t.String()
}
