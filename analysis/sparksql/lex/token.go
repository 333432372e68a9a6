package lex

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is the kind of a token. Each kind corresponds to one token rule of
// Spark's SqlBaseLexer.g4 (see [Kind.SparkName]), except that every keyword
// is an [Ident] here and the error kinds say why a stretch of text is not a
// token.
type Kind uint8

// The kinds of token. Operators list the spellings Spark accepts for them.
const (
	Invalid Kind = iota // the zero Kind; Lex never produces it

	Ident       // IDENTIFIER (keywords included): abc, 12m_payer, café, file://x/y
	QuotedIdent // BACKQUOTED_IDENTIFIER: `a``b`

	String             // STRING_LITERAL: 'a\'b', 'a''b', r'raw', R"raw"
	DoubleQuotedString // DOUBLEQUOTED_STRING: "a\"b", "a""b"

	Integer    // INTEGER_VALUE: 12
	BigInt     // BIGINT_LITERAL: 12L
	SmallInt   // SMALLINT_LITERAL: 12S
	TinyInt    // TINYINT_LITERAL: 12Y
	Exponent   // EXPONENT_VALUE: 1e10, 1.5E-3
	Decimal    // DECIMAL_VALUE: 1.5, 1., .5
	Float      // FLOAT_LITERAL: 1.5F, 1e3F
	Double     // DOUBLE_LITERAL: 1.5D
	BigDecimal // BIGDECIMAL_LITERAL: 2.0BD

	Semicolon          // ;
	LeftParen          // (
	RightParen         // )
	Comma              // ,
	Dot                // .
	LeftBracket        // [
	RightBracket       // ]
	Bang               // !
	Eq                 // = or ==
	NullSafeEq         // <=>
	NotEq              // <>
	BangEq             // !=
	Lt                 // <
	Lte                // <= or !>
	Gt                 // >
	Gte                // >= or !<
	ShiftLeft          // <<
	ShiftRight         // >> (only outside ARRAY<, MAP<, STRUCT<; see Lex)
	ShiftRightUnsigned // >>> (likewise)
	Plus               // +
	Minus              // -
	Asterisk           // *
	Slash              // /
	Percent            // %
	Tilde              // ~
	Ampersand          // &
	Pipe               // |
	ConcatPipe         // ||
	OperatorPipe       // |>
	Hat                // ^
	Colon              // :
	DoubleColon        // ::
	Arrow              // ->
	FatArrow           // =>
	HintStart          // /*+
	HintEnd            // */
	Question           // ?

	LineComment  // SIMPLE_COMMENT: -- to the end of the line (the line break is not part of it)
	BlockComment // BRACKETED_COMMENT: /* ... */, nesting

	// The error kinds. An error token covers the text it complains about;
	// [Token.Message] says what is wrong and how to fix it.

	UnterminatedString      // a quote with no closing quote; covers the rest of its line
	UnterminatedQuotedIdent // a backquote with no closing backquote; covers the rest of its line
	UnterminatedComment     // /* with no matching */; covers the rest of the text, as in Spark
	UnexpectedChar          // one character that starts no token (UNRECOGNIZED in Spark)
	InvalidUTF8             // one byte that is not valid UTF-8

	numKinds
)

