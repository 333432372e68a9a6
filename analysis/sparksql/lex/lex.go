package lex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Lex splits src into Spark SQL tokens, in order. Whitespace is skipped;
// comments are tokens (LineComment, BlockComment), so the tokens cover
// every byte of src that is not whitespace, and an error token covers
// every byte that starts no token. Lex never fails: it returns an error
// token (Kind.IsError) for a quote, backquote or comment that is never
// closed, for a character Spark does not accept and for a byte that is not
// UTF-8, and goes on after it.
//
// The decisions are Spark 4.1's (see the package documentation), including
// one that depends on what came before: as in Spark, >> and >>> are shift
// operators only when every ARRAY, MAP and STRUCT keyword lexed so far in
// src has been closed by a >, and otherwise a sequence of Gt tokens, so
// that ARRAY<ARRAY<INT>> closes both types. Spark keeps that count for
// the whole text it parses; so does Lex for src.
func Lex(src string) []Token {
	l := lexer{src: src, toks: make([]Token, 0, len(src)/3+4)}
	for l.pos < len(src) {
		l.next()
	}
	return l.toks
}

// LexInto appends to dst the tokens of src[start:end], their offsets into
// src, and returns the extended slice; it is Lex(src[start:end]) with
// every offset moved by start, without a second slice.
func LexInto(dst []Token, src string, start, end int) []Token {
	l := lexer{src: src[:end], pos: start, toks: dst}
	for l.pos < end {
		l.next()
	}
	return l.toks
}

type lexer struct {
	src  string
	pos  int
	toks []Token
	// typeDepth is Spark's complex_type_level_counter: ARRAY, MAP and
	// STRUCT keywords add one, a > takes one away while it is positive,
	// and >> and >>> are operators only while it is zero.
	typeDepth int
	// spark makes an unclosed quote or backquote a one-byte error token,
	// after which lexing goes on, as Spark's lexer does (UNRECOGNIZED); the
	// tests compare that token stream with Spark's own.
	spark bool
}

// lexSpark is Lex with Spark's own recovery from unclosed quotes.
func lexSpark(src string) []Token {
	l := lexer{src: src, spark: true}
	for l.pos < len(src) {
		l.next()
	}
	return l.toks
}

var (
	kwArray  = KeywordByToken("ARRAY")
	kwMap    = KeywordByToken("MAP")
	kwStruct = KeywordByToken("STRUCT")
)

func (l *lexer) emit(k Kind, end int) {
	t := Token{Kind: k, Start: l.pos, End: end, Text: l.src[l.pos:end]}
	switch k {
	case Ident:
		t.Keyword = LookupKeyword(t.Text)
		if t.Keyword == kwArray || t.Keyword == kwMap || t.Keyword == kwStruct {
			l.typeDepth++
		}
	case Gt:
		if l.typeDepth > 0 {
			l.typeDepth--
		}
	}
	l.toks = append(l.toks, t)
	l.pos = end
}

