// Package analysis turns a pipeline folder into the IR plus diagnostics, as
// immutable snapshots: a Snapshot never changes, and Update returns a new
// one that reuses the work of every file whose text did not change. The LSP
// server, the watch command and the engine all read snapshots, so an editor
// and a terminal never disagree.
package analysis

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/project"
	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/textpos"
)

// Options adjust an analysis.
type Options struct {
	// Backends, when set, overrides thund.yaml's backends.
	Backends []ir.Backend
	// Samples binds source tables to sample paths (relative to the root),
	// as an editor setting: above thund.yaml's samples, below @sample.
	Samples map[string]string
	// Spec names the pipeline's spec file whatever its name (thund-watch
	// --spec, as spark-pipelines run --spec): absolute, or relative to the
	// working folder; its folder is the root (project.FindRootSpec).
	Spec string
}

// Snapshot is one immutable analysis of a pipeline root.
type Snapshot struct {
	// Root is the pipeline root, absolute.
	Root string
	// Project holds the spec and thund.yaml as parsed.
	Project *project.Project
	// Files lists every file below the root (relative, slash-separated,
	// sorted), as project.Walk finds them; samples resolve against it.
	Files []string
	// Libraries lists the .sql files analysed.
	Libraries []string
	// Pipeline is the IR assembled from every library.
	Pipeline *ir.Pipeline
	// Diagnostics holds every diagnostic, sorted.
	Diagnostics []ir.Diagnostic

	opts  Options
	texts textLayers // spec, config and library texts by path
	// heads holds the start of each CSV sample handed over by Update with
	// its text (the column check reads its header); other samples are
	// read from disk.
	heads map[string]string
	// colCache is what the column check keeps (columns.go) for the next
	// snapshot to reuse.
	colCache *colState
	// capCache is what the capability and streaming checks keep
	// (capab.CheckIncremental) for the next snapshot.
	capCache *capab.Cache
	results  map[string]*fileResult
	// fresh are the results this build analysed (the others are the
	// previous snapshot's), and replaced the previous results of files
	// this build analysed again or no longer has: the column check
	// starts from them.
	fresh, replaced []*fileResult
	// prevResults are the results build started from.
	prevResults map[string]*fileResult
	// changed, while build runs, are the only paths whose results may
	// differ from prevResults (nil: any).
	changed []string
	// asm is how this snapshot's pipeline was put together, for the next
	// snapshot's pipeline to follow (ir.Pipeline.Follow); prevAsm is the
	// previous snapshot's, used by build only.
	asm, prevAsm *assembly
	dirs         map[string]bool // every folder holding a file, for sample folders
	// conventions are the samples found by convention (samples/TABLE.*),
	// recomputed only when the file set changes.
	conventions []project.ConventionSample
	// libDiags are the diagnostics of resolving the library globs.
	libDiags []ir.Diagnostic

	indexMu sync.Mutex
	indexes map[string]*textpos.Index
}

