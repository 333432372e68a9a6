package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/ir"
)

// writePipeline makes a pipeline folder (thund.yaml plus files, paths
// relative to the root) and returns its path.
func writePipeline(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if _, ok := files["thund.yaml"]; !ok {
		files["thund.yaml"] = "backends: [native]\n"
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// copyPipeline copies a testdata pipeline into a temporary folder, with
// edit applied to each file's text (edit may return the text unchanged).
func copyPipeline(t testing.TB, src string, edit func(rel, text string) string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), []byte(edit(filepath.ToSlash(rel), string(b))), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// loadClean analyses a pipeline folder, failing on error diagnostics, and
// opens a session on it.
func loadClean(t testing.TB, dir string) (*analysis.Snapshot, *Session) {
	t.Helper()
	snap, s := load(t, dir)
	for _, d := range snap.Diagnostics {
		if d.Severity == ir.Error {
			t.Fatalf("analysis: %s: %s (%s)", d.Loc.File, d.Message, d.Code)
		}
	}
	return snap, s
}

// runOK runs a pipeline and fails the test if any dataset did not
// complete.
func runOK(t testing.TB, dir string) (*Result, *Session) {
	t.Helper()
	snap, s := loadClean(t, dir)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range res.Order {
		if d := res.Datasets[k]; d.Phase != Completed {
			t.Fatalf("%s %s: %s", d.Name, d.Phase, d.Error)
		}
	}
	return res, s
}

// cell renders a value the way the tests spell expected rows.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 {
			return x.Format("2006-01-02")
		}
		return x.Format("2006-01-02 15:04:05")
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

// rowsOf returns a query's rows as "a|b|c" strings, sorted.
func rowsOf(t testing.TB, s *Session, q string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, rows, err := queryRows(ctx, conn, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return joinRows(rows)
}

func joinRows(rows [][]any) []string {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		parts := make([]string, len(r))
		for i, v := range r {
			parts[i] = cell(v)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	sort.Strings(out)
	return out
}

// tableRows returns a dataset's rows, sorted.
func tableRows(t testing.TB, s *Session, name string) []string {
	t.Helper()
	return rowsOf(t, s, "SELECT * FROM "+quoteIdent(name))
}

func sortedRows(rows ...string) []string {
	out := append([]string(nil), rows...)
	sort.Strings(out)
	return out
}

func sameRows(t testing.TB, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %d rows %q\n want %d rows %q", what, len(got), got, len(want), want)
	}
}

// increments returns the run's increments into dataset.
func increments(res *Result, dataset string) []Increment {
	var out []Increment
	for _, inc := range res.Increments {
		if inc.Dataset == dataset {
			out = append(out, inc)
		}
	}
	return out
}

// counts lists one field of each increment.
func counts(incs []Increment, field func(Increment) int64) []int64 {
	out := make([]int64, len(incs))
	for i, inc := range incs {
		out[i] = field(inc)
	}
	return out
}

func arrived(i Increment) int64 { return i.Arrived }
func late(i Increment) int64    { return i.Late }
func emitted(i Increment) int64 { return i.Emitted }

func wantCounts(t testing.TB, what string, incs []Increment, field func(Increment) int64, want ...int64) {
	t.Helper()
	if got := counts(incs, field); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// pageViews is page_views_per_minute once every minute the watermark
// closed is written; the README explains why minute 09:00 counts /home
// three times with one trigger and twice with a trigger per batch.
func pageViews(home0900 int) []string {
	return sortedRows(
		fmt.Sprintf("2025-03-03 09:00:00|/home|%d", home0900),
		"2025-03-03 09:00:00|/pricing|1",
		"2025-03-03 09:00:00|/blog/streaming-101|1",
		"2025-03-03 09:00:00|/docs|1",
		"2025-03-03 09:01:00|/signup|1",
		"2025-03-03 09:01:00|/home|2",
		"2025-03-03 09:01:00|/pricing|1",
		"2025-03-03 09:01:00|/docs|1",
		"2025-03-03 09:01:00|/docs/install|1",
		"2025-03-03 09:02:00|/home|1",
		"2025-03-03 09:02:00|/docs/install|1",
		"2025-03-03 09:02:00|/pricing|1",
		"2025-03-03 09:02:00|/docs/quickstart|1",
		"2025-03-03 09:02:00|/blog/streaming-101|1",
		"2025-03-03 09:03:00|/signup|1",
		"2025-03-03 09:03:00|/docs/quickstart|1",
		"2025-03-03 09:03:00|/home|1",
		"2025-03-03 09:03:00|/pricing|1",
		"2025-03-03 09:04:00|/home|2",
		"2025-03-03 09:04:00|/pricing|1",
		"2025-03-03 09:04:00|/docs|1",
	)
}

func TestClickstreamPipeline(t *testing.T) {
	res, s := runOK(t, "../testdata/clickstream")

	raw := increments(res, "clicks_raw")
	if len(raw) != 4 {
		t.Fatalf("clicks_raw: %d increments, want 4 (processing_time: one per file)", len(raw))
	}
	for i, inc := range raw {
		want := []string{fmt.Sprintf("samples/clicks/batch-%03d.json", i+1)}
		if !reflect.DeepEqual(inc.Files, want) || inc.Trigger != i+1 {
			t.Errorf("clicks_raw trigger %d: files %v, want %v", inc.Trigger, inc.Files, want)
		}
	}
	wantCounts(t, "clicks_raw arrived", raw, arrived, 10, 10, 10, 10)
	wantCounts(t, "clicks_raw emitted", raw, emitted, 10, 10, 10, 10)
	if n := len(tableRows(t, s, "clicks_raw")); n != 40 {
		t.Errorf("clicks_raw holds %d clicks, want all 40", n)
	}

	// available_now: one trigger over the four commits of clicks_raw.
	pv := increments(res, "page_views_per_minute")
	wantCounts(t, "page_views_per_minute arrived", pv, arrived, 40)
	wantCounts(t, "page_views_per_minute late", pv, late, 0)
	wantCounts(t, "page_views_per_minute emitted", pv, emitted, 21)
	if len(pv) == 1 && len(pv[0].Files) != 4 {
		t.Errorf("page_views_per_minute files %v, want the four batches", pv[0].Files)
	}
	sameRows(t, "page_views_per_minute", tableRows(t, s, "page_views_per_minute"), pageViews(3))

	sessions := tableRows(t, s, "user_sessions")
	if len(sessions) != 12 {
		t.Errorf("user_sessions: %d sessions, want 12", len(sessions))
	}
	users := rowsOf(t, s, "SELECT DISTINCT user_id FROM user_sessions")
	sameRows(t, "user_sessions users", users, sortedRows("u01", "u02", "u03", "u04", "u05", "u06", "u07", "u08"))
	sameRows(t, "sessions per user", rowsOf(t, s, "SELECT user_id, count(*) FROM user_sessions GROUP BY ALL"),
		sortedRows("u01|2", "u02|2", "u03|2", "u04|1", "u05|2", "u06|1", "u07|1", "u08|1"))
}

// With a trigger per micro-batch on page_views_per_minute too, the
// watermark advances batch by batch: the README's late-click table.
func TestClickstreamPerBatchWatermark(t *testing.T) {
	dir := copyPipeline(t, "../testdata/clickstream", func(rel, text string) string {
		if rel == "page_views_per_minute.sql" {
			return strings.Replace(text, "-- @output_mode: append", "-- @output_mode: append\n-- @trigger: processing_time '10 seconds'", 1)
		}
		return text
	})
	res, s := runOK(t, dir)
	pv := increments(res, "page_views_per_minute")
	wantCounts(t, "arrived", pv, arrived, 10, 10, 10, 10)
	// 002's 09:01:30 is behind 09:01:50 but ahead of the 08:59:50
	// watermark; 003's 09:00:40 is behind 09:01:40 and dropped; 004's
	// 09:05:10 is ahead of 09:03:50.
	wantCounts(t, "late", pv, late, 0, 0, 1, 0)
	// Minutes written as the watermark passes them: none, 09:00, 09:01
	// and 09:02, 09:03 and 09:04; 09:05 to 09:07 stay open.
	wantCounts(t, "emitted", pv, emitted, 0, 4, 10, 7)
	for i, inc := range pv {
		want := []string{fmt.Sprintf("samples/clicks/batch-%03d.json", i+1)}
		if !reflect.DeepEqual(inc.Files, want) {
			t.Errorf("trigger %d files %v, want %v", i+1, inc.Files, want)
		}
	}
	sameRows(t, "page_views_per_minute", tableRows(t, s, "page_views_per_minute"), pageViews(2))
	if len(pv) == 4 {
		sameRows(t, "trigger 2 rows", joinRows(pv[1].Rows), sortedRows(
			"2025-03-03 09:00:00|/home|2", "2025-03-03 09:00:00|/pricing|1",
			"2025-03-03 09:00:00|/blog/streaming-101|1", "2025-03-03 09:00:00|/docs|1"))
		if !reflect.DeepEqual(pv[1].Columns, []string{"minute_start", "page", "views"}) {
			t.Errorf("columns %v", pv[1].Columns)
		}
	}
}
