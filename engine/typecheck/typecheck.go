// Package typecheck finds, in pure Go and without DuckDB, the errors a
// native run would find in a pipeline's Spark SQL flows before running
// them: the type errors Spark's analyzer raises (DATATYPE_MISMATCH.* and
// the like) and the constructs the native translation refuses, as plain
// --check reports them. (--check --columns and the language server find
// the same when they describe the pipeline on DuckDB: analysis/schema.)
package typecheck

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/engine/translate"
	"github.com/thund-dev/thund/ir"
)

// Check returns the type errors and native refusals of snap's flows (the
// ones plain --check reports): each Spark SQL
// batch flow is translated as a native run would translate it (pure Go,
// no DuckDB), against the columns the analysis knows of the tables it
// reads (each dataset's computed output, each source's CSV header), and
// every expression Spark's analyzer rejects for its operands' types
// (DATATYPE_MISMATCH.* and the like, as the translator is sure of them)
// is an error at its range. Where a type is unknown (a CSV column, say)
// nothing is said; --check --columns binds on DuckDB for those. Name
// errors are left out: the analysis reports them already, at the same
// ranges.
//
// The columns of a dataset are those of its own flow's query as the
// semantic model computes them (what column lineage answers, see
// typeCatalog), and the model of a dataset's own flow, computed once for
// its readers, is the one its translation reads (sema.Reuser).
func Check(snap *analysis.Snapshot) []ir.Diagnostic {
	if snap.Pipeline == nil {
		return nil
	}
	flows := snap.Pipeline.Flows
	if len(flows) >= typeCheckGCFrom && os.Getenv("GOGC") == "" {
		// As a cold load does (analysis.loadGC): the translations
		// allocate far more than they keep, and the process ends soon.
		defer debug.SetGCPercent(debug.SetGCPercent(typeCheckGCPercent))
		// The load's garbage is collected first, so that the target is
		// 400% of what the snapshot keeps rather than of the load's heap
		// in the middle of its work: the peak heap (and RSS) follows
		// the target, and fresh pages cost page faults.
		runtime.GC()
	}
	seen := map[ir.Loc]bool{}
	for _, d := range snap.Diagnostics {
		seen[ir.Loc{File: d.Loc.File, Start: d.Loc.Start, End: d.Loc.End}] = true
	}
	macros := engine.SparkMacroNames()
	workers := runtime.GOMAXPROCS(0)
	cyclic := hasCycle(snap.Diagnostics)
	if cyclic {
		// What a dataset of a cycle answers depends on which of its
		// flows is asked first; one worker in the pipeline's order
		// answers the same on every run.
		workers = 1
	}
	cat := newTypeCatalog(snap, cyclic)
	found := make([][]translate.Finding, len(flows))
	// The flows are translated on every core; each table is computed
	// once, by the first worker that needs it.
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w *tcWorker) {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(flows) {
					return
				}
				found[i] = translateFlow(snap, flows[i], w, macros)
			}
		}(&tcWorker{c: cat, id: w + 1})
	}
	wg.Wait()
	var out []ir.Diagnostic
	for i, f := range flows {
		file := f.QueryLoc.File
		// A native run refuses a flow whose translation refuses a
		// construct, unless the query calls DuckDB's own functions: it
		// was written for DuckDB and runs as its text (engine's
		// prepareQuery).
		native := runsNatively(snap.Pipeline, f) && !callsDuckDB(found[i])
		for _, x := range found[i] {
			loc := ir.Loc{File: file, Start: x.Start, End: x.End}
			var d ir.Diagnostic
			switch {
			case x.Code == translate.CodeTypeError && !nameClass(x.Message):
				d = ir.Diagnostic{Loc: loc, Severity: ir.Error, Code: ir.CodeBinder, Message: x.Message}
			case x.Code == translate.CodeNotPortable && native && !typeDependent(x.Message):
				// What a native run refuses before running the flow,
				// said before the run: the same refusal --once gives.
				d = ir.Diagnostic{Loc: loc, Severity: ir.Error, Code: ir.CodeUnsupported, Backend: ir.Native, Message: NativeRefusal(f.Target, x.Message)}
			default:
				continue
			}
			if seen[loc] {
				continue
			}
			seen[loc] = true
			out = append(out, d)
		}
	}
	return out
}

