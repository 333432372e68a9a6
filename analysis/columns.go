package analysis

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/thund-dev/thund/analysis/schema/sampletypes"
	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

// flowTree is a flow's Spark syntax tree.
type flowTree struct {
	flow *ir.Flow
	q    *ast.Query
}

// noteTree remembers a flow's Spark syntax tree for the column check.
func (res *fileResult) noteTree(f *ir.Flow, q *ast.Query) {
	if q != nil {
		res.trees = append(res.trees, flowTree{f, q})
	}
}

// tree returns f's Spark syntax tree, nil when it has none.
func (res *fileResult) tree(f *ir.Flow) *ast.Query {
	for _, t := range res.trees {
		if t.flow == f {
			return t.q
		}
	}
	return nil
}

// checkedTree returns the flow of t as the pipeline has it and the tree
// to check: the renamed copy's when a file read of the flow was renamed
// (fileread.go).
func (s *Snapshot) checkedTree(t flowTree) (*ir.Flow, *ast.Query) {
	if a := s.asm; a != nil {
		if rf, ok := a.renamed[t.flow]; ok {
			return rf.flow, rf.tree
		}
	}
	return t.flow, t.q
}

// checkedFlow is a flow's tree and its file.
type checkedFlow struct {
	q   *ast.Query
	res *fileResult
}

// columnCheck resolves every column of every flow's query with the Spark
// semantic model (analysis/sparksql/sema) against the pipeline's own
// datasets and the header of each source's CSV sample, and reports the
// name errors it is certain of: unknown and ambiguous columns and
// columns neither grouped nor aggregated. A table whose columns are not
// known (a source without a CSV sample, a dataset whose output the model
// cannot compute) is never checked, so there is no false alarm there.
//
// A flow's result is kept in the snapshot and reused by the next one when
// the flow is the same (its file did not change) and every table it read
// answers with the same columns, so an edit re-resolves only the edited
// file and the flows whose inputs' columns changed. When the pipeline's
// names are the ones of the previous build, a table read is re-answered
// from what it resolved to then (a dataset's flow, a source's sample)
// without resolving its name again.
//
// A build with many flows to resolve (a cold load) resolves them level by
// level of the flow graph, the flows of one level side by side.
type columnCheck struct {
	s     *Snapshot
	p     *ir.Pipeline
	trees map[*ir.Flow]checkedFlow
	// prev is what the previous build kept (nil on a cold load); done
	// holds this build's results.
	prev       *colState
	done       map[*ir.Flow]*flowColumns
	inProgress map[*ir.Flow]bool
	// cyclic is set when a flow's check reached itself through the flows
	// it reads (a cycle, reported elsewhere): what each flow of the cycle
	// then gets depends on which was checked first, so only a check of
	// every flow in the pipeline's order gives the answer a fresh load
	// gives.
	cyclic bool
	// inc is set for an incremental build (see columnsIncremental):
	// trees then holds the fresh flows only, dirty the flows to resolve
	// again, and stale the flows of the files replaced since prev.
	inc   bool
	dirty map[*ir.Flow]bool
	queue []*ir.Flow
	stale map[*ir.Flow]bool
	// lastOut is the output last known of each dataset key whose own
	// flow was resolved in this build, and users the flows resolved in
	// this build by what they read.
	lastOut  map[string][]sema.Column
	users    map[userKey][]*ir.Flow
	sampleMu sync.Mutex
	samples  map[string][]sema.Column
	// headers are the sample files read by this build (see csvFile).
	headers map[string]csvFile
	// own is each dataset's own flow (not an append flow) and ownIdx its
	// index in the pipeline's flows (an incremental build takes the
	// index from prev: the flows' targets are the previous build's, in
	// the same order), and sources the sources by name key.
	own     map[string]*ir.Flow
	ownIdx  map[string]int
	sources map[string]*ir.Source
}

// flowColumns is the column check's result for one flow.
type flowColumns struct {
	// q and res are the flow's tree and file, which an incremental build
	// resolves again when what the flow reads changed.
	q     *ast.Query
	res   *fileResult
	diags []ir.Diagnostic
	// out are the query's output columns, nil when not known.
	out []sema.Column
	// deps are the catalog's answers the result rests on.
	deps []catalogAnswer
}

// catalogAnswer is one table lookup, what the name resolved to and the
// columns it returned.
type catalogAnswer struct {
	name []string
	// kind is what the name resolved to; key is that dataset's or
	// source's name key.
	kind answerKind
	key  string
	cols []sema.Column
	ok   bool
}

