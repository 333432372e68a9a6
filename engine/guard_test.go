package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestPastedExpressionsAreOneExpression: an expectation or a CDC deletes
// predicate that would close the engine's parentheses and add a statement
// (whatever quoting or comment trick hides it) is refused before use, while
// ordinary expressions, including ';' inside strings, pass.
func TestPastedExpressionsAreOneExpression(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	conn, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	target := filepath.Join(root, "pwned.csv")
	bad := map[string]string{
		"second statement":   "x > 0), false); COPY (SELECT 1) TO '" + target + "'; SELECT ((1",
		"hidden by comments": "/* (( */ x > 0), false); COPY (SELECT 1) TO '" + target + "'; SELECT ((1 /* )) */",
		"dollar quotes":      "$$'$$ = 'a'), false); COPY (SELECT 1) TO '" + target + "'; SELECT (('",
		"escape string":      "E'\\'' = 'a'), false); COPY (SELECT 1) TO '" + target + "'; SELECT (('",
		"two selects":        "x > 0), false); SELECT ((1",
		"attach":             "1), false); ATTACH '" + filepath.Join(root, "x.db") + "' AS x; SELECT ((1",
		"line comment":       "x > 0 -- )), false)",
		"not an expression":  "x >",
	}
	for name, expr := range bad {
		f := &ir.Flow{Name: "f", Expectations: []ir.Expectation{{Name: "e", SQL: expr, Action: ir.Warn}}}
		if err := checkPasted(ctx, conn, f); err == nil {
			t.Errorf("%s: accepted %q", name, expr)
		} else if !strings.Contains(err.Error(), "expectation e") {
			t.Errorf("%s: the error does not name the expectation: %v", name, err)
		}
		c := &ir.Flow{Name: "c", CDC: &ir.CDC{Keys: []string{"id"}, SequenceBy: "seq", SCD: 1, Deletes: expr}}
		if err := checkPasted(ctx, conn, c); err == nil {
			t.Errorf("%s: accepted as a deletes predicate %q", name, expr)
		}
	}
	good := []string{"x > 0", "name <> ';'", "note NOT LIKE '%--%'", "coalesce(a, b) IN (1, 2)", "len(s) < 10 AND s IS NOT NULL", "ts >= TIMESTAMP '2024-01-01'"}
	for _, expr := range good {
		f := &ir.Flow{Name: "f", Expectations: []ir.Expectation{{Name: "e", SQL: expr, Action: ir.Drop}}}
		if err := checkPasted(ctx, conn, f); err != nil {
			t.Errorf("refused the plain expression %q: %v", expr, err)
		}
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("a checked expression ran: pwned.csv exists")
	}
}
