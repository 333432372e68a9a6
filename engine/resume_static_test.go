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

// TestStreamOfCommittedRowsReadInPartReplays: when the streaming table a
// flow streams is not written by the run and the flow consumed only some
// of the micro-batch files behind its committed rows (a run wrote the
// streaming table but not the reader), the reader cannot tell the rows it
// missed apart, so it replays, saying which table it consumed in part.
func TestStreamOfCommittedRowsReadInPartReplays(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "samples", "sales"), 0o755)
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "pipeline.sql"), `CREATE STREAMING TABLE bronze_sales AS SELECT id FROM STREAM(sales);
CREATE MATERIALIZED VIEW dim AS SELECT 1 AS one;
CREATE STREAMING TABLE silver_sales AS SELECT s.id, d.one FROM STREAM(bronze_sales) s CROSS JOIN dim d;
`)
	writeTestFile(t, filepath.Join(root, "samples", "sales", "b-001.csv"), "id\n1\n")
	s, err := Open(root, Options{StateDir: t.TempDir(), Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := func(only ...string) *Result {
		t.Helper()
		snap, err := analysis.Load(root, analysis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opts := RunOptions{}
		if len(only) > 0 {
			opts.Only = map[string]bool{}
			for _, k := range only {
				opts.Only[k] = true
			}
		}
		res, err := s.Run(context.Background(), snap.Pipeline, opts)
		if err != nil || res.Failed() {
			t.Fatalf("run %v: %v %+v", only, err, res)
		}
		return res
	}
	run()
	writeTestFile(t, filepath.Join(root, "samples", "sales", "b-002.csv"), "id\n2\n")
	run("bronze_sales")
	res := run("dim", "silver_sales")
	var msgs []string
	for _, e := range res.Events {
		if e.Dataset == "silver_sales" && strings.Contains(e.Message, "discarded") {
			msgs = append(msgs, e.Message)
		}
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "the committed rows of bronze_sales were consumed only in part (1 of their 2 micro-batch files)") {
		t.Errorf("silver_sales said %q, want one replay naming bronze_sales consumed in part", msgs)
	}
	if rows := res.Datasets["silver_sales"].Rows; rows != 2 {
		t.Errorf("after the replay silver_sales holds %d rows, want 2", rows)
	}
}
