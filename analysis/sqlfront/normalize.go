package sqlfront

import "strings"

// fromEnders end a FROM clause at the same parenthesis depth.
var fromEnders = map[string]bool{
	"WHERE": true, "GROUP": true, "HAVING": true, "QUALIFY": true, "WINDOW": true, "ORDER": true,
	"LIMIT": true, "OFFSET": true, "FETCH": true, "UNION": true, "INTERSECT": true, "EXCEPT": true,
	"MINUS": true, "SELECT": true, "SORT": true, "DISTRIBUTE": true, "CLUSTER": true,
	"PIVOT": true, "UNPIVOT": true, "FOR": true, "RETURNING": true,
}

// notStreamed are the words that, after STREAM, mean STREAM is itself a
// table name (FROM stream WHERE ...) rather than the streaming-read keyword.
var notStreamed = map[string]bool{
	"AS": true, "WHERE": true, "JOIN": true, "INNER": true, "LEFT": true, "RIGHT": true, "FULL": true,
	"CROSS": true, "NATURAL": true, "ON": true, "USING": true, "GROUP": true, "ORDER": true, "LIMIT": true,
	"UNION": true, "EXCEPT": true, "INTERSECT": true, "MINUS": true, "WINDOW": true, "HAVING": true,
	"QUALIFY": true, "LATERAL": true, "TABLESAMPLE": true, "PIVOT": true, "UNPIVOT": true, "ANTI": true,
	"SEMI": true, "POSITIONAL": true, "ASOF": true, "SELECT": true, "OFFSET": true, "FETCH": true,
	"SORT": true, "DISTRIBUTE": true, "CLUSTER": true, "FOR": true, "WITH": true, "OUTER": true,
	"INTO": true, "VALUES": true,
}

// normalize returns the normalized text of the query text[sp] (see
// Query.Normalized) and the file offsets of the names read with STREAM.
// toks are the query's tokens.
//
// Most queries need no rewrite: the text is then returned as it is, a
// substring of text, so a cold load neither copies nor keeps a second
// copy of every query.
func normalize(text string, sp Span, toks []token) (string, map[int]bool) {
	// b is the copy being rewritten, made at the first change.
	var b []byte
	edit := func() []byte {
		if b == nil {
			b = []byte(text[sp.Start:sp.End])
		}
		return b
	}
	at := func(off int) int { return off - sp.Start }
	blank := func(t token) {
		b := edit()
		for k := at(t.start); k < at(t.end); k++ {
			b[k] = ' '
		}
	}
	// word is a word token's text as written ("" for other tokens),
	// compared without case and without allocating
	word := func(t token) string {
		if t.kind != tkWord {
			return ""
		}
		return text[t.start:t.end]
	}
	isP := func(k int, c byte) bool {
		return k >= 0 && k < len(toks) && toks[k].kind == tkPunct && text[toks[k].start] == c
	}
	ident := func(k int) bool {
		return k < len(toks) && (toks[k].kind == tkWord || toks[k].kind == tkQuoted) && !toks[k].open
	}
	// dotted returns the index after the dotted name at k, or -1.
	dotted := func(k int) int {
		if !ident(k) {
			return -1
		}
		k++
		for isP(k, '.') && ident(k+1) {
			k += 2
		}
		return k
	}

	var streams map[int]bool
	inFrom := []bool{false} // per parenthesis depth: inside a FROM clause
	expectTable := false
	for _, t := range toks {
		switch t.kind {
		case tkQuoted:
			if text[t.start] == '`' && !t.open && !strings.Contains(text[t.start:t.end], `"`) {
				b := edit()
				b[at(t.start)] = '"'
				b[at(t.end)-1] = '"'
			}
		case tkString:
			if text[t.start] == '\'' && strings.Contains(text[t.start:t.end], `\'`) {
				fixBackslashQuotes(edit()[at(t.start):at(t.end)])
			}
		}
	}
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		top := len(inFrom) - 1
		switch {
		case isP(k, '('):
			inFrom = append(inFrom, false)
			expectTable = false
			continue
		case isP(k, ')'):
			if top > 0 {
				inFrom = inFrom[:top]
			}
			expectTable = false
			continue
		case isP(k, ','):
			expectTable = inFrom[top]
			continue
		}
		w := word(t)
		if expectTable && upperIs(w, "STREAM") {
			// STREAM(name)
			if isP(k+1, '(') {
				if e := dotted(k + 2); e > 0 && isP(e, ')') {
					blank(t)
					blank(toks[k+1])
					blank(toks[e])
					streams = markStream(streams, toks[k+2].start)
					k = e
					expectTable = false
					continue
				}
			}
			// STREAM name
			if e := dotted(k + 1); e > 0 && !inUpper(notStreamed, word(toks[k+1])) {
				blank(t)
				streams = markStream(streams, toks[k+1].start)
				k = e - 1
				expectTable = false
				continue
			}
		}
		expectTable = false
		switch {
		case upperIs(w, "FROM") && !upperIs(word(tokAt(toks, k-1)), "DISTINCT"):
			inFrom[top] = true
			expectTable = true
		case upperIs(w, "JOIN"):
			inFrom[top] = true
			expectTable = true
		case fromEnder(w):
			inFrom[top] = false
		}
	}
	if b == nil {
		return text[sp.Start:sp.End], streams
	}
	return string(b), streams
}

// fromEnder reports whether w is one of fromEnders, as inUpper reads
// it, without hashing: every word of every query goes through it. A word
// with a byte of 0x80 or more takes inUpper's Unicode case mapping.
func fromEnder(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 {
			return inUpper(fromEnders, w)
		}
	}
	if len(w) == 0 || len(w) >= len(fromEnderIndex) {
		return false
	}
	c := w[0]
	if c >= 'a' && c <= 'z' {
		c -= 'a' - 'A'
	}
	for _, kw := range fromEnderIndex[len(w)][c&0x7f] {
		if upperIs(w, kw) {
			return true
		}
	}
	return false
}

// fromEnderIndex lists fromEnders by length and first letter.
var fromEnderIndex = func() [][128][]string {
	n := 0
	for kw := range fromEnders {
		n = max(n, len(kw))
	}
	by := make([][128][]string, n+1)
	for kw := range fromEnders {
		by[len(kw)][kw[0]] = append(by[len(kw)][kw[0]], kw)
	}
	return by
}()

func tokAt(toks []token, k int) token {
	if k < 0 || k >= len(toks) {
		return token{}
	}
	return toks[k]
}

func markStream(m map[int]bool, off int) map[int]bool {
	if m == nil {
		m = map[int]bool{}
	}
	m[off] = true
	return m
}

// fixBackslashQuotes rewrites, in a single-quoted string literal, each
// backslash-escaped quote (\') into a doubled quote (two ' bytes), which PostgreSQL
// and DuckDB read as Spark reads \'.
func fixBackslashQuotes(s []byte) {
	for i := 1; i < len(s)-1; i++ {
		if s[i] == '\\' {
			if s[i+1] == '\'' {
				s[i] = '\''
			}
			i++
		}
	}
}
