// Package pragma reads Thund's pragma comments (FORMAT.md §2a, §2b, §3):
// the `-- @key: value` lines in a pragma-form file's header and in the
// comment block directly above an SDP statement.
//
// Parsing happens in two steps. ScanHeader and ParseBlock split a comment
// block into pragmas and documentation, reporting lines that look like
// pragmas but are malformed. Interpret then checks each pragma's key and
// value and turns the block into Settings. Every location is a byte range
// of the whole file's text, so diagnostics point at the exact characters at
// fault whatever the line endings, indentation or encoding.
package pragma

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/thund-dev/thund/ir"
)

// bom is the UTF-8 byte order mark a file may start with.
const bom = "\xef\xbb\xbf"

// Pragma is one `-- @key`, `-- @key: value` or `-- @key.name: value` line.
type Pragma struct {
	// Key is the word after '@', Name the part after the dot ("" if none).
	Key, Name string
	// Value is the text after the colon with surrounding blanks trimmed. A
	// bare `-- @key` has Value "true" and Bare set.
	Value string
	Bare  bool
	// Line spans the whole line (without its line break). KeyLoc spans
	// "@key" including the '@'; NameLoc the name after the dot (zero when
	// there is none). ValueLoc spans the trimmed value; for an empty value
	// it is the empty range right after the colon, and for a bare pragma it
	// spans "@key" (and ".name"), as there is no value text. All are byte
	// offsets into the whole file text.
	Line, KeyLoc, NameLoc, ValueLoc ir.Loc
}

// Block is a run of `--` comment lines and blank lines.
type Block struct {
	// Start and End are the byte range covered.
	Start, End int
	// Pragmas are the well-formed pragma lines, in order.
	Pragmas []Pragma
	// Doc is the first paragraph of the non-pragma comment lines, with the
	// "--" prefix and surrounding blanks stripped and the lines joined with
	// a space; empty if there is none. Paragraphs are separated by blank
	// lines, empty comment lines and non-comment lines; pragma lines are
	// skipped and do not end a paragraph.
	Doc string
	// Diags are syntax errors in lines that look like pragmas (code
	// ir.CodePragmaSyntax).
	Diags []ir.Diagnostic
}

// ScanHeader parses the header at the top of text: the run of comment and
// blank lines from offset 0 (skipping a UTF-8 byte order mark). The
// returned block starts at 0; its End is where the first line that is
// neither blank nor a `--` comment starts, or len(text).
func ScanHeader(file, text string) Block {
	start := 0
	if strings.HasPrefix(text, bom) {
		start = len(bom)
	}
	end := len(text)
	for pos := start; pos < len(text); {
		ls, le, next := nextLine(text, pos, len(text))
		i := skipBlanks(text, ls, le)
		if i < le && !strings.HasPrefix(text[i:le], "--") {
			end = ls
			break
		}
		pos = next
	}
	b := ParseBlock(file, text, start, end)
	b.Start = 0
	return b
}

// ParseBlock parses the comment lines of text[start:end], such as the
// comment block directly above an SDP statement. Lines inside the range that
// are not `--` comments are ignored (they end a Doc paragraph). Out of range
// bounds are clamped to the text.
func ParseBlock(file, text string, start, end int) Block {
	start = clamp(start, 0, len(text))
	end = clamp(end, start, len(text))
	p := blockParser{file: file, text: text}
	p.b.Start, p.b.End = start, end
	for pos := start; pos < end; {
		ls, le, next := nextLine(text, pos, end)
		p.line(ls, le)
		pos = next
	}
	p.b.Doc = strings.Join(p.doc, " ")
	return p.b
}

// blockParser accumulates one block.
type blockParser struct {
	file    string
	text    string
	b       Block
	doc     []string
	docDone bool // the first paragraph has ended
}

// paragraphBreak ends the Doc paragraph if one has started.
func (p *blockParser) paragraphBreak() {
	if len(p.doc) > 0 {
		p.docDone = true
	}
}

// line handles the line text[ls:le] (without its line break).
func (p *blockParser) line(ls, le int) {
	text := p.text
	i := skipBlanks(text, ls, le)
	if i == le || !strings.HasPrefix(text[i:le], "--") {
		p.paragraphBreak()
		return
	}
	j := skipBlanks(text, i+2, le)
	if j < le && text[j] == '@' {
		p.pragma(ls, le, j)
		return
	}
	content := strings.TrimRight(text[j:le], blanks)
	if content == "" {
		p.paragraphBreak()
		return
	}
	if !p.docDone {
		p.doc = append(p.doc, content)
	}
}

