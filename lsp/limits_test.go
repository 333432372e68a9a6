package lsp

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis/project"
	"github.com/thund-dev/thund/internal/testutil"
	"github.com/thund-dev/thund/preview"
)

// A page size over project.PreviewMaxRows is taken as that maximum, and a
// result larger than a page may be is not diffed.
func TestPreviewLimitIsBounded(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{"thund.yaml": "backends: [native]\n", "big.sql": "SELECT x AS n FROM range(25000) AS r(x)\n"})
	c := startServer(t)
	u, _ := c.open(t, filepath.Join(root, "big.sql"))
	var pr PreviewResult
	c.call(t, "thund/preview", &PreviewParams{URI: u, Dataset: "big", Limit: 3_000_000}, &pr)
	if pr.Error != "" || pr.TotalRows != 25000 || len(pr.Rows) != project.PreviewMaxRows || pr.Limit != project.PreviewMaxRows {
		t.Fatalf("preview: total %d, %d rows, limit %d, error %q", pr.TotalRows, len(pr.Rows), pr.Limit, pr.Error)
	}
	if pr.Diff != nil || !strings.Contains(pr.DiffSkipped, "25000 rows") {
		t.Fatalf("diff %+v, skipped %q", pr.Diff, pr.DiffSkipped)
	}
	// A later page of a large result is bounded too.
	c.call(t, "thund/preview", &PreviewParams{URI: u, Dataset: "big", Offset: 20000, Limit: 1 << 40}, &pr)
	if len(pr.Rows) != 5000 || pr.Rows[0][0] != float64(20000) {
		t.Fatalf("last page: %d rows", len(pr.Rows))
	}
}

func TestPreviewLimitDefaults(t *testing.T) {
	for _, tc := range []struct{ asked, setting, config, want int }{
		{0, 0, 0, DefaultPreviewLimit},
		{0, 0, 20, 20},
		{0, 30, 20, 30},
		{40, 30, 20, 40},
		{-1, 0, 0, DefaultPreviewLimit},
		{3_000_000, 0, 0, project.PreviewMaxRows},
		{0, 1 << 30, 0, project.PreviewMaxRows},
	} {
		if got := previewLimit(tc.asked, tc.setting, tc.config); got != tc.want {
			t.Errorf("previewLimit(%d, %d, %d) = %d, want %d", tc.asked, tc.setting, tc.config, got, tc.want)
		}
	}
}

// A value over preview.MaxValueBytes reaches the editor cut, with the note
// in the value and the cell in Truncated.
func TestPreviewTruncatesLongValues(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{"thund.yaml": "backends: [native]\n", "long.sql": "SELECT 1 AS id, repeat('x', 100000) AS s\n"})
	c := startServer(t)
	u, _ := c.open(t, filepath.Join(root, "long.sql"))
	var pr PreviewResult
	c.call(t, "thund/preview", &PreviewParams{URI: u, Dataset: "long"}, &pr)
	if pr.Error != "" || len(pr.Rows) != 1 {
		t.Fatalf("preview: %d rows, error %q", len(pr.Rows), pr.Error)
	}
	s, _ := pr.Rows[0][1].(string)
	if len(pr.Truncated) != 1 || pr.Truncated[0] != (preview.Truncation{Row: 0, Column: 1, Bytes: 100000}) ||
		!strings.HasSuffix(s, "…(truncated, 100000 bytes)") || len(s) > preview.MaxValueBytes+100 {
		t.Fatalf("truncated %+v, value of %d bytes", pr.Truncated, len(s))
	}
	if pr.Diff == nil || !pr.Diff.First {
		t.Fatalf("diff %+v", pr.Diff)
	}
}

// The editor's session takes thund.yaml's limits, and opens anew when
// they change.
func TestSessionTakesConfigLimits(t *testing.T) {
	st := &root{path: t.TempDir()}
	defer st.close()
	setting := func(cfg project.Config) string {
		t.Helper()
		sess, err := st.sessionLocked(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var v string
		if err := sess.DB().QueryRow("SELECT current_setting('memory_limit')").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	def := setting(project.Config{})
	first := st.session
	small := setting(project.Config{MemoryLimit: "300MB"})
	if small == def || st.session == first {
		t.Fatalf("memory_limit %q (default %q); session reopened: %v", small, def, st.session != first)
	}
	same := st.session
	if setting(project.Config{MemoryLimit: "300MB"}) != small || st.session != same {
		t.Fatal("same limits reopened the session")
	}
	setting(project.Config{MemoryLimit: "300MB", QueryTimeout: time.Minute})
	if st.session == same {
		t.Fatal("a new query_timeout did not reopen the session")
	}
}

// A statement over thund.yaml's limits.query_timeout fails the dataset
// with the limit and the setting that raises it.
func TestPreviewQueryTimeoutFromConfig(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{
		"thund.yaml": "backends: [native]\nlimits:\n  query_timeout: 1s\n",
		"slow.sql":   "SELECT count(*) AS n FROM range(100000000000) a\n",
	})
	c := startServer(t)
	u, _ := c.open(t, filepath.Join(root, "slow.sql"))
	var pr PreviewResult
	c.call(t, "thund/preview", &PreviewParams{URI: u, Dataset: "slow"}, &pr)
	if !strings.Contains(pr.Error, "1s") || !strings.Contains(pr.Error, "limits.query_timeout") {
		t.Fatalf("preview error %q, want the 1s limit and limits.query_timeout", pr.Error)
	}
}
