package engine

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis"
)

var updateOutputs = flag.Bool("update-outputs", false, "rewrite testdata/*/outputs.golden")

// TestTestdataOutputs runs every realistic testdata pipeline and compares
// every dataset's rows, sorted, with the pipeline's outputs.golden. The
// golden files were checked by hand against the samples (see the
// pipelines' README.md files for the figures that matter).
func TestTestdataOutputs(t *testing.T) {
	for _, name := range []string{"retail", "clickstream", "cdc", "sdp_project", "databricks", "sdp_autocdc", "python_frames"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("..", "testdata", name)
			snap, err := analysis.Load(dir, analysis.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s, err := Open(snap.Root, Options{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			res, err := s.Run(ctx, snap.Pipeline, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, k := range res.Order {
				d := res.Datasets[k]
				fmt.Fprintf(&b, "== %s (%s, %d rows)\n", d.Name, d.Phase, d.Rows)
				if d.Phase == Skipped && d.Error == analysis.PythonNotRun {
					continue // only Spark runs a Python dataset
				}
				if d.Phase != Completed {
					t.Errorf("%s: %s %s", d.Name, d.Phase, d.Error)
					continue
				}
				writeGoldenRows(t, s, &b, "SELECT * FROM "+RelationSQL(d.Name)+" ORDER BY ALL")
			}
			golden := filepath.Join(dir, "outputs.golden")
			if *updateOutputs {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./engine -run TestTestdataOutputs -update-outputs)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("outputs differ from %s:\n%s", golden, firstDiff(got, string(want)))
			}
		})
	}
}

// writeGoldenRows writes the columns and rows of query q as a golden file
// holds them: a header line, then one line per row of goldenCell values.
func writeGoldenRows(t *testing.T, s *Session, b *strings.Builder, q string) {
	t.Helper()
	ctx := context.Background()
	conn, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cols, rows, err := queryRows(ctx, conn, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	b.WriteString(strings.Join(cols, ",") + "\n")
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = goldenCell(v)
		}
		b.WriteString(strings.Join(cells, ",") + "\n")
	}
}

func goldenCell(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		if v.Hour() == 0 && v.Minute() == 0 && v.Second() == 0 && v.Nanosecond() == 0 {
			return v.UTC().Format("2006-01-02")
		}
		return v.UTC().Format("2006-01-02T15:04:05.999999")
	case []byte:
		return string(v)
	}
	return fmt.Sprint(v)
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d\n got: %s\nwant: %s", i+1, a, b)
		}
	}
	return ""
}
