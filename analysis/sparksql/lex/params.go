package lex

import (
	"regexp"
	"sort"
	"strings"
)

// Pipeline parameters.
//
// Before Spark's parser sees a text, Spark substitutes variables into it
// (its VariableSubstitution, on while spark.sql.variable.substitute is
// true, the default), wherever they appear: in names, inside string
// literals, in comments. A pipeline's `configuration:` values are Spark
// settings, so SQL written for a pipeline refers to them as ${key}. The
// forms, as Spark 4.1.4 reads them (checked on the server):
//
//	${key}                the setting key; a key no one set reads as ""
//	${spark:key}          the same, as do the prefixes sparkconf, hivevar
//	                      and hiveconf
//	${env:NAME}           the server's environment variable NAME, left as
//	                      written when it has none
//	${system:name}        the server JVM's system property
//	${other:key}          any other prefix: left as written
//
// A reference is a dollar, a brace, an optional prefix of word characters
// and a colon, then at least one character up to the first closing brace,
// with no white space in it (Spark's pattern \$\{(?:(\w+?):)?(\S+?)\}):
// ${ key} and ${} are not references. A value is substituted in turn (a
// key whose value refers to itself is Spark's "Circular reference"
// error), the substituted text is not scanned again, and a setting whose
// name or value matches Spark's redaction patterns (url, secret,
// password, token, access key or accesskey, in any case) reads as
// "*********(redacted)".
//
// LexParams lexes the substituted text and gives every token the range of
// the text as written it comes from: a token inside a value covers the
// whole ${key}, a token partly written and partly substituted
// (${prefix}_orders) covers both, so every diagnostic, hover and
// definition lands on what the user wrote.

// ParamKind says what Spark substitutes for a reference.
type ParamKind uint8

// The kinds of reference.
const (
	// ParamSet is a key the pipeline sets: its value is substituted.
	ParamSet ParamKind = iota
	// ParamUnset is a key nothing sets: Spark substitutes "".
	ParamUnset
	// ParamRedacted is a setting whose name or value matches Spark's
	// redaction patterns: Spark substitutes RedactedValue.
	ParamRedacted
	// ParamServer is ${env:...} or ${system:...}: the Spark server's
	// environment or JVM property, which Thund cannot know; the
	// reference is left as written.
	ParamServer
	// ParamCircular is a key whose value refers back to itself, which
	// Spark refuses; the reference is left as written.
	ParamCircular
	// ParamForeign is a reference with a prefix Spark does not bind
	// (${foo:x}): Spark leaves it as written, and so does Thund.
	ParamForeign
)

// RedactedValue is what Spark substitutes for a redacted setting.
const RedactedValue = "*********(redacted)"

// Param is one ${...} reference of a text lexed by LexParams.
type Param struct {
	// Start and End are the reference as written, ${...}, as offsets
	// into the lexed text.
	Start, End int
	// Prefix is the prefix before the colon ("" for none); Key the name.
	Prefix, Key string
	// Kind says what is substituted; Value is that text (for ParamServer,
	// ParamCircular and ParamForeign, the reference as written).
	Kind  ParamKind
	Value string
}

// IsProblem reports whether the reference is surely not what its author
// meant on Spark: an unset key, a redacted value, a value Thund cannot
// know, or a circular one.
func (p Param) IsProblem() bool { return p.Kind != ParamSet && p.Kind != ParamForeign }

// boundPrefixes are the prefixes Spark's VariableSubstitution binds to its
// settings.
var boundPrefixes = map[string]bool{"": true, "spark": true, "sparkconf": true, "hivevar": true, "hiveconf": true}

// redaction is Spark 4.1's default redaction of substituted settings
// (spark.sql.redaction.options.regex, then spark.redaction.regex), matched
// against the key and the value.
var redaction = regexp.MustCompile(`(?i)url|secret|password|token|access[.]?key`)

// SubstitutionOff reports whether vars switch Spark's substitution off
// (spark.sql.variable.substitute set to false).
func SubstitutionOff(vars map[string]string) bool {
	v, ok := vars["spark.sql.variable.substitute"]
	return ok && strings.EqualFold(strings.TrimSpace(v), "false")
}

// matchRef matches Spark's reference pattern at s[i:], which starts with
// "${": it returns the end of the reference, its prefix and its key, or
// end -1 when no reference starts there.
func matchRef(s string, i int) (end int, prefix, key string) {
	p := i + 2
	// With a prefix: word characters, then a colon, then the key.
	w := p
	for w < len(s) && isWordChar(s[w]) {
		w++
	}
	if w > p && w < len(s) && s[w] == ':' {
		if e := keyEnd(s, w+1); e > 0 {
			return e + 1, s[p:w], s[w+1 : e]
		}
	}
	if e := keyEnd(s, p); e > 0 {
		return e + 1, "", s[p:e]
	}
	return -1, "", ""
}

// keyEnd returns the index of the closing brace of a key starting at p:
// the first '}' after at least one character, with no white space before
// it; -1 if there is none.
func keyEnd(s string, p int) int {
	for j := p; j < len(s); j++ {
		c := s[j]
		if isJavaSpace(c) {
			return -1
		}
		if c == '}' && j > p {
			return j
		}
	}
	return -1
}

