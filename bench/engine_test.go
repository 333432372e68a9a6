package bench

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/thund-dev/thund/analysis"
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
