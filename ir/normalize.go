package ir

import "strings"

// NormalizeSQL returns a query's text with what cannot change its meaning
// removed: comments (-- to the end of the line, and /* */ blocks, nested
// as in DuckDB) are dropped, every run of whitespace outside string
// literals and quoted identifiers becomes one space (none next to a comma
// or parenthesis, nor at either end), and a trailing semicolon goes.
// Literals ('...', E'...' with backslash escapes, $tag$...$tag$) and
// quoted identifiers ("...") are kept byte for byte.
func NormalizeSQL(q string) string {
	var b strings.Builder
	b.Grow(len(q))
	gap := false // whitespace or a comment since the last token byte
	emit := func(s string) {
		if gap && b.Len() > 0 && !tight(lastByte(&b)) && !tight(s[0]) {
			b.WriteByte(' ')
		}
		gap = false
		b.WriteString(s)
	}
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			gap = true
			i++
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			for i < len(q) && q[i] != '\n' && q[i] != '\r' {
				i++
			}
			gap = true
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			i = skipBlockComment(q, i)
			gap = true
		case c == '\'':
			escapes := i > 0 && (q[i-1] == 'e' || q[i-1] == 'E') && (i < 2 || !identByte(q[i-2]))
			j := skipQuoted(q, i, '\'', escapes)
			emit(q[i:j])
			i = j
		case c == '"':
			j := skipQuoted(q, i, '"', false)
			emit(q[i:j])
			i = j
		case c == '$' && (i == 0 || !identByte(q[i-1])):
			if j, ok := skipDollar(q, i); ok {
				emit(q[i:j])
				i = j
				continue
			}
			emit(q[i : i+1])
			i++
		case c == ';':
			// A statement's trailing semicolon means nothing; one in the
			// middle (never in a valid query) is kept.
			j := i + 1
			for j < len(q) && isSpaceOrComment(q, j) {
				j = skipSpaceOrComment(q, j)
			}
			if j >= len(q) {
				i = j
				continue
			}
			emit(";")
			i++
		default:
			j := i + 1
			for j < len(q) && plainByte(q[j]) {
				j++
			}
			emit(q[i:j])
			i = j
		}
	}
	return b.String()
}

// tight bytes need no space around them: SQL tokens never merge across
// them.
func tight(c byte) bool { return c == ',' || c == '(' || c == ')' }

func lastByte(b *strings.Builder) byte {
	s := b.String()
	return s[len(s)-1]
}

// plainByte is a byte that can continue a run of ordinary token text.
func plainByte(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '\'', '"', '$', '-', '/', ';', ',', '(', ')':
		return false
	}
	return true
}

func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// skipQuoted returns the index after the quoted text starting at q[i]; a
// doubled quote is an escaped quote, and with backslash escapes so is \'.
// An unterminated literal runs to the end.
func skipQuoted(q string, i int, quote byte, backslash bool) int {
	for j := i + 1; j < len(q); j++ {
		switch {
		case backslash && q[j] == '\\':
			j++
		case q[j] == quote:
			if j+1 < len(q) && q[j+1] == quote {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(q)
}

// skipDollar recognises a dollar-quoted string ($$...$$ or $tag$...$tag$)
// at q[i] and returns the index after it.
func skipDollar(q string, i int) (int, bool) {
	j := i + 1
	for j < len(q) && (q[j] == '_' || q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z' || j > i+1 && q[j] >= '0' && q[j] <= '9') {
		j++
	}
	if j >= len(q) || q[j] != '$' {
		return 0, false
	}
	tag := q[i : j+1]
	end := strings.Index(q[j+1:], tag)
	if end < 0 {
		return len(q), true
	}
	return j + 1 + end + len(tag), true
}

// skipBlockComment returns the index after the /* */ comment at q[i],
// counting nested comments.
func skipBlockComment(q string, i int) int {
	depth := 0
	for i < len(q) {
		switch {
		case strings.HasPrefix(q[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(q[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(q)
}

func isSpaceOrComment(q string, i int) bool {
	switch q[i] {
	case ' ', '\t', '\n', '\r', '\f', '\v':
		return true
	case '-':
		return i+1 < len(q) && q[i+1] == '-'
	case '/':
		return i+1 < len(q) && q[i+1] == '*'
	}
	return false
}

func skipSpaceOrComment(q string, i int) int {
	switch q[i] {
	case '-':
		for i < len(q) && q[i] != '\n' {
			i++
		}
		return i
	case '/':
		return skipBlockComment(q, i)
	}
	return i + 1
}