// next lexes the token (or skips the whitespace) at l.pos.
func (l *lexer) next() {
	s, i := l.src, l.pos
	c := s[i]
	if c >= utf8.RuneSelf {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			l.emit(InvalidUTF8, i+1)
		case isSpace(r):
			l.pos += n
		case isLetter(r):
			l.word()
		default:
			l.emit(UnexpectedChar, i+n)
		}
		return
	}
	switch {
	case c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
		l.pos++
		return
	case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_':
		l.word()
		return
	case '0' <= c && c <= '9':
		l.number()
		return
	}
	at := func(k int) byte { // the byte k after c, or 0
		if i+k < len(s) {
			return s[i+k]
		}
		return 0
	}
	switch c {
	case ';':
		l.emit(Semicolon, i+1)
	case '(':
		l.emit(LeftParen, i+1)
	case ')':
		l.emit(RightParen, i+1)
	case ',':
		l.emit(Comma, i+1)
	case '[':
		l.emit(LeftBracket, i+1)
	case ']':
		l.emit(RightBracket, i+1)
	case '+':
		l.emit(Plus, i+1)
	case '%':
		l.emit(Percent, i+1)
	case '~':
		l.emit(Tilde, i+1)
	case '&':
		l.emit(Ampersand, i+1)
	case '^':
		l.emit(Hat, i+1)
	case '?':
		l.emit(Question, i+1)
	case '.':
		if d := at(1); '0' <= d && d <= '9' {
			l.number()
		} else {
			l.emit(Dot, i+1)
		}
	case '!':
		switch at(1) {
		case '=':
			l.emit(BangEq, i+2)
		case '>':
			l.emit(Lte, i+2)
		case '<':
			l.emit(Gte, i+2)
		default:
			l.emit(Bang, i+1)
		}
	case '=':
		switch at(1) {
		case '=':
			l.emit(Eq, i+2)
		case '>':
			l.emit(FatArrow, i+2)
		default:
			l.emit(Eq, i+1)
		}
	case '<':
		switch {
		case at(1) == '=' && at(2) == '>':
			l.emit(NullSafeEq, i+3)
		case at(1) == '=':
			l.emit(Lte, i+2)
		case at(1) == '>':
			l.emit(NotEq, i+2)
		case at(1) == '<':
			l.emit(ShiftLeft, i+2)
		default:
			l.emit(Lt, i+1)
		}
	case '>':
		switch {
		case at(1) == '=':
			l.emit(Gte, i+2)
		case l.typeDepth == 0 && at(1) == '>' && at(2) == '>':
			l.emit(ShiftRightUnsigned, i+3)
		case l.typeDepth == 0 && at(1) == '>':
			l.emit(ShiftRight, i+2)
		default:
			l.emit(Gt, i+1)
		}
	case '-':
		switch at(1) {
		case '-':
			l.emit(LineComment, scanLineComment(s, i))
		case '>':
			l.emit(Arrow, i+2)
		default:
			l.emit(Minus, i+1)
		}
	case '/':
		switch {
		case at(1) == '*' && at(2) == '+':
			l.emit(HintStart, i+3)
		case at(1) == '*':
			if end, depth := scanBlockComment(s, i); depth == 0 {
				l.emit(BlockComment, end)
			} else {
				l.emit(UnterminatedComment, end)
			}
		default:
			l.emit(Slash, i+1)
		}
	case '*':
		if at(1) == '/' {
			l.emit(HintEnd, i+2)
		} else {
			l.emit(Asterisk, i+1)
		}
	case '|':
		switch at(1) {
		case '|':
			l.emit(ConcatPipe, i+2)
		case '>':
			l.emit(OperatorPipe, i+2)
		default:
			l.emit(Pipe, i+1)
		}
	case ':':
		if at(1) == ':' {
			l.emit(DoubleColon, i+2)
		} else {
			l.emit(Colon, i+1)
		}
	case '\'':
		l.quoted(String, UnterminatedString, true)
	case '"':
		l.quoted(DoubleQuotedString, UnterminatedString, true)
	case '`':
		l.quoted(QuotedIdent, UnterminatedQuotedIdent, false)
	default:
		l.emit(UnexpectedChar, i+1)
	}
}

// quoted lexes a literal quoted by the byte at l.pos, in which the quote is
// written twice to stand for itself and, if backslash is true, a backslash
// escapes the character after it. Spark's lexer takes the longest literal
// that closes, so a doubled quote continues the literal when more of it
// follows and closes it when nothing closes a longer one:
//
//	'a''b'    one literal, a'b
//	'a''      (at the end of the text) the literal 'a', then a lone quote
func (l *lexer) quoted(k, unterminated Kind, backslash bool) {
	s, i := l.src, l.pos
	q := s[i]
	closed := -1
	for j := i + 1; j < len(s); {
		switch c := s[j]; {
		case c == '\\' && backslash:
			j += 2 // a backslash and any character (a multi-byte one's later bytes are neither quotes nor backslashes)
		case c == q:
			closed = j + 1
			if j+1 < len(s) && s[j+1] == q {
				j += 2
				continue
			}
			l.emit(k, closed)
			return
		default:
			j++
		}
	}
	if closed >= 0 {
		l.emit(k, closed)
		return
	}
	// No closing quote anywhere: the error covers the rest of the line, and
	// lexing goes on with the next line.
	end := len(s)
	if n := strings.IndexAny(s[i:], "\r\n"); n >= 0 {
		end = i + n
	}
	if l.spark {
		end = i + 1
	}
	l.emit(unterminated, end)
}

