package sdplower

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/ir"
)

// analyse writes files into a pipeline folder (no server needed) and loads
// it. Reads of tables with no sample (unknown-reference errors) are let
// through: lowering does not need the samples.
func analyse(t *testing.T, files map[string]string) (dir string, p *ir.Pipeline, txt map[string]string) {
	t.Helper()
	dir = writePipeline(t, files)
	s := load(t, dir)
	for _, d := range s.Diagnostics {
		if d.Severity == ir.Error && d.Code != ir.CodeUnknownRef {
			t.Fatalf("analysis error: %+v", d)
		}
	}
	return dir, s.Pipeline, texts(s)
}

func TestLowerMapsKindsFlowsAndSettings(t *testing.T) {
	_, p, _ := analyse(t, map[string]string{
		"transformations/a.sql": "SET spark.sql.shuffle.partitions = 3;\n" +
			"CREATE MATERIALIZED VIEW mv COMMENT 'the base' AS SELECT `id` FROM src WHERE id > 0;\n" +
			"CREATE STREAMING TABLE st AS SELECT id FROM STREAM(src);\n" +
			"CREATE STREAMING TABLE st2;\n" +
			"CREATE FLOW backfill AS INSERT INTO st2 BY NAME SELECT id FROM STREAM(src2);\n" +
			"CREATE TEMPORARY VIEW tv AS SELECT id FROM mv;\n" +
			"CREATE VIEW v AS SELECT id FROM mv;\n",
		"transformations/b.sql": "-- @kind: table\n-- @partition_by: id\nSELECT id FROM tv\n",
	})
	g, diags := Lower(p, ir.Spark41)
	if g == nil {
		t.Fatalf("Lower refused: %v", diags)
	}
	types := map[string]OutputType{}
	for _, o := range g.Outputs {
		types[o.Name] = o.Type
	}
	want := map[string]OutputType{"mv": MaterializedView, "st": Table, "st2": Table, "tv": TemporaryView, "b": MaterializedView}
	if !reflect.DeepEqual(types, want) {
		t.Errorf("output types = %v, want %v", types, want)
	}
	for _, o := range g.Outputs {
		if o.Name == "mv" && o.Comment != "the base" {
			t.Errorf("mv comment = %q", o.Comment)
		}
		if o.Name == "b" && !reflect.DeepEqual(o.PartitionBy, []string{"id"}) {
			t.Errorf("b partition_by = %v", o.PartitionBy)
		}
	}
	flows := map[string]*Flow{}
	for _, f := range g.Flows {
		flows[f.Name] = f
	}
	if f := flows["mv"]; f == nil || f.SQL != "SELECT `id` FROM src WHERE id > 0" {
		t.Errorf("mv flow = %+v; want the query as written (backticks kept)", f)
	}
	if f := flows["backfill"]; f == nil || f.Target != "st2" || !f.Append {
		t.Errorf("backfill flow = %+v; want an append flow into st2", f)
	}
	if f := flows["st"]; f == nil || f.SQL != "SELECT id FROM STREAM(src)" || f.Conf["spark.sql.shuffle.partitions"] != "3" {
		t.Errorf("st flow = %+v; want STREAM(src) as written and the file's SET", flows["st"])
	}
	if len(g.Files) != 1 || !g.Files[0].Synthetic || g.Files[0].Text != "CREATE VIEW v AS\nSELECT id FROM mv" {
		t.Errorf("files = %+v; want the persistent view as CREATE VIEW text", g.Files)
	}
	if flows["v"] != nil {
		t.Error("the persistent view's query is also a DefineFlow")
	}
}

