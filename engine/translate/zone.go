package translate

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// Native runs hold a TIMESTAMP as its wall-clock time in the session time
// zone. Under UTC an instant and its wall-clock time are the same value;
// under another zone the functions that convert between instants (epoch
// numbers, other zones) and wall-clock times go through DuckDB's ICU time
// zones (timezone(zone, x)), when the zone is one ICU names as Java does.

// regionZone matches a region time zone name (America/Los_Angeles,
// Etc/GMT+8), which Java and ICU read alike.
var regionZone = regexp.MustCompile(`^[A-Za-z][A-Za-z_]*(/[A-Za-z0-9_+\-]+)+$`)

// javaShortZones are Java's ZoneId.SHORT_IDS that name a region, as Spark
// reads a zone argument ('PST', 'JST').
var javaShortZones = map[string]string{
	"ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires",
	"ART": "Africa/Cairo", "AST": "America/Anchorage", "BET": "America/Sao_Paulo", "BST": "Asia/Dhaka",
	"CAT": "Africa/Harare", "CNT": "America/St_Johns", "CST": "America/Chicago", "CTT": "Asia/Shanghai",
	"EAT": "Africa/Addis_Ababa", "ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis",
	"IST": "Asia/Kolkata", "JST": "Asia/Tokyo", "MIT": "Pacific/Apia", "NET": "Asia/Yerevan",
	"NST": "Pacific/Auckland", "PLT": "Asia/Karachi", "PNT": "America/Phoenix", "PRT": "America/Puerto_Rico",
	"PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal", "VST": "Asia/Ho_Chi_Minh",
	// Zones of the tz database that are names without a slash.
	"UTC": "UTC", "GMT": "UTC", "CET": "CET", "EET": "EET", "MET": "MET", "WET": "WET",
}

// icuZone returns the zone name ICU reads as Java reads z, or "" when z is
// a form the translation does not model (offsets, EST, GMT+8).
func icuZone(z string) string {
	if regionZone.MatchString(z) {
		return z
	}
	if r, ok := javaShortZones[strings.ToUpper(z)]; ok {
		return r
	}
	return ""
}

// sessionZone returns the session zone as ICU names it ("" for UTC), and
// whether it is one the translation models.
func (t *tr) sessionZone() (string, bool) {
	if t.zone == "" {
		return "", true
	}
	z := icuZone(t.zone)
	return z, z != ""
}

// zoned refuses n when the session zone is one ICU cannot be trusted with
// (what names the construct), and reports whether the translation may go
// on.
func (t *tr) zoned(n ast.Node, what string) bool {
	if _, ok := t.sessionZone(); ok {
		return true
	}
	t.zoneDependent(n, what)
	return false
}

// utcToLocal turns x, an instant written as its UTC wall-clock TIMESTAMP,
// into its wall-clock time in the session zone.
func (t *tr) utcToLocal(x frag) frag {
	z, _ := t.sessionZone()
	if z == "" {
		return x
	}
	return cat("timezone("+quoteString(z)+", timezone('UTC', ", x, "))")
}

// localToUTC turns x, a wall-clock time in the session zone, into the UTC
// wall-clock time of that instant. A wall-clock time the zone repeats (the
// hour a daylight saving change sets the clocks back) is the earlier
// instant, as Java's ZonedDateTime.ofLocal takes it (ICU takes the
// later); one the zone skips is read with the offset before the gap, as
// both do.
func (t *tr) localToUTC(x frag) frag {
	z, _ := t.sessionZone()
	if z == "" {
		return x
	}
	return wallToUTC(z, x)
}

// wallToUTC turns x, a wall-clock time in the zone z (as ICU names it),
// into the UTC wall-clock time of that instant, choosing as localToUTC
// does.
func wallToUTC(z string, x frag) frag {
	zq := quoteString(z)
	return cat("list_transform([", x, "], lambda w: list_transform([timezone('UTC', timezone("+zq+", w))], lambda u: CASE WHEN timezone("+zq+", timezone('UTC', u - INTERVAL 1 HOUR)) = w THEN u - INTERVAL 1 HOUR ELSE u END)[1])[1]")
}

