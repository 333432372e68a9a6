package translate

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// Spark's ANSI interval types run natively as DuckDB INTERVALs held in
// one component only: a YEAR-MONTH interval (Spark: an int of months) as
// an INTERVAL of months, a DAY-TIME interval (Spark: a long of
// microseconds) as an INTERVAL of microseconds, with no days. DuckDB
// compares, sorts, groups and adds such INTERVALs as Spark does its
// intervals (a single component compares by its value), adds them to
// dates and timestamps as Spark does, and fails where the component
// overflows. What DuckDB computes otherwise (a product, a quotient, a
// sum) is computed on the months or microseconds as integers, rounded as
// Spark rounds (HALF_UP), and put back with to_months or to_microseconds.
// The translator carries the interval's start and end fields in its
// [Type]; the type is Spark's, never DuckDB's.

// IntervalField is a field of an ANSI interval type.
type IntervalField uint8

// The fields of ANSI interval types, in Spark's order. FieldNone marks
// an interval of no known ANSI type.
const (
	FieldNone IntervalField = iota
	FieldYear
	FieldMonth
	FieldDay
	FieldHour
	FieldMinute
	FieldSecond
)

var fieldNames = [...]string{"", "year", "month", "day", "hour", "minute", "second"}

// intervalOf is the ANSI interval type from start to end.
func intervalOf(start, end IntervalField) *Type {
	return &Type{Kind: IntervalKind, Start: start, End: end}
}

// YearMonth reports an ANSI year-month interval type (INTERVAL YEAR,
// MONTH, YEAR TO MONTH).
func (ty *Type) YearMonth() bool {
	return ty.is(IntervalKind) && (ty.Start == FieldYear || ty.Start == FieldMonth)
}

// DayTime reports an ANSI day-time interval type (INTERVAL DAY TO
// SECOND, HOUR, MINUTE TO SECOND, ...).
func (ty *Type) DayTime() bool {
	return ty.is(IntervalKind) && ty.Start >= FieldDay && ty.Start <= FieldSecond
}

// ansiInterval reports a year-month or day-time interval type.
func (ty *Type) ansiInterval() bool { return ty.YearMonth() || ty.DayTime() }

// sameIntervalClass reports two year-month or two day-time intervals.
func sameIntervalClass(a, b *Type) bool {
	return a.YearMonth() && b.YearMonth() || a.DayTime() && b.DayTime()
}

// intervalName writes an interval type as Spark does: "interval year to
// month", "interval second", "interval" for one of no ANSI type.
func intervalName(ty *Type) string {
	if !ty.ansiInterval() || ty.End < ty.Start || int(ty.End) >= len(fieldNames) {
		return "interval"
	}
	if ty.Start == ty.End {
		return "interval " + fieldNames[ty.Start]
	}
	return "interval " + fieldNames[ty.Start] + " to " + fieldNames[ty.End]
}

// intervalOfQualifier reads the fields after INTERVAL in a type ("YEAR
// TO MONTH", "SECOND"); an interval of no ANSI type when there are none
// or they do not make one.
func intervalOfQualifier(q string) *Type {
	f := strings.Fields(strings.ToUpper(q))
	field := func(s string) IntervalField {
		for i, n := range fieldNames {
			if i > 0 && strings.EqualFold(n, s) {
				return IntervalField(i)
			}
		}
		return FieldNone
	}
	var start, end IntervalField
	switch {
	case len(f) == 1:
		start = field(f[0])
		end = start
	case len(f) == 3 && f[1] == "TO":
		start, end = field(f[0]), field(f[2])
	default:
		return tIntvl
	}
	ty := intervalOf(start, end)
	if start == FieldNone || end < start || !(ty.YearMonth() && end <= FieldMonth || ty.DayTime()) {
		return tIntvl
	}
	return ty
}

// widenInterval is the common type of two intervals: the fields of both
// when they are of one class, unknown when one is year-month and the
// other day-time.
func widenInterval(a, b *Type) *Type {
	if sameIntervalClass(a, b) {
		return intervalOf(min(a.Start, b.Start), max(a.End, b.End))
	}
	if !a.ansiInterval() && !b.ansiInterval() {
		return tIntvl
	}
	return tUnknown
}

// unitField maps a unit of an interval literal (as written, any case,
// singular or plural) to the field it counts in and its size there: WEEK
// is 7 days, HOUR 3,600,000,000 microseconds. ok is false for a unit Spark
// does not have.
func unitField(unit string) (f IntervalField, ok bool) {
	u := strings.ToLower(unit)
	if u != "s" && strings.HasSuffix(u, "s") {
		u = u[:len(u)-1]
	}
	switch u {
	case "year":
		return FieldYear, true
	case "month":
		return FieldMonth, true
	case "week", "day":
		return FieldDay, true
	case "hour":
		return FieldHour, true
	case "minute":
		return FieldMinute, true
	case "second", "millisecond", "microsecond":
		return FieldSecond, true
	}
	return FieldNone, false
}

const (
	microsPerSecond = 1_000_000
	microsPerMinute = 60 * microsPerSecond
	microsPerHour   = 60 * microsPerMinute
	microsPerDay    = 24 * microsPerHour
)

// ivAcc accumulates an interval literal as Spark's parser does: months
// and days as ints, microseconds as a long, each checked.
type ivAcc struct {
	months, days, micros big.Int
}

var (
	maxInt32 = big.NewInt(math.MaxInt32)
	minInt32 = big.NewInt(math.MinInt32)
	maxInt64 = big.NewInt(math.MaxInt64)
	minInt64 = big.NewInt(math.MinInt64)
)

func fits(v *big.Int, lo, hi *big.Int) bool { return v.Cmp(lo) >= 0 && v.Cmp(hi) <= 0 }

// number reads [+-]digits[.digits] as an integer part and up to 9
// fraction digits (as nanoseconds), signed; ok is false for anything
// else.
var numberRe = regexp.MustCompile(`^([+-]?)([0-9]+)(?:\.([0-9]+))?$`)

// add adds value (text) of unit to the accumulator; why is set when the
// native engine does not take it.
func (a *ivAcc) add(text, unit string, negative bool) (why string) {
	m := numberRe.FindStringSubmatch(text)
	if m == nil {
		return "the interval value " + strconv.Quote(text) + " is not a plain number"
	}
	whole, ok := new(big.Int).SetString(m[2], 10)
	if !ok {
		return "the interval value " + strconv.Quote(text) + " is not a plain number"
	}
	neg := (m[1] == "-") != negative
	u := strings.ToLower(unit)
	if u != "s" && strings.HasSuffix(u, "s") {
		u = u[:len(u)-1]
	}
	frac := m[3]
	if frac != "" && u != "second" {
		return "a fraction of a " + u + " in an interval literal"
	}
	if len(frac) > 9 {
		// Spark reads at most nanoseconds.
		return "an interval value with more than 9 digits after the point"
	}
	var mul int64
	target := &a.micros
	switch u {
	case "year":
		target, mul = &a.months, 12
	case "month":
		target, mul = &a.months, 1
	case "week":
		target, mul = &a.days, 7
	case "day":
		target, mul = &a.days, 1
	case "hour":
		mul = microsPerHour
	case "minute":
		mul = microsPerMinute
	case "second":
		mul = microsPerSecond
	case "millisecond":
		mul = 1000
	case "microsecond":
		mul = 1
	default:
		return "the interval unit " + unit
	}
	v := new(big.Int).Mul(whole, big.NewInt(mul))
	if frac != "" {
		// Microseconds of the fraction, truncated as Spark does.
		f := frac + strings.Repeat("0", 9-len(frac))
		n, _ := strconv.ParseInt(f[:6], 10, 64)
		v.Add(v, big.NewInt(n))
	}
	if neg {
		v.Neg(v)
	}
	target.Add(target, v)
	if !fits(&a.months, minInt32, maxInt32) || !fits(&a.days, minInt32, maxInt32) || !fits(&a.micros, minInt64, maxInt64) {
		return "an interval literal out of range"
	}
	return ""
}

// dayTime is the accumulated days and microseconds as microseconds.
func (a *ivAcc) dayTime() (int64, bool) {
	v := new(big.Int).Mul(&a.days, big.NewInt(microsPerDay))
	v.Add(v, &a.micros)
	if !fits(v, minInt64, maxInt64) {
		return 0, false
	}
	return v.Int64(), true
}

