// Package gen writes synthetic pipelines for benchmarks: N datasets of
// realistic SQL (joins, aggregates, window functions, CTEs, UNION ALL) in
// layers, so the graph has a configurable width and depth, plus sample data
// of a configurable size for the source tables.
//
// One configuration gives three equivalent projects (WriteAll): the Thund
// pipeline (pragma form, CSV samples under samples/), a dbt project for
// dbt-duckdb (the same queries with {{ ref() }} and {{ source() }}, the
// sources read from the same CSV files, every model a table), and a Spark
// Declarative Pipelines project (spark-pipeline.yml and transformations/,
// SDP form, the samples as temporary views over VALUES so that a dry run on
// Spark resolves every source without files). The SQL is the same text in
// all three, only the references differ, so Thund and dbt compute the same
// tables; the queries keep row counts bounded however deep the graph is
// (joins go to a per-customer aggregate, the second branch of a UNION ALL is
// filtered) and are deterministic up to row order (window orders break ties
// on every column).
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
	// Datasets / Width. Each dataset reads one or two datasets of the
	// previous layer (or sources, in the first layer).
	Width int
	// SampleRows is the number of rows per source sample (0: no samples).
	SampleRows int
	// Seed makes the output reproducible.
	Seed int64
	// Threads is the dbt profile's thread count (default 4).
	Threads int
}

// Sources are the leaf tables every generated pipeline reads.
var Sources = []string{"orders", "customers", "products"}

// Name returns the name of dataset i.
func Name(i int) string { return fmt.Sprintf("ds_%05d", i) }

// File returns the path, relative to the root, of dataset i's file.
func File(i int) string {
	return fmt.Sprintf("models/layer_%03d/%s.sql", i/1000, Name(i))
}

// Depth returns the number of layers of c.
func (c Config) Depth() int {
	w := c.width()
	return (c.Datasets + w - 1) / w
}

func (c Config) width() int {
	if c.Width <= 0 {
		return 50
	}
	return c.Width
}

// plain writes references as bare names (Thund and SDP).
func plain(name string, _ bool) string { return name }

// dbtRef writes references as dbt Jinja: ref() for models, source() for
// the sample tables.
func dbtRef(name string, source bool) string {
	if source {
		return fmt.Sprintf("{{ source('raw', '%s') }}", name)
	}
	return fmt.Sprintf("{{ ref('%s') }}", name)
}

// bodies returns the query of every dataset, references written by ref.
// The random choices do not depend on ref, so every flavour of one
// configuration has the same graph and the same constants.
func bodies(c Config, ref func(name string, source bool) string) []string {
	rng := rand.New(rand.NewSource(c.Seed))
	out := make([]string, c.Datasets)
	for i := range out {
		out[i] = body(rng, i, c.width(), ref)
	}
	return out
}

// Texts returns every file of the Thund pipeline: relative path -> content.
func Texts(c Config) map[string]string {
	out := map[string]string{
		"thund.yaml":         "backends: [native, spark-4.1]\n",
		"spark-pipeline.yml": "name: generated\nstorage: file:///tmp/thund-generated\nlibraries:\n  - glob:\n      include: models/**\n",
	}
	for i, b := range bodies(c, plain) {
		out[File(i)] = fmt.Sprintf("-- Generated dataset %d (layer %d).\n-- @comment: synthetic benchmark dataset\n%s\n", i, i/c.width(), b)
	}
	if c.SampleRows > 0 {
		for name, text := range Samples(c.SampleRows, c.Seed) {
			out[name] = text
		}
	}
	return out
}

// Query returns the Thund SQL of dataset i (pragma header and body), the
// next one rng gives: its inputs come from the previous layer (or the
// sources, in the first layer).
func Query(rng *rand.Rand, i, width int) string {
	return fmt.Sprintf("-- Generated dataset %d (layer %d).\n-- @comment: synthetic benchmark dataset\n%s\n", i, i/width, body(rng, i, width, plain))
}

