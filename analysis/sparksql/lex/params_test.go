package lex

import (
	"fmt"
	"strings"
	"testing"
)

var testVars = map[string]string{
	"catalog":      "main",
	"schema":       "sales",
	"table":        "main.sales.orders",
	"source_path":  "/Volumes/main/raw/landing",
	"min_amount":   "10.5",
	"prefix":       "dev",
	"nested":       "${catalog}_x",
	"loop":         "a${loop}",
	"source_url":   "http://x",
	"quote":        "it's",
	"empty":        "",
	"spark.conf.x": "8",
}

// tokenString renders tokens as Kind[start:end]"text".
func tokenString(toks []Token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%v[%d:%d]%q", t.Kind, t.Start, t.End, t.Text)
	}
	return b.String()
}

func TestLexParams(t *testing.T) {
	cases := []struct {
		src, want, params string
	}{
		{ // a name written with two references: each part covers its ${...}
			"FROM ${catalog}.${schema}.orders",
			`Ident[0:4]"FROM" Ident[5:15]"main" Dot[15:16]"." Ident[16:25]"sales" Dot[25:26]"." Ident[26:32]"orders"`,
			"catalog=main[5:15]set schema=sales[16:25]set",
		},
		{ // one reference holding a dotted name: every token has its range
			"FROM ${table} t",
			`Ident[0:4]"FROM" Ident[5:13]"main" Dot[5:13]"." Ident[5:13]"sales" Dot[5:13]"." Ident[5:13]"orders" Ident[14:15]"t"`,
			"table=main.sales.orders[5:13]set",
		},
		{ // inside a string literal: the literal as written, its text substituted
			"read_files('${source_path}/orders')",
			`Ident[0:10]"read_files" LeftParen[10:11]"(" String[11:34]"'/Volumes/main/raw/landing/orders'" RightParen[34:35]")"`,
			"source_path=/Volumes/main/raw/landing[12:26]set",
		},
		{ // a number
			"WHERE amount > ${min_amount}",
			`Ident[0:5]"WHERE" Ident[6:12]"amount" Gt[13:14]">" Decimal[15:28]"10.5"`,
			"min_amount=10.5[15:28]set",
		},
		{ // a reference joined to the text around it is one token with both
			"SELECT * FROM ${prefix}_orders",
			`Ident[0:6]"SELECT" Asterisk[7:8]"*" Ident[9:13]"FROM" Ident[14:30]"dev_orders"`,
			"prefix=dev[14:23]set",
		},
		{ // the prefixes Spark binds to its settings
			"SELECT ${spark:schema}, ${sparkconf:schema}, ${hivevar:schema}, ${hiveconf:schema}",
			`Ident[0:6]"SELECT" Ident[7:22]"sales" Comma[22:23]"," Ident[24:43]"sales" Comma[43:44]"," Ident[45:62]"sales" Comma[62:63]"," Ident[64:82]"sales"`,
			"spark:schema=sales[7:22]set sparkconf:schema=sales[24:43]set hivevar:schema=sales[45:62]set hiveconf:schema=sales[64:82]set",
		},
		{ // unset: empty text, the reference reported
			"SELECT '${nope}' AS a",
			`Ident[0:6]"SELECT" String[7:16]"''" Ident[17:19]"AS" Ident[20:21]"a"`,
			"nope=[8:15]unset",
		},
		{ // not references: a space, nothing between the braces, no closing brace
			"SELECT '${ catalog}', '${}', '${catalog'",
			`Ident[0:6]"SELECT" String[7:20]"'${ catalog}'" Comma[20:21]"," String[22:27]"'${}'" Comma[27:28]"," String[29:40]"'${catalog'"`,
			"",
		},
		{ // a value with references of its own; a value that refers back to itself
			"SELECT '${nested}', '${loop}'",
			`Ident[0:6]"SELECT" String[7:18]"'main_x'" Comma[18:19]"," String[20:29]"'${loop}'"`,
			"nested=main_x[8:17]set loop=${loop}[21:28]circular",
		},
		{ // redacted, the server's environment, a prefix Spark does not bind
			"SELECT '${source_url}', '${env:HOME}', '${foo:catalog}'",
			`Ident[0:6]"SELECT" String[7:22]"'*********(redacted)'" Comma[22:23]"," String[24:37]"'${env:HOME}'" Comma[37:38]"," String[39:55]"'${foo:catalog}'"`,
			"source_url=*********(redacted)[8:21]redacted env:HOME=${env:HOME}[25:36]server foo:catalog=${foo:catalog}[40:54]foreign",
		},
		{ // a value with a quote changes the lexing, as it does in Spark
			`SELECT "${quote}" AS q`,
			`Ident[0:6]"SELECT" DoubleQuotedString[7:17]"\"it's\"" Ident[18:20]"AS" Ident[21:22]"q"`,
			"quote=it's[8:16]set",
		},
		{ // an empty value inside a word; $$ before a reference
			"SELECT a${empty}b, $${catalog}",
			`Ident[0:6]"SELECT" Ident[7:17]"ab" Comma[17:18]"," UnexpectedChar[19:20]"$" Ident[20:30]"main"`,
			"empty=[8:16]set catalog=main[20:30]set",
		},
		{ // a dotted key
			"SELECT ${spark.conf.x}",
			`Ident[0:6]"SELECT" Integer[7:22]"8"`,
			"spark.conf.x=8[7:22]set",
		},
		{ // a comment is substituted too
			"SELECT 1 -- ${catalog}\n",
			`Ident[0:6]"SELECT" Integer[7:8]"1" LineComment[9:22]"-- main"`,
			"catalog=main[12:22]set",
		},
	}
	kinds := map[ParamKind]string{ParamSet: "set", ParamUnset: "unset", ParamRedacted: "redacted",
		ParamServer: "server", ParamCircular: "circular", ParamForeign: "foreign"}
	for _, c := range cases {
		toks, params := LexParams(nil, c.src, 0, len(c.src), testVars)
		if got := tokenString(toks); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.src, got, c.want)
		}
		var ps []string
		for _, p := range params {
			k := p.Key
			if p.Prefix != "" {
				k = p.Prefix + ":" + k
			}
			ps = append(ps, fmt.Sprintf("%s=%s[%d:%d]%s", k, p.Value, p.Start, p.End, kinds[p.Kind]))
		}
		if got := strings.Join(ps, " "); got != c.params {
			t.Errorf("%q: params\n got %s\nwant %s", c.src, got, c.params)
		}
	}
}

