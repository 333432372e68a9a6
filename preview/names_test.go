package preview

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/internal/testutil"
)

// runFolder loads and runs the pipeline at root in a new session.
func runFolder(t *testing.T, root string) *engine.Session {
	t.Helper()
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.Open(snap.Root, engine.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	res, err := s.Run(context.Background(), snap.Pipeline, engine.RunOptions{})
	if err != nil || res.Failed() {
		t.Fatalf("run %s: %v %+v", root, err, res)
	}
	return s
}

// previewRows is a dataset's preview, each row written out, sorted.
func previewRows(t *testing.T, s *engine.Session, name string) string {
	t.Helper()
	p, err := Dataset(context.Background(), s, name, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range p.Rows {
		rows = append(rows, strings.TrimSpace(fmt.Sprintln(r...)))
	}
	sort.Strings(rows)
	return strings.Join(rows, "; ")
}

// TestPreviewKeepsNamesEndingAlikeApart previews silver.orders and the
// bronze orders of testdata/medallion_names: each shows its own rows,
// also after another session of the process ran a pipeline where a
// dataset silver.orders is alone (kept under its last part there).
func TestPreviewKeepsNamesEndingAlikeApart(t *testing.T) {
	s := runFolder(t, testutil.CopyToTemp(t, filepath.Join("..", "testdata", "medallion_names")))
	const bronze = "1 1 10.50 shipped; 2 2 20.00 pending; 3 1 0.00 cancelled; 4 3 7.25 shipped; 5 2 12.00 shipped"
	const silver = "1 1 10.50 SHIPPED; 2 2 20.00 PENDING; 4 3 7.25 SHIPPED; 5 2 12.00 SHIPPED"
	check := func(when string) {
		t.Helper()
		if got := previewRows(t, s, "orders"); got != bronze {
			t.Errorf("%s: the preview of orders (bronze) shows %s, want %s", when, got, bronze)
		}
		if got := previewRows(t, s, "silver.orders"); got != silver {
			t.Errorf("%s: the preview of silver.orders shows %s, want %s", when, got, silver)
		}
	}
	check("after the run")

	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	os.WriteFile(filepath.Join(other, "orders.sql"), []byte("CREATE MATERIALIZED VIEW silver.orders AS SELECT 1 AS order_id;\n"), 0o644)
	runFolder(t, other)
	check("after another session ran silver.orders alone")
}
