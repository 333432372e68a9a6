package translate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// Spark 4.1's TIME type (a time of day to the microsecond) runs natively
// as DuckDB's TIME. Values are built from and taken apart into
// microseconds since midnight (timeMicros, microsTime), which DuckDB's
// TIME functions (no date_trunc, no date_diff of a TIME) need.

// sparkTimeForm is the text Spark reads as a TIME: [h]h:[m]m[:[s]s[.f]]
// with up to nine digits of fraction and an optional AM or PM.
var sparkTimeForm = regexp.MustCompile(`^(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?(?:\s*([AaPp][Mm]))?$`)

// sparkTimeText reads v as Spark reads a TIME literal or a string cast to
// TIME (white space around it dropped, a fraction past microseconds cut
// off) and writes it as DuckDB's TIME reads it: hh:mm:ss.ffffff. ok is
// false for a text Spark does not read as a time.
func sparkTimeText(v string) (string, bool) {
	m := sparkTimeForm.FindStringSubmatch(strings.TrimFunc(v, func(r rune) bool { return r <= ' ' }))
	if m == nil {
		return "", false
	}
	h, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	sec := 0
	if m[3] != "" {
		sec, _ = strconv.Atoi(m[3])
	}
	if mi > 59 || sec > 59 {
		return "", false
	}
	switch strings.ToUpper(m[5]) {
	case "":
		if h > 23 {
			return "", false
		}
	case "AM", "PM":
		if h < 1 || h > 12 {
			return "", false
		}
		h %= 12
		if strings.EqualFold(m[5], "PM") {
			h += 12
		}
	}
	frac := m[4]
	if len(frac) > 6 {
		frac = frac[:6]
	}
	frac += strings.Repeat("0", 6-len(frac))
	return fmt.Sprintf("%02d:%02d:%02d.%s", h, mi, sec, frac), true
}

// timeOff refuses n, a use of the TIME type, when the session does not
// enable it (Options.TimeType), as Spark fails such a query.
func (t *tr) timeOff(n ast.Node) bool {
	if t.opts.TimeType {
		return false
	}
	t.refuse(n, "Spark refuses the TIME type unless spark.sql.timeType.enabled is true (UNSUPPORTED_TIME_TYPE; it is off by default on Spark 4.1): set it in the pipeline's configuration, or compute the time of day another way")
	return true
}

// timeLiteral translates TIME 'hh:mm:ss'.
func (t *tr) timeLiteral(l *ast.TypedLiteral) frag {
	if t.timeOff(l) {
		return at(l, tUnknown, cat("NULL"))
	}
	v, ok := sparkTimeText(l.Value.Value)
	if !ok {
		t.refuse(l, "this TIME literal does not run natively")
		return at(l, tUnknown, cat("NULL"))
	}
	return at(l, tTime, cat("CAST("+quoteString(v)+" AS TIME)"))
}

// timeMicros is x, a TIME, as microseconds since midnight (BIGINT).
func timeMicros(x frag) frag {
	return cat("epoch_us(DATE '1970-01-01' + ", x, ")")
}

// microsTime is the TIME us microseconds after midnight.
func microsTime(us frag) frag {
	return cat("CAST(make_timestamp(", us, ") AS TIME)")
}

// castToTime translates a cast of a (of type from) to TIME: a string as
// Spark reads one (a constant is read here; any other text must have the
// form hh:mm[:ss[.ffffff]], two digits each, which DuckDB reads alike), a
// TIME as it is.
func (t *tr) castToTime(c *ast.Cast, a frag, try bool) frag {
	if t.timeOff(c) {
		return at(c, tUnknown, cat("NULL"))
	}
	from := a.typ
	switch {
	case from.is(Time), from.is(Null):
		return at(c, tTime, cat("CAST(", a, " AS TIME)"))
	case from.is(String):
		if l, ok := c.X.(*ast.Literal); ok && l.Kind == ast.LitString {
			v, ok := sparkTimeText(l.Str.Value)
			if !ok {
				if try {
					return at(c, tTime, cat("CAST(NULL AS TIME)"))
				}
				t.refuse(c, "%s is not a time Spark reads (Spark fails: CAST_INVALID_INPUT)", t.text(c.X))
				return at(c, tUnknown, cat("NULL"))
			}
			return at(c, tTime, cat("CAST("+quoteString(v)+" AS TIME)"))
		}
		return at(c, tTime, t.timeOfText(c, a, try))
	}
	t.refuse(c, "a cast of a %s to TIME does not run natively", from)
	return at(c, tUnknown, cat("NULL"))
}

