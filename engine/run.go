package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/engine/translate"
	"github.com/thund-dev/thund/ir"
)

// Phase is where a flow is in a run.
type Phase string

// Run phases, in the order a flow goes through them.
const (
	Queued    Phase = "queued"
	Planning  Phase = "planning"
	Running   Phase = "running"
	Completed Phase = "completed"
	Failed    Phase = "failed"
	Skipped   Phase = "skipped"
)

// Event is one step of one flow during a run.
type Event struct {
	Time    time.Time
	Dataset string
	Flow    string
	Phase   Phase
	Message string
	// Rows is the dataset's row count after the flow (completed only).
	Rows int64
	// Elapsed is the flow's time so far.
	Elapsed time.Duration
}

// ExpectationResult is what one expectation found in one flow.
type ExpectationResult struct {
	Dataset    string
	Flow       string
	Name       string
	SQL        string
	Action     ir.Action
	Violations int64
	// Dropped is the number of rows removed (drop only).
	Dropped int64
	// Failed is set when a fail expectation had violations; Columns and
	// Samples then hold up to five violating rows.
	Failed  bool
	Columns []string
	Samples [][]any
}

// Increment is what one trigger of a streaming flow did.
type Increment struct {
	Dataset string
	Flow    string
	// Trigger counts from 1.
	Trigger int
	// Files are the micro-batch files this trigger consumed.
	Files []string
	// Arrived is the number of input rows the trigger read.
	Arrived int64
	// Late is the number of rows dropped for arriving behind the watermark.
	Late int64
	// Emitted is the number of rows the trigger wrote to the target (new
	// rows in append mode, changed groups in update mode, the whole result
	// in complete mode, the changes that took effect in a CDC flow).
	Emitted int64
	// Columns and Rows hold the emitted rows (up to the run's increment
	// row limit).
	Columns []string
	Rows    [][]any
}

// DatasetResult is the outcome for one dataset.
type DatasetResult struct {
	Name    string
	Phase   Phase // Completed, Failed or Skipped
	Rows    int64
	Elapsed time.Duration
	// Error says why a dataset failed or was skipped.
	Error string
}

// Result is the outcome of a run.
type Result struct {
	Events       []Event
	Expectations []ExpectationResult
	Increments   []Increment
	// Datasets by dataset key, for every dataset the run covered.
	Datasets map[string]*DatasetResult
	// Order is the dataset keys in the order they ran.
	Order   []string
	Elapsed time.Duration
	// SampleWarnings are the findings about sample CSV files the run
	// read (csvcheck.go), in source order.
	SampleWarnings []SampleWarning
}

// Failed reports whether any dataset failed (skipped ones do not count: a
// skip always follows a failure or missing data upstream).
func (r *Result) Failed() bool {
	for _, d := range r.Datasets {
		if d.Phase == Failed {
			return true
		}
	}
	return false
}

// RunOptions select what a run does.
type RunOptions struct {
	// Only, when set, limits the run to these dataset keys (the caller
	// usually passes a downstream cone); the other datasets must already be
	// materialised in the session.
	Only map[string]bool
	// OnEvent, when set, is called for every event as it happens.
	OnEvent func(Event)
	// IncrementRows caps the rows kept per increment (default 100).
	IncrementRows int
	// Blocked holds datasets (by key) that must not run, with the reason
	// (analysis.Snapshot.Broken): they are skipped with it, and so is
	// what reads them.
	Blocked map[string]string
}

// runState is what one run tracks while it goes.
type runState struct {
	s    *Session
	p    *ir.Pipeline
	g    *ir.Graph
	conn *sql.Conn
	opts RunOptions
	res  *Result
	mu   sync.Mutex
	// stream is the streaming bookkeeping (streaming.go), made on first use.
	stream *streamRun
	// resumed holds, per dataset key resumed from --state, the micro-batch
	// files earlier runs consumed and the stream state loaded (resume.go).
	resumed map[string]*resumeInfo
	// badSources holds, per source key, why its sample could not be
	// registered; the datasets reading it fail with that error.
	badSources map[string]error
	// exprs holds the flows' pasted expressions in DuckDB's rendering, by
	// the text written (guard.go); only these renderings are pasted.
	exprs pastedExprs
	// described holds the Spark columns of the relations translations
	// read, by lower-cased relation name, so a relation read by many
	// flows is described once per run; drop and every finished flow
	// forget the dataset's entry.
	described map[string][]sema.Column
	// typed holds the Spark types a flow's translation gave the output
	// columns of its target where DuckDB's own type says less (a
	// TIMESTAMP_NTZ column is a TIMESTAMP there), by lower-cased
	// relation name, so the datasets reading the target see Spark's type.
	typed map[string][]*translate.Type
	// reading holds the sources (by key) a flow of this run reads, which
	// registerSources materialises when their sample is text.
	reading map[string]bool
	// preparedFor holds the query check translated and guarded for a
	// flow, which its run then runs (under mu).
	preparedFor map[*ir.Flow]preparedQuery
	// fragments holds the translations of the flows' expectations and CDC
	// predicates (fragment.go), by fragment and relation.
	fragments map[string]*translatedFragment
	// rels holds the relation of each dataset and source (nameRelations).
	rels relations
	// existing holds, lower-cased, the relations of the session's main
	// and temporary schemas when the run's datasets start (nil when they
	// could not be listed), so that the first drop of a dataset with no
	// relation yet sends nothing (dropStale).
	existing map[string]bool
}

// preparedQuery is a flow's DuckDB query as prepare wrote it.
type preparedQuery struct {
	query string
	tq    *translatedQuery
}

// prepared returns the query check prepared for f (once: it is taken
// out), or prepares it now.
func (st *runState) prepared(ctx context.Context, f *ir.Flow) (string, *translatedQuery, error) {
	st.mu.Lock()
	pq, ok := st.preparedFor[f]
	delete(st.preparedFor, f)
	st.mu.Unlock()
	if ok {
		return pq.query, pq.tq, nil
	}
	return st.prepare(ctx, f)
}

// forget drops the run's description of a dataset's relation.
func (st *runState) forget(d *ir.Dataset) {
	st.mu.Lock()
	delete(st.described, strings.ToLower(st.rel(d.Name)))
	st.mu.Unlock()
}

