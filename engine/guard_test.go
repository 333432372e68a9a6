package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"

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
		"not an expression":  "x >",
	}
	for name, expr := range bad {
		f := &ir.Flow{Name: "f", Expectations: []ir.Expectation{{Name: "e", SQL: expr, Action: ir.Warn}}}
		if _, err := checkPasted(ctx, f, f.Normalized, pastedFragments(f)); err == nil {
			t.Errorf("%s: accepted %q", name, expr)
		} else if !strings.Contains(err.Error(), "expectation e") {
			t.Errorf("%s: the error does not name the expectation: %v", name, err)
		}
		c := &ir.Flow{Name: "c", CDC: &ir.CDC{Keys: []string{"id"}, SequenceBy: "seq", SCD: 1, Deletes: expr}}
		if _, err := checkPasted(ctx, c, c.Normalized, pastedFragments(c)); err == nil {
			t.Errorf("%s: accepted as a deletes predicate %q", name, expr)
		}
	}
	good := []string{"x > 0 -- )), false)", "x > 0", "name <> ';'", "note NOT LIKE '%--%'", "coalesce(a, b) IN (1, 2)", "len(s) < 10 AND s IS NOT NULL", "ts >= TIMESTAMP '2024-01-01'"}
	for _, expr := range good {
		f := &ir.Flow{Name: "f", Expectations: []ir.Expectation{{Name: "e", SQL: expr, Action: ir.Drop}}}
		if _, err := checkPasted(ctx, f, f.Normalized, pastedFragments(f)); err != nil {
			t.Errorf("refused the plain expression %q: %v", expr, err)
		}
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("a checked expression ran: pwned.csv exists")
	}
}

// TestGuardSendsOneStatement: whatever text reaches the session's
// connection, DuckDB runs at most one statement of it, and never one of a
// kind the engine does not send (COPY, ATTACH, EXPORT, SET, PRAGMA,
// INSTALL, LOAD), in whichever way the text hides it from a lexer other
// than DuckDB's own.
func TestGuardSendsOneStatement(t *testing.T) {
	s := openTemp(t)
	root := s.Root
	ctx := context.Background()
	if err := s.Exec(ctx, "CREATE TABLE canary AS SELECT 1 AS x"); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(root, "pwned.csv")
	copyTo := "COPY (SELECT 1) TO '" + target + "'"
	texts := map[string]string{
		"after a statement":          "SELECT 1; " + copyTo,
		"behind a CR-ended comment":  "SELECT 1 -- x\r; " + copyTo,
		"after a dollar string":      "SELECT 1x$$ y$$; " + copyTo,
		"after an escape string":     "SELECT E'\\''; " + copyTo,
		"alone":                      copyTo,
		"attach":                     "ATTACH '" + filepath.Join(root, "x.db") + "' AS x",
		"export":                     "EXPORT DATABASE '" + filepath.Join(root, "exp") + "'",
		"macro after select":         "SELECT 1; CREATE OR REPLACE MACRO pwn() AS 1",
		"set":                        "SET threads = 1",
		"drop canary after a select": "SELECT 1; DROP TABLE canary",
	}
	for name, text := range texts {
		err := s.Exec(ctx, text)
		if err == nil {
			t.Errorf("%s: ran %q", name, text)
			continue
		}
		if !errors.Is(err, ErrStatementRefused) && !errors.Is(err, ErrSandbox) && !strings.Contains(err.Error(), "Parser Error") {
			t.Errorf("%s: refused, but not by the guard: %v", name, err)
		}
		if err := s.QueryArrow(ctx, text, func(array.RecordReader) error { return nil }); err == nil {
			t.Errorf("%s: ran through the Arrow interface", name)
		}
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("a smuggled COPY ran")
	}
	var n int
	if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM canary").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the canary table is gone: %v", err)
	}
	if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM duckdb_functions() WHERE function_name = 'pwn'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("a smuggled macro exists (%d, %v)", n, err)
	}
}