// intervalLiteral translates an INTERVAL literal to its ANSI type and
// value, computed as Spark's parser computes it. A literal the native
// engine does not take (Spark fails on most of them) is refused.
func (t *tr) intervalLiteral(iv *ast.Interval) frag {
	refuse := func(n ast.Node, why string) frag {
		t.refuse(n, "%s does not run natively (Spark's ANSI interval literals run natively as INTERVAL 1 DAY, INTERVAL '1-2' YEAR TO MONTH, INTERVAL '1 02:03:04' DAY TO SECOND)", why)
		return at(iv, tIntvl, cat("NULL"))
	}
	if t.opts.LegacyInterval {
		return t.legacyLiteral(iv, refuse)
	}
	if iv.Value != nil {
		return t.intervalString(iv, refuse)
	}
	if iv.To != "" {
		return t.intervalFromTo(iv, refuse)
	}
	var acc ivAcc
	start, end := FieldNone, FieldNone
	ym, dt := false, false
	for _, u := range iv.Units {
		f, ok := unitField(u.Unit)
		if !ok {
			return refuse(u, "the interval unit "+u.Unit)
		}
		if start == FieldNone || f < start {
			start = f
		}
		end = max(end, f)
		ym = ym || f <= FieldMonth
		dt = dt || f >= FieldDay
		var text string
		negative := u.Negative
		switch l := u.Value.(type) {
		case *ast.Literal:
			if l.Kind == ast.LitString {
				text, ok = unitValueText(l.Str.Value, u.Negative)
				if !ok {
					return refuse(u, "the interval value "+strconv.Quote(l.Str.Value))
				}
				negative = false
			} else {
				text = l.Text
			}
		default:
			return refuse(u, "an interval value that is not a literal")
		}
		if why := acc.add(text, u.Unit, negative); why != "" {
			return refuse(u, why)
		}
	}
	switch {
	case ym && dt:
		return refuse(iv, "an interval literal that mixes year-month and day-time units (Spark rejects it)")
	case ym:
		return ymLiteral(iv, intervalOf(start, end), acc.months.Int64())
	case dt:
		us, ok := acc.dayTime()
		if !ok {
			return refuse(iv, "an interval literal out of range")
		}
		return dtLiteral(iv, intervalOf(start, end), us)
	}
	return refuse(iv, "an interval literal without units")
}

// unitValueText reads the string value of INTERVAL 'value' unit as
// Spark's parser does (AstBuilder.visitMultiUnitsInterval, then
// IntervalUtils.stringToInterval): a minus before the string negates it
// (a leading '-' dropped, else one put before it), then the text trimmed,
// a sign and the white space after it (Java's Character.isWhitespace)
// read before the number: '1\t' and '-\t 1' are numbers, '- -1' is
// not. ok is false for a text with a letter, which Spark rejects.
func unitValueText(v string, minus bool) (string, bool) {
	if strings.IndexFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0 {
		return "", false
	}
	if minus {
		if strings.HasPrefix(v, "-") {
			v = v[1:]
		} else {
			v = "-" + v
		}
	}
	v = javaTrim(v)
	sign := ""
	if strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+") {
		sign, v = v[:1], strings.TrimLeftFunc(v[1:], javaWhitespace)
	}
	return sign + v, true
}

// javaWhitespace is Java's Character.isWhitespace: the space separators
// but the no-break ones, and tab, line feed, vertical tab, form feed,
// carriage return and the four information separators.
func javaWhitespace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1C, 0x1D, 0x1E, 0x1F:
		return true
	case 0x00A0, 0x2007, 0x202F:
		return false
	}
	return unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp)
}

func ymLiteral(n ast.Node, ty *Type, months int64) frag {
	return at(n, ty, cat("to_months(CAST("+strconv.FormatInt(months, 10)+" AS INTEGER))"))
}

func dtLiteral(n ast.Node, ty *Type, micros int64) frag {
	return at(n, ty, cat("to_microseconds(CAST("+strconv.FormatInt(micros, 10)+" AS BIGINT))"))
}

// javaTrim is Java's String.trim: every character up to U+0020 off both
// ends.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

var (
	ymStringRe = regexp.MustCompile(`^([+-]?)([0-9]+)-([0-9]+)$`)
	// dtStringRes are the forms of a day-time string per its fields
	// (IntervalUtils.castStringToDTInterval): [+-] then the fields, the
	// leading one of any length (bounded by the interval's range), the
	// others in two digits at most, seconds with up to 9 digits of
	// fraction.
	dtStringRes = map[[2]IntervalField]*regexp.Regexp{
		{FieldDay, FieldHour}:      regexp.MustCompile(`^([+-]?)([0-9]+) ([0-9]{1,2})$`),
		{FieldDay, FieldMinute}:    regexp.MustCompile(`^([+-]?)([0-9]+) ([0-9]{1,2}):([0-9]{1,2})$`),
		{FieldDay, FieldSecond}:    regexp.MustCompile(`^([+-]?)([0-9]+) ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(?:\.[0-9]{1,9})?)$`),
		{FieldHour, FieldMinute}:   regexp.MustCompile(`^([+-]?)([0-9]+):([0-9]{1,2})$`),
		{FieldHour, FieldSecond}:   regexp.MustCompile(`^([+-]?)([0-9]+):([0-9]{1,2}):([0-9]{1,2}(?:\.[0-9]{1,9})?)$`),
		{FieldMinute, FieldSecond}: regexp.MustCompile(`^([+-]?)([0-9]+):([0-9]{1,2}(?:\.[0-9]{1,9})?)$`),
	}
)

// intervalFromTo translates INTERVAL 'text' unit TO unit: the text read
// as Spark's parser reads a year-month or day-time string of those
// fields. Only the plain forms are taken (the fields after the first
// within their ranges); Spark rejects most others.
func (t *tr) intervalFromTo(iv *ast.Interval, refuse func(ast.Node, string) frag) frag {
	u := iv.Units[0]
	l, ok := u.Value.(*ast.Literal)
	if !ok || l.Kind != ast.LitString {
		return refuse(u, "INTERVAL "+u.Unit+" TO "+iv.To+" of a value that is not a string")
	}
	text := l.Str.Value
	if u.Negative {
		// As Spark's parser: a minus before the string negates it.
		if strings.HasPrefix(text, "-") {
			text = text[1:]
		} else {
			text = "-" + text
		}
	}
	from, ok1 := unitField(u.Unit)
	to, ok2 := unitField(iv.To)
	if !ok1 || !ok2 || strings.HasSuffix(strings.ToLower(u.Unit), "s") || strings.HasSuffix(strings.ToLower(iv.To), "s") {
		return refuse(iv, "INTERVAL ... "+u.Unit+" TO "+iv.To)
	}
	ty := intervalOf(from, to)
	if from == FieldYear && to == FieldMonth {
		m := ymStringRe.FindStringSubmatch(javaTrim(text))
		if m == nil {
			return refuse(iv, "the year-month interval text "+strconv.Quote(l.Str.Value))
		}
		years, err1 := strconv.ParseInt(m[2], 10, 64)
		months, err2 := strconv.ParseInt(m[3], 10, 64)
		if err1 != nil || err2 != nil || months > 11 || years > math.MaxInt32/12 {
			return refuse(iv, "the year-month interval text "+strconv.Quote(l.Str.Value))
		}
		v := years*12 + months
		if m[1] == "-" {
			v = -v
		}
		return ymLiteral(iv, ty, v)
	}
	re := dtStringRes[[2]IntervalField{from, to}]
	if re == nil {
		return refuse(iv, "INTERVAL ... "+u.Unit+" TO "+iv.To)
	}
	m := re.FindStringSubmatch(javaTrim(text))
	if m == nil {
		return refuse(iv, "the day-time interval text "+strconv.Quote(l.Str.Value))
	}
	var acc ivAcc
	units := []string{}
	for f := from; f <= to; f++ {
		units = append(units, fieldNames[f])
	}
	limits := map[string]int64{"hour": 23, "minute": 59, "second": 59}
	for i, unit := range units {
		v := m[2+i]
		whole, _, _ := strings.Cut(v, ".")
		n, err := strconv.ParseInt(whole, 10, 64)
		if err != nil || i > 0 && n > limits[unit] {
			return refuse(iv, "the day-time interval text "+strconv.Quote(l.Str.Value))
		}
		// Each field takes the sign, so that the least BIGINT is in
		// range.
		if why := acc.add(v, unit, m[1] == "-"); why != "" {
			return refuse(iv, why)
		}
	}
	us, ok := acc.dayTime()
	if !ok {
		return refuse(iv, "an interval literal out of range")
	}
	return dtLiteral(iv, ty, us)
}

var (
	wordRe = regexp.MustCompile(`^[a-z]+$`)
)

