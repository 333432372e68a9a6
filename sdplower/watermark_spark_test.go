package sdplower

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

// TestSparkWatermarkGrouping keeps capab's appendWatermark rule honest on
// the server's version: an @watermark pragma is written into the flow as
// its WATERMARK clause; grouped by a window(...) of the column, the
// append-mode aggregate runs and writes the minutes the watermark has
// passed; grouped by date_trunc of it, Lower refuses the flow at its GROUP
// BY, and the same query pushed anyway fails on Spark with the error the
// refusal quotes.
func TestSparkWatermarkGrouping(t *testing.T) {
	c := sparktest.Client(t)
	backend := sparktest.Backend(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	db := fmt.Sprintf("thund_wm_%d", time.Now().UnixNano())
	for _, q := range []string{
		"CREATE DATABASE " + db,
		"CREATE TABLE " + db + ".clicks (ts TIMESTAMP, page STRING) USING parquet",
		// Minutes 09:00 (two clicks) and 09:01 end before the watermark,
		// 09:05:30 minus two minutes; minute 09:05 stays open.
		"INSERT INTO " + db + ".clicks VALUES (TIMESTAMP '2025-03-03 09:00:05', '/a'), (TIMESTAMP '2025-03-03 09:00:50', '/a'), " +
			"(TIMESTAMP '2025-03-03 09:01:10', '/b'), (TIMESTAMP '2025-03-03 09:05:30', '/a')",
	} {
		if err := c.SQL(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { _ = c.SQL(context.Background(), "DROP DATABASE "+db+" CASCADE") })
	const head = "-- @kind: streaming_table\n-- @watermark: ts, 2 minutes\n"
	lower := func(query string) (string, *Graph, error) {
		dir := writePipeline(t, map[string]string{"transformations/per_minute.sql": head + query})
		spec := filepath.Join(dir, "spark-pipeline.yml")
		b, _ := os.ReadFile(spec)
		if err := os.WriteFile(spec, append(b, []byte("database: "+db+"\nconfiguration:\n  spark.sql.session.timeZone: UTC\n")...), 0o644); err != nil {
			t.Fatal(err)
		}
		s := load(t, dir)
		g, diags := Lower(s.Pipeline, backend)
		if g == nil {
			return dir, nil, fmt.Errorf("%v", diags)
		}
		return dir, g, nil
	}

	truncated := "SELECT date_trunc('minute', ts) AS minute_start, count(*) AS views\nFROM STREAM(clicks)\nGROUP BY date_trunc('minute', ts)\n"
	_, _, err := lower(truncated)
	if err == nil || !strings.Contains(err.Error(), "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION") {
		t.Fatalf("Lower of the date_trunc-grouped flow: %v; want the append-mode refusal", err)
	}

	windowed := "SELECT window.start AS minute_start, count(*) AS views\nFROM STREAM(clicks)\nGROUP BY window(ts, '1 minute')\n"
	dir, g, err := lower(windowed)
	if err != nil {
		t.Fatalf("Lower of the windowed flow refused: %v", err)
	}
	if len(g.Flows) != 1 || !strings.Contains(g.Flows[0].SQL, "FROM STREAM(clicks) WATERMARK ts DELAY OF INTERVAL 2 MINUTES") {
		t.Fatalf("flows %+v, want the pragma written after the stream", g.Flows)
	}
	if _, events, err := push(t, g, Run{Storage: "file://" + dir + "/storage"}); err != nil {
		for _, e := range events {
			t.Logf("event: %s", e.Message)
		}
		t.Fatalf("windowed run on %s: %v", backend, err)
	}
	if rows := countRows(t, c, db+".per_minute"); rows != 2 {
		t.Errorf("per_minute has %d rows, want 2 (09:00 and 09:01; 09:05 is still open)", rows)
	}
	if n := countRows(t, c, db+".per_minute WHERE minute_start = TIMESTAMP '2025-03-03 09:00:00' AND views = 2"); n != 1 {
		t.Errorf("per_minute has no row 09:00 with 2 views")
	}

	// The date_trunc form as Spark would receive it, pushed anyway.
	g.Flows[0].SQL = strings.Replace(g.Flows[0].SQL, "window.start", "date_trunc('minute', ts)", 1)
	g.Flows[0].SQL = strings.Replace(g.Flows[0].SQL, "GROUP BY window(ts, '1 minute')", "GROUP BY date_trunc('minute', ts)", 1)
	g.Outputs[0].Name, g.Flows[0].Name, g.Flows[0].Target = "per_minute_trunc", "per_minute_trunc", "per_minute_trunc"
	// No retry of the failing flow (Spark retries twice, waiting 5 s and
	// 10 s, by default).
	g.Flows[0].Conf = map[string]string{"spark.sql.pipelines.maxFlowRetryAttempts": "0"}
	_, events, err := push(t, g, Run{Storage: "file://" + dir + "/storage2"})
	text := fmt.Sprint(err)
	for _, e := range events {
		text += "\n" + e.Message
	}
	if err == nil || !strings.Contains(text, "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION") {
		t.Errorf("the date_trunc-grouped flow on %s: %v; want STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION (if Spark now runs it, relax capab's appendWatermark)\n%s", backend, err, text)
	}
}
