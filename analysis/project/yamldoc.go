package project

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/thund-dev/thund/internal/editdist"
	"github.com/thund-dev/thund/ir"
	"go.yaml.in/yaml/v3"
)

// doc is one YAML file being read: its text made safe for the YAML parser,
// the line table that turns yaml.Node positions into byte offsets, and the
// diagnostics found so far.
type doc struct {
	file  string
	code  ir.Code // code for syntax and type errors (spec or config)
	text  []byte
	bom   int   // length of a leading UTF-8 byte order mark
	lines []int // byte offset where each line starts, as the YAML scanner splits lines
	diags []ir.Diagnostic
	// failed is set when the text could not be parsed at all.
	failed bool
}

// newDoc prepares text for parsing. Bytes that are not valid UTF-8 are
// replaced, one for one, by '?' so that offsets stay those of the original
// file; the first one is reported.
func newDoc(file string, code ir.Code, text []byte) *doc {
	d := &doc{file: file, code: code, text: text}
	if bad := firstInvalidUTF8(text); bad >= 0 {
		orig := text[bad]
		clean := make([]byte, len(text))
		copy(clean, text)
		for i := 0; i < len(clean); {
			r, size := utf8.DecodeRune(clean[i:])
			if r == utf8.RuneError && size <= 1 {
				clean[i] = '?'
				i++
				continue
			}
			i += size
		}
		d.text = clean
		d.add(ir.Error, ir.CodeFileEncoding, d.span(bad, bad+1),
			fmt.Sprintf("%s is not valid UTF-8 (byte 0x%02x at offset %d); save the file as UTF-8", file, orig, bad))
	}
	text = d.text
	if bytes.HasPrefix(text, []byte("\xef\xbb\xbf")) {
		d.bom = 3
	}
	d.lines = yamlLineStarts(text)
	return d
}

// firstInvalidUTF8 returns the offset of the first byte of text that is not
// part of a valid UTF-8 sequence, or -1.
func firstInvalidUTF8(text []byte) int {
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

// yamlLineStarts splits text into lines the way the YAML scanner counts
// them: CRLF, CR, LF, and also NEL (U+0085), LS (U+2028) and PS (U+2029).
func yamlLineStarts(text []byte) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		case 0xC2:
			if i+1 < len(text) && text[i+1] == 0x85 {
				i++
				starts = append(starts, i+1)
			}
		case 0xE2:
			if i+2 < len(text) && text[i+1] == 0x80 && (text[i+2] == 0xA8 || text[i+2] == 0xA9) {
				i += 2
				starts = append(starts, i+1)
			}
		}
	}
	return starts
}

// lineBounds returns the byte range of line l's content (zero-based, line
// break excluded), clamped to the text.
func (d *doc) lineBounds(l int) (int, int) {
	if l < 0 {
		l = 0
	}
	if l >= len(d.lines) {
		l = len(d.lines) - 1
	}
	start := d.lines[l]
	if l == 0 {
		start = d.bom
	}
	end := len(d.text)
	if l+1 < len(d.lines) {
		end = d.lines[l+1]
		// Step back over the line break that ends the line.
		switch {
		case end >= 2 && d.text[end-2] == '\r' && d.text[end-1] == '\n':
			end -= 2
		case end >= 1 && (d.text[end-1] == '\n' || d.text[end-1] == '\r'):
			end--
		case end >= 2 && d.text[end-2] == 0xC2 && d.text[end-1] == 0x85:
			end -= 2
		case end >= 3 && d.text[end-3] == 0xE2:
			end -= 3
		}
	}
	if end < start {
		end = start
	}
	return start, end
}

// offset converts a yaml.Node position (1-based line, 1-based column
// counted in characters, the byte order mark not counted) to a byte
// offset.
func (d *doc) offset(line, col int) int {
	if line < 1 {
		return d.bom
	}
	start, end := d.lineBounds(line - 1)
	off := start
	for c := 1; c < col && off < end; c++ {
		_, size := utf8.DecodeRune(d.text[off:end])
		off += size
	}
	return off
}

