package lsp

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/analysis"
)

func TestEditShift(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		// the changed region, widened to words, in the new text
		newStart, newEnd int
		// offsets of the new text and what they map to (-1: not mapped)
		offs map[int]int
	}{
		{"a line inserted", "SELECT a FROM t", "-- x\nSELECT a FROM t", 0, 5, map[int]int{0: -1, 5: -1, 6: 1, 12: 7, 19: 14}},
		{"a word edited", "SELECT amount FROM t", "SELECT amounts FROM t", 7, 14, map[int]int{3: 3, 7: -1, 10: -1, 14: -1, 16: 15}},
		{"a qualifier edited", "SELECT o.amount, x FROM t", "SELECT p.amount, x FROM t", 7, 15, map[int]int{10: -1, 17: 17}},
		{"a word deleted", "SELECT a, b FROM t", "SELECT a FROM t", 8, 8, map[int]int{7: 7, 8: -1, 10: 13}},
	} {
		sh := newShift("f.sql", tc.old, tc.new)
		if sh.newStart != tc.newStart || sh.newEnd != tc.newEnd {
			t.Errorf("%s: changed region [%d, %d), want [%d, %d)", tc.name, sh.newStart, sh.newEnd, tc.newStart, tc.newEnd)
		}
		if tc.old[:sh.oldStart] != tc.new[:sh.newStart] || tc.old[sh.oldEnd:] != tc.new[sh.newEnd:] {
			t.Errorf("%s: the texts differ outside the region: %+v", tc.name, sh)
		}
		for off, want := range tc.offs {
			got, ok := sh.toOld(off)
			if !ok {
				got = -1
			}
			if got != want {
				t.Errorf("%s: toOld(%d) = %d, want %d", tc.name, off, got, want)
			}
			if ok && sh.toNew(got, false) != off {
				t.Errorf("%s: toNew(toOld(%d)) = %d", tc.name, off, sh.toNew(got, false))
			}
		}
	}
}

// recentServer is a server whose retail root has a snapshot and a model
// (built from the disk text) and an edit of file not yet
// analysed: the state just after a didChange.
func recentServer(t *testing.T, file string, edit func(string) string) (*Server, protocol.DocumentURI, string, *analysis.Snapshot) {
	t.Helper()
	dir := copyTree(t, "../testdata/retail")
	s := &Server{logger: log.New(io.Discard, "", 0), overlays: map[string]overlay{}, roots: map[string]*root{},
		exited: make(chan struct{}), cancels: map[string]context.CancelFunc{}}
	snap, err := analysis.Load(dir, s.options(dir))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "transformations", file)
	rel, _ := snap.Rel(path)
	text, _ := snap.Text(rel)
	st := s.rootState(dir)
	st.snap, st.model, st.dirty = snap, snap, true
	edited := edit(text)
	s.overlays[path] = overlay{text: edited, version: 2}
	return s, uri.File(path), edited, snap
}

// TestHoverAnswersFromTheModelAfterAnEdit: a hover right after an edit
// answers from the last model, its range mapped into the buffer's text;
// on the edited word itself it waits for the edit's analysis.
func TestHoverAnswersFromTheModelAfterAnEdit(t *testing.T) {
	s, u, text, snap := recentServer(t, "customer_orders.sql", func(s string) string { return "-- a line typed above\n" + s })
	pos := posOf(t, text, "l.amount", 0, 3)
	dp, sh, err := s.resolveRecent(u, pos, false)
	if err != nil || sh == nil || dp.snap != snap {
		t.Fatalf("resolveRecent: %v, shift %v, from the model: %v", err, sh, dp.snap == snap)
	}
	res, _ := s.hoverAt(dp, sh)
	h, ok := res.(*protocol.Hover)
	if !ok {
		t.Fatalf("hover %#v", res)
	}
	wantAll(t, "hover from the model", h.Contents.Value, "**amount**", "Column of dataset `billable_lines` (as `l`)")
	start := posOf(t, text, "l.amount", 0, 2)
	if h.Range == nil || h.Range.Start != start || h.Range.End.Line != start.Line || h.Range.End.Character != start.Character+6 {
		t.Errorf("range %+v, want amount at %+v in the buffer", h.Range, start)
	}

	// On the edited alias: not in the model, so the edit is analysed first.
	s, u, text, snap = recentServer(t, "customer_orders.sql", func(s string) string { return strings.Replace(s, "AS order_total", "AS order_sum", 1) })
	pos = posOf(t, text, "AS order_sum", 0, 5)
	dp, sh, err = s.resolveRecent(u, pos, false)
	if err != nil || sh != nil || dp.snap == snap {
		t.Fatalf("resolveRecent on the edit: %v, shift %v, from the model: %v", err, sh, dp.snap == snap)
	}
	res, _ = s.hoverAt(dp, sh)
	if h, ok := res.(*protocol.Hover); !ok || !strings.Contains(h.Contents.Value, "**order_sum**") {
		t.Errorf("hover on the edited alias: %#v", res)
	}
}

// TestCompletionAnswersFromTheModelAfterAnEdit: `l.` typed in a select
// list offers l's columns at once, from the model, reading the context
// from the buffer; an edit beyond the query waits for its analysis.
func TestCompletionAnswersFromTheModelAfterAnEdit(t *testing.T) {
	s, u, text, _ := recentServer(t, "customer_orders.sql", func(s string) string {
		return strings.Replace(s, "  l.order_id,\n", "  l.order_id,\n  l.\n", 1)
	})
	complete := func(pos protocol.Position) map[string]string {
		t.Helper()
		params, _ := json.Marshal(protocol.CompletionParams{TextDocumentPositionParams: tdp(u, pos)})
		res, err := s.completion(context.Background(), params)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, it := range res.(*protocol.CompletionList).Items {
			out[it.Label] = it.Detail
		}
		return out
	}
	got := complete(posOf(t, text, "  l.\n", 0, 4))
	for _, want := range []string{"order_id", "quantity", "amount", "product_name"} {
		if !strings.HasSuffix(got[want], "billable_lines") {
			t.Errorf("completion after l. lacks %s of billable_lines: %v", want, got)
		}
	}
	if _, ok := got["customer_name"]; ok {
		t.Errorf("completion after l. offers the query's own alias: %v", got)
	}

	// A new statement typed after the query: the model has no flow there.
	s2, u2, text2, snap := recentServer(t, "revenue.sql", func(s string) string {
		return s + "\nCREATE MATERIALIZED VIEW more AS SELECT c. FROM customers AS c;\n"
	})
	pos := posOf(t, text2, "SELECT c.", 0, 9)
	dp, sh, err := s2.resolveRecent(u2, pos, true)
	if err != nil || sh == nil || dp.snap != snap || sh.inFlow(dp) {
		t.Fatalf("resolveRecent after the query: %v, shift %v, in a flow of the model: %v", err, sh, sh != nil && sh.inFlow(dp))
	}
	s, u = s2, u2
	if got := complete(pos); !strings.HasSuffix(got["region"], "customers") {
		t.Errorf("completion after c. in the new statement: %v", got)
	}
}
