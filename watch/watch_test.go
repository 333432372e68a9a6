package watch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/preview"
)

// all is every dataset of testdata/retail.
var all = []string{"clean_orders", "order_lines", "billable_lines", "customer_orders", "customer_ranking", "daily_revenue", "revenue_by_region", "top_products"}

// belowOrderLines is order_lines and everything downstream of it.
var belowOrderLines = []string{"order_lines", "billable_lines", "customer_orders", "customer_ranking", "daily_revenue", "revenue_by_region", "top_products"}

// TestWatchRetail edits a copy of testdata/retail the ways editors and
// people do and checks, from the NDJSON output, exactly what each batch
// re-ran; at the end the session's datasets must equal a fresh run's.
func TestWatchRetail(t *testing.T) {
	dir := copyRetail(t)
	tr := func(name string) string { return filepath.Join(dir, "transformations", name) }
	// A debounce well above the gap between the steps of one save, so a
	// loaded machine never splits a save into two batches.
	w := startWatch(t, dir, Options{Previews: append(datasetNames(t, dir), "best_products", "top_customers"), Limit: 100000, Debounce: 250 * time.Millisecond})

	r, _ := w.run()
	expectRun(t, "startup", r, nil, all)
	if len(r.Changed) < 10 || r.Completed != 8 {
		t.Errorf("startup: changed %d files, completed %d; want every file and dataset", len(r.Changed), r.Completed)
	}

	// Comments and whitespace, above and inside the query: nothing runs.
	top := readFile(t, tr("top_products.sql"))
	commented := "-- Reworded: the two best sellers.\n\n" + strings.Replace(top, "WHERE category_rank <= 2", "WHERE   category_rank <= 2   -- per category\n", 1) + "\n-- end\n"
	writeAtomic(t, tr("top_products.sql"), commented)
	r, _ = w.run()
	expectRun(t, "comment-only edit", r, []string{"transformations/top_products.sql"}, nil)
	if r.Note != noChange {
		t.Errorf("comment-only edit: note %q, want %q", r.Note, noChange)
	}

	// A touch (new modification time, same content) and a chmod are read
	// but change nothing, so they print nothing: the next run reported is
	// the edit below.
	now := time.Now().Add(time.Second)
	mustDo(t, os.Chtimes(tr("top_products.sql"), now, now))
	mustDo(t, os.Chmod(tr("top_products.sql"), 0o600))
	time.Sleep(time.Second)

	// An in-place edit of a leaf re-runs the leaf alone.
	patchInPlace(t, tr("top_products.sql"), "<= 2", "<= 3")
	r, objs := w.run()
	expectRun(t, "edit top_products", r, []string{"transformations/top_products.sql"}, []string{"top_products"})
	if n := len(w.previews["top_products"]); n != 10 {
		t.Errorf("top_products has %d rows after asking for up to 3 per category, want 10", n)
	}
	for _, o := range objs {
		if o.Type == "event" && o.Dataset != "top_products" {
			t.Errorf("edit top_products: event for %s", o.Dataset)
		}
	}

	// Editing the root re-runs its whole downstream cone.
	clean := readFile(t, tr("clean_orders.sql"))
	writeAtomic(t, tr("clean_orders.sql"), strings.Replace(clean, "lower(status) AS status", "lower(trim(status)) AS status", 1))
	r, _ = w.run()
	expectRun(t, "edit clean_orders", r, []string{"transformations/clean_orders.sql"}, all)

	// Sample data: its readers and their cone re-run.
	patchInPlace(t, filepath.Join(dir, "samples", "products.csv"), "Coffee,24.00", "Coffee,29.00")
	r, _ = w.run()
	expectRun(t, "edit samples/products.csv", r, []string{"samples/products.csv"}, belowOrderLines)

	// An atomic save (temp file renamed over the original) is one change.
	top = readFile(t, tr("top_products.sql"))
	writeAtomic(t, tr("top_products.sql"), strings.Replace(top, "<= 3", "<= 1", 1))
	r, _ = w.run()
	expectRun(t, "atomic save", r, []string{"transformations/top_products.sql"}, []string{"top_products"})

	// Vim's save: back up by renaming, probe with 4913, write, delete the
	// backup; a swap file comes and goes. One change again.
	ranking := tr("customer_ranking.sql")
	old := readFile(t, ranking)
	mustDo(t, os.WriteFile(tr(".customer_ranking.sql.swp"), []byte("swap"), 0o644))
	mustDo(t, os.Rename(ranking, ranking+"~"))
	mustDo(t, os.WriteFile(tr("4913"), nil, 0o644))
	mustDo(t, os.Remove(tr("4913")))
	mustDo(t, os.WriteFile(ranking, []byte(strings.Replace(old, "round(", "round(1.0 * ", 1)), 0o644))
	mustDo(t, os.Remove(ranking+"~"))
	mustDo(t, os.Remove(tr(".customer_ranking.sql.swp")))
	r, _ = w.run()
	expectRun(t, "vim save", r, []string{"transformations/customer_ranking.sql"}, []string{"customer_ranking"})

	// Renaming a file whose name is its dataset's renames the dataset.
	mustDo(t, os.Rename(tr("top_products.sql"), tr("best_products.sql")))
	r, _ = w.run()
	expectRun(t, "rename", r, []string{"transformations/top_products.sql", "transformations/best_products.sql"}, []string{"best_products"})
	if strings.Join(r.Removed, ",") != "top_products" {
		t.Errorf("rename: removed %v, want [top_products]", r.Removed)
	}

	// Deleting a file removes its dataset; its readers get unknown
	// references and are skipped.
	lines := readFile(t, tr("order_lines.sql"))
	mustDo(t, os.Remove(tr("order_lines.sql")))
	r, objs = w.run()
	expectRun(t, "delete order_lines.sql", r, []string{"transformations/order_lines.sql"},
		[]string{"billable_lines", "customer_orders", "customer_ranking", "daily_revenue", "revenue_by_region", "best_products"})
	if strings.Join(r.Removed, ",") != "order_lines" || r.Skipped != 6 {
		t.Errorf("delete: removed %v, %d skipped; want [order_lines], 6 skipped", r.Removed, r.Skipped)
	}
	if !hasDiagnostic(objs, "added", "unknown-reference", "transformations/revenue.sql") {
		t.Errorf("delete: no new unknown-reference diagnostic in revenue.sql; got %s", types(objs))
	}

	// Putting it back re-runs it and its cone; the diagnostic goes away.
	mustDo(t, os.WriteFile(tr("order_lines.sql"), []byte(lines), 0o644))
	r, objs = w.run()
	expectRun(t, "restore order_lines.sql", r, []string{"transformations/order_lines.sql"},
		[]string{"order_lines", "billable_lines", "customer_orders", "customer_ranking", "daily_revenue", "revenue_by_region", "best_products"})
	if !hasDiagnostic(objs, "removed", "unknown-reference", "transformations/revenue.sql") {
		t.Errorf("restore: unknown-reference not reported removed; got %s", types(objs))
	}

	// A folder created later is watched too.
	extra := filepath.Join(dir, "transformations", "extra")
	mustDo(t, os.MkdirAll(extra, 0o755))
	mustDo(t, os.WriteFile(filepath.Join(extra, "top_customers.sql"), []byte("SELECT customer_id, lifetime_value FROM customer_ranking WHERE overall_rank <= 3\n"), 0o644))
	r, _ = w.run()
	expectRun(t, "new folder", r, nil, []string{"top_customers"})
	patchInPlace(t, filepath.Join(extra, "top_customers.sql"), "<= 3", "<= 5")
	r, _ = w.run()
	expectRun(t, "edit in the new folder", r, []string{"transformations/extra/top_customers.sql"}, []string{"top_customers"})

	// Renaming the folder moves the file but changes no dataset; the
	// moved folder stays watched.
	moved := filepath.Join(dir, "transformations", "more")
	mustDo(t, os.Rename(extra, moved))
	r, _ = w.run()
	expectRun(t, "folder rename", r, []string{"transformations/extra/top_customers.sql", "transformations/more/top_customers.sql"}, nil)
	if r.Note != noChange {
		t.Errorf("folder rename: note %q, want %q", r.Note, noChange)
	}
	extra = moved
	patchInPlace(t, filepath.Join(extra, "top_customers.sql"), "<= 5", "<= 4")
	r, _ = w.run()
	expectRun(t, "edit in the moved folder", r, []string{"transformations/more/top_customers.sql"}, []string{"top_customers"})

	// Editor litter alone is no change at all: the next run is the next
	// real save's.
	mustDo(t, os.WriteFile(filepath.Join(extra, "notes.tmp"), []byte("x"), 0o644))
	mustDo(t, os.WriteFile(filepath.Join(extra, ".#top_customers.sql"), []byte("x"), 0o644))
	mustDo(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("Edited.\n"), 0o644))
	r, _ = w.run()
	expectRun(t, "README edit", r, []string{"README.md"}, nil)

	// The session holds what a fresh run computes.
	want := freshOutputs(t, dir)
	if len(want) != 9 {
		t.Errorf("fresh run completed %d datasets, want 9", len(want))
	}
	for k, rows := range want {
		got, ok := w.previews[k]
		if !ok {
			t.Errorf("%s: never previewed", k)
			continue
		}
		if strings.Join(got, "\n") != strings.Join(rows, "\n") {
			t.Errorf("%s: watch mode holds %d rows, a fresh run %d, or they differ:\nwatch: %v\nfresh: %v", k, len(got), len(rows), got, rows)
		}
	}
	for k := range w.previews {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: previewed but not in a fresh run", k)
		}
	}
	w.stop()
	for _, l := range strings.Split(strings.TrimSpace(w.stderr.String()), "\n") {
		if l != "" && !strings.Contains(l, "no such dataset yet") {
			t.Errorf("stderr: %s", l)
		}
	}
}