// span builds a location, clamped to the text.
func (d *doc) span(start, end int) ir.Loc {
	n := len(d.text)
	start = min(max(start, 0), n)
	end = min(max(end, start), n)
	return ir.Loc{File: d.file, Start: start, End: end}
}

// add records a diagnostic.
func (d *doc) add(sev ir.Severity, code ir.Code, loc ir.Loc, msg string) {
	d.diags = append(d.diags, ir.Diagnostic{Loc: loc, Severity: sev, Code: code, Message: msg})
}

// errorf records an error of the document's own code at loc.
func (d *doc) errorf(loc ir.Loc, format string, args ...any) {
	d.add(ir.Error, d.code, loc, fmt.Sprintf(format, args...))
}

// startLoc is an empty location at the start of the content (after a BOM).
func (d *doc) startLoc() ir.Loc { return d.span(d.bom, d.bom) }

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 64; i++ {
		n = n.Alias
	}
	return n
}

// at returns the location of node n as written: a scalar's text (quotes
// included), an alias's `*name`, a flow collection up to its closing
// bracket, or the first line of a block collection or block scalar.
func (d *doc) at(n *yaml.Node) ir.Loc {
	if n == nil || n.Line == 0 {
		return d.startLoc()
	}
	start := d.offset(n.Line, n.Column)
	_, lineEnd := d.lineBounds(n.Line - 1)
	p := d.skipProperties(start, lineEnd)
	var end int
	switch {
	case n.Kind == yaml.AliasNode:
		end = d.scanAnchor(p+1, lineEnd)
	case n.Kind == yaml.ScalarNode:
		end = d.scalarEnd(n, p, lineEnd)
	case p < len(d.text) && (d.text[p] == '[' || d.text[p] == '{'):
		end = d.flowEnd(p)
	default:
		end = d.trimLine(p, lineEnd)
	}
	if end < p {
		end = p
	}
	return d.span(start, end)
}

// skipProperties steps over a node's tag (`!!str`) and anchor (`&a`) and
// the blanks after them, returning where the node's content begins.
func (d *doc) skipProperties(p, lineEnd int) int {
	for p < lineEnd && (d.text[p] == '!' || d.text[p] == '&') {
		q := p
		for q < lineEnd && !isBlank(d.text[q]) {
			q++
		}
		for q < lineEnd && isBlank(d.text[q]) {
			q++
		}
		if q >= lineEnd {
			// Content on a later line: keep the properties as the range.
			return p
		}
		p = q
	}
	return p
}

func isBlank(b byte) bool { return b == ' ' || b == '\t' }

// scanAnchor returns where an anchor or alias name starting at p ends.
func (d *doc) scanAnchor(p, lineEnd int) int {
	for p < lineEnd && !isBlank(d.text[p]) && !strings.ContainsRune(",[]{}", rune(d.text[p])) {
		p++
	}
	return p
}

// scalarEnd returns where the scalar n, whose text starts at p, ends.
func (d *doc) scalarEnd(n *yaml.Node, p, lineEnd int) int {
	if p >= len(d.text) {
		return p
	}
	switch d.text[p] {
	case '"':
		for q := p + 1; q < len(d.text); q++ {
			switch d.text[q] {
			case '\\':
				q++
			case '"':
				return q + 1
			}
		}
		return len(d.text)
	case '\'':
		for q := p + 1; q < len(d.text); q++ {
			if d.text[q] == '\'' {
				if q+1 < len(d.text) && d.text[q+1] == '\'' {
					q++
					continue
				}
				return q + 1
			}
		}
		return len(d.text)
	case '|', '>':
		return d.trimLine(p, lineEnd)
	}
	if n.Value == "" {
		return p
	}
	if bytes.HasPrefix(d.text[p:], []byte(n.Value)) {
		return p + len(n.Value)
	}
	// A plain scalar folded over several lines: its first line.
	return d.trimLine(p, lineEnd)
}

