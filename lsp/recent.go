package lsp

import (
	"fmt"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/lineage"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/textpos"
)

// Hover and completion right after an edit answer from the last model the
// server has, as gopls does, instead of waiting for the whole pipeline to
// be analysed again (and, for columns, for the edited flow's column model
// to be built again). The buffer's newer text is mapped onto the text that
// model analysed through the one region the edit changed (their common
// prefix and suffix). A position inside that region, or in a word touching
// it, is not in the model: such a hover waits for the analysis as before.
// What the answer says is what the model knew before the edit; it is
// current again at the next request after the analysis, a few
// milliseconds later.

// editShift maps offsets between the text a snapshot analysed (old) and a
// buffer's newer text (new), which differ in [oldStart, oldEnd) of the
// old text and [newStart, newEnd) of the new one.
type editShift struct {
	rel              string
	oldStart, oldEnd int
	newStart, newEnd int
	newText          string
	newIndexOnce     sync.Once
	newIndex         *textpos.Index
}

// newShift returns the shift between two texts of file rel, with the
// changed region widened to whole words (names, qualified names and
// backquoted parts), so that no word is half old and half new.
func newShift(rel, old, new string) *editShift {
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	q := 0
	for q < len(old)-p && q < len(new)-p && old[len(old)-1-q] == new[len(new)-1-q] {
		q++
	}
	// Widen over a word the region splits (its bytes outside the region
	// are common to both texts, so one count serves both).
	for p > 0 && wordByte(new[p-1]) && (p < len(new) && wordByte(new[p]) || p < len(old) && wordByte(old[p])) {
		p--
	}
	for q > 0 && wordByte(new[len(new)-q]) && (len(new)-q > 0 && wordByte(new[len(new)-q-1]) || len(old)-q > 0 && wordByte(old[len(old)-q-1])) {
		q--
	}
	return &editShift{rel: rel, oldStart: p, oldEnd: len(old) - q, newStart: p, newEnd: len(new) - q,
		newText: new}
}

// wordByte is a byte of a name or a qualified name.
func wordByte(c byte) bool { return isIdentByte(c) || c == '.' || c == '`' }

// toOld maps an offset of the new text to the old one; ok is false inside
// the changed region and at its ends (a word starting or ending there
// would be read from the model's text, not the buffer's).
func (e *editShift) toOld(off int) (int, bool) {
	switch {
	case off < e.newStart:
		return off, true
	case off > e.newEnd:
		return off - e.newEnd + e.oldEnd, true
	}
	return 0, false
}

// toOldNear maps an offset of the new text to the old one, an offset
// inside the changed region to the old region's start plus as much of
// its distance as the old region has (completion, whose cursor is where
// the user types, asks the model about the statement around it).
func (e *editShift) toOldNear(off int) int {
	if o, ok := e.toOld(off); ok {
		return o
	}
	return e.oldStart + min(max(off-e.newStart, 0), e.oldEnd-e.oldStart)
}

// toNew maps an offset of the old text to the new one; an offset inside
// the changed region goes to its start (or end, for end).
func (e *editShift) toNew(off int, end bool) int {
	switch {
	case off <= e.oldStart:
		return off
	case off >= e.oldEnd:
		return off + e.newEnd - e.oldEnd
	case end:
		return e.newEnd
	}
	return e.newStart
}

// index is the position index of the new text.
func (e *editShift) index() *textpos.Index {
	e.newIndexOnce.Do(func() { e.newIndex = textpos.New(e.newText) })
	return e.newIndex
}

// rangeOf is the range of a location of the model in the buffer's text:
// in the shifted file its offsets are mapped, elsewhere nothing changed.
func (e *editShift) rangeOf(snap *analysis.Snapshot, loc ir.Loc) protocol.Range {
	if e == nil || loc.File != e.rel {
		return rangeOf(snap, loc)
	}
	return rangeIn(e.index(), e.toNew(loc.Start, false), e.toNew(loc.End, true))
}

