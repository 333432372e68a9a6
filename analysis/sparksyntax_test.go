package analysis

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestSparkOnlySyntaxIsNotNative: a query only Spark's syntax reads runs
// natively through the translator, batch and streaming alike (engine/run.go
// runs every flow's translation), so DuckDB's parser is not asked about the
// text as written and no unsupported-on-backend finding is given for the
// native backend; DuckDB's parser really refuses the flagged texts, and
// reads the clean ones. A pipeline that targets Spark only is not told
// about DuckDB either.
func TestSparkOnlySyntaxIsNotNative(t *testing.T) {
	flagged := map[string]struct{ sql, at string }{
		"rlike":   {"SELECT id FROM src WHERE name RLIKE '^a'\n", "RLIKE"},
		"lateral": {"SELECT id, x FROM src LATERAL VIEW explode(tags) t AS x\n", "LATERAL"},
		"arr":     {"SELECT array(1, 2) AS a FROM src\n", "1, 2"},
		"div":     {"SELECT id DIV 2 AS h FROM src\n", "2 AS h"}, // DuckDB reads DIV as an alias
	}
	clean := map[string]string{
		"anti":   "SELECT * FROM src ANTI JOIN other USING (id)\n",
		"list":   "SELECT list_value(1, 2) AS a FROM src\n",
		"intdiv": "SELECT id // 2 AS h FROM src\n",
		"regex":  "SELECT id FROM src WHERE regexp_matches(name, '^a')\n",
	}
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("thund.yaml", "backends: [native, spark-4.1]\n")
	os.Mkdir(filepath.Join(root, "samples"), 0o755)
	write("samples/src.csv", "id,name,tags,ts\n")
	write("samples/other.csv", "id\n")
	// The same query as a batch dataset and as a streaming table.
	stream := func(q string) string { return strings.Replace(q, "FROM src", "FROM STREAM(src)", 1) }
	for name, c := range flagged {
		write(name+".sql", "CREATE MATERIALIZED VIEW "+name+" AS "+c.sql)
		write(name+"_st.sql", "CREATE STREAMING TABLE "+name+"_st AS "+stream(c.sql))
	}
	for name, text := range clean {
		write(name+".sql", text)
	}
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	duck, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	parserError := func(query string) bool {
		_, err := duck.Exec("EXPLAIN " + query)
		return err != nil && strings.Contains(err.Error(), "Parser Error")
	}
	unsupported := func(file string) []ir.Diagnostic {
		var out []ir.Diagnostic
		for _, d := range s.Diagnostics {
			if d.Loc.File == file && d.Code == ir.CodeUnsupported {
				out = append(out, d)
			}
		}
		return out
	}
	for name, c := range flagged {
		if ds := unsupported(name + ".sql"); len(ds) != 0 {
			t.Errorf("%s: the batch query runs through the translator, but: %+v", name, ds)
		}
		if ds := unsupported(name + "_st.sql"); len(ds) != 0 {
			t.Errorf("%s_st: the streaming query runs through the translator, but: %+v", name, ds)
		}
		if !strings.Contains(c.sql, c.at) {
			t.Errorf("%s: %q is not in %q", name, c.at, c.sql)
		}
		if !parserError(stream(c.sql)) && !parserError(c.sql) {
			t.Errorf("%s: DuckDB reads %q, so the error is wrong", name, c.sql)
		}
	}
	for name, text := range clean {
		if ds := unsupported(name + ".sql"); len(ds) != 0 {
			t.Errorf("%s: %+v, want none", name, ds)
		}
		if parserError(text) {
			t.Errorf("%s: DuckDB's parser refuses %q", name, text)
		}
	}

	// Spark only: nothing to say about DuckDB.
	spark := "backends: [spark-4.1]\n"
	s = s.Update([]Change{{Path: "thund.yaml", Text: &spark}})
	for name := range flagged {
		if ds := unsupported(name + "_st.sql"); len(ds) != 0 {
			t.Errorf("spark-4.1 only, %s: %+v", name, ds)
		}
	}
}