// answerKind says what a table name resolved to.
type answerKind uint8

const (
	answerNone    answerKind = iota // neither a dataset nor a source
	answerDataset                   // a dataset of the pipeline
	answerSource                    // a source (its sample's header)
)

// resolver gives a flow's result while a lookup answers; ok is false when
// the result is not available yet (the parallel pass).
type resolver func(f *ir.Flow) (r *flowColumns, ok bool)

// incrementalColumns turns on columnsIncremental. lsp's
// TestStormReplayEqualsLoad replays edit storms on many seeds and
// compares every incremental snapshot with a fresh load; the causes it
// found (a dataset's own flow taken from a map that kept flows of files
// gone, a result kept with answers another pipeline's names gave) are
// fixed: the own flow is found by its index among the pipeline's flows,
// and a result is kept only when each name still resolves to the same
// dataset or source with the same columns.
const incrementalColumns = true

// parallelFrom is the number of flows to resolve from which a build
// resolves them level by level on every core.
const parallelFrom = 64

// columns runs the column check over the pipeline: incrementally when
// the previous build's state allows it (columnsIncremental), else over every
// flow. cycle says the pipeline has a cycle: then every flow is checked in
// the pipeline's order, since what the flows of a cycle get depends on
// which is checked first, and only that order gives a fresh load's answer.
func (s *Snapshot) columns(p *ir.Pipeline, results []*fileResult, prev *colState, cycle bool) []ir.Diagnostic {
	sig := s.nameSignature(p)
	if incrementalColumns && prev != nil && !prev.holes && !cycle && sig == prev.names && len(s.fresh) < parallelFrom && sameMap(prev.results, s.prevResults) {
		if diags, ok := s.columnsIncremental(p, prev, sig); ok {
			return diags
		}
	}
	c := &columnCheck{s: s, p: p, trees: make(map[*ir.Flow]checkedFlow, len(p.Flows)),
		prev: prev, done: make(map[*ir.Flow]*flowColumns, len(p.Flows)), inProgress: map[*ir.Flow]bool{},
		samples: map[string][]sema.Column{}}
	fresh := 0
	for _, r := range results {
		for _, t := range r.trees {
			f, q := s.checkedTree(t)
			if q == nil {
				continue
			}
			c.trees[f] = checkedFlow{q, r}
			if prev.result(f) == nil {
				fresh++
			}
		}
	}
	c.own = make(map[string]*ir.Flow, len(p.Flows))
	c.ownIdx = make(map[string]int, len(p.Flows))
	for i, f := range p.Flows {
		if k := ir.NameKey(f.Target); !f.Append && c.own[k] == nil {
			c.own[k] = f
			c.ownIdx[k] = i
		}
	}
	c.sources = make(map[string]*ir.Source, len(p.Sources))
	for _, src := range p.Sources {
		if k := ir.NameKey(src.Name); c.sources[k] == nil {
			c.sources[k] = src
		}
	}
	if len(c.trees) == 0 {
		s.colCache = c.fullState(sig)
		return nil
	}
	if fresh >= parallelFrom && runtime.GOMAXPROCS(0) > 1 {
		c.parallel()
	}
	var diags []ir.Diagnostic
	for _, f := range p.Flows {
		if r := c.result(f); r != nil {
			diags = append(diags, r.diags...)
		}
	}
	s.colCache = c.fullState(sig)
	return diags
}

// nameSignature sums up what table names resolve against: the pipeline's
// qualifiers, its datasets and which flow is each one's own, and its
// sources with their samples.
func (s *Snapshot) nameSignature(p *ir.Pipeline) uint64 {
	h := fnv.New64a()
	write := func(parts ...string) {
		for _, x := range parts {
			h.Write([]byte(x))
			h.Write([]byte{0})
		}
	}
	write(p.Catalog, p.Database)
	if a := s.asm; a != nil && a.pipeline == p {
		// Each file's datasets and flows, summed up once per result
		// (snapshot.go's fileSig).
		var b [8]byte
		for _, x := range a.sigs {
			binary.LittleEndian.PutUint64(b[:], x)
			h.Write(b[:])
		}
	} else {
		for _, d := range p.Datasets {
			write("d", d.Name)
		}
		for _, f := range p.Flows {
			if f.Append {
				write("a", f.Target)
			} else {
				write("f", f.Target)
			}
		}
	}
	for _, src := range p.Sources {
		stream := "b"
		if src.Stream {
			stream = "s"
		}
		write("s", src.Name, src.Sample, stream)
	}
	return h.Sum64()
}

