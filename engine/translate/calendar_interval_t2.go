package translate

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// Spark's legacy interval type, CalendarInterval (the type "interval",
// which a cast of a string to INTERVAL and, under
// spark.sql.legacy.interval.enabled, every interval literal give), holds
// three counts apart: months (an int), days (an int) and microseconds (a
// long). DuckDB's INTERVAL holds the same three, so such a value runs
// natively as the INTERVAL of those components; the translator types it
// as an interval of no ANSI type (tIntvl).

// calendar is a CalendarInterval's three counts.
type calendar struct {
	months, days int32
	micros       int64
}

// sql is the DuckDB INTERVAL of the counts, each kept in its component.
func (c calendar) sql() string {
	return "(to_months(CAST(" + strconv.FormatInt(int64(c.months), 10) + " AS INTEGER)) + to_days(CAST(" +
		strconv.FormatInt(int64(c.days), 10) + " AS INTEGER)) + to_microseconds(CAST(" + strconv.FormatInt(c.micros, 10) + " AS BIGINT)))"
}

// calendarUnits are the units Spark's interval strings name, singular,
// and the component each counts in with its size there.
var calendarUnits = []struct {
	name string
	// field 0 months, 1 days, 2 microseconds
	field int
	size  int64
}{
	{"year", 0, 12}, {"month", 0, 1}, {"week", 1, 7}, {"day", 1, 1},
	{"hour", 2, microsPerHour}, {"minute", 2, microsPerMinute}, {"second", 2, microsPerSecond},
	{"millisecond", 2, 1000}, {"microsecond", 2, 1},
}

// parseCalendar reads an interval string as Spark's cast of a STRING to
// INTERVAL does (IntervalUtils.stringToInterval): white space (Java's
// Character.isWhitespace) around the words, an optional leading
// "interval", then one or more [+|-] number unit groups, any case, a unit
// singular or plural, a fraction (up to nine digits, cut to
// microseconds) for seconds only. ok is false where Spark's cast gives
// NULL: an empty text, a number without a unit, an unknown unit, a sign
// not followed by a number, a count out of its component's range.
// known is false for a text the reading here is not sure to read as
// Spark does (a character past ASCII): the caller refuses it.
func parseCalendar(s string) (c calendar, ok, known bool) {
	for _, r := range s {
		if r > 0x7e {
			return c, false, false
		}
	}
	words := strings.FieldsFunc(strings.ToLower(s), javaWhitespace)
	if len(words) > 0 && words[0] == "interval" {
		words = words[1:]
	}
	if len(words) == 0 {
		return c, false, true
	}
	var months, days, micros big.Int
	for len(words) > 0 {
		num := words[0]
		words = words[1:]
		neg := false
		if num == "-" || num == "+" {
			// A sign may stand apart from its number ('-   1 second').
			if len(words) == 0 {
				return c, false, true
			}
			neg, num, words = num == "-", words[0], words[1:]
		} else if num[0] == '-' || num[0] == '+' {
			neg, num = num[0] == '-', num[1:]
		}
		m := numberRe.FindStringSubmatch(num)
		if m == nil || m[1] != "" || len(words) == 0 {
			return c, false, true
		}
		unit := words[0]
		words = words[1:]
		u := -1
		for i, cu := range calendarUnits {
			if unit == cu.name || unit == cu.name+"s" {
				u = i
			}
		}
		if u < 0 {
			return c, false, true
		}
		whole, _ := new(big.Int).SetString(m[2], 10)
		if !whole.IsInt64() {
			return c, false, true
		}
		frac := m[3]
		if frac != "" && calendarUnits[u].name != "second" || len(frac) > 9 {
			return c, false, true
		}
		v := new(big.Int).Mul(whole, big.NewInt(calendarUnits[u].size))
		if frac != "" {
			f, _ := strconv.ParseInt((frac + "000000000")[:6], 10, 64)
			v.Add(v, big.NewInt(f))
		}
		if neg {
			v.Neg(v)
		}
		target := []*big.Int{&months, &days, &micros}[calendarUnits[u].field]
		target.Add(target, v)
		if !fits(&months, minInt32, maxInt32) || !fits(&days, minInt32, maxInt32) || !fits(&micros, minInt64, maxInt64) {
			return c, false, true
		}
	}
	return calendar{months: int32(months.Int64()), days: int32(days.Int64()), micros: micros.Int64()}, true, true
}

