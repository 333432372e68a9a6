package parser

// The checks of this file are the ones Spark's AstBuilder makes on
// literals once the grammar has read them: a typed literal whose string
// Spark cannot convert, a number out of its type's range, an interval
// string or unit-to-unit value that does not match its format. Each
// raises the error class Spark raises, over the literal.

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// typedLiteralTypes are the type names Spark accepts before a string.
var typedLiteralTypes = map[string]bool{"DATE": true, "TIMESTAMP": true, "TIMESTAMP_NTZ": true,
	"TIMESTAMP_LTZ": true, "TIME": true, "X": true, "INTERVAL": true}

// checkTypedLiteral refuses a typed literal of a type Spark has no literal
// for, or whose string Spark cannot convert to its type.
func (p *parser) checkTypedLiteral(tl *ast.TypedLiteral) {
	if !typedLiteralTypes[tl.Type] {
		p.failRange(tl.Range, "UNSUPPORTED_TYPED_LITERAL", "there is no "+tl.Type+
			" literal: the typed literals are DATE, TIMESTAMP, TIMESTAMP_NTZ, TIMESTAMP_LTZ, TIME, INTERVAL and X; write CAST('...' AS type) for other types")
	}
	v := tl.Value.Value
	ok, form := true, ""
	switch tl.Type {
	case "DATE":
		ok, form = validDate(v), "[+-]yyyy[-mm[-dd]] with an optional time after a space or T"
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		ok, form = validTimestamp(v, false), "yyyy-mm-dd[ hh:mm:ss[.ffffff]][zone] or hh:mm:ss[.ffffff]"
	case "TIMESTAMP_NTZ":
		ok, form = validTimestamp(v, true), "yyyy-mm-dd[ hh:mm:ss[.ffffff]]"
	case "TIME":
		ok, form = validTime(v), "hh:mm[:ss[.ffffff]] (0-23 hours), or with AM or PM (1-12 hours)"
	case "X":
		ok, form = validHex(v), "hexadecimal digits only (0-9, a-f)"
	}
	if !ok {
		p.failRange(tl.Range, "INVALID_TYPED_LITERAL", "the value "+quoteValue(v)+" is not a valid "+tl.Type+
			" literal: write "+form)
	}
}

// checkIntervalString checks INTERVAL 'string': Spark parses the string as
// value-unit pairs and refuses year-month units mixed with day-time ones.
func (p *parser) checkIntervalString(iv *ast.Interval) {
	v := iv.Value.Value
	if msg := parseIntervalString(v); msg != "" {
		p.failRange(iv.Range, "INVALID_TYPED_LITERAL", "the value "+quoteValue(v)+
			" is not a valid INTERVAL literal ("+msg+"): write value-unit pairs such as '1 day 2 hours'")
	}
	var units []string
	for _, w := range strings.Fields(strings.ToLower(v)) {
		w = strings.TrimSuffix(w, "s")
		if w != "interval" && w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" {
			units = append(units, w)
		}
	}
	p.checkMixedUnits(iv.Range, units)
}

// checkInterval checks INTERVAL value unit ... and INTERVAL value unit TO
// unit after the grammar read them.
func (p *parser) checkInterval(iv *ast.Interval) {
	if iv.To != "" && len(iv.Units) == 1 {
		p.checkUnitToUnit(iv)
		return
	}
	var b strings.Builder
	var units []string
	for _, u := range iv.Units {
		lit, _ := u.Value.(*ast.Literal)
		if lit == nil || strings.HasPrefix(u.Unit, "NANO") {
			// NANOSECOND is refused later, when Spark evaluates it
			return
		}
		val := lit.Text
		if lit.Str != nil {
			val = lit.Str.Value
			if strings.IndexFunc(val, unicode.IsLetter) >= 0 {
				p.failRange(u.Range, "_LEGACY_ERROR_TEMP_0026", "the interval value "+quoteValue(val)+
					" holds a unit: write the number alone in the string (INTERVAL '1' DAY), or the whole interval in one string (INTERVAL '1 day 2 hours')")
			}
			if u.Negative {
				if strings.HasPrefix(val, "-") {
					val = val[1:]
				} else {
					val = "-" + val
				}
			}
		} else if u.Negative {
			val = "-" + val
		}
		b.WriteString(" " + val + " " + u.Unit)
		units = append(units, strings.TrimSuffix(strings.ToLower(u.Unit), "s"))
	}
	if msg := parseIntervalString(b.String()); msg != "" {
		p.failRange(iv.Range, "_LEGACY_ERROR_TEMP_0062", "invalid interval: "+msg)
	}
	p.checkMixedUnits(iv.Range, units)
}

