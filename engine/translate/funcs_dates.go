package translate

import (
	"regexp"
	"strconv"
	"strings"

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

// dayOfYearParse parses s with a Java pattern holding D, the day of the
// year, which DuckDB's strptime reads without the date it names. It
// handles the patterns made of yyyy, MM, dd, D, DD or DDD and characters
// between them that are not letters or quotes (ok false otherwise), as
// Java's parser reads them in Spark: D takes one digit or more, DD two
// or three, DDD, MM and dd exactly that many; the year is 1970 without
// yyyy; the day of the year must exist in the year, and the month and
// day, when given, must be those of that day. A text it cannot read is
// NULL with try (or without ANSI) and fails otherwise
// (CANNOT_PARSE_TIMESTAMP); a year of more than four digits fails as
// not portable.
func (t *tr) dayOfYearParse(c *ast.Call, s frag, pattern string, try bool) (frag, bool) {
	var re strings.Builder
	groups := map[byte]int{}
	n := 0
	for i := 0; i < len(pattern); {
		ch := pattern[i]
		j := i
		for j < len(pattern) && pattern[j] == ch {
			j++
		}
		run := pattern[i:j]
		switch {
		case run == "yyyy":
			re.WriteString("([0-9]{4,})")
		case run == "MM" || run == "dd" || run == "DDD":
			re.WriteString("([0-9]{" + strconv.Itoa(len(run)) + "})")
		case run == "DD":
			re.WriteString("([0-9]{2,3})")
		case run == "D":
			re.WriteString("([0-9]+)")
		case ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '\'' || ch == '[' || ch == ']':
			return frag{}, false
		default:
			re.WriteString(regexp.QuoteMeta(run))
			i = j
			continue
		}
		if _, dup := groups[ch]; dup {
			return frag{}, false
		}
		n++
		groups[ch] = n
		i = j
	}
	rx := quoteString("^" + re.String() + "$")
	g := func(ch byte) string {
		return "TRY_CAST(regexp_extract(" + s.s + ", " + rx + ", " + strconv.Itoa(groups[ch]) + ") AS BIGINT)"
	}
	year := "1970"
	if _, ok := groups['y']; ok {
		year = g('y')
	}
	doy := g('D')
	days := "(CASE WHEN (" + year + " % 4 = 0 AND " + year + " % 100 <> 0) OR " + year + " % 400 = 0 THEN 366 ELSE 365 END)"
	date := "CAST(make_date(" + year + ", 1, 1) + CAST(" + doy + " - 1 AS INTEGER) AS DATE)"
	ok := "regexp_full_match(" + s.s + ", " + rx + ") AND " + doy + " BETWEEN 1 AND " + days
	if _, has := groups['M']; has {
		ok += " AND month(" + date + ") = " + g('M')
	}
	if _, has := groups['d']; has {
		ok += " AND day(" + date + ") = " + g('d')
	}
	fail := "NULL"
	if !try && t.ansi() {
		fail = "error('[CANNOT_PARSE_TIMESTAMP] Text ''' || " + s.s + " || ''' could not be parsed with the pattern " + strings.ReplaceAll(quoteString(pattern), "'", "''") + ". Use `try_to_timestamp` to tolerate invalid input string and return NULL instead. SQLSTATE: 22007')"
	}
	wide := ""
	if _, ok := groups['y']; ok {
		wide = " WHEN length(regexp_extract(" + s.s + ", " + rx + ", " + strconv.Itoa(groups['y']) + ")) > 4 THEN error('not-portable: a year of more than four digits (' || " + s.s + " || ') is read by Spark''s own rules')"
	}
	return at(c, tTS, cat("CASE WHEN ", s, " IS NULL THEN NULL"+wide+" WHEN "+ok+" THEN CAST("+date+" AS TIMESTAMP) ELSE CAST("+fail+" AS TIMESTAMP) END")), true
}

// dayOfYearPattern reports whether a datetime pattern literal holds D
// outside quotes.
func dayOfYearPattern(x ast.Expr) (string, bool) {
	l, ok := x.(*ast.Literal)
	if !ok || l.Kind != ast.LitString {
		return "", false
	}
	quoted := false
	for _, r := range l.Str.Value {
		switch {
		case r == '\'':
			quoted = !quoted
		case !quoted && r == 'D':
			return l.Str.Value, true
		}
	}
	return "", false
}

// makeDateFn is make_date(year, month, day): DuckDB's make_date; a day
// that does not exist fails in ANSI mode and is NULL without it, as on
// Spark (make_date(2000, 13, 1)).
func makeDateFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 3, 3) {
		return null(c)
	}
	for i, x := range a {
		if !x.typ.integral() && !x.typ.is(Null) {
			t.refuse(c.Args[i], "make_date takes integers natively, and %s is of type %s", t.text(c.Args[i]), x.typ)
			return null(c)
		}
	}
	d := cat("make_date(CAST(", a[0], " AS BIGINT), CAST(", a[1], " AS BIGINT), CAST(", a[2], " AS BIGINT))")
	if !t.ansi() {
		d = cat("TRY(", d, ")")
	}
	return at(c, tDate, d)
}