// check refuses f unless the query its run executes and its expressions
// pass the guard (checkPasted), and keeps the expressions' renderings for
// expr. Every flow's query (batch, streaming, a CDC flow's source query)
// is its translation (prepare, kept for the run in st.preparedFor).
func (st *runState) check(ctx context.Context, f *ir.Flow) error {
	query := f.Normalized
	if strings.TrimSpace(f.Normalized) != "" {
		q, tq, err := st.prepare(ctx, f)
		if err != nil {
			return err
		}
		query = q
		st.mu.Lock()
		if st.preparedFor == nil {
			st.preparedFor = map[*ir.Flow]preparedQuery{}
		}
		st.preparedFor[f] = preparedQuery{q, tq}
		st.mu.Unlock()
	}
	// A text DuckDB's parser accepted once, alone, as one SELECT calling
	// no refused function is accepted again: the session reads each text
	// once (a re-run of unchanged flows sends the same translations).
	seen := st.s.checkedBefore(query)
	checked := query
	if seen {
		checked = ""
	}
	px, err := checkPasted(ctx, f, checked, st.legacyFragments(f))
	if err != nil {
		return err
	}
	if !seen {
		st.s.noteChecked(query)
	}
	st.mu.Lock()
	if st.exprs == nil {
		st.exprs = pastedExprs{}
	}
	for k, v := range px {
		st.exprs[k] = v
	}
	st.mu.Unlock()
	return nil
}

// flowQuery is the DuckDB query flow f runs (prepare): the translation
// of its Spark SQL (the source query of a CDC flow), or its normalized text
// for a query in DuckDB's dialect or one prepare refuses (the run reports
// the refusal). Restore reads the schema a flow gives from it, which must
// be the schema the run writes: a streaming table's committed schema is
// its translation's (sum of a BIGINT is a BIGINT, as in Spark, not
// DuckDB's HUGEINT).
func (st *runState) flowQuery(ctx context.Context, f *ir.Flow) string {
	if q, _, err := st.prepare(ctx, f); err == nil {
		return q
	}
	return f.Normalized
}

// expr is the rendering of an expression check saw.
func (st *runState) expr(text string) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.exprs.expr(text)
}