func TestLowerCatalogDatabaseConfAndStorage(t *testing.T) {
	p := &ir.Pipeline{Name: "x", Root: "/work/p", Catalog: "cat", Database: "db", Storage: "store/here",
		Configuration: map[string]string{"k": "v"}}
	g, _ := Lower(p, ir.Spark41)
	if g.Catalog != "cat" || g.Database != "db" || g.Conf["k"] != "v" {
		t.Errorf("graph settings = %+v", g)
	}
	if g.Storage != "file:///work/p/store/here" {
		t.Errorf("storage = %q, want an absolute file URI", g.Storage)
	}
	for in, want := range map[string]string{
		"file:///tmp/s": "file:///tmp/s", "s3a://b/k": "s3a://b/k", "/abs/s": "file:///abs/s", "": "",
	} {
		if got := StorageURI("/root", in); got != want {
			t.Errorf("StorageURI(%q) = %q, want %q", in, got, want)
		}
	}
}

// Lowering refuses exactly the capability errors analysis gives for the
// target, and nothing for warnings.
func TestLowerRefusesWithCapabilityErrors(t *testing.T) {
	s := load(t, "../testdata/broken/capability")
	for _, b := range ir.SparkBackends {
		g, diags := Lower(s.Pipeline, b)
		if g != nil {
			t.Fatalf("%s: Lower accepted a pipeline with unsupported features", b)
		}
		var want []ir.Diagnostic
		for _, d := range capab.Check(s.Pipeline, []ir.Backend{b}) {
			if d.Severity == ir.Error {
				want = append(want, d)
			}
		}
		ir.SortDiagnostics(want)
		if !reflect.DeepEqual(diags, want) {
			t.Errorf("%s: diagnostics\n%v\nwant capab's\n%v", b, diags, want)
		}
	}
	if g, diags := Lower(s.Pipeline, ir.Native); g != nil || len(diags) != 1 || !strings.Contains(diags[0].Message, "spark-4.1") {
		t.Errorf("Lower(native) = %v, %v; want a refusal naming the Spark targets", g, diags)
	}
}

// TestLowerRefusesCDC: testdata/cdc (two Delta tables, one SCD 1, one
// SCD 2) is refused, each refusal once at its @cdc value, wherever a flow
// cannot be applied as it is meant: everything on spark-4.1 (no
// apply-changes flow), on spark-4.2 the SCD 2 table (no SCD 2) and the
// SCD 1 one (Delta does not merge there), both on spark-4.3 (no format
// that merges loads into it). Spark 4.2 once took them as
// plain append flows and stored every change row.
func TestLowerRefusesCDC(t *testing.T) {
	s := load(t, "../testdata/cdc")
	at := map[string]ir.Loc{}
	for _, f := range s.Pipeline.Flows {
		if f.CDC != nil {
			at[f.Target] = f.CDC.Loc
		}
	}
	if len(at) != 2 {
		t.Fatalf("testdata/cdc has %d @cdc flows, want 2", len(at))
	}
	for _, c := range []struct {
		b     ir.Backend
		files []string
		want  string
	}{
		{ir.Spark41, []string{"customers_scd1", "customers_scd2"}, "uses CDC apply changes, which spark-4.1 cannot run"},
		{ir.Spark42, []string{"customers_scd1", "customers_scd2"}, "spark-4.2"},
		{ir.Spark43, []string{"customers_scd1", "customers_scd2"}, "its table format, delta, does not"},
	} {
		g, diags := LowerWith(s.Pipeline, c.b, Options{Texts: texts(s)})
		if g != nil {
			t.Fatalf("%s: Lower accepted testdata/cdc: %s", c.b, flowNames(g))
		}
		var got, want []ir.Loc
		for _, d := range diags {
			if d.Severity != ir.Error || d.Code != ir.CodeUnsupported || d.Backend != c.b || !strings.Contains(d.Message, c.want) {
				t.Errorf("%s: diagnostic %+v, want %q", c.b, d, c.want)
			}
			got = append(got, d.Loc)
		}
		for _, f := range c.files {
			want = append(want, at[f])
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: refusals at %v, want one at each @cdc value %v", c.b, got, want)
		}
	}
}

