package sqlfront

import (
	"strings"
	"testing"
)

// TestParsePipelineParameters reads statements whose names and queries
// hold pipeline parameters: the names are the substituted ones, their
// ranges the text as written; a read_files path is substituted; an unset
// parameter is an error at its reference.
func TestParsePipelineParameters(t *testing.T) {
	vars := map[string]string{"stage": "raw", "catalog": "main", "schema": "sales", "landing": "/Volumes/main/raw"}
	text := "CREATE MATERIALIZED VIEW ${stage}_summary AS SELECT count(*) AS n FROM ${stage}_trips;\n" +
		"CREATE MATERIALIZED VIEW ${catalog}.${schema}.x AS SELECT * FROM STREAM read_files('${landing}/orders', format => 'csv');\n" +
		"CREATE FLOW ${stage}_flow AS INSERT INTO ${stage}_target BY NAME SELECT 1 AS a;\n" +
		"CREATE MATERIALIZED VIEW y AS SELECT '${nope}' AS a;\n" +
		"CREATE MATERIALIZED VIEW ${stag}_z AS SELECT 1 AS a;\n"
	f := ParsePipeline("p.sql", text, DialectSpark, vars)
	if len(f.Statements) != 5 {
		t.Fatalf("%d statements", len(f.Statements))
	}
	at := func(sp Span) string { return text[sp.Start:sp.End] }
	s0, s1, s2 := f.Statements[0], f.Statements[1], f.Statements[2]
	if s0.Name != "raw_summary" || at(s0.NameLoc) != "${stage}_summary" {
		t.Errorf("name %q at %q", s0.Name, at(s0.NameLoc))
	}
	if q := s0.Query; q == nil || len(q.Refs) != 1 || q.Refs[0].Name != "raw_trips" || text[q.Refs[0].Loc.Start:q.Refs[0].Loc.End] != "${stage}_trips" {
		t.Errorf("refs of the first query: %+v", s0.Query)
	}
	if s1.Name != "main.sales.x" || at(s1.NameLoc) != "${catalog}.${schema}.x" {
		t.Errorf("name %q at %q", s1.Name, at(s1.NameLoc))
	}
	if q := s1.Query; q == nil || len(q.FileReads) != 1 || q.FileReads[0].Path != "/Volumes/main/raw/orders" {
		t.Errorf("file read: %+v", s1.Query)
	}
	if s2.Name != "raw_flow" || s2.Target != "raw_target" || at(s2.TargetLoc) != "${stage}_target" {
		t.Errorf("flow %q into %q at %q", s2.Name, s2.Target, at(s2.TargetLoc))
	}
	if len(f.Diags) != 2 || text[f.Diags[0].Loc.Start:f.Diags[0].Loc.End] != "${nope}" ||
		!strings.Contains(f.Diags[0].Message, "${nope} is not set") ||
		text[f.Diags[1].Loc.Start:f.Diags[1].Loc.End] != "${stag}" || !strings.Contains(f.Diags[1].Message, "did you mean ${stage}?") {
		t.Errorf("diagnostics: %+v", f.Diags)
	}
	// without parameters, the same text is read as Spark reads it with no
	// configuration: each ${...} an unset parameter
	plain := ParseDialect("p.sql", text, DialectSpark)
	if len(plain.Diags) == 0 || !strings.Contains(plain.Diags[0].Message, "is not set") {
		t.Errorf("without parameters: %+v", plain.Diags)
	}
}

// TestParametersNoNativeCheck: a query with ${key} is not checked as
// written against DuckDB's grammar (the substituted tree is what runs).
func TestParametersNoNativeCheck(t *testing.T) {
	text := "CREATE STREAMING TABLE s AS SELECT id FROM STREAM(${src}.events) WHERE n > ${min};\n"
	f := ParsePipeline("s.sql", text, DialectSpark, map[string]string{"src": "landing", "min": "1"})
	q := f.Statements[0].Query
	if len(f.Diags) > 0 || q == nil || q.Spark == nil {
		t.Fatalf("diags %v, query %+v", f.Diags, q)
	}
	if d := q.CheckNative(); len(d) > 0 || q.SparkOnly != nil {
		t.Errorf("native check of a query with parameters: %v, SparkOnly %v", d, q.SparkOnly)
	}
	if len(q.Refs) != 1 || q.Refs[0].Name != "landing.events" || !q.Refs[0].Streaming {
		t.Errorf("refs %+v", q.Refs)
	}
}
