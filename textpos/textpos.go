// Package textpos converts between byte offsets into a file's text and
// line/column positions, the way users and editors count them: lines split
// at LF, CRLF or a lone CR; columns counted in characters (runes) for
// terminal output or in UTF-16 code units for LSP. A leading UTF-8 byte
// order mark takes no column, and each byte of invalid UTF-8 counts as one
// character, so every offset maps to a position and back.
package textpos

import (
	"sort"
	"unicode/utf8"
)

// Index maps offsets of one text to positions. It is immutable and safe for
// concurrent use.
type Index struct {
	text  string
	lines []int // byte offset where each line starts
	bom   int   // length of a leading BOM (0 or 3)
}

// New indexes text.
func New(text string) *Index {
	ix := &Index{text: text, lines: []int{0}}
	if len(text) >= 3 && text[:3] == "\xef\xbb\xbf" {
		ix.bom = 3
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			ix.lines = append(ix.lines, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			ix.lines = append(ix.lines, i+1)
		}
	}
	return ix
}

// Lines returns the number of lines (a final line break starts an empty
// last line, as editors show it).
func (ix *Index) Lines() int { return len(ix.lines) }

// Position is a zero-based line and column.
type Position struct {
	Line   int
	Column int
}

// clamp keeps off inside the text.
func (ix *Index) clamp(off int) int {
	if off < 0 {
		return 0
	}
	if off > len(ix.text) {
		return len(ix.text)
	}
	return off
}

// line returns the zero-based line holding off.
func (ix *Index) line(off int) int {
	return sort.Search(len(ix.lines), func(i int) bool { return ix.lines[i] > off }) - 1
}

// lineEnd returns the offset where line l's content ends (before its break).
func (ix *Index) lineEnd(l int) int {
	end := len(ix.text)
	if l+1 < len(ix.lines) {
		end = ix.lines[l+1]
		if end > 0 && ix.text[end-1] == '\n' {
			end--
		}
		if end > 0 && ix.text[end-1] == '\r' {
			end--
		}
	}
	return end
}

func (ix *Index) lineStart(l int) int {
	s := ix.lines[l]
	if l == 0 {
		s += ix.bom
	}
	return s
}

// Rune returns the zero-based position of off with the column in
// characters. An offset inside a multi-byte character or a line break
// maps to that character's or break's start.
func (ix *Index) Rune(off int) Position {
	return ix.pos(off, false)
}

// UTF16 returns the zero-based position of off with the column in UTF-16
// code units, as LSP counts by default.
func (ix *Index) UTF16(off int) Position {
	return ix.pos(off, true)
}

func (ix *Index) pos(off int, utf16 bool) Position {
	off = ix.clamp(off)
	l := ix.line(off)
	start := ix.lineStart(l)
	if off < start {
		off = start
	}
	if end := ix.lineEnd(l); off > end {
		off = end
	}
	col := 0
	for i := start; i < off; {
		r, size := utf8.DecodeRuneInString(ix.text[i:])
		if i+size > off {
			break
		}
		if utf16 && r >= 0x10000 {
			col += 2
		} else {
			col++
		}
		i += size
	}
	return Position{Line: l, Column: col}
}

// OffsetUTF16 returns the byte offset of a zero-based LSP position (column
// in UTF-16 units). Positions past a line's end clamp to it; lines past the
// end clamp to the text's end.
func (ix *Index) OffsetUTF16(p Position) int {
	return ix.offset(p, true)
}

// OffsetRune returns the byte offset of a zero-based position whose column
// counts characters.
func (ix *Index) OffsetRune(p Position) int {
	return ix.offset(p, false)
}

func (ix *Index) offset(p Position, utf16 bool) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(ix.lines) {
		return len(ix.text)
	}
	i := ix.lineStart(p.Line)
	end := ix.lineEnd(p.Line)
	col := 0
	for i < end && col < p.Column {
		r, size := utf8.DecodeRuneInString(ix.text[i:])
		if utf16 && r >= 0x10000 {
			col += 2
		} else {
			col++
		}
		i += size
	}
	return i
}
