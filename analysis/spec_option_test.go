package analysis

import (
	"path/filepath"
	"testing"
)

// Options.Spec names the spec whatever its name: its folder is the root,
// its globs select the libraries, and an edit of it (Update) is read as
// the spec's.
func TestLoadNamedSpec(t *testing.T) {
	spec := "name: p\nstorage: s\nlibraries:\n  - glob:\n      include: t/**\n"
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
	edited := "name: p\nstorage: s\nlibraries:\n  - glob:\n      include: u/**\n"
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
