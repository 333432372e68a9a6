package engine

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// noInternals fails the test when a user-facing error shows the engine's
// own names or DuckDB's rendering of a statement.
func noInternals(t *testing.T, what, msg string) {
	t.Helper()
	for _, bad := range []string{"__thund", "thund_", "LINE ", "⟦", "Values list"} {
		if strings.Contains(msg, bad) {
			t.Errorf("%s: error %q shows %q", what, msg, bad)
		}
	}
}

// TestStreamingSparkMeaning: an append streaming flow runs its Spark SQL
// with Spark's meaning, trigger by trigger: a double-quoted text is a
// string (not a column), split(...)[i] counts from 0, integer division is
// fractional, and sum of integers is a BIGINT.
func TestStreamingSparkMeaning(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"samples/ev/b-001.csv": "s,v\nDELETE,1\nkeep,2\n",
		"samples/ev/b-002.csv": "s,v\nkeep,3\nDELETE,4\n",
		"kept.sql": "-- @kind: streaming_table\n-- @trigger: processing_time '1 second'\n" +
			"SELECT s, v, \"lit\" AS tag, split(s, \"e\")[0] AS head, v / 2 AS half\nFROM STREAM(ev)\nWHERE s != \"DELETE\"\n",
		"totals.sql": "-- @kind: streaming_table\n-- @output_mode: update\n" +
			"SELECT s, sum(v) AS total FROM STREAM(ev) GROUP BY s\n",
	})
	res, s := runOK(t, dir)
	if got, want := tableRows(t, s, "kept"), []string{"keep|2|lit|k|1", "keep|3|lit|k|1.5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("kept = %v, want %v", got, want)
	}
	triggers := 0
	for _, inc := range res.Increments {
		if inc.Dataset == "kept" {
			triggers++
			if inc.Emitted != 1 {
				t.Errorf("trigger %d of kept emitted %d rows, want 1", inc.Trigger, inc.Emitted)
			}
		}
	}
	if triggers != 2 {
		t.Errorf("kept ran %d triggers, want 2", triggers)
	}
	if got, want := tableRows(t, s, "totals"), []string{"DELETE|5", "keep|5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("totals = %v, want %v", got, want)
	}
	if got := rowsOf(t, s, "SELECT column_type FROM (DESCRIBE totals) WHERE column_name = 'total'"); !reflect.DeepEqual(got, []string{"BIGINT"}) {
		t.Errorf("type of totals.total = %v, want BIGINT (Spark's sum of a bigint)", got)
	}
}

// TestStreamingDivideByZero: a streaming flow that divides by zero fails
// as Spark 4 does (ANSI mode), with DIVIDE_BY_ZERO at the division in the
// user's file, not with DuckDB's Infinity or its wording.
func TestStreamingDivideByZero(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"samples/ev/b-001.csv": "s,v,ts\na,1,2026-01-01 10:00:00\n",
		"ratio.sql":            "-- @kind: streaming_table\nSELECT s,\n  v / 0 AS r\nFROM STREAM(ev)\n",
		"per_s.sql":            "-- @kind: streaming_table\n-- @output_mode: complete\nSELECT s,\n  sum(v) DIV 0 AS r\nFROM STREAM(ev) GROUP BY s\n",
		// An append aggregate without a window: the engine adds the
		// group's latest event time to the query, and the error is still
		// the user's division.
		"late.sql": "-- @kind: streaming_table\n-- @watermark: ts, 1 minute\nSELECT s, count(*) AS n,\n  sum(v) / 0 AS r\nFROM STREAM(ev) GROUP BY s\n",
	})
	snap, s := load(t, dir)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, at := range map[string]string{"ratio": "ratio.sql:3:", "per_s": "per_s.sql:4:", "late": "late.sql:4:"} {
		r := res.Datasets[name]
		if r == nil || r.Phase != Failed {
			t.Fatalf("%s: %+v", name, r)
		}
		if !strings.HasPrefix(r.Error, at) || !strings.Contains(r.Error, name+": [DIVIDE_BY_ZERO]") {
			t.Errorf("%s's error %q: want it to start %q and name DIVIDE_BY_ZERO", name, r.Error, at)
		}
		noInternals(t, name, r.Error)
	}
}

// TestStreamingBinderErrorAtUserRange: a column the stream lacks is
// reported at the user's reference, in the user's file.
func TestStreamingBinderErrorAtUserRange(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"samples/ev/b-001.csv": "s,v\na,1\n",
		"bad.sql":              "-- @kind: streaming_table\nSELECT s,\n  nope + 1 AS r\nFROM STREAM(ev)\n",
	})
	snap, s := load(t, dir)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Datasets["bad"]
	if r == nil || r.Phase != Failed {
		t.Fatalf("bad: %+v", r)
	}
	if !strings.HasPrefix(r.Error, "bad.sql:3:3: ") || !strings.Contains(r.Error, "nope") {
		t.Errorf("bad's error %q: want it at bad.sql:3:3 naming nope", r.Error)
	}
	noInternals(t, "bad", r.Error)
}

