package parser_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

// maxFuzzLen bounds the inputs the fuzz targets parse: the parser's cost
// is bounded per statement (maxTries), so longer texts test nothing new
// and only slow the fuzzer down.
const maxFuzzLen = 4 << 10

// parseDeadline is how long one parse of at most maxFuzzLen bytes may
// take before the fuzz target calls it a hang (generous: the machine is
// shared, and a parse takes microseconds).
const parseDeadline = 10 * time.Second

// seeds adds the test texts to a fuzz target's corpus.
func seeds(f *testing.F) {
	for _, s := range corpus {
		f.Add(s)
	}
	for _, c := range rangeCases {
		f.Add(c.src)
	}
	for _, c := range errorCases {
		f.Add(c.src)
	}
}

// FuzzParse checks Parse on any text: it neither panics nor hangs; every
// node's range lies inside the text and inside its parent's, siblings
// come in order; the statements are in order and do not overlap; there is
// one error per broken statement (and one for an unclosed comment), in
// order, inside the text, each after the start of its statement. The
// other entry points and Format must not panic either.
func FuzzParse(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > maxFuzzLen {
			return
		}
		sc := parseWithDeadline(t, src)
		if msg := checkRanges(src, sc); msg != "" {
			t.Fatalf("%q: %s", src, msg)
		}
		if msg := checkErrors(src, sc); msg != "" {
			t.Fatalf("%q: %s", src, msg)
		}
		_ = ast.Format(sc)
		parser.ParseStatement(src, parser.Options{})
		parser.ParseExpression(src, parser.Options{})
		parser.ParseDataType(src, parser.Options{})
		ansi := parser.Parse(src, parser.Options{ANSI: true, DoubleQuotedIdentifiers: true})
		if msg := checkRanges(src, ansi); msg != "" {
			t.Fatalf("%q (ANSI): %s", src, msg)
		}
	})
}

// FuzzRoundTrip checks, for every text that parses without errors, that
// the formatted tree parses without errors into an equal tree, and that
// formatting that tree gives the same text.
func FuzzRoundTrip(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > maxFuzzLen {
			return
		}
		if msg := roundTrip(src); msg != "" {
			t.Fatalf("%q: %s", src, msg)
		}
	})
}

// parseWithDeadline parses src, failing the test when the parse takes
// longer than parseDeadline.
func parseWithDeadline(t *testing.T, src string) *ast.Script {
	t.Helper()
	done := make(chan *ast.Script, 1)
	go func() { done <- parser.Parse(src, parser.Options{}) }()
	select {
	case sc := <-done:
		return sc
	case <-time.After(parseDeadline):
		t.Fatalf("%q: Parse takes more than %v", src, parseDeadline)
		return nil
	}
}

// checkErrors checks that the errors match the broken statements: one
// per BadStmt, in order, each at or after its statement's start and
// before the next statement, plus at most one unclosed comment error.
func checkErrors(src string, sc *ast.Script) string {
	errs := sc.Errors
	if n := len(errs); n > 0 && errs[n-1].Class == "UNCLOSED_BRACKETED_COMMENT" {
		errs = errs[:n-1]
	}
	k := 0
	for i, st := range sc.Stmts {
		if _, bad := st.(*ast.BadStmt); !bad {
			continue
		}
		if k >= len(errs) {
			return fmt.Sprintf("statement %d is a BadStmt with no error", i)
		}
		e := errs[k]
		next := len(src)
		if i+1 < len(sc.Stmts) {
			next = sc.Stmts[i+1].Span().Start
		}
		if e.Start < st.Span().Start || e.Start > next {
			return fmt.Sprintf("error %q at %v is not in statement %d (%v, next at %d)", e.Message, e.Range, i, st.Span(), next)
		}
		k++
	}
	if k != len(errs) {
		return fmt.Sprintf("%d errors for %d broken statements: %v", len(errs), k, errs)
	}
	for _, e := range sc.Errors {
		if e.Class == "" {
			return fmt.Sprintf("error %q at %v has no class", e.Message, e.Range)
		}
	}
	return ""
}