// isWordChar is Java's \w: an ASCII letter, digit or underscore.
func isWordChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// isJavaSpace is Java's \s: space, \t, \n, \v, \f and \r.
func isJavaSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// resolve returns what Spark substitutes for a reference, and its kind.
// used are the references being substituted (for circular values).
func resolve(prefix, key, asWritten string, vars map[string]string, used []string) (string, ParamKind) {
	switch {
	case prefix == "env" || prefix == "system":
		return asWritten, ParamServer
	case !boundPrefixes[prefix]:
		return asWritten, ParamForeign
	}
	ref := key
	if prefix != "" {
		ref = prefix + ":" + key
	}
	for _, u := range used {
		if u == ref {
			return asWritten, ParamCircular
		}
	}
	v, ok := vars[key]
	if !ok {
		return "", ParamUnset
	}
	if redaction.MatchString(key) || redaction.MatchString(v) {
		return RedactedValue, ParamRedacted
	}
	if !strings.Contains(v, "${") {
		return v, ParamSet
	}
	var b strings.Builder
	kind := ParamSet
	used = append(used, ref)
	for i := 0; i < len(v); {
		j := strings.Index(v[i:], "${")
		if j < 0 {
			b.WriteString(v[i:])
			break
		}
		j += i
		b.WriteString(v[i:j])
		end, p, k := matchRef(v, j)
		if end < 0 {
			b.WriteString("${")
			i = j + 2
			continue
		}
		sub, sk := resolve(p, k, v[j:end], vars, used)
		if sk == ParamCircular {
			return asWritten, ParamCircular
		}
		if sk != ParamSet && sk != ParamForeign && kind == ParamSet {
			kind = sk
		}
		b.WriteString(sub)
		i = end
	}
	return b.String(), kind
}

// Substitute returns s with every reference substituted as Spark
// substitutes it (see LexParams), or s itself when it has none or vars
// switch substitution off.
func Substitute(s string, vars map[string]string) string {
	if !strings.Contains(s, "${") || SubstitutionOff(vars) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "${")
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		j += i
		b.WriteString(s[i:j])
		end, prefix, key := matchRef(s, j)
		if end < 0 {
			b.WriteString("${")
			i = j + 2
			continue
		}
		v, _ := resolve(prefix, key, s[j:end], vars, nil)
		b.WriteString(v)
		i = end
	}
	return b.String()
}

// ParamAt returns the reference of src that covers offset off, with what
// Spark substitutes for it, for an editor's hover; false when off is in
// none.
func ParamAt(src string, off int, vars map[string]string) (Param, bool) {
	if SubstitutionOff(vars) || off < 0 || off > len(src) {
		return Param{}, false
	}
	from := max(0, off-256)
	for {
		j := strings.Index(src[from:], "${")
		if j < 0 || from+j > off {
			return Param{}, false
		}
		j += from
		end, prefix, key := matchRef(src, j)
		if end < 0 {
			from = j + 2
			continue
		}
		if off < end {
			v, kind := resolve(prefix, key, src[j:end], vars, nil)
			return Param{Start: j, End: end, Prefix: prefix, Key: key, Kind: kind, Value: v}, true
		}
		from = end
	}
}

// segment is a stretch of the substituted text: text[s:s+n] comes from
// the text as written at [o, o+n) when !value, and is (part of) the value
// of the reference written at [o, oEnd) when value.
type segment struct {
	s, n, o, oEnd int
	value         bool
}

// LexParams is LexInto for a text in which Spark substitutes pipeline
// parameters (see the package documentation above): it appends to dst the
// tokens of src[start:end] after substitution with vars, each with the
// range of the text as written it comes from and the substituted text as
// its Text, and returns the references found, in order. Tokens keep their
// order; tokens from one reference share its range. Without a reference
// in src[start:end], or when vars switch substitution off, it is LexInto
// and returns no references.
func LexParams(dst []Token, src string, start, end int, vars map[string]string) ([]Token, []Param) {
	if !strings.Contains(src[start:end], "${") || SubstitutionOff(vars) {
		return LexInto(dst, src, start, end), nil
	}
	var b strings.Builder
	b.Grow(end - start + 16)
	var segs []segment
	var params []Param
	lit := func(from, to int) {
		if to > from {
			segs = append(segs, segment{s: b.Len(), n: to - from, o: from})
			b.WriteString(src[from:to])
		}
	}
	i := start
	for i < end {
		j := strings.Index(src[i:end], "${")
		if j < 0 {
			break
		}
		j += i
		e, prefix, key := matchRef(src[:end], j)
		if e < 0 {
			lit(i, j+2)
			i = j + 2
			continue
		}
		lit(i, j)
		v, kind := resolve(prefix, key, src[j:e], vars, nil)
		params = append(params, Param{Start: j, End: e, Prefix: prefix, Key: key, Kind: kind, Value: v})
		if v != "" {
			segs = append(segs, segment{s: b.Len(), n: len(v), o: j, oEnd: e, value: true})
			b.WriteString(v)
		}
		i = e
	}
	lit(i, end)
	text := b.String()
	l := lexer{src: text, toks: dst}
	first := len(dst)
	for l.pos < len(text) {
		l.next()
	}
	toks := l.toks
	for k := first; k < len(toks); k++ {
		t := &toks[k]
		t.Start, t.End = origStart(segs, t.Start), origEnd(segs, t.End)
	}
	return toks, params
}

// find returns the segment holding byte p of the substituted text.
func find(segs []segment, p int) segment {
	k := sort.Search(len(segs), func(k int) bool { return segs[k].s+segs[k].n > p })
	return segs[min(k, len(segs)-1)]
}

// origStart maps the start of a token in the substituted text to the text
// as written.
func origStart(segs []segment, p int) int {
	g := find(segs, p)
	if g.value {
		return g.o
	}
	return g.o + p - g.s
}

// origEnd maps the end of a token (p, its last byte's offset plus one)
// in the substituted text to the text as written.
func origEnd(segs []segment, p int) int {
	g := find(segs, p-1)
	if g.value {
		return g.oEnd
	}
	return g.o + p - g.s
}
