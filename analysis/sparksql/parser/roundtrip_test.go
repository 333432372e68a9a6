package parser_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

// TestCorpusParses checks that every corpus text parses without errors and
// that its tree keeps the range invariants.
func TestCorpusParses(t *testing.T) {
	for _, src := range corpus {
		sc := parser.Parse(src, parser.Options{})
		for _, e := range sc.Errors {
			t.Errorf("%s\n  error at %d:%d: %s (%s)", src, e.Start, e.End, e.Message, e.Class)
		}
		if msg := checkRanges(src, sc); msg != "" {
			t.Errorf("%s\n  %s", src, msg)
		}
	}
}

// TestRoundTrip checks that formatting each corpus tree gives text that
// parses, without errors, into an equal tree, and that formatting is
// stable (the second text is the first).
func TestRoundTrip(t *testing.T) {
	for _, src := range corpus {
		if msg := roundTrip(src); msg != "" {
			t.Errorf("%s\n  %s", src, msg)
		}
	}
}

// roundTrip formats the tree of src and parses the text again; it returns
// what went wrong, or "". A src that does not parse is skipped.
func roundTrip(src string) string {
	sc := parser.Parse(src, parser.Options{})
	if len(sc.Errors) > 0 {
		return ""
	}
	text := ast.Format(sc)
	again := parser.Parse(text, parser.Options{})
	for _, e := range again.Errors {
		return fmt.Sprintf("the formatted text %q does not parse: %s at %d (%q)", text, e.Message, e.Start, text[e.Start:e.End])
	}
	if d := ast.Diff(sc, again); d != "" {
		return fmt.Sprintf("the formatted text %q parses into another tree: %s", text, d)
	}
	if text2 := ast.Format(again); text2 != text {
		return fmt.Sprintf("formatting is not stable:\n  %q\n  %q", text, text2)
	}
	return ""
}

// checkRanges checks the ranges of a script's tree: every node lies inside
// the text and inside its parent, siblings start in order, the
// statements are in order and do not overlap, and every error lies inside
// the text. It returns the first problem, or "".
func checkRanges(src string, sc *ast.Script) string {
	for _, e := range sc.Errors {
		if e.Start < 0 || e.End < e.Start || e.End > len(src) {
			return fmt.Sprintf("error %q has range %v outside the text (%d bytes)", e.Message, e.Range, len(src))
		}
		if e.Message == "" || strings.Contains(e.Message, "PostgreSQL") {
			return fmt.Sprintf("error at %v has message %q", e.Range, e.Message)
		}
	}
	prevEnd := 0
	for i, st := range sc.Stmts {
		r := st.Span()
		if r.Start < prevEnd {
			return fmt.Sprintf("statement %d (%T, %v) starts before the end of the one before (%d)", i, st, r, prevEnd)
		}
		prevEnd = r.End
	}
	type frame struct {
		n         ast.Node
		lastStart int
	}
	stack := []frame{}
	msg := ""
	ast.Inspect(sc, func(n ast.Node) bool {
		if msg != "" {
			return false
		}
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		r := n.Span()
		switch {
		case r.Start < 0 || r.End < r.Start || r.End > len(src):
			msg = fmt.Sprintf("%T has range %v outside the text (%d bytes)", n, r, len(src))
		case len(stack) > 0:
			top := &stack[len(stack)-1]
			pr := top.n.Span()
			if r.Start < pr.Start || r.End > pr.End {
				msg = fmt.Sprintf("%T %v %q lies outside its parent %T %v %q", n, r, src[r.Start:r.End], top.n, pr, src[pr.Start:pr.End])
			} else if r.Start < top.lastStart {
				msg = fmt.Sprintf("%T %v %q comes before its elder sibling under %T %v", n, r, src[r.Start:r.End], top.n, pr)
			}
			top.lastStart = r.Start
		}
		if msg != "" {
			return false
		}
		stack = append(stack, frame{n: n, lastStart: r.Start})
		return true
	})
	return msg
}
