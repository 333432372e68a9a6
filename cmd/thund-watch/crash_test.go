package main

// Crash consistency of --state, through the command line: `thund-watch
// --once --state DIR` runs in a child process (this test binary running
// TestStateCrashChild, which calls the same run function as main) and is
// killed with SIGKILL at random moments, again and again, while new
// micro-batches keep arriving. After every child the state folder must be
// consistent: each manifest parses and lists parts that exist, are
// complete Parquet and hold the rows it says; the streaming tables hold
// exactly the rows of the batches their manifests say they consumed, and
// never fewer than before. A last, unkilled run must resume and end with
// outputs equal, row by row, to a clean run in a fresh state folder.
//
// The short version (plain go test) kills 8 children; THUND_SOAK=1 (make
// soak-crash) kills 100.

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/thund-dev/thund/engine"
)

const crashArgsEnv = "THUND_CLI_CRASH_ARGS"

// TestStateCrashChild is the child process of TestStateCrashCLI: it runs
// thund-watch with the arguments in THUND_CLI_CRASH_ARGS and exits with
// its status.
func TestStateCrashChild(t *testing.T) {
	raw := os.Getenv(crashArgsEnv)
	if raw == "" {
		t.Skip("child process of TestStateCrashCLI")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	os.Exit(run(args, os.Stdout, os.Stderr))
}

// crashRows is the number of rows per micro-batch.
const crashRows = 50

// crashDatasets are the datasets of the crash pipeline.
var crashDatasets = []string{"events", "evens", "by_bucket", "totals", "summary"}

// writeCrashPipeline writes a pipeline with two streaming tables and a
// streaming aggregate (complete mode) over one stream of micro-batches,
// and two materialized views over them.
func writeCrashPipeline(t *testing.T, root string, batches int) {
	t.Helper()
	files := map[string]string{
		"thund.yaml":  "backends: [native]\n",
		"events.sql":  "-- @kind: streaming_table\nSELECT id, batch, v FROM STREAM(src)\n",
		"evens.sql":   "-- @kind: streaming_table\nSELECT id, batch, v * 2 AS w FROM STREAM(src) WHERE id % 2 = 0\n",
		"totals.sql":  "-- @kind: materialized_view\nSELECT batch, count(*) AS n, sum(v) AS s FROM events GROUP BY batch\n",
		"summary.sql": "-- @kind: materialized_view\nSELECT count(*) AS batches, sum(n) AS rows FROM totals\n",
		// A streaming aggregate, whose running state must survive kills.
		"by_bucket.sql": "-- @kind: streaming_table\n-- @output_mode: complete\nSELECT v % 7 AS bucket, count(*) AS n, sum(v) AS s FROM STREAM(src) GROUP BY v % 7\n",
	}
	for name, text := range files {
		mustWrite(t, filepath.Join(root, name), text)
	}
	for b := 1; b <= batches; b++ {
		writeCrashBatch(t, root, b)
	}
}

func writeCrashBatch(t *testing.T, root string, b int) {
	t.Helper()
	var sb strings.Builder
	sb.WriteString("id,batch,v\n")
	for i := 0; i < crashRows; i++ {
		fmt.Fprintf(&sb, "%d,%d,%d\n", b*1000+i, b, (b*7+i*13)%101)
	}
	// Written under a hidden name and renamed, as a producer of
	// micro-batches does, so no run sees half a batch.
	final := filepath.Join(root, "samples", "src", fmt.Sprintf("batch-%05d.csv", b))
	tmp := filepath.Join(root, "samples", "src", fmt.Sprintf(".batch-%05d.tmp", b))
	mustWrite(t, tmp, sb.String())
	if err := os.Rename(tmp, final); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// childRun is what one child did.
type childRun struct {
	code     int // exit status, -1 when killed
	elapsed  time.Duration
	output   string
	persists int // datasets seen completed (and committed) before the end
}

// runChild runs thund-watch in a child process. kill, when set, is
// called with the child's output lines as they come and returns when the
// child should be killed.
func runChild(t *testing.T, args []string, kill func(lines <-chan string)) childRun {
	t.Helper()
	raw, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestStateCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashArgsEnv+"="+string(raw))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	watchdog := time.AfterFunc(3*time.Minute, func() { cmd.Process.Kill() })
	defer watchdog.Stop()
	lines := make(chan string, 1<<14)
	var text strings.Builder
	var res childRun
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			l := sc.Text()
			text.WriteString(l + "\n")
			if strings.Contains(l, `"phase":"persisted"`) || strings.HasPrefix(l, "✓ ") {
				res.persists++
			}
			lines <- l
		}
	}()
	if kill != nil {
		kill(lines)
		cmd.Process.Kill()
	}
	<-done
	cmd.Wait()
	res.elapsed = time.Since(start)
	res.code = cmd.ProcessState.ExitCode()
	res.output = text.String() + stderr.String()
	return res
}