// Run executes the pipeline's datasets in dependency order: materialized
// views, tables and streaming tables as tables, views as views; the flows
// into one dataset in declaration order, appended. A flow that fails
// fails its dataset, and everything downstream is skipped with the reason;
// the rest of the graph still runs. Cancelling ctx stops DuckDB and returns
// ctx's error with what ran so far.
func (s *Session) Run(ctx context.Context, p *ir.Pipeline, opts RunOptions) (*Result, error) {
	start := time.Now()
	if opts.IncrementRows == 0 {
		opts.IncrementRows = 100
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	defer conn.Close()
	st := &runState{s: s, p: p, g: p.Graph(), conn: conn, opts: opts, res: &Result{Datasets: map[string]*DatasetResult{}}}
	defer st.dropStreamTables()
	// A cycle stops a run only when the run needs a dataset on or below
	// it: TopoOrder still orders everything else, so a preview of a
	// dataset elsewhere in the graph runs.
	order, err := st.g.TopoOrder()
	if err != nil && opts.Only == nil {
		return nil, fmt.Errorf("run: %w; fix the cycle first", err)
	}
	st.nameRelations()
	relocated, rerr := st.relocate(ctx)
	if rerr != nil {
		return nil, fmt.Errorf("run: %w", rerr)
	}
	var todo []string
	asked := 0
	for _, k := range order {
		// A view reads its inputs by their relations, which relocate may
		// have renamed: every view is defined again then.
		again := relocated && !p.Dataset(k).Kind.Materialized()
		if opts.Only == nil || opts.Only[k] {
			asked++
		} else if !again {
			continue
		}
		todo = append(todo, k)
	}
	if err != nil && asked < len(opts.Only) {
		return nil, fmt.Errorf("run: %w; fix the cycle first", err)
	}
	for _, k := range todo {
		d := p.Dataset(k)
		for _, f := range p.FlowsInto(k) {
			st.emit(Event{Dataset: d.Name, Flow: f.Name, Phase: Queued})
		}
	}
	st.reading = map[string]bool{}
	for _, k := range todo {
		for _, f := range p.FlowsInto(k) {
			if f.Streaming || f.CDC != nil {
				continue
			}
			for _, ref := range f.Reads {
				if p.Resolve(ref.Name) == nil {
					st.reading[ir.NameKey(ref.Name)] = true
				}
			}
		}
	}
	if err := st.placeSources(ctx); err != nil {
		return st.res, err
	}
	st.existing = st.relationsNow(ctx)
	for _, k := range todo {
		if err := ctx.Err(); err != nil {
			return st.finish(start), err
		}
		st.runDataset(ctx, p.Dataset(k))
		if err := ctx.Err(); err != nil {
			return st.finish(start), err
		}
	}
	return st.finish(start), nil
}

func (st *runState) finish(start time.Time) *Result {
	st.res.Elapsed = time.Since(start)
	return st.res
}

func (st *runState) emit(e Event) {
	e.Time = time.Now()
	st.mu.Lock()
	st.res.Events = append(st.res.Events, e)
	st.mu.Unlock()
	if st.opts.OnEvent != nil {
		st.opts.OnEvent(e)
	}
}

// blocked returns why dataset d cannot run: an upstream dataset of this run
// failed or was skipped, it is defined in Python in a form Thund does not
// run and no sample stands in for it (python.go), or
// it reads a source with no sample data.
func (st *runState) blocked(d *ir.Dataset) string {
	for _, f := range st.p.FlowsInto(d.Name) {
		if analysis.DefinedInPython(f) && st.pythonStandIn(d) == "" {
			return analysis.PythonNotRun
		}
	}
	for _, e := range st.g.In(ir.NameKey(d.Name)) {
		if r, ok := st.res.Datasets[e.From]; ok && r.Phase != Completed {
			return fmt.Sprintf("upstream %s %s", st.p.Dataset(e.From).Name, r.Phase)
		}
	}
	flows := st.p.FlowsInto(d.Name)
	for _, f := range flows {
		for _, ref := range f.Reads {
			if st.p.Resolve(ref.Name) != nil {
				continue
			}
			src := st.p.Source(ref.Name)
			if src == nil || src.Sample == "" {
				// Which flow lacks the data, when the dataset has several
				// (its line names its first flow).
				of := ""
				if len(flows) > 1 {
					of = "flow " + f.Name + " reads "
				}
				if ref.Path != "" {
					// A read of files by path: its sample is named after
					// the path's last segment.
					return fmt.Sprintf("no data: %sthe files at %s, which have no sample (add %s, or a @sample.%s pragma)", of, ref.Path, sampleToAdd(analysis.SampleStem(ref), ref.Streaming), ref.Name)
				}
				return fmt.Sprintf("no data: %s%s, which has no sample (add %s, or a @sample.%s pragma)", of, ref.Name, sampleToAdd(ref.Name, ref.Streaming), ref.Name)
			}
		}
	}
	return ""
}

// runDataset runs every flow into d, then records the dataset's outcome.
func (st *runState) runDataset(ctx context.Context, d *ir.Dataset) {
	key := ir.NameKey(d.Name)
	st.res.Order = append(st.res.Order, key)
	dr := &DatasetResult{Name: d.Name}
	st.res.Datasets[key] = dr
	start := time.Now()
	flows := st.p.FlowsInto(d.Name)
	why, broken := st.opts.Blocked[key]
	if !broken {
		why = st.blocked(d)
	}
	if why != "" {
		dr.Phase, dr.Error = Skipped, why
		for _, f := range flows {
			st.emit(Event{Dataset: d.Name, Flow: f.Name, Phase: Skipped, Message: why})
		}
		if len(flows) == 0 {
			// A dataset whose only flow is too broken to exist (a CDC
			// statement that does not parse): still one line for it.
			st.emit(Event{Dataset: d.Name, Phase: Skipped, Message: why})
		}
		return
	}
	if err := st.sourceError(d); err != nil {
		st.failDataset(dr, d, flows, err, start)
		return
	}
	created := false
	info, ok, err := st.resumable(ctx, d)
	if err != nil {
		st.failDataset(dr, d, flows, err, start)
		return
	}
	if ok {
		st.mu.Lock()
		if st.resumed == nil {
			st.resumed = map[string]*resumeInfo{}
		}
		st.resumed[key] = info
		st.mu.Unlock()
		created = true
	} else if err := st.dropStale(ctx, d); err != nil {
		st.failDataset(dr, d, flows, err, start)
		return
	}
	counted := int64(-1)
	for i, f := range flows {
		st.emit(Event{Dataset: d.Name, Flow: f.Name, Phase: Planning, Elapsed: time.Since(start)})
		st.emit(Event{Dataset: d.Name, Flow: f.Name, Phase: Running, Elapsed: time.Since(start)})
		var err error
		if analysis.DefinedInPython(f) {
			f, err = st.standInFlow(ctx, d, f)
		}
		if err == nil {
			f = withTargetExpectations(d, f) // CONSTRAINT ... EXPECT of a table declared without a query (cdc.go)
			err = st.check(ctx, f)
		}
		switch {
		case err != nil:
		case f.Streaming || f.CDC != nil:
			err = st.runStreamingFlow(ctx, d, f, created)
		default:
			err = st.runBatchFlow(ctx, d, f, created)
		}
		if err != nil {
			st.failDataset(dr, d, flows, err, start)
			return
		}
		created = true
		st.forget(d)
		// One count per flow: the dataset's count after its last flow is
		// its result's (persistCompleted changes no row). After the last
		// flow of a batch dataset that this run reads, the same statement
		// describes it for the translations of its readers.
		if i == len(flows)-1 && st.describeWithCount(d, flows) {
			counted, _ = st.countDescribed(ctx, d)
		} else {
			counted, _ = st.count(ctx, d)
		}
		st.emit(Event{Dataset: d.Name, Flow: f.Name, Phase: Completed, Rows: counted, Elapsed: time.Since(start)})
	}
	if !created {
		// A streaming table with no flows yet: an empty table cannot be
		// made without columns, so it stays absent and says so.
		dr.Phase, dr.Error = Skipped, "no flow writes into it"
		return
	}
	if err := st.persistCompleted(ctx, d); err != nil {
		st.failDataset(dr, d, flows, err, start)
		return
	}
	if err := st.alias(ctx, d); err != nil {
		st.failDataset(dr, d, flows, err, start)
		return
	}
	st.s.keepTypes(st.rel(d.Name), st.typesOf(d.Name))
	dr.Phase = Completed
	if counted >= 0 {
		dr.Rows = counted
	} else {
		dr.Rows, _ = st.count(ctx, d)
	}
	dr.Elapsed = time.Since(start)
}

func (st *runState) failDataset(dr *DatasetResult, d *ir.Dataset, flows []*ir.Flow, err error, start time.Time) {
	st.settle()
	if errors.Is(err, context.Canceled) || strings.Contains(err.Error(), context.Canceled.Error()) {
		// Say what happened, not which statement of ours was running.
		err = &flowError{flowOf(err, flows), errors.New("interrupted before it finished; nothing of this run was committed for it")}
	}
	err = st.s.scrubbed(err)
	dr.Phase, dr.Error, dr.Elapsed = Failed, err.Error(), time.Since(start)
	st.emit(Event{Dataset: d.Name, Flow: flowOf(err, flows), Phase: Failed, Message: err.Error(), Elapsed: time.Since(start)})
	// Drop a half-built target so downstream never reads stale rows.
	ctx, cancel := cleanupContext()
	defer cancel()
	st.drop(ctx, d)
}

// cleanupTimeout bounds a statement that tidies up after a run or a
// failure (dropping a stage, a half-built table). Such a statement may
// queue behind a cancelled statement DuckDB is still finishing; its
// deadline makes duckdb-go interrupt the connection, so a cleanup never
// waits forever.
const cleanupTimeout = 10 * time.Second

// cleanupContext is the context of a cleanup statement.
func cleanupContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), cleanupTimeout)
}

// cleanup runs a tidying statement on conn under cleanupContext; its
// error is of no use to the caller (the relation may not exist).
func cleanup(conn *sql.Conn, stmt string) {
	ctx, cancel := cleanupContext()
	defer cancel()
	conn.ExecContext(ctx, stmt)
}

// flowOf is the flow an error names, or the dataset's first flow.
func flowOf(err error, flows []*ir.Flow) string {
	var fe *flowError
	if errors.As(err, &fe) {
		return fe.flow
	}
	if len(flows) > 0 {
		return flows[0].Name
	}
	return ""
}

