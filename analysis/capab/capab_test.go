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
