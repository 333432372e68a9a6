package lex

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// Unquote returns the value of a string literal or the name of a
// backquoted identifier, decoded as Spark 4.1 decodes it with its default
// settings (spark.sql.parser.escapedStringLiterals and
// spark.sql.legacy.consecutiveStringLiterals.enabled both false):
//
//   - in a raw string, r'...' or R"...", every character stands for itself;
//   - in any other string, the quote written twice stands for itself
//     ("a""b" is a"b, and likewise in single quotes), and a backslash
//     escapes the character after it:
//     \0 (not followed by two octal digits) is U+0000, \b, \n, \r and \t the
//     usual controls, \Z is U+001A, \uHHHH and \UHHHHHHHH (exactly 4 or 8 hex
//     digits) are UTF-16 code units and code points, \ followed by 0 or 1
//     and two octal digits is that octal character (\101 is A), \% and \_
//     keep their backslash (for LIKE patterns), and any other escaped
//     character is itself (\' is ', \a is a, \u12 is u12);
//   - in a backquoted identifier, a doubled backquote stands for one.
//
// Like Spark, which holds strings as UTF-16 and stores them as UTF-8, a
// \u or \U escape that leaves half of a surrogate pair alone (\uD800) gives
// a question mark. A byte of the literal that is not UTF-8 becomes U+FFFD.
// Adjacent literals ('a' 'b') are one value in Spark; concatenating them
// is the parser's business.
//
// Unquote fails only for a token that is not a complete literal of those
// kinds.
func Unquote(t Token) (string, error) {
	s := t.Text
	switch t.Kind {
	case QuotedIdent:
		if len(s) < 2 || s[0] != '`' || s[len(s)-1] != '`' {
			return "", errBadLiteral
		}
		return valid(strings.ReplaceAll(s[1:len(s)-1], "``", "`")), nil
	case String, DoubleQuotedString:
	default:
		return "", errors.New("lex.Unquote: a " + t.Kind.String() + " token is not a string literal or a quoted identifier")
	}
	if t.IsRaw() {
		if len(s) < 3 || s[len(s)-1] != s[1] {
			return "", errBadLiteral
		}
		return valid(s[2 : len(s)-1]), nil
	}
	if len(s) < 2 || s[len(s)-1] != s[0] || (s[0] != '\'' && s[0] != '"') {
		return "", errBadLiteral
	}
	q, body := s[0], s[1:len(s)-1]
	if strings.IndexByte(body, '\\') < 0 {
		return valid(strings.ReplaceAll(body, string([]byte{q, q}), string(q))), nil
	}
	return unescape(body, q), nil
}

var errBadLiteral = errors.New("lex.Unquote: the token's text is not a complete literal")

// valid returns s with each byte that is not UTF-8 replaced by U+FFFD.
func valid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// unescape decodes the body of a quoted (not raw) literal whose quote is q.
// It builds UTF-16 code units, as Spark's unescapeSQLString builds a Java
// string, because \u and \U escapes write code units, not characters.
func unescape(body string, q byte) string {
	u := make(utf16Buf, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == q && i+1 < len(body) && body[i+1] == q:
			u = append(u, uint16(q))
			i += 2
			continue
		case c != '\\' || i+1 == len(body):
			r, n := utf8.DecodeRuneInString(body[i:])
			u.rune(r)
			i += n
			continue
		}
		// A backslash and at least one character after it.
		e := body[i+1]
		switch {
		case e == 'u' && hexDigits(body, i+2, 4):
			u = append(u, uint16(hexValue(body[i+2:i+6])))
			i += 6
		case e == 'U' && hexDigits(body, i+2, 8):
			cp := hexValue(body[i+2 : i+10])
			if cp < 0x10000 {
				u = append(u, uint16(cp))
			} else {
				// Spark's arithmetic, truncated to 16 bits like Java's
				// toChar, so a code point past U+10FFFF gives what Spark gives.
				u = append(u, uint16((cp-0x10000)/0x400+0xD800), uint16((cp-0x10000)%0x400+0xDC00))
			}
			i += 10
		case (e == '0' || e == '1') && i+4 <= len(body) && isOctal(body[i+2]) && isOctal(body[i+3]):
			u = append(u, uint16(e-'0')<<6|uint16(body[i+2]-'0')<<3|uint16(body[i+3]-'0'))
			i += 4
		default:
			r, n := utf8.DecodeRuneInString(body[i+1:])
			switch r {
			case '0':
				u = append(u, 0)
			case 'b':
				u = append(u, '\b')
			case 'n':
				u = append(u, '\n')
			case 'r':
				u = append(u, '\r')
			case 't':
				u = append(u, '\t')
			case 'Z':
				u = append(u, 0x1A)
			case '%', '_':
				u = append(u, '\\', uint16(r))
			default:
				u.rune(r)
			}
			i += 1 + n
		}
	}
	return u.utf8()
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

// hexDigits reports whether s has n ASCII hex digits at i.
func hexDigits(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for _, c := range []byte(s[i : i+n]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func hexValue(s string) uint64 {
	var v uint64
	for _, c := range []byte(s) {
		switch {
		case c <= '9':
			v = v<<4 | uint64(c-'0')
		case c <= 'F':
			v = v<<4 | uint64(c-'A'+10)
		default:
			v = v<<4 | uint64(c-'a'+10)
		}
	}
	return v
}

// utf16Buf holds UTF-16 code units.
type utf16Buf []uint16

func (u *utf16Buf) rune(r rune) {
	if r >= 0x10000 {
		r -= 0x10000
		*u = append(*u, uint16(0xD800+r>>10), uint16(0xDC00+r&0x3FF))
		return
	}
	*u = append(*u, uint16(r))
}

// utf8 encodes the code units as Java's String.getBytes(UTF_8) does: a
// surrogate pair is one character, and half of one alone is '?'.
func (u utf16Buf) utf8() string {
	var b strings.Builder
	b.Grow(len(u))
	for i := 0; i < len(u); i++ {
		c := rune(u[i])
		switch {
		case c >= 0xD800 && c < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000:
			b.WriteRune(0x10000 + (c-0xD800)<<10 + rune(u[i+1]-0xDC00))
			i++
		case c >= 0xD800 && c < 0xE000:
			b.WriteByte('?')
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