// TestLowerCDC: with Delta taken as merging (no format does on a real
// server yet: capab.MergeFormats), on spark-4.2 an SCD 1 apply-changes
// flow into a Delta table becomes a temporary view filled by the query as written (wrapped
// to leave out UPDATE_BEFORE rows) and an AutoCdcFlowDetails flow from
// that view into the table; SCD 2 the same on spark-4.3 (as far as the
// lowering goes: the matrix refuses it there for want of a format).
func TestLowerCDC(t *testing.T) {
	query := "SELECT * FROM STREAM(changes)"
	_, p, txt := analyse(t, map[string]string{
		"thund.yaml": "backends: [native]\n",
		"transformations/cur.sql": "-- @kind: streaming_table\n-- @format: delta\n" +
			"-- @cdc: keys=(id, `region code`) sequence_by=seq deletes=(op = 'D')\n" + query + "\n",
	})
	for _, b := range []ir.Backend{ir.Spark42, ir.Spark43} {
		saved := capab.MergeFormats[b]
		capab.MergeFormats[b] = []string{"delta"}
		defer func() { capab.MergeFormats[b] = saved }()
	}
	g, diags := LowerWith(p, ir.Spark42, Options{Texts: txt})
	if g == nil {
		t.Fatalf("refused: %v", diags)
	}
	if len(g.Outputs) != 2 || g.Outputs[0].Name != "cur" || g.Outputs[0].Type != Table || g.Outputs[0].Format != "delta" ||
		g.Outputs[1].Name != "cur_changes" || g.Outputs[1].Type != TemporaryView {
		t.Fatalf("outputs %+v, want the Delta table cur and the temporary view cur_changes", g.Outputs)
	}
	if len(g.Flows) != 2 {
		t.Fatalf("flows: %s", flowNames(g))
	}
	fill, apply := g.Flows[0], g.Flows[1]
	if fill.Name != "cur_changes" || fill.Target != "cur_changes" || fill.CDC != nil || fill.reported() != "cur" ||
		fill.SQL[fill.Shift:fill.Shift+len(query)] != query ||
		!strings.HasSuffix(fill.SQL, "WHERE coalesce(upper(CAST(_change_type AS STRING)) <> 'UPDATE_BEFORE', true)") {
		t.Errorf("view flow %+v", fill)
	}
	want := &CDCDetails{Source: "cur_changes", Keys: []string{"id", "region code"}, SequenceBy: "seq",
		Deletes: "coalesce(upper(CAST(_change_type AS STRING)) = 'DELETE', false) OR coalesce((op = 'D'), false)",
		Except:  []string{"_change_type"}, SCD: 1}
	if apply.Name != "cur" || apply.Target != "cur" || apply.SQL != "" || !reflect.DeepEqual(apply.CDC, want) {
		t.Errorf("apply flow %+v (CDC %+v), want CDC %+v", apply, apply.CDC, want)
	}
	d := autoCDC(apply.CDC)
	if d.GetSource() != "cur_changes" || len(d.GetKeys()) != 2 || d.GetKeys()[1].GetUnresolvedAttribute().GetUnparsedIdentifier() != "`region code`" ||
		d.GetSequenceBy().GetUnresolvedAttribute().GetUnparsedIdentifier() != "seq" ||
		d.GetApplyAsDeletes().GetExpressionString().GetExpression() != want.Deletes ||
		d.GetExceptColumnList()[0].GetUnresolvedAttribute().GetUnparsedIdentifier() != "_change_type" ||
		d.GetStoredAsScdType().String() != "SCD_TYPE_1" {
		t.Errorf("AutoCdcFlowDetails %v", d)
	}
	// A name already taken gets a numbered view.
	_, p, txt = analyse(t, map[string]string{
		"thund.yaml":                      "backends: [native]\n",
		"transformations/cur.sql":         "-- @kind: streaming_table\n-- @format: delta\n-- @cdc: keys=(id) sequence_by=seq scd=2\n" + query + "\n",
		"transformations/cur_changes.sql": "SELECT 1 AS one\n",
	})
	g, diags = LowerWith(p, ir.Spark43, Options{Texts: txt})
	if g == nil {
		t.Fatalf("refused: %v", diags)
	}
	for _, f := range g.Flows {
		if f.CDC != nil && (f.CDC.Source != "cur_changes2" || autoCDC(f.CDC).GetStoredAsScdType().String() != "SCD_TYPE_2") {
			t.Errorf("apply flow CDC %+v, want SCD 2 from cur_changes2", f.CDC)
		}
	}
}

