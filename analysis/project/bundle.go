package project

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/thund-dev/thund/ir"
	"go.yaml.in/yaml/v3"
)

// Databricks Asset Bundle files: a Lakeflow Declarative Pipelines project
// deployed with `databricks bundle deploy` declares its pipelines there,
// and each pipeline names its source files (`libraries:`).
const (
	BundleYML  = "databricks.yml"
	BundleYAML = "databricks.yaml"
)

// Bundle is what Thund reads of a Databricks Asset Bundle: the one
// pipeline it checks (the pipeline resource chosen by thund.yaml's
// `databricks.pipeline`, else the first one the bundle declares), with the
// variables of the chosen target substituted.
type Bundle struct {
	// File is the bundle file's name, databricks.yml or databricks.yaml.
	File string
	// Target is the deployment target whose variables apply: thund.yaml's
	// `databricks.target`, else the target marked `default: true`; "" when
	// neither exists (the variables' defaults apply).
	Target string
	// Pipeline is the key of the chosen pipeline resource; Pipelines lists
	// every pipeline key the bundle declares, in file order.
	Pipeline  string
	Pipelines []string
	// Name, Catalog and Schema are the pipeline's settings (`schema` or,
	// before Unity Catalog's publishing mode, `target`).
	Name    string
	Catalog string
	Schema  string
	// Configuration is the pipeline's `configuration:`: Spark settings and
	// the parameters its SQL reads as `${key}`.
	Configuration map[string]string
	// Libraries are the pipeline's source entries.
	Libraries []BundleLibrary
	// Loc is where the chosen pipeline is declared (its key).
	Loc ir.Loc
}

// BundleLibrary is one `libraries:` entry of a bundle pipeline.
type BundleLibrary struct {
	// Kind is "file", "notebook" or "glob".
	Kind string
	// Path is the entry's path resolved against the folder of the YAML
	// file that declares it, relative to the root and slash-separated (a
	// pattern for a glob).
	Path string
	// Written is the path as written.
	Written string
	Loc     ir.Loc
}

// IsBundleFile reports whether a path relative to the root can be part of
// a bundle's configuration: the bundle file itself or a YAML file it may
// include.
func IsBundleFile(p string) bool {
	return strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".yaml")
}

