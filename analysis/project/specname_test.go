package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

const otherSpec = "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n"

// A spec named on the command line (spark-pipelines run --spec) makes
// its folder the root, even below a folder holding spark-pipeline.yml;
// a path that is not a file is an error naming Spark's class.
func TestFindRootSpec(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{filepath.Join(dir, SpecYML): otherSpec, filepath.Join(sub, "spark-pipelines.yaml"): otherSpec} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := filepath.Join(sub, "spark-pipelines.yaml")
	if root, err := FindRootSpec(sub, spec); err != nil || root != sub {
		t.Fatalf("FindRootSpec = %q, %v; want %q", root, err, sub)
	}
	if root, err := FindRootSpec(sub, ""); err != nil || root != dir {
		t.Fatalf("without a spec the root is the folder holding spark-pipeline.yml: %q, %v", root, err)
	}
	if _, err := FindRootSpec(sub, filepath.Join(sub, "nope.yml")); err == nil || !strings.Contains(err.Error(), "PIPELINE_SPEC_FILE_DOES_NOT_EXIST") {
		t.Fatalf("a missing spec: %v", err)
	}
	if got := SpecPath(sub, spec); got != "spark-pipelines.yaml" {
		t.Fatalf("SpecPath = %q", got)
	}
	if got := Files([]string{"a.sql", "pipe.yml", "t/x.yml"}, "spark-pipelines.yaml"); !strings.Contains(strings.Join(got, " "), "spark-pipelines.yaml pipe.yml") || strings.Contains(strings.Join(got, " "), "t/x.yml") {
		t.Fatalf("Files = %v: want the named spec and root-level YAML files only", got)
	}
}

// The named spec is read whatever its name, its findings carry that name,
// and spark-pipeline.yml beside it is not read (spark-pipelines reads
// only the --spec file).
func TestFromTextsSpec(t *testing.T) {
	texts := map[string][]byte{
		"spark-pipelines.yaml": []byte(otherSpec + "librarie: []\n"),
		SpecYML:                []byte("name: other\nstorage: file:///s\n"),
	}
	p := FromTextsSpec("/r", texts, "spark-pipelines.yaml")
	if !p.HasSpec || p.SpecFile != "spark-pipelines.yaml" || p.Spec.Name != "p" || len(p.Spec.Libraries) != 1 {
		t.Fatalf("project %+v", p)
	}
	if len(p.Diags) != 1 || p.Diags[0].Code != ir.CodeSpecUnknown || p.Diags[0].Loc.File != "spark-pipelines.yaml" {
		t.Fatalf("diags %+v, want the unknown key of spark-pipelines.yaml only", p.Diags)
	}
	files := []string{"t/a.sql", "x.sql"}
	libs, _ := p.Libraries(files)
	if len(libs) != 1 || libs[0] != "t/a.sql" {
		t.Fatalf("libraries %v, want the spec's glob", libs)
	}
	missing := FromTextsSpec("/r", map[string][]byte{}, "gone.yml")
	if len(missing.Diags) != 1 || missing.Diags[0].Code != ir.CodeFileRead {
		t.Fatalf("an unread spec: %+v", missing.Diags)
	}
}

// Without a spec, a YAML file at the root that reads like one is a
// warning naming --spec, and is not adopted; other YAML files are not.
func TestSpecCandidates(t *testing.T) {
	texts := map[string][]byte{
		"spark-pipelines.yaml": []byte(otherSpec),
		"ci.yml":               []byte("jobs:\n  build: {}\n"),
		"libs.yml":             []byte("libraries:\n  - glob: {include: a/**}\n"),
		"notes.yaml":           []byte("libraries: some text\n"),
	}
	p := FromTexts("/r", texts)
	if p.HasSpec || len(p.Spec.Libraries) != 0 {
		t.Fatalf("a candidate was adopted: %+v", p)
	}
	if got := strings.Join(p.SpecCandidates, ","); got != "libs.yml,spark-pipelines.yaml" {
		t.Fatalf("candidates %q", got)
	}
	if len(p.Diags) != 2 {
		t.Fatalf("diags %+v", p.Diags)
	}
	for _, d := range p.Diags {
		if d.Severity != ir.Warning || !strings.Contains(d.Message, "--spec "+d.Loc.File) || !strings.Contains(d.Message, "so do ") {
			t.Errorf("candidate warning %s: %q", d.Loc.File, d.Message)
		}
	}
	// With a spec (or a bundle) nothing is said about other YAML files.
	texts[SpecYML] = []byte(otherSpec)
	if p := FromTexts("/r", texts); len(p.SpecCandidates) != 0 {
		t.Fatalf("candidates beside a spec: %v", p.SpecCandidates)
	}
}

// A folder without a spec whose only libraries are .py files says that
// nothing is analysed and why (SDP runs Python from a spec only); with
// dialect databricks, or with a .sql file, it says nothing.
func TestPythonOnlyFolder(t *testing.T) {
	p := FromTexts("/r", map[string][]byte{ConfigName: []byte("backends: [native]\n")})
	files := []string{"thund.yaml", "t/a.py", "t/b.py", "t/__pycache__/a.pyc", "samples/x.csv"}
	libs, diags := p.Libraries(files)
	if len(libs) != 0 || len(diags) != 1 {
		t.Fatalf("libraries %v, diags %+v", libs, diags)
	}
	d := diags[0]
	if d.Loc.File != ConfigName || d.Severity != ir.Warning || !strings.Contains(d.Message, "nothing is analysed") ||
		!strings.Contains(d.Message, "2 Python files (t/a.py, ...)") || !strings.Contains(d.Message, "include: t/**") {
		t.Fatalf("warning %+v", d)
	}
	if h := NoPipelineHint(FromTexts("/r", nil), files); !strings.Contains(h, "nothing is analysed") {
		t.Fatalf("no-pipeline hint %q", h)
	}
	if h := NoPipelineHint(FromTexts("/r", map[string][]byte{"pipe.yml": []byte(otherSpec)}), files); !strings.Contains(h, "--spec pipe.yml") {
		t.Fatalf("no-pipeline hint with a candidate %q", h)
	}
	if _, diags := p.Libraries(append(files, "c.sql")); len(diags) != 0 {
		t.Fatalf("with a .sql file: %+v", diags)
	}
	dbx := FromTexts("/r", map[string][]byte{ConfigName: []byte("dialect: databricks\n")})
	if libs, diags := dbx.Libraries(files); len(libs) != 2 || len(diags) != 0 {
		t.Fatalf("databricks: %v %+v", libs, diags)
	}
}
