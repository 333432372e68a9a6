package project

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/thund-dev/thund/ir"
	"go.yaml.in/yaml/v3"
)

// A spec under another name. spark-pipelines run and dry-run take the
// spec's path with --spec (any name: public projects call theirs
// spark-pipelines.yaml, pipeline.yml...) and the folder holding it is the
// pipeline's root; without --spec they look for spark-pipeline.yaml or
// spark-pipeline.yml in the working folder and then in each parent,
// stopping at the first folder holding one and refusing a folder holding
// both (pyspark 4.1.4, pipelines/cli.py: find_pipeline_spec,
// PIPELINE_SPEC_FILE_NOT_FOUND, MULTIPLE_PIPELINE_SPEC_FILES_FOUND,
// PIPELINE_SPEC_FILE_DOES_NOT_EXIST for a --spec path that is not a
// file). Thund takes a spec's path the same way (thund-watch --spec);
// without one it finds the root as spark-pipelines does, and a YAML file
// at the root that reads like a spec is named in a warning, never adopted.

// FindRootSpec is FindRoot for a pipeline named by its spec file: with
// spec set (a path as --spec takes it: absolute, or relative to the
// working folder) the root is the spec's folder, as spark-pipelines takes
// it, whatever p is; a spec that is not a regular file is an error. With
// spec "" it is FindRoot(p).
func FindRootSpec(p, spec string) (string, error) {
	if spec == "" {
		return FindRoot(p)
	}
	abs, err := filepath.Abs(spec)
	if err != nil {
		return "", fmt.Errorf("spec %s: %w", spec, err)
	}
	if !isFile(abs) {
		return "", fmt.Errorf("spec %s does not exist or is not a file (spark-pipelines refuses it too: PIPELINE_SPEC_FILE_DOES_NOT_EXIST): give the path of the pipeline's spec file", spec)
	}
	return filepath.Dir(abs), nil
}

// SpecPath returns spec (as FindRootSpec takes it) relative to root,
// slash-separated: the name the spec's diagnostics carry. It is "" for
// spec "".
func SpecPath(root, spec string) string {
	if spec == "" {
		return ""
	}
	abs, err := filepath.Abs(spec)
	if err != nil {
		return filepath.ToSlash(spec)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return filepath.ToSlash(spec)
	}
	return filepath.ToSlash(rel)
}

