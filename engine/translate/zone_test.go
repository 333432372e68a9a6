package translate_test

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/engine/translate"
)

// TestSessionZone checks what a session time zone other than UTC refuses.
// Spark's SQL test corpus runs under America/Los_Angeles: there
// TIMESTAMP_SECONDS(1230219000) is 2008-12-25 07:30:00 (15:30:00 in UTC),
// while a TIMESTAMP literal, its fields and its formatting read the same
// wall-clock time in any zone. timestamp_seconds and the like translate
// through ICU's zones (TestZoneFunctions) unless the zone is an offset.
func TestSessionZone(t *testing.T) {
	// The engine defines these two as macros (engine/compat.go).
	macros := map[string]bool{"timestamp_seconds": true, "unix_timestamp": true}
	la := translate.Options{TimeZone: "America/Los_Angeles", Macros: macros}
	if r := translate.TranslateText(`SELECT timestamp_seconds(1230219000) AS a`, translate.Options{TimeZone: "+01:00"}); len(r.Findings) == 0 || !strings.Contains(r.Findings[0].Message, "+01:00") {
		t.Errorf("timestamp_seconds under +01:00: findings %v, want one naming the zone", r.Findings)
	}
	for _, q := range []string{
		`SELECT unix_timestamp(TIMESTAMP '2020-01-01 00:00:00') AS a`,
		`SELECT CAST(TIMESTAMP '2020-01-01 00:00:00' AS BIGINT) AS a`,
		`SELECT to_timestamp(1) AS a`,
	} {
		r := translate.TranslateText(q, la)
		if len(r.Findings) == 0 || !strings.Contains(r.Findings[0].Message, "America/Los_Angeles") {
			t.Errorf("%s: findings %v, want one naming the zone", q, r.Findings)
		}
		if r := translate.TranslateText(q, translate.Options{Macros: macros}); len(r.Findings) > 0 {
			t.Errorf("%s under UTC: %v", q, r.Findings)
		}
	}
	for _, q := range []string{
		`SELECT TIMESTAMP '2019-01-01 10:00:00' AS a, hour(TIMESTAMP '2019-01-01 10:00:00') AS h`,
		`SELECT date_format(TIMESTAMP '2019-01-01 10:00:00', 'yyyy-MM-dd HH:mm') AS a, DATE '2020-01-01' + 1 AS d`,
		`SELECT TIMESTAMP '2019-01-01 10:00:00' + INTERVAL 2 DAYS AS a`,
		// Through ICU's zones (TestDatetimeUnitsLA runs them).
		`SELECT TIMESTAMP '2019-03-10 01:30:00' + INTERVAL 1 HOUR AS a, TIMESTAMP '2019-03-10 03:30:00' - TIMESTAMP '2019-03-10 01:30:00' AS b`,
		`SELECT timestampadd(HOUR, 1, TIMESTAMP '2019-03-10 01:30:00') AS a, timestampdiff(HOUR, TIMESTAMP '2019-03-10 01:30:00', TIMESTAMP '2019-03-10 03:30:00') AS b`,
	} {
		if r := translate.TranslateText(q, la); len(r.Findings) > 0 {
			t.Errorf("%s: refused under America/Los_Angeles: %v", q, r.Findings)
		}
	}
	// A zone ICU is not trusted with (an offset) refuses what moves an
	// instant.
	for _, q := range []string{
		`SELECT TIMESTAMP '2019-03-10 01:30:00' + INTERVAL 1 HOUR AS a`,
		`SELECT timestampadd(HOUR, 1, TIMESTAMP '2019-03-10 01:30:00') AS a`,
	} {
		if r := translate.TranslateText(q, translate.Options{TimeZone: "+01:00"}); len(r.Findings) == 0 || !strings.Contains(r.Findings[0].Message, "+01:00") {
			t.Errorf("%s under +01:00: findings %v, want one naming the zone", q, r.Findings)
		}
	}
}
