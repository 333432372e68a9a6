package project

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/thund-dev/thund/ir"
	"go.yaml.in/yaml/v3"
)

// Library is one `libraries:` entry of the spec: `- glob: {include: PATTERN}`.
type Library struct {
	// Include is the glob as written.
	Include string
	// Loc is the range of the include value.
	Loc ir.Loc
}

// Spec is the content of spark-pipeline.yml, the SDP project file.
type Spec struct {
	Name     string
	Storage  string
	Catalog  string
	Database string
	// Configuration holds the Spark settings, string to string.
	Configuration map[string]string
	Libraries     []Library
	// Loc is each top-level value's location, by key as written (name,
	// storage, catalog, database, schema, configuration, libraries). A
	// database given as `schema` is also recorded under "database". An
	// empty value is located at its key.
	Loc map[string]ir.Loc
}

// specKeys are the top-level keys SDP 4.1 accepts.
var specKeys = []string{"name", "storage", "catalog", "database", "schema", "configuration", "libraries"}

// ParseSpec parses spark-pipeline.yml text. file is the path used in
// diagnostics (relative to the root, slash-separated). It reports what SDP
// 4.1 would reject (unknown keys, missing name or storage, non-string
// configuration values, globs other than a file path or `folder/**`) and
// still returns everything it could read.
func ParseSpec(file string, text []byte) (Spec, []ir.Diagnostic) {
	d := newDoc(file, ir.CodeSpecError, text)
	spec := Spec{Loc: map[string]ir.Loc{}}
	root := resolve(d.parse())
	if d.failed {
		return spec, d.diags
	}
	if root == nil || isNull(root) {
		d.errorf(d.startLoc(), "%s is empty: SDP needs at least `name: <pipeline name>` and `storage: <path or URI>`", file)
		return spec, d.diags
	}
	if root.Kind != yaml.MappingNode {
		d.errorf(d.at(root), "%s must be a mapping of settings (name, storage, libraries, ...), not %s", file, kindName(root))
		return spec, d.diags
	}
	pairs := d.pairs(root, ir.Warning)
	var dbKey, schemaKey *yaml.Node
	fromDatabase := false
	for _, p := range pairs {
		loc := d.valueLoc(p.key, p.raw)
		switch p.name {
		case "name", "storage", "catalog", "database", "schema":
			spec.Loc[p.name] = loc
			s, ok := d.specString(p)
			if !ok {
				continue
			}
			switch p.name {
			case "name":
				spec.Name = s
			case "storage":
				spec.Storage = s
				if !hasURIScheme(s) {
					// spark-pipelines (4.1.4) refuses the run before anything
					// starts; Thund's own push makes the path absolute
					// (sdplower.StorageURI), hence a warning.
					d.add(ir.Warning, d.code, d.at(p.raw), fmt.Sprintf("`storage: %s` has no URI scheme, so `spark-pipelines run` refuses the pipeline: [PIPELINE_STORAGE_ROOT_INVALID] Pipeline storage root must be an absolute path with a URI scheme (e.g., file://, s3a://, hdfs://); write e.g. `storage: file:///tmp/%s/storage`, as spark-pipelines init writes an absolute file:// URI (Thund's own push to Spark makes the path absolute under the pipeline folder)", s, specStorageHint(spec.Name)))
				}
			case "catalog":
				spec.Catalog = s
			case "database":
				// As in SDP, `database` wins over `schema`.
				spec.Database, fromDatabase = s, true
				dbKey = p.key
			case "schema":
				if !fromDatabase {
					spec.Database = s
					spec.Loc["database"] = loc
				}
				schemaKey = p.key
			}
		case "configuration":
			spec.Loc[p.name] = loc
			spec.Configuration = d.specConfiguration(p)
		case "libraries":
			spec.Loc[p.name] = loc
			spec.Libraries = d.specLibraries(p)
		default:
			msg := fmt.Sprintf("unknown key `%s` in %s: SDP rejects it; remove or rename it (allowed: %s)", p.name, file, strings.Join(specKeys, ", "))
			if strings.EqualFold(p.name, "definitions") {
				msg += "; `definitions` was renamed `libraries` before Spark 4.1"
			} else {
				msg += didYouMean(p.name, specKeys)
			}
			d.add(ir.Error, ir.CodeSpecUnknown, d.at(p.key), msg)
		}
	}
	if dbKey != nil && schemaKey != nil {
		second := schemaKey
		if dbKey.Line > schemaKey.Line || (dbKey.Line == schemaKey.Line && dbKey.Column > schemaKey.Column) {
			second = dbKey
		}
		d.errorf(d.at(second), "`database` and `schema` are the same setting (SDP uses `database`): keep only one")
	}
	anchor := d.startLoc()
	if len(pairs) > 0 {
		anchor = d.at(pairs[0].key)
	}
	if _, ok := spec.Loc["name"]; !ok {
		d.errorf(anchor, "%s has no `name`: SDP requires it; add `name: <pipeline name>`", file)
	}
	if _, ok := spec.Loc["storage"]; !ok {
		d.errorf(anchor, "%s has no `storage`: SDP requires it for checkpoints and pipeline metadata; add `storage: <path or URI>`", file)
	}
	return spec, d.diags
}