// parallel resolves the flows level by level: a flow's level comes after
// the levels of every flow whose dataset it reads, and the flows of a
// level are resolved side by side against the results of the levels
// before. A flow whose lookups reach a result not known yet (a read the
// flow's references did not list, a cycle) is left to the sequential
// pass that follows.
func (c *columnCheck) parallel() {
	var flows []*ir.Flow
	for _, f := range c.p.Flows {
		if c.trees[f].q != nil {
			flows = append(flows, f)
		}
	}
	index := make(map[*ir.Flow]int, len(flows))
	for i, f := range flows {
		index[f] = i
	}
	indeg := make([]int, len(flows))
	users := make([][]int, len(flows))
	var deps []int // the flows f's reads wait for, each once
	for i, f := range flows {
		deps = deps[:0]
		for _, ref := range f.Reads {
			d := c.p.Resolve(ref.Name)
			if d == nil {
				continue
			}
			j, ok := index[c.own[ir.NameKey(d.Name)]]
			if !ok || slices.Contains(deps, j) {
				continue
			}
			deps = append(deps, j)
			indeg[i]++
			users[j] = append(users[j], i)
		}
	}
	var level []int
	for i := range flows {
		if indeg[i] == 0 {
			level = append(level, i)
		}
	}
	frozen := func(f *ir.Flow) (*flowColumns, bool) {
		r, ok := c.done[f]
		return r, ok
	}
	workers := runtime.GOMAXPROCS(0)
	out := make([]*flowColumns, len(flows))
	for len(level) > 0 {
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := 0; w < min(workers, len(level)); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					k := int(next.Add(1)) - 1
					if k >= len(level) {
						return
					}
					i := level[k]
					out[i] = c.resolve(flows[i], frozen)
				}
			}()
		}
		wg.Wait()
		var following []int
		for _, i := range level {
			if out[i] != nil {
				c.done[flows[i]] = out[i]
			}
			for _, u := range users[i] {
				if indeg[u]--; indeg[u] == 0 {
					following = append(following, u)
				}
			}
		}
		level = following
	}
}

// result checks f once per build, reusing the previous snapshot's result
// when it still holds.
func (c *columnCheck) result(f *ir.Flow) *flowColumns {
	if r, ok := c.done[f]; ok {
		return r
	}
	if c.inc && !c.dirty[f] {
		return c.prev.result(f) // nothing it reads changed
	}
	if c.tree(f).q == nil {
		return nil // no tree
	}
	if c.inProgress[f] {
		c.cyclic = true
		return nil // a cycle (reported elsewhere)
	}
	c.inProgress[f] = true
	defer delete(c.inProgress, f)
	r := c.resolve(f, func(g *ir.Flow) (*flowColumns, bool) { return c.result(g), true })
	c.done[f] = r
	if c.inc {
		c.settled(f, r)
	}
	return r
}

// tree returns f's tree and file: from this build's files, or, in an
// incremental build, from the previous result of a flow whose file did
// not change.
func (c *columnCheck) tree(f *ir.Flow) checkedFlow {
	if t, ok := c.trees[f]; ok || !c.inc {
		return t
	}
	if r := c.prev.result(f); r != nil {
		return checkedFlow{r.q, r.res}
	}
	return checkedFlow{}
}

