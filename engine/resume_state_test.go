package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/internal/testutil"
	"github.com/thund-dev/thund/ir"
)

// Resuming stateful streams from --state (resume.go).
//
// Each test runs a pipeline over the first micro-batch files with a state
// folder, then, in a new session as after a restart, with more files. The
// files consumed before are overwritten with poison rows first (valid
// rows of the same types, which would show in every output if they were
// read), and the outputs must equal one run over all the original files
// without a state folder.

// resumeFiles holds the synthetic clicks stream: six micro-batches with
// out-of-order and late rows and rows a drop expectation removes.
var resumeFiles = []string{
	"ts,page,v\n2026-01-01 10:00:10,/a,1\n2026-01-01 10:00:40,/b,2\n2026-01-01 10:01:05,/a,3\n",
	"ts,page,v\n2026-01-01 10:02:10,/a,4\n2026-01-01 10:01:50,/b,5\n2026-01-01 10:03:30,/c,-1\n",
	"ts,page,v\n2026-01-01 10:05:00,/a,6\n2026-01-01 10:00:30,/a,7\n2026-01-01 10:04:10,/b,8\n",
	"ts,page,v\n2026-01-01 10:06:20,/c,9\n2026-01-01 10:03:59,/b,10\n2026-01-01 10:02:30,/a,-2\n",
	"ts,page,v\n2026-01-01 10:09:00,/a,11\n2026-01-01 10:07:00,/b,12\n",
	"ts,page,v\n2026-01-01 10:12:00,/c,13\n2026-01-01 10:06:30,/c,14\n2026-01-01 10:11:00,/b,-3\n",
}

const resumePoison = "ts,page,v\n2030-06-01 00:00:00,/poison,999\n"

// resumeSQL is the synthetic pipeline: one dataset per stateful kind, all
// one trigger per file, so a restart between files changes no trigger.
var resumeSQL = map[string]string{
	"thund.yaml": "backends: [native]\n",
	// append mode, event-time windows closed by the watermark
	"win.sql": `-- @kind: streaming_table
-- @trigger: processing_time '1 second'
-- @watermark: ts, 2 minutes
SELECT date_trunc('minute', ts) AS minute, page, count(*) AS n, sum(v) AS total
FROM STREAM(clicks)
GROUP BY date_trunc('minute', ts), page
`,
	// append mode, groups closed when the watermark passes their latest event
	"grp.sql": `-- @kind: streaming_table
-- @trigger: processing_time '1 second'
-- @watermark: ts, 2 minutes
SELECT page, count(*) AS n, max(v) AS top FROM STREAM(clicks) GROUP BY page
`,
	// update mode with a watermark (late rows dropped)
	"upd.sql": `-- @kind: streaming_table
-- @trigger: processing_time '1 second'
-- @watermark: ts, 2 minutes
-- @output_mode: update
SELECT page, count(*) AS n, sum(v) AS total FROM STREAM(clicks) GROUP BY page
`,
	// complete mode
	"comp.sql": `-- @kind: streaming_table
-- @trigger: processing_time '1 second'
-- @output_mode: complete
SELECT page, max(v) AS top, count(*) AS n FROM STREAM(clicks) GROUP BY page
`,
	// a drop expectation on a plain append
	"kept.sql": `-- @kind: streaming_table
-- @trigger: processing_time '1 second'
-- @expect.positive_v: v > 0 ON VIOLATION DROP ROW
SELECT ts, page, v FROM STREAM(clicks)
`,
	// a streaming table read as a stream, aggregated in update mode
	"down.sql": `-- @kind: streaming_table
-- @trigger: processing_time '1 second'
-- @output_mode: update
SELECT page, sum(v) AS total, count(*) AS n FROM STREAM(kept) GROUP BY page
`,
	// a batch dataset over a resumed one
	"per_page.sql": `-- @kind: materialized_view
SELECT page, sum(n) AS n FROM win GROUP BY page
`,
}

// writeResumePipeline writes the synthetic pipeline with the first n
// micro-batch files.
func writeResumePipeline(t testing.TB, root string, n int) {
	t.Helper()
	for name, text := range resumeSQL {
		writeTestFile(t, filepath.Join(root, name), text)
	}
	addResumeFiles(t, root, 0, n)
}

func resumeFile(root string, i int) string {
	return filepath.Join(root, "samples", "clicks", fmt.Sprintf("b-%03d.csv", i+1))
}

// addResumeFiles writes micro-batch files from..to-1.
func addResumeFiles(t testing.TB, root string, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		writeTestFile(t, resumeFile(root, i), resumeFiles[i])
	}
}