// word lexes an IDENTIFIER (or keyword) starting with a letter or an
// underscore, or a raw string literal r'...' or R"...".
func (l *lexer) word() {
	s, i := l.src, l.pos
	if (s[i] == 'r' || s[i] == 'R') && i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '"') {
		// A raw STRING_LITERAL is R, a quote, anything but that quote, and
		// the quote. If it is never closed, the R is an identifier and the
		// quote is lexed on its own (and is then unterminated too).
		if n := strings.IndexByte(s[i+2:], s[i+1]); n >= 0 {
			l.emit(String, i+2+n+1)
			return
		}
	}
	end, letters := scanWord(s, i)
	// IDENTIFIER's second form, for paths: letters only, then ://, then
	// at least one letter, digit or any of _/-.?=&#%.
	if letters == end && end > i && strings.HasPrefix(s[end:], "://") {
		if e := scanURI(s, end+3); e > end+3 {
			end = e
		}
	}
	l.emit(Ident, end)
}

// number lexes at a digit, or at a dot followed by a digit, the longest of
// the numeric literals and IDENTIFIER that matches there, the first rule in
// the grammar winning a tie, as ANTLR does: 12 is INTEGER_VALUE, 12L
// BIGINT_LITERAL, 12m_payer and 12LL IDENTIFIER, 1e10 EXPONENT_VALUE. The
// forms with a decimal point only match when the character after them is
// not a letter from A to Z, a digit or an underscore (Spark's
// isValidDecimal), so 1.5x is 1 then . then 5x.
func (l *lexer) number() {
	s, i := l.src, l.pos
	best, kind := i, Invalid
	try := func(end int, k Kind) {
		if end > best {
			best, kind = end, k
		}
	}
	// suffixes tries FLOAT_LITERAL, DOUBLE_LITERAL and BIGDECIMAL_LITERAL
	// after a mantissa (and exponent) ending at p.
	suffixes := func(p int, decimal bool) {
		u, n := upperAt(s, p)
		switch u {
		case 'F', 'D':
			if !decimal || validDecimal(s, p+n) {
				k := Float
				if u == 'D' {
					k = Double
				}
				try(p+n, k)
			}
		case 'B':
			if u2, n2 := upperAt(s, p+n); u2 == 'D' && (!decimal || validDecimal(s, p+n+n2)) {
				try(p+n+n2, BigDecimal)
			}
		}
	}
	if s[i] != '.' {
		q := scanDigits(s, i)
		try(q, Integer)
		switch u, n := upperAt(s, q); u {
		case 'L':
			try(q+n, BigInt)
		case 'S':
			try(q+n, SmallInt)
		case 'Y':
			try(q+n, TinyInt)
		}
		suffixes(q, false)
		if e := scanExponent(s, q); e > 0 {
			try(e, Exponent)
			suffixes(e, false)
		}
		if q < len(s) && s[q] == '.' {
			l.decimal(q+1, try, suffixes)
		}
		// An IDENTIFIER of letters, digits and underscores wins only if it
		// is longer: the numeric rules come first in the grammar.
		if end, _ := scanWord(s, i); end > best {
			l.emit(Ident, end)
			return
		}
	} else {
		try(i+1, Dot)
		l.decimal(i+1, try, suffixes)
	}
	l.emit(kind, best)
}

// decimal tries the forms with a decimal point whose point is just before
// p: DECIMAL_VALUE, and EXPONENT_VALUE, FLOAT_LITERAL, DOUBLE_LITERAL and
// BIGDECIMAL_LITERAL on DECIMAL_DIGITS.
func (l *lexer) decimal(p int, try func(int, Kind), suffixes func(int, bool)) {
	s := l.src
	b := scanDigits(s, p) // after a leading dot the caller made sure of a digit
	if validDecimal(s, b) {
		try(b, Decimal)
	}
	suffixes(b, true)
	if e := scanExponent(s, b); e > 0 {
		if validDecimal(s, e) {
			try(e, Exponent)
		}
		suffixes(e, true)
	}
}