// stateCheck reads a state folder the way a reader outside Thund would.
type stateCheck struct {
	t     *testing.T
	state string
	// db reads the committed Parquet, as an outsider would: a plain
	// DuckDB, since a session reads no file by path.
	db *sql.DB
	// rows is the committed row count per streaming table seen so far.
	rows map[string]int64
	// garbage counts files found beside the committed parts.
	garbage int
}

func newStateCheck(t *testing.T, state string) *stateCheck {
	if err := os.MkdirAll(state, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "?threads=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &stateCheck{t: t, state: state, db: db, rows: map[string]int64{}}
}

// manifest reads a dataset's manifest; nil when it has none yet.
func (c *stateCheck) manifest(dataset string) *engine.Manifest {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.state, "outputs", dataset, "_manifest.json"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		c.t.Fatal(err)
	}
	var m engine.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatalf("%s: the manifest is not valid JSON after a crash: %v\n%s", dataset, err, b)
	}
	return &m
}

// stateFile is one stream state table a manifest lists.
type stateFile struct {
	File string `json:"file"`
	Rows int64  `json:"rows"`
}

// stateTables reads the stream state tables a dataset's manifest lists.
func (c *stateCheck) stateTables(dataset string) []stateFile {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.state, "outputs", dataset, "_manifest.json"))
	if err != nil {
		return nil
	}
	var m struct {
		StateTables []stateFile `json:"state_tables"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatalf("%s manifest: %v", dataset, err)
	}
	return m.StateTables
}

// parts returns a read_parquet over the manifest's parts.
func (c *stateCheck) parts(dataset string, m *engine.Manifest) string {
	var q []string
	for _, p := range m.Parts {
		q = append(q, "'"+filepath.Join(c.state, "outputs", dataset, p.File)+"'")
	}
	return "read_parquet([" + strings.Join(q, ", ") + "], filename = true)"
}

func (c *stateCheck) count(query string) int64 {
	c.t.Helper()
	var n int64
	if err := c.db.QueryRow(query).Scan(&n); err != nil {
		c.t.Fatalf("%s: %v", query, err)
	}
	return n
}

// check verifies the whole state folder after a child ended; clean says
// the child ended normally, so no garbage may be left.
func (c *stateCheck) check(clean bool) {
	c.t.Helper()
	for _, ds := range crashDatasets {
		dir := filepath.Join(c.state, "outputs", ds)
		m := c.manifest(ds)
		if m == nil {
			if c.rows[ds] > 0 {
				c.t.Fatalf("%s: the manifest disappeared after %d rows were committed", ds, c.rows[ds])
			}
			continue
		}
		listed, stateFiles := map[string]int64{}, map[string]bool{}
		// Stream state tables (a streaming aggregate's running state) are
		// committed by the same manifest, read here from its JSON so the
		// check does not depend on the engine's Go type for them.
		for _, st := range c.stateTables(ds) {
			if !strings.HasPrefix(st.File, "state-") || !strings.HasSuffix(st.File, ".parquet") || strings.Contains(st.File, "/") {
				c.t.Fatalf("%s: the manifest lists state table %q, which is not a state file", ds, st.File)
			}
			if n := c.count("SELECT count(*) FROM read_parquet('" + filepath.Join(dir, st.File) + "')"); n != st.Rows {
				c.t.Fatalf("%s/%s holds %d rows, its manifest says %d", ds, st.File, n, st.Rows)
			}
			stateFiles[st.File] = true
		}
		for _, p := range m.Parts {
			if !strings.HasPrefix(p.File, "part-") || !strings.HasSuffix(p.File, ".parquet") || strings.Contains(p.File, "/") {
				c.t.Fatalf("%s: the manifest lists %q, which is not a part", ds, p.File)
			}
			if _, dup := listed[p.File]; dup {
				c.t.Fatalf("%s: %s listed twice", ds, p.File)
			}
			listed[p.File] = p.Rows
		}
		// Every listed part is complete Parquet with the rows listed.
		if len(m.Parts) > 0 {
			rows, err := c.db.Query("SELECT filename, count(*) FROM " + c.parts(ds, m) + " GROUP BY filename")
			if err != nil {
				c.t.Fatalf("%s: a committed part is not readable Parquet: %v", ds, err)
			}
			got := map[string]int64{}
			for rows.Next() {
				var f string
				var n int64
				rows.Scan(&f, &n)
				got[filepath.Base(f)] = n
			}
			rows.Close()
			for f, n := range listed {
				if got[f] != n {
					c.t.Fatalf("%s/%s holds %d rows, its manifest says %d", ds, f, got[f], n)
				}
			}
		}
		// Files beside the parts: only what a crash leaves (temporary
		// files, a part published but not committed), never after a
		// clean end.
		ents, err := os.ReadDir(dir)
		if err != nil {
			c.t.Fatal(err)
		}
		for _, e := range ents {
			if e.Name() == "_manifest.json" {
				continue
			}
			if _, ok := listed[e.Name()]; ok || stateFiles[e.Name()] {
				continue
			}
			if clean {
				c.t.Fatalf("%s: %s is left beside the committed parts after a clean run", ds, e.Name())
			}
			c.garbage++
		}
		// The streaming aggregate counts every consumed row exactly
		// once: its running state neither lost nor doubled a batch.
		if ds == "by_bucket" && len(m.Parts) > 0 {
			if got, want := c.count("SELECT CAST(sum(n) AS BIGINT) FROM "+c.parts(ds, m)), int64(crashRows*len(m.Consumed["src"])); got != want {
				c.t.Fatalf("by_bucket counts %d rows for %d consumed batches, want %d", got, len(m.Consumed["src"]), want)
			}
		}
		// Streaming tables: exactly the rows of the consumed batches,
		// each once, and never fewer than before.
		if ds == "events" || ds == "evens" {
			consumed := m.Consumed["src"]
			per := int64(crashRows)
			if ds == "evens" {
				per = crashRows / 2
			}
			if got, want := m.Rows(), per*int64(len(consumed)); got != want {
				c.t.Fatalf("%s: the manifest commits %d rows for %d consumed batches, want %d", ds, got, len(consumed), want)
			}
			if len(m.Parts) > 0 {
				q := c.parts(ds, m)
				if n, d := c.count("SELECT count(*) FROM "+q), c.count("SELECT count(DISTINCT id) FROM "+q); n != d {
					c.t.Fatalf("%s: %d rows but %d distinct ids: a batch was committed twice", ds, n, d)
				}
				if b := c.count("SELECT count(DISTINCT batch) FROM " + q); b != int64(len(consumed)) {
					c.t.Fatalf("%s: holds %d batches, consumed %d", ds, b, len(consumed))
				}
			}
			if m.Rows() < c.rows[ds] {
				c.t.Fatalf("%s: committed rows went down from %d to %d", ds, c.rows[ds], m.Rows())
			}
			c.rows[ds] = m.Rows()
		}
	}
}

// outputs returns every dataset's committed rows, canonical and sorted.
func (c *stateCheck) outputs() map[string][]string {
	c.t.Helper()
	out := map[string][]string{}
	for _, ds := range crashDatasets {
		m := c.manifest(ds)
		if m == nil || len(m.Parts) == 0 {
			out[ds] = nil
			continue
		}
		cols := make([]string, len(m.Schema))
		for i, col := range m.Schema {
			cols[i] = `"` + col.Name + `"`
		}
		rows, err := c.db.Query("SELECT CAST(row(" + strings.Join(cols, ", ") + ") AS VARCHAR) FROM " + c.parts(ds, m))
		if err != nil {
			c.t.Fatal(err)
		}
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out[ds] = append(out[ds], s)
		}
		rows.Close()
		sort.Strings(out[ds])
	}
	return out
}

// previews extracts the preview rows of --once --json output.
func previews(t *testing.T, output string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, l := range strings.Split(output, "\n") {
		if strings.HasPrefix(l, "{") && strings.Contains(l, `"type":"preview"`) {
			o := decodeLine(t, []byte(l))
			out[o.Dataset] = o.rows
		}
	}
	return out
}

func TestStateCrashCLI(t *testing.T) {
	kills, newPerRun := 8, 4
	if os.Getenv("THUND_SOAK") == "1" {
		kills = 100
	}
	base := t.TempDir()
	root, state := filepath.Join(base, "root"), filepath.Join(base, "state")
	batches := 40
	writeCrashPipeline(t, root, batches)
	args := []string{"--once", "--json", "--limit", "1000000", "--state", state, root}
	// Killed runs print text, which is flushed line by line as datasets
	// complete, so kills can be timed from it.
	textArgs := []string{"--once", "--limit", "1", "--state", state, root}
	check := newStateCheck(t, state)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("seed %d", seed)

	// A first run, not killed, paces the kills.
	first := runChild(t, args, nil)
	if first.code != 0 {
		t.Fatalf("first run: exit %d\n%s", first.code, first.output)
	}
	check.check(true)
	pace := first.elapsed
	var killed, completed, persistsBeforeKill int
	// Where the kills landed: before any dataset completed (start-up,
	// Restore, the first query), while the datasets complete and
	// commit (each is committed right after its completion line), after
	// the last (previews, closing DuckDB).
	var beforeCommit, midCommits, afterCommits int
	for i := 0; i < kills; i++ {
		for j := 0; j < 1+rng.IntN(newPerRun); j++ {
			batches++
			writeCrashBatch(t, root, batches)
		}
		var plan func(<-chan string)
		switch i % 3 {
		case 0, 1:
			// At a random moment of a run's usual length.
			d := time.Duration(rng.Int64N(int64(pace) + 1))
			plan = func(<-chan string) { time.Sleep(d) }
		case 2:
			// Just after the nth dataset completes, within a few
			// milliseconds: the commits are the interesting part.
			n, d := 1+rng.IntN(len(crashDatasets)), time.Duration(rng.Int64N(int64(5*time.Millisecond)))
			plan = func(lines <-chan string) {
				for k := 0; k < n; {
					l, ok := <-lines
					if !ok {
						return
					}
					if strings.HasPrefix(l, "✓ ") {
						k++
					}
				}
				time.Sleep(d)
			}
		}
		r := runChild(t, textArgs, plan)
		switch r.code {
		case -1:
			killed++
			persistsBeforeKill += r.persists
			switch {
			case r.persists == 0:
				beforeCommit++
			case r.persists < len(crashDatasets):
				midCommits++
			default:
				afterCommits++
			}
		case 0:
			completed++
		default:
			t.Fatalf("child %d: exit %d\n%s", i, r.code, r.output)
		}
		check.check(r.code == 0)
	}
	// The restart resumes and finishes.
	last := runChild(t, args, nil)
	if last.code != 0 {
		t.Fatalf("the restart after %d kills failed: exit %d\n%s", killed, last.code, last.output)
	}
	check.check(true)
	if m := check.manifest("events"); m == nil || len(m.Consumed["src"]) != batches {
		t.Fatalf("after the restart events consumed %v of %d batches", m, batches)
	}
	// A clean run of the same folder in a fresh state folder agrees, in
	// what it prints and in what it commits.
	cleanState := filepath.Join(base, "clean")
	clean := runChild(t, []string{"--once", "--json", "--limit", "1000000", "--state", cleanState, root}, nil)
	if clean.code != 0 {
		t.Fatalf("clean run: exit %d\n%s", clean.code, clean.output)
	}
	got, want := previews(t, last.output), previews(t, clean.output)
	if len(want) != len(crashDatasets) {
		t.Fatalf("the clean run previewed %d datasets", len(want))
	}
	for ds, rows := range want {
		if strings.Join(got[ds], "\n") != strings.Join(rows, "\n") {
			t.Errorf("%s: the restarted run shows %d rows, a clean run %d", ds, len(got[ds]), len(rows))
		}
	}
	gotOut, wantOut := check.outputs(), newStateCheck(t, cleanState).outputs()
	for ds, rows := range wantOut {
		if len(rows) == 0 || strings.Join(gotOut[ds], "\n") != strings.Join(rows, "\n") {
			t.Errorf("%s: the crashed state commits %d rows, a clean run %d", ds, len(gotOut[ds]), len(rows))
		}
	}
	t.Logf("%d children: %d killed by SIGKILL (%d before any dataset completed, %d while datasets were completing and committing, %d after all completed; %d dataset completions seen before the kills), %d finished before their kill; %d leftover files found after kills and swept; %d batches of %d rows, all committed once; first run %s",
		kills+3, killed, beforeCommit, midCommits, afterCommits, persistsBeforeKill, completed, check.garbage, batches, crashRows, pace.Round(time.Millisecond))
}