// TestDuckDBReservedNames: a table named with a word DuckDB reserves
// (pivot) parses with PostgreSQL but not DuckDB. Every query, batch or
// streaming, runs its translation (every name quoted), so none is refused
// natively and none is broken.
func TestDuckDBReservedNames(t *testing.T) {
	root := writeTree(t, map[string]string{
		"thund.yaml": "backends: [native]\n", "samples/pivot.csv": "id\n1\n",
		"a.sql": "SELECT * FROM STREAM(pivot)\n", "b.sql": "SELECT * FROM STREAM(`pivot`)\n",
		"c.sql": "SELECT * FROM pivot\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range s.Diagnostics {
		if d.Code == ir.CodeUnsupported {
			got = append(got, fmt.Sprintf("%s:%d %s", d.Loc.File, d.Loc.Start, d.Backend))
		}
	}
	if len(got) != 0 {
		t.Fatalf("unsupported-on-backend: %v, want none", got)
	}
	if b := s.Broken(); len(b) != 0 {
		t.Fatalf("broken: %v", b)
	}
	if len(s.Pipeline.Datasets) != 3 {
		t.Fatalf("datasets: %d, want 3", len(s.Pipeline.Datasets))
	}
}

// TestEmptyStreamFolder: a read of a stream whose samples/ folder exists
// but is empty says so, rather than asking for samples/NAME.csv.
func TestEmptyStreamFolder(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "samples", "events"), 0o755)
	os.WriteFile(filepath.Join(root, "a.sql"), []byte("SELECT * FROM STREAM(events)\n"), 0o644)
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Diagnostics) != 1 || !strings.Contains(s.Diagnostics[0].Message, "samples/events/ holds no micro-batch file") {
		t.Fatalf("diagnostics: %+v", s.Diagnostics)
	}
}

func TestHeadline(t *testing.T) {
	for msg, want := range map[string]string{
		`unknown kind "a: b"; did you mean table?`:                       `unknown kind "a: b"`,
		`trigger (processing_time: "-5 units") starts with "-5"; fix it`: `trigger (processing_time: "-5 units") starts with "-5"`,
		"no advice here": "no advice here",
	} {
		if got := headline(msg); got != want {
			t.Errorf("headline(%q) = %q, want %q", msg, got, want)
		}
	}
}

// TestCDCTargetShared: an append flow into an apply-changes target is an
// error at the append flow.
func TestCDCTargetShared(t *testing.T) {
	root := writeTree(t, map[string]string{
		"thund.yaml": "backends: [native]\n", "samples/changes/1.csv": "id,seq,_change_type\n1,1,INSERT\n", "samples/other/1.csv": "id,seq\n2,1\n",
		"tgt.sql":   "-- @kind: streaming_table\n-- @cdc: keys=(id) sequence_by=seq\nSELECT * FROM STREAM(changes)\n",
		"extra.sql": "-- @target: tgt\nSELECT id, seq FROM STREAM(other)\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range s.Diagnostics {
		got = append(got, d.Loc.File+" "+string(d.Code))
	}
	if strings.Join(got, ",") != "extra.sql cdc-target-shared" {
		t.Fatalf("diagnostics: %v", got)
	}
}

// TestMissingBoundSampleDoesNotFallBack: a thund.yaml binding to a missing
// file is an error and still binds, so the run says the file is missing
// instead of reading samples/customers.csv silently.
func TestMissingBoundSampleDoesNotFallBack(t *testing.T) {
	root := writeTree(t, map[string]string{
		"thund.yaml":            "backends: [native]\nsamples:\n  customers: samples/nope.csv\n",
		"samples/customers.csv": "id\n1\n",
		"a.sql":                 "SELECT * FROM customers\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if src := s.Pipeline.Source("customers"); src == nil || src.Sample != "samples/nope.csv" {
		t.Fatalf("customers bound to %+v", src)
	}
	if len(s.Diagnostics) != 1 || s.Diagnostics[0].Code != ir.CodeMissingSample {
		t.Fatalf("diagnostics: %+v", s.Diagnostics)
	}
}
