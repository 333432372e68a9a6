package translate

import (
	"regexp"
	"strings"
)

// sparkPatternError is the error Spark raises for a datetime pattern it
// does not read (DateTimeFormatterHelper, then the check against the
// legacy SimpleDateFormat): a pattern letter Spark does not support, a
// week-based field, or a run of letters longer than Java's formatter
// takes. Thund reports it before running, with Spark's class.
type sparkPatternError struct{ class, msg string }

func (e *sparkPatternError) Error() string { return "[" + e.class + "] " + e.msg }

// The longest run of each letter that Spark's formatter takes, for the
// letters SimpleDateFormat knows too (a longer run fails with
// INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION, as
// Spark 4.1.3's datetime-formatting-invalid.sql records): five letters of
// a text field (GGGGG, MMMMM, EEEEE) are the narrow form Spark disables,
// seven of a year overflow.
var patternMaxRun = map[byte]int{
	'G': 4, 'y': 6, 'M': 4, 'L': 4, 'E': 4, 'F': 1, 'd': 2, 'D': 3,
	'H': 2, 'h': 2, 'k': 2, 'K': 2, 'm': 2, 's': 2, 'S': 9, 'a': 1,
	'z': 4, 'Z': 5,
}

// checkSparkPattern returns Spark's error for a datetime pattern Spark
// rejects whatever the value (for parsing when parse is set), nil for
// one it reads (or one whose rejection is not modelled here: the
// translation refuses what it does not know). The letters inside quotes
// are text. Spark raises it when it plans the query, before reading a
// row: date_format(ts, 'GGGGG') over range(0) fails on Spark 4.1.4.
func checkSparkPattern(p string, parse bool) *sparkPatternError {
	recognition := &sparkPatternError{"INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION",
		"You may get a different result due to the upgrading to Spark >= 3.0:\nFail to recognize '" + p + "' pattern in the DateTimeFormatter.\n1) You can set \"spark.sql.legacy.timeParserPolicy\" to \"LEGACY\" to restore the behavior before Spark 3.0.\n2) You can form a valid datetime pattern with the guide from 'https://spark.apache.org/docs/latest/sql-ref-datetime-pattern.html'. SQLSTATE: 42K0B"}
	suggestion := &sparkPatternError{"INVALID_DATETIME_PATTERN.WITH_SUGGESTION",
		"Unrecognized datetime pattern: '" + p + "'. You can form a valid datetime pattern with the guide from 'https://spark.apache.org/docs/latest/sql-ref-datetime-pattern.html'. SQLSTATE: 22007"}
	quoted := false
	for i := 0; i < len(p); {
		c := p[i]
		if c == '\'' {
			quoted = !quoted
			i++
			continue
		}
		if quoted || !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			i++
			continue
		}
		n := 1
		for i+n < len(p) && p[i+n] == c {
			n++
		}
		i += n
		switch {
		case strings.IndexByte("AnNpB", c) >= 0, parse && (c == 'Q' || c == 'q'):
			return &sparkPatternError{"INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER",
				"Unrecognized datetime pattern: " + p + ". Illegal pattern character found in datetime pattern: " + string(c) + ". Please provide legal character. SQLSTATE: 22007"}
		case c == 'e' || c == 'c':
			return &sparkPatternError{"INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN",
				"You may get a different result due to the upgrading to Spark >= 3.0:\nAll week-based patterns are unsupported since Spark 3.0, detected week-based character: " + string(c) + ".\nPlease use the SQL function EXTRACT instead. SQLSTATE: 42K0B"}
		case strings.IndexByte("YwWu", c) >= 0, parse && (c == 'E' || c == 'F'):
			// Spark parses no day of the week, no week-based field and
			// no aligned week of the month (to_timestamp('Fri
			// 2020-05-22', 'EEE yyyy-MM-dd') fails on Spark 4.1.4).
			return recognition
		case (c == 'Q' || c == 'q') && n >= 5:
			return &sparkPatternError{"INVALID_DATETIME_PATTERN.LENGTH",
				"Unrecognized datetime pattern: " + p + ". Too many letters in datetime pattern: " + p + ". Please reduce pattern length. SQLSTATE: 22007"}
		case c == 'C' || c == 'I' || c == 'V' && n != 2 || (c == 'X' || c == 'x') && n > 5 || c == 'O' && n != 1 && n != 4:
			return suggestion
		}
		if m, ok := patternMaxRun[c]; ok && n > m {
			return recognition
		}
	}
	return nil
}

// strptimeFailRe matches DuckDB's error for a text its strptime does not
// read with the format (the text, the format, then a caret line).
var strptimeFailRe = regexp.MustCompile(`(?s)^(?:Invalid Input Error: )?Could not parse string "(.*?)" according to format specifier "`)

// cannotParse is Spark's error for a text to_timestamp, to_date and
// their kin do not read with the pattern, in place of DuckDB's strptime
// error (msg, which strptimeFailRe matches). Spark also says at which
// index the reading stopped, which DuckDB's reading does not tell the
// same way, and names try_to_timestamp or try_to_date after the function.
func cannotParse(msg string) string {
	text := strptimeFailRe.FindStringSubmatch(msg)[1]
	return "[CANNOT_PARSE_TIMESTAMP] Text '" + text + "' could not be parsed. Use `try_to_timestamp` (`try_to_date` for to_date) to tolerate invalid input string and return NULL instead. SQLSTATE: 22007"
}