// NativeRefusal words a construct the native run refuses in dataset's
// flow so that it names the backend, as the capability findings do
// (unless the translator's reason says it already: "does not run
// natively", "the native engine ...").
func NativeRefusal(dataset, why string) string {
	if strings.Contains(why, "native") {
		return why
	}
	return dataset + " cannot run on the native backend: " + why
}

// callsDuckDB reports whether a translation found a call of one of
// DuckDB's own functions.
func callsDuckDB(found []translate.Finding) bool {
	for _, x := range found {
		if x.Code == translate.CodeDuckDBOnly {
			return true
		}
	}
	return false
}

// runsNatively reports whether flow f's dataset is checked against the
// native backend: the pipeline's backends include it (none configured
// means the defaults, which do) and the dataset's `@backends`, if any,
// keep it.
func runsNatively(p *ir.Pipeline, f *ir.Flow) bool {
	configured := p.Backends
	if len(configured) == 0 {
		configured = ir.DefaultBackends
	}
	backends := configured
	if d := p.Dataset(f.Target); d != nil {
		backends = capab.Backends(configured, d)
	}
	for _, b := range backends {
		if b == ir.Native {
			return true
		}
	}
	return false
}

// typeDependent reports whether a not-portable finding rests on a type
// plain --check does not know (a sample column's, typed by DuckDB only
// when the run reads it): the translator words those "... which is not
// known here". A run that knows the type may translate the construct, so
// such a finding is left to the run (and to --check --columns).
func typeDependent(msg string) bool {
	return strings.Contains(msg, "not known here")
}

// The collector's target while typeChecks translates a pipeline of
// typeCheckGCFrom flows or more (unless GOGC is set): on 10,000 flows the
// collector was about a fifth of --check's CPU time at the default 100.
const (
	typeCheckGCFrom    = 1000
	typeCheckGCPercent = 400
)

// hasCycle reports whether the analysis found a cycle among the datasets.
func hasCycle(diags []ir.Diagnostic) bool {
	for _, d := range diags {
		if d.Code == ir.CodeCycle {
			return true
		}
	}
	return false
}

// translateFlow returns the findings of f's translation; nil for a flow a
// run does not translate (DuckDB dialect, streaming, CDC, no Spark tree).
func translateFlow(snap *analysis.Snapshot, f *ir.Flow, cat sema.Catalog, macros map[string]bool) []translate.Finding {
	if f == nil || f.Dialect == "duckdb" || f.Streaming || f.CDC != nil || strings.TrimSpace(f.SQL) == "" {
		return nil
	}
	tree := snap.SparkTree(f)
	if tree == nil {
		return nil
	}
	text, ok := snap.Text(f.QueryLoc.File)
	if !ok {
		return nil
	}
	return translate.Translate(tree, text, translate.Options{Catalog: cat, Macros: macros, DuckDBOnly: engine.DuckDBOnlyFunction}).Findings
}

// nameClass reports whether a finding's message is one of sema's name
// errors (its error class in brackets): the analysis reports those
// itself, through its column check, as unknown-column and its kin. Its
// other analysis errors come through the column check too, at the same
// ranges, and are left out as repeats.
func nameClass(msg string) bool {
	if !strings.HasPrefix(msg, "[") {
		return false
	}
	i := strings.IndexByte(msg, ']')
	if i < 0 {
		return false
	}
	return sema.NameCodes[msg[1:i]]
}