// scanDigits returns the end of the run of ASCII digits at i.
func scanDigits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// scanExponent returns the end of an exponent at i (E or e, an optional
// sign and at least one digit), or -1 if there is none.
func scanExponent(s string, i int) int {
	u, n := upperAt(s, i)
	if u != 'E' {
		return -1
	}
	j := i + n
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	if e := scanDigits(s, j); e > j {
		return e
	}
	return -1
}

// validDecimal is Spark's isValidDecimal for a token ending at p: the next
// character, upper-cased, must not be a letter from A to Z, a digit or an
// underscore.
func validDecimal(s string, p int) bool {
	u, _ := upperAt(s, p)
	return !('A' <= u && u <= 'Z' || '0' <= u && u <= '9' || u == '_')
}

// upperAt returns the character at i upper-cased as Spark's lexer sees it,
// and its length in bytes; -1 and 0 at the end of s.
func upperAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		return rune(c), 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n == 1 {
		return r, 1
	}
	return sparkUpper(r), n
}

// scanWord returns the end of the run of letters, digits and underscores
// at i, and the end of its leading letters.
func scanWord(s string, i int) (end, letters int) {
	letters = -1
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			case '0' <= c && c <= '9' || c == '_':
				if letters < 0 {
					letters = i
				}
			default:
				goto done
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isLetter(r) {
			break
		}
		i += n
	}
done:
	if letters < 0 {
		letters = i
	}
	return i, letters
}

// scanURI returns the end of the run of characters a path identifier may
// hold after its ://.
func scanURI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
				strings.IndexByte("_/-.?=&#%", c) >= 0 {
				i++
				continue
			}
			break
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isLetter(r) {
			break
		}
		i += n
	}
	return i
}

// scanLineComment returns the end of the SIMPLE_COMMENT at i (which starts
// with --), not counting the line break that ends it. A backslash right
// before a line feed continues the comment on the next line.
func scanLineComment(s string, i int) int {
	j := i + 2
	for j < len(s) {
		switch s[j] {
		case '\n', '\r':
			return j
		case '\\':
			if j+1 < len(s) && s[j+1] == '\n' {
				j += 2
				continue
			}
		}
		j++
	}
	return j
}

// scanBlockComment returns the end of the BRACKETED_COMMENT at i (which
// starts with /* not followed by +) and how many comments are still open
// there: 0 if it is closed. Comments nest: inside one, /* opens another
// unless a + follows it (a hint does not nest), and */ closes the
// innermost. An unclosed comment runs to the end of s.
func scanBlockComment(s string, i int) (end, depth int) {
	depth = 1
	for j := i + 2; j < len(s); {
		switch {
		case s[j] == '*' && j+1 < len(s) && s[j+1] == '/':
			j += 2
			depth--
			if depth == 0 {
				return j, 0
			}
		case s[j] == '/' && j+1 < len(s) && s[j+1] == '*' && (j+2 >= len(s) || s[j+2] != '+'):
			j += 2
			depth++
		default:
			j++
		}
	}
	return len(s), depth
}

// sparkUpper upper-cases one character as Spark's lexer does
// (Character.toUpperCase on each code point).
func sparkUpper(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		return r
	}
	return unicode.ToUpper(r)
}

// isLetter reports whether r is a letter for Spark's lexer: a Unicode
// letter once upper-cased.
func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(sparkUpper(r))
}

// isSpace is Spark's WS: space, \t, \n, \f, \r, \v, U+00A0, U+1680,
// U+2000 to U+200A, U+2028, U+202F, U+205F and U+3000 (not U+2029, U+0085
// or U+FEFF).
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\f', '\r', '\v', 0xA0, 0x1680, 0x2028, 0x202F, 0x205F, 0x3000:
		return true
	}
	return 0x2000 <= r && r <= 0x200A
}
