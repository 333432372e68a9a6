package lsp

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// client is a test LSP client over net.Pipe that records every
// publishDiagnostics notification.
type client struct {
	conn  jsonrpc2.Conn
	diags chan protocol.PublishDiagnosticsParams
	done  chan struct{}
}

func startServer(t *testing.T) *client {
	t.Helper()
	a, b := net.Pipe()
	c := &client{diags: make(chan protocol.PublishDiagnosticsParams, 100), done: make(chan struct{})}
	go func() {
		Serve(context.Background(), a, log.New(io.Discard, "", 0))
		close(c.done)
	}()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(b))
	c.conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == protocol.MethodTextDocumentPublishDiagnostics {
			var p protocol.PublishDiagnosticsParams
			if err := json.Unmarshal(req.Params(), &p); err != nil {
				t.Errorf("bad publishDiagnostics: %v", err)
			}
			c.diags <- p
		}
		return reply(ctx, nil, nil)
	})
	t.Cleanup(func() { c.conn.Close() })
	var res protocol.InitializeResult
	if _, err := c.conn.Call(context.Background(), protocol.MethodInitialize, &protocol.InitializeParams{}, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	opts, ok := res.Capabilities.TextDocumentSync.(map[string]any)
	if !ok || opts["change"] != float64(protocol.TextDocumentSyncKindFull) {
		t.Fatalf("initialize: textDocumentSync = %#v, want full sync", res.Capabilities.TextDocumentSync)
	}
	return c
}

// waitFor returns the next diagnostics published for file.
func (c *client) waitFor(t *testing.T, file string) protocol.PublishDiagnosticsParams {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case p := <-c.diags:
			if p.URI.Filename() == file {
				return p
			}
		case <-deadline:
			t.Fatalf("no diagnostics published for %s", file)
		}
	}
}

// change sends a full-text didChange of u at version v.
func (c *client) change(t *testing.T, u protocol.DocumentURI, v int32, text string) {
	t.Helper()
	c.notify(t, protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{{Text: text}},
	})
}

func (c *client) notify(t *testing.T, method string, params any) {
	t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

func TestDiagnosticsFollowEdits(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	os.WriteFile(filepath.Join(root, "a.sql"), []byte("SELECT 1 AS x\n"), 0o644)
	bPath := filepath.Join(root, "b.sql")
	os.WriteFile(bPath, []byte("SELECT x FROM a\n"), 0o644)
	c := startServer(t)
	bURI := uri.File(bPath)

	// Open b with a typo: the unknown reference is published at its range,
	// tagged with the buffer's version.
	c.notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: bURI, LanguageID: "sql", Version: 1, Text: "SELECT x FROM aa\n",
	}})
	p := c.waitFor(t, bPath)
	if len(p.Diagnostics) != 1 || p.Diagnostics[0].Code != "unknown-reference" || p.Version != 1 {
		t.Fatalf("after open: %+v", p)
	}
	r := p.Diagnostics[0].Range
	if r.Start.Line != 0 || r.Start.Character != 14 || r.End.Character != 16 {
		t.Fatalf("range %+v, want 0:14-0:16", r)
	}

	// Fix it: the diagnostics are cleared, for the new version.
	c.change(t, bURI, 2, "SELECT x FROM a\n")
	p = c.waitFor(t, bPath)
	if len(p.Diagnostics) != 0 || p.Version != 2 {
		t.Fatalf("after fix: %+v", p)
	}

	// A cross-file effect: making a.sql read b.sql creates a cycle that is
	// reported in b.sql too, though b.sql did not change.
	aPath := filepath.Join(root, "a.sql")
	c.notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri.File(aPath), LanguageID: "sql", Version: 1, Text: "SELECT x FROM b\n",
	}})
	for {
		p = c.waitFor(t, bPath)
		if len(p.Diagnostics) > 0 {
			break
		}
	}
	if p.Diagnostics[0].Code != "cycle" || !strings.Contains(p.Diagnostics[0].Message, "a -> b -> a") && !strings.Contains(p.Diagnostics[0].Message, "b -> a -> b") {
		t.Fatalf("cycle not reported in b.sql: %+v", p.Diagnostics)
	}

	// Closing a.sql falls back to its disk text: the cycle disappears.
	c.notify(t, protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(aPath)}})
	for {
		p = c.waitFor(t, bPath)
		if len(p.Diagnostics) == 0 {
			break
		}
	}
}

