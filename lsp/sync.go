package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/textpos"
)

// root is the server's state for one pipeline root.
type root struct {
	path string
	// snap is the newest snapshot; nil until first analysed (or after the
	// options changed).
	snap *analysis.Snapshot
	// gen counts edits; an analysis publishes only if no edit came since.
	gen int
	// snapGen is the edit generation snap reflects.
	snapGen int
	// timer publishes the diagnostics of the newest edit Debounce after it.
	timer *time.Timer
	// analysing is set while the root's analysis loop runs (analyse);
	// dirty asks it for one more pass, for the newest edit.
	analysing, dirty bool
	// ready, when not nil, is closed once the loop has analysed the
	// newest edit (or a newer edit superseded it).
	ready chan struct{}
	// published is what was last published per file (files with
	// diagnostics only), so that unchanged files are not sent again.
	published map[string]sentDiagnostics
	// fromBuffer are the files (relative) whose text in snap came from an
	// open buffer: once closed, they go back to their disk text (or away).
	fromBuffer map[string]bool

	// model is the newest snapshot whose column model (of the open
	// files' flows) is built, once a column request asked for one
	// (columnUse): hover and completion after an edit answer from it
	// while a newer snapshot's model is being built (recent.go).
	model     *analysis.Snapshot
	columnUse bool

	// describe is the last description of the datasets (columns.go),
	// guarded by the server's mu.
	describe describeState

	// runMu serialises engine work (previews, runs, descriptions) on the
	// session; it is held for as long as that work lasts.
	runMu sync.Mutex
	// stateMu guards previews and extra, which requests and publications
	// read while engine work may hold runMu. Taken last: hold no other
	// lock's acquisition under it.
	stateMu sync.Mutex
	session *engine.Session
	// sessionOpts are the options session was opened with.
	sessionOpts engine.Options
	// closed is set (under runMu) when the root is closed: no session
	// may be opened for it after that, or a description or request still
	// in flight would leak a DuckDB database.
	closed   bool
	previews map[string]*lastPreview // dataset key -> last preview
	extra    []ir.Diagnostic         // expectation results of the last run
}

// stop cancels the root's pending publication and description; the caller
// holds the server's mu.
func (r *root) stop() {
	if r.describe.cancel != nil {
		r.describe.cancel()
	}
	if r.describe.timer != nil {
		r.describe.timer.Stop()
	}
	if r.timer != nil {
		r.timer.Stop()
	}
}

// close ends the root's engine session, after the engine work in flight
// (it waits for runMu, so the caller must not hold the server's mu); no
// session opens for the root after it.
func (r *root) close() {
	r.runMu.Lock()
	defer r.runMu.Unlock()
	r.closed = true
	if r.session != nil {
		r.session.Close()
		r.session = nil
	}
}

func (s *Server) rootState(path string) *root {
	r, ok := s.roots[path]
	if !ok {
		r = &root{path: path, published: map[string]sentDiagnostics{}, fromBuffer: map[string]bool{}, previews: map[string]*lastPreview{}}
		s.roots[path] = r
	}
	return r
}

func (s *Server) didOpen(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	s.setOverlay(p.TextDocument.URI, &overlay{text: p.TextDocument.Text, version: p.TextDocument.Version})
	return nil, nil
}

func (s *Server) didChange(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.DidChangeTextDocumentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if n := len(p.ContentChanges); n > 0 {
		// A change to a document the client never opened is a client bug
		// (LSP requires didOpen first); taking it would add whatever the
		// URI names to the pipeline, so it is logged and ignored.
		if path, err := filename(p.TextDocument.URI); err == nil {
			s.mu.Lock()
			_, open := s.overlays[path]
			s.mu.Unlock()
			if !open {
				s.logger.Printf("didChange for %s, which is not open: ignored (send didOpen first)", path)
				return nil, nil
			}
		}
		// Full sync: the last change holds the whole text.
		s.setOverlay(p.TextDocument.URI, &overlay{text: p.ContentChanges[n-1].Text, version: p.TextDocument.Version})
	}
	return nil, nil
}

func (s *Server) didClose(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	s.setOverlay(p.TextDocument.URI, nil)
	return nil, nil
}

// didChangeWatchedFiles: files changed outside the editor. Open buffers
// still win; the others are re-read from disk at the next analysis.
func (s *Server) didChangeWatchedFiles(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.DidChangeWatchedFilesParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, c := range p.Changes {
		path, err := filename(c.URI)
		if err != nil {
			continue
		}
		r, err := s.rootOf(filepath.Dir(path))
		if err != nil || seen[r] {
			continue
		}
		seen[r] = true
		s.mu.Lock()
		if st, ok := s.roots[r]; ok {
			st.snap, st.model = nil, nil // the file set may have changed: reload from disk
		}
		s.mu.Unlock()
		s.schedule(r)
	}
	return nil, nil
}