// Load analyses the pipeline holding dir (a folder or a file in it),
// reading every file from disk.
func Load(dir string, opts Options) (*Snapshot, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", dir, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("open pipeline: %w", err)
	}
	root, err := project.FindRootSpec(abs, opts.Spec)
	if err != nil {
		return nil, fmt.Errorf("find pipeline root of %s: %w", dir, err)
	}
	files, err := project.Walk(root)
	if err != nil {
		return nil, fmt.Errorf("list files of %s: %w", root, err)
	}
	if len(files) >= loadGCFrom {
		defer loadGC()()
	}
	s := &Snapshot{Root: root, Files: files, opts: opts, texts: newTextLayers(map[string]string{})}
	var readDiags []ir.Diagnostic
	read := func(rel string) (string, bool) {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			readDiags = append(readDiags, readError(rel, err))
			return "", false
		}
		return string(b), true
	}
	for _, name := range project.Files(files, project.SpecPath(root, opts.Spec)) {
		if s.hasFile(name) {
			if t, ok := read(name); ok {
				s.texts.base[name] = t
			}
		}
	}
	if s.hasFile(project.BundleYML) || s.hasFile(project.BundleYAML) {
		// A bundle may include its pipelines from other YAML files.
		for _, name := range files {
			if project.IsBundleFile(name) && !slices.Contains(projectFiles, name) {
				if t, ok := read(name); ok {
					s.texts.base[name] = t
				}
			}
		}
	}
	s.openProject()
	s.Libraries, s.libDiags = s.Project.LibrariesOf(files, s.importsDLT)
	s.dirs = folders(files)
	s.conventions = project.ConventionSamples(files)
	texts, fresh, diags := readAnalyseAll(root, s.Libraries, s.dialect(), s.Project.Spec.Configuration, s.moduleSource())
	for i, rel := range s.Libraries {
		if fresh[i] != nil {
			s.texts.base[rel] = texts[i]
		}
	}
	readDiags = append(readDiags, diags...)
	s.buildFresh(fresh, readDiags)
	return s, nil
}

// fileReaders is the number of goroutines reading a load's files.
const fileReaders = 8

// cleanBase is filepath.Clean(root) ending with a separator (empty for
// "."), the base joinClean takes.
func cleanBase(root string) string {
	base := filepath.Clean(root)
	switch {
	case base == ".":
		return ""
	case !strings.HasSuffix(base, string(filepath.Separator)):
		return base + string(filepath.Separator)
	}
	return base
}

// joinClean is filepath.Join(root, filepath.FromSlash(rel)), where base is
// filepath.Clean(root) ending with a separator: a plain concatenation when rel
// is a clean relative path (the walker's paths are), which spares a
// load of thousands of files as many Clean calls.
func joinClean(base, root, rel string) string {
	if rel == "" || rel[0] == '/' || rel == "." || rel == ".." || strings.HasPrefix(rel, "./") || strings.HasPrefix(rel, "../") ||
		strings.HasSuffix(rel, "/") || strings.HasSuffix(rel, "/.") || strings.HasSuffix(rel, "/..") ||
		strings.Contains(rel, "//") || strings.Contains(rel, "/./") || strings.Contains(rel, "/../") ||
		(filepath.Separator != '/' && strings.ContainsRune(rel, filepath.Separator)) {
		return filepath.Join(root, filepath.FromSlash(rel))
	}
	return base + filepath.FromSlash(rel)
}

