// Package lsp is Thund's language server. Every feature is a function of
// an immutable analysis snapshot; the server keeps one snapshot per
// pipeline root, brings it up to date with the open buffers before
// answering, and republishes diagnostics (cancel-and-restart: an analysis
// overtaken by a newer edit publishes nothing).
//
// Served: diagnostics, hover, definition, references, document highlight,
// prepareRename and rename, completion, document and workspace symbols,
// folding ranges, semantic tokens for pragma headers, code lenses, and the
// custom requests thund/preview, thund/graph, thund/run and
// thund/sparkDryRun (docs/lsp.md).
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/project"
	"github.com/thund-dev/thund/ir"
)

// Debounce is how long the server waits after an edit before analysing, so
// a burst of keystrokes costs one analysis.
const Debounce = 30 * time.Millisecond

// Settings are the editor's settings (initializationOptions, or the
// "thund" section of didChangeConfiguration).
type Settings struct {
	// Backends overrides thund.yaml's backends.
	Backends []string `json:"backends"`
	// SparkRemote is the Spark Connect endpoint (sc://host:port); when set,
	// code lenses offer a Spark dry run.
	SparkRemote string `json:"sparkRemote"`
	// Samples binds source tables to sample paths.
	Samples map[string]string `json:"samples"`
	// PreviewLimit is the default page size of thund/preview.
	PreviewLimit int `json:"previewLimit"`
	// Spec names a pipeline's spec file whatever its name (as
	// thund-watch --spec and spark-pipelines --spec take it): absolute,
	// or relative to the first workspace folder. The folder holding it is
	// the root of every file under it; "" finds roots as spark-pipelines
	// does (spark-pipeline.yml or .yaml, else thund.yaml).
	Spec string `json:"spec"`
}

// Server is one language-server session.
type Server struct {
	conn   jsonrpc2.Conn
	logger *log.Logger

	mu       sync.Mutex
	overlays map[string]overlay // absolute path -> open buffer
	roots    map[string]*root   // pipeline root -> its state
	folders  []string
	// small caches, per workspace folder no pipeline file marks, whether
	// it is small enough to be a pipeline root (project.Walk reads it).
	small    map[string]bool
	settings Settings
	shutdown bool
	exited   chan struct{}
	exitOnce sync.Once
	cancels  map[string]context.CancelFunc // in-flight request id -> cancel
	// watchFiles: the client can watch files for us (dynamic registration
	// of workspace/didChangeWatchedFiles).
	watchFiles bool
	// snippets: the client takes snippets in completion items.
	snippets bool
	wg       sync.WaitGroup
}

type overlay struct {
	text    string
	version int32
}

// Serve runs a server on rwc until the client exits or disconnects.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, logger *log.Logger) error {
	s := &Server{
		logger:   logger,
		overlays: map[string]overlay{},
		roots:    map[string]*root{},
		exited:   make(chan struct{}),
		cancels:  map[string]context.CancelFunc{},
	}
	s.conn = jsonrpc2.NewConn(newStream(rwc, logger))
	s.conn.Go(ctx, s.handle)
	select {
	case <-s.conn.Done():
	case <-s.exited:
		s.conn.Close()
	case <-ctx.Done():
		s.conn.Close()
	}
	s.mu.Lock()
	for _, c := range s.cancels {
		c()
	}
	roots := make([]*root, 0, len(s.roots))
	for _, r := range s.roots {
		r.stop()
		roots = append(roots, r)
	}
	s.mu.Unlock()
	s.wg.Wait()
	for _, r := range roots {
		r.close()
	}
	return nil
}

// handler answers one request from a snapshot-independent context.
type handler func(ctx context.Context, params json.RawMessage) (any, error)

// slow methods run in their own goroutine, so the connection keeps
// reading (and can cancel them); the rest answer in order.
var slow = map[string]bool{"thund/preview": true, "thund/run": true, "thund/sparkDryRun": true, protocol.MethodWorkspaceExecuteCommand: true}