func mustDo(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func hasDiagnostic(objs []object, change, code, file string) bool {
	for _, o := range objs {
		if o.Type == "diagnostic" && o.Change == change && o.Code == code && o.File == file {
			return true
		}
	}
	return false
}

func types(objs []object) string {
	var b strings.Builder
	for _, o := range objs {
		if o.Type == "diagnostic" || o.Type == "run" {
			b.Write(o.raw)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// slow is a query DuckDB takes hours over, and interrupts at once.
const slow = "SELECT count(*) AS n FROM range(10000000000000) AS r(x) WHERE x % 7 = 3\n"

// underway waits until the slow query has surely started executing.
// duckdb-go loses an interrupt that lands while a statement is being set
// up (after binding, before execution: it returns the context's error but
// leaves DuckDB's worker threads running the query), and the next
// statement on that connection then waits for the query to finish. Watch
// mode survives that on Ctrl-C (see reconciler.stop), but a query left
// running would slow every later test, so these tests cancel a query
// that is well under way, as a person saving again would.
func underway(w *watcher) {
	w.until(func(o object) bool { return o.Type == "event" && o.Dataset == "slow" && o.Phase == "running" })
	time.Sleep(time.Second)
}

// TestNewerSaveCancelsRun saves a dataset again while its slow query runs:
// the run is cancelled and the next one runs the new text.
func TestNewerSaveCancelsRun(t *testing.T) {
	dir := copyRetail(t)
	file := filepath.Join(dir, "transformations", "slow.sql")
	mustDo(t, os.WriteFile(file, []byte("SELECT 1 AS n\n"), 0o644))
	w := startWatch(t, dir, Options{Previews: []string{"slow"}, Limit: 10})
	r, _ := w.run()
	if len(r.Reran) != 9 {
		t.Fatalf("startup re-ran %v", r.Reran)
	}
	start := time.Now()
	writeAtomic(t, file, slow)
	underway(w)
	writeAtomic(t, file, "SELECT 42 AS n\n")
	r, objs := w.run()
	if !r.Cancelled {
		t.Fatalf("the slow run was not cancelled: %s", types(objs))
	}
	for _, o := range objs {
		if o.Type == "event" && o.Phase == "failed" {
			t.Errorf("a cancelled run printed a failure: %s", o.raw)
		}
	}
	r, objs2 := w.run()
	expectRun(t, "after cancelling", r, []string{"transformations/slow.sql"}, []string{"slow"})
	if got := w.previews["slow"]; len(got) != 1 || got[0] != "[42]" {
		t.Log(types(objs2))
		t.Errorf("slow holds %v, want [[42]]", got)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("cancelling took %s", d)
	}
}

// TestStopDuringRun cancels watch mode (Ctrl-C) while a slow query runs:
// it must interrupt DuckDB and return promptly.
func TestStopDuringRun(t *testing.T) {
	dir := copyRetail(t)
	mustDo(t, os.WriteFile(filepath.Join(dir, "transformations", "slow.sql"), []byte(slow), 0o644))
	w := startWatch(t, dir, Options{})
	underway(w)
	start := time.Now()
	w.stop()
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("stopping took %s", d)
	}
}

// TestTextOutput checks the text rendering: the status line, the preview
// table and the no-change message, without a terminal.
func TestTextOutput(t *testing.T) {
	dir := copyRetail(t)
	out := &syncBuffer{}
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		done <- Run(ctx, Options{Dir: dir, Out: out, Warn: out, Previews: []string{"top_products"}, Limit: 5})
	}()
	waitFor(t, out, "ran 8 datasets")
	file := filepath.Join(dir, "transformations", "top_products.sql")
	writeAtomic(t, file, readFile(t, file)+"\n-- a comment\n")
	waitFor(t, out, noChange)
	patchInPlace(t, file, "<= 2", "<= 3")
	waitFor(t, out, "re-ran 1 dataset: top_products (10 rows)")
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"watching ", "transformations/top_products.sql: " + noChange, "category_rank", "5 of 10 rows", "stopped watching"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\x1b[") {
		t.Errorf("colour codes without a terminal:\n%s", text)
	}
}

// waitFor polls the output until it holds s.
func waitFor(t *testing.T, out *syncBuffer, s string) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !strings.Contains(out.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("output never showed %q:\n%s", s, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHighlightNewRows checks that a colour table marks the rows a page
// did not have before.
func TestHighlightNewRows(t *testing.T) {
	o := newOutput(&syncBuffer{}, false, true, 0)
	old := pageOf("a", []any{int64(1)}, []any{int64(2)})
	now := pageOf("a", []any{int64(1)}, []any{int64(2)}, []any{int64(3)})
	got := o.table(now, old)
	lines := strings.Split(got, "\n")
	marked := 0
	for _, l := range lines {
		if strings.Contains(l, "+ ") {
			marked++
			if !strings.Contains(l, "3") {
				t.Errorf("marked a row that is not new: %q", l)
			}
		}
	}
	if marked != 1 || !strings.Contains(got, "1 new since the last run") {
		t.Errorf("want one marked row and a count:\n%s", got)
	}
	plain := newOutput(&syncBuffer{}, false, false, 0).table(now, old)
	if strings.Contains(plain, "+ ") || strings.Contains(plain, "\x1b[") {
		t.Errorf("plain table has marks:\n%s", plain)
	}
}

func pageOf(name string, rows ...[]any) *preview.Page {
	return &preview.Page{Dataset: name, Columns: []preview.Column{{Name: "n", Type: "BIGINT"}}, Rows: rows, TotalRows: int64(len(rows))}
}

// TestStateFolderIgnored keeps the DuckDB state inside the pipeline
// folder: its writes must not count as saves.
func TestStateFolderIgnored(t *testing.T) {
	dir := copyRetail(t)
	w := startWatch(t, dir, Options{Engine: engine.Options{StateDir: filepath.Join(dir, "state")}})
	r, _ := w.run()
	for _, f := range r.Changed {
		if strings.HasPrefix(f, "state/") {
			t.Errorf("startup lists the state file %s as changed", f)
		}
	}
	file := filepath.Join(dir, "transformations", "top_products.sql")
	patchInPlace(t, file, "<= 2", "<= 1")
	r, _ = w.run()
	expectRun(t, "edit with state", r, []string{"transformations/top_products.sql"}, []string{"top_products"})
	mustDo(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("Edited.\n"), 0o644))
	r, _ = w.run()
	expectRun(t, "README after a run", r, []string{"README.md"}, nil)
}
