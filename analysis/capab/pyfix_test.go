package capab

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// messagesOn are the messages of Check(p, {b}) and Streaming(p).
func messagesOn(p *ir.Pipeline, b ir.Backend) []string {
	var out []string
	for _, d := range append(Check(p, []ir.Backend{b}), Streaming(p)...) {
		out = append(out, d.Message)
	}
	return out
}

// oneWith returns the one message of ms containing want, failing the
// test otherwise.
func oneWith(t *testing.T, ms []string, want string) string {
	t.Helper()
	var hit []string
	for _, m := range ms {
		if strings.Contains(m, want) {
			hit = append(hit, m)
		}
	}
	if len(hit) != 1 {
		t.Fatalf("%d messages contain %q, want 1: %q", len(hit), want, ms)
	}
	return hit[0]
}

// noPragma fails when a fix for a .py file tells its author to write a
// `-- @...` pragma, which a Python library does not have.
func noPragma(t *testing.T, what, msg string) {
	t.Helper()
	if strings.Contains(msg, "-- @") || strings.Contains(msg, "@sample.") {
		t.Errorf("%s: a .py file's fix names a SQL pragma: %s", what, msg)
	}
}

// TestPythonExpectFix: the @expect decorator's refusal on Spark names the
// decorator and thund.yaml, not a `-- @backends` pragma.
func TestPythonExpectFix(t *testing.T) {
	loc := ir.Loc{File: "t.py", Start: 10, End: 30}
	p := pipelineWith(&ir.Dataset{Name: "t", Kind: ir.MaterializedView, Loc: ir.Loc{File: "t.py"}},
		&ir.Flow{Name: "t", QueryLoc: ir.Loc{File: "t.py"}, Syntax: []ir.Construct{{Name: string(SynPyExpect), Loc: loc}}})
	m := oneWith(t, messagesOn(p, ir.Spark41), "an @expect decorator")
	noPragma(t, "@expect", m)
	if !strings.Contains(m, "remove the decorator") || !strings.Contains(m, "thund.yaml `backends: [native, databricks]`") {
		t.Errorf("@expect: %s", m)
	}
}

// TestPythonCDCFix: a Python CDC flow refused on Spark 4.1 (no CDC) and
// on 4.3 (no format that merges) is told to run natively through
// thund.yaml; the @cdc pragma of a .sql file keeps the `-- @backends`
// fix.
func TestPythonCDCFix(t *testing.T) {
	cdc := func(file string, scd int) *ir.Pipeline {
		return pipelineWith(&ir.Dataset{Name: "c", Kind: ir.StreamingTable, Loc: ir.Loc{File: file}},
			&ir.Flow{Name: "c", Streaming: true, QueryLoc: ir.Loc{File: file}, Reads: []ir.Ref{{Name: "changes", Streaming: true}},
				CDC: &ir.CDC{Keys: []string{"id"}, SequenceBy: "seq", SCD: scd, Loc: ir.Loc{File: file, Start: 5, End: 9}}})
	}
	for _, b := range []ir.Backend{ir.Spark41, ir.Spark43} {
		m := oneWith(t, messagesOn(cdc("c.py", 1), b), "run it natively")
		noPragma(t, string(b), m)
		if !strings.Contains(m, "set `backends: [native]` in thund.yaml") {
			t.Errorf("%s: %s", b, m)
		}
		if sql := oneWith(t, messagesOn(cdc("c.sql", 1), b), "run it natively"); !strings.Contains(sql, "add `-- @backends: native` to this dataset") {
			t.Errorf("%s, @cdc in SQL: %s", b, sql)
		}
	}
	m := oneWith(t, messagesOn(cdc("c.py", 2), ir.Spark42), "SCD type 1 only")
	noPragma(t, "SCD 2 on 4.2", m)
	if !strings.Contains(m, "stored_as_scd_type=1") || strings.Contains(m, "`scd=1`") {
		t.Errorf("SCD 2 on 4.2: %s", m)
	}
}