// setOverlay records an open buffer (nil: closed, so the disk text counts
// again) and schedules the analysis of its pipeline.
func (s *Server) setOverlay(u protocol.DocumentURI, o *overlay) {
	path, err := filename(u)
	if err != nil {
		s.logger.Printf("ignoring %v", err)
		return
	}
	r, err := s.rootOf(path)
	if err != nil {
		s.logger.Printf("no pipeline root for %s: %v", path, err)
		return
	}
	s.mu.Lock()
	if o == nil {
		delete(s.overlays, path)
	} else {
		s.overlays[path] = *o
	}
	s.mu.Unlock()
	s.schedule(r)
}

// schedule records an edit of a root. Analysis starts at once, on the
// root's analysis loop; the diagnostics are published Debounce after the
// edit (or when the analysis ends, if it takes longer), unless a newer
// edit came meanwhile. Analysing during the debounce, instead of after
// it, takes the analysis off the path from a keystroke to its
// diagnostics; the debounce still keeps a burst of keystrokes from
// publishing diagnostics of every intermediate text.
func (s *Server) schedule(rootPath string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.rootState(rootPath)
	st.gen++
	gen := st.gen
	if st.timer != nil {
		st.timer.Stop()
	}
	// An edit makes a pending or running description stale: stop it now,
	// so that it releases the engine (and runMu) before the next one.
	if st.describe.timer != nil {
		st.describe.timer.Stop()
	}
	if st.describe.cancel != nil {
		st.describe.cancel()
	}
	if st.ready != nil {
		close(st.ready) // waiters of the older edit: it is superseded
	}
	ready := make(chan struct{})
	st.ready = ready
	st.dirty = true
	if !st.analysing {
		st.analysing = true
		go s.analyse(rootPath, st)
	}
	st.timer = time.AfterFunc(Debounce, func() {
		<-ready
		s.mu.Lock()
		current := st.gen == gen && st.snapGen == gen && !s.shutdown
		snap := st.snap
		s.mu.Unlock()
		if current {
			s.publish(rootPath, snap, gen)
			s.scheduleDescribe(rootPath, snap, gen)
		}
	})
}

// analyse is a root's analysis loop: it analyses the newest edit until no
// edit is left, one pass at a time (edits that arrive during a pass are
// coalesced into the next), and closes ready after the pass that reached
// the newest edit. It ends when nothing is left to do, or when the root
// was removed from the workspace.
func (s *Server) analyse(rootPath string, st *root) {
	for {
		s.mu.Lock()
		if !st.dirty || s.roots[rootPath] != st {
			st.analysing = false
			if st.ready != nil {
				close(st.ready)
				st.ready = nil
			}
			s.mu.Unlock()
			return
		}
		st.dirty = false
		gen := st.gen
		s.mu.Unlock()
		snap, ok := s.refresh(rootPath, gen)
		s.mu.Lock()
		if st.gen == gen && st.ready != nil {
			close(st.ready)
			st.ready = nil
		}
		warm := ok && snap != nil && st.columnUse && !st.dirty
		s.mu.Unlock()
		if warm {
			s.warmModel(rootPath, st, snap)
		}
	}
}

