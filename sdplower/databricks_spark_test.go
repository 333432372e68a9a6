package sdplower

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

// TestSparkDatabricksFormsRefused checks the capability matrix's Spark
// cells for Databricks' pipeline SQL against the server: each form is
// sent as a pipeline SQL file (DefineSqlGraphElements, where Spark parses
// it) or, for what Spark refuses when it analyses a query (read_files,
// LIVE.x), run as a query; Thund must refuse on this server's backend
// exactly the forms the server refuses, naming the construct. Passes on
// Spark 4.1.4 and 4.3.0.
func TestSparkDatabricksFormsRefused(t *testing.T) {
	c := sparktest.Client(t)
	backend := sparktest.Backend(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name    string
		feature capab.Feature
		sql     string
		// query is run as a query instead of defined (an analysis
		// error, not a parse error), with the error class Spark gives.
		query, class string
	}{
		{name: "plain materialized view", sql: "CREATE MATERIALIZED VIEW a AS SELECT 1 AS x"},
		{name: "or refresh", feature: capab.SynOrRefresh, sql: "CREATE OR REFRESH MATERIALIZED VIEW a AS SELECT 1 AS x"},
		{name: "or refresh streaming", feature: capab.SynOrRefresh, sql: "CREATE STREAMING TABLE s;\nCREATE OR REFRESH STREAMING TABLE b AS SELECT * FROM STREAM(s)"},
		{name: "private", feature: capab.SynPrivate, sql: "CREATE PRIVATE MATERIALIZED VIEW a AS SELECT 1 AS x"},
		{name: "temporary table", feature: capab.SynTemporary, sql: "CREATE STREAMING TABLE s;\nCREATE TEMPORARY STREAMING TABLE b AS SELECT * FROM STREAM(s)"},
		{name: "live table", feature: capab.SynLive, sql: "CREATE LIVE TABLE a AS SELECT 1 AS x"},
		{name: "streaming live table", feature: capab.SynLive, sql: "CREATE STREAMING TABLE s;\nCREATE STREAMING LIVE TABLE b AS SELECT * FROM STREAM(s)"},
		{name: "temporary live view", feature: capab.SynLive, sql: "CREATE TEMPORARY LIVE VIEW v AS SELECT 1 AS x"},
		{name: "expect", feature: capab.SynExpect, sql: "CREATE MATERIALIZED VIEW a (CONSTRAINT ok EXPECT (x > 0) ON VIOLATION DROP ROW) AS SELECT 1 AS x"},
		{name: "apply changes", feature: capab.SynApplyChanges, sql: "CREATE STREAMING TABLE s;\nCREATE STREAMING TABLE t;\nAPPLY CHANGES INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts"},
		{name: "auto cdc", feature: capab.SynAutoCDC, sql: "CREATE STREAMING TABLE s;\nCREATE STREAMING TABLE t;\nCREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts"},
		{name: "ignore null updates", feature: capab.SynIgnoreNulls, sql: "CREATE STREAMING TABLE s;\nCREATE STREAMING TABLE t;\nCREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts IGNORE NULL UPDATES"},
		{name: "insert into once", feature: capab.SynOnce, sql: "CREATE STREAMING TABLE t;\nCREATE FLOW f AS INSERT INTO ONCE t BY NAME SELECT 1 AS x"},
		{name: "read_files", feature: capab.SynReadFiles, sql: "CREATE MATERIALIZED VIEW a AS SELECT * FROM read_files('/tmp/thund_nothing', format => 'csv')",
			query: "SELECT * FROM read_files('/tmp/thund_nothing', format => 'csv')", class: "UNRESOLVABLE_TABLE_VALUED_FUNCTION"},
		{name: "cloud_files", feature: capab.SynCloudFiles, sql: "CREATE MATERIALIZED VIEW a AS SELECT * FROM cloud_files('/tmp/thund_nothing', 'json')",
			query: "SELECT * FROM cloud_files('/tmp/thund_nothing', 'json')", class: "UNRESOLVABLE_TABLE_VALUED_FUNCTION"},
		{name: "live reference", feature: capab.SynLiveRef, sql: "CREATE MATERIALIZED VIEW a AS SELECT 1 AS x;\nCREATE MATERIALIZED VIEW b AS SELECT * FROM LIVE.a",
			query: "SELECT * FROM LIVE.thund_nothing", class: "TABLE_OR_VIEW_NOT_FOUND"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.query != "" {
				err = c.SQL(ctx, tc.query)
				if err != nil && !strings.Contains(err.Error(), tc.class) {
					t.Fatalf("Spark refused %q, but not with %s: %v", tc.query, tc.class, err)
				}
			} else {
				graph, gerr := c.CreateDataflowGraph(ctx, "spark_catalog", "default", nil)
				if gerr != nil {
					t.Fatal(gerr)
				}
				defer c.DropDataflowGraph(context.Background(), graph)
				err = c.DefineSQLGraphElements(ctx, graph, "x.sql", tc.sql)
			}
			refused := err != nil
			dir := writePipeline(t, map[string]string{"transformations/x.sql": tc.sql})
			snap, lerr := analysis.Load(dir, analysis.Options{Backends: []ir.Backend{backend}})
			if lerr != nil {
				t.Fatal(lerr)
			}
			var thund []string
			for _, d := range snap.Diagnostics {
				if d.Code == ir.CodeUnsupported && d.Backend == backend && tc.feature != "" &&
					strings.Contains(d.Message, "uses "+string(tc.feature)+", which "+string(backend)+" cannot run") {
					thund = append(thund, d.Message)
				}
			}
			if refused != (len(thund) > 0) {
				t.Errorf("%s: Spark refused: %v (%v); Thund refuses %s: %q", backend, refused, err, tc.feature, thund)
			}
			// What docs/format.md §7 says: every form but the control is
			// refused, except AUTO CDC from Spark 4.3 on.
			want := tc.feature != "" && !(tc.feature == capab.SynAutoCDC && backend == ir.Spark43)
			if refused != want {
				t.Errorf("%s: Spark refused %s: %v, documented: %v (%v)", backend, tc.name, refused, want, err)
			}
		})
	}
}
