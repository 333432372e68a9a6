package sdplower

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sparkconnect"
	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

func TestMain(m *testing.M) { sparktest.Main(m) }

func load(t *testing.T, dir string) *analysis.Snapshot {
	t.Helper()
	s, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// texts returns every library's text, for lowering SDP files as written.
func texts(s *analysis.Snapshot) map[string]string {
	out := map[string]string{}
	for _, l := range s.Libraries {
		if t, ok := s.Text(l); ok {
			out[l] = t
		}
	}
	return out
}

// writePipeline writes a pipeline folder whose storage is under the folder.
func writePipeline(t *testing.T, files map[string]string) string {
	t.Helper()
	return writePipelineIn(t, t.TempDir(), files)
}

func push(t *testing.T, g *Graph, run Run) (*Result, []Event, error) {
	t.Helper()
	c := sparktest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var events []Event
	res, err := Push(ctx, c, g, run, func(e Event) { events = append(events, e) })
	return res, events, err
}

func TestSparkDryRunSDPProject(t *testing.T) {
	s := load(t, "../testdata/sdp_project")
	for _, mode := range []struct {
		name string
		opts Options
	}{{"defines", Options{}}, {"files as written", Options{Texts: texts(s)}}} {
		t.Run(mode.name, func(t *testing.T) {
			g, diags := LowerWith(s.Pipeline, ir.Spark41, mode.opts)
			if g == nil {
				t.Fatalf("Lower refused sdp_project: %v", diags)
			}
			res, events, err := push(t, g, Run{Dry: true})
			if err != nil {
				t.Fatalf("dry run of sdp_project: %v", err)
			}
			t.Logf("%d outputs, %d flows, %d files: define %v, dry run %v", len(g.Outputs), len(g.Flows), len(g.Files), res.Define, res.RunTime)
			if len(events) == 0 {
				t.Fatal("no events from the dry run")
			}
			if last := events[len(events)-1]; !last.Run || last.Phase != Completed {
				t.Errorf("last event = %+v, want the run COMPLETED", last)
			}
		})
	}
}

// A column that does not exist: Spark's error text reaches the user with
// the dataset's name and the exact place in the file, in both lowering modes.
func TestSparkAnalysisErrorNamesDatasetAndPlace(t *testing.T) {
	const file = "transformations/orders.sql"
	text := "-- Two datasets, the second reading a column the first lacks.\n" +
		"CREATE MATERIALIZED VIEW orders AS\nSELECT 1 AS order_id, 9.5 AS amount;\n\n" +
		"CREATE MATERIALIZED VIEW big_orders AS\nSELECT order_id,\n  amount_usd\nFROM orders\nWHERE amount > 5;\n"
	dir := writePipeline(t, map[string]string{file: text})
	s := load(t, dir)
	// Thund's own column check finds the mistake too (unknown-column); the
	// test is about Spark's error, so that one is expected.
	for _, d := range s.Diagnostics {
		if d.Severity == ir.Error && d.Code != ir.CodeUnknownColumn {
			t.Fatalf("analysis error in the test pipeline: %v", d)
		}
	}
	want := strings.Index(text, "amount_usd")
	for _, mode := range []struct {
		name string
		opts Options
	}{{"defines", Options{}}, {"files as written", Options{Texts: texts(s)}}} {
		t.Run(mode.name, func(t *testing.T) {
			g, diags := LowerWith(s.Pipeline, ir.Spark41, mode.opts)
			if g == nil {
				t.Fatalf("Lower refused: %v", diags)
			}
			_, _, err := push(t, g, Run{Dry: true})
			var pe *PushError
			if !errors.As(err, &pe) {
				t.Fatalf("dry run error = %v, want a *PushError", err)
			}
			if len(pe.Failures) != 1 {
				t.Fatalf("failures = %+v, want one (big_orders)", pe.Failures)
			}
			f := pe.Failures[0]
			if f.Dataset != "big_orders" || !f.Resolution {
				t.Errorf("failure names %q (resolution %v), want big_orders, a resolution failure", f.Dataset, f.Resolution)
			}
			if f.Class != "UNRESOLVED_COLUMN.WITH_SUGGESTION" || !strings.Contains(f.Message, "`amount_usd` cannot be resolved") {
				t.Errorf("failure text = %q (class %q), want Spark's unresolved-column error", f.Message, f.Class)
			}
			if strings.Contains(f.Message, "SubqueryAlias") {
				t.Errorf("failure text keeps Spark's plan dump: %q", f.Message)
			}
			if f.Loc.File != file || f.Loc.Start != want || f.Loc.End != want+len("amount_usd") {
				t.Errorf("failure at %+v, want %s bytes %d-%d (amount_usd)", f.Loc, file, want, want+len("amount_usd"))
			}
			if !strings.Contains(err.Error(), "big_orders") || !strings.Contains(err.Error(), "amount_usd") {
				t.Errorf("error text %q should name the dataset and the column", err)
			}
		})
	}
}

// retail carries expectations: lowering for Spark 4.1 refuses it with the
// capability diagnostics, so nothing is sent.
func TestSparkRetailRefusedBeforeAnyCall(t *testing.T) {
	s := load(t, "../testdata/retail")
	g, diags := Lower(s.Pipeline, ir.Spark41)
	if g != nil {
		t.Fatalf("Lower accepted retail for spark-4.1; it uses expectations")
	}
	if len(diags) == 0 {
		t.Fatal("no diagnostics for the refusal")
	}
	for _, d := range diags {
		if d.Code != ir.CodeUnsupported || d.Backend != ir.Spark41 || d.Severity != ir.Error {
			t.Errorf("diagnostic %+v: want an unsupported-on-backend error for spark-4.1", d)
		}
	}
}

func TestSparkPersistentViewAndTemporaryView(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"transformations/a.sql": "CREATE MATERIALIZED VIEW base AS SELECT 1 AS x;\n" +
			"CREATE TEMPORARY VIEW doubled AS SELECT x * 2 AS y FROM base;\n" +
			"CREATE VIEW shown AS SELECT x FROM base;\n" +
			"CREATE MATERIALIZED VIEW final AS SELECT s.x, d.y FROM shown AS s JOIN doubled AS d ON d.y = 2 * s.x;\n",
	})
	s := load(t, dir)
	g, diags := Lower(s.Pipeline, ir.Spark41)
	if g == nil {
		t.Fatalf("Lower refused: %v", diags)
	}
	if len(g.Files) != 1 || !g.Files[0].Synthetic {
		t.Fatalf("files = %+v, want the persistent view as one synthetic SQL file", g.Files)
	}
	if _, _, err := push(t, g, Run{Dry: true}); err != nil {
		t.Fatalf("dry run: %v", err)
	}
}

