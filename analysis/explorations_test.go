package analysis

import (
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestExplorationsKeepUnknownReferencesErrors checks that the info saying
// a Lakeflow editor folder's explorations/ is not analysed does not count
// as Python code that might define datasets: an unknown table in
// transformations/ stays an error (it became a warning blaming Python
// code, in a folder with no .py file at all).
func TestExplorationsKeepUnknownReferencesErrors(t *testing.T) {
	root := writeTree(t, map[string]string{
		"thund.yaml":                 "dialect: databricks\n",
		"samples/a.csv":              "id\n1\n",
		"transformations/silver.sql": "CREATE OR REFRESH MATERIALIZED VIEW silver AS SELECT id FROM aa\n",
		"explorations/scratch.sql":   "SELECT * FROM silver\n",
		"explorations/notebook.py":   "display(spark.table('silver'))\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	info := findDiag(s, ir.CodeLibraryExcluded, "explorations/notebook.py")
	if info == nil || info.Severity != ir.Info {
		t.Fatalf("no library-not-in-pipeline info for explorations/:\n%v", diagStrings(s))
	}
	ref := findDiag(s, ir.CodeUnknownRef, "transformations/silver.sql")
	if ref == nil || ref.Severity != ir.Error {
		t.Fatalf("the unknown table aa is not an error:\n%v", diagStrings(s))
	}
}
