package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/analysis"
)

// soak reports whether the long versions of the storms run (make soak-lsp
// sets THUND_SOAK=1); plain go test runs the short ones.
func soak() bool { return os.Getenv("THUND_SOAK") == "1" }

// stormClient is a raw LSP client over net.Pipe that records when each
// request was sent and answered, and the last diagnostics published for
// each document.
type stormClient struct {
	t    *testing.T
	conn net.Conn
	done chan struct{} // closed when Serve returns
	rdr  chan struct{} // closed when the reader stops
	logs *syncBuffer

	wmu sync.Mutex

	mu       sync.Mutex
	next     int
	sentAt   map[string]time.Time
	kind     map[string]string
	answers  map[string]stormAnswer
	diags    map[string]protocol.PublishDiagnosticsParams // by URI
	lastDiag time.Time
	badMsgs  []string
	changed  chan struct{}
}

type stormAnswer struct {
	at      time.Time // when the answer arrived
	kind    string
	latency time.Duration
	result  json.RawMessage
	code    int
	message string
}

func startStorm(t *testing.T) *stormClient {
	t.Helper()
	return startStormOn(t, func(c net.Conn) net.Conn { return c })
}

// startStormOn is startStorm with the client's end of the pipe wrapped
// (to record what the server sends, say).
func startStormOn(t *testing.T, wrap func(net.Conn) net.Conn) *stormClient {
	t.Helper()
	a, b := net.Pipe()
	c := &stormClient{t: t, conn: wrap(b), done: make(chan struct{}), rdr: make(chan struct{}), logs: &syncBuffer{},
		sentAt: map[string]time.Time{}, kind: map[string]string{}, answers: map[string]stormAnswer{},
		diags: map[string]protocol.PublishDiagnosticsParams{}, changed: make(chan struct{}, 1)}
	go func() {
		Serve(context.Background(), a, log.New(c.logs, "", 0))
		a.Close()
		close(c.done)
	}()
	go c.read()
	t.Cleanup(func() {
		b.Close()
		<-c.rdr
	})
	return c
}

func (c *stormClient) read() {
	defer close(c.rdr)
	r := bufio.NewReader(c.conn)
	for {
		body, err := readFrame(r)
		if err != nil {
			return
		}
		now := time.Now()
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			c.mu.Lock()
			c.badMsgs = append(c.badMsgs, fmt.Sprintf("invalid JSON %q", body))
			c.mu.Unlock()
			continue
		}
		c.mu.Lock()
		switch {
		case m.Method == protocol.MethodTextDocumentPublishDiagnostics:
			var p protocol.PublishDiagnosticsParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				c.badMsgs = append(c.badMsgs, fmt.Sprintf("bad publishDiagnostics %s", m.Params))
			}
			c.diags[string(p.URI)] = p
			c.lastDiag = now
		case m.Method != "":
			// A request or notification from the server ($/progress,
			// client/registerCapability): requests get an empty answer.
			if len(m.ID) > 0 {
				go c.write(framed(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, m.ID)))
			}
		default:
			id := string(m.ID)
			sent, ok := c.sentAt[id]
			if !ok {
				c.badMsgs = append(c.badMsgs, fmt.Sprintf("answer to an unknown id: %s", body))
				break
			}
			if _, dup := c.answers[id]; dup {
				c.badMsgs = append(c.badMsgs, fmt.Sprintf("second answer to %s", id))
			}
			a := stormAnswer{at: now, kind: c.kind[id], latency: now.Sub(sent), result: m.Result}
			if m.Error != nil {
				a.code, a.message = m.Error.Code, m.Error.Message
			}
			c.answers[id] = a
		}
		c.mu.Unlock()
		select {
		case c.changed <- struct{}{}:
		default:
		}
	}
}

func (c *stormClient) write(b string) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.conn.SetWriteDeadline(time.Now().Add(60 * time.Second))
	_, err := io.WriteString(c.conn, b)
	return err
}

func (c *stormClient) notify(method string, params any) {
	c.t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.write(framed(string(b))); err != nil {
		c.t.Fatalf("%s: %v; server log:\n%s", method, err, c.logs)
	}
}

