package bench

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/bench/gen"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/preview"
)

// previewQuery is the dataset both sides run: an aggregate over the
// 1,000,000-row sample, the shape of a typical preview.
const previewQuery = `SELECT customer_id % 1000 AS bucket, region, count(*) AS orders, sum(amount) AS revenue
FROM orders
WHERE amount > 10
GROUP BY ALL`

// writeParquet writes a 1,000,000-row orders sample with plain DuckDB.
func writeParquet(b *testing.B, path string, rows int) {
	b.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	q := fmt.Sprintf(`COPY (SELECT i AS id, i %% 50000 AS customer_id, (i * 7919) %% 1000 AS amount,
		['north','south','east','west'][(i %% 4) + 1] AS region FROM range(%d) t(i)) TO '%s' (FORMAT parquet)`, rows, path)
	if _, err := db.Exec(q); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPreviewOverhead compares Thund's preview of a dataset (run the
// dataset in the sandboxed session, then read a page of it through Arrow)
// with the same SQL on plain DuckDB in the same process (create the table,
// read the same page). The difference is Thund's overhead.
func BenchmarkPreviewOverhead(b *testing.B) {
	root := b.TempDir()
	os.MkdirAll(filepath.Join(root, "samples"), 0o755)
	parquet := filepath.Join(root, "samples", "orders.parquet")
	writeParquet(b, parquet, 1_000_000)
	os.WriteFile(filepath.Join(root, "by_bucket.sql"), []byte(previewQuery+"\n"), 0o644)
	ctx := context.Background()

	b.Run("thund", func(b *testing.B) {
		snap, err := analysis.Load(root, analysis.Options{})
		if err != nil {
			b.Fatal(err)
		}
		s, err := engine.Open(root, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			res, err := s.Run(ctx, snap.Pipeline, engine.RunOptions{})
			if err != nil || res.Failed() {
				b.Fatalf("run: %v", err)
			}
			p, err := preview.Dataset(ctx, s, "by_bucket", 0, 500)
			if err != nil || len(p.Rows) != 500 {
				b.Fatalf("preview: %v", err)
			}
		}
	})
	b.Run("duckdb", func(b *testing.B) {
		c, err := duckdb.NewConnector("", nil)
		if err != nil {
			b.Fatal(err)
		}
		db := sql.OpenDB(c)
		defer db.Close()
		if _, err := db.Exec(fmt.Sprintf("CREATE VIEW orders AS SELECT * FROM read_parquet('%s')", parquet)); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := db.Exec("CREATE OR REPLACE TABLE by_bucket AS " + previewQuery); err != nil {
				b.Fatal(err)
			}
			rows, err := db.Query("SELECT * FROM by_bucket LIMIT 500")
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for rows.Next() {
				var bucket, orders int64
				var region string
				var revenue float64
				if err := rows.Scan(&bucket, &region, &orders, &revenue); err != nil {
					b.Fatal(err)
				}
				n++
			}
			rows.Close()
			if n != 500 {
				b.Fatalf("%d rows", n)
			}
		}
	})
}

