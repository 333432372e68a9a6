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
	{"SSSSSS", "%f", "%f"}, {"SSS", "%g", "%g"}, {"a", "%p", "%p"},
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
			return "", fmt.Errorf("optional sections [...]")
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