// TestLowerWatermark: withWatermark writes an @watermark pragma into the
// flow's SQL as the WATERMARK clause right after its stream, before an
// alias; a query's own clause stays as written; a flow reading two
// streams gets an error at the pragma. (Whether Spark then runs the
// aggregate is capab's appendWatermark rule.)
func TestLowerWatermark(t *testing.T) {
	for _, c := range []struct{ yaml, sql, want string }{
		{"backends: [native]\n", "-- @kind: streaming_table\n-- @watermark: ts, 2 minutes\nSELECT id, ts FROM STREAM(src) AS s\n",
			"SELECT id, ts FROM STREAM(src) WATERMARK ts DELAY OF INTERVAL 2 MINUTES AS s"},
		{"backends: [native]\n", "-- @kind: streaming_table\n-- @watermark: evt, 1 hour\nSELECT id, evt FROM STREAM src\n",
			"SELECT id, evt FROM STREAM src WATERMARK evt DELAY OF INTERVAL 1 HOUR"},
		{"backends: [spark-4.3]\n", "-- @kind: streaming_table\nSELECT id FROM STREAM(src) WATERMARK ts DELAY OF INTERVAL 1 MINUTE\n",
			"SELECT id FROM STREAM(src) WATERMARK ts DELAY OF INTERVAL 1 MINUTE"},
	} {
		_, p, _ := analyse(t, map[string]string{"thund.yaml": c.yaml, "transformations/x.sql": c.sql})
		got, err := withWatermark(p.Flows[0])
		if err != nil || strings.TrimSpace(got) != c.want {
			t.Errorf("withWatermark = %q, %v; want %q", got, err, c.want)
		}
	}
	_, p, _ := analyse(t, map[string]string{"thund.yaml": "backends: [native]\n",
		"transformations/a.sql": "-- @kind: streaming_table\n-- @watermark: ts, 1 minute\nSELECT id, ts FROM STREAM(src)\n",
		"transformations/j.sql": "-- @kind: streaming_table\n-- @watermark: ts, 1 minute\nSELECT a.id, a.ts FROM STREAM(a) JOIN STREAM(src) AS s ON a.id = s.id AND s.ts BETWEEN a.ts AND a.ts + INTERVAL 1 MINUTE\n"})
	for _, f := range p.Flows {
		if f.Name != "j" {
			continue
		}
		if _, err := withWatermark(f); err == nil || err.loc != f.Watermark.Loc || !strings.Contains(err.msg, "flow j reads 2 streams, and the @watermark pragma does not say which one it is for") {
			t.Errorf("withWatermark(j) error %+v, want the two-streams refusal at the pragma", err)
		}
	}
}

// flowNames lists what a graph would define, for failure messages.
func flowNames(g *Graph) string {
	var names []string
	for _, f := range g.Flows {
		names = append(names, "flow "+f.Name+" into "+f.Target)
	}
	for _, f := range g.Files {
		names = append(names, "file "+f.Path)
	}
	return strings.Join(names, ", ")
}