// castStringCalendar translates a cast of a string constant to INTERVAL
// (a CalendarInterval): the text read now, as Spark reads it; NULL where
// Spark's cast gives NULL (it does under ANSI too). ok is false for a
// text that is not a constant or not surely read as Spark reads it.
func (t *tr) castStringCalendar(c *ast.Cast) (frag, bool) {
	l, ok := unparenExpr(c.X).(*ast.Literal)
	if !ok || l.Kind != ast.LitString {
		return frag{}, false
	}
	v, ok, known := parseCalendar(l.Str.Value)
	switch {
	case !known:
		return frag{}, false
	case !t.calendarPlace(c):
		t.refuse(c, calendarRefusal)
		return at(c, tUnknown, cat("NULL")), true
	case !ok:
		return at(c, tIntvl, cat("CAST(NULL AS INTERVAL)")), true
	}
	return at(c, tIntvl, cat(v.sql())), true
}

// CalendarString writes a CalendarInterval as Spark does
// (CalendarInterval.toString, what a cast to STRING and Spark's SQL test
// suite print): each count that is not zero with its unit, always
// plural, years and months from the months, days, then hours, minutes
// and seconds from the microseconds, the seconds with their fraction
// (trailing zeros cut), "0 seconds" for none: "1 years 2 months 3 days
// 4 hours 5.5 seconds".
func CalendarString(months, days int32, micros int64) string {
	if months == 0 && days == 0 && micros == 0 {
		return "0 seconds"
	}
	var parts []string
	unit := func(v int64, name string) {
		if v != 0 {
			parts = append(parts, strconv.FormatInt(v, 10)+" "+name)
		}
	}
	unit(int64(months/12), "years")
	unit(int64(months%12), "months")
	unit(int64(days), "days")
	if micros != 0 {
		rest := micros
		unit(rest/microsPerHour, "hours")
		rest %= microsPerHour
		unit(rest/microsPerMinute, "minutes")
		rest %= microsPerMinute
		if rest != 0 {
			sign := ""
			if rest < 0 {
				sign, rest = "-", -rest
			}
			s := strconv.FormatInt(rest/microsPerSecond, 10)
			if f := rest % microsPerSecond; f != 0 {
				s += "." + strings.TrimRight(strconv.FormatInt(f+microsPerSecond, 10)[1:], "0")
			}
			parts = append(parts, sign+s+" seconds")
		}
	}
	return strings.Join(parts, " ")
}

// calendarText is the SQL of CalendarString for x, a DuckDB INTERVAL
// held as a CalendarInterval: a cast of one to STRING.
func calendarText(x frag) frag {
	// DuckDB's datepart of an interval reads its components apart:
	// year and month from the months, day the days, hour, minute and
	// microseconds (within the minute) from the microseconds.
	unit := func(part, name string) string {
		return "CASE WHEN datepart('" + part + "', v) = 0 THEN NULL ELSE CAST(datepart('" + part + "', v) AS VARCHAR) || ' " + name + "' END"
	}
	sec := "CASE WHEN datepart('microseconds', v) = 0 THEN NULL ELSE CASE WHEN datepart('microseconds', v) < 0 THEN '-' ELSE '' END || " +
		"CAST(abs(datepart('microseconds', v)) // 1000000 AS VARCHAR) || CASE WHEN abs(datepart('microseconds', v)) % 1000000 = 0 THEN '' ELSE '.' || rtrim(lpad(CAST(abs(datepart('microseconds', v)) % 1000000 AS VARCHAR), 6, '0'), '0') END || ' seconds' END"
	parts := []string{unit("year", "years"), unit("month", "months"), unit("day", "days"), unit("hour", "hours"), unit("minute", "minutes"), sec}
	return cat("list_transform([", x, "], lambda v: CASE WHEN v IS NULL THEN NULL WHEN v = INTERVAL 0 SECOND THEN '0 seconds' ELSE concat_ws(' ', "+strings.Join(parts, ", ")+") END)[1]")
}

// legacyCalendar turns the value of an interval literal read as an ANSI
// one (x, of type ty, a constant) into the CalendarInterval Spark's
// parser gives under spark.sql.legacy.interval.enabled: a year-month
// value its months, a day-time one starting at DAY its whole days apart
// from the rest, other day-time ones all microseconds (INTERVAL '999'
// HOUR is 999 hours, INTERVAL '1 02:03' DAY TO MINUTE 1 day 2 hours 3
// minutes). ok is false for a value it cannot read.
func legacyCalendar(ty *Type, sql string) (calendar, bool) {
	var num string
	switch {
	case strings.HasPrefix(sql, "to_months(CAST(") && strings.HasSuffix(sql, " AS INTEGER))"):
		num = strings.TrimSuffix(strings.TrimPrefix(sql, "to_months(CAST("), " AS INTEGER))")
	case strings.HasPrefix(sql, "to_microseconds(CAST(") && strings.HasSuffix(sql, " AS BIGINT))"):
		num = strings.TrimSuffix(strings.TrimPrefix(sql, "to_microseconds(CAST("), " AS BIGINT))")
	default:
		return calendar{}, false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return calendar{}, false
	}
	if ty.YearMonth() {
		if n < math.MinInt32 || n > math.MaxInt32 {
			return calendar{}, false
		}
		return calendar{months: int32(n)}, true
	}
	if ty.Start == FieldDay {
		return calendar{days: int32(n / microsPerDay), micros: n % microsPerDay}, true
	}
	return calendar{micros: n}, true
}

