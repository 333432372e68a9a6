package sqlfront

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// splitterTokensAreLexRange fails t when a statement's tokens as the
// splitter found them differ from lexRange's over the statement's span,
// which Query.CheckNative scans again instead of keeping them.
func splitterTokensAreLexRange(t *testing.T, name, text string, from, to int) {
	t.Helper()
	raw, _ := splitRange(text, from, to)
	for i, r := range raw {
		if want := lexRange(text, r.Start, r.End); !slices.Equal(r.toks, want) {
			t.Fatalf("%s: statement %d %v: the splitter's %d tokens differ from lexRange's %d", name, i, r.Span, len(r.toks), len(want))
		}
	}
}

// TestSplitterTokensAreLexRange holds the splitter's tokens of every
// statement to lexRange's over its span, on the repository's SQL files
// and texts that end in the middle of a token, quote or comment.
func TestSplitterTokensAreLexRange(t *testing.T) {
	texts := map[string]string{
		"exponent":  "SELECT 1e+5; SELECT 2E-3",
		"open":      "SELECT 'open; x",
		"comment":   "SELECT 1 /* open; SELECT 2",
		"nested":    "SELECT /* a /* b */ ; */ 1; SELECT 2 -- c;\n; SELECT `x;y`, \"a;b\", $t$;$t$",
		"bom":       "\ufeffSELECT 1;SELECT 2",
		"cr":        "SELECT 1 -- n\r; SELECT 2",
		"number":    "SELECT .5, 1.e3, 1_000, 0x1F;",
		"semicolon": ";;SELECT 1;;",
	}
	root := filepath.Join("..", "..", "testdata")
	n := 0
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".sql") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil {
			texts[path] = string(b)
			n++
		}
		return nil
	})
	if n == 0 {
		t.Fatalf("no .sql file under %s", root)
	}
	for name, text := range texts {
		splitterTokensAreLexRange(t, name, text, 0, len(text))
		if len(text) > 4 {
			// a range inside the text, as a notebook cell is split
			splitterTokensAreLexRange(t, name+" (inner range)", text, 2, len(text)-2)
		}
	}
}