// settle makes sure no statement is still running on the run's
// connection after a cancellation. duckdb-go can return a cancelled
// statement's context error while DuckDB keeps executing it (when the
// cancel lands as the statement starts); a short query on the same
// connection then blocks behind it, and its own timeout makes duckdb-go
// interrupt the connection, which stops the runaway statement.
func (st *runState) settle() {
	for i := 0; i < 50; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		var one int
		err := st.conn.QueryRowContext(ctx, "SELECT 1").Scan(&one)
		cancel()
		if err == nil {
			return
		}
	}
}

// flowError ties an error to the flow that caused it.
type flowError struct {
	flow string
	err  error
}

func (e *flowError) Error() string { return e.err.Error() }
func (e *flowError) Unwrap() error { return e.err }

// drop removes a dataset's relation before it is rebuilt.
func (st *runState) drop(ctx context.Context, d *ir.Dataset) error {
	st.forget(d)
	st.s.keepTypes(st.rel(d.Name), nil)
	name := quoteIdent(st.rel(d.Name))
	for _, stmt := range []string{"DROP VIEW IF EXISTS " + name, "DROP TABLE IF EXISTS " + name} {
		if _, err := st.conn.ExecContext(ctx, stmt); err != nil && !isWrongKind(err) {
			return fmt.Errorf("drop %s: %w", d.Name, explain(err))
		}
	}
	return nil
}

// dropStale is drop for the first drop of a run's dataset: when the
// dataset had no relation as the run's datasets started (st.existing),
// nothing can have made one since (each dataset and source has a relation
// of its own, sources are placed before, and the engine's own relations
// are named thund_... or __thund_...), so only the run's bookkeeping is
// reset and no statement is sent.
func (st *runState) dropStale(ctx context.Context, d *ir.Dataset) error {
	rel := st.rel(d.Name)
	low := strings.ToLower(rel)
	if st.existing == nil || st.existing[low] || strings.Contains(low, "thund_") || strings.Contains(low, ".") {
		return st.drop(ctx, d)
	}
	st.forget(d)
	st.s.keepTypes(rel, nil)
	return nil
}

// relationsNow lists, lower-cased, the tables and views of the session's
// main schema and of the run connection's temporary one; nil when they
// cannot be listed (every drop is then sent).
func (st *runState) relationsNow(ctx context.Context) map[string]bool {
	rows, err := st.conn.QueryContext(ctx, `SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' AND database_name IN (current_database(), 'temp')
UNION ALL
SELECT view_name FROM duckdb_views() WHERE schema_name = 'main' AND database_name IN (current_database(), 'temp')`)
	if err != nil {
		return nil
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if rows.Scan(&name) != nil {
			return nil
		}
		out[strings.ToLower(name)] = true
	}
	if rows.Err() != nil {
		return nil
	}
	return out
}

// isWrongKind recognises DuckDB's complaint when DROP VIEW meets a table
// (or the reverse), which only means the other statement applies.
func isWrongKind(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "is not a view") || strings.Contains(msg, "is not a table") || strings.Contains(msg, "Existing object")
}

// RelationSQL returns the quoted DuckDB relation that holds a dataset, for
// use in SQL text: the last part of its name (relationName), or, for a
// dataset the session keeps under its qualified name because another
// dataset or source ends in the same name (bronze.orders beside
// silver.orders), that name. A run also defines every qualified dataset
// it keeps under its last part under its qualified name (runState.alias),
// so the qualified answer reads it either way. It answers from the last
// run or restore of any session of the process; Session.RelationSQL
// answers for one session.
func RelationSQL(dataset string) string {
	movedMu.RLock()
	m := moved[ir.NameKey(dataset)]
	movedMu.RUnlock()
	if m {
		return quoteIdent(qualifiedRelation(dataset))
	}
	return quoteIdent(relationName(dataset))
}

// moved holds the datasets (by key) the last run or restore kept under
// their qualified names, for RelationSQL.
var (
	movedMu sync.RWMutex
	moved   = map[string]bool{}
)

// qualifiedRelation is the relation a run keeps a dataset or source under
// when another one ends in the same name: its qualified name whole
// (bronze.orders), as one identifier.
func qualifiedRelation(name string) string { return name }

// Physical names. The native engine keeps a dataset or source under the
// last part of its name (relationName): the pipeline's catalog and
// schema are implicit, and a query run as its DuckDB text reads a table
// by that part. Names that end alike (bronze.orders, silver.orders and
// gold.orders; the source landing.orders beside them) would be one
// relation, so a run keeps each of them under its qualified name instead
// (qualifiedRelation), except an unqualified one, which keeps the last
// part: every dataset, streaming table, CDC target and source has a
// relation of its own (nameRelations), which the batch, streaming and CDC
// paths write, the translator reads (relationOf) and restore rebuilds.
// Durable outputs are kept per qualified name (outputDirName), and so is
// a stream's state (flowRun.seenState). A source is registered under its
// last part (sources.go), so placeSources moves it to its own relation at
// once, setting aside what keeps that last part meanwhile. When the
// relations a session keeps datasets under change between runs (a
// dataset of the same last name was added or removed), relocate renames
// those that move; with a state folder the relations are recorded in its
// database, for the next session. What still cannot run is a query run
// as written that reads a relation kept under its qualified name
// (textReads): its text names the table by the last part.

// nameRelations fills st.rels from the pipeline's names, and records for
// RelationSQL which datasets are kept under their qualified names.
func (st *runState) nameRelations() {
	st.rels = relationsOf(st.p)
	movedMu.Lock()
	defer movedMu.Unlock()
	for _, d := range st.p.Datasets {
		key := ir.NameKey(d.Name)
		if st.rel(d.Name) != relationName(d.Name) {
			moved[key] = true
		} else {
			delete(moved, key)
		}
	}
}

// relations maps the names of a pipeline's datasets and sources to the
// relations a run keeps them under (see Physical names above); a
// Describer may use it to keep its relations apart the same way.
type relations struct {
	p *ir.Pipeline
	// kept holds, by name key, the relation of each dataset and source
	// whose last name part another one shares (nil when none does).
	kept map[string]string
}