func readError(rel string, err error) ir.Diagnostic {
	return ir.Diagnostic{
		Loc: ir.Loc{File: rel}, Severity: ir.Error, Code: ir.CodeFileRead,
		Message: fmt.Sprintf("cannot read %s: %v; check the file's permissions", rel, unwrapPathError(err)),
	}
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// projectFiles are the root-level files that configure a pipeline.
var projectFiles = []string{project.SpecYML, project.SpecYAML, project.ConfigName, "thund.yml", project.BundleYML, project.BundleYAML}

// Change is a new text for a file, or its deletion (Text nil).
type Change struct {
	// Path is relative to the root, slash-separated.
	Path string
	Text *string
}

// Update returns a new snapshot with the changes applied; s is unchanged.
// Files whose text did not change keep their analysis. Creating or
// deleting any file (a sample, say) is a change too. A library that a
// change makes visible (a new glob in the spec) is read from disk.
func (s *Snapshot) Update(changes []Change) *Snapshot {
	n := &Snapshot{Root: s.Root, opts: s.opts, texts: s.texts.derive(), colCache: s.colCache, capCache: s.capCache, prevAsm: s.asm}
	// The last change to a path wins; then compare with what existed.
	final := map[string]*string{}
	var order []string
	for _, c := range changes {
		p := path.Clean(filepath.ToSlash(c.Path))
		if _, seen := final[p]; !seen {
			order = append(order, p)
		}
		final[p] = c.Text
	}
	n.heads = s.heads
	for _, p := range order {
		if strings.EqualFold(path.Ext(p), ".csv") {
			// copy on write: s keeps its own
			n.heads = make(map[string]string, len(s.heads)+1)
			for k, v := range s.heads {
				n.heads[k] = v
			}
			break
		}
	}
	for _, p := range order {
		if !strings.EqualFold(path.Ext(p), ".csv") {
			continue
		}
		if t := final[p]; t != nil {
			n.heads[p] = (*t)[:min(len(*t), maxHeader)]
		} else {
			delete(n.heads, p)
		}
	}
	setChanged, projectChanged := false, false
	var added, removed []string
	for _, p := range order {
		text := final[p]
		if isProjectFile(p) {
			projectChanged = true
		}
		exists := s.hasFile(p)
		if text == nil {
			n.texts.remove(p)
			if exists {
				setChanged = true
				removed = append(removed, p)
			}
			continue
		}
		n.texts.set(p, *text)
		if !exists {
			setChanged = true
			added = append(added, p)
		}
	}
	n.Files, n.dirs, n.conventions = s.Files, s.dirs, s.conventions
	if setChanged {
		n.Files = mergeFiles(s.Files, added, removed)
		n.dirs = folders(n.Files)
		n.conventions = project.ConventionSamples(n.Files)
	}
	n.Project = s.Project
	if projectChanged {
		n.openProject()
	}
	n.Libraries, n.libDiags = s.Libraries, s.libDiags
	if setChanged || projectChanged {
		n.Libraries, n.libDiags = n.Project.LibrariesOf(n.Files, n.importsDLT)
	}
	var readDiags []ir.Diagnostic
	var readNow []string
	for _, l := range n.Libraries {
		if !n.texts.has(l) {
			if b, err := os.ReadFile(n.Abs(l)); err == nil {
				n.texts.set(l, string(b))
				readNow = append(readNow, l)
			} else {
				readDiags = append(readDiags, readError(l, err))
			}
		}
	}
	// texts holds the libraries and project files only. With the same
	// libraries as before, only the changed paths can break that, so the
	// whole map is pruned only when the set of libraries may have changed
	// (this runs on every keystroke in the editor).
	if setChanged || projectChanged {
		keep := make(map[string]bool, len(n.Libraries))
		for _, l := range n.Libraries {
			keep[l] = true
		}
		var drop []string
		n.texts.each(func(p, _ string) {
			if !keep[p] && !isProjectFile(p) {
				drop = append(drop, p)
			}
		})
		for _, p := range drop {
			n.texts.remove(p)
		}
	} else {
		for _, p := range order {
			if final[p] != nil && !isProjectFile(p) && !slices.Contains(n.Libraries, p) {
				n.texts.remove(p)
			}
		}
	}
	// With the same libraries and project, only the changed paths (and
	// the libraries just read from disk) can analyse differently.
	var changed []string
	if !setChanged && !projectChanged {
		changed = append(append(make([]string, 0, len(order)+len(readNow)), order...), readNow...)
	}
	n.buildChanged(s.results, changed, readDiags)
	return n
}

// mergeFiles returns the sorted file list with added and removed applied.
func mergeFiles(files, added, removed []string) []string {
	gone := make(map[string]bool, len(removed))
	for _, r := range removed {
		gone[r] = true
	}
	out := make([]string, 0, len(files)+len(added))
	for _, f := range files {
		if !gone[f] {
			out = append(out, f)
		}
	}
	out = append(out, added...)
	sort.Strings(out)
	return slicesCompact(out)
}

func slicesCompact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// folders returns every folder that holds a file, for sample folders.
func folders(files []string) map[string]bool {
	dirs := map[string]bool{}
	for _, f := range files {
		for d := path.Dir(f); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	return dirs
}

// WithOptions returns a snapshot of the same texts analysed with other
// options (another backend set, say).
func (s *Snapshot) WithOptions(opts Options) *Snapshot {
	n := s.Update(nil)
	n.opts = opts
	n.prevAsm = n.asm
	n.build(n.results, nil)
	return n
}

func isProjectFile(p string) bool {
	if project.IsBundleFile(p) {
		// The spec, or a YAML file a Databricks bundle may include.
		return true
	}
	for _, f := range projectFiles {
		if p == f {
			return true
		}
	}
	return false
}

func (s *Snapshot) hasFile(rel string) bool {
	i := sort.SearchStrings(s.Files, rel)
	return i < len(s.Files) && s.Files[i] == rel
}

// importsDLT reports whether the .py file rel imports Databricks' dlt
// module (import dlt, from dlt import ...) and names it: in a folder with no spec it
// is a Databricks pipeline's source file, read as a library whatever the
// backends (on spark-4.x the import is an error: SynPyDLTModule), so a
// SQL dataset reading its datasets finds them. A file Thund cannot read
// is not one.
func (s *Snapshot) importsDLT(rel string) bool {
	if strings.HasPrefix(rel, "samples/") || strings.Contains("/"+rel+"/", "/__pycache__/") {
		return false
	}
	text, ok := s.texts.get(rel)
	if !ok {
		b, err := os.ReadFile(s.Abs(rel))
		if err != nil {
			return false
		}
		text = string(b)
	}
	// A file that imports the module and uses it (a file of helpers
	// alone does not make a pipeline).
	return dltImport.MatchString(text) && strings.Contains(text, "dlt.")
}

// dltImport matches a line importing Databricks' dlt module.
var dltImport = regexp.MustCompile(`(?m)^[ \t]*(import[ \t]+dlt\b|from[ \t]+dlt[ \t]+import\b)`)

// openProject builds s.Project from the spec and config texts.
func (s *Snapshot) openProject() {
	texts := map[string][]byte{}
	for _, name := range project.Files(s.Files, project.SpecPath(s.Root, s.opts.Spec)) {
		if t, ok := s.texts.get(name); ok {
			texts[name] = []byte(t)
		}
	}
	if _, ok := texts[project.BundleYML]; ok || texts[project.BundleYAML] != nil {
		s.texts.each(func(name, t string) {
			if project.IsBundleFile(name) {
				texts[name] = []byte(t)
			}
		})
	}
	s.Project = project.FromTextsSpec(s.Root, texts, project.SpecPath(s.Root, s.opts.Spec))
	s.Project.ReadPython = slices.Contains(s.opts.Backends, ir.Databricks)
}

// Backends returns the backends this snapshot checks.
func (s *Snapshot) Backends() []ir.Backend {
	if len(s.opts.Backends) > 0 {
		return s.opts.Backends
	}
	if bs := s.Project.Config.CheckedBackends(); len(bs) > 0 {
		return bs
	}
	return ir.DefaultBackends
}

// dialect is the pipeline's SQL dialect (thund.yaml `dialect`).
func (s *Snapshot) dialect() sqlfront.Dialect {
	if s.Project.Config.Dialect == "duckdb" {
		return sqlfront.DialectDuckDB
	}
	return sqlfront.DialectSpark
}

// build analyses every library (reusing prev's results for unchanged texts)
// and assembles the pipeline and its diagnostics.
func (s *Snapshot) build(prev map[string]*fileResult, extra []ir.Diagnostic) {
	s.buildChanged(prev, nil, extra)
}

// buildChanged is build told, when changed is not nil, that the
// libraries and the project are prev's and only the paths in changed may
// have other texts: then only those are compared (an editor's keystroke
// changes one file of thousands).
func (s *Snapshot) buildChanged(prev map[string]*fileResult, changed []string, extra []ir.Diagnostic) {
	s.prevResults = prev
	s.changed = changed
	dialect := s.dialect()
	mods := s.moduleSource()
	var todo []string
	if changed != nil && prev != nil {
		s.results = maps.Clone(prev)
		for _, l := range changed {
			if !slices.Contains(s.Libraries, l) || slices.Contains(todo, l) {
				continue
			}
			t, ok := s.texts.get(l)
			if !ok {
				delete(s.results, l)
				continue
			}
			if r, ok := prev[l]; ok && r.text == t && r.dialect == dialect && maps.Equal(r.vars, s.Project.Spec.Configuration) {
				continue
			}
			todo = append(todo, l)
		}
		if deps := s.moduleDependents(prev, changed, todo); len(deps) > 0 {
			// orderedResults places the results of the changed paths
			// only: the dependents are changed too.
			todo = append(todo, deps...)
			s.changed = append(slices.Clone(changed), deps...)
		}
	} else {
		s.results = make(map[string]*fileResult, len(s.Libraries))
		for _, l := range s.Libraries {
			t, ok := s.texts.get(l)
			if !ok {
				continue
			}
			if r, ok := prev[l]; ok && r.text == t && r.dialect == dialect && maps.Equal(r.vars, s.Project.Spec.Configuration) && moduleReadsCurrent(r, mods) {
				s.results[l] = r
				continue
			}
			todo = append(todo, l)
		}
	}
	todoTexts := make(map[string]string, len(todo))
	for _, l := range todo {
		todoTexts[l], _ = s.texts.get(l)
	}
	s.fresh = analyseAll(todo, todoTexts, s.dialect(), s.Project.Spec.Configuration, mods)
	s.finishBuild(prev, extra)
}

// moduleDependents returns each library of s, not in todo, whose
// previous result read a helper module at one of the changed paths (a
// helper is often no library itself: its change re-reads the files
// importing it).
func (s *Snapshot) moduleDependents(prev map[string]*fileResult, changed, todo []string) []string {
	var deps []string
	for _, l := range s.Libraries {
		r := prev[l]
		if r == nil || len(r.moduleReads) == 0 || slices.Contains(todo, l) {
			continue
		}
		for _, p := range changed {
			if readsModuleAt(r, p) {
				if _, ok := s.texts.get(l); ok {
					deps = append(deps, l)
				}
				break
			}
		}
	}
	return deps
}

// buildFresh is build for a cold load whose libraries were analysed as
// they were read (readAnalyseAll): fresh holds a result per library, nil
// for one that could not be read.
func (s *Snapshot) buildFresh(fresh []*fileResult, extra []ir.Diagnostic) {
	s.prevResults, s.changed = nil, nil
	s.results = make(map[string]*fileResult, len(fresh))
	s.fresh = make([]*fileResult, 0, len(fresh))
	for _, r := range fresh {
		if r != nil {
			s.fresh = append(s.fresh, r)
		}
	}
	s.finishBuild(nil, extra)
}

// finishBuild takes s.fresh, the results this build analysed, into
// s.results beside the ones kept from prev, and assembles the pipeline
// and its diagnostics.
func (s *Snapshot) finishBuild(prev map[string]*fileResult, extra []ir.Diagnostic) {
	s.replaced = nil
	for _, r := range s.fresh {
		s.results[r.path] = r
		if old := prev[r.path]; old != nil {
			s.replaced = append(s.replaced, old)
		}
	}
	if len(prev) > len(s.results)-len(s.fresh)+len(s.replaced) {
		// files were removed (or left the libraries)
		for p, old := range prev {
			if s.results[p] == nil {
				s.replaced = append(s.replaced, old)
			}
		}
	}
	diags := append([]ir.Diagnostic(nil), extra...)
	diags = append(diags, s.Project.Diags...)
	diags = append(diags, s.libDiags...)
	s.Pipeline, diags = s.assemble(diags)
	s.prevAsm, s.changed = nil, nil // the previous snapshot is not kept alive
	ir.SortDiagnostics(diags)
	s.Diagnostics = dedupe(diags)
}

// assembly records which file results a pipeline's flows came from, in
// order: the flows of ordered[i] are Pipeline.Flows[flowAt[i]:] (as many
// as it has).
type assembly struct {
	pipeline *ir.Pipeline
	ordered  []*fileResult
	flowAt   []int32
	// sigs holds fileSig of each ordered result.
	sigs []uint64
	// renamed holds the pipeline's copy of each flow whose file reads
	// were renamed (fileread.go).
	renamed map[*ir.Flow]*renamedFlow
}

// fileSig sums up the names a file gives the pipeline, in order: its
// datasets' names and its flows' targets (own or appended), for the
// column check's name signature.
func fileSig(r *fileResult) uint64 {
	h := fnv.New64a()
	write := func(kind byte, name string) {
		h.Write([]byte{kind})
		h.Write([]byte(name))
		h.Write([]byte{0})
	}
	for _, d := range r.datasets {
		write('d', d.Name)
	}
	for _, f := range r.flows {
		if f.Append {
			write('a', f.Target)
		} else {
			write('f', f.Target)
		}
	}
	return h.Sum64()
}

// fileSigs computes a.sigs, taking each unchanged result's from prev.
func (a *assembly) fileSigs(prev *assembly) {
	a.sigs = make([]uint64, len(a.ordered))
	aligned := prev != nil && len(prev.ordered) == len(a.ordered) && len(prev.sigs) == len(prev.ordered)
	for i, r := range a.ordered {
		if aligned && prev.ordered[i] == r {
			a.sigs[i] = prev.sigs[i]
		} else {
			a.sigs[i] = fileSig(r)
		}
	}
}

// origins maps each flow of the results to its index among the flows of
// the previous assembly when it is the same flow (the same file result,
// shared because the file's text did not change), or -1: what
// ir.Pipeline.Follow needs.
func (a *assembly) origins(results []*fileResult, flows int) []int32 {
	origin := make([]int32, 0, flows)
	var at map[*fileResult]int32
	if len(results) != len(a.ordered) {
		at = make(map[*fileResult]int32, len(a.ordered))
		for i, r := range a.ordered {
			at[r] = a.flowAt[i]
		}
	}
	for i, r := range results {
		start := int32(-1)
		if at != nil {
			if o, ok := at[r]; ok {
				start = o
			}
		} else if a.ordered[i] == r {
			start = a.flowAt[i]
		}
		for j := range r.flows {
			if start < 0 {
				origin = append(origin, -1)
			} else {
				origin = append(origin, start+int32(j))
			}
		}
	}
	return origin
}

// readAnalyseAll reads files and analyses each as soon as it is read, in
// parallel: readers (more than the CPUs, since reading waits on the
// kernel) hand each text to one analysing worker per CPU, so a cold load
// has no pause between reading everything and analysing everything. The
// texts and results are in the order of files whatever order the workers
// finish in (a nil result for a file that could not be read, whose error
// is among the diagnostics, in files' order too), so a load gives the
// same snapshot on any number of cores.
func readAnalyseAll(root string, files []string, dialect sqlfront.Dialect, vars map[string]string, mods moduleSource) ([]string, []*fileResult, []ir.Diagnostic) {
	n := len(files)
	texts := make([]string, n)
	errs := make([]error, n)
	out := make([]*fileResult, n)
	if n == 0 {
		return texts, out, nil
	}
	base := cleanBase(root)
	read := make(chan int, n) // each file's index once its text is read
	var claimed atomic.Int64
	var readers sync.WaitGroup
	for w := 0; w < min(fileReaders, n); w++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			var r fileReader
			for {
				i := int(claimed.Add(1)) - 1
				if i >= n {
					return
				}
				texts[i], errs[i] = r.read(joinClean(base, root, files[i]))
				read <- i
			}
		}()
	}
	go func() {
		readers.Wait()
		close(read)
	}()
	var analysers sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), n); w++ {
		analysers.Add(1)
		go func() {
			defer analysers.Done()
			for i := range read {
				if errs[i] == nil {
					out[i] = analyseFileWith(files[i], texts[i], dialect, vars, mods)
				}
			}
		}()
	}
	analysers.Wait()
	var diags []ir.Diagnostic
	for i, f := range files {
		if errs[i] != nil {
			diags = append(diags, readError(f, errs[i]))
		}
	}
	return texts, out, diags
}

