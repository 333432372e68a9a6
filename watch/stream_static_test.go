package watch

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/engine"
)

// TestStreamStaticJoinResumesInWatchMode is QA15 F18 in watch mode with a
// state folder: a new file for the batch side of a stream-static join
// re-runs the joining streaming table, which, as on Spark, takes no new
// rows from its stream (its streaming input got no file) and keeps the
// rows it wrote, with no "stream state discarded" message. A new file for
// the stream then joins with the batch side as it is now.
func TestStreamStaticJoinResumesInWatchMode(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		mustDo(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		writeAtomic(t, filepath.Join(dir, name), text)
	}
	write("thund.yaml", "backends: [native]\n")
	write("pipeline.sql", `CREATE STREAMING TABLE bronze_sales AS SELECT id, cid FROM STREAM(sales);
CREATE STREAMING TABLE bronze_customers AS SELECT id, name FROM STREAM(customers);
CREATE MATERIALIZED VIEW dim AS SELECT id, max(name) AS name FROM bronze_customers GROUP BY id;
CREATE STREAMING TABLE silver_sales AS SELECT s.id, c.name FROM STREAM(bronze_sales) s LEFT JOIN dim c ON s.cid = c.id;
`)
	write("samples/customers/part-00000.csv", "id,name\n1,ann\n2,bob\n")
	write("samples/sales/part-00000.csv", "id,cid\n10,1\n11,2\n")
	w := startWatch(t, dir, Options{Previews: []string{"silver_sales"}, Limit: 100, Debounce: 250 * time.Millisecond,
		Engine: engine.Options{StateDir: filepath.Join(t.TempDir(), "state")}})
	discarded := func(step string, objs []object) {
		t.Helper()
		for _, o := range objs {
			if strings.Contains(string(o.raw), "discarded") {
				t.Errorf("%s: %s", step, o.raw)
			}
		}
	}
	r, objs := w.run()
	if r.Completed != 4 {
		t.Fatalf("startup completed %d datasets, want 4; stderr: %s", r.Completed, w.stderr.String())
	}
	discarded("startup", objs)
	first := sorted(w.previews["silver_sales"])
	if len(first) != 2 || !strings.Contains(strings.Join(first, " "), `"ann"`) {
		t.Fatalf("startup: silver_sales previews %v", first)
	}

	// Batch side only (the customers change dim): silver_sales re-runs,
	// with nothing new from its stream.
	write("samples/customers/part-00001.csv", "id,name\n1,zed\n2,zoe\n")
	r, objs = w.run()
	expectRun(t, "customers file", r, []string{"samples/customers/part-00001.csv"}, []string{"bronze_customers", "dim", "silver_sales"})
	discarded("customers file", objs)
	if got := sorted(w.previews["silver_sales"]); !reflect.DeepEqual(got, first) {
		t.Errorf("after a file for the batch side, silver_sales is %v, want its rows kept: %v", got, first)
	}

	// A new sale joins with the batch side as it is now.
	write("samples/sales/part-00001.csv", "id,cid\n12,1\n")
	r, objs = w.run()
	expectRun(t, "sales file", r, []string{"samples/sales/part-00001.csv"}, []string{"bronze_sales", "silver_sales"})
	discarded("sales file", objs)
	got := sorted(w.previews["silver_sales"])
	if len(got) != 3 || !reflect.DeepEqual(got[:2], first) || !strings.Contains(got[2], `"zed"`) {
		t.Errorf("after a sales file, silver_sales is %v, want %v and sale 12 joined with zed", got, first)
	}
}