// TestRenderedExpression: an expectation is pasted in DuckDB's rendering
// of it: comments gone, quotes DuckDB's own, meaning kept.
func TestRenderedExpression(t *testing.T) {
	ctx := context.Background()
	got, err := renderedExpr(ctx, "x > 0 /* ) ; */ AND name <> 'a;b' -- end")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "/*") || strings.Contains(got, "--") || !strings.Contains(got, "'a;b'") {
		t.Fatalf("rendering %q keeps comments or loses the string", got)
	}
	for _, bad := range []string{"1, 2", "x FROM t", "current_setting('home_directory') = ''", "(SELECT count(*) FROM duckdb_settings()) > 0", "x > 0 GROUP BY x"} {
		if r, err := renderedExpr(ctx, bad); err == nil {
			t.Errorf("accepted %q as %q", bad, r)
		}
	}
}

// TestRefusedFunctions: a query calling a function that reveals the
// machine is refused by name, with the reason.
func TestRefusedFunctions(t *testing.T) {
	ctx := context.Background()
	for _, q := range []string{
		"SELECT * FROM duckdb_settings()",
		"SELECT current_setting('home_directory')",
		"SELECT * FROM duckdb_extensions()",
		"SELECT * FROM duckdb_secrets()",
		"SELECT * FROM query('SELECT 1')",
		"SELECT * FROM pragma_database_list",
		"WITH a AS (SELECT * FROM duckdb_databases()) SELECT * FROM a",
		"PRAGMA database_list",
		"SELECT 1; SELECT 2",
	} {
		err := CheckQuery(ctx, q)
		if err == nil || !errors.Is(err, ErrStatementRefused) {
			t.Errorf("%s: %v", q, err)
		}
	}
	if err := CheckQuery(ctx, "SELECT upper(x) FROM t WHERE y > 0"); err != nil {
		t.Errorf("refused a plain query: %v", err)
	}
}

// beneathGuard grants every statement type, so a test can show that the
// DuckDB sandbox below the guard holds on its own.
func beneathGuard(ctx context.Context) context.Context {
	var all []duckdb.StmtType
	for k := duckdb.STATEMENT_TYPE_INVALID; k <= duckdb.STATEMENT_TYPE_MULTI; k++ {
		all = append(all, k)
	}
	return allowKinds(ctx, all...)
}

// TestMessagesHidePrivatePaths: a sample DuckDB cannot read is named by
// its path in the pipeline folder, never by the session's mirror.
func TestMessagesHidePrivatePaths(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "samples"), 0o755)
	os.WriteFile(filepath.Join(root, "samples", "bad.parquet"), []byte("not parquet"), 0o644)
	s, err := Open(root, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := &ir.Pipeline{}
	p.Sources = append(p.Sources, &ir.Source{Name: "bad", Sample: "samples/bad.parquet"})
	p.Datasets = append(p.Datasets, &ir.Dataset{Name: "d", Kind: ir.MaterializedView})
	p.Flows = append(p.Flows, &ir.Flow{Name: "d", Target: "d", SQL: "SELECT * FROM bad", Normalized: "SELECT * FROM bad", Reads: []ir.Ref{{Name: "bad"}}})
	res, err := s.Run(context.Background(), p, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	msg := res.Datasets["d"].Error
	if msg == "" || strings.Contains(msg, s.tempDir) || !strings.Contains(msg, "samples/bad.parquet") {
		t.Fatalf("message %q", msg)
	}
}

// TestMemoryLimitNamesTheSetting: a query that needs more memory than
// the session has fails naming the thund.yaml setting that raises it.
func TestMemoryLimitNamesTheSetting(t *testing.T) {
	s, err := Open(t.TempDir(), Options{Threads: 1, MemoryLimit: "64MB", TempLimit: "1MB"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Exec(context.Background(), "CREATE TABLE big AS SELECT range AS i, repeat('x', 100) AS s FROM range(3000000) ORDER BY s DESC, i")
	var le *LimitError
	if !errors.As(err, &le) || (le.Setting != "limits.memory" && le.Setting != "limits.temp") || !strings.Contains(err.Error(), "thund.yaml") {
		t.Fatalf("got %v, want a LimitError naming limits.memory or limits.temp", err)
	}
}
