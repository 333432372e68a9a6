// Package ast holds the syntax tree of Spark SQL that the parser in
// analysis/sparksql/parser builds: statements, queries, relations,
// expressions and data types, each with the exact byte range it covers in
// the parsed text.
//
// The tree keeps what a reader of the SQL needs (names as written and
// unquoted, every clause, every operator with its range) and drops only
// punctuation. Nodes are plain structs; [Inspect] visits them in text
// order. The parser never returns a nil interface inside a list: a part it
// could not read is a [BadExpr], [BadRelation] or [BadStmt] covering the
// text it skipped, so that references and ranges in the rest of a broken
// statement are still there.
package ast

// Range is a stretch of the parsed text as byte offsets: Start inclusive,
// End exclusive.
type Range struct{ Start, End int }

// Span returns r itself; every node embeds a Range, so every node has Span.
func (r Range) Span() Range { return r }

// Contains reports whether offset off lies in r (End excluded).
func (r Range) Contains(off int) bool { return off >= r.Start && off < r.End }

// Node is any node of the tree.
type Node interface {
	// Span returns the text the node covers.
	Span() Range
}

// SyntaxError is one syntax error, at the token where the parser stopped
// (or the stretch it complains about).
type SyntaxError struct {
	Range
	// Message says what is wrong in Spark's terms and, where one is
	// likely, how to fix it.
	Message string
	// Class is the error class Spark would report: PARSE_SYNTAX_ERROR for
	// a grammar error, or a class Spark raises while building its plan
	// (for example INVALID_SQL_SYNTAX, PARSE_EMPTY_STATEMENT,
	// UNCLOSED_BRACKETED_COMMENT).
	Class string
}

// Error returns the message.
func (e *SyntaxError) Error() string { return e.Message }

// Script is a whole text: the statements separated by semicolons.
type Script struct {
	Range
	Stmts []Stmt
	// Errors are the syntax errors of the text, in order, at most one
	// per statement.
	Errors []*SyntaxError
	// Comments are the comments of the text, which the tree does not
	// otherwise hold (a pipeline's pragma header lives in them).
	Comments []Range
}

// Ident is one identifier. Name is the identifier as Spark reads it:
// unquoted (`a“b` is a`b); Spark compares names case-insensitively by
// default, so Name keeps the case as written.
type Ident struct {
	Range
	Name string
	// Quoted is true for a `backquoted` identifier (or a "double-quoted"
	// one under spark.sql.ansi.doubleQuotedIdentifiers).
	Quoted bool
	// Expr is set for IDENTIFIER(expr) with an expression that is not a
	// string literal; Name is then empty.
	Expr Expr
}

// Name is a possibly qualified name: catalog.schema.table, t.col.
type Name struct {
	Range
	Parts []*Ident
}

// String returns the parts joined by dots, unquoted.
func (n *Name) String() string {
	if n == nil {
		return ""
	}
	s := ""
	for i, p := range n.Parts {
		if i > 0 {
			s += "."
		}
		s += p.Name
	}
	return s
}

// Last returns the last part, or nil for an empty name.
func (n *Name) Last() *Ident {
	if n == nil || len(n.Parts) == 0 {
		return nil
	}
	return n.Parts[len(n.Parts)-1]
}

// StringLit is one string literal as Spark reads it; adjacent literals
// ('a' 'b') are one StringLit whose Value is their concatenation.
type StringLit struct {
	Range
	// Value is the unescaped text.
	Value string
	// DoubleQuoted is true when the (first) literal is "...".
	DoubleQuoted bool
	// Parts are the ranges of the adjacent literals.
	Parts []Range
}

// Property is one key = value of TBLPROPERTIES, OPTIONS or WITH (...).
type Property struct {
	Range
	// Key is the key as Spark reads it (a dotted name or a string).
	Key      string
	KeyRange Range
	// Value is the value, nil when there is none (OPTIONS (a)); for
	// TBLPROPERTIES it is a literal, for OPTIONS of CREATE TABLE any
	// expression.
	Value Expr
}
