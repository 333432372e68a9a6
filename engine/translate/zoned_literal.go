package translate

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// A TIMESTAMP literal may name the zone its wall-clock time is in after
// the time, as Spark's stringToTimestamp reads it: Z, an offset (+08,
// -8:00, +0800, +08:00:00), UTC, GMT or UT with or without an offset
// (UTC+080000), or a region (Europe/Paris, written right after the time
// or after a space). The instant is then shown in the session zone.

// zonedTimestamp matches a timestamp text with a zone: the date, the time
// (seconds and a fraction optional), then the zone.
var zonedTimestamp = regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)? ?([A-Za-z+\-].*)$`)

// zoneOffset matches an offset as Java's ZoneOffset.of reads it, after
// Spark pads a one-digit hour before a colon: +h, +hh, +hh:mm, +hhmm,
// +hh:mm:ss, +hhmmss.
var zoneOffset = regexp.MustCompile(`^([+-])(\d{1,2})(?:(:?)(\d{2})(?:(:?)(\d{2}))?)?$`)

// offsetSeconds reads an offset ("+08:00") or a prefixed one ("UTC+8",
// "GMT", "Z"); ok is false for anything else.
func offsetSeconds(z string) (int, bool) {
	switch up := strings.ToUpper(z); {
	case up == "Z":
		return 0, true
	case strings.HasPrefix(up, "UTC"), strings.HasPrefix(up, "GMT"):
		z = z[3:]
	case strings.HasPrefix(up, "UT"):
		z = z[2:]
	}
	if z == "" {
		return 0, true
	}
	m := zoneOffset.FindStringSubmatch(z)
	if m == nil || m[3] != m[5] && m[6] != "" || len(m[2]) == 1 && m[4] != "" && m[3] == "" {
		// Mixed separators (+08:0000) and +8 followed by minutes
		// without a colon are not offsets Java reads.
		return 0, false
	}
	h, _ := strconv.Atoi(m[2])
	mi, _ := strconv.Atoi("0" + m[4])
	s, _ := strconv.Atoi("0" + m[6])
	if h > 18 || mi > 59 || s > 59 {
		return 0, false
	}
	secs := h*3600 + mi*60 + s
	if secs > 18*3600 {
		return 0, false
	}
	if m[1] == "-" {
		secs = -secs
	}
	return secs, true
}

// zonedTimestampLiteral translates a TIMESTAMP literal whose text names a
// zone: the instant of that wall-clock time in that zone, shown in the
// session zone. ok is false for a text it does not read (the caller
// lets DuckDB read it).
func (t *tr) zonedTimestampLiteral(l *ast.TypedLiteral, v string) (frag, bool) {
	m := zonedTimestamp.FindStringSubmatch(strings.TrimFunc(v, func(r rune) bool { return r <= ' ' }))
	if m == nil {
		return frag{}, false
	}
	num := func(s string) int { n, _ := strconv.Atoi("0" + s); return n }
	frac := m[7]
	if len(frac) > 6 {
		frac = frac[:6] // Spark keeps microseconds
	}
	us := num(frac + strings.Repeat("0", 6-len(frac)))
	y, mo, d, h, mi, s := num(m[1]), num(m[2]), num(m[3]), num(m[4]), num(m[5]), num(m[6])
	if mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59 {
		return frag{}, false
	}
	wall := time.Date(y, time.Month(mo), d, h, mi, s, us*1000, time.UTC)
	if wall.Day() != d {
		return frag{}, false // the day is not in the month
	}
	if !t.zoned(l, "a TIMESTAMP literal with a zone") {
		return at(l, tUnknown, cat("NULL")), true
	}
	const layout = "2006-01-02 15:04:05.999999"
	zone := m[8]
	if off, ok := offsetSeconds(zone); ok {
		utc := wall.Add(-time.Duration(off) * time.Second)
		return at(l, tTS, t.utcToLocal(cat("CAST("+quoteString(utc.Format(layout))+" AS TIMESTAMP)"))), true
	}
	region := icuZone(zone)
	if region == "" {
		return frag{}, false
	}
	return at(l, tTS, t.utcToLocal(wallToUTC(region, cat("CAST("+quoteString(wall.Format(layout))+" AS TIMESTAMP)")))), true
}

// skippedWallClock returns, for the text of a TIMESTAMP literal without a
// zone whose wall-clock time the session zone skips (2021-03-14 02:30 in
// America/Los_Angeles), the wall-clock time Spark makes of it: Java moves
// it on by the gap (03:30). ok is false for any other text, or when the
// zone's rules are not on this machine.
func (t *tr) skippedWallClock(v string) (string, bool) {
	z, known := t.sessionZone()
	if z == "" || !known {
		return "", false
	}
	const layout = "2006-01-02 15:04:05.999999"
	wall, err := time.Parse(layout, v)
	if err != nil {
		return "", false
	}
	loc, err := time.LoadLocation(z)
	if err != nil {
		return "", false
	}
	in := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), wall.Nanosecond(), loc)
	if in.Hour() == wall.Hour() && in.Minute() == wall.Minute() && in.Day() == wall.Day() {
		return "", false
	}
	// The offset in force before the gap (two days earlier: zones do not
	// change twice in that time).
	_, before := wall.Add(-48 * time.Hour).In(loc).Zone()
	moved := wall.Add(-time.Duration(before) * time.Second).In(loc)
	return moved.Format(layout), true
}
