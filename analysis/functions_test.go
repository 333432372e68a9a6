package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// A call of a function no Spark release has is Spark's UNRESOLVED_ROUTINE
// at the name, with the nearest Spark function as the fix; a catalog's
// function (qualified) and read_files are not checked; Databricks alone
// hears only of names close to a Spark function (it has functions Spark
// lacks), and a pipeline with Python files gets a warning (a UDF may be
// registered there).
func TestUnknownFunctions(t *testing.T) {
	sql := "CREATE MATERIALIZED VIEW a AS SELECT lenght(x) AS l, ai_summarize(x) AS s, main.fns.score(x) AS q, upper(x) AS u FROM VALUES ('a') AS v(x);\n" +
		"CREATE MATERIALIZED VIEW b AS SELECT * FROM read_files('/data/b', format => 'csv');\n"
	found := func(files map[string]string, backends []ir.Backend) map[string]ir.Severity {
		s, err := Load(writeTree(t, files), Options{Backends: backends})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]ir.Severity{}
		for _, d := range s.Diagnostics {
			if strings.HasPrefix(d.Message, "[UNRESOLVED_ROUTINE]") {
				name := strings.Fields(d.Message)[5]
				out[name] = d.Severity
				if name == "lenght" && (len(d.Suggestions) != 1 || d.Suggestions[0] != "length" || !strings.Contains(d.Message, "did you mean length?")) {
					t.Errorf("lenght: %q %v, want did you mean length", d.Message, d.Suggestions)
				}
				if text, _ := s.Text(d.Loc.File); name == "lenght" && text[d.Loc.Start:d.Loc.End] != "lenght" {
					t.Errorf("range %q, want the name", text[d.Loc.Start:d.Loc.End])
				}
			}
		}
		return out
	}
	sqlOnly := map[string]string{"a.sql": sql}
	got := found(sqlOnly, []ir.Backend{ir.Native, ir.Spark43})
	if len(got) != 2 || got["lenght"] != ir.Error || got["ai_summarize"] != ir.Error {
		t.Errorf("spark-4.3: %v, want lenght and ai_summarize errors only", got)
	}
	got = found(sqlOnly, []ir.Backend{ir.Native, ir.Databricks})
	if len(got) != 1 || got["lenght"] != ir.Warning {
		t.Errorf("databricks: %v, want lenght alone, a warning", got)
	}
	withPython := map[string]string{"transformations/a.sql": sql, "transformations/udfs.py": "from pyspark import pipelines as dp\n",
		"spark-pipeline.yml": "name: p\nstorage: file:///tmp/p\nlibraries:\n  - glob:\n      include: transformations/**\n"}
	got = found(withPython, []ir.Backend{ir.Native, ir.Spark41})
	if got["lenght"] != ir.Warning || got["ai_summarize"] != ir.Warning {
		t.Errorf("with a Python file: %v, want warnings", got)
	}
}
