package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/bench/gen"
)

// wire is a test client that writes and reads raw LSP frames, so a test
// can send what a well-behaved client library never would.
type wire struct {
	t    *testing.T
	conn net.Conn
	in   chan map[string]json.RawMessage // every message from the server
	done chan struct{}                   // closed when Serve returns
	logs *syncBuffer                     // the server's log

	mu      sync.Mutex
	pending []map[string]json.RawMessage // read but not yet taken
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startWire(t *testing.T) *wire {
	t.Helper()
	a, b := net.Pipe()
	w := &wire{t: t, conn: b, in: make(chan map[string]json.RawMessage, 1000), done: make(chan struct{}), logs: &syncBuffer{}}
	go func() {
		Serve(context.Background(), a, log.New(w.logs, "", 0))
		close(w.done)
	}()
	go func() {
		defer close(w.in)
		r := bufio.NewReader(b)
		for {
			body, err := readFrame(r)
			if err != nil {
				return
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(body, &m); err != nil {
				t.Errorf("server sent invalid JSON: %q", body)
				return
			}
			w.in <- m
		}
	}()
	t.Cleanup(func() { b.Close() })
	return w
}

// readFrame reads one Content-Length framed message.
func readFrame(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			n, err = strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return nil, err
			}
		}
	}
	if n < 0 {
		return nil, fmt.Errorf("no Content-Length")
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return body, err
}

// raw writes bytes as they are; false if the server closed the connection.
func (w *wire) raw(s string) bool {
	w.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := io.WriteString(w.conn, s)
	return err == nil
}