// resolve computes f's result, or reuses the previous one, answering
// lookups of datasets through results; it returns nil when a result it
// needed was not available.
func (c *columnCheck) resolve(f *ir.Flow, results resolver) *flowColumns {
	t := c.tree(f)
	if old := c.prev.result(f); old != nil {
		still, known := c.still(old, results)
		if !known {
			return nil
		}
		if still {
			return old
		}
	}
	rec := &recorder{c: c, results: results, use: f.Use}
	m := sema.Analyze(t.q, rec, sema.Options{Source: t.res.text})
	if rec.missed {
		return nil
	}
	r := &flowColumns{q: t.q, res: t.res, deps: rec.answers}
	for _, d := range m.Diagnostics {
		msg := d.Message
		if !sema.NameCodes[d.Code] {
			msg = "[" + d.Code + "] " + msg // Spark's error class, as a run reports it
		}
		r.diags = append(r.diags, ir.Diagnostic{
			Loc:      ir.Loc{File: f.QueryLoc.File, Start: d.Start, End: d.End},
			Severity: ir.Error, Code: columnCode(d.Code), Message: msg,
			Suggestions: d.Suggestions,
		})
	}
	if out := m.Output(t.q); out != nil && out.Complete {
		r.out = make([]sema.Column, 0, len(out.Columns))
		for _, oc := range out.Columns {
			r.out = append(r.out, sema.Column{Name: oc.Name, Type: oc.Type})
		}
	}
	if d := c.p.Dataset(f.Target); !f.Append && d != nil && len(d.Declared) > 0 {
		// A declared column list is the dataset's schema (sqlfront/ddl_schema.go).
		r.diags = append(r.diags, sqlfront.SchemaErrors(d, t.q, f.QueryLoc, r.out)...)
		r.out = sqlfront.DeclaredOutput(d, r.out)
	}
	if d := c.p.Dataset(f.Target); !f.Append && d != nil {
		r.diags = append(r.diags, sqlfront.LayoutErrors(d, r.out)...) // PARTITIONED BY / CLUSTER BY columns
	}
	r.diags = append(r.diags, expectationColumns(f.QueryLoc.File, t.res.text, c.expectationsOf(f), r.out)...)
	return r
}

// expectationsOf are the expectations that check f's rows: its own, and
// its dataset's (CONSTRAINT clauses of a dataset declared without a
// query), these with the dataset's first flow only, so each is checked
// once.
func (c *columnCheck) expectationsOf(f *ir.Flow) []ir.Expectation {
	exps := f.Expectations
	d := c.p.Dataset(f.Target)
	if d == nil || len(d.Expectations) == 0 {
		return exps
	}
	if flows := c.p.FlowsInto(d.Name); len(flows) > 0 && flows[0] == f {
		exps = append(append([]ir.Expectation(nil), exps...), d.Expectations...)
	}
	return exps
}

// columnCode maps Spark's error class to Thund's diagnostic code: a name
// error to its code, any other analysis error of the semantic model (a
// type mismatch, an expression Spark's analyzer rejects where it stands)
// to sql-binder, as --check --columns reports them.
func columnCode(class string) ir.Code {
	switch class {
	case "AMBIGUOUS_REFERENCE":
		return ir.CodeAmbiguousColumn
	case "MISSING_AGGREGATION", "MISSING_GROUP_BY":
		return ir.CodeMissingAggregation
	}
	if !sema.NameCodes[class] {
		return ir.CodeBinder
	}
	return ir.CodeUnknownColumn
}

// still reports whether every table a previous result read answers the
// same now: the name resolves to the same dataset or source, which gives
// the same columns. known is false when a result it needed is not
// available. A result is never kept with answers another pipeline's
// names gave (a name once a source, now a dataset with the same
// columns): the readers of a table are found by what their answers say
// it is.
func (c *columnCheck) still(r *flowColumns, results resolver) (still, known bool) {
	for i := range r.deps {
		a := &r.deps[i]
		now, avail := c.lookup(a.name, results)
		if !avail {
			return false, false
		}
		if now.ok != a.ok || now.kind != a.kind || now.key != a.key || !sameColumns(now.cols, a.cols) {
			return false, true
		}
	}
	return true, true
}

