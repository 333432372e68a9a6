// Package preview pages engine results and renders them: as JSON-ready
// values (numbers as numbers, NULL as nil, dates and timestamps as ISO
// strings), as a terminal table, and as HTML. Rows arrive as Arrow record
// batches; only the rows of the requested page are converted to Go values.
package preview

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"time"

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

// Page is one page of a dataset's rows.
type Page struct {
	Dataset   string        `json:"dataset"`
	Columns   []Column      `json:"columns"`
	Rows      [][]any       `json:"rows"`
	TotalRows int64         `json:"total_rows"`
	Offset    int           `json:"offset"`
	Limit     int           `json:"limit"`
	Elapsed   time.Duration `json:"-"`
}

// Dataset reads one page of a materialised dataset (or view) from the
// session: a count, then the page itself through Arrow.
func Dataset(ctx context.Context, s *engine.Session, name string, offset, limit int) (*Page, error) {
	start := time.Now()
	rel := engine.RelationSQL(name)
	var total int64
	if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM "+rel).Scan(&total); err != nil {
		return nil, fmt.Errorf("preview %s: %w", name, err)
	}
	p, err := Query(ctx, s, fmt.Sprintf("SELECT * FROM %s LIMIT %d OFFSET %d", rel, limit, offset), 0, limit)
	if err != nil {
		return nil, fmt.Errorf("preview %s: %w", name, err)
	}
	p.Dataset, p.TotalRows, p.Offset = name, total, offset
	p.Elapsed = time.Since(start)
	return p, nil
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
// [offset, offset+limit) to Go values.
func FromReader(r array.RecordReader, offset, limit int) (*Page, error) {
	p := &Page{Offset: offset, Limit: limit, Rows: [][]any{}}
	for _, f := range r.Schema().Fields() {
		p.Columns = append(p.Columns, Column{Name: f.Name, Type: TypeName(f.Type)})
	}
	var seen int64
	for r.Next() {
		rec := r.RecordBatch()
		n := rec.NumRows()
		lo, hi := int64(offset)-seen, int64(offset+limit)-seen
		if lo < 0 {
			lo = 0
		}
		if hi > n {
			hi = n
		}
		for i := lo; i < hi; i++ {
			row := make([]any, rec.NumCols())
			for c := range row {
				row[c] = Value(rec.Column(c), int(i))
			}
			p.Rows = append(p.Rows, row)
		}
		seen += n
	}
	p.TotalRows = seen
	return p, r.Err()
}

// Value converts one Arrow cell to a JSON-ready Go value.
func Value(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
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
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	// Arrow strings alias the batch's buffers, which are released after
	// the read: copy them.
	case *array.String:
		return strings.Clone(a.Value(i))
	case *array.LargeString:
		return strings.Clone(a.Value(i))
	case *array.StringView:
		return strings.Clone(a.Value(i))
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

func decimalString(v decimal128.Num, scale int32) string {
	f := new(big.Float).SetInt(v.BigInt())
	if scale > 0 {
		f.Quo(f, new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	}
	return f.Text('f', int(scale))
}

// TypeName names an Arrow type the way SQL users know it.
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
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
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
	}
	return t.String()
}
