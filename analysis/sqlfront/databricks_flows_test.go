package sqlfront

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/capab"
)

// hasSyntax reports whether uses hold feature f at text[at].
func hasSyntax(text string, uses []SyntaxUse, f capab.Feature, at string) bool {
	for _, u := range uses {
		if u.Feature == f && text[u.Start:u.End] == at {
			return true
		}
	}
	return false
}

// CLUSTER BY AUTO and CLUSTER BY NONE take no column list: read without
// error on both dataset kinds, recorded at the clause, with no clustering
// columns.
func TestClusterByAutoNone(t *testing.T) {
	for _, c := range []struct{ text, at string }{
		{"CREATE OR REFRESH STREAMING TABLE t CLUSTER BY AUTO AS SELECT * FROM STREAM(s)", "CLUSTER BY AUTO"},
		{"CREATE MATERIALIZED VIEW m COMMENT 'x' CLUSTER BY none TBLPROPERTIES ('a' = 'b') AS SELECT 1 AS a", "CLUSTER BY none"},
	} {
		f := Parse("a.sql", c.text)
		if len(f.Diags) > 0 {
			t.Errorf("%s: %v", c.text, f.Diags)
			continue
		}
		st := f.Statements[0]
		if !hasSyntax(c.text, st.Syntax, capab.SynClusterAuto, c.at) || len(st.ClusterBy) != 0 || st.Query == nil {
			t.Errorf("%s: syntax %+v, cluster %v, query %v", c.text, st.Syntax, st.ClusterBy, st.Query)
		}
	}
	// a list is still needed after CLUSTER BY otherwise
	f := Parse("a.sql", "CREATE MATERIALIZED VIEW m CLUSTER BY automatic AS SELECT 1 AS a")
	if len(f.Diags) != 1 || !strings.Contains(f.Diags[0].Message, "CLUSTER BY needs a parenthesised column list") {
		t.Errorf("CLUSTER BY automatic: %v", f.Diags)
	}
}

// FLOW REPLACE WHERE predicate BY NAME query is the table's own flow:
// its query's reads are the flow's, the clause is recorded, and a
// predicate Spark cannot read or a missing BY NAME is an error at its
// place.
func TestFlowReplaceWhere(t *testing.T) {
	text := "CREATE OR REFRESH STREAMING TABLE t FLOW REPLACE WHERE day = (SELECT max(day) FROM d) BY NAME SELECT * FROM STREAM(s)"
	f := Parse("a.sql", text)
	if len(f.Diags) > 0 {
		t.Fatalf("%v", f.Diags)
	}
	st := f.Statements[0]
	if !hasSyntax(text, st.Syntax, capab.SynFlowReplaceWhere, "FLOW REPLACE WHERE day = (SELECT max(day) FROM d) BY NAME") ||
		st.Query == nil || len(st.Query.Refs) != 1 || st.Query.Refs[0].Name != "s" || !st.Query.Refs[0].Streaming || !st.ByName {
		t.Errorf("syntax %+v, query %+v", st.Syntax, st.Query)
	}
	for _, c := range []struct{ text, at, words string }{
		{"CREATE STREAMING TABLE t FLOW REPLACE WHERE a > AND b BY NAME SELECT * FROM STREAM(s)", "b", "in the REPLACE WHERE predicate"},
		{"CREATE STREAMING TABLE t FLOW REPLACE WHERE a > 1 SELECT * FROM STREAM(s)", "a", "needs a predicate and BY NAME"},
		{"CREATE STREAMING TABLE t FLOW REPLACE WHERE BY NAME SELECT * FROM STREAM(s)", "BY", "needs a predicate before BY NAME"},
		{"CREATE STREAMING TABLE t FLOW REPLACE WHERE a > 1 BY NAME", "NAME", "expected a query"},
	} {
		f := Parse("a.sql", c.text)
		if len(f.Diags) != 1 || c.text[f.Diags[0].Loc.Start:f.Diags[0].Loc.End] != c.at || !strings.Contains(f.Diags[0].Message, c.words) {
			t.Errorf("%s: %v, want an error at %q saying %q", c.text, f.Diags, c.at, c.words)
		}
	}
	// a materialized view has no such flow
	f = Parse("a.sql", "CREATE MATERIALIZED VIEW m FLOW REPLACE WHERE a > 1 BY NAME SELECT 1 AS a")
	if len(f.Diags) != 1 || !strings.Contains(f.Diags[0].Message, `unexpected "FLOW"`) {
		t.Errorf("materialized view: %v", f.Diags)
	}
}