// bundleVar matches the substitutions a bundle's values use:
// ${var.name}, ${bundle.target}, ${bundle.name}, ${workspace.x}, ...
var bundleVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_.\-]*)\}`)

// bundleDoc is one YAML file of the bundle, parsed.
type bundleDoc struct {
	d    *doc
	root *yaml.Node
	dir  string // folder of the file, relative to the root ("" at the root)
}

// pipelineDecl is one pipeline resource found in a bundle file.
type pipelineDecl struct {
	key  string
	node *yaml.Node
	doc  *bundleDoc
	at   ir.Loc
}

// ParseBundle reads the bundle whose main file is file (databricks.yml)
// from texts, which hold that file and may hold any other YAML file of
// the folder (those the bundle's `include:` globs select are read too).
// pipeline and target choose among the bundle's pipelines and targets
// ("" for the defaults). It returns nil when the bundle declares no
// pipeline.
func ParseBundle(file string, texts map[string][]byte, pipeline, target string) (*Bundle, []ir.Diagnostic) {
	main := &bundleDoc{d: newDoc(file, ir.CodeSpecError, texts[file])}
	main.root = resolve(main.d.parse())
	var diags []ir.Diagnostic
	docs := []*bundleDoc{main}
	if main.d.failed || main.root == nil || main.root.Kind != yaml.MappingNode {
		return nil, main.d.diags
	}
	bundleName := ""
	for _, p := range main.d.pairs(main.root, ir.Warning) {
		switch p.name {
		case "bundle":
			if p.val.Kind == yaml.MappingNode {
				for _, e := range main.d.pairs(p.val, ir.Warning) {
					if e.name == "name" && e.val.Kind == yaml.ScalarNode {
						bundleName = e.val.Value
					}
				}
			}
		case "include":
			docs = append(docs, includedDocs(main.d, p, texts, file)...)
		}
	}
	// Variables (defaults), targets and pipelines, from every file.
	vars := map[string]string{}
	targets := map[string]*yaml.Node{}
	var targetOrder []string
	defaultTarget := ""
	var decls []pipelineDecl
	for _, bd := range docs {
		for _, p := range bd.d.pairs(bd.root, ir.Warning) {
			switch p.name {
			case "variables":
				readVariables(bd.d, p.val, vars)
			case "targets":
				if p.val.Kind != yaml.MappingNode {
					continue
				}
				for _, t := range bd.d.pairs(p.val, ir.Warning) {
					if _, seen := targets[t.name]; !seen {
						targetOrder = append(targetOrder, t.name)
					}
					targets[t.name] = t.val
					if t.val.Kind == yaml.MappingNode {
						for _, e := range bd.d.pairs(t.val, ir.Warning) {
							if e.name == "default" && e.val.Kind == yaml.ScalarNode && e.val.Value == "true" && defaultTarget == "" {
								defaultTarget = t.name
							}
						}
					}
				}
			case "resources":
				decls = append(decls, pipelineDecls(bd, p)...)
			}
		}
	}
	if len(decls) == 0 {
		return nil, bundleDiags(docs, diags)
	}
	b := &Bundle{File: file, Configuration: map[string]string{}}
	for _, dcl := range decls {
		if !contains(b.Pipelines, dcl.key) {
			b.Pipelines = append(b.Pipelines, dcl.key)
		}
	}
	// The target: the chosen one, else the default one.
	b.Target = defaultTarget
	if target != "" {
		if _, ok := targets[target]; ok {
			b.Target = target
		} else {
			diags = append(diags, ir.Diagnostic{Loc: ir.Loc{File: ConfigName}, Severity: ir.Error, Code: ir.CodeConfigError,
				Message: fmt.Sprintf("`databricks.target: %s` is not a target of %s (its targets: %s): fix the name", target, file, strings.Join(targetOrder, ", "))})
		}
	}
	var targetPipelines []pipelineDecl
	if t := targets[b.Target]; t != nil && t.Kind == yaml.MappingNode {
		td := docOfNode(docs, t)
		for _, e := range td.d.pairs(t, ir.Warning) {
			switch e.name {
			case "variables":
				readVariables(td.d, e.val, vars)
			case "resources":
				targetPipelines = pipelineDecls(td, e)
			}
		}
	}
	// The pipeline: the chosen one, else the first.
	b.Pipeline = b.Pipelines[0]
	if pipeline != "" {
		if contains(b.Pipelines, pipeline) {
			b.Pipeline = pipeline
		} else {
			diags = append(diags, ir.Diagnostic{Loc: ir.Loc{File: ConfigName}, Severity: ir.Error, Code: ir.CodeConfigError,
				Message: fmt.Sprintf("`databricks.pipeline: %s` is not a pipeline of %s (its pipelines: %s): fix the name", pipeline, file, strings.Join(b.Pipelines, ", "))})
		}
	}
	subst := func(s string) string {
		return bundleVar.ReplaceAllStringFunc(s, func(m string) string {
			name := m[2 : len(m)-1]
			switch {
			case strings.HasPrefix(name, "var."):
				if v, ok := vars[strings.TrimPrefix(name, "var.")]; ok {
					return v
				}
			case (name == "bundle.target" || name == "bundle.environment") && b.Target != "":
				return b.Target
			case name == "bundle.name" && bundleName != "":
				return bundleName
			}
			return m
		})
	}
	first := true
	for _, dcl := range append(decls, targetPipelines...) {
		if dcl.key != b.Pipeline {
			continue
		}
		if first {
			b.Loc = dcl.at
			first = false
		}
		readPipeline(b, dcl, subst)
	}
	if b.Name == "" {
		b.Name = b.Pipeline
	}
	if len(b.Pipelines) > 1 && pipeline == "" {
		diags = append(diags, ir.Diagnostic{Loc: b.Loc, Severity: ir.Info, Code: ir.CodeSpecError,
			Message: fmt.Sprintf("%s declares %d pipelines (%s); Thund checks the first, %s: to check another, set `databricks: {pipeline: <key>}` in thund.yaml",
				file, len(b.Pipelines), strings.Join(b.Pipelines, ", "), b.Pipeline)})
	}
	return b, bundleDiags(docs, diags)
}

// bundleDiags gathers the findings of every bundle file (once each: a
// mapping read twice reports its duplicate keys twice) before extra.
func bundleDiags(docs []*bundleDoc, extra []ir.Diagnostic) []ir.Diagnostic {
	var out []ir.Diagnostic
	seen := map[string]bool{}
	for _, bd := range docs {
		for _, d := range bd.d.diags {
			k := fmt.Sprintf("%s:%d:%d:%s", d.Loc.File, d.Loc.Start, d.Loc.End, d.Message)
			if !seen[k] {
				seen[k] = true
				out = append(out, d)
			}
		}
	}
	return append(out, extra...)
}

// includedDocs parses the YAML files an `include:` list selects among the
// texts (globs relative to the bundle's root).
func includedDocs(d *doc, p pair, texts map[string][]byte, mainFile string) []*bundleDoc {
	var pats []*yaml.Node
	switch p.val.Kind {
	case yaml.SequenceNode:
		pats = p.val.Content
	case yaml.ScalarNode:
		pats = []*yaml.Node{p.val}
	}
	var names []string
	for n := range texts {
		if IsBundleFile(n) && n != mainFile {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out []*bundleDoc
	seen := map[string]bool{}
	for _, raw := range pats {
		pat := resolve(raw)
		if pat == nil || pat.Kind != yaml.ScalarNode || isNull(pat) {
			continue
		}
		matched := false
		for _, n := range names {
			if seen[n] || !matchGlob(pat.Value, n) {
				continue
			}
			seen[n], matched = true, true
			bd := &bundleDoc{d: newDoc(n, ir.CodeSpecError, texts[n]), dir: path.Dir(n)}
			if bd.dir == "." {
				bd.dir = ""
			}
			bd.root = resolve(bd.d.parse())
			if bd.d.failed || bd.root == nil || bd.root.Kind != yaml.MappingNode {
				// Its syntax errors still count.
				out = append(out, &bundleDoc{d: bd.d, root: &yaml.Node{Kind: yaml.MappingNode}})
				continue
			}
			out = append(out, bd)
		}
		if !matched {
			d.add(ir.Warning, ir.CodeLibraryEmpty, d.at(raw), fmt.Sprintf("include `%s` matches no YAML file in the bundle folder: fix the path (relative to %s)", pat.Value, mainFile))
		}
	}
	return out
}

// pipelineDecls lists the pipeline resources of a `resources:` pair.
func pipelineDecls(bd *bundleDoc, p pair) []pipelineDecl {
	if p.val.Kind != yaml.MappingNode {
		return nil
	}
	var out []pipelineDecl
	for _, r := range bd.d.pairs(p.val, ir.Warning) {
		if r.name != "pipelines" || r.val.Kind != yaml.MappingNode {
			continue
		}
		for _, pl := range bd.d.pairs(r.val, ir.Warning) {
			out = append(out, pipelineDecl{key: pl.name, node: pl.val, doc: bd, at: bd.d.at(pl.key)})
		}
	}
	return out
}

// docOfNode finds the bundle file a node belongs to.
func docOfNode(docs []*bundleDoc, n *yaml.Node) *bundleDoc {
	for _, bd := range docs {
		if holds(bd.root, n) {
			return bd
		}
	}
	return docs[0]
}

// holds reports whether n is tree or one of its descendants.
func holds(tree, n *yaml.Node) bool {
	if tree == n {
		return true
	}
	for _, c := range tree.Content {
		if holds(c, n) {
			return true
		}
	}
	return false
}

// readVariables sets vars from a `variables:` mapping (a bundle's, or a
// target's overriding it).
func readVariables(d *doc, m *yaml.Node, vars map[string]string) {
	if m.Kind != yaml.MappingNode {
		return
	}
	for _, v := range d.pairs(m, ir.Warning) {
		if val, ok := variableValue(d, v.val); ok {
			vars[v.name] = val
		}
	}
}

// variableValue is a variable's value: a scalar, or a mapping's `default`.
func variableValue(d *doc, n *yaml.Node) (string, bool) {
	switch {
	case n == nil || isNull(n):
		return "", false
	case n.Kind == yaml.ScalarNode:
		return n.Value, true
	case n.Kind == yaml.MappingNode:
		for _, e := range d.pairs(n, ir.Warning) {
			if e.name == "default" && e.val.Kind == yaml.ScalarNode {
				return e.val.Value, true
			}
		}
	}
	return "", false
}

// readPipeline applies one declaration of the chosen pipeline to b (a
// target's declaration overrides the settings it gives and adds its
// libraries, as the bundle's merge does).
func readPipeline(b *Bundle, dcl pipelineDecl, subst func(string) string) {
	if dcl.node.Kind != yaml.MappingNode {
		return
	}
	d := dcl.doc.d
	for _, e := range d.pairs(dcl.node, ir.Warning) {
		switch e.name {
		case "name", "catalog", "schema", "target":
			if e.val.Kind != yaml.ScalarNode || isNull(e.val) {
				continue
			}
			v := subst(e.val.Value)
			switch e.name {
			case "name":
				b.Name = v
			case "catalog":
				b.Catalog = v
			case "schema":
				b.Schema = v
			case "target":
				if b.Schema == "" {
					b.Schema = v
				}
			}
		case "configuration":
			if e.val.Kind != yaml.MappingNode {
				continue
			}
			for _, c := range d.pairs(e.val, ir.Warning) {
				if c.val.Kind == yaml.ScalarNode {
					b.Configuration[c.name] = subst(c.val.Value)
				}
			}
		case "libraries":
			if e.val.Kind != yaml.SequenceNode {
				continue
			}
			for _, raw := range e.val.Content {
				if lib, ok := bundleLibrary(d, resolve(raw), dcl.doc.dir, subst); ok {
					b.Libraries = append(b.Libraries, lib)
				}
			}
		}
	}
}

// bundleLibrary reads one library entry: `notebook: {path}`, `file:
// {path}` or `glob: {include}` (jar, maven and wheel entries are not
// source files and are skipped).
func bundleLibrary(d *doc, item *yaml.Node, dir string, subst func(string) string) (BundleLibrary, bool) {
	if item == nil || item.Kind != yaml.MappingNode {
		return BundleLibrary{}, false
	}
	for _, e := range d.pairs(item, ir.Warning) {
		field := "path"
		switch e.name {
		case "notebook", "file":
		case "glob":
			field = "include"
		default:
			continue
		}
		if e.val.Kind != yaml.MappingNode {
			continue
		}
		for _, f := range d.pairs(e.val, ir.Warning) {
			if f.name != field || f.val.Kind != yaml.ScalarNode || isNull(f.val) {
				continue
			}
			written := subst(f.val.Value)
			lib := BundleLibrary{Kind: e.name, Written: f.val.Value, Loc: d.at(f.val)}
			if strings.HasPrefix(written, "/") {
				// A workspace path: not a file of this folder.
				lib.Path = ""
				return lib, true
			}
			lib.Path = path.Clean(path.Join(dir, written))
			return lib, true
		}
	}
	return BundleLibrary{}, false
}