// trimLine returns the end of the text from p to lineEnd, without a
// trailing comment or blanks.
func (d *doc) trimLine(p, lineEnd int) int {
	end := lineEnd
	for q := p; q < lineEnd; q++ {
		if d.text[q] == '#' && q > p && isBlank(d.text[q-1]) {
			end = q
			break
		}
	}
	for end > p && isBlank(d.text[end-1]) {
		end--
	}
	return end
}

// flowEnd returns the offset just after the bracket closing the flow
// collection that opens at p (or the end of text).
func (d *doc) flowEnd(p int) int {
	depth := 0
	for q := p; q < len(d.text); q++ {
		switch d.text[q] {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return q + 1
			}
		case '"':
			for q++; q < len(d.text) && d.text[q] != '"'; q++ {
				if d.text[q] == '\\' {
					q++
				}
			}
		case '\'':
			for q++; q < len(d.text) && d.text[q] != '\''; q++ {
			}
		case '#':
			if q > 0 && isBlank(d.text[q-1]) {
				for q < len(d.text) && d.text[q] != '\n' && d.text[q] != '\r' {
					q++
				}
			}
		}
	}
	return len(d.text)
}

// valueLoc is where a key's value is reported: the value itself, or the
// key when the value is empty (so the range is never zero-width).
func (d *doc) valueLoc(key, val *yaml.Node) ir.Loc {
	if val == nil || (val.Kind == yaml.ScalarNode && val.Tag == "!!null" && val.Value == "") {
		return d.at(key)
	}
	return d.at(val)
}

