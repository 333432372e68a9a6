package sqlfront

import (
	"reflect"
	"testing"

	"github.com/thund-dev/thund/analysis/capab"
)

// In a notebook export, a statement that ends its cell with no ';' while
// another statement follows is recorded at its last token (Spark splits
// the file at ';' only); one ended by ';', the file's last one, and a
// query followed by more of its own statement are not.
func TestNotebookCellWithoutSemicolon(t *testing.T) {
	text := `-- Databricks notebook source
CREATE MATERIALIZED VIEW a AS SELECT 1 AS x

-- COMMAND ----------

-- MAGIC %md
-- MAGIC Notes

-- COMMAND ----------

CREATE MATERIALIZED VIEW b AS SELECT x FROM a;

-- COMMAND ----------

CREATE STREAMING TABLE c;
APPLY CHANGES INTO c FROM STREAM(s) KEYS (id) SEQUENCE BY seq

-- COMMAND ----------

CREATE MATERIALIZED VIEW d AS SELECT x FROM b
`
	f := Parse("nb.sql", text)
	if len(f.Diags) != 0 {
		t.Fatalf("diagnostics %+v", f.Diags)
	}
	var got []string
	for _, st := range f.Statements {
		for _, u := range features(text, st) {
			got = append(got, st.Name+": "+u)
		}
	}
	want := []string{"a: " + string(capab.SynCellNoSemicolon) + "=x", "c: " + string(capab.SynApplyChanges) + "=APPLY CHANGES INTO"}
	// APPLY CHANGES' source query is followed by the rest of its
	// statement, so nothing is said of it there (a statement without a
	// query is not checked).
	if !reflect.DeepEqual(got, want) {
		t.Errorf("constructs %q, want %q", got, want)
	}
	plain := "CREATE MATERIALIZED VIEW a AS SELECT 1 AS x\n\n-- COMMAND ----------\n\nCREATE MATERIALIZED VIEW b AS SELECT 2 AS x"
	for _, st := range Parse("plain.sql", plain).Statements {
		if fs := features(plain, st); len(fs) != 0 {
			t.Errorf("a file that is no notebook export: %q", fs)
		}
	}
}
