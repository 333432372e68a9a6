package engine

import (
	"context"
	"testing"

	"github.com/thund-dev/thund/analysis"
)

// load analyses a testdata pipeline and opens a session on it.
func load(t testing.TB, dir string) (*analysis.Snapshot, *Session) {
	t.Helper()
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(snap.Root, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return snap, s
}

func TestRunRetail(t *testing.T) {
	snap, s := load(t, "../testdata/retail")
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range res.Order {
		d := res.Datasets[k]
		t.Logf("%s %s rows=%d %s", d.Name, d.Phase, d.Rows, d.Error)
	}
	for _, e := range res.Expectations {
		t.Logf("expect %s.%s %s violations=%d dropped=%d", e.Dataset, e.Name, e.Action, e.Violations, e.Dropped)
	}
	if res.Failed() {
		t.Fatal("retail failed")
	}
}