// parse reads the single YAML document of the text and returns its top
// node (nil for an empty file). Syntax errors become diagnostics.
func (d *doc) parse() (root *yaml.Node) {
	defer func() {
		if r := recover(); r != nil {
			d.failed = true
			root = nil
			d.errorf(d.startLoc(), "%s could not be read as YAML (%v); check its syntax", d.file, r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(d.text))
	var top yaml.Node
	if err := dec.Decode(&top); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		d.failed = true
		d.syntaxError(err)
		return nil
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		d.errorf(d.documentMarker(next.Line), "%s holds more than one YAML document; SDP and thund read a single one: remove the `---` line and what follows, or merge the documents", d.file)
	case !errors.Is(err, io.EOF):
		d.syntaxError(err)
	}
	if top.Kind == yaml.DocumentNode {
		if len(top.Content) == 0 {
			return nil
		}
		return top.Content[0]
	}
	return &top
}

// documentMarker locates the `---` line that starts the document at line
// (1-based), searching backwards from it.
func (d *doc) documentMarker(line int) ir.Loc {
	for l := min(line, len(d.lines)) - 1; l >= 0; l-- {
		s, e := d.lineBounds(l)
		if bytes.HasPrefix(d.text[s:e], []byte("---")) {
			return d.span(s, s+3)
		}
	}
	s, e := d.lineBounds(line - 1)
	return d.span(s, e)
}

var (
	yamlLineError = regexp.MustCompile(`(?s)^yaml: line (\d+): (.*)$`)
	quotedName    = regexp.MustCompile(`'([^']*)'`)
)

// syntaxError turns a YAML parser error into a diagnostic on the line the
// parser names, with a hint on how to fix the usual causes.
func (d *doc) syntaxError(err error) {
	msg := err.Error()
	line := 0
	if m := yamlLineError.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		if parserError(msg) {
			// yaml.v3 prints a parser (not scanner) error's zero-based line.
			line++
		}
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	var loc ir.Loc
	located := false
	switch {
	case strings.Contains(msg, "control characters"):
		if off := d.firstControl(); off >= 0 {
			r, size := utf8.DecodeRune(d.text[off:])
			loc, located = d.span(off, off+size), true
			line = d.lineOf(off) + 1
			msg = fmt.Sprintf("%s (U+%04X)", msg, r)
		}
	case strings.HasPrefix(msg, "unknown anchor"):
		if m := quotedName.FindStringSubmatch(msg); m != nil {
			if i := bytes.Index(d.text, []byte("*"+m[1])); i >= 0 {
				loc, located = d.span(i, i+1+len(m[1])), true
				line = d.lineOf(i) + 1
			}
		}
	}
	if line < 1 {
		line = 1
	}
	if line > len(d.lines) {
		line = len(d.lines)
	}
	// A tab in a line's indentation is the most common cause of the
	// scanner's complaints; the parser may name the line before it.
	for _, l := range []int{line - 1, line} {
		if tab := d.indentTab(l); tab >= 0 {
			d.errorf(d.span(tab, tab+1), "YAML syntax error in %s: %s. A tab indents this line, and YAML allows only spaces for indentation: replace the tab with spaces", d.file, msg)
			return
		}
	}
	if !located {
		// An error past the last line (an unclosed quote at the end of the
		// file) is shown on the last line with content.
		l := line - 1
		for l > 0 && d.blankLine(l) {
			l--
		}
		s, e := d.lineBounds(l)
		for s < e && isBlank(d.text[s]) {
			s++
		}
		loc = d.span(s, d.trimLine(s, e))
		if loc.Start == loc.End && loc.End < e {
			loc.End = e
		}
	}
	// The diagnostic is at its line; the parser's line is worth saying
	// only when it is another one.
	where := ""
	if d.lineOf(loc.Start)+1 != line {
		where = fmt.Sprintf(" (the parser stopped on line %d)", line)
	}
	d.errorf(loc, "YAML syntax error in %s: %s%s. %s", d.file, msg, where, syntaxHint(msg))
}

// parserError reports whether msg comes from the YAML parser rather than
// its scanner.
func parserError(msg string) bool {
	for _, p := range []string{"did not find expected", "found duplicate %", "found incompatible YAML", "found undefined tag"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// syntaxHint suggests a fix for a YAML parser message.
func syntaxHint(msg string) string {
	switch {
	case strings.Contains(msg, "mapping values are not allowed"):
		return "A `key: value` appears where a plain value was expected: fix the indentation, or quote a value that contains `: `"
	case strings.Contains(msg, "did not find expected key"):
		return "Keys of one mapping must line up at the same indentation; check this line and the one above"
	case strings.Contains(msg, "expected '-' indicator"):
		return "Items of a list must line up, each starting with `- `"
	case strings.Contains(msg, "expected ',' or ']'"):
		return "Close the list with `]`, or separate its items with commas"
	case strings.Contains(msg, "expected ',' or '}'"):
		return "Close the mapping with `}`, or separate its entries with commas"
	case strings.Contains(msg, "could not find expected ':'"):
		return "Add `:` after the key, or quote the text"
	case strings.Contains(msg, "cannot start any token"):
		return "A plain value cannot start with `@`, a backquote or a tab: quote the value"
	case strings.Contains(msg, "unexpected end of stream"):
		return "The file ends inside an unclosed quote or bracket: close it"
	case strings.Contains(msg, "control characters"):
		return "Remove the control character, or escape it inside a double-quoted string"
	case strings.Contains(msg, "unknown anchor"):
		return "Define the anchor with `&name` before referring to it with `*name`"
	case strings.Contains(msg, "tab"):
		return "Indent with spaces, not tabs"
	}
	return "Fix the YAML syntax on this line"
}

// lineOf returns the zero-based line holding off.
func (d *doc) lineOf(off int) int {
	l := 0
	for l+1 < len(d.lines) && d.lines[l+1] <= off {
		l++
	}
	return l
}

// blankLine reports whether line l (zero-based) holds only blanks.
func (d *doc) blankLine(l int) bool {
	s, e := d.lineBounds(l)
	for ; s < e; s++ {
		if !isBlank(d.text[s]) {
			return false
		}
	}
	return true
}

// indentTab returns the offset of a tab in the leading whitespace of line l
// (zero-based), or -1.
func (d *doc) indentTab(l int) int {
	if l < 0 || l >= len(d.lines) {
		return -1
	}
	s, e := d.lineBounds(l)
	for q := s; q < e && isBlank(d.text[q]); q++ {
		if d.text[q] == '\t' {
			// Only an indentation tab: the line must have content after it.
			for r := q; r < e; r++ {
				if !isBlank(d.text[r]) {
					return q
				}
			}
			return -1
		}
	}
	return -1
}

// firstControl returns the offset of the first character YAML does not
// allow in a stream, or -1.
func (d *doc) firstControl() int {
	for i := 0; i < len(d.text); {
		r, size := utf8.DecodeRune(d.text[i:])
		if !yamlPrintable(r) && !(i == 0 && r == 0xFEFF) {
			return i
		}
		i += size
	}
	return -1
}

// yamlPrintable reports whether r may appear in a YAML stream.
func yamlPrintable(r rune) bool {
	switch {
	case r == 0x09, r == 0x0A, r == 0x0D, r == 0x85:
		return true
	case r >= 0x20 && r <= 0x7E:
		return true
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// pair is one key/value entry of a mapping node.
type pair struct {
	// key is the key node; val the value with aliases resolved; raw the
	// value as written (an alias stays an alias), for locations.
	key, val, raw *yaml.Node
	name          string
}

// pairs lists a mapping's entries with aliases resolved in values,
// reporting non-scalar keys and duplicate keys (the last one wins, as in
// the YAML readers SDP uses).
func (d *doc) pairs(m *yaml.Node, dupSeverity ir.Severity) []pair {
	var out []pair
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		kr := resolve(k)
		if kr == nil || kr.Kind != yaml.ScalarNode {
			d.errorf(d.at(k), "a key must be a plain name, not a list or mapping")
			continue
		}
		if prev, ok := seen[kr.Value]; ok {
			d.add(dupSeverity, d.code, d.at(k), fmt.Sprintf("duplicate key `%s` (first at line %d): the last one wins; remove one", kr.Value, prev.Line))
		}
		seen[kr.Value] = k
		out = append(out, pair{key: k, val: v, raw: m.Content[i+1], name: kr.Value})
	}
	return out
}

// isNull reports whether a value is empty (`key:`, `~` or `null`).
func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// kindName names a node's kind for messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "empty"
		}
		return "a value"
	}
	return "an unexpected node"
}

var pyBool = regexp.MustCompile(`^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)

// pyNonString reports whether SDP's YAML reader (PyYAML, YAML 1.1) reads
// the scalar n as something other than a string: numbers, booleans
// (including yes/no/on/off) and null.
func pyNonString(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return true
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return false
	}
	if n.Style&yaml.TaggedStyle != 0 {
		return n.Tag != "!!str"
	}
	switch n.Tag {
	case "!!bool", "!!null", "!!int":
		return true
	case "!!float":
		// PyYAML wants a dot in a float (1e3 stays a string there).
		v := strings.ToLower(n.Value)
		return strings.Contains(v, ".")
	}
	return pyBool.MatchString(n.Value)
}

// suggest returns the candidate nearest to word (by edit distance, ignoring
// case), or "" when none is close.
func suggest(word string, candidates []string) string {
	best, bestD := "", 1<<30
	w := strings.ToLower(word)
	for _, c := range candidates {
		dist := editdist.Distance(w, strings.ToLower(c), maxSuggestRunes)
		if dist < bestD {
			best, bestD = c, dist
		}
	}
	limit := max(2, len([]rune(word))/3)
	if bestD <= limit && bestD < len([]rune(word)) {
		return best
	}
	return ""
}

// nearest returns the candidate nearest to word, however far.
func nearest(word string, candidates []string) string {
	best, bestD := "", 1<<30
	w := strings.ToLower(word)
	for _, c := range candidates {
		if dist := editdist.Distance(w, strings.ToLower(c), maxSuggestRunes); dist < bestD {
			best, bestD = c, dist
		}
	}
	return best
}

// maxSuggestRunes bounds the edit distances suggestions compute: long
// garbage keys get no useful suggestion, and the cost stays bounded.
const maxSuggestRunes = 256

// didYouMean formats a suggestion suffix for a message.
func didYouMean(word string, candidates []string) string {
	if s := suggest(word, candidates); s != "" {
		return fmt.Sprintf("; did you mean `%s`?", s)
	}
	return ""
}

// quoteList formats names as `a`, `b` or `c`.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
