package watch

// Watch mode under faults: a burst of saves, folders deleted and
// recreated, unreadable files, a large sample and a sample rewritten while
// it is read. Watch mode must survive each, and its datasets must end
// equal, row by row, to a fresh run of the final folder (what --once
// computes).
//
// The short version runs in plain `go test`; THUND_SOAK=1 (make
// soak-watch) runs the long one: ten times the saves and a 100 MB sample.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// faultScale is how hard TestWatchFaults pushes.
type faultScale struct {
	saves       int   // saves in the burst
	bigBytes    int64 // size of the large sample
	rewrites    int   // rewrites of the large sample while runs read it
	folderLoops int   // delete/recreate cycles
}

func faultSizes() faultScale {
	if os.Getenv("THUND_SOAK") == "1" {
		return faultScale{saves: 10000, bigBytes: 100 << 20, rewrites: 20, folderLoops: 10}
	}
	return faultScale{saves: 1000, bigBytes: 5 << 20, rewrites: 4, folderLoops: 1}
}

// writeBigCSV writes about size bytes of id,v rows, v = id*mul, and
// returns the row count.
func writeBigCSV(t testing.TB, path string, size int64, mul int) int {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	sb.WriteString("id,v,pad\n")
	n := 0
	var written int64
	for written < size {
		for i := 0; i < 4096; i++ {
			fmt.Fprintf(&sb, "%d,%d,%s\n", n, n*mul, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
			n++
		}
		m, err := f.WriteString(sb.String())
		if err != nil {
			t.Fatal(err)
		}
		written += int64(m)
		sb.Reset()
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return n
}

// settle saves the sentinel (a comment-only change) and returns once the
// run that applied it, and nothing after it, has finished: everything
// saved before it is then applied.
func settle(t *testing.T, w *watcher, dir string, n *int) []object {
	t.Helper()
	*n++
	writeAtomic(t, filepath.Join(dir, "extra", "sentinel.sql"), fmt.Sprintf("-- @kind: view\n-- save %d\nSELECT 1 AS s\n", *n))
	var all []object
	for {
		r, objs := w.run()
		all = append(all, objs...)
		seen := false
		for _, c := range r.Changed {
			seen = seen || c == "extra/sentinel.sql"
		}
		if seen && !r.Cancelled {
			// A sentinel that changes nothing while a run is under way
			// is reported at once ("the run going on already builds
			// exactly this"), before that run ends: wait for it too.
			if r.Note == noChange && inFlight(all) {
				_, objs := w.run()
				all = append(all, objs...)
			}
			return all
		}
	}
}

// inFlight reports whether objects (ending with a run object) hold
// events after the run object before the last: a job that has not
// reported yet.
func inFlight(objs []object) bool {
	for i := len(objs) - 2; i >= 0; i-- {
		switch objs[i].Type {
		case "run":
			return false
		case "event", "increment", "expectation", "preview":
			return true
		}
	}
	return false
}

// TestWatchFaults drives one watch-mode session through every fault and
// compares its final datasets with a fresh run.
func TestWatchFaults(t *testing.T) {
	sc := faultSizes()
	dir := copyRetail(t)
	// extra/ holds the sentinel and the large sample's reader, out of
	// the folders the test deletes.
	mustDo(t, os.MkdirAll(filepath.Join(dir, "extra"), 0o755))
	mustDo(t, os.WriteFile(filepath.Join(dir, "spark-pipeline.yml"), []byte("name: retail\nstorage: file:///storage\nlibraries:\n  - glob:\n      include: transformations/**\n  - glob:\n      include: extra/**\n"), 0o644))
	mustDo(t, os.WriteFile(filepath.Join(dir, "extra", "sentinel.sql"), []byte("-- @kind: view\nSELECT 1 AS s\n"), 0o644))
	mustDo(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
	big := filepath.Join(dir, "data", "big.csv")
	writeBigCSV(t, big, 1<<10, 1)
	mustDo(t, os.WriteFile(filepath.Join(dir, "extra", "big_stats.sql"), []byte("-- @kind: materialized_view\n-- @sample.big: data/big.csv\nSELECT count(*) AS n, sum(v) AS total, max(id) AS last FROM big\n"), 0o644))
	orig := filepath.Join(t.TempDir(), "orig")
	copyTree(t, dir, orig)
	names := datasetNames(t, dir)
	w := startWatch(t, dir, Options{Previews: names, Limit: 1 << 20, Debounce: 100 * time.Millisecond})
	w.run()
	sentinel := 0
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 9))
	t.Logf("seed %d", seed)

	// 1. A burst of saves as fast as the disk takes them, atomic and in
	// place, to SQL and to samples, with no pause.
	start := time.Now()
	top := filepath.Join(dir, "transformations", "top_products.sql")
	topText := readFile(t, top)
	customers := filepath.Join(dir, "samples", "customers.csv")
	custText := readFile(t, customers)
	clean := filepath.Join(dir, "transformations", "clean_orders.sql")
	cleanText := readFile(t, clean)
	for i := 0; i < sc.saves; i++ {
		switch rng.IntN(4) {
		case 0:
			writeAtomic(t, top, strings.Replace(topText, "<= 2", fmt.Sprintf("<= %d", 1+rng.IntN(5)), 1))
		case 1:
			mustDo(t, os.WriteFile(top, []byte(strings.Replace(topText, "<= 2", fmt.Sprintf("<= %d", 1+rng.IntN(5)), 1)), 0o644))
		case 2:
			writeAtomic(t, customers, strings.Replace(custText, "North", []string{"North", "Nord", "Norte", "N"}[rng.IntN(4)], -1))
		case 3:
			writeAtomic(t, clean, fmt.Sprintf("-- save %d\n%s", i, cleanText))
		}
	}
	burst := time.Since(start)
	settle(t, w, dir, &sentinel)
	t.Logf("burst: %d saves in %s, applied %s after the last", sc.saves, burst.Round(time.Millisecond), (time.Since(start) - burst).Round(time.Millisecond))

	// 2. Folders deleted and recreated: the SQL folder and the samples.
	start = time.Now()
	for i := 0; i < sc.folderLoops; i++ {
		for _, sub := range []string{"transformations", "samples"} {
			saved := filepath.Join(t.TempDir(), sub)
			mustDo(t, os.Rename(filepath.Join(dir, sub), saved))
			settle(t, w, dir, &sentinel)
			mustDo(t, os.Rename(saved, filepath.Join(dir, sub)))
			settle(t, w, dir, &sentinel)
			// Deleted outright and written again, file by file.
			mustDo(t, os.RemoveAll(filepath.Join(dir, sub)))
			copyTree(t, filepath.Join(orig, sub), filepath.Join(dir, sub))
		}
		settle(t, w, dir, &sentinel)
	}
	t.Logf("folders: %d delete/recreate cycles of 2 folders in %s", sc.folderLoops, time.Since(start).Round(time.Millisecond))

	// 3. Unreadable files. As root, chmod 000 does not stop reads, so
	// this only checks that the permission changes are harmless.
	products := filepath.Join(dir, "samples", "products.csv")
	mustDo(t, os.Chmod(products, 0))
	mustDo(t, os.Chmod(top, 0))
	if f, err := os.Open(products); err == nil {
		f.Close()
		t.Logf("unreadable files: running as uid %d, chmod 000 does not block reads here; only checked that it causes no harm", os.Getuid())
	}
	// A save of the SQL file while it cannot be read.
	patchInPlace(t, top, "<= ", "<  ")
	settle(t, w, dir, &sentinel)
	mustDo(t, os.Chmod(products, 0o644))
	mustDo(t, os.Chmod(top, 0o644))
	// A permission change alone raises no save; the next save of each
	// file brings it back.
	mustDo(t, os.WriteFile(products, []byte(readFile(t, products)), 0o644))
	mustDo(t, os.WriteFile(top, []byte(readFile(t, top)), 0o644))
	settle(t, w, dir, &sentinel)

	// 4. A large sample.
	start = time.Now()
	rows := writeBigCSV(t, big, sc.bigBytes, 1)
	settle(t, w, dir, &sentinel)
	if got := w.previews["big_stats"]; len(got) != 1 || !strings.HasPrefix(got[0], fmt.Sprintf("[%d,", rows)) {
		t.Errorf("big_stats after a %d MB sample of %d rows: %v", sc.bigBytes>>20, rows, got)
	}
	t.Logf("large sample: %d MB, %d rows, written and run in %s", sc.bigBytes>>20, rows, time.Since(start).Round(time.Millisecond))

	// 5. The sample rewritten, in place and with other values, while runs
	// read it: each rewrite starts as soon as a run begins reading.
	start = time.Now()
	writeBigCSV(t, big, sc.bigBytes/2, 2)
	var trail []object
	for i := 0; i < sc.rewrites; i++ {
		trail = append(trail, w.until(func(o object) bool { return o.Type == "event" && o.Dataset == "big_stats" && o.Phase == "running" })...)
		writeBigCSV(t, big, sc.bigBytes/int64(1+i%3), 3+i)
	}
	trail = append(trail, settle(t, w, dir, &sentinel)...)
	defer func() {
		if t.Failed() {
			for _, o := range trail {
				if o.Type == "run" || o.Dataset == "big_stats" {
					t.Logf("trail: %.300s", o.raw)
				}
			}
		}
	}()
	t.Logf("rewrites under read: %d in %s", sc.rewrites, time.Since(start).Round(time.Millisecond))

	// The end state equals a fresh run of the final folder.
	w.stop()
	fresh := freshOutputs(t, dir)
	if len(fresh) != len(names) {
		t.Errorf("a fresh run completed %d datasets, want %d", len(fresh), len(names))
	}
	for k, want := range fresh {
		got := w.previews[k]
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: watch mode holds %d rows, a fresh run %d; first rows %v vs %v", k, len(got), len(want), head(got), head(want))
		}
	}
	if s := w.stderr.String(); strings.Contains(s, "panic") {
		t.Errorf("stderr: %s", s)
	}
}

func head(rows []string) []string {
	if len(rows) > 3 {
		return rows[:3]
	}
	return rows
}

// copyTree copies a folder file by file.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
