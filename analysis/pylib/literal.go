package pylib

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Literal is a Python string literal's value, with where each of its
// bytes comes from in the file.
type Literal struct {
	// Value is the string as Python builds it: escapes decoded, implicit
	// concatenation joined, {{ and }} of an f-string halved.
	Value string
	// Loc spans the literal as written, prefixes and quotes included
	// (every piece of an implicit concatenation).
	Loc Span
	// Offsets maps each byte of Value to the file offset of the source
	// character that produced it; it has len(Value)+1 entries, the last
	// one the end of the last piece's content.
	Offsets []int
}

// Contiguous reports whether Value is written as it is, byte for byte, in
// one range of the file (no escape, one piece): its ranges then map back
// by adding Offsets[0].
func (l *Literal) Contiguous() bool {
	if len(l.Offsets) != len(l.Value)+1 {
		return false
	}
	for i := 1; i < len(l.Offsets); i++ {
		if l.Offsets[i] != l.Offsets[i-1]+1 {
			return false
		}
	}
	return true
}

// FileOffset maps a byte offset of Value (0..len(Value)) to the file.
func (l *Literal) FileOffset(i int) int {
	if len(l.Offsets) == 0 {
		return l.Loc.Start
	}
	if i < 0 {
		i = 0
	}
	if i >= len(l.Offsets) {
		i = len(l.Offsets) - 1
	}
	return l.Offsets[i]
}

// literalNode reads a string or concatenated_string node. It reports
// computed (an f-string with a placeholder) and ok=false for anything
// that is not a text literal (bytes, a name, a call...).
func (r *reader) literalNode(n *sitter.Node) (lit Literal, computed, ok bool) {
	if n == nil {
		return Literal{}, false, false
	}
	n = unparen(n)
	var pieces []*sitter.Node
	switch n.Kind() {
	case "string":
		pieces = []*sitter.Node{n}
	case "concatenated_string":
		for i := uint(0); i < n.NamedChildCount(); i++ {
			if c := n.NamedChild(i); c.Kind() == "string" {
				pieces = append(pieces, c)
			}
		}
	case "call":
		if lit, ok := r.strCall(n); ok {
			return lit, false, true
		}
		return r.confValue(n)
	case "binary_operator":
		return r.textSum(n)
	default:
		return Literal{}, false, false
	}
	if len(pieces) == 0 {
		return Literal{}, false, false
	}
	lit.Loc = Span{int(n.StartByte()), int(n.EndByte())}
	var b strings.Builder
	lastEnd := lit.Loc.End
	for _, p := range pieces {
		raw, fmtd, bytesLit := false, false, false
		contentEnd := int(p.EndByte())
		for i := uint(0); i < p.ChildCount(); i++ {
			c := p.Child(i)
			switch c.Kind() {
			case "string_start":
				prefix := strings.ToLower(strings.TrimRight(r.srcOf(c), `'"`))
				raw, fmtd, bytesLit = strings.Contains(prefix, "r"), strings.Contains(prefix, "f"), strings.Contains(prefix, "b")
				if bytesLit {
					return Literal{}, false, false
				}
			case "string_content":
				r.decodeContent(c, raw, fmtd, &b, &lit.Offsets)
			case "interpolation":
				// {t} of a name bound to a literal (a loop's or a factory's
				// value, a module constant) is that literal's text; its
				// bytes map to the placeholder.
				v, ok := r.boundText(c)
				if !ok {
					computed = true
					continue
				}
				b.WriteString(v)
				for range len(v) {
					lit.Offsets = append(lit.Offsets, int(c.StartByte()))
				}
			case "string_end":
				contentEnd = int(c.StartByte())
			}
		}
		if computed {
			return Literal{}, true, false
		}
		lastEnd = contentEnd
	}
	lit.Offsets = append(lit.Offsets, lastEnd)
	lit.Value = b.String()
	if len(lit.Offsets) != len(lit.Value)+1 {
		// Cannot happen: every byte written records its offset.
		lit.Offsets = nil
	}
	return lit, false, true
}

// decodeContent appends a string_content node's value, escapes decoded
// (unless raw), to b, and each byte's file offset to offs.
func (r *reader) decodeContent(c *sitter.Node, raw, fmtd bool, b *strings.Builder, offs *[]int) {
	start, end := int(c.StartByte()), int(c.EndByte())
	emit := func(s string, at int) {
		b.WriteString(s)
		for range len(s) {
			*offs = append(*offs, at)
		}
	}
	i := start
	for i < end {
		ch := r.text[i]
		switch {
		case fmtd && (ch == '{' || ch == '}') && i+1 < end && r.text[i+1] == ch:
			emit(string(ch), i)
			i += 2
		case ch == '\\' && !raw && i+1 < end:
			val, size := decodeEscape(r.text[i:end])
			emit(val, i)
			i += size
		default:
			_, size := utf8.DecodeRuneInString(r.text[i:end])
			for k := 0; k < size; k++ {
				emit(r.text[i+k:i+k+1], i+k)
			}
			i += size
		}
	}
}

