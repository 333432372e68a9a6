package translate

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// byteLengthFn is octet_length (bits 1) and bit_length (bits 8): the
// bytes of a string's UTF-8 or of a BINARY, times bits, as INTEGER.
func byteLengthFn(bits int) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		x := a[0]
		var n frag
		switch {
		case x.typ.is(Binary):
			n = cat("octet_length(", x, ")")
		case x.typ.is(String), x.typ.is(Null):
			n = cat("strlen(", x, ")")
		case x.typ.integral(), x.typ.is(Boolean), x.typ.is(Date):
			n = cat("strlen(", t.asString(x), ")")
		default:
			t.refuse(c.Args[0], "%s of a %s does not run natively; cast it to a string", strings.ToLower(c.Name.String()), x.typ)
			return null(c)
		}
		return at(c, tInt, cat("CAST(", n, " * "+strconv.Itoa(bits)+" AS INTEGER)"))
	}
}

// chrFn is chr(n) (char): ” for a negative n, else the character of n
// modulo 256 (Spark's Chr).
func chrFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	x := a[0]
	if !x.typ.integral() && !x.typ.is(Null) {
		t.refuse(c.Args[0], "chr runs natively over integers only")
		return null(c)
	}
	return at(c, tString, cat("list_transform([CAST(", x, " AS BIGINT)], lambda n: CASE WHEN n IS NULL THEN NULL WHEN n < 0 THEN '' ELSE chr(CAST(n % 256 AS INTEGER)) END)[1]"))
}

// ilikeFn is ilike(s, pattern): s ILIKE pattern.
func ilikeFn(t *tr, c *ast.Call, a []frag) frag {
	if len(c.Args) != 2 {
		t.refuse(c, "ilike runs natively with a string and a pattern (no escape character)")
		return null(c)
	}
	return t.like(&ast.Like{Range: c.Range, X: c.Args[0], Op: "ILIKE", Patterns: []ast.Expr{c.Args[1]}})
}

// overlayFn is overlay(s PLACING r FROM pos [FOR len]): s's first pos - 1
// characters, r, then s from pos + len (len r's length when not given or
// negative), for a pos of at least 1 (Spark reads a smaller pos from the
// end: it fails as not portable).
func overlayFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 3, 4) {
		return null(c)
	}
	for i, x := range a[:2] {
		if !x.typ.is(String) && !x.typ.is(Null) {
			t.refuse(c.Args[i], "overlay runs natively over strings only")
			return null(c)
		}
	}
	for _, x := range a[2:] {
		if !x.typ.integral() && !x.typ.is(Null) {
			t.refuse(c, "overlay's position and length run natively as integers only")
			return null(c)
		}
	}
	n := cat("length(e.r)")
	if len(a) == 4 {
		n = cat("CASE WHEN e.n >= 0 THEN e.n ELSE length(e.r) END")
	}
	length := cat("NULL")
	if len(a) == 4 {
		length = a[3]
	}
	bad := "error('not-portable: overlay from a position below 1 counts from the end on Spark" + markOpen + strconv.Itoa(t.check(c)) + markClose + "')"
	body := cat("CASE WHEN e.s IS NULL OR e.r IS NULL OR e.p IS NULL THEN NULL WHEN e.p < 1 THEN "+bad+" ELSE left(e.s, CAST(e.p - 1 AS BIGINT)) || e.r || substr(e.s, CAST(e.p + ", n, " AS BIGINT)) END")
	return at(c, tString, cat("list_transform([{'s': ", a[0], ", 'r': ", a[1], ", 'p': CAST(", a[2], " AS BIGINT), 'n': CAST(", length, " AS BIGINT)}], lambda e: ", body, ")[1]"))
}

// urlEncodeFn is url_encode(s), Java's URLEncoder in UTF-8: letters,
// digits and . - * _ as they are, a space as +, every other character's
// UTF-8 bytes as %XX.
func urlEncodeFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	if !a[0].typ.is(String) && !a[0].typ.is(Null) {
		t.refuse(c.Args[0], "url_encode runs natively over strings only")
		return null(c)
	}
	return at(c, tString, cat("CASE WHEN ", a[0], " IS NULL THEN NULL ELSE array_to_string(list_transform(string_split(", a[0], ", ''), lambda ch: CASE WHEN regexp_full_match(ch, '[a-zA-Z0-9.*_-]') THEN ch WHEN ch = ' ' THEN '+' ELSE regexp_replace(hex(encode(ch)), '(..)', '%\\1', 'g') END), '') END"))
}

// urlDecodeFn is url_decode(s) and try_url_decode, Java's URLDecoder in
// UTF-8: + is a space, %XX a byte, the bytes read as UTF-8 (bytes that
// are not UTF-8 fail natively, where Java writes U+FFFD); a % not followed
// by two hexadecimal digits fails as Spark's CANNOT_DECODE_URL (NULL for
// try_url_decode).
func urlDecodeFn(try bool) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 1) {
			return null(c)
		}
		if !a[0].typ.is(String) && !a[0].typ.is(Null) {
			t.refuse(c.Args[0], "%s runs natively over strings only", strings.ToLower(c.Name.String()))
			return null(c)
		}
		bad := "NULL"
		if !try {
			bad = "error('[CANNOT_DECODE_URL] The provided URL cannot be decoded: ' || u || '. Please ensure that the URL is properly formatted and try again. SQLSTATE: 22546" + markOpen + strconv.Itoa(t.check(c)) + markClose + "')"
		}
		blob := "CAST(regexp_replace(replace(replace(u, '\\', '\\x5C'), '+', ' '), '%([0-9a-fA-F]{2})', '\\\\x\\1', 'g') AS BLOB)"
		body := "CASE WHEN u IS NULL THEN NULL WHEN regexp_full_match(u, '([^%]|%[0-9a-fA-F]{2})*') THEN decode(" + blob + ") ELSE " + bad + " END"
		return at(c, tString, cat("list_transform([", a[0], "], lambda u: "+body+")[1]"))
	}
}
