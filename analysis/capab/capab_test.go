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
		"spark-4.3 x uses expectations":      1,
		"spark-4.1 x uses CDC apply changes": 1,
		// x is stored as parquet, which cannot merge.
		"spark-4.2 x applies changes (@cdc)": 1,
		"spark-4.3 x applies changes (@cdc)": 1,
		// Databricks reads the pragmas as comments.
		"databricks x uses expectations":      1,
		"databricks x uses CDC apply changes": 1,
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

// TestCDCOnSpark: spark-4.1 refuses every apply-changes flow at the
// @cdc value, naming itself and how to run the flow natively; spark-4.2
// refuses SCD 2, and SCD 1 for its format: no format here merges on 4.2
// (Delta and parquet are refused by the server) nor on 4.3, so the
// message names the format and why none can be chosen; with a format
// listed as merging, the flow runs and another format is refused with
// the way to choose one. On spark-4.2 the matrix once said yes with no lowering, and
// the flow was pushed as a plain append: Spark stored every change row.
func TestCDCOnSpark(t *testing.T) {
	loc := ir.Loc{File: "scd.sql", Start: 30, End: 70}
	pipeline := func(scd int, format string) *ir.Pipeline {
		return pipelineWith(&ir.Dataset{Name: "scd", Kind: ir.StreamingTable, Format: format},
			&ir.Flow{Name: "scd", Streaming: true, CDC: &ir.CDC{Keys: []string{"id"}, SequenceBy: "seq", SCD: scd, Loc: loc}})
	}
	for _, c := range []struct {
		b      ir.Backend
		scd    int
		format string
		want   []string // "" when it runs
	}{
		{ir.Spark41, 1, "delta", []string{"scd uses CDC apply changes, which spark-4.1 cannot run", "`-- @backends: native`", "`backends: [native]`"}},
		{ir.Spark41, 2, "delta", []string{"scd uses CDC apply changes, which spark-4.1 cannot run"}},
		{ir.Spark42, 1, "delta", []string{"its table format, delta, does not", "AUTOCDC_TARGET_DOES_NOT_SUPPORT_MERGE", "`-- @backends: native`"}},
		{ir.Spark42, 1, "", []string{"its table format, parquet, the default, does not"}},
		{ir.Spark42, 2, "delta", []string{"scd uses CDC apply changes as SCD type 2, which spark-4.2 cannot run", "Unsupported AutoCDC SCD type", "`scd=1`"}},
		{ir.Spark43, 2, "delta", []string{"its table format, delta, does not", "no release of Delta Lake or Iceberg runs on Spark 4.3 yet"}},
		{ir.Spark43, 1, "", []string{"its table format, parquet, the default, does not"}},
	} {
		p := pipeline(c.scd, c.format)
		ds := Check(p, []ir.Backend{c.b})
		if c.want == nil {
			if len(ds) != 0 {
				t.Errorf("%s SCD %d %q: %+v, want it to run", c.b, c.scd, c.format, ds)
			}
			continue
		}
		if len(ds) != 1 {
			t.Errorf("%s SCD %d %q: Check = %+v, want one error", c.b, c.scd, c.format, ds)
			continue
		}
		d := ds[0]
		if d.Loc != loc || d.Severity != ir.Error || d.Code != ir.CodeUnsupported || d.Backend != c.b {
			t.Errorf("%s: diagnostic %+v, want an unsupported-on-backend error at the @cdc value", c.b, d)
		}
		for _, want := range c.want {
			if !strings.Contains(d.Message, want) {
				t.Errorf("%s SCD %d %q: message %q lacks %q", c.b, c.scd, c.format, d.Message, want)
			}
		}
		if errs := DatasetErrors(p, p.Datasets[0], c.b); len(errs) != 1 || errs[0].Message != d.Message {
			t.Errorf("%s: DatasetErrors = %+v, want Check's error", c.b, errs)
		}
		if s := DatasetSupport(p, p.Datasets[0], []ir.Backend{c.b}); len(s[c.b]) != 1 {
			t.Errorf("%s: DatasetSupport = %+v, want one reason", c.b, s)
		}
	}
	if ds := Check(pipeline(2, ""), []ir.Backend{ir.Native}); len(ds) != 0 {
		t.Errorf("native: %+v, want nothing (the engine applies changes)", ds)
	}
	// A format listed as merging runs; another is refused with the way
	// to choose it.
	saved := MergeFormats[ir.Spark42]
	MergeFormats[ir.Spark42] = []string{"delta", "iceberg"}
	defer func() { MergeFormats[ir.Spark42] = saved }()
	if ds := Check(pipeline(1, "DELTA"), []ir.Backend{ir.Spark42}); len(ds) != 0 {
		t.Errorf("SCD 1 into delta, listed as merging: %+v", ds)
	}
	ds := Check(pipeline(1, "orc"), []ir.Backend{ir.Spark42})
	if len(ds) != 1 || !strings.Contains(ds[0].Message, "its table format, orc, does not: choose one that merges: `-- @format: delta` (or iceberg)") {
		t.Errorf("SCD 1 into orc: %+v", ds)
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
		// Only the true finding: a flow that reads no stream aggregates
		// no stream either, so no watermark is asked for.
		{"streaming table aggregating no stream", &ir.Dataset{Name: "a", Kind: ir.StreamingTable},
			&ir.Flow{Reads: []ir.Ref{ref("s", false, 1)}, Aggregates: true, OutputMode: ir.Append}, ir.CodeStreamNoStream},
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
	// In a .py file the fix is the DataFrame's withWatermark, not a
	// pragma or a SQL clause.
	py := pipelineWith(&ir.Dataset{Name: "a", Kind: ir.StreamingTable},
		&ir.Flow{Reads: []ir.Ref{ref("s", true, 1)}, Aggregates: true, OutputMode: ir.Append, QueryLoc: ir.Loc{File: "a.py"}})
	if ds := Streaming(py); len(ds) != 1 || !strings.Contains(ds[0].Message, ".withWatermark(") || strings.Contains(ds[0].Message, "@watermark") {
		t.Fatalf("a Python aggregate without a watermark got %+v", ds)
	}
	// A query with a syntax error reads what it reads past the error:
	// its syntax error is the finding, no "reads no stream" beside it.
	broken := pipelineWith(&ir.Dataset{Name: "a", Kind: ir.StreamingTable},
		&ir.Flow{SQL: "SELECT id FROM STREAM(b) WHERE id = = 1"})
	if ds := Streaming(broken); len(ds) != 0 {
		t.Fatalf("a streaming table whose query does not parse got %+v", ds)
	}
	parsed := pipelineWith(&ir.Dataset{Name: "a", Kind: ir.StreamingTable},
		&ir.Flow{SQL: "SELECT 1 AS id", Dialect: "postgres"})
	if ds := Streaming(parsed); len(ds) != 1 || ds[0].Code != ir.CodeStreamNoStream {
		t.Fatalf("a parsed streaming table reading nothing got %+v", ds)
	}
	// A temporary view over a stream is a streaming view (Spark 4.1.4 runs
	// it; Databricks feeds CDC flows so), whatever reads it.
	view := pipelineWith(&ir.Dataset{Name: "v", Kind: ir.TemporaryView}, &ir.Flow{Reads: []ir.Ref{ref("s", true, 1)}})
	if ds := Streaming(view); len(ds) != 0 {
		t.Fatalf("a temporary view reading a stream got %+v", ds)
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
	for _, b := range ir.SparkBackends {
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
	if n != len(ir.SparkBackends) {
		t.Errorf("Check gave %d persistent-view errors, want %d (one per Spark backend)", n, len(ir.SparkBackends))
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
