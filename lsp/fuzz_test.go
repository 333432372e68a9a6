package lsp

import (
	"bufio"
	"bytes"
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

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/internal/testutil"
)

// The fuzz targets of the language server's message handling:
//
//   - FuzzStream feeds arbitrary bytes to the tolerant framing (stream.go)
//     and checks that it never panics, answers junk with well-formed
//     JSON-RPC errors, always gets to the end of its input, and still
//     decodes a valid message sent after the junk.
//   - FuzzSession drives a whole session (Serve over net.Pipe, on a copy of
//     testdata/retail) with arbitrary bytes followed by a script of
//     well-framed messages decoded from the fuzz input: real methods with
//     random parameters, ids, positions, versions and texts. It checks that
//     the session never panics (not even a recovered one), answers every
//     request with a result or an error, keeps serving (a definition request
//     after everything gets the right location), and ends promptly when the
//     client goes away.

// fuzzCap bounds the Content-Length values a fuzz input may declare (larger
// values up to maxMessage are clamped to it), so that the filler which
// resynchronises the stream stays small; values above maxMessage are kept,
// since those are refused without reading.
const fuzzCap = 1 << 16

// clampLengths rewrites every run of digits whose value lies in
// (fuzzCap, maxMessage] to fuzzCap, and returns the largest value left
// that a header could declare (at most fuzzCap).
func clampLengths(junk []byte) ([]byte, int) {
	var out []byte
	largest := 0
	for i := 0; i < len(junk); {
		if junk[i] < '0' || junk[i] > '9' {
			out = append(out, junk[i])
			i++
			continue
		}
		j := i
		for j < len(junk) && junk[j] >= '0' && junk[j] <= '9' {
			j++
		}
		digits := strings.TrimLeft(string(junk[i:j]), "0")
		v, err := strconv.ParseInt(digits, 10, 64)
		switch {
		case digits == "":
			v = 0
		case err != nil || v > maxMessage:
			v = -1 // refused by the header parser: no body is read
		case v > fuzzCap:
			out = append(out, strconv.Itoa(fuzzCap)...)
			largest = fuzzCap
			i = j
			continue
		}
		if int(v) > largest {
			largest = int(v)
		}
		out = append(out, junk[i:j]...)
		i = j
	}
	return out, largest
}

// resync returns bytes that bring the stream back to the start of a header
// block after junk that declared bodies of at most largest bytes: a pending
// body ends within the first run of spaces, a header block left open ends
// at the first blank line (its body, if any, within the second run), and
// every later blank line is skipped as an empty header block.
func resync(largest int) []byte {
	pad := bytes.Repeat([]byte(" "), largest+1)
	var b bytes.Buffer
	b.Write(pad)
	b.WriteString("\r\n\r\n")
	b.Write(pad)
	b.WriteString("\r\n\r\n")
	return b.Bytes()
}

func framed(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// memConn is an in-memory connection: reads come from a buffer, writes
// are recorded.
type memConn struct {
	r   io.Reader
	out bytes.Buffer
}

func (c *memConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *memConn) Write(p []byte) (int, error) { return c.out.Write(p) }
func (c *memConn) Close() error                { return nil }

// checkErrorFrames checks that out is a sequence of framed JSON-RPC error
// responses with a parse or invalid-request code.
func checkErrorFrames(t *testing.T, out []byte) int {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(out))
	n := 0
	for {
		body, err := readFrame(r)
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("the stream wrote a bad frame: %v in %q", err, out)
		}
		var m struct {
			Version string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("the stream wrote invalid JSON %q: %v", body, err)
		}
		// The id is null, except for a request with an empty method
		// name, which is answered with its own id.
		if m.Version != "2.0" || (string(m.ID) != "null" && m.Error != nil && m.Error.Code != int(jsonrpc2.InvalidRequest)) || m.Error == nil ||
			(m.Error.Code != int(jsonrpc2.ParseError) && m.Error.Code != int(jsonrpc2.InvalidRequest)) || m.Error.Message == "" {
			t.Fatalf("the stream wrote %s, want a parse or invalid-request error", body)
		}
		n++
	}
}

