package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestPythonInitLayout loads the layout `spark-pipelines init` writes: the
// Python dataset is a dataset of the graph, the SQL one reads it, and the
// native run is told to skip the Python one.
func TestPythonInitLayout(t *testing.T) {
	s, err := Load("../testdata/python_init", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.Diagnostics {
		if d.Severity == ir.Error || d.Severity == ir.Warning {
			t.Errorf("unexpected diagnostic: %+v", d)
		}
	}
	const pyFile = "transformations/example_python_materialized_view.py"
	d := s.Pipeline.Dataset("example_python_materialized_view")
	if d == nil {
		t.Fatalf("no Python dataset; datasets: %+v", s.Pipeline.Datasets)
	}
	text, _ := s.Text(pyFile)
	if d.Kind != ir.MaterializedView || d.Loc.File != pyFile || text[d.NameLoc.Start:d.NameLoc.End] != d.Name {
		t.Errorf("Python dataset = %+v", d)
	}
	flows := s.Pipeline.FlowsInto(d.Name)
	if len(flows) != 1 || flows[0].SQL != "" || flows[0].QueryLoc.File != pyFile {
		t.Errorf("Python flows = %+v", flows)
	}
	sqlFlows := s.Pipeline.FlowsInto("example_sql_materialized_view")
	if len(sqlFlows) != 1 || len(sqlFlows[0].Reads) != 1 || s.Pipeline.Resolve(sqlFlows[0].Reads[0].Name) != d {
		t.Errorf("the SQL dataset does not read the Python one: %+v", sqlFlows)
	}
	broken := s.Broken()
	if got := broken[ir.NameKey(d.Name)]; got != PythonNotRun {
		t.Errorf("Broken()[python] = %q, want %q", got, PythonNotRun)
	}
	if got, ok := broken["example_sql_materialized_view"]; ok {
		t.Errorf("the SQL dataset is blocked: %q", got)
	}
}

func TestPythonReadsAndUnknown(t *testing.T) {
	py := "import dlt\n\n@dlt.table(comment=\"bronze\")\ndef bronze():\n    return spark.readStream.table(\"landing\")\n\n" +
		"@dlt.view\ndef picked():\n    return dlt.read(NAME)\n"
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml":  "name: p\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/bronze.py":         py,
		"t/silver.sql":        "CREATE MATERIALIZED VIEW silver AS SELECT * FROM bronze JOIN missing USING (id)\n",
		"samples/landing.csv": "id\n1\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := s.Pipeline.FlowsInto("bronze")
	if len(f) != 1 || len(f[0].Reads) != 1 || !f[0].Streaming {
		t.Fatalf("bronze flows = %+v", f)
	}
	if r := f[0].Reads[0]; r.Name != "landing" || py[r.Loc.Start:r.Loc.End] != "landing" {
		t.Errorf("read = %+v", r)
	}
	unknown := findDiag(s, ir.CodeLibraryPython, "t/bronze.py")
	if unknown == nil || unknown.Severity != ir.Info || py[unknown.Loc.Start:unknown.Loc.Start+4] != "NAME" {
		t.Errorf("computed read diagnostic = %+v\n%s", unknown, strings.Join(diagStrings(s), "\n"))
	}
	// A Python read Thund cannot know may define `missing`: a warning.
	miss := findDiag(s, ir.CodeUnknownRef, "t/silver.sql")
	if miss == nil || miss.Severity != ir.Warning {
		t.Errorf("missing = %+v\n%s", miss, strings.Join(diagStrings(s), "\n"))
	}
}

func TestPythonSyntaxError(t *testing.T) {
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/a.py":             "from pyspark import pipelines as dp\n\n@dp.table\ndef a(:\n    pass\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := findDiag(s, ir.CodeLibraryPython, "t/a.py")
	if d == nil || d.Severity != ir.Info || !strings.Contains(d.Message, "cannot read") {
		t.Errorf("syntax diagnostic = %+v\n%s", d, strings.Join(diagStrings(s), "\n"))
	}
}

// TestPythonEdit renames the Python dataset in an editor's buffer: the SQL
// read of the old name becomes unknown, and of the new name known again.
func TestPythonEdit(t *testing.T) {
	s, err := Load("../testdata/python_init", Options{})
	if err != nil {
		t.Fatal(err)
	}
	const pyFile = "transformations/example_python_materialized_view.py"
	text, _ := s.Text(pyFile)
	renamed := strings.Replace(text, "def example_python_materialized_view", "def other_name", 1)
	n := s.Update([]Change{{Path: pyFile, Text: &renamed}})
	if n.Pipeline.Dataset("other_name") == nil || n.Pipeline.Dataset("example_python_materialized_view") != nil {
		t.Fatalf("datasets after the edit: %+v", n.Pipeline.Datasets)
	}
	d := findDiag(n, ir.CodeUnknownRef, "transformations/example_sql_materialized_view.sql")
	if d == nil || d.Severity != ir.Error {
		t.Errorf("unknown reference after the rename = %+v", d)
	}
	back := n.Update([]Change{{Path: pyFile, Text: &text}})
	if findDiag(back, ir.CodeUnknownRef, "transformations/example_sql_materialized_view.sql") != nil {
		t.Errorf("the reference stays unknown after the rename is undone:\n%s", strings.Join(diagStrings(back), "\n"))
	}
}