// refresh brings a root's snapshot up to date with the open buffers and
// the disk. With gen >= 0 it gives up (ok false) when a newer edit arrived
// meanwhile; with gen < 0 it always returns the result, and stores it
// unless a newer edit arrived meanwhile.
func (s *Server) refresh(rootPath string, gen int) (*analysis.Snapshot, bool) {
	s.mu.Lock()
	st := s.rootState(rootPath)
	snap := st.snap
	// The overlays copied below are those of the newest edit.
	seenGen := st.gen
	overlays := make(map[string]overlay, len(s.overlays))
	for p, o := range s.overlays {
		overlays[p] = o
	}
	fromBuffer := st.fromBuffer
	s.mu.Unlock()
	opts := s.options(rootPath)

	if snap == nil {
		var err error
		snap, err = analysis.Load(rootPath, opts)
		if err != nil {
			s.logger.Printf("analyse %s: %v", rootPath, err)
			return nil, false
		}
		fromBuffer = nil // loaded from disk
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
	// Files analysed from a buffer that is now closed go back to their
	// disk text, or out of the pipeline when they are not on disk (a new
	// file closed unsaved). Only those: re-reading every file at each
	// refresh cost milliseconds per request in a large pipeline. Files
	// changed on disk outside the editor come through
	// didChangeWatchedFiles, which reloads the root.
	for rel := range fromBuffer {
		if seen[rel] {
			continue
		}
		disk, err := os.ReadFile(snap.Abs(rel))
		cur, had := snap.Text(rel)
		switch {
		case err == nil && (!had || string(disk) != cur):
			text := string(disk)
			changes = append(changes, analysis.Change{Path: rel, Text: &text})
		case errors.Is(err, fs.ErrNotExist) && had:
			changes = append(changes, analysis.Change{Path: rel})
		}
	}
	if len(changes) > 0 {
		snap = snap.Update(changes)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen >= 0 && (st.gen != gen || s.shutdown) {
		return nil, false // a newer edit is scheduled; this result is stale
	}
	// A request's analysis (gen < 0) is stored only if no edit came while
	// it ran: otherwise it would replace a newer snapshot the analysis
	// loop stored meanwhile. The request itself still uses it: it
	// reflects the buffers as they were when the request came.
	if st.gen == seenGen {
		st.snap, st.snapGen = snap, seenGen
		st.fromBuffer = seen
	}
	return snap, true
}

// current returns an up-to-date snapshot for a request: pending edits are
// analysed first, so positions in the request match the text analysed.
func (s *Server) current(rootPath string) (*analysis.Snapshot, error) {
	// An analysis of the newest edit in flight is waited for rather than
	// done twice; the refresh below then finds nothing left to analyse.
	s.mu.Lock()
	ready := s.rootState(rootPath).ready
	s.mu.Unlock()
	if ready != nil {
		<-ready
	}
	snap, ok := s.refresh(rootPath, -1)
	if !ok || snap == nil {
		return nil, fmt.Errorf("cannot analyse the pipeline at %s", rootPath)
	}
	return snap, nil
}

// publish sends the snapshot's diagnostics, per file, with each open
// buffer's version, clearing files that no longer have any.
func (s *Server) publish(rootPath string, snap *analysis.Snapshot, gen int) {
	s.mu.Lock()
	st := s.roots[rootPath]
	if st == nil || gen >= 0 && st.gen != gen {
		s.mu.Unlock()
		return
	}
	prev := st.published
	overlays := make(map[string]overlay, len(s.overlays))
	for p, o := range s.overlays {
		overlays[p] = o
	}
	s.mu.Unlock()
	st.stateMu.Lock()
	extra := stillCurrent(snap, st.extra)
	st.stateMu.Unlock()
	extra = append(extra, s.columnDiagnostics(rootPath, snap)...)

	byFile := map[string][]protocol.Diagnostic{}
	for _, d := range append(append([]ir.Diagnostic(nil), snap.Diagnostics...), extra...) {
		if d.Loc.File == "" {
			continue
		}
		if _, ok := snap.Text(d.Loc.File); !ok {
			continue
		}
		byFile[d.Loc.File] = append(byFile[d.Loc.File], toProtocol(snap, d))
	}
	now := make(map[string]sentDiagnostics, len(byFile))
	files := make([]string, 0, len(byFile)+len(prev))
	for f := range byFile {
		files = append(files, f)
	}
	for f := range prev {
		if _, ok := byFile[f]; !ok {
			files = append(files, f) // publish an empty list to clear it
		}
	}
	sort.Strings(files)
	var send []*protocol.PublishDiagnosticsParams
	for _, f := range files {
		abs := snap.Abs(f)
		params := &protocol.PublishDiagnosticsParams{URI: uri.File(abs), Diagnostics: byFile[f]}
		if params.Diagnostics == nil {
			params.Diagnostics = []protocol.Diagnostic{}
		}
		if o, ok := overlays[abs]; ok && o.version > 0 {
			params.Version = uint32(o.version)
		}
		sent := sentDiagnostics{version: params.Version, diags: params.Diagnostics}
		if len(sent.diags) > 0 {
			now[f] = sent
		}
		// The same diagnostics for the same version are not sent again
		// (every edit republishes the whole pipeline, and a finished
		// description publishes once more).
		if old, ok := prev[f]; ok && old.version == sent.version && reflect.DeepEqual(old.diags, sent.diags) {
			continue
		}
		send = append(send, params)
	}
	// What is published is recorded before it is sent, so that whatever
	// the client does on receiving it (removing the folder, say) sees it;
	// a root removed meanwhile publishes nothing.
	s.mu.Lock()
	if s.roots[rootPath] != st {
		s.mu.Unlock()
		return
	}
	st.published = now
	s.mu.Unlock()
	ctx := context.Background()
	for _, params := range send {
		if err := s.conn.Notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, params); err != nil {
			s.logger.Printf("publish diagnostics for %s: %v", params.URI, err)
		}
	}
}

// republish publishes a root's newest snapshot again (after a run or a
// preview changed the expectation results), if it is current: when an
// edit came since, its own publication is on the way, and publishing an
// older snapshot would stamp old diagnostics with the new version.
func (s *Server) republish(rootPath string) {
	s.mu.Lock()
	st := s.roots[rootPath]
	if st == nil || st.snap == nil || st.snapGen != st.gen {
		s.mu.Unlock()
		return
	}
	snap, gen := st.snap, st.gen
	s.mu.Unlock()
	s.publish(rootPath, snap, gen)
}

// sentDiagnostics is what was published for a file.
type sentDiagnostics struct {
	version uint32
	diags   []protocol.Diagnostic
}

// stillCurrent keeps the run results whose expectation is still where it
// was when the run happened (an edit above or on it makes them stale).
func stillCurrent(snap *analysis.Snapshot, results []ir.Diagnostic) []ir.Diagnostic {
	at := map[ir.Loc]bool{}
	for _, f := range snap.Pipeline.Flows {
		for _, e := range f.Expectations {
			at[e.Loc] = true
		}
	}
	var out []ir.Diagnostic
	for _, d := range results {
		if at[d.Loc] {
			out = append(out, d)
		}
	}
	return out
}

func toProtocol(snap *analysis.Snapshot, d ir.Diagnostic) protocol.Diagnostic {
	msg := d.Message
	if d.Backend != "" {
		msg = fmt.Sprintf("[%s] %s", d.Backend, msg)
	}
	pd := protocol.Diagnostic{
		Range:    rangeOf(snap, d.Loc),
		Severity: protocol.DiagnosticSeverity(d.Severity),
		Code:     string(d.Code),
		Source:   "thund",
		Message:  msg,
		// The code's documentation, and what its quick fixes need
		// (codeaction.go).
		CodeDescription: codeDescription(d.Code),
	}
	if fd := fixData(snap, d); fd != nil {
		pd.Data = fd
	}
	for _, r := range d.Related {
		pd.RelatedInformation = append(pd.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: locationOf(snap, r.Loc),
			Message:  r.Message,
		})
	}
	return pd
}