// intervalString translates INTERVAL 'text', read as Spark reads an
// interval string (value unit pairs, an optional leading "interval"):
// as for INTERVAL 1 DAY 2 HOURS, the units make its type, from the first
// field to the last. Only plain pairs are taken.
func (t *tr) intervalString(iv *ast.Interval, refuse func(ast.Node, string) frag) frag {
	words := strings.Fields(strings.ToLower(iv.Value.Value))
	if len(words) > 0 && words[0] == "interval" {
		words = words[1:]
	}
	if len(words) == 0 || len(words)%2 != 0 {
		return refuse(iv, "the interval text "+strconv.Quote(iv.Value.Value))
	}
	var acc ivAcc
	start, end := FieldNone, FieldNone
	for i := 0; i < len(words); i += 2 {
		f, ok := unitField(words[i+1])
		if !ok || !wordRe.MatchString(words[i+1]) {
			return refuse(iv, "the interval text "+strconv.Quote(iv.Value.Value))
		}
		if start == FieldNone || f < start {
			start = f
		}
		end = max(end, f)
		if why := acc.add(words[i], words[i+1], false); why != "" {
			return refuse(iv, why)
		}
	}
	ty := intervalOf(start, end)
	switch {
	case start <= FieldMonth && end >= FieldDay:
		return refuse(iv, "an interval text that mixes year-month and day-time units (Spark rejects it)")
	case ty.YearMonth():
		return ymLiteral(iv, ty, acc.months.Int64())
	}
	us, ok := acc.dayTime()
	if !ok {
		return refuse(iv, "an interval literal out of range")
	}
	return dtLiteral(iv, ty, us)
}

// ansiIntervalsOnly reports a type whose intervals (itself, or in its
// elements, keys, values or fields) all have an ANSI type, which the
// native engine holds as Spark does.
func ansiIntervalsOnly(ty *Type) bool {
	if ty == nil {
		return true
	}
	if ty.is(IntervalKind) {
		return ty.ansiInterval()
	}
	if !ansiIntervalsOnly(ty.Elem) || !ansiIntervalsOnly(ty.Key) || !ansiIntervalsOnly(ty.Val) {
		return false
	}
	for _, f := range ty.Fields {
		if !ansiIntervalsOnly(f.Type) {
			return false
		}
	}
	return true
}

// HasInterval reports a type that is an interval or holds one.
func (ty *Type) HasInterval() bool { return ty.has(IntervalKind) }

// intervalOp reports an operator on an ANSI interval that
// intervalBinary translates: + and - of two intervals of one class,
// their comparisons, an interval times a number (either side) and an
// interval divided by one.
func intervalOp(op string, l, r *Type) bool {
	switch op {
	case "+", "-":
		return sameIntervalClass(l, r) || l.ansiInterval() && r.is(Null) || r.ansiInterval() && l.is(Null)
	case "=", "==", "<>", "!=", "<", "<=", ">", ">=", "<=>", "DIV":
		return sameIntervalClass(l, r)
	case "*":
		return l.ansiInterval() && intervalFactor(r) || r.ansiInterval() && intervalFactor(l)
	case "/":
		return l.ansiInterval() && intervalFactor(r)
	}
	return false
}

// intervalFactor reports a type an interval is multiplied or divided by:
// a number, or a string or NULL, which Spark casts to DOUBLE.
func intervalFactor(x *Type) bool { return x.numeric() || x.is(Null) || x.is(String) }

// intervalOperandError records Spark's analysis error for an operator
// between an ANSI interval and a number, string, boolean or binary that
// Spark rejects, and reports whether it did (its golden interval.sql and
// typeCoercion/native/dateTimeOperations.sql, in either ANSI mode): a
// comparison with a number or string, a number or string divided by an
// interval, and a year-month interval plus or minus a number or string
// are BINARY_OP_DIFF_TYPES; a number, boolean or binary plus a day-time
// interval (either order), or minus one, is UNEXPECTED_INPUT_TYPE, as
// Spark reads it as a timestamp moved by the interval.
func (t *tr) intervalOperandError(b *ast.Binary, l, r *Type) bool {
	plain := func(x *Type) bool { return x.numeric() || x.is(String) }
	diff := false
	switch b.Op {
	case "=", "==", "<>", "!=", "<", "<=", ">", ">=", "<=>":
		diff = l.ansiInterval() && plain(r) || r.ansiInterval() && plain(l)
	case "/":
		diff = r.ansiInterval() && (plain(l) || l.is(Null))
	case "+", "-":
		diff = l.YearMonth() && plain(r) || r.YearMonth() && plain(l)
		other, otherX := l, b.L
		if l.DayTime() {
			other, otherX = r, b.R
		}
		if !diff && (r.DayTime() || l.DayTime() && b.Op == "+") && (other.numeric() || other.is(Boolean) || other.is(Binary)) {
			t.typeError(b, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve \"%s\" due to data type mismatch: The first parameter requires the \"(TIMESTAMP OR TIMESTAMP WITHOUT TIME ZONE)\" type, however \"%s\" has the type \"%s\". SQLSTATE: 42K09",
				t.text(b), t.text(otherX), strings.ToUpper(other.String()))
			return true
		}
	}
	if !diff {
		return false
	}
	t.typeError(b, "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES", "Cannot resolve \"(%s)\" due to data type mismatch: the left and right operands of the binary operator have incompatible types (\"%s\" and \"%s\"). SQLSTATE: 42K09",
		t.text(b.L)+" "+b.Op+" "+t.text(b.R), strings.ToUpper(l.String()), strings.ToUpper(r.String()))
	return true
}

// mixedIntervals records Spark's analysis error for the operator b (or
// the call n of it, try_add) that meets a year-month and a day-time
// interval, and reports whether it did. As Spark's golden interval.sql
// and try_arithmetic.sql record it, in either ANSI mode: a year-month
// interval plus a day-time one (either order), or minus one, is
// UNEXPECTED_INPUT_TYPE (Spark reads the year-month interval as the
// timestamp to move); a day-time interval minus a year-month one, and a
// comparison, is BINARY_OP_DIFF_TYPES. Other operators are refused.
func (t *tr) mixedIntervals(n ast.Node, b *ast.Binary, l, r *Type) bool {
	if !l.ansiInterval() || !r.ansiInterval() || sameIntervalClass(l, r) {
		return false
	}
	ym, ymX := l, b.L
	if !l.YearMonth() {
		ym, ymX = r, b.R
	}
	switch {
	case b.Op == "+" || b.Op == "-" && l.YearMonth():
		t.typeError(n, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve \"%s\" due to data type mismatch: The first parameter requires the \"(TIMESTAMP OR TIMESTAMP WITHOUT TIME ZONE)\" type, however \"%s\" has the type \"%s\". SQLSTATE: 42K09",
			t.text(n), t.text(ymX), strings.ToUpper(ym.String()))
	case b.Op == "-", b.Op == "=", b.Op == "==", b.Op == "<>", b.Op == "!=", b.Op == "<", b.Op == "<=", b.Op == ">", b.Op == ">=", b.Op == "<=>":
		t.typeError(n, "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES", "Cannot resolve \"(%s)\" due to data type mismatch: the left and right operands of the binary operator have incompatible types (\"%s\" and \"%s\"). SQLSTATE: 42K09",
			t.text(b.L)+" "+b.Op+" "+t.text(b.R), strings.ToUpper(l.String()), strings.ToUpper(r.String()))
	default:
		t.refuse(n, "a year-month interval (%s) and a day-time interval (%s) do not meet: Spark rejects the expression (DATATYPE_MISMATCH); use intervals of one kind", strings.ToUpper(pickYM(l, r).String()), strings.ToUpper(pickDT(l, r).String()))
	}
	return true
}

func pickYM(a, b *Type) *Type {
	if a.YearMonth() {
		return a
	}
	return b
}

func pickDT(a, b *Type) *Type {
	if a.DayTime() {
		return a
	}
	return b
}

// monthsOf is the number of months of a year-month interval x (BIGINT).
func monthsOf(x frag) frag {
	return cat("(datepart('year', ", x, ") * 12 + datepart('month', ", x, "))")
}

// microsOf is the number of microseconds of a day-time interval x
// (BIGINT; a DuckDB interval with days, as TIMESTAMP - TIMESTAMP gives,
// counts them as 24 hours).
func microsOf(x frag) frag { return cat("epoch_us(", x, ")") }

// intervalOverflow is Spark's error for an interval result out of range.
func (t *tr) intervalOverflow(n ast.Node, suggest string) string {
	msg := "[INTERVAL_ARITHMETIC_OVERFLOW.WITHOUT_SUGGESTION] Integer overflow while operating with intervals. Try devising appropriate values for the interval parameters. SQLSTATE: 22015"
	if suggest != "" {
		msg = "[INTERVAL_ARITHMETIC_OVERFLOW.WITH_SUGGESTION] Integer overflow while operating with intervals. Try devising appropriate values for the interval parameters. Use " + "`" + suggest + "`" + " to tolerate overflow and return NULL instead. SQLSTATE: 22015"
	}
	return quoteString(msg + markOpen + strconv.Itoa(t.check(n)) + markClose)
}