// specString reads a string setting. An empty name or storage is an error;
// lists and mappings are errors; other scalars are taken as written.
func (d *doc) specString(p pair) (string, bool) {
	switch {
	case isNull(p.val):
		if p.name == "name" || p.name == "storage" {
			d.errorf(d.at(p.key), "`%s` is empty: give it a value", p.name)
		}
		return "", false
	case p.val.Kind != yaml.ScalarNode:
		d.errorf(d.at(p.raw), "`%s` must be a single value, not %s", p.name, kindName(p.val))
		return "", false
	}
	return p.val.Value, true
}

// specConfiguration reads `configuration:`, a mapping of Spark settings.
func (d *doc) specConfiguration(p pair) map[string]string {
	switch {
	case isNull(p.val):
		d.errorf(d.at(p.key), "`configuration` is empty, and SDP expects a mapping: add `key: \"value\"` entries below it or remove the key")
		return nil
	case p.val.Kind != yaml.MappingNode:
		d.errorf(d.at(p.raw), "`configuration` must be a mapping of Spark settings (`spark.sql.shuffle.partitions: \"8\"`), not %s", kindName(p.val))
		return nil
	}
	conf := map[string]string{}
	for _, e := range d.pairs(p.val, ir.Warning) {
		if pyNonString(resolve(e.key)) {
			d.errorf(d.at(e.key), "configuration key `%s` is not a string for SDP: quote it (`\"%s\": ...`)", e.name, e.name)
		}
		switch {
		case e.val.Kind == yaml.MappingNode || e.val.Kind == yaml.SequenceNode:
			d.errorf(d.at(e.raw), "configuration `%s` must be a string, not %s: SDP takes flat settings; write each one with its full dotted name (`%s.option: \"value\"`)", e.name, kindName(e.val), e.name)
			continue
		case isNull(e.val):
			d.errorf(d.at(e.key), "configuration `%s` has no value, and SDP accepts only strings: give it a quoted value", e.name)
			conf[e.name] = ""
			continue
		case pyNonString(e.val):
			d.errorf(d.at(e.raw), "configuration `%s` is `%s`, which SDP reads as a %s and rejects (values must be strings): quote it, `%s: \"%s\"`", e.name, e.val.Value, pyTypeName(e.val), e.name, e.val.Value)
		}
		conf[e.name] = e.val.Value
	}
	return conf
}

// pyTypeName names the type PyYAML gives a non-string scalar.
func pyTypeName(n *yaml.Node) string {
	switch n.Tag {
	case "!!int":
		return "number"
	case "!!float":
		return "number"
	case "!!null":
		return "null"
	}
	return "boolean"
}

