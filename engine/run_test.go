package engine

import (
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