// handle dispatches one message; a panic is recovered and answered as an
// internal error so one bad request cannot take the session down.
func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	h := s.route(req.Method())
	if h == nil {
		if _, isCall := req.(*jsonrpc2.Call); !isCall {
			return nil // unknown notifications are ignored, as LSP says
		}
		return jsonrpc2.MethodNotFoundHandler(ctx, reply, req)
	}
	// The handler gets a context that $/cancelRequest cancels; the reply
	// is written with the connection's context, since jsonrpc2's stream
	// refuses to write under a cancelled one (and a cancelled request
	// must still be answered, with RequestCancelled).
	call := func(hctx context.Context) error {
		result, err := s.safely(hctx, req.Method(), h, req.Params())
		return reply(ctx, result, err)
	}
	if !slow[req.Method()] {
		return call(ctx)
	}
	id := ""
	if c, ok := req.(*jsonrpc2.Call); ok {
		id = idKey(c.ID())
	}
	cctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.cancels[id] = cancel
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			cancel()
			s.mu.Lock()
			delete(s.cancels, id)
			s.mu.Unlock()
		}()
		if err := call(cctx); err != nil {
			s.logger.Printf("reply to %s: %v", req.Method(), err)
		}
	}()
	return nil
}

func (s *Server) safely(ctx context.Context, method string, h handler, params json.RawMessage) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Printf("panic in %s: %v\n%s", method, r, debug.Stack())
			result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "thund-lsp: internal error in %s: %v", method, r)
		}
	}()
	result, err = h(ctx, params)
	var rpcErr *jsonrpc2.Error
	if err != nil && !errors.As(err, &rpcErr) {
		// jsonrpc2 sends a plain error with code 0, which is no JSON-RPC
		// code: a request that was well formed but could not be done is
		// RequestFailed (LSP 3.17), or RequestCancelled when it was
		// cancelled, wherever the cancellation surfaced.
		code := RequestFailed
		if ctx.Err() != nil || errors.Is(err, context.Canceled) {
			code = RequestCancelled
		}
		err = &jsonrpc2.Error{Code: code, Message: err.Error()}
	}
	return result, err
}

// LSP's error codes beyond JSON-RPC's: RequestFailed for a well-formed
// request that failed (a run that could not start, a query DuckDB
// refused), RequestCancelled for one cancelled by $/cancelRequest.
const (
	RequestFailed    jsonrpc2.Code = -32803
	RequestCancelled jsonrpc2.Code = -32800
)

// route maps a method to its handler.
func (s *Server) route(method string) handler {
	switch method {
	case protocol.MethodInitialize:
		return s.initialize
	case protocol.MethodInitialized:
		return s.initialized
	case "$/setTrace", protocol.MethodTextDocumentDidSave:
		return noop
	case protocol.MethodShutdown:
		return func(context.Context, json.RawMessage) (any, error) {
			s.mu.Lock()
			s.shutdown = true
			s.mu.Unlock()
			return nil, nil
		}
	case protocol.MethodExit:
		return func(context.Context, json.RawMessage) (any, error) {
			s.exitOnce.Do(func() { close(s.exited) })
			return nil, nil
		}
	case "$/cancelRequest":
		return s.cancelRequest
	case protocol.MethodTextDocumentDidOpen:
		return s.didOpen
	case protocol.MethodTextDocumentDidChange:
		return s.didChange
	case protocol.MethodTextDocumentDidClose:
		return s.didClose
	case protocol.MethodWorkspaceDidChangeWatchedFiles:
		return s.didChangeWatchedFiles
	case protocol.MethodWorkspaceDidChangeConfiguration:
		return s.didChangeConfiguration
	case protocol.MethodWorkspaceDidChangeWorkspaceFolders:
		return s.didChangeWorkspaceFolders
	case protocol.MethodTextDocumentHover:
		return s.hoverWithFunctions
	case protocol.MethodTextDocumentDefinition:
		return s.definition
	case protocol.MethodTextDocumentReferences:
		return s.references
	case protocol.MethodTextDocumentDocumentHighlight:
		return s.highlight
	case protocol.MethodTextDocumentPrepareRename:
		return s.prepareRename
	case protocol.MethodTextDocumentRename:
		return s.rename
	case protocol.MethodTextDocumentCompletion:
		return s.completion
	case protocol.MethodCompletionItemResolve:
		return s.resolveCompletion
	case protocol.MethodTextDocumentDocumentSymbol:
		return s.documentSymbol
	case protocol.MethodWorkspaceSymbol:
		return s.workspaceSymbol
	case protocol.MethodTextDocumentFoldingRange:
		return s.foldingRange
	case "textDocument/semanticTokens/full":
		return s.semanticTokens
	case protocol.MethodTextDocumentCodeLens:
		return s.codeLens
	case protocol.MethodTextDocumentCodeAction:
		return s.codeAction
	case protocol.MethodTextDocumentSignatureHelp:
		return s.signatureHelp
	case protocol.MethodWorkspaceExecuteCommand:
		return s.executeCommand
	case "thund/preview":
		return s.preview
	case "thund/lineage":
		return s.lineage
	case "thund/graph":
		return s.graph
	case "thund/run":
		return s.run
	case "thund/sparkDryRun":
		return s.sparkDryRun
	}
	return nil
}