func FuzzStream(f *testing.F) {
	for _, s := range []string{
		"",
		framed(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`),
		"Content-Length: banana\r\n\r\n{}",
		"Content-Length: -5\r\n\r\n",
		"Content-Length: 99999999999\r\n\r\n{}",
		"Content-Length: 200\r\n\r\n{\"jsonrpc\":\"2.0\"",
		"content-length:   7  \r\nContent-Type: x\r\n\r\n{\"a\":1}",
		"junkContent-Length: 2\r\n\r\n{}",
		"Content-Length: 5Content-Length: 3\r\n\r\nabc",
		"Content-Length: 2\n\n[]",
		"Content-Length: 4\r\n\r\nnull",
		framed(`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`),
		framed(`{"jsonrpc":"2.0","id":1.5,"method":"x"}`),
		framed(`{"jsonrpc":"2.0","result":1}`),
		"\r\n\r\n\r\n",
		"Content-Length: 3\r\n",
		"Content-Length: +0003\r\n\r\n{}}",
	} {
		f.Add([]byte(s))
	}
	probe := `{"jsonrpc":"2.0","id":424242,"method":"thund/probe","params":{"ok":true}}`
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			t.Skip("input too large")
		}
		junk, largest := clampLengths(data)
		in := append(append(junk, resync(largest)...), framed(probe)...)
		conn := &memConn{r: bytes.NewReader(in)}
		s := newStream(conn, log.New(io.Discard, "", 0))
		var last jsonrpc2.Message
		for i := 0; ; i++ {
			msg, _, err := s.Read(context.Background())
			if err != nil {
				break
			}
			if i > len(in) {
				t.Fatalf("more messages than input bytes: the stream loops")
			}
			last = msg
		}
		call, ok := last.(*jsonrpc2.Call)
		if !ok || call.Method() != "thund/probe" || call.ID() != jsonrpc2.NewNumberID(424242) || string(call.Params()) != `{"ok":true}` {
			t.Fatalf("the message after the junk was not decoded: last message %#v", last)
		}
		checkErrorFrames(t, conn.out.Bytes())
	})
}

// fuzzFixture is a per-process copy of testdata/retail (the pipeline the
// fuzzed scripts edit, preview and run) and a separate small pipeline the
// scripts never name, on which the final request checks the session
// still answers correctly.
type fuzzFixture struct {
	retail string
	files  []string // retail files, absolute
	probeQ string   // probe/q.sql
	probeP string   // probe/p.sql
	texts  map[string]string
}

// newFuzzFixture builds the fixture in dir.
func newFuzzFixture(t testing.TB, dir string) *fuzzFixture {
	fx := &fuzzFixture{retail: filepath.Join(dir, "retail"), texts: map[string]string{}}
	testutil.CopyTree(t, "../testdata/retail", fx.retail)
	probe := filepath.Join(dir, "probe")
	fx.probeP = filepath.Join(probe, "p.sql")
	fx.probeQ = filepath.Join(probe, "q.sql")
	for path, text := range map[string]string{
		filepath.Join(probe, "thund.yaml"): "backends: [native]\n",
		fx.probeP:                          "SELECT 42 AS answer\n",
		fx.probeQ:                          "SELECT answer FROM p\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := filepath.Walk(fx.retail, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		fx.files = append(fx.files, p)
		fx.texts[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatalf("fuzz fixture: %v", err)
	}
	return fx
}

// fgen draws values from the fuzz input; past its end every draw is zero.
type fgen struct {
	b []byte
}

func (g *fgen) byte() byte {
	if len(g.b) == 0 {
		return 0
	}
	c := g.b[0]
	g.b = g.b[1:]
	return c
}

func (g *fgen) intn(n int) int {
	if n <= 1 {
		return 0
	}
	v := int(g.byte())<<8 | int(g.byte())
	return v % n
}

func (g *fgen) bytes(max int) []byte {
	n := g.intn(max + 1)
	if n > len(g.b) {
		n = len(g.b)
	}
	out := g.b[:n]
	g.b = g.b[n:]
	return out
}

func (g *fgen) done() bool { return len(g.b) == 0 }

// tokens are inserted into texts by the fuzzed edits.
var tokens = []string{
	"SELECT ", "FROM ", " WHERE ", ",", "(", ")", "'", "\"", "`", "--", "/*", "*/", "\n", "\r\n", "\t", ";",
	"-- @kind: streaming_table\n", "-- @expect.x: a > 0\n", "-- @name: ", "-- @", "@", ":", ".",
	"clean_orders", "customers", "orders", "revenue", "STREAM(orders)", "read_csv('samples/orders.csv')",
	"é", "日本", "😀", "\x00", "\xff\xfe", "\u2028", "CREATE MATERIALIZED VIEW v AS ", "JOIN ", " ON ",
	"range(100000000000)", "1e309", "NULL", "*",
}

// fuzzURI picks a document URI: mostly a retail file, sometimes something
// odd (never a real folder outside the fixture: a root found above a file
// is analysed whole).
func (g *fgen) uri(fx *fuzzFixture) string {
	switch k := g.intn(12); {
	case k < 8:
		return string(uri.File(fx.files[g.intn(len(fx.files))]))
	case k == 8:
		return string(uri.File(filepath.Join(fx.retail, "transformations", "new_"+strconv.Itoa(g.intn(3))+".sql")))
	case k == 9:
		return string(uri.File(fx.retail))
	case k == 10:
		return []string{"", "untitled:Untitled-1", "file://", "file:///nonexistent-thund/x.sql", "file://host/share/x.sql", "file:///%zz", "http://example.com/x.sql"}[g.intn(7)]
	default:
		return string(g.bytes(12))
	}
}

// text returns a document text: a retail file's text with edits, or raw
// bytes from the input.
func (g *fgen) text(fx *fuzzFixture, u string) string {
	if g.intn(6) == 0 {
		return string(g.bytes(200))
	}
	text := ""
	if p, err := filename(uriOf(u)); err == nil {
		text = fx.texts[p]
	}
	for n := g.intn(6); n > 0; n-- {
		at := 0
		if len(text) > 0 {
			at = g.intn(len(text) + 1)
		}
		if g.intn(3) == 0 && len(text) > 0 {
			end := min(len(text), at+g.intn(40))
			text = text[:at] + text[end:]
		} else {
			text = text[:at] + tokens[g.intn(len(tokens))] + text[at:]
		}
	}
	return text
}

func uriOf(s string) uri.URI { return uri.URI(s) }

// position returns a position: usually within a few lines and columns of
// real text, sometimes huge.
func (g *fgen) position() map[string]any {
	if g.intn(8) == 0 {
		return map[string]any{"line": []any{-1, 1 << 31, 4294967295, 1e12, 1.5, "x", nil}[g.intn(7)], "character": g.intn(1 << 16)}
	}
	return map[string]any{"line": g.intn(40), "character": g.intn(80)}
}

// value returns an arbitrary JSON value.
func (g *fgen) value(depth int) any {
	switch g.intn(9) {
	case 0:
		return nil
	case 1:
		return g.intn(3) == 0
	case 2:
		return g.intn(1<<16) - 1<<15
	case 3:
		return string(g.bytes(16))
	case 4:
		if depth > 2 {
			return 1.5
		}
		var a []any
		for n := g.intn(4); n > 0; n-- {
			a = append(a, g.value(depth+1))
		}
		return a
	case 5:
		if depth > 2 {
			return "deep"
		}
		m := map[string]any{}
		for n := g.intn(4); n > 0; n-- {
			keys := []string{"uri", "textDocument", "position", "text", "version", "id", "dataset", "limit", "offset", "query", "settings", "changes", "contentChanges", "range"}
			m[keys[g.intn(len(keys))]] = g.value(depth + 1)
		}
		return m
	case 6:
		return 1e300
	case 7:
		return -0.0
	default:
		return strings.Repeat("a", g.intn(300))
	}
}

// fuzzMethods are the methods the scripts call ("exit" is left out: it
// ends the session on purpose).
var fuzzMethods = []string{
	"initialize", "initialized", "shutdown", "$/cancelRequest", "$/setTrace",
	"textDocument/didOpen", "textDocument/didChange", "textDocument/didClose", "textDocument/didSave",
	"workspace/didChangeWatchedFiles", "workspace/didChangeConfiguration", "workspace/didChangeWorkspaceFolders",
	"textDocument/hover", "textDocument/definition", "textDocument/references", "textDocument/documentHighlight",
	"textDocument/prepareRename", "textDocument/rename", "textDocument/completion", "textDocument/documentSymbol",
	"workspace/symbol", "textDocument/foldingRange", "textDocument/semanticTokens/full", "textDocument/codeLens",
	"thund/preview", "thund/graph", "thund/run", "thund/sparkDryRun", "textDocument/signatureHelp",
}

// params returns parameters for method: usually well shaped with random
// values, sometimes an arbitrary JSON value.
func (g *fgen) params(fx *fuzzFixture, method string, ids []any) any {
	if g.intn(10) == 0 {
		return g.value(0)
	}
	u := g.uri(fx)
	doc := map[string]any{"uri": u}
	pos := map[string]any{"textDocument": doc, "position": g.position()}
	switch method {
	case "initialize":
		p := map[string]any{"rootUri": string(uri.File(fx.retail)), "capabilities": map[string]any{}}
		if g.intn(2) == 0 {
			p["workspaceFolders"] = []any{map[string]any{"uri": g.uri(fx), "name": "w"}}
		}
		if g.intn(3) == 0 {
			p["initializationOptions"] = map[string]any{"backends": []any{"native", "spark", string(g.bytes(5))}[:g.intn(3)+1], "previewLimit": g.intn(1000) - 10, "samples": map[string]any{"orders": string(g.bytes(20))}}
		}
		return p
	case "$/cancelRequest":
		if len(ids) > 0 && g.intn(4) != 0 {
			return map[string]any{"id": ids[g.intn(len(ids))]}
		}
		return map[string]any{"id": g.value(1)}
	case "textDocument/didOpen":
		return map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "sql", "version": g.intn(1<<16) - 5, "text": g.text(fx, u)}}
	case "textDocument/didChange":
		var changes []any
		for n := g.intn(3) + 1; n > 0; n-- {
			c := map[string]any{"text": g.text(fx, u)}
			if g.intn(3) == 0 {
				c["range"] = map[string]any{"start": g.position(), "end": g.position()}
			}
			changes = append(changes, c)
		}
		if g.intn(8) == 0 {
			changes = nil
		}
		return map[string]any{"textDocument": map[string]any{"uri": u, "version": g.intn(1<<16) - 5}, "contentChanges": changes}
	case "textDocument/didClose", "textDocument/didSave", "textDocument/documentSymbol", "textDocument/foldingRange",
		"textDocument/semanticTokens/full", "textDocument/codeLens":
		return map[string]any{"textDocument": doc}
	case "workspace/didChangeWatchedFiles":
		return map[string]any{"changes": []any{map[string]any{"uri": u, "type": g.intn(5)}}}
	case "workspace/didChangeConfiguration":
		set := map[string]any{"backends": []any{"native", "spark", "bogus"}[:g.intn(3)+1], "previewLimit": g.intn(100) - 1}
		if g.intn(2) == 0 {
			return map[string]any{"settings": map[string]any{"thund": set}}
		}
		return map[string]any{"settings": g.value(1)}
	case "workspace/didChangeWorkspaceFolders":
		return map[string]any{"event": map[string]any{"added": []any{map[string]any{"uri": g.uri(fx), "name": "a"}}, "removed": []any{map[string]any{"uri": g.uri(fx), "name": "r"}}}}
	case "textDocument/references":
		pos["context"] = map[string]any{"includeDeclaration": g.intn(2) == 0}
		return pos
	case "textDocument/rename":
		pos["newName"] = []string{"renamed", "", "a b", "x.y.z", "😀", string(g.bytes(8))}[g.intn(6)]
		return pos
	case "textDocument/completion":
		if g.intn(2) == 0 {
			pos["context"] = map[string]any{"triggerKind": g.intn(4), "triggerCharacter": []string{"@", ":", " ", ".", ""}[g.intn(5)]}
		}
		return pos
	case "workspace/symbol":
		return map[string]any{"query": string(g.bytes(8))}
	case "thund/preview":
		names := []string{"", "clean_orders", "customer_orders", "top_products", "orders", "nope", "retail.clean_orders", string(g.bytes(6))}
		return map[string]any{"uri": u, "dataset": names[g.intn(len(names))], "offset": g.intn(1<<16) - 100, "limit": g.intn(1<<16) - 100}
	case "thund/run":
		names := []string{"", "clean_orders", "customer_ranking", "nope"}
		p := map[string]any{"uri": u, "dataset": names[g.intn(len(names))]}
		if g.intn(2) == 0 {
			p["workDoneToken"] = g.value(1)
		}
		return p
	case "thund/graph", "thund/sparkDryRun":
		return map[string]any{"uri": u}
	}
	return pos
}