// ranged wraps v, an integer expression, into a year-month interval (an
// INTEGER of months) or a day-time one (a BIGINT of microseconds),
// failing with Spark's interval overflow where it leaves the range.
func (t *tr) ranged(n ast.Node, ym bool, v frag, suggest string, try bool) frag {
	lo, hi, fn, ty := "-2147483648", "2147483647", "to_months", "INTEGER"
	if !ym {
		lo, hi, fn, ty = "-9223372036854775808", "9223372036854775807", "to_microseconds", "BIGINT"
	}
	bad := "error(" + t.intervalOverflow(n, suggest) + ")"
	if try {
		bad = "NULL"
	}
	return cat(fn+"(CAST(list_transform([", v, "], lambda v: CASE WHEN v IS NULL OR v BETWEEN "+lo+" AND "+hi+" THEN v ELSE "+bad+" END)[1] AS "+ty+"))")
}

// intervalBinary translates an operator on ANSI intervals (intervalOp);
// ok is false for any other. With try (try_add, try_subtract,
// try_multiply, try_divide) a result out of range or a zero divisor
// gives NULL.
func (t *tr) intervalBinary(b *ast.Binary, l, r frag, try bool) (frag, bool) {
	if !intervalOp(b.Op, l.typ, r.typ) {
		return frag{}, false
	}
	switch b.Op {
	case "+", "-":
		if l.typ.is(Null) {
			return at(b, r.typ, cat("CAST(NULL AS INTERVAL)")), true
		}
		if r.typ.is(Null) {
			return at(b, l.typ, cat("CAST(NULL AS INTERVAL)")), true
		}
		ym := l.typ.YearMonth()
		ty := widenInterval(l.typ, r.typ)
		val := monthsOf
		if !ym {
			val = microsOf
		}
		suggest := "try_add"
		if b.Op == "-" {
			suggest = "try_subtract"
		}
		sum := cat("(CAST(", val(l), " AS HUGEINT) "+b.Op+" CAST(", val(r), " AS HUGEINT))")
		return at(b, ty, t.ranged(b, ym, sum, suggest, try)), true
	case "<=>":
		return at(b, tBool, cat("(", l, " IS NOT DISTINCT FROM ", r, ")")), true
	case "DIV":
		// Spark's IntegralDivide of two intervals of one class: the
		// months or microseconds divided toward zero, a BIGINT; a zero
		// divisor fails in ANSI mode and gives NULL otherwise.
		val := microsOf
		if l.typ.YearMonth() {
			val = monthsOf
		}
		return at(b, tBigInt, cat("CAST(CAST(", val(l), " AS HUGEINT) // ", t.divisor(b.R, cat("CAST(", val(r), " AS HUGEINT)"), try), " AS BIGINT)")), true
	case "*", "/":
		if try && b.Op == "*" && l.typ.is(String) != r.typ.is(String) {
			// try_multiply of a string: not modelled.
			return frag{}, false
		}
		iv, num, numX := l, r, b.R
		if !l.typ.ansiInterval() {
			iv, num, numX = r, l, b.L
		}
		return t.intervalScale(b, iv, num, numX, try), true
	}
	op := b.Op
	switch op {
	case "==":
		op = "="
	case "!=":
		op = "<>"
	}
	// A single component compares by its value on DuckDB.
	return at(b, tBool, cat("(", l, " "+op+" ", r, ")")), true
}

// intervalScale translates iv * num, num * iv and iv / num: Spark's
// MultiplyYMInterval, MultiplyDTInterval, DivideYMInterval and
// DivideDTInterval, computed on the months or microseconds and rounded
// HALF_UP (an integer factor exactly, a DOUBLE in floating point, a
// DECIMAL exactly). The result is an INTERVAL YEAR TO MONTH or DAY TO
// SECOND whatever the interval's fields.
func (t *tr) intervalScale(b *ast.Binary, iv, num frag, numX ast.Expr, try bool) frag {
	ym := iv.typ.YearMonth()
	ty := intervalOf(FieldDay, FieldSecond)
	val := microsOf
	if ym {
		ty, val = intervalOf(FieldYear, FieldMonth), monthsOf
	}
	div := b.Op == "/"
	if num.typ.is(Null) {
		return at(b, ty, cat("CAST(NULL AS INTERVAL)"))
	}
	if num.typ.is(String) {
		num = t.cast(&ast.Cast{Range: numX.Span(), Form: "CAST", X: numX, Type: &ast.DataType{Range: numX.Span(), Name: "DOUBLE"}})
		num.typ = tDouble
	}
	zero := func(d frag) frag {
		if try {
			return cat("nullif(", d, ", 0)")
		}
		return cat("list_transform([", d, "], lambda d: CASE WHEN d = 0 THEN error("+
			quoteString("[INTERVAL_DIVIDED_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead. SQLSTATE: 22012"+markOpen+strconv.Itoa(t.check(b))+markClose)+") ELSE d END)[1]")
	}
	v := val(iv)
	var out frag
	switch {
	case num.typ.integral():
		n := cat("CAST(", num, " AS HUGEINT)")
		if div {
			out = cat("thund_div_round(CAST(", v, " AS HUGEINT), ", zero(n), ")")
		} else {
			out = cat("(CAST(", v, " AS HUGEINT) * ", n, ")")
		}
	case num.typ.fractional():
		n := cat("CAST(", num, " AS DOUBLE)")
		if div {
			n = zero(n)
		}
		q := cat("round(CAST(", v, " AS DOUBLE) "+b.Op+" ", n, ")")
		// Out of the range (or not a number) fails as Spark's
		// DoubleMath.roundToInt/roundToLong does.
		lo, hi := "-2147483648.0", "2147483647.0"
		if !ym {
			lo, hi = "-9223372036854775808.0", "9223372036854775807.0"
		}
		bad := "error(" + t.intervalOverflow(b, "") + ")"
		if try {
			bad = "NULL"
		}
		out = cat("list_transform([", q, "], lambda q: CASE WHEN q IS NULL THEN NULL WHEN q >= "+lo+" AND q <= "+hi+" THEN CAST(q AS HUGEINT) ELSE "+bad+" END)[1]")
	case num.typ.is(Decimal):
		// n = u / 10^s exactly: iv * n = v * u / 10^s, iv / n = v * 10^s / u.
		scale := "1" + strings.Repeat("0", num.typ.S)
		u := cat("CAST(", num, " * "+scale+" AS HUGEINT)")
		if num.typ.S == 0 {
			u = cat("CAST(", num, " AS HUGEINT)")
		}
		if div {
			out = cat("thund_div_round(CAST(", v, " AS HUGEINT) * "+scale+", ", zero(u), ")")
		} else {
			out = cat("thund_div_round(CAST(", v, " AS HUGEINT) * ", u, ", "+scale+")")
		}
	default:
		t.refuse(b, "an interval %s %s does not run natively", b.Op, num.typ)
		return at(b, ty, cat("NULL"))
	}
	return at(b, ty, t.ranged(b, ym, out, "", try))
}

// mixedIntervalArgs refuses a call whose arguments Spark brings to one
// type (array, coalesce, greatest, ...) when they hold a year-month and a
// day-time interval, which Spark rejects (DATATYPE_MISMATCH.DATA_DIFF_TYPES),
// and reports whether it did.
func (t *tr) mixedIntervalArgs(name string, c *ast.Call, args []frag) bool {
	first := 0
	switch name {
	case "count", "isnull", "isnotnull":
		return false
	case "if", "nvl2":
		first = 1
	}
	var ym, dt *Type
	for _, a := range args[min(first, len(args)):] {
		switch {
		case a.typ.YearMonth():
			ym = a.typ
		case a.typ.DayTime():
			dt = a.typ
		}
	}
	if ym != nil && dt != nil {
		t.refuse(c, "%s of a year-month interval (%s) and a day-time interval (%s): Spark rejects it (DATATYPE_MISMATCH.DATA_DIFF_TYPES); use intervals of one kind", name, strings.ToUpper(ym.String()), strings.ToUpper(dt.String()))
		return true
	}
	return false
}