// TestLexParamsRange checks that LexParams of a part of a text gives
// offsets into the whole text, and that without a reference, or with
// substitution switched off, it is LexInto.
func TestLexParamsRange(t *testing.T) {
	src := "SELECT 1; SELECT x FROM ${schema}.t; SELECT ${x}"
	toks, params := LexParams(nil, src, 10, 35, testVars)
	want := `Ident[10:16]"SELECT" Ident[17:18]"x" Ident[19:23]"FROM" Ident[24:33]"sales" Dot[33:34]"." Ident[34:35]"t"`
	if got := tokenString(toks); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if len(params) != 1 || params[0].Start != 24 || params[0].End != 33 {
		t.Errorf("params = %+v", params)
	}
	plain, params := LexParams(nil, src, 0, 8, testVars)
	if tokenString(plain) != tokenString(LexInto(nil, src, 0, 8)) || params != nil {
		t.Errorf("no reference: %s, %v", tokenString(plain), params)
	}
	off := map[string]string{"spark.sql.variable.substitute": "False", "schema": "sales"}
	raw, params := LexParams(nil, src, 10, 35, off)
	if tokenString(raw) != tokenString(LexInto(nil, src, 10, 35)) || params != nil {
		t.Errorf("substitution off: %s, %v", tokenString(raw), params)
	}
}

// FuzzLexParams checks LexParams on any text: it does not panic; every
// token lies inside the text, in order (tokens from one reference share
// its range); a token that touches no reference holds the text as
// written; every reference is a ${...} of the text; and a text without
// references lexes as Lex does.
func FuzzLexParams(f *testing.F) {
	f.Add("SELECT * FROM ${catalog}.${schema}.orders WHERE a > ${min_amount}")
	f.Add("SELECT '${source_path}/x', ${nested}, ${loop}, ${table}, a${empty}b, $${x}, ${env:HOME}")
	f.Add(`SELECT "${quote}", '${quote}' -- ${catalog}`)
	for _, c := range lexCases {
		f.Add(c.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		toks, params := LexParams(nil, src, 0, len(src), testVars)
		if !strings.Contains(src, "${") {
			if tokenString(toks) != tokenString(Lex(src)) || params != nil {
				t.Fatalf("%q: without references\n %s\nnot\n %s", src, tokenString(toks), tokenString(Lex(src)))
			}
			return
		}
		for i, p := range params {
			if p.Start < 0 || p.End > len(src) || !strings.HasPrefix(src[p.Start:p.End], "${") || src[p.End-1] != '}' {
				t.Fatalf("%q: reference %+v", src, p)
			}
			if i > 0 && p.Start < params[i-1].End {
				t.Fatalf("%q: references overlap: %+v", src, params)
			}
		}
		touches := func(s, e int) bool {
			for _, p := range params {
				if s <= p.End && p.Start <= e {
					return true
				}
			}
			return false
		}
		prevStart, prevEnd := 0, 0
		for _, tok := range toks {
			if tok.Start < prevStart || tok.End < prevEnd || tok.End <= tok.Start || tok.End > len(src) {
				t.Fatalf("%q: token %v[%d:%d] after [%d:%d]", src, tok.Kind, tok.Start, tok.End, prevStart, prevEnd)
			}
			if !touches(tok.Start, tok.End) && tok.Text != src[tok.Start:tok.End] {
				t.Fatalf("%q: token %v[%d:%d] has text %q", src, tok.Kind, tok.Start, tok.End, tok.Text)
			}
			prevStart, prevEnd = tok.Start, tok.End
		}
	})
}
