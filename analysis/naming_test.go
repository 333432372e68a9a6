package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestDidYouMeanNeverDownstream: an unknown table in dataset X is never
// answered with X itself or a dataset that reads X (directly or through
// others): reading it would be a cycle. A dataset upstream is still
// suggested.
func TestDidYouMeanNeverDownstream(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		file  string
		want  string // "" for no suggestion
	}{
		{"direct reader", map[string]string{
			"orders.sql":  "CREATE MATERIALIZED VIEW orders AS SELECT * FROM orderz;\n",
			"orders2.sql": "CREATE MATERIALIZED VIEW orders2 AS SELECT * FROM orders;\n",
		}, "orders.sql", ""},
		{"itself", map[string]string{
			"orders.sql": "CREATE MATERIALIZED VIEW orders_clean AS SELECT * FROM orders_clen;\n",
		}, "orders.sql", ""},
		{"transitive reader", map[string]string{
			"a.sql": "CREATE MATERIALIZED VIEW base AS SELECT * FROM sales_dayly;\n",
			"b.sql": "CREATE MATERIALIZED VIEW mid AS SELECT * FROM base;\n",
			"c.sql": "CREATE MATERIALIZED VIEW sales_daily AS SELECT * FROM mid;\n",
		}, "a.sql", ""},
		{"downstream skipped, upstream kept", map[string]string{
			"a.sql": "CREATE MATERIALIZED VIEW sales_dailyy AS SELECT 1 AS x;\n",
			"b.sql": "CREATE MATERIALIZED VIEW base AS SELECT * FROM sales_daly JOIN sales_dailyy;\n",
			"c.sql": "CREATE MATERIALIZED VIEW sales_daily AS SELECT * FROM base;\n",
		}, "b.sql", "sales_dailyy"},
		{"unrelated kept", map[string]string{
			"a.sql": "CREATE MATERIALIZED VIEW base AS SELECT * FROM custmers;\n",
			"b.sql": "CREATE MATERIALIZED VIEW customers AS SELECT 1 AS id;\n",
		}, "a.sql", "customers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.files["thund.yaml"] = "backends: [native]\n"
			s, err := Load(writeTree(t, tc.files), Options{})
			if err != nil {
				t.Fatal(err)
			}
			d := findDiag(s, ir.CodeUnknownRef, tc.file)
			if d == nil {
				t.Fatalf("no unknown-reference finding in %s: %v", tc.file, diagStrings(s))
			}
			has := strings.Contains(d.Message, "did you mean")
			switch {
			case tc.want == "" && has:
				t.Errorf("suggests a dataset that would close a cycle: %s", d.Message)
			case tc.want != "" && !strings.Contains(d.Message, "did you mean "+tc.want+"?"):
				t.Errorf("want the suggestion %s: %s", tc.want, d.Message)
			}
		})
	}
}

// customersRaw reads the files at /landing/customers, whose last segment
// is the name of the dataset customers (which reads customers_raw).
const customersRaw = "CREATE OR REFRESH MATERIALIZED VIEW customers_raw AS SELECT name FROM read_files('/landing/customers', format => 'csv');\n"

