// Package sampletypes reads the column types of a CSV sample as the
// native engine will, which reads a sample with Spark's inferSchema rules
// (engine/csvinfer.go): each column gets the narrowest of BOOLEAN, INT
// (every integer within 32 bits), BIGINT, DOUBLE, DATE, TIMESTAMP and
// STRING that every value fits. The semantic model checks function arguments against
// these types (analysis/sparksql/sema), so a type is given only where it
// is certain: a column whose values could be read another way (a date in
// a format other than ISO, a time, a time zone, no value at all) is left
// unknown ("").
//
// It is pure Go and reads nothing but the text it is given.
package sampletypes

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// MaxRows bounds the data rows read.
const MaxRows = 2048

// Spark's names of the types a column can have.
const (
	Boolean   = "boolean"
	Int       = "int"
	Bigint    = "bigint"
	Double    = "double"
	Date      = "date"
	Timestamp = "timestamp"
	String    = "string"
)

// Infer reads a CSV text with a header line (at most MaxRows data rows)
// and returns the Spark type of each column of the header, "" where it is
// not certain. It returns nil when the text has no header.
func Infer(in io.Reader) []string {
	r := csv.NewReader(in)
	r.FieldsPerRecord = -1
	r.ReuseRecord = false
	header, err := r.Read()
	if err != nil || len(header) == 0 {
		return nil
	}
	cols := make([]column, len(header))
	for n := 0; n < MaxRows; n++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			// a line DuckDB may read differently (a stray quote): what
			// was read so far is not known to hold for the whole file
			return make([]string, len(header))
		}
		if len(rec) != len(header) {
			return make([]string, len(header))
		}
		for i, v := range rec {
			cols[i].add(v)
		}
	}
	out := make([]string, len(header))
	for i := range cols {
		out[i] = cols[i].typ()
	}
	return out
}

// column is what the values of one column allow.
type column struct {
	seen                                      bool
	notBool, notInt, notFloat, notDate, notTs bool
	// wide: an integer past 32 bits (BIGINT, not INT)
	wide   bool
	unsure bool
}

func (c *column) add(v string) {
	if v == "" {
		return // NULL (Spark's default nullValue; the word NULL is a string)
	}
	c.seen = true
	if strings.TrimSpace(v) != v {
		c.unsure = true // ' 5': Spark's reader and DuckDB's differ
	}
	l := strings.ToLower(v)
	if l != "true" && l != "false" {
		c.notBool = true
	}
	if _, err := strconv.ParseInt(v, 10, 64); err != nil {
		c.notInt = true
		if isDigits(v) {
			// past 64 bits: Spark reads a DECIMAL(p,0) up to 38 digits
			c.unsure = true
		}
	} else if _, err := strconv.ParseInt(v, 10, 32); err != nil {
		c.wide = true
	}
	if _, err := strconv.ParseInt(v, 10, 64); err == nil && len(v) > 1 && (v[0] == '0' || v[0] == '+') {
		c.unsure = true // 007 or +7: a number or a code
	}
	if _, err := strconv.ParseFloat(v, 64); err != nil || strings.ContainsAny(l, "xpin_") {
		c.notFloat = true
	}
	date, ts := isDate(v), isTimestamp(v)
	if !date {
		c.notDate = true
	}
	if !date && !ts {
		c.notTs = true // a DATE is read into a TIMESTAMP column
	}
	if looksTemporal(v) && !date && !ts {
		// 01/02/2024, 10:30, 2024-01-05T10:00:00+02: DuckDB's sniffer
		// may read these as dates, times or timestamps
		c.unsure = true
	}
}

func (c *column) typ() string {
	switch {
	case !c.seen || c.unsure:
		return ""
	case !c.notBool:
		return Boolean
	case !c.notInt && !c.wide:
		return Int
	case !c.notInt:
		return Bigint
	case !c.notFloat:
		return Double
	case !c.notDate:
		return Date
	case !c.notTs:
		return Timestamp
	}
	return String
}

// isDigits reports an integer's form: an optional sign and digits.
func isDigits(v string) bool {
	v = strings.TrimLeft(v, "+-")
	if v == "" {
		return false
	}
	for _, r := range v {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// isDate reports an ISO date, YYYY-MM-DD.
func isDate(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	y, m, d := atoi(v[:4]), atoi(v[5:7]), atoi(v[8:])
	return y >= 0 && m >= 1 && m <= 12 && d >= 1 && d <= 31
}

// isTimestamp reports an ISO date and time without a zone:
// YYYY-MM-DD HH:MM:SS[.f...].
func isTimestamp(v string) bool {
	if len(v) < 19 || !isDate(v[:10]) || v[10] != ' ' || v[13] != ':' || v[16] != ':' {
		return false
	}
	h, mi, s := atoi(v[11:13]), atoi(v[14:16]), atoi(v[17:19])
	if h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 {
		return false
	}
	rest := v[19:]
	if rest == "" {
		return true
	}
	return len(rest) > 1 && rest[0] == '.' && atoi(rest[1:]) >= 0
}

// looksTemporal reports a value with the shape of a date or a time in
// some format: digits around '-', '/', '.' or ':' only, or an ISO date
// followed by anything.
func looksTemporal(v string) bool {
	if len(v) >= 10 && isDate(v[:10]) {
		return true
	}
	digits, seps := 0, 0
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '/' || c == ':' || c == '-' || c == '.' || c == ' ':
			seps++
		default:
			return false
		}
	}
	return digits > 0 && seps > 0 && strings.ContainsAny(v, "/:") ||
		digits > 0 && strings.Count(v, "-") >= 2 || strings.Count(v, ".") >= 2
}

// atoi reads a run of ASCII digits, -1 when s is not one.
func atoi(s string) int {
	if s == "" || len(s) > 9 {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}
