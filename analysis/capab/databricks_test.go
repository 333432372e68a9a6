package capab

import (
	"sort"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestDatabricksConstructs: each Databricks construct is an error on
// every Spark backend, naming the construct, the backend and what to
// write there, and fine natively and on databricks.
func TestDatabricksConstructs(t *testing.T) {
	at := func(s int) ir.Loc { return ir.Loc{File: "a.sql", Start: s, End: s + 2} }
	for i, f := range []Feature{SynOrRefresh, SynPrivate, SynTemporary, SynLive, SynLiveRef, SynExpect, SynReadFiles, SynCloudFiles} {
		p := pipelineWith(&ir.Dataset{Name: "a", Kind: ir.MaterializedView, Syntax: []ir.Construct{{Name: string(f), Loc: at(i)}}},
			&ir.Flow{Name: "a"})
		var got []string
		for _, d := range Check(p, ir.AllBackends) {
			if d.Loc != at(i) || d.Severity != ir.Error || d.Code != ir.CodeUnsupported {
				t.Errorf("%s: %+v", f, d)
			}
			if !strings.Contains(d.Message, "a uses "+string(f)+", which "+string(d.Backend)+" cannot run") ||
				!strings.Contains(d.Message, "databricks backend") && f != SynExpect {
				t.Errorf("%s: message %q", f, d.Message)
			}
			got = append(got, string(d.Backend))
		}
		sort.Strings(got)
		if strings.Join(got, " ") != "spark-4.1 spark-4.2 spark-4.3" {
			t.Errorf("%s refused on %v, want every Spark backend only", f, got)
		}
	}
}

// TestDatabricksCDC: APPLY CHANGES INTO is one error per Spark backend
// (4.3 is told to write AUTO CDC), never also the CDC flow's; AUTO CDC
// runs on 4.3 and databricks; on databricks a SQL CDC flow runs and an
// @cdc pragma does not (Databricks reads it as a comment).
func TestDatabricksCDC(t *testing.T) {
	loc := ir.Loc{File: "c.sql", Start: 40, End: 58}
	flow := func(form Feature, scd int) *ir.Pipeline {
		f := &ir.Flow{Name: "c", Streaming: true, CDC: &ir.CDC{Keys: []string{"id"}, SequenceBy: "seq", SCD: scd, Loc: loc}}
		if form != "" {
			f.Syntax = []ir.Construct{{Name: string(form), Loc: loc}}
		}
		return pipelineWith(&ir.Dataset{Name: "c", Kind: ir.StreamingTable, Format: "delta"}, f)
	}
	messages := func(p *ir.Pipeline, b ir.Backend) []string {
		var out []string
		for _, d := range Check(p, []ir.Backend{b}) {
			out = append(out, d.Message)
		}
		return out
	}
	for _, c := range []struct {
		form Feature
		scd  int
		b    ir.Backend
		want []string // one message each; nil: runs
	}{
		{SynApplyChanges, 2, ir.Spark41, []string{"APPLY CHANGES INTO, which spark-4.1 cannot run: Spark 4.1 has no apply-changes flows"}},
		{SynApplyChanges, 1, ir.Spark42, []string{"APPLY CHANGES INTO, which spark-4.2 cannot run"}},
		{SynApplyChanges, 1, ir.Spark43, []string{"CREATE FLOW f AS AUTO CDC INTO"}},
		{SynApplyChanges, 2, ir.Databricks, nil},
		{SynApplyChanges, 2, ir.Native, nil},
		{SynAutoCDC, 1, ir.Spark41, []string{"Spark 4.3 accepts AUTO CDC INTO; Spark 4.1 has no CDC: target spark-4.3 or databricks, or run natively"}},
		// 4.3 reads it; the table format is then what it refuses.
		{SynAutoCDC, 2, ir.Spark43, []string{"its table format, delta, does not"}},
		{SynAutoCDC, 2, ir.Databricks, nil},
		{"", 1, ir.Databricks, []string{"Databricks reads the pragma as a comment", "AUTO CDC INTO"}},
	} {
		got := messages(flow(c.form, c.scd), c.b)
		if c.want == nil {
			if len(got) != 0 {
				t.Errorf("%q SCD %d on %s: %q, want it to run", c.form, c.scd, c.b, got)
			}
			continue
		}
		if len(got) != 1 {
			t.Errorf("%q SCD %d on %s: %q, want one error", c.form, c.scd, c.b, got)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got[0], w) {
				t.Errorf("%q SCD %d on %s: %q lacks %q", c.form, c.scd, c.b, got[0], w)
			}
		}
	}
	// A Python CDC flow (dp.create_auto_cdc_flow, dlt.apply_changes) is
	// the platform's own API: Databricks runs it, SCD 2 too.
	py := flow("", 2)
	py.Flows[0].CDC.Loc.File = "cdc.py"
	if got := messages(py, ir.Databricks); len(got) != 0 {
		t.Errorf("a Python CDC flow on databricks: %q, want it to run", got)
	}
	if got := messages(py, ir.Spark43); len(got) != 1 || !strings.Contains(got[0], "a Python CDC flow") {
		t.Errorf("a Python CDC flow on spark-4.3: %q, want the table format's error naming it", got)
	}
}