// fuzzSession is one fuzzed session over net.Pipe, with a reader that
// records every answer and answers the server's own requests.
type fuzzSession struct {
	t    *testing.T
	conn net.Conn
	done chan struct{}
	logs *syncBuffer

	wmu sync.Mutex // serialises writes

	mu        sync.Mutex
	answers   map[string]json.RawMessage // id (JSON) -> the whole message
	nullErrs  int                        // error responses with a null id
	readerErr error
	closed    chan struct{} // closed when the reader stops
	changed   chan struct{} // signalled on every answer
}

func startFuzzSession(t *testing.T) *fuzzSession {
	a, b := net.Pipe()
	s := &fuzzSession{t: t, conn: b, done: make(chan struct{}), logs: &syncBuffer{}, answers: map[string]json.RawMessage{},
		closed: make(chan struct{}), changed: make(chan struct{}, 1)}
	go func() {
		Serve(context.Background(), a, log.New(s.logs, "", 0))
		a.Close()
		close(s.done)
	}()
	go s.read()
	return s
}

func (s *fuzzSession) read() {
	defer close(s.closed)
	r := bufio.NewReader(s.conn)
	for {
		body, err := readFrame(r)
		if err != nil {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			s.mu.Lock()
			s.readerErr = fmt.Errorf("server sent invalid JSON %q: %v", body, err)
			s.mu.Unlock()
			return
		}
		if _, isReq := m["method"]; isReq {
			if id, ok := m["id"]; ok { // a request from the server: answer it
				go s.write(framed(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, id)))
			}
			continue
		}
		_, hasRes := m["result"]
		_, hasErr := m["error"]
		s.mu.Lock()
		if hasRes == hasErr {
			s.readerErr = fmt.Errorf("a response needs exactly one of result and error: %s", body)
		}
		id := canonID(m["id"])
		if id == "null" {
			s.nullErrs++
		} else if _, dup := s.answers[id]; dup {
			s.readerErr = fmt.Errorf("two answers for id %s", m["id"])
		} else {
			s.answers[id] = body
		}
		s.mu.Unlock()
		select {
		case s.changed <- struct{}{}:
		default:
		}
	}
}

