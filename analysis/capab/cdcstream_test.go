package capab

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// cdcReader is a pipeline where customers is kept by the apply-changes
// flow customers_cdc and customer_feed's flow, written in file with the
// query sql, reads customers (as a stream when streaming) at the
// returned location.
func cdcReader(file, sql string, streaming bool) (*ir.Pipeline, ir.Loc) {
	at := strings.Index(sql, "customers")
	read := ir.Loc{File: file, Start: 100 + at, End: 100 + at + len("customers")}
	cdcLoc := ir.Loc{File: "cdc.sql", Start: 30, End: 50}
	p := &ir.Pipeline{
		Datasets: []*ir.Dataset{
			{Name: "customers", Kind: ir.StreamingTable},
			{Name: "customer_feed", Kind: ir.StreamingTable, Loc: ir.Loc{File: file}},
		},
		Flows: []*ir.Flow{
			{Name: "customers_cdc", Target: "customers", Streaming: true, Reads: []ir.Ref{{Name: "customer_changes", Streaming: true}},
				CDC: &ir.CDC{Keys: []string{"customer_id"}, SequenceBy: "seq", SCD: 1, Loc: cdcLoc}},
			{Name: "customer_feed", Target: "customer_feed", Streaming: streaming, SQL: sql, Dialect: "spark",
				QueryLoc: ir.Loc{File: file, Start: 100, End: 100 + len(sql)},
				Reads:    []ir.Ref{{Name: "customers", Streaming: streaming, Loc: read}}},
		},
	}
	return p, read
}

// findingsAt are the diagnostics of Check(p, backends) at loc, by backend.
func findingsAt(p *ir.Pipeline, backends []ir.Backend, loc ir.Loc) map[ir.Backend][]ir.Diagnostic {
	out := map[ir.Backend][]ir.Diagnostic{}
	for _, d := range Check(p, backends) {
		if d.Loc == loc {
			out[d.Backend] = append(out[d.Backend], d)
		}
	}
	return out
}

// TestCDCTargetReadAsStream: a STREAM read of an apply-changes target is
// refused natively (the native engine would give the target's current
// rows) and on databricks (the stream fails at the first update or
// delete), each at the STREAM reference with its fix; Spark refuses the
// CDC flow itself, so it says nothing more at the read.
func TestCDCTargetReadAsStream(t *testing.T) {
	p, read := cdcReader("feed.sql", "SELECT customer_id, city FROM STREAM(customers)", true)
	got := findingsAt(p, ir.AllBackends, read)
	native, dbx := got[ir.Native], got[ir.Databricks]
	if len(native) != 1 || native[0].Severity != ir.Error || native[0].Code != ir.CodeUnsupported ||
		!strings.Contains(native[0].Message, "customer_feed reads customers as a stream, and customers is the target of the apply-changes flow customers_cdc") ||
		!strings.Contains(native[0].Message, "the native engine refuses the read") ||
		!strings.Contains(native[0].Message, "CREATE MATERIALIZED VIEW customer_feed AS SELECT ... FROM customers") {
		t.Errorf("native: %+v", native)
	}
	if len(dbx) != 1 || dbx[0].Severity != ir.Error ||
		!strings.Contains(dbx[0].Message, "fails at the first commit of customers_cdc that updates or deletes a row") ||
		!strings.Contains(dbx[0].Message, "FROM STREAM(customers) WITH ('skipChangeCommits' = 'true')") {
		t.Errorf("databricks: %+v", dbx)
	}
	for _, b := range []ir.Backend{ir.Spark41, ir.Spark42, ir.Spark43} {
		if len(got[b]) != 0 {
			t.Errorf("%s: %+v, want nothing at the read (the CDC flow is refused there)", b, got[b])
		}
	}
	// The hover's and the graph's reasons say it too.
	sup := DatasetSupport(p, p.Datasets[1], []ir.Backend{ir.Native, ir.Databricks})
	if len(sup[ir.Native]) != 1 || !strings.Contains(sup[ir.Native][0], "apply-changes flow customers_cdc") || len(sup[ir.Databricks]) != 1 {
		t.Errorf("DatasetSupport: %v", sup)
	}
}

// TestCDCTargetReadSkippingChangeCommits: with skipChangeCommits the read
// runs on databricks (it leaves the change commits out), and the native
// engine, which cannot tell commits apart, still refuses it.
func TestCDCTargetReadSkippingChangeCommits(t *testing.T) {
	for _, opt := range []string{"'skipChangeCommits' = 'true'", "skipChangeCommits = true", "'skipchangecommits' = \"TRUE\""} {
		p, read := cdcReader("feed.sql", "SELECT customer_id FROM STREAM(customers) WITH ("+opt+")", true)
		got := findingsAt(p, []ir.Backend{ir.Native, ir.Databricks}, read)
		if len(got[ir.Databricks]) != 0 {
			t.Errorf("%s: databricks %+v, want none", opt, got[ir.Databricks])
		}
		if n := got[ir.Native]; len(n) != 1 || !strings.Contains(n[0].Message, "skips change commits") {
			t.Errorf("%s: native %+v", opt, n)
		}
	}
	// Another option, or skipChangeCommits false, skips nothing.
	for _, opt := range []string{"'skipChangeCommits' = 'false'", "'maxFilesPerTrigger' = '1'"} {
		p, read := cdcReader("feed.sql", "SELECT customer_id FROM STREAM(customers) WITH ("+opt+")", true)
		if got := findingsAt(p, []ir.Backend{ir.Databricks}, read); len(got[ir.Databricks]) != 1 {
			t.Errorf("%s: databricks %+v, want the error", opt, got[ir.Databricks])
		}
	}
}

// TestCDCTargetReadInFull: a batch read of a CDC target (a materialized
// view's) is what every backend computes alike: nothing to say.
func TestCDCTargetReadInFull(t *testing.T) {
	p, read := cdcReader("feed.sql", "SELECT customer_id FROM customers", false)
	p.Datasets[1].Kind = ir.MaterializedView
	if got := findingsAt(p, ir.AllBackends, read); len(got) != 0 {
		t.Errorf("%+v", got)
	}
}

// TestCDCTargetReadAsStreamInPython: in a .py file the fixes are
// Python's: spark.read.table in a @dp.materialized_view, or the reader
// option.
func TestCDCTargetReadAsStreamInPython(t *testing.T) {
	p, read := cdcReader("feed.py", "SELECT customer_id FROM STREAM(customers)", true)
	got := findingsAt(p, []ir.Backend{ir.Native, ir.Databricks}, read)
	for _, b := range []ir.Backend{ir.Native, ir.Databricks} {
		if len(got[b]) != 1 || !strings.Contains(got[b][0].Message, `spark.read.table("customers"), in a @dp.materialized_view`) ||
			strings.Contains(got[b][0].Message, "CREATE MATERIALIZED VIEW") {
			t.Errorf("%s: %+v", b, got[b])
		}
	}
	if d := got[ir.Databricks]; len(d) == 1 && !strings.Contains(d[0].Message, `spark.readStream.option("skipChangeCommits", "true").table("customers")`) {
		t.Errorf("databricks: %s", d[0].Message)
	}
}

// TestCDCTargetReadOpaquePython: a Python body Thund does not state in
// SQL (spark.readStream.option("skipChangeCommits", "true").table(...)
// is one: its options are not in the IR) is not judged.
func TestCDCTargetReadOpaquePython(t *testing.T) {
	p, read := cdcReader("feed.py", "", true)
	if got := findingsAt(p, ir.AllBackends, read); len(got) != 0 {
		t.Errorf("%+v", got)
	}
}