// frame writes body with a correct Content-Length header.
func (w *wire) frame(body string) bool {
	return w.raw(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

// send frames a message (a Go value marshalled to JSON).
func (w *wire) send(msg any) {
	w.t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		w.t.Fatal(err)
	}
	if !w.frame(string(b)) {
		w.t.Fatalf("the server closed the connection before %s", b)
	}
}

func (w *wire) call(id any, method string, params any) {
	w.t.Helper()
	w.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

func (w *wire) notify(method string, params any) {
	w.t.Helper()
	w.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// next returns the first message (pending or new) that match accepts, or
// fails after d.
func (w *wire) next(d time.Duration, what string, match func(map[string]json.RawMessage) bool) map[string]json.RawMessage {
	w.t.Helper()
	w.mu.Lock()
	for i, m := range w.pending {
		if match(m) {
			w.pending = append(w.pending[:i], w.pending[i+1:]...)
			w.mu.Unlock()
			return m
		}
	}
	w.mu.Unlock()
	deadline := time.After(d)
	for {
		select {
		case m, ok := <-w.in:
			if !ok {
				w.t.Fatalf("connection closed waiting for %s; server log:\n%s", what, w.logs)
			}
			if match(m) {
				return m
			}
			w.mu.Lock()
			w.pending = append(w.pending, m)
			w.mu.Unlock()
		case <-deadline:
			w.t.Fatalf("no %s within %v; server log:\n%s", what, d, w.logs)
		}
	}
}

// response waits for the answer to the call with this id (as JSON).
func (w *wire) response(id string, d time.Duration) (result json.RawMessage, errCode int, errMsg string) {
	w.t.Helper()
	m := w.next(d, "response to "+id, func(m map[string]json.RawMessage) bool {
		_, isReq := m["method"]
		return !isReq && string(m["id"]) == id
	})
	if e, ok := m["error"]; ok {
		var re struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		json.Unmarshal(e, &re)
		return nil, re.Code, re.Message
	}
	return m["result"], 0, ""
}

func (w *wire) initialize() {
	w.t.Helper()
	w.call(1, "initialize", map[string]any{"capabilities": map[string]any{}})
	if _, code, msg := w.response("1", 10*time.Second); code != 0 {
		w.t.Fatalf("initialize: %d %s", code, msg)
	}
	w.notify("initialized", map[string]any{})
}

// stopped reports whether Serve returned within d.
func (w *wire) stopped(d time.Duration) bool {
	select {
	case <-w.done:
		return true
	case <-time.After(d):
		return false
	}
}

func noPanic(t *testing.T, w *wire) {
	t.Helper()
	if strings.Contains(w.logs.String(), "panic") {
		t.Fatalf("the server panicked:\n%s", w.logs)
	}
}

// TestMalformedMessages: bad input never takes the server down. A bad
// frame header is skipped (the stream resynchronises on the next
// Content-Length header), and a well-framed body that is not a JSON-RPC
// message is answered with an error (id null), as JSON-RPC 2.0 says; the
// next well-formed request is answered as usual.
func TestMalformedMessages(t *testing.T) {
	inputs := []struct{ name, input string }{
		{"garbage Content-Length", "Content-Length: banana\r\n\r\n{}"},
		{"negative Content-Length", "Content-Length: -5\r\n\r\n"},
		{"huge Content-Length", "Content-Length: 99999999999\r\n\r\n{}"},
		{"no Content-Length", "Content-Type: application/json\r\n\r\n{}"},
		{"header without colon", "hello world\r\n\r\n"},
		{"invalid JSON body", "Content-Length: 13\r\n\r\n{\"jsonrpc\":2."},
		{"JSON that is not a message", "Content-Length: 2\r\n\r\n{}"},
		{"wrong jsonrpc version", `Content-Length: 46` + "\r\n\r\n" + `{"jsonrpc":"1.0","id":2,"method":"shutdown"}  `},
	}
	for _, tc := range inputs {
		t.Run(tc.name, func(t *testing.T) {
			w := startWire(t)
			w.initialize()
			w.raw(tc.input)
			w.call(9, "workspace/symbol", map[string]any{"query": ""})
			if _, code, msg := w.response("9", 10*time.Second); code != 0 {
				t.Fatalf("after %q, a good request failed: %d %s", tc.input, code, msg)
			}
			if w.stopped(0) {
				t.Fatalf("the server stopped after %q", tc.input)
			}
			noPanic(t, w)
		})
	}

	t.Run("bad params are answered and the session goes on", func(t *testing.T) {
		w := startWire(t)
		w.initialize()
		w.call(2, "textDocument/hover", "not an object")
		if _, code, _ := w.response("2", 5*time.Second); code != -32602 {
			t.Fatalf("hover with string params: code %d, want InvalidParams (-32602)", code)
		}
		w.call(3, "textDocument/hover", nil)
		if _, code, _ := w.response("3", 5*time.Second); code != -32602 {
			t.Fatalf("hover without params: code %d, want InvalidParams", code)
		}
		w.call(4, "thund/preview", map[string]any{"uri": 42})
		if _, code, _ := w.response("4", 5*time.Second); code != -32602 {
			t.Fatalf("preview with a numeric uri: code %d, want InvalidParams", code)
		}
		w.call(5, "textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": "file:///nowhere/x.sql"}, "position": map[string]any{"line": 99999, "character": 1e9}})
		if _, code, msg := w.response("5", 5*time.Second); code != 0 {
			t.Fatalf("definition outside any pipeline: %d %s, want an empty answer", code, msg)
		}
		w.notify("textDocument/didOpen", map[string]any{"textDocument": 17}) // a bad notification: logged, no answer
		w.notify("$/unknownNotification", map[string]any{})
		w.call("six", "shutdown", nil)
		if _, code, msg := w.response(`"six"`, 5*time.Second); code != 0 {
			t.Fatalf("shutdown after bad messages: %d %s", code, msg)
		}
		w.notify("exit", nil)
		if !w.stopped(5 * time.Second) {
			t.Fatal("the server did not exit")
		}
		noPanic(t, w)
	})
}

// TestCancelRequest sends $/cancelRequest on the wire (with a string and
// a numeric id) and expects RequestCancelled answers well before the
// queries could finish, and the engine free for the next preview.
func TestCancelRequest(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	os.WriteFile(filepath.Join(root, "slow.sql"), []byte("SELECT count(*) AS n FROM range(100000000000) a, range(10) b\n"), 0o644)
	os.WriteFile(filepath.Join(root, "quick.sql"), []byte("SELECT 42 AS answer\n"), 0o644)
	w := startWire(t)
	w.initialize()
	slow := string(uri.File(filepath.Join(root, "slow.sql")))

	for _, tc := range []struct {
		id     any
		method string
		params map[string]any
	}{
		{"run-1", "thund/run", map[string]any{"uri": slow}},
		{7, "thund/preview", map[string]any{"uri": slow, "dataset": "slow"}},
	} {
		idJSON, _ := json.Marshal(tc.id)
		w.call(tc.id, tc.method, tc.params)
		time.Sleep(500 * time.Millisecond)
		w.notify("$/cancelRequest", map[string]any{"id": tc.id})
		start := time.Now()
		_, code, msg := w.response(string(idJSON), 20*time.Second)
		if code != -32800 {
			t.Fatalf("%s cancelled: code %d (%s), want RequestCancelled (-32800)", tc.method, code, msg)
		}
		t.Logf("%s stopped %v after $/cancelRequest", tc.method, time.Since(start).Round(time.Millisecond))
	}
	w.call(8, "thund/preview", map[string]any{"uri": string(uri.File(filepath.Join(root, "quick.sql"))), "dataset": "quick"})
	res, code, msg := w.response("8", 20*time.Second)
	if code != 0 || !strings.Contains(string(res), `"rows":[[42]]`) {
		t.Fatalf("preview after the cancelled ones: %d %s %s", code, msg, res)
	}
	// Cancelling what is done, or was never asked, is harmless.
	w.notify("$/cancelRequest", map[string]any{"id": 8})
	w.notify("$/cancelRequest", map[string]any{"id": "nothing"})
	w.call(9, "shutdown", nil)
	w.response("9", 5*time.Second)
	noPanic(t, w)
}

// hoverWithin opens nothing; it asks for a hover and fails unless the
// answer comes within d.
func hoverWithin(t *testing.T, w *wire, id int, u uri.URI, line, char int, d time.Duration) (json.RawMessage, time.Duration) {
	t.Helper()
	start := time.Now()
	w.call(id, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": line, "character": char}})
	res, code, msg := w.response(strconv.Itoa(id), d)
	if code != 0 {
		t.Fatalf("hover: %d %s", code, msg)
	}
	return res, time.Since(start)
}

// skipScale skips the scale tests with -short, and under the race
// detector, which slows the parser so much that the tests would measure it;
// `make test-lsp-scale` runs them without it.
func skipScale(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("scale test: skipped with -short")
	}
	if raceDetector {
		t.Skip("scale test: skipped under -race (make test-lsp-scale runs it)")
	}
}

// TestLargeFile opens 10 MB .sql files in the retail pipeline: one query
// of 10 MB (over the analyser's 4 MB limit per query: reported, not
// parsed) and a thousand 10 KB views in one file (all parsed). Hovers are
// answered in them and in other files, and edits are diagnosed.
func TestLargeFile(t *testing.T) {
	skipScale(t)
	t.Run("one 10 MB query", func(t *testing.T) {
		root := copyTree(t, "../testdata/retail")
		path := filepath.Join(root, "transformations", "huge.sql")
		var b strings.Builder
		b.WriteString("-- A 10 MB query.\n-- @comment: huge\nSELECT order_id, amount\nFROM clean_orders\nWHERE order_id IN (\n")
		for i := 0; b.Len() < 10<<20; i++ {
			fmt.Fprintf(&b, "  %d, %d, %d, %d, %d, %d, %d, %d, %d, %d,\n", i*10, i*10+1, i*10+2, i*10+3, i*10+4, i*10+5, i*10+6, i*10+7, i*10+8, i*10+9)
		}
		b.WriteString("  -1\n)\n")
		text := b.String()
		os.WriteFile(path, []byte(text), 0o644)
		w := startWire(t)
		w.initialize()
		u := uri.File(path)
		start := time.Now()
		w.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "sql", "version": 1, "text": text}})
		w.next(120*time.Second, "the size warning for huge.sql", func(m map[string]json.RawMessage) bool {
			return string(m["method"]) == `"textDocument/publishDiagnostics"` && strings.Contains(string(m["params"]), "huge.sql") &&
				strings.Contains(string(m["params"]), "4 MB limit")
		})
		t.Logf("diagnostics %v after didOpen", time.Since(start).Round(time.Millisecond))
		res, took := hoverWithin(t, w, 2, u, 1, 5, 60*time.Second)
		if !strings.Contains(string(res), "@comment") {
			t.Fatalf("pragma hover in the 10 MB file: %s", res)
		}
		t.Logf("pragma hover %v", took.Round(time.Millisecond))
		ol := uri.File(filepath.Join(root, "transformations", "order_lines.sql"))
		_, took = hoverWithin(t, w, 3, ol, 16, 8, 60*time.Second)
		t.Logf("hover in another file %v", took.Round(time.Millisecond))
		noPanic(t, w)
	})

	t.Run("a thousand views in 10 MB", func(t *testing.T) {
		root := copyTree(t, "../testdata/retail")
		path := filepath.Join(root, "transformations", "many.sql")
		var b strings.Builder
		b.WriteString("-- A thousand views of 10 KB in one file.\n\n")
		n := 0
		for ; b.Len() < 10<<20; n++ {
			fmt.Fprintf(&b, "CREATE TEMPORARY VIEW v_%04d AS\nSELECT order_id, customer_id, amount, status\nFROM clean_orders\nWHERE order_id IN (", n)
			for j := 0; j < 1400; j++ {
				if j > 0 {
					b.WriteString(", ")
				}
				fmt.Fprint(&b, n*1000+j)
			}
			b.WriteString(");\n\n")
		}
		text := b.String()
		os.WriteFile(path, []byte(text), 0o644)
		w := startWire(t)
		w.initialize()
		u := uri.File(path)
		start := time.Now()
		w.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "sql", "version": 1, "text": text}})
		// A reference in the middle of the file.
		mid := strings.Index(text, fmt.Sprintf("VIEW v_%04d", n/2))
		line := strings.Count(text[:mid], "\n") + 2 // its FROM line
		res, took := hoverWithin(t, w, 2, u, line, 7, 120*time.Second)
		if !strings.Contains(string(res), "clean_orders") {
			t.Fatalf("hover in the 10 MB file: %s", res)
		}
		t.Logf("%d views: first hover %v after didOpen", n, time.Since(start).Round(time.Millisecond))
		_, took = hoverWithin(t, w, 3, u, line, 7, 60*time.Second)
		t.Logf("second hover %v", took.Round(time.Millisecond))
		ol := uri.File(filepath.Join(root, "transformations", "order_lines.sql"))
		_, took = hoverWithin(t, w, 4, ol, 16, 8, 60*time.Second)
		t.Logf("hover in another file %v", took.Round(time.Millisecond))
		// A typo in the middle is diagnosed.
		typo := text[:mid] + strings.Replace(text[mid:], "FROM clean_orders", "FROM clean_ordrs", 1)
		start = time.Now()
		w.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2}, "contentChanges": []any{map[string]any{"text": typo}}})
		m := w.next(120*time.Second, "diagnostics for the edited 10 MB file", func(m map[string]json.RawMessage) bool {
			return string(m["method"]) == `"textDocument/publishDiagnostics"` && strings.Contains(string(m["params"]), "unknown-reference") && strings.Contains(string(m["params"]), "many.sql")
		})
		if want := fmt.Sprintf(`"line":%d`, line); !strings.Contains(string(m["params"]), want) {
			t.Fatalf("the typo is on line %d: %s", line, m["params"])
		}
		t.Logf("diagnostics %v after didChange", time.Since(start).Round(time.Millisecond))
		noPanic(t, w)
	})
}

