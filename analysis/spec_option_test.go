package analysis

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// Options.Spec names the spec whatever its name: its folder is the root,
// its globs select the libraries, and an edit of it (Update) is read as
// the spec's.
func TestLoadNamedSpec(t *testing.T) {
	spec := "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n"
	dir := writeTree(t, map[string]string{
		"spark-pipelines.yaml": spec,
		"t/a.sql":              "CREATE MATERIALIZED VIEW a AS SELECT 1 AS id;\n",
		"u/b.sql":              "CREATE MATERIALIZED VIEW b AS SELECT 2 AS id;\n",
	})
	snap, err := Load(dir, Options{Spec: filepath.Join(dir, "spark-pipelines.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Project.HasSpec || snap.Project.SpecFile != "spark-pipelines.yaml" || len(snap.Libraries) != 1 || snap.Libraries[0] != "t/a.sql" {
		t.Fatalf("spec %q, libraries %v", snap.Project.SpecFile, snap.Libraries)
	}
	if len(snap.Diagnostics) != 0 {
		t.Fatalf("diagnostics %+v", snap.Diagnostics)
	}
	edited := "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: u/**\n"
	next := snap.Update([]Change{{Path: "spark-pipelines.yaml", Text: &edited}})
	if len(next.Libraries) != 1 || next.Libraries[0] != "u/b.sql" || next.Pipeline.Dataset("b") == nil {
		t.Fatalf("after editing the spec: libraries %v", next.Libraries)
	}
	// Without Spec the same folder has no spec: every .sql file, and a
	// warning on the file that reads like one.
	plain, err := Load(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Project.HasSpec || len(plain.Libraries) != 2 || len(plain.Project.SpecCandidates) != 1 {
		t.Fatalf("without Spec: spec %v, libraries %v, candidates %v", plain.Project.HasSpec, plain.Libraries, plain.Project.SpecCandidates)
	}
}

// TestDatabricksBackendReadsPythonWithoutSpec: a folder with no spec and
// no bundle, checked against databricks (`--backend databricks`), reads
// its .py files as Databricks runs them, so a SQL dataset reading a
// Python one finds it; checked against Spark, the file is read too (it
// imports dlt, so it can only be a Databricks pipeline's source), and the
// import is the error there.
func TestDatabricksBackendReadsPythonWithoutSpec(t *testing.T) {
	root := writeTree(t, map[string]string{
		"transformations/bronze.py": "import dlt\n\n@dlt.table\ndef bronze():\n    return spark.readStream.table(\"landing\")\n",
		"transformations/gold.sql":  "CREATE OR REFRESH MATERIALIZED VIEW gold AS SELECT count(*) AS n FROM bronze;\n",
	})
	s, err := Load(root, Options{Backends: []ir.Backend{ir.Databricks}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Pipeline.Dataset("bronze") == nil {
		t.Fatalf("databricks: bronze is no dataset; libraries %v", s.Libraries)
	}
	for _, d := range s.Diagnostics {
		if strings.Contains(d.Message, "bronze") && strings.Contains(d.Message, "not a dataset") {
			t.Errorf("databricks: %v", d)
		}
	}
	s, err = Load(root, Options{Backends: []ir.Backend{ir.Spark41}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Pipeline.Dataset("bronze") == nil {
		t.Fatalf("spark-4.1: bronze is no dataset; libraries %v", s.Libraries)
	}
	var dlt bool
	for _, d := range s.Diagnostics {
		if strings.Contains(d.Message, "bronze is not a dataset") {
			t.Errorf("spark-4.1: %v", d)
		}
		dlt = dlt || d.Severity == ir.Error && d.Loc.File == "transformations/bronze.py" && strings.Contains(d.Message, "No module named 'dlt'")
	}
	if !dlt {
		t.Errorf("spark-4.1: no error at import dlt: %v", diagStrings(s))
	}
}

// TestLibraryOutsideFolderIsNoEmptyPipeline: a spec whose only library
// leaves the folder (../shared/**, which spark-pipelines loads) gets the
// path-outside-root warning, not a false RUN_EMPTY_PIPELINE error: the
// files Thund does not read may well define datasets (QA Q9).
func TestLibraryOutsideFolderIsNoEmptyPipeline(t *testing.T) {
	root := writeTree(t, map[string]string{
		"shared/a.sql":            "CREATE MATERIALIZED VIEW a AS SELECT 1 AS x;\n",
		"pipe/spark-pipeline.yml": "name: p\nstorage: file:///tmp/p/st\nlibraries:\n  - glob:\n      include: ../shared/**\n",
	})
	s, err := Load(filepath.Join(root, "pipe"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var outside bool
	for _, d := range s.Diagnostics {
		if strings.Contains(d.Message, "RUN_EMPTY_PIPELINE") || d.Severity == ir.Error {
			t.Errorf("false error: %s", d.Message)
		}
		outside = outside || d.Code == ir.CodePathEscape && d.Severity == ir.Warning
	}
	if !outside {
		t.Errorf("no path-outside-root warning: %v", diagStrings(s))
	}
}