// timeOfText reads the string s as a TIME when it has the form
// hh:mm[:ss[.f{1,6}]] (which DuckDB's cast reads as Spark does); another
// text fails (try: is NULL) with Spark's error class.
func (t *tr) timeOfText(n ast.Node, s frag, try bool) frag {
	bad := "error('[CAST_INVALID_INPUT] The value ''' || " + "CAST(" + s.s + " AS VARCHAR)" + " || ''' of the type \"STRING\" cannot be cast to \"TIME(6)\" because it is malformed. (native: a time of two-digit fields)')"
	if try {
		bad = "NULL"
	}
	trimmed := cat("trim(CAST(", s, " AS VARCHAR))")
	return cat("CASE WHEN ", s, " IS NULL THEN NULL WHEN regexp_full_match(", trimmed, ", '[0-1][0-9]:[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?|2[0-3]:[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?') THEN CAST(", trimmed, " AS TIME) ELSE "+bad+" END")
}

// timeUnitMicros are the units time_trunc and time_diff take, as
// microseconds.
var timeUnitMicros = map[string]int64{
	"HOUR": 3600000000, "MINUTE": 60000000, "SECOND": 1000000, "MILLISECOND": 1000, "MICROSECOND": 1,
}

// timeUnit translates the unit argument of time_trunc or time_diff to a
// number of microseconds: a constant is looked up here (an unknown unit
// fails as on Spark), a column at run time.
func (t *tr) timeUnit(fn string, x ast.Expr, a frag) (frag, bool) {
	bad := func(u string) string {
		return "error('[INVALID_PARAMETER_VALUE.TIME_UNIT] The value of parameter(s) `unit` in `" + fn + "` is invalid: expects one of HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, but got ''' || " + u + " || '''.')"
	}
	if l, ok := x.(*ast.Literal); ok {
		switch l.Kind {
		case ast.LitNull:
			return cat("CAST(NULL AS BIGINT)"), true
		case ast.LitString:
			if us, ok := timeUnitMicros[strings.ToUpper(l.Str.Value)]; ok {
				return cat(strconv.FormatInt(us, 10)), true
			}
			return cat("CAST(" + bad(quoteString(l.Str.Value)) + " AS BIGINT)"), true
		}
	}
	if !a.typ.is(String) && !a.typ.is(Null) {
		t.refuse(x, "the unit of %s must be a string", fn)
		return frag{}, false
	}
	u := cat("upper(CAST(", a, " AS VARCHAR))")
	return cat("CASE WHEN ", a, " IS NULL THEN NULL WHEN ", u, " = 'HOUR' THEN 3600000000 WHEN ", u, " = 'MINUTE' THEN 60000000 WHEN ", u, " = 'SECOND' THEN 1000000 WHEN ", u, " = 'MILLISECOND' THEN 1000 WHEN ", u, " = 'MICROSECOND' THEN 1 ELSE CAST("+bad("CAST("+a.s+" AS VARCHAR)")+" AS BIGINT) END"), true
}

// asTime is x as a TIME operand: a TIME or NULL as it is, a string read
// as Spark casts it; ok is false (and x refused) for another type.
func (t *tr) asTime(fn string, n ast.Expr, x frag) (frag, bool) {
	switch {
	case x.typ.is(Time):
		return x, true
	case x.typ.is(Null):
		return cat("CAST(", x, " AS TIME)"), true
	}
	t.refuse(n, "%s takes a TIME here, and %s is of type %s", fn, t.text(n), x.typ)
	return frag{}, false
}