// TestLargeWorkspace loads a generated 10,000-file pipeline: the first
// request analyses it; later hovers and completions are fast.
func TestLargeWorkspace(t *testing.T) {
	skipScale(t)
	root := t.TempDir()
	if err := gen.Write(root, gen.Config{Datasets: 10000, Width: 100, SampleRows: 10, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	w := startWire(t)
	w.initialize()
	path := filepath.Join(root, filepath.FromSlash(gen.File(5000)))
	b, _ := os.ReadFile(path)
	u := uri.File(path)
	start := time.Now()
	// A typo in one file, so the load ends with a publication.
	text := strings.Replace(string(b), "FROM ds_", "FROM dz_", 1)
	w.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "sql", "version": 1, "text": text}})
	w.next(120*time.Second, "diagnostics in the 10,000-file pipeline", func(m map[string]json.RawMessage) bool {
		return string(m["method"]) == `"textDocument/publishDiagnostics"` && strings.Contains(string(m["params"]), "unknown-reference")
	})
	t.Logf("10,000 files: diagnostics %v after didOpen", time.Since(start).Round(time.Millisecond))
	line := strings.Count(text[:strings.Index(text, "FROM dz_")], "\n")
	w.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2}, "contentChanges": []any{map[string]any{"text": string(b)}}})
	res, took := hoverWithin(t, w, 2, u, line, 7, 30*time.Second)
	if !strings.Contains(string(res), "ds_") {
		t.Fatalf("hover: %s", res)
	}
	t.Logf("10,000 files: hover after an edit %v", took.Round(time.Millisecond))
	// Once edits settle the server describes the datasets on DuckDB
	// (DescribeDelay); requests meanwhile must not wait for it.
	time.Sleep(DescribeDelay + time.Second)
	_, took = hoverWithin(t, w, 4, u, line, 7, 60*time.Second)
	t.Logf("10,000 files: hover while the datasets are described %v", took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("hover waited %v for the description of the datasets", took)
	}
	w.call(5, "textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": line, "character": 5}})
	start = time.Now()
	if _, code, msg := w.response("5", 60*time.Second); code != 0 {
		t.Fatalf("completion: %d %s", code, msg)
	}
	t.Logf("10,000 files: completion after FROM while the datasets are described %v", time.Since(start).Round(time.Millisecond))
	// An edit after a pause, while the datasets are described: its
	// diagnostics must not wait for the description.
	w.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 3}, "contentChanges": []any{map[string]any{"text": string(b)}}})
	time.Sleep(DescribeDelay + time.Second)
	start = time.Now()
	w.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 4}, "contentChanges": []any{map[string]any{"text": text}}})
	w.next(60*time.Second, "diagnostics of version 4", func(m map[string]json.RawMessage) bool {
		return string(m["method"]) == `"textDocument/publishDiagnostics"` && strings.Contains(string(m["params"]), `"version":4`)
	})
	took = time.Since(start)
	t.Logf("10,000 files: diagnostics of an edit made while the datasets are described %v", took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("diagnostics waited %v for the description of the datasets", took)
	}
	w.call(3, "workspace/symbol", map[string]any{"query": "ds_0999"})
	res, code, _ := w.response("3", 30*time.Second)
	var syms []any
	json.Unmarshal(res, &syms)
	if code != 0 || len(syms) != 10 {
		t.Fatalf("workspace/symbol ds_0999: %d symbols (code %d)", len(syms), code)
	}
	noPanic(t, w)
}

