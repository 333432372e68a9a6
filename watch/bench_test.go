package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkSaveToResults measures, on testdata/retail, the time from a
// save of a leaf dataset's file to its printed results (events, preview
// and run object), and reports it beyond the debounce interval, which is
// a deliberate wait.
func BenchmarkSaveToResults(b *testing.B) {
	dir := copyRetail(b)
	file := filepath.Join(dir, "transformations", "top_products.sql")
	text := readFile(b, file)
	w := startWatch(b, dir, Options{Previews: []string{"top_products"}, Limit: 20})
	w.run()
	var total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		limit := []string{"<= 3", "<= 2"}[i%2]
		start := time.Now()
		writeAtomic(b, file, strings.Replace(text, "<= 2", limit, 1))
		r, _ := w.run()
		total += time.Since(start)
		if len(r.Reran) != 1 {
			b.Fatalf("re-ran %v, want [top_products]", r.Reran)
		}
	}
	b.StopTimer()
	avg := total / time.Duration(b.N)
	b.ReportMetric(float64(avg.Microseconds())/1000, "ms/save")
	b.ReportMetric(float64((avg-DefaultDebounce).Microseconds())/1000, "ms-beyond-debounce/save")
}

// writeChain writes a pipeline of n datasets in a chain over one sample:
// d000 reads the sample, each next one reads the previous.
func writeChain(b *testing.B, dir string, n int) {
	var rows strings.Builder
	rows.WriteString("id,v\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&rows, "%d,%d\n", i, i*7%13)
	}
	mustDo(b, os.MkdirAll(filepath.Join(dir, "samples"), 0o755))
	mustDo(b, os.MkdirAll(filepath.Join(dir, "models"), 0o755))
	mustDo(b, os.WriteFile(filepath.Join(dir, "samples", "src.csv"), []byte(rows.String()), 0o644))
	mustDo(b, os.WriteFile(filepath.Join(dir, "thund.yaml"), []byte("backends: [native]\n"), 0o644))
	for i := 0; i < n; i++ {
		from := "src"
		if i > 0 {
			from = chainName(i - 1)
		}
		q := fmt.Sprintf("-- Step %d of the chain.\nSELECT id, v + 1 AS v FROM %s\n", i, from)
		mustDo(b, os.WriteFile(chainFile(dir, i), []byte(q), 0o644))
	}
}

func chainName(i int) string { return fmt.Sprintf("d%03d", i) }

func chainFile(dir string, i int) string {
	return filepath.Join(dir, "models", chainName(i)+".sql")
}

// BenchmarkChain200 measures save-to-results on a chain of 200 datasets:
// an edit at the leaf re-runs one dataset, an edit at the root all 200.
func BenchmarkChain200(b *testing.B) {
	const n = 200
	dir := filepath.Join(b.TempDir(), "chain")
	writeChain(b, dir, n)
	w := startWatch(b, dir, Options{})
	if r, _ := w.run(); len(r.Reran) != n {
		b.Fatalf("startup ran %d datasets", len(r.Reran))
	}
	edit := func(i, k int) time.Duration {
		text := readFile(b, chainFile(dir, i))
		next := strings.Replace(text, "v + 1", "v + 2", 1)
		if k%2 == 1 {
			next = strings.Replace(text, "v + 2", "v + 1", 1)
		}
		start := time.Now()
		writeAtomic(b, chainFile(dir, i), next)
		r, _ := w.run()
		d := time.Since(start)
		want := n - i
		if len(r.Reran) != want {
			b.Fatalf("editing %s re-ran %d datasets, want %d", chainName(i), len(r.Reran), want)
		}
		return d
	}
	var leaf, root time.Duration
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		leaf += edit(n-1, k)
		root += edit(0, k)
	}
	b.StopTimer()
	b.ReportMetric(float64((leaf/time.Duration(b.N)).Microseconds())/1000, "leaf-ms/save")
	b.ReportMetric(float64((root/time.Duration(b.N)).Microseconds())/1000, "root-ms/save")
}