func sameColumns(a, b []sema.Column) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	if len(a) > 0 && &a[0] == &b[0] {
		return true // one result's columns, reused
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// recorder is the sema.Catalog of one flow: the pipeline's, recording
// each answer.
type recorder struct {
	c       *columnCheck
	results resolver
	answers []catalogAnswer
	// missed is set when an answer needed a result not available yet.
	missed bool
	// use is the flow's current catalog and schema (USE SCHEMA ...).
	use ir.Scope
}

// Table resolves a name to a dataset (its computed output) or a source
// (its CSV sample's header).
func (r *recorder) Table(name []string) ([]sema.Column, bool) {
	if r.use != (ir.Scope{}) && len(name) > 0 {
		// Spark reads the name in the current schema (a temporary view,
		// in none, as written).
		written := strings.Join(name, ".")
		if d := r.c.p.ResolveIn(written, r.use); d != nil {
			name = strings.Split(d.Name, ".")
		} else if q := r.use.Qualify(written); q != written {
			name = strings.Split(q, ".")
		}
	}
	a, known := r.c.lookup(name, r.results)
	if !known {
		r.missed = true
	}
	a.name = append([]string(nil), name...)
	r.answers = append(r.answers, a)
	return a.cols, a.ok
}

// lookup answers a table name; known is false when the answer needs a
// result not available yet.
func (c *columnCheck) lookup(name []string, results resolver) (a catalogAnswer, known bool) {
	a.name = name
	if len(name) == 0 {
		return a, true
	}
	full := strings.Join(name, ".")
	if d := c.p.Resolve(full); d != nil {
		a.kind, a.key, a.ok = answerDataset, ir.NameKey(d.Name), true
		if f := c.ownOf(a.key); f != nil {
			r, ok := results(f)
			if !ok {
				return a, false
			}
			if r != nil {
				a.cols = r.out
			}
		}
		return a, true
	}
	for _, key := range []string{ir.NameKey(full), ir.NameKey(name[len(name)-1])} {
		if src := c.sources[key]; src != nil {
			a.kind, a.key, a.ok = answerSource, key, true
			a.cols = c.withRescued(key, c.sampleColumns(src))
			return a, true
		}
	}
	return a, true
}

// maxHeader bounds what is read of a sample to find its header.
const maxHeader = 64 << 10

// sampleColumns returns the column names of src's CSV sample (its header
// line), or nil when it has none or it is not a plain CSV file.
func (c *columnCheck) sampleColumns(src *ir.Source) []sema.Column {
	if src.Sample == "" || src.Stream || !strings.EqualFold(filepath.Ext(src.Sample), ".csv") {
		return nil
	}
	c.sampleMu.Lock()
	defer c.sampleMu.Unlock()
	if cols, ok := c.samples[src.Sample]; ok {
		return cols
	}
	var cols []sema.Column
	if text, ok := c.s.heads[src.Sample]; ok {
		// a sample an editor or watcher handed over with its text
		cols = csvHeader(strings.NewReader(text))
	} else {
		cols = c.readSample(src.Sample)
	}
	c.samples[src.Sample] = cols
	return cols
}

// csvFile is what a build read of a sample file: its columns, the
// file's identity, size and modification time when it was read, and when
// that was.
type csvFile struct {
	fi     os.FileInfo
	readAt time.Time
	cols   []sema.Column
}

// racyWindow is how long after a file's modification time a reading of it
// is not reused (as git treats an index entry as racily clean): a file
// system stamps changes with a coarse clock, so a change right after a
// read could keep the size and time the read saw.
const racyWindow = time.Second

// readSample is readCSVHeader of the sample at rel, reusing the previous
// build's reading when the file is the same one, of the same size and
// modification time, and that time was over racyWindow before the
// reading: the incremental check looks at every source's header on every
// edit, and reading and typing a sample again each time was most of an
// edit's allocations. c.sampleMu is held.
func (c *columnCheck) readSample(rel string) []sema.Column {
	path := filepath.Join(c.s.Root, filepath.FromSlash(rel))
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	if c.headers == nil {
		c.headers = map[string]csvFile{}
	}
	if c.prev != nil {
		if h, ok := c.prev.headers[rel]; ok && os.SameFile(h.fi, fi) && h.fi.Size() == fi.Size() && h.fi.ModTime().Equal(fi.ModTime()) &&
			fi.ModTime().Before(h.readAt.Add(-racyWindow)) {
			c.headers[rel] = h
			return h.cols
		}
	}
	now := time.Now()
	cols := readCSVHeader(path)
	c.headers[rel] = csvFile{fi, now, cols}
	return cols
}

// readCSVHeader reads the first record of a CSV file. Only a regular file
// is opened (never a FIFO or a device, which could block), and at most
// maxHeader bytes are read.
func readCSVHeader(path string) []sema.Column {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	return csvHeader(f)
}

// csvHeader reads the first record of a CSV text as column names, and,
// when the whole text is within maxHeader bytes, each column's type as
// the native engine reads it (sampletypes: "" where it is not certain),
// so the semantic model can check function arguments against a sample's
// columns without asking DuckDB. A longer sample's rows past what is read
// could change DuckDB's reading, so its types stay unknown.
func csvHeader(in io.Reader) []sema.Column {
	buf, err := io.ReadAll(io.LimitReader(in, maxHeader+1))
	if err != nil && len(buf) == 0 {
		return nil
	}
	// An editor's copy of a sample is cut at maxHeader bytes too, so a
	// text of that length may be longer.
	whole := len(buf) < maxHeader
	if len(buf) > maxHeader {
		buf = buf[:maxHeader]
	}
	r := csv.NewReader(bytes.NewReader(buf))
	r.FieldsPerRecord = -1
	rec, err := r.Read()
	if err != nil || len(rec) == 0 {
		return nil
	}
	var types []string
	if whole {
		types = sampletypes.Infer(bytes.NewReader(buf))
		if len(types) != len(rec) {
			types = nil
		}
	}
	cols := make([]sema.Column, 0, len(rec))
	for i, name := range rec {
		name = strings.TrimSpace(name)
		if i == 0 {
			name = strings.TrimPrefix(name, "\uFEFF")
		}
		if name == "" || looksNumeric(name) {
			// DuckDB would name it column0..., or read the line as data
			// (no header): the columns are not known
			return nil
		}
		col := sema.Column{Name: name}
		if types != nil {
			col.Type = types[i]
		}
		cols = append(cols, col)
	}
	return cols
}

// looksNumeric reports whether a header field reads as a number, which
// DuckDB's sniffer may take for a data row.
func looksNumeric(s string) bool {
	digits := 0
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case (r == '-' || r == '+') && i == 0, r == '.', r == 'e', r == 'E':
		default:
			return false
		}
	}
	return digits > 0
}

