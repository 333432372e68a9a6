package parser

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// databricksForms are Databricks-only statements with the token where
// Spark (pyspark 4.1.4 and 4.3.0 alike) reports its syntax error.
var databricksForms = []struct{ sql, at string }{
	{"CREATE OR REFRESH STREAMING TABLE t AS SELECT * FROM STREAM(s)", "REFRESH"},
	{"CREATE OR REFRESH PRIVATE MATERIALIZED VIEW t AS SELECT 1", "REFRESH"},
	{"CREATE PRIVATE MATERIALIZED VIEW t AS SELECT 1", "PRIVATE"},
	{"CREATE LIVE TABLE t AS SELECT 1", "LIVE"},
	{"CREATE STREAMING LIVE TABLE t AS SELECT * FROM STREAM(s)", "LIVE"},
	{"CREATE TEMPORARY LIVE VIEW v AS SELECT 1", "LIVE"},
	{"CREATE MATERIALIZED VIEW t (a INT, CONSTRAINT c EXPECT (a > 0) ON VIOLATION DROP ROW) AS SELECT 1 AS a", "EXPECT"},
	{"APPLY CHANGES INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY ts APPLY AS TRUNCATE WHEN op = 'T' IGNORE NULL UPDATES STORED AS SCD TYPE 2", "APPLY"},
}

func TestDatabricksSwitch(t *testing.T) {
	for _, c := range databricksForms {
		_, errs := ParseStatement(c.sql, Options{Version: Spark43})
		if len(errs) != 1 || errs[0].Class != "PARSE_SYNTAX_ERROR" || c.sql[errs[0].Start:errs[0].End] != c.at ||
			!strings.Contains(errs[0].Message, "is Databricks SQL (Lakeflow Declarative Pipelines), not Spark") {
			t.Errorf("spark: %s: %v, want a syntax error at %s naming the Databricks form", c.sql, errs, c.at)
		}
		if _, errs := ParseStatement(c.sql, Options{Databricks: true}); len(errs) > 0 {
			t.Errorf("databricks: %s: %s", c.sql, errs[0].Message)
		}
		roundTripAt(t, c.sql, Options{Databricks: true})
	}
	// AUTO CDC is Databricks SQL whatever the Spark version
	if _, errs := ParseStatement(autoCDCOK[0], Options{Databricks: true}); len(errs) > 0 {
		t.Errorf("databricks: %s: %s", autoCDCOK[0], errs[0].Message)
	}
}

func TestDatabricksTree(t *testing.T) {
	opts := Options{Databricks: true}
	st, _ := ParseStatement("CREATE OR REFRESH PRIVATE MATERIALIZED VIEW t "+
		"(a INT, CONSTRAINT c EXPECT (a > 0) ON VIOLATION FAIL UPDATE, CONSTRAINT d EXPECT (a < 9)) AS SELECT 1 AS a", opts)
	c := st.(*ast.Create)
	if !c.OrRefresh || !c.Private || c.Kind != ast.CreateMaterializedView || len(c.Constraints) != 2 ||
		c.Constraints[0].Kind != "EXPECT" || c.Constraints[0].OnViolation != "FAIL UPDATE" || c.Constraints[0].Check == nil ||
		c.Constraints[1].OnViolation != "" {
		t.Errorf("CREATE OR REFRESH PRIVATE ... EXPECT: %+v", c)
	}
	st, _ = ParseStatement("CREATE STREAMING LIVE TABLE t AS SELECT * FROM STREAM(s)", opts)
	if c := st.(*ast.Create); !c.Live || c.Kind != ast.CreateStreamingTable {
		t.Errorf("STREAMING LIVE TABLE: %+v", c)
	}
	st, _ = ParseStatement(databricksForms[7].sql, opts)
	a := st.(*ast.ApplyChanges).CDC
	if a.Target.String() != "t" || a.TruncateWhen == nil || !a.IgnoreNullUpdates || a.SCDType != 2 {
		t.Errorf("APPLY CHANGES: %+v", a)
	}
}