// typeCatalog answers the translator's table lookups with what column
// lineage (analysis/lineage) answers for them: a dataset has the output
// columns of its own flow (the first flow into it that is not an append
// flow, else the first flow), with the types the semantic model gives
// them, when the model knows all of them; a source has its CSV sample's
// header. Unlike lineage.Graph it computes no column dependencies, which
// the type check does not read, and holds no lock while a model is
// computed, so both cores compute tables. Each table is computed once;
// a worker that needs a table another is computing waits for it.
type typeCatalog struct {
	snap *analysis.Snapshot
	p    *ir.Pipeline
	// own is each dataset's flow by name key, and ownTree the dataset
	// key of each such flow's tree (for Analyzed).
	own     map[string]*ir.Flow
	ownTree map[*ast.Query]string
	// cyclic: the pipeline has a cycle, so a model is never handed to a
	// translation (the one it would compute may differ).
	cyclic bool

	mu      sync.Mutex
	tables  map[string]*tcTable
	waiting map[int]*tcTable // what each worker waits for
}

// tcTable is one dataset or source, computed once.
type tcTable struct {
	owner int           // the worker computing it, while it is computed
	done  chan struct{} // closed when it is computed
	cols  []sema.Column // nil when the columns are not all known
	// model, tree and text are a dataset's own flow's; reusable says the
	// model is the one a translation of the flow would compute (no
	// answer it rests on came from a cycle or from a name part holding
	// a dot, which the translation's lookups split differently).
	model    *sema.Model
	reusable bool
	text     string
}

func newTypeCatalog(snap *analysis.Snapshot, cyclic bool) *typeCatalog {
	c := &typeCatalog{snap: snap, p: snap.Pipeline, own: map[string]*ir.Flow{}, ownTree: map[*ast.Query]string{},
		cyclic: cyclic, tables: map[string]*tcTable{}, waiting: map[int]*tcTable{}}
	first := map[string]*ir.Flow{}
	for _, f := range c.p.Flows {
		k := ir.NameKey(f.Target)
		if first[k] == nil {
			first[k] = f
		}
		if !f.Append && c.own[k] == nil {
			c.own[k] = f
		}
	}
	for k, f := range first {
		if c.own[k] == nil {
			c.own[k] = f
		}
	}
	for k, f := range c.own {
		if q := snap.SparkTree(f); q != nil {
			c.ownTree[q] = k
		}
	}
	return c
}

// tcWorker is the catalog as one worker's translations see it.
type tcWorker struct {
	c  *typeCatalog
	id int
}

// Table implements sema.Catalog for a translation: the name is split at
// every dot, as lineage.Graph.Table reads it.
func (w *tcWorker) Table(name []string) ([]sema.Column, bool) {
	parts := strings.Split(strings.Join(name, "."), ".")
	t, ok := w.lookup(parts, nil)
	if !ok {
		return nil, false
	}
	if t == nil {
		return nil, true
	}
	return t.cols, true
}

// Analyzed implements sema.Reuser: the model of a dataset's own flow,
// computed for the dataset's readers, serves its translation.
func (w *tcWorker) Analyzed(q *ast.Query, opts sema.Options) *sema.Model {
	k, ok := w.c.ownTree[q]
	if !ok || w.c.cyclic || !plainOptions(opts) {
		return nil
	}
	t := w.dataset(k, nil)
	if t == nil {
		return nil
	}
	// The model serves the one translation of its own flow: handed out,
	// it is dropped from the catalog (its readers need only the
	// columns), so the models of translated flows do not pile up.
	w.c.mu.Lock()
	m := t.model
	t.model = nil
	w.c.mu.Unlock()
	if !t.reusable || m == nil || t.text != opts.Source {
		return nil
	}
	return m
}

// plainOptions reports whether opts are Spark's defaults but for Source,
// the options the catalog's models are computed with (every field of
// sema.Options but Source is listed).
func plainOptions(o sema.Options) bool {
	return !o.CaseSensitive && !o.NoGroupByAliases && !o.NoLateralAliases && !o.QuotedRegexColumnNames &&
		len(o.Variables) == 0 && !o.NoOrderByOrdinal && !o.NoGroupByOrdinal
}