var kindInfo = [numKinds]struct{ name, spark string }{
	Invalid:                 {"Invalid", ""},
	Ident:                   {"Ident", "IDENTIFIER"},
	QuotedIdent:             {"QuotedIdent", "BACKQUOTED_IDENTIFIER"},
	String:                  {"String", "STRING_LITERAL"},
	DoubleQuotedString:      {"DoubleQuotedString", "DOUBLEQUOTED_STRING"},
	Integer:                 {"Integer", "INTEGER_VALUE"},
	BigInt:                  {"BigInt", "BIGINT_LITERAL"},
	SmallInt:                {"SmallInt", "SMALLINT_LITERAL"},
	TinyInt:                 {"TinyInt", "TINYINT_LITERAL"},
	Exponent:                {"Exponent", "EXPONENT_VALUE"},
	Decimal:                 {"Decimal", "DECIMAL_VALUE"},
	Float:                   {"Float", "FLOAT_LITERAL"},
	Double:                  {"Double", "DOUBLE_LITERAL"},
	BigDecimal:              {"BigDecimal", "BIGDECIMAL_LITERAL"},
	Semicolon:               {"Semicolon", "SEMICOLON"},
	LeftParen:               {"LeftParen", "LEFT_PAREN"},
	RightParen:              {"RightParen", "RIGHT_PAREN"},
	Comma:                   {"Comma", "COMMA"},
	Dot:                     {"Dot", "DOT"},
	LeftBracket:             {"LeftBracket", "LEFT_BRACKET"},
	RightBracket:            {"RightBracket", "RIGHT_BRACKET"},
	Bang:                    {"Bang", "BANG"},
	Eq:                      {"Eq", "EQ"},
	NullSafeEq:              {"NullSafeEq", "NSEQ"},
	NotEq:                   {"NotEq", "NEQ"},
	BangEq:                  {"BangEq", "NEQJ"},
	Lt:                      {"Lt", "LT"},
	Lte:                     {"Lte", "LTE"},
	Gt:                      {"Gt", "GT"},
	Gte:                     {"Gte", "GTE"},
	ShiftLeft:               {"ShiftLeft", "SHIFT_LEFT"},
	ShiftRight:              {"ShiftRight", "SHIFT_RIGHT"},
	ShiftRightUnsigned:      {"ShiftRightUnsigned", "SHIFT_RIGHT_UNSIGNED"},
	Plus:                    {"Plus", "PLUS"},
	Minus:                   {"Minus", "MINUS"},
	Asterisk:                {"Asterisk", "ASTERISK"},
	Slash:                   {"Slash", "SLASH"},
	Percent:                 {"Percent", "PERCENT"},
	Tilde:                   {"Tilde", "TILDE"},
	Ampersand:               {"Ampersand", "AMPERSAND"},
	Pipe:                    {"Pipe", "PIPE"},
	ConcatPipe:              {"ConcatPipe", "CONCAT_PIPE"},
	OperatorPipe:            {"OperatorPipe", "OPERATOR_PIPE"},
	Hat:                     {"Hat", "HAT"},
	Colon:                   {"Colon", "COLON"},
	DoubleColon:             {"DoubleColon", "DOUBLE_COLON"},
	Arrow:                   {"Arrow", "ARROW"},
	FatArrow:                {"FatArrow", "FAT_ARROW"},
	HintStart:               {"HintStart", "HENT_START"},
	HintEnd:                 {"HintEnd", "HENT_END"},
	Question:                {"Question", "QUESTION"},
	LineComment:             {"LineComment", "SIMPLE_COMMENT"},
	BlockComment:            {"BlockComment", "BRACKETED_COMMENT"},
	UnterminatedString:      {"UnterminatedString", "UNRECOGNIZED"},
	UnterminatedQuotedIdent: {"UnterminatedQuotedIdent", "UNRECOGNIZED"},
	UnterminatedComment:     {"UnterminatedComment", "BRACKETED_COMMENT"},
	UnexpectedChar:          {"UnexpectedChar", "UNRECOGNIZED"},
	InvalidUTF8:             {"InvalidUTF8", "UNRECOGNIZED"},
}

