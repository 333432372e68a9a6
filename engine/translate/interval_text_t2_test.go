//go:build duckdb_arrow

package translate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thund-dev/thund/engine/translate"
)

// IntervalString writes what a cast to STRING gives natively (the SQL
// the trap tables check against Spark), for each interval type and a
// spread of values; and Spark's texts for the F28 case, checked on
// Spark 4.1.4: CAST(INTERVAL '1 02:00:00' DAY TO SECOND AS STRING) is
// INTERVAL '1 02:00:00' DAY TO SECOND.
func TestIntervalString(t *testing.T) {
	if got := translate.IntervalString(0, 0, 26*3600_000_000, nil); got != "INTERVAL '1 02:00:00' DAY TO SECOND" {
		t.Errorf("26 hours without a type: %s", got)
	}
	if got := translate.IntervalString(14, 0, 0, nil); got != "INTERVAL '1-2' YEAR TO MONTH" {
		t.Errorf("14 months without a type: %s", got)
	}
	db := openDuck(t)
	compared := 0
	types := []string{"YEAR", "MONTH", "YEAR TO MONTH", "DAY", "DAY TO HOUR", "DAY TO MINUTE", "DAY TO SECOND", "HOUR", "HOUR TO MINUTE", "HOUR TO SECOND", "MINUTE", "MINUTE TO SECOND", "SECOND"}
	ym := []int64{0, 1, 11, 12, 14, -14, 2147483647, -2147483648}
	dt := []int64{0, 1, 5_250_000, 59_000_000, 3600_000_000, 93784_123456, -93784_123456, 86400_000_000 * 400, 9223372036854775807, -9223372036854775807}
	for _, ty := range types {
		sty := translate.ParseSparkType("interval " + strings.ToLower(ty))
		vals := dt
		if sty.YearMonth() {
			vals = ym
		}
		for _, v := range vals {
			if ty == "YEAR" && (v > 178956970 || v < -178956970) {
				continue // past the months an INTERVAL YEAR holds
			}
			lit := fmt.Sprintf("CAST(%d AS INTERVAL %s)", v, ty)
			micros := v
			if !sty.YearMonth() {
				if strings.HasSuffix(ty, "SECOND") {
					sign, a := "", v
					if a < 0 {
						sign, a = "-", -a
					}
					lit = fmt.Sprintf("CAST(CAST('%s%d.%06d' AS DECIMAL(38, 6)) AS INTERVAL %s)", sign, a/1000000, a%1000000, ty)
				} else {
					// A whole number of the last field.
					unit := map[string]int64{"DAY": 86400_000_000, "HOUR": 3600_000_000, "MINUTE": 60_000_000}[ty[strings.LastIndex(ty, " ")+1:]]
					n := v / unit
					if n > 1_000_000 || n < -1_000_000 {
						continue
					}
					lit, micros = fmt.Sprintf("CAST(%d AS INTERVAL %s)", n, ty), n*unit
				}
			}
			r := translate.TranslateText("SELECT CAST("+lit+" AS STRING) AS s", translate.Options{})
			if len(r.Findings) > 0 {
				t.Fatalf("%s: %s", lit, r.Findings[0].Message)
			}
			_, rows, err := query(db, r.SQL)
			if err != nil {
				t.Fatalf("%s: %v\nSQL %s", lit, err, r.SQL)
			}
			var got string
			if sty.YearMonth() {
				months := v
				if ty == "YEAR" {
					months = v * 12 // the number counts years
				}
				got = translate.IntervalString(int32(months), 0, 0, sty)
			} else {
				got = translate.IntervalString(0, 0, micros, sty)
			}
			compared++
			if got != rows[0][0] {
				t.Errorf("%s: IntervalString %q, the cast %q", lit, got, rows[0][0])
			}
		}
	}
	if compared < 80 {
		t.Errorf("only %d values compared", compared)
	}
}
