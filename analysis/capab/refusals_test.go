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
