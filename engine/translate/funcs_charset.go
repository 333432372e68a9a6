package translate

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// charsetArg reads the charset argument of encode or decode: a string
// literal; it is false (refused) for anything but UTF-8, a charset Spark
// does not know included (Spark fails on it when a row is encoded).
func (t *tr) charsetArg(c *ast.Call, x ast.Expr) bool {
	l, ok := unparenExpr(x).(*ast.Literal)
	if !ok || l.Kind != ast.LitString {
		t.refuse(x, "the charset of %s runs natively as a string literal only", strings.ToLower(c.Name.String()))
		return false
	}
	switch strings.ToUpper(l.Str.Value) {
	case "UTF-8", "UTF8":
		return true
	case "US-ASCII", "ISO-8859-1", "UTF-16BE", "UTF-16LE", "UTF-16", "UTF-32":
		t.refuse(x, "%s with the charset %s does not run natively; UTF-8 does", strings.ToLower(c.Name.String()), l.Str.Value)
		return false
	}
	t.refuse(x, "Spark fails on the charset %s of %s (INVALID_PARAMETER_VALUE.CHARSET): it takes US-ASCII, ISO-8859-1, UTF-8, UTF-16BE, UTF-16LE, UTF-16 and UTF-32", l.Str.Value, strings.ToLower(c.Name.String()))
	return false
}

// encodeFn is encode(s, charset): the bytes of s in UTF-8.
func encodeFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 2, 2) {
		return null(c)
	}
	if !t.charsetArg(c, c.Args[1]) {
		return null(c)
	}
	s := a[0]
	switch {
	case s.typ.is(String), s.typ.is(Null):
	case s.typ.is(Binary):
		s = cat("decode(", s, ")")
	case s.typ.integral(), s.typ.is(Boolean), s.typ.is(Date):
		s = t.asString(s)
	default:
		t.refuse(c.Args[0], "encode of a %s does not run natively; cast it to a string", s.typ)
		return null(c)
	}
	return at(c, tBinary, cat("encode(CAST(", s, " AS VARCHAR))"))
}

// decodeFn is decode(bin, charset), the text of UTF-8 bytes (DuckDB's
// decode fails on bytes that are not UTF-8, as Spark 4's
// MALFORMED_CHARACTER_CODING does), or decode(x, search, result, ...,
// [default]): the result of the first search x equals, NULL matching
// NULL, else the default (NULL).
func decodeFn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) < 2 {
		t.refuse(c, "decode takes bytes and a charset, or a value and search and result pairs")
		return null(c)
	}
	if len(a) == 2 {
		if !t.charsetArg(c, c.Args[1]) {
			return null(c)
		}
		b := a[0]
		switch {
		case b.typ.is(Binary):
		case b.typ.is(Null):
			return at(c, tString, cat("CAST(NULL AS VARCHAR)"))
		case b.typ.is(String):
			b = cat("encode(", b, ")")
		default:
			t.refuse(c.Args[0], "decode of a %s does not run natively", b.typ)
			return null(c)
		}
		return at(c, tString, cat("decode(", b, ")"))
	}
	x := a[0]
	var results []frag
	var resultArgs []ast.Expr
	for i := 2; i < len(a); i += 2 {
		results, resultArgs = append(results, a[i]), append(resultArgs, c.Args[i])
	}
	if len(a)%2 == 0 {
		results, resultArgs = append(results, a[len(a)-1]), append(resultArgs, c.Args[len(a)-1])
	}
	for i := 1; i+1 < len(a); i += 2 {
		if !t.sameFamily(x.typ, a[i].typ) {
			t.refuse(c.Args[i], "decode comparing a %s with a %s does not run natively (Spark casts one to the other)", x.typ, a[i].typ)
			return null(c)
		}
	}
	ty := t.unify(c, "decode", results, resultArgs)
	parts := []any{"CASE"}
	k := 0
	for i := 1; i+1 < len(a); i += 2 {
		parts = append(parts, " WHEN ", x, " IS NOT DISTINCT FROM ", a[i], " THEN ", results[k])
		k++
	}
	if len(a)%2 == 0 {
		parts = append(parts, " ELSE ", results[k])
	}
	parts = append(parts, " END")
	return at(c, ty, cat(parts...))
}

// sameFamily reports whether values of types a and b compare natively
// as on Spark without a cast between families: both numbers, both
// strings, both booleans, a NULL with anything.
func (t *tr) sameFamily(a, b *Type) bool {
	switch {
	case !a.known() || !b.known():
		return false
	case a.is(Null) || b.is(Null):
		return true
	case a.numeric() && b.numeric():
		return true
	}
	return a.Kind == b.Kind && (a.is(String) || a.is(Boolean) || a.is(Date) || a.is(Binary))
}