// intervalCast translates the casts of ANSI intervals the native engine
// runs: NULL to an interval type, an interval to STRING (Spark's ANSI
// form, INTERVAL '1-2' YEAR TO MONTH), an interval to an integral type or
// a DECIMAL and back (the number counts the interval's last field), as
// Spark's Cast does them whatever the ANSI mode: a value out of the
// target's range fails (CAST_OVERFLOW, NUMERIC_VALUE_OUT_OF_RANGE), and
// is NULL under TRY_CAST. ok is false for the others.
func (t *tr) intervalCast(c *ast.Cast, a frag, to *Type) (frag, bool) {
	from := a.typ
	try := c.Form == "TRY_CAST"
	fail := func(msg frag) string {
		if try {
			return "NULL"
		}
		return "error(" + msg.s + ")"
	}
	overflow := func(value frag, valueType string) frag {
		return cat("'[CAST_OVERFLOW] The value ' || ", value, " || "+quoteString(" of the type \""+valueType+"\" cannot be cast to \""+strings.ToUpper(to.String())+"\" due to an overflow. Use `try_cast` to tolerate overflow and return NULL instead. SQLSTATE: 22003"+markOpen+strconv.Itoa(t.check(c))+markClose))
	}
	switch {
	case from.is(Null) && to.ansiInterval():
		return at(c, to, cat("CAST(NULL AS INTERVAL)")), true
	case from.is(String) && to.ansiInterval():
		return t.castStringInterval(c, to)
	case from.is(String) && to.is(IntervalKind):
		return t.castStringCalendar(c)
	case from.ansiInterval() && to.is(String):
		return at(c, tString, intervalText(a, from)), true
	case from.is(IntervalKind) && to.is(String):
		return at(c, tString, calendarText(a)), true
	case from.ansiInterval() && to.integral():
		// The interval in units of its last field, truncated
		// (CAST(INTERVAL '-1 02:03:04.123' DAY TO SECOND AS INT) is
		// -93784), failing as Spark's CAST_OVERFLOW out of the type.
		v := cat(monthsOf(a), " // ", endUnit(from))
		if from.DayTime() {
			v = cat(microsOf(a), " // ", endUnit(from))
		}
		msg := overflow(intervalText(a, from), strings.ToUpper(from.String()))
		return at(c, to, cat("list_transform([", v, "], lambda v: CASE WHEN v IS NULL OR v BETWEEN "+minOf(to)+" AND "+maxOf(to)+" THEN CAST(v AS "+to.duck()+") ELSE "+fail(msg)+" END)[1]")), true
	case from.ansiInterval() && to.is(Decimal):
		// Spark: a year-month interval as its whole years or months, a
		// day-time one as whole days, hours or minutes, or as seconds
		// with six digits of fraction; then brought to the decimal's
		// precision and scale, rounded HALF_UP (DuckDB's cast rounds
		// half away from zero, the same).
		v := cat("CAST(", monthsOf(a), " // ", endUnit(from), " AS DECIMAL(38, 0))")
		if from.DayTime() {
			v = cat("CAST(", microsOf(a), " // ", endUnit(from), " AS DECIMAL(38, 0))")
			if from.End == FieldSecond {
				v = cat("(CAST(", microsOf(a), " AS DECIMAL(38, 0)) * 0.000001)")
			}
		}
		d := to.duck()
		msg := cat("'[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION]  ' || CAST(v AS VARCHAR) || " + quoteString(" cannot be represented as Decimal("+strconv.Itoa(to.P)+", "+strconv.Itoa(to.S)+"). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error, and return NULL instead. SQLSTATE: 22003"+markOpen+strconv.Itoa(t.check(c))+markClose))
		return at(c, to, cat("list_transform([", v, "], lambda v: CASE WHEN v IS NULL THEN NULL WHEN TRY_CAST(v AS "+d+") IS NULL THEN "+fail(msg)+" ELSE TRY_CAST(v AS "+d+") END)[1]")), true
	case from.integral() && to.ansiInterval():
		// The number counts the interval's last field (CAST(100 AS
		// INTERVAL HOUR TO SECOND) is 100 seconds).
		lo, hi, fn, ty := "-2147483648", "2147483647", "to_months", "INTEGER"
		if to.DayTime() {
			lo, hi, fn, ty = "-9223372036854775808", "9223372036854775807", "to_microseconds", "BIGINT"
		}
		msg := overflow(cat("CAST(n AS VARCHAR) || "+quoteString(intSuffix(from))), strings.ToUpper(from.String()))
		return at(c, to, cat(fn+"(CAST(list_transform([CAST(", a, " AS HUGEINT)], lambda n: list_transform([n * "+endUnit(to)+"], lambda v: CASE WHEN v IS NULL OR v BETWEEN "+lo+" AND "+hi+" THEN v ELSE "+fail(msg)+" END)[1])[1] AS "+ty+"))")), true
	case from.is(Decimal) && to.ansiInterval():
		// Spark multiplies the decimal by the last field's size and
		// rounds HALF_UP to whole months or microseconds. A fraction
		// of a year, day, hour or minute leaves a value Spark prints
		// cut to the type's last field but computes with whole: not
		// modelled.
		if from.S > 0 && (to.YearMonth() && to.End == FieldYear || to.DayTime() && to.End != FieldSecond) {
			t.refuse(c, "a cast of a %s to %s does not run natively: Spark keeps the fraction of a %s below the type's last field, which it prints cut off; cast a whole number, or to a type ending in %s", from, strings.ToUpper(to.String()), fieldNames[to.End], map[bool]string{true: "MONTH", false: "SECOND"}[to.YearMonth()])
			return at(c, tUnknown, cat("NULL")), true
		}
		lo, hi, fn, ty := "-2147483648", "2147483647", "to_months", "INTEGER"
		if to.DayTime() {
			lo, hi, fn, ty = "-9223372036854775808", "9223372036854775807", "to_microseconds", "BIGINT"
		}
		msg := overflow(cat("CAST(n AS VARCHAR)"), strings.ToUpper(from.String()))
		// round() of a DECIMAL rounds half away from zero, as HALF_UP.
		return at(c, to, cat(fn+"(CAST(list_transform([", a, "], lambda n: list_transform([round(CAST(n AS DECIMAL(38, "+strconv.Itoa(min(from.S, 18))+")) * "+endUnit(to)+")], lambda v: CASE WHEN v IS NULL OR v BETWEEN "+lo+" AND "+hi+" THEN CAST(v AS HUGEINT) ELSE "+fail(msg)+" END)[1])[1] AS "+ty+"))")), true
	}
	return frag{}, false
}

// endUnit is the size of an interval type's last field in its
// component: 12 months for YEAR, 1 for MONTH, 86,400,000,000
// microseconds for DAY, ...
func endUnit(ty *Type) string {
	switch ty.End {
	case FieldYear:
		return "12"
	case FieldDay:
		return "86400000000"
	case FieldHour:
		return "3600000000"
	case FieldMinute:
		return "60000000"
	case FieldSecond:
		return "1000000"
	}
	return "1"
}

// intSuffix is how Spark writes a number of the type in a message: 10L,
// 10S, 10Y, 10.
func intSuffix(ty *Type) string {
	switch ty.Kind {
	case BigInt:
		return "L"
	case SmallInt:
		return "S"
	case TinyInt:
		return "Y"
	}
	return ""
}

// intervalText writes an ANSI interval as Spark's CAST AS STRING does
// (IntervalUtils' ANSI style): INTERVAL '-1-2' YEAR TO MONTH, INTERVAL
// '14' MONTH, INTERVAL '1 02:03:04.5' DAY TO SECOND, INTERVAL '05.25'
// SECOND: the sign, the first field whole, the following ones in two
// digits, seconds with their fraction's trailing zeros cut.
func intervalText(x frag, ty *Type) frag {
	post := "' " + strings.ToUpper(fieldNames[ty.Start])
	if ty.End != ty.Start {
		post += " TO " + strings.ToUpper(fieldNames[ty.End])
	}
	sign := "CASE WHEN v < 0 THEN '-' ELSE '' END"
	num := func(e string) string { return "CAST(" + e + " AS VARCHAR)" }
	two := func(e string) string { return "printf('%02d', CAST(" + e + " AS BIGINT))" }
	var body string
	if ty.YearMonth() {
		switch {
		case ty.Start == FieldMonth:
			body = num("abs(v)")
		case ty.End == FieldMonth:
			body = num("abs(v) // 12") + " || '-' || " + num("abs(v) % 12")
		default:
			body = num("abs(v) // 12")
		}
		return cat("list_transform([", monthsOf(x), "], lambda v: 'INTERVAL ''' || "+sign+" || "+body+" || '"+strings.ReplaceAll(post, "'", "''")+"')[1]")
	}
	// a: the absolute microseconds (HUGEINT, so that the least BIGINT
	// negates); each field takes what the ones before it leave.
	sec := func(rest string) string {
		return "CASE WHEN " + rest + " < 10000000 THEN '0' ELSE '' END || " + num(rest+" // 1000000") +
			" || CASE WHEN " + rest + " % 1000000 = 0 THEN '' ELSE '.' || rtrim(lpad(" + num(rest+" % 1000000") + ", 6, '0'), '0') END"
	}
	per := map[IntervalField]string{FieldDay: "86400000000", FieldHour: "3600000000", FieldMinute: "60000000", FieldSecond: "1000000"}
	rest := "a"
	var parts []string
	for f := ty.Start; f <= ty.End; f++ {
		lead := f == ty.Start
		var s string
		switch {
		case f == FieldSecond:
			s = sec(rest)
		case lead && f == FieldDay:
			s = num(rest + " // " + per[f])
		default:
			s = two(rest + " // " + per[f])
		}
		if !lead {
			sep := "':'"
			if f == FieldHour {
				sep = "' '"
			}
			s = sep + " || " + s
		}
		parts = append(parts, s)
		rest = "(" + rest + " % " + per[f] + ")"
	}
	body = strings.Join(parts, " || ")
	return cat("list_transform([CAST(", microsOf(x), " AS HUGEINT)], lambda v: list_transform([abs(v)], lambda a: 'INTERVAL ''' || "+sign+" || "+body+" || '"+strings.ReplaceAll(post, "'", "''")+"')[1])[1]")
}