// decodeEscape decodes the escape sequence at the start of s (s[0] is a
// backslash): its value and how many bytes it takes. An unknown escape
// keeps its backslash, as Python does.
func decodeEscape(s string) (string, int) {
	if len(s) < 2 {
		return s, len(s)
	}
	switch c := s[1]; c {
	case '\n':
		return "", 2
	case '\r':
		if len(s) > 2 && s[2] == '\n' {
			return "", 3
		}
		return "", 2
	case '\\', '\'', '"':
		return string(c), 2
	case 'a':
		return "\a", 2
	case 'b':
		return "\b", 2
	case 'f':
		return "\f", 2
	case 'n':
		return "\n", 2
	case 'r':
		return "\r", 2
	case 't':
		return "\t", 2
	case 'v':
		return "\v", 2
	case 'x':
		if v, ok := hexRune(s, 2, 2); ok {
			return string(rune(v)), 4
		}
	case 'u':
		if v, ok := hexRune(s, 2, 4); ok {
			return string(rune(v)), 6
		}
	case 'U':
		if v, ok := hexRune(s, 2, 8); ok && v <= utf8.MaxRune {
			return string(rune(v)), 10
		}
	case 'N':
		// \N{NAME}: the name table is not at hand; keep it as written.
		if j := strings.IndexByte(s, '}'); j > 0 {
			return s[:j+1], j + 1
		}
	default:
		if c >= '0' && c <= '7' {
			j := 1
			for j < 4 && j < len(s) && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[1:j], 8, 32)
			return string(rune(v)), j
		}
	}
	_, size := utf8.DecodeRuneInString(s[1:])
	return s[:1+size], 1 + size
}

func hexRune(s string, from, n int) (uint64, bool) {
	if len(s) < from+n {
		return 0, false
	}
	v, err := strconv.ParseUint(s[from:from+n], 16, 32)
	return v, err == nil
}

