// Package project finds a pipeline's root folder and reads its project
// files: spark-pipeline.yml (the SDP spec, checked the way SDP 4.1 checks
// it) and thund.yaml (thund's own settings). It lists the pipeline's files,
// picks the SQL libraries the spec's globs select, and finds samples by
// convention. Every problem becomes an ir.Diagnostic at an exact byte range
// of the YAML text.
package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/thund-dev/thund/ir"
)

// Project file names.
const (
	SpecYML    = "spark-pipeline.yml"
	SpecYAML   = "spark-pipeline.yaml"
	ConfigName = "thund.yaml"
)

// Project is a pipeline root with its spec and config read.
type Project struct {
	// Root is the pipeline root, absolute and cleaned.
	Root string
	// ReadPython makes a pipeline with no spec and no bundle read its .py
	// files as libraries too, as Databricks runs a pipeline's Python and
	// SQL files alike; set when the pipeline is checked against the
	// databricks backend (`--backend databricks`), as `dialect:
	// databricks` does.
	ReadPython bool
	// SpecFile is the spec's name relative to Root ("spark-pipeline.yml"),
	// "" if there is none.
	SpecFile string
	// ConfigFile is "thund.yaml", or "" if there is none.
	ConfigFile string
	Spec       Spec
	// HasSpec is true when a spec file exists (even one with errors).
	HasSpec bool
	Config  Config
	// BundleFile is "databricks.yml" (or .yaml) when the folder is a
	// Databricks Asset Bundle, and Bundle its pipeline; both are unset
	// when a spark-pipeline.yml exists (the SDP spec wins) or the bundle
	// declares no pipeline.
	BundleFile string
	Bundle     *Bundle
	// SpecCandidates are the YAML files at the root that read like an SDP
	// spec under another name (spark-pipelines.yaml, say), when the root
	// has no spec: each gets a warning naming --spec, and is not read as
	// the spec.
	SpecCandidates []string
	// Diags are the findings about the spec and config files.
	Diags []ir.Diagnostic
}

