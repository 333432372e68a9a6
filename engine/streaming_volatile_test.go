package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/thund-dev/thund/analysis"
)

// TestStreamJoinWithClockColumnResumes runs a join of two streams that
// stamps its rows with current_timestamp(), with --state, then again with
// a new micro-batch that matches nothing: Spark emits no row for it, so
// the table keeps its one row (before, every earlier match was written
// again, as its timestamp made it look new). A second new batch that
// does match adds exactly the new match.
func TestStreamJoinWithClockColumnResumes(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	for _, d := range []string{"sa", "sb"} {
		os.MkdirAll(filepath.Join(root, "samples", d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	os.WriteFile(filepath.Join(root, "j.sql"), []byte("CREATE STREAMING TABLE j AS\nSELECT x.k, x.v AS av, y.v AS bv, current_timestamp() AS ts\nFROM STREAM(sa) x JOIN STREAM(sb) y ON x.k = y.k;\n"), 0o644)
	os.WriteFile(filepath.Join(root, "samples", "sa", "001.csv"), []byte("k,v\n1,a1\n"), 0o644)
	os.WriteFile(filepath.Join(root, "samples", "sb", "001.csv"), []byte("k,v\n1,b1\n"), 0o644)

	run := func() int64 {
		t.Helper()
		snap, err := analysis.Load(root, analysis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := Open(root, Options{StateDir: state, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx := context.Background()
		if _, err := s.Restore(ctx, snap.Pipeline); err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(ctx, snap.Pipeline, RunOptions{})
		if err != nil || res.Failed() {
			t.Fatalf("run: %v %+v", err, res.Datasets["j"])
		}
		return res.Datasets["j"].Rows
	}
	if n := run(); n != 1 {
		t.Fatalf("first run: j has %d rows, want 1", n)
	}
	os.WriteFile(filepath.Join(root, "samples", "sb", "002.csv"), []byte("k,v\n2,b2\n"), 0o644)
	if n := run(); n != 1 {
		t.Fatalf("after a batch that matches nothing: j has %d rows, want 1 (the earlier match written again?)", n)
	}
	os.WriteFile(filepath.Join(root, "samples", "sa", "002.csv"), []byte("k,v\n2,a2\n1,a3\n"), 0o644)
	if n := run(); n != 3 {
		t.Fatalf("after a batch with two matches: j has %d rows, want 3", n)
	}
}

func TestVolatileColumns(t *testing.T) {
	cols := []string{"k", "av", "ts"}
	cases := []struct {
		query string
		want  []int
	}{
		{"SELECT k, v AS av, current_timestamp() AS ts FROM a", []int{2}},
		{"SELECT k, v AS av, now() AS ts FROM a UNION ALL SELECT k, v, current_timestamp FROM b", []int{2}},
		{"SELECT k, rand() AS av, 1 AS ts FROM a UNION ALL SELECT k, v, 2 FROM b", []int{1}},
		{"SELECT *, current_timestamp() AS ts FROM a", []int{2}},
		{"SELECT k, v AS av, ts FROM a", nil},
		{"SELECT k FROM", nil},
	}
	for _, c := range cases {
		got := volatileColumns(c.query, cols)
		if len(got) != len(c.want) {
			t.Errorf("%s: got %v, want %v", c.query, got, c.want)
			continue
		}
		for _, i := range c.want {
			if !got[i] {
				t.Errorf("%s: got %v, want %v", c.query, got, c.want)
			}
		}
	}
}
