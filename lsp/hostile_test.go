package lsp

// The hostile-folder suite (issue #14) through a real thund-lsp session:
// lsp.Serve over a pipe, initialized on the attack folder, which then
// opens one .sql file (didOpen: analysis, then the column description
// DescribeDelay later), opens the rest, hovers and asks for completion on
// every line, and previews (thund/preview) each dataset, then shuts down.
// The folders are those of internal/testutil/hostiledir, which
// cmd/thund-watch/hostile_test.go runs through thund-watch too: a root
// with `git init` run inside it, a canary folder outside, HOME and TMPDIR
// of their own. Afterwards: every file and folder under the temp folder
// is as it was (path, mode, size, mtime, link target), .git/config holds
// the same bytes, the attack's targets do not exist, no byte the server
// sent (answers, notifications, its log) holds a secret or the path of
// the folder outside, errors are published at the attack's lines, and
// the previews of the attack's datasets are refused, naming the function
// or the limit.

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/analysis/project"
	"github.com/thund-dev/thund/internal/testutil/hostiledir"
	"github.com/thund-dev/thund/preview"
)

// lspHostileBound is how long one request (a preview of a query that
// never ends, say) may take before the test calls it a hang.
const lspHostileBound = 90 * time.Second

// checkDisk asserts nothing changed on disk under the attack folder.
func checkDisk(t *testing.T, h *hostiledir.Folder) {
	t.Helper()
	if d := h.DiskChanges(t); len(d) > 0 {
		t.Errorf("on disk:\n  %s", strings.Join(d, "\n  "))
	}
}

// teeConn records every byte read from the server.
type teeConn struct {
	net.Conn
	rec *syncBuffer
}

func (c teeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.rec.Write(p[:n])
	return n, err
}

// startHostileSession is startStorm with every byte from the server
// recorded in rec.
func startHostileSession(t *testing.T, rec *syncBuffer) *stormClient {
	t.Helper()
	return startStormOn(t, func(c net.Conn) net.Conn { return teeConn{c, rec} })
}

// answer waits up to d for the answer to id; when none comes, it sends
// $/cancelRequest and waits 30 s more. It reports whether the answer came
// within d; a zero answer's at means none came at all.
func answer(t *testing.T, c *stormClient, id string, d time.Duration) (stormAnswer, bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	cancelled := false
	for {
		c.mu.Lock()
		a, ok := c.answers[id]
		c.mu.Unlock()
		if ok {
			return a, !cancelled
		}
		if time.Now().After(deadline) {
			if cancelled {
				return stormAnswer{}, false
			}
			n, _ := strconv.Atoi(id)
			c.notify("$/cancelRequest", map[string]any{"id": n})
			cancelled, deadline = true, time.Now().Add(30*time.Second)
		}
		select {
		case <-c.changed:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// hostileSession is what a session on an attack folder showed.
type hostileSession struct {
	opened   []string                                     // disk changes after open, describe and hovers (zero-click)
	all      string                                       // every byte from the server, and its log
	texts    string                                       // previews, hovers, completions, diagnostic messages
	diags    map[string]protocol.PublishDiagnosticsParams // last published, by file relative to the root
	previews map[string]stormAnswer                       // by dataset
	hung     []string                                     // requests never answered
}

// runHostileSession runs the LSP session on the attack folder h: open one .sql file, wait
// for its diagnostics and the description, open the rest, hover and
// complete on every line, preview every dataset, shut down.
func runHostileSession(t *testing.T, h *hostiledir.Folder, datasets []string) *hostileSession {
	t.Helper()
	t.Setenv("HOME", h.Home)
	t.Setenv("TMPDIR", h.Tmp)
	t.Chdir(h.Root)
	var rec syncBuffer
	c := startHostileSession(t, &rec)
	res := &hostileSession{previews: map[string]stormAnswer{}}
	var texts strings.Builder
	call := func(kind, method string, params any, d time.Duration) (stormAnswer, bool) {
		a, ok := answer(t, c, c.call(kind, method, params), d)
		if !ok {
			how := "cancelled with $/cancelRequest then, it answered " + strconv.Quote(a.message)
			if a.at.IsZero() {
				how = "not even after $/cancelRequest"
			}
			res.hung = append(res.hung, fmt.Sprintf("%s %v (%s)", method, params, how))
		}
		texts.Write(a.result)
		texts.WriteString("\n" + a.message + "\n")
		return a, ok
	}
	if _, ok := call("initialize", "initialize", map[string]any{"rootUri": string(uri.File(h.Root)), "capabilities": map[string]any{}}, 30*time.Second); !ok {
		t.Fatal("initialize was not answered")
	}
	c.notify("initialized", map[string]any{})
	var sqls []string
	filepath.WalkDir(h.Root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".sql") && !strings.Contains(p, "/.") {
			sqls = append(sqls, p)
		}
		return nil
	})
	sort.Strings(sqls)
	if len(sqls) == 0 {
		t.Fatal("no .sql file in the attack folder")
	}
	open := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": string(uri.File(p)), "languageId": "sql", "version": 1, "text": string(b)}})
		return string(b)
	}
	texts0 := map[string]string{sqls[0]: open(sqls[0])}
	// Diagnostics come Debounce after the open, the description's
	// DescribeDelay after that: wait until the folder is quiet well past
	// both.
	quiet := Debounce + DescribeDelay + time.Second
	c.settle(quiet, lspHostileBound)
	for _, p := range sqls[1:] {
		texts0[p] = open(p)
	}
	c.settle(quiet, lspHostileBound)
	for _, p := range sqls {
		lines := strings.FieldsFunc(texts0[p], func(r rune) bool { return r == '\n' || r == '\r' })
		for l := range lines {
			for _, ch := range []int{0, 4, 10, 16, 30} {
				pos := map[string]any{"textDocument": map[string]any{"uri": string(uri.File(p))}, "position": map[string]any{"line": l, "character": ch}}
				call("hover", "textDocument/hover", pos, 30*time.Second)
				if ch == 16 {
					call("completion", "textDocument/completion", pos, 30*time.Second)
				}
			}
		}
	}
	// Nothing was asked to run yet: whatever changed on disk by now,
	// opening the folder did.
	res.opened = h.DiskChanges(t)
	for _, name := range datasets {
		file := filepath.Join(h.Root, name+".sql")
		a, _ := call("preview", "thund/preview", map[string]any{"uri": string(uri.File(file)), "dataset": name}, lspHostileBound)
		res.previews[name] = a
	}
	c.settle(quiet, lspHostileBound)
	call("shutdown", "shutdown", nil, 30*time.Second)
	c.notify("exit", nil)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		t.Errorf("the server did not exit within 30 s of exit")
	}
	c.mu.Lock()
	res.diags = map[string]protocol.PublishDiagnosticsParams{}
	for u, p := range c.diags {
		rel, _ := filepath.Rel(h.Root, uri.URI(u).Filename())
		res.diags[filepath.ToSlash(rel)] = p
		for _, d := range p.Diagnostics {
			texts.WriteString(d.Message + "\n")
		}
	}
	c.mu.Unlock()
	c.checkMessages()
	res.all = rec.String() + "\n" + c.logs.String()
	res.texts = texts.String()
	return res
}