// TestDatabricksExpectations: a CONSTRAINT ... EXPECT expectation is the
// construct's finding, not the @expect pragma's; an @expect pragma is
// refused on databricks, which reads it as a comment.
func TestDatabricksExpectations(t *testing.T) {
	loc := ir.Loc{File: "e.sql", Start: 5, End: 30}
	p := pipelineWith(&ir.Dataset{Name: "e", Kind: ir.MaterializedView, Syntax: []ir.Construct{{Name: string(SynExpect), Loc: loc}}},
		&ir.Flow{Name: "e", Expectations: []ir.Expectation{{Name: "ok", SQL: "a > 0", Action: ir.Drop, Loc: loc, InSQL: true}}})
	if ds := Check(p, []ir.Backend{ir.Native, ir.Databricks}); len(ds) != 0 {
		t.Errorf("native and databricks: %+v", ds)
	}
	if ds := Check(p, []ir.Backend{ir.Spark41}); len(ds) != 1 || !strings.Contains(ds[0].Message, "CONSTRAINT ... EXPECT, which spark-4.1 cannot run") {
		t.Errorf("spark-4.1: %+v", ds)
	}
	pragma := pipelineWith(&ir.Dataset{Name: "e", Kind: ir.MaterializedView},
		&ir.Flow{Name: "e", Expectations: []ir.Expectation{{Name: "ok", SQL: "a > 0", Action: ir.Drop, Loc: loc}}})
	if ds := Check(pragma, []ir.Backend{ir.Databricks}); len(ds) != 1 || !strings.Contains(ds[0].Message, "CONSTRAINT name EXPECT (cond)") {
		t.Errorf("@expect on databricks: %+v", ds)
	}
}

func TestWrittenForDatabricks(t *testing.T) {
	with := func(c Feature) *ir.Pipeline {
		return pipelineWith(&ir.Dataset{Name: "a", Kind: ir.StreamingTable}, &ir.Flow{Name: "a", Syntax: []ir.Construct{{Name: string(c)}}})
	}
	if !WrittenForDatabricks(with(SynApplyChanges)) || !WrittenForDatabricks(with(SynLiveRef)) {
		t.Error("APPLY CHANGES and LIVE.x are Databricks SQL")
	}
	if WrittenForDatabricks(with(SynAutoCDC)) || WrittenForDatabricks(pipelineWith(&ir.Dataset{Name: "a"}, &ir.Flow{Name: "a"})) {
		t.Error("AUTO CDC is Spark 4.3's too, and a plain pipeline is no Databricks one")
	}
}

