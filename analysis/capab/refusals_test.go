package capab

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestSparkRefusesStreamingTableWithoutFlow: Spark 4.1.4's dry run fails
// a streaming table no flow writes with PIPELINE_DATASET_WITHOUT_FLOW;
// native and databricks are not told so, and a flow into it clears it.
func TestSparkRefusesStreamingTableWithoutFlow(t *testing.T) {
	name := ir.Loc{File: "a.sql", Start: 23, End: 24}
	st := &ir.Dataset{Name: "t", Kind: ir.StreamingTable, NameLoc: name}
	p := &ir.Pipeline{Datasets: []*ir.Dataset{st}}
	for _, b := range []ir.Backend{ir.Spark41, ir.Spark42, ir.Spark43} {
		got := Check(p, []ir.Backend{b})
		if len(got) != 1 || got[0].Loc != name || got[0].Backend != b || got[0].Severity != ir.Error ||
			!strings.Contains(got[0].Message, "PIPELINE_DATASET_WITHOUT_FLOW") {
			t.Errorf("%s: %+v, want one PIPELINE_DATASET_WITHOUT_FLOW error at the name", b, got)
		}
		if errs := DatasetErrors(p, st, b); len(errs) != 1 {
			t.Errorf("%s: DatasetErrors %+v, want the refusal", b, errs)
		}
	}
	for _, b := range []ir.Backend{ir.Native, ir.Databricks} {
		if got := Check(p, []ir.Backend{b}); len(got) != 0 {
			t.Errorf("%s: %+v, want nothing", b, got)
		}
	}
	fed := &ir.Pipeline{Datasets: []*ir.Dataset{st}, Flows: []*ir.Flow{{Name: "f", Target: "t", TargetLoc: name}}}
	if got := Check(fed, []ir.Backend{ir.Spark41}); len(got) != 0 {
		t.Errorf("with a flow: %+v, want nothing", got)
	}
}

// TestSparkRefusesMultipartFlowName: Spark 4.1.4's dry run fails CREATE
// FLOW a.b.f (and b.f) with MULTIPART_FLOW_NAME_NOT_SUPPORTED; a
// dataset's own flow, named after a qualified dataset, is no such flow.
func TestSparkRefusesMultipartFlowName(t *testing.T) {
	into := ir.Loc{File: "a.sql", Start: 40, End: 41}
	st := &ir.Dataset{Name: "t", Kind: ir.StreamingTable}
	p := &ir.Pipeline{Datasets: []*ir.Dataset{st}, Flows: []*ir.Flow{{Name: "b.f", Target: "t", TargetLoc: into}}}
	for _, b := range []ir.Backend{ir.Spark41, ir.Spark43} {
		got := Check(p, []ir.Backend{b})
		if len(got) != 1 || got[0].Loc != into || !strings.Contains(got[0].Message, "MULTIPART_FLOW_NAME_NOT_SUPPORTED") ||
			!strings.Contains(got[0].Message, "CREATE FLOW f AS INSERT INTO t") {
			t.Errorf("%s: %+v, want one MULTIPART_FLOW_NAME_NOT_SUPPORTED error at INSERT INTO's target", b, got)
		}
	}
	if got := Check(p, []ir.Backend{ir.Databricks}); len(got) != 0 {
		t.Errorf("databricks: %+v, want nothing", got)
	}
	own := &ir.Pipeline{
		Datasets: []*ir.Dataset{{Name: "db.m", Kind: ir.MaterializedView}},
		Flows:    []*ir.Flow{{Name: "db.m", Target: "db.m"}},
	}
	if got := Check(own, []ir.Backend{ir.Spark41}); len(got) != 0 {
		t.Errorf("a qualified dataset's own flow: %+v, want nothing", got)
	}
}

