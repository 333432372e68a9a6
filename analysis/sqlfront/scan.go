package sqlfront

import "strings"

// This file holds the lexical layer shared by the splitter, the DDL parser
// and the STREAM/backtick normaliser. It never fails: unterminated quotes and
// comments simply run to the end of the range being scanned.

// tokKind classifies a token.
type tokKind uint8

const (
	tkWord   tokKind = iota + 1 // identifier or keyword
	tkQuoted                    // "double" or `backtick` quoted identifier
	tkString                    // 'single' quoted or $tag$ dollar quoted string
	tkNumber                    // numeric literal or $1 parameter
	tkPunct                     // one byte of punctuation or operator
)

// token is one lexical token, as absolute byte offsets into the file text.
// (The one-byte fields first: 24 bytes a token, not 32.)
type token struct {
	kind       tokKind
	open       bool // an unterminated quote: runs to the end of the range
	start, end int
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// isWordStart reports whether c may start an identifier. Bytes of multi-byte
// UTF-8 sequences (and stray high bytes) count as letters, as in PostgreSQL.
func isWordStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWordByte reports whether c may continue an identifier.
func isWordByte(c byte) bool { return isWordStart(c) || isDigit(c) || c == '$' }

// skipTrivia skips whitespace and comments in s[i:limit]. It returns the
// index of the next token (or limit) and, when a block comment is left
// unterminated, that comment's start (else -1).
func skipTrivia(s string, i, limit int) (int, int) {
	for i < limit {
		c := s[i]
		switch {
		case isSpace(c):
			i++
		case c == '-' && i+1 < limit && s[i+1] == '-':
			// A line comment ends at a line feed or a carriage return,
			// as in Spark's lexer (and DuckDB's).
			j := strings.IndexAny(s[i:limit], "\n\r")
			if j < 0 {
				return limit, -1
			}
			i += j + 1
		case c == '/' && i+1 < limit && s[i+1] == '*':
			end, ok := skipBlockComment(s, i, limit)
			if !ok {
				return limit, i
			}
			i = end
		default:
			return i, -1
		}
	}
	return limit, -1
}

// skipBlockComment skips the (nested) block comment starting at s[i] == '/'.
func skipBlockComment(s string, i, limit int) (int, bool) {
	depth := 0
	for i < limit {
		if s[i] == '/' && i+1 < limit && s[i+1] == '*' {
			depth++
			i += 2
			continue
		}
		if s[i] == '*' && i+1 < limit && s[i+1] == '/' {
			depth--
			i += 2
			if depth == 0 {
				return i, true
			}
			continue
		}
		i++
	}
	return limit, false
}

// scanQuoted scans a quoted run starting at s[i] == q. A doubled quote is an
// escaped quote; with backslash set, a backslash escapes the next byte (Spark
// string literals).
func scanQuoted(s string, i, limit int, q byte, backslash bool) (int, bool) {
	j := i + 1
	for j < limit {
		c := s[j]
		switch {
		case c == q:
			if j+1 < limit && s[j+1] == q {
				j += 2
				continue
			}
			return j + 1, true
		case backslash && c == '\\':
			j += 2
		default:
			j++
		}
	}
	return limit, false
}

// dollarTag returns the end of a dollar-quote opening tag ($$ or $tag$) at
// s[i] == '$', or -1 when s[i:] does not open a dollar quote.
func dollarTag(s string, i, limit int) int {
	j := i + 1
	if j < limit && s[j] == '$' {
		return j + 1
	}
	if j >= limit || !isWordStart(s[j]) {
		return -1
	}
	for j < limit && (isWordStart(s[j]) || isDigit(s[j])) {
		j++
	}
	if j < limit && s[j] == '$' {
		return j + 1
	}
	return -1
}

// scanToken scans the token starting at s[i], which is not trivia.
func scanToken(s string, i, limit int) token {
	c := s[i]
	switch {
	case c == '\'':
		end, ok := scanQuoted(s, i, limit, '\'', true)
		return token{kind: tkString, start: i, end: min(end, limit), open: !ok}
	case c == '"' || c == '`':
		end, ok := scanQuoted(s, i, limit, c, false)
		return token{kind: tkQuoted, start: i, end: end, open: !ok}
	case c == '$':
		if tagEnd := dollarTag(s, i, limit); tagEnd > 0 {
			tag := s[i:tagEnd]
			k := strings.Index(s[tagEnd:limit], tag)
			if k < 0 {
				return token{kind: tkString, start: i, end: limit, open: true}
			}
			return token{kind: tkString, start: i, end: tagEnd + k + len(tag)}
		}
		j := i + 1
		for j < limit && isDigit(s[j]) {
			j++
		}
		if j > i+1 {
			return token{kind: tkNumber, start: i, end: j}
		}
		return token{kind: tkPunct, start: i, end: i + 1}
	case isWordStart(c):
		j := i + 1
		for j < limit && isWordByte(s[j]) {
			j++
		}
		return token{kind: tkWord, start: i, end: j}
	case isDigit(c) || (c == '.' && i+1 < limit && isDigit(s[i+1])):
		j := i + 1
		for j < limit {
			d := s[j]
			if isDigit(d) || d == '.' || d == '_' || (d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') {
				if (d == 'e' || d == 'E') && j+2 < limit && (s[j+1] == '+' || s[j+1] == '-') && isDigit(s[j+2]) {
					j += 2
				}
				j++
				continue
			}
			break
		}
		return token{kind: tkNumber, start: i, end: j}
	}
	return token{kind: tkPunct, start: i, end: i + 1}
}

// lexRange returns the tokens of s[from:to], skipping whitespace and
// comments.
func lexRange(s string, from, to int) []token {
	// Pipeline SQL has about one token per 4.5 bytes (names, dots and
	// commas); a smaller first guess made most slices grow once.
	toks := make([]token, 0, (to-from)/4+8)
	i := from
	for {
		i, _ = skipTrivia(s, i, to)
		if i >= to {
			return toks
		}
		t := scanToken(s, i, to)
		toks = append(toks, t)
		i = t.end
	}
}

// bom is the UTF-8 byte order mark some editors put at the start of a file;
// it is skipped like whitespace.
const bom = "\ufeff"

// rawStmt is one statement found by the splitter.
type rawStmt struct {
	Span
	// segStart is where the statement's segment begins: just after the
	// previous ';' (or the start of the scanned range).
	segStart int
	// toks are the statement's tokens, as lexRange over its span gives
	// them: the splitter has scanned them already.
	toks []token
}

// splitRange splits s[from:to] into statements. openComment is the start of
// a block comment left unterminated outside any statement, or -1.
func splitRange(s string, from, to int) (stmts []rawStmt, openComment int) {
	openComment = -1
	i, seg, start, last := from, from, -1, -1
	// The tokens of every statement, in one array, made at the first
	// token (about one token per 4.5 bytes from there: see lexRange,
	// which the header's comments would throw off); each statement gets
	// its run of them.
	var toks []token
	first := 0
	if from == 0 && strings.HasPrefix(s[:to], bom) {
		i, seg = len(bom), len(bom)
	}
	for i < to {
		j, open := skipTrivia(s, i, to)
		if open >= 0 {
			if start >= 0 {
				last = to // let the parser report the unterminated comment
			} else {
				openComment = open
			}
			break
		}
		i = j
		if i >= to {
			break
		}
		if s[i] == ';' {
			if start >= 0 {
				stmts = append(stmts, rawStmt{Span{start, last}, seg, toks[first:len(toks):len(toks)]})
			}
			start = -1
			i++
			seg = i
			first = len(toks)
			continue
		}
		t := scanToken(s, i, to)
		if start < 0 {
			start = t.start
		}
		if toks == nil {
			toks = make([]token, 0, (to-i)/4+8)
		}
		toks = append(toks, t)
		last = t.end
		i = t.end
	}
	if start >= 0 {
		stmts = append(stmts, rawStmt{Span{start, last}, seg, toks[first:len(toks):len(toks)]})
	}
	return stmts, openComment
}

// Split returns the statements of text, in order. Each span excludes the
// whitespace and comments around the statement and its terminating ';'.
// Quoted strings ('..' with doubled quotes and backslash escapes, as Spark
// allows), quoted identifiers ("..", `..`), dollar quotes ($tag$..$tag$),
// -- line comments and nested /* block comments */ are respected. Empty
// statements are skipped; an unterminated quote or comment runs to the end of
// text.
func Split(text string) []Span {
	raw, _ := splitRange(text, 0, len(text))
	out := make([]Span, len(raw))
	for i, r := range raw {
		out[i] = r.Span
	}
	return out
}

// commentStart returns the start of the run of "--" comment lines directly
// above the statement starting at start (no blank line in between), never
// before floor. It returns start when the statement does not begin its line
// or no comment line is directly above it.
func commentStart(s string, start, floor int) int {
	ls := strings.LastIndexByte(s[:start], '\n') + 1
	if strings.TrimLeft(s[ls:start], " \t\r\f\v"+bom) != "" {
		return start
	}
	cs := start
	for ls > floor {
		prevEnd := ls - 1 // the '\n' ending the previous line
		pls := strings.LastIndexByte(s[:prevEnd], '\n') + 1
		line := s[pls:prevEnd]
		trimmed := strings.TrimLeft(line, " \t\r\f\v"+bom)
		if !strings.HasPrefix(trimmed, "--") {
			break
		}
		at := pls + len(line) - len(trimmed)
		if at < floor {
			break
		}
		cs = at
		ls = pls
	}
	return cs
}

// mayReadFiles reports whether query text q can hold a file read
// (fileReads): a read_files, cloud_files or read_kafka call, or a path table
// (parquet.`/data/x`, always in backticks). Most queries have neither,
// and this saves them a pass over their tokens.
func mayReadFiles(q string) bool {
	if strings.IndexByte(q, '`') >= 0 {
		return true
	}
	for i := strings.IndexByte(q, '_'); i >= 0; {
		if len(q)-i >= 6 && (strings.EqualFold(q[i:i+6], "_files") || strings.EqualFold(q[i:i+6], "_kafka")) {
			return true
		}
		j := strings.IndexByte(q[i+1:], '_')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// upperIs reports whether strings.ToUpper(w) == kw (an upper-case ASCII
// keyword), without allocating for an ASCII word.
func upperIs(w, kw string) bool {
	if len(w) != len(kw) {
		for i := 0; i < len(w); i++ {
			if w[i] >= 0x80 {
				return strings.ToUpper(w) == kw
			}
		}
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x80 {
			return strings.ToUpper(w) == kw
		}
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != kw[i] {
			return false
		}
	}
	return true
}