// colState is what the column check keeps from one build for the next:
// every flow's result, which flows read each table, and each dataset's
// own flow. It is never changed once built: a build adds to it through a
// small overlay (the results of the flows it resolved) on a shared base,
// and folds the overlay into a new base when it has grown.
type colState struct {
	// names is the name signature the results were computed under.
	names uint64
	// base and over hold the results by flow (over first).
	base, over map[*ir.Flow]*flowColumns
	// users lists, by table read, the flows whose results rest on it
	// (ubase then uover; a flow may be listed for a table it no longer
	// reads, which only costs a check).
	ubase, uover map[userKey][]*ir.Flow
	// flows are the pipeline's flows and ownIdx the index among them of
	// each dataset's own flow, by key (shared by every state of one name
	// signature: the flows' targets are the same, in the same order).
	flows  []*ir.Flow
	ownIdx map[string]int
	// diags says which flows have diagnostics (dbase, then dover).
	dbase, dover map[*ir.Flow]bool
	// gone holds the flows of files replaced since base was built:
	// they are still in the maps but no longer in the pipeline.
	gone map[*ir.Flow]bool
	// samples are the columns each source answered, by name key, and
	// headers the sample files read, by path (the next build reuses an
	// unchanged file's reading).
	samples map[string][]sema.Column
	headers map[string]csvFile
	// holes is set when a flow with a query came out with no result (a
	// cycle, a lookup that could not be answered): nothing records what
	// such a flow read, so an edit elsewhere could not reach it, and the
	// next build checks every flow.
	holes bool
	// results are the file results of the build that made the state:
	// a build starting from other results cannot take fresh and
	// replaced for the whole difference.
	results map[string]*fileResult
}

