package results

import (
	"math"
	"math/big"
	"testing"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/thund-dev/thund/engine/translate"
)

// TestHiveString checks the printing against values as Spark's golden
// files show them.
func TestHiveString(t *testing.T) {
	ts := time.Date(2021, 7, 11, 6, 30, 45, 678000000, time.UTC)
	cases := []struct {
		v    any
		ty   string
		want string
	}{
		{nil, "int", "NULL"},
		{2.35e10, "double", "2.35E10"},
		{150000.0, "double", "150000.0"},
		{1e-4, "double", "1.0E-4"},
		{0.001, "double", "0.001"},
		{math.Inf(-1), "double", "-Infinity"},
		// JDK 17's digits, not the shortest: an integer below 2^63
		// from its exact digits, a power of two within the lower gap.
		{math.Ldexp(1, 62), "double", "4.6116860184273879E18"},
		{2.82879384806159e17, "double", "2.82879384806159008E17"},
		{-math.Ldexp(1, -31), "double", "-4.6566128730773926E-10"},
		{1024.0, "double", "1024.0"},
		{0.5, "double", "0.5"},
		{123.456, "double", "123.456"},
		{-0.00123, "double", "-0.00123"},
		{float32(1.1), "float", "1.1"},
		{duckdb.Decimal{Width: 4, Scale: 2, Value: big.NewInt(-5)}, "decimal(4,2)", "-0.05"},
		{duckdb.Decimal{Width: 4, Scale: 0, Value: big.NewInt(12)}, "decimal(4,0)", "12"},
		// Intervals as the interval.sql golden file shows them (HIVE_STYLE).
		{duckdb.Interval{Months: 28}, "interval year to month", "2-4"},
		{duckdb.Interval{Months: -11}, "interval year to month", "-0-11"},
		{duckdb.Interval{Micros: -59_000_000}, "interval second", "-0 00:00:59.000000000"},
		{duckdb.Interval{Micros: 1814400000005}, "interval day to second", "21 00:00:00.000005000"},
		{duckdb.Interval{Days: 1, Micros: 36672000000}, "interval day to second", "1 10:11:12.000000000"},
		{duckdb.Interval{Micros: math.MinInt64}, "interval day to second", "-106751991 04:00:54.775808000"},
		{[]any{duckdb.Interval{Months: 1}, nil}, "array<interval month>", "[0-1,null]"},
		// A CalendarInterval (the type interval) as its toString, as the
		// interval.sql and postgreSQL/interval.sql golden files show it.
		{duckdb.Interval{Micros: 999_000_000}, "interval", "16 minutes 39 seconds"},
		{duckdb.Interval{Months: 3, Micros: 3600_000_000}, "interval", "3 months 1 hours"},
		{duckdb.Interval{Days: 1, Micros: 2*3600_000_000 + 3*60_000_000 + 4_000_000}, "interval", "1 days 2 hours 3 minutes 4 seconds"},
		{duckdb.Interval{Micros: -1_000_000}, "interval", "-1 seconds"},
		{duckdb.Interval{}, "interval", "0 seconds"},
		{ts, "timestamp", "2021-07-11 06:30:45.678"},
		{ts.Truncate(time.Second), "timestamp", "2021-07-11 06:30:45"},
		{ts, "date", "2021-07-11"},
		{[]any{int32(1), nil, int32(3)}, "array<int>", "[1,null,3]"},
		{[]any{"a", "b"}, "array<string>", `["a","b"]`},
		{map[string]any{"a": int32(1), "b": "x"}, "struct<a:int,b:string>", `{"a":1,"b":"x"}`},
		{[]byte("Spark"), "binary", "Spark"},
	}
	for _, c := range cases {
		got, ok := hiveString(c.v, translate.ParseSparkType(c.ty), false)
		if !ok || got != c.want {
			t.Errorf("%v as %s: %q (ok %v), want %q", c.v, c.ty, got, ok, c.want)
		}
	}
}

// TestSplitSchema checks that column names holding ':' and ',' are split
// by the types.
func TestSplitSchema(t *testing.T) {
	types, names, ok := splitSchema("struct<concat(a, ':b'):string,x:int>", []string{"string", "int"})
	if !ok || names[0] != "concat(a, ':b')" || names[1] != "x" || types[1] != "int" {
		t.Fatalf("got %v %v %v", types, names, ok)
	}
	if _, _, ok := splitSchema("struct<a:int>", []string{"bigint"}); ok {
		t.Fatal("int matched bigint")
	}
	if _, _, ok := splitSchema("struct<>", nil); !ok {
		t.Fatal("empty schema")
	}
}
