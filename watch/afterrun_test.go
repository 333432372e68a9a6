package watch

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/thund-dev/thund/analysis"
)

// TestAfterRun: the hook (thund-watch --spark pushes to Spark there) runs
// after each run that completed without a failed dataset, with the
// snapshot that ran, and not after a run with a failure.
func TestAfterRun(t *testing.T) {
	dir := copyRetail(t)
	var mu sync.Mutex
	var calls []int
	w := startWatch(t, dir, Options{AfterRun: func(_ context.Context, snap *analysis.Snapshot, _ io.Writer) {
		mu.Lock()
		calls = append(calls, len(snap.Pipeline.Datasets))
		mu.Unlock()
	}})
	w.run() // the start: everything runs
	mu.Lock()
	if len(calls) != 1 || calls[0] != 8 {
		t.Fatalf("after the first run: hook calls %v, want one with 8 datasets", calls)
	}
	mu.Unlock()
	path := filepath.Join(dir, "transformations", "top_products.sql")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A query that fails at run time (DuckDB cannot cast the text).
	broken := strings.Replace(string(b), "SELECT category,", "SELECT cast('x' AS INTEGER) AS boom, category,", 1)
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	run, _ := w.run()
	if run.Failed == 0 {
		t.Fatalf("the broken query did not fail: %+v", run)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 {
		t.Fatalf("the hook ran after a failed run: %v", calls)
	}
}
