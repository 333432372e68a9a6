// Package lsp is Thund's language server. This first cut serves the
// analysis diagnostics of every pipeline the editor opens files in, kept
// current as buffers change (full-text sync). Hover, navigation, rename,
// completion, symbols, code lenses and previews are not built yet: the
// server does not announce them, and answers their requests with
// MethodNotFound.
package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
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

// Server is one language-server session.
type Server struct {
	conn   jsonrpc2.Conn
	logger *log.Logger

	mu        sync.Mutex
	overlays  map[string]overlay            // absolute path -> open buffer
	snapshots map[string]*analysis.Snapshot // pipeline root -> latest snapshot
	published map[string]map[string]bool    // root -> files with diagnostics shown
	pending   map[string]*time.Timer        // root -> scheduled analysis
	gen       map[string]int                // root -> generation, newest wins
	shutdown  bool
	exited    chan struct{}
}

type overlay struct {
	text    string
	version int32
}

// Serve runs a server on rwc until the client exits or disconnects.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, logger *log.Logger) error {
	s := &Server{
		logger:    logger,
		overlays:  map[string]overlay{},
		snapshots: map[string]*analysis.Snapshot{},
		published: map[string]map[string]bool{},
		pending:   map[string]*time.Timer{},
		gen:       map[string]int{},
		exited:    make(chan struct{}),
	}
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(rwc))
	s.conn.Go(ctx, s.handle)
	select {
	case <-s.conn.Done():
	case <-s.exited:
		s.conn.Close()
	case <-ctx.Done():
		s.conn.Close()
	}
	return nil
}

// handle dispatches one message; a panic is recovered and answered as an
// internal error so one bad request cannot take the session down.
func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Printf("panic in %s: %v\n%s", req.Method(), r, debug.Stack())
			err = reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "thund-lsp: internal error in %s: %v", req.Method(), r))
		}
	}()
	switch req.Method() {
	case protocol.MethodInitialize:
		return reply(ctx, s.initialize(), nil)
	case protocol.MethodInitialized:
		return reply(ctx, nil, nil)
	case protocol.MethodShutdown:
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
		return reply(ctx, nil, nil)
	case protocol.MethodExit:
		close(s.exited)
		return reply(ctx, nil, nil)
	case protocol.MethodTextDocumentDidOpen:
		var p protocol.DidOpenTextDocumentParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return reply(ctx, nil, badParams(err))
		}
		s.setOverlay(p.TextDocument.URI, &overlay{text: p.TextDocument.Text, version: p.TextDocument.Version})
		return reply(ctx, nil, nil)
	case protocol.MethodTextDocumentDidChange:
		var p protocol.DidChangeTextDocumentParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return reply(ctx, nil, badParams(err))
		}
		if n := len(p.ContentChanges); n > 0 {
			// Full sync: the last change holds the whole text.
			s.setOverlay(p.TextDocument.URI, &overlay{text: p.ContentChanges[n-1].Text, version: p.TextDocument.Version})
		}
		return reply(ctx, nil, nil)
	case protocol.MethodTextDocumentDidClose:
		var p protocol.DidCloseTextDocumentParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return reply(ctx, nil, badParams(err))
		}
		s.setOverlay(p.TextDocument.URI, nil)
		return reply(ctx, nil, nil)
	case protocol.MethodTextDocumentDidSave, protocol.MethodWorkspaceDidChangeWatchedFiles, "$/cancelRequest", "$/setTrace":
		return reply(ctx, nil, nil)
	}
	return jsonrpc2.MethodNotFoundHandler(ctx, reply, req)
}

func badParams(err error) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
}

func (s *Server) initialize() *protocol.InitializeResult {
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindFull,
			},
		},
		ServerInfo: &protocol.ServerInfo{Name: "thund-lsp"},
	}
}