// relationsOf works out the relations of p's datasets and sources: the
// last part of the name, except where two names end alike, where each is
// kept under its qualified name, an unqualified one under its name.
func relationsOf(p *ir.Pipeline) relations {
	groups := map[string][]string{}
	var order []string
	add := func(name string) {
		k := ir.NameKey(relationName(name))
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		for _, o := range groups[k] {
			if ir.NameKey(o) == ir.NameKey(name) {
				return
			}
		}
		groups[k] = append(groups[k], name)
	}
	for _, d := range p.Datasets {
		add(d.Name)
	}
	for _, src := range p.Sources {
		add(src.Name)
	}
	r := relations{p: p}
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		if r.kept == nil {
			r.kept = map[string]string{}
		}
		for _, name := range g {
			rel := qualifiedRelation(name)
			if !strings.Contains(name, ".") {
				rel = relationName(name)
			}
			r.kept[ir.NameKey(name)] = rel
		}
	}
	return r
}

// of is the relation of the dataset or source named name (as defined).
func (r relations) of(name string) string {
	if rel, ok := r.kept[ir.NameKey(name)]; ok {
		return rel
	}
	return relationName(name)
}

// read is the relation a table reference of a query written under use
// (USE CATALOG or USE SCHEMA earlier in its file, or none) reads: the
// relation of the dataset or source the name resolves to as Spark reads
// it there (ir.Pipeline.ResolveIn), else its last part.
func (r relations) read(parts []string, use ir.Scope) string {
	if len(parts) == 0 {
		return ""
	}
	if len(r.kept) == 0 {
		return relationName(parts[len(parts)-1])
	}
	name := strings.Join(parts, ".")
	if use != (ir.Scope{}) {
		if d := r.p.ResolveIn(name, use); d != nil {
			return r.of(d.Name)
		}
		name = use.Qualify(name)
	}
	if d := r.p.Resolve(name); d != nil {
		return r.of(d.Name)
	}
	if src := r.p.Source(name); src != nil {
		return r.of(src.Name)
	}
	return relationName(parts[len(parts)-1])
}

// rel is the relation the run keeps a dataset or source under.
func (st *runState) rel(name string) string { return st.rels.of(name) }

// relationOf is the relation a table reference of a query reads: the
// relation of the dataset or source the name resolves to, else its last
// part.
func (st *runState) relationOf(parts []string) string { return st.rels.read(parts, ir.Scope{}) }

// readOf is the relation a flow's read of name is kept under and the
// name the user knows it by: the dataset or source it resolves to.
func (st *runState) readOf(name string) (rel, label string) {
	if d := st.p.Resolve(name); d != nil {
		return st.rel(d.Name), d.Name
	}
	if src := st.p.Source(name); src != nil {
		return st.rel(src.Name), src.Name
	}
	return relationName(name), name
}

// sampleToAdd names the sample to add for a source: a folder of
// micro-batch files for a stream, else a file.
func sampleToAdd(stem string, streaming bool) string {
	if streaming {
		return "a folder samples/" + stem + "/ of files 001.csv, 002.csv..."
	}
	return "samples/" + stem + ".csv"
}

// relationOfIn is relationOf for a query written under use (USE CATALOG
// or USE SCHEMA earlier in its file): a name is read as Spark reads it
// there (ir.Pipeline.ResolveIn).
func (st *runState) relationOfIn(parts []string, use ir.Scope) string {
	return st.rels.read(parts, use)
}

// textReads refuses a flow run as its normalized text (DuckDB's dialect,
// or what the translator does not read) that reads a table the run keeps
// apart from another ending in the same name: the text names it by that
// last part, which is another relation's.
func (st *runState) textReads(f *ir.Flow) error {
	if len(st.rels.kept) == 0 {
		return nil
	}
	for _, r := range f.Reads {
		if rel := st.relationOf(strings.Split(r.Name, ".")); rel != relationName(r.Name) {
			return &flowError{f.Name, fmt.Errorf("%s: %s: this query runs natively as written, which reads %s by the last part of its name, and another dataset or source ends in the same name: write it in Spark SQL, or rename one of them", st.where(f, r.Loc.Start), f.Name, r.Name)}
		}
	}
	return nil
}

// placeSources registers every source that has a sample (sources.go's
// registerSource), each under its own relation: one whose last name part
// another dataset or source shares is registered under that part and
// moved to its qualified name at once, before the next source is
// registered; whatever keeps the last part meanwhile (a dataset's table,
// a source registered before) is set aside and put back. A sample that
// cannot be read fails the datasets that read it (sourceError), not the
// run.
func (st *runState) placeSources(ctx context.Context) error {
	for _, src := range st.p.Sources {
		if src.Sample == "" {
			continue
		}
		err := st.placeSource(ctx, src)
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return err
		}
		if st.badSources == nil {
			st.badSources = map[string]error{}
		}
		st.badSources[ir.NameKey(src.Name)] = err
	}
	return nil
}

// placeSource registers one source under its own relation (placeSources).
func (st *runState) placeSource(ctx context.Context, src *ir.Source) error {
	last, to := relationName(src.Name), st.rel(src.Name)
	if to == last {
		return st.registerSource(ctx, src)
	}
	aside := ""
	if st.lastPartKept(last) {
		aside = "__thund_aside_" + last
		if err := st.renameRelation(ctx, last, aside); err != nil {
			return fmt.Errorf("source %s: set aside the table of the same last name: %w", src.Name, err)
		}
	} else if err := st.dropRelation(ctx, last); err != nil {
		return fmt.Errorf("source %s: %w", src.Name, err)
	}
	err := st.registerSource(ctx, src)
	if err == nil {
		// Registered under its last part: moved to its own relation.
		err = st.renameRelation(ctx, last, to)
	}
	if aside != "" {
		if berr := st.renameRelation(ctx, aside, last); berr != nil && err == nil {
			err = fmt.Errorf("source %s: put back the table of the same last name: %w", src.Name, berr)
		}
	}
	return err
}

// lastPartKept reports whether a dataset or source of the run is kept
// under the relation rel.
func (st *runState) lastPartKept(rel string) bool {
	for _, d := range st.p.Datasets {
		if strings.EqualFold(st.rel(d.Name), rel) {
			return true
		}
	}
	for _, src := range st.p.Sources {
		if strings.EqualFold(st.rel(src.Name), rel) {
			return true
		}
	}
	return false
}

