package translate

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// The unit forms TIMESTAMPADD(unit, quantity, ts) (also DATEADD and
// DATE_ADD) and TIMESTAMPDIFF(unit, start, end) (also DATEDIFF and
// DATE_DIFF), computed as Spark's DateTimeUtils.timestampAdd and
// timestampDiff compute them. Native runs hold a TIMESTAMP as its
// wall-clock time in the session zone, so:
//
//   - a unit below a day moves the instant: the wall-clock time is taken
//     to UTC, moved, and brought back (across a daylight saving change the
//     wall-clock moves by more or less than the amount, as on Spark);
//   - a day, week, month, quarter or year moves the wall-clock time
//     (ZonedDateTime.plusDays/plusMonths; a month's last day is kept as
//     the last day of a shorter month), then a wall-clock time the zone
//     skips moves on by the gap, as Java moves it;
//   - a difference counts whole units between the two wall-clock times
//     (ChronoUnit.between on LocalDateTimes), truncated toward zero.
//
// A TIMESTAMP_NTZ is a wall-clock time in UTC on Spark: every unit moves
// its wall-clock time.

// unitMicros are the sizes of the units below a month, in microseconds.
var unitMicros = map[string]int64{
	"MICROSECOND": 1, "MILLISECOND": 1000, "SECOND": microsPerSecond, "MINUTE": microsPerMinute,
	"HOUR": microsPerHour, "DAY": microsPerDay, "DAYOFYEAR": microsPerDay, "WEEK": 7 * microsPerDay,
}

// unitMonths are the sizes of the units of months.
var unitMonths = map[string]int64{"MONTH": 1, "QUARTER": 3, "YEAR": 12}

// unitCall translates a call written in the unit form; ok is false for
// the ones it does not (TIMEDIFF), which call refuses.
func (t *tr) unitCall(c *ast.Call) (frag, bool) {
	name := strings.ToLower(c.Name.String())
	if c.Unit == nil || len(c.Args) != 2 {
		return frag{}, false
	}
	unit := strings.ToUpper(c.Unit.Name)
	switch name {
	case "timestampadd", "dateadd", "date_add":
		if c.Over != nil || c.Filter != nil {
			return frag{}, false
		}
		return t.timestampAdd(c, unit, t.expr(c.Args[0]), t.expr(c.Args[1])), true
	case "timestampdiff", "datediff", "date_diff", "timediff":
		// TIMEDIFF of two dates or timestamps is Spark's TIMESTAMPDIFF.
		if c.Over != nil || c.Filter != nil {
			return frag{}, false
		}
		s, e := t.expr(c.Args[0]), t.expr(c.Args[1])
		if name == "timediff" && (s.typ.is(Time) || e.typ.is(Time) || !s.typ.known() || !e.typ.known()) {
			t.refuse(c, "timediff of TIME values does not run natively yet")
			return null(c), true
		}
		return t.timestampDiff(c, unit, s, e), true
	}
	return frag{}, false
}

// datetimeOperand checks an operand Spark takes as a timestamp (a DATE,
// a TIMESTAMP, a TIMESTAMP_NTZ or NULL), refusing any other.
func (t *tr) datetimeOperand(c *ast.Call, i int, x frag) bool {
	if x.typ.is(Date) || x.typ.is(Timestamp) || x.typ.is(TimestampNTZ) || x.typ.is(Null) {
		return true
	}
	t.refuse(c.Args[i], "%s takes a DATE or TIMESTAMP here natively, and %s is of type %s; cast it", strings.ToLower(c.Name.String()), t.text(c.Args[i]), x.typ)
	return false
}

// localZoned reports a TIMESTAMP (not NTZ) under a session zone other
// than UTC, whose instants and wall-clock times differ.
func (t *tr) localZoned(ty *Type) bool { return ty.is(Timestamp) && t.zone != "" }

// resolveLocal moves a wall-clock TIMESTAMP the session zone skips (a
// daylight saving gap) on by the gap, as Java's ZonedDateTime does.
func (t *tr) resolveLocal(x frag) frag { return t.utcToLocal(t.localToUTC(x)) }