// allowOnSpark marks feature f supported on every Spark backend of the
// matrix for the rest of t, as a matrix cell marked yes before its
// lowering exists would (spark-4.2's CDC cell once was).
func allowOnSpark(t *testing.T, f capab.Feature) {
	t.Helper()
	saved := capab.Matrix[f]
	cells := map[ir.Backend]capab.Support{}
	for b, s := range saved {
		cells[b] = s
	}
	for _, b := range ir.SparkBackends {
		cells[b] = capab.Support{OK: true}
	}
	capab.Matrix[f] = cells
	t.Cleanup(func() { capab.Matrix[f] = saved })
}

// TestLowerRefusesWhatItCannotSend: the lowering's own guard. With the
// matrix letting a feature through on Spark, Lower still refuses a flow
// it has no way to send as what it is, at the feature's place, instead of
// sending it as a plain flow: an apply-changes flow above all (on
// spark-4.1, whose protocol has no AutoCdcFlowDetails).
func TestLowerRefusesWhatItCannotSend(t *testing.T) {
	for _, c := range []struct {
		feature capab.Feature
		sql     string
		want    string
	}{
		{capab.CDCFlow, "-- @kind: streaming_table\n-- @format: delta\n-- @cdc: keys=(id) sequence_by=seq\nSELECT * FROM STREAM(changes)\n",
			"x is an apply-changes (@cdc) flow into x, which Thund cannot lower to %s: sent as a plain append flow, it would store every change row"},
		{capab.Expectations, "-- @expect.positive: id > 0\nSELECT id FROM src\n",
			"x uses expectations, which Thund cannot lower to %s"},
		{capab.OutputModeUpdate, "-- @kind: streaming_table\n-- @output_mode: update\nSELECT id, count(*) AS n FROM STREAM(src) GROUP BY id\n",
			"x uses output_mode update, which Thund cannot lower to %s"},
		{capab.SinkDataset, "-- @kind: sink\nSELECT id FROM STREAM(src)\n",
			"x uses a sink, which Thund cannot lower to %s"},
	} {
		t.Run(string(c.feature), func(t *testing.T) {
			_, p, txt := analyse(t, map[string]string{"thund.yaml": "backends: [native]\n", "transformations/x.sql": c.sql})
			var uses []capab.Use
			for _, d := range p.Datasets {
				uses = append(uses, capab.Uses(p, d)...)
			}
			if len(uses) != 1 || uses[0].Feature != c.feature {
				t.Fatalf("test setup: uses %+v, want %s alone", uses, c.feature)
			}
			allowOnSpark(t, c.feature)
			backends := ir.SparkBackends
			if c.feature == capab.CDCFlow {
				// As if Delta merged on 4.1 too: only the guard is left.
				backends = []ir.Backend{ir.Spark41}
				saved := capab.MergeFormats[ir.Spark41]
				capab.MergeFormats[ir.Spark41] = []string{"delta"}
				t.Cleanup(func() { capab.MergeFormats[ir.Spark41] = saved })
			}
			for _, b := range backends {
				g, diags := LowerWith(p, b, Options{Texts: txt})
				if g != nil {
					t.Fatalf("%s: Lower sent it: %s", b, flowNames(g))
				}
				if len(diags) != 1 || diags[0].Loc != uses[0].Loc || diags[0].Backend != b || diags[0].Severity != ir.Error ||
					diags[0].Code != ir.CodeUnsupported || !strings.Contains(diags[0].Message, fmt.Sprintf(c.want, b)) ||
					!strings.Contains(diags[0].Message, "`-- @backends: native`") {
					t.Errorf("%s: diagnostics %+v, want one error at %+v: %q", b, diags, uses[0].Loc, fmt.Sprintf(c.want, b))
				}
			}
		})
	}
}

func TestLowerRetailRefusedForExpectations(t *testing.T) {
	s := load(t, "../testdata/retail")
	g, diags := Lower(s.Pipeline, ir.Spark41)
	if g != nil || len(diags) == 0 {
		t.Fatalf("Lower(retail) = %v, %v; want a refusal", g, diags)
	}
	for _, d := range diags {
		if !strings.Contains(d.Message, "expectations") || d.Loc.File == "" {
			t.Errorf("diagnostic %+v: want an expectations refusal at its pragma", d)
		}
	}
}