// pragma parses the pragma-looking line text[ls:le] whose '@' is at at.
func (p *blockParser) pragma(ls, le, at int) {
	text := p.text
	ks := at + 1
	k := ks
	if k < le && isIdentStart(text[k]) {
		k++
		for k < le && isIdentPart(text[k]) {
			k++
		}
	}
	if k == ks {
		if k == le || isBlank(text[k]) {
			p.syntax(at, at+1, `"@" with no key: write "-- @key: value", e.g. "-- @kind: table", or drop the "@" if this is documentation`)
			return
		}
		we := k
		for we < le && !isBlank(text[we]) && text[we] != ':' {
			we++
		}
		p.syntax(at, we, fmt.Sprintf("invalid pragma key %q: a key starts with a letter or '_' and continues with letters, digits or '_', e.g. \"@kind\"", clip(text[at:we])))
		return
	}
	pr := Pragma{
		Key:    text[ks:k],
		Line:   p.loc(ls, le),
		KeyLoc: p.loc(at, k),
	}
	if k < le && text[k] == '.' {
		ns := k + 1
		n := ns
		for n < le && isNamePart(text[n]) {
			n++
		}
		if n == ns {
			if ns < le && text[ns] != ':' && text[ns] != ' ' && text[ns] != '\t' {
				// Something is there, just not a name character (é, -).
				_, size := utf8.DecodeRuneInString(text[ns:])
				p.syntax(ns, ns+max(size, 1), fmt.Sprintf("invalid name after \"@%s.\": a name is ASCII letters, digits, '_' and '.'; write \"-- @%s.NAME: value\"", pr.Key, pr.Key))
				return
			}
			p.syntax(k, k+1, fmt.Sprintf("missing name after \"@%s.\": write \"-- @%s.NAME: value\"", pr.Key, pr.Key))
			return
		}
		pr.Name = text[ns:n]
		pr.NameLoc = p.loc(ns, n)
		k = n
	}
	m := skipBlanks(text, k, le)
	switch {
	case m == le:
		pr.Value = "true"
		pr.Bare = true
		pr.ValueLoc = p.loc(at, k)
	case text[m] == ':':
		vs := skipBlanks(text, m+1, le)
		ve := le
		for ve > vs && isBlank(text[ve-1]) {
			ve--
		}
		if vs == ve {
			vs, ve = m+1, m+1
		}
		pr.Value = text[vs:ve]
		pr.ValueLoc = p.loc(vs, ve)
	default:
		written := text[at:k]
		if c := strings.IndexByte(text[m:le], ':'); c >= 0 {
			e := m + c
			for e > at && isBlank(text[e-1]) {
				e--
			}
			p.syntax(at, e, fmt.Sprintf("malformed pragma key %q: a key is one word (letters, digits, '_'), optionally followed by \".NAME\", then ':' and the value, e.g. \"-- %s: value\"", clip(text[at:e]), clip(written)))
			return
		}
		we := m
		for we < le && !isBlank(text[we]) {
			we++
		}
		rest := strings.TrimLeft(strings.TrimRight(text[m:le], blanks), "=")
		rest = strings.Trim(rest, blanks)
		p.syntax(m, we, fmt.Sprintf("missing ':' after %q (found %q): write \"-- %s: %s\"", clip(written), clip(text[m:we]), clip(written), clip(rest)))
		return
	}
	p.b.Pragmas = append(p.b.Pragmas, pr)
}

// syntax reports a pragma syntax error at text[start:end].
func (p *blockParser) syntax(start, end int, msg string) {
	p.b.Diags = append(p.b.Diags, ir.Diagnostic{
		Loc:      p.loc(start, end),
		Severity: ir.Error,
		Code:     ir.CodePragmaSyntax,
		Message:  msg,
	})
}

func (p *blockParser) loc(start, end int) ir.Loc {
	return ir.Loc{File: p.file, Start: start, End: end}
}

// nextLine returns the line starting at pos, limited to end: its content
// text[ls:le] without the line break, and where the next line starts. Lines
// end at LF, CRLF or a lone CR, as in package textpos.
func nextLine(text string, pos, end int) (ls, le, next int) {
	for i := pos; i < end; i++ {
		switch text[i] {
		case '\n':
			return pos, i, i + 1
		case '\r':
			if i+1 < end && text[i+1] == '\n' {
				return pos, i, i + 2
			}
			return pos, i, i + 1
		}
	}
	return pos, end, end
}

// blanks are the characters trimmed around values and skipped in lines.
const blanks = " \t\f\v\r"

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'
}

// skipBlanks returns the first index in [i, end) that is not blank, or end.
func skipBlanks(text string, i, end int) int {
	for i < end && isBlank(text[i]) {
		i++
	}
	return i
}

func isIdentStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || '0' <= c && c <= '9'
}

// isNamePart reports whether c may appear in the name after a key's dot.
// Names of the property and conf families may hold dots and dashes
// (conf.spark.sql.shuffle.partitions); Interpret narrows the other families
// to identifiers.
func isNamePart(c byte) bool {
	return isIdentPart(c) || c == '.' || c == '-'
}

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// clip shortens s for quoting in a message: at most about 60 bytes, cut at
// a character boundary, with "..." marking the cut.
func clip(s string) string {
	const limit = 60
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > limit-4 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