// epochTimestamp translates timestamp_seconds, timestamp_millis and
// timestamp_micros: Spark multiplies exactly (an integer overflowing or a
// decimal with digits past microseconds fails) and truncates a double.
func epochTimestamp(scale int64, unit string) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) || !t.zoned(c, c.Name.String()) {
			return null(c)
		}
		x := a[0]
		var us frag
		factor := ""
		if scale != 1 {
			factor = " * " + strconv.FormatInt(scale, 10)
		}
		switch {
		case x.typ.is(Null):
			return at(c, tTS, cat("CAST(NULL AS TIMESTAMP)"))
		case x.typ.integral():
			us = cat("(CAST(", x, " AS BIGINT)"+factor+")")
		case x.typ.is(Decimal) && scale == 1000000:
			v := cat("(", x, factor+")")
			us = cat("CASE WHEN ", v, " <> trunc(", v, ") THEN CAST(error('Rounding necessary: ' || CAST(", x, " AS VARCHAR) || ' has digits past microseconds') AS BIGINT) ELSE CAST(", v, " AS BIGINT) END")
		case x.typ.fractional() && scale == 1000000:
			us = cat("CAST(trunc(CAST(", x, " AS DOUBLE)"+factor+") AS BIGINT)")
		default:
			t.refuse(c.Args[0], "%s of a %s does not run natively", c.Name.String(), x.typ)
			return null(c)
		}
		return at(c, tTS, t.utcToLocal(cat("make_timestamp(", us, ")")))
	}
}

// epochOf translates unix_seconds, unix_millis and unix_micros: the
// instant's microseconds since the epoch, divided rounding down.
func epochOf(div int64) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) || !t.zoned(c, c.Name.String()) {
			return null(c)
		}
		x := a[0]
		switch {
		case x.typ.is(Null):
			return at(c, tBigInt, cat("CAST(NULL AS BIGINT)"))
		case !x.typ.is(Timestamp) && x.typ.known():
			// Spark takes a TIMESTAMP only (no implicit cast; recorded on
			// Spark 4.1.4 and 4.3.0 for a string).
			name := strings.ToLower(c.Name.String())
			t.typeError(c, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve \"%s\" due to data type mismatch: `%s` is called with arguments of types (\"%s\"), which it does not take; cast the arguments to the types Spark expects.",
				t.text(c), name, strings.ToUpper(x.typ.String()))
			return null(c)
		case !x.typ.is(Timestamp):
			t.refuse(c.Args[0], "%s takes a TIMESTAMP here, and the type of %s is not known before the run", c.Name.String(), t.text(c.Args[0]))
			return null(c)
		}
		us := cat("epoch_us(", t.localToUTC(x), ")")
		if div == 1 {
			return at(c, tBigInt, us)
		}
		d := strconv.FormatInt(div, 10)
		return at(c, tBigInt, cat("CAST(floor(CAST(", us, " AS HUGEINT) / "+d+") AS BIGINT)"))
	}
}

