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
	// Spark: "Syntax error at or near 'AUTO': missing '('"
	{"CREATE MATERIALIZED VIEW m CLUSTER BY AUTO AS SELECT 1 AS a", "AUTO"},
	{"CREATE TABLE t (a INT) COMMENT 'c' CLUSTER BY NONE", "NONE"},
	// Spark 4.3 reads FLOW AUTO CDC and stops after FLOW (4.1 at FLOW,
	// TestDatabricksFlows)
	{"CREATE STREAMING TABLE t FLOW INSERT ONCE BY NAME SELECT * FROM STREAM(s)", "INSERT"},
	{"CREATE STREAMING TABLE t FLOW REPLACE WHERE day = current_date() BY NAME SELECT * FROM STREAM(s)", "REPLACE"},
}

// A streaming table's FLOW INSERT [ONCE] BY NAME and FLOW REPLACE WHERE
// flows are read into the tree on databricks; Spark 4.1 stops at FLOW
// (pyspark 4.1.4's spark-pipelines dry-run), and a materialized view has
// no such flow.
func TestDatabricksFlows(t *testing.T) {
	opts := Options{Databricks: true}
	st, errs := ParseStatement(databricksForms[len(databricksForms)-1].sql, opts)
	c, ok := st.(*ast.Create)
	if len(errs) > 0 || !ok || c.ReplaceWhere == nil || c.FlowInsert || c.Query == nil || ast.Format(c.ReplaceWhere) != "day = current_date()" {
		t.Errorf("REPLACE WHERE: %+v %v", st, errs)
	}
	st, errs = ParseStatement(databricksForms[len(databricksForms)-2].sql, opts)
	if c, ok := st.(*ast.Create); len(errs) > 0 || !ok || !c.FlowInsert || !c.FlowOnce || c.ReplaceWhere != nil || c.Query == nil {
		t.Errorf("FLOW INSERT ONCE: %+v %v", st, errs)
	}
	src := "CREATE STREAMING TABLE t FLOW REPLACE WHERE a > 1 BY NAME SELECT 1 AS a"
	if _, errs := ParseStatement(src, Options{Version: Spark41}); len(errs) != 1 || src[errs[0].Start:errs[0].End] != "FLOW" {
		t.Errorf("spark 4.1: %v", errs)
	}
	if _, errs := ParseStatement("CREATE STREAMING TABLE t FLOW INSERT SELECT 1", opts); len(errs) != 1 || !strings.Contains(errs[0].Message, "'SELECT'") {
		t.Errorf("no BY NAME: %v", errs)
	}
	if _, errs := ParseStatement("CREATE MATERIALIZED VIEW m FLOW INSERT BY NAME SELECT 1", opts); len(errs) != 1 {
		t.Errorf("materialized view: %v", errs)
	}
}

// CLUSTER BY AUTO | NONE is kept in the tree (ClusterMode) and printed
// back; a list still needs its parentheses.
func TestClusterMode(t *testing.T) {
	opts := Options{Databricks: true}
	st, errs := ParseStatement("CREATE STREAMING TABLE t CLUSTER BY auto AS SELECT * FROM STREAM(s)", opts)
	if c, ok := st.(*ast.Create); len(errs) > 0 || !ok || c.ClusterMode != "AUTO" || c.ClusterBy != nil {
		t.Errorf("CLUSTER BY auto: %+v %v", st, errs)
	} else if got := ast.Format(c); !strings.Contains(got, "CLUSTER BY AUTO AS") {
		t.Errorf("format: %s", got)
	}
	st, _ = ParseStatement("CREATE TABLE t (a INT) CLUSTER BY (a)", opts)
	if c := st.(*ast.Create); c.ClusterMode != "" || len(c.ClusterBy) != 1 {
		t.Errorf("CLUSTER BY (a): %+v", c)
	}
	_, errs = ParseStatement("CREATE TABLE t (a INT) CLUSTER BY a", opts)
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "expected '('") {
		t.Errorf("CLUSTER BY a: %v", errs)
	}
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