// Files returns the project files of a root to read, given the root's
// files (as from Walk) and the spec's path relative to the root (""
// without --spec): the spec, thund.yaml (and a mistaken thund.yml), a
// Databricks bundle's databricks.yml, and every other YAML file directly
// at the root, which may be a spec under another name (FromTextsSpec
// says so).
func Files(files []string, spec string) []string {
	out := []string{SpecYML, SpecYAML, ConfigName, "thund.yml", BundleYML, BundleYAML}
	if spec != "" && !slices.Contains(out, spec) {
		out = append(out, spec)
	}
	for _, f := range files {
		if !strings.Contains(f, "/") && IsBundleFile(f) && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// looksLikeSpec reports whether a YAML text reads as an SDP pipeline
// spec: a mapping whose `libraries` lists `glob: {include: ...}` entries,
// or that has both `name` and `libraries`.
func looksLikeSpec(text []byte) bool {
	var doc map[string]any
	if err := yaml.Unmarshal(text, &doc); err != nil || doc == nil {
		return false
	}
	libs, ok := doc["libraries"]
	if !ok {
		return false
	}
	if _, named := doc["name"]; named {
		return true
	}
	list, _ := libs.([]any)
	for _, item := range list {
		m, _ := item.(map[string]any)
		if g, ok := m["glob"].(map[string]any); ok {
			if _, ok := g["include"]; ok {
				return true
			}
		}
	}
	return false
}

// specCandidates returns the YAML files at the root, among texts, that
// read like a spec (looksLikeSpec) and are neither the spec names
// spark-pipelines looks for, thund.yaml nor a Databricks bundle file,
// sorted.
func specCandidates(texts map[string][]byte) []string {
	var out []string
	for name, text := range texts {
		if strings.Contains(name, "/") || !IsBundleFile(name) {
			continue
		}
		switch name {
		case SpecYML, SpecYAML, ConfigName, "thund.yml", BundleYML, BundleYAML:
			continue
		}
		if looksLikeSpec(text) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// candidateDiags says, for a root without a spec, which YAML file reads
// like one and how to pass it: spark-pipelines and Thund look only for
// spark-pipeline.yml and .yaml.
func (p *Project) candidateDiags() []ir.Diagnostic {
	var out []ir.Diagnostic
	for _, c := range p.SpecCandidates {
		others := ""
		if len(p.SpecCandidates) > 1 {
			others = fmt.Sprintf(" (so do %s: pass the pipeline's one)", strings.Join(without(p.SpecCandidates, c), ", "))
		}
		out = append(out, ir.Diagnostic{
			Loc: ir.Loc{File: c}, Severity: ir.Warning, Code: ir.CodeLibraryEmpty,
			Message: fmt.Sprintf("%s reads like an SDP pipeline spec%s, but neither spark-pipelines nor Thund looks for a spec by that name (only %s or %s), so its libraries are not read: "+
				"pass it with --spec %s (thund-watch --spec %s, spark-pipelines run --spec %s), or rename it %s; until then Thund reads the folder as a pipeline without a spec",
				c, others, SpecYML, SpecYAML, c, c, c, SpecYML),
		})
	}
	return out
}

func without(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// pythonOnly returns the .py files of a folder read without a spec (and
// not as a Databricks pipeline, which reads them) when it holds no .sql
// library: then nothing is analysed, and Libraries says why. Files under
// samples/ and __pycache__ do not count.
func pythonOnly(files []string) []string {
	var py []string
	for _, f := range files {
		if strings.HasPrefix(f, "samples/") || strings.Contains("/"+f+"/", "/__pycache__/") {
			continue
		}
		switch path.Ext(f) {
		case ".sql":
			return nil
		case ".py":
			py = append(py, f)
		}
	}
	return py
}

// pythonNotReadDiag is the warning of a folder without a spec whose only
// libraries are Python files: SDP runs Python only from a spec, so Thund
// analyses nothing; it says what it found and what to do.
func (p *Project) pythonNotReadDiag(py []string) ir.Diagnostic {
	loc := ir.Loc{File: py[0]}
	if p.ConfigFile != "" {
		loc = ir.Loc{File: p.ConfigFile}
	}
	return ir.Diagnostic{Loc: loc, Severity: ir.Warning, Code: ir.CodeLibraryEmpty, Message: p.pythonNotRead(py)}
}

// pythonNotRead explains why the Python files py are not analysed.
func (p *Project) pythonNotRead(py []string) string {
	what := py[0]
	if len(py) > 1 {
		what = fmt.Sprintf("%d Python files (%s, ...)", len(py), py[0])
	}
	fix := fmt.Sprintf("add a %s whose libraries include them (`libraries: [{glob: {include: %s}}]`)", SpecYML, includeFor(py))
	if len(p.SpecCandidates) > 0 {
		fix = fmt.Sprintf("pass the spec with --spec %s", p.SpecCandidates[0])
	}
	return fmt.Sprintf("nothing is analysed: the folder holds %s and no .sql file, and SDP runs Python libraries only from a pipeline spec, which the folder does not have (no %s or %s); %s, or set `dialect: databricks` in %s if it is a Databricks pipeline (whose libraries Thund reads without a spec)",
		what, SpecYML, SpecYAML, fix, ConfigName)
}

// includeFor suggests a glob for files: their common top folder with
// /**, or the one file.
func includeFor(files []string) string {
	if len(files) == 1 {
		return files[0]
	}
	top := ""
	for i, f := range files {
		dir, _, found := strings.Cut(f, "/")
		if !found {
			return "'**'"
		}
		if i == 0 {
			top = dir
		} else if dir != top {
			return "'**'"
		}
	}
	return top + "/**"
}

// NoPipelineHint adds to "holds no pipeline" (a folder with no spec, no
// thund.yaml and no .sql file) what the folder does hold: a YAML file
// that reads like a spec, to pass with --spec, or Python files, which
// SDP runs only from a spec. It is "" when there is nothing to add.
func NoPipelineHint(p *Project, files []string) string {
	if p == nil {
		return ""
	}
	if len(p.SpecCandidates) > 0 {
		return fmt.Sprintf("; %s reads like a pipeline spec under another name: pass it with --spec %s", p.SpecCandidates[0], p.SpecCandidates[0])
	}
	if py := pythonOnly(files); len(py) > 0 {
		return "; " + p.pythonNotRead(py)
	}
	return ""
}