func timeTruncFn(t *tr, c *ast.Call, a []frag) frag {
	if t.timeOff(c) {
		return null(c)
	}
	if !t.arity(c, a, 2, 2) {
		return null(c)
	}
	u, ok := t.timeUnit("time_trunc", c.Args[0], a[0])
	if !ok {
		return null(c)
	}
	x, ok := t.asTime("time_trunc", c.Args[1], a[1])
	if !ok {
		return null(c)
	}
	us := timeMicros(x)
	return at(c, tTime, microsTime(cat("(", us, " // (", u, ")) * (", u, ")")))
}

func timeDiffFn(t *tr, c *ast.Call, a []frag) frag {
	if t.timeOff(c) {
		return null(c)
	}
	if !t.arity(c, a, 3, 3) {
		return null(c)
	}
	u, ok := t.timeUnit("time_diff", c.Args[0], a[0])
	if !ok {
		return null(c)
	}
	x, ok1 := t.asTime("time_diff", c.Args[1], a[1])
	y, ok2 := t.asTime("time_diff", c.Args[2], a[2])
	if !ok1 || !ok2 {
		return null(c)
	}
	// Spark counts whole units from start to end, truncating toward
	// zero, as BIGINT's // does.
	return at(c, tBigInt, cat("CAST((", timeMicros(y), " - ", timeMicros(x), ") // (", u, ") AS BIGINT)"))
}

func makeTimeFn(t *tr, c *ast.Call, a []frag) frag {
	if t.timeOff(c) {
		return null(c)
	}
	if !t.arity(c, a, 3, 3) {
		return null(c)
	}
	for i, x := range a {
		if !x.typ.numeric() && !x.typ.is(Null) {
			t.refuse(c.Args[i], "make_time takes numbers, and %s is of type %s", t.text(c.Args[i]), x.typ)
			return null(c)
		}
	}
	h := cat("CAST(", a[0], " AS BIGINT)")
	m := cat("CAST(", a[1], " AS BIGINT)")
	s := cat("CAST(", a[2], " AS DECIMAL(38, 6))")
	bad := func(field, valid string, v frag) string {
		return "CAST(error('[DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION] Invalid value for " + field + " (valid values " + valid + "): ' || CAST(" + v.s + " AS VARCHAR)) AS TIME)"
	}
	return at(c, tTime, cat("CASE WHEN ", a[0], " IS NULL OR ", a[1], " IS NULL OR ", a[2], " IS NULL THEN NULL",
		" WHEN ", h, " NOT BETWEEN 0 AND 23 THEN "+bad("HourOfDay", "0 - 23", h),
		" WHEN ", m, " NOT BETWEEN 0 AND 59 THEN "+bad("MinuteOfHour", "0 - 59", m),
		" WHEN ", s, " < 0 OR ", s, " >= 60 THEN "+bad("SecondOfMinute", "0 - 59", s), " ELSE ",
		microsTime(cat("(", h, " * 3600 + ", m, " * 60) * 1000000 + CAST(", s, " * 1000000 AS BIGINT)")), " END"))
}

