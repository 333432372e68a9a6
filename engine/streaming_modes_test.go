package engine

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// evBatches is a stream of three micro-batches of (k, v).
var evBatches = map[string]string{
	"samples/ev/b1.csv": "k,v\na,1\nb,2\n",
	"samples/ev/b2.csv": "k,v\na,3\nc,4\n",
	"samples/ev/b3.csv": "k,v\nc,5\nc,6\n",
}

func withFiles(base map[string]string, more map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

const perFile = "-- @trigger: processing_time '1 second'\n"

func TestStreamOutputModes(t *testing.T) {
	dir := writePipeline(t, withFiles(evBatches, map[string]string{
		"app.sql": "-- @kind: streaming_table\n" + perFile + "SELECT k, v * 10 AS v10 FROM STREAM(ev) WHERE v <> 2\n",
		"upd.sql": "-- @kind: streaming_table\n" + perFile + "-- @output_mode: update\nSELECT k, count(*) AS n, sum(v) AS total FROM STREAM(ev) GROUP BY k\n",
		"cmp.sql": "-- @kind: streaming_table\n" + perFile + "-- @output_mode: complete\nSELECT k, count(*) AS n, sum(v) AS total FROM STREAM(ev) GROUP BY k\n",
	}))
	res, s := runOK(t, dir)

	app := increments(res, "app")
	wantCounts(t, "append arrived", app, arrived, 2, 2, 2)
	wantCounts(t, "append emitted", app, emitted, 1, 2, 2)
	sameRows(t, "append", tableRows(t, s, "app"), sortedRows("a|10", "a|30", "c|40", "c|50", "c|60"))
	if len(app) == 3 {
		sameRows(t, "append trigger 2", joinRows(app[1].Rows), sortedRows("a|30", "c|40"))
	}

	// Update emits the changed groups only: b is unchanged in trigger 2,
	// only c changes in trigger 3.
	upd := increments(res, "upd")
	wantCounts(t, "update emitted", upd, emitted, 2, 2, 1)
	final := sortedRows("a|2|4", "b|1|2", "c|3|15")
	sameRows(t, "update", tableRows(t, s, "upd"), final)
	if len(upd) == 3 {
		sameRows(t, "update trigger 2", joinRows(upd[1].Rows), sortedRows("a|2|4", "c|1|4"))
		sameRows(t, "update trigger 3", joinRows(upd[2].Rows), sortedRows("c|3|15"))
	}

	// Complete emits (and writes) the whole result every trigger.
	cmp := increments(res, "cmp")
	wantCounts(t, "complete emitted", cmp, emitted, 2, 3, 3)
	sameRows(t, "complete", tableRows(t, s, "cmp"), final)
	if len(cmp) == 3 {
		sameRows(t, "complete trigger 2", joinRows(cmp[1].Rows), sortedRows("a|2|4", "b|1|2", "c|1|4"))
	}

	// The source is whole again after the run.
	sameRows(t, "source", rowsOf(t, s, "SELECT count(*) FROM ev"), []string{"6"})
}

func TestStreamTriggers(t *testing.T) {
	files := withFiles(evBatches, nil)
	for _, trig := range []string{"available_now", "once", "processing_time '5 seconds'", "continuous"} {
		name := strings.Fields(trig)[0]
		files[name+".sql"] = "-- @kind: streaming_table\n-- @trigger: " + trig + "\nSELECT * FROM STREAM(ev)\n"
	}
	files["dflt.sql"] = "SELECT * FROM STREAM(ev)\n"
	res, s := runOK(t, writePipeline(t, files))
	all := []string{"samples/ev/b1.csv", "samples/ev/b2.csv", "samples/ev/b3.csv"}
	for name, n := range map[string]int{"available_now": 1, "once": 1, "dflt": 1, "processing_time": 3, "continuous": 3} {
		incs := increments(res, name)
		if len(incs) != n {
			t.Errorf("%s: %d increments, want %d", name, len(incs), n)
			continue
		}
		if n == 1 {
			if !reflect.DeepEqual(incs[0].Files, all) || incs[0].Arrived != 6 {
				t.Errorf("%s: files %v arrived %d, want all three files, 6 rows", name, incs[0].Files, incs[0].Arrived)
			}
		} else {
			for i, inc := range incs {
				if !reflect.DeepEqual(inc.Files, all[i:i+1]) || inc.Trigger != i+1 || inc.Arrived != 2 {
					t.Errorf("%s trigger %d: files %v arrived %d", name, inc.Trigger, inc.Files, inc.Arrived)
				}
			}
		}
		if got := len(tableRows(t, s, name)); got != 6 {
			t.Errorf("%s holds %d rows, want 6", name, got)
		}
	}
}

func TestStreamStaticJoinAndBatchReaders(t *testing.T) {
	dir := writePipeline(t, withFiles(evBatches, map[string]string{
		"samples/dim.csv": "k,label\na,Alpha\nb,Beta\nc,Gamma\n",
		"joined.sql":      "-- @kind: streaming_table\n" + perFile + "SELECT e.k, d.label, e.v FROM STREAM(ev) AS e JOIN dim AS d USING (k)\n",
		"total.sql":       "SELECT count(*) AS n, sum(v) AS s FROM ev\n",
		"downstream.sql":  "-- @kind: materialized_view\nSELECT count(*) AS n FROM joined\n",
	}))
	res, s := runOK(t, dir)
	wantCounts(t, "joined emitted", increments(res, "joined"), emitted, 2, 2, 2)
	sameRows(t, "joined", tableRows(t, s, "joined"), sortedRows("a|Alpha|1", "b|Beta|2", "a|Alpha|3", "c|Gamma|4", "c|Gamma|5", "c|Gamma|6"))
	sameRows(t, "batch reader of the source", tableRows(t, s, "total"), []string{"6|21"})
	sameRows(t, "batch reader of the streaming table", tableRows(t, s, "downstream"), []string{"6"})
}

// clockBatches is a stream of events with event times.
func clockBatches(batches ...string) map[string]string {
	files := map[string]string{}
	for i, b := range batches {
		files["samples/ev/b"+string(rune('1'+i))+".csv"] = "k,ts\n" + b
	}
	return files
}

func TestWatermarkDropsLateRows(t *testing.T) {
	dir := writePipeline(t, withFiles(clockBatches(
		"a,2025-01-01 10:00:00\nb,2025-01-01 10:05:00\n",
		// Watermark 10:04:00: 10:03:59 is late, 10:04:00 is not, a NULL
		// event time never is.
		"c,2025-01-01 10:03:59\nd,2025-01-01 10:04:00\ne,\nf,2025-01-01 10:06:00\n",
		// Watermark 10:05:00.
		"g,2025-01-01 10:04:59\nh,2025-01-01 10:05:00\n",
	), map[string]string{
		"kept.sql": "-- @kind: streaming_table\n" + perFile + "-- @watermark: ts, 1 minute\nSELECT k, ts FROM STREAM(ev)\n",
	}))
	res, s := runOK(t, dir)
	incs := increments(res, "kept")
	wantCounts(t, "arrived", incs, arrived, 2, 4, 2)
	wantCounts(t, "late", incs, late, 0, 1, 1)
	wantCounts(t, "emitted", incs, emitted, 2, 3, 1)
	sameRows(t, "kept", rowsOf(t, s, "SELECT k FROM kept"), sortedRows("a", "b", "d", "e", "f", "h"))
}

func TestWindowedAppend(t *testing.T) {
	batches := clockBatches(
		// Watermark after: 10:07; window 10:00-10:10 still open.
		"x,2025-01-01 10:01:00\nx,2025-01-01 10:02:00\ny,2025-01-01 10:12:00\n",
		// 10:05 is behind 10:07 and late; 10:08 joins the open window.
		// Watermark after: 10:18, which closes 10:00-10:10.
		"x,2025-01-01 10:05:00\nx,2025-01-01 10:08:00\nz,2025-01-01 10:23:00\n",
		// Watermark after: 10:26, which closes 10:10-10:20; 10:20-10:30
		// stays open when the stream ends.
		"w,2025-01-01 10:31:00\n",
	)
	queries := map[string]string{
		"by_position": "SELECT time_bucket(INTERVAL 10 MINUTE, ts) AS w, count(*) AS n FROM STREAM(ev) GROUP BY 1",
		"alias":       "SELECT time_bucket(INTERVAL '10 minutes', ts) AS w, count(*) AS n FROM STREAM(ev) GROUP BY w",
		"same_expr":   "SELECT count(*) AS n, time_bucket('10 minutes'::INTERVAL, ts) AS w FROM STREAM(ev) GROUP BY time_bucket('10 minutes'::INTERVAL, ts)",
	}
	files := withFiles(batches, nil)
	for name, q := range queries {
		files[name+".sql"] = "-- @kind: streaming_table\n" + perFile + "-- @watermark: ts, 5 minutes\n" + q + "\n"
	}
	// Grouped without a window: a group is written once the watermark
	// passes its latest event.
	files["by_key.sql"] = "-- @kind: streaming_table\n" + perFile + "-- @watermark: ts, 5 minutes\nSELECT k, count(*) AS n FROM STREAM(ev) GROUP BY k\n"
	res, s := runOK(t, writePipeline(t, files))
	for name := range queries {
		incs := increments(res, name)
		wantCounts(t, name+" late", incs, late, 0, 1, 0)
		wantCounts(t, name+" emitted", incs, emitted, 0, 1, 1)
		sameRows(t, name, rowsOf(t, s, "SELECT w, n FROM "+name), sortedRows("2025-01-01 10:00:00|3", "2025-01-01 10:10:00|1"))
	}
	// by_key: after trigger 1 (watermark 10:07) x (latest 10:02) is
	// complete; y (10:12) is not. Trigger 2 (10:18): y. Trigger 3
	// (10:26): z (10:23); w (10:31) stays open.
	incs := increments(res, "by_key")
	wantCounts(t, "by_key emitted", incs, emitted, 1, 1, 1)
	sameRows(t, "by_key", tableRows(t, s, "by_key"), sortedRows("x|2", "y|1", "z|1"))
}

func TestStreamThroughView(t *testing.T) {
	dir := writePipeline(t, withFiles(evBatches, map[string]string{
		"samples/dim.csv": "k,label\na,Alpha\nb,Beta\nc,Gamma\n",
		"vv.sql":          "-- @kind: temporary_view\nSELECT e.k, e.v, d.label FROM ev AS e JOIN dim AS d USING (k) WHERE e.v > 1\n",
		"out.sql":         "-- @kind: streaming_table\n" + perFile + "SELECT * FROM STREAM(vv)\n",
	}))
	res, s := runOK(t, dir)
	incs := increments(res, "out")
	wantCounts(t, "arrived", incs, arrived, 2, 2, 2)
	wantCounts(t, "emitted", incs, emitted, 1, 2, 2)
	sameRows(t, "out", tableRows(t, s, "out"), sortedRows("b|2|Beta", "a|3|Alpha", "c|4|Gamma", "c|5|Gamma", "c|6|Gamma"))
}

func TestStreamExpectationsPerTrigger(t *testing.T) {
	dir := writePipeline(t, withFiles(evBatches, map[string]string{
		"checked.sql": "-- @kind: streaming_table\n" + perFile +
			"-- @expect.big: v > 2 ON VIOLATION DROP ROW\n-- @expect.not_c: k <> 'c'\nSELECT k, v FROM STREAM(ev)\n",
	}))
	res, s := runOK(t, dir)
	wantCounts(t, "emitted", increments(res, "checked"), emitted, 0, 2, 2)
	sameRows(t, "checked", tableRows(t, s, "checked"), sortedRows("a|3", "c|4", "c|5", "c|6"))
	got := map[string][2]int64{}
	for _, e := range res.Expectations {
		got[e.Name] = [2]int64{e.Violations, e.Dropped}
	}
	want := map[string][2]int64{"big": {2, 2}, "not_c": {3, 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("expectations %v, want one result each, summed over triggers: %v", got, want)
	}
}

func TestStreamErrors(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		edit  func(p *Session)
		want  string
	}{
		{"aggregate without watermark", clockBatches("a,2025-01-01 10:00:00\n"),
			nil, "needs a watermark"},
		{"watermark column missing", clockBatches("a,2025-01-01 10:00:00\n"),
			nil, "watermark column nope is not a column"},
		{"watermark column not a time", map[string]string{"samples/ev/b1.csv": "k,ts\na,soon\n"},
			nil, "must be a DATE or TIMESTAMP"},
	}
	queries := []string{
		"-- @kind: streaming_table\nSELECT k, count(*) AS n FROM STREAM(ev) GROUP BY k\n",
		"-- @kind: streaming_table\n-- @watermark: nope, 1 minute\nSELECT * FROM STREAM(ev)\n",
		"-- @kind: streaming_table\n-- @watermark: ts, 1 minute\nSELECT * FROM STREAM(ev)\n",
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := withFiles(c.files, map[string]string{"bad.sql": queries[i]})
			snap, s := load(t, writePipeline(t, files))
			res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d := res.Datasets["bad"]
			if d.Phase != Failed || !strings.Contains(d.Error, c.want) || !strings.Contains(d.Error, "flow bad") {
				t.Fatalf("got %s %q, want failed with %q naming the flow", d.Phase, d.Error, c.want)
			}
		})
	}
	t.Run("bad delay", func(t *testing.T) {
		files := withFiles(clockBatches("a,2025-01-01 10:00:00\n"), map[string]string{"bad.sql": queries[2]})
		snap, s := load(t, writePipeline(t, files))
		snap.Pipeline.FlowsInto("bad")[0].Watermark.Delay = "soonish"
		res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d := res.Datasets["bad"]; d.Phase != Failed || !strings.Contains(d.Error, `delay "soonish"`) {
			t.Fatalf("got %s %q", d.Phase, d.Error)
		}
	})
}