// STREAM read_kafka(...) is a streaming read of the source named after
// the subscribed topic, at the call, recorded as a construct; a call
// without a single topic reads the source kafka, and a topic named like
// the dataset itself is renamed so the dataset does not read itself.
func TestReadKafka(t *testing.T) {
	for _, c := range []struct{ text, call, name string }{
		{"CREATE OR REFRESH STREAMING TABLE raw AS SELECT value::string AS v FROM STREAM read_kafka(bootstrapServers => 'h:9092', subscribe => 'orders', startingOffsets => 'earliest')",
			"read_kafka(bootstrapServers => 'h:9092', subscribe => 'orders', startingOffsets => 'earliest')", "orders"},
		{"CREATE STREAMING TABLE raw AS SELECT * FROM STREAM(read_kafka(bootstrapServers => 'h:9092', subscribePattern => 'o.*'))",
			"read_kafka(bootstrapServers => 'h:9092', subscribePattern => 'o.*')", "kafka"},
		{"CREATE STREAMING TABLE orders AS SELECT * FROM STREAM read_kafka(bootstrapServers => 'h', subscribe => 'orders')",
			"read_kafka(bootstrapServers => 'h', subscribe => 'orders')", "orders_kafka"},
	} {
		f := Parse("a.sql", c.text)
		if len(f.Diags) > 0 {
			t.Errorf("%s: %v", c.text, f.Diags)
			continue
		}
		q := f.Statements[0].Query
		if q == nil || len(q.Refs) != 1 {
			t.Errorf("%s: query %+v", c.text, q)
			continue
		}
		r := q.Refs[0]
		if r.Name != c.name || !r.Streaming || r.Path != "" || c.text[r.Loc.Start:r.Loc.End] != c.call {
			t.Errorf("%s: read %+v, want %s streaming at the call", c.text, r, c.name)
		}
		if !hasSyntax(c.text, q.Syntax, capab.SynReadKafka, "read_kafka") {
			t.Errorf("%s: syntax %+v", c.text, q.Syntax)
		}
	}
	// a batch read (no STREAM) is a batch read of the topic's source
	text := "CREATE MATERIALIZED VIEW m AS SELECT * FROM read_kafka(bootstrapServers => 'h', subscribe => 'clicks')"
	f := Parse("a.sql", text)
	if q := f.Statements[0].Query; len(f.Diags) > 0 || q == nil || len(q.Refs) != 1 || q.Refs[0].Name != "clicks" || q.Refs[0].Streaming {
		t.Errorf("batch read_kafka: %v %+v", f.Diags, q)
	}
}

// A declared identity or generated column is recorded at its definition;
// a DEFAULT is not (Spark's pipelines read it).
func TestGeneratedColumnConstructs(t *testing.T) {
	text := "CREATE OR REFRESH MATERIALIZED VIEW m (id BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH 1), n INT GENERATED ALWAYS AS (a + 1), a INT DEFAULT 5) AS SELECT 1 AS a"
	f := Parse("a.sql", text)
	if len(f.Diags) > 0 {
		t.Fatalf("%v", f.Diags)
	}
	st := f.Statements[0]
	if !hasSyntax(text, st.Syntax, capab.SynIdentityColumn, "id BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH 1)") ||
		!hasSyntax(text, st.Syntax, capab.SynGeneratedColumn, "n INT GENERATED ALWAYS AS (a + 1)") || len(st.Syntax) != 3 {
		t.Errorf("syntax %+v", st.Syntax)
	}
}