// writeBatches writes a micro-batch folder of n CSV files with rows rows
// each, using plain DuckDB.
func writeBatches(b *testing.B, dir string, n, rows int, header string, row func(file, i int) string) {
	b.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for f := 0; f < n; f++ {
		var sb strings.Builder
		sb.WriteString(header + "\n")
		for i := 0; i < rows; i++ {
			sb.WriteString(row(f, i))
			sb.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("batch-%04d.csv", f)), []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// runPipeline loads root and runs it b.N times in one session, checking
// the named dataset's row count.
func runPipeline(b *testing.B, root, dataset string, wantRows int64) {
	b.Helper()
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range snap.Diagnostics {
		if d.Severity == 1 {
			b.Fatalf("%s: %s", d.Loc.File, d.Message)
		}
	}
	s, err := engine.Open(root, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := s.Run(context.Background(), snap.Pipeline, engine.RunOptions{IncrementRows: 1})
		if err != nil || res.Failed() {
			b.Fatalf("run: %v %+v", err, res.Datasets)
		}
		if got := res.Datasets[dataset].Rows; got != wantRows {
			b.Fatalf("%s has %d rows, want %d", dataset, got, wantRows)
		}
	}
}

// BenchmarkStreaming100MicroBatches runs a streaming table over 100
// micro-batch files of 1,000 rows, one trigger per file, in append mode.
func BenchmarkStreaming100MicroBatches(b *testing.B) {
	root := b.TempDir()
	writeBatches(b, filepath.Join(root, "samples", "events"), 100, 1000, "id,user_id,amount", func(f, i int) string {
		return fmt.Sprintf("%d,%d,%d", f*1000+i, i%97, (f*i)%500)
	})
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	os.WriteFile(filepath.Join(root, "big_events.sql"), []byte("-- @kind: streaming_table\n-- @trigger: processing_time '1 second'\nSELECT id, user_id, amount * 2 AS doubled FROM STREAM(events) WHERE amount > 10\n"), 0o644)
	var want int64
	for f := 0; f < 100; f++ {
		for i := 0; i < 1000; i++ {
			if (f*i)%500 > 10 {
				want++
			}
		}
	}
	runPipeline(b, root, "big_events", want)
	b.ReportMetric(float64(100*1000*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkCDCMerge1M applies 1,000,000 changes (inserts, updates and
// deletes over 200,000 keys) as SCD 1 in one trigger.
func BenchmarkCDCMerge1M(b *testing.B) {
	root := b.TempDir()
	const keys, changes = 200_000, 1_000_000
	writeBatches(b, filepath.Join(root, "samples", "changes"), 1, changes, "id,name,seq,_change_type", func(_, i int) string {
		kind := "UPDATE_AFTER"
		switch {
		case i < keys:
			kind = "INSERT"
		case i%50 == 0:
			kind = "DELETE"
		}
		return fmt.Sprintf("%d,name-%d,%d,%s", i%keys, i, i, kind)
	})
	// The live keys: a key is deleted when its last change is a DELETE.
	last := make(map[int]string, keys)
	for i := 0; i < changes; i++ {
		kind := "UPDATE_AFTER"
		switch {
		case i < keys:
			kind = "INSERT"
		case i%50 == 0:
			kind = "DELETE"
		}
		last[i%keys] = kind
	}
	var live int64
	for _, k := range last {
		if k != "DELETE" {
			live++
		}
	}
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	os.WriteFile(filepath.Join(root, "customers.sql"), []byte("-- @kind: streaming_table\n-- @cdc: keys=(id) sequence_by=seq scd=1\nSELECT * FROM STREAM(changes)\n"), 0o644)
	runPipeline(b, root, "customers", live)
	b.ReportMetric(float64(changes*b.N)/b.Elapsed().Seconds(), "changes/s")
}

// BenchmarkRunGenerated runs a generated 200-dataset pipeline (width 50,
// 10,000 rows per source) once per iteration in one session: the engine's
// side of the full-run comparison with dbt in docs/benchmarks.md, in
// process, so that `-cpuprofile` shows where a run's time goes.
func BenchmarkRunGenerated(b *testing.B) {
	root := b.TempDir()
	if err := gen.Write(root, gen.Config{Datasets: 200, Width: 50, SampleRows: 10000, Seed: 2}); err != nil {
		b.Fatal(err)
	}
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := engine.Open(root, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := s.Run(context.Background(), snap.Pipeline, engine.RunOptions{})
		if err != nil || res.Failed() {
			b.Fatalf("run: %v", err)
		}
		if len(res.Datasets) != 200 {
			b.Fatalf("%d datasets ran, want 200", len(res.Datasets))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/200, "ms/dataset")
}