// checkHostileSession asserts everything the session s on the attack
// folder h must leave behind.
func checkHostileSession(t *testing.T, h *hostiledir.Folder, s *hostileSession) {
	t.Helper()
	if len(s.opened) > 0 {
		t.Errorf("zero-click: opening the folder (didOpen, the description, hovers, completion; no preview yet) changed the disk:\n  %s", strings.Join(s.opened, "\n  "))
	} else if d := h.DiskChanges(t); len(d) > 0 {
		t.Errorf("after the previews, on disk:\n  %s", strings.Join(d, "\n  "))
	}
	for _, r := range s.hung {
		t.Errorf("not answered within %v: %s", lspHostileBound, r)
	}
	for _, str := range h.Forbidden() {
		if i := strings.Index(s.all, str); i >= 0 {
			t.Errorf("the server sent %q: ...%s...", str, hostiledir.Excerpt(s.all, i, len(str)))
		}
	}
	if h.Attack.Private {
		if i := strings.Index(s.texts, h.Root); i >= 0 {
			t.Errorf("a preview, hover or diagnostic holds the root's path: ...%s...", hostiledir.Excerpt(s.texts, i, len(h.Root)))
		}
	}
	for _, f := range slices.Sorted(maps.Keys(h.Attack.At)) {
		found := false
		for _, d := range s.diags[f].Diagnostics {
			for _, l := range h.Attack.At[f] {
				found = found || d.Severity == protocol.DiagnosticSeverityError && int(d.Range.Start.Line) == l-1
			}
		}
		if !found {
			t.Errorf("%s: no error published at line %v; published: %+v", f, h.Attack.At[f], s.diags[f].Diagnostics)
		}
	}
	for _, name := range h.Attack.Blocked {
		a, ok := s.previews[name]
		if !ok {
			continue
		}
		var p struct {
			Error     string `json:"error"`
			TotalRows int64  `json:"total_rows"`
		}
		json.Unmarshal(a.result, &p)
		if a.code == 0 && p.Error == "" {
			t.Errorf("preview of %s succeeded (%d rows): the attack ran: %s", name, p.TotalRows, a.result)
		}
		if word, ok := h.Attack.Refuse[name]; ok {
			msg := p.Error + a.message
			inFile := false
			for _, d := range s.diags[name+".sql"].Diagnostics {
				inFile = inFile || d.Severity == protocol.DiagnosticSeverityError && strings.Contains(d.Message, word)
			}
			if !inFile && !(strings.Contains(msg, word) && strings.Contains(msg, name)) {
				t.Errorf("preview of %s: refusal %q does not name %s and the dataset, and no error in %s.sql does", name, msg, word, name)
			}
		}
	}
}