// bundleLibraries selects the files of the bundle's pipeline among files
// (as Walk lists them), with a diagnostic for each entry that selects
// nothing Thund can read.
func (b *Bundle) bundleLibraries(files []string) ([]string, []ir.Diagnostic) {
	set := map[string]bool{}
	var diags []ir.Diagnostic
	have := make(map[string]bool, len(files))
	for _, f := range files {
		have[f] = true
	}
	for _, lib := range b.Libraries {
		switch {
		case lib.Path == "":
			diags = append(diags, ir.Diagnostic{Loc: lib.Loc, Severity: ir.Warning, Code: ir.CodeLibraryEmpty,
				Message: fmt.Sprintf("library `%s` is a workspace path, not a file of this folder, so Thund cannot read it: use a path relative to %s", lib.Written, b.File)})
			continue
		case lib.Path == ".." || strings.HasPrefix(lib.Path, "../"):
			diags = append(diags, ir.Diagnostic{Loc: lib.Loc, Severity: ir.Warning, Code: ir.CodePathEscape,
				Message: fmt.Sprintf("library `%s` is outside the bundle folder, so Thund does not read it: open the folder that holds %s and the library", lib.Written, b.File)})
			continue
		}
		matched := 0
		if lib.Kind == "glob" {
			segs := globSegments(lib.Path)
			for _, f := range files {
				if strings.Contains("/"+f+"/", "/__pycache__/") || !matchSegments(segs, strings.Split(f, "/")) {
					continue
				}
				if ext := path.Ext(f); ext == ".sql" || ext == ".py" {
					set[f] = true
					matched++
				}
			}
		} else {
			candidates := []string{lib.Path}
			if path.Ext(lib.Path) == "" {
				// A notebook is named without its extension.
				candidates = append(candidates, lib.Path+".sql", lib.Path+".py")
			}
			for _, c := range candidates {
				if have[c] && (path.Ext(c) == ".sql" || path.Ext(c) == ".py") {
					set[c] = true
					matched++
					break
				}
			}
			if matched == 0 && have[lib.Path] {
				diags = append(diags, ir.Diagnostic{Loc: lib.Loc, Severity: ir.Info, Code: ir.CodeLibraryPython,
					Message: fmt.Sprintf("library `%s` is neither a .sql nor a .py file, so Thund does not analyse it", lib.Written)})
				continue
			}
		}
		if matched == 0 {
			diags = append(diags, ir.Diagnostic{Loc: lib.Loc, Severity: ir.Warning, Code: ir.CodeLibraryEmpty,
				Message: fmt.Sprintf("library `%s` matches no file: fix the path (relative to the YAML file that lists it), or remove the entry", lib.Written)})
		}
	}
	return sortedSet(set), diags
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
