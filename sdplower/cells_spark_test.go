package sdplower

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

// TestSparkMatrixCells confirms, on the server's version, the Spark cells
// of capab's matrix whose reason is the server's own behaviour (make
// test runs it on 4.1.4 and 4.3.0; docs/format.md §6 names the versions
// it passed on):
//
//   - a persistent view (CREATE VIEW) is accepted, as Lower sends it;
//   - CREATE SINK and CONSTRAINT ... EXPECT are syntax errors, so sinks
//     and expectations cannot come from SQL;
//   - a streaming table runs in append mode only (nothing in the protocol
//     or the SQL chooses update or complete): an aggregate with no
//     watermark fails with the append-mode error, and the run of a plain
//     streaming flow ends, as an available_now trigger does, so no trigger
//     interval is honoured.
func TestSparkMatrixCells(t *testing.T) {
	backend := sparktest.Backend(t)
	c := sparktest.Client(t)

	t.Run("persistent view", func(t *testing.T) {
		dir := writePipeline(t, map[string]string{
			"transformations/v.sql": "CREATE MATERIALIZED VIEW base AS SELECT 1 AS x;\nCREATE VIEW shown AS SELECT x FROM base;\n",
		})
		g, diags := Lower(load(t, dir).Pipeline, backend)
		if g == nil {
			t.Fatalf("Lower refused: %v", diags)
		}
		if _, _, err := push(t, g, Run{Dry: true}); err != nil {
			t.Fatalf("dry run of a persistent view on %s: %v", backend, err)
		}
	})

	for _, c := range []struct{ name, text string }{
		{"sink", "CREATE SINK out_sink AS SELECT 1 AS x;\n"},
		{"expectation", "CREATE MATERIALIZED VIEW checked (CONSTRAINT positive EXPECT (x > 0)) AS SELECT 1 AS x;\n"},
	} {
		t.Run(c.name+" in SQL", func(t *testing.T) {
			raw := &Graph{Name: "cells", Storage: "file://" + t.TempDir() + "/storage",
				Files: []*SQLFile{{Path: "transformations/c.sql", Text: c.text}}}
			_, _, err := push(t, raw, Run{Dry: true})
			if err == nil || !strings.Contains(err.Error(), "PARSE_SYNTAX_ERROR") {
				t.Errorf("%s on %s: %v; want PARSE_SYNTAX_ERROR (if Spark now reads it, its matrix cell changes)", strings.TrimSpace(c.text), backend, err)
			}
		})
	}

	t.Run("append only", func(t *testing.T) {
		// No retry of the failing flow (Spark retries twice, waiting 5 s
		// and 10 s, by default).
		db, dir := streamSetup(t, c, "SET spark.sql.pipelines.maxFlowRetryAttempts = 0;\n"+
			"CREATE STREAMING TABLE kinds AS SELECT kind, count(*) AS n FROM STREAM(events) GROUP BY kind;\n"+
			"CREATE STREAMING TABLE copied AS SELECT id, kind FROM STREAM(events);\n")
		s := load(t, dir)
		raw := &Graph{Database: db, Storage: "file://" + dir + "/storage",
			Files: []*SQLFile{{Path: "transformations/st.sql", Text: mustText(t, s, "transformations/st.sql")}}}
		_, events, err := push(t, raw, Run{})
		text := fmt.Sprint(err)
		for _, e := range events {
			text += "\n" + e.Message
		}
		if err == nil || !strings.Contains(text, "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION") || !strings.Contains(strings.ToLower(text), "append") {
			t.Errorf("a streaming aggregate without watermark on %s: %v; want the append-mode error\n%s", backend, err, text)
		}
		done := false
		for _, e := range events {
			done = done || (e.Phase == Completed && e.Flow == "copied")
		}
		if !done || countRows(t, c, db+".copied") != 3 {
			t.Errorf("the plain streaming flow did not run to its end with the 3 rows (an available_now trigger ends); events:\n%s", text)
		}
	})
}
