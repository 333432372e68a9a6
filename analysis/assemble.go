package analysis

import (
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/project"
	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

// assemble builds the pipeline from the per-file results and adds the
// diagnostics that need the whole pipeline: structure (duplicates, cycles,
// unknown targets), references and samples, capabilities and streaming
// rules.
func (s *Snapshot) assemble(diags []ir.Diagnostic) (*ir.Pipeline, []ir.Diagnostic) {
	spec := s.Project.Spec
	p := &ir.Pipeline{
		Name:          spec.Name,
		Root:          s.Root,
		Catalog:       spec.Catalog,
		Database:      spec.Database,
		Storage:       spec.Storage,
		Configuration: spec.Configuration,
		Backends:      s.Backends(),
	}
	if p.Name == "" {
		p.Name = path.Base(filepathToSlash(s.Root))
	}
	results := s.orderedResults()
	s.asm = &assembly{pipeline: p, ordered: results, flowAt: make([]int32, len(results))}
	if a := s.prevAsm; a != nil {
		// About as many as before: no regrowth.
		p.Datasets = make([]*ir.Dataset, 0, len(a.pipeline.Datasets)+8)
		p.Flows = make([]*ir.Flow, 0, len(a.pipeline.Flows)+8)
	}
	for i, r := range results {
		s.asm.flowAt[i] = int32(len(p.Flows))
		p.Datasets = append(p.Datasets, r.datasets...)
		p.Flows = append(p.Flows, r.flows...)
		diags = append(diags, r.diags...)
	}
	s.asm.renameFileReads(s.prevAsm, spec.Configuration)
	s.asm.fileSigs(s.prevAsm)
	if s.prevAsm != nil {
		// Unchanged files keep their flows: the pipeline reuses the
		// previous one's name resolution for them (snapshot.go).
		p.Follow(s.prevAsm.pipeline, s.prevAsm.origins(results, len(p.Flows)))
	}
	// The structural checks (which build the graph), the capability
	// checks and the rest only read the datasets and flows, so they run
	// side by side, on three lanes: on an editor's keystroke these
	// whole-pipeline passes are most of the time to fresh diagnostics.
	// sources sets p.Sources, which neither Validate nor capab reads; the
	// column check needs the sources and whether there is a cycle. The
	// diagnostics are gathered in one fixed order.
	var problems []ir.Problem
	validated := make(chan struct{})
	go func() {
		defer close(validated)
		problems = p.Validate()
	}()
	var capabDiags, streamDiags []ir.Diagnostic
	checked := make(chan struct{})
	go func() {
		defer close(checked)
		// Check and Streaming, again only where the edit can change them.
		capabDiags, streamDiags, s.capCache = capab.CheckIncremental(p, p.Backends, s.capCache)
	}()
	srcDiags := s.sources(p, results)
	portDiags := portability(p, results)
	<-validated
	cycle := false
	for _, prob := range problems {
		cycle = cycle || prob.Code == ir.CodeCycle
	}
	colDiags := s.columns(p, results, s.colCache, cycle)
	<-checked
	diags = append(diags, srcDiags...)
	diags = append(diags, capabDiags...)
	unnamed := false
	for _, r := range results {
		unnamed = unnamed || r.unnamed
	}
	outside := slices.ContainsFunc(s.Project.Diags, func(d ir.Diagnostic) bool { return d.Code == ir.CodePathEscape })
	if s.Project.HasSpec && !unnamed && !outside {
		// A definition whose name is computed at run time may well be a
		// dataset: Spark runs such a pipeline (QA13 v12 on 4.1.4). So
		// may the files of a library outside the folder, which Thund
		// does not read (their finding says so).
		diags = append(diags, capab.EmptyPipeline(p, p.Backends, ir.Loc{File: s.Project.SpecFile})...)
	}
	diags = append(diags, streamDiags...)
	diags = append(diags, expectationRules(p)...)
	diags = append(diags, portDiags...)
	diags = append(diags, colDiags...)
	for _, prob := range problems {
		diags = append(diags, ir.Diagnostic{Loc: prob.Loc, Severity: ir.Error, Code: prob.Code, Message: prob.Message, Related: prob.Related})
	}
	if !s.SparkChosen() {
		// Nobody chose Spark: what only Spark cannot run is advice.
		for i, d := range diags {
			if d.Code == ir.CodeUnsupported && d.Backend != ir.Native && d.Backend != "" && d.Severity == ir.Error {
				diags[i].Severity = ir.Warning
			}
		}
	}
	return p, diags
}

// SparkChosen reports whether the Spark backends checked were chosen: by
// the caller (--backend), by `backends:` in thund.yaml, or by a
// spark-pipeline.yml, which is written for spark-pipelines. Without any
// of these the default backends still include spark-4.1, but what it
// cannot run is a warning, never an error: a folder of SQL files with no
// spec is not yet something Spark can run, and a backend nobody chose
// must not fail a native run.
func (s *Snapshot) SparkChosen() bool {
	return len(s.opts.Backends) > 0 || len(s.Project.Config.CheckedBackends()) > 0 || s.Project.HasSpec
}

// sources binds every table read that no dataset defines to its sample
// (pragma over thund.yaml over convention), checks bindings, and warns
// about reads that resolve to nothing.
func (s *Snapshot) sources(p *ir.Pipeline, results []*fileResult) []ir.Diagnostic {
	var diags []ir.Diagnostic
	bySource := map[string]*ir.Source{}
	var order []string
	bind := func(table, sample string, origin ir.SampleOrigin, loc ir.Loc) {
		key := ir.NameKey(table)
		src, ok := bySource[key]
		if !ok {
			src = &ir.Source{Name: table}
			bySource[key] = src
			order = append(order, key)
		}
		if sample == "" {
			return
		}
		if src.Origin == ir.SamplePragma && origin == ir.SamplePragma && src.Sample != sample {
			diags = append(diags, ir.Diagnostic{
				Loc: loc, Severity: ir.Warning, Code: ir.CodeSampleConflicts,
				Message: fmt.Sprintf("%s already has the sample %s from another @sample pragma; this one (%s) is ignored: keep one binding", table, src.Sample, sample),
				Related: []ir.Related{{Loc: src.Loc, Message: "the binding in force"}},
			})
			return
		}
		if rank(origin) < rank(src.Origin) {
			return
		}
		src.Sample, src.Origin, src.Loc = sample, origin, loc
		src.Stream = s.dirs[path.Clean(sample)]
	}
	for _, c := range s.conventions {
		bind(c.Table, c.Path, ir.SampleConvention, ir.Loc{File: c.Path})
	}
	// A binding that names a missing file still binds (the run then says
	// the file is missing), rather than letting a weaker binding supply
	// other rows silently; one that leaves the root never binds.
	for _, c := range s.Project.Config.Samples {
		if s.checkSamplePath(c.Path, c.Loc, &diags) || project.Inside(s.Root, c.Path) {
			bind(c.Table, path.Clean(c.Path), ir.SampleConfig, c.Loc)
		}
	}
	// Editor settings override thund.yaml; their location is the config
	// file, since they are written nowhere in the pipeline.
	for _, table := range ir.SortedKeys(s.opts.Samples) {
		p := s.opts.Samples[table]
		loc := ir.Loc{File: s.Project.ConfigFile}
		if s.checkSamplePath(p, loc, &diags) || project.Inside(s.Root, p) {
			bind(table, path.Clean(p), ir.SampleConfig, loc)
		}
	}
	for _, r := range results {
		for _, smp := range r.samples {
			if s.checkSamplePath(smp.Path, smp.Loc, &diags) || project.Inside(s.Root, smp.Path) {
				bind(smp.Table, path.Clean(smp.Path), ir.SamplePragma, smp.Loc)
			}
		}
		for _, decl := range r.sources {
			bind(decl.Table, "", "", decl.Loc)
			bySource[ir.NameKey(decl.Table)].Declared = decl
		}
	}
	read := map[string]bool{}
	native := slices.Contains(p.Backends, ir.Native)
	var conv map[string]project.ConventionSample
	p.UnresolvedReads(func(fi, ri int) {
		ref := p.Flows[fi].Reads[ri]
		key := ir.NameKey(ref.Name)
		read[key] = true
		if src, ok := bySource[key]; ok && (src.Sample != "" || src.Declared != nil) {
			return
		}
		if stem := SampleStem(ref); stem != ref.Name {
			// A file read renamed because its path's last segment names
			// a dataset (fileread.go) still takes the segment's sample
			// by convention: samples/customers.csv for /landing/customers.
			if conv == nil {
				conv = make(map[string]project.ConventionSample, len(s.conventions))
				for _, c := range s.conventions {
					conv[c.Table] = c
				}
			}
			if c, ok := conv[strings.ToLower(stem)]; ok {
				bind(ref.Name, c.Path, ir.SampleConvention, ir.Loc{File: c.Path})
				return
			}
		}
		if folder := "samples/" + strings.ToLower(SampleStem(ref)); s.emptyFolder(folder) {
			// The stream's folder is there, without a batch yet.
			diags = append(diags, ir.Diagnostic{Loc: ref.Loc, Severity: ir.Warning, Code: ir.CodeUnknownRef,
				Message: fmt.Sprintf("%s has no sample data yet: its folder %s/ holds no micro-batch file; add one (.csv, .json, .ndjson or .parquet)", ref.Name, folder)})
			return
		}
		diags = append(diags, unknownRef(p, fi, ref, s.pythonLibrary(), native))
	})
	for _, key := range order {
		src := bySource[key]
		if read[key] || src.Origin == ir.SampleConvention || src.Origin == "" {
			if read[key] {
				p.Sources = append(p.Sources, src)
			}
			continue
		}
		// A sample bound by name in thund.yaml or a pragma that no flow
		// reads is probably a typo of a table name.
		diags = append(diags, ir.Diagnostic{
			Loc: src.Loc, Severity: ir.Warning, Code: ir.CodeUnusedSample,
			Message: fmt.Sprintf("no flow reads %s, so this sample is never used; fix the table name%s", src.Name, suggestion(src.Name, sourceNames(p))),
		})
	}
	sort.SliceStable(p.Sources, func(i, j int) bool { return p.Sources[i].Name < p.Sources[j].Name })
	return diags
}

func rank(o ir.SampleOrigin) int {
	switch o {
	case ir.SampleConvention:
		return 1
	case ir.SampleConfig:
		return 2
	case ir.SamplePragma:
		return 3
	}
	return 0
}

// checkSamplePath reports a sample path that leaves the root or does not
// exist; it returns whether the binding is usable.
func (s *Snapshot) checkSamplePath(p string, loc ir.Loc, diags *[]ir.Diagnostic) bool {
	if !project.Inside(s.Root, p) {
		*diags = append(*diags, ir.Diagnostic{
			Loc: loc, Severity: ir.Error, Code: ir.CodePathEscape,
			Message: fmt.Sprintf("sample path %s leaves the pipeline root; Thund only reads files inside %s: copy the sample into the pipeline (samples/ is the convention)", p, path.Base(filepathToSlash(s.Root))),
		})
		return false
	}
	clean := path.Clean(strings.TrimPrefix(p, "./"))
	if s.hasFile(clean) || s.dirs[clean] || s.globMatches(clean) {
		return true
	}
	if _, err := os.Lstat(s.Abs(clean)); err == nil && !project.ResolvesInside(s.Root, s.Abs(clean)) {
		// Say so without following the link: its target is nobody's
		// business here.
		*diags = append(*diags, ir.Diagnostic{
			Loc: loc, Severity: ir.Error, Code: ir.CodePathEscape,
			Message: fmt.Sprintf("sample %s is a symbolic link that leaves the pipeline folder (or leads nowhere); Thund does not follow it: copy the sample into the pipeline (samples/ is the convention)", p),
		})
		return false
	}
	*diags = append(*diags, ir.Diagnostic{
		Loc: loc, Severity: ir.Error, Code: ir.CodeMissingSample,
		Message: fmt.Sprintf("sample %s does not exist; create it, or point to an existing file, glob or folder relative to the pipeline root", p),
	})
	return false
}

// globMatches reports whether a sample glob (data/*.csv) matches a file.
func (s *Snapshot) globMatches(pattern string) bool {
	if !strings.ContainsAny(pattern, "*?[") {
		return false
	}
	for _, f := range s.Files {
		if ok, _ := path.Match(pattern, f); ok {
			return true
		}
	}
	return false
}

// pythonLibrary returns why a Python library may define or read datasets
// Thund does not see ("" if none): a .py file it could not parse, or a
// read whose table is computed at run time.
func (s *Snapshot) pythonLibrary() string {
	for _, d := range s.libDiags {
		if d.Code == ir.CodeLibraryPython {
			return d.Message
		}
	}
	for _, r := range s.sortedResults() {
		for _, d := range r.diags {
			if d.Code == ir.CodeLibraryPython {
				return d.Message
			}
		}
	}
	return ""
}

// unknownRef reports a read of a name that is neither a dataset, a
// declared source nor a sample: an error, since the run cannot read it,
// unless the pipeline has a Python library (python non-empty), which
// may define it. When the native backend is not checked (native false:
// `--backend databricks`, say), only a native run needs the sample, and
// the platform reads an external table from its catalog: a warning,
// unless a dataset's name is so close that a typo is likely.
func unknownRef(p *ir.Pipeline, flow int, ref ir.Ref, python string, native bool) ir.Diagnostic {
	if ref.Kind == ir.Kafka {
		return kafkaSample(ref)
	}
	if ref.Path != "" {
		// The platform reads the files itself; only a native run needs
		// the sample, and --once says which dataset waits for it.
		d := fileReadSample(ref)
		d.Severity = ir.Warning
		d.Message += " (a warning: Spark reads the files themselves; only a native run needs the sample)"
		return d
	}
	msg := fmt.Sprintf("%s is not a dataset of this pipeline and has no sample data", ref.Name)
	best := nearestReadable(p, flow, ref.Name)
	// The sample is named after the table as read, qualifiers included
	// (samples/raw.orders.csv binds raw.orders).
	bind := SampleBinding(ref)
	if best != "" {
		msg += fmt.Sprintf(": did you mean %s? If %s is an external table, add samples/%s.csv (or %s) so it can be previewed", best, ref.Name, ref.Name, bind)
	} else {
		msg += fmt.Sprintf(": if it is an external table, add samples/%s.csv (or %s) so it can be previewed; otherwise fix the name", ref.Name, bind)
	}
	sev := ir.Error
	switch {
	case python != "":
		// A dataset a Python library defines is unknown to Thund.
		sev = ir.Warning
		msg += " (a warning: this pipeline has Python code Thund cannot fully read, which may define it)"
	case !native && best == "":
		sev = ir.Warning
		msg += " (a warning: only a native run needs the sample; the backends checked read an external table from their catalog)"
	case external(p, ref.Name) && best == "":
		sev = ir.Warning
		msg += " (a warning: a name qualified outside the pipeline's own schema is a table the platform reads from its catalog; only a native run needs the sample)"
	}
	return ir.Diagnostic{Loc: ref.Loc, Severity: sev, Code: ir.CodeUnknownRef, Message: msg}
}

// nearestReadable returns the dataset closest to name (a read of
// p.Flows[flow] that names no dataset) that the flow could read: never
// the flow's own target, nor a dataset that reads that target, directly
// or through others, since reading it would close a cycle. "" when none
// is close enough.
func nearestReadable(p *ir.Pipeline, flow int, name string) string {
	names := make([]string, 0, len(p.Datasets))
	for _, d := range p.Datasets {
		names = append(names, d.Name)
	}
	best := Nearest(name, names)
	if best == "" || flow < 0 || flow >= len(p.Flows) {
		return best
	}
	// The graph is built only when there is a suggestion to check.
	var own string
	if t := p.FlowTarget(flow); t != nil {
		own = ir.NameKey(t.Name)
	} else if t := p.Resolve(p.Flows[flow].Target); t != nil {
		own = ir.NameKey(t.Name)
	} else {
		own = ir.NameKey(p.Flows[flow].Target)
	}
	down := p.Graph().Downstream(own)
	down[own] = true
	if !down[ir.NameKey(best)] {
		return best
	}
	readable := names[:0]
	for _, n := range names {
		if !down[ir.NameKey(n)] {
			readable = append(readable, n)
		}
	}
	return Nearest(name, readable)
}

// external reports whether name is qualified with a schema (and maybe a
// catalog) other than the pipeline's own, so it names a table outside
// the pipeline rather than a misspelt dataset of it.
func external(p *ir.Pipeline, name string) bool {
	parts := strings.Split(name, ".")
	if len(parts) < 2 {
		return false
	}
	schema := parts[len(parts)-2]
	if !strings.EqualFold(schema, p.Database) {
		return true
	}
	return len(parts) > 2 && p.Catalog != "" && !strings.EqualFold(parts[len(parts)-3], p.Catalog)
}

// fileReadSample reports a read of files by path (read_files,
// cloud_files) with no sample: which file or folder to add, named after
// the path's last segment.
func fileReadSample(ref ir.Ref) ir.Diagnostic {
	stem := SampleStem(ref)
	py := inPython(ref.Loc.File)
	want := fmt.Sprintf("samples/%s.csv (or .json, .parquet)", stem)
	if ref.Streaming {
		// A Python library has no @trigger pragma: each file a trigger
		// of its own is only for SQL.
		triggers := "(with `-- @trigger: processing_time '1 second'` each file is a trigger of its own; watching, a file added later is the next trigger)"
		if py {
			triggers = "(watching, a file added later is the next trigger)"
		}
		want = fmt.Sprintf("a folder samples/%s/ of files (001.csv, 002.csv...; .json and .parquet too), which a run reads in name order as one trigger, as Spark's default available_now trigger reads what has arrived %s", stem, triggers)
	}
	bind := fmt.Sprintf("`-- @sample.%s: path` or thund.yaml `samples: {%s: path}`", ref.Name, ref.Name)
	if py {
		bind = fmt.Sprintf("thund.yaml `samples: {%s: path}`", ref.Name)
	}
	msg := fmt.Sprintf("the files at %s have no sample data, so this read cannot be previewed: add %s, or bind one with %s", ref.Path, want, bind)
	if stem != ref.Name {
		msg += fmt.Sprintf("; the read is the source %s, not %s, because %s is a dataset of this pipeline", ref.Name, stem, stem)
	}
	return ir.Diagnostic{Loc: ref.Loc, Severity: ir.Error, Code: ir.CodeMissingSample, Message: msg}
}

// SampleBinding is how to bind a sample to read ref, besides the file
// the convention takes: a @sample pragma in SQL, thund.yaml's samples in
// a Python library, which has no pragmas ("a @sample.x pragma",
// "thund.yaml `samples: {x: path}`").
func SampleBinding(ref ir.Ref) string {
	if inPython(ref.Loc.File) {
		return fmt.Sprintf("thund.yaml `samples: {%s: path}`", ref.Name)
	}
	return fmt.Sprintf("a @sample.%s pragma", ref.Name)
}

// inPython reports whether file is a Python library (.py), whose fixes
// name no `-- @...` pragma.
func inPython(file string) bool { return strings.HasSuffix(file, ".py") }

// SampleStem is the name of the sample file or folder under samples/
// that a read takes by convention: for a read of files by path, the
// path's last segment (customers for read_files('/landing/customers'))
// even where the read is renamed because a dataset has that name; for a
// read of Kafka, its topic (kafkaStem); else the table's name.
func SampleStem(ref ir.Ref) string {
	if stem, ok := kafkaStem(ref); ok {
		return stem
	}
	if ref.Path != "" {
		if seg := sqlfront.FileSourceName(ref.Path); seg != "" {
			return seg
		}
	}
	return ref.Name
}

func sourceNames(p *ir.Pipeline) []string {
	var out []string
	seen := map[string]bool{}
	p.UnresolvedReads(func(fi, ri int) {
		if r := p.Flows[fi].Reads[ri]; !seen[ir.NameKey(r.Name)] {
			seen[ir.NameKey(r.Name)] = true
			out = append(out, r.Name)
		}
	})
	return out
}

// suggestion returns "; did you mean X?" for the closest name, or "".
func suggestion(name string, candidates []string) string {
	if best := Nearest(name, candidates); best != "" {
		return fmt.Sprintf("; did you mean %s?", best)
	}
	return ""
}

func lastSegment(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

func filepathToSlash(p string) string { return strings.ReplaceAll(p, "\\", "/") }

// emptyFolder reports whether rel is a folder under the root that holds
// no file (the file list only knows folders with files in them).
func (s *Snapshot) emptyFolder(rel string) bool {
	if s.dirs[rel] {
		return false
	}
	fi, err := os.Stat(s.Abs(rel))
	return err == nil && fi.IsDir()
}
