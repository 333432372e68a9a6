package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/ir"
)

// runSession analyses root and runs it (the datasets of only, all when
// nil) in session s as watch mode does after a save (no restore),
// failing unless every dataset completed.
func runSession(t *testing.T, s *Session, root string, only ...string) *Result {
	t.Helper()
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var opts RunOptions
	for _, k := range only {
		if opts.Only == nil {
			opts.Only = map[string]bool{}
		}
		opts.Only[k] = true
	}
	res, err := s.Run(context.Background(), snap.Pipeline, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range res.Order {
		if d := res.Datasets[k]; d.Phase != Completed {
			t.Fatalf("%s %s: %s", d.Name, d.Phase, d.Error)
		}
	}
	for _, e := range res.Events {
		if strings.Contains(e.Message, "stream state discarded") {
			t.Errorf("%s replayed instead of resuming: %s", e.Dataset, e.Message)
		}
	}
	return res
}

// readBy returns the base names of the files dataset's increments read.
func readBy(res *Result, dataset string) string {
	var files []string
	for _, inc := range res.Increments {
		if ir.NameKey(inc.Dataset) == ir.NameKey(dataset) {
			for _, f := range inc.Files {
				files = append(files, filepath.Base(f))
			}
		}
	}
	return strings.Join(sortedUnique(files), " ")
}

// TestRelationsFollowNames: in one session (watch mode, each run limited
// to what a save changed), a streaming table bronze.events kept under
// its last part moves to its qualified name when silver.events appears,
// and back when it goes, keeping its rows and its stream state: a run
// that does not rebuild it leaves its rows where its readers find them
// (silver.events, new, reads all of them; the view over it is defined
// again over its new relation), and every run that does resumes it,
// reading only the micro-batch that is new.
func TestRelationsFollowNames(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "bronze.sql"), "CREATE STREAMING TABLE bronze.events AS SELECT id, v FROM STREAM(feed);\n")
	writeTestFile(t, filepath.Join(root, "total.sql"), "CREATE VIEW total AS SELECT sum(v) AS v FROM bronze.events;\n")
	writeTestFile(t, filepath.Join(root, "samples", "feed", "001.csv"), "id,v\n1,10\n")
	s, err := Open(root, Options{StateDir: t.TempDir(), Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	runSession(t, s, root)
	if got := RelationSQL("bronze.events"); got != `"events"` || s.RelationSQL("bronze.events") != got {
		t.Errorf("alone, bronze.events is kept as %s (session: %s), want its last part", got, s.RelationSQL("bronze.events"))
	}

	silver := filepath.Join(root, "silver.sql")
	writeTestFile(t, silver, "CREATE STREAMING TABLE silver.events AS SELECT id, v * 2 AS v FROM STREAM(bronze.events);\n")
	runSession(t, s, root, "silver.events")
	if got := RelationSQL("bronze.events"); got != `"bronze.events"` || s.RelationSQL("bronze.events") != got {
		t.Errorf("beside silver.events, bronze.events is kept as %s (session: %s), want its qualified name", got, s.RelationSQL("bronze.events"))
	}
	for name, want := range map[string]string{"bronze.events": "id,v\n1,10\n", "silver.events": "id,v\n1,20\n", "total": "v\n10\n"} {
		if got := datasetRows(t, s, name); got != want {
			t.Errorf("%s holds\n%swant\n%s", name, got, want)
		}
	}

	writeTestFile(t, filepath.Join(root, "samples", "feed", "002.csv"), "id,v\n2,20\n")
	res := runSession(t, s, root, "bronze.events", "silver.events", "total")
	if got := readBy(res, "bronze.events"); got != "002.csv" {
		t.Errorf("bronze.events read %q beside silver.events, want the new file only", got)
	}
	for name, want := range map[string]string{"bronze.events": "id,v\n1,10\n2,20\n", "silver.events": "id,v\n1,20\n2,40\n", "total": "v\n30\n"} {
		if got := datasetRows(t, s, name); got != want {
			t.Errorf("%s holds\n%swant\n%s", name, got, want)
		}
	}

	if err := os.Remove(silver); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(root, "samples", "feed", "003.csv"), "id,v\n3,30\n")
	res = runSession(t, s, root, "bronze.events", "total")
	if got := readBy(res, "bronze.events"); got != "003.csv" {
		t.Errorf("bronze.events read %q after silver.events went, want the new file only", got)
	}
	if got := RelationSQL("bronze.events"); got != `"events"` {
		t.Errorf("alone again, bronze.events is kept as %s, want its last part", got)
	}
	for name, want := range map[string]string{"bronze.events": "id,v\n1,10\n2,20\n3,30\n", "total": "v\n60\n"} {
		if got := datasetRows(t, s, name); got != want {
			t.Errorf("%s holds\n%swant\n%s", name, got, want)
		}
	}
}

