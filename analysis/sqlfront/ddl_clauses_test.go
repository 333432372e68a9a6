package sqlfront

import (
	"testing"

	"github.com/thund-dev/thund/analysis/capab"
)

// Each Databricks clause and each clause Spark's registration refuses is
// read without error and recorded as its construct, at the clause.
func TestClauseConstructs(t *testing.T) {
	for _, c := range []struct {
		text    string
		feature capab.Feature
		at      string
	}{
		{"CREATE MATERIALIZED VIEW m LOCATION '/x' AS SELECT 1 AS id", capab.SynLocation, "LOCATION '/x'"},
		{"CREATE MATERIALIZED VIEW m PARTITIONED BY (years(ts), k) AS SELECT 1 AS k", capab.SynPartitionTransform, "years(ts)"},
		{"CREATE MATERIALIZED VIEW m PARTITIONED BY (bucket(4, id)) AS SELECT 1 AS id", capab.SynPartitionTransform, "bucket(4, id)"},
		{"CREATE MATERIALIZED VIEW m CLUSTER BY (id, k) AS SELECT 1 AS id, 2 AS k", capab.SynClusterBy, "CLUSTER BY (id, k)"},
		{"CREATE TEMPORARY VIEW db.v AS SELECT 1 AS id", capab.SynTempViewQualified, "db.v"},
		{"CREATE TEMPORARY VIEW session.v AS SELECT 1 AS id", capab.SynTempViewSession, "session.v"},
		{"CREATE STREAMING TABLE t (id BIGINT) FLOW AUTO CDC FROM STREAM(s) KEYS (id) SEQUENCE BY ts", capab.SynAutoCDCColumns, "(id BIGINT)"},
		{"CREATE MATERIALIZED VIEW m (id INT MASK m.f USING COLUMNS (k), k INT) AS SELECT 1 AS id, 2 AS k", capab.SynColumnMask, "MASK m.f USING COLUMNS (k)"},
		{"CREATE MATERIALIZED VIEW m WITH ROW FILTER f ON (id, 'x') AS SELECT 1 AS id", capab.SynRowFilter, "WITH ROW FILTER f ON (id, 'x')"},
		{"CREATE STREAMING TABLE t SCHEDULE REFRESH EVERY 2 HOURS AS SELECT * FROM STREAM(s)", capab.SynSchedule, "SCHEDULE REFRESH EVERY 2 HOURS"},
		{"CREATE STREAMING TABLE t SCHEDULE CRON '0 0 * * * ?' AT TIME ZONE 'UTC' AS SELECT * FROM STREAM(s)", capab.SynSchedule, "SCHEDULE CRON '0 0 * * * ?' AT TIME ZONE 'UTC'"},
		{"CREATE MATERIALIZED VIEW m TRIGGER ON UPDATE AS SELECT 1 AS id", capab.SynSchedule, "TRIGGER ON UPDATE"},
		{"CREATE MATERIALIZED VIEW m REFRESH POLICY INCREMENTAL STRICT AS SELECT 1 AS id", capab.SynRefreshPolicy, "REFRESH POLICY INCREMENTAL STRICT"},
		{"CREATE STREAMING TABLE t FLOW INSERT BY NAME SELECT * FROM STREAM(s)", capab.SynFlowInsert, "FLOW INSERT BY NAME"},
		{"APPLY CHANGES INTO t FROM SNAPSHOT snap KEYS (id) STORED AS SCD TYPE 2", capab.SynSnapshotCDC, "FROM SNAPSHOT"},
		{"CREATE FLOW f AS AUTO CDC INTO t FROM SNAPSHOT snap KEYS (id)", capab.SynSnapshotCDC, "FROM SNAPSHOT"},
	} {
		f := Parse("a.sql", c.text)
		if len(f.Diags) > 0 {
			t.Errorf("%s: %v", c.text, f.Diags)
			continue
		}
		st := f.Statements[0]
		found := false
		for _, u := range st.Syntax {
			if u.Feature == c.feature && c.text[u.Start:u.End] == c.at {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no %q at %q in %+v", c.text, c.feature, c.at, st.Syntax)
		}
	}
}

// The table's own flow of FLOW INSERT BY NAME, the snapshot flow's read,
// and the columns of a list holding a MASK are read.
func TestClauseContents(t *testing.T) {
	f := Parse("a.sql", "CREATE STREAMING TABLE t FLOW INSERT BY NAME SELECT * FROM STREAM(s)")
	if st := f.Statements[0]; st.Query == nil || len(st.Query.Refs) != 1 || st.Query.Refs[0].Name != "s" || !st.Query.Refs[0].Streaming || !st.ByName {
		t.Errorf("FLOW INSERT: %+v", st.Query)
	}
	f = Parse("a.sql", "APPLY CHANGES INTO LIVE.t FROM SNAPSHOT snap KEYS (id)")
	if st := f.Statements[0]; st.Target != "t" || st.Query == nil || len(st.Query.Refs) != 1 || st.Query.Refs[0].Name != "snap" {
		t.Errorf("FROM SNAPSHOT: target %q, query %+v", st.Target, st.Query)
	}
	f = Parse("a.sql", "CREATE MATERIALIZED VIEW m (id INT MASK f, name STRING NOT NULL) WITH ROW FILTER g ON (id) AS SELECT 1 AS id, 'a' AS name")
	if d := f.Statements[0].Declared; len(d) != 2 || d[1].Name != "name" || !d[1].NotNull {
		t.Errorf("columns with a MASK: %+v", d)
	}
}