func noop(context.Context, json.RawMessage) (any, error) { return nil, nil }

func badParams(err error) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
}

func decode(params json.RawMessage, v any) error {
	if len(params) == 0 {
		return badParams(fmt.Errorf("missing params"))
	}
	if err := json.Unmarshal(params, v); err != nil {
		return badParams(err)
	}
	return nil
}

// SemanticTokenTypes is the legend of the semantic tokens the server sends.
var SemanticTokenTypes = []string{"keyword", "property", "string", "comment"}

func (s *Server) initialize(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		RootURI               protocol.DocumentURI       `json:"rootUri"`
		WorkspaceFolders      []protocol.WorkspaceFolder `json:"workspaceFolders"`
		InitializationOptions json.RawMessage            `json:"initializationOptions"`
		ClientInfo            struct {
			Name string `json:"name"`
		} `json:"clientInfo"`
		Capabilities struct {
			Workspace struct {
				DidChangeWatchedFiles struct {
					DynamicRegistration bool `json:"dynamicRegistration"`
				} `json:"didChangeWatchedFiles"`
			} `json:"workspace"`
			TextDocument struct {
				Completion struct {
					CompletionItem struct {
						SnippetSupport bool `json:"snippetSupport"`
					} `json:"completionItem"`
				} `json:"completion"`
			} `json:"textDocument"`
		} `json:"capabilities"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, badParams(err)
		}
	}
	s.mu.Lock()
	s.watchFiles = p.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration
	s.snippets = p.Capabilities.TextDocument.Completion.CompletionItem.SnippetSupport
	for _, f := range p.WorkspaceFolders {
		if dir, err := filename(uri.URI(f.URI)); err == nil {
			s.folders = append(s.folders, dir)
		}
	}
	if len(s.folders) == 0 && p.RootURI != "" {
		if dir, err := filename(p.RootURI); err == nil {
			s.folders = append(s.folders, dir)
		}
	}
	if len(p.InitializationOptions) > 0 && string(p.InitializationOptions) != "null" {
		var set Settings
		if err := json.Unmarshal(p.InitializationOptions, &set); err != nil {
			s.mu.Unlock()
			return nil, badParams(fmt.Errorf("initializationOptions: %w", err))
		}
		s.settings = set
	}
	s.mu.Unlock()
	caps := map[string]any{
		"textDocumentSync":          map[string]any{"openClose": true, "change": 1, "save": map[string]any{"includeText": false}},
		"hoverProvider":             true,
		"definitionProvider":        true,
		"referencesProvider":        true,
		"documentHighlightProvider": true,
		"renameProvider":            map[string]any{"prepareProvider": true},
		"completionProvider":        map[string]any{"triggerCharacters": []string{"@", ":", " ", "."}, "resolveProvider": true},
		"documentSymbolProvider":    true,
		"workspaceSymbolProvider":   true,
		"foldingRangeProvider":      true,
		"codeLensProvider":          map[string]any{"resolveProvider": false},
		"codeActionProvider":        map[string]any{"codeActionKinds": []string{"quickfix"}, "resolveProvider": false},
		"signatureHelpProvider":     map[string]any{"triggerCharacters": []string{"(", ","}, "retriggerCharacters": []string{","}},
		"semanticTokensProvider": map[string]any{
			"legend": map[string]any{"tokenTypes": SemanticTokenTypes, "tokenModifiers": []string{}},
			"full":   true,
		},
		"workspace": map[string]any{
			"workspaceFolders": map[string]any{"supported": true, "changeNotifications": true},
		},
		"experimental": map[string]any{"thund": map[string]any{"requests": []string{"thund/preview", "thund/graph", "thund/lineage", "thund/run", "thund/sparkDryRun"}}},
	}
	// The code lenses' commands run through workspace/executeCommand,
	// except in VS Code: the Thund extension registers them itself, and
	// vscode-languageclient would fail registering them a second time.
	if !clientRunsCommands(p.ClientInfo.Name) {
		caps["executeCommandProvider"] = map[string]any{"commands": LensCommands}
	}
	return map[string]any{
		"capabilities": caps,
		"serverInfo":   map[string]any{"name": "thund-lsp", "version": Version()},
	}, nil
}

// initialized asks the client, when it can, to report changes to pipeline
// files made outside the editor (saves by other tools, git checkouts, new
// samples). The request goes out from its own goroutine: the answer comes
// through the read loop this handler runs on.
func (s *Server) initialized(context.Context, json.RawMessage) (any, error) {
	s.mu.Lock()
	watch := s.watchFiles
	s.mu.Unlock()
	if !watch {
		return nil, nil
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var watchers []map[string]any
		// YAML files: the SDP spec, thund.yaml, and a Databricks bundle's
		// databricks.yml with the files it includes (resources/*.yml).
		for _, g := range []string{"**/*.sql", "**/*.py", "**/*.yml", "**/*.yaml", "**/samples/**"} {
			watchers = append(watchers, map[string]any{"globPattern": g})
		}
		params := map[string]any{"registrations": []map[string]any{{
			"id": "thund-watched-files", "method": protocol.MethodWorkspaceDidChangeWatchedFiles,
			"registerOptions": map[string]any{"watchers": watchers},
		}}}
		if _, err := s.conn.Call(ctx, "client/registerCapability", params, nil); err != nil {
			s.logger.Printf("register file watchers: %v", err)
		}
	}()
	return nil, nil
}

func (s *Server) cancelRequest(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	key := string(p.ID)
	var id jsonrpc2.ID
	if json.Unmarshal(p.ID, &id) == nil {
		key = idKey(id)
	}
	s.mu.Lock()
	if c, ok := s.cancels[key]; ok {
		c()
	}
	s.mu.Unlock()
	return nil, nil
}

// idKey is the canonical text of a request id, so that a $/cancelRequest
// matches its request however the client spelt the id (a string with
// escapes, say). ID's MarshalJSON has a pointer receiver: marshal a
// pointer, or every ID encodes as {}.
func idKey(id jsonrpc2.ID) string {
	b, _ := json.Marshal(&id)
	return string(b)
}

func (s *Server) didChangeConfiguration(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Settings json.RawMessage `json:"settings"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	var wrapped struct {
		Thund *Settings `json:"thund"`
	}
	var set Settings
	if json.Unmarshal(p.Settings, &wrapped) == nil && wrapped.Thund != nil {
		set = *wrapped.Thund
	} else if err := json.Unmarshal(p.Settings, &set); err != nil {
		return nil, badParams(err)
	}
	s.mu.Lock()
	oldSpec := s.specLocked()
	s.settings = set
	if s.specLocked() != oldSpec {
		// Another spec may give files another root: start every pipeline
		// afresh from the open buffers.
		var removed []*root
		for r, st := range s.roots {
			st.stop()
			removed = append(removed, st)
			delete(s.roots, r)
		}
		open := sortedKeys(s.overlays)
		s.mu.Unlock()
		s.retire(removed)
		seen := map[string]bool{}
		for _, path := range open {
			if r, err := s.rootOf(path); err == nil && !seen[r] {
				seen[r] = true
				s.schedule(r)
			}
		}
		return nil, nil
	}
	roots := make([]string, 0, len(s.roots))
	for r, st := range s.roots {
		st.snap, st.model = nil, nil // options changed: analyse afresh
		roots = append(roots, r)
	}
	s.mu.Unlock()
	for _, r := range roots {
		s.schedule(r)
	}
	return nil, nil
}