// resolveRecent resolves a position of a request that may answer from the
// last model (hover, completion). When the pipeline has an edit not yet
// analysed, the position is mapped onto the newest snapshot through the
// edit of its file (shift, nil when the file's text did not change); near
// is completion's mapping (inside the changed region too). When the
// position cannot be mapped, or nothing is pending, it is resolve's.
func (s *Server) resolveRecent(u protocol.DocumentURI, pos protocol.Position, near bool) (docPos, *editShift, error) {
	path, err := filename(u)
	if err != nil {
		return docPos{}, nil, err
	}
	r, err := s.rootOf(path)
	if err != nil {
		return docPos{}, nil, err
	}
	s.mu.Lock()
	st := s.roots[r]
	var base *analysis.Snapshot
	pending := false
	if st != nil {
		base = st.snap
		pending = st.ready != nil || st.dirty || st.snapGen != st.gen
		if st.model != nil && st.model != st.snap {
			// the newest snapshot's column model is still being built
			base, pending = st.model, true
		}
	}
	ov, open := s.overlays[path]
	s.mu.Unlock()
	if base == nil || !pending || !open {
		dp, err := s.resolve(u, &pos)
		return dp, nil, err
	}
	rel, ok := base.Rel(path)
	if !ok {
		return docPos{}, nil, fmt.Errorf("%s is outside its pipeline root", path)
	}
	old, ok := base.Text(rel)
	if !ok {
		dp, err := s.resolve(u, &pos)
		return dp, nil, err
	}
	dp := docPos{snap: base, root: r, rel: rel}
	if old == ov.text {
		dp.off = base.Index(rel).OffsetUTF16(textpos.Position{Line: int(pos.Line), Column: int(pos.Character)})
		return dp, nil, nil
	}
	sh := newShift(rel, old, ov.text)
	off := sh.index().OffsetUTF16(textpos.Position{Line: int(pos.Line), Column: int(pos.Character)})
	if near {
		dp.off = sh.toOldNear(off)
		return dp, sh, nil
	}
	o, ok := sh.toOld(off)
	if !ok {
		dp, err := s.resolve(u, &pos)
		return dp, nil, err
	}
	dp.off = o
	return dp, sh, nil
}

// useColumns records that a column request came for the root: from now on
// its analysis loop builds each new snapshot's column model (warmModel).
func (s *Server) useColumns(rootPath string) {
	s.mu.Lock()
	if st := s.roots[rootPath]; st != nil {
		st.columnUse = true
	}
	s.mu.Unlock()
}

// warmModel builds, on the analysis loop and off the requests' path, what
// a column hover or completion in an open file asks of a new snapshot:
// the models of the open files' flows, the tables they read and define
// with their dependencies, and those tables' readers. The snapshot is
// then the root's model.
func (s *Server) warmModel(rootPath string, st *root, snap *analysis.Snapshot) {
	s.mu.Lock()
	var rels []string
	for path := range s.overlays {
		if rel, ok := snap.Rel(path); ok {
			rels = append(rels, rel)
		}
	}
	s.mu.Unlock()
	g := s.lineageGraph(docPos{snap: snap, root: rootPath})
	for _, rel := range rels {
		for _, f := range snap.FlowsIn(rel) {
			if snap.SparkTree(f) == nil {
				continue
			}
			g.Flow(f)
			for _, name := range append([]string{f.Target}, readNames(f)...) {
				g.Table(name)
				g.Readers(lineage.ColumnID{Table: name})
			}
		}
	}
	s.mu.Lock()
	if st.snap == snap {
		st.model = snap
	}
	s.mu.Unlock()
}

// readNames are the names of the tables a flow reads.
func readNames(f *ir.Flow) []string {
	out := make([]string, 0, len(f.Reads))
	for _, r := range f.Reads {
		out = append(out, r.Name)
	}
	return out
}

// inFlow reports whether the edit lies inside the query of the model's
// flow at the position, so that the flow, mapped, is the buffer's
// statement at the cursor.
func (e *editShift) inFlow(dp docPos) bool {
	f := flowAt(dp.snap, dp.rel, dp.off)
	return f != nil && f.QueryLoc.Start <= e.oldStart && e.oldEnd <= f.QueryLoc.End
}