func rangeOf(snap *analysis.Snapshot, loc ir.Loc) protocol.Range {
	ix := snap.Index(loc.File)
	return rangeIn(ix, loc.Start, loc.End)
}

func rangeIn(ix *textpos.Index, start, end int) protocol.Range {
	a, b := ix.UTF16(start), ix.UTF16(end)
	return protocol.Range{
		Start: protocol.Position{Line: uint32(a.Line), Character: uint32(a.Column)},
		End:   protocol.Position{Line: uint32(b.Line), Character: uint32(b.Column)},
	}
}

func locationOf(snap *analysis.Snapshot, loc ir.Loc) protocol.Location {
	return protocol.Location{URI: uri.File(snap.Abs(loc.File)), Range: rangeOf(snap, loc)}
}

// docPos is a request's document and position, resolved to a snapshot.
type docPos struct {
	snap *analysis.Snapshot
	root string
	rel  string
	off  int
}

// filename returns the local path of a file URI, or an error for anything
// else (go.lsp.dev's Filename panics on bad URIs).
func filename(u protocol.DocumentURI) (path string, err error) {
	defer func() {
		if recover() != nil {
			path, err = "", fmt.Errorf("%q is not a file URI", string(u))
		}
	}()
	if !strings.HasPrefix(string(u), "file://") {
		return "", fmt.Errorf("%q is not a file URI", string(u))
	}
	return filepath.Clean(u.Filename()), nil
}

// resolve finds the snapshot, file and byte offset of a document position.
func (s *Server) resolve(u protocol.DocumentURI, pos *protocol.Position) (docPos, error) {
	path, err := filename(u)
	if err != nil {
		return docPos{}, err
	}
	r, err := s.rootOf(path)
	if err != nil {
		return docPos{}, err
	}
	snap, err := s.current(r)
	if err != nil {
		return docPos{}, err
	}
	rel, ok := snap.Rel(path)
	if !ok {
		return docPos{}, fmt.Errorf("%s is outside its pipeline root", path)
	}
	dp := docPos{snap: snap, root: r, rel: rel}
	if pos != nil {
		dp.off = snap.Index(rel).OffsetUTF16(textpos.Position{Line: int(pos.Line), Column: int(pos.Character)})
	}
	return dp, nil
}