// makeTimestampFn translates make_timestamp (and try_make_timestamp,
// make_timestamp_ltz): from fields (year, month, day, hour, minute,
// seconds with a fraction; 60 seconds is the next minute), or from a
// DATE and a TIME; the wall-clock time is in the session zone, or in the
// zone argument (then shown in the session zone). Out-of-range fields
// fail in ANSI mode and give NULL otherwise or with try_.
func makeTimestampFn(try bool) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		name := c.Name.String()
		if !t.arity(c, a, 1, 7) || !t.zoned(c, name) {
			return null(c)
		}
		lenient := try || !t.ansi()
		var local frag
		var nulls []frag
		var zoneArg ast.Expr
		switch {
		case len(a) >= 6:
			for i, x := range a[:6] {
				if !x.typ.numeric() && !x.typ.is(Null) {
					t.refuse(c.Args[i], "%s takes numbers here, and %s is of type %s", name, t.text(c.Args[i]), x.typ)
					return null(c)
				}
			}
			if len(a) == 7 {
				zoneArg = c.Args[6]
			}
			if l, ok := c.Args[0].(*ast.Literal); ok && l.Kind == ast.LitInteger {
				if y, err := strconv.Atoi(l.Text); err != nil || y < minTimestampYear || y > maxTimestampYear {
					t.refuse(c.Args[0], "a year before -290307 or after 294246 does not run natively (Spark's timestamps reach from -290308 to 294247)")
					return null(c)
				}
			}
			nulls = a[:6]
			local = t.fieldsTimestamp(a[:6], lenient)
		case len(a) <= 3:
			if !a[0].typ.is(Date) && !a[0].typ.is(Null) || len(a) > 1 && !a[1].typ.is(Time) && !a[1].typ.is(Null) {
				t.refuse(c, "%s(date[, time[, zone]]) takes a DATE and a TIME", name)
				return null(c)
			}
			if len(a) == 3 {
				zoneArg = c.Args[2]
			}
			nulls = a[:min(len(a), 2)]
			local = cat("CAST(", a[0], " AS TIMESTAMP)")
			if len(a) > 1 {
				local = cat("(CAST(", a[0], " AS DATE) + CAST(", a[1], " AS TIME))")
			}
		default:
			t.refuse(c, "%s takes 1 to 3 or 6 to 7 arguments", name)
			return null(c)
		}
		var out frag
		if zoneArg != nil {
			l, ok := zoneArg.(*ast.Literal)
			switch {
			case ok && l.Kind == ast.LitNull:
				return at(c, tTS, cat("CAST(NULL AS TIMESTAMP)"))
			case !ok || l.Kind != ast.LitString || icuZone(l.Str.Value) == "":
				t.refuse(zoneArg, "the zone of %s runs natively as a region name constant ('Europe/Paris') only", name)
				return null(c)
			}
			out = t.utcToLocal(cat("CAST(timezone('UTC', timezone("+quoteString(icuZone(l.Str.Value))+", ", local, ")) AS TIMESTAMP)"))
		} else {
			// A wall-clock time the session zone skips (a daylight saving
			// gap) moves on as Java moves it.
			out = t.utcToLocal(t.localToUTC(local))
		}
		conds := make([]frag, len(nulls))
		for i, x := range nulls {
			conds[i] = cat("(", x, ") IS NULL")
		}
		return at(c, tTS, cat("CASE WHEN ", join(conds, " OR "), " THEN NULL ELSE ", out, " END"))
	}
}

// The years of a timestamp both engines hold whole.
const (
	minTimestampYear = -290307
	maxTimestampYear = 294246
)