// String returns the Go name of the kind, such as "Ident".
func (k Kind) String() string {
	if k < numKinds {
		return kindInfo[k].name
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// SparkName returns the name of the token rule of SqlBaseLexer.g4 that this
// kind stands for ("IDENTIFIER", "SHIFT_RIGHT", "HENT_START", ...). Where
// Spark's lexer would see the start of an error token (an unmatched quote, a
// stray character) it produces UNRECOGNIZED; an unclosed comment is still a
// BRACKETED_COMMENT there, one that makes the parser fail.
func (k Kind) SparkName() string {
	if k < numKinds {
		return kindInfo[k].spark
	}
	return ""
}

// IsError reports whether tokens of this kind are errors.
func (k Kind) IsError() bool { return k >= UnterminatedString && k < numKinds }

// IsComment reports whether tokens of this kind are comments, which Spark's
// parser never sees (hints, /*+ ... */, are not comments).
func (k Kind) IsComment() bool { return k == LineComment || k == BlockComment }

// IsNumber reports whether tokens of this kind are numeric literals.
func (k Kind) IsNumber() bool { return k >= Integer && k <= BigDecimal }

// IsString reports whether tokens of this kind are string literals (in
// Spark's default mode both kinds are strings; with
// spark.sql.ansi.doubleQuotedIdentifiers a DoubleQuotedString is an
// identifier, which is the parser's business).
func (k Kind) IsString() bool { return k == String || k == DoubleQuotedString }

// Token is one token of a Spark SQL text.
type Token struct {
	Kind Kind
	// Keyword is the keyword an Ident spells (case-insensitively, as Spark
	// compares), or NoKeyword. Spark's lexer makes such a word a keyword
	// token; its parser accepts most keywords as identifiers too, which is
	// why they are identifiers here.
	Keyword Keyword
	// Start and End are byte offsets into the lexed text: the token is
	// text[Start:End].
	Start, End int
	// Text is text[Start:End].
	Text string
}

// IsKeyword reports whether t is the keyword whose grammar token name is
// name: "SELECT", or "RLIKE" for both RLIKE and REGEXP, "TEMPORARY" for
// TEMPORARY and TEMP, "SETMINUS" for MINUS (see [Keyword.Token]). The name is
// compared case-insensitively.
func (t Token) IsKeyword(name string) bool {
	return t.Keyword != NoKeyword && strings.EqualFold(t.Keyword.Token(), name)
}

// Is reports whether t is an identifier spelt word, compared as Spark
// compares keywords (case-insensitively): Is("temp") but not Is("temporary")
// for the text TEMP.
func (t Token) Is(word string) bool {
	return t.Kind == Ident && upperEq(t.Text, word)
}

// IsRaw reports whether t is a raw string literal (r'...' or R"..."), in
// which a backslash is an ordinary character.
func (t Token) IsRaw() bool {
	return t.Kind == String && len(t.Text) > 0 && (t.Text[0] == 'r' || t.Text[0] == 'R')
}

// Message says what is wrong with an error token and how to fix it, or
// returns "" for any other token.
func (t Token) Message() string {
	switch t.Kind {
	case UnterminatedString:
		q := "'"
		if strings.HasPrefix(t.Text, `"`) {
			q = `"`
		}
		return "unterminated string literal starting here; close it with " + q
	case UnterminatedQuotedIdent:
		return "unterminated quoted identifier starting here; close it with `"
	case UnterminatedComment:
		if _, d := scanBlockComment(t.Text, 0); d > 1 {
			return fmt.Sprintf("unterminated comment starting here; close it with */ "+
				"(%d comments are open: in Spark SQL a /* inside a comment opens a nested one)", d)
		}
		return "unterminated comment starting here; close it with */"
	case UnexpectedChar:
		r, _ := utf8.DecodeRuneInString(t.Text)
		switch r {
		case '\uFEFF':
			return "unexpected byte order mark (U+FEFF); Spark SQL does not skip it: save the file as UTF-8 without a BOM"
		case '$':
			return "unexpected character '$': Spark SQL has no $-quoted strings or $1 parameters (use '...' for strings, ? or :name for query parameters, ${key} for a pipeline parameter set under `configuration:`)"
		}
		if unicode.IsControl(r) {
			return fmt.Sprintf("unexpected control character U+%04X", r)
		}
		return fmt.Sprintf("unexpected character %q (U+%04X): no Spark SQL token starts with it", r, r)
	case InvalidUTF8:
		if len(t.Text) > 0 {
			return fmt.Sprintf("invalid UTF-8 byte 0x%02X", t.Text[0])
		}
	}
	return ""
}
