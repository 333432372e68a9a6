// Package gen writes synthetic pipelines for benchmarks: N datasets of
// realistic SQL (joins, aggregates, window functions, CTEs) in layers, so
// the graph has a configurable width and depth, plus sample data of a
// configurable size for the source tables.
package gen

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
)

// Config shapes a generated pipeline.
type Config struct {
	// Datasets is the number of .sql files (one dataset each).
	Datasets int
	// Width is the number of datasets per layer; depth follows as
	// Datasets / Width. Each dataset reads one or two datasets of earlier
	// layers (or sources, in the first layer).
	Width int
	// SampleRows is the number of rows per source sample (0: no samples).
	SampleRows int
	// Seed makes the output reproducible.
	Seed int64
}

// Sources are the leaf tables every generated pipeline reads.
var Sources = []string{"orders", "customers", "products"}

// Name returns the name of dataset i.
func Name(i int) string { return fmt.Sprintf("ds_%05d", i) }

// File returns the path, relative to the root, of dataset i's file.
func File(i int) string {
	return fmt.Sprintf("models/layer_%03d/%s.sql", i/1000, Name(i))
}

// Texts returns every file of the pipeline: relative path -> content.
func Texts(c Config) map[string]string {
	if c.Width <= 0 {
		c.Width = 50
	}
	rng := rand.New(rand.NewSource(c.Seed))
	out := map[string]string{
		"thund.yaml":         "backends: [native, spark-4.1]\n",
		"spark-pipeline.yml": "name: generated\nstorage: file:///tmp/thund-generated\nlibraries:\n  - glob:\n      include: models/**\n",
	}
	for i := 0; i < c.Datasets; i++ {
		out[File(i)] = Query(rng, i, c.Width)
	}
	if c.SampleRows > 0 {
		for name, text := range Samples(c.SampleRows, c.Seed) {
			out[name] = text
		}
	}
	return out
}

// Query returns the SQL of dataset i: which shape depends on i, its inputs
// come from the previous layer (or the sources, in the first layer).
func Query(rng *rand.Rand, i, width int) string {
	layer := i / width
	input := func() string {
		if layer == 0 {
			return Sources[rng.Intn(len(Sources))]
		}
		return Name((layer-1)*width + rng.Intn(width))
	}
	a, b := input(), input()
	var body string
	switch i % 5 {
	case 0:
		body = fmt.Sprintf(`SELECT a.id, a.customer_id, a.amount, b.region
FROM %s AS a
JOIN %s AS b ON a.customer_id = b.customer_id
WHERE a.amount > %d`, a, b, rng.Intn(100))
	case 1:
		body = fmt.Sprintf(`SELECT customer_id AS id, customer_id, region, sum(amount) AS amount, count(*) AS orders
FROM %s
GROUP BY customer_id, region`, a)
	case 2:
		body = fmt.Sprintf(`SELECT id, customer_id, amount, region,
       rank() OVER (PARTITION BY region ORDER BY amount DESC) AS region_rank,
       sum(amount) OVER (PARTITION BY customer_id ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running
FROM %s`, a)
	case 3:
		body = fmt.Sprintf(`WITH recent AS (
    SELECT id, customer_id, amount, region FROM %s WHERE amount >= %d
), big AS (
    SELECT customer_id, max(amount) AS top_amount FROM recent GROUP BY customer_id
)
SELECT r.id, r.customer_id, r.amount, r.region
FROM recent AS r JOIN big USING (customer_id)
WHERE r.amount = big.top_amount`, a, rng.Intn(50))
	default:
		body = fmt.Sprintf(`SELECT id, customer_id, amount, coalesce(region, 'unknown') AS region
FROM %s
UNION ALL
SELECT id, customer_id, amount * 2 AS amount, region
FROM %s
WHERE region IS NOT NULL`, a, b)
	}
	return fmt.Sprintf("-- Generated dataset %d (layer %d).\n-- @comment: synthetic benchmark dataset\n%s\n", i, layer, body)
}

// Samples returns CSV samples for the source tables with n rows each.
func Samples(n int, seed int64) map[string]string {
	rng := rand.New(rand.NewSource(seed))
	regions := []string{"north", "south", "east", "west"}
	var orders, customers, products strings.Builder
	orders.WriteString("id,customer_id,amount,region\n")
	customers.WriteString("id,customer_id,amount,region\n")
	products.WriteString("id,customer_id,amount,region\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&orders, "%d,%d,%d,%s\n", i, rng.Intn(n/10+1), rng.Intn(1000), regions[rng.Intn(4)])
		fmt.Fprintf(&customers, "%d,%d,%d,%s\n", i, i, rng.Intn(1000), regions[rng.Intn(4)])
		fmt.Fprintf(&products, "%d,%d,%d,%s\n", i, rng.Intn(n/10+1), rng.Intn(500), regions[rng.Intn(4)])
	}
	return map[string]string{
		"samples/orders.csv":    orders.String(),
		"samples/customers.csv": customers.String(),
		"samples/products.csv":  products.String(),
	}
}

// Write writes the pipeline under root.
func Write(root string, c Config) error {
	for rel, text := range Texts(c) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("generate pipeline: %w", err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return fmt.Errorf("generate pipeline: %w", err)
		}
	}
	return nil
}