// checkMixedUnits refuses an interval with both year-month units (YEAR,
// MONTH) and day-time ones (WEEK, DAY, HOUR, MINUTE, SECOND, ...).
func (p *parser) checkMixedUnits(r ast.Range, units []string) {
	ym, dt := false, false
	for _, u := range units {
		switch u {
		case "year", "month":
			ym = true
		case "week", "day", "hour", "minute", "second", "millisecond", "microsecond":
			dt = true
		}
	}
	if ym && dt {
		p.failRange(r, "_LEGACY_ERROR_TEMP_0029", "an interval cannot mix year-month units (YEAR, MONTH) with day-time units (WEEK to MICROSECOND): "+
			"write two intervals and add them (INTERVAL 1 MONTH + INTERVAL 2 DAYS)")
	}
}

// dayTimeForms are the formats of each day-time unit TO unit, as Spark
// matches the trimmed string (after its sign).
var dayTimeForms = map[string]*regexp.Regexp{
	"DAY HOUR":      regexp.MustCompile(`^[+-]?(\d+) (\d{1,2})$`),
	"DAY MINUTE":    regexp.MustCompile(`^[+-]?(\d+) (\d{1,2}):(\d{1,2})$`),
	"DAY SECOND":    regexp.MustCompile(`^[+-]?(\d+) (\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d{1,9})?$`),
	"HOUR MINUTE":   regexp.MustCompile(`^[+-]?(\d+):(\d{1,2})$`),
	"HOUR SECOND":   regexp.MustCompile(`^[+-]?(\d+):(\d{1,2}):(\d{1,2})(\.\d{1,9})?$`),
	"MINUTE SECOND": regexp.MustCompile(`^[+-]?(\d+):(\d{1,2})(\.\d{1,9})?$`),
}

// dayTimeFormText shows each format to the user.
var dayTimeFormText = map[string]string{
	"DAY HOUR": "'[+|-]d h'", "DAY MINUTE": "'[+|-]d h:m'", "DAY SECOND": "'[+|-]d h:m:s.n'",
	"HOUR MINUTE": "'[+|-]h:m'", "HOUR SECOND": "'[+|-]h:m:s.n'", "MINUTE SECOND": "'[+|-]m:s.n'",
}

// leadingMax is the largest leading field of a day-time interval (what
// fits in a long of microseconds).
var leadingMax = map[string]uint64{"DAY": 106751991, "HOUR": 2562047788, "MINUTE": 153722867280}

var yearMonthForm = regexp.MustCompile(`^([+-])?(\d+)-(\d+)$`)

