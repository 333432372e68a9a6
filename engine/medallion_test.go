package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/ir"
)

// medallionFirst is what testdata/medallion_names holds after one run
// over its samples (two micro-batches per feed), by dataset: orders is
// bronze's (the spec's database), the others are qualified.
var medallionFirst = map[string]string{
	"orders": "order_id,customer_id,amount,status\n" +
		"1,1,10.5,shipped\n2,2,20,pending\n3,1,0,cancelled\n4,3,7.25,shipped\n5,2,12,shipped\n",
	"silver.orders": "order_id,customer_id,amount,status\n" +
		"1,1,10.5,SHIPPED\n2,2,20,PENDING\n4,3,7.25,SHIPPED\n5,2,12,SHIPPED\n",
	"gold.orders": "order_id,customer_id,amount\n1,1,10.5\n4,3,7.25\n5,2,12\n",
	"customers": "customer_id,name,city,op,seq\n" +
		"1,Ana,Lisbon,INSERT,1\n2,Ben,Braga,UPDATE,4\n2,Ben,Porto,INSERT,2\n3,Cy,Faro,DELETE,5\n3,Cy,Faro,INSERT,3\n",
	// AUTO CDC, SCD 1: Cy is deleted, Ben moved.
	"silver.customers":     "customer_id,name,city,seq\n1,Ana,Lisbon,1\n2,Ben,Braga,4\n",
	"gold.customer_orders": "customer_id,name,city,shipped,total\n1,Ana,Lisbon,1,10.5\n2,Ben,Braga,1,12\n",
	"gold.all_orders": "order_id,amount,origin\n" +
		"1,10.5,current\n2,20,current\n4,7.25,current\n5,12,current\n100,5,legacy\n101,6.5,legacy\n",
}

// medallionSecond is what it holds once a third micro-batch of each feed
// arrived and a second run resumed.
var medallionSecond = map[string]string{
	"orders": "order_id,customer_id,amount,status\n" +
		"1,1,10.5,shipped\n2,2,20,pending\n3,1,0,cancelled\n4,3,7.25,shipped\n5,2,12,shipped\n6,3,4,shipped\n7,1,0,pending\n",
	"silver.orders": "order_id,customer_id,amount,status\n" +
		"1,1,10.5,SHIPPED\n2,2,20,PENDING\n4,3,7.25,SHIPPED\n5,2,12,SHIPPED\n6,3,4,SHIPPED\n",
	"gold.orders": "order_id,customer_id,amount\n1,1,10.5\n4,3,7.25\n5,2,12\n6,3,4\n",
	"customers": "customer_id,name,city,op,seq\n" +
		"1,Ana,Lisbon,INSERT,1\n1,Ana,Porto,UPDATE,7\n2,Ben,Braga,UPDATE,4\n2,Ben,Porto,INSERT,2\n3,Cy,Faro,DELETE,5\n3,Cy,Faro,INSERT,3\n3,Cy,Faro,INSERT,6\n",
	"silver.customers":     "customer_id,name,city,seq\n1,Ana,Porto,7\n2,Ben,Braga,4\n3,Cy,Faro,6\n",
	"gold.customer_orders": "customer_id,name,city,shipped,total\n1,Ana,Porto,1,10.5\n2,Ben,Braga,1,12\n3,Cy,Faro,2,11.25\n",
	"gold.all_orders": "order_id,amount,origin\n" +
		"1,10.5,current\n2,20,current\n4,7.25,current\n5,12,current\n6,4,current\n100,5,legacy\n101,6.5,legacy\n",
}

// TestMedallionNames runs testdata/medallion_names as `thund-watch --once
// --state DIR` does, twice: bronze, silver and gold streaming tables named
// orders, an AUTO CDC target silver.customers fed by the bronze table
// customers, two sources ending in orders (landing.orders streamed into
// the bronze table orders, legacy.orders read by a materialized view) and
// materialized views over them each hold their own rows, under their
// own durable outputs. The second run, after a third micro-batch of each
// feed arrived, resumes every stream from its state: it reads only the
// new files, and the outputs are those of one run over all of them.
func TestMedallionNames(t *testing.T) {
	root := copyPipeline(t, filepath.Join("..", "testdata", "medallion_names"), func(_, text string) string { return text })
	state := t.TempDir()

	res := medallionRun(t, root, state, medallionFirst)
	if got := consumedFiles(res); strings.Join(got, " ") != "001.csv 002.csv" {
		t.Errorf("first run read %v, want the two micro-batches of each feed", got)
	}
	for name, rows := range map[string]int64{"orders": 5, "silver.orders": 4, "gold.orders": 3, "customers": 5, "silver.customers": 2, "gold.customer_orders": 2, "gold.all_orders": 6} {
		medallionManifest(t, state, name, rows)
	}

	writeTestFile(t, filepath.Join(root, "samples", "landing.orders", "003.csv"), "order_id,customer_id,amount,status\n6,3,4,shipped\n7,1,0,pending\n")
	writeTestFile(t, filepath.Join(root, "samples", "landing.customer_changes", "003.csv"), "customer_id,name,city,op,seq\n3,Cy,Faro,INSERT,6\n1,Ana,Porto,UPDATE,7\n")
	res = medallionRun(t, root, state, medallionSecond)
	if got := consumedFiles(res); strings.Join(got, " ") != "003.csv" {
		t.Errorf("the resumed run read %v, want the new micro-batches only", got)
	}
	for _, e := range res.Events {
		if strings.Contains(e.Message, "stream state discarded") {
			t.Errorf("%s replayed instead of resuming: %s", e.Dataset, e.Message)
		}
	}
	for name, rows := range map[string]int64{"orders": 7, "silver.orders": 5, "gold.orders": 4, "customers": 7, "silver.customers": 3, "gold.customer_orders": 3, "gold.all_orders": 7} {
		medallionManifest(t, state, name, rows)
	}
}

