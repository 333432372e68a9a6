package translate

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// windowStructType is the type of window(ts, ...): the window's start
// and end.
var windowStructType = &Type{Kind: Struct, Fields: []Field{{Name: "start", Type: tTS}, {Name: "end", Type: tTS}}}

// windowFn translates Spark's window(ts, duration[, slide[, start]]) for
// a tumbling window (no slide, or one equal to the duration, and no start
// offset) in a SELECT grouping by it: the struct of the window holding
// ts, windows counted from the epoch, start inclusive and end exclusive.
// Spark drops the rows whose ts is NULL (selectQ filters them). DuckDB's
// time_bucket with the epoch as origin computes the start (its default
// origin, 2000-01-03, would shift a window whose width does not divide a
// day). A sliding window gives a row several windows, which the native
// engine does not do.
func windowFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.windowSelect {
		t.refuse(c, "window(...) runs natively in a SELECT that groups by it only (Spark drops the rows whose time is NULL there, too)")
		return null(c)
	}
	if len(a) < 2 || len(a) > 4 {
		t.refuse(c, "window takes 2 to 4 arguments")
		return null(c)
	}
	ts := a[0]
	switch {
	case ts.typ.is(TimestampNTZ):
		t.refuse(c.Args[0], "window of a TIMESTAMP_NTZ does not run natively (its window is a struct of TIMESTAMP_NTZ on Spark); cast it to TIMESTAMP")
		return null(c)
	case !ts.typ.is(Timestamp):
		t.refuse(c.Args[0], "window needs a TIMESTAMP here, and the type of this argument is %s", ts.typ)
		return null(c)
	}
	width, ok := windowDuration(c.Args[1])
	if !ok {
		t.refuse(c.Args[1], "this window duration does not run natively; write it as a string of whole units up to days ('5 seconds', '10 minutes', '1 hour')")
		return null(c)
	}
	if len(c.Args) >= 3 {
		slide, ok := windowDuration(c.Args[2])
		if !ok || slide != width {
			t.refuse(c.Args[2], "a sliding window (a slide other than the window's duration) gives a row several windows, which the native engine does not do")
			return null(c)
		}
	}
	if len(c.Args) == 4 {
		start, ok := windowDuration(c.Args[3])
		if !ok || start != 0 {
			t.refuse(c.Args[3], "a window's start offset does not run natively")
			return null(c)
		}
	}
	w := "INTERVAL (" + strconv.FormatInt(width, 10) + ") MICROSECOND"
	x := cat("CAST(", ts, " AS TIMESTAMP)")
	start := cat("time_bucket("+w+", ", x, ", TIMESTAMP '1970-01-01 00:00:00')")
	return at(c, windowStructType, cat("struct_pack(\"start\" := ", start, ", \"end\" := ", start, " + "+w+")"))
}

// windowUnits are the units of a window duration, in microseconds.
var windowUnits = map[string]int64{
	"microsecond": 1, "millisecond": 1000, "second": 1000000, "minute": 60000000,
	"hour": 3600000000, "day": 86400000000, "week": 7 * 86400000000,
}

// windowDuration reads a window duration: a string literal of whole
// units ('5 seconds', 'interval 1 hour 30 minutes'), in microseconds; a
// duration of months or years, or anything else, is not read.
func windowDuration(x ast.Expr) (int64, bool) {
	l, ok := unparenExpr(x).(*ast.Literal)
	if !ok || l.Kind != ast.LitString || l.Str == nil {
		return 0, false
	}
	f := strings.Fields(strings.ToLower(l.Str.Value))
	if len(f) > 0 && f[0] == "interval" {
		f = f[1:]
	}
	if len(f) == 0 || len(f)%2 != 0 {
		return 0, false
	}
	var total int64
	for i := 0; i < len(f); i += 2 {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || n < 0 || n > 1e9 {
			return 0, false
		}
		u, ok := windowUnits[strings.TrimSuffix(f[i+1], "s")]
		if !ok {
			return 0, false
		}
		total += n * u
	}
	return total, true
}

// timeWindowOf returns the window(...) call a SELECT groups by, or nil.
func timeWindowOf(s *ast.Select) *ast.Call {
	if s == nil || s.GroupBy == nil {
		return nil
	}
	for _, gi := range s.GroupBy.Items {
		if gi == nil || gi.Kind != "" {
			continue
		}
		if c, ok := unparenExpr(gi.X).(*ast.Call); ok && strings.EqualFold(c.Name.String(), "window") && c.Over == nil {
			return c
		}
	}
	return nil
}

// virtualColumn translates a reference to the window column Spark adds
// to a query grouping by window(...): the window's struct, and a field
// of it (window.start, window.end).
func (t *tr) virtualColumn(c *ast.Column) (frag, bool) {
	if f, ok := t.groupingID(c); ok {
		return f, true
	}
	if t.timeWindow == nil || len(c.Parts) == 0 || !strings.EqualFold(c.Parts[0].Name, "window") {
		return frag{}, false
	}
	f := cat("(", *t.timeWindow, ")")
	ty := windowStructType
	for _, p := range c.Parts[1:] {
		f = cat("(", f, ")."+quoteIdent(strings.ToLower(p.Name)))
		ty = fieldType(ty, p.Name)
	}
	return at(c, ty, f), true
}
