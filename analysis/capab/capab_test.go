package capab

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

func pipelineWith(d *ir.Dataset, f *ir.Flow) *ir.Pipeline {
	f.Target = d.Name
	return &ir.Pipeline{Datasets: []*ir.Dataset{d}, Flows: []*ir.Flow{f}}
}

func TestCheckPerBackend(t *testing.T) {
	loc := ir.Loc{File: "x.sql", Start: 3, End: 10}
	p := pipelineWith(&ir.Dataset{Name: "x", Kind: ir.StreamingTable},
		&ir.Flow{Name: "x", Streaming: true, CDC: &ir.CDC{Keys: []string{"id"}, SequenceBy: "seq", SCD: 1, Loc: loc},
			Expectations: []ir.Expectation{{Name: "e", SQL: "a > 0", Action: ir.Warn, Loc: loc}}})
	got := map[string]int{}
	for _, d := range Check(p, ir.AllBackends) {
		got[string(d.Backend)+" "+strings.SplitN(d.Message, ",", 2)[0]]++
		if d.Code != ir.CodeUnsupported || d.Loc != loc {
			t.Errorf("diagnostic %+v", d)
		}
	}
	want := map[string]int{
		"spark-4.1 x uses expectations":      1,
		"spark-4.2 x uses expectations":      1,
		"spark-4.1 x uses CDC apply changes": 1,
		"spark-4.2 x uses CDC apply changes": 1,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// TestCDCRefusedOnEverySpark: no Spark backend runs an apply-changes flow
// through Thund yet (sdplower has no CDC lowering), so each gives an error
// at the @cdc pragma's value that names it and says how to run the flow
// natively. On spark-4.2 the matrix once said yes, and the flow was
// pushed as a plain append: Spark stored every change row.
func TestCDCRefusedOnEverySpark(t *testing.T) {
	loc := ir.Loc{File: "scd1.sql", Start: 30, End: 70}
	p := pipelineWith(&ir.Dataset{Name: "scd1", Kind: ir.StreamingTable},
		&ir.Flow{Name: "scd1", Streaming: true, CDC: &ir.CDC{Keys: []string{"id"}, SequenceBy: "seq", SCD: 1, Loc: loc}})
	var sparks []ir.Backend
	for _, b := range ir.AllBackends {
		if isSpark(b) {
			sparks = append(sparks, b)
		}
	}
	if len(sparks) < 2 {
		t.Fatalf("Spark backends %v: want spark-4.1 and spark-4.2 at least", sparks)
	}
	for _, b := range sparks {
		t.Run(string(b), func(t *testing.T) {
			if s := Matrix[CDCFlow][b]; s.OK || s.Severity != ir.Error {
				t.Fatalf("Matrix[CDCFlow][%s] = %+v, want an error", b, s)
			}
			ds := Check(p, []ir.Backend{b})
			if len(ds) != 1 {
				t.Fatalf("Check = %+v, want one error", ds)
			}
			d := ds[0]
			if d.Loc != loc || d.Severity != ir.Error || d.Code != ir.CodeUnsupported || d.Backend != b {
				t.Errorf("diagnostic %+v, want an unsupported-on-backend error for %s at the @cdc value", d, b)
			}
			for _, want := range []string{"scd1 uses CDC apply changes, which " + string(b) + " cannot run", "`-- @backends: native`", "`backends: [native]`"} {
				if !strings.Contains(d.Message, want) {
					t.Errorf("message %q lacks %q", d.Message, want)
				}
			}
			if errs := DatasetErrors(p, p.Datasets[0], b); len(errs) != 1 || errs[0].Message != d.Message {
				t.Errorf("DatasetErrors = %+v, want Check's error", errs)
			}
			if s := DatasetSupport(p, p.Datasets[0], []ir.Backend{b}); len(s[b]) != 1 {
				t.Errorf("DatasetSupport = %+v, want one reason for %s", s, b)
			}
		})
	}
	if ds := Check(p, []ir.Backend{ir.Native}); len(ds) != 0 {
		t.Errorf("native: %+v, want nothing (the engine applies changes)", ds)
	}
}

// TestMatrixNamesEveryBackend: a cell not listed counts as supported, so
// a backend added to ir.AllBackends must say, feature by feature, what it
// runs; else it would take CDC, expectations and the rest as supported.
func TestMatrixNamesEveryBackend(t *testing.T) {
	for f, cells := range Matrix {
		for _, b := range ir.AllBackends {
			if _, ok := cells[b]; !ok {
				t.Errorf("Matrix[%q] has no cell for %s: say whether %s runs it", f, b, b)
			}
		}
	}
}

func TestDatasetBackendsNarrowChecks(t *testing.T) {
	p := pipelineWith(&ir.Dataset{Name: "x", Kind: ir.MaterializedView, Backends: []ir.Backend{ir.Native}},
		&ir.Flow{Name: "x", Expectations: []ir.Expectation{{Name: "e", SQL: "a > 0"}}})
	if ds := Check(p, ir.AllBackends); len(ds) != 0 {
		t.Fatalf("a dataset restricted to native got Spark diagnostics: %+v", ds)
	}
	support := DatasetSupport(p, p.Datasets[0], ir.AllBackends)
	if len(support[ir.Spark41]) != 1 || len(support[ir.Native]) != 0 {
		t.Fatalf("support %+v", support)
	}
}

func TestStreamingRules(t *testing.T) {
	ref := func(name string, streaming bool, at int) ir.Ref {
		return ir.Ref{Name: name, Streaming: streaming, Loc: ir.Loc{File: "f.sql", Start: at, End: at + len(name)}}
	}
	cases := []struct {
		name string
		d    *ir.Dataset
		f    *ir.Flow
		want ir.Code
	}{
		{"aggregate without watermark", &ir.Dataset{Name: "a", Kind: ir.StreamingTable},
			&ir.Flow{Reads: []ir.Ref{ref("s", true, 1)}, Aggregates: true, OutputMode: ir.Append}, ir.CodeStreamAggNoWatermark},
		{"complete without aggregate", &ir.Dataset{Name: "a", Kind: ir.StreamingTable},
			&ir.Flow{Reads: []ir.Ref{ref("s", true, 1)}, OutputMode: ir.Complete}, ir.CodeStreamCompleteNoAgg},
		{"materialized view reads a stream", &ir.Dataset{Name: "a", Kind: ir.MaterializedView},
			&ir.Flow{Reads: []ir.Ref{ref("s", true, 1)}}, ir.CodeStreamInMV},
		{"streaming table without stream", &ir.Dataset{Name: "a", Kind: ir.StreamingTable},
			&ir.Flow{Reads: []ir.Ref{ref("s", false, 1)}}, ir.CodeStreamNoStream},
		{"stream-stream join", &ir.Dataset{Name: "a", Kind: ir.StreamingTable},
			&ir.Flow{Reads: []ir.Ref{ref("s", true, 1), ref("t", true, 9)}}, ir.CodeStreamJoinWatermark},
		{"trigger on batch", &ir.Dataset{Name: "a", Kind: ir.MaterializedView},
			&ir.Flow{Trigger: ir.Trigger{Kind: ir.Once, Loc: ir.Loc{File: "f.sql", Start: 1, End: 5}}}, ir.CodeStreamSettingBatch},
		{"cdc into a view", &ir.Dataset{Name: "a", Kind: ir.MaterializedView},
			&ir.Flow{Reads: []ir.Ref{ref("s", true, 1)}, CDC: &ir.CDC{}}, ir.CodeCDCNotStreaming},
	}
	for _, c := range cases {
		ds := Streaming(pipelineWith(c.d, c.f))
		if len(ds) != 1 || ds[0].Code != c.want {
			t.Errorf("%s: got %+v, want one %s", c.name, ds, c.want)
		}
	}
	ok := pipelineWith(&ir.Dataset{Name: "a", Kind: ir.StreamingTable},
		&ir.Flow{Reads: []ir.Ref{ref("s", true, 1)}, Aggregates: true, OutputMode: ir.Append, Watermark: &ir.Watermark{Column: "ts", Delay: "1 minute"}})
	if ds := Streaming(ok); len(ds) != 0 {
		t.Fatalf("a watermarked streaming aggregate got %+v", ds)
	}
}

func TestSparkRulesPersistentViewOnTemporaryView(t *testing.T) {
	read := ir.Loc{File: "v.sql", Start: 40, End: 47}
	p := &ir.Pipeline{
		Datasets: []*ir.Dataset{
			{Name: "base", Kind: ir.MaterializedView},
			{Name: "doubled", Kind: ir.TemporaryView},
			{Name: "shown", Kind: ir.View},
			{Name: "fine", Kind: ir.View},
		},
		Flows: []*ir.Flow{
			{Name: "base", Target: "base"},
			{Name: "doubled", Target: "doubled", Reads: []ir.Ref{{Name: "base"}}},
			{Name: "shown", Target: "shown", Reads: []ir.Ref{{Name: "doubled", Loc: read}}},
			{Name: "fine", Target: "fine", Reads: []ir.Ref{{Name: "base"}}},
		},
	}
	for _, b := range []ir.Backend{ir.Spark41, ir.Spark42} {
		fs := SparkRules(p, b)
		if len(fs) != 1 || fs[0].Dataset != "shown" || fs[0].Diagnostic.Loc != read || fs[0].Diagnostic.Backend != b ||
			fs[0].Diagnostic.Severity != ir.Error || fs[0].Diagnostic.Code != ir.CodeUnsupported ||
			!strings.Contains(fs[0].Diagnostic.Message, "INVALID_TEMP_OBJ_REFERENCE") {
			t.Fatalf("%s: findings %+v, want one error on shown at the read of doubled", b, fs)
		}
	}
	if fs := SparkRules(p, ir.Native); len(fs) != 0 {
		t.Errorf("native findings %+v, want none", fs)
	}
	// Check reports it, once per Spark backend, and DatasetSupport lists it.
	n := 0
	for _, d := range Check(p, ir.AllBackends) {
		if strings.Contains(d.Message, "INVALID_TEMP_OBJ_REFERENCE") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("Check gave %d persistent-view errors, want 2 (spark-4.1, spark-4.2)", n)
	}
	if s := DatasetSupport(p, p.Datasets[2], ir.AllBackends); len(s[ir.Spark41]) != 1 || len(s[ir.Native]) != 0 {
		t.Errorf("support of shown = %+v", s)
	}
	// Restricted to native, the view is not checked for Spark.
	p.Datasets[2].Backends = []ir.Backend{ir.Native}
	if fs := SparkRules(p, ir.Spark41); len(fs) != 0 {
		t.Errorf("findings for a native-only view: %+v", fs)
	}
}

func TestSparkRulesStreamsIntoFileTable(t *testing.T) {
	target := ir.Loc{File: "st.sql", Start: 100, End: 110}
	mk := func(format string) *ir.Pipeline {
		return &ir.Pipeline{
			Datasets: []*ir.Dataset{{Name: "all_events", Kind: ir.StreamingTable, Format: format}},
			Flows: []*ir.Flow{
				{Name: "all_events", Target: "all_events", Streaming: true},
				{Name: "b_events", Target: "all_events", Streaming: true, Append: true, TargetLoc: target},
				{Name: "backfill", Target: "all_events", Append: true},
			},
		}
	}
	for _, format := range []string{"", "parquet", "JSON"} {
		fs := SparkRules(mk(format), ir.Spark41)
		if len(fs) != 1 || fs[0].Dataset != "all_events" || fs[0].Diagnostic.Loc != target ||
			!strings.Contains(fs[0].Diagnostic.Message, "silently dropped") ||
			!strings.Contains(fs[0].Diagnostic.Message, "2 streaming flows (all_events and b_events") {
			t.Errorf("format %q: findings %+v, want one error at b_events' target", format, fs)
		}
	}
	dup := mk("")
	dup.Flows[1].Name = "all_events" // a duplicate flow, reported as such elsewhere
	if fs := SparkRules(dup, ir.Spark41); len(fs) != 0 {
		t.Errorf("a flow defined twice got findings %+v", fs)
	}
	if fs := SparkRules(mk("delta"), ir.Spark41); len(fs) != 0 {
		t.Errorf("a delta table got findings %+v (its log is per stream)", fs)
	}
	p := mk("")
	if errs := DatasetErrors(p, p.Datasets[0], ir.Spark41); len(errs) != 1 {
		t.Errorf("DatasetErrors = %+v, want the rule's error", errs)
	}
	if errs := DatasetErrors(p, p.Datasets[0], ir.Native); len(errs) != 0 {
		t.Errorf("DatasetErrors on native = %+v, want none", errs)
	}
}
