package translate

import (
	"strconv"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// nextDayFn is next_day(start, dayOfWeek): the first date after start
// (a DATE, or a string or timestamp read as one) falling on dayOfWeek,
// which Spark reads case-insensitively as two letters, three or the whole
// English name (SU, SUN, SUNDAY). A NULL start gives NULL before the day
// is read; an unknown day fails in ANSI mode (ILLEGAL_DAY_OF_WEEK) and is
// NULL otherwise.
func nextDayFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 2, 2) {
		return null(c)
	}
	if k := a[1].typ; k.known() && !k.is(String) && !k.is(Null) {
		t.refuse(c.Args[1], "next_day's day of the week runs natively as a string only")
		return null(c)
	}
	if k := a[0].typ; k.known() && !k.is(String) && !k.is(Null) && !k.is(Date) && !k.is(Timestamp) && !k.is(TimestampNTZ) {
		t.refuse(c.Args[0], "next_day of a %s does not run natively", k)
		return null(c)
	}
	d := a[0]
	if !d.typ.is(Date) {
		x := c.Args[0]
		d = t.cast(&ast.Cast{Range: x.Span(), Form: "CAST", X: x, Type: &ast.DataType{Range: x.Span(), Name: "DATE"}})
	}
	w := cat("upper(", a[1], ")")
	day := []any{"CASE"}
	for i, names := range [][3]string{{"SU", "SUN", "SUNDAY"}, {"MO", "MON", "MONDAY"}, {"TU", "TUE", "TUESDAY"}, {"WE", "WED", "WEDNESDAY"}, {"TH", "THU", "THURSDAY"}, {"FR", "FRI", "FRIDAY"}, {"SA", "SAT", "SATURDAY"}} {
		day = append(day, " WHEN ", w, " IN ('"+names[0]+"', '"+names[1]+"', '"+names[2]+"') THEN "+strconv.Itoa(i))
	}
	if t.ansi() {
		day = append(day, " WHEN ", a[1], " IS NULL THEN NULL ELSE CAST(error('[ILLEGAL_DAY_OF_WEEK] Illegal input for day of week: ' || ", a[1], " || '. SQLSTATE: 22009') AS INTEGER) END")
	} else {
		day = append(day, " ELSE NULL END")
	}
	target := cat(day...)
	// The start is read first: a NULL start is NULL whatever the day.
	return at(c, tDate, cat("CASE WHEN ", d, " IS NULL THEN NULL ELSE CAST(", d, " + CAST(((", target, ") - dayofweek(", d, ") + 6) % 7 + 1 AS INTEGER) AS DATE) END"))
}

// tNTZ is Spark's TIMESTAMP_NTZ.
var tNTZ = &Type{Kind: TimestampNTZ}

// toTimestampNTZFn is to_timestamp_ntz(s[, pattern]): s read as
// to_timestamp reads it, as a TIMESTAMP_NTZ (the wall-clock time
// written, whatever the session zone). A string that carries a zone or
// an offset does not run natively: Spark drops it for TIMESTAMP_NTZ,
// DuckDB's cast applies it.
func toTimestampNTZFn(try bool) func(t *tr, c *ast.Call, a []frag) frag {
	inner := toTimestampFn(try)
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 2) {
			return null(c)
		}
		k := a[0].typ
		switch {
		case k.is(Date), k.is(Timestamp), k.is(TimestampNTZ), k.is(Null):
			if len(a) == 1 {
				return at(c, tNTZ, cat("CAST(", a[0], " AS TIMESTAMP)"))
			}
		case k.is(String):
		default:
			t.refuse(c.Args[0], "to_timestamp_ntz of a %s does not run natively", k)
			return null(c)
		}
		if len(a) == 1 {
			s := a[0]
			kw := "CAST"
			if try || !t.ansi() {
				kw = "TRY_CAST"
			}
			// A zone or offset after the time makes the text another
			// value on DuckDB: refused at run time, never a wrong value.
			return at(c, tNTZ, cat("CASE WHEN regexp_matches(", s, ", '(?i)([0-9]:[0-9]{2}(:[0-9]{2}(\\.[0-9]*)?)?\\s*(Z|[+-][0-9]{1,2}(:?[0-9]{2})?)|[a-z]{2,}[/a-z_0-9+:-]*)\\s*$') THEN CAST(error('not-portable: to_timestamp_ntz of a text with a time zone (' || ", s, " || '): Spark drops the zone, DuckDB applies it') AS TIMESTAMP) ELSE "+kw+"(", s, " AS TIMESTAMP) END"))
		}
		out := inner(t, c, a)
		out.typ = tNTZ
		return out
	}
}