// fieldsTimestamp is the TIMESTAMP of year, month, day, hour, minute and
// seconds as Spark's make_timestamp checks them.
func (t *tr) fieldsTimestamp(a []frag, try bool) frag {
	y, mo, d := cat("CAST(", a[0], " AS BIGINT)"), cat("CAST(", a[1], " AS BIGINT)"), cat("CAST(", a[2], " AS BIGINT)")
	h, mi := cat("CAST(", a[3], " AS BIGINT)"), cat("CAST(", a[4], " AS BIGINT)")
	s := cat("CAST(", a[5], " AS DECIMAL(38, 6))")
	fail := func(class, msg string) string {
		if try {
			return "CAST(NULL AS TIMESTAMP)"
		}
		return "CAST(error('[" + class + "] " + msg + "') AS TIMESTAMP)"
	}
	// Spark takes years from -290308 to 294247 (printed -1969-12-31,
	// +99999-03-18), as DuckDB does; at the very ends of that range the
	// two may part, so native runs fail there rather than guess.
	return cat("CASE WHEN ", y, " NOT BETWEEN "+strconv.Itoa(minTimestampYear)+" AND "+strconv.Itoa(maxTimestampYear)+" THEN CAST(error('not-portable: a year before -290307 or after 294246 does not run natively') AS TIMESTAMP)",
		" WHEN ", mo, " NOT BETWEEN 1 AND 12 THEN "+fail("DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION", "Invalid value for MonthOfYear (valid values 1 - 12)"),
		" WHEN ", d, " < 1 OR ", d, " > day(last_day(make_date(", y, ", ", mo, ", 1))) THEN "+fail("DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION", "Invalid date: the day is out of the month"),
		" WHEN ", h, " NOT BETWEEN 0 AND 23 THEN "+fail("DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION", "Invalid value for HourOfDay (valid values 0 - 23)"),
		" WHEN ", mi, " NOT BETWEEN 0 AND 59 THEN "+fail("DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION", "Invalid value for MinuteOfHour (valid values 0 - 59)"),
		" WHEN ", s, " >= 61 OR ", s, " < 0 THEN "+fail("DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION", "Invalid value for SecondOfMinute (valid values 0 - 59)"),
		" WHEN ", s, " > 60 THEN "+fail("INVALID_FRACTION_OF_SECOND", "Valid range for seconds is [0, 60] (inclusive), but the provided value is not an integer 60"),
		" ELSE make_timestamp(", y, ", ", mo, ", ", d, ", ", h, ", ", mi, ", 0) + to_microseconds(CAST(", s, " * 1000000 AS BIGINT)) END")
}

// makeTimestampNTZFn translates make_timestamp_ntz (and
// try_make_timestamp_ntz): a TIMESTAMP_NTZ from fields (year, month,
// day, hour, minute, seconds with a fraction) or from a DATE and a TIME,
// a wall-clock time in no zone. Out-of-range fields fail in ANSI mode and
// give NULL otherwise or with try_, as for make_timestamp.
func makeTimestampNTZFn(try bool) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		name := c.Name.String()
		ntz := &Type{Kind: TimestampNTZ}
		var wall frag
		var nulls []frag
		switch len(a) {
		case 6:
			for i, x := range a {
				if !x.typ.numeric() && !x.typ.is(Null) {
					t.refuse(c.Args[i], "%s takes numbers here, and %s is of type %s", name, t.text(c.Args[i]), x.typ)
					return null(c)
				}
			}
			if l, ok := c.Args[0].(*ast.Literal); ok && l.Kind == ast.LitInteger {
				if y, err := strconv.Atoi(l.Text); err != nil || y < minTimestampYear || y > maxTimestampYear {
					t.refuse(c.Args[0], "a year before -290307 or after 294246 does not run natively (Spark's timestamps reach from -290308 to 294247)")
					return null(c)
				}
			}
			nulls = a
			wall = t.fieldsTimestamp(a, try || !t.ansi())
		case 2:
			if !a[0].typ.is(Date) && !a[0].typ.is(Null) || !a[1].typ.is(Time) && !a[1].typ.is(Null) {
				t.refuse(c, "%s(date, time) takes a DATE and a TIME", name)
				return null(c)
			}
			nulls = a
			wall = cat("(CAST(", a[0], " AS DATE) + CAST(", a[1], " AS TIME))")
		default:
			t.refuse(c, "%s takes 6 arguments (year, month, day, hour, minute, seconds) or 2 (a DATE and a TIME)", name)
			return null(c)
		}
		conds := make([]frag, len(nulls))
		for i, x := range nulls {
			conds[i] = cat("(", x, ") IS NULL")
		}
		return at(c, ntz, cat("CASE WHEN ", join(conds, " OR "), " THEN CAST(NULL AS TIMESTAMP) ELSE CAST(", wall, " AS TIMESTAMP) END"))
	}
}