// TestPythonStreamingFixes: the streaming rules' fixes for a .py flow are
// Python reads and decorators, not STREAM(...) or `-- @kind`.
func TestPythonStreamingFixes(t *testing.T) {
	py := ir.Loc{File: "t.py", Start: 4, End: 8}
	// A streaming table reading no stream.
	p := pipelineWith(&ir.Dataset{Name: "t", Kind: ir.StreamingTable, NameLoc: py, Loc: py},
		&ir.Flow{Name: "t", QueryLoc: py, Reads: []ir.Ref{{Name: "src", Loc: py}}})
	m := oneWith(t, messagesOn(p, ir.Native), "reads no stream")
	noPragma(t, "no stream", m)
	if !strings.Contains(m, `spark.readStream.table("source") or dp.read_stream("source")`) || !strings.Contains(m, "define t with @dp.materialized_view") || strings.Contains(m, "STREAM(source)") {
		t.Errorf("no stream: %s", m)
	}
	// One of two flows into it.
	p.Flows[0].Append, p.Flows[0].Name = true, "backfill"
	if m := oneWith(t, messagesOn(p, ir.Native), "reads no stream"); !strings.Contains(m, "read its source with spark.readStream.table") {
		t.Errorf("append flow: %s", m)
	}
	// The same in SQL keeps STREAM(source).
	sql := ir.Loc{File: "t.sql", Start: 4, End: 8}
	q := pipelineWith(&ir.Dataset{Name: "t", Kind: ir.StreamingTable, NameLoc: sql, Loc: sql},
		&ir.Flow{Name: "t", QueryLoc: sql, Reads: []ir.Ref{{Name: "src", Loc: sql}}})
	if m := oneWith(t, messagesOn(q, ir.Native), "reads no stream"); m != "streaming table t reads no stream; read a source incrementally with STREAM(source), or make t a materialized view" {
		t.Errorf("SQL: %s", m)
	}
	// A materialized view reading a stream.
	mv := pipelineWith(&ir.Dataset{Name: "m", Kind: ir.MaterializedView, Loc: py},
		&ir.Flow{Name: "m", QueryLoc: py, Streaming: true, Reads: []ir.Ref{{Name: "src", Streaming: true, Loc: py}}})
	m = oneWith(t, messagesOn(mv, ir.Native), "reads the stream src")
	noPragma(t, "stream in a materialized view", m)
	if !strings.Contains(m, `spark.read.table("src")`) || !strings.Contains(m, "@dp.table") {
		t.Errorf("stream in a materialized view: %s", m)
	}
	// A CDC flow into a materialized view.
	c := pipelineWith(&ir.Dataset{Name: "c", Kind: ir.MaterializedView, Loc: py},
		&ir.Flow{Name: "c", QueryLoc: py, Streaming: true, Reads: []ir.Ref{{Name: "changes", Streaming: true, Loc: py}},
			CDC: &ir.CDC{Keys: []string{"id"}, SequenceBy: "seq", Loc: py}})
	m = oneWith(t, messagesOn(c, ir.Native), "needs a streaming table as its target")
	noPragma(t, "CDC into a materialized view", m)
	if !strings.Contains(m, `dp.create_streaming_table("c")`) {
		t.Errorf("CDC into a materialized view: %s", m)
	}
}

// TestPythonAppendWatermarkFix: Spark's refusal of an append-mode
// aggregate of a .py flow grouped without its watermark column gives the
// Python window and thund.yaml, not a pragma.
func TestPythonAppendWatermarkFix(t *testing.T) {
	sql := "SELECT page, count(*) AS n FROM STREAM(clicks) GROUP BY page"
	f := &ir.Flow{Name: "views", SQL: sql, Streaming: true, Aggregates: true,
		QueryLoc:  ir.Loc{File: "views.py", Start: 900, End: 900 + len(sql)},
		Watermark: &ir.Watermark{Column: "event_time", Delay: "2 minutes", InSQL: true, Loc: ir.Loc{File: "views.py", Start: 10, End: 30}}}
	p := pipelineWith(&ir.Dataset{Name: "views", Kind: ir.StreamingTable, Loc: ir.Loc{File: "views.py"}}, f)
	m := oneWith(t, messagesOn(p, ir.Spark41), "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION")
	noPragma(t, "append watermark", m)
	if !strings.Contains(m, `group by F.window("event_time", "1 minute")`) || !strings.Contains(m, "thund.yaml `backends: [native]`") {
		t.Errorf("append watermark: %s", m)
	}
}
