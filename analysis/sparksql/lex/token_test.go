package lex

import (
	"strings"
	"testing"
)

func TestMessages(t *testing.T) {
	for src, want := range map[string]string{
		"'abc":          "unterminated string literal starting here; close it with '",
		`"abc`:          `unterminated string literal starting here; close it with "`,
		"r'abc":         "unterminated string literal starting here; close it with '", // the r is an identifier
		"`abc":          "unterminated quoted identifier starting here; close it with `",
		"/* abc":        "unterminated comment starting here; close it with */",
		"/* a /* b */":  "unterminated comment starting here; close it with */",
		"/* a /* b":     "unterminated comment starting here; close it with */ (2 comments are open: in Spark SQL a /* inside a comment opens a nested one)",
		"/* a /*+ b":    "unterminated comment starting here; close it with */",
		"/*/*/*":        "unterminated comment starting here; close it with */ (3 comments are open: in Spark SQL a /* inside a comment opens a nested one)",
		"@":             `unexpected character '@' (U+0040): no Spark SQL token starts with it`,
		"{":             `unexpected character '{' (U+007B): no Spark SQL token starts with it`,
		"€":             `unexpected character '€' (U+20AC): no Spark SQL token starts with it`,
		"$":             "unexpected character '$': Spark SQL has no $-quoted strings or $1 parameters (use '...' for strings, ? or :name for query parameters, ${key} for a pipeline parameter set under `configuration:`)",
		"\x01":          "unexpected control character U+0001",
		"\ufeffSELECT":  "unexpected byte order mark (U+FEFF); Spark SQL does not skip it: save the file as UTF-8 without a BOM",
		"\xff":          "invalid UTF-8 byte 0xFF",
		"\u2029":        `unexpected character '\u2029' (U+2029): no Spark SQL token starts with it`,
		"x \u0085":      "unexpected control character U+0085",
		"SELECT 'a, b;": "unterminated string literal starting here; close it with '",
	} {
		var errs []Token
		for _, tok := range Lex(src) {
			if tok.Kind.IsError() {
				errs = append(errs, tok)
			}
		}
		if len(errs) != 1 {
			t.Errorf("Lex(%q) = %s, want one error token", src, render(Lex(src)))
			continue
		}
		if got := errs[0].Message(); got != want {
			t.Errorf("Lex(%q): message %q, want %q", src, got, want)
		}
	}
	for _, tok := range Lex("SELECT 'a' /* c */ -- d\n1.5 `x`") {
		if tok.Message() != "" {
			t.Errorf("%v has message %q", tok.Kind, tok.Message())
		}
	}
}

func TestKinds(t *testing.T) {
	seen := map[string]bool{}
	for k := Invalid + 1; k < numKinds; k++ {
		if k.String() == "" || strings.HasPrefix(k.String(), "Kind(") || k.SparkName() == "" {
			t.Errorf("kind %d has no name", k)
		}
		if seen[k.String()] {
			t.Errorf("two kinds named %s", k)
		}
		seen[k.String()] = true
	}
	if !strings.HasPrefix(numKinds.String(), "Kind(") {
		t.Errorf("out-of-range kind prints as %q", numKinds.String())
	}
	if numKinds.SparkName() != "" || numKinds.IsError() {
		t.Error("an out-of-range kind is nothing")
	}
	for _, c := range []struct {
		k                              Kind
		isErr, isComment, isNum, isStr bool
	}{
		{Ident, false, false, false, false},
		{String, false, false, false, true},
		{DoubleQuotedString, false, false, false, true},
		{QuotedIdent, false, false, false, false},
		{Integer, false, false, true, false},
		{BigDecimal, false, false, true, false},
		{LineComment, false, true, false, false},
		{BlockComment, false, true, false, false},
		{HintStart, false, false, false, false},
		{UnterminatedComment, true, false, false, false},
		{UnterminatedString, true, false, false, false},
		{InvalidUTF8, true, false, false, false},
	} {
		if c.k.IsError() != c.isErr || c.k.IsComment() != c.isComment || c.k.IsNumber() != c.isNum || c.k.IsString() != c.isStr {
			t.Errorf("%v: IsError %v IsComment %v IsNumber %v IsString %v", c.k, c.k.IsError(), c.k.IsComment(), c.k.IsNumber(), c.k.IsString())
		}
	}
	raw := Lex(`r'a' R"b" 'c' rx`)
	if !raw[0].IsRaw() || !raw[1].IsRaw() || raw[2].IsRaw() || raw[3].IsRaw() {
		t.Errorf("IsRaw: %s", render(raw))
	}
}

// TestSparkRecovery shows the one place where Lex departs from Spark's
// lexer on purpose: lexSpark, which the oracle test compares with Spark,
// makes an unclosed quote one character and lexes the rest as code.
func TestSparkRecovery(t *testing.T) {
	src := "SELECT 'a, b FROM t\ny"
	if got, want := render(Lex(src)), "Ident/SELECT[0:6] UnterminatedString[7:19] Ident[20:21]"; got != want {
		t.Errorf("Lex: %s, want %s", got, want)
	}
	if got, want := render(lexSpark(src)), "Ident/SELECT[0:6] UnterminatedString[7:8] Ident[8:9] Comma[9:10] Ident[11:12] Ident/FROM[13:17] Ident[18:19] Ident[20:21]"; got != want {
		t.Errorf("lexSpark: %s, want %s", got, want)
	}
}

func BenchmarkLex(b *testing.B) {
	src := strings.Repeat(`-- @kind: materialized_view
CREATE MATERIALIZED VIEW orders_daily COMMENT "Orders per day" AS
SELECT /*+ BROADCAST(c) */ date(o.ts) AS day, c.region, count(*) AS n,
       sum(o.amount * 1.5D) AS total, max(o.note) FILTER (WHERE o.note <> '') AS note
FROM STREAM(raw.orders) o JOIN `+"`dim customers`"+` c ON o.cid = c.id
WHERE o.ts >= TIMESTAMP '2024-01-01' AND o.status IN ('new', 'paid''s') -- trailing
GROUP BY ALL;
`, 100)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Lex(src)
	}
}
