package engine

import (
	"context"
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/thund-dev/thund/ir"
)

// TestCancelStopsDuckDB cancels a run of a query that would take hours, at
// several moments (including as the statement starts, where duckdb-go
// used to leave DuckDB running), and checks the session is free again:
// the next query answers at once instead of waiting behind the old one.
func TestCancelStopsDuckDB(t *testing.T) {
	s, err := Open(t.TempDir(), Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := &ir.Pipeline{
		Datasets: []*ir.Dataset{{Name: "slow", Kind: ir.MaterializedView}},
		Flows:    []*ir.Flow{{Name: "slow", Target: "slow", Normalized: "SELECT count(*) AS n FROM range(10000000000000) a"}},
	}
	for i, delay := range []time.Duration{0, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond, 100 * time.Millisecond} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := s.Run(ctx, p, RunOptions{})
			done <- err
		}()
		time.Sleep(delay)
		cancel()
		select {
		case err := <-done:
			if err == nil {
				t.Fatalf("cancel %d: the run reported success", i)
			}
		case <-time.After(30 * time.Second):
			// Every goroutine's stack says which step ignored the
			// cancellation (it failed once in CI, never locally).
			pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
			t.Fatalf("cancel %d (after %v): the run did not stop", i, delay)
		}
		probe, stop := context.WithTimeout(context.Background(), 30*time.Second)
		var one int
		if err := s.DB().QueryRowContext(probe, "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("cancel %d: the session is still busy: %v", i, err)
		}
		stop()
	}
}