// rangeFrameTypes refuses a RANGE frame whose bound is a day-time
// interval while the window is ordered by a DATE: Spark rejects it
// (DATATYPE_MISMATCH.RANGE_FRAME_INVALID_TYPE; a DATE takes a
// year-month interval or a number of days). Called once the window's
// ORDER BY and bounds are translated.
func (t *tr) rangeFrameTypes(w *ast.Window) {
	if w.Frame == nil || !strings.EqualFold(w.Frame.Unit, "RANGE") || len(w.OrderBy) == 0 {
		return
	}
	if !t.types[w.OrderBy[0].X].is(Date) {
		return
	}
	for _, b := range []*ast.FrameBound{w.Frame.Start, w.Frame.End} {
		if b != nil && b.Offset != nil && t.types[b.Offset].DayTime() {
			t.refuse(b, "a RANGE frame of a day-time interval (%s) over a window ordered by a DATE: Spark rejects it (DATATYPE_MISMATCH.RANGE_FRAME_INVALID_TYPE); order by a TIMESTAMP or use a number of days", strings.ToUpper(t.types[b.Offset].String()))
			return
		}
	}
}

// calendarInterval reports an interval that moves a date or timestamp
// by whole days, months or years (a year-month interval, an INTERVAL
// DAY), which Spark adds to a date giving a date, and which does not
// depend on the session time zone natively.
func calendarInterval(ty *Type) bool {
	return ty.YearMonth() || ty.DayTime() && ty.Start == FieldDay && ty.End == FieldDay
}

// zoneSafeInterval reports an operand of date or timestamp arithmetic
// that moves it by whole days, months or years: an INTERVAL literal of
// such units, or an expression of such an ANSI interval type.
func zoneSafeInterval(x ast.Expr, ty *Type) bool { return dayInterval(x) || calendarInterval(ty) }

// datedInterval translates a DATE or TIMESTAMP plus or minus an ANSI
// interval (or an interval plus one) as Spark types it: a DATE moved by a
// year-month interval or whole days stays a DATE (DateAddYMInterval,
// DateAdd), moved by hours, minutes or seconds it becomes a TIMESTAMP
// (TimeAdd of the date at midnight); a TIMESTAMP stays one. ok is false
// for anything else.
func (t *tr) datedInterval(b *ast.Binary, l, r frag) (frag, bool) {
	d, iv := l, r
	if b.Op == "+" && l.typ.ansiInterval() {
		d, iv = r, l
	}
	if (b.Op != "+" && b.Op != "-") || !iv.typ.ansiInterval() || d.typ == iv.typ {
		return frag{}, false
	}
	switch {
	case d.typ.is(Date) && calendarInterval(iv.typ):
		return at(b, tDate, cat("CAST((", d, " "+b.Op+" ", iv, ") AS DATE)")), true
	case d.typ.is(Date):
		if !t.zoned(b, "a date plus or minus hours, minutes or seconds (across a daylight saving change)") {
			return at(b, tTS, cat("NULL")), true
		}
		return at(b, tTS, t.zonedPlus(b.Op, cat("CAST(", d, " AS TIMESTAMP)"), iv)), true
	case d.typ.is(Timestamp):
		return at(b, d.typ, t.zonedPlus(b.Op, d, iv)), true
	case d.typ.is(TimestampNTZ):
		return at(b, d.typ, cat("(", d, " "+b.Op+" ", iv, ")")), true
	}
	return frag{}, false
}

// zonedPlus is ts op iv for a TIMESTAMP ts (a wall-clock time in the
// session zone) and an ANSI interval iv, as Spark computes it: a
// year-month interval moves the wall-clock time (plusMonths); a day-time
// one moves it by its whole days (plusDays, toward zero) and then the
// instant by the rest (DateTimeUtils.timestampAddDayTime), so across a
// daylight saving change INTERVAL 2 HOURS moves the wall-clock time by
// one or three hours and INTERVAL 1 DAY by none but the day. A wall-clock
// time the zone skips moves on by the gap, as Java's ZonedDateTime does.
// Under UTC it is DuckDB's ts op iv.
func (t *tr) zonedPlus(op string, ts, iv frag) frag {
	if z, _ := t.sessionZone(); z == "" {
		return cat("(", ts, " "+op+" ", iv, ")")
	}
	if iv.typ.YearMonth() {
		return t.resolveLocal(cat("(", ts, " "+op+" ", iv, ")"))
	}
	sign := ""
	if op == "-" {
		sign = "-"
	}
	// v: the signed microseconds; whole days first, then the rest.
	moved := t.utcToLocal(cat("(", t.localToUTC(cat("(w + to_days(CAST(v // 86400000000 AS INTEGER)))")), " + to_microseconds(CAST(v % 86400000000 AS BIGINT)))"))
	return cat("list_transform([{'w': ", ts, ", 'v': "+sign+"CAST(", microsOf(iv), " AS HUGEINT)}], lambda p: list_transform([p.v], lambda v: list_transform([p.w], lambda w: ", moved, ")[1])[1])[1]")
}

// intervalAgg translates sum, try_sum, avg and try_avg of an ANSI
// interval, computed on its months or microseconds: sum keeps the
// argument's type, avg is an INTERVAL YEAR TO MONTH or DAY TO SECOND
// rounded HALF_UP (Spark's Average divides the interval sum by the
// count); out of the interval's range sum and avg fail, the try_ forms
// give NULL. ok is false for any other call.
func (t *tr) intervalAgg(name string, c *ast.Call, args []frag) (frag, bool) {
	switch name {
	case "sum", "try_sum", "avg", "try_avg":
	case "div":
		if len(args) != 2 || !sameIntervalClass(args[0].typ, args[1].typ) {
			return frag{}, false
		}
		f, _ := t.intervalBinary(&ast.Binary{Range: c.Range, Op: "DIV", L: c.Args[0], R: c.Args[1]}, args[0], args[1], false)
		return at(c, f.typ, f), true
	case "width_bucket":
		return t.intervalWidthBucket(c, args)
	case "median", "percentile", "percentile_cont", "percentile_disc":
		return t.intervalPercentile(name, c, args)
	case "typeof":
		// Spark's catalogString of the type: interval day to second.
		if len(args) != 1 || !args[0].typ.ansiInterval() || c.Over != nil {
			return frag{}, false
		}
		return at(c, tString, cat(quoteString(intervalName(args[0].typ)))), true
	case "abs", "signum", "sign":
		return t.intervalSign(name, c, args)
	case "try_add", "try_subtract", "try_multiply", "try_divide":
		// try_subtract and try_multiply are try_add's aliases: the
		// call's own name says which.
		return t.intervalTry(strings.ToLower(c.Name.String()), c, args)
	default:
		return frag{}, false
	}
	if len(args) != 1 || !args[0].typ.ansiInterval() || c.Quantifier == "DISTINCT" && c.Over != nil {
		return frag{}, false
	}
	x := args[0]
	ym := x.typ.YearMonth()
	val, lo, hi, fn, dty := microsOf, "-9223372036854775808", "9223372036854775807", "to_microseconds", "BIGINT"
	ty := intervalOf(FieldDay, FieldSecond)
	if ym {
		val, lo, hi, fn, dty = monthsOf, "-2147483648", "2147483647", "to_months", "INTEGER"
		ty = intervalOf(FieldYear, FieldMonth)
	}
	if strings.HasSuffix(name, "sum") {
		ty = x.typ
	}
	windowed := func(agg string) frag {
		f := t.filterInto(c, cat(agg+"("+t.distinct(c), "CAST(", val(x), " AS HUGEINT))"))
		if c.Over != nil {
			if c.Over.Ref != nil && len(c.Over.PartitionBy) == 0 && len(c.Over.OrderBy) == 0 && c.Over.Frame == nil {
				return cat(f, " OVER "+quoteIdent(c.Over.Ref.Name))
			}
			return cat(f, " OVER (", t.windowBody(c.Over), ")")
		}
		return f
	}
	s := windowed("sum")
	var n frag
	if strings.HasSuffix(name, "avg") {
		n = windowed("count")
	}
	c.Over = nil
	bad := "error(" + t.intervalOverflow(c, "") + ")"
	if strings.HasPrefix(name, "try_") {
		bad = "NULL"
	}
	// The sum is checked whole, as Spark sums in the interval's type.
	body := "CASE WHEN s IS NULL OR s BETWEEN " + lo + " AND " + hi + " THEN s ELSE " + bad + " END"
	if n.s != "" {
		body = "CASE WHEN s IS NULL OR s BETWEEN " + lo + " AND " + hi + " THEN thund_div_round(s, n) ELSE " + bad + " END"
		return at(c, ty, cat(fn+"(CAST(list_transform([{'s': ", s, ", 'n': ", n, "}], lambda p: list_transform([p.s], lambda s: list_transform([p.n], lambda n: "+body+")[1])[1])[1] AS "+dty+"))")), true
	}
	return at(c, ty, cat(fn+"(CAST(list_transform([", s, "], lambda s: "+body+")[1] AS "+dty+"))")), true
}