// isFile reports whether name is a regular file (following symlinks).
func isFile(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// FindRoot returns the pipeline root for a file or folder path: the
// nearest folder upward holding spark-pipeline.yml or .yaml; else the
// nearest upward holding thund.yaml; else the nearest upward holding a
// Databricks Asset Bundle's databricks.yml; else the folder itself (the folder of
// a file). A path that does not exist is taken as a file. The search stops
// at the filesystem root.
func FindRoot(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	start := abs
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		start = filepath.Dir(abs)
	}
	for _, names := range [][]string{{SpecYML, SpecYAML}, {ConfigName}, {BundleYML, BundleYAML}} {
		for dir := start; ; {
			for _, n := range names {
				if isFile(filepath.Join(dir, n)) {
					return dir, nil
				}
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return start, nil
}

// skipDir reports whether Walk leaves out a folder.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "target" || name == "node_modules"
}

// MaxUnmarkedEntries bounds the walk of a folder without a pipeline file.
const MaxUnmarkedEntries = 50000

// maxUnmarked is MaxUnmarkedEntries, lowered by tests.
var maxUnmarked = MaxUnmarkedEntries

// ErrUnmarkedTooLarge is the error of Walk on a large folder that no
// pipeline file marks.
var ErrUnmarkedTooLarge = errors.New("too large for a folder without a pipeline file")

// Walk lists the pipeline's files: every regular file below root (a
// symlink to a file inside root counts; a symlink to a file outside root
// does not, and symlinked folders are not entered), as
// slash-separated paths relative to root, sorted. Hidden files and folders
// (names starting with "."), target/ and node_modules/ are skipped at any
// depth. Folders that cannot be read are skipped; only an unreadable root
// is an error.
//
// A folder that no spark-pipeline.yml or thund.yaml marks as a pipeline
// (a loose .sql file's folder, say a home folder or /tmp) is walked only
// up to MaxUnmarkedEntries entries; beyond that Walk returns an error
// matching ErrUnmarkedTooLarge instead of reading a whole tree nobody
// declared a pipeline.
func Walk(root string) ([]string, error) {
	if resolved, err := filepath.EvalSymlinks(root); err == nil {
		root = resolved
	}
	marked := isFile(filepath.Join(root, SpecYML)) || isFile(filepath.Join(root, SpecYAML)) || isFile(filepath.Join(root, ConfigName)) ||
		isFile(filepath.Join(root, BundleYML)) || isFile(filepath.Join(root, BundleYAML))
	entries := 0
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if entries++; !marked && entries > maxUnmarked {
			return fmt.Errorf("%s holds more than %d files and no %s or %s marks it as a pipeline folder: add a %s to the pipeline's folder, or open that folder instead: %w",
				root, maxUnmarked, SpecYML, ConfigName, ConfigName, ErrUnmarkedTooLarge)
		}
		if err != nil {
			if p == root {
				return err
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p == root {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if skipDir(name) {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, ".") {
			return nil
		}
		regular := d.Type().IsRegular()
		if d.Type()&fs.ModeSymlink != 0 {
			// A link to a file outside the root is not the pipeline's:
			// following it would let a checked-out folder make Thund read
			// (and push to Spark) any file the user can read.
			regular = isFile(p) && ResolvesInside(root, p)
		}
		if !regular {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// Open reads root's spec and thund.yaml. When both spark-pipeline.yml and
// spark-pipeline.yaml exist, the .yml one is read and the .yaml one gets an
// ir.CodeSpecAmbiguous error (SDP refuses to choose). Unreadable files give
// ir.CodeFileRead diagnostics; only a root that is not a readable folder is
// an error.
func Open(root string) (*Project, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	abs = filepath.Clean(abs)
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("project root %s is not a folder", abs)
	}
	texts := map[string][]byte{}
	var readDiags []ir.Diagnostic
	for _, name := range []string{SpecYML, SpecYAML, ConfigName, "thund.yml"} {
		if !isFile(filepath.Join(abs, name)) {
			continue
		}
		if name == "thund.yml" {
			texts[name] = nil
			continue
		}
		if !ResolvesInside(abs, filepath.Join(abs, name)) {
			readDiags = append(readDiags, ir.Diagnostic{Loc: ir.Loc{File: name}, Severity: ir.Error, Code: ir.CodePathEscape,
				Message: fmt.Sprintf("%s is a symlink to a file outside the pipeline folder; Thund does not read it: copy the file into the folder instead", name)})
			continue
		}
		text, err := os.ReadFile(filepath.Join(abs, name))
		if err != nil {
			var pe *fs.PathError
			msg := err.Error()
			if errors.As(err, &pe) {
				msg = pe.Err.Error()
			}
			readDiags = append(readDiags, ir.Diagnostic{Loc: ir.Loc{File: name}, Severity: ir.Error, Code: ir.CodeFileRead,
				Message: fmt.Sprintf("cannot read %s: %s; check its permissions", name, msg)})
			continue
		}
		texts[name] = text
	}
	p := FromTexts(abs, texts)
	p.Diags = append(readDiags, p.Diags...)
	return p, nil
}

// FromTexts builds the project of root from the texts of its project files
// (spark-pipeline.yml, spark-pipeline.yaml, thund.yaml; a missing key means
// the file does not exist). Editors use it with unsaved buffers; Open uses
// it with the files on disk.
func FromTexts(root string, texts map[string][]byte) *Project {
	return FromTextsSpec(root, texts, "")
}

// FromTextsSpec is FromTexts with the spec named (thund-watch --spec, as
// spark-pipelines run --spec): spec is its path relative to root, and its
// text, texts[spec], is the spec whatever its name; spark-pipeline.yml
// beside it is then not read, as spark-pipelines does not. With spec ""
// it is FromTexts. Without a spec, a YAML file at the root (in texts) that
// reads like one is named in a warning (Project.SpecCandidates).
func FromTextsSpec(root string, texts map[string][]byte, spec string) *Project {
	p := &Project{Root: root}
	ymlText, hasYML := texts[SpecYML]
	yamlText, hasYAML := texts[SpecYAML]
	switch {
	case spec != "":
		p.SpecFile = spec
		text, ok := texts[spec]
		if !ok {
			p.Diags = append(p.Diags, ir.Diagnostic{Loc: ir.Loc{File: spec}, Severity: ir.Error, Code: ir.CodeFileRead,
				Message: fmt.Sprintf("the spec %s given with --spec is not a readable file of the pipeline folder (a hidden file, or one Thund could not read): give a spec that is", spec)})
		}
		ymlText = text
	case hasYML:
		p.SpecFile = SpecYML
		if hasYAML {
			p.Diags = append(p.Diags, ir.Diagnostic{
				Loc:      ir.Loc{File: SpecYAML},
				Severity: ir.Error,
				Code:     ir.CodeSpecAmbiguous,
				Message:  fmt.Sprintf("both %s and %s exist, and SDP refuses to choose: delete or rename one (thund reads %s)", SpecYML, SpecYAML, SpecYML),
				Related:  []ir.Related{{Loc: ir.Loc{File: SpecYML}, Message: "the other spec file"}},
			})
		}
	case hasYAML:
		p.SpecFile = SpecYAML
		ymlText = yamlText
	}
	if p.SpecFile != "" {
		p.HasSpec = true
		if _, read := texts[p.SpecFile]; read {
			parsed, diags := ParseSpec(p.SpecFile, ymlText)
			p.Spec = parsed
			p.Diags = append(p.Diags, diags...)
		}
	}
	if text, ok := texts[ConfigName]; ok {
		p.ConfigFile = ConfigName
		cfg, diags := ParseConfig(ConfigName, text)
		p.Diags = append(p.Diags, diags...)
		// Absolute sample paths can only be checked against the root.
		kept := cfg.Samples[:0]
		for _, s := range cfg.Samples {
			if !Inside(root, s.Path) {
				p.Diags = append(p.Diags, ir.Diagnostic{Loc: s.Loc, Severity: ir.Error, Code: ir.CodePathEscape,
					Message: fmt.Sprintf("sample path `%s` is outside the pipeline folder: keep samples inside it", s.Path)})
				continue
			}
			kept = append(kept, s)
		}
		cfg.Samples = kept
		p.Config = cfg
	} else if _, ok := texts["thund.yml"]; ok {
		p.Diags = append(p.Diags, ir.Diagnostic{Loc: ir.Loc{File: "thund.yml"}, Severity: ir.Warning, Code: ir.CodeConfigError,
			Message: "thund reads thund.yaml, not thund.yml: rename the file"})
	}
	if !p.HasSpec {
		p.openBundle(texts)
	}
	if !p.HasSpec && p.Bundle == nil {
		p.SpecCandidates = specCandidates(texts)
		p.Diags = append(p.Diags, p.candidateDiags()...)
	}
	p.applyConfigNames()
	return p
}

// applyConfigNames gives the pipeline thund.yaml's databricks.catalog and
// databricks.schema where neither the spec nor the bundle names them; a
// value that disagrees with the one they name is a warning at its key
// (the spec or bundle wins, as it is what the pipeline runs with).
func (p *Project) applyConfigNames() {
	from := p.SpecFile
	if from == "" {
		from = p.BundleFile
	}
	for _, n := range []struct {
		key, val string
		into     *string
	}{
		{"databricks.catalog", p.Config.Catalog, &p.Spec.Catalog},
		{"databricks.schema", p.Config.Schema, &p.Spec.Database},
	} {
		switch {
		case n.val == "" || strings.EqualFold(*n.into, n.val):
		case *n.into == "":
			*n.into = n.val
		default:
			p.Diags = append(p.Diags, ir.Diagnostic{Loc: p.Config.Loc[n.key], Severity: ir.Warning, Code: ir.CodeConfigError,
				Message: fmt.Sprintf("%s `%s` is not used: %s names `%s`, which the pipeline runs with; remove the key from thund.yaml, or make the two agree", n.key, n.val, from, *n.into)})
		}
	}
}

// openBundle reads the folder's databricks.yml, when there is one: its
// pipeline gives the project its name, catalog, schema, configuration and
// libraries, and the dialect is Databricks' unless thund.yaml says.
func (p *Project) openBundle(texts map[string][]byte) {
	file := BundleYML
	if _, ok := texts[file]; !ok {
		file = BundleYAML
		if _, ok := texts[file]; !ok {
			return
		}
	}
	b, diags := ParseBundle(file, texts, p.Config.BundlePipeline, p.Config.BundleTarget)
	p.Diags = append(p.Diags, diags...)
	if b == nil {
		return
	}
	p.BundleFile, p.Bundle = file, b
	p.Spec.Name = b.Name
	p.Spec.Catalog = b.Catalog
	p.Spec.Database = b.Schema
	p.Spec.Configuration = b.Configuration
	if p.Config.Dialect == "" {
		p.Config.Dialect = "databricks"
	}
}

// Libraries returns the .sql and .py files the pipeline analyses, given
// all files from Walk, sorted and deduplicated. With a spec, those its
// libraries' globs match (Python files are read, never run: analysis/pylib),
// a glob matching nothing
// an ir.Warning (ir.CodeLibraryEmpty), and a glob matching other files an
// error, as SDP 4.1 stops on them. Files under __pycache__ are ignored, as
// SDP does. Without a spec, the files a databricks.yml pipeline lists
// (.sql and .py, notebooks named without their extension), or else every
// *.sql file except those under samples/, and with `dialect: databricks`
// or ReadPython every *.py file too (otherwise no Python file: SDP needs
// a spec to run one).
func (p *Project) Libraries(files []string) ([]string, []ir.Diagnostic) {
	return p.LibrariesOf(files, nil)
}

// LibrariesOf is Libraries where, in a folder read without a spec or
// bundle, a .py file for which dlt reports true (one that imports
// Databricks' dlt module: a Databricks pipeline's source file, which no
// spec lists) is a library too.
func (p *Project) LibrariesOf(files []string, dlt func(file string) bool) ([]string, []ir.Diagnostic) {
	set := map[string]bool{}
	var diags []ir.Diagnostic
	if !p.HasSpec && p.Bundle != nil {
		return p.Bundle.bundleLibraries(files)
	}
	if !p.HasSpec {
		// A Databricks pipeline's libraries are SQL and Python files
		// alike (dialect: databricks); SDP runs Python only from a spec.
		python := p.Config.Dialect == "databricks" || p.ReadPython
		// The Lakeflow editor's layout: its pipeline runs transformations/
		// (the folder's README says so); explorations/ holds ad-hoc
		// notebooks "not executed as part of the pipeline".
		lakeflow := slices.ContainsFunc(files, func(f string) bool { return strings.HasPrefix(f, "transformations/") })
		skipped := ""
		for _, f := range files {
			if strings.HasPrefix(f, "samples/") || strings.Contains("/"+f+"/", "/__pycache__/") {
				continue
			}
			if lakeflow && strings.HasPrefix(f, "explorations/") && (strings.HasSuffix(f, ".sql") || strings.HasSuffix(f, ".py")) {
				if skipped == "" {
					skipped = f
				}
				continue
			}
			if strings.HasSuffix(f, ".sql") || (python || dlt != nil && dlt(f)) && strings.HasSuffix(f, ".py") {
				set[f] = true
			}
		}
		if skipped != "" {
			diags = append(diags, ir.Diagnostic{Loc: ir.Loc{File: skipped}, Severity: ir.Info, Code: ir.CodeLibraryExcluded,
				Message: "explorations/ is not analysed: in the Lakeflow editor's layout its notebooks are ad-hoc queries, not executed as part of the pipeline, which runs transformations/; list them in a spark-pipeline.yml's libraries to have them read"})
		}
		if py := pythonOnly(files); len(set) == 0 && len(py) > 0 && !python {
			// Nothing is analysed: say what is there, and why.
			diags = append(diags, p.pythonNotReadDiag(py))
		}
		return sortedSet(set), diags
	}
	if _, ok := p.Spec.Loc["libraries"]; !ok && len(p.Spec.Loc) > 0 {
		loc, ok := p.Spec.Loc["name"]
		if !ok {
			loc = ir.Loc{File: p.SpecFile}
		}
		diags = append(diags, ir.Diagnostic{Loc: loc, Severity: ir.Warning, Code: ir.CodeLibraryEmpty,
			Message: fmt.Sprintf("%s lists no libraries, so the pipeline is empty: add `libraries: [{glob: {include: transformations/**}}]`", p.SpecFile)})
	}
	for _, lib := range p.Spec.Libraries {
		pat := strings.TrimSpace(lib.Include)
		if pat == "" || strings.HasPrefix(pat, "/") || filepath.IsAbs(pat) || !Inside(".", pat) {
			continue // reported by ParseSpec
		}
		segs := globSegments(pat)
		var other []string
		matched := 0
		for _, f := range files {
			if strings.Contains("/"+f+"/", "/__pycache__/") || !matchSegments(segs, strings.Split(f, "/")) {
				continue
			}
			matched++
			switch path.Ext(f) {
			case ".sql":
				set[f] = true
			case ".py":
				set[f] = true
			default:
				other = append(other, f)
			}
		}
		if matched == 0 {
			msg := fmt.Sprintf("library glob `%s` matches no file: fix the path (relative to the pipeline root), or remove the entry", lib.Include)
			if !hasMagic(pat) && folderHolds(files, path.Clean(pat)) {
				msg += fmt.Sprintf(": `%s` is a folder; use `%s/**` for every file below it", path.Clean(pat), path.Clean(pat))
			}
			diags = append(diags, ir.Diagnostic{Loc: lib.Loc, Severity: ir.Warning, Code: ir.CodeLibraryEmpty, Message: msg})
		}
		if len(other) > 0 {
			more := ""
			if len(other) > 1 {
				more = fmt.Sprintf(" and %d more", len(other)-1)
			}
			diags = append(diags, ir.Diagnostic{Loc: lib.Loc, Severity: ir.Error, Code: ir.CodeSpecError,
				Message: fmt.Sprintf("library glob `%s` matches `%s`%s, and SDP 4.1 stops on files that are neither .sql nor .py: move them out of the folder or narrow the glob", lib.Include, other[0], more)})
		}
	}
	return sortedSet(set), diags
}

// folderHolds reports whether some file lies below folder dir.
func folderHolds(files []string, dir string) bool {
	for _, f := range files {
		if strings.HasPrefix(f, dir+"/") {
			return true
		}
	}
	return false
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// ConventionSample is a sample found by convention under samples/.
type ConventionSample struct {
	// Table is the source table, lower-cased.
	Table string
	// Path is the sample file, or the micro-batch folder, relative to the
	// root.
	Path string
	// Stream is true for a folder of micro-batches.
	Stream bool
}

// sampleExts are the file types a sample may have.
var sampleExts = map[string]bool{".csv": true, ".json": true, ".ndjson": true, ".parquet": true}

// ConventionSamples returns samples by convention from files (as from
// Walk): samples/TABLE.csv|json|ndjson|parquet is a file sample, and a
// folder samples/TABLE/ directly holding at least one such file is a
// stream of micro-batches. The table is lower-cased. When several
// candidates give the same table, the first by path wins (so a file beats a
// folder of the same name). The result is sorted by table.
func ConventionSamples(files []string) []ConventionSample {
	sorted := append([]string(nil), files...)
	sort.Strings(sorted)
	byTable := map[string]ConventionSample{}
	for _, f := range sorted {
		rest, ok := strings.CutPrefix(f, "samples/")
		if !ok {
			continue
		}
		segs := strings.Split(rest, "/")
		var s ConventionSample
		switch len(segs) {
		case 1:
			ext := strings.ToLower(path.Ext(segs[0]))
			stem := strings.TrimSuffix(segs[0], path.Ext(segs[0]))
			if !sampleExts[ext] || stem == "" {
				continue
			}
			s = ConventionSample{Table: strings.ToLower(stem), Path: f}
		case 2:
			if !sampleExts[strings.ToLower(path.Ext(segs[1]))] || segs[0] == "" {
				continue
			}
			s = ConventionSample{Table: strings.ToLower(segs[0]), Path: "samples/" + segs[0], Stream: true}
		default:
			continue
		}
		if _, dup := byTable[s.Table]; !dup {
			byTable[s.Table] = s
		}
	}
	out := make([]ConventionSample, 0, len(byTable))
	for _, s := range byTable {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Table < out[j].Table })
	return out
}

// Inside reports whether rel (a path written in a spec, config or pragma,
// slash-separated, relative to root) stays inside root after cleaning:
// `../../etc`, and absolute paths outside root, do not. Root itself counts
// as inside. The check is lexical; symlinks are not followed.
func Inside(root, rel string) bool {
	root = filepath.Clean(root)
	p := filepath.FromSlash(rel)
	if filepath.IsAbs(p) {
		p = filepath.Clean(p)
	} else {
		p = filepath.Join(root, p)
	}
	r, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// ResolvesInside reports whether the file at p (absolute), with every
// symlink followed, is inside root (absolute, itself resolved). A path
// that cannot be resolved is not inside.
func ResolvesInside(root, p string) bool {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return Inside(root, real)
}
