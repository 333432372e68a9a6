package translate

import (
	"regexp"
	"strconv"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// regexCanBeEmpty reports whether a regular expression literal can match
// the empty string (Java's and DuckDB's rules for a zero-width match
// differ: the functions counting or placing matches refuse such a
// pattern).
func regexCanBeEmpty(x ast.Expr) bool {
	l, ok := x.(*ast.Literal)
	if !ok || l.Kind != ast.LitString {
		return false
	}
	re, err := regexp.Compile(l.Str.Value)
	return err != nil || re.MatchString("")
}

// regexpArgs checks the string and pattern arguments of regexp_count,
// regexp_substr and regexp_instr: a NULL literal gives NULL (done true),
// a pattern must be a literal RE2 reads as Java does.
func (t *tr) regexpArgs(c *ast.Call, a []frag, empty bool) (re frag, done bool, ok bool) {
	if isNullLit(c.Args[0]) || isNullLit(c.Args[1]) {
		return frag{}, true, true
	}
	if s := a[0].typ; s.known() && !s.is(String) && !s.is(Null) {
		t.refuse(c.Args[0], "%s of a %s does not run natively; cast it to a string", c.Name.String(), s)
		return frag{}, false, false
	}
	if !empty && regexCanBeEmpty(c.Args[1]) {
		t.refuse(c.Args[1], "%s of a pattern that can match the empty string does not run natively (Java counts its empty matches otherwise)", c.Name.String())
		return frag{}, false, false
	}
	before := len(t.res.Findings)
	re = t.regex(c.Args[1])
	return re, false, len(t.res.Findings) == before
}

// regexpCountFn is regexp_count(s, re): the number of non-overlapping
// matches, as INTEGER.
func regexpCountFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 2, 2) {
		return null(c)
	}
	re, done, ok := t.regexpArgs(c, a, false)
	switch {
	case done:
		return at(c, tInt, cat("CAST(NULL AS INTEGER)"))
	case !ok:
		return null(c)
	}
	return at(c, tInt, cat("CAST(len(regexp_extract_all(", a[0], ", ", re, ", 0)) AS INTEGER)"))
}

// regexpSubstrFn is regexp_substr(s, re): the first match, NULL when
// there is none or it is empty (Spark's NullIf(regexp_extract(s, re,
// 0), ”)).
func regexpSubstrFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 2, 2) {
		return null(c)
	}
	re, done, ok := t.regexpArgs(c, a, true)
	switch {
	case done:
		return at(c, tString, cat("CAST(NULL AS VARCHAR)"))
	case !ok:
		return null(c)
	}
	return at(c, tString, cat("nullif(regexp_extract(", a[0], ", ", re, ", 0), '')"))
}

// regexpInstrFn is regexp_instr(s, re[, 0]): the 1-based position of the
// first match's start, 0 when there is none. Java counts the position in
// UTF-16 units: a character outside the Basic Multilingual Plane before
// the match fails as not portable.
func regexpInstrFn(t *tr, c *ast.Call, a []frag) frag {
	if !t.arity(c, a, 2, 3) {
		return null(c)
	}
	if len(a) == 3 {
		if n, ok := intConst(c.Args[2]); !ok || n != 0 {
			t.refuse(c.Args[2], "regexp_instr runs natively with group 0 (the whole match) only")
			return null(c)
		}
	}
	re, done, ok := t.regexpArgs(c, a, false)
	switch {
	case done:
		return at(c, tInt, cat("CAST(NULL AS INTEGER)"))
	case !ok:
		return null(c)
	}
	prefix := "regexp_extract(s, '(?s)^(.*?)(?:' || " + re.s + " || ')', 1)"
	body := "CASE WHEN s IS NULL THEN NULL WHEN NOT regexp_matches(s, " + re.s + ") THEN 0 ELSE list_transform([" + prefix + "], lambda p: CASE WHEN regexp_matches(p, '[\\x{10000}-\\x{10FFFF}]') THEN error('not-portable: regexp_instr counts the characters before the match as Java does, in UTF-16 units" + markOpen + strconv.Itoa(t.check(c)) + markClose + "') ELSE length(p) + 1 END)[1] END"
	return at(c, tInt, cat("CAST(list_transform([", a[0], "], lambda s: "+body+")[1] AS INTEGER)"))
}
