package translate

import (
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// bitCountFn is bit_count: the one bits of a BOOLEAN (1 or 0) or of an
// integer widened to 64 bits (Java's Long.bitCount: bit_count(-1) is 64
// for every integer type).
func bitCountFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	x := a[0]
	switch {
	case x.typ.is(Null):
		return at(c, tInt, cat("CAST(NULL AS INTEGER)"))
	case x.typ.is(Boolean):
		return at(c, tInt, cat("CAST(", x, " AS INTEGER)"))
	case x.typ.integral():
		return at(c, tInt, cat("CAST(bit_count(CAST(", x, " AS BIGINT)) AS INTEGER)"))
	case x.typ.known():
		t.typeError(c, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve \"%s\" due to data type mismatch: the first parameter requires the (\"INTEGRAL\" or \"BOOLEAN\") type, however %s has the type \"%s\". SQLSTATE: 42K09", t.text(c), t.text(c.Args[0]), x.typ)
		return null(c)
	}
	t.refuse(c.Args[0], "bit_count needs an integer or a boolean, and the type of %s is not known here", t.text(c.Args[0]))
	return null(c)
}

// eltFn is elt(n, s1, s2, ...): the n-th string (counting from 1); an n
// out of range fails in ANSI mode (INVALID_ARRAY_INDEX) and is NULL
// otherwise.
func eltFn(t *tr, c *ast.Call, a []frag) frag {
	if len(a) < 2 {
		t.refuse(c, "elt takes an index and at least one string")
		return null(c)
	}
	if !a[0].typ.integral() && !a[0].typ.is(Null) {
		t.refuse(c.Args[0], "elt's index runs natively as an integer only")
		return null(c)
	}
	for i, x := range a[1:] {
		if !x.typ.is(String) && !x.typ.is(Null) {
			t.refuse(c.Args[i+1], "elt runs natively over strings only")
			return null(c)
		}
	}
	n := len(a) - 1
	parts := []any{"CASE WHEN ", a[0], " IS NULL THEN CAST(NULL AS VARCHAR)"}
	for i, x := range a[1:] {
		parts = append(parts, " WHEN ", a[0], " = "+strconv.Itoa(i+1)+" THEN CAST(", x, " AS VARCHAR)")
	}
	if t.ansi() {
		parts = append(parts, " ELSE CAST(error('[INVALID_ARRAY_INDEX] The index ' || CAST(", a[0], " AS VARCHAR) || ' is out of bounds. The array has "+strconv.Itoa(n)+" elements. Use the SQL function get() to tolerate accessing element at invalid index and return NULL instead. SQLSTATE: 22003') AS VARCHAR) END")
	} else {
		parts = append(parts, " ELSE CAST(NULL AS VARCHAR) END")
	}
	return at(c, tString, cat(parts...))
}

// widthBucketFn is width_bucket(v, min, max, n) as Spark computes it
// over doubles: 0 below the range, n + 1 at or above its end (in the
// direction from min to max), NULL for n <= 0, min = max, NaN or an
// infinite bound.
func widthBucketFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 4, 4) {
		return null(c)
	}
	for i, x := range a {
		if !x.typ.numeric() && !x.typ.is(Null) {
			t.refuse(c.Args[i], "width_bucket runs natively over numbers only")
			return null(c)
		}
	}
	if !a[3].typ.integral() && !a[3].typ.is(Null) {
		t.refuse(c.Args[3], "width_bucket's number of buckets runs natively as an integer only")
		return null(c)
	}
	v, lo, hi := cat("CAST(", a[0], " AS DOUBLE)"), cat("CAST(", a[1], " AS DOUBLE)"), cat("CAST(", a[2], " AS DOUBLE)")
	n := cat("CAST(", a[3], " AS BIGINT)")
	return at(c, tBigInt, cat("CASE WHEN ", v, " IS NULL OR ", lo, " IS NULL OR ", hi, " IS NULL OR ", n, " IS NULL THEN NULL",
		" WHEN ", n, " <= 0 OR ", n, " = 9223372036854775807 OR isnan(", v, ") OR ", lo, " = ", hi, " OR NOT isfinite(", lo, ") OR NOT isfinite(", hi, ") THEN NULL",
		" WHEN ", lo, " < ", hi, " THEN CASE WHEN ", v, " < ", lo, " THEN 0 WHEN ", v, " >= ", hi, " THEN ", n, " + 1 ELSE CAST(trunc(CAST(", n, " AS DOUBLE) * (", v, " - ", lo, ") / (", hi, " - ", lo, ")) AS BIGINT) + 1 END",
		" ELSE CASE WHEN ", v, " > ", lo, " THEN 0 WHEN ", v, " <= ", hi, " THEN ", n, " + 1 ELSE CAST(trunc(CAST(", n, " AS DOUBLE) * (", lo, " - ", v, ") / (", lo, " - ", hi, ")) AS BIGINT) + 1 END END"))
}

