package results

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/thund-dev/thund/engine/translate"
	"github.com/thund-dev/thund/internal/javanum"
)

// hiveString prints a value DuckDB returned the way Spark's
// SQLQueryTestSuite prints one of type ty (HiveResult.toHiveString): NULL
// (null when nested), strings bare at the top and double-quoted inside
// arrays, maps and structs, decimals with their scale, doubles as Java
// writes them (1.0, 1.0E10), arrays [a,b], maps {k:v} sorted by their
// text, structs {"name":value}, dates yyyy-MM-dd, timestamps yyyy-MM-dd
// HH:mm:ss with the fraction of a second trimmed, binary as UTF-8 text.
// ok is false for a value it cannot print as Spark would.
func hiveString(v any, ty *translate.Type, nested bool) (string, bool) {
	if v == nil {
		if nested {
			return "null", true
		}
		return "NULL", true
	}
	switch v := v.(type) {
	case bool:
		return strconv.FormatBool(v), true
	case int8:
		return strconv.FormatInt(int64(v), 10), true
	case int16:
		return strconv.FormatInt(int64(v), 10), true
	case int32:
		return strconv.FormatInt(int64(v), 10), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case uint8:
		return strconv.FormatUint(uint64(v), 10), true
	case uint16:
		return strconv.FormatUint(uint64(v), 10), true
	case uint32:
		return strconv.FormatUint(uint64(v), 10), true
	case uint64:
		return strconv.FormatUint(v, 10), true
	case *big.Int:
		return v.String(), true
	case float64:
		if ty != nil && ty.Kind == translate.Float {
			return javanum.Format(v, 32), true
		}
		return javanum.Format(v, 64), true
	case float32:
		return javanum.Format(float64(v), 32), true
	case duckdb.Decimal:
		return decimalString(v.Value, int(v.Scale)), true
	case duckdb.Interval:
		return intervalString(v, ty)
	case string:
		if nested {
			return `"` + v + `"`, true
		}
		return v, true
	case []byte:
		// Java's new String(bytes, UTF_8): each malformed byte becomes
		// U+FFFD.
		var b strings.Builder
		for len(v) > 0 {
			r, n := utf8.DecodeRune(v)
			b.WriteRune(r)
			v = v[n:]
		}
		return b.String(), true
	case time.Time:
		// Years past 9999 are written with a sign, as Java's formatter
		// does.
		plus := ""
		if v.UTC().Year() > 9999 {
			plus = "+"
		}
		if ty != nil && ty.Kind == translate.Date {
			return plus + v.UTC().Format("2006-01-02"), true
		}
		if ty != nil && ty.Kind == translate.Time {
			// A TIME: hh:mm:ss with the fraction trimmed.
			s := strings.TrimRight(v.UTC().Format("15:04:05.000000"), "0")
			return strings.TrimSuffix(s, "."), true
		}
		s := v.UTC().Format("2006-01-02 15:04:05.000000")
		s = strings.TrimRight(s, "0")
		return plus + strings.TrimSuffix(s, "."), true
	case []any:
		var elem *translate.Type
		if ty != nil {
			elem = ty.Elem
		}
		parts := make([]string, len(v))
		for i, x := range v {
			s, ok := hiveString(x, elem, true)
			if !ok {
				return "", false
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ",") + "]", true
	case duckdb.OrderedMap:
		var kt, vt *translate.Type
		if ty != nil {
			kt, vt = ty.Key, ty.Val
		}
		keys, vals := v.Keys(), v.Values()
		parts := make([]string, len(keys))
		for i := range keys {
			k, ok1 := hiveString(keys[i], kt, true)
			x, ok2 := hiveString(vals[i], vt, true)
			if !ok1 || !ok2 {
				return "", false
			}
			parts[i] = k + ":" + x
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ",") + "}", true
	case map[string]any:
		if ty == nil || ty.Kind != translate.Struct || len(ty.Fields) != len(v) {
			return "", false
		}
		parts := make([]string, len(ty.Fields))
		for i, f := range ty.Fields {
			x, ok := hiveString(v[f.Name], f.Type, true)
			if !ok {
				return "", false
			}
			parts[i] = `"` + f.Name + `":` + x
		}
		return "{" + strings.Join(parts, ",") + "}", true
	}
	return "", false
}

// decimalString writes unscaled × 10^-scale with exactly scale digits
// after the point, as Java's BigDecimal.toPlainString does.
func decimalString(unscaled *big.Int, scale int) string {
	if unscaled == nil {
		return "NULL"
	}
	neg := unscaled.Sign() < 0
	digits := new(big.Int).Abs(unscaled).String()
	if scale > 0 {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// intervalString prints an ANSI interval as Spark's suite does (HIVE_STYLE
// of IntervalUtils): a year-month one as [-]y-m, a day-time one as
// [-]d hh:mm:ss.nnnnnnnnn, whatever the type's fields, and a
// CalendarInterval (an interval of no ANSI type) as its toString does
// (1 years 2 months 3 days 4 hours). The native engine holds a
// year-month interval in DuckDB's months and a day-time one in its
// microseconds; ok is false for another value.
func intervalString(v duckdb.Interval, ty *translate.Type) (string, bool) {
	switch {
	case ty.YearMonth():
		if v.Days != 0 || v.Micros != 0 {
			return "", false
		}
		sign, m := "", int64(v.Months)
		if m < 0 {
			sign, m = "-", -m
		}
		return sign + strconv.FormatInt(m/12, 10) + "-" + strconv.FormatInt(m%12, 10), true
	case ty.DayTime():
		if v.Months != 0 {
			return "", false
		}
		total := new(big.Int).Mul(big.NewInt(int64(v.Days)), big.NewInt(86_400_000_000))
		total.Add(total, big.NewInt(v.Micros))
		sign := ""
		if total.Sign() < 0 {
			sign = "-"
			total.Neg(total)
		}
		if !total.IsUint64() {
			return "", false
		}
		us := total.Uint64()
		const perMinute = 60_000_000
		secFrac := us % perMinute
		minutes := us / perMinute
		hours := minutes / 60
		return fmt.Sprintf("%s%d %02d:%02d:%02d.%09d", sign, hours/24, hours%24, minutes%60, secFrac/1_000_000, (secFrac%1_000_000)*1000), true
	case ty != nil && ty.Kind == translate.IntervalKind:
		// Spark's legacy CalendarInterval (the type interval), which the
		// native engine holds in DuckDB's three components as Spark does.
		return translate.CalendarString(v.Months, v.Days, v.Micros), true
	}
	return "", false
}
