package translate

import (
	"math/big"
	"strconv"
	"strings"
)

// IntervalString writes an interval value (DuckDB's months, days and
// microseconds) as Spark shows one of type ty: an ANSI interval as its
// CAST AS STRING writes it (what Spark's DataFrame.show and a STRING
// column hold: INTERVAL '1 02:00:00' DAY TO SECOND, INTERVAL '1-2' YEAR
// TO MONTH, INTERVAL '26' HOUR), the same text intervalText computes in
// SQL. A type without fields (nil, or a column whose fields the caller
// does not know) is read from the value: months alone make a YEAR TO
// MONTH, anything else a DAY TO SECOND, the native engine holding every
// interval of a result in one component. Previews can print intervals
// with it instead of DuckDB's "1 day 02:00:00".
func IntervalString(months, days int32, micros int64, ty *Type) string {
	if ty == nil || !ty.ansiInterval() {
		if days == 0 && micros == 0 && months != 0 {
			ty = intervalOf(FieldYear, FieldMonth)
		} else {
			ty = intervalOf(FieldDay, FieldSecond)
		}
	}
	post := "' " + strings.ToUpper(fieldNames[ty.Start])
	if ty.End != ty.Start {
		post += " TO " + strings.ToUpper(fieldNames[ty.End])
	}
	if ty.YearMonth() {
		v := int64(months)
		sign := ""
		if v < 0 {
			sign, v = "-", -v
		}
		var body string
		switch {
		case ty.Start == FieldMonth:
			body = strconv.FormatInt(v, 10)
		case ty.End == FieldMonth:
			body = strconv.FormatInt(v/12, 10) + "-" + strconv.FormatInt(v%12, 10)
		default:
			body = strconv.FormatInt(v/12, 10)
		}
		return "INTERVAL '" + sign + body + post
	}
	// Days count as 24 hours, as microsOf counts them.
	total := new(big.Int).Mul(big.NewInt(int64(days)), big.NewInt(microsPerDay))
	total.Add(total, big.NewInt(micros))
	sign := ""
	if total.Sign() < 0 {
		sign = "-"
		total.Neg(total)
	}
	per := map[IntervalField]*big.Int{FieldDay: big.NewInt(microsPerDay), FieldHour: big.NewInt(microsPerHour), FieldMinute: big.NewInt(microsPerMinute), FieldSecond: big.NewInt(microsPerSecond)}
	rest := total
	var b strings.Builder
	for f := ty.Start; f <= ty.End; f++ {
		lead := f == ty.Start
		if !lead {
			if f == FieldHour {
				b.WriteByte(' ')
			} else {
				b.WriteByte(':')
			}
		}
		q, r := new(big.Int).QuoRem(rest, per[f], new(big.Int))
		switch {
		case f == FieldSecond:
			if rest.Cmp(big.NewInt(10*microsPerSecond)) < 0 {
				b.WriteByte('0')
			}
			b.WriteString(q.String())
			if frac := r.Int64(); frac != 0 {
				b.WriteString("." + strings.TrimRight(strconv.FormatInt(frac+microsPerSecond, 10)[1:], "0"))
			}
		case lead && f == FieldDay:
			b.WriteString(q.String())
		default:
			s := q.String()
			if len(s) < 2 {
				s = "0" + s
			}
			b.WriteString(s)
		}
		rest = r
	}
	return "INTERVAL '" + sign + b.String() + post
}