// TestClosedUnsavedBufferIsForgotten: a buffer for a file that is not on
// disk (a new, unsaved file) counts while open; once closed, its dataset
// is gone, and a file saved meanwhile comes back with its disk text.
func TestClosedUnsavedBufferIsForgotten(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	os.WriteFile(filepath.Join(root, "a.sql"), []byte("SELECT 1 AS x\n"), 0o644)
	c := startServer(t)
	aURI := uri.File(filepath.Join(root, "a.sql"))
	newURI := uri.File(filepath.Join(root, "fresh.sql"))
	c.notify(t, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": aURI, "languageId": "sql", "version": 1, "text": "SELECT x FROM fresh\n"}})
	c.notify(t, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": newURI, "languageId": "sql", "version": 1, "text": "SELECT 2 AS x\n"}})
	names := func() []string {
		var g GraphResult
		c.call(t, "thund/graph", map[string]any{"uri": aURI}, &g)
		var out []string
		for _, n := range g.Nodes {
			out = append(out, n.Name)
		}
		return out
	}
	if got := strings.Join(names(), ","); got != "a,fresh" {
		t.Fatalf("with fresh.sql open: %s", got)
	}
	c.notify(t, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": newURI}})
	if got := strings.Join(names(), ","); got != "a" {
		t.Fatalf("after closing the unsaved fresh.sql: %s, want a alone", got)
	}
	// a.sql now reads a table that does not exist.
	for {
		p := c.waitFor(t, filepath.Join(root, "a.sql"))
		if len(p.Diagnostics) == 1 && p.Diagnostics[0].Code == "unknown-reference" {
			break
		}
	}
	// Closing a.sql brings back its disk text, which reads nothing.
	c.notify(t, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": aURI}})
	for {
		p := c.waitFor(t, filepath.Join(root, "a.sql"))
		if len(p.Diagnostics) == 0 {
			break
		}
	}
}
