package lex

import "testing"

type lexCase struct {
	name, src, want string
}

// lexCases are the table tests of Lex. Every one (except the few with
// invalid UTF-8 or a NUL byte, which Spark never sees) is also an input of
// TestAgainstSpark, which checks that Spark 4.1's lexer makes the same
// decisions.
var lexCases = []lexCase{
	// Whitespace is Spark's WS set, no more.
	{"empty", "", ""},
	{"ascii spaces", " \t\n\r\f\v", ""},
	{"unicode spaces", "a\u00a0b\u3000c\u2028d\u2000e\u200af\u1680g\u202fh\u205fi", "Ident[0:1] Ident[3:4] Ident[7:8] Ident[11:12] Ident[15:16] Ident[19:20] Ident[23:24] Ident[27:28] Ident[31:32]"},
	{"not spaces", "a\u2029b\u0085c\u200bd", "Ident[0:1] UnexpectedChar[1:4] Ident[4:5] UnexpectedChar[5:7] Ident[7:8] UnexpectedChar[8:11] Ident[11:12]"},
	{"byte order mark", "\ufeffSELECT 1", "UnexpectedChar[0:3] Ident/SELECT[3:9] Integer[10:11]"},

	// Line comments.
	{"line comment", "a -- x\nb", "Ident[0:1] LineComment[2:6] Ident[7:8]"},
	{"line comment ends at CR", "a -- x\rb", "Ident[0:1] LineComment[2:6] Ident[7:8]"},
	{"line comment ends at CRLF", "a -- x\r\nb", "Ident[0:1] LineComment[2:6] Ident[8:9]"},
	{"bare line comment at end", "--", "LineComment[0:2]"},
	{"backslash newline continues a line comment", "-- a\\\nb\nc", "LineComment[0:7] Ident[8:9]"},
	{"backslash CRLF does not continue", "-- a\\\r\nb", "LineComment[0:5] Ident[7:8]"},
	{"two backslashes then newline continue", "-- a\\\\\nb\nc", "LineComment[0:8] Ident[9:10]"},
	{"three minus signs", "a---b", "Ident[0:1] LineComment[1:5]"},
	{"arrow then comment", "a->b-->c", "Ident[0:1] Arrow[1:3] Ident[3:4] LineComment[4:8]"},
	{"minus minus with space", "1 - -2", "Integer[0:1] Minus[2:3] Minus[4:5] Integer[5:6]"},

	// Block comments nest; hints do not.
	{"block comment", "a/* x */b", "Ident[0:1] BlockComment[1:8] Ident[8:9]"},
	{"nested block comment", "/* a /* b */ c */d", "BlockComment[0:17] Ident[17:18]"},
	{"nested comment left open", "/* a /* b */ c", "UnterminatedComment[0:14]"},
	{"hint inside a comment does not nest", "/* a /*+ b */c", "BlockComment[0:13] Ident[13:14]"},
	{"slash star slash", "/*/ */x", "BlockComment[0:6] Ident/BINARY_HEX[6:7]"},
	{"empty comment", "/**/x", "BlockComment[0:4] Ident/BINARY_HEX[4:5]"},
	{"comment of stars", "/***/x", "BlockComment[0:5] Ident/BINARY_HEX[5:6]"},
	{"unterminated comment", "x /* abc", "Ident/BINARY_HEX[0:1] UnterminatedComment[2:8]"},
	{"lone slash star", "/*", "UnterminatedComment[0:2]"},
	{"hint", "SELECT /*+ BROADCAST(t) */ a", "Ident/SELECT[0:6] HintStart[7:10] Ident[11:20] LeftParen[20:21] Ident[21:22] RightParen[22:23] HintEnd[24:26] Ident[27:28]"},
	{"hint at end", "/*+", "HintStart[0:3]"},
	{"star slash outside a hint", "a*/b", "Ident[0:1] HintEnd[1:3] Ident[3:4]"},
	{"star slash star", "2*/*c*/3", "Integer[0:1] HintEnd[1:3] Asterisk[3:4] Ident[4:5] HintEnd[5:7] Integer[7:8]"},

	// Strings in single or double quotes, with escapes.
	{"single quoted", "'abc'", "String[0:5]"},
	{"double quoted is a string", `"abc"`, "DoubleQuotedString[0:5]"},
	{"backslash quote", `'a\'b'`, "String[0:6]"},
	{"doubled quote", `'a''b'`, "String[0:6]"},
	{"doubled double quote", `"a""b"`, "DoubleQuotedString[0:6]"},
	{"doubled quote at the end of the text", `'a''`, "String[0:3] UnterminatedString[3:4]"},
	{"three quotes close after a doubled one", `'a'''`, "String[0:5]"},
	{"other quote inside", `'a"b' "c'd"`, "String[0:5] DoubleQuotedString[6:11]"},
	{"adjacent literals are separate tokens", `'a' 'b''c'"d"`, "String[0:3] String[4:10] DoubleQuotedString[10:13]"},
	{"string spans lines", "'a\nb'", "String[0:5]"},
	{"escaped backslash before quote", `'a\\'b'`, "String[0:5] Ident[5:6] UnterminatedString[6:7]"},
	{"backslash newline in a string", "'a\\\nb'", "String[0:6]"},
	{"multibyte escape", "'\\é'", "String[0:5]"},
	{"empty strings", `'' ""`, "String[0:2] DoubleQuotedString[3:5]"},
	{"raw string", `r'a\'`, "String[0:5]"},
	{"raw string double quoted", `R"a\"`, "String[0:5]"},
	{"raw string has no doubling", `r'a''b'`, "String[0:4] String[4:7]"},
	{"raw string unterminated", "r'abc", "Ident[0:1] UnterminatedString[1:5]"},
	{"identifier before a string", "rx'a' E'a' X'1F' x'1f'", "Ident[0:2] String[2:5] Ident[6:7] String[7:10] Ident/BINARY_HEX[11:12] String[12:16] Ident/BINARY_HEX[17:18] String[18:22]"},
	{"unterminated string resumes on the next line", "'abc\nSELECT 1", "UnterminatedString[0:4] Ident/SELECT[5:11] Integer[12:13]"},
	{"unterminated double quoted", "SELECT \"ab\r\n1", "Ident/SELECT[0:6] UnterminatedString[7:10] Integer[12:13]"},
	{"unterminated by a trailing backslash", `'abc\`, "UnterminatedString[0:5]"},
	{"dollar signs are not quotes", "$$'$$", "UnexpectedChar[0:1] UnexpectedChar[1:2] UnterminatedString[2:5]"},
	{"dollar quote body", "$tag$ x $tag$", "UnexpectedChar[0:1] Ident[1:4] UnexpectedChar[4:5] Ident/BINARY_HEX[6:7] UnexpectedChar[8:9] Ident[9:12] UnexpectedChar[12:13]"},

	// Backquoted identifiers.
	{"backquoted", "`a b`", "QuotedIdent[0:5]"},
	{"doubled backquote", "`a``b`", "QuotedIdent[0:6]"},
	{"backquote ignores backslash", "`a\\`b", "QuotedIdent[0:4] Ident[4:5]"},
	{"empty backquoted", "``", "QuotedIdent[0:2]"},
	{"backquoted dots", "`a.b`.`c`", "QuotedIdent[0:5] Dot[5:6] QuotedIdent[6:9]"},
	{"unterminated backquote", "`abc\ndef", "UnterminatedQuotedIdent[0:4] Ident[5:8]"},

	// Identifiers and keywords.
	{"identifier starting with digits", "12m_payer", "Ident[0:9]"},
	{"cte named with digits", "WITH 12m_payer AS (SELECT 1 AS a) SELECT * FROM 12m_payer", "Ident/WITH[0:4] Ident[5:14] Ident/AS[15:17] LeftParen[18:19] Ident/SELECT[19:25] Integer[26:27] Ident/AS[28:30] Ident[31:32] RightParen[32:33] Ident/SELECT[34:40] Asterisk[41:42] Ident/FROM[43:47] Ident[48:57]"},
	{"underscore", "_a1 __", "Ident[0:3] Ident[4:6]"},
	{"unicode letters", "café 日本 𝐀b", "Ident[0:5] Ident[6:12] Ident[13:18]"},
	{"letters by upper-casing", "ſelect ıd a\u0345b", "Ident/SELECT[0:7] Ident[8:11] Ident[12:16]"},
	{"keyword spellings", "select SELECT Select regexp RLike temp X minus percent identifier", "Ident/SELECT[0:6] Ident/SELECT[7:13] Ident/SELECT[14:20] Ident/RLIKE[21:27] Ident/RLIKE[28:33] Ident/TEMPORARY[34:38] Ident/BINARY_HEX[39:40] Ident/SETMINUS[41:46] Ident/PERCENTLIT[47:54] Ident/IDENTIFIER_KW[55:65]"},
	{"path identifier", "file://a/b.c?x=1&y#z%20-_", "Ident[0:25]"},
	{"path identifier needs letters first", "s3://bucket", "Ident[0:2] Colon[2:3] Slash[3:4] Slash[4:5] Ident/BUCKET[5:11]"},
	{"path identifier needs a character", "file:// x", "Ident[0:4] Colon[4:5] Slash[5:6] Slash[6:7] Ident/BINARY_HEX[8:9]"},
	{"path identifier stops", "abfss://c@acct", "Ident[0:9] UnexpectedChar[9:10] Ident[10:14]"},
	{"path identifier underscore", "a_b://c", "Ident[0:3] Colon[3:4] Slash[4:5] Slash[5:6] Ident[6:7]"},
	{"named parameter", ":name ?", "Colon[0:1] Ident/NAME[1:5] Question[6:7]"},

	// Numbers: longest match, then the first rule.
	{"integer", "12", "Integer[0:2]"},
	{"typed integers", "12L 12l 12S 12s 12Y 12y", "BigInt[0:3] BigInt[4:7] SmallInt[8:11] SmallInt[12:15] TinyInt[16:19] TinyInt[20:23]"},
	{"long s is S", "12ſ", "SmallInt[0:4]"},
	{"typed integer then letters", "12LL 12Sx 10SECONDS 1D2", "Ident[0:4] Ident[5:9] Ident[10:19] Ident[20:23]"},
	{"exponent", "1e10 1E+10 1e-10", "Exponent[0:4] Exponent[5:10] Exponent[11:16]"},
	{"exponent missing digits", "1e 1e+ 1ex", "Ident[0:2] Ident[3:5] Plus[5:6] Ident[7:10]"},
	{"exponent then letter", "1e10x 1e+10x", "Ident[0:5] Exponent[6:11] Ident/BINARY_HEX[11:12]"},
	{"decimals", "1.5 1. .5 1.e5 .5e-3 1.5E+2", "Decimal[0:3] Decimal[4:6] Decimal[7:9] Exponent[10:14] Exponent[15:20] Exponent[21:27]"},
	{"decimal followed by a letter", "1.5x", "Integer[0:1] Dot[1:2] Ident[2:4]"},
	{"decimal point followed by a letter", "1.x", "Integer[0:1] Dot[1:2] Ident/BINARY_HEX[2:3]"},
	{"decimal followed by underscore", "2.3_", "Integer[0:1] Dot[1:2] Ident[2:4]"},
	{"decimal followed by a non-ASCII letter", "2.3é", "Decimal[0:3] Ident[3:5]"},
	{"dotless i upper-cases to I", "1.5ı", "Integer[0:1] Dot[1:2] Ident[2:5]"},
	{"decimal exponent followed by a letter", "1.5e3x", "Integer[0:1] Dot[1:2] Ident[2:6]"},
	{"decimal with incomplete exponent", "1.5e", "Integer[0:1] Dot[1:2] Ident[2:4]"},
	{"suffixes", "1.5D 1.5F 2.0BD 1D 1F 1BD 1e3D 1.5e3BD 1bd .5f", "Double[0:4] Float[5:9] BigDecimal[10:15] Double[16:18] Float[19:21] BigDecimal[22:25] Double[26:30] BigDecimal[31:38] BigDecimal[39:42] Float[43:46]"},
	{"suffix followed by a letter", "1.5Dx 1Dx 1.5BDx 1.5B", "Integer[0:1] Dot[1:2] Ident[2:5] Ident[6:9] Integer[10:11] Dot[11:12] Ident[12:16] Integer[17:18] Dot[18:19] Ident[19:21]"},
	{"decimal then dot", "1..2 1.2.3", "Decimal[0:2] Decimal[2:4] Decimal[5:8] Decimal[8:10]"},
	{"qualified names and decimals", "a.b t.5 a.5x", "Ident[0:1] Dot[1:2] Ident[2:3] Ident[4:5] Decimal[5:7] Ident[8:9] Dot[9:10] Ident[10:12]"},
	{"issue 15 literals", "SELECT 1Y + 2S + 3L + 1.5D + 2.0BD, X'1F', INTERVAL 1 DAY FROM t", "Ident/SELECT[0:6] TinyInt[7:9] Plus[10:11] SmallInt[12:14] Plus[15:16] BigInt[17:19] Plus[20:21] Double[22:26] Plus[27:28] BigDecimal[29:34] Comma[34:35] Ident/BINARY_HEX[36:37] String[37:41] Comma[41:42] Ident/INTERVAL[43:51] Integer[52:53] Ident/DAY[54:57] Ident/FROM[58:62] Ident[63:64]"},

	// Operators and punctuation.
	{"every operator", "= == <=> <> != < <= !> > >= !< << >> >>> + - * / % ~ & | || |> ^ : :: -> => ; , . ( ) [ ] ? !", "Eq[0:1] Eq[2:4] NullSafeEq[5:8] NotEq[9:11] BangEq[12:14] Lt[15:16] Lte[17:19] Lte[20:22] Gt[23:24] Gte[25:27] Gte[28:30] ShiftLeft[31:33] ShiftRight[34:36] ShiftRightUnsigned[37:40] Plus[41:42] Minus[43:44] Asterisk[45:46] Slash[47:48] Percent[49:50] Tilde[51:52] Ampersand[53:54] Pipe[55:56] ConcatPipe[57:59] OperatorPipe[60:62] Hat[63:64] Colon[65:66] DoubleColon[67:69] Arrow[70:72] FatArrow[73:75] Semicolon[76:77] Comma[78:79] Dot[80:81] LeftParen[82:83] RightParen[84:85] LeftBracket[86:87] RightBracket[88:89] Question[90:91] Bang[92:93]"},
	{"operators without spaces", "a<=>b>=c<<=d>>=e|>f::int=>g!<h", "Ident[0:1] NullSafeEq[1:4] Ident[4:5] Gte[5:7] Ident[7:8] ShiftLeft[8:10] Eq[10:11] Ident[11:12] ShiftRight[12:14] Eq[14:15] Ident[15:16] OperatorPipe[16:18] Ident[18:19] DoubleColon[19:21] Ident/INT[21:24] FatArrow[24:26] Ident[26:27] Gte[27:29] Ident[29:30]"},
	{"closing nested types", "ARRAY<ARRAY<INT>>", "Ident/ARRAY[0:5] Lt[5:6] Ident/ARRAY[6:11] Lt[11:12] Ident/INT[12:15] Gt[15:16] Gt[16:17]"},
	{"closing three types", "MAP<INT,STRUCT<a:ARRAY<INT>>>", "Ident/MAP[0:3] Lt[3:4] Ident/INT[4:7] Comma[7:8] Ident/STRUCT[8:14] Lt[14:15] Ident[15:16] Colon[16:17] Ident/ARRAY[17:22] Lt[22:23] Ident/INT[23:26] Gt[26:27] Gt[27:28] Gt[28:29]"},
	{"shift outside types", "1 >> 2 >>> 3", "Integer[0:1] ShiftRight[2:4] Integer[5:6] ShiftRightUnsigned[7:10] Integer[11:12]"},
	{"a map call keeps >> from being a shift", "map(1,2)[1] + (8 >> 1)", "Ident/MAP[0:3] LeftParen[3:4] Integer[4:5] Comma[5:6] Integer[6:7] RightParen[7:8] LeftBracket[8:9] Integer[9:10] RightBracket[10:11] Plus[12:13] LeftParen[14:15] Integer[15:16] Gt[17:18] Gt[18:19] Integer[20:21] RightParen[21:22]"},
	{"a type closed, then a shift", "ARRAY<INT>>>1", "Ident/ARRAY[0:5] Lt[5:6] Ident/INT[6:9] Gt[9:10] ShiftRight[10:12] Integer[12:13]"},
	{"gte does not close a type", "STRUCT<a:INT>=1 >> 2", "Ident/STRUCT[0:6] Lt[6:7] Ident[7:8] Colon[8:9] Ident/INT[9:12] Gte[12:14] Integer[14:15] Gt[16:17] Gt[17:18] Integer[19:20]"},
	{"pipe syntax", "FROM t |> WHERE a > 1 |> SELECT a", "Ident/FROM[0:4] Ident[5:6] OperatorPipe[7:9] Ident/WHERE[10:15] Ident[16:17] Gt[18:19] Integer[20:21] OperatorPipe[22:24] Ident/SELECT[25:31] Ident[32:33]"},
	{"lambda and named argument", "transform(a, x -> x + 1), f(n => 2)", "Ident/TRANSFORM[0:9] LeftParen[9:10] Ident[10:11] Comma[11:12] Ident/BINARY_HEX[13:14] Arrow[15:17] Ident/BINARY_HEX[18:19] Plus[20:21] Integer[22:23] RightParen[23:24] Comma[24:25] Ident[26:27] LeftParen[27:28] Ident[28:29] FatArrow[30:32] Integer[33:34] RightParen[34:35]"},

	// Characters that start no token.
	{"unknown characters", "a @ # \\ { } $", "Ident[0:1] UnexpectedChar[2:3] UnexpectedChar[4:5] UnexpectedChar[6:7] UnexpectedChar[8:9] UnexpectedChar[10:11] UnexpectedChar[12:13]"},
	{"control character", "a\x01b", "Ident[0:1] UnexpectedChar[1:2] Ident[2:3]"},
	{"invalid UTF-8", "a\xffb\xc3", "Ident[0:1] InvalidUTF8[1:2] Ident[2:3] InvalidUTF8[3:4]"},
	{"NUL byte", "a\x00b", "Ident[0:1] UnexpectedChar[1:2] Ident[2:3]"},
}

func TestLex(t *testing.T) {
	for _, c := range lexCases {
		t.Run(c.name, func(t *testing.T) {
			toks := Lex(c.src)
			if got := render(toks); got != c.want {
				t.Errorf("Lex(%q)\n got: %s\nwant: %s", c.src, got, c.want)
			}
			for _, tok := range toks {
				if tok.Text != c.src[tok.Start:tok.End] {
					t.Errorf("token %v: Text %q, want %q", tok.Kind, tok.Text, c.src[tok.Start:tok.End])
				}
			}
		})
	}
}
