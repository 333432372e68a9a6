package capab

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestSparkAppendWatermark: in append mode Spark emits an aggregate's
// groups only when it groups by the watermarked column or a window of
// it; grouped otherwise (date_trunc, as testdata/clickstream does), the
// flow fails on the server with STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION,
// so it is refused before pushing, at the GROUP BY. What the check cannot
// follow is left alone.
func TestSparkAppendWatermark(t *testing.T) {
	const off = 100 // where the query starts in its file
	for _, c := range []struct {
		name  string
		sql   string
		inSQL bool
		mode  ir.OutputMode
		// refused is the GROUP BY's text when Spark refuses the flow,
		// "" when it runs.
		refused string
	}{
		{name: "date_trunc", sql: "SELECT date_trunc('minute', event_time) AS m, page, count(*) AS n FROM STREAM(clicks) GROUP BY date_trunc('minute', event_time), page",
			refused: "GROUP BY date_trunc('minute', event_time), page"},
		{name: "date_trunc by alias", sql: "SELECT date_trunc('minute', event_time) AS m, count(*) AS n FROM STREAM(clicks) GROUP BY m",
			refused: "GROUP BY m"},
		{name: "ordinal", sql: "SELECT date_trunc('minute', event_time) AS m, count(*) AS n FROM STREAM(clicks) GROUP BY 1",
			refused: "GROUP BY 1"},
		{name: "other column", sql: "SELECT page, count(*) AS n FROM STREAM clicks GROUP BY page",
			refused: "GROUP BY page"},
		{name: "window", sql: "SELECT window.start AS m, page, count(*) AS n FROM STREAM(clicks) GROUP BY window(event_time, '1 minute'), page"},
		{name: "window by alias", sql: "SELECT window(event_time, '1 minute') AS w, count(*) AS n FROM STREAM(clicks) GROUP BY w"},
		{name: "session_window", sql: "SELECT user_id, count(*) AS n FROM STREAM(clicks) GROUP BY user_id, session_window(c.event_time, '3 minutes')"},
		{name: "the column", sql: "SELECT event_time, count(*) AS n FROM STREAM(clicks) GROUP BY event_time"},
		{name: "renamed in a subquery", sql: "SELECT t, count(*) AS n FROM (SELECT event_time AS t FROM STREAM(clicks)) GROUP BY t"},
		{name: "computed in a subquery", sql: "SELECT m, count(*) AS n FROM (SELECT date_trunc('minute', event_time) AS m FROM STREAM(clicks)) GROUP BY m",
			refused: "GROUP BY m"},
		{name: "through a CTE's star", sql: "WITH c AS (SELECT * FROM STREAM(clicks)) SELECT window(event_time, '1 minute') AS w, count(*) AS n FROM c GROUP BY window(event_time, '1 minute')"},
		{name: "GROUP BY ALL", sql: "SELECT page, count(*) AS n FROM STREAM(clicks) GROUP BY ALL"},
		{name: "ROLLUP", sql: "SELECT page, count(*) AS n FROM STREAM(clicks) GROUP BY ROLLUP(page)"},
		{name: "update mode", sql: "SELECT page, count(*) AS n FROM STREAM(clicks) GROUP BY page", mode: ir.Update},
		{name: "own clause", inSQL: true, sql: "SELECT date_trunc('minute', event_time) AS m, count(*) AS n FROM STREAM(clicks) WATERMARK event_time DELAY OF INTERVAL 2 MINUTES GROUP BY date_trunc('minute', event_time)",
			refused: "GROUP BY date_trunc('minute', event_time)"},
		{name: "own clause, window", inSQL: true, sql: "SELECT window.start AS m, count(*) AS n FROM STREAM(clicks) WATERMARK event_time DELAY OF INTERVAL 2 MINUTES GROUP BY window(event_time, '1 minute')"},
		{name: "joined with a batch table", sql: "SELECT u.plan, count(*) AS n FROM STREAM(clicks) AS c JOIN users AS u ON u.user_id = c.user_id GROUP BY u.plan",
			refused: "GROUP BY u.plan"},
		{name: "syntax error", sql: "SELECT page, count(*) FROM STREAM(clicks) GROUP BY GROUP BY page"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &ir.Flow{Name: "views", SQL: c.sql, Streaming: true, Aggregates: true, OutputMode: c.mode,
				QueryLoc:  ir.Loc{File: "views.sql", Start: off, End: off + len(c.sql)},
				AggLoc:    ir.Loc{File: "views.sql", Start: off, End: off + 6},
				Watermark: &ir.Watermark{Column: "event_time", Delay: "2 minutes", InSQL: c.inSQL, Loc: ir.Loc{File: "views.sql", Start: 10, End: 30}}}
			p := pipelineWith(&ir.Dataset{Name: "views", Kind: ir.StreamingTable}, f)
			for _, b := range ir.SparkBackends {
				var got []ir.Diagnostic
				for _, d := range Check(p, []ir.Backend{b}) {
					switch {
					case strings.Contains(d.Message, "STREAMING_OUTPUT_MODE"):
						got = append(got, d)
					case c.mode == "":
						// Nothing else in these flows is refused.
						t.Errorf("%s: %+v", b, d)
					}
				}
				if c.refused == "" {
					if len(got) != 0 {
						t.Errorf("%s: %+v, want it to run", b, got)
					}
					continue
				}
				if len(got) != 1 {
					t.Fatalf("%s: %+v, want one error", b, got)
				}
				d := got[0]
				if at := c.sql[d.Loc.Start-off : d.Loc.End-off]; at != c.refused || d.Loc.File != "views.sql" {
					t.Errorf("%s: at %q in %s, want %q", b, at, d.Loc.File, c.refused)
				}
				for _, want := range []string{"STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION", "window(event_time, '1 minute')", string(b), "`-- @backends: native`"} {
					if !strings.Contains(d.Message, want) {
						t.Errorf("%s: %q does not say %q", b, d.Message, want)
					}
				}
				if d.Severity != ir.Error || d.Code != ir.CodeUnsupported {
					t.Errorf("%s: %+v, want an unsupported error", b, d)
				}
			}
			if ds := Check(p, []ir.Backend{ir.Native}); len(ds) != 0 {
				t.Errorf("native: %+v, want no finding (it closes date_trunc groups)", ds)
			}
		})
	}
}