// inner is the catalog of the model of a dataset's own flow: names as
// the query writes them (lineage's catalog), a table being computed by
// the same chain of lookups (a cycle) known without columns.
type inner struct {
	w *tcWorker
	// diverged is set when an answer differs from what the translation's
	// own lookup (tcWorker.Table) would give.
	diverged bool
}

// Table implements sema.Catalog.
func (in *inner) Table(name []string) ([]sema.Column, bool) {
	for _, p := range name {
		if strings.Contains(p, ".") {
			in.diverged = true
		}
	}
	t, ok := in.w.lookup(name, in)
	if !ok {
		return nil, false
	}
	if t == nil {
		return nil, true
	}
	return t.cols, true
}

// lookup resolves parts to a dataset or a source as lineage does (the
// whole name as a dataset, then as a source, then its last part as a
// source) and returns its table; ok is false when the name is neither.
// A nil table with ok is a dataset reached again while it is computed.
func (w *tcWorker) lookup(parts []string, in *inner) (t *tcTable, ok bool) {
	if len(parts) == 0 {
		return nil, false
	}
	full := strings.Join(parts, ".")
	if d := w.c.p.Resolve(full); d != nil {
		return w.dataset(ir.NameKey(d.Name), in), true
	}
	s := w.c.p.Source(full)
	if s == nil {
		s = w.c.p.Source(parts[len(parts)-1])
	}
	if s == nil {
		return nil, false
	}
	return w.source(s), true
}

// source returns a source's table: its sample's header.
func (w *tcWorker) source(s *ir.Source) *tcTable {
	k := "source\x00" + ir.NameKey(s.Name)
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	if t := w.c.tables[k]; t != nil {
		return t
	}
	t := &tcTable{cols: w.c.snap.SampleColumns(s), done: make(chan struct{})}
	close(t.done)
	w.c.tables[k] = t
	return t
}

// dataset returns the table of the dataset with name key k, computing it
// when no worker has; nil when computing it would wait on itself (a
// cycle), which in notes as a divergence.
func (w *tcWorker) dataset(k string, in *inner) *tcTable {
	c := w.c
	c.mu.Lock()
	t := c.tables[k]
	if t == nil {
		t = &tcTable{owner: w.id, done: make(chan struct{})}
		c.tables[k] = t
		c.mu.Unlock()
		// done is closed even when the model panics (the translation
		// that asked recovers), so no other worker waits forever.
		defer func() {
			c.mu.Lock()
			t.owner = 0
			close(t.done)
			c.mu.Unlock()
		}()
		w.compute(k, t)
		return t
	}
	select {
	case <-t.done:
		c.mu.Unlock()
		return t
	default:
	}
	// t is being computed: by this worker (a cycle), or by another; wait
	// for that one unless it waits, through others, for this worker.
	for o := t; o != nil; o = c.waiting[o.owner] {
		if o.owner == w.id {
			c.mu.Unlock()
			if in != nil {
				in.diverged = true
			}
			return nil
		}
	}
	c.waiting[w.id] = t
	c.mu.Unlock()
	<-t.done
	c.mu.Lock()
	delete(c.waiting, w.id)
	c.mu.Unlock()
	return t
}

// compute fills t, the table of the dataset with name key k.
func (w *tcWorker) compute(k string, t *tcTable) {
	f := w.c.own[k]
	if f == nil {
		return // no flow fills it
	}
	tree := w.c.snap.SparkTree(f)
	if tree == nil {
		return // its query does not parse with Spark's grammar
	}
	file := f.QueryLoc.File
	if file == "" {
		file = f.Loc.File
	}
	t.text, _ = w.c.snap.Text(file)
	in := &inner{w: w}
	m := sema.Analyze(tree, in, sema.Options{Source: t.text})
	t.reusable = !in.diverged
	if t.reusable {
		t.model = m // else the translation computes its own
	}
	if out := m.Output(tree); out != nil && out.Complete {
		t.cols = make([]sema.Column, len(out.Columns))
		for i, oc := range out.Columns {
			t.cols[i] = sema.Column{Name: oc.Name, Type: oc.Type}
		}
	}
}
