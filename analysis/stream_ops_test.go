package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestStreamUnsupportedOperations: a streaming table's flow with a window
// function or an ORDER BY over its stream is an error at the call or
// clause, on every backend (Spark's UnsupportedOperationChecker refuses
// both; the native engine would compute them per micro-batch); a window
// over a static CTE joined to the stream, an ORDER BY of a materialized
// view, and a UNION ALL of two streams (no join: no watermark warning)
// are fine.
func TestStreamUnsupportedOperations(t *testing.T) {
	root := writeTree(t, map[string]string{
		"samples/ev/001.csv":  "user_id,page,ts\n1,home,2025-01-01 10:00:00\n",
		"samples/ev2/001.csv": "user_id,page,ts\n2,cart,2025-01-01 10:00:00\n",
		"samples/dim.csv":     "user_id,name,v\n1,a,1\n",
		"a.sql": "CREATE STREAMING TABLE ranked AS SELECT user_id, row_number() OVER (PARTITION BY user_id ORDER BY ts) AS rn FROM STREAM(ev);\n" +
			"CREATE STREAMING TABLE sorted AS SELECT * FROM STREAM(ev) ORDER BY ts;\n" +
			"CREATE STREAMING TABLE enriched AS WITH d AS (SELECT user_id, name, row_number() OVER (PARTITION BY user_id ORDER BY v) AS r FROM dim) SELECT e.user_id, d.name FROM STREAM(ev) AS e JOIN d ON e.user_id = d.user_id AND d.r = 1;\n" +
			"CREATE STREAMING TABLE both AS SELECT user_id, page FROM STREAM(ev) UNION ALL SELECT user_id, page FROM STREAM(ev2);\n" +
			"CREATE MATERIALIZED VIEW latest AS SELECT user_id, row_number() OVER (ORDER BY user_id) AS n FROM ranked ORDER BY user_id;\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := s.Text("a.sql")
	want := map[string]bool{"row_number() OVER (PARTITION BY user_id ORDER BY ts)": false, "ts": false}
	for _, d := range s.Diagnostics {
		at := text[d.Loc.Start:d.Loc.End]
		switch {
		case d.Code == ir.CodeStreamUnsupportedOp:
			if _, ok := want[at]; !ok || d.Severity != ir.Error || d.Backend != "" {
				t.Errorf("unexpected %s at %q (%s)", d.Severity, at, d.Message)
			}
			want[at] = true
			if !strings.Contains(d.Message, "reads ev in full") {
				t.Errorf("the fix does not name the stream's input: %s", d.Message)
			}
		case d.Code == ir.CodeStreamJoinWatermark:
			t.Errorf("a watermark warning for a flow that joins no streams: %s", d.Message)
		}
	}
	for at, seen := range want {
		if !seen {
			t.Errorf("no stream-unsupported-operation at %q: %v", at, diagStrings(s))
		}
	}
}

// TestStreamAggregateFixOnDatabricks: against databricks, the fix for a
// stream aggregated without a watermark is the WATERMARK clause or a
// materialized view, not Thund's pragmas (Databricks reads them as
// comments).
func TestStreamAggregateFixOnDatabricks(t *testing.T) {
	root := writeTree(t, map[string]string{
		"thund.yaml":         "dialect: databricks\n",
		"samples/ev/001.csv": "user_id,ts\n1,2025-01-01 10:00:00\n",
		"a.sql":              "CREATE OR REFRESH STREAMING TABLE n AS SELECT user_id, count(*) AS c FROM STREAM(ev) GROUP BY user_id;\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range s.Diagnostics {
		if d.Code == ir.CodeStreamAggNoWatermark {
			found = true
			if strings.Contains(d.Message, "-- @") || !strings.Contains(d.Message, "materialized view") {
				t.Errorf("fix: %s", d.Message)
			}
		}
	}
	if !found {
		t.Errorf("no stream-aggregate-needs-watermark: %v", diagStrings(s))
	}
}