// toBinaryFn is to_binary(s[, fmt]) and try_to_binary: hex (the
// default; an odd length takes a leading 0), UTF-8 bytes or base64
// (base64Binary); a malformed hex or base64 string fails (try: NULL).
// fmt must be a constant.
func toBinaryFn(try bool) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		if !t.arity(c, a, 1, 2) {
			return null(c)
		}
		if !a[0].typ.is(String) && !a[0].typ.is(Null) {
			t.refuse(c.Args[0], "%s runs natively over strings only", c.Name.String())
			return null(c)
		}
		format := "hex"
		if len(a) == 2 {
			l, ok := c.Args[1].(*ast.Literal)
			switch {
			case ok && l.Kind == ast.LitNull:
				return at(c, tBinary, cat("CAST(NULL AS BLOB)"))
			case !ok || l.Kind != ast.LitString:
				t.refuse(c.Args[1], "the format of %s runs natively as a string constant only", c.Name.String())
				return null(c)
			}
			format = strings.ToLower(l.Str.Value)
		}
		s := a[0]
		switch format {
		case "hex":
			bad := "NULL"
			if !try {
				bad = "CAST(error('[CONVERSION_INVALID_INPUT] The value ''' || " + s.s + " || ''' (\"STRING\") cannot be converted to \"BINARY\" because it is malformed. Correct the value as per the syntax, or change its format. Use `try_to_binary` to tolerate malformed input and return NULL instead. SQLSTATE: 22018') AS BLOB)"
			}
			return at(c, tBinary, cat("CASE WHEN ", s, " IS NULL THEN NULL WHEN regexp_full_match(", s, ", '[0-9a-fA-F]*') THEN unhex(CASE WHEN len(", s, ") % 2 = 1 THEN '0' || ", s, " ELSE ", s, " END) ELSE "+bad+" END"))
		case "utf-8", "utf8":
			return at(c, tBinary, cat("encode(", s, ")"))
		case "base64":
			return at(c, tBinary, t.base64Binary(c, s, try))
		}
		if try {
			return at(c, tBinary, cat("CAST(NULL AS BLOB)"))
		}
		t.typeError(c.Args[1], "INVALID_PARAMETER_VALUE.BINARY_FORMAT", "The value of parameter(s) `format` in `to_binary` is invalid: expects one of binary formats 'base64', 'hex', 'utf-8', but got '%s'. SQLSTATE: 22023", format)
		return null(c)
	}
}

// groupingFn is grouping(col): 1 where the row aggregates col away, as
// TINYINT; natively only in the SELECT list or HAVING of a query grouping
// by ROLLUP, CUBE or GROUPING SETS (Spark rejects it elsewhere, DuckDB
// gives 0).
func groupingFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 1, 1) {
		return null(c)
	}
	if !t.analytic {
		t.refuse(c, "grouping() runs natively in the SELECT list or HAVING of a GROUP BY with ROLLUP, CUBE or GROUPING SETS only")
		return null(c)
	}
	return at(c, &Type{Kind: TinyInt}, cat("CAST(grouping(", a[0], ") AS TINYINT)"))
}

// base64Binary decodes s as Spark 4.1.4's to_binary(s, 'base64') does
// (checked on the server): white space (space, tab, CR, LF) between the
// characters is skipped (a form feed is malformed); '=' padding, one or
// two, must end the text (nothing after it, not even white space; the
// data and padding then a multiple of 4);
// without padding any length but 1 more than a multiple of 4 decodes,
// leftover bits dropped; anything else is malformed (NULL for
// try_to_binary, CONVERSION_INVALID_INPUT otherwise). A text whose
// reading is less certain (a vertical tab or separator, a character
// beyond ASCII) fails as not portable.
func (t *tr) base64Binary(c *ast.Call, s frag, try bool) frag {
	bad := "CAST(NULL AS BLOB)"
	if !try {
		bad = `CAST(error('[CONVERSION_INVALID_INPUT] The value ''' || b || ''' (''BASE64'') cannot be converted to "BINARY" because it is malformed. Correct the value as per the syntax, or change its format. Use ` + "`try_to_binary`" + ` to tolerate malformed input and return NULL instead. SQLSTATE: 22018` + markOpen + strconv.Itoa(t.check(c)) + markClose + `') AS BLOB)`
	}
	unsure := `CAST(error('not-portable: to_binary of ''' || b || ''' as base64: Spark may read its white space or characters otherwise` + markOpen + strconv.Itoa(t.check(c)) + markClose + `') AS BLOB)`
	data := `regexp_replace(b, '[ \t\n\r]', '', 'g')`
	body := "CASE WHEN b IS NULL THEN NULL" +
		` WHEN regexp_matches(b, '[\x0b\x1c-\x1f]|[^\x00-\x7f]') THEN ` + unsure +
		" WHEN regexp_matches(b, '=[^=]') THEN " + bad +
		` WHEN regexp_full_match(b, '[A-Za-z0-9+/ \t\n\r]*') THEN CASE WHEN length(` + data + ") % 4 = 1 THEN " + bad +
		" ELSE from_base64(" + data + " || repeat('=', (4 - length(" + data + ") % 4) % 4)) END" +
		` WHEN regexp_full_match(b, '[A-Za-z0-9+/ \t\n\r]*={1,2}') THEN CASE WHEN length(` + data + ") % 4 = 0 THEN from_base64(" + data + ") ELSE " + bad + " END" +
		" ELSE " + bad + " END"
	return cat("list_transform([", s, "], lambda b: "+body+")[1]")
}