// Overlay returns a copy of text of the same length in which lit's
// range holds its value at the offsets its bytes come from, and spaces
// elsewhere (quotes, prefixes, the gaps between pieces, the extra bytes of
// escapes). ok is false when those spaces could change what the SQL
// parser reads: when one lands inside a quoted SQL token, or between two
// characters that are not blanks (which it would split). Ranges found in
// the overlay are then ranges of the file.
func Overlay(text string, lit *Literal) (string, bool) {
	if len(lit.Offsets) != len(lit.Value)+1 || lit.Loc.End > len(text) {
		return "", false
	}
	b := []byte(text)
	for i := lit.Loc.Start; i < lit.Loc.End; i++ {
		b[i] = ' '
	}
	state := sqlCode
	for i := 0; i < len(lit.Value); i++ {
		o := lit.Offsets[i]
		if o < lit.Loc.Start || o >= lit.Loc.End || (i > 0 && o <= lit.Offsets[i-1]) {
			return "", false
		}
		if i > 0 && o != lit.Offsets[i-1]+1 {
			// Spaces come between bytes i-1 and i.
			if state != sqlCode && state != sqlLineComment && state != sqlBlockComment {
				return "", false
			}
			if state == sqlCode && !isBlank(lit.Value[i-1]) && !isBlank(lit.Value[i]) {
				return "", false
			}
		}
		b[o] = lit.Value[i]
		state = sqlStep(state, lit.Value, i)
	}
	return string(b), true
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SQL lexer states, enough to know whether a byte is inside a quoted
// token or a comment.
const (
	sqlCode = iota
	sqlSingle
	sqlDouble
	sqlBacktick
	sqlLineComment
	sqlBlockComment
	sqlEscape // after a backslash in a quoted string
)

// sqlStep is the state after reading v[i] in state st. A quote doubled
// inside a string reads as closing and reopening, which lands on the
// same states.
func sqlStep(st int, v string, i int) int {
	c := v[i]
	switch st {
	case sqlCode:
		switch {
		case c == '\'':
			return sqlSingle
		case c == '"':
			return sqlDouble
		case c == '`':
			return sqlBacktick
		case c == '-' && i > 0 && v[i-1] == '-':
			return sqlLineComment
		case c == '*' && i > 0 && v[i-1] == '/':
			return sqlBlockComment
		}
	case sqlSingle, sqlDouble:
		if c == '\\' {
			return sqlEscape*10 + st
		}
		if (st == sqlSingle && c == '\'') || (st == sqlDouble && c == '"') {
			return sqlCode
		}
	case sqlBacktick:
		if c == '`' {
			return sqlCode
		}
	case sqlLineComment:
		if c == '\n' {
			return sqlCode
		}
	case sqlBlockComment:
		if c == '/' && i > 0 && v[i-1] == '*' {
			return sqlCode
		}
	default:
		return st % 10 // the escaped byte: back in the string
	}
	return st
}

// boundText is the text of an f-string placeholder {x} when x is a
// value Thund knows (pyStr: a name bound to a literal, spark.conf.get of
// a key the configuration sets, str(...) of one); boundText follows at
// most a few names, so a constant defined through itself cannot loop.
func (r *reader) boundText(c *sitter.Node) (string, bool) {
	kids := children(c)
	if len(kids) != 1 || r.depth > 8 {
		return "", false
	}
	switch kids[0].Kind() {
	case "identifier", "call", "string", "integer", "float", "binary_operator", "concatenated_string":
	default:
		return "", false
	}
	r.depth++
	defer func() { r.depth-- }()
	return r.pyStr(kids[0])
}

// confValue reads spark.conf.get("key") and spark.conf.get("key",
// "default") as the value the pipeline's configuration gives the key
// (Databricks and SDP set every `configuration:` entry of the pipeline
// on the session before they import its files), else the literal
// default; ok is false for any other call, and for a key the
// configuration does not set and that has no default (Spark fails there
// when the file runs). Every byte of the value maps to the call.
func (r *reader) confValue(n *sitter.Node) (lit Literal, computed, ok bool) {
	fn, args, kw, _, isCall := r.call(n)
	if !isCall || r.dotted(fn) != "spark.conf.get" || len(args) == 0 || len(args) > 2 || len(kw) > 0 || r.depth > 8 {
		return Literal{}, false, false
	}
	r.depth++
	defer func() { r.depth-- }()
	key, kcomputed, kok := r.literalNode(r.constant(args[0]))
	if !kok {
		return Literal{}, kcomputed, false
	}
	val, set := r.conf[key.Value]
	if !set {
		if len(args) < 2 {
			return Literal{}, true, false
		}
		d, dcomputed, dok := r.literalNode(r.constant(args[1]))
		if !dok {
			return Literal{}, dcomputed, false
		}
		val = d.Value
	}
	lit = Literal{Value: val, Loc: span(n)}
	for range len(val) {
		lit.Offsets = append(lit.Offsets, int(n.StartByte()))
	}
	lit.Offsets = append(lit.Offsets, int(n.EndByte()))
	return lit, false, true
}

// textSum reads A + B of two texts Thund knows ("amount > " + str(MIN),
// PREFIX + "_orders"): the joined text, each byte mapped to where it
// comes from.
func (r *reader) textSum(n *sitter.Node) (lit Literal, computed, ok bool) {
	op := n.ChildByFieldName("operator")
	if op == nil || r.srcOf(op) != "+" || r.depth > 8 {
		return Literal{}, false, false
	}
	r.depth++
	defer func() { r.depth-- }()
	a, ca, oka := r.literalNode(r.constant(n.ChildByFieldName("left")))
	if !oka {
		return Literal{}, ca, false
	}
	b, cb, okb := r.literalNode(r.constant(n.ChildByFieldName("right")))
	if !okb {
		return Literal{}, cb, false
	}
	lit = Literal{Value: a.Value + b.Value, Loc: span(n)}
	if len(a.Offsets) == len(a.Value)+1 && len(b.Offsets) == len(b.Value)+1 {
		lit.Offsets = append(append([]int(nil), a.Offsets[:len(a.Value)]...), b.Offsets...)
	}
	return lit, false, true
}

// strCall reads str(x) of a number, a bool or a text Thund knows as the
// text Python's str gives it; every byte maps to the call.
func (r *reader) strCall(n *sitter.Node) (Literal, bool) {
	fn, args, kw, _, ok := r.call(n)
	if !ok || r.srcOf(unparen(fn)) != "str" || len(args) != 1 || len(kw) > 0 || r.depth > 8 {
		return Literal{}, false
	}
	r.depth++
	defer func() { r.depth-- }()
	v, ok := r.pyStr(args[0])
	if !ok {
		return Literal{}, false
	}
	lit := Literal{Value: v, Loc: span(n)}
	for range len(v) {
		lit.Offsets = append(lit.Offsets, int(n.StartByte()))
	}
	lit.Offsets = append(lit.Offsets, int(n.EndByte()))
	return lit, true
}

// pyStr is str(n) for n a value Thund knows: a text, an integer, a float
// Python writes without an exponent, True, False or None.
func (r *reader) pyStr(n *sitter.Node) (string, bool) {
	if u := unparen(r.constant(n)); u != nil && u.Kind() == "identifier" {
		if t, bound := r.bindText[r.srcOf(u)]; bound {
			return t, true
		}
	}
	if v, ok := r.integer(n); ok {
		return strconv.FormatInt(v, 10), true
	}
	c := unparen(r.constant(n))
	if c == nil {
		return "", false
	}
	switch c.Kind() {
	case "true":
		return "True", true
	case "false":
		return "False", true
	case "none":
		return "None", true
	case "float":
		return pyFloat(r.srcOf(c))
	}
	if v, computed, ok := r.literalNode(c); ok && !computed {
		return v.Value, true
	}
	return "", false
}

// pyFloat is Python's str of a float literal, for the values it writes
// in plain decimal (1e-4 <= |x| < 1e16, or 0): the shortest digits that
// read back as the same double, with ".0" when they have no point.
func pyFloat(src string) (string, bool) {
	f, err := strconv.ParseFloat(strings.ReplaceAll(src, "_", ""), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", false
	}
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e16) {
		return "", false
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s, true
}