// body is the query of dataset i: its shape depends on i.
func body(rng *rand.Rand, i, width int, ref func(string, bool) string) string {
	layer := i / width
	input := func() string {
		if layer == 0 {
			return ref(Sources[rng.Intn(len(Sources))], true)
		}
		return ref(Name((layer-1)*width+rng.Intn(width)), false)
	}
	a, b := input(), input()
	switch i % 5 {
	case 0:
		// A fact joined to a per-customer dimension built from another input.
		return fmt.Sprintf(`SELECT a.id, a.customer_id, a.amount, b.region
FROM %s AS a
JOIN (SELECT customer_id, min(region) AS region FROM %s GROUP BY customer_id) AS b
  ON a.customer_id = b.customer_id
WHERE a.amount > %d`, a, b, rng.Intn(100))
	case 1:
		return fmt.Sprintf(`SELECT customer_id AS id, customer_id, region, sum(amount) AS amount, count(*) AS orders
FROM %s
GROUP BY customer_id, region`, a)
	case 2:
		return fmt.Sprintf(`SELECT id, customer_id, amount, region,
       rank() OVER (PARTITION BY region ORDER BY amount DESC) AS region_rank,
       sum(amount) OVER (PARTITION BY customer_id ORDER BY id, amount, region ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running
FROM %s`, a)
	case 3:
		return fmt.Sprintf(`WITH recent AS (
    SELECT id, customer_id, amount, region FROM %s WHERE amount >= %d
), big AS (
    SELECT customer_id, max(amount) AS top_amount FROM recent GROUP BY customer_id
)
SELECT r.id, r.customer_id, r.amount, r.region
FROM recent AS r JOIN big ON r.customer_id = big.customer_id
WHERE r.amount = big.top_amount`, a, rng.Intn(50))
	default:
		return fmt.Sprintf(`SELECT id, customer_id, amount, coalesce(region, 'unknown') AS region
FROM %s
UNION ALL
SELECT id, customer_id, amount * 2 AS amount, region
FROM %s
WHERE region IS NOT NULL AND amount > %d`, a, b, 800+rng.Intn(100))
	}
}

// sampleRows returns the rows of the three source tables (id, customer_id,
// amount, region).
func sampleRows(n int, seed int64) map[string][][4]any {
	rng := rand.New(rand.NewSource(seed))
	regions := []string{"north", "south", "east", "west"}
	out := map[string][][4]any{}
	for i := 0; i < n; i++ {
		out["orders"] = append(out["orders"], [4]any{i, rng.Intn(n/10 + 1), rng.Intn(1000), regions[rng.Intn(4)]})
		out["customers"] = append(out["customers"], [4]any{i, i, rng.Intn(1000), regions[rng.Intn(4)]})
		out["products"] = append(out["products"], [4]any{i, rng.Intn(n/10 + 1), rng.Intn(500), regions[rng.Intn(4)]})
	}
	return out
}

// Samples returns CSV samples for the source tables with n rows each:
// relative path -> content.
func Samples(n int, seed int64) map[string]string {
	out := map[string]string{}
	for table, rows := range sampleRows(n, seed) {
		var sb strings.Builder
		sb.WriteString("id,customer_id,amount,region\n")
		for _, r := range rows {
			fmt.Fprintf(&sb, "%d,%d,%d,%s\n", r[0], r[1], r[2], r[3])
		}
		out["samples/"+table+".csv"] = sb.String()
	}
	return out
}