// TestStreamFilePath: a streaming table over STREAM format.`path` is an
// error on each Spark backend (Spark 4.1.4 and 4.3.0 refuse it with
// BATCH_RELATION_FOR_STREAMING_TABLE), with Spark's class and a fix that
// runs there (a Python readStream with its schema), a warning on
// databricks pointing at STREAM read_files, and nothing natively; a
// materialized view's read of the same is not reported.
func TestStreamFilePath(t *testing.T) {
	loc := ir.Loc{File: "a.sql", Start: 50, End: 70}
	for _, kind := range []ir.Kind{ir.StreamingTable, ir.MaterializedView} {
		p := pipelineWith(&ir.Dataset{Name: "b", Kind: kind},
			&ir.Flow{Name: "b", Syntax: []ir.Construct{{Name: string(SynStreamFilePath), Loc: loc}}})
		got := map[ir.Backend]ir.Diagnostic{}
		for _, d := range Check(p, ir.AllBackends) {
			got[d.Backend] = d
		}
		if kind == ir.MaterializedView {
			if len(got) != 0 {
				t.Errorf("materialized view: %+v", got)
			}
			continue
		}
		for _, b := range []ir.Backend{ir.Spark41, ir.Spark42, ir.Spark43} {
			d, ok := got[b]
			if !ok || d.Severity != ir.Error || d.Loc != loc ||
				!strings.Contains(d.Message, "INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE") ||
				!strings.Contains(d.Message, "spark.readStream.format(") || !strings.Contains(d.Message, ".schema(") {
				t.Errorf("%s: %+v", b, d)
			}
		}
		if d, ok := got[ir.Databricks]; !ok || d.Severity != ir.Warning || !strings.Contains(d.Message, "STREAM read_files(") {
			t.Errorf("databricks: %+v", d)
		}
		if _, ok := got[ir.Native]; ok || len(got) != 4 {
			t.Errorf("backends %v", got)
		}
	}
	// the read_files fix on Spark leads to what runs there, not to STREAM
	// format.`path`, nor to a Thund pragma Spark does not read
	r := Matrix[SynReadFiles][ir.Spark41].Reason
	if strings.Contains(r, "@source") || !strings.Contains(r, "spark.readStream.format(") || !strings.Contains(r, "materialized view reads the files as format.`path`") {
		t.Errorf("read_files on Spark: %s", r)
	}
}

// TestOrReplaceDataset: CREATE OR REPLACE on a materialized view or
// streaming table is refused everywhere; a Spark backend is offered only
// the plain form (CREATE OR REFRESH is refused there too), databricks
// CREATE OR REFRESH or the plain form. It does not make the pipeline look
// written for Databricks.
func TestOrReplaceDataset(t *testing.T) {
	loc := ir.Loc{File: "a.sql", Start: 7, End: 17}
	for f, kind := range map[Feature]string{SynOrReplaceMV: "MATERIALIZED VIEW", SynOrReplaceST: "STREAMING TABLE"} {
		p := pipelineWith(&ir.Dataset{Name: "m", Kind: ir.MaterializedView, Syntax: []ir.Construct{{Name: string(f), Loc: loc}}}, &ir.Flow{Name: "m"})
		got := map[ir.Backend]string{}
		for _, d := range Check(p, ir.AllBackends) {
			if d.Severity != ir.Error || d.Loc != loc {
				t.Errorf("%s: %+v", f, d)
			}
			got[d.Backend] = d.Message
		}
		if len(got) != len(ir.AllBackends) {
			t.Errorf("%s: refused on %d backends, want all", f, len(got))
		}
		for _, b := range []ir.Backend{ir.Spark41, ir.Spark42, ir.Spark43} {
			if m := got[b]; !strings.HasSuffix(m, "write plain CREATE "+kind) || strings.Contains(m, "OR REFRESH") {
				t.Errorf("%s on %s: %s", f, b, m)
			}
		}
		if m := got[ir.Databricks]; !strings.Contains(m, "write CREATE OR REFRESH "+kind+" or plain CREATE "+kind) {
			t.Errorf("%s on databricks: %s", f, m)
		}
		if WrittenForDatabricks(p) {
			t.Errorf("%s makes the pipeline look written for Databricks", f)
		}
	}
}