// TestHostileLSP runs every attack folder through a thund-lsp session.
func TestHostileLSP(t *testing.T) {
	for _, a := range hostiledir.Attacks() {
		t.Run(a.Name, func(t *testing.T) {
			h := hostiledir.New(t, a)
			s := runHostileSession(t, h, a.Blocked)
			checkHostileSession(t, h, s)
		})
	}
}

// TestHostileLSPPreviewCaps: thund.yaml cannot raise the preview page past
// project.PreviewMaxRows (it is an error there, and a request asking for
// more gets that many), and a value over preview.MaxValueBytes comes back
// cut, with the note, so neither a huge page nor a huge value reaches the
// client.
func TestHostileLSPPreviewCaps(t *testing.T) {
	h := hostiledir.New(t, hostiledir.Attack{Name: "caps", Files: map[string]string{
		"thund.yaml": "backends: [native]\npreview:\n  limit: 3000000\n",
		"many.sql":   "-- @kind: materialized_view\nSELECT x AS n FROM range(30000) AS r(x)\n",
		"wide.sql":   "-- @kind: materialized_view\nSELECT repeat('x', 2000000) AS v\n",
	}, At: map[string][]int{"thund.yaml": {3}}})
	t.Setenv("HOME", h.Home)
	t.Setenv("TMPDIR", h.Tmp)
	var rec syncBuffer
	c := startHostileSession(t, &rec)
	openAll(c, h.Root, map[string]string{"many.sql": "-- @kind: materialized_view\nSELECT x AS n FROM range(30000) AS r(x)\n"})
	c.settle(Debounce+DescribeDelay+time.Second, lspHostileBound)
	type page struct {
		Rows      [][]any              `json:"rows"`
		Limit     int                  `json:"limit"`
		TotalRows int64                `json:"total_rows"`
		Truncated []preview.Truncation `json:"truncated"`
		Error     string               `json:"error"`
	}
	get := func(name string, limit int) (page, int) {
		t.Helper()
		params := map[string]any{"uri": string(uri.File(filepath.Join(h.Root, name+".sql"))), "dataset": name}
		if limit > 0 {
			params["limit"] = limit
		}
		a, ok := answer(t, c, c.call("preview", "thund/preview", params), lspHostileBound)
		if !ok || a.code != 0 {
			t.Fatalf("preview of %s: answered %v, error %d %s", name, ok, a.code, a.message)
		}
		var p page
		if err := json.Unmarshal(a.result, &p); err != nil || p.Error != "" {
			t.Fatalf("preview of %s: %v %s", name, err, p.Error)
		}
		return p, len(a.result)
	}
	for _, limit := range []int{0, 3000000} {
		p, _ := get("many", limit)
		if len(p.Rows) > project.PreviewMaxRows || p.Limit > project.PreviewMaxRows {
			t.Errorf("preview with limit %d: a page of %d rows (limit %d), want at most %d", limit, len(p.Rows), p.Limit, project.PreviewMaxRows)
		}
		if p.TotalRows != 30000 {
			t.Errorf("preview with limit %d: total_rows %d, want 30000", limit, p.TotalRows)
		}
	}
	p, size := get("wide", 0)
	if len(p.Rows) != 1 || len(p.Rows[0]) != 1 {
		t.Fatalf("preview of wide: %+v", p.Rows)
	}
	v, _ := p.Rows[0][0].(string)
	if len(v) > preview.MaxValueBytes+len(preview.TruncatedNote(2000000)) || !strings.HasSuffix(v, preview.TruncatedNote(2000000)) {
		t.Errorf("a 2,000,000-byte value came back as %d bytes, ending %q; want it cut to %d bytes and the note", len(v), v[max(0, len(v)-40):], preview.MaxValueBytes)
	}
	if size > 1<<20 {
		t.Errorf("the answer is %d bytes", size)
	}
	c.mu.Lock()
	found := false
	for u, d := range c.diags {
		if strings.HasSuffix(u, "/thund.yaml") {
			for _, x := range d.Diagnostics {
				found = found || x.Severity == protocol.DiagnosticSeverityError && x.Range.Start.Line == 2
			}
		}
	}
	c.mu.Unlock()
	if !found {
		t.Errorf("no error published at thund.yaml:3 for preview.limit: 3000000")
	}
	c.wait(c.call("shutdown", "shutdown", nil), 30*time.Second)
	c.notify("exit", nil)
	<-c.done
	checkDisk(t, h)
}
