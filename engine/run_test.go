package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/ir"
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

// TestCycleBlocksOnlyItsCone: a run limited to datasets off a cycle (a
// preview's upstream) runs; one that needs a dataset on or below the
// cycle is refused, naming it; a whole-pipeline run is refused.
func TestCycleBlocksOnlyItsCone(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "base.sql"), "SELECT 1 AS id\n")
	writeTestFile(t, filepath.Join(root, "top.sql"), "SELECT id + 1 AS id FROM base\n")
	writeTestFile(t, filepath.Join(root, "cyc_a.sql"), "SELECT * FROM cyc_b\n")
	writeTestFile(t, filepath.Join(root, "cyc_b.sql"), "SELECT * FROM cyc_a\n")
	writeTestFile(t, filepath.Join(root, "below.sql"), "SELECT * FROM cyc_a\n")
	snap, s := load(t, root)
	p := snap.Pipeline
	res, err := s.Run(context.Background(), p, RunOptions{Only: p.Graph().Upstream("top")})
	if err != nil {
		t.Fatalf("run of top, off the cycle: %v", err)
	}
	if r := res.Datasets["top"]; r == nil || r.Phase != Completed || r.Rows != 1 {
		t.Fatalf("top: %+v", r)
	}
	for _, k := range []string{"cyc_a", "below"} {
		if _, err := s.Run(context.Background(), p, RunOptions{Only: p.Graph().Upstream(k)}); err == nil || !strings.Contains(err.Error(), "cycle") {
			t.Errorf("run of %s: error %v, want one about the cycle", k, err)
		}
	}
	if _, err := s.Run(context.Background(), p, RunOptions{}); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("whole run: error %v, want one about the cycle", err)
	}
}

// TestSourceNamesIgnoreCase: a source read as ORDERS binds samples/orders.csv,
// and a @sample.Items pragma binds the reads of items, as SQL names ignore
// case (analysis says so; the run must agree).
func TestSourceNamesIgnoreCase(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "samples", "orders.csv"), "id,amount\n1,5\n2,7\n")
	writeTestFile(t, filepath.Join(root, "a.sql"), "SELECT * FROM ORDERS\n")
	writeTestFile(t, filepath.Join(root, "b.sql"), "-- @sample.Items: samples/orders.csv\nSELECT * FROM items\n")
	snap, s := load(t, root)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b"} {
		if r := res.Datasets[k]; r == nil || r.Phase != Completed || r.Rows != 2 {
			t.Errorf("%s: %+v", k, r)
		}
	}
}

// TestRaggedCSVAndMixedFolder: a CSV row shorter than the header is padded
// with NULLs (DuckDB's sniffer otherwise reads the file as one text
// column, silently); a micro-batch folder mixing formats is refused by
// name instead of reading one format and dropping the rest.
func TestRaggedCSVAndMixedFolder(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "samples", "r.csv"), "id,amount,x,y\n1,5,a,b\n2,7,c\n3,9,d,e\n")
	writeTestFile(t, filepath.Join(root, "samples", "clicks", "batch-1.json"), "{\"id\": 1}\n")
	writeTestFile(t, filepath.Join(root, "samples", "clicks", "batch-2.csv"), "id\n2\n")
	writeTestFile(t, filepath.Join(root, "a.sql"), "SELECT id, y FROM r\n")
	writeTestFile(t, filepath.Join(root, "b.sql"), "SELECT * FROM clicks\n")
	snap, s := load(t, root)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Datasets["a"]; r == nil || r.Phase != Completed || r.Rows != 3 {
		t.Fatalf("a over a ragged CSV: %+v", r)
	}
	var nulls int
	if err := s.DB().QueryRow("SELECT count(*) FROM a WHERE y IS NULL").Scan(&nulls); err != nil || nulls != 1 {
		t.Errorf("padded rows: %d NULLs, err %v; want 1", nulls, err)
	}
	if r := res.Datasets["b"]; r == nil || r.Phase != Failed || !strings.Contains(r.Error, "mixes .json files") {
		t.Errorf("b over a mixed folder: %+v", r)
	}
}