// intervalPercentile translates median(x), percentile(x, p) and
// percentile_cont(p) / percentile_disc(p) WITHIN GROUP (ORDER BY x) of an
// ANSI interval x: Spark's Percentile over the months or microseconds as
// doubles (at (n - 1) * p, (higher - pos) * lower + (pos - lower) *
// higher), the result truncated toward zero into an INTERVAL YEAR TO
// MONTH or DAY TO SECOND (checked on Spark 4.1.4: the median of 1 and 2
// months is 1 month, of -1 and -2 months -1); percentile_disc takes the
// value at ceil(n * p). ok is false for any other call (a window, DISTINCT,
// a percentage that is not a number literal), which call refuses.
func (t *tr) intervalPercentile(name string, c *ast.Call, args []frag) (frag, bool) {
	if c.Over != nil || c.Quantifier == "DISTINCT" {
		return frag{}, false
	}
	var x frag
	var pctX ast.Expr
	desc := false
	switch {
	case name == "median" && len(args) == 1 && len(c.WithinGroup) == 0:
		x = args[0]
	case name == "percentile" && len(args) == 2 && len(c.WithinGroup) == 0:
		x, pctX = args[0], c.Args[1]
	case (name == "percentile_cont" || name == "percentile_disc") && len(args) == 1 && len(c.WithinGroup) == 1:
		it := c.WithinGroup[0]
		x, pctX = t.expr(it.X), c.Args[0]
		desc = strings.EqualFold(it.Dir, "DESC")
	default:
		return frag{}, false
	}
	if !x.typ.ansiInterval() {
		return frag{}, false
	}
	p := 0.5
	if pctX != nil {
		l, ok := pctX.(*ast.Literal)
		if !ok || (l.Kind != ast.LitInteger && l.Kind != ast.LitDecimal && l.Kind != ast.LitDouble) {
			return frag{}, false
		}
		v, err := strconv.ParseFloat(strings.TrimRight(strings.ToUpper(l.Text), "BDLSY"), 64)
		if err != nil || v < 0 || v > 1 {
			return frag{}, false
		}
		p = v
	}
	ym := x.typ.YearMonth()
	val, fn, dty, ty := microsOf, "to_microseconds", "BIGINT", intervalOf(FieldDay, FieldSecond)
	if ym {
		val, fn, dty, ty = monthsOf, "to_months", "INTEGER", intervalOf(FieldYear, FieldMonth)
	}
	dir := "'ASC'"
	if desc {
		dir = "'DESC'"
	}
	v := val(x)
	filter := cat(v, " IS NOT NULL")
	if c.Filter != nil {
		filter = cat(filter, " AND (", t.expr(c.Filter), ")")
	}
	vals := cat("list_sort(list(CAST(", v, " AS DOUBLE)) FILTER (WHERE ", filter, "), "+dir+")")
	pct := "CAST(" + strconv.FormatFloat(p, 'g', -1, 64) + " AS DOUBLE)"
	var body string
	if name == "percentile_disc" {
		body = "CASE WHEN len(v) = 0 THEN NULL ELSE v[greatest(CAST(ceil(len(v) * " + pct + ") AS BIGINT), 1)] END"
	} else {
		pos := "((len(v) - 1) * " + pct + ")"
		lo, hi := "v[CAST(floor("+pos+") AS BIGINT) + 1]", "v[CAST(ceil("+pos+") AS BIGINT) + 1]"
		body = "CASE WHEN len(v) = 0 THEN NULL WHEN floor(" + pos + ") = ceil(" + pos + ") THEN " + lo +
			" ELSE (ceil(" + pos + ") - " + pos + ") * " + lo + " + (" + pos + " - floor(" + pos + ")) * " + hi + " END"
	}
	return at(c, ty, cat(fn+"(CAST(trunc(list_transform([", vals, "], lambda v: "+body+")[1]) AS "+dty+"))")), true
}

// intervalWidthBucket translates width_bucket(value, min, max, n) of
// ANSI intervals of one class: Spark's WidthBucket on their months or
// microseconds as doubles, as for numbers. ok is false for any other.
func (t *tr) intervalWidthBucket(c *ast.Call, args []frag) (frag, bool) {
	if len(args) != 4 || c.Over != nil {
		return frag{}, false
	}
	ym, dt := 0, 0
	for _, a := range args[:3] {
		switch {
		case a.typ.YearMonth():
			ym++
		case a.typ.DayTime():
			dt++
		default:
			return frag{}, false
		}
	}
	if ym != 3 && dt != 3 {
		return frag{}, false
	}
	val := microsOf
	if ym == 3 {
		val = monthsOf
	}
	nums := make([]frag, 4)
	for i, a := range args[:3] {
		nums[i] = cat(val(a))
		nums[i].typ = tBigInt
	}
	nums[3] = args[3]
	return widthBucketFn(t, c, nums), true
}

// intervalTry translates try_add, try_subtract, try_multiply and
// try_divide of an ANSI interval: the operator, NULL where the result
// leaves the interval's range or the divisor is zero; a date or
// timestamp plus or minus an interval as the operator. ok is false for
// any other (refused by the caller).
func (t *tr) intervalTry(name string, c *ast.Call, args []frag) (frag, bool) {
	if len(args) != 2 || !args[0].typ.ansiInterval() && !args[1].typ.ansiInterval() || c.Over != nil || c.Filter != nil {
		return frag{}, false
	}
	op := map[string]string{"try_add": "+", "try_subtract": "-", "try_multiply": "*", "try_divide": "/"}[name]
	b := &ast.Binary{Range: c.Range, Op: op, L: c.Args[0], R: c.Args[1]}
	if t.mixedIntervals(c, b, args[0].typ, args[1].typ) {
		return at(c, tUnknown, cat("NULL")), true
	}
	if f, ok := t.intervalBinary(b, args[0], args[1], true); ok {
		return at(c, f.typ, f), true
	}
	if f, ok := t.datedInterval(b, args[0], args[1]); ok {
		return at(c, f.typ, f), true
	}
	return frag{}, false
}

// intervalSign translates abs of an ANSI interval (the interval's type,
// failing out of its range) and signum (a DOUBLE: -1.0, 0.0 or 1.0).
func (t *tr) intervalSign(name string, c *ast.Call, args []frag) (frag, bool) {
	if len(args) != 1 || !args[0].typ.ansiInterval() || c.Over != nil {
		return frag{}, false
	}
	x := args[0]
	val := microsOf
	if x.typ.YearMonth() {
		val = monthsOf
	}
	if name != "abs" {
		return at(c, tDouble, cat("CAST(sign(", val(x), ") AS DOUBLE)")), true
	}
	return at(c, x.typ, t.ranged(c, x.typ.YearMonth(), cat("abs(CAST(", val(x), " AS HUGEINT))"), "", false)), true
}

// intervalExtractFields are the fields EXTRACT and date_part take from
// an ANSI interval, by each name Spark accepts.
var intervalExtractFields = map[string]IntervalField{
	"YEAR": FieldYear, "Y": FieldYear, "YEARS": FieldYear, "YR": FieldYear, "YRS": FieldYear,
	"MONTH": FieldMonth, "MON": FieldMonth, "MONS": FieldMonth, "MONTHS": FieldMonth,
	"DAY": FieldDay, "D": FieldDay, "DAYS": FieldDay,
	"HOUR": FieldHour, "H": FieldHour, "HOURS": FieldHour, "HR": FieldHour, "HRS": FieldHour,
	"MINUTE": FieldMinute, "M": FieldMinute, "MIN": FieldMinute, "MINS": FieldMinute, "MINUTES": FieldMinute,
	"SECOND": FieldSecond, "S": FieldSecond, "SEC": FieldSecond, "SECONDS": FieldSecond, "SECS": FieldSecond,
}

