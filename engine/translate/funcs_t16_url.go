package translate

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

var t16URLRegistered = registerT16URLFunctions()

func registerT16URLFunctions() bool {
	for _, f := range []Function{
		custom("parse_url", "the part of a URL of the common forms (scheme://[userinfo@]host[:port]/path?query#fragment, scheme:/path, /path, a relative path), split by a regular expression as java.net.URI splits it; an invalid URL fails (INVALID_URL); a URL of another form fails as not modelled", parseURLFn(false)),
		custom("try_parse_url", "parse_url, NULL for an invalid URL", parseURLFn(true)),
	} {
		replaced := false
		for i := range functions {
			if functions[i].Name == f.Name {
				functions[i], replaced = f, true
			}
		}
		if !replaced {
			functions = append(functions, f)
		}
	}
	return true
}

// The pieces of the URLs parse_url models, in java.net.URI's grammar
// (RFC 2396): a path character (unreserved, escaped, and :@&=+$,;), a
// query or fragment character (the reserved characters but [ and ], the
// unreserved ones, escaped ones), userinfo, a server host (a host name
// whose last label starts with a letter when there are several, or an
// IPv4 address of four octets up to 255) and a port that fits an int.
const (
	urlEsc     = `%[0-9A-Fa-f]{2}`
	urlPChar   = `(?:[A-Za-z0-9\-_.!~*'():@&=+$,;]|` + urlEsc + `)`
	urlQChar   = `(?:[A-Za-z0-9\-_.!~*'();/?:@&=+$,]|` + urlEsc + `)`
	urlUser    = `(?:[A-Za-z0-9\-_.!~*'();:&=+$,]|` + urlEsc + `)*`
	urlLabel   = `[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?`
	urlALabel  = `[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?`
	urlOctet   = `(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])`
	urlHost    = `(?:` + urlLabel + `\.?|(?:` + urlLabel + `\.)+` + urlALabel + `\.?|` + urlOctet + `\.` + urlOctet + `\.` + urlOctet + `\.` + urlOctet + `)`
	urlScheme  = `(?:([A-Za-z][A-Za-z0-9+.\-]*):)?`
	urlTail    = `(\?` + urlQChar + `*)?(#` + urlQChar + `*)?`
	urlPathAbs = `(/(?:` + urlPChar + `+(?:/` + urlPChar + `*)*)?)`
	// urlWithAuthority: 1 scheme, 2 authority, 3 userinfo@, 4 host,
	// 5 path, 6 ?query, 7 #fragment (DuckDB's regexp_extract takes groups
	// up to 9).
	urlWithAuthority = urlScheme + `//((` + urlUser + `@)?(` + urlHost + `)(?::[0-9]{0,9})?)((?:/` + urlPChar + `*)*)` + urlTail
	// urlNoAuthority: 1 scheme, 2 path, 3 ?query, 4 #fragment.
	urlNoAuthority = urlScheme + urlPathAbs + urlTail
	// urlRelative, a relative reference (no scheme, a path not starting
	// with /, possibly empty; no : in its first segment): 1 path,
	// 2 ?query, 3 #fragment.
	urlRelative = `((?:(?:[A-Za-z0-9\-_.!~*'()@&=+$,;]|` + urlEsc + `)+(?:/` + urlPChar + `*)*)?)` + urlTail
	// urlInvalid finds what java.net.URI rejects wherever it stands: a
	// space, a control character, one of "<>\^`{|}, a % not followed by
	// two hex digits, a second #.
	urlInvalid = `[\x00-\x20"<>\\^` + "`" + `{|}\x7f]|%(?:[^0-9A-Fa-f]|[0-9A-Fa-f][^0-9A-Fa-f]|[0-9A-Fa-f]?$)|#.*#`
)