// analyseAll analyses files in parallel, one worker per CPU, reading
// the helper modules of .py files through mods.
func analyseAll(files []string, texts map[string]string, dialect sqlfront.Dialect, vars map[string]string, mods moduleSource) []*fileResult {
	out := make([]*fileResult, len(files))
	if len(files) == 0 {
		return out
	}
	workers := runtime.GOMAXPROCS(0)
	if workers > len(files) {
		workers = len(files)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = analyseFileWith(files[i], texts[files[i]], dialect, vars, mods)
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func dedupe(ds []ir.Diagnostic) []ir.Diagnostic {
	out := ds[:0]
	for i, d := range ds {
		if i > 0 && sameDiag(ds[i-1], d) {
			continue
		}
		out = append(out, d)
	}
	return out
}

func sameDiag(a, b ir.Diagnostic) bool {
	return a.Loc == b.Loc && a.Code == b.Code && a.Backend == b.Backend && a.Message == b.Message && a.Severity == b.Severity
}

// Text returns the text analysis used for a file (a library, the spec or
// thund.yaml), and whether it has one.
func (s *Snapshot) Text(rel string) (string, bool) {
	t, ok := s.texts.get(rel)
	return t, ok
}

// Index returns the line index of a file's text (empty if unknown).
func (s *Snapshot) Index(rel string) *textpos.Index {
	s.indexMu.Lock()
	defer s.indexMu.Unlock()
	if s.indexes == nil {
		s.indexes = map[string]*textpos.Index{}
	}
	if ix, ok := s.indexes[rel]; ok {
		return ix
	}
	text, _ := s.texts.get(rel)
	ix := textpos.New(text)
	s.indexes[rel] = ix
	return ix
}

func validUTF8(s string) bool { return utf8.ValidString(s) }

// encodingDiag points at the first invalid UTF-8 byte.
func encodingDiag(file, text string) ir.Diagnostic {
	off := 0
	for off < len(text) {
		r, size := utf8.DecodeRuneInString(text[off:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		off += size
	}
	return ir.Diagnostic{
		Loc: ir.Loc{File: file, Start: off, End: min(off+1, len(text))}, Severity: ir.Warning, Code: ir.CodeFileEncoding,
		Message: "this file is not valid UTF-8 here; save it as UTF-8 (Spark reads SQL files as UTF-8)",
	}
}

// orderedResults is sortedResults, made from the previous assembly's
// order when build knows which paths changed: each changed file's result
// takes its previous result's place.
func (s *Snapshot) orderedResults() []*fileResult {
	if s.prevAsm == nil || s.changed == nil {
		return s.sortedResults()
	}
	out := slices.Clone(s.prevAsm.ordered)
	for _, l := range s.changed {
		old, now := s.prevResults[l], s.results[l]
		if old == now {
			continue
		}
		i := slices.Index(out, old)
		if old == nil || now == nil || i < 0 {
			return s.sortedResults()
		}
		out[i] = now
	}
	return out
}

// sortedFileNames is a helper for stable iteration over results.
func (s *Snapshot) sortedResults() []*fileResult {
	out := make([]*fileResult, 0, len(s.results))
	for _, l := range s.Libraries {
		if r, ok := s.results[l]; ok {
			out = append(out, r)
		}
	}
	return out
}

// Abs returns the absolute path of a root-relative file.
func (s *Snapshot) Abs(rel string) string {
	return filepath.Join(s.Root, filepath.FromSlash(rel))
}

// Rel returns the root-relative, slash-separated path of an absolute path,
// and false when it is outside the root.
func (s *Snapshot) Rel(abs string) (string, bool) {
	r, err := filepath.Rel(s.Root, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}