// canonID re-encodes a JSON id, so that ids compare whatever escapes
// each side's encoder chose.
func canonID(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// write sends raw bytes; false once the server is gone.
func (s *fuzzSession) write(b string) bool {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := io.WriteString(s.conn, b)
	return err == nil
}

func (s *fuzzSession) send(msg map[string]any) bool {
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		s.t.Fatalf("marshal %v: %v", msg, err)
	}
	return s.write(framed(string(b)))
}

// waitAnswers waits until every id in want is answered (and n null-id
// errors came), or d passes; it returns the ids still unanswered.
func (s *fuzzSession) waitAnswers(want []string, nullErrs int, d time.Duration) []string {
	deadline := time.After(d)
	for {
		s.mu.Lock()
		var missing []string
		for _, id := range want {
			if _, ok := s.answers[id]; !ok {
				missing = append(missing, id)
			}
		}
		if s.nullErrs < nullErrs {
			missing = append(missing, fmt.Sprintf("%d null-id errors (got %d)", nullErrs, s.nullErrs))
		}
		s.mu.Unlock()
		if len(missing) == 0 {
			return nil
		}
		select {
		case <-s.changed:
		case <-s.closed:
			return missing
		case <-deadline:
			return missing
		}
	}
}

// mayExit reports whether some JSON object in data is an exit
// notification (which ends the session on purpose).
func mayExit(data []byte) bool {
	for i := bytes.IndexByte(data, '{'); i >= 0; {
		var m struct {
			Method string `json:"method"`
		}
		if json.NewDecoder(bytes.NewReader(data[i:])).Decode(&m) == nil && m.Method == "exit" {
			return true
		}
		j := bytes.IndexByte(data[i+1:], '{')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// weirdIDs cannot be represented by the JSON-RPC library (an int32 or a
// string): a request carrying one is answered with an error, id null.
var weirdIDs = []string{"1.5", "true", "{}", "[1]", "1e20", "4294967296", `-2147483649`}

func FuzzSession(f *testing.F) {
	f.Add([]byte(""), []byte(""))
	f.Add([]byte("Content-Length: 5\r\n\r\n{}"), []byte("\x00\x07\x00\x01\x00\x03"))
	f.Add([]byte(framed(`{"jsonrpc":"2.0","id":"x","method":"textDocument/hover","params":{"textDocument":{"uri":"file:///nonexistent-thund/a.sql"},"position":{"line":0,"character":0}}}`)), []byte("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"))
	f.Add([]byte("Content-Length: 70000\r\n\r\n"), []byte("\x00\x18\x00\x00\x00\x01\x00\x05\x00\x00\x00\x02\x00\x19\x00\x00\x00\x00"))
	fx := newFuzzFixture(f, f.TempDir())
	f.Fuzz(func(t *testing.T, junk, script []byte) {
		if len(junk) > 1<<14 || len(script) > 1<<12 {
			t.Skip("input too large")
		}
		s := startFuzzSession(t)
		defer s.conn.Close()
		exitOK := mayExit(junk)
		var want []string
		sent := map[string]string{} // id -> the request, for failure messages
		nullErrs := 0
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf(format+"\nserver log:\n%s", append(args, s.logs.String())...)
		}

		s.send(map[string]any{"id": 0, "method": "initialize", "params": map[string]any{"rootUri": string(uri.File(fx.retail)), "capabilities": map[string]any{}}})
		want = append(want, "0")
		clamped, largest := clampLengths(junk)
		s.write(string(clamped) + string(resync(largest)))

		g := &fgen{b: script}
		var ids []any
		for i := 1; !g.done() && i < 40; i++ {
			method := fuzzMethods[g.intn(len(fuzzMethods))]
			if g.intn(20) == 0 {
				method = string(g.bytes(10))
				if method == "exit" {
					method = "exit?"
				}
			}
			msg := map[string]any{"method": method, "params": g.params(fx, method, ids)}
			if g.intn(10) == 0 {
				delete(msg, "params")
			}
			switch k := g.intn(10); {
			case k < 4: // a notification
			case k < 6:
				msg["id"] = i
			case k < 9:
				msg["id"] = "s-" + strconv.Itoa(i) + "-" + string(g.bytes(4))
			default:
				msg["id"] = json.RawMessage(weirdIDs[g.intn(len(weirdIDs))])
			}
			if id, ok := msg["id"]; ok {
				if _, weird := id.(json.RawMessage); weird {
					nullErrs++
				} else {
					b, _ := json.Marshal(id)
					want = append(want, canonID(b))
					ids = append(ids, id)
					m, _ := json.Marshal(msg)
					sent[canonID(b)] = string(m)
				}
			}
			if !s.send(msg) {
				break
			}
		}
		// The probe, in a pipeline the script never names: definition of
		// p in "SELECT answer FROM p" is p.sql.
		s.send(map[string]any{"id": "probe", "method": "textDocument/definition", "params": map[string]any{
			"textDocument": map[string]any{"uri": string(uri.File(fx.probeQ))}, "position": map[string]any{"line": 0, "character": 19}}})
		missing := s.waitAnswers([]string{`"probe"`}, 0, 8*time.Second)
		if len(missing) > 0 {
			if exitOK {
				return // the junk held an exit notification
			}
			fail("the session stopped serving: no answer to the final request")
		}
		s.mu.Lock()
		probe := s.answers[`"probe"`]
		s.mu.Unlock()
		var pr struct {
			Result []struct {
				URI string `json:"uri"`
			} `json:"result"`
		}
		if err := json.Unmarshal(probe, &pr); err != nil || len(pr.Result) != 1 || pr.Result[0].URI != string(uri.File(fx.probeP)) {
			fail("final request answered wrongly: %s", probe)
		}
		// Slow requests still running (a preview or run of an edited
		// query) are cancelled; then every request must have its answer.
		for _, id := range ids {
			s.send(map[string]any{"method": "$/cancelRequest", "params": map[string]any{"id": id}})
		}
		if missing := s.waitAnswers(want, nullErrs, 8*time.Second); len(missing) > 0 {
			var reqs []string
			for _, id := range missing {
				reqs = append(reqs, sent[id])
			}
			fail("requests never answered: %v: %s", missing, strings.Join(reqs, "\n"))
		}
		s.mu.Lock()
		rerr := s.readerErr
		s.mu.Unlock()
		if rerr != nil {
			fail("%v", rerr)
		}
		if strings.Contains(s.logs.String(), "panic") {
			fail("the server panicked")
		}
		// The client goes away: the session must end promptly.
		s.conn.Close()
		select {
		case <-s.done:
		case <-time.After(8 * time.Second):
			fail("Serve did not return after the client disconnected")
		}
	})
}

// TestEmptyMethodIsAnswered is the regression test of a FuzzSession
// finding: a request whose method is the empty string was taken for a
// response by jsonrpc2 and never answered.
func TestEmptyMethodIsAnswered(t *testing.T) {
	w := startWire(t)
	w.initialize()
	w.send(map[string]any{"jsonrpc": "2.0", "id": 5, "method": "", "params": map[string]any{}})
	if _, code, msg := w.response("5", 10*time.Second); code != int(jsonrpc2.InvalidRequest) {
		t.Fatalf("request with an empty method: code %d (%s), want InvalidRequest", code, msg)
	}
	w.send(map[string]any{"jsonrpc": "2.0", "id": "e", "method": ""})
	if _, code, _ := w.response(`"e"`, 10*time.Second); code != int(jsonrpc2.InvalidRequest) {
		t.Fatalf("request with an empty method and no params: code %d, want InvalidRequest", code)
	}
	w.call(6, "workspace/symbol", map[string]any{"query": ""})
	if _, code, msg := w.response("6", 10*time.Second); code != 0 {
		t.Fatalf("the next request failed: %d %s", code, msg)
	}
	noPanic(t, w)
}

// TestEmptyStringID is the regression test of a FuzzSession finding:
// jsonrpc2 decodes the id "" as the number 0, so the answer to a request
// with id "" went out with id 0 (and collided with a real request 0). Such
// a request is now refused with an error carrying its own id.
func TestEmptyStringID(t *testing.T) {
	w := startWire(t)
	w.initialize()
	w.send(map[string]any{"jsonrpc": "2.0", "id": "", "method": "workspace/symbol", "params": map[string]any{"query": ""}})
	if _, code, msg := w.response(`""`, 10*time.Second); code != int(jsonrpc2.InvalidRequest) {
		t.Fatalf(`request with id "": code %d (%s), want InvalidRequest`, code, msg)
	}
	w.call(0, "workspace/symbol", map[string]any{"query": ""})
	if _, code, msg := w.response("0", 10*time.Second); code != 0 {
		t.Fatalf("request with id 0: %d %s", code, msg)
	}
	w.call(7, "shutdown", nil)
	w.response("7", 10*time.Second)
	w.mu.Lock()
	for _, m := range w.pending {
		if string(m["id"]) == "0" {
			t.Errorf("a second answer with id 0: %v", m)
		}
	}
	w.mu.Unlock()
	noPanic(t, w)
}
