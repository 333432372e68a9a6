package sparkconnect_test

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

// Read back over Spark Connect: one query with a column of each type a
// pipeline commonly produces, decoded from Spark's Arrow batches.
func TestQueryArrowTypes(t *testing.T) {
	c := sparktest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.SQL(ctx, "SET spark.sql.session.timeZone = UTC"); err != nil {
		t.Fatal(err)
	}
	rdr, err := c.QueryArrow(ctx, `SELECT * FROM VALUES
	  (1, CAST(10000000000 AS BIGINT), 12.50BD, 'a', TIMESTAMP '2025-03-03 07:02:00.5', DATE '2025-03-03', array(1, 2), 1.5D, true),
	  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
	  AS t(i, l, d, s, ts, dt, arr, f, b)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	wantTypes := []arrow.Type{arrow.INT32, arrow.INT64, arrow.DECIMAL128, arrow.STRING, arrow.TIMESTAMP, arrow.DATE32, arrow.LIST, arrow.FLOAT64, arrow.BOOL}
	fields := rdr.Schema().Fields()
	if len(fields) != len(wantTypes) {
		t.Fatalf("schema %s: want %d columns", rdr.Schema(), len(wantTypes))
	}
	for i, f := range fields {
		if f.Type.ID() != wantTypes[i] {
			t.Errorf("column %s is %s, want %s", f.Name, f.Type, wantTypes[i])
		}
	}
	var rows int64
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			id := rec.Column(0).(*array.Int32).Value(r)
			switch id {
			case 1:
				if v := rec.Column(1).(*array.Int64).Value(r); v != 10000000000 {
					t.Errorf("l = %d", v)
				}
				dec := rec.Column(2).(*array.Decimal128)
				scale := dec.DataType().(*arrow.Decimal128Type).Scale
				if got := dec.Value(r).ToString(scale); got != "12.50" || scale != 2 {
					t.Errorf("d = %s, want 12.50 (type %s)", got, dec.DataType())
				}
				if got := rec.Column(3).(*array.String).Value(r); got != "a" {
					t.Errorf("s = %q", got)
				}
				ts := rec.Column(4).(*array.Timestamp)
				unit := ts.DataType().(*arrow.TimestampType).Unit
				if got, want := ts.Value(r).ToTime(unit), time.Date(2025, 3, 3, 7, 2, 0, 5e8, time.UTC); !got.Equal(want) {
					t.Errorf("ts = %v, want %v", got, want)
				}
				if got := rec.Column(5).(*array.Date32).Value(r).ToTime().Format("2006-01-02"); got != "2025-03-03" {
					t.Errorf("dt = %s", got)
				}
				list := rec.Column(6).(*array.List)
				lo, hi := list.ValueOffsets(r)
				vals := list.ListValues().(*array.Int32)
				if hi-lo != 2 || vals.Value(int(lo)) != 1 || vals.Value(int(lo)+1) != 2 {
					t.Errorf("arr = %s, want [1 2]", list.ValueStr(r))
				}
				if got := rec.Column(7).(*array.Float64).Value(r); got != 1.5 {
					t.Errorf("f = %v", got)
				}
				if !rec.Column(8).(*array.Boolean).Value(r) {
					t.Errorf("b = false")
				}
			case 2:
				for col := 1; col < int(rec.NumCols()); col++ {
					if !rec.Column(col).IsNull(r) {
						t.Errorf("row 2 column %s is not NULL", fields[col].Name)
					}
				}
			default:
				t.Errorf("unexpected row id %d", id)
			}
			rows++
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	if rows != 2 {
		t.Errorf("%d rows, want 2", rows)
	}
}

// An empty result still has its schema; a large one arrives in several
// batches, all kept.
func TestQueryArrowEmptyAndLarge(t *testing.T) {
	c := sparktest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rdr, err := c.QueryArrow(ctx, "SELECT id, CAST(id AS STRING) AS s FROM range(10) WHERE id < 0")
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for rdr.Next() {
		n += rdr.RecordBatch().NumRows()
	}
	t.Logf("empty result schema: %s", rdr.Schema())
	rdr.Release()
	if n != 0 {
		t.Errorf("empty query gave %d rows", n)
	}
	rdr, err = c.QueryArrow(ctx, "SELECT id, repeat('x', 100) AS s FROM range(0, 200000, 1, 4)")
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	var sum int64
	batches := 0
	n = 0
	for rdr.Next() {
		rec := rdr.RecordBatch()
		batches++
		ids := rec.Column(0).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			sum += ids.Value(i)
		}
		n += rec.NumRows()
	}
	if n != 200000 || sum != 200000*199999/2 {
		t.Errorf("%d rows summing to %d, want 200000 summing to %d", n, sum, 200000*199999/2)
	}
	t.Logf("200000 rows in %d batches", batches)
}

// A query Spark cannot analyse fails with Spark's error, and no reader.
func TestQueryArrowError(t *testing.T) {
	c := sparktest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rdr, err := c.QueryArrow(ctx, "SELECT no_such_column FROM range(1)")
	if err == nil {
		rdr.Release()
		t.Fatal("no error for an unknown column")
	}
	if rdr != nil {
		t.Errorf("a reader came back with the error %v", err)
	}
	t.Logf("error: %v", err)
}