func toTimeFn(try bool) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if t.timeOff(c) {
			return null(c)
		}
		if !t.arity(c, a, 1, 2) {
			return null(c)
		}
		if !a[0].typ.is(String) && !a[0].typ.is(Null) {
			t.refuse(c.Args[0], "to_time takes a string, and %s is of type %s", t.text(c.Args[0]), a[0].typ)
			return null(c)
		}
		if len(a) == 1 {
			return t.castToTime(&ast.Cast{Range: c.Range, Form: "CAST", X: c.Args[0], Type: &ast.DataType{Range: c.Name.Range, Name: "TIME"}}, a[0], try || !t.ansi())
		}
		l, isLit := c.Args[1].(*ast.Literal)
		if !isLit || l.Kind != ast.LitString || !timeOnlyPattern(l.Str.Value) {
			t.refuse(c.Args[1], "to_time's pattern runs natively as a string constant of the letters H, m, s and S only")
			return null(c)
		}
		p, err := datetimePattern(l.Str.Value, true)
		if err != nil {
			t.refuse(c.Args[1], "this datetime pattern uses %s, which Thund does not translate", err)
			return null(c)
		}
		if try {
			return at(c, tTime, cat("CAST(try_strptime(CAST(", a[0], " AS VARCHAR), "+quoteString(p)+") AS TIME)"))
		}
		// A text the pattern does not read fails as Spark's does
		// (CANNOT_PARSE_TIME, checked on Spark 4.1.4), not with DuckDB's
		// strptime error.
		msg := "'[CANNOT_PARSE_TIME] The input string ''' || s || ''' cannot be parsed to a TIME value because it does not match to the datetime format " +
			strings.ReplaceAll(quoteString(l.Str.Value), "'", "''") + ". SQLSTATE: 22010" + markOpen + strconv.Itoa(t.check(c)) + markClose + "'"
		return at(c, tTime, cat("list_transform([CAST(", a[0], " AS VARCHAR)], lambda s: CASE WHEN s IS NULL THEN NULL ELSE coalesce(CAST(try_strptime(s, "+quoteString(p)+") AS TIME), CAST(error("+msg+") AS TIME)) END)[1]"))
	}
}

// timePart is hour, minute or second of a TIME.
func timePart(c *ast.Call, fn string, x frag) frag {
	return at(c, tInt, cat("CAST("+fn+"(", x, ") AS INTEGER)"))
}

// extractTime is EXTRACT(field FROM x) of a TIME: hours and minutes as
// INT, seconds with their fraction as DECIMAL(8,6).
func (t *tr) extractTime(c *ast.Call, field string, x frag) frag {
	switch field {
	case "SECOND", "S", "SEC", "SECONDS", "SECS":
		return at(c, decimalOf(8, 6), cat("CAST(CAST(", timeMicros(x), " % 60000000 AS DECIMAL(18, 0)) / 1000000 AS DECIMAL(8, 6))"))
	}
	switch extractFields[field] {
	case "hour":
		return timePart(c, "hour", x)
	case "minute":
		return timePart(c, "minute", x)
	}
	t.refuse(c, "EXTRACT of %s from a TIME does not run natively (Spark takes HOUR, MINUTE and SECOND from a TIME)", field)
	return null(c)
}

// timeOnlyPattern reports a Java datetime pattern of hours, minutes,
// seconds and fractions only (with quoted text and separators).
func timeOnlyPattern(p string) bool {
	quoted := false
	for _, r := range p {
		switch {
		case r == '\'':
			quoted = !quoted
		case quoted:
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			if !strings.ContainsRune("HmsS", r) {
				return false
			}
		case r == '[' || r == ']':
			return false
		}
	}
	return true
}