// medallionRun opens a session on root keeping its state in state,
// restores, runs the whole pipeline as --once does and checks that every
// dataset completed with want's rows, read where a preview reads them.
// (--once also skips what analysis blocks: analysis/assemble.go still
// refuses a streamed source ending like a dataset, which the engine now
// keeps apart, so the run here is the engine's alone.)
func medallionRun(t *testing.T, root, state string, want map[string]string) *Result {
	t.Helper()
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(snap.Root, Options{StateDir: state, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := s.Restore(ctx, snap.Pipeline); err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(ctx, snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Order) != len(want) {
		t.Errorf("%d datasets ran, want %d", len(res.Order), len(want))
	}
	for _, k := range res.Order {
		if d := res.Datasets[k]; d.Phase != Completed {
			t.Fatalf("%s %s: %s", d.Name, d.Phase, d.Error)
		}
	}
	for name, rows := range want {
		if got := datasetRows(t, s, name); got != rows {
			t.Errorf("%s holds\n%swant\n%s", name, got, rows)
		}
	}
	return res
}

// consumedFiles lists the base names of the micro-batch files a run's
// increments read, without repeats, sorted.
func consumedFiles(res *Result) []string {
	var files []string
	for _, inc := range res.Increments {
		for _, f := range inc.Files {
			files = append(files, filepath.Base(f))
		}
	}
	return sortedUnique(files)
}

// medallionManifest checks that dataset name's durable outputs are its
// own folder (by its qualified name) and hold rows rows.
func medallionManifest(t *testing.T, state, name string, rows int64) {
	t.Helper()
	dir := filepath.Join(state, outputsFolder, outputDirName(name))
	m, err := readManifest(dir)
	if err != nil || m == nil {
		t.Fatalf("%s: no manifest in %s (%v)", name, dir, err)
	}
	if ir.NameKey(m.Dataset) != ir.NameKey(name) || m.Rows() != rows {
		t.Errorf("%s: outputs of %s hold %d rows, want %d", dir, m.Dataset, m.Rows(), rows)
	}
}

// TestMedallionRelations: the relations testdata/medallion_names's names
// are kept under natively, and what each way of writing a table
// reference reads: every name ending in orders or customers has its own
// (bronze's, unqualified in the spec's database, keeps the last part),
// a name no other shares keeps its last part, and a reference reads the
// relation of what it resolves to, also under USE SCHEMA.
func TestMedallionRelations(t *testing.T) {
	snap, err := analysis.Load(filepath.Join("..", "testdata", "medallion_names"), analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := relationsOf(snap.Pipeline)
	for name, want := range map[string]string{
		"orders": "orders", "silver.orders": "silver.orders", "gold.orders": "gold.orders",
		"landing.orders": "landing.orders", "legacy.orders": "legacy.orders",
		"customers": "customers", "silver.customers": "silver.customers",
		"gold.customer_orders": "customer_orders", "landing.customer_changes": "customer_changes",
	} {
		if got := r.of(name); got != want {
			t.Errorf("%s is kept as %q, want %q", name, got, want)
		}
	}
	for _, c := range []struct {
		ref  string
		use  ir.Scope
		want string
	}{
		{"bronze.orders", ir.Scope{}, "orders"},
		{"spark_catalog.bronze.orders", ir.Scope{}, "orders"},
		{"orders", ir.Scope{}, "orders"},
		{"spark_catalog.silver.orders", ir.Scope{}, "silver.orders"},
		{"landing.orders", ir.Scope{}, "landing.orders"},
		{"orders", ir.Scope{Schema: "silver"}, "silver.orders"},
		{"gold.orders", ir.Scope{Schema: "silver"}, "gold.orders"},
		{"customer_orders", ir.Scope{Schema: "gold"}, "customer_orders"},
	} {
		if got := r.read(strings.Split(c.ref, "."), c.use); got != c.want {
			t.Errorf("%s under %+v reads %q, want %q", c.ref, c.use, got, c.want)
		}
	}
}

// TestCatalogReadsRelationsApart: a column catalog outside a run given a
// pipeline's relations (as a Describer may) describes silver.orders and
// the bronze table orders each from its own relation; without them, by
// the last part.
func TestCatalogReadsRelationsApart(t *testing.T) {
	snap, s := load(t, filepath.Join("..", "testdata", "medallion_names"))
	ctx := context.Background()
	conn, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, stmt := range []string{`CREATE TEMP TABLE "orders" (bronze_col INTEGER)`, `CREATE TEMP TABLE "silver.orders" (silver_col VARCHAR)`} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	columns := func(c *duckCatalog, ref string) string {
		cols, ok := c.Table(strings.Split(ref, "."))
		if !ok || len(cols) != 1 {
			return "none"
		}
		return cols[0].Name + " " + cols[0].Type
	}
	apart := &duckCatalog{ctx: ctx, conn: conn, cols: map[string][]sema.Column{}, rels: relationsOf(snap.Pipeline)}
	if got := columns(apart, "silver.orders"); got != "silver_col string" {
		t.Errorf("silver.orders is described as %q", got)
	}
	if got := columns(apart, "bronze.orders"); got != "bronze_col int" {
		t.Errorf("bronze.orders is described as %q", got)
	}
	plain := &duckCatalog{ctx: ctx, conn: conn, cols: map[string][]sema.Column{}}
	if got := columns(plain, "silver.orders"); got != "bronze_col int" {
		t.Errorf("without relations, silver.orders is described as %q, want the last part's columns", got)
	}
}
