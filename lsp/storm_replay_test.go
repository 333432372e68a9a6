package lsp

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
)

// diagnosticKeys renders a snapshot's diagnostics for comparison, sorted.
func diagnosticKeys(s *analysis.Snapshot) string {
	out := make([]string, 0, len(s.Diagnostics))
	for _, d := range s.Diagnostics {
		out = append(out, fmt.Sprintf("%s:%d %s %s", d.Loc.File, d.Loc.Start, d.Code, d.Message))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestStormReplayEqualsLoad replays the edit storm's edits (cycles made
// and broken, files that stop parsing, readers of changed outputs) on
// analysis snapshots directly, one edit or five at a time, and after each
// update compares the diagnostics with a fresh analysis.Load of the same
// texts (a seed's edits are TestEditStorm's with THUND_STORM_SEED). It is the deterministic half of TestEditStorm: no server, no
// timing, every intermediate state checked.
func TestStormReplayEqualsLoad(t *testing.T) {
	const files = 10
	// Seeds on which an incremental column check once went wrong within
	// 400 edits (the last one is a TestEditStorm seed), each replayed in
	// full one edit and five edits at a time.
	for _, seed := range []int64{2, 6, 9, 11, 12, 1796201350579980018} {
		for _, batch := range []int{1, 5} {
			t.Run(fmt.Sprintf("seed%d/batch%d", seed, batch), func(t *testing.T) {
				replayStorm(t, seed, batch, files, 400)
			})
		}
	}
	// Many quick seeds (more under THUND_SOAK=1), alternately one and
	// three edits per update.
	quick, edits := 50, 150
	if soak() {
		quick, edits = 400, 400
	}
	for seed := int64(1000); seed < int64(1000+quick); seed++ {
		batch := 1 + 2*int(seed%2)
		t.Run(fmt.Sprintf("quick%d/batch%d", seed, batch), func(t *testing.T) {
			replayStorm(t, seed, batch, files, edits)
		})
	}
}

func replayStorm(t *testing.T, seed int64, batch, files, edits int) {
	m := &stormModel{r: rand.New(rand.NewSource(seed)), n: files}
	write := func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, "thund.yaml"), []byte("backends: [native]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < files; k++ {
			if err := os.WriteFile(filepath.Join(dir, stormName(k)+".sql"), []byte(m.text(k)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < files; i++ {
		m.files = append(m.files, m.fresh(i))
	}
	root, ref := t.TempDir(), t.TempDir()
	write(root)
	write(ref)
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var pending []analysis.Change
	before := make([]string, files)
	for k := range before {
		before[k] = m.text(k)
	}
	for e := 0; e < edits; e++ {
		i := m.r.Intn(files)
		m.edit(i)
		if e%10 == 9 {
			// TestEditStorm draws a request's position here: drawing it
			// too keeps a seed's edits those of the storm.
			m.randomPos(m.r.Intn(files))
		}
		text := m.text(i)
		pending = append(pending, analysis.Change{Path: stormName(i) + ".sql", Text: &text})
		if len(pending) < batch && e != edits-1 {
			continue
		}
		snap = snap.Update(pending)
		for _, c := range pending {
			if err := os.WriteFile(filepath.Join(ref, c.Path), []byte(*c.Text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		pending = nil
		fresh, err := analysis.Load(ref, analysis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := diagnosticKeys(snap), diagnosticKeys(fresh); got != want {
			for k := 0; k < files; k++ {
				t.Logf("%s.sql: %q -> %q", stormName(k), before[k], m.text(k))
			}
			t.Fatalf("after edit %d (of %s.sql) the updated snapshot's diagnostics differ from a fresh load's:\nupdated:\n%s\nfresh:\n%s", e, stormName(i), got, want)
		}
		for k := range before {
			before[k] = m.text(k)
		}
	}
}