// renameRelation renames the table or view from to to, replacing what to
// held; nothing happens when from does not exist.
func (st *runState) renameRelation(ctx context.Context, from, to string) error {
	kind, err := st.relationKind(ctx, from)
	if err != nil || kind == "" {
		return err
	}
	if err := st.dropRelation(ctx, to); err != nil {
		return err
	}
	stmt := "ALTER " + kind + " " + quoteIdent(from) + " RENAME TO " + quoteIdent(to)
	if _, err := st.conn.ExecContext(allowKinds(ctx, duckdb.STATEMENT_TYPE_ALTER), stmt); err != nil {
		return explain(err)
	}
	return nil
}

// relationKind says whether the session's relation rel (in its main
// schema, not the run's temporary one; names match ignoring case, as
// DuckDB's do) is a TABLE or a VIEW, "" when there is none.
func (st *runState) relationKind(ctx context.Context, rel string) (string, error) {
	var kind string
	err := st.conn.QueryRowContext(ctx, `SELECT kind FROM (
  SELECT 'TABLE' AS kind FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND lower(table_name) = lower($1)
  UNION ALL
  SELECT 'VIEW' FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND lower(view_name) = lower($1) AND NOT internal
) LIMIT 1`, rel).Scan(&kind)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", explain(err)
	}
	return kind, nil
}

// dropRelation drops the table or view rel of the session's main schema,
// if any.
func (st *runState) dropRelation(ctx context.Context, rel string) error {
	kind, err := st.relationKind(ctx, rel)
	if err != nil || kind == "" {
		return err
	}
	if _, err := st.conn.ExecContext(ctx, "DROP "+kind+" IF EXISTS "+quoteIdent(rel)); err != nil {
		return explain(err)
	}
	return nil
}

// relocate moves the relations of the datasets whose relation changed
// since the session's last run or restore (a dataset ending in the same
// name came or went): the rows a dataset keeps between runs (a streaming
// table that resumes, a dataset this run does not rebuild) follow it.
// Then it records the relations of this run. It reports whether a
// relation moved.
func (st *runState) relocate(ctx context.Context) (bool, error) {
	s := st.s
	s.names.mu.Lock()
	defer s.names.mu.Unlock()
	if s.names.placed == nil {
		// The session's first run: where the last session on its state
		// folder kept them.
		placed, err := st.loadPlaced(ctx)
		if err != nil {
			return false, err
		}
		s.names.placed = placed
	}
	type move struct{ name, from, to string }
	var moves []move
	for _, d := range st.p.Datasets {
		if d.Kind == ir.TemporaryView {
			continue // lives in a run's connection only
		}
		to := st.rel(d.Name)
		if from, ok := s.names.placed[ir.NameKey(d.Name)]; ok && !strings.EqualFold(from, to) {
			moves = append(moves, move{d.Name, from, to})
		}
	}
	// Onto qualified names first: the last parts they leave may be where
	// the others go.
	sort.SliceStable(moves, func(i, j int) bool {
		return moves[i].to != relationName(moves[i].to) && moves[j].to == relationName(moves[j].to)
	})
	for _, m := range moves {
		if err := st.renameRelation(ctx, m.from, m.to); err != nil {
			return false, fmt.Errorf("keep %s apart from the datasets ending in the same name: %w", m.name, err)
		}
	}
	return len(moves) > 0, st.recordPlaced(ctx)
}

// placedTable is the table of a state folder's database that records the
// relation each dataset is kept under, for the next session on it.
const placedTable = "__thund_relations"

// recordPlaced records the relation of each dataset for the session's
// next run (relocate) and, with a state folder, for the next session;
// the caller holds s.names.mu.
func (st *runState) recordPlaced(ctx context.Context) error {
	placed := make(map[string]string, len(st.p.Datasets))
	values := make([]string, 0, len(st.p.Datasets))
	for _, d := range st.p.Datasets {
		key, rel := ir.NameKey(d.Name), st.rel(d.Name)
		placed[key] = rel
		values = append(values, "("+quoteString(key)+", "+quoteString(rel)+")")
	}
	unchanged := st.s.names.placed != nil && maps.Equal(placed, st.s.names.placed)
	st.s.names.placed = placed
	if st.s.opts.StateDir == "" || unchanged {
		return nil // recorded already (or loaded from the record)
	}
	stmt := "CREATE OR REPLACE TABLE " + quoteIdent(placedTable) + " (dataset VARCHAR, relation VARCHAR)"
	if _, err := st.conn.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("record where the datasets are kept: %w", explain(err))
	}
	if len(values) == 0 {
		return nil
	}
	stmt = "INSERT INTO " + quoteIdent(placedTable) + " VALUES " + strings.Join(values, ", ")
	if _, err := st.conn.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("record where the datasets are kept: %w", explain(err))
	}
	return nil
}

// loadPlaced reads what recordPlaced recorded in the state folder's
// database (an empty map without one, or before anything was recorded).
func (st *runState) loadPlaced(ctx context.Context) (map[string]string, error) {
	placed := map[string]string{}
	if st.s.opts.StateDir == "" {
		return placed, nil
	}
	if kind, err := st.relationKind(ctx, placedTable); err != nil || kind != "TABLE" {
		return placed, err
	}
	rows, err := st.conn.QueryContext(ctx, "SELECT dataset, relation FROM "+quoteIdent(placedTable))
	if err != nil {
		return nil, fmt.Errorf("read where the datasets are kept: %w", explain(err))
	}
	defer rows.Close()
	for rows.Next() {
		var key, rel string
		if err := rows.Scan(&key, &rel); err != nil {
			return nil, fmt.Errorf("read where the datasets are kept: %w", err)
		}
		placed[key] = rel
	}
	return placed, rows.Err()
}

// alias makes a dataset with a qualified name visible under that name
// (RelationSQL) when the run keeps it under its last part.
func (st *runState) alias(ctx context.Context, d *ir.Dataset) error {
	q := qualifiedRelation(d.Name)
	if !strings.Contains(d.Name, ".") || st.rel(d.Name) == q || d.Kind == ir.TemporaryView {
		return nil // a temporary view lives in the run's connection only
	}
	stmt := "CREATE OR REPLACE VIEW " + quoteIdent(q) + " AS SELECT * FROM " + quoteIdent(st.rel(d.Name))
	if _, err := st.conn.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", d.Name, explain(err))
	}
	return nil
}

