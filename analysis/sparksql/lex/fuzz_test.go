package lex

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzLex checks the invariants of Lex on any text: it does not panic; the
// tokens are in order, not empty, do not overlap, lie inside the text and
// hold its bytes; every byte outside them is Spark whitespace; an error
// token says what is wrong and no other token does; Unquote decodes every
// complete literal; and lexing is a function of the prefix: lexing the text
// up to the end of a token gives the same tokens up to that one. The one
// exception to that last rule is Spark's: a literal with a decimal point
// is refused when a letter, digit or underscore follows it (1.5x is 1, .,
// 5x), so a prefix that cuts the text right after such a literal ("1.")
// lexes it as one. The check allows exactly that.
func FuzzLex(f *testing.F) {
	for _, c := range lexCases {
		f.Add(c.src)
	}
	for _, c := range unquoteCases {
		f.Add(c.lit)
	}
	f.Fuzz(func(t *testing.T, src string) {
		toks := Lex(src)
		checkTokens(t, src, toks)
		for k, tok := range toks {
			if k >= 64 {
				break // quadratic; the first tokens are enough
			}
			checkPrefix(t, src, toks, k)
			if tok.Kind.IsString() || tok.Kind == QuotedIdent {
				v, err := Unquote(tok)
				if err != nil {
					t.Fatalf("Unquote(%q): %v", tok.Text, err)
				}
				if !utf8.ValidString(v) {
					t.Fatalf("Unquote(%q) = %q, not UTF-8", tok.Text, v)
				}
			}
		}
		checkTokens(t, src, lexSpark(src))
	})
}

func checkTokens(t *testing.T, src string, toks []Token) {
	t.Helper()
	prev := 0
	for _, tok := range toks {
		if tok.Kind == Invalid || tok.Kind >= numKinds {
			t.Fatalf("%q: token of kind %v", src, tok.Kind)
		}
		if tok.Start < prev || tok.End <= tok.Start || tok.End > len(src) {
			t.Fatalf("%q: token %v[%d:%d] after offset %d", src, tok.Kind, tok.Start, tok.End, prev)
		}
		if tok.Text != src[tok.Start:tok.End] {
			t.Fatalf("%q: token %v[%d:%d] has text %q", src, tok.Kind, tok.Start, tok.End, tok.Text)
		}
		if tok.Kind.IsError() != (tok.Message() != "") {
			t.Fatalf("%q: token %v %q has message %q", src, tok.Kind, tok.Text, tok.Message())
		}
		if tok.Keyword != NoKeyword && (tok.Kind != Ident || LookupKeyword(tok.Text) != tok.Keyword) {
			t.Fatalf("%q: token %v %q has keyword %v", src, tok.Kind, tok.Text, tok.Keyword)
		}
		checkSpace(t, src, prev, tok.Start)
		prev = tok.End
	}
	checkSpace(t, src, prev, len(src))
}

// checkSpace checks that src[from:to] is all Spark whitespace.
func checkSpace(t *testing.T, src string, from, to int) {
	t.Helper()
	for i := from; i < to; {
		r, n := utf8.DecodeRuneInString(src[i:to])
		if !isSpace(r) {
			t.Fatalf("%q: byte %d (%q) is in no token and not whitespace", src, i, r)
		}
		i += n
	}
}

// checkPrefix checks that lexing src up to the end of toks[k] gives
// toks[:k+1], but for Spark's refusal of a decimal literal that something
// follows.
func checkPrefix(t *testing.T, src string, toks []Token, k int) {
	t.Helper()
	cut := toks[k].End
	again := Lex(src[:cut])
	for i := 0; i <= k; i++ {
		if i < len(again) && again[i] == toks[i] {
			continue
		}
		if i < len(again) && again[i].End == cut && again[i].Kind.IsNumber() &&
			strings.Contains(again[i].Text, ".") && !validDecimal(src, cut) {
			return // the prefix ends with a decimal literal that Spark refuses in src
		}
		t.Fatalf("%q: lexing the prefix %q gives\n %s\nnot\n %s", src, src[:cut], render(again), render(toks[:k+1]))
	}
}