func TestUnknownMethodAndExit(t *testing.T) {
	c := startServer(t)
	var out any
	_, err := c.conn.Call(context.Background(), "thund/noSuchRequest", map[string]any{}, &out)
	if err == nil || !strings.Contains(err.Error(), "method not found") {
		t.Fatalf("thund/noSuchRequest: err = %v, want method not found", err)
	}
	// A request with a bad URI is an error answer, not a crash.
	_, err = c.conn.Call(context.Background(), "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "not a uri"}, "position": map[string]any{"line": 0, "character": 0}}, &out)
	if err != nil {
		t.Fatalf("hover on a bad URI: %v (want an empty answer)", err)
	}
	if _, err := c.conn.Call(context.Background(), protocol.MethodShutdown, nil, &out); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	c.notify(t, protocol.MethodExit, nil)
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		t.Fatal("server did not stop after exit")
	}
}

func TestClientDisconnectStopsServer(t *testing.T) {
	c := startServer(t)
	c.conn.Close()
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		t.Fatal("server did not stop when its client went away")
	}
}

func timeout(t *testing.T) <-chan time.Time {
	t.Helper()
	return time.After(30 * time.Second)
}

// TestEditsPublishAfterDebounce: analysis starts at the edit, but
// diagnostics wait for the debounce, a burst of edits ends with the
// diagnostics of its last version (nothing older after it), and a request
// right after an edit answers on the edited text.
func TestEditsPublishAfterDebounce(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	os.WriteFile(filepath.Join(root, "a.sql"), []byte("SELECT 1 AS x\n"), 0o644)
	bPath := filepath.Join(root, "b.sql")
	os.WriteFile(bPath, []byte("SELECT x FROM a\n"), 0o644)
	c := startServer(t)
	bURI := uri.File(bPath)
	change := func(v int32, text string) {
		c.change(t, bURI, v, text)
	}
	c.notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: bURI, LanguageID: "sql", Version: 1, Text: "SELECT x FROM aa\n",
	}})
	if p := c.waitFor(t, bPath); p.Version != 1 || len(p.Diagnostics) != 1 {
		t.Fatalf("after open: %+v", p)
	}

	// One edit (the fix): its diagnostics come no sooner than the debounce.
	start := time.Now()
	change(2, "SELECT x FROM a\n")
	p := c.waitFor(t, bPath)
	if waited := time.Since(start); waited < Debounce {
		t.Errorf("diagnostics published %v after the edit, before the %v debounce", waited, Debounce)
	}
	if p.Version != 2 || len(p.Diagnostics) != 0 {
		t.Fatalf("after edit: %+v", p)
	}

	// A burst: whatever is published in between, the last publication is
	// the last version's, and no older version follows a newer one.
	texts := []string{"SELECT x FROM aa\n", "SELECT x FROM ab\n", "SELECT x FROM a\n", "SELECT x FROM abc\n"}
	for i, text := range texts {
		change(int32(3+i), text)
	}
	last := uint32(2 + len(texts))
	seen := uint32(2)
	for {
		p = c.waitFor(t, bPath)
		if p.Version < seen {
			t.Fatalf("version %d published after version %d", p.Version, seen)
		}
		seen = p.Version
		if p.Version == last {
			break
		}
	}
	if len(p.Diagnostics) != 1 || !strings.Contains(p.Diagnostics[0].Message, "abc") {
		t.Fatalf("last version's diagnostics: %+v", p.Diagnostics)
	}
	select {
	case p := <-c.diags:
		t.Fatalf("published after the last version: %+v", p)
	case <-time.After(3 * Debounce):
	}

	// A request right after an edit sees it: the reference to a is found
	// at the position it has in the new text, not the old one.
	text := "SELECT x\nFROM a\n"
	change(int32(last+1), text)
	var locs []protocol.Location
	if _, err := c.conn.Call(context.Background(), protocol.MethodTextDocumentDefinition, &protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: bURI}, Position: protocol.Position{Line: 1, Character: 5},
	}, &locs); err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || locs[0].URI.Filename() != filepath.Join(root, "a.sql") {
		t.Fatalf("definition right after the edit: %+v", locs)
	}
}

