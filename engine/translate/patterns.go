package translate

import (
	"fmt"
	"strings"
)

// javaRegex checks that a Java regular expression (Spark's split, rlike,
// regexp_*) means the same to RE2 (DuckDB's engine) and returns it in
// RE2's spelling, or says which construct differs.
func javaRegex(p string) (string, error) {
	var b strings.Builder
	inClass := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			switch {
			case n >= '1' && n <= '9':
				return "", fmt.Errorf("back-reference \\%c", n)
			case n == 'k':
				return "", fmt.Errorf("named back-reference \\k")
			case strings.IndexByte("GZRhHXeEcV", n) >= 0 && !(n == 'E'):
				return "", fmt.Errorf("\\%c", n)
			case n == 'p' || n == 'P':
				if strings.HasPrefix(p[i+2:], "{java") || strings.HasPrefix(p[i+2:], "{Is") || strings.HasPrefix(p[i+2:], "{In") {
					return "", fmt.Errorf("the Java character class \\%c%s", n, p[i+2:min(len(p), i+8)])
				}
			case n == 'Q':
				j := strings.Index(p[i+2:], `\E`)
				if j < 0 {
					j = len(p) - i - 2
				}
				lit := p[i+2 : i+2+j]
				for _, r := range lit {
					if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
						b.WriteByte('\\')
					}
					b.WriteRune(r)
				}
				i = i + 2 + j + 1
				continue
			}
			b.WriteByte(c)
			b.WriteByte(n)
			i++
			continue
		case c == '[':
			if inClass > 0 && i+1 < len(p) && p[i+1] != ':' {
				return "", fmt.Errorf("a nested character class")
			}
			inClass++
		case c == ']' && inClass > 0:
			inClass--
		case c == '&' && inClass > 0 && i+1 < len(p) && p[i+1] == '&':
			return "", fmt.Errorf("character class intersection &&")
		case c == '(' && inClass == 0 && strings.HasPrefix(p[i:], "(?"):
			rest := p[i+2:]
			switch {
			case strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"), strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, "<!"):
				return "", fmt.Errorf("lookaround (?%s", rest[:min(2, len(rest))])
			case strings.HasPrefix(rest, ">"):
				return "", fmt.Errorf("an atomic group (?>")
			case strings.HasPrefix(rest, "<"):
				b.WriteString("(?P<")
				i += 2
				continue
			}
		case (c == '+') && inClass == 0 && i > 0 && strings.IndexByte("*+?}", p[i-1]) >= 0 && !(i > 1 && p[i-2] == '\\'):
			return "", fmt.Errorf("a possessive quantifier %c+", p[i-1])
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// javaReplacement turns a Java replacement string ($1 for a group, \$ for
// a dollar) into RE2's (\1, a doubled backslash for a backslash).
func javaReplacement(r string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '$' && i+1 < len(r) && r[i+1] >= '0' && r[i+1] <= '9':
			b.WriteByte('\\')
			b.WriteByte(r[i+1])
			i++
		case c == '$':
			return "", fmt.Errorf("$ must be followed by a group number")
		case c == '\\' && i+1 < len(r):
			if r[i+1] == '\\' {
				b.WriteString(`\\`)
			} else {
				b.WriteByte(r[i+1])
			}
			i++
		case c == '\\':
			return "", fmt.Errorf("a trailing backslash")
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// datetimeLetters maps the Java datetime pattern letters Thund supports to
// strftime (formatting) and strptime (parsing).
var datetimeLetters = []struct{ java, format, parse string }{
	{"yyyy", "%Y", "%Y"}, {"yyy", "%Y", "%Y"}, {"yy", "%y", "%y"}, {"y", "%Y", "%Y"},
	{"MMMM", "%B", "%B"}, {"MMM", "%b", "%b"}, {"MM", "%m", "%m"}, {"M", "%-m", "%m"},
	{"LLLL", "%B", "%B"}, {"LLL", "%b", "%b"}, {"LL", "%m", "%m"}, {"L", "%-m", "%m"},
	{"dd", "%d", "%d"}, {"d", "%-d", "%d"}, {"DDD", "%j", "%j"}, {"D", "%-j", "%j"},
	{"HH", "%H", "%H"}, {"H", "%-H", "%H"}, {"hh", "%I", "%I"}, {"h", "%-I", "%I"},
	{"mm", "%M", "%M"}, {"m", "%-M", "%M"}, {"ss", "%S", "%S"}, {"s", "%-S", "%S"},
	{"SSSSSSSSS", "%n", "%n"}, {"SSSSSS", "%f", "%f"}, {"SSS", "%g", "%g"}, {"a", "%p", "%p"},
	{"EEEE", "%A", "%A"}, {"EEE", "%a", "%a"}, {"EE", "%a", "%a"}, {"E", "%a", "%a"},
}

// datetimePattern converts a Java datetime pattern (Spark's date_format,
// to_date, to_timestamp) into a strftime or strptime format.
func datetimePattern(p string, parse bool) (string, error) {
	var b strings.Builder
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			j := i + 1
			for j < len(p) {
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				if p[j] == '%' {
					b.WriteString("%%")
				} else {
					b.WriteByte(p[j])
				}
				j++
			}
			if j == i+1 && j < len(p) {
				b.WriteByte('\'') // '' is a quote
			}
			i = j + 1
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			j := i
			for j < len(p) && p[j] == c {
				j++
			}
			run := p[i:j]
			found := false
			for _, l := range datetimeLetters {
				if l.java == run {
					if parse {
						b.WriteString(l.parse)
					} else {
						b.WriteString(l.format)
					}
					found = true
					break
				}
			}
			if !found {
				return "", fmt.Errorf("the pattern letters %s", run)
			}
			i = j
		case c == '[' || c == ']':
			return "", fmt.Errorf("optional sections [...] other than one at the end")
		case c == '%':
			b.WriteString("%%")
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

// datetimeFormats converts a Java datetime pattern into the strftime
// formats (one) or strptime formats (tried in order) that mean the same.
// Formatting prints an optional section's content, every field being
// there. Parsing reads one optional section at the end of the pattern:
// Java reads the section when it can, and the whole text must be read,
// so the text is the pattern with the section or the pattern without
// it, tried in that order; other optional sections are refused.
func datetimeFormats(p string, parse bool) ([]string, error) {
	var open, close []int
	quoted := false
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '\'':
			quoted = !quoted
		case quoted:
		case p[i] == '[':
			open = append(open, i)
		case p[i] == ']':
			close = append(close, i)
		}
	}
	if len(open) == 0 && len(close) == 0 {
		f, err := datetimePattern(p, parse)
		return []string{f}, err
	}
	if !parse {
		var b strings.Builder
		marks := map[int]bool{}
		for _, i := range open {
			marks[i] = true
		}
		for _, i := range close {
			marks[i] = true
		}
		for i := 0; i < len(p); i++ {
			if !marks[i] {
				b.WriteByte(p[i])
			}
		}
		f, err := datetimePattern(b.String(), false)
		return []string{f}, err
	}
	if len(open) != 1 || len(close) != 1 || close[0] != len(p)-1 || open[0] > close[0] {
		return nil, fmt.Errorf("optional sections [...] other than one at the end")
	}
	// An optional fraction of a second ([.SSSSSS]) reads 1 to n digits
	// there as outside a section (Spark's appendFraction; DuckDB's %g,
	// %f and %n read 1 to 3, 6 and 9 digits): '.123' under [.SSSSSS]
	// is 10:11:12.123, checked on Spark 4.1.4 (patterns_t2_test.go).
	with, err := datetimePattern(p[:open[0]]+p[open[0]+1:close[0]], true)
	if err != nil {
		return nil, err
	}
	without, err := datetimePattern(p[:open[0]], true)
	if err != nil {
		return nil, err
	}
	return []string{with, without}, nil
}