func TestSparkRunAndReadBack(t *testing.T) {
	s := load(t, "../testdata/sdp_project")
	g, diags := Lower(s.Pipeline, ir.Spark41)
	if g == nil {
		t.Fatalf("Lower refused: %v", diags)
	}
	// A database and storage folder of the test's own, so runs share no
	// tables or checkpoints.
	c := sparktest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	db := fmt.Sprintf("thund_test_%d", time.Now().UnixNano())
	if err := c.SQL(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.SQL(context.Background(), "DROP DATABASE "+db+" CASCADE") })
	g.Database = db
	run := Run{Storage: "file://" + t.TempDir() + "/storage"}
	res, events, err := push(t, g, run)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("run: define %v, run %v, %d events", res.Define, res.RunTime, len(events))
	completed := map[string]bool{}
	for _, e := range events {
		if e.Phase == Completed && e.Flow != "" {
			completed[e.Dataset] = true
		}
	}
	for _, o := range g.Outputs {
		if o.Type != TemporaryView && !completed[o.Name] {
			t.Errorf("no COMPLETED event for %s; events: %+v", o.Name, events)
		}
	}
	var rows int64
	err = c.Query(ctx, "SELECT * FROM "+db+".clean_trips", func(_ []byte, n int64) error { rows += n; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if rows != 10 {
		t.Errorf("clean_trips has %d rows on Spark, want 10 (12 trips less the meter test and the refund)", rows)
	}
}

// The persistent-view rule Lower enforces is Spark's: pushed anyway, the
// graph fails with INVALID_TEMP_OBJ_REFERENCE.
func TestSparkPersistentViewOnTemporaryViewIsRefused(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"transformations/a.sql": "CREATE MATERIALIZED VIEW base AS SELECT 1 AS x;\n" +
			"CREATE TEMPORARY VIEW doubled AS SELECT x * 2 AS y FROM base;\n" +
			"CREATE VIEW shown AS SELECT y FROM doubled;\n",
	})
	s := load(t, dir)
	if g, diags := Lower(s.Pipeline, ir.Spark41); g != nil || len(diags) != 1 || !strings.Contains(diags[0].Message, "INVALID_TEMP_OBJ_REFERENCE") {
		t.Fatalf("Lower = %v, %v; want a refusal naming INVALID_TEMP_OBJ_REFERENCE", g, diags)
	}
	// Push the file as written, bypassing the refusal, to confirm Spark's rule.
	raw := &Graph{Name: "raw", Storage: "file://" + dir + "/storage", Files: []*SQLFile{{Path: "transformations/a.sql", Text: mustText(t, s, "transformations/a.sql")}}}
	_, _, err := push(t, raw, Run{Dry: true})
	if err == nil || !strings.Contains(err.Error(), "INVALID_TEMP_OBJ_REFERENCE") {
		t.Fatalf("dry run = %v, want Spark's INVALID_TEMP_OBJ_REFERENCE", err)
	}
}