// TestSourceBesideItsStream: the source raw.events streamed into the
// streaming table events (which keeps the last part) is registered
// without replacing the table: a second run of the session resumes
// events from its rows and reads only the new micro-batch.
func TestSourceBesideItsStream(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "events.sql"), "CREATE STREAMING TABLE events AS SELECT id, upper(kind) AS kind FROM STREAM(raw.events);\n")
	writeTestFile(t, filepath.Join(root, "samples", "raw.events", "001.csv"), "id,kind\n1,a\n")
	s, err := Open(root, Options{StateDir: t.TempDir(), Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runSession(t, s, root)
	writeTestFile(t, filepath.Join(root, "samples", "raw.events", "002.csv"), "id,kind\n2,b\n")
	res := runSession(t, s, root)
	if got := readBy(res, "events"); got != "002.csv" {
		t.Errorf("events read %q, want the new file only", got)
	}
	if got := datasetRows(t, s, "events"); got != "id,kind\n1,A\n2,B\n" {
		t.Errorf("events holds\n%s", got)
	}
}

// TestSeenStateOfLastPart: a stream state committed when a stream's kept
// rows were named by the last part of its name (comp/seen:clicks for
// STREAM(raw.clicks)) still resumes: the next run reads only the new
// file and aggregates over every row.
func TestSeenStateOfLastPart(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "comp.sql"), "-- @kind: streaming_table\n-- @output_mode: complete\nSELECT page, count(*) AS n FROM STREAM(raw.clicks) GROUP BY page\n")
	writeTestFile(t, filepath.Join(root, "samples", "raw.clicks", "001.csv"), "page,v\na,1\nb,2\n")
	medallionSession(t, root, state, func(s *Session, res *Result) {
		m, err := s.OutputManifest("comp")
		if err != nil || m == nil {
			t.Fatalf("no manifest: %v", err)
		}
		renamed := false
		for i, st := range m.StateTables {
			if st.Name == "comp/seen:raw.clicks" {
				m.StateTables[i].Name, renamed = "comp/seen:clicks", true
			}
		}
		if !renamed {
			t.Fatalf("state tables %v lack comp/seen:raw.clicks", m.StateTables)
		}
		dir, _ := s.outputDir("comp")
		if err := writeManifest(dir, m); err != nil {
			t.Fatal(err)
		}
	})
	writeTestFile(t, filepath.Join(root, "samples", "raw.clicks", "002.csv"), "page,v\na,3\n")
	medallionSession(t, root, state, func(s *Session, res *Result) {
		if got := readBy(res, "comp"); got != "002.csv" {
			t.Errorf("comp read %q, want the new file only", got)
		}
		if got := datasetRows(t, s, "comp"); got != "page,n\na,2\nb,1\n" {
			t.Errorf("comp holds\n%s", got)
		}
	})
}