// legacyLiteral translates an INTERVAL literal under
// spark.sql.legacy.interval.enabled, a CalendarInterval: INTERVAL 'text'
// and INTERVAL value unit ... read as the string of its values and units
// (Spark's parser joins them and reads the string as a cast does: INTERVAL
// 1 DAY 25 HOURS is 1 days 25 hours), INTERVAL 'text' unit TO unit as the
// ANSI literal then split into Spark's components (legacyCalendar). A
// literal Spark's parser rejects, or one not surely read as Spark reads
// it, is refused.
func (t *tr) legacyLiteral(iv *ast.Interval, refuse func(ast.Node, string) frag) frag {
	if !t.calendarPlace(iv) {
		t.refuse(iv, calendarRefusal)
		return at(iv, tIntvl, cat("NULL"))
	}
	var text string
	switch {
	case iv.Value != nil:
		text = iv.Value.Value
	case iv.To != "":
		f := t.intervalFromTo(iv, refuse)
		if !f.typ.ansiInterval() {
			return f
		}
		v, ok := legacyCalendar(f.typ, f.s)
		if !ok {
			return refuse(iv, "an interval literal under spark.sql.legacy.interval.enabled (Spark's legacy CalendarInterval) of this form")
		}
		return at(iv, tIntvl, cat(v.sql()))
	default:
		var b strings.Builder
		for _, u := range iv.Units {
			l, ok := u.Value.(*ast.Literal)
			if !ok {
				return refuse(u, "an interval value that is not a literal")
			}
			v := l.Text
			if l.Kind == ast.LitString {
				if v, ok = unitValueText(l.Str.Value, u.Negative); !ok {
					return refuse(u, "the interval value "+strconv.Quote(l.Str.Value))
				}
			} else if u.Negative {
				v = "-" + v
			}
			b.WriteString(v + " " + u.Unit + " ")
		}
		text = b.String()
	}
	v, ok, known := parseCalendar(text)
	if !ok || !known {
		return refuse(iv, "the interval text "+strconv.Quote(strings.TrimSpace(text))+" under spark.sql.legacy.interval.enabled")
	}
	return at(iv, tIntvl, cat(v.sql()))
}

// calendarPlace reports n (a cast of a string to INTERVAL, or a legacy
// interval literal) where a CalendarInterval runs natively as on Spark:
// cast to STRING. A column of the result is refused too: previews print
// DuckDB's INTERVAL (and Spark's tables do not hold the type); the
// conformance harness prints it as Spark's suite does (CalendarString),
// so a SelectItem parent could be let through for it. Elsewhere DuckDB's INTERVAL
// means other things: it compares, groups and sorts by a normalised value
// (1 day = 24 hours, which Spark's CalendarInterval does not order at
// all), a DATE plus it is a TIMESTAMP, and it mixes with the ANSI types.
func (t *tr) calendarPlace(n ast.Node) bool {
	if t.root == nil {
		return false
	}
	var stack []ast.Node
	var parent ast.Node
	found := false
	ast.Inspect(t.root, func(x ast.Node) bool {
		if found {
			return false
		}
		if x == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if x == n {
			found = true
			for i := len(stack) - 1; i >= 0; i-- {
				if _, ok := stack[i].(*ast.Paren); !ok {
					parent = stack[i]
					break
				}
			}
			return false
		}
		stack = append(stack, x)
		return true
	})
	switch p := parent.(type) {
	case *ast.Cast:
		to, ok := typeOfAST(p.Type)
		return ok && to.is(String)
	}
	return false
}

// calendarRefusal is the refusal of a CalendarInterval elsewhere than
// calendarPlace allows.
const calendarRefusal = "Spark's legacy interval type (a CalendarInterval: a cast of a string to INTERVAL, or an interval literal under spark.sql.legacy.interval.enabled) runs natively only cast to STRING; elsewhere DuckDB's INTERVAL would print, compare, sort or add differently. Use an ANSI interval: CAST(... AS INTERVAL DAY TO SECOND), INTERVAL '1' DAY"