func TestLowerRefusesTwoStreamsIntoAFileTable(t *testing.T) {
	two := "CREATE STREAMING TABLE t AS SELECT id FROM STREAM(a);\nCREATE FLOW f2 AS INSERT INTO t BY NAME SELECT id FROM STREAM(b);\n"
	s := load(t, writePipeline(t, map[string]string{"transformations/t.sql": two}))
	// The spec names no Spark version: analysis checks the newest.
	g, diags := Lower(s.Pipeline, ir.DefaultBackends[len(ir.DefaultBackends)-1])
	if g != nil || len(diags) != 1 || !strings.Contains(diags[0].Message, "t is filled by 2 streaming flows") {
		t.Fatalf("Lower = %v, %v; want one refusal", g, diags)
	}
	// Analysis reports the same diagnostic before any push (capab's
	// Spark rules), for the LSP and --check.
	found := false
	for _, d := range s.Diagnostics {
		if d.Loc == diags[0].Loc && d.Message == diags[0].Message && d.Code == diags[0].Code && d.Backend == diags[0].Backend {
			found = true
		}
	}
	if !found {
		t.Errorf("analysis diagnostics %+v lack Lower's refusal %+v", s.Diagnostics, diags[0])
	}
	// A table format with its own transaction log (Delta) is fine.
	delta := strings.Replace(two, "STREAMING TABLE t ", "STREAMING TABLE t USING delta ", 1)
	_, p, _ := analyse(t, map[string]string{"transformations/t.sql": delta})
	if g, diags := Lower(p, ir.Spark41); g == nil {
		t.Errorf("Lower refused a Delta table with two flows: %v", diags)
	}
}

func TestLowerBackendRestrictions(t *testing.T) {
	_, p, _ := analyse(t, map[string]string{
		"transformations/local.sql":  "-- @backends: native\nSELECT 1 AS x\n",
		"transformations/shared.sql": "SELECT 2 AS y\n",
	})
	g, diags := Lower(p, ir.Spark41)
	if g == nil {
		t.Fatalf("Lower refused: %v", diags)
	}
	if !reflect.DeepEqual(g.Skipped, []string{"local"}) || len(g.Outputs) != 1 || g.Outputs[0].Name != "shared" {
		t.Errorf("skipped %v, outputs %v; want local skipped and shared lowered", g.Skipped, g.Outputs)
	}

	_, p, _ = analyse(t, map[string]string{
		"transformations/local.sql":  "-- @backends: native\nSELECT 1 AS x\n",
		"transformations/reader.sql": "SELECT x FROM local\n",
	})
	if g, diags := Lower(p, ir.Spark41); g != nil || len(diags) != 1 || !strings.Contains(diags[0].Message, "reader reads local") {
		t.Errorf("Lower = %v, %v; want a refusal: reader reads a native-only dataset", g, diags)
	}
}

func TestLowerFilesAsWritten(t *testing.T) {
	sdp := "SET spark.sql.shuffle.partitions = 4;\nCREATE MATERIALIZED VIEW a AS SELECT 1 AS x;\nCREATE MATERIALIZED VIEW b AS SELECT x FROM a;\n"
	_, p, txt := analyse(t, map[string]string{
		"transformations/sdp.sql":     sdp,
		"transformations/pragmas.sql": "-- @kind: materialized_view\nSELECT x FROM b\n",
		"transformations/mixed.sql":   "-- @comment: the c view\nCREATE MATERIALIZED VIEW c AS SELECT x FROM a;\n",
	})
	g, diags := LowerWith(p, ir.Spark41, Options{Texts: txt})
	if g == nil {
		t.Fatalf("Lower refused: %v", diags)
	}
	if len(g.Files) != 1 || g.Files[0].Path != "transformations/sdp.sql" || g.Files[0].Text != sdp {
		t.Fatalf("files = %+v; want only sdp.sql, as written", g.Files)
	}
	var outs []string
	for _, o := range g.Outputs {
		outs = append(outs, o.Name)
	}
	if !reflect.DeepEqual(outs, []string{"c", "pragmas"}) && !reflect.DeepEqual(outs, []string{"pragmas", "c"}) {
		t.Errorf("outputs defined one by one = %v; want the pragma-form file and the SDP file with a pragma", outs)
	}
}