// checkUnitToUnit checks INTERVAL 'value' unit TO unit.
func (p *parser) checkUnitToUnit(iv *ast.Interval) {
	u := iv.Units[0]
	lit, _ := u.Value.(*ast.Literal)
	if lit == nil || lit.Str == nil {
		p.failRange(iv.Range, "_LEGACY_ERROR_TEMP_0027", "the value of "+u.Unit+" TO "+iv.To+
			" must be a string: write INTERVAL '"+strings.TrimPrefix(p.src[u.Value.Span().Start:u.Value.Span().End], "-")+"' "+u.Unit+" TO "+iv.To)
	}
	from, to := strings.ToUpper(u.Unit), iv.To
	val := lit.Str.Value
	s := strings.TrimFunc(val, func(r rune) bool { return r <= ' ' })
	neg := u.Negative
	switch {
	case from == "YEAR" && to == "MONTH":
		m := yearMonthForm.FindStringSubmatch(s)
		if m == nil {
			p.failRange(iv.Range, "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING", "the value "+quoteValue(val)+
				" does not match YEAR TO MONTH: write INTERVAL '[+|-]y-m' YEAR TO MONTH")
		}
		if m[1] == "-" {
			neg = !neg
		}
		y, err1 := strconv.ParseUint(m[2], 10, 64)
		mo, err2 := strconv.ParseUint(m[3], 10, 64)
		if err1 != nil || err2 != nil || y > math.MaxInt32/12 || mo > 11 {
			p.failRange(iv.Range, "_LEGACY_ERROR_TEMP_0063", "the value "+quoteValue(val)+
				" is out of range: YEAR TO MONTH takes 0 to 178956970 years and 0 to 11 months")
		}
		total := y*12 + mo
		if (!neg && total > math.MaxInt32) || total > math.MaxInt32+1 {
			p.failRange(iv.Range, "INVALID_INTERVAL_FORMAT.INTERVAL_PARSING", "the interval "+quoteValue(val)+
				" overflows: an interval holds at most 2147483647 months")
		}
	case dayTimeForms[from+" "+to] != nil:
		key := from + " " + to
		m := dayTimeForms[key].FindStringSubmatch(s)
		if m == nil {
			p.failRange(iv.Range, "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING_WITH_NOTICE", "the value "+quoteValue(val)+
				" does not match "+from+" TO "+to+": write INTERVAL "+dayTimeFormText[key]+" "+from+" TO "+to)
		}
		lead, err := strconv.ParseUint(m[1], 10, 64)
		if err != nil || lead > leadingMax[from] {
			p.failRange(iv.Range, "_LEGACY_ERROR_TEMP_0063", "the "+strings.ToLower(from)+" value "+m[1]+
				" is out of range: at most "+strconv.FormatUint(leadingMax[from], 10))
		}
		limits := []uint64{23, 59, 59}
		if from == "HOUR" {
			limits = limits[1:]
		} else if from == "MINUTE" {
			limits = limits[2:]
		}
		for i, f := range m[2:] {
			if f == "" || f[0] == '.' || i >= len(limits) {
				continue
			}
			if n, _ := strconv.ParseUint(f, 10, 64); n > limits[i] {
				p.failRange(iv.Range, "_LEGACY_ERROR_TEMP_0063", "the field "+f+" of "+quoteValue(val)+
					" is out of range: hours go to 23, minutes and seconds to 59")
			}
		}
	default:
		p.failRange(iv.Range, "INVALID_INTERVAL_FORMAT.UNSUPPORTED_FROM_TO_EXPRESSION", from+" TO "+to+
			" is not an interval: write YEAR TO MONTH, DAY TO HOUR|MINUTE|SECOND, HOUR TO MINUTE|SECOND or MINUTE TO SECOND")
	}
}