// castFromTime translates a cast of a TIME to a number: an integral type
// takes the whole seconds since midnight (the fraction truncated), a
// DECIMAL the seconds with their fraction, rounded HALF_UP to its scale
// (Spark's Cast of a TimeType). A value the type cannot hold fails in
// ANSI mode as Spark fails (CAST_OVERFLOW, NUMERIC_VALUE_OUT_OF_RANGE) and
// is NULL otherwise or under TRY_CAST. ok is false for another target.
func (t *tr) castFromTime(c *ast.Cast, a frag, to *Type, try bool) (frag, bool) {
	us := timeMicros(a)
	switch {
	case to.is(String):
		// hh:mm:ss and the fraction without its trailing zeros, as
		// Spark writes a TIME; DuckDB writes it alike.
		return at(c, tString, cat("CAST(", a, " AS VARCHAR)")), true
	case to.integral():
		secs := cat("(", us, " // 1000000)")
		if to.Kind == BigInt || to.Kind == Int {
			return at(c, to, cat("CAST(", secs, " AS "+to.duck()+")")), true
		}
		bad := "NULL"
		if !try {
			bad = "error('[CAST_OVERFLOW] The value TIME ''' || CAST(x AS VARCHAR) || ''' of the type \"TIME(6)\" cannot be cast to \"" + strings.ToUpper(to.String()) + "\" due to an overflow. Use `try_cast` to tolerate overflow and return NULL instead. SQLSTATE: 22003" + strings.ReplaceAll(markOpen+strconv.Itoa(t.check(c))+markClose, "'", "''") + "')"
		}
		return at(c, to, cat("list_transform([", a, "], lambda x: list_transform([", timeMicros(cat("x")), " // 1000000], lambda s: CASE WHEN s IS NULL THEN NULL WHEN s BETWEEN "+minOf(to)+" AND "+maxOf(to)+" THEN CAST(s AS "+to.duck()+") ELSE "+bad+" END)[1])[1]")), true
	case to.is(Decimal):
		// Microseconds scaled exactly; DuckDB's cast to a smaller scale
		// rounds half away from zero, Spark's HALF_UP on these
		// non-negative values.
		v := cat("(CAST(", us, " AS DECIMAL(18, 0)) * 0.000001)")
		d := to.duck()
		if try {
			return at(c, to, cat("TRY_CAST(", v, " AS "+d+")")), true
		}
		msg := "'[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION]  ' || CAST(v AS VARCHAR) || '000 cannot be represented as Decimal(" + strconv.Itoa(to.P) + ", " + strconv.Itoa(to.S) + "). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error, and return NULL instead. SQLSTATE: 22003" + strings.ReplaceAll(markOpen+strconv.Itoa(t.check(c))+markClose, "'", "''") + "'"
		return at(c, to, cat("list_transform([", v, "], lambda v: CASE WHEN v IS NULL THEN NULL WHEN TRY_CAST(v AS "+d+") IS NULL THEN error("+msg+") ELSE TRY_CAST(v AS "+d+") END)[1]")), true
	}
	return frag{}, false
}

// timeArith translates Spark's arithmetic on a TIME: TIME plus or minus
// a day-time interval is a TIME (failing where it leaves the day, as
// Spark's DATETIME_OVERFLOW), TIME + NULL a NULL TIME, TIME - NULL a NULL
// INTERVAL HOUR TO SECOND. ok is false for anything else (Spark rejects
// TIME + a number; TIME - TIME is not taken here).
func (t *tr) timeArith(b *ast.Binary, l, r frag, try bool) (frag, bool) {
	if try || b.Op != "+" && b.Op != "-" || !l.typ.is(Time) && !r.typ.is(Time) {
		return frag{}, false
	}
	hs := intervalOf(FieldHour, FieldSecond)
	switch {
	case b.Op == "+" && (l.typ.is(Null) || r.typ.is(Null)):
		return at(b, tTime, cat("CAST(NULL AS TIME)")), true
	case b.Op == "-" && (l.typ.is(Null) || r.typ.is(Null)):
		return at(b, hs, cat("CAST(NULL AS INTERVAL)")), true
	case l.typ.is(Time) && r.typ.is(Time) || l.typ.is(String) || r.typ.is(String):
		// TIME - TIME (an INTERVAL HOUR TO SECOND on Spark) stays
		// refused: TestTraps records the refusal.
		return frag{}, false
	}
	tm, iv := l, r
	if b.Op == "+" && r.typ.is(Time) {
		tm, iv = r, l
	}
	if !tm.typ.is(Time) || !iv.typ.DayTime() {
		return frag{}, false
	}
	bad := "error('[DATETIME_OVERFLOW] Datetime operation overflow: ' || CAST(" + "v" + " AS VARCHAR) || ' microseconds leave the day. SQLSTATE: 22008" + strings.ReplaceAll(markOpen+strconv.Itoa(t.check(b))+markClose, "'", "''") + "')"
	v := cat("(", timeMicros(tm), " "+b.Op+" ", microsOf(iv), ")")
	return at(b, tTime, cat("list_transform([", v, "], lambda v: CASE WHEN v IS NULL THEN NULL WHEN v >= 0 AND v < 86400000000 THEN ", microsTime(cat("v")), " ELSE "+bad+" END)[1]")), true
}