// TestSparkRefusesOnlyTemporaryViews: Spark 4.1.4's dry run fails a
// pipeline with no table or persistent view with RUN_EMPTY_PIPELINE.
func TestSparkRefusesOnlyTemporaryViews(t *testing.T) {
	name := ir.Loc{File: "a.sql", Start: 22, End: 23}
	v := &ir.Dataset{Name: "v", Kind: ir.TemporaryView, NameLoc: name}
	p := &ir.Pipeline{Datasets: []*ir.Dataset{v}, Flows: []*ir.Flow{{Name: "v", Target: "v"}}}
	got := Check(p, []ir.Backend{ir.Spark41})
	if len(got) != 1 || got[0].Loc != name || !strings.Contains(got[0].Message, "RUN_EMPTY_PIPELINE") {
		t.Errorf("%+v, want one RUN_EMPTY_PIPELINE error at the view", got)
	}
	if got := Check(p, []ir.Backend{ir.Native, ir.Databricks}); len(got) != 0 {
		t.Errorf("native, databricks: %+v, want nothing", got)
	}
	m := &ir.Dataset{Name: "m", Kind: ir.MaterializedView}
	p = &ir.Pipeline{Datasets: []*ir.Dataset{v, m}, Flows: []*ir.Flow{{Name: "v", Target: "v"}, {Name: "m", Target: "m"}}}
	if got := Check(p, []ir.Backend{ir.Spark41}); len(got) != 0 {
		t.Errorf("with a materialized view: %+v, want nothing", got)
	}
	// a materialized view kept off Spark leaves only the view there
	m.Backends = []ir.Backend{ir.Native}
	if got := Check(p, []ir.Backend{ir.Spark41}); len(got) != 1 {
		t.Errorf("the materialized view native only: %+v, want the refusal", got)
	}
}

// TestSpark43RefusesTwoCDCFlowsIntoOneTarget: Spark 4.3 takes exactly one
// flow into an AUTO CDC target (AUTOCDC_MULTIPLE_FLOWS_TO_TARGET), at the
// second flow's INTO; Databricks and the native engine take several CDC
// flows, and Spark 4.1 refuses each CDC flow itself, not their number.
func TestSpark43RefusesTwoCDCFlowsIntoOneTarget(t *testing.T) {
	into1 := ir.Loc{File: "a.sql", Start: 30, End: 33}
	into2 := ir.Loc{File: "a.sql", Start: 90, End: 93}
	st := &ir.Dataset{Name: "t", Kind: ir.StreamingTable, Format: "delta"}
	p := &ir.Pipeline{Datasets: []*ir.Dataset{st}, Flows: []*ir.Flow{
		{Name: "f1", Target: "t", TargetLoc: into1, Streaming: true, CDC: &ir.CDC{Keys: []string{"id"}, SequenceBy: "seq", Loc: into1}},
		{Name: "f2", Target: "t", TargetLoc: into2, Streaming: true, CDC: &ir.CDC{Keys: []string{"id"}, SequenceBy: "seq", Loc: into2}},
	}}
	var multi []ir.Diagnostic
	for _, d := range Check(p, []ir.Backend{ir.Spark43}) {
		if strings.Contains(d.Message, "AUTOCDC_MULTIPLE_FLOWS_TO_TARGET") {
			multi = append(multi, d)
		}
	}
	if len(multi) != 1 || multi[0].Loc != into2 || multi[0].Backend != ir.Spark43 || !strings.Contains(multi[0].Message, "(f1, f2)") ||
		!strings.Contains(multi[0].Message, "target databricks") {
		t.Errorf("spark-4.3: %+v, want one AUTOCDC_MULTIPLE_FLOWS_TO_TARGET error at f2's INTO naming both flows and databricks", multi)
	}
	for _, b := range []ir.Backend{ir.Native, ir.Databricks, ir.Spark41} {
		for _, d := range Check(p, []ir.Backend{b}) {
			if strings.Contains(d.Message, "AUTOCDC_MULTIPLE_FLOWS_TO_TARGET") || strings.Contains(d.Message, "write log") {
				t.Errorf("%s: %+v, want no multiple-flows error", b, d)
			}
		}
	}
	one := &ir.Pipeline{Datasets: p.Datasets, Flows: p.Flows[:1]}
	for _, d := range Check(one, []ir.Backend{ir.Spark43}) {
		if strings.Contains(d.Message, "AUTOCDC_MULTIPLE_FLOWS_TO_TARGET") {
			t.Errorf("one flow: %+v", d)
		}
	}
}