func TestParseEvent(t *testing.T) {
	for _, tc := range []struct {
		msg        string
		flow       string
		phase      Phase
		run, resol bool
		err        string
	}{
		{msg: "Flow spark_catalog.default.a is QUEUED.", flow: "spark_catalog.default.a", phase: Queued},
		{msg: "Flow spark_catalog.default.a has COMPLETED.", flow: "spark_catalog.default.a", phase: Completed},
		{msg: "Flow 'spark_catalog.default.c' has FAILED.\nError: [USER_RAISED_EXCEPTION] '(x2 < 0)' is not true! SQLSTATE: P0001",
			flow: "spark_catalog.default.c", phase: Failed, err: "[USER_RAISED_EXCEPTION] '(x2 < 0)' is not true! SQLSTATE: P0001"},
		{msg: "Failed to resolve flow: 'spark_catalog.default.b'.\nError: [UNRESOLVED_COLUMN.WITH_SUGGESTION] A column `y` cannot be resolved. SQLSTATE: 42703; line 1 pos 10;\n'Project [x#71, 'y]\n+- SubqueryAlias spark_catalog.default.a\n",
			flow: "spark_catalog.default.b", phase: Failed, resol: true,
			err: "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column `y` cannot be resolved. SQLSTATE: 42703; line 1 pos 10"},
		{msg: "Run is COMPLETED.", phase: Completed, run: true},
		{msg: "Run is FAILED.", phase: Failed, run: true},
		{msg: "Something Spark added later."},
	} {
		flow, phase, run, resol, err := ParseEvent(tc.msg)
		if flow != tc.flow || phase != tc.phase || run != tc.run || resol != tc.resol || err != tc.err {
			t.Errorf("ParseEvent(%q) = %q, %q, %v, %v, %q\nwant %q, %q, %v, %v, %q", tc.msg, flow, phase, run, resol, err, tc.flow, tc.phase, tc.run, tc.resol, tc.err)
		}
	}
}

// Spark counts lines of a file sent as written from the statement start,
// right after the previous `;`; a parse error quotes the statement.
func TestFileLoc(t *testing.T) {
	text := "-- a; comment\nCREATE MATERIALIZED VIEW a AS SELECT ';' AS x;\n\nCREATE MATERIALIZED VIEW b AS\nSELECT x,\n  nope FROM a;\n"
	q := strings.Index(text, "SELECT x,")
	f := &SQLFile{Path: "f.sql", Text: text, Queries: map[string]ir.Loc{"b": {File: "f.sql", Start: q, End: len(text) - 2}}}
	got := fileLoc(f, "b", "[UNRESOLVED_COLUMN] `nope` cannot be resolved. SQLSTATE: 42703; line 5 pos 2;")
	want := strings.Index(text, "nope")
	if got.Start != want || got.End != want+4 {
		t.Errorf("fileLoc = %+v, want bytes %d-%d", got, want, want+4)
	}
	parse := "[PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM'. SQLSTATE: 42601 (line 5, pos 7)\n\n== SQL ==\n\n\nCREATE MATERIALIZED VIEW b AS\nSELECT x,\n  nope FROM a\n-------^^^\n"
	got = fileLoc(f, "", parse)
	want = strings.Index(text, "FROM a")
	if got.Start != want {
		t.Errorf("fileLoc(parse error) = %+v, want start %d", got, want)
	}
}
