package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
)

// TestCDCTargetExpectations: the CONSTRAINT ... EXPECT clauses of a
// streaming table declared without a query (the target of APPLY CHANGES /
// AUTO CDC, as Databricks' reference writes it) are checked on the CDC
// flow's changes before they are applied: a dropped change never reaches
// the target, a warning counts, and both are reported for the target.
func TestCDCTargetExpectations(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"thund.yaml": "backends: [native]\ndialect: databricks\n",
		"cdc.sql": `CREATE OR REFRESH STREAMING TABLE cur (
  CONSTRAINT known_v EXPECT (v IS NOT NULL) ON VIOLATION DROP ROW,
  CONSTRAINT small_id EXPECT (id < 3)
);
APPLY CHANGES INTO LIVE.cur FROM STREAM(changes) KEYS (id)
APPLY AS DELETE WHEN op = "DELETE" SEQUENCE BY seq COLUMNS * EXCEPT (op) STORED AS SCD TYPE 1;
`,
		"samples/changes/1.csv": "id,v,op,seq\n1,a,INSERT,1\n2,b,INSERT,2\n3,c,INSERT,3\n",
		"samples/changes/2.csv": "id,v,op,seq\n1,,UPDATE,4\n2,b2,UPDATE,5\n",
	})
	res, s := runOK(t, dir)
	// 1's update to NULL is dropped, so 1 keeps a; 3 violates small_id,
	// which only warns.
	sameRows(t, "cur", tableRows(t, s, "cur"), sortedRows("1|a|1", "2|b2|5", "3|c|3"))
	got := map[string][2]int64{}
	for _, e := range res.Expectations {
		if e.Dataset != "cur" {
			t.Errorf("expectation %s reported for %s, want cur", e.Name, e.Dataset)
		}
		got[e.Name] = [2]int64{e.Violations, e.Dropped}
	}
	if got["known_v"] != [2]int64{1, 1} || got["small_id"] != [2]int64{1, 0} {
		t.Fatalf("expectation results %v, want known_v 1 violation dropped, small_id 1 violation kept", got)
	}
}

// TestCDCTargetExpectationFails: a FAIL UPDATE expectation of the target
// fails its CDC flow and names the expectation.
func TestCDCTargetExpectationFails(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"thund.yaml": "backends: [native]\ndialect: databricks\n",
		"cdc.sql": `CREATE OR REFRESH STREAMING TABLE cur (
  CONSTRAINT positive_seq EXPECT (seq > 0) ON VIOLATION FAIL UPDATE
);
CREATE FLOW cur_cdc AS AUTO CDC INTO cur FROM STREAM(changes) KEYS (id) SEQUENCE BY seq;
`,
		"samples/changes/1.csv": "id,v,seq\n1,a,1\n2,b,-2\n",
	})
	snap, s := loadClean(t, dir)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Datasets["cur"]
	if d == nil || d.Phase != Failed || !strings.Contains(d.Error, "positive_seq") {
		t.Fatalf("cur: %+v, want a failure naming positive_seq", d)
	}
}

// TestCDCTargetExpectationChangeReplays: with --state, a changed
// expectation of the CDC target is a changed definition, so the next start
// replays the change feed under it instead of keeping rows the old one let
// through.
func TestCDCTargetExpectationChangeReplays(t *testing.T) {
	table := func(cond string) string {
		return "CREATE OR REFRESH STREAMING TABLE cur (\n  CONSTRAINT keep EXPECT (" + cond + ") ON VIOLATION DROP ROW\n);\n" +
			"APPLY CHANGES INTO LIVE.cur FROM STREAM(changes) KEYS (id) SEQUENCE BY seq;\n"
	}
	dir := writePipeline(t, map[string]string{
		"thund.yaml":            "backends: [native]\ndialect: databricks\n",
		"cdc.sql":               table("id > 0"),
		"samples/changes/1.csv": "id,v,seq\n1,a,1\n2,b,2\n",
	})
	state := t.TempDir()
	run := func() *Session {
		t.Helper()
		snap, err := analysis.Load(dir, analysis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir, Options{StateDir: state, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		ctx := context.Background()
		if _, err := s.Restore(ctx, snap.Pipeline); err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(ctx, snap.Pipeline, RunOptions{})
		if err != nil || res.Failed() {
			t.Fatalf("run: %v %+v", err, res.Datasets["cur"])
		}
		return s
	}
	s := run()
	sameRows(t, "first run", tableRows(t, s, "cur"), sortedRows("1|a|1", "2|b|2"))
	s.Close()
	if err := os.WriteFile(filepath.Join(dir, "cdc.sql"), []byte(table("id > 1")), 0o644); err != nil {
		t.Fatal(err)
	}
	s = run()
	sameRows(t, "after the expectation changed", tableRows(t, s, "cur"), sortedRows("2|b|2"))
}
