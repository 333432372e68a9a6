package lex

import (
	"strings"
	"unicode/utf8"
)

// Keyword identifies one keyword rule of Spark's lexer grammar; the zero
// value is NoKeyword. A keyword rule can have several spellings (RLIKE and
// REGEXP are one keyword), and its name is the grammar's token name, which
// is not always a spelling (SETMINUS is spelt MINUS).
type Keyword uint16

// NoKeyword is the Keyword of every token that is not a keyword.
const NoKeyword Keyword = 0

type keywordInfo struct {
	token    string
	words    []string
	reserved bool
	strict   bool
}

// Token returns the keyword's token name in SqlBaseLexer.g4 ("SELECT",
// "SETMINUS", "BINARY_HEX", "IDENTIFIER_KW"), or "" for NoKeyword.
func (k Keyword) Token() string { return k.info().token }

// String returns the keyword's token name.
func (k Keyword) String() string { return k.info().token }

// Spellings returns the upper-case words that are this keyword (MINUS for
// SETMINUS, RLIKE and REGEXP for RLIKE). The slice must not be modified.
func (k Keyword) Spellings() []string { return k.info().words }

// ReservedANSI reports whether the keyword is reserved under Spark's
// SQL-standard keyword behaviour (spark.sql.ansi.enabled and
// spark.sql.ansi.enforceReservedKeywords both true): it is not in the
// parser's ansiNonReserved rule, so it cannot be an unquoted identifier.
// In Spark's default behaviour no keyword is reserved.
func (k Keyword) ReservedANSI() bool { return k.info().reserved }

// StrictNonReserved reports whether the keyword is in the parser's
// strictNonReserved rule (the join and set-operation words: JOIN, LEFT,
// UNION, ...): in the default behaviour it may be an identifier, but not
// where the grammar asks for a strictIdentifier, such as a table alias.
func (k Keyword) StrictNonReserved() bool { return k.info().strict }

func (k Keyword) info() keywordInfo {
	if int(k) < len(keywordTable) {
		return keywordTable[k]
	}
	return keywordInfo{}
}

// AllKeywords returns every keyword of the grammar, in the grammar's order.
func AllKeywords() []Keyword {
	ks := make([]Keyword, 0, len(keywordTable)-1)
	for k := 1; k < len(keywordTable); k++ {
		ks = append(ks, Keyword(k))
	}
	return ks
}

// bySpelling and byToken find keywords by spelling and by token name.
var bySpelling, byToken = keywordMaps()

func keywordMaps() (bySpelling, byToken map[string]Keyword) {
	bySpelling, byToken = map[string]Keyword{}, map[string]Keyword{}
	for k := 1; k < len(keywordTable); k++ {
		byToken[keywordTable[k].token] = Keyword(k)
		for _, w := range keywordTable[k].words {
			bySpelling[w] = Keyword(k)
		}
	}
	return bySpelling, byToken
}

// The lexer looks every identifier up, so the common case (an ASCII word)
// goes through an open-addressing table of its own, hashed while the word
// is upper-cased, rather than through a map.
const spellHashBits = 11

var spellings, spellHash, longestSpelling = spellingTable()

type spelling struct {
	word string
	kw   Keyword
}

func spellingTable() (sp []spelling, table *[1 << spellHashBits]uint16, longest int) {
	sp = []spelling{{}} // index 0 marks an empty slot
	table = new([1 << spellHashBits]uint16)
	for k := 1; k < len(keywordTable); k++ {
		for _, w := range keywordTable[k].words {
			longest = max(longest, len(w))
			h := uint32(2166136261)
			for i := 0; i < len(w); i++ {
				h = (h ^ uint32(w[i])) * 16777619
			}
			for j := h; ; j++ {
				if slot := &table[j&(1<<spellHashBits-1)]; *slot == 0 {
					*slot = uint16(len(sp))
					break
				}
			}
			sp = append(sp, spelling{w, Keyword(k)})
		}
	}
	return sp, table, longest
}

// LookupKeyword returns the keyword a word spells, compared as Spark
// compares it (each character upper-cased on its own, so "select", "Select"
// and even "ſelect", whose long s upper-cases to S, are SELECT), or
// NoKeyword.
func LookupKeyword(word string) Keyword {
	if len(word) > 2*longestSpelling {
		return NoKeyword // no keyword is that long, even spelt with two-byte letters
	}
	h := uint32(2166136261)
	for i := 0; i < len(word); i++ {
		c := word[i]
		if c >= utf8.RuneSelf {
			return lookupUnicode(word)
		}
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		h = (h ^ uint32(c)) * 16777619
	}
	if len(word) > longestSpelling {
		return NoKeyword
	}
	for j := h; ; j++ {
		n := spellHash[j&(1<<spellHashBits-1)]
		if n == 0 {
			return NoKeyword
		}
		if sp := spellings[n]; len(sp.word) == len(word) && asciiUpperEq(word, sp.word) {
			return sp.kw
		}
	}
}

// asciiUpperEq reports whether the ASCII word, upper-cased, is upper.
func asciiUpperEq(word, upper string) bool {
	for i := 0; i < len(word); i++ {
		c := word[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != upper[i] {
			return false
		}
	}
	return true
}

// lookupUnicode is LookupKeyword for a word with non-ASCII characters,
// which can still be a keyword if they upper-case to ASCII letters.
func lookupUnicode(word string) Keyword {
	var buf [64]byte
	n := 0
	for i := 0; i < len(word); {
		r, size := utf8.DecodeRuneInString(word[i:])
		u := sparkUpper(r)
		if u >= utf8.RuneSelf || n == len(buf) {
			return NoKeyword // keywords are ASCII
		}
		buf[n] = byte(u)
		n++
		i += size
	}
	return bySpelling[string(buf[:n])]
}

// KeywordByToken returns the keyword with the given grammar token name
// (case-insensitive), or NoKeyword.
func KeywordByToken(name string) Keyword {
	if k, ok := byToken[name]; ok {
		return k
	}
	return byToken[strings.ToUpper(name)]
}

// upperEq reports whether s equals word when each character of both is
// upper-cased as Spark does.
func upperEq(s, word string) bool {
	for s != "" && word != "" {
		r1, n1 := utf8.DecodeRuneInString(s)
		r2, n2 := utf8.DecodeRuneInString(word)
		if r1 != r2 && sparkUpper(r1) != sparkUpper(r2) {
			return false
		}
		s, word = s[n1:], word[n2:]
	}
	return s == "" && word == ""
}
