package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

const specText = "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n"

// TestSpecFlag: --spec FILE reads the spec whatever its name (only its
// globs' files are datasets), from any working folder; without it the
// same folder gets a warning naming --spec; a missing spec, a folder
// argument that is not the spec's and a spec that is not YAML are usage
// errors.
func TestSpecFlag(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"spark-pipelines.yaml": specText,
		"t/a.sql":              "CREATE MATERIALIZED VIEW a AS SELECT 1 AS id;\n",
		"other.sql":            "CREATE MATERIALIZED VIEW b AS SELECT 2 AS id;\n",
		"notes.txt":            "x\n",
	})
	spec := filepath.Join(dir, "spark-pipelines.yaml")
	var out, errb bytes.Buffer
	if code := run([]string{"--check", "--graph", "--spec", spec}, &out, &errb); code != 0 {
		t.Fatalf("--spec: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if got := out.String(); !strings.Contains(got, "pipeline p: 1 datasets") || strings.Contains(got, "other.sql") || strings.Contains(got, "warning:") {
		t.Fatalf("--spec read more than the spec's library, or warned:\n%s", got)
	}
	out.Reset()
	if code := run([]string{"--check", dir}, &out, &errb); code != 0 {
		t.Fatalf("without --spec: exit %d\n%s", code, out.String())
	}
	if got := out.String(); !strings.Contains(got, "spark-pipelines.yaml:1:1: warning:") || !strings.Contains(got, "--spec spark-pipelines.yaml") || !strings.Contains(got, "2 datasets") {
		t.Fatalf("without --spec, want the candidate warning and every .sql file:\n%s", got)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--check", "--spec", filepath.Join(dir, "nope.yml")}, "PIPELINE_SPEC_FILE_DOES_NOT_EXIST"},
		{[]string{"--check", "--spec", spec, t.TempDir()}, "name two pipelines"},
		{[]string{"--check", "--spec", filepath.Join(dir, "notes.txt")}, "*.yml or *.yaml"},
		{[]string{"--check", "--spec", dir}, "is a folder"},
	} {
		out.Reset()
		errb.Reset()
		if code := run(tc.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
	// The spec's own folder as the argument too is the same pipeline.
	out.Reset()
	if code := run([]string{"--check", "--spec", spec, dir}, &out, &errb); code != 0 {
		t.Fatalf("--spec with its folder: exit %d\n%s", code, errb.String())
	}
}

// TestNoPipelineHint: a folder with no spec, no thund.yaml and no .sql
// file says what it does hold: a spec under another name to pass with
// --spec, or Python files SDP runs only from a spec.
func TestNoPipelineHint(t *testing.T) {
	py := writePipeline(t, map[string]string{"t/a.py": "import dlt\n"})
	var out, errb bytes.Buffer
	if code := run([]string{"--check", py}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "holds no pipeline") || !strings.Contains(errb.String(), "t/a.py") || !strings.Contains(errb.String(), "only from a pipeline spec") {
		t.Fatalf("python only: exit %d, %q", code, errb.String())
	}
	named := writePipeline(t, map[string]string{"t/a.py": "import dlt\n", "pipeline.yml": specText})
	errb.Reset()
	if code := run([]string{"--check", named}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--spec pipeline.yml") {
		t.Fatalf("spec under another name: exit %d, %q", code, errb.String())
	}
}