// medallionSession opens a session on root with state, restores, runs
// (every dataset must complete without replaying) and hands the session
// and result to then before closing it.
func medallionSession(t *testing.T, root, state string, then func(*Session, *Result)) {
	t.Helper()
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(snap.Root, Options{StateDir: state, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Restore(context.Background(), snap.Pipeline); err != nil {
		t.Fatal(err)
	}
	then(s, runSession(t, s, root))
}

// TestRelationsFollowNamesAcrossSessions: a session on a state folder
// that does not restore (watch mode with --state) finds a streaming table
// where the session before kept it, though its relation changed since
// (silver.events now ends like bronze.events): it resumes from its rows,
// reading only the new micro-batch.
func TestRelationsFollowNamesAcrossSessions(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "bronze.sql"), "CREATE STREAMING TABLE bronze.events AS SELECT id, v FROM STREAM(feed);\n")
	writeTestFile(t, filepath.Join(root, "samples", "feed", "001.csv"), "id,v\n1,10\n")
	session := func(check func(*Session, *Result)) {
		s, err := Open(root, Options{StateDir: state, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		check(s, runSession(t, s, root))
	}
	session(func(*Session, *Result) {})
	writeTestFile(t, filepath.Join(root, "silver.sql"), "CREATE STREAMING TABLE silver.events AS SELECT id, v * 2 AS v FROM STREAM(bronze.events);\n")
	writeTestFile(t, filepath.Join(root, "samples", "feed", "002.csv"), "id,v\n2,20\n")
	session(func(s *Session, res *Result) {
		if got := readBy(res, "bronze.events"); got != "002.csv" {
			t.Errorf("bronze.events read %q, want the new file only", got)
		}
		for name, want := range map[string]string{"bronze.events": "id,v\n1,10\n2,20\n", "silver.events": "id,v\n1,20\n2,40\n"} {
			if got := datasetRows(t, s, name); got != want {
				t.Errorf("%s holds\n%swant\n%s", name, got, want)
			}
		}
	})
}

// TestErrorsNameQualifiedNames: a streaming or apply-changes flow's error
// names the streams and targets kept under their qualified names by
// those names (the stream landing.changes beside the table changes, the
// target silver.cur beside bronze.cur), never an internal table.
func TestErrorsNameQualifiedNames(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"watermark", map[string]string{
			"changes.sql":                   "-- @kind: streaming_table\n-- @watermark: v, 1 minute\nSELECT v, count(*) AS n FROM STREAM(landing.changes) GROUP BY v\n",
			"samples/landing.changes/1.csv": "id,v,seq\n1,abc,1\n",
		}, "watermark column v of stream landing.changes is STRING"},
		{"cdc", map[string]string{
			"bronze.sql":         "CREATE STREAMING TABLE bronze.cur AS SELECT * FROM STREAM(feed);\n",
			"silver.sql":         "CREATE STREAMING TABLE silver.cur (id INT, v INT);\nCREATE FLOW f AS AUTO CDC INTO silver.cur FROM STREAM(bronze.cur) KEYS (id) SEQUENCE BY seq STORED AS SCD TYPE 2;\n",
			"samples/feed/1.csv": "id,v,seq\n1,abc,1\n",
		}, "flow f (into silver.cur): apply changes to silver.cur: [CAST_INVALID_INPUT] The value 'abc' of the type \"STRING\" cannot be cast to \"INT\""},
	} {
		c.files["thund.yaml"] = "backends: [native]\n"
		snap, s := load(t, writePipeline(t, c.files))
		res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var msgs []string
		for _, k := range res.Order {
			if d := res.Datasets[k]; d.Phase == Failed {
				msgs = append(msgs, d.Error)
			}
		}
		got := strings.Join(msgs, "\n")
		if !strings.Contains(got, c.want) || strings.Contains(got, "__thund") {
			t.Errorf("%s: %q, want %q and no internal name", c.name, got, c.want)
		}
	}
}

// TestRelationCaseChange: a dataset kept under its qualified name whose
// definition writes the name in other capitals in the next run of the
// session moves nothing (DuckDB's names ignore case) and runs.
func TestRelationCaseChange(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "silver.sql"), "CREATE MATERIALIZED VIEW silver.events AS SELECT 1 AS id;\n")
	writeTestFile(t, filepath.Join(root, "gold.sql"), "CREATE MATERIALIZED VIEW gold.events AS SELECT id + 1 AS id FROM silver.events;\n")
	s, err := Open(root, Options{StateDir: t.TempDir(), Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runSession(t, s, root)
	writeTestFile(t, filepath.Join(root, "gold.sql"), "CREATE MATERIALIZED VIEW Gold.Events AS SELECT id + 2 AS id FROM silver.events;\n")
	runSession(t, s, root, "gold.events")
	if got := datasetRows(t, s, "gold.events"); got != "id\n3\n" {
		t.Errorf("Gold.Events holds\n%s", got)
	}
}

// TestSourceBesideItsStreamCapitalised: as TestSourceBesideItsStream,
// with the table named in capitals (Events): the source raw.events is
// still registered beside it, not over it.
func TestSourceBesideItsStreamCapitalised(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "events.sql"), "CREATE STREAMING TABLE Events AS SELECT id FROM STREAM(raw.events);\n")
	writeTestFile(t, filepath.Join(root, "samples", "raw.events", "001.csv"), "id\n1\n")
	s, err := Open(root, Options{StateDir: t.TempDir(), Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runSession(t, s, root)
	writeTestFile(t, filepath.Join(root, "samples", "raw.events", "002.csv"), "id\n2\n")
	res := runSession(t, s, root)
	if got := readBy(res, "events"); got != "002.csv" {
		t.Errorf("Events read %q, want the new file only", got)
	}
	if got := datasetRows(t, s, "Events"); got != "id\n1\n2\n" {
		t.Errorf("Events holds\n%s", got)
	}
}
