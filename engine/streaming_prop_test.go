package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// propQueries are streaming queries whose final table must equal the
// batch result over the same rows.
var propQueries = map[string]struct{ mode, sql string }{
	// Append of non-aggregate queries, also a stream-static join.
	"ap":  {"append", "SELECT k, v, v * 2 AS v2 FROM STREAM(ev) WHERE v % 3 <> 0"},
	"apj": {"append", "SELECT e.k, d.label, e.v FROM STREAM(ev) AS e JOIN dim AS d ON e.k = d.k"},
	// Complete and update mode aggregates.
	"cm":  {"complete", "SELECT k, count(*) AS n, sum(v) AS s, min(w) AS mw FROM STREAM(ev) GROUP BY k"},
	"up":  {"update", "SELECT k, count(*) AS n, sum(v) AS s, max(w) AS mx FROM STREAM(ev) GROUP BY k"},
	"upn": {"update", "SELECT count(*) AS n, sum(v) AS s FROM STREAM(ev) GROUP BY k"},
	"cmh": {"complete", "SELECT k, count(*) AS n FROM STREAM(ev) GROUP BY k HAVING count(*) > 1"},
	"upe": {"update", "SELECT v % 4 AS bucket, count(*) AS n, list_sort(list(w)) AS ws FROM STREAM(ev) GROUP BY v % 4"},
	// Streams of a streaming table.
	"apc": {"append", "SELECT k, v2 FROM STREAM(ap) WHERE v2 > 0"},
	"upc": {"update", "SELECT k, sum(v2) AS t, count(*) AS n FROM STREAM(ap) GROUP BY ALL"},
}

var propTriggers = []string{"available_now", "once", "processing_time '1 second'", "continuous"}

// randomPipeline writes a stream of random micro-batches and the
// property queries, each with a random trigger.
func randomPipeline(t *testing.T, r *rand.Rand) string {
	files := map[string]string{
		"samples/dim.csv": "k,label\na,Alpha\nb,Beta\nd,Delta\n",
	}
	keys := []string{"a", "b", "c", ""}
	nfiles := 1 + r.IntN(5)
	for f := 0; f < nfiles; f++ {
		var b strings.Builder
		b.WriteString("k,v,w\n")
		for range 1 + r.IntN(8) {
			fmt.Fprintf(&b, "%s,%d,%d\n", keys[r.IntN(len(keys))], r.IntN(26)-5, r.IntN(4))
		}
		files[fmt.Sprintf("samples/ev/batch-%03d.csv", f)] = b.String()
	}
	for name, q := range propQueries {
		files[name+".sql"] = fmt.Sprintf("-- @kind: streaming_table\n-- @trigger: %s\n-- @output_mode: %s\n%s\n",
			propTriggers[r.IntN(len(propTriggers))], q.mode, q.sql)
	}
	return writePipeline(t, files)
}

// TestStreamingMatchesBatch: for append of a non-aggregate query and for
// complete and update mode aggregates, the streaming table after the last
// trigger equals the query run in batch over every row.
func TestStreamingMatchesBatch(t *testing.T) {
	runs := 16
	if testing.Short() {
		runs = 5
	}
	for seed := range runs {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		dir := randomPipeline(t, r)
		snap, s := loadClean(t, dir)
		res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for name := range propQueries {
			d := res.Datasets[name]
			if d == nil || d.Phase != Completed {
				t.Fatalf("seed %d: %s did not complete: %+v", seed, name, d)
			}
			f := snap.Pipeline.FlowsInto(name)[0]
			got := tableRows(t, s, name)
			want := rowsOf(t, s, "SELECT * FROM ("+f.Normalized+"\n)")
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("seed %d: %s (%s, %s trigger, %d increments):\n streamed %q\n batch    %q",
					seed, name, f.OutputMode, f.Trigger.Kind, len(increments(res, name)), got, want)
			}
		}
		s.Close()
	}
}