// specLibraries reads `libraries:`, a list of `- glob: {include: PATTERN}`.
func (d *doc) specLibraries(p pair) []Library {
	const form = "`- glob: {include: PATTERN}`"
	switch {
	case isNull(p.val):
		d.errorf(d.at(p.key), "`libraries` is empty: list the source files as %s items (for example `include: transformations/**`), or remove the key", form)
		return nil
	case p.val.Kind != yaml.SequenceNode:
		d.errorf(d.at(p.raw), "`libraries` must be a list of %s items, not %s", form, kindName(p.val))
		return nil
	}
	var libs []Library
	for _, raw := range p.val.Content {
		item := resolve(raw)
		switch {
		case item.Kind == yaml.ScalarNode && !isNull(item):
			d.errorf(d.at(raw), "a library must be %s, not a bare value: write `- glob: {include: %s}`", form, item.Value)
			continue
		case item.Kind != yaml.MappingNode:
			d.errorf(d.at(raw), "a library must be %s, not %s", form, kindName(item))
			continue
		}
		var glob *pair
		var others []pair
		for _, e := range d.pairs(item, ir.Warning) {
			if e.name == "glob" {
				glob = &e
			} else {
				others = append(others, e)
			}
		}
		if glob == nil {
			msg := fmt.Sprintf("a library must be %s", form)
			if len(others) > 0 {
				msg += fmt.Sprintf("; SDP has no `%s` libraries", others[0].name)
			}
			d.errorf(d.at(raw), "%s", msg)
			continue
		}
		for _, e := range others {
			d.add(ir.Warning, ir.CodeSpecUnknown, d.at(e.key), fmt.Sprintf("SDP ignores `%s` beside `glob` in a library entry: remove it", e.name))
		}
		g := glob.val
		switch {
		case isNull(g):
			d.errorf(d.at(glob.key), "`glob` is empty: write `glob: {include: PATTERN}`")
			continue
		case g.Kind != yaml.MappingNode:
			d.errorf(d.at(glob.raw), "`glob` must be a mapping with `include`: write `glob: {include: PATTERN}`")
			continue
		}
		var inc *pair
		for _, e := range d.pairs(g, ir.Warning) {
			if e.name == "include" {
				inc = &e
			} else {
				d.add(ir.Warning, ir.CodeSpecUnknown, d.at(e.key), fmt.Sprintf("SDP 4.1 ignores `%s` in `glob` (only `include` is read): remove it%s", e.name, didYouMean(e.name, []string{"include"})))
			}
		}
		if inc == nil {
			d.errorf(d.at(glob.key), "`glob` has no `include`: write `glob: {include: PATTERN}`")
			continue
		}
		v := inc.val
		switch {
		case isNull(v) || (v.Kind == yaml.ScalarNode && strings.TrimSpace(v.Value) == ""):
			d.errorf(d.valueLoc(inc.key, inc.raw), "`include` is empty: give a file path or a folder followed by `/**`")
			continue
		case v.Kind != yaml.ScalarNode:
			d.errorf(d.at(inc.raw), "`include` must be a single pattern, not %s", kindName(v))
			continue
		case pyNonString(v):
			d.errorf(d.at(inc.raw), "`include` must be a string pattern: quote it")
			continue
		}
		lib := Library{Include: v.Value, Loc: d.at(inc.raw)}
		d.checkGlob(lib)
		libs = append(libs, lib)
	}
	return libs
}

// checkGlob reports patterns SDP 4.1 refuses: it takes a plain file path or
// a folder followed by `/**`, relative to the spec's folder.
func (d *doc) checkGlob(lib Library) {
	pat := lib.Include
	if strings.HasPrefix(pat, "/") || filepath.IsAbs(pat) {
		// spark-pipelines globs with pathlib's Path.glob, which refuses a
		// pattern that is not relative ("Non-relative patterns are
		// unsupported", pyspark 4.1.4 on Python 3.11).
		d.add(ir.Error, ir.CodePathEscape, lib.Loc, fmt.Sprintf("library `%s` is an absolute path, which spark-pipelines refuses (non-relative patterns are unsupported): write it relative to the folder of the spec", pat))
		return
	}
	if !Inside(".", pat) {
		// Spark globs from the spec's folder and follows `..` (the files
		// of `../src/**` load there), but Thund reads nothing outside the
		// pipeline folder it opened: a folder from someone else must not
		// make it read (and push to Spark) files it does not hold
		// (SECURITY.md). The way out keeps both.
		d.add(ir.Warning, ir.CodePathEscape, lib.Loc, fmt.Sprintf("library `%s` leaves the pipeline folder: spark-pipelines would load it (it globs from the spec's folder), but Thund reads only files inside the folder it opens, so the datasets defined there are not checked or run; "+
			"move %s up to the folder that holds both, with each include written from there, and open that folder", pat, d.file))
		return
	}
	if !hasMagic(pat) {
		return
	}
	if prefix, ok := strings.CutSuffix(pat, "/**"); ok && !hasMagic(prefix) {
		return
	}
	// Suggest the folder part before the first wildcard.
	var fixed []string
	for _, seg := range strings.Split(pat, "/") {
		if hasMagic(seg) {
			break
		}
		fixed = append(fixed, seg)
	}
	fix := "list each file, or keep the files in one folder and use `folder/**`"
	if dir := path.Join(fixed...); dir != "" && dir != "." {
		fix = fmt.Sprintf("use `%s/**` (the folder must then hold only .sql and .py files)", dir)
	}
	d.errorf(lib.Loc, "SDP 4.1 rejects the glob `%s`: `include` takes a file path or a folder followed by `/**`; %s", pat, fix)
}

// hasMagic reports whether a pattern holds glob wildcards, as Python's
// glob.has_magic does.
func hasMagic(s string) bool { return strings.ContainsAny(s, "*?[") }

// hasURIScheme reports whether s begins with a URI scheme and its colon
// (file:, s3a:, abfss:...), as Spark requires of a pipeline's storage.
func hasURIScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			return i > 0
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return false
}

// specStorageHint is the folder name the storage suggestion uses.
func specStorageHint(name string) string {
	if name == "" || strings.ContainsAny(name, "/\\ :") {
		return "pipeline"
	}
	return name
}