// poison overwrites files with rows that must never reach an output.
func poison(t testing.TB, text string, files ...string) {
	t.Helper()
	for _, f := range files {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// openRestored analyses root and opens a session on it with the state
// folder state, restored; the caller closes the session.
func openRestored(t testing.TB, root, state string) (*analysis.Snapshot, *Session, *RestoreReport) {
	t.Helper()
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(snap.Root, Options{StateDir: state, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Restore(context.Background(), snap.Pipeline)
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	return snap, s, rep
}

// pipelineRun is one run's outcome: its result and every completed
// dataset's rows, sorted, one string per dataset.
type pipelineRun struct {
	res     *Result
	restore *RestoreReport
	rows    map[string]string
}

// runPipeline analyses root and runs it in a new session, with the state
// folder state ("" for none), restoring first.
func runPipeline(t testing.TB, root, state string) pipelineRun {
	t.Helper()
	ctx := context.Background()
	snap, s, restore := openRestored(t, root, state)
	defer s.Close()
	out := pipelineRun{rows: map[string]string{}, restore: restore}
	var err error
	out.res, err = s.Run(ctx, snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range out.res.Order {
		d := out.res.Datasets[k]
		if d.Phase != Completed {
			t.Fatalf("%s: %s %s", d.Name, d.Phase, d.Error)
		}
		out.rows[k] = datasetRows(t, s, d.Name)
	}
	return out
}

func datasetRows(t testing.TB, s *Session, name string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cols, rows, err := queryRows(ctx, conn, "SELECT * FROM "+RelationSQL(name)+" ORDER BY ALL")
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	b.WriteString(strings.Join(cols, ",") + "\n")
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = goldenCell(v)
		}
		b.WriteString(strings.Join(cells, ",") + "\n")
	}
	return b.String()
}

// sameOutputs fails unless got's datasets hold want's rows.
func sameOutputs(t testing.TB, what string, got, want pipelineRun) {
	t.Helper()
	if len(got.rows) != len(want.rows) {
		t.Fatalf("%s: %d datasets, want %d", what, len(got.rows), len(want.rows))
	}
	keys := make([]string, 0, len(want.rows))
	for k := range want.rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got.rows[k] != want.rows[k] {
			t.Errorf("%s: %s differs from one run over all files:\n%s\ngot:\n%s\nwant:\n%s", what, k, firstDiff(got.rows[k], want.rows[k]), got.rows[k], want.rows[k])
		}
	}
}

// consumedIn lists the files the run's increments consumed, per dataset.
func consumedIn(res *Result) map[string][]string {
	out := map[string][]string{}
	for _, inc := range res.Increments {
		k := ir.NameKey(inc.Dataset)
		out[k] = append(out[k], inc.Files...)
	}
	return out
}

// discardEvents returns the "stream state discarded" messages, by dataset.
func discardEvents(res *Result) map[string]string {
	out := map[string]string{}
	for _, e := range res.Events {
		if strings.HasPrefix(e.Message, "stream state discarded") {
			out[ir.NameKey(e.Dataset)] = e.Message
		}
	}
	return out
}

// TestResumeStatefulStreams resumes every stateful kind twice (after files
// 2 and 4 of 6) and compares with one run over the six files.
func TestResumeStatefulStreams(t *testing.T) {
	ref := t.TempDir()
	writeResumePipeline(t, ref, len(resumeFiles))
	want := runPipeline(t, ref, "")
	// The data exercises what the state must carry: late rows dropped
	// against the watermark, windows closed, a row dropped by the
	// expectation.
	late, dropped := int64(0), int64(0)
	for _, inc := range want.res.Increments {
		late += inc.Late
	}
	for _, e := range want.res.Expectations {
		dropped += e.Dropped
	}
	if late == 0 || dropped == 0 || !strings.Contains(want.rows["win"], "/a") {
		t.Fatalf("reference run: %d late, %d dropped, win:\n%s", late, dropped, want.rows["win"])
	}

	root, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
	writeResumePipeline(t, root, 2)
	first := runPipeline(t, root, state)
	if len(discardEvents(first.res)) != 0 {
		t.Fatalf("first run discarded state: %v", discardEvents(first.res))
	}
	for _, step := range [][2]int{{2, 4}, {4, 6}} {
		// The consumed files now hold poison: a run that reads them
		// again shows /poison rows.
		var old []string
		for i := 0; i < step[0]; i++ {
			old = append(old, resumeFile(root, i))
		}
		poison(t, resumePoison, old...)
		addResumeFiles(t, root, step[0], step[1])
		got := runPipeline(t, root, state)
		if ev := discardEvents(got.res); len(ev) != 0 {
			t.Fatalf("run over files %d-%d discarded state: %v", step[0]+1, step[1], ev)
		}
		for k, files := range consumedIn(got.res) {
			for _, f := range files {
				var n int
				if _, err := fmt.Sscanf(filepath.Base(f), "b-%03d.csv", &n); err != nil || n <= step[0] {
					t.Fatalf("%s consumed %s again (files %v)", k, f, files)
				}
			}
		}
		for _, k := range []string{"win", "grp", "upd", "comp", "kept", "down"} {
			r := got.restore.datasetStatus(k)
			if r != RestoreLoaded {
				t.Fatalf("restore %s: %s", k, r)
			}
		}
		if step[1] == len(resumeFiles) {
			sameOutputs(t, "resumed twice", got, want)
		}
		// Each resumed trigger is the reference run's trigger over the
		// same file: same rows in, late, emitted (update mode emits only
		// the changed groups, append mode only the newly closed windows).
		refInc := map[string]string{}
		for _, inc := range want.res.Increments {
			refInc[ir.NameKey(inc.Dataset)+" "+strings.Join(inc.Files, ",")] = incrementString(inc)
		}
		for _, inc := range got.res.Increments {
			k := ir.NameKey(inc.Dataset) + " " + strings.Join(inc.Files, ",")
			if g := incrementString(inc); g != refInc[k] {
				t.Errorf("increment %s:\n got: %s\nwant: %s", k, g, refInc[k])
			}
		}
		for k, rows := range got.rows {
			if strings.Contains(rows, "poison") || strings.Contains(rows, "999") {
				t.Fatalf("%s read a consumed file:\n%s", k, rows)
			}
		}
	}

	// The state on disk: state files listed by the manifests, and what
	// each kind keeps.
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(snap.Root, Options{StateDir: state, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantTables := map[string][]string{
		"win":  {"win/done", "win/seen:clicks", "win/wm"},
		"grp":  {"grp/done", "grp/seen:clicks", "grp/wm"},
		"upd":  {"upd/prev", "upd/seen:clicks", "upd/wm"},
		"comp": {"comp/seen:clicks"},
		"kept": nil,
		"down": {"down/prev", "down/seen:kept"},
	}
	for name, tables := range wantTables {
		m := mustManifest(t, s, name)
		var got []string
		for _, st := range m.StateTables {
			got = append(got, st.Name)
			if _, err := os.Stat(filepath.Join(state, "outputs", name, st.File)); err != nil {
				t.Fatalf("%s: state file %s: %v", name, st.File, err)
			}
		}
		if strings.Join(got, " ") != strings.Join(tables, " ") || m.Definition == "" || len(m.Consumed["clicks"]) != len(resumeFiles) {
			t.Fatalf("%s: state tables %v (want %v), definition %q, consumed %v", name, got, tables, m.Definition, m.Consumed)
		}
	}

	s.Close()

	// A run with no new file changes nothing and consumes nothing.
	again := runPipeline(t, root, state)
	if len(again.res.Increments) != 0 {
		t.Fatalf("a run without new files ran triggers: %+v", again.res.Increments)
	}
	sameOutputs(t, "run without new files", again, want)
}

// incrementString renders what a trigger took in and emitted, rows sorted.
func incrementString(inc Increment) string {
	rows := make([]string, len(inc.Rows))
	for i, r := range inc.Rows {
		cells := make([]string, len(r))
		for j, v := range r {
			cells[j] = goldenCell(v)
		}
		rows[i] = strings.Join(cells, ",")
	}
	sort.Strings(rows)
	return fmt.Sprintf("arrived %d, late %d, emitted %d: %s", inc.Arrived, inc.Late, inc.Emitted, strings.Join(rows, "; "))
}

// datasetStatus returns what Restore did with dataset key.
func (r *RestoreReport) datasetStatus(key string) RestoreStatus {
	for _, d := range r.Datasets {
		if ir.NameKey(d.Name) == key {
			return d.Status
		}
	}
	return ""
}

// TestResumeChangedDefinition changes one dataset's query and another's
// watermark between runs: those two replay their streams from the start
// (with an event saying so); the others resume.
func TestResumeChangedDefinition(t *testing.T) {
	root, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
	writeResumePipeline(t, root, 3)
	runPipeline(t, root, state)
	addResumeFiles(t, root, 3, len(resumeFiles))
	writeTestFile(t, filepath.Join(root, "comp.sql"), strings.Replace(resumeSQL["comp.sql"], "max(v)", "min(v)", 1))
	writeTestFile(t, filepath.Join(root, "upd.sql"), strings.Replace(resumeSQL["upd.sql"], "2 minutes", "3 minutes", 1))
	writeTestFile(t, filepath.Join(root, "kept.sql"), strings.Replace(resumeSQL["kept.sql"], "v > 0", "v > 1", 1))
	got := runPipeline(t, root, state)

	ref := t.TempDir()
	writeResumePipeline(t, ref, len(resumeFiles))
	writeTestFile(t, filepath.Join(ref, "comp.sql"), strings.Replace(resumeSQL["comp.sql"], "max(v)", "min(v)", 1))
	writeTestFile(t, filepath.Join(ref, "upd.sql"), strings.Replace(resumeSQL["upd.sql"], "2 minutes", "3 minutes", 1))
	writeTestFile(t, filepath.Join(ref, "kept.sql"), strings.Replace(resumeSQL["kept.sql"], "v > 0", "v > 1", 1))
	want := runPipeline(t, ref, "")
	// down reads kept as a stream and resumes: like a Spark checkpoint,
	// it does not take kept's replayed commits for files it consumed, so
	// its rows for files 1-3 follow the old rule. Everything else equals
	// one run under the new definitions.
	if got.rows["down"] == want.rows["down"] {
		t.Fatalf("down should keep what it consumed under the old rule:\n%s", got.rows["down"])
	}
	delete(got.rows, "down")
	delete(want.rows, "down")
	sameOutputs(t, "after a definition change", got, want)

	ev := discardEvents(got.res)
	if len(ev) != 3 || !strings.Contains(ev["comp"], "definition changed") || !strings.Contains(ev["upd"], "definition changed") || !strings.Contains(ev["kept"], "definition changed") {
		t.Fatalf("discard events: %v", ev)
	}
	consumed := consumedIn(got.res)
	if len(consumed["comp"]) != len(resumeFiles) || len(consumed["upd"]) != len(resumeFiles) || len(consumed["kept"]) != len(resumeFiles) ||
		len(consumed["win"]) != 3 || len(consumed["down"]) != 3 {
		t.Fatalf("consumed: %v", consumed)
	}
}

// TestResumeCDC applies the cdc testdata pipeline's changelog one batch
// per run, plus a fourth batch of late changes for deleted keys, and
// compares with one run over the four batches.
func TestResumeCDC(t *testing.T) {
	const late = "customer_id,name,email,city,_change_type,seq\n" +
		"2,Bilal Khan,bilal.khan@example.com,Paris,INSERT,5\n" + // older than Bilal's delete (11)
		"7,Gaspard Roy,gaspard.roy@example.com,Toulouse,UPDATE_AFTER,14\n" + // older than Gaspard's delete (15)
		"1,Alice Martin,alice@late.example,Lyon,UPDATE_AFTER,2\n" // older than Alice's latest
	const cdcPoison = "customer_id,name,email,city,_change_type,seq\n99,Poison,p@x,Nowhere,INSERT,100\n1,Poison,p@x,Nowhere,DELETE,1000\n"

	ref := testutil.CopyToTemp(t, filepath.Join("..", "testdata", "cdc"))
	folder := func(root string) string { return filepath.Join(root, "samples", "customer_changes") }
	writeTestFile(t, filepath.Join(folder(ref), "batch-004.csv"), late)
	want := runPipeline(t, ref, "")

	root := testutil.CopyToTemp(t, filepath.Join("..", "testdata", "cdc"))
	held := t.TempDir()
	for _, b := range []string{"batch-002.csv", "batch-003.csv"} {
		if err := os.Rename(filepath.Join(folder(root), b), filepath.Join(held, b)); err != nil {
			t.Fatal(err)
		}
	}
	state := filepath.Join(t.TempDir(), "state")
	runPipeline(t, root, state)
	var got pipelineRun
	for i, next := range []string{"batch-002.csv", "batch-003.csv", "batch-004.csv"} {
		poison(t, cdcPoison, filepath.Join(folder(root), fmt.Sprintf("batch-%03d.csv", i+1)))
		if next == "batch-004.csv" {
			writeTestFile(t, filepath.Join(folder(root), next), late)
		} else if err := os.Rename(filepath.Join(held, next), filepath.Join(folder(root), next)); err != nil {
			t.Fatal(err)
		}
		got = runPipeline(t, root, state)
		if ev := discardEvents(got.res); len(ev) != 0 {
			t.Fatalf("%s: state discarded: %v", next, ev)
		}
		for k, files := range consumedIn(got.res) {
			if len(files) != 1 || filepath.Base(files[0]) != next {
				t.Fatalf("%s: %s consumed %v", next, k, files)
			}
		}
	}
	sameOutputs(t, "CDC resumed after each batch", got, want)
	for _, k := range []string{"customers_scd1", "customers_scd2"} {
		if strings.Contains(got.rows[k], "Poison") {
			t.Fatalf("%s read a consumed file:\n%s", k, got.rows[k])
		}
	}
	// The tombstones held: deleted customers stay deleted, Alice keeps her
	// latest row.
	scd1 := got.rows["customers_scd1"]
	if strings.Contains(scd1, "Bilal") || strings.Contains(scd1, "Gaspard") || strings.Contains(scd1, "alice@late") {
		t.Fatalf("a late change resurrected or overwrote a row:\n%s", scd1)
	}
	if !strings.Contains(got.rows["customers_scd2"], "alice@late") {
		t.Fatalf("SCD 2 did not file Alice's late change in her history:\n%s", got.rows["customers_scd2"])
	}
}

// TestResumeClickstream resumes the clickstream testdata pipeline after two
// of its four micro-batches and compares with one run over all four.
func TestResumeClickstream(t *testing.T) {
	ref := testutil.CopyToTemp(t, filepath.Join("..", "testdata", "clickstream"))
	// page_views_per_minute takes its stream in one available_now trigger;
	// a restart adds a trigger boundary. One trigger per commit makes one
	// run and the resumed runs see the same triggers.
	perTrigger := func(root string) {
		f := filepath.Join(root, "page_views_per_minute.sql")
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeTestFile(t, f, strings.Replace(string(b), "-- @output_mode: append", "-- @output_mode: append\n-- @trigger: processing_time '10 seconds'", 1))
	}
	perTrigger(ref)
	want := runPipeline(t, ref, "")

	root := testutil.CopyToTemp(t, filepath.Join("..", "testdata", "clickstream"))
	perTrigger(root)
	clicks := filepath.Join(root, "samples", "clicks")
	held := t.TempDir()
	for _, b := range []string{"batch-003.json", "batch-004.json"} {
		if err := os.Rename(filepath.Join(clicks, b), filepath.Join(held, b)); err != nil {
			t.Fatal(err)
		}
	}
	state := filepath.Join(t.TempDir(), "state")
	runPipeline(t, root, state)
	first, err := os.ReadFile(filepath.Join(clicks, "batch-001.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Poison: the same shape, another user and page.
	line := strings.SplitN(string(first), "\n", 2)[0]
	var poisoned strings.Builder
	poisoned.WriteString(strings.NewReplacer(`"/`, `"/poison-`).Replace(line) + "\n")
	poison(t, poisoned.String(), filepath.Join(clicks, "batch-001.json"), filepath.Join(clicks, "batch-002.json"))
	for _, b := range []string{"batch-003.json", "batch-004.json"} {
		if err := os.Rename(filepath.Join(held, b), filepath.Join(clicks, b)); err != nil {
			t.Fatal(err)
		}
	}
	got := runPipeline(t, root, state)
	if ev := discardEvents(got.res); len(ev) != 0 {
		t.Fatalf("state discarded: %v", ev)
	}
	for k, files := range consumedIn(got.res) {
		for _, f := range files {
			if strings.HasSuffix(f, "batch-001.json") || strings.HasSuffix(f, "batch-002.json") {
				t.Fatalf("%s consumed %s again", k, f)
			}
		}
	}
	sameOutputs(t, "clickstream resumed", got, want)
	for k, rows := range got.rows {
		if strings.Contains(rows, "poison") {
			t.Fatalf("%s read a consumed file:\n%s", k, rows)
		}
	}
}

// Crash between the stream state and the manifest.

const (
	resumeCrashBase = "THUND_RESUME_CRASH_BASE"
	resumeCrashAt   = "THUND_RESUME_CRASH_AT"
)

// TestResumeCrashChild is TestResumeCrash's child process: it restores
// and runs the pipeline, killing itself at the nth passage of a commit
// step.
func TestResumeCrashChild(t *testing.T) {
	base := os.Getenv(resumeCrashBase)
	if base == "" {
		t.Skip("child process of TestResumeCrash")
	}
	step, nth, _ := strings.Cut(os.Getenv(resumeCrashAt), ":")
	var n int
	fmt.Sscan(nth, &n)
	seen := 0
	stateCrashHook = func(s string) {
		if s == step {
			if seen++; seen == n {
				self, _ := os.FindProcess(os.Getpid())
				self.Kill()
				select {}
			}
		}
	}
	runPipeline(t, filepath.Join(base, "root"), filepath.Join(base, "state"))
	fmt.Println("FINISHED")
}

// TestResumeCrash kills a run (SIGKILL) after it wrote a dataset's stream
// state files but before the manifest that lists them, at several points;
// the next run must find consistent state, sweep the unlisted files and
// resume to the outputs of one run over all files.
func TestResumeCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	ref := t.TempDir()
	writeResumePipeline(t, ref, len(resumeFiles))
	want := runPipeline(t, ref, "")

	// The state after files 1-3, copied for each crash.
	seed := t.TempDir()
	writeResumePipeline(t, filepath.Join(seed, "root"), 3)
	runPipeline(t, filepath.Join(seed, "root"), filepath.Join(seed, "state"))
	addResumeFiles(t, filepath.Join(seed, "root"), 3, len(resumeFiles))
	var old []string
	for i := 0; i < 3; i++ {
		old = append(old, resumeFile(filepath.Join(seed, "root"), i))
	}
	poison(t, resumePoison, old...)

	// Datasets commit in run order; six of them keep stream state.
	for _, at := range []string{"state-published:1", "state-published:4", "state-published:6", "manifest-written:5", "manifest-written:6"} {
		t.Run(at, func(t *testing.T) {
			base := t.TempDir()
			testutil.CopyTree(t, seed, base)
			cmd := exec.Command(os.Args[0], "-test.run=^TestResumeCrashChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), resumeCrashBase+"="+base, resumeCrashAt+"="+at)
			out, err := cmd.CombinedOutput()
			if err == nil || cmd.ProcessState.ExitCode() != -1 || strings.Contains(string(out), "FINISHED") {
				t.Fatalf("child was not killed at %s: %v\n%s", at, err, out)
			}
			// Every manifest reads and lists files that exist; the killed
			// commit left state files no manifest lists.
			state := filepath.Join(base, "state")
			outputs := filepath.Join(state, "outputs")
			dirs, err := os.ReadDir(outputs)
			if err != nil {
				t.Fatal(err)
			}
			unlisted := 0
			for _, e := range dirs {
				dir := filepath.Join(outputs, e.Name())
				m, err := readManifest(dir)
				if err != nil || m == nil {
					t.Fatalf("%s: manifest %v, %v", e.Name(), m, err)
				}
				listed := map[string]bool{manifestFile: true}
				for _, p := range m.Parts {
					listed[p.File] = true
				}
				for _, st := range m.StateTables {
					listed[st.File] = true
				}
				for f := range listed {
					if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
						t.Fatalf("%s lists a missing file: %v", e.Name(), err)
					}
				}
				for _, f := range dirNames(t, dir) {
					if !listed[f] {
						unlisted++
					}
				}
			}
			if unlisted == 0 {
				t.Fatalf("the kill at %s left no uncommitted file: it did not land between the state and the manifest", at)
			}
			got := runPipeline(t, filepath.Join(base, "root"), state)
			if len(got.restore.Removed) == 0 {
				t.Fatalf("restore swept nothing")
			}
			sameOutputs(t, "resumed after a crash at "+at, got, want)
			for k, rows := range got.rows {
				if strings.Contains(rows, "poison") {
					t.Fatalf("%s read a consumed file:\n%s", k, rows)
				}
			}
			for _, e := range dirs {
				dir := filepath.Join(outputs, e.Name())
				m, _ := readManifest(dir)
				n := 1 + len(m.Parts) + len(m.StateTables)
				if got := dirNames(t, dir); len(got) != n {
					t.Fatalf("%s holds %v, its manifest lists %d files", e.Name(), got, n)
				}
			}
		})
	}
}

// TestResumeStreamJoin resumes a stream-stream join (the query over all
// rows kept, new rows appended), including a run where one stream has no
// new file.
func TestResumeStreamJoin(t *testing.T) {
	write := func(root string, lefts, rights []int) {
		writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
		writeTestFile(t, filepath.Join(root, "pairs.sql"), "-- @kind: streaming_table\n-- @trigger: processing_time '1 second'\n"+
			"SELECT l.id, l.a, r.b FROM STREAM(lefts) AS l JOIN STREAM(rights) AS r ON l.id = r.id\n")
		for _, i := range lefts {
			writeTestFile(t, filepath.Join(root, "samples", "lefts", fmt.Sprintf("l-%03d.csv", i)), fmt.Sprintf("id,a\n%d,left%d\n%d,left%d\n", i, i, i+1, i))
		}
		for _, i := range rights {
			writeTestFile(t, filepath.Join(root, "samples", "rights", fmt.Sprintf("r-%03d.csv", i)), fmt.Sprintf("id,b\n%d,right%d\n%d,right%d\n", i+1, i, i+2, i))
		}
	}
	ref := t.TempDir()
	write(ref, []int{1, 2, 3}, []int{1, 2, 3})
	want := runPipeline(t, ref, "")
	if strings.Count(want.rows["pairs"], "\n") < 4 {
		t.Fatalf("reference join too small:\n%s", want.rows["pairs"])
	}

	root, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
	write(root, []int{1}, []int{1})
	runPipeline(t, root, state)
	poisonJoin := func() {
		for _, f := range []string{"lefts/l-001.csv", "lefts/l-002.csv", "lefts/l-003.csv"} {
			if _, err := os.Stat(filepath.Join(root, "samples", f)); err == nil {
				poison(t, "id,a\n1,poison\n", filepath.Join(root, "samples", f))
			}
		}
		for _, f := range []string{"rights/r-001.csv", "rights/r-002.csv"} {
			if _, err := os.Stat(filepath.Join(root, "samples", f)); err == nil {
				poison(t, "id,b\n1,poison\n", filepath.Join(root, "samples", f))
			}
		}
	}
	poisonJoin()
	write(root, []int{2, 3}, []int{2})
	got := runPipeline(t, root, state)
	if ev := discardEvents(got.res); len(ev) != 0 {
		t.Fatalf("state discarded: %v", ev)
	}
	if files := consumedIn(got.res)["pairs"]; len(files) != 3 {
		t.Fatalf("second run consumed %v", files)
	}
	poisonJoin()
	// Only the right stream has a new file now.
	writeTestFile(t, filepath.Join(root, "samples", "rights", "r-003.csv"), "id,b\n4,right3\n5,right3\n")
	got = runPipeline(t, root, state)
	if files := consumedIn(got.res)["pairs"]; len(files) != 1 || !strings.HasSuffix(files[0], "r-003.csv") {
		t.Fatalf("third run consumed %v", files)
	}
	sameOutputs(t, "join resumed", got, want)
	if strings.Contains(got.rows["pairs"], "poison") {
		t.Fatalf("a consumed file was read again:\n%s", got.rows["pairs"])
	}
}

// TestResumeDamagedState deletes a committed state file: that dataset
// replays its stream from the start (with an event), the others resume.
func TestResumeDamagedState(t *testing.T) {
	ref := t.TempDir()
	writeResumePipeline(t, ref, len(resumeFiles))
	want := runPipeline(t, ref, "")

	root, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
	writeResumePipeline(t, root, 3)
	runPipeline(t, root, state)
	dir := filepath.Join(state, "outputs", "win")
	m, err := readManifest(dir)
	if err != nil || m == nil || len(m.StateTables) == 0 {
		t.Fatalf("win manifest: %+v %v", m, err)
	}
	if err := os.Remove(filepath.Join(dir, m.StateTables[0].File)); err != nil {
		t.Fatal(err)
	}
	addResumeFiles(t, root, 3, len(resumeFiles))
	got := runPipeline(t, root, state)
	ev := discardEvents(got.res)
	if len(ev) != 1 || !strings.Contains(ev["win"], "unreadable") {
		t.Fatalf("discard events: %v", ev)
	}
	consumed := consumedIn(got.res)
	if len(consumed["win"]) != len(resumeFiles) || len(consumed["upd"]) != len(resumeFiles)-3 {
		t.Fatalf("consumed: %v", consumed)
	}
	sameOutputs(t, "after losing a state file", got, want)
}

// TestResumeMultiFlow resumes a streaming table filled by two flows from
// two folders, and an update-mode aggregate whose grouping is not an
// output column (its target is replaced by the result on each trigger).
func TestResumeMultiFlow(t *testing.T) {
	write := func(root string, clicks, archive int) {
		writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
		writeTestFile(t, filepath.Join(root, "everything.sql"), "-- @kind: streaming_table\n-- @trigger: processing_time '1 second'\nSELECT page, v FROM STREAM(clicks)\n")
		writeTestFile(t, filepath.Join(root, "backfill.sql"), "-- @target: everything\n-- @flow: backfill\n-- @trigger: processing_time '1 second'\nSELECT page, v * 100 AS v FROM STREAM(archive)\n")
		writeTestFile(t, filepath.Join(root, "nokey.sql"), "-- @kind: streaming_table\n-- @trigger: processing_time '1 second'\n-- @output_mode: update\nSELECT count(*) AS n, sum(v) AS total FROM STREAM(clicks) GROUP BY page\n")
		for i := 0; i < clicks; i++ {
			writeTestFile(t, filepath.Join(root, "samples", "clicks", fmt.Sprintf("b-%03d.csv", i+1)), fmt.Sprintf("page,v\n/p%d,%d\n/a,%d\n", i%2, i+1, 10*(i+1)))
		}
		for i := 0; i < archive; i++ {
			writeTestFile(t, filepath.Join(root, "samples", "archive", fmt.Sprintf("a-%03d.csv", i+1)), fmt.Sprintf("page,v\n/old%d,%d\n", i, i+1))
		}
	}
	ref := t.TempDir()
	write(ref, 4, 3)
	want := runPipeline(t, ref, "")

	root, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
	write(root, 1, 1)
	runPipeline(t, root, state)
	for _, f := range []string{"clicks/b-001.csv", "archive/a-001.csv"} {
		poison(t, "page,v\n/poison,999\n", filepath.Join(root, "samples", f))
	}
	for i := 1; i < 4; i++ {
		writeTestFile(t, filepath.Join(root, "samples", "clicks", fmt.Sprintf("b-%03d.csv", i+1)), fmt.Sprintf("page,v\n/p%d,%d\n/a,%d\n", i%2, i+1, 10*(i+1)))
	}
	for i := 1; i < 3; i++ {
		writeTestFile(t, filepath.Join(root, "samples", "archive", fmt.Sprintf("a-%03d.csv", i+1)), fmt.Sprintf("page,v\n/old%d,%d\n", i, i+1))
	}
	got := runPipeline(t, root, state)
	if ev := discardEvents(got.res); len(ev) != 0 {
		t.Fatalf("state discarded: %v", ev)
	}
	consumed := consumedIn(got.res)
	if len(consumed["everything"]) != 5 || len(consumed["nokey"]) != 3 {
		t.Fatalf("consumed: %v", consumed)
	}
	sameOutputs(t, "multi-flow resumed", got, want)
	for k, rows := range got.rows {
		if strings.Contains(rows, "poison") || strings.Contains(rows, "999") {
			t.Fatalf("%s read a consumed file:\n%s", k, rows)
		}
	}
}

// TestResumeIgnoresCommentsRefusesLoss: a comment or whitespace added to a
// streaming query keeps its state (the consumed files are poisoned, so a
// replay would show); a real change with a consumed file gone fails the
// dataset, naming the file, instead of rebuilding it without that file's
// rows.
func TestResumeIgnoresCommentsRefusesLoss(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	writeResumePipeline(t, root, 3)
	runPipeline(t, root, state)
	want := runPipeline(t, root, "")

	kept := filepath.Join(root, "kept.sql")
	text, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	commented := strings.Replace(string(text), "SELECT ts, page, v", "SELECT ts,   -- when\n  page, v", 1)
	writeTestFile(t, kept, commented)
	poison(t, resumePoison, resumeFile(root, 0), resumeFile(root, 1), resumeFile(root, 2))
	got := runPipeline(t, root, state)
	for _, e := range got.res.Events {
		if e.Phase == Planning && strings.Contains(e.Message, "discarded") {
			t.Errorf("a comment discarded the state: %s: %s", e.Dataset, e.Message)
		}
	}
	if got.rows["kept"] != want.rows["kept"] {
		t.Errorf("kept after a comment edit:\n%s\nwant\n%s", got.rows["kept"], want.rows["kept"])
	}

	// A real change, with the first batch archived away.
	writeTestFile(t, kept, strings.Replace(commented, "v > 0", "v > 1", 1))
	if err := os.Remove(resumeFile(root, 0)); err != nil {
		t.Fatal(err)
	}
	snap, s, _ := openRestored(t, root, state)
	defer s.Close()
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Datasets["kept"]; r == nil || r.Phase != Failed || !strings.Contains(r.Error, "b-001.csv") || !strings.Contains(r.Error, "would lose") {
		t.Fatalf("kept after a change with a batch gone: %+v", r)
	}
}