// checkNumber refuses a typed number outside its type's range (neg: the
// literal follows a unary minus, which Spark's grammar takes into it).
func (p *parser) checkNumber(lit *ast.Literal, r ast.Range, neg bool) {
	text := lit.Text
	var digits, typ, lo, hi string
	switch lit.Kind {
	case ast.LitTinyInt:
		digits, typ, lo, hi = text[:len(text)-1], "TINYINT", "-128", "127"
	case ast.LitSmallInt:
		digits, typ, lo, hi = text[:len(text)-1], "SMALLINT", "-32768", "32767"
	case ast.LitBigInt:
		digits, typ, lo, hi = text[:len(text)-1], "BIGINT", "-9223372036854775808", "9223372036854775807"
	case ast.LitFloat:
		digits, typ, hi = text[:len(text)-1], "FLOAT", "3.4028234663852886E+38"
	case ast.LitDouble:
		digits, typ, hi = text[:len(text)-1], "DOUBLE", "1.7976931348623157E+308"
	case ast.LitExponent:
		digits, typ, hi = text, "DOUBLE", "1.7976931348623157E+308"
	case ast.LitBigDecimal:
		p.checkDecimalPrecision(text[:len(text)-2], r)
		return
	default:
		return
	}
	if lo == "" {
		lo = "-" + hi
	}
	if neg {
		digits = "-" + digits
	}
	v, ok1 := new(big.Rat).SetString(digits)
	l, _ := new(big.Rat).SetString(lo)
	h, _ := new(big.Rat).SetString(hi)
	if !ok1 || v.Cmp(l) < 0 || v.Cmp(h) > 0 {
		p.failRange(r, "INVALID_NUMERIC_LITERAL_RANGE", "the "+typ+" literal "+digits+" is outside the range of "+typ+
			" ["+lo+", "+hi+"]: use a wider type (a suffix such as L, D or BD, or none)")
	}
}

// checkDecimalPrecision refuses a DECIMAL literal of more than 38 digits
// of precision (the digits of its unscaled value, or its scale if more).
func (p *parser) checkDecimalPrecision(text string, r ast.Range) {
	mant, exp := text, 0
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		mant = text[:i]
		e, err := strconv.Atoi(text[i+1:])
		if err != nil {
			return
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	scale := len(frac) - exp
	unscaled := strings.TrimLeft(intPart+frac, "0")
	prec := max(len(unscaled), 1)
	if scale < 0 {
		prec -= scale
		scale = 0
	}
	if scale > prec {
		prec = scale
	}
	if prec > 38 {
		p.failRange(r, "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION", "the decimal literal "+text+" needs a precision of "+
			strconv.Itoa(prec)+" digits, more than the 38 DECIMAL holds: write it with fewer digits or as a DOUBLE (suffix D)")
	}
}

// numberLit reports whether k is a numeric token kind.
func numberLit(k lex.Kind) bool {
	switch k {
	case lex.Integer, lex.BigInt, lex.SmallInt, lex.TinyInt, lex.Decimal, lex.Exponent,
		lex.Float, lex.Double, lex.BigDecimal:
		return true
	}
	return false
}

func quoteValue(v string) string { return "'" + v + "'" }

// sparkTrim trims what Spark's trimAll trims: whitespace and control
// characters.
func sparkTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' || unicode.IsSpace(r) || unicode.IsControl(r) })
}

// special reports whether s is one of the special date and time values
// (epoch, now, today, yesterday, tomorrow), optionally with a zone.
func special(s string) bool {
	if len(s) < 3 || !unicode.IsLetter(rune(s[0])) {
		return false
	}
	w, _, _ := strings.Cut(strings.ToLower(s), " ")
	switch w {
	case "epoch", "now", "today", "yesterday", "tomorrow":
		return true
	}
	return false
}

// validDate follows Spark's stringToDate: [+-]yyyy*[-[m]m[-[d]d]] with
// anything after a space or T once the day is read; 4 to 7 year digits.
func validDate(v string) bool {
	s := sparkTrim(v)
	if special(s) {
		return true
	}
	if s == "" {
		return false
	}
	j := 0
	if s[0] == '-' || s[0] == '+' {
		j++
	}
	seg := [3]int{1, 1, 1}
	i, val, digits := 0, 0, 0
	validDigits := func(seg, n int) bool {
		return (seg == 0 && n >= 4 && n <= 7) || (seg != 0 && n > 0 && n <= 2)
	}
	for j < len(s) && !(s[j] == ' ' || s[j] == 'T') {
		b := s[j]
		if i < 2 && b == '-' {
			if !validDigits(i, digits) {
				return false
			}
			seg[i] = val
			val, digits = 0, 0
			i++
		} else {
			if b < '0' || b > '9' {
				return false
			}
			val = val*10 + int(b-'0')
			digits++
		}
		j++
	}
	if !validDigits(i, digits) {
		return false
	}
	if i < 2 && j < len(s) {
		return false
	}
	seg[i] = val
	return validYMD(seg[1], seg[2], seg[0])
}

