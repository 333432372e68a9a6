package parity

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Cells of different types but equal values normalise alike; different
// values do not.
func TestCellNormalisesTypes(t *testing.T) {
	mem := memory.NewGoAllocator()
	dec := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 4, Scale: 2})
	dec.Append(decimal128.FromI64(1450)) // 14.50
	dec.Append(decimal128.FromI64(7000)) // 70.00
	dec.AppendNull()
	decs := dec.NewArray()
	defer decs.Release()
	f := array.NewFloat64Builder(mem)
	f.AppendValues([]float64{14.5, 70, 0.1 + 0.2}, nil)
	floats := f.NewArray()
	defer floats.Release()
	i := array.NewInt32Builder(mem)
	i.Append(70)
	ints := i.NewArray()
	defer ints.Release()
	if Cell(decs, 0) != Cell(floats, 0) || Cell(decs, 1) != Cell(floats, 1) || Cell(decs, 1) != Cell(ints, 0) {
		t.Errorf("14.50/70.00 as DECIMAL = %s/%s, as DOUBLE %s/%s, 70 as INT %s", Cell(decs, 0), Cell(decs, 1), Cell(floats, 0), Cell(floats, 1), Cell(ints, 0))
	}
	if Cell(decs, 2) != "NULL" {
		t.Errorf("NULL = %s", Cell(decs, 2))
	}
	if got := Cell(floats, 2); got != "0.3" {
		t.Errorf("0.1+0.2 = %s, want 0.3 at %d digits", got, Digits)
	}

	at := time.Date(2025, 3, 3, 7, 2, 0, 0, time.UTC)
	zoned := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "Europe/Paris"})
	zoned.Append(arrow.Timestamp(at.UnixMicro()))
	z := zoned.NewArray()
	defer z.Release()
	local := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Nanosecond})
	local.Append(arrow.Timestamp(at.UnixNano()))
	l := local.NewArray()
	defer l.Release()
	if Cell(z, 0) != "2025-03-03 07:02:00" || Cell(l, 0) != Cell(z, 0) {
		t.Errorf("timestamps: zoned %s, local %s; want 2025-03-03 07:02:00 both", Cell(z, 0), Cell(l, 0))
	}

	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	lists := lb.NewArray()
	defer lists.Release()
	if got := Cell(lists, 0); got != "[1, 2]" {
		t.Errorf("list = %s", got)
	}
	s := array.NewStringBuilder(mem)
	s.AppendValues([]string{"NULL", "a, b"}, nil)
	strs := s.NewArray()
	defer strs.Release()
	if Cell(strs, 0) == "NULL" {
		t.Error("the string 'NULL' normalises like a NULL")
	}
}

func TestCompare(t *testing.T) {
	a := &Table{Columns: []string{"x", "y"}, Rows: [][]string{{"1", `"a"`}, {"2", "NULL"}, {"2", "NULL"}}}
	same := &Table{Columns: []string{"x", "y"}, Rows: [][]string{{"2", "NULL"}, {"1", `"a"`}, {"2", "NULL"}}}
	if o := Compare(a, same); !o.Equal {
		t.Errorf("reordered rows differ: %s", o.Diff)
	}
	fewer := &Table{Columns: []string{"x", "y"}, Rows: [][]string{{"1", `"a"`}, {"2", "NULL"}}}
	if o := Compare(a, fewer); o.Equal || !strings.Contains(o.Diff, "only native has (2, NULL)") {
		t.Errorf("a lost duplicate: %+v", o)
	}
	changed := &Table{Columns: []string{"x", "y"}, Rows: [][]string{{"1", `"b"`}, {"2", "NULL"}, {"2", "NULL"}}}
	if o := Compare(a, changed); o.Equal || !strings.Contains(o.Diff, `(1, "a")`) {
		t.Errorf("a changed value: %+v", o)
	}
	renamed := &Table{Columns: []string{"x", "z"}, Rows: a.Rows}
	if o := Compare(a, renamed); o.Equal || !strings.Contains(o.Diff, "columns differ") {
		t.Errorf("renamed column: %+v", o)
	}
}

// A DOUBLE column compared with a DECIMAL one is rounded to the
// decimal's scale first (Spark's DECIMAL division against DuckDB's
// DOUBLE); a value that differs at that scale still differs.
func TestCompareAlignsDecimalScale(t *testing.T) {
	spark := &Table{Columns: []string{"third"}, Scales: []int32{6}, Floats: []bool{false}, Rows: [][]string{{"4.833333"}}}
	native := &Table{Columns: []string{"third"}, Scales: []int32{-1}, Floats: []bool{true}, Rows: [][]string{{Float(14.5 / 3)}}}
	if o := Compare(native, spark); !o.Equal {
		t.Errorf("14.5/3 as DOUBLE against DECIMAL(…,6) 4.833333: %s", o.Diff)
	}
	native.Rows[0][0] = Float(4.8334)
	if o := Compare(native, spark); o.Equal || !strings.Contains(o.Diff, "Spark has (4.833333)") {
		t.Errorf("4.8334 against 4.833333: %+v", o)
	}
	if native.Rows[0][0] != Float(4.8334) {
		t.Error("Compare changed its input")
	}
}