// TestQualifiedNames: datasets read with the pipeline's database or catalog
// and database, a dataset defined with them and read without, and external
// tables with one or two qualifiers bound by convention or pragma all run
// natively, as --check says they resolve.
func TestQualifiedNames(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "spark-pipeline.yml"), "name: qn\ncatalog: main\ndatabase: sales\nstorage: file:///tmp/qn-storage\nlibraries:\n  - glob:\n      include: transformations/**\n")
	writeTestFile(t, filepath.Join(root, "samples", "t.csv"), "id,v\n1,a\n2,b\n")
	writeTestFile(t, filepath.Join(root, "samples", "other.ext.csv"), "id,w\n1,x\n")
	writeTestFile(t, filepath.Join(root, "samples", "x.csv"), "id\n7\n")
	writeTestFile(t, filepath.Join(root, "transformations", "base.sql"), "CREATE MATERIALIZED VIEW base AS SELECT id FROM t;\n")
	writeTestFile(t, filepath.Join(root, "transformations", "q.sql"), `CREATE MATERIALIZED VIEW q1 AS SELECT * FROM sales.base;
CREATE MATERIALIZED VIEW q2 AS SELECT * FROM main . sales . base;
CREATE MATERIALIZED VIEW q3 AS SELECT b.id, e.w FROM sales.base AS b JOIN other.ext e ON e.id = b.id;
CREATE MATERIALIZED VIEW sales.own AS SELECT 5 AS id;
CREATE MATERIALIZED VIEW q4 AS SELECT * FROM own;
CREATE TEMPORARY VIEW items_v AS SELECT * FROM prod.raw.items;
CREATE MATERIALIZED VIEW q5 AS SELECT * FROM items_v;
`)
	writeTestFile(t, filepath.Join(root, "transformations", "p.sql"), "-- @sample.prod.raw.items: samples/x.csv\nSELECT 1 AS one\n")
	snap, s := load(t, root)
	for _, d := range snap.Diagnostics {
		if d.Code == ir.CodeUnknownRef {
			t.Errorf("analysis: %s", d.Message)
		}
	}
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for k, rows := range map[string]int64{"base": 2, "q1": 2, "q2": 2, "q3": 1, "sales.own": 1, "q4": 1, "q5": 1, "p": 1} {
		if r := res.Datasets[k]; r == nil || r.Phase != Completed || r.Rows != rows {
			t.Errorf("%s: %+v, want %d rows", k, r, rows)
		}
	}
}

// TestBrokenDefinitionsDoNotRun: a dataset whose definition has an error
// (a pragma with a bad value, a second definition of its name) is skipped
// with that error and what reads it with it; the rest runs.
func TestBrokenDefinitionsDoNotRun(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "ok.sql"), "SELECT 1 AS id\n")
	writeTestFile(t, filepath.Join(root, "bad.sql"), "-- @kind: materialised_view\nSELECT 2 AS id\n")
	writeTestFile(t, filepath.Join(root, "below.sql"), "SELECT * FROM bad\n")
	writeTestFile(t, filepath.Join(root, "b.sql"), "SELECT 3 AS id\n")
	writeTestFile(t, filepath.Join(root, "a.sql"), "-- @name: b\nSELECT 4 AS id\n")
	snap, s := load(t, root)
	broken := snap.Broken()
	if !strings.Contains(broken["bad"], "bad.sql:1:") || !strings.Contains(broken["b"], "already defined") || len(broken) != 2 {
		t.Fatalf("broken: %v", broken)
	}
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{Blocked: broken})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Phase{"ok": Completed, "bad": Skipped, "below": Skipped, "b": Skipped}
	for k, phase := range want {
		if r := res.Datasets[k]; r == nil || r.Phase != phase {
			t.Errorf("%s: %+v, want %s", k, r, phase)
		}
	}
	if r := res.Datasets["bad"]; r != nil && !strings.Contains(r.Error, "fix it first") {
		t.Errorf("bad's reason: %q", r.Error)
	}
}

