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
// written, whatever the session zone). Spark drops a zone or offset
// the text carries; so does the translation for Z, UTC and numeric
// offsets, and a text with another zone fails at run time as not
// portable.
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
			// Spark drops a zone or offset after the time (checked on
			// Spark 4.1.4: '2019-10-06 10:11:12+01:00', '... UTC', '...Z'
			// and '... America/New_York' are all 10:11:12); DuckDB's cast
			// applies it. Z, UTC and numeric offsets are cut off here;
			// another zone fails at run time, never a wrong value.
			s = cat("regexp_replace(", s, ", '([0-9]:[0-9]{2}(:[0-9]{2}(\\.[0-9]*)?)?)\\s*(Z|UTC|[+-][0-9]{2}:?[0-9]{2})\\s*$', '\\1')")
			return at(c, tNTZ, cat("CASE WHEN regexp_matches(", s, ", '(?i)([0-9]:[0-9]{2}(:[0-9]{2}(\\.[0-9]*)?)?\\s*(Z|[+-][0-9]{1,2}(:?[0-9]{2})?)|[a-z]{2,}[/a-z_0-9+:-]*)\\s*$') THEN CAST(error('not-portable: to_timestamp_ntz of a text with a time zone (' || ", s, " || '): Spark drops the zone, DuckDB applies it') AS TIMESTAMP) ELSE "+kw+"(", s, " AS TIMESTAMP) END"))
		}
		out := inner(t, c, a)
		out.typ = tNTZ
		return out
	}
}

// toCharFn is to_char (to_varchar): of a date or timestamp, date_format
// with the same Java pattern; of a number Spark's number format, which
// does not run natively.
func toCharFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 2, 2) {
		return null(c)
	}
	k := a[0].typ
	if !k.is(Date) && !k.is(Timestamp) && !k.is(TimestampNTZ) {
		t.refuse(c, "%s of a %s does not run natively: only a date or timestamp's Java datetime pattern does", c.Name.String(), k)
		return null(c)
	}
	return dateFormatFn(t, c, a)
}