func mustText(t *testing.T, s *analysis.Snapshot, rel string) string {
	t.Helper()
	text, ok := s.Text(rel)
	if !ok {
		t.Fatalf("no text for %s", rel)
	}
	return text
}

// streamSetup creates a database with a parquet table `events` of three
// rows (two of kind a, one of kind b) and a pipeline folder using that
// database, with the given library file.
func streamSetup(t *testing.T, c *sparkconnect.Client, sql string) (db, dir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db = fmt.Sprintf("thund_stream_%d", time.Now().UnixNano())
	for _, q := range []string{
		"CREATE DATABASE " + db,
		"CREATE TABLE " + db + ".events (id INT, kind STRING) USING parquet",
		"INSERT INTO " + db + ".events VALUES (1, 'a'), (2, 'b'), (3, 'a')",
	} {
		if err := c.SQL(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { _ = c.SQL(context.Background(), "DROP DATABASE "+db+" CASCADE") })
	dir = writePipeline(t, map[string]string{"transformations/st.sql": sql})
	spec := filepath.Join(dir, "spark-pipeline.yml")
	b, _ := os.ReadFile(spec)
	if err := os.WriteFile(spec, append(b, []byte("database: "+db+"\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	return db, dir
}

func countRows(t *testing.T, c *sparkconnect.Client, table string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var rows int64
	if err := c.Query(ctx, "SELECT * FROM "+table, func(_ []byte, n int64) error { rows += n; return nil }); err != nil {
		t.Fatal(err)
	}
	return rows
}

// A streaming table filled by an append flow (CREATE FLOW ... INSERT INTO)
// from a table on the server, in the database the spec names, with the
// file's SQL setting: run for real.
func TestSparkStreamingTableWithAppendFlow(t *testing.T) {
	c := sparktest.Client(t)
	db, dir := streamSetup(t, c, "SET spark.sql.shuffle.partitions = 2;\n"+
		"CREATE STREAMING TABLE a_events;\n"+
		"CREATE FLOW a_flow AS INSERT INTO a_events BY NAME SELECT id, kind FROM STREAM(events) WHERE kind = 'a';\n")
	s := load(t, dir)
	g, diags := Lower(s.Pipeline, ir.Spark41)
	if g == nil {
		t.Fatalf("Lower refused: %v", diags)
	}
	if g.Database != db || len(g.Outputs) != 1 || g.Outputs[0].Type != Table || len(g.Flows) != 1 || !g.Flows[0].Append {
		t.Fatalf("graph = %+v; want one table with one append flow in %s", g, db)
	}
	res, events, err := push(t, g, Run{})
	if err != nil {
		for _, e := range events {
			t.Logf("event: %s", e.Message)
		}
		t.Fatalf("run: %v", err)
	}
	t.Logf("define %v, run %v", res.Define, res.RunTime)
	done := map[string]string{}
	for _, e := range events {
		if e.Phase == Completed && e.Flow != "" {
			done[e.Flow] = e.Dataset
		}
	}
	if done["a_flow"] != "a_events" {
		t.Errorf("completed flows = %v; want a_flow into a_events", done)
	}
	if n := countRows(t, c, db+".a_events"); n != 2 {
		t.Errorf("a_events has %d rows, want 2", n)
	}
}

// Two streaming flows into one parquet table: Lower refuses, because Spark
// 4.1 drops the rows of one of them. Pushed anyway, the rows go missing,
// which keeps the rule honest (if a Spark release fixes it, this fails).
func TestSparkTwoStreamingFlowsIntoFileTableLoseRows(t *testing.T) {
	c := sparktest.Client(t)
	db, dir := streamSetup(t, c, "CREATE STREAMING TABLE all_events AS SELECT id, kind FROM STREAM(events) WHERE kind = 'a';\n"+
		"CREATE FLOW b_events AS INSERT INTO all_events BY NAME SELECT id, kind FROM STREAM(events) WHERE kind = 'b';\n")
	s := load(t, dir)
	g, diags := Lower(s.Pipeline, ir.Spark41)
	if g != nil || len(diags) != 1 || !strings.Contains(diags[0].Message, "silently dropped") {
		t.Fatalf("Lower = %v, %v; want a refusal of the second streaming flow", g, diags)
	}
	if text := mustText(t, s, "transformations/st.sql"); diags[0].Loc.Start != strings.Index(text, "all_events BY NAME") {
		t.Errorf("refusal at %+v, want at the append flow's target", diags[0].Loc)
	}
	raw := &Graph{Database: db, Storage: "file://" + dir + "/storage",
		Files: []*SQLFile{{Path: "transformations/st.sql", Text: mustText(t, s, "transformations/st.sql")}}}
	if _, _, err := push(t, raw, Run{}); err != nil {
		t.Logf("run: %v", err)
	}
	if n := countRows(t, c, db+".all_events"); n >= 3 {
		t.Errorf("all_events has all %d rows: Spark no longer drops a second stream's rows; relax multiFlowRule", n)
	}
}

// chain returns a graph of n materialized views, each reading the one
// before, from one file: a definition Spark lost would leave a link of
// the chain unresolved, failing the dry run.
func chain(t *testing.T, n int) *Graph {
	var text strings.Builder
	g := &Graph{Name: "chain", Storage: "file://" + t.TempDir() + "/storage"}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("mv_%03d", i)
		q := "SELECT 1 AS x"
		if i > 0 {
			q = fmt.Sprintf("SELECT x + 1 AS x FROM mv_%03d", i-1)
		}
		fmt.Fprintf(&text, "CREATE MATERIALIZED VIEW %s AS ", name)
		loc := ir.Loc{File: "chain.sql", Start: text.Len(), End: text.Len() + len(q)}
		text.WriteString(q + ";\n")
		g.Outputs = append(g.Outputs, &Output{Name: name, Type: MaterializedView, Loc: loc})
		g.Flows = append(g.Flows, &Flow{Name: name, Target: name, SQL: q, QueryLoc: loc, Loc: loc})
	}
	return g
}

// Outputs and flows are defined on two lanes at once (run with -race):
// nothing is lost, in either mode, and the run sees every link.
func TestSparkDefineLanesLoseNothing(t *testing.T) {
	g := chain(t, 150)
	for _, sequential := range []bool{false, true} {
		res, _, err := push(t, g, Run{Dry: true, Sequential: sequential})
		if err != nil {
			t.Fatalf("sequential=%v: dry run of a 150-view chain: %v", sequential, err)
		}
		t.Logf("sequential=%v: 300 defines in %v, dry run %v", sequential, res.Define.Round(time.Millisecond), res.RunTime.Round(time.Millisecond))
	}
}

// A define call that fails on one lane stops both, and the error names
// the flow and its place in the file.
func TestSparkDefineLaneErrorMapsToFile(t *testing.T) {
	g := chain(t, 40)
	bad := g.Flows[17]
	bad.SQL = "SELECT x +* 1 FROM mv_016"
	_, _, err := push(t, g, Run{Dry: true})
	var pe *PushError
	if !errors.As(err, &pe) {
		t.Fatalf("push = %v, want a *PushError", err)
	}
	if pe.Step != "DefineFlow mv_017" {
		t.Errorf("failed step %q, want DefineFlow mv_017", pe.Step)
	}
	if len(pe.Failures) != 1 || pe.Failures[0].Dataset != "mv_017" || pe.Failures[0].Loc.File != "chain.sql" ||
		pe.Failures[0].Loc.Start < bad.QueryLoc.Start || pe.Failures[0].Loc.Start > bad.QueryLoc.End {
		t.Fatalf("failures %+v, want one on mv_017 inside its query at %+v", pe.Failures, bad.QueryLoc)
	}
	if !strings.Contains(pe.Failures[0].Message, "PARSE_SYNTAX_ERROR") && pe.Failures[0].Class != "PARSE_SYNTAX_ERROR" {
		t.Errorf("failure %+v, want Spark's parse error", pe.Failures[0])
	}
}