// TestBrokenFlowStatementBlocksItsTarget: an error in a flow statement
// that does not parse (an APPLY CHANGES with a clause written twice) blocks
// the target it writes INTO, which still gets its line in the run, never
// the valid dataset defined below it.
func TestBrokenFlowStatementBlocksItsTarget(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "samples", "ev", "1.json"), `{"id": 1}`+"\n")
	writeTestFile(t, filepath.Join(root, "a.sql"), "CREATE STREAMING TABLE bronze AS SELECT * FROM STREAM(ev);\n"+
		"CREATE STREAMING TABLE dim;\n"+
		"APPLY CHANGES INTO dim FROM STREAM(bronze) KEYS (id) SEQUENCE BY id SEQUENCE BY id;\n"+
		"CREATE STREAMING TABLE other AS SELECT * FROM STREAM(bronze);\n")
	snap, s := load(t, root)
	broken := snap.Broken()
	if !strings.Contains(broken["dim"], "a.sql:3:") || broken["other"] != "" || broken["bronze"] != "" {
		t.Fatalf("broken: %v", broken)
	}
	var lines []string
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{Blocked: broken, OnEvent: func(e Event) {
		if e.Phase == Skipped {
			lines = append(lines, e.Dataset)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Phase{"bronze": Completed, "dim": Skipped, "other": Completed}
	for k, phase := range want {
		if r := res.Datasets[k]; r == nil || r.Phase != phase {
			t.Errorf("%s: %+v, want %s", k, r, phase)
		}
	}
	if len(lines) != 1 || lines[0] != "dim" {
		t.Errorf("skip events: %v, want one for dim", lines)
	}
}

// TestOuterStreamJoinRefused: a LEFT JOIN of two streams fails with a
// message saying why (the append-only strategy would emit NULL-padded
// rows early and keep them); the inner join of the same streams runs.
func TestOuterStreamJoinRefused(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "samples", "o", "1.csv"), "id,a\n1,x\n2,y\n")
	writeTestFile(t, filepath.Join(root, "samples", "p", "1.csv"), "id,v\n1,10\n")
	writeTestFile(t, filepath.Join(root, "lj.sql"), "-- @kind: streaming_table\nSELECT o.id, p.v FROM STREAM(o) o LEFT JOIN STREAM(p) p ON o.id = p.id\n")
	writeTestFile(t, filepath.Join(root, "ij.sql"), "-- @kind: streaming_table\nSELECT o.id, p.v FROM STREAM(o) o JOIN STREAM(p) p ON o.id = p.id\n")
	snap, s := load(t, root)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Datasets["lj"]; r == nil || r.Phase != Failed || !strings.Contains(r.Error, "LEFT JOIN between streams") {
		t.Errorf("lj: %+v", r)
	}
	if r := res.Datasets["ij"]; r == nil || r.Phase != Completed || r.Rows != 1 {
		t.Errorf("ij: %+v", r)
	}
}

// TestFolderWithANewColumn: a batch read of a micro-batch folder whose
// later file adds a column reads every file, the new column NULL in the
// older ones (DuckDB's glob otherwise refuses the schema mismatch).
func TestFolderWithANewColumn(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "samples", "ev", "1.csv"), "id,v\n1,2\n")
	writeTestFile(t, filepath.Join(root, "samples", "ev", "2.csv"), "id,v,extra\n3,4,x\n")
	writeTestFile(t, filepath.Join(root, "all_ev.sql"), "SELECT * FROM ev\n")
	snap, s := load(t, root)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Datasets["all_ev"]; r == nil || r.Phase != Completed || r.Rows != 2 {
		t.Fatalf("all_ev: %+v", r)
	}
	var nulls int
	if err := s.DB().QueryRow("SELECT count(*) FROM all_ev WHERE extra IS NULL").Scan(&nulls); err != nil || nulls != 1 {
		t.Errorf("extra NULL in the older batch: %d, %v", nulls, err)
	}
}

// TestInterruptedDatasetSaysSo: a dataset stopped by a cancellation says it
// was interrupted, not which internal statement was running.
func TestInterruptedDatasetSaysSo(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "slow.sql"), "SELECT count(*) AS n FROM range(3000000000) a WHERE a.id % 7 = 3\n")
	snap, s := load(t, root)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	res, err := s.Run(ctx, snap.Pipeline, RunOptions{})
	if err == nil {
		t.Fatal("the run was not cancelled")
	}
	r := res.Datasets["slow"]
	if r == nil || r.Phase != Failed || !strings.Contains(r.Error, "interrupted before it finished") || strings.Contains(r.Error, "__thund") {
		t.Fatalf("slow: %+v", r)
	}
}

// TestStateFolderChecks: the pipeline folder itself is refused as the state
// folder.
func TestStateFolderChecks(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "a.sql"), "SELECT 1 AS id\n")
	if _, err := Open(root, Options{StateDir: root}); err == nil || !strings.Contains(err.Error(), "pipeline folder itself") {
		t.Fatalf("state = root: %v", err)
	}
}