// DBTTexts returns every file of the equivalent dbt project (dbt-core with
// dbt-duckdb): models under models/ as tables, the sources read from the
// CSV samples by dbt-duckdb's external_location, and a profile writing the
// database to target/generated.duckdb. Run dbt with the project folder as
// the working directory (the sample paths are relative to it) and
// --profiles-dir pointing at it.
func DBTTexts(c Config) map[string]string {
	threads := c.Threads
	if threads <= 0 {
		threads = 4
	}
	out := map[string]string{
		"dbt_project.yml": `name: generated
version: "1.0.0"
config-version: 2
profile: generated
model-paths: ["models"]
models:
  generated:
    +materialized: table
`,
		"profiles.yml": fmt.Sprintf(`generated:
  target: dev
  outputs:
    dev:
      type: duckdb
      path: target/generated.duckdb
      threads: %d
`, threads),
	}
	var src strings.Builder
	src.WriteString(`version: 2
sources:
  - name: raw
    meta:
      external_location: "read_csv_auto('samples/{name}.csv')"
    tables:
`)
	for _, s := range Sources {
		fmt.Fprintf(&src, "      - name: %s\n", s)
	}
	out["models/sources.yml"] = src.String()
	for i, b := range bodies(c, dbtRef) {
		out[File(i)] = fmt.Sprintf("-- Generated dataset %d (layer %d).\n%s\n", i, i/c.width(), b)
	}
	if c.SampleRows > 0 {
		for name, text := range Samples(c.SampleRows, c.Seed) {
			out[name] = text
		}
	}
	return out
}

// SDPTexts returns every file of the equivalent Spark Declarative
// Pipelines project: one CREATE MATERIALIZED VIEW per file under
// transformations/, and transformations/sources.sql defining the sample
// tables as temporary views over VALUES (c.SampleRows rows each, at least
// one), which Spark resolves without reading files.
func SDPTexts(c Config) map[string]string {
	out := map[string]string{
		"spark-pipeline.yml": "name: generated\nstorage: file:///tmp/thund-generated-sdp\nlibraries:\n  - glob:\n      include: transformations/**\n",
	}
	rows := sampleRows(max(c.SampleRows, 1), c.Seed)
	var src strings.Builder
	for _, s := range Sources {
		fmt.Fprintf(&src, "CREATE TEMPORARY VIEW %s AS SELECT * FROM (VALUES\n", s)
		for k, r := range rows[s] {
			sep := ","
			if k == len(rows[s])-1 {
				sep = ""
			}
			fmt.Fprintf(&src, "  (%d, %d, %d, '%s')%s\n", r[0], r[1], r[2], r[3], sep)
		}
		src.WriteString("  ) AS t(id, customer_id, amount, region);\n\n")
	}
	out["transformations/sources.sql"] = src.String()
	for i, b := range bodies(c, plain) {
		out[fmt.Sprintf("transformations/layer_%03d/%s.sql", i/1000, Name(i))] = fmt.Sprintf("-- Generated dataset %d (layer %d).\nCREATE MATERIALIZED VIEW %s AS\n%s;\n", i, i/c.width(), Name(i), b)
	}
	return out
}

// Write writes the Thund pipeline under root.
func Write(root string, c Config) error { return writeFiles(root, Texts(c)) }

// WriteDBT writes the equivalent dbt project under root.
func WriteDBT(root string, c Config) error { return writeFiles(root, DBTTexts(c)) }

// WriteSDP writes the equivalent SDP project under root.
func WriteSDP(root string, c Config) error { return writeFiles(root, SDPTexts(c)) }

// Projects are the folders WriteAll fills.
type Projects struct {
	Thund, DBT, SDP string
}

// WriteAll writes the three flavours of one configuration under root:
// root/thund, root/dbt and root/sdp.
func WriteAll(root string, c Config) (Projects, error) {
	p := Projects{Thund: filepath.Join(root, "thund"), DBT: filepath.Join(root, "dbt"), SDP: filepath.Join(root, "sdp")}
	if err := Write(p.Thund, c); err != nil {
		return p, err
	}
	if err := WriteDBT(p.DBT, c); err != nil {
		return p, err
	}
	return p, WriteSDP(p.SDP, c)
}

func writeFiles(root string, files map[string]string) error {
	made := map[string]bool{}
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if dir := filepath.Dir(p); !made[dir] {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("generate pipeline: %w", err)
			}
			made[dir] = true
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return fmt.Errorf("generate pipeline: %w", err)
		}
	}
	return nil
}
