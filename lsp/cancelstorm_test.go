package lsp

import (
	"context"
	"encoding/json"
	"log"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/uri"
	"go.uber.org/goleak"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/engine"
)

// TestCancelStorm sends many thund/preview and thund/run requests over a
// pipeline where some queries never end on their own (a cross join of
// range(100000000000)), cancels them with $/cancelRequest at random
// moments (at once, after a random delay, or never for the ones that end),
// and edits the pipeline in between. Every request must be answered with a
// result or RequestCancelled; DuckDB must be interrupted (else the engine,
// which runs one query at a time per pipeline, would never serve the next
// request); the server must answer correctly afterwards, exit cleanly,
// and leave no goroutine behind (goleak). THUND_SOAK=1 runs 400 requests
// instead of 40.
func TestCancelStorm(t *testing.T) {
	// The analyser's DuckDB parser is a process-wide database opened on
	// first use and kept: open it before goleak takes its snapshot.
	sqlfront.ParseDialect("warm-up.sql", "SELECT FROM WHERE (", sqlfront.DialectDuckDB)
	// So is the engine's guard parser (engine.CheckQuery).
	engine.CheckQuery(context.Background(), "SELECT 1")
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	n := 40
	if soak() {
		n = 400
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("THUND_STORM_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	r := rand.New(rand.NewSource(seed))
	t.Logf("cancellation storm: %d requests, seed %d", n, seed)

	root := t.TempDir()
	for name, text := range map[string]string{
		"thund.yaml": "backends: [native]\n",
		"slow.sql":   "SELECT count(*) AS n FROM range(100000000000) a, range(10) b\n",
		"mid.sql":    "SELECT count(*) AS n FROM range(20000000) a(x) WHERE a.x % 7 = 3\n",
		"quick.sql":  "SELECT 42 AS answer\n",
		"dep.sql":    "SELECT answer + 1 AS next FROM quick\n",
		"notes.sql":  "SELECT 'notes' AS s\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fileURI := func(name string) string { return string(uri.File(filepath.Join(root, name+".sql"))) }
	c := startStorm(t)
	openAll(c, root, map[string]string{"quick.sql": "SELECT 42 AS answer\n", "notes.sql": "SELECT 'notes' AS s\n"})

	type req struct {
		id     string
		cancel bool // cancelled at some point
		slow   bool // cannot end unless cancelled
	}
	var reqs []req
	var wg sync.WaitGroup
	quick, version := 42, 1
	var cmu sync.Mutex
	cancelled := map[string]time.Time{} // id -> when $/cancelRequest went out
	cancelAt := func(id string, d time.Duration) {
		defer wg.Done()
		time.Sleep(d)
		n, _ := strconv.Atoi(id)
		cmu.Lock()
		cancelled[id] = time.Now()
		cmu.Unlock()
		c.notify("$/cancelRequest", map[string]any{"id": n})
	}
	for i := 0; i < n; i++ {
		var method string
		var params map[string]any
		slow := false
		switch k := r.Intn(8); k {
		case 0, 1:
			method, params, slow = "thund/preview", map[string]any{"uri": fileURI("slow"), "dataset": "slow"}, true
		case 2:
			method, params, slow = "thund/run", map[string]any{"uri": fileURI("quick"), "workDoneToken": "run-" + strconv.Itoa(i)}, true // the whole pipeline: slow included
		case 3:
			method, params = "thund/run", map[string]any{"uri": fileURI("quick"), "dataset": "quick"}
		case 4:
			method, params = "thund/preview", map[string]any{"uri": fileURI("mid"), "dataset": "mid"}
		case 5:
			method, params = "thund/preview", map[string]any{"uri": fileURI("dep"), "dataset": "dep", "limit": 1 + r.Intn(5)}
		default:
			method, params = "thund/preview", map[string]any{"uri": fileURI("quick"), "dataset": "quick"}
		}
		id := c.call(method, method, params)
		rq := req{id: id, slow: slow, cancel: slow || r.Intn(2) == 0}
		reqs = append(reqs, rq)
		if rq.cancel {
			wg.Add(1)
			switch r.Intn(3) {
			case 0:
				cancelAt(id, 0) // at once, likely before it starts
			default:
				go cancelAt(id, time.Duration(r.Intn(300))*time.Millisecond)
			}
		}
		// Edits in between: the quick query's value, and junk elsewhere.
		if r.Intn(3) == 0 {
			quick = r.Intn(1000)
			version++
			c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": fileURI("quick"), "version": version},
				"contentChanges": []any{map[string]any{"text": "SELECT " + strconv.Itoa(quick) + " AS answer\n"}}})
		}
		if r.Intn(4) == 0 {
			junk := []string{"SELECT FROM WHERE", "SELECT 'notes' AS s", "SELECT s FROM nowhere", "-- @kind: \n("}[r.Intn(4)]
			c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": fileURI("notes"), "version": version},
				"contentChanges": []any{map[string]any{"text": junk}}})
		}
		time.Sleep(time.Duration(r.Intn(40)) * time.Millisecond)
	}
	wg.Wait()
	start := time.Now()
	c.waitAll(120 * time.Second)
	t.Logf("all %d requests answered %v after the last cancellation", n, time.Since(start).Round(time.Millisecond))
	c.checkMessages()

	counts := map[string]int{}
	var cancelLat []time.Duration
	c.mu.Lock()
	for _, rq := range reqs {
		a := c.answers[rq.id]
		switch {
		case a.code == -32800:
			if !rq.cancel {
				t.Errorf("request %s (%s) was never cancelled but answered RequestCancelled", rq.id, a.kind)
			}
			counts["cancelled"]++
			cancelLat = append(cancelLat, max(0, a.at.Sub(cancelled[rq.id])))
		case a.code != 0:
			t.Errorf("request %s (%s): error %d %s, want a result or RequestCancelled", rq.id, a.kind, a.code, a.message)
		case rq.slow:
			t.Errorf("request %s (%s) over a query that never ends returned a result: %s", rq.id, a.kind, a.result)
		default:
			counts["result"]++
		}
	}
	c.mu.Unlock()
	t.Logf("answers: %d results, %d RequestCancelled", counts["result"], counts["cancelled"])

	// DuckDB was interrupted and the server still answers correctly: the
	// latest text of quick.sql is what a preview runs.
	a := c.wait(c.call("check", "thund/preview", map[string]any{"uri": fileURI("dep"), "dataset": "dep"}), 60*time.Second)
	if a.code != 0 || !strings.Contains(string(a.result), `"rows":[[`+strconv.Itoa(quick+1)+`]]`) {
		t.Fatalf("preview of dep after the storm: %d %s %s, want rows [[%d]]", a.code, a.message, a.result, quick+1)
	}
	a = c.wait(c.call("check", "thund/run", map[string]any{"uri": fileURI("quick"), "dataset": "quick"}), 60*time.Second)
	var rr RunResult
	if err := json.Unmarshal(a.result, &rr); a.code != 0 || err != nil || rr.Failed || len(rr.Datasets) != 2 {
		t.Fatalf("run of quick after the storm: %d %s %s", a.code, a.message, a.result)
	}
	// A last slow request, cancelled: it must stop too.
	id := c.call("check", "thund/preview", map[string]any{"uri": fileURI("slow"), "dataset": "slow"})
	time.Sleep(300 * time.Millisecond)
	n2, _ := strconv.Atoi(id)
	c.notify("$/cancelRequest", map[string]any{"id": n2})
	if a := c.wait(id, 30*time.Second); a.code != -32800 {
		t.Fatalf("last slow preview: %d %s, want RequestCancelled", a.code, a.message)
	}
	t.Logf("time from $/cancelRequest to the RequestCancelled answer:\n%s", latencyTable(map[string][]time.Duration{"cancelled": sortDurations(cancelLat)}))

	c.wait(c.call("shutdown", "shutdown", nil), 10*time.Second)
	c.notify("exit", nil)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not exit; log:\n%s", c.logs)
	}
	c.conn.Close()
	<-c.rdr
}

func sortDurations(d []time.Duration) []time.Duration {
	out := append([]time.Duration(nil), d...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestClosedRootOpensNoSession is the regression test of a leak found
// while checking the cancellation storm's goroutines: a description
// scheduled by an analysis still running when its root was closed (the
// client leaving, or the folder removed) opened a new DuckDB session on
// the closed root, which nothing closed again.
func TestClosedRootOpensNoSession(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.sql"), []byte("SELECT 1 AS x\n"), 0o644)
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	s := &Server{logger: log.New(logs, "", 0), overlays: map[string]overlay{}, roots: map[string]*root{}, cancels: map[string]context.CancelFunc{}}
	s.mu.Lock()
	st := s.rootState(dir)
	gen := st.gen
	s.mu.Unlock()
	st.close()
	s.scheduleDescribe(dir, snap, gen)
	time.Sleep(DescribeDelay + 500*time.Millisecond)
	st.runMu.Lock()
	opened := st.session != nil
	if opened {
		st.session.Close()
	}
	st.runMu.Unlock()
	if opened {
		t.Fatal("a description after close opened a DuckDB session that nothing closes")
	}
}
