package textpos

import (
	"testing"
)

func TestRuneAndUTF16Columns(t *testing.T) {
	text := "ab\r\ncafé 😀x\rlast\n"
	ix := New(text)
	if ix.Lines() != 4 {
		t.Fatalf("Lines() = %d, want 4", ix.Lines())
	}
	off := len("ab\r\ncafé 😀")
	if got := ix.Rune(off); got != (Position{Line: 1, Column: 6}) {
		t.Fatalf("Rune = %+v, want 1:6", got)
	}
	if got := ix.UTF16(off); got != (Position{Line: 1, Column: 7}) {
		t.Fatalf("UTF16 = %+v, want 1:7 (the emoji takes two units)", got)
	}
	if got := ix.OffsetUTF16(Position{Line: 1, Column: 7}); got != off {
		t.Fatalf("OffsetUTF16 = %d, want %d", got, off)
	}
	if got := ix.Rune(len("ab\r\ncafé 😀x\r")); got != (Position{Line: 2, Column: 0}) {
		t.Fatalf("lone CR does not break the line: %+v", got)
	}
	// An offset on the CR of a CRLF maps to the end of the line's content.
	if got := ix.Rune(3); got != (Position{Line: 0, Column: 2}) {
		t.Fatalf("offset in CRLF = %+v, want 0:2", got)
	}
}

func TestBOMTakesNoColumn(t *testing.T) {
	text := "\xef\xbb\xbfSELECT x"
	ix := New(text)
	if got := ix.Rune(len(text) - 1); got != (Position{Line: 0, Column: 7}) {
		t.Fatalf("Rune = %+v, want 0:7", got)
	}
	if got := ix.OffsetRune(Position{Line: 0, Column: 0}); got != 3 {
		t.Fatalf("column 0 maps to offset %d, want 3 (after the BOM)", got)
	}
}

func TestInvalidUTF8CountsOneColumnPerByte(t *testing.T) {
	text := "a\xff\xfeb"
	ix := New(text)
	if got := ix.Rune(3); got.Column != 3 {
		t.Fatalf("column of b = %d, want 3", got.Column)
	}
	if got := ix.OffsetRune(Position{Line: 0, Column: 3}); got != 3 {
		t.Fatalf("offset = %d, want 3", got)
	}
}

func TestClamping(t *testing.T) {
	ix := New("abc\ndef")
	if got := ix.Rune(-5); got != (Position{}) {
		t.Fatalf("negative offset: %+v", got)
	}
	if got := ix.Rune(100); got != (Position{Line: 1, Column: 3}) {
		t.Fatalf("offset past the end: %+v", got)
	}
	if got := ix.OffsetUTF16(Position{Line: 0, Column: 99}); got != 3 {
		t.Fatalf("column past the line end maps to %d, want 3", got)
	}
	if got := ix.OffsetUTF16(Position{Line: 9, Column: 0}); got != 7 {
		t.Fatalf("line past the end maps to %d, want 7", got)
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add("a\r\nb\rc\nd", 3)
	f.Add("\xef\xbb\xbf😀\xff", 4)
	f.Fuzz(func(t *testing.T, text string, off int) {
		ix := New(text)
		if off < 0 || off > len(text) {
			return
		}
		p := ix.UTF16(off)
		back := ix.OffsetUTF16(p)
		if off < ix.bom {
			// Inside the BOM: it takes no column, so it maps past itself.
			if back != ix.bom {
				t.Fatalf("offset %d inside the BOM -> %+v -> %d", off, p, back)
			}
			return
		}
		if back > off || back < 0 || back > len(text) {
			t.Fatalf("offset %d -> %+v -> %d", off, p, back)
		}
		r := ix.Rune(off)
		if ix.OffsetRune(r) != back {
			t.Fatalf("rune and UTF-16 positions disagree on offset %d", off)
		}
	})
}