// call sends a request of the given kind (a label for the latency table)
// and returns its id (as JSON).
func (c *stormClient) call(kind, method string, params any) string {
	c.t.Helper()
	c.mu.Lock()
	c.next++
	n := c.next
	c.mu.Unlock()
	id := strconv.Itoa(n)
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": n, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	c.mu.Lock()
	c.kind[id] = kind
	c.sentAt[id] = time.Now()
	c.mu.Unlock()
	if err := c.write(framed(string(b))); err != nil {
		c.t.Fatalf("%s: %v; server log:\n%s", method, err, c.logs)
	}
	return id
}

// wait waits until the request id is answered.
func (c *stormClient) wait(id string, d time.Duration) stormAnswer {
	c.t.Helper()
	deadline := time.After(d)
	for {
		c.mu.Lock()
		a, ok := c.answers[id]
		kind := c.kind[id]
		c.mu.Unlock()
		if ok {
			return a
		}
		select {
		case <-c.changed:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			c.t.Fatalf("request %s (%s) not answered within %v; server log:\n%s", id, kind, d, c.logs)
		}
	}
}

// waitAll waits until every request sent is answered, and fails naming
// those that are not after d.
func (c *stormClient) waitAll(d time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for {
		c.mu.Lock()
		var missing []string
		for id := range c.sentAt {
			if _, ok := c.answers[id]; !ok {
				missing = append(missing, id+" ("+c.kind[id]+")")
			}
		}
		c.mu.Unlock()
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			sort.Strings(missing)
			c.t.Fatalf("%d requests never answered: %v; server log:\n%s", len(missing), missing, c.logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settle waits until no diagnostics have been published for quiet, and
// returns the last diagnostics of each document.
func (c *stormClient) settle(quiet, max time.Duration) map[string]protocol.PublishDiagnosticsParams {
	c.t.Helper()
	start := time.Now()
	for {
		c.mu.Lock()
		last := c.lastDiag
		c.mu.Unlock()
		if time.Since(last) >= quiet && time.Since(start) >= quiet {
			break
		}
		if time.Since(start) > max {
			c.t.Fatalf("diagnostics still being published after %v", max)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]protocol.PublishDiagnosticsParams, len(c.diags))
	for k, v := range c.diags {
		out[k] = v
	}
	return out
}

func (c *stormClient) checkMessages() {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.badMsgs) > 0 {
		c.t.Fatalf("bad messages from the server: %v", c.badMsgs)
	}
	if strings.Contains(c.logs.String(), "panic") {
		c.t.Fatalf("the server panicked:\n%s", c.logs)
	}
}

// latencies returns the latencies of the answers of a kind ("" = all).
func (c *stormClient) latencies(kind string) []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []time.Duration
	for _, a := range c.answers {
		if kind == "" || a.kind == kind {
			out = append(out, a.latency)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// pct returns the p-th percentile (nearest rank) of sorted durations.
func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// latencyTable formats a markdown table of latencies by kind.
func latencyTable(rows map[string][]time.Duration) string {
	var names []string
	for k := range rows {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("| answer | n | p50 | p99 | max |\n|---|---:|---:|---:|---:|\n")
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	for _, k := range names {
		l := rows[k]
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", k, len(l), ms(pct(l, 50)), ms(pct(l, 99)), ms(pct(l, 100)))
	}
	return b.String()
}

// stormModel is the client's copy of the storm's documents, as tokens.
type stormModel struct {
	r     *rand.Rand
	n     int
	files [][]string
}

func stormName(i int) string { return fmt.Sprintf("f%02d", i) }

// fresh returns the tokens of a valid query over other files.
func (m *stormModel) fresh(i int) []string {
	ref := func() string { return stormName(m.r.Intn(m.n)) }
	k := strconv.Itoa(m.r.Intn(100))
	var q string
	switch m.r.Intn(6) {
	case 0:
		q = "SELECT " + k + " AS x , " + k + " AS y"
	case 1:
		q = "SELECT x , y FROM " + ref()
	case 2:
		q = "SELECT a.x , b.y FROM " + ref() + " AS a JOIN " + ref() + " AS b ON a.x = b.x"
	case 3:
		q = "-- @kind: materialized_view \n SELECT x , count(*) AS y FROM " + ref() + " GROUP BY x"
	case 4:
		q = "SELECT x , y FROM " + ref() + " WHERE y > " + k
	default:
		q = "SELECT x , y , z FROM " + ref() // z: an unknown column unless renamed
	}
	return strings.Fields(q)
}

var stormVocab = []string{"x", "y", "z", ",", "(", ")", "FROM", "SELECT", "JOIN", "WHERE", "1", "'", "--", "\n", "AS", "+", "GROUP", "BY", "@@"}

// edit changes file i: inserts or deletes a token, retargets a reference
// (adding or removing an edge between files), or rewrites the query.
func (m *stormModel) edit(i int) {
	toks := m.files[i]
	switch op := m.r.Intn(100); {
	case op < 35:
		at := m.r.Intn(len(toks) + 1)
		tok := stormVocab[m.r.Intn(len(stormVocab))]
		if m.r.Intn(4) == 0 {
			tok = stormName(m.r.Intn(m.n))
		}
		toks = append(toks[:at], append([]string{tok}, toks[at:]...)...)
	case op < 60 && len(toks) > 0:
		at := m.r.Intn(len(toks))
		toks = append(toks[:at], toks[at+1:]...)
	case op < 80:
		var refs []int
		for j, tok := range toks {
			if len(tok) == 3 && tok[0] == 'f' {
				refs = append(refs, j)
			}
		}
		if len(refs) == 0 {
			toks = append(toks, "FROM", stormName(m.r.Intn(m.n)))
		} else {
			toks[refs[m.r.Intn(len(refs))]] = stormName(m.r.Intn(m.n))
		}
	default:
		toks = m.fresh(i)
	}
	if len(toks) > 60 {
		toks = m.fresh(i)
	}
	m.files[i] = toks
}

func (m *stormModel) text(i int) string {
	return strings.ReplaceAll(strings.Join(m.files[i], " "), " \n ", "\n") + "\n"
}

// randomPos returns a position at a token of file i (or just past it).
func (m *stormModel) randomPos(i int) map[string]any {
	text := m.text(i)
	off := m.r.Intn(len(text) + 1)
	line := strings.Count(text[:off], "\n")
	col := off - (strings.LastIndex(text[:off], "\n") + 1)
	return map[string]any{"line": line, "character": col}
}

// normDiags renders a document's diagnostics with the root replaced, in a
// stable order, for comparison across folders.
func normDiags(t *testing.T, root string, ds []protocol.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ReplaceAll(string(b), string(uri.File(root)), "ROOT")
		out = append(out, strings.ReplaceAll(s, root, "ROOT"))
	}
	sort.Strings(out)
	return out
}

// byRel turns published diagnostics into normalised lists per relative
// file; files never published count as empty.
func byRel(t *testing.T, root string, pub map[string]protocol.PublishDiagnosticsParams) map[string][]string {
	out := map[string][]string{}
	for u, p := range pub {
		path, err := filename(protocol.DocumentURI(u))
		if err != nil {
			t.Fatalf("diagnostics for %s: %v", u, err)
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			t.Fatal(err)
		}
		if n := normDiags(t, root, p.Diagnostics); len(n) > 0 {
			out[rel] = n
		}
	}
	return out
}

// openAll initializes a session on root and opens every file with texts.
func openAll(c *stormClient, root string, texts map[string]string) {
	c.t.Helper()
	c.wait(c.call("initialize", "initialize", map[string]any{"rootUri": string(uri.File(root)), "capabilities": map[string]any{}}), 30*time.Second)
	c.notify("initialized", map[string]any{})
	var names []string
	for n := range texts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": string(uri.File(filepath.Join(root, n))), "languageId": "sql", "version": 1, "text": texts[n]}})
	}
}

// TestEditStorm sends a storm of random full-text edits across many files
// (tokens inserted and deleted, syntax broken and fixed, references between
// files added and removed) with hovers and completions in between. Every
// request must be answered, and once the storm is over the diagnostics
// last published for each file must equal those of a fresh server opened
// on the final texts, and include every diagnostic of a fresh
// analysis.Load of them. Latencies are printed as a table, never asserted.
// Short by default (1,000 edits, 10 files); THUND_SOAK=1 (make soak-lsp)
// runs 10,000 edits over 50 files in about 10 s.
func TestEditStorm(t *testing.T) {
	files, edits, dur := 10, 1000, 2*time.Second
	if soak() {
		files, edits, dur = 50, 10000, 10*time.Second
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("THUND_STORM_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("edit storm: %d edits, %d files, seed %d (THUND_STORM_SEED reruns it)", edits, files, seed)
	m := &stormModel{r: rand.New(rand.NewSource(seed)), n: files}
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	texts := map[string]string{}
	for i := 0; i < files; i++ {
		m.files = append(m.files, m.fresh(i))
		texts[stormName(i)+".sql"] = m.text(i)
		if err := os.WriteFile(filepath.Join(root, stormName(i)+".sql"), []byte(m.text(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startStorm(t)
	openAll(c, root, texts)
	c.settle(time.Second, 60*time.Second)

	versions := make([]int, files)
	for i := range versions {
		versions[i] = 1
	}
	interval := dur / time.Duration(edits)
	start := time.Now()
	for e := 0; e < edits; e++ {
		if d := time.Until(start.Add(time.Duration(e) * interval)); d > 0 {
			time.Sleep(d)
		}
		i := m.r.Intn(files)
		m.edit(i)
		versions[i]++
		u := string(uri.File(filepath.Join(root, stormName(i)+".sql")))
		c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": u, "version": versions[i]},
			"contentChanges": []any{map[string]any{"text": m.text(i)}},
		})
		if e%10 == 9 {
			j := m.r.Intn(files)
			params := map[string]any{"textDocument": map[string]any{"uri": string(uri.File(filepath.Join(root, stormName(j)+".sql")))}, "position": m.randomPos(j)}
			if e%20 == 9 {
				c.call("hover", "textDocument/hover", params)
			} else {
				c.call("completion", "textDocument/completion", params)
			}
		}
	}
	sent := time.Since(start)
	lastEdit := time.Now()
	c.waitAll(60 * time.Second)
	final := c.settle(2*time.Second, 120*time.Second)
	c.mu.Lock()
	settled := c.lastDiag.Sub(lastEdit) // the last publication after the storm
	c.mu.Unlock()
	c.checkMessages()

	// Every answer is a result, not an error.
	c.mu.Lock()
	for id, a := range c.answers {
		if a.code != 0 && a.kind != "initialize" {
			t.Errorf("%s %s answered with error %d %s", a.kind, id, a.code, a.message)
		}
	}
	c.mu.Unlock()

	// The reference: the final texts in a fresh folder, analysed by a
	// fresh server and by analysis.Load.
	ref := t.TempDir()
	os.WriteFile(filepath.Join(ref, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	finalTexts := map[string]string{}
	for i := 0; i < files; i++ {
		finalTexts[stormName(i)+".sql"] = m.text(i)
		os.WriteFile(filepath.Join(ref, stormName(i)+".sql"), []byte(m.text(i)), 0o644)
	}
	fresh := startStorm(t)
	openAll(fresh, ref, finalTexts)
	want := byRel(t, ref, fresh.settle(2*time.Second, 120*time.Second))
	got := byRel(t, root, final)
	mismatch := 0
	for i := 0; i < files; i++ {
		f := stormName(i) + ".sql"
		if strings.Join(got[f], "\n") != strings.Join(want[f], "\n") {
			mismatch++
			t.Errorf("%s (final text %q):\n storm: %v\n fresh: %v", f, m.text(i), got[f], want[f])
		}
	}
	snap, err := analysis.Load(ref, analysis.Options{})
	if err != nil {
		t.Fatalf("analysis.Load of the final texts: %v", err)
	}
	nload := 0
	for _, d := range snap.Diagnostics {
		if d.Loc.File == "" {
			continue
		}
		nload++
		one := normDiags(t, ref, []protocol.Diagnostic{toProtocol(snap, d)})[0]
		found := false
		for _, g := range got[d.Loc.File] {
			found = found || g == one
		}
		if !found {
			t.Errorf("%s: analysis.Load reports %s, the storm's final diagnostics do not", d.Loc.File, one)
		}
	}
	ndiag := 0
	for _, l := range got {
		ndiag += len(l)
	}
	t.Logf("final state: %d diagnostics over %d files (analysis.Load: %d), %d files differ from a fresh server", ndiag, len(got), nload, mismatch)
	t.Logf("storm: %d didChange in %v (%.0f/s), %d requests; last diagnostics published %v after the last edit",
		edits, sent.Round(time.Millisecond), float64(edits)/sent.Seconds(), len(c.latencies(""))-1, settled.Round(time.Millisecond))
	t.Logf("latency of every answer during the storm:\n%s", latencyTable(map[string][]time.Duration{
		"hover": c.latencies("hover"), "completion": c.latencies("completion"),
	}))
}
