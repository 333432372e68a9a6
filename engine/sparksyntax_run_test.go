package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestRunSparkOnlySyntax: batch queries in Spark syntax that DuckDB's
// parser rejects as written (RLIKE, LATERAL VIEW, array(...), DIV,
// * EXCEPT, a table named with a word DuckDB reserves) run natively through
// the translator, with Spark's results; the guard checks the translated
// statement the run executes.
func TestRunSparkOnlySyntax(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "samples", "src.csv"), "id,name,tags\n1,ab,x;y\n7,ba,z\n")
	writeTestFile(t, filepath.Join(root, "samples", "pivot.csv"), "id\n3\n")
	writeTestFile(t, filepath.Join(root, "q.sql"), `CREATE MATERIALIZED VIEW rl AS SELECT id FROM src WHERE name RLIKE '^a';
CREATE MATERIALIZED VIEW lv AS SELECT id, x FROM src LATERAL VIEW explode(split(tags, ';')) t AS x;
CREATE MATERIALIZED VIEW ar AS SELECT id, array(id, 2)[1] AS second FROM src;
CREATE MATERIALIZED VIEW dv AS SELECT id DIV 2 AS h FROM src;
CREATE MATERIALIZED VIEW ex AS WITH r AS (SELECT *, 1 AS _rn FROM src) SELECT * EXCEPT (_rn, tags) FROM r WHERE _rn = 1;
CREATE MATERIALIZED VIEW pv AS SELECT * FROM pivot;
`)
	snap, s := load(t, root)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"rl": {"1"},
		"lv": sortedRows("1|x", "1|y", "7|z"),
		"ar": sortedRows("1|2", "7|2"),
		"dv": sortedRows("0", "3"),
		"ex": sortedRows("1|ab", "7|ba"),
		"pv": {"3"},
	}
	for name, rows := range want {
		if r := res.Datasets[name]; r == nil || r.Phase != Completed {
			t.Errorf("%s did not complete: %+v", name, r)
			continue
		}
		sameRows(t, name, tableRows(t, s, name), rows)
	}
}

// TestRunGeneratedColumns: a declared identity column is the table's to
// number (unique values; no query gives it); a column generated from an
// expression is refused natively with the reason, before anything runs.
func TestRunGeneratedColumns(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "dialect: databricks\n")
	writeTestFile(t, filepath.Join(root, "q.sql"), `CREATE OR REFRESH MATERIALIZED VIEW ids (k BIGINT GENERATED ALWAYS AS IDENTITY, name STRING) AS SELECT 'a' AS name UNION ALL SELECT 'b';
CREATE OR REFRESH MATERIALIZED VIEW gen (name STRING, n INT GENERATED ALWAYS AS (length(name))) AS SELECT 'a' AS name;
`)
	snap, s := load(t, root)
	for _, d := range snap.Diagnostics {
		if d.Severity == ir.Error {
			t.Errorf("--check: %s", d.Message)
		}
	}
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Datasets["ids"]; r == nil || r.Phase != Completed {
		t.Fatalf("ids: %+v", r)
	}
	sameRows(t, "ids", rowsOf(t, s, "SELECT count(DISTINCT k), count(*) FROM ids"), []string{"2|2"})
	if r := res.Datasets["gen"]; r == nil || r.Phase != Failed || !strings.Contains(r.Error, "generated column n") {
		t.Errorf("gen: %+v", r)
	}
}
