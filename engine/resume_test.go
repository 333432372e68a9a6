package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/thund-dev/thund/analysis"
)

// TestResumeSkipsConsumedBatches runs a streaming table with --state, then
// in a new session (as after a restart) with one more micro-batch file:
// only the new file is consumed, and the table holds every row once.
func TestResumeSkipsConsumedBatches(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	folder := filepath.Join(root, "samples", "events")
	os.MkdirAll(folder, 0o755)
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	os.WriteFile(filepath.Join(root, "events_out.sql"), []byte("-- @kind: streaming_table\n-- @trigger: processing_time '1 second'\nSELECT id, v * 10 AS v10 FROM STREAM(events)\n"), 0o644)
	os.WriteFile(filepath.Join(folder, "b-001.csv"), []byte("id,v\n1,1\n2,2\n"), 0o644)
	os.WriteFile(filepath.Join(folder, "b-002.csv"), []byte("id,v\n3,3\n"), 0o644)

	run := func() *Result {
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
			t.Fatalf("run: %v %+v", err, res.Datasets["events_out"])
		}
		return res
	}
	first := run()
	if n := len(first.Increments); n != 2 || first.Datasets["events_out"].Rows != 3 {
		t.Fatalf("first run: %d increments, %d rows", n, first.Datasets["events_out"].Rows)
	}
	os.WriteFile(filepath.Join(folder, "b-003.csv"), []byte("id,v\n4,4\n5,5\n"), 0o644)
	second := run()
	if n := len(second.Increments); n != 1 || len(second.Increments[0].Files) != 1 || second.Increments[0].Files[0] != "samples/events/b-003.csv" {
		t.Fatalf("second run consumed %+v, want only b-003.csv", second.Increments)
	}
	if rows := second.Datasets["events_out"].Rows; rows != 5 {
		t.Fatalf("after resume the table has %d rows, want 5", rows)
	}
	third := run()
	if rows := third.Datasets["events_out"].Rows; rows != 5 || len(third.Increments) > 1 || (len(third.Increments) == 1 && third.Increments[0].Arrived != 0) {
		t.Fatalf("a run with no new file: %d rows, increments %+v", rows, third.Increments)
	}
}