// TestCreatePipelineRefusals checks what Spark refuses in a pipeline
// dataset's CREATE statement (each message checked with Spark 4.1.4's
// spark-pipelines dry-run), at the clause, on every Spark version, and
// that the databricks grammar does not refuse it here.
func TestCreatePipelineRefusals(t *testing.T) {
	cases := []struct{ sql, at, class, words string }{
		{"CREATE MATERIALIZED VIEW m LOCATION '/tmp/x' AS SELECT 1 AS id", "LOCATION '/tmp/x'", "_LEGACY_ERROR_TEMP_0035",
			"specifying location is not supported for CREATE MATERIALIZED VIEW statements"},
		{"CREATE STREAMING TABLE s COMMENT 'c' LOCATION 'p' AS SELECT * FROM STREAM(x)", "LOCATION 'p'", "_LEGACY_ERROR_TEMP_0035",
			"specifying location is not supported for CREATE STREAMING TABLE statements"},
	}
	for _, v := range []Version{Spark41, Spark42, Spark43} {
		for _, c := range cases {
			_, errs := ParseStatement(c.sql, Options{Version: v})
			if len(errs) != 1 || errs[0].Class != c.class || c.sql[errs[0].Start:errs[0].End] != c.at ||
				!strings.Contains(errs[0].Message, c.words) {
				t.Errorf("%v: %s: %v, want %s at %q saying %q", v, c.sql, errs, c.class, c.at, c.words)
			}
		}
	}
	for _, c := range cases {
		if _, errs := ParseStatement(c.sql, Options{Databricks: true}); len(errs) > 0 {
			t.Errorf("databricks: %s: %s", c.sql, errs[0].Message)
		}
	}
	// plain partition columns, and LOCATION on a CREATE TABLE, stay
	for _, ok := range []string{
		"CREATE MATERIALIZED VIEW m PARTITIONED BY (id) AS SELECT 1 AS id",
		"CREATE TABLE t (id INT) USING parquet PARTITIONED BY (id) LOCATION '/tmp/t'",
		"CREATE TABLE t (id INT) USING iceberg PARTITIONED BY (bucket(4, id))",
	} {
		if _, errs := ParseStatement(ok, Options{Version: Spark41}); len(errs) > 0 {
			t.Errorf("%s: %s", ok, errs[0].Message)
		}
	}
}

// TestRegistrationErrors checks the refusals of Spark's pipeline graph
// registration (spark-pipelines dry-run, 4.1.4), which its parser
// accepts.
func TestRegistrationErrors(t *testing.T) {
	for _, c := range []struct{ sql, at string }{
		{"CREATE MATERIALIZED VIEW m PARTITIONED BY (years(ts)) AS SELECT current_timestamp() AS ts", "years(ts)"},
		{"CREATE STREAMING TABLE s PARTITIONED BY (id, bucket(4, id)) AS SELECT * FROM STREAM(x)", "bucket(4, id)"},
	} {
		st, errs := ParseStatement(c.sql, Options{Version: Spark41})
		if len(errs) > 0 {
			t.Fatalf("%s: the parser refuses it: %s", c.sql, errs[0].Message)
		}
		got := RegistrationErrors(st, c.sql)
		if len(got) != 1 || got[0].Class != "PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR" || c.sql[got[0].Start:got[0].End] != c.at ||
			!strings.Contains(got[0].Message, "invalid partitioning transform ("+c.at+")") {
			t.Errorf("%s: %v, want the invalid transform %s", c.sql, got, c.at)
		}
	}
	cdc := "CREATE STREAMING TABLE t (id BIGINT, ts BIGINT) FLOW AUTO CDC FROM STREAM(s) KEYS (id) SEQUENCE BY ts"
	st, errs := ParseStatement(cdc, Options{Version: Spark43})
	if len(errs) > 0 {
		t.Fatalf("%s: %s", cdc, errs[0].Message)
	}
	if got := RegistrationErrors(st, cdc); len(got) != 1 || cdc[got[0].Start:got[0].End] != "id BIGINT, ts BIGINT" ||
		!strings.Contains(got[0].Message, "explicit column lists are not supported for AUTO CDC streaming tables") {
		t.Errorf("%s: %v, want the column list refused", cdc, got)
	}
	for _, ok := range []string{
		"CREATE MATERIALIZED VIEW m PARTITIONED BY (id) AS SELECT 1 AS id",
		"CREATE TABLE t (id INT) USING iceberg PARTITIONED BY (bucket(4, id))",
		"CREATE STREAMING TABLE t FLOW AUTO CDC FROM STREAM(s) KEYS (id) SEQUENCE BY ts",
		"CREATE STREAMING TABLE t (id BIGINT, ts BIGINT)",
	} {
		st, _ := ParseStatement(ok, Options{Version: Spark43})
		if got := RegistrationErrors(st, ok); len(got) > 0 {
			t.Errorf("%s: %s", ok, got[0].Message)
		}
	}
}