// TestFileReadNamedLikeDataset: a read of files whose path ends in a
// dataset's name is no read of that dataset (no false cycle); its
// source gets a name no dataset has, in the reference and in the texts
// the engine runs, and still takes samples/<segment> by convention; the
// column check reads the sample's header, not the dataset.
func TestFileReadNamedLikeDataset(t *testing.T) {
	files := map[string]string{
		"thund.yaml": "backends: [native, databricks]\n",
		"raw.sql":    customersRaw,
		"gold.sql":   "CREATE OR REFRESH MATERIALIZED VIEW customers AS SELECT name AS customer FROM customers_raw;\n",
	}
	s, err := Load(writeTree(t, files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.Diagnostics {
		if d.Code == ir.CodeCycle {
			t.Fatalf("false cycle: %s", d.Message)
		}
	}
	d := findDiag(s, ir.CodeMissingSample, "raw.sql")
	if d == nil || !strings.Contains(d.Message, "samples/customers.csv") || !strings.Contains(d.Message, "customers is a dataset") {
		t.Fatalf("the missing sample should name samples/customers.csv and say why the read is renamed: %v", diagStrings(s))
	}
	f := s.Pipeline.FlowsInto("customers_raw")[0]
	if len(f.Reads) != 1 || f.Reads[0].Name != "customers_files" || s.Pipeline.Resolve(f.Reads[0].Name) != nil {
		t.Fatalf("reads %+v, want the source customers_files", f.Reads)
	}
	if !strings.Contains(f.SQL, "FROM customers_files ") || !strings.Contains(f.Normalized, "FROM customers_files ") ||
		len(f.SQL) != f.QueryLoc.End-f.QueryLoc.Start || len(f.Normalized) != len(f.SQL) {
		t.Fatalf("texts not renamed in place:\n%q\n%q", f.SQL, f.Normalized)
	}
	text, _ := s.Text("raw.sql")
	at := s.At("raw.sql", strings.Index(text, "read_files")+2)
	if at.Ref == nil || at.Dataset != nil || at.Ref.Name != "customers_files" {
		t.Fatalf("At on the call: %+v", at)
	}

	// The segment's sample binds; the column check reads its header
	// (name is there, nam is not), not the dataset customers (customer).
	files["samples/customers.csv"] = "id,name\n1,ann\n"
	files["raw.sql"] = strings.Replace(customersRaw, "SELECT name", "SELECT name, nam", 1)
	s, err = Load(writeTree(t, files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if src := s.Pipeline.Source("customers_files"); src == nil || src.Sample != "samples/customers.csv" {
		t.Fatalf("source %+v, want the sample samples/customers.csv", src)
	}
	cols := columnDiags(s)
	if len(cols) != 1 || !strings.Contains(cols[0].Message, "nam") || strings.Contains(cols[0].Message, "`name`") {
		t.Fatalf("column findings %s, want only nam unknown", diagLines(cols))
	}

	// Every dataset name is taken: the next free name.
	files["other.sql"] = "CREATE MATERIALIZED VIEW customers_files AS SELECT 1 AS id;\n"
	s, err = Load(writeTree(t, files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Pipeline.FlowsInto("customers_raw")[0].Reads; r[0].Name != "customers_files_2" {
		t.Fatalf("reads %+v, want customers_files_2", r)
	}
}

// TestFileReadRenameIncremental: the name of a file read follows the
// other files' datasets as they come and go (the file itself unchanged),
// and an updated snapshot answers as a fresh load.
func TestFileReadRenameIncremental(t *testing.T) {
	files := map[string]string{
		"thund.yaml":            "backends: [native]\n",
		"samples/customers.csv": "id,name\n1,ann\n",
		"raw.sql":               customersRaw,
	}
	snap, err := Load(writeTree(t, files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	gold := "CREATE MATERIALIZED VIEW customers AS SELECT name, nme FROM customers_raw;\n"
	steps := []struct {
		path, text string
		want       string
	}{
		{"gold.sql", gold, "customers_files"},
		{"gold.sql", gold + "\n", "customers_files"},
		{"other.sql", "CREATE MATERIALIZED VIEW customers_files AS SELECT 1 AS id;\n", "customers_files_2"},
		{"other.sql", "", "customers_files"},
		{"gold.sql", "", "customers"},
		{"gold.sql", gold, "customers_files"},
	}
	for i, st := range steps {
		if st.text == "" {
			delete(files, st.path)
			snap = snap.Update([]Change{{Path: st.path}})
		} else {
			files[st.path] = st.text
			text := st.text
			snap = snap.Update([]Change{{Path: st.path, Text: &text}})
		}
		fresh, err := Load(writeTree(t, files), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := diagStrings(snap), diagStrings(fresh); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("step %d: updated snapshot differs from a fresh load\nupdated:\n%s\nfresh:\n%s", i, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if got, want := indexStrings(snap), indexStrings(fresh); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("step %d: index\n%s\nfresh:\n%s", i, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		for _, d := range snap.Diagnostics {
			if d.Code == ir.CodeCycle {
				t.Fatalf("step %d: false cycle: %s", i, d.Message)
			}
		}
		if r := snap.Pipeline.FlowsInto("customers_raw")[0].Reads; r[0].Name != st.want {
			t.Fatalf("step %d: reads %+v, want %s", i, r, st.want)
		}
		if fl := snap.FlowsIn("raw.sql"); len(fl) != 1 || fl[0].Reads[0].Name != st.want {
			t.Fatalf("step %d: FlowsIn gives %+v", i, fl[0].Reads)
		}
	}
}