func (s *Server) didChangeWorkspaceFolders(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.DidChangeWorkspaceFoldersParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	var removed []*root
	for _, f := range p.Event.Removed {
		dir, err := filename(uri.URI(f.URI))
		if err != nil {
			continue
		}
		for i, have := range s.folders {
			if have == dir {
				s.folders = append(s.folders[:i], s.folders[i+1:]...)
				break
			}
		}
		for r, st := range s.roots {
			if r == dir || isUnder(r, dir) {
				st.stop()
				removed = append(removed, st)
				delete(s.roots, r)
			}
		}
	}
	for _, f := range p.Event.Added {
		if dir, err := filename(uri.URI(f.URI)); err == nil {
			s.folders = append(s.folders, dir)
		}
	}
	s.mu.Unlock()
	s.retire(removed)
	return nil, nil
}

// retire closes pipelines taken out of the server's roots (already
// stopped and deleted from s.roots) and clears their diagnostics.
// Closing waits for engine work in flight (runMu), which must not hold up
// the whole server, so s.mu is not held.
func (s *Server) retire(removed []*root) {
	for _, st := range removed {
		st.close()
		s.mu.Lock()
		files := sortedKeys(st.published)
		st.published = map[string]sentDiagnostics{}
		s.mu.Unlock()
		for _, f := range files {
			s.conn.Notify(context.Background(), protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{
				URI: uri.File(filepath.Join(st.path, filepath.FromSlash(f))), Diagnostics: []protocol.Diagnostic{},
			})
		}
	}
}