// relationName is the DuckDB relation holding a dataset: the last part of
// a qualified name (the pipeline's catalog and database are implicit).
func relationName(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// runBatchFlow runs a flow's query once over all its input and writes the
// result into d, after the flow's expectations.
func (st *runState) runBatchFlow(ctx context.Context, d *ir.Dataset, f *ir.Flow, appendTo bool) error {
	target := quoteIdent(st.rel(d.Name))
	if strings.TrimSpace(f.Normalized) == "" {
		return &flowError{f.Name, fmt.Errorf("flow %s has no query", f.Name)}
	}
	query, tq, err := st.prepared(ctx, f)
	if err != nil {
		return err
	}
	if d.Kind == ir.View || d.Kind == ir.TemporaryView {
		return st.runView(ctx, d, f, query, tq)
	}
	if !appendTo {
		// A new table: the query writes it directly, and the
		// expectations work on it in place (a failure drops it). A
		// declared column list is the table's schema.
		for _, c := range d.Declared {
			if c.Generated && !c.Identity {
				return &flowError{f.Name, fmt.Errorf("%s: the generated column %s (GENERATED ALWAYS AS (...)) is not computed natively yet; give its value in the query instead, or restrict the dataset with `-- @backends: databricks`", f.Name, c.Name)}
			}
		}
		pre, post := declaredSchema(d)
		create := "CREATE TABLE " + target + " AS " + pre
		if _, err := st.conn.ExecContext(ctx, create+query+post); err != nil {
			return runError(f, tq, err, create+query+post, len(create))
		}
		return st.expect(ctx, d, f, target)
	}
	if len(f.Expectations) == 0 {
		insert := "INSERT INTO " + target + " BY NAME "
		if _, err := st.conn.ExecContext(ctx, insert+query); err != nil {
			return runError(f, tq, err, insert+query, len(insert))
		}
		return nil
	}
	// A flow appending rows its expectations check: its rows are staged
	// first, so only they are checked and dropped.
	stage := quoteIdent("__thund_stage_" + st.rel(d.Name))
	create := "CREATE OR REPLACE TEMP TABLE " + stage + " AS "
	if _, err := st.conn.ExecContext(ctx, create+query); err != nil {
		return runError(f, tq, err, create+query, len(create))
	}
	defer cleanup(st.conn, "DROP TABLE IF EXISTS "+stage)
	if err := st.expect(ctx, d, f, stage); err != nil {
		return err
	}
	stmt := "INSERT INTO " + target + " BY NAME SELECT * FROM " + stage
	if _, err := st.conn.ExecContext(ctx, stmt); err != nil {
		return &flowError{f.Name, fmt.Errorf("%s: write %s: %w", f.Name, d.Name, explain(err))}
	}
	return nil
}

// runView defines a view. Expectations are checked on its current rows;
// drop expectations become part of the view's definition.
func (st *runState) runView(ctx context.Context, d *ir.Dataset, f *ir.Flow, query string, tq *translatedQuery) error {
	name := quoteIdent(st.rel(d.Name))
	kw := "VIEW"
	if d.Kind == ir.TemporaryView {
		kw = "TEMP VIEW"
	}
	raw := quoteIdent("__thund_raw_" + st.rel(d.Name))
	create := "CREATE OR REPLACE TEMP VIEW " + raw + " AS "
	if _, err := st.conn.ExecContext(ctx, create+query); err != nil {
		return runError(f, tq, err, create+query, len(create))
	}
	defer cleanup(st.conn, "DROP VIEW IF EXISTS "+raw)
	keep, err := st.dropFilter(ctx, f, raw)
	if err != nil {
		return err
	}
	body := query
	if keep != "" {
		body = "SELECT * FROM (" + query + "\n) AS __thund_v WHERE " + keep
	}
	if err := st.expectOn(ctx, d, f, raw, false); err != nil {
		return err
	}
	if _, err := st.conn.ExecContext(ctx, "CREATE OR REPLACE "+kw+" "+name+" AS "+body); err != nil {
		return &flowError{f.Name, fmt.Errorf("%s: %w", f.Name, explain(err))}
	}
	return nil
}

// expect evaluates f's expectations on the staged rows: warn counts,
// drop counts and deletes, fail counts and fails the flow with up to five
// violating rows. A row violates an expectation unless it evaluates to
// TRUE (NULL violates).
func (st *runState) expect(ctx context.Context, d *ir.Dataset, f *ir.Flow, stage string) error {
	return st.expectOn(ctx, d, f, stage, true)
}

func (st *runState) expectOn(ctx context.Context, d *ir.Dataset, f *ir.Flow, rel string, canDelete bool) error {
	var failed []string
	for _, e := range f.Expectations {
		tf, err := st.fragmentSQL(ctx, f, st.expectationFragment(f, e), rel)
		if err != nil {
			return err
		}
		cond := "NOT coalesce((" + tf.expr + "), false)"
		r := ExpectationResult{Dataset: d.Name, Flow: f.Name, Name: e.Name, SQL: e.SQL, Action: e.Action}
		if tf.fr.spark != "" {
			r.SQL = tf.fr.spark // the condition as written
		}
		head := "SELECT count(*) FROM " + rel + " WHERE NOT coalesce(("
		if err := st.conn.QueryRowContext(ctx, head+tf.expr+"), false)").Scan(&r.Violations); err != nil {
			return tf.explain(st, f, err, head+tf.expr+"), false)", len(head))
		}
		switch e.Action {
		case ir.Drop:
			if canDelete && r.Violations > 0 {
				res, err := st.conn.ExecContext(ctx, "DELETE FROM "+rel+" WHERE "+cond)
				if err != nil {
					return &flowError{f.Name, fmt.Errorf("expectation %s: drop rows: %w", e.Name, explain(err))}
				}
				r.Dropped, _ = res.RowsAffected()
			} else {
				r.Dropped = r.Violations
			}
		case ir.Fail:
			if r.Violations > 0 {
				r.Failed = true
				cols, rows, err := queryRows(ctx, st.conn, "SELECT * FROM "+rel+" WHERE "+cond+" LIMIT 5")
				if err == nil {
					r.Columns, r.Samples = cols, rows
				}
				failed = append(failed, fmt.Sprintf("expectation %s failed: %d row(s) violate %s", e.Name, r.Violations, r.SQL))
			}
		}
		st.mu.Lock()
		st.res.Expectations = append(st.res.Expectations, r)
		st.mu.Unlock()
	}
	if len(failed) > 0 {
		return &flowError{f.Name, errors.New(strings.Join(failed, "; "))}
	}
	return nil
}

// dropFilter is the condition a view of f keeps its rows by: every drop
// expectation of f holds, each translated over rel (the view's rows); ""
// without drop expectations.
func (st *runState) dropFilter(ctx context.Context, f *ir.Flow, rel string) (string, error) {
	var keep []string
	for _, e := range f.Expectations {
		if e.Action != ir.Drop {
			continue
		}
		tf, err := st.fragmentSQL(ctx, f, st.expectationFragment(f, e), rel)
		if err != nil {
			return "", err
		}
		keep = append(keep, "coalesce(("+tf.expr+"), false)")
	}
	return strings.Join(keep, " AND "), nil
}

// legacyFragments are the fragments of f whose Spark text the engine
// cannot recover: they are pasted as DuckDB renders them, so check
// checks them first (checkPasted).
func (st *runState) legacyFragments(f *ir.Flow) []fragment {
	var out []fragment
	for _, e := range f.Expectations {
		if fr := st.expectationFragment(f, e); fr.spark == "" {
			out = append(out, fr)
		}
	}
	if f.CDC != nil {
		for _, truncate := range []bool{false, true} {
			if fr := st.cdcFragment(f, truncate); fr.legacy != "" && fr.spark == "" {
				out = append(out, fr)
			}
		}
	}
	return out
}

// count returns a dataset's row count.
func (st *runState) count(ctx context.Context, d *ir.Dataset) (int64, error) {
	var n int64
	err := st.conn.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteIdent(st.rel(d.Name))).Scan(&n)
	return n, err
}

