package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
)

// TestStreamStaticJoinKeepsItsCheckpoint is QA15 F18: a streaming flow
// joining a stream of a streaming table with a batch table, where only the
// batch side changes. As on Spark, the stream resumes from its checkpoint:
// the streaming table got no new rows, so the flow emits none, and the rows
// it wrote before keep what the batch side held then. A new micro-batch
// later joins with the batch side as it is now. The same holds when the
// stream is read through a view. Checked on Spark 4.1.4 (pyspark's
// pipelines CLI, three runs of a Python twin of this pipeline: a stream
// of CSV files into bronze_sales, a materialized view of a customers CSV,
// the left join into silver_sales): after the customers file changed the
// table still held (10, ann), (11, bob); after a sales file, also (12, zed).
func TestStreamStaticJoinKeepsItsCheckpoint(t *testing.T) {
	root := t.TempDir()
	sales := filepath.Join(root, "samples", "sales")
	os.MkdirAll(sales, 0o755)
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("thund.yaml", "backends: [native]\n")
	write("pipeline.sql", `CREATE STREAMING TABLE bronze_sales AS SELECT id, cid FROM STREAM(sales);
CREATE MATERIALIZED VIEW dim AS SELECT id, name FROM customers;
CREATE STREAMING TABLE silver_sales AS SELECT s.id, c.name FROM STREAM(bronze_sales) s LEFT JOIN dim c ON s.cid = c.id;
CREATE VIEW sales_view AS SELECT id, cid FROM bronze_sales;
CREATE STREAMING TABLE via_view AS SELECT s.id, c.name FROM STREAM(sales_view) s LEFT JOIN dim c ON s.cid = c.id;
`)
	write("samples/customers.csv", "id,name\n1,ann\n2,bob\n")
	write("samples/sales/b-001.csv", "id,cid\n10,1\n11,2\n")

	s, err := Open(root, Options{StateDir: t.TempDir(), Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	// run runs what watch mode would after a change to the named source:
	// the downstream cone of the dataset reading it (everything at the first
	// run).
	run := func(changed string) *Result {
		t.Helper()
		snap, err := analysis.Load(root, analysis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opts := RunOptions{}
		if changed != "" {
			opts.Only = snap.Pipeline.Graph().Downstream(changed)
		}
		var events []string
		opts.OnEvent = func(e Event) {
			if strings.Contains(e.Message, "discarded") {
				events = append(events, e.Dataset+": "+e.Message)
			}
		}
		res, err := s.Run(ctx, snap.Pipeline, opts)
		if err != nil || res.Failed() {
			t.Fatalf("run after %q: %v %+v %+v", changed, err, res.Datasets["silver_sales"], res.Datasets["via_view"])
		}
		if len(events) > 0 {
			t.Errorf("run after %q discarded stream state: %s", changed, strings.Join(events, "; "))
		}
		return res
	}
	rows := func(name string) string {
		t.Helper()
		conn, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_, got, err := queryRows(ctx, conn, "SELECT id, coalesce(name, 'NULL') FROM "+s.RelationSQL(name)+" ORDER BY ALL")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range got {
			out = append(out, fmt.Sprint(r[0])+"="+fmt.Sprint(r[1]))
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}

	run("")
	const first = "10=ann 11=bob"
	for _, name := range []string{"silver_sales", "via_view"} {
		if got := rows(name); got != first {
			t.Fatalf("first run: %s holds %s, want %s", name, got, first)
		}
	}

	write("samples/customers.csv", "id,name\n1,ann2\n2,bob2\n3,cy\n")
	res := run("dim")
	if _, ran := res.Datasets["bronze_sales"]; ran {
		t.Fatalf("bronze_sales ran, but only the batch side changed")
	}
	for _, name := range []string{"silver_sales", "via_view"} {
		if got := rows(name); got != first {
			t.Errorf("after the batch side changed, %s holds %s, want %s (no new micro-batch, old rows kept)", name, got, first)
		}
		if dr := res.Datasets[name]; dr == nil || dr.Phase != Completed {
			t.Errorf("%s did not complete: %+v", name, dr)
		}
	}
	for _, inc := range res.Increments {
		if inc.Arrived != 0 {
			t.Errorf("after the batch side changed, %s consumed %d rows (%v)", inc.Dataset, inc.Arrived, inc.Files)
		}
	}

	write("samples/sales/b-002.csv", "id,cid\n12,3\n13,1\n")
	run("bronze_sales")
	const second = "10=ann 11=bob 12=cy 13=ann2"
	for _, name := range []string{"silver_sales", "via_view"} {
		if got := rows(name); got != second {
			t.Errorf("after a new micro-batch, %s holds %s, want %s", name, got, second)
		}
	}
}