// TestUnchangedDiagnosticsNotResent: an edit republishes the files whose
// diagnostics changed (and the edited file, for its new version), not
// every file that has diagnostics.
func TestUnchangedDiagnosticsNotResent(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	aPath, bPath := filepath.Join(root, "a.sql"), filepath.Join(root, "b.sql")
	os.WriteFile(aPath, []byte("SELECT x FROM nowhere_a\n"), 0o644)
	os.WriteFile(bPath, []byte("SELECT x FROM nowhere_b\n"), 0o644)
	c := startServer(t)
	aURI := uri.File(aPath)
	c.notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: aURI, LanguageID: "sql", Version: 1, Text: "SELECT x FROM nowhere_a\n",
	}})
	got := map[string]int{}
	for len(got) < 2 {
		select {
		case p := <-c.diags:
			got[p.URI.Filename()]++
		case <-time.After(10 * time.Second):
			t.Fatalf("first publication: %v", got)
		}
	}
	c.change(t, aURI, 2, "SELECT x FROM nowhere_c\n")
	if p := c.waitFor(t, aPath); p.Version != 2 || len(p.Diagnostics) != 1 {
		t.Fatalf("a.sql after the edit: %+v", p)
	}
	// Long enough for a second publication (the description's) too.
	deadline := time.After(DescribeDelay + 10*Debounce)
	for {
		select {
		case p := <-c.diags:
			t.Errorf("published again: %s version %d, %d diagnostics", p.URI.Filename(), p.Version, len(p.Diagnostics))
		case <-deadline:
			return
		}
	}
}

// TestChangeOfUnopenedDocumentIgnored: a didChange without didOpen (a
// client bug) does not add the file to the pipeline.
func TestChangeOfUnopenedDocumentIgnored(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	aPath := filepath.Join(root, "a.sql")
	os.WriteFile(aPath, []byte("SELECT x FROM nowhere\n"), 0o644)
	c := startServer(t)
	ghost := filepath.Join(root, "ghost.sql")
	c.change(t, uri.File(ghost), 2, "SELECT x FROM nowhere_either\n")
	var syms []protocol.SymbolInformation
	if _, err := c.conn.Call(context.Background(), protocol.MethodWorkspaceSymbol, &protocol.WorkspaceSymbolParams{Query: "ghost"}, &syms); err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == "ghost" {
			t.Fatalf("the unopened ghost.sql became a dataset: %+v", syms)
		}
	}
	select {
	case p := <-c.diags:
		t.Fatalf("published after a didChange of an unopened document: %+v", p)
	case <-time.After(5 * Debounce):
	}
}

// TestRemovedFolderClearsItsDiagnostics: removing a workspace folder
// clears the diagnostics published for its pipeline's files.
func TestRemovedFolderClearsItsDiagnostics(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	bPath := filepath.Join(root, "b.sql")
	os.WriteFile(bPath, []byte("SELECT x FROM nowhere\n"), 0o644)
	c := startServer(t)
	c.notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri.File(bPath), LanguageID: "sql", Version: 1, Text: "SELECT x FROM nowhere\n",
	}})
	if p := c.waitFor(t, bPath); len(p.Diagnostics) != 1 {
		t.Fatalf("opened: %+v", p)
	}
	c.notify(t, protocol.MethodWorkspaceDidChangeWorkspaceFolders, &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
		Removed: []protocol.WorkspaceFolder{{URI: string(uri.File(root)), Name: "p"}},
	}})
	if p := c.waitFor(t, bPath); len(p.Diagnostics) != 0 {
		t.Fatalf("after the folder was removed: %+v", p)
	}
}
