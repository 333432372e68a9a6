package lex

import (
	"strings"
	"testing"
)

// unquoteCases are the table tests of Unquote, each value as Spark 4.1.4's
// parser gives it for the literal (TestAgainstSpark checks them there).
var unquoteCases = []struct{ lit, want string }{
	{`'abc'`, "abc"},
	{`"abc"`, "abc"},
	{`''`, ""},
	{`'a''b'`, "a'b"},
	{`"a""b"`, `a"b`},
	{`"a''b"`, "a''b"},
	{`'a""b'`, `a""b`},
	{`'a\'b'`, "a'b"},
	{`"a\"b"`, `a"b`},
	{`'a\'''b'`, "a''b"},
	{`'a''\''`, "a''"},
	{`'\\'''''`, `\''`},
	{`'\b\n\r\t\Z\a\'\\\"'`, "\b\n\r\t\x1aa'\\\""},
	{`'\%\_'`, `\%\_`},
	{`'\\%'`, `\%`},
	{`'\0'`, "\x00"},
	{`'\08'`, "\x008"},
	{`'\0000'`, "\x000"},
	{`'\012'`, "\n"},
	{`'\0123'`, "\n3"},
	{`'\101'`, "A"},
	{`'\177'`, "\x7f"},
	{`'\1234'`, "S4"},
	{`'\200'`, "200"},
	{`'\377'`, "377"},
	{`'\400'`, "400"},
	{`'\1'`, "1"},
	{`'\19'`, "19"},
	{`'\7'`, "7"},
	{`'\8'`, "8"},
	{`'\u0041x'`, "Ax"},
	{`'\u00e9'`, "é"},
	{`'\uabcd'`, "\uabcd"},
	{`'\u0000'`, "\x00"},
	{`'\u12'`, "u12"},
	{`'\u004G'`, "u004G"},
	{`'\u００41'`, "u００41"},
	{`'\U0001F600'`, "😀"},
	{`'\U0001f600'`, "😀"},
	{`'\U000000E9'`, "é"},
	{`'\U0000004'`, "U0000004"},
	{`'\uD83D\uDE00'`, "😀"},
	{`'\uD800'`, "?"},
	{`'\uDE00\uD83D'`, "??"},
	{`'\U0000D800'`, "?"},
	{`'\U00110000'`, "??"},
	{`'\UFFFFFFFF'`, "\ud7bf?"},
	{`'\x41'`, "x41"},
	{`'\ '`, " "},
	{`'\é'`, "é"},
	{`'\😀'`, "😀"},
	{"'\\\n'", "\n"},
	{"'a\\\r\nb'", "a\r\nb"},
	{`r'a\n'`, `a\n`},
	{`R'a'`, "a"},
	{`r"a\"`, `a\`},
	{`r''`, ""},
	{`'日本'`, "日本"},
}

func TestUnquote(t *testing.T) {
	for _, c := range unquoteCases {
		toks := Lex(c.lit)
		if len(toks) != 1 || !toks[0].Kind.IsString() {
			t.Errorf("Lex(%q) = %s, want one string literal", c.lit, render(toks))
			continue
		}
		got, err := Unquote(toks[0])
		if err != nil || got != c.want {
			t.Errorf("Unquote(%s) = %q, %v; want %q", c.lit, got, err, c.want)
		}
	}
}

func TestUnquoteIdent(t *testing.T) {
	for lit, want := range map[string]string{
		"`a`":      "a",
		"``":       "",
		"`a``b`":   "a`b",
		"````":     "`",
		"`a.b c`":  "a.b c",
		"`a\\nb`":  `a\nb`,
		"`日本`":     "日本",
		"`a'\"b`":  `a'"b`,
		"`x``y```": "x`y`",
	} {
		toks := Lex(lit)
		if len(toks) != 1 || toks[0].Kind != QuotedIdent {
			t.Errorf("Lex(%q) = %s, want one QuotedIdent", lit, render(toks))
			continue
		}
		if got, err := Unquote(toks[0]); err != nil || got != want {
			t.Errorf("Unquote(%s) = %q, %v; want %q", lit, got, err, want)
		}
	}
}

func TestUnquoteInvalidUTF8(t *testing.T) {
	for lit, want := range map[string]string{
		"'a\xffb'":   "a\uFFFDb",
		"'a\xff\\n'": "a\uFFFD\n",
		"r'\xff'":    "\uFFFD",
		"`\x83`":     "\uFFFD",
	} {
		if got, err := Unquote(Lex(lit)[0]); err != nil || got != want {
			t.Errorf("Unquote(%q) = %q, %v; want %q", lit, got, err, want)
		}
	}
}

func TestUnquoteRefuses(t *testing.T) {
	for _, tok := range []Token{
		Lex("abc")[0],
		Lex("12")[0],
		Lex("'abc")[0], // UnterminatedString
		Lex("`abc")[0], // UnterminatedQuotedIdent
		{Kind: String, Text: "'"},
		{Kind: String, Text: "'a\""},
		{Kind: String, Text: "r'"},
		{Kind: String, Text: "x"},
		{Kind: DoubleQuotedString},
		{Kind: QuotedIdent, Text: "`"},
		{},
	} {
		if got, err := Unquote(tok); err == nil {
			t.Errorf("Unquote(%v %q) = %q, want an error", tok.Kind, tok.Text, got)
		} else if !strings.HasPrefix(err.Error(), "lex.Unquote: ") {
			t.Errorf("error %q does not say where it comes from", err)
		}
	}
}