func isUnder(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../")
}

// options returns the analysis options the settings ask for, for the
// pipeline at root.
func (s *Server) options(root string) analysis.Options {
	s.mu.Lock()
	defer s.mu.Unlock()
	var o analysis.Options
	for _, b := range s.settings.Backends {
		if be, ok := ir.ParseBackend(b); ok {
			o.Backends = append(o.Backends, be)
		}
	}
	o.Samples = s.settings.Samples
	if spec := s.specLocked(); spec != "" && filepath.Dir(spec) == root {
		o.Spec = spec
	}
	return o
}

// specLocked is the spec setting as an absolute path ("" when unset);
// s.mu is held.
func (s *Server) specLocked() string {
	spec := strings.TrimSpace(s.settings.Spec)
	if spec == "" {
		return ""
	}
	if !filepath.IsAbs(spec) {
		base := "."
		if len(s.folders) > 0 {
			base = s.folders[0]
		}
		spec = filepath.Join(base, spec)
	}
	abs, err := filepath.Abs(spec)
	if err != nil {
		return ""
	}
	return filepath.Clean(abs)
}

// rootOf returns the pipeline root holding a file: the spec setting's
// folder for a file under it (when the spec is a file), else the root
// spark-pipelines would find; when no pipeline file marks one (a
// Lakeflow editor's folder: transformations/ and samples/, no spec), the
// workspace folder holding the file, as thund-watch --check DIR takes the
// folder it is given, so samples/ beside transformations/ is found.
func (s *Server) rootOf(path string) (string, error) {
	s.mu.Lock()
	spec := s.specLocked()
	folders := append([]string(nil), s.folders...)
	s.mu.Unlock()
	if spec != "" {
		if dir := filepath.Dir(spec); path == dir || isUnder(path, dir) {
			if fi, err := os.Stat(spec); err == nil && fi.Mode().IsRegular() {
				return dir, nil
			}
		}
	}
	r, err := project.FindRoot(path)
	if err != nil || marked(r) {
		return r, err
	}
	ws := ""
	for _, f := range folders {
		if (path == f || isUnder(path, f)) && len(f) > len(ws) {
			ws = f
		}
	}
	if ws == "" || ws == r || !isUnder(r, ws) || !s.smallFolder(ws) {
		return r, nil
	}
	return ws, nil
}

// marked reports a folder a pipeline file marks as a root.
func marked(dir string) bool {
	for _, n := range []string{project.SpecYML, project.SpecYAML, project.ConfigName, project.BundleYML, project.BundleYAML} {
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// smallFolder reports whether an unmarked workspace folder can be read as
// one pipeline (project.Walk bounds an unmarked folder), once per folder.
func (s *Server) smallFolder(dir string) bool {
	s.mu.Lock()
	ok, seen := s.small[dir]
	s.mu.Unlock()
	if seen {
		return ok
	}
	_, err := project.Walk(dir)
	ok = err == nil
	s.mu.Lock()
	if s.small == nil {
		s.small = map[string]bool{}
	}
	s.small[dir] = ok
	s.mu.Unlock()
	return ok
}
