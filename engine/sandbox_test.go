package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestSandboxRefusesEscapes tries every way out of the pipeline folder a
// query could take; each must fail with ErrSandbox (or, for functions the
// sandbox removes, not exist), while reading a sample inside works.
func TestSandboxRefusesEscapes(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "in.csv"), []byte("a\n1\n"), 0o644)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.csv"), []byte("s\nhidden\n"), 0o644)
	s, err := Open(root, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	// Not even the pipeline folder: samples reach DuckDB only through
	// the session's checked mirror.
	if err := s.Exec(ctx, "CREATE TABLE ok AS SELECT * FROM read_csv_auto('"+filepath.Join(root, "in.csv")+"')"); !errors.Is(err, ErrSandbox) {
		t.Fatalf("a query read a file of the pipeline folder: %v", err)
	}
	escapes := map[string]string{
		"read outside":       "SELECT * FROM read_csv_auto('" + filepath.Join(outside, "secret.csv") + "')",
		"read /etc/passwd":   "SELECT * FROM read_csv('/etc/passwd')",
		"relative escape":    "SELECT * FROM read_csv_auto('" + root + "/../" + filepath.Base(outside) + "/secret.csv')",
		"read /proc environ": "SELECT * FROM read_text('/proc/self/environ')",
		"glob outside":       "SELECT * FROM glob('/etc/*')",
		"copy to /tmp":       "COPY (SELECT 1) TO '" + filepath.Join(outside, "x.csv") + "'",
		"attach":             "ATTACH '" + filepath.Join(outside, "x.db") + "' AS x",
		"install":            "INSTALL httpfs",
		"load":               "LOAD httpfs",
		"http url":           "SELECT * FROM read_csv('http://127.0.0.1:1/x.csv')",
		"s3 url":             "SELECT * FROM read_parquet('s3://bucket/x.parquet')",
		"unlock":             "SET enable_external_access = true",
		"reset allowed dirs": "SET allowed_directories = ['/']",
		"export database":    "EXPORT DATABASE '" + filepath.Join(outside, "dump") + "'",
	}
	// Beneath the guard, which refuses most of these first: the sandbox
	// must hold on its own.
	for name, q := range escapes {
		err := s.Exec(beneathGuard(ctx), q)
		if err == nil {
			t.Errorf("%s: allowed: %s", name, q)
			continue
		}
		if !errors.Is(err, ErrSandbox) && !strings.Contains(err.Error(), "Catalog Error") {
			t.Errorf("%s: refused, but not by the sandbox: %v", name, err)
		}
	}
	// No function reads the environment.
	if err := s.Exec(ctx, "SELECT getenv('HOME')"); err == nil {
		t.Error("getenv is available")
	}
	if _, err := os.Stat(filepath.Join(outside, "x.csv")); err == nil {
		t.Error("COPY TO wrote a file outside the sandbox")
	}
}

// TestSandboxedRunFailsWithReason runs a pipeline whose dataset reads a
// file outside the root: the dataset fails with the sandbox's reason, its
// reader is skipped, and an independent dataset still completes.
func TestSandboxedRunFailsWithReason(t *testing.T) {
	root := t.TempDir()
	p := &ir.Pipeline{
		Datasets: []*ir.Dataset{{Name: "stolen", Kind: ir.MaterializedView}, {Name: "reader", Kind: ir.MaterializedView}, {Name: "fine", Kind: ir.MaterializedView}},
		Flows: []*ir.Flow{
			{Name: "stolen", Target: "stolen", Normalized: "SELECT * FROM read_csv('/etc/passwd')"},
			{Name: "reader", Target: "reader", Normalized: "SELECT * FROM stolen", Reads: []ir.Ref{{Name: "stolen"}}},
			{Name: "fine", Target: "fine", Normalized: "SELECT 42 AS answer"},
		},
	}
	s, err := Open(root, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(context.Background(), p, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Datasets["stolen"]; d.Phase != Failed || !strings.Contains(d.Error, "refused by the sandbox") {
		t.Fatalf("stolen: %+v", d)
	}
	if d := res.Datasets["reader"]; d.Phase != Skipped || !strings.Contains(d.Error, "upstream stolen failed") {
		t.Fatalf("reader: %+v", d)
	}
	if d := res.Datasets["fine"]; d.Phase != Completed || d.Rows != 1 {
		t.Fatalf("fine: %+v", d)
	}
}

// TestUnreadableSampleFailsItsReadersOnly: a sample that cannot be read
// when the run starts (here: deleted after analysis) fails the datasets
// that read it, naming the sample, and skips their downstream; datasets
// that do not read it still complete.
func TestUnreadableSampleFailsItsReadersOnly(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "samples"), 0o755)
	os.WriteFile(filepath.Join(root, "samples", "good.csv"), []byte("a\n1\n2\n"), 0o644)
	p := &ir.Pipeline{
		Datasets: []*ir.Dataset{{Name: "from_gone", Kind: ir.MaterializedView}, {Name: "after", Kind: ir.MaterializedView}, {Name: "from_good", Kind: ir.MaterializedView}},
		Flows: []*ir.Flow{
			{Name: "from_gone", Target: "from_gone", Normalized: "SELECT * FROM gone", Reads: []ir.Ref{{Name: "gone"}}},
			{Name: "after", Target: "after", Normalized: "SELECT * FROM from_gone", Reads: []ir.Ref{{Name: "from_gone"}}},
			{Name: "from_good", Target: "from_good", Normalized: "SELECT * FROM good", Reads: []ir.Ref{{Name: "good"}}},
		},
		Sources: []*ir.Source{{Name: "gone", Sample: "samples/gone.csv"}, {Name: "good", Sample: "samples/good.csv"}},
	}
	s, err := Open(root, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(context.Background(), p, RunOptions{})
	if err != nil {
		t.Fatalf("the whole run failed: %v", err)
	}
	if d := res.Datasets["from_gone"]; d.Phase != Failed || !strings.Contains(d.Error, "samples/gone.csv") {
		t.Errorf("from_gone: %+v, want failed naming samples/gone.csv", d)
	}
	if d := res.Datasets["after"]; d.Phase != Skipped || !strings.Contains(d.Error, "upstream from_gone failed") {
		t.Errorf("after: %+v, want skipped after from_gone", d)
	}
	if d := res.Datasets["from_good"]; d.Phase != Completed || d.Rows != 2 {
		t.Errorf("from_good: %+v, want completed with 2 rows", d)
	}
}
