package translate

import (
	"regexp"
	"strconv"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// splitLimit is split(s, re, n) for a literal n > 0, as Java's
// String.split(re, n) gives it: at most n pieces, the last holding the
// rest of s after the (n - 1)-th match (delimiters included). An empty
// re splits into characters, the n-th piece holding the rest. A pattern
// that can match the empty string (where Java's rules for a zero-width
// match differ) is refused.
func (t *tr) splitLimit(c *ast.Call, a []frag, n int64) frag {
	s := a[0]
	l, ok := c.Args[1].(*ast.Literal)
	if ok && l.Kind == ast.LitString && l.Str.Value == "" {
		if n == 1 {
			return at(c, arrayOf(tString), cat("CASE WHEN ", s, " IS NULL THEN NULL ELSE [", s, "] END"))
		}
		k := strconv.FormatInt(n-1, 10)
		return at(c, arrayOf(tString), cat("list_transform([", s, "], lambda s: CASE WHEN length(s) <= "+k+" + 1 THEN CASE WHEN s = '' THEN [''] ELSE string_split(s, '') END ELSE list_concat(string_split(left(s, "+k+"), ''), [substr(s, "+k+" + 1)]) END)[1]"))
	}
	re := t.regex(c.Args[1])
	if !ok || l.Kind != ast.LitString {
		return null(c)
	}
	if g, err := regexp.Compile(l.Str.Value); err != nil || g.MatchString("") {
		t.refuse(c.Args[1], "split with a limit runs natively for a pattern that cannot match the empty string only")
		return null(c)
	}
	if n == 1 {
		return at(c, arrayOf(tString), cat("CASE WHEN ", s, " IS NULL THEN NULL ELSE [", s, "] END"))
	}
	k := strconv.FormatInt(n-1, 10)
	// The rest: what follows the (n - 1)-th match, each match the
	// leftmost after the one before (lazy prefixes).
	tail := "regexp_extract(s, '(?s)^(?:.*?(?:' || " + re.s + " || ')){" + k + "}(.*)$', 1)"
	body := "CASE WHEN s IS NULL THEN NULL ELSE list_transform([regexp_split_to_array(s, " + re.s + ")], lambda p: CASE WHEN len(p) <= " + k + " + 1 THEN p ELSE list_concat(p[1:" + k + "], [" + tail + "]) END)[1] END"
	return at(c, arrayOf(tString), cat("list_transform([", s, "], lambda s: "+body+")[1]"))
}
