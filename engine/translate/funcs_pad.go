package translate

import "github.com/thund-dev/thund/analysis/sparksql/ast"

// binaryPad translates lpad and rpad where an argument is a BINARY, as
// Spark 4.1 does: a BINARY value padded with a BINARY pad (X'00' by
// default) is a BINARY, padded byte by byte and cut to n bytes (its
// first n, for lpad too), empty for n <= 0 and cut only for an empty
// pad; a BINARY beside a STRING is read as UTF-8 text and padded as a
// string. It reports false when no argument is a BINARY (the string
// translation applies) and true with a refused placeholder when the
// call does not run natively.
func (t *tr) binaryPad(fn string, c *ast.Call, a []frag) (frag, bool) {
	binStr := a[0].typ.is(Binary)
	binPad := len(a) == 3 && a[2].typ.is(Binary)
	if !binStr && !binPad {
		return frag{}, false
	}
	if binStr && (len(a) == 2 || binPad) {
		// Padded in the hexadecimal text, two digits a byte.
		h := cat("hex(", a[0], ")")
		p := cat("'00'")
		if len(a) == 3 {
			p = cat("hex(", a[2], ")")
		}
		n := cat("CAST(", a[1], " AS BIGINT)")
		return at(c, tBinary, cat("CASE WHEN ", n, " <= 0 THEN CASE WHEN ", a[0], " IS NULL OR ", p, " IS NULL THEN NULL ELSE ''::BLOB END",
			" WHEN ", p, " = '' THEN unhex(left(", h, ", CAST(2 * ", n, " AS INTEGER)))",
			" ELSE unhex(system.main."+fn+"(", h, ", CAST(2 * ", n, " AS INTEGER), ", p, ")) END")), true
	}
	if len(a) == 3 && a[2].typ.is(Null) {
		// Spark reads the BINARY as a STRING beside a NULL pad (checked
		// on Spark 4.1.4: typeof(lpad(unhex('aa'), 3, NULL)) is string).
		return at(c, tString, cat("CAST(NULL AS VARCHAR)")), true
	}
	if a[0].typ.is(Null) {
		t.refuse(c, "%s of a BINARY value and a NULL does not run natively", fn)
		return null(c), true
	}
	// One side a STRING: Spark reads the BINARY as UTF-8 text.
	s, pad := a[0], a[2]
	if binStr {
		s = at(c.Args[0], tString, cat("decode(", a[0], ")"))
	}
	if binPad {
		pad = at(c.Args[2], tString, cat("decode(", a[2], ")"))
	}
	return at(c, tString, cat("CASE WHEN ", a[1], " <= 0 THEN CASE WHEN ", s, " IS NULL OR ", pad, " IS NULL THEN NULL ELSE '' END WHEN ", pad, " = '' THEN left(", s, ", ", a[1], ") ELSE system.main."+fn+"(", s, ", ", a[1], ", ", pad, ") END")), true
}
