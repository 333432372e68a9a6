package parser

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
)

// TestQualifyVersions checks Spark 4.2's QUALIFY clause against what the
// parsers of pyspark 4.1.4 (refuses it), 4.2.1 and 4.3.0 (accept it) do.
func TestQualifyVersions(t *testing.T) {
	ok := []string{
		"SELECT a FROM t QUALIFY row_number() OVER (ORDER BY a) = 1",
		"SELECT a FROM t WHERE a > 1 GROUP BY a HAVING a > 0 QUALIFY rank() OVER (ORDER BY a) = 1",
		"SELECT a FROM t WINDOW w AS (ORDER BY a) QUALIFY rank() OVER w = 1",
		"SELECT a FROM t QUALIFY rank() OVER w = 1 WINDOW w AS (ORDER BY a)",
		"SELECT a FROM t QUALIFY a > 1 ORDER BY a LIMIT 1",
		"SELECT a QUALIFY a > 1",
		"FROM t SELECT a QUALIFY a > 1",
		"SELECT a FROM t LATERAL VIEW explode(x) e AS y QUALIFY y > 1",
	}
	for _, sql := range ok {
		if _, errs := ParseStatement(sql, Options{}); len(errs) == 0 {
			t.Errorf("4.1: %s parses, want a syntax error", sql)
		}
		for _, v := range []Version{Spark42, Spark43} {
			if _, errs := ParseStatement(sql, Options{Version: v}); len(errs) > 0 {
				t.Errorf("%s: %s: %s", v, sql, errs[0].Message)
			}
		}
		roundTripAt(t, sql, Options{Version: Spark42})
	}
	// QUALIFY alone at the end is an alias in every version; twice is an error
	for _, v := range []Version{Spark41, Spark42, Spark43} {
		if _, errs := ParseStatement("SELECT a FROM t qualify", Options{Version: v}); len(errs) > 0 {
			t.Errorf("%s: the alias qualify: %s", v, errs[0].Message)
		}
	}
	_, errs := ParseStatement("SELECT a FROM t QUALIFY a > 1 QUALIFY a > 2", Options{Version: Spark42})
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Message, "syntax error at or near 'QUALIFY'") {
		t.Errorf("a doubled QUALIFY: %v", errs)
	}
	st, _ := ParseStatement(ok[3], Options{Version: Spark42})
	s := st.(*ast.QueryStmt).Query.Body.(*ast.Select)
	if s.Qualify == nil || ok[3][s.Qualify.Span().Start:s.Qualify.Span().End] != "rank() OVER w = 1" || len(s.Windows) != 1 {
		t.Errorf("QUALIFY before WINDOW: %+v", s)
	}
}

// TestPipelineDatasetChecks checks what Spark's AST builder refuses in
// CREATE MATERIALIZED VIEW | STREAMING TABLE and temporary views, per
// version (each case checked against pyspark 4.1.4, 4.2.1 and 4.3.0).
func TestPipelineDatasetChecks(t *testing.T) {
	for _, c := range []struct {
		sql   string
		v     Version
		class string // "" when the statement parses
	}{
		{"CREATE MATERIALIZED VIEW mv (x INT, CONSTRAINT pk PRIMARY KEY (x)) AS SELECT 1 AS x", Spark41, "_LEGACY_ERROR_TEMP_0035"},
		{"CREATE STREAMING TABLE st (a INT CHECK (a > 0)) AS SELECT 1", Spark43, "_LEGACY_ERROR_TEMP_0035"},
		{"CREATE MATERIALIZED VIEW mv OPTIONS (a 'b') AS SELECT 1", Spark41, "_LEGACY_ERROR_TEMP_0035"},
		{"CREATE MATERIALIZED VIEW mv CLUSTER BY (a) PARTITIONED BY (b) AS SELECT 1", Spark41, "SPECIFY_CLUSTER_BY_WITH_PARTITIONED_BY_IS_NOT_ALLOWED"},
		{"CREATE TABLE t (a INT, b INT) USING parquet CLUSTER BY (a) PARTITIONED BY (b)", Spark42, "SPECIFY_CLUSTER_BY_WITH_PARTITIONED_BY_IS_NOT_ALLOWED"},
		{"CREATE OR REPLACE MATERIALIZED VIEW mv AS SELECT 1", Spark41, "PARSE_SYNTAX_ERROR"},
		{"CREATE OR REPLACE STREAMING TABLE st AS SELECT 1", Spark43, "PARSE_SYNTAX_ERROR"},
		{"CREATE MATERIALIZED VIEW mv COMMENT \"Orders per day\" PARTITIONED BY (x, bucket(4, y)) TBLPROPERTIES ('k' = 'v', \"k2\" = \"v\") AS SELECT 1 AS x", Spark41, ""},
		{"CREATE TEMPORARY VIEW a.v AS SELECT 1", Spark41, "TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS"},
		{"CREATE TEMPORARY VIEW session.v AS SELECT 1", Spark41, "TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS"},
		{"CREATE TEMPORARY VIEW system.session.v AS SELECT 1", Spark41, "IDENTIFIER_TOO_MANY_NAME_PARTS"},
		{"CREATE TEMPORARY VIEW a.v AS SELECT 1", Spark42, "INVALID_TEMP_OBJ_QUALIFIER"},
		{"CREATE GLOBAL TEMPORARY VIEW a.v AS SELECT 1", Spark43, "INVALID_TEMP_OBJ_QUALIFIER"},
		{"CREATE TEMPORARY VIEW session.v AS SELECT 1", Spark42, ""},
		{"CREATE TEMPORARY VIEW system.session.v AS SELECT 1", Spark43, ""},
	} {
		_, errs := ParseStatement(c.sql, Options{Version: c.v})
		switch {
		case c.class == "" && len(errs) > 0:
			t.Errorf("%s: %s: %s", c.v, c.sql, errs[0].Message)
		case c.class != "" && (len(errs) != 1 || errs[0].Class != c.class):
			t.Errorf("%s: %s: %v, want %s", c.v, c.sql, errs, c.class)
		}
	}
}
