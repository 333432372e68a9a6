package lex

import (
	"slices"
	"strings"
	"testing"
)

// TestKeywordTable checks the keyword data against facts of Spark 4.1's
// grammars (TestAgainstSpark checks all of it against Spark itself).
func TestKeywordTable(t *testing.T) {
	ks := AllKeywords()
	if len(ks) != 397 {
		t.Errorf("%d keywords, want the 397 rules from ADD to ZONE", len(ks))
	}
	if ks[0].Token() != "ADD" || ks[len(ks)-1].Token() != "ZONE" {
		t.Errorf("keywords run from %v to %v, want ADD to ZONE", ks[0], ks[len(ks)-1])
	}
	var reserved, strict []string
	seen := map[string]bool{}
	for _, k := range ks {
		if seen[k.Token()] {
			t.Errorf("keyword %v twice", k)
		}
		seen[k.Token()] = true
		if len(k.Spellings()) == 0 {
			t.Errorf("keyword %v has no spelling", k)
		}
		for _, w := range k.Spellings() {
			if w != strings.ToUpper(w) || LookupKeyword(w) != k {
				t.Errorf("spelling %q of %v", w, k)
			}
		}
		if k.ReservedANSI() {
			reserved = append(reserved, k.Token())
		}
		if k.StrictNonReserved() {
			strict = append(strict, k.Token())
		}
	}
	// The strictNonReserved rule of SqlBaseParser.g4.
	wantStrict := []string{"ANTI", "CROSS", "EXCEPT", "FULL", "INNER", "INTERSECT", "JOIN", "LATERAL",
		"LEFT", "NATURAL", "ON", "RIGHT", "SEMI", "SETMINUS", "UNION", "USING"}
	slices.Sort(strict)
	if !slices.Equal(strict, wantStrict) {
		t.Errorf("strict non-reserved keywords %v, want %v", strict, wantStrict)
	}
	if len(reserved) != 77 {
		t.Errorf("%d keywords reserved under ANSI rules, want 77: %v", len(reserved), reserved)
	}
	for _, name := range []string{"SELECT", "FROM", "WHERE", "AS", "JOIN", "UNION", "NULL", "CASE", "TABLE", "RECURSIVE", "EXECUTE"} {
		if k := KeywordByToken(name); k == NoKeyword || !k.ReservedANSI() {
			t.Errorf("%s should be reserved under ANSI rules", name)
		}
	}
	for _, name := range []string{"ANTI", "SEMI", "SETMINUS", "STREAM", "WATERMARK", "DELAY", "BINARY_HEX", "INTERVAL", "DATE", "LIMIT"} {
		if k := KeywordByToken(name); k == NoKeyword || k.ReservedANSI() {
			t.Errorf("%s should not be reserved under ANSI rules", name)
		}
	}
}

func TestLookupKeyword(t *testing.T) {
	for word, want := range map[string]string{
		"select":        "SELECT",
		"SeLeCt":        "SELECT",
		"ſelect":        "SELECT", // long s upper-cases to S, as in Java
		"regexp":        "RLIKE",
		"RLIKE":         "RLIKE",
		"temp":          "TEMPORARY",
		"temporary":     "TEMPORARY",
		"minus":         "SETMINUS",
		"percent":       "PERCENTLIT",
		"x":             "BINARY_HEX",
		"identifier":    "IDENTIFIER_KW",
		"timestamp_ntz": "TIMESTAMP_NTZ",
		"stream":        "STREAM",
		"watermark":     "WATERMARK",
		"ıf":            "IF", // dotless i upper-cases to I
		"selects":       "",
		"sel":           "",
		"setminus":      "", // a token name, not a spelling
		"binary_hex":    "",
		"qualify":       "",
		"":              "",
		"sélect":        "",
		"select\xff":    "",
		"a_very_long_identifier_that_is_no_keyword": "",
		"ＳＥＬＥＣＴ":                                    "", // fullwidth letters stay fullwidth
	} {
		if got := LookupKeyword(word).Token(); got != want {
			t.Errorf("LookupKeyword(%q) = %q, want %q", word, got, want)
		}
	}
	if KeywordByToken("setminus").Token() != "SETMINUS" || KeywordByToken("MINUS") != NoKeyword {
		t.Error("KeywordByToken looks up token names, case-insensitively")
	}
	if NoKeyword.Token() != "" || Keyword(60000).Token() != "" || Keyword(60000).ReservedANSI() {
		t.Error("NoKeyword and keywords past the table have no data")
	}
}

func TestTokenKeywordMethods(t *testing.T) {
	toks := Lex("Select regexp temp `select` 'select' selects")
	if !toks[0].IsKeyword("SELECT") || !toks[0].IsKeyword("select") || !toks[0].Is("select") || toks[0].Is("selec") {
		t.Error("Select is the keyword SELECT")
	}
	if !toks[1].IsKeyword("RLIKE") || toks[1].Is("RLIKE") || !toks[1].Is("REGEXP") {
		t.Error("regexp is the keyword RLIKE, spelt REGEXP")
	}
	if !toks[2].IsKeyword("TEMPORARY") || toks[2].Is("temporary") || !toks[2].Is("TEMP") {
		t.Error("temp is the keyword TEMPORARY, spelt TEMP")
	}
	for _, tok := range toks[3:] {
		if tok.IsKeyword("SELECT") || tok.Is("SELECT") || tok.Keyword != NoKeyword {
			t.Errorf("%v %s is no keyword", tok.Kind, tok.Text)
		}
	}
	if !toks[5].Is("SELECTS") {
		t.Error("Is compares any identifier")
	}
}