// timestampAdd translates TIMESTAMPADD(unit, quantity, ts): a TIMESTAMP
// (a DATE counts from its midnight) or a TIMESTAMP_NTZ; a quantity whose
// amount leaves Spark's int (days, months) or long (microseconds) fails
// with DATETIME_OVERFLOW.
func (t *tr) timestampAdd(c *ast.Call, unit string, q, x frag) frag {
	if q.typ.numeric() && !q.typ.integral() || q.typ.is(String) {
		// Spark casts the quantity to BIGINT (checked on Spark 4.1.4:
		// timestampadd(DAY, 1.5, ts) adds one day, '2' two).
		x := c.Args[0]
		q = t.cast(&ast.Cast{Range: x.Span(), Form: "CAST", X: x, Type: &ast.DataType{Range: x.Span(), Name: "BIGINT"}})
	}
	if !q.typ.integral() && !q.typ.is(Null) {
		t.refuse(c.Args[0], "%s takes a whole number of units natively, and %s is of type %s", strings.ToLower(c.Name.String()), t.text(c.Args[0]), q.typ)
		return null(c)
	}
	if !t.datetimeOperand(c, 1, x) {
		return null(c)
	}
	ty := tTS
	if x.typ.is(TimestampNTZ) {
		ty = x.typ
	}
	if q.typ.is(Null) || x.typ.is(Null) {
		return at(c, ty, cat("CAST(NULL AS TIMESTAMP)"))
	}
	if t.localZoned(ty) && !t.zoned(c, strings.ToLower(c.Name.String())) {
		return null(c)
	}
	ts := cat("CAST(", x, " AS TIMESTAMP)")
	overflow := func() string {
		msg := cat("'[DATETIME_OVERFLOW] Datetime operation overflow: add ' || CAST(q AS VARCHAR) || 'L "+unit+" to TIMESTAMP ''' || CAST(", ts, " AS VARCHAR) || '''. SQLSTATE: 22008"+markOpen+strconv.Itoa(t.check(c))+markClose+"'")
		return "error(" + msg.s + ")"
	}
	checked := func(factor int64, lo, hi, typ string) frag {
		// q * factor in Spark's integer type, or the overflow error.
		return cat("list_transform([CAST(", q, " AS HUGEINT)], lambda q: CASE WHEN q IS NULL THEN NULL WHEN q * "+strconv.FormatInt(factor, 10)+" BETWEEN "+lo+" AND "+hi+" THEN CAST(q * "+strconv.FormatInt(factor, 10)+" AS "+typ+") ELSE "+overflow()+" END)[1]")
	}
	// Spark's int of days or months, narrowed to the span of its
	// timestamps (a long of microseconds, 106,751,991 days or about
	// 3,507,324 months): past it Spark fails with DATETIME_OVERFLOW too,
	// where DuckDB would fail with its own words.
	const (
		dayLo, dayHi     = "-106751991", "106751991"
		monthLo, monthHi = "-3507324", "3507324"
		longLo, longHi   = "-9223372036854775808", "9223372036854775807"
	)
	if m, ok := unitMonths[unit]; ok {
		out := cat("(", ts, " + to_months(", checked(m, monthLo, monthHi, "INTEGER"), "))")
		if t.localZoned(ty) {
			out = t.resolveLocal(out)
		}
		return at(c, ty, out)
	}
	us, ok := unitMicros[unit]
	if !ok {
		t.refuse(c.Unit, "the unit %s of %s", unit, strings.ToLower(c.Name.String()))
		return null(c)
	}
	if us >= microsPerDay {
		out := cat("(", ts, " + to_days(", checked(us/microsPerDay, dayLo, dayHi, "INTEGER"), "))")
		if t.localZoned(ty) {
			out = t.resolveLocal(out)
		}
		return at(c, ty, out)
	}
	amount := cat("to_microseconds(", checked(us, longLo, longHi, "BIGINT"), ")")
	if t.localZoned(ty) {
		return at(c, ty, t.utcToLocal(cat("(", t.localToUTC(ts), " + ", amount, ")")))
	}
	return at(c, ty, cat("(", ts, " + ", amount, ")"))
}

// timestampDiff translates TIMESTAMPDIFF(unit, start, end), a BIGINT:
// the whole units from start to end, both as wall-clock times (a DATE at
// its midnight; a TIMESTAMP_NTZ beside a TIMESTAMP read in the session
// zone, as Spark casts it).
func (t *tr) timestampDiff(c *ast.Call, unit string, s, e frag) frag {
	if !t.datetimeOperand(c, 0, s) || !t.datetimeOperand(c, 1, e) {
		return null(c)
	}
	if s.typ.is(Null) || e.typ.is(Null) {
		return at(c, tBigInt, cat("CAST(NULL AS BIGINT)"))
	}
	wall := func(x, other frag) frag {
		w := cat("CAST(", x, " AS TIMESTAMP)")
		if x.typ.is(TimestampNTZ) && other.typ.is(Timestamp) && t.localZoned(other.typ) {
			w = t.resolveLocal(w)
		}
		return w
	}
	if (s.typ.is(TimestampNTZ) && e.typ.is(Timestamp) || e.typ.is(TimestampNTZ) && s.typ.is(Timestamp)) && !t.zoned(c, strings.ToLower(c.Name.String())) {
		return null(c)
	}
	pair := cat("[{'s': ", wall(s, e), ", 'e': ", wall(e, s), "}]")
	if m, ok := unitMonths[unit]; ok {
		return at(c, tBigInt, cat("list_transform(", pair, ", lambda p: CAST("+monthsBetweenSQL("p.s", "p.e")+" // "+strconv.FormatInt(m, 10)+" AS BIGINT))[1]"))
	}
	us, ok := unitMicros[unit]
	if !ok || unit == "DAYOFYEAR" {
		t.refuse(c.Unit, "the unit %s of %s (Spark counts MICROSECOND to YEAR, not DAYOFYEAR)", unit, strings.ToLower(c.Name.String()))
		return null(c)
	}
	return at(c, tBigInt, cat("list_transform(", pair, ", lambda p: CAST((CAST(epoch_us(p.e) AS HUGEINT) - epoch_us(p.s)) // "+strconv.FormatInt(us, 10)+" AS BIGINT))[1]"))
}

// monthsBetweenSQL is the whole months from the wall-clock time s to e as
// Java's LocalDateTime.until(end, MONTHS) counts them: the end's date a
// day nearer the start when its time of day has not reached the start's,
// then the difference of (proleptic month * 32 + day of month), divided
// by 32 toward zero (HUGEINT).
func monthsBetweenSQL(s, e string) string {
	sd, ed := "CAST("+s+" AS DATE)", "CAST("+e+" AS DATE)"
	st, et := "CAST("+s+" AS TIME)", "CAST("+e+" AS TIME)"
	end := "CASE WHEN " + ed + " > " + sd + " AND " + et + " < " + st + " THEN " + ed + " - 1 WHEN " + ed + " < " + sd + " AND " + et + " > " + st + " THEN " + ed + " + 1 ELSE " + ed + " END"
	packed := func(d string) string {
		return "((CAST(year(" + d + ") AS HUGEINT) * 12 + month(" + d + ") - 1) * 32 + day(" + d + "))"
	}
	return "((" + packed(end) + " - " + packed(sd) + ") // 32)"
}