// extractIntervalFn is EXTRACT(field FROM x) and date_part('field', x):
// of an ANSI interval as Spark's ExtractANSIInterval* compute it (a field
// within the interval's type: years as INT, months as TINYINT, days as
// INT, hours and minutes as TINYINT, seconds with their fraction as
// DECIMAL(8,6), each signed as the interval, what the fields before it
// leave); date_part(NULL, interval) is a NULL DOUBLE. Any other argument
// is extractFn's.
func extractIntervalFn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) == 0 || !a[len(a)-1].typ.has(IntervalKind) {
		for i, x := range a {
			if x.typ.has(IntervalKind) {
				t.refuse(c.Args[i], "%s of an interval does not run natively here", c.Name.String())
				return null(c)
			}
		}
		return extractFn(t, c, a)
	}
	x := a[len(a)-1]
	if !x.typ.ansiInterval() {
		t.refuse(c, "%s of an interval of no ANSI type does not run natively", c.Name.String())
		return null(c)
	}
	var field string
	switch {
	case c.Unit != nil && len(a) == 1:
		field = strings.ToUpper(c.Unit.Name)
	case len(a) == 2:
		l, ok := c.Args[0].(*ast.Literal)
		switch {
		case ok && l.Kind == ast.LitNull:
			return at(c, tDouble, cat("CAST(NULL AS DOUBLE)"))
		case !ok || l.Kind != ast.LitString:
			t.refuse(c.Args[0], "the field must be a string literal natively")
			return null(c)
		}
		field = strings.ToUpper(l.Str.Value)
	default:
		t.refuse(c, "EXTRACT(field FROM x) or date_part('field', x)")
		return null(c)
	}
	f, ok := intervalExtractFields[field]
	if !ok || f < x.typ.Start || f > x.typ.End {
		t.refuse(c, "%s of %s from an %s does not run natively (Spark takes only the interval's own fields from it)", c.Name.String(), field, strings.ToUpper(x.typ.String()))
		return null(c)
	}
	months, us := monthsOf(x), microsOf(x)
	switch f {
	case FieldYear:
		return at(c, tInt, cat("CAST(", months, " // 12 AS INTEGER)"))
	case FieldMonth:
		return at(c, &Type{Kind: TinyInt}, cat("CAST(", months, " % 12 AS TINYINT)"))
	case FieldDay:
		return at(c, tInt, cat("CAST(", us, " // 86400000000 AS INTEGER)"))
	case FieldHour:
		return at(c, &Type{Kind: TinyInt}, cat("CAST((", us, " % 86400000000) // 3600000000 AS TINYINT)"))
	case FieldMinute:
		return at(c, &Type{Kind: TinyInt}, cat("CAST((", us, " % 3600000000) // 60000000 AS TINYINT)"))
	}
	return at(c, decimalOf(8, 6), cat("CAST(CAST(", us, " % 60000000 AS DECIMAL(18, 0)) * 0.000001 AS DECIMAL(8, 6))"))
}

// intervalIntArgs checks the arguments of make_ym_interval and
// make_dt_interval that Spark takes as INT: an INT, a smaller integer or
// NULL.
func (t *tr) intervalIntArgs(c *ast.Call, a []frag) bool {
	for i, x := range a {
		if !(x.typ.is(Int) || x.typ.is(SmallInt) || x.typ.is(TinyInt) || x.typ.is(Null)) {
			t.refuse(c.Args[i], "%s takes INT arguments natively, and %s is of type %s", c.Name.String(), t.text(c.Args[i]), x.typ)
			return false
		}
	}
	return true
}

// makeYMIntervalFn is make_ym_interval(years, months): an INTERVAL YEAR
// TO MONTH of years * 12 + months, failing out of range as Spark does
// (INTERVAL_ARITHMETIC_OVERFLOW).
func makeYMIntervalFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 0, 2) || !t.intervalIntArgs(c, a) {
		return null(c)
	}
	y, m := cat("0"), cat("0")
	if len(a) > 0 {
		y = cat("CAST(", a[0], " AS HUGEINT)")
	}
	if len(a) > 1 {
		m = cat("CAST(", a[1], " AS HUGEINT)")
	}
	return at(c, intervalOf(FieldYear, FieldMonth), t.ranged(c, true, cat("(", y, " * 12 + ", m, ")"), "", false))
}

// makeDTIntervalFn is make_dt_interval(days, hours, mins, secs): an
// INTERVAL DAY TO SECOND of their sum in microseconds (secs a
// DECIMAL(18,6)), failing out of range as Spark does
// (INTERVAL_ARITHMETIC_OVERFLOW).
func makeDTIntervalFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 0, 4) {
		return null(c)
	}
	n := min(len(a), 3)
	if !t.intervalIntArgs(c, a[:n]) {
		return null(c)
	}
	sum := cat("CAST(0 AS HUGEINT)")
	for i, unit := range []string{"86400000000", "3600000000", "60000000"}[:n] {
		sum = cat(sum, " + CAST(", a[i], " AS HUGEINT) * "+unit)
	}
	if len(a) == 4 {
		s := a[3]
		if !(s.typ.integral() || s.typ.is(Decimal) || s.typ.is(Null)) {
			t.refuse(c.Args[3], "make_dt_interval takes its seconds as a DECIMAL(18,6) natively, and %s is of type %s", t.text(c.Args[3]), s.typ)
			return null(c)
		}
		if s.typ.is(Decimal) && (s.typ.S > 6 || s.typ.P-s.typ.S > 12) {
			t.refuse(c.Args[3], "make_dt_interval's seconds of type %s do not fit Spark's DECIMAL(18,6) exactly", s.typ)
			return null(c)
		}
		sum = cat(sum, " + CAST(CAST(CAST(", s, " AS DECIMAL(18, 6)) AS DECIMAL(38, 6)) * 1000000 AS HUGEINT)")
	}
	return at(c, intervalOf(FieldDay, FieldSecond), t.ranged(c, false, cat("(", sum, ")"), "", false))
}

// registered is set by registerExprFunctions, which puts this task's
// functions into the table of funcs.go before its init builds the index:
// the table is shared by several files in progress, so its entries for
// these names are replaced here rather than edited there.
var registered = registerExprFunctions()

// registerExprFunctions replaces the entries of ceil, floor, round,
// bround, extract and make_date, adds make_ym_interval,
// make_dt_interval, make_timestamp_ntz and try_make_timestamp_ntz, and
// lets extract take intervals.
func registerExprFunctions() bool {
	set := func(f Function) {
		for i := range functions {
			if functions[i].Name == f.Name {
				functions[i] = f
				return
			}
		}
		functions = append(functions, f)
	}
	set(custom("ceil", "CAST(ceil(x) AS BIGINT); with a scale d, Spark's DECIMAL computed exactly", ceilFloorScaledFn("ceil"), "ceiling"))
	set(custom("floor", "CAST(floor(x) AS BIGINT); with a scale d, Spark's DECIMAL computed exactly", ceilFloorScaledFn("floor")))
	set(custom("round", "round(x, d) (HALF_UP, as DuckDB rounds), as DECIMAL(p - s + d + 1, d) for decimals; a negative d of an integer without ANSI wraps", roundLegacyFn("round")))
	set(custom("bround", "round_even(x, d) (HALF_EVEN); a negative d of an integer without ANSI wraps", roundLegacyFn("round_even")))
	set(custom("extract", "date_part(field, x), Spark's numbering of weekdays; of an ANSI interval its own fields from the months or microseconds", extractIntervalFn, "date_part", "datepart"))
	set(custom("make_date", "make_date(y, m, d); NULL for a day that does not exist without ANSI mode", makeDateFn))
	set(custom("make_ym_interval", "to_months(years * 12 + months), checked", makeYMIntervalFn))
	set(custom("make_dt_interval", "to_microseconds(the sum in microseconds, seconds a DECIMAL(18,6)), checked", makeDTIntervalFn))
	set(custom("make_timestamp_ntz", "make_timestamp(y, m, d, h, mi, s) or date + time, a wall-clock time in no zone; fields checked as Spark checks them", makeTimestampNTZFn(false)))
	set(custom("try_make_timestamp_ntz", "make_timestamp_ntz, NULL where a field is out of range", makeTimestampNTZFn(true)))
	intervalArgs["extract"] = true
	return true
}