// describeWithCount reports whether d's last count also describes it
// (countDescribed): a dataset of batch flows that a dataset of this run
// reads, which its reader's translation would describe otherwise.
func (st *runState) describeWithCount(d *ir.Dataset, flows []*ir.Flow) bool {
	if !translating() {
		return false
	}
	for _, f := range flows {
		if f.Streaming || f.CDC != nil {
			return false
		}
	}
	for _, e := range st.g.Out(ir.NameKey(d.Name)) {
		if _, ok := st.res.Datasets[e.To]; !ok && (st.opts.Only == nil || st.opts.Only[e.To]) {
			return true
		}
	}
	return false
}

// countDescribed is count, which also keeps d's columns, in Spark's
// types, as the run's description of its relation (runState.described),
// as a translation reading it would describe it (duckCatalog.Table).
func (st *runState) countDescribed(ctx context.Context, d *ir.Dataset) (int64, error) {
	rel := quoteIdent(st.rel(d.Name))
	rows, err := st.conn.QueryContext(ctx, "SELECT (SELECT count(*) FROM "+rel+"), column_name, column_type FROM (DESCRIBE "+rel+")")
	if err != nil {
		return st.count(ctx, d)
	}
	defer rows.Close()
	n := int64(-1)
	var cols []sema.Column
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&n, &name, &typ); err != nil {
			rows.Close()
			return st.count(ctx, d)
		}
		cols = append(cols, sema.Column{Name: name, Type: translate.SparkType(typ)})
	}
	if rows.Err() != nil || n < 0 {
		rows.Close()
		return st.count(ctx, d)
	}
	key := strings.ToLower(st.rel(d.Name))
	cols = st.withTypes(key, cols)
	st.mu.Lock()
	if st.described == nil {
		st.described = map[string][]sema.Column{}
	}
	st.described[key] = cols
	st.mu.Unlock()
	return n, nil
}

// queryRows runs a small query and returns its column names and rows.
func queryRows(ctx context.Context, conn *sql.Conn, query string) ([]string, [][]any, error) {
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return nil, nil, explain(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	// A DATE is written as one (2025-01-02), not as the midnight
	// timestamp the driver scans it into.
	var dates []bool
	if types, err := rows.ColumnTypes(); err == nil {
		dates = make([]bool, len(types))
		for i, ct := range types {
			dates[i] = strings.EqualFold(ct.DatabaseTypeName(), "DATE")
		}
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		for i, v := range vals {
			if tm, ok := v.(time.Time); ok && i < len(dates) && dates[i] {
				vals[i] = tm.Format("2006-01-02")
			}
		}
		out = append(out, vals)
	}
	return cols, out, rows.Err()
}

// SortedExpectations returns the results ordered by dataset and name.
func (r *Result) SortedExpectations() []ExpectationResult {
	out := append([]ExpectationResult(nil), r.Expectations...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Dataset != out[j].Dataset {
			return out[i].Dataset < out[j].Dataset
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// declaredSchema returns the text around a query that gives it dataset
// d's declared columns (CREATE MATERIALIZED VIEW t (id BIGINT, ...)), in
// their order and of their types, as Spark stores the table: the query's
// columns by name (analysis refuses a query that does not fit the list,
// USER_SPECIFIED_AND_INFERRED_SCHEMA_NOT_COMPATIBLE), each cast to its
// declared type where Spark's widening changes it (a DECIMAL of a smaller
// precision). Both are empty without a declared list.
func declaredSchema(d *ir.Dataset) (pre, post string) {
	if len(d.Declared) == 0 {
		return "", ""
	}
	cols := make([]string, len(d.Declared))
	for i, c := range d.Declared {
		col := "__thund_declared." + quoteIdent(c.Name)
		if c.Identity {
			// The table numbers its rows: unique values, as an identity
			// column's are (Databricks' need not be consecutive).
			col = "row_number() OVER ()"
		}
		if t := duckOfSpark(c.Type); t != "" {
			col = "CAST(" + col + " AS " + t + ")"
		}
		cols[i] = col + " AS " + quoteIdent(c.Name)
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM (", "\n) AS __thund_declared"
}

// duckOfSpark is DuckDB's name of a Spark type without nested types
// (Spark's simpleString: "int", "decimal(10,2)"), "" for another.
func duckOfSpark(t string) string {
	switch t {
	case "boolean", "tinyint", "smallint", "bigint", "float", "double", "date":
		return strings.ToUpper(t)
	case "int":
		return "INTEGER"
	case "string":
		return "VARCHAR"
	case "binary":
		return "BLOB"
	case "timestamp", "timestamp_ntz":
		return "TIMESTAMP"
	}
	if strings.HasPrefix(t, "decimal(") && strings.HasSuffix(t, ")") && !strings.ContainsAny(t, " ;") {
		return strings.ToUpper(t)
	}
	return ""
}