// urlParts are the parts parse_url extracts, by the groups of
// urlWithAuthority and urlNoAuthority that hold them (-1: none), and how
// the group gives the part: urlRaw as it is, urlOrNull NULL when empty
// (the group did not match), urlDropFirst and urlDropLast without the ?
// or # before it or the @ after it, NULL when empty.
var urlParts = map[string][3][2]int{
	"HOST":      {{4, urlRaw}, {-1, 0}, {-1, 0}},
	"PATH":      {{5, urlRaw}, {2, urlRaw}, {1, urlRaw}},
	"QUERY":     {{6, urlDropFirst}, {3, urlDropFirst}, {2, urlDropFirst}},
	"REF":       {{7, urlDropFirst}, {4, urlDropFirst}, {3, urlDropFirst}},
	"PROTOCOL":  {{1, urlOrNull}, {1, urlOrNull}, {-1, 0}},
	"AUTHORITY": {{2, urlRaw}, {-1, 0}, {-1, 0}},
	"USERINFO":  {{3, urlDropLast}, {-1, 0}, {-1, 0}},
}

const (
	urlRaw = iota
	urlOrNull
	urlDropFirst
	urlDropLast
)

// parseURLFn translates parse_url(url, part[, key]) and try_parse_url.
// Spark parses the URL with java.net.URI and takes the raw part (a
// QUERY with a key: the value of the first key=value of the query, by
// the Java regular expression (&|^)key=([^&]*)). Here the URL is split
// by a regular expression of java.net.URI's grammar for the forms
// scheme://[userinfo@]host[:port][/path][?query][#fragment],
// [scheme:]/path[?query][#fragment]; a URL with a character java.net.URI
// rejects anywhere is invalid (INVALID_URL, or NULL for try_parse_url
// and without ANSI mode); any other URL (an IPv6 host, a registry-based
// authority, an opaque URI such as mailto:x, a relative path, non-ASCII
// characters) is not modelled: a constant one is refused, a column's
// value fails when the row is read. The part and the key must be
// constants.
func parseURLFn(try bool) func(t *tr, c *ast.Call, a []frag) frag {
	return func(t *tr, c *ast.Call, a []frag) frag {
		name := strings.ToLower(c.Name.String())
		if len(a) < 2 || len(a) > 3 {
			t.typeError(c, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "The `%s` requires [2, 3] parameters but the actual number is %d. Please, refer to '%s/sql-ref-functions.html' for a fix. SQLSTATE: 42605", name, len(a), "https://spark.apache.org/docs/latest")
			return null(c)
		}
		for i, x := range a {
			if x.typ.known() && !x.typ.is(String) && !x.typ.is(Null) {
				// Checked on Spark 4.1.4: parse_url(1, 'HOST') fails.
				t.typeError(c, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve \"%s\" due to data type mismatch: The %s parameter requires the \"STRING\" type, however \"%s\" has the type \"%s\". SQLSTATE: 42K09",
					t.text(c), ordinalWord(i+1), t.text(c.Args[i]), strings.ToUpper(x.typ.String()))
				return null(c)
			}
		}
		part, ok := stringConst(c.Args[1])
		if !ok {
			if isNullLit(c.Args[1]) {
				return at(c, tString, cat("CAST(NULL AS VARCHAR)"))
			}
			t.refuse(c.Args[1], "%s's part runs natively as a string literal only", name)
			return null(c)
		}
		key := ""
		if len(a) == 3 {
			if isNullLit(c.Args[2]) {
				return at(c, tString, cat("CAST(NULL AS VARCHAR)"))
			}
			k, ok := stringConst(c.Args[2])
			if !ok {
				t.refuse(c.Args[2], "%s's key runs natively as a string literal only", name)
				return null(c)
			}
			if strings.ContainsAny(k, `\^$.|?*+()[]{}`) {
				t.refuse(c.Args[2], "%s's key is a Java regular expression on Spark; a key with one of \\^$.|?*+()[]{} does not run natively", name)
				return null(c)
			}
			if part != "QUERY" {
				// Spark returns NULL before it parses the URL.
				return at(c, tString, cat("CAST(NULL AS VARCHAR)"))
			}
			key = k
		}
		u := a[0]
		if s, ok := stringConst(c.Args[0]); ok && !urlModelled(s) && !urlInvalidRE.MatchString(s) {
			t.refuse(c.Args[0], "%s of this URL does not run natively: Thund splits URLs of the forms scheme://[userinfo@]host[:port]/path?query#fragment and [scheme:]/path?query#fragment only, as java.net.URI does", name)
			return null(c)
		}
		pick := func(re string, g [2]int) string {
			if g[0] < 0 {
				return "CAST(NULL AS VARCHAR)"
			}
			val := "regexp_extract(x, " + quoteString("^"+re+"$") + ", " + itoa(g[0]) + ")"
			switch g[1] {
			case urlOrNull:
				return "nullif(" + val + ", '')"
			case urlDropFirst:
				return "nullif(" + val + ", '')[2:]"
			case urlDropLast:
				return "nullif(" + val + ", '')[:-2]"
			}
			return val
		}
		extract := func(re string, which int) string {
			if part == "FILE" {
				p := urlParts["PATH"][which]
				q := urlParts["QUERY"][which]
				return "(" + pick(re, p) + " || coalesce('?' || " + pick(re, q) + ", ''))"
			}
			g, ok := urlParts[part]
			if !ok {
				return "CAST(NULL AS VARCHAR)"
			}
			return pick(re, g[which])
		}
		body := "CASE WHEN x IS NULL THEN NULL" +
			" WHEN regexp_full_match(x, " + quoteString(urlWithAuthority) + ") THEN " + extract(urlWithAuthority, 0) +
			" WHEN regexp_full_match(x, " + quoteString(urlNoAuthority) + ") THEN " + extract(urlNoAuthority, 1) +
			" WHEN regexp_full_match(x, " + quoteString(urlRelative) + ") THEN " + extract(urlRelative, 2) +
			" WHEN regexp_matches(x, " + quoteString(urlInvalid) + ") THEN "
		if try || !t.ansi() {
			body += "CAST(NULL AS VARCHAR)"
		} else {
			body += "CAST(error('[INVALID_URL] The url is invalid: ' || x || '. Use `try_parse_url` to tolerate invalid URL and return NULL instead. SQLSTATE: 22P02') AS VARCHAR)"
		}
		body += " ELSE CAST(error('" + name + " of ''' || x || ''' does not run natively: Thund splits URLs of the forms scheme://[userinfo@]host[:port]/path?query#fragment and [scheme:]/path?query#fragment only, as java.net.URI does') AS VARCHAR) END"
		out := "list_transform([CAST(" + "§" + " AS VARCHAR)], lambda x: " + body + ")[1]"
		if key != "" {
			kre := quoteString("(&|^)" + key + "=([^&]*)")
			out = "list_transform([" + out + "], lambda q: CASE WHEN regexp_matches(q, " + kre + ") THEN regexp_extract(q, " + kre + ", 2) ELSE NULL END)[1]"
		}
		before, after, _ := strings.Cut(out, "§")
		return at(c, tString, cat(before, u, after))
	}
}

// stringConst returns the value of a string literal.
func stringConst(x ast.Expr) (string, bool) {
	l, ok := x.(*ast.Literal)
	if !ok || l.Kind != ast.LitString {
		return "", false
	}
	return l.Str.Value, true
}

var (
	urlWithAuthorityRE = regexp.MustCompile("^" + urlWithAuthority + "$")
	urlNoAuthorityRE   = regexp.MustCompile("^" + urlNoAuthority + "$")
	urlRelativeRE      = regexp.MustCompile("^" + urlRelative + "$")
	urlInvalidRE       = regexp.MustCompile(urlInvalid)
)

// urlModelled reports a URL of the forms parse_url splits.
func urlModelled(s string) bool {
	return urlWithAuthorityRE.MatchString(s) || urlNoAuthorityRE.MatchString(s) || urlRelativeRE.MatchString(s)
}

func itoa(n int) string { return strconv.Itoa(n) }