// setOverlay records an open buffer (nil: closed, so the disk text counts
// again) and schedules the analysis of its pipeline.
func (s *Server) setOverlay(u protocol.DocumentURI, o *overlay) {
	path := filepath.Clean(u.Filename())
	root, err := project.FindRoot(path)
	if err != nil {
		s.logger.Printf("no pipeline root for %s: %v", path, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if o == nil {
		delete(s.overlays, path)
	} else {
		s.overlays[path] = *o
	}
	s.gen[root]++
	gen := s.gen[root]
	if t := s.pending[root]; t != nil {
		t.Stop()
	}
	s.pending[root] = time.AfterFunc(Debounce, func() { s.analyse(root, gen) })
}

// analyse brings root's snapshot up to date with the open buffers and
// publishes its diagnostics, unless a newer edit arrived meanwhile.
func (s *Server) analyse(root string, gen int) {
	s.mu.Lock()
	snap := s.snapshots[root]
	overlays := make(map[string]overlay, len(s.overlays))
	for p, o := range s.overlays {
		overlays[p] = o
	}
	s.mu.Unlock()

	if snap == nil {
		var err error
		snap, err = analysis.Load(root, analysis.Options{})
		if err != nil {
			s.logger.Printf("analyse %s: %v", root, err)
			return
		}
	}
	var changes []analysis.Change
	seen := map[string]bool{}
	for p, o := range overlays {
		rel, ok := snap.Rel(p)
		if !ok {
			continue
		}
		seen[rel] = true
		if cur, ok := snap.Text(rel); !ok || cur != o.text {
			text := o.text
			changes = append(changes, analysis.Change{Path: rel, Text: &text})
		}
	}
	// Files analysed from a buffer that is now closed go back to disk.
	for _, rel := range snap.Libraries {
		if seen[rel] {
			continue
		}
		disk, err := os.ReadFile(snap.Abs(rel))
		if cur, _ := snap.Text(rel); err == nil && string(disk) != cur {
			text := string(disk)
			changes = append(changes, analysis.Change{Path: rel, Text: &text})
		}
	}
	if len(changes) > 0 {
		snap = snap.Update(changes)
	}

	s.mu.Lock()
	if s.gen[root] != gen || s.shutdown {
		s.mu.Unlock()
		return // a newer edit is already scheduled; publishing now would be stale
	}
	s.snapshots[root] = snap
	prev := s.published[root]
	s.mu.Unlock()

	byFile := map[string][]protocol.Diagnostic{}
	for _, d := range snap.Diagnostics {
		byFile[d.Loc.File] = append(byFile[d.Loc.File], s.toProtocol(snap, d))
	}
	now := map[string]bool{}
	files := make([]string, 0, len(byFile)+len(prev))
	for f := range byFile {
		files = append(files, f)
		now[f] = true
	}
	for f := range prev {
		if !now[f] {
			files = append(files, f) // publish an empty list to clear it
		}
	}
	sort.Strings(files)
	ctx := context.Background()
	for _, f := range files {
		abs := snap.Abs(f)
		params := &protocol.PublishDiagnosticsParams{URI: uri.File(abs), Diagnostics: byFile[f]}
		if params.Diagnostics == nil {
			params.Diagnostics = []protocol.Diagnostic{}
		}
		if o, ok := overlays[abs]; ok && o.version > 0 {
			params.Version = uint32(o.version)
		}
		if err := s.conn.Notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, params); err != nil {
			s.logger.Printf("publish diagnostics for %s: %v", f, err)
		}
	}
	s.mu.Lock()
	s.published[root] = now
	s.mu.Unlock()
}

func (s *Server) toProtocol(snap *analysis.Snapshot, d ir.Diagnostic) protocol.Diagnostic {
	msg := d.Message
	if d.Backend != "" {
		msg = fmt.Sprintf("[%s] %s", d.Backend, msg)
	}
	pd := protocol.Diagnostic{
		Range:    s.rangeOf(snap, d.Loc),
		Severity: protocol.DiagnosticSeverity(d.Severity),
		Code:     string(d.Code),
		Source:   "thund",
		Message:  msg,
	}
	for _, r := range d.Related {
		pd.RelatedInformation = append(pd.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: uri.File(snap.Abs(r.Loc.File)), Range: s.rangeOf(snap, r.Loc)},
			Message:  r.Message,
		})
	}
	return pd
}

func (s *Server) rangeOf(snap *analysis.Snapshot, loc ir.Loc) protocol.Range {
	ix := snap.Index(loc.File)
	a, b := ix.UTF16(loc.Start), ix.UTF16(loc.End)
	return protocol.Range{
		Start: protocol.Position{Line: uint32(a.Line), Character: uint32(a.Column)},
		End:   protocol.Position{Line: uint32(b.Line), Character: uint32(b.Column)},
	}
}
