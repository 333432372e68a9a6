// Package lex is the lexer of Thund's Spark SQL front end: it splits a text
// into the tokens Spark's own lexer would produce, with exact byte ranges.
//
// It follows the lexical grammar of Spark 4.1 (SqlBaseLexer.g4, run as
// Spark runs it: over a stream that upper-cases every character for the
// lexer while the tokens keep the text as written), and was checked token
// for token against the lexer of Spark 4.1.4 (TestAgainstSpark, which runs
// when THUND_SPARK_JARS names a folder of Spark's jars). In particular:
//
//   - The longest match wins and, between matches of one length, the rule
//     that comes first in the grammar, so 12 is an Integer, 12L a BigInt,
//     12m_payer and 10SECONDS identifiers, 1e10 an Exponent and 1.5D a
//     Double. A literal with a decimal point must not be followed by a
//     letter from A to Z, a digit or an underscore (Spark's isValidDecimal),
//     so 1.5x is 1, then a dot, then the identifier 5x.
//   - Keywords are identifiers (Kind Ident) whose Token.Keyword says which
//     keyword they spell; the parser decides where a keyword is one. The
//     keywords, and which of them the parser grammar reserves, are data
//     here (Keyword, AllKeywords).
//   - Identifiers are letters (Unicode's, after upper-casing), digits and
//     underscores, or a path: letters, then ://, then letters, digits and
//     any of _/-.?=&#%. X'1F' is the keyword X followed by a string, and
//     E'x' the identifier E followed by a string.
//   - Strings are in single or double quotes (a double-quoted string is its
//     own kind, because with spark.sql.ansi.doubleQuotedIdentifiers the
//     parser reads it as an identifier); a backslash escapes any character,
//     the quote written twice stands for itself, and r'...' and R"..." are
//     raw. Unquote decodes them.
//   - Line comments run from -- to the end of the line, a backslash right
//     before a line feed continuing them; block comments nest; /*+ opens a
//     hint (HintStart), whose contents are ordinary tokens up to */
//     (HintEnd, a token wherever it appears).
//   - >> and >>> are shift operators only while no ARRAY<, MAP< or STRUCT<
//     is open (see Lex).
//   - $, {, }, @, # and \ start no token; there are no dollar-quoted
//     strings. A pipeline's parameters, ${key}, are substituted into the
//     text before it is lexed, as Spark substitutes them (LexParams).
//
// What it deliberately does not do: parse (it has no notion of statements,
// and a :name parameter is a Colon and an Ident); decide which keywords are
// identifiers where; check an identifier against the narrower rules Spark's
// parser applies to unquoted identifiers afterwards; join adjacent string
// literals; or turn offsets into lines and columns (that is textpos's job).
// Its one departure from Spark is in recovering from errors: Spark's lexer
// makes an unclosed quote one UNRECOGNIZED character and lexes what follows
// as code, while Lex makes the rest of that line the error token, so that
// an unfinished literal does not turn into a run of spurious tokens.
package lex