// TestStreamingWindowTranslated: an append-mode aggregate over Spark's
// date_trunc window (which the translation wraps in casts) with a
// watermark emits each minute once the watermark passes it, and a
// double-quoted filter is a string.
func TestStreamingWindowTranslated(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"samples/clicks/b-001.csv": "page,ts\n/a,2026-01-01 10:00:05\n/b,2026-01-01 10:00:30\n/skip,2026-01-01 10:00:40\n",
		"samples/clicks/b-002.csv": "page,ts\n/a,2026-01-01 10:01:10\n/a,2026-01-01 10:05:00\n",
		"per_minute.sql": "-- @kind: streaming_table\n-- @trigger: processing_time '1 second'\n-- @watermark: ts, 1 minute\n-- @output_mode: append\n" +
			"SELECT date_trunc('MINUTE', ts) AS minute, count(*) AS n\nFROM STREAM(clicks)\nWHERE page <> \"/skip\"\nGROUP BY date_trunc('MINUTE', ts)\n",
	})
	res, s := runOK(t, dir)
	if got, want := tableRows(t, s, "per_minute"), []string{"2026-01-01 10:00:00|2", "2026-01-01 10:01:00|1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("per_minute = %v, want %v", got, want)
	}
	var emitted []int64
	for _, inc := range res.Increments {
		if inc.Dataset == "per_minute" {
			emitted = append(emitted, inc.Emitted)
		}
	}
	// Trigger 1: the watermark (the stream's latest event time, 10:00:40
	// of the filtered-out row too, minus 1 minute) closes nothing;
	// trigger 2: 10:05 - 1 minute closes 10:00 and 10:01.
	if want := []int64{0, 2}; !reflect.DeepEqual(emitted, want) {
		t.Errorf("emitted per trigger = %v, want %v", emitted, want)
	}
}

// TestStreamingJoinsTranslated: a stream-stream join and a stream-static
// join run their translations: double-quoted texts are strings and arr[i]
// counts from 0 on both sides.
func TestStreamingJoinsTranslated(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"samples/orders/b-001.csv":   "id,cust\n1,c1\n2,c2\n",
		"samples/orders/b-002.csv":   "id,cust\n3,c1\n",
		"samples/payments/b-001.csv": "id,amount\n1,10\n",
		"samples/payments/b-002.csv": "id,amount\n3,30\n2,20\n",
		"samples/customers.csv":      "cust,name\nc1,Ann\nc2,Bo\n",
		"paid.sql": "-- @kind: streaming_table\n-- @trigger: processing_time '1 second'\n" +
			"SELECT o.id, p.amount, \"paid\" AS status\nFROM STREAM(orders) AS o JOIN STREAM(payments) AS p ON o.id = p.id\n",
		"named.sql": "-- @kind: streaming_table\n-- @trigger: processing_time '1 second'\n" +
			"SELECT o.id, c.name, split(c.name, \"n\")[0] AS head\nFROM STREAM(orders) AS o JOIN customers AS c ON o.cust = c.cust\n",
	})
	_, s := runOK(t, dir)
	if got, want := tableRows(t, s, "paid"), []string{"1|10|paid", "2|20|paid", "3|30|paid"}; !reflect.DeepEqual(got, want) {
		t.Errorf("paid = %v, want %v", got, want)
	}
	if got, want := tableRows(t, s, "named"), []string{"1|Ann|A", "2|Bo|Bo", "3|Ann|A"}; !reflect.DeepEqual(got, want) {
		t.Errorf("named = %v, want %v", got, want)
	}
}

// TestStreamingCDCSourceTranslated: the source query of a CDC flow runs
// its translation: a double-quoted text in its filter is a string.
func TestStreamingCDCSourceTranslated(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"samples/changes/b-001.csv": "id,name,src,_change_type,seq\n1,Ann,app,INSERT,1\n2,Bo,test,INSERT,2\n",
		"samples/changes/b-002.csv": "id,name,src,_change_type,seq\n1,Anne,app,UPDATE_AFTER,3\n3,Cy,app,INSERT,4\n",
		"people.sql": "-- @kind: streaming_table\n-- @cdc: keys=(id) sequence_by=seq scd=1\n" +
			"SELECT id, name, _change_type, seq FROM STREAM(changes) WHERE src != \"test\"\n",
	})
	_, s := runOK(t, dir)
	if got, want := tableRows(t, s, "people"), []string{"1|Anne|3", "3|Cy|4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("people = %v, want %v", got, want)
	}
}

// TestDescribeStreamingTranslated: a streaming flow is described as its
// run executes it, the translation: a double-quoted text is a string
// column, and sum of a bigint is a BIGINT (DuckDB's text gives HUGEINT).
func TestDescribeStreamingTranslated(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"samples/ev/b-001.csv": "s,v\na,1\n",
		"totals.sql": "-- @kind: streaming_table\n-- @output_mode: update\n" +
			"SELECT s, \"tag\" AS tag, sum(v) AS total FROM STREAM(ev) GROUP BY s\n",
	})
	snap, s := loadClean(t, dir)
	ctx := context.Background()
	d, err := s.Describer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Define(ctx, "ev", "SELECT 'a' AS s, CAST(1 AS BIGINT) AS v"); err != nil {
		t.Fatal(err)
	}
	f := snap.Pipeline.FlowsInto("totals")[0]
	q, err := d.TranslateFlow(ctx, f)
	if err != nil || q == nil {
		t.Fatalf("TranslateFlow of a streaming flow: %v, %v", q, err)
	}
	cols, err := d.DefineQuery(ctx, "totals", q)
	if err != nil {
		t.Fatal(err)
	}
	want := []Column{{"s", "VARCHAR"}, {"tag", "VARCHAR"}, {"total", "BIGINT"}}
	if !reflect.DeepEqual(cols, want) {
		t.Errorf("columns %v, want %v", cols, want)
	}
}