// sameMap reports whether a and b are one map.
func sameMap(a, b map[string]*fileResult) bool {
	return a != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// userKey names a table a result read: a dataset or a source, by key.
type userKey struct {
	kind answerKind
	key  string
}

// maxOverlay is the overlay size from which a build folds it into a new
// base (a pass over every flow, once in that many resolved flows).
const maxOverlay = 256

// result returns f's result, nil when there is none (st may be nil).
func (st *colState) result(f *ir.Flow) *flowColumns {
	if st == nil {
		return nil
	}
	if r, ok := st.over[f]; ok {
		return r
	}
	return st.base[f]
}

// fullState is the state after a build that resolved every flow.
func (c *columnCheck) fullState(sig uint64) *colState {
	st := &colState{names: sig, base: c.done, flows: c.p.Flows, ownIdx: c.ownIdx, results: c.s.results, holes: c.cyclic,
		ubase: make(map[userKey][]*ir.Flow, len(c.done)), dbase: map[*ir.Flow]bool{}, samples: c.sourceColumns()}
	st.headers = c.headers // filled by sourceColumns
	for f, r := range c.done {
		if r == nil {
			if c.trees[f].q != nil {
				st.holes = true
			}
			continue
		}
		if len(r.diags) > 0 {
			st.dbase[f] = true
		}
		addUsers(st.ubase, f, r)
	}
	return st
}

// addUsers lists f under every table its result read.
func addUsers(m map[userKey][]*ir.Flow, f *ir.Flow, r *flowColumns) {
	for i := range r.deps {
		a := &r.deps[i]
		if a.kind == answerNone {
			continue
		}
		k := userKey{a.kind, a.key}
		if l := m[k]; len(l) == 0 || l[len(l)-1] != f {
			m[k] = append(l, f)
		}
	}
}

// sourceColumns returns the columns of every source's sample, by key.
func (c *columnCheck) sourceColumns() map[string][]sema.Column {
	out := make(map[string][]sema.Column, len(c.sources))
	for k, src := range c.sources {
		out[k] = c.sampleColumns(src)
	}
	return out
}

// current reports whether f is a flow of this build's pipeline.
func (c *columnCheck) current(f *ir.Flow) bool {
	if !c.inc {
		_, ok := c.trees[f]
		return ok
	}
	return !c.stale[f] && !c.prev.gone[f]
}

// ownOf returns the own flow of dataset key k.
func (c *columnCheck) ownOf(k string) *ir.Flow {
	if !c.inc {
		return c.own[k]
	}
	if i, ok := c.prev.ownIdx[k]; ok {
		return c.p.Flows[i]
	}
	return nil
}

// columnsIncremental runs the column check of a build whose pipeline
// names are the previous build's (so every table name resolves as it
// did) and that re-analysed few files. Only what can have changed is
// resolved: the flows of the re-analysed files, then the flows reading a
// dataset whose output columns came out different (or a source whose
// sample's header changed), and so on downstream; every other flow keeps
// its previous result untouched. The work is in proportion to the edit,
// not to the pipeline. It returns false when the edit reaches too far
// (then the caller checks every flow).
func (s *Snapshot) columnsIncremental(p *ir.Pipeline, prev *colState, sig uint64) ([]ir.Diagnostic, bool) {
	c := &columnCheck{s: s, p: p, prev: prev, inc: true,
		trees: map[*ir.Flow]checkedFlow{}, done: map[*ir.Flow]*flowColumns{}, inProgress: map[*ir.Flow]bool{},
		dirty: map[*ir.Flow]bool{}, stale: map[*ir.Flow]bool{},
		lastOut: map[string][]sema.Column{}, users: map[userKey][]*ir.Flow{},
		samples: map[string][]sema.Column{}}
	for _, old := range s.replaced {
		for _, f := range old.flows {
			c.stale[f] = true
			if s.prevAsm != nil && s.prevAsm.renamed[f] != nil {
				c.stale[s.prevAsm.renamed[f].flow] = true
			}
		}
	}
	if len(p.Flows) != len(prev.flows) {
		return nil, false // cannot be under one name signature
	}
	for _, r := range s.fresh {
		for _, t := range r.trees {
			f, q := s.checkedTree(t)
			if q == nil {
				continue
			}
			c.trees[f] = checkedFlow{q, r}
			c.dirty[f] = true
			c.queue = append(c.queue, f)
		}
	}
	// A re-analysed flow with no query to check (its file no longer
	// parses, say) has no output now: when it is its dataset's own flow,
	// the readers of the dataset are checked again.
	for _, r := range s.fresh {
		for _, f := range r.flows {
			f = s.pipelineFlow(f)
			if _, ok := c.trees[f]; !ok && !f.Append && c.ownOf(ir.NameKey(f.Target)) == f {
				c.settled(f, &flowColumns{})
			}
		}
	}
	c.sources = make(map[string]*ir.Source, len(p.Sources))
	for _, src := range p.Sources {
		if k := ir.NameKey(src.Name); c.sources[k] == nil {
			c.sources[k] = src
		}
	}
	samples := c.sourceColumns()
	for k, cols := range samples {
		if old, ok := prev.samples[k]; !ok || !sameColumns(old, cols) {
			c.touch(userKey{answerSource, k})
		}
	}
	// Each resolution that changes a dataset's output queues its
	// readers; in an acyclic pipeline this ends, and the bound stops a
	// cycle from going round.
	budget := 4*len(c.queue) + 4*maxOverlay
	for len(c.queue) > 0 {
		f := c.queue[0]
		c.queue = c.queue[1:]
		if budget--; budget < 0 {
			return nil, false
		}
		c.result(f)
	}
	if c.cyclic {
		return nil, false
	}
	for f, r := range c.done {
		if r == nil && c.tree(f).q != nil {
			return nil, false // a hole: see colState.holes
		}
	}
	st := c.nextState(sig, samples)
	s.colCache = st
	var diags []ir.Diagnostic
	add := func(f *ir.Flow) {
		if r := st.result(f); r != nil && c.current(f) {
			diags = append(diags, r.diags...)
		}
	}
	for f, has := range st.dover {
		if has {
			add(f)
		}
	}
	for f := range st.dbase {
		if _, over := st.dover[f]; !over {
			add(f)
		}
	}
	return diags, true
}

// settled notes f's new result in an incremental build: when f is its
// dataset's own flow and the output differs from the one known before,
// the flows reading the dataset are resolved again.
func (c *columnCheck) settled(f *ir.Flow, r *flowColumns) {
	addUsers(c.users, f, r)
	if f.Append {
		return
	}
	k := ir.NameKey(f.Target)
	if c.ownOf(k) != f {
		return
	}
	old, known := c.lastOut[k]
	if !known {
		if g := c.prev.ownOfPrev(k); g != nil {
			if pr := c.prev.result(g); pr != nil {
				old = pr.out
			}
		}
	}
	if sameColumns(old, r.out) {
		return
	}
	c.lastOut[k] = r.out
	c.touch(userKey{answerDataset, k})
}

// ownOfPrev returns the own flow of k as the previous build knew it.
func (st *colState) ownOfPrev(k string) *ir.Flow {
	if i, ok := st.ownIdx[k]; ok {
		return st.flows[i]
	}
	return nil
}

// touch queues again every current flow that read table k.
func (c *columnCheck) touch(k userKey) {
	for _, l := range [][]*ir.Flow{c.prev.ubase[k], c.prev.uover[k], c.users[k]} {
		for _, u := range l {
			if !c.current(u) {
				continue
			}
			delete(c.done, u)
			c.dirty[u] = true
			c.queue = append(c.queue, u)
		}
	}
}

// nextState is the previous state with this build's results laid over
// it, folded into a new base when the overlay has grown.
func (c *columnCheck) nextState(sig uint64, samples map[string][]sema.Column) *colState {
	prev := c.prev
	st := &colState{names: sig, base: prev.base, ubase: prev.ubase, flows: c.p.Flows, ownIdx: prev.ownIdx, dbase: prev.dbase, samples: samples, headers: c.headers, results: c.s.results,
		over:  make(map[*ir.Flow]*flowColumns, len(prev.over)+len(c.done)),
		uover: make(map[userKey][]*ir.Flow, len(prev.uover)+len(c.users)),
		dover: make(map[*ir.Flow]bool, len(prev.dover)+len(c.done)),
		gone:  make(map[*ir.Flow]bool, len(prev.gone)+len(c.stale))}
	for f, r := range prev.over {
		st.over[f] = r
	}
	for f, r := range c.done {
		if r != nil {
			st.over[f] = r
			st.dover[f] = len(r.diags) > 0
		}
	}
	for f, has := range prev.dover {
		if _, set := st.dover[f]; !set {
			st.dover[f] = has
		}
	}
	for k, l := range prev.uover {
		st.uover[k] = l
	}
	for k, l := range c.users {
		st.uover[k] = append(append([]*ir.Flow(nil), st.uover[k]...), l...)
	}
	for f := range prev.gone {
		st.gone[f] = true
	}
	for f := range c.stale {
		st.gone[f] = true
	}
	if len(st.over)+len(st.gone) > maxOverlay {
		st = st.folded()
	}
	return st
}

// folded returns the state with its overlay folded into a new base and
// the flows no longer in the pipeline left out.
func (st *colState) folded() *colState {
	out := &colState{names: st.names, samples: st.samples, headers: st.headers, results: st.results, flows: st.flows, ownIdx: st.ownIdx,
		base:  make(map[*ir.Flow]*flowColumns, len(st.base)),
		ubase: make(map[userKey][]*ir.Flow, len(st.ubase)),
		dbase: map[*ir.Flow]bool{}}
	keep := func(f *ir.Flow) bool { return !st.gone[f] }
	for f, r := range st.base {
		if _, over := st.over[f]; !over && keep(f) {
			out.base[f] = r
		}
	}
	for f, r := range st.over {
		if keep(f) {
			out.base[f] = r
		}
	}
	for f, r := range out.base {
		if len(r.diags) > 0 {
			out.dbase[f] = true
		}
		addUsers(out.ubase, f, r)
	}
	return out
}