// validYMD reports whether month m and day d exist in year y.
func validYMD(m, d, y int) bool {
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// validTimestamp follows Spark's parseTimestampString: a date, a date and
// a time after a space or T, or a time alone, then an optional zone.
// ntz refuses a time alone, as TIMESTAMP_NTZ does.
func validTimestamp(v string, ntz bool) bool {
	s := sparkTrim(v)
	if special(s) {
		return true
	}
	if s == "" {
		return false
	}
	seg := [7]int{1, 1, 1, 0, 0, 0, 0}
	validDigits := func(seg, n int) bool {
		return seg == 6 || (seg == 0 && n >= 4 && n <= 6) || (seg != 0 && seg != 6 && n > 0 && n <= 2)
	}
	i, val, digits, j := 0, 0, 0, 0
	justTime, signed := false, false
	zone := ""
	if s[0] == '-' || s[0] == '+' {
		signed = true
		j++
	}
	end := func() bool {
		if !validDigits(i, digits) {
			return false
		}
		seg[i] = val
		val, digits = 0, 0
		i++
		return true
	}
	for ; j < len(s); j++ {
		b := s[j]
		if b >= '0' && b <= '9' {
			if i != 6 || digits < 6 {
				val = val*10 + int(b-'0')
			}
			digits++
			continue
		}
		switch {
		case j == 0 && b == 'T':
			justTime = true
			i += 3
		case i < 2:
			if b == '-' {
				if !end() {
					return false
				}
			} else if i == 0 && b == ':' && !signed {
				justTime = true
				if !validDigits(3, digits) {
					return false
				}
				seg[3] = val
				val, digits = 0, 0
				i = 4
			} else {
				return false
			}
		case i == 2:
			if b != ' ' && b != 'T' {
				return false
			}
			if !end() {
				return false
			}
		case i == 3 || i == 4:
			if b != ':' || !end() {
				return false
			}
		case i == 5 || i == 6:
			if b == '.' && i == 5 {
				if !end() {
					return false
				}
			} else {
				if !end() {
					return false
				}
				zone = strings.TrimSpace(s[j:])
				j = len(s)
			}
		default:
			return false
		}
	}
	if zone == "" && i < len(seg) {
		if !validDigits(i, digits) {
			return false
		}
		seg[i] = val
	}
	if zone != "" && !validZone(zone) {
		return false
	}
	if ntz && justTime {
		return false
	}
	if seg[3] > 23 || seg[4] > 59 || seg[5] > 59 {
		return false
	}
	return justTime || validYMD(seg[1], seg[2], seg[0])
}

var offsetZone = regexp.MustCompile(`^(?i:(UTC|GMT|UT)?[+-]\d{1,2}(:?\d{2}(:?\d{2})?)?|Z|UTC|GMT|UT)$`)
var regionZone = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*$`)

// validZone accepts the zone forms Java's ZoneId reads: Z, offsets
// (+hh[:mm]), UTC/GMT/UT with or without an offset, and region names.
func validZone(z string) bool {
	return offsetZone.MatchString(z) || regionZone.MatchString(z)
}

var timeForm = regexp.MustCompile(`^(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.\d{1,9})?)?(?:\s*([AaPp][Mm]))?$`)

// validTime reads [h]h:[m]m[:[s]s[.fraction]] with an optional AM or PM.
func validTime(v string) bool {
	m := timeForm.FindStringSubmatch(sparkTrim(v))
	if m == nil {
		return false
	}
	h, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	sec := 0
	if m[3] != "" {
		sec, _ = strconv.Atoi(m[3])
	}
	if mi > 59 || sec > 59 {
		return false
	}
	if m[4] != "" {
		return h >= 1 && h <= 12
	}
	return h <= 23
}

// validHex reports whether v is hexadecimal digits only.
func validHex(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// parseIntervalString follows Spark's stringToInterval: an optional
// "interval" prefix, then pairs of a signed number and a unit (year,
// month, week, day, hour, minute, second, millisecond, microsecond, each
// with an optional s); only seconds take a fraction. It returns what is
// wrong, or "".
func parseIntervalString(v string) string {
	s := strings.ToLower(sparkTrim(v))
	if s == "" {
		return "the string is empty"
	}
	ws := func(b byte) bool { return b == ' ' || (b >= '\t' && b <= '\r') || (b >= 0x1c && b <= 0x1f) }
	i := 0
	if strings.HasPrefix(s, "interval") {
		if len(s) == 8 {
			return "the string is empty"
		}
		if !ws(s[8]) {
			return "invalid prefix"
		}
		i = 9
	}
	const (
		trimSign = iota
		sign
		trimValue
		value
		fraction
		trimUnit
		unitBegin
		unitSuffix
		unitEnd
	)
	state := trimSign
	hasFraction, pointPrefixed, fracDigits := false, false, 0
	var cur uint64
	for i < len(s) {
		b := s[i]
		switch state {
		case trimSign, trimValue, trimUnit:
			if ws(b) {
				i++
			} else {
				state++
			}
		case sign:
			cur, hasFraction, pointPrefixed, fracDigits = 0, false, false, 0
			state = trimValue
			switch {
			case b == '-' || b == '+':
				i++
			case b >= '0' && b <= '9':
			case b == '.':
				hasFraction, pointPrefixed = true, true
				i++
				state = fraction
			default:
				return "a number was expected"
			}
		case value:
			switch {
			case b >= '0' && b <= '9':
				if cur > (math.MaxInt64-9)/10 {
					return "a number is out of range"
				}
				cur = cur*10 + uint64(b-'0')
			case ws(b):
				state = trimUnit
			case b == '.':
				hasFraction = true
				state = fraction
			default:
				return "invalid number"
			}
			i++
		case fraction:
			switch {
			case b >= '0' && b <= '9' && fracDigits < 9:
				fracDigits++
			case ws(b) && (!pointPrefixed || fracDigits > 0):
				state = trimUnit
			case b >= '0' && b <= '9':
				return "more than nanosecond precision"
			default:
				return "invalid number"
			}
			i++
		case unitBegin:
			if b != 's' && hasFraction {
				return "only seconds can have a fraction"
			}
			n := 0
			for _, u := range []string{"year", "month", "week", "day", "hour", "minute", "second", "millisecond", "microsecond"} {
				if strings.HasPrefix(s[i:], u) && (u != "minute" || !strings.HasPrefix(s[i:], "month")) {
					if u == "minute" && strings.HasPrefix(s[i:], "millisecond") {
						continue
					}
					n = len(u)
					break
				}
			}
			if n == 0 {
				return "invalid unit"
			}
			i += n
			state = unitSuffix
		case unitSuffix:
			switch {
			case b == 's':
				state = unitEnd
			case ws(b):
				state = trimSign
			default:
				return "invalid unit"
			}
			i++
		case unitEnd:
			if !ws(b) {
				return "invalid unit"
			}
			i++
			state = trimSign
		}
	}
	switch state {
	case unitSuffix, unitEnd, trimSign:
		return ""
	case trimValue:
		return "a number was expected at the end"
	case value, fraction:
		return "a unit was expected at the end"
	}
	return "incomplete interval"
}
