package engine

// Micro-batch streaming.
//
// A streaming flow reads its streams (STREAM(x) reads, or the table an
// `@source` pragma names) as a sequence of units and runs its query once
// per trigger:
//
//   - A source whose sample is a folder is a stream of its files, one unit
//     per file in name order (BatchFiles).
//   - A streaming table written earlier in the same run by streaming flows
//     is a stream of its commits: each trigger of those flows is one unit
//     holding the rows that trigger wrote (in update and complete mode,
//     the rows it emitted).
//   - A view read as a stream is seen through: the folder samples,
//     streaming tables and views its query reads are replayed as streams
//     (its other reads stay static), so the view sees only the trigger's
//     rows.
//   - Anything else (a file sample, a batch dataset, a CDC target, a
//     dataset this run did not write) is one unit holding all its rows.
//
// Triggers group units: available_now and once take every unit in one
// trigger; processing_time and continuous take one unit per trigger (the
// interval is not waited for: the replay runs as fast as it can). A flow
// reading several streams takes unit i of each stream in trigger i.
//
// During a trigger each stream's relation name is shadowed by a temporary
// view holding only the rows the query may see (the trigger's rows, or for
// the stateful modes all rows accepted so far); static reads in the same
// query keep seeing their full data, which makes stream-static joins work.
// The shadow is dropped after the trigger, so every other dataset sees all
// rows. A query that reads the same table both as a stream and statically
// sees the stream's rows in both places.
//
// Output modes:
//
//   - append, no aggregation: each trigger appends the query's result
//     over the trigger's new rows. With several streams (a stream-stream
//     join) the query runs over all rows accepted so far and the trigger
//     appends what the previous result did not hold (multiset difference).
//   - update, aggregation: the query runs over all accepted rows (the
//     engine re-aggregates rather than keeping aggregation state), the
//     trigger emits the rows that differ from the previous result (the
//     changed groups), and the target is upserted on the grouping columns.
//     When a grouping expression is not an output column the target is
//     replaced by the result instead. A group that disappears from the
//     result (HAVING) stays in the target, as in an upsert sink.
//   - update, no aggregation: as append.
//   - complete: the target is replaced by the query over all accepted rows
//     on every trigger; every row is emitted.
//   - append, aggregation: needs a watermark. The query runs over all
//     accepted rows; a group is emitted (appended) once, when the
//     watermark passes its window's end. See streaming_query.go for the
//     window forms understood (date_trunc and time_bucket on the watermark
//     column; end = start + width). Other aggregations emit a group once
//     the watermark passes the latest event time of its rows (a Thund
//     rule: Spark refuses such queries). Groups still open when the stream
//     ends are not emitted: they wait for more data, as in Spark.
//
// Watermark (`@watermark: COLUMN, DELAY`): the watermark is the latest
// event time of the rows accepted in earlier triggers minus the delay. Rows
// of a trigger whose event time is older than it are dropped before the
// query runs and counted as late (a NULL event time is never late); the
// watermark applies to every stream that has the column, in every output
// mode. Windows close against the watermark including the current trigger's
// rows, as if Spark's follow-up no-data micro-batch ran at once.
//
// Expectations are checked on each trigger's emitted rows (for CDC, on the
// changes before they are applied) and reported once per flow: counts are
// summed over triggers (complete mode reports the last trigger's).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/thund-dev/thund/ir"
)

// streamRun is the streaming bookkeeping of one run.
type streamRun struct {
	// n numbers flows, for unique temporary names.
	n int
	// logs holds, per dataset key, the commits streaming flows made into
	// that dataset during this run.
	logs map[string]*streamLog
	// cdc holds apply-changes state per target dataset key.
	cdc map[string]*cdcState
	// folders holds, per stream source key, a temporary table of its
	// folder's rows with each row's file name in __thund_file: read once
	// per run, so the files are scanned and their types inferred once.
	// A resumed flow needs only the files not consumed yet, so the table
	// holds the files some flow of the run needs (all of them unless
	// every flow reading the folder resumes).
	folders map[string]*folderTable
	// saved holds, per dataset key, the stream state tables to commit
	// with the dataset (logical name -> run-lifetime table; resume.go).
	saved map[string]map[string]string
	// temps are run-lifetime temporary tables, dropped when the run ends.
	temps []string
}

// folderTable is a stream source folder's rows read so far in a run.
type folderTable struct {
	table string
	// loaded holds the files (absolute paths) the table holds.
	loaded map[string]bool
}

// streamLog is a dataset's commits: a temporary table of the rows each
// trigger wrote, with the commit number in column __thund_commit.
type streamLog struct {
	table string
	// files holds the micro-batch files behind each commit (index =
	// commit number - 1).
	files [][]string
}

const (
	commitCol = "__thund_commit"
	fileCol   = "__thund_file"
	maxEvent  = "__thund_max_event"
)

func (st *runState) streams() *streamRun {
	if st.stream == nil {
		st.stream = &streamRun{logs: map[string]*streamLog{}, cdc: map[string]*cdcState{}, folders: map[string]*folderTable{}, saved: map[string]map[string]string{}}
	}
	return st.stream
}

// dropStreamTables removes the run's streaming temporaries.
func (st *runState) dropStreamTables() {
	if st.stream == nil {
		return
	}
	for _, t := range st.stream.temps {
		st.conn.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+t)
	}
	st.stream = nil
}

// streamInput is one stream a flow reads.
type streamInput struct {
	// name is the relation the query reads, shadowed during triggers;
	// label is the dataset or source it holds, by the user's name, for
	// messages and the stream state's names.
	name, label string
	// base selects every row of the stream; with filterCol set it has
	// that extra column, and filterExpr over it picks units.
	base       string
	filterCol  string
	filterExpr string
	// partial is set when base holds rows of units left out of units
	// (micro-batches consumed by an earlier run), so it must be filtered.
	partial bool
	units   []streamUnit
	// newT holds the trigger's accepted rows, seenT every accepted row.
	newT, seenT string
	// wmCol is the watermark column's actual name ("" when the stream
	// lacks it); cols are the stream's columns.
	wmCol string
	cols  []string
}

// streamUnit is one micro-batch of a stream.
type streamUnit struct {
	// key is the SQL literal filterExpr equals for this unit's rows.
	key   string
	files []string
}

// rows returns the SQL selecting the rows of the given units.
func (in *streamInput) rows(units []streamUnit) string {
	sel := "SELECT * FROM (" + in.base + ")"
	if in.filterCol != "" {
		sel = "SELECT * EXCLUDE (" + quoteIdent(in.filterCol) + ") FROM (" + in.base + ")"
	}
	if len(units) == 0 {
		return sel + " WHERE false"
	}
	if in.filterCol == "" || (len(units) == len(in.units) && !in.partial) {
		return sel
	}
	keys := make([]string, len(units))
	for i, u := range units {
		keys[i] = u.key
	}
	return sel + " WHERE " + in.filterExpr + " IN (" + strings.Join(keys, ", ") + ")"
}

// flowRun is one streaming flow being run.
type flowRun struct {
	st      *runState
	d       *ir.Dataset
	f       *ir.Flow
	target  string
	prefix  string
	inputs  []*streamInput
	mode    ir.OutputMode
	agg     bool
	created bool
	// temps are this flow's temporary tables; shadows its shadow views.
	temps   []string
	isTemp  map[string]bool
	shadows []string
	// hidden are the definitions of the pipeline's temporary views a
	// shadow replaced (a temporary view lives where its shadow goes),
	// which dropShadows defines again.
	hidden []string
	// wmTable collects the max event time of each trigger's accepted rows;
	// wmExpr is the watermark as a scalar subquery over it.
	wmTable, wmExpr string
	wmSeen          bool
	// strategy and its state.
	strategy   string
	cumulative bool
	group      grouping
	cols       []string
	// volatile marks the columns of cols the query computes with a
	// volatile function (current_timestamp(), rand(), ...), left out when
	// a cumulative strategy compares this trigger's rows with the last.
	volatile map[int]bool
	query    string
	// orig is the query as prepared (query may be rewritten from it);
	// tq is the translation it came from (nil for a query run as
	// written), which places its errors in the user's file.
	orig string
	tq   *translatedQuery
	resT string
	log  *streamLog
	cdc  *cdcState
	// resume, when the run resumes the target from --state, holds what
	// earlier runs consumed and the stream state loaded (resume.go);
	// restored is set once the flow's own state tables are in place.
	resume   *resumeInfo
	restored bool
}

// Strategies.
const (
	stratIncremental = "incremental" // query over the trigger's rows, appended
	stratDiff        = "diff"        // query over all rows, new rows appended
	stratComplete    = "complete"    // query over all rows, replaces the target
	stratUpdate      = "update"      // query over all rows, changed rows upserted
	stratWindowed    = "windowed"    // query over all rows, closed groups appended
	stratCDC         = "cdc"         // apply changes
)

// runStreamingFlow runs a streaming or CDC flow into d trigger by
// trigger (see the package notes above). A view, or a materialized view
// that reads a stream, is defined once as in a batch run.
func (st *runState) runStreamingFlow(ctx context.Context, d *ir.Dataset, f *ir.Flow, appendTo bool) error {
	if !d.Kind.Materialized() || (d.Kind == ir.MaterializedView && f.CDC == nil) {
		return st.runBatchFlow(ctx, d, f, appendTo)
	}
	if strings.TrimSpace(f.Normalized) == "" {
		return &flowError{f.Name, fmt.Errorf("flow %s has no query", f.Name)}
	}
	query, tq, err := st.prepared(ctx, f)
	if err != nil {
		return err
	}
	sr := st.streams()
	sr.n++
	fr := &flowRun{
		st: st, d: d, f: f,
		target:  quoteIdent(st.rel(d.Name)),
		prefix:  fmt.Sprintf("__thund_s%d_", sr.n),
		mode:    f.OutputMode,
		agg:     f.Aggregates,
		created: appendTo,
		query:   strings.TrimRight(strings.TrimSpace(query), ";"),
		tq:      tq,
	}
	fr.orig = fr.query
	if fr.mode == "" {
		fr.mode = ir.Append
	}
	defer fr.cleanup()
	expFrom := len(st.res.Expectations)
	err = fr.run(ctx, appendTo)
	st.mergeExpectations(expFrom, fr.strategy == stratComplete)
	return err
}

// fail wraps an error with the flow's name, in the user's terms
// (userWords: DuckDB's text about the engine's own statements names its
// working tables).
func (fr *flowRun) fail(format string, args ...any) error {
	return &flowError{fr.f.Name, fmt.Errorf("flow %s (into %s): %s", fr.f.Name, fr.d.Name, fr.userWords(fmt.Sprintf(format, args...)))}
}

// exec runs one statement; what names the step for the error.
func (fr *flowRun) exec(ctx context.Context, what, stmt string) (int64, error) {
	res, err := fr.st.conn.ExecContext(ctx, stmt)
	if err != nil {
		return 0, fr.fail("%s: %v", what, explain(err))
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// execQuery runs stmt, which holds the flow's query at byte offset at
// (the query as translated, fr.orig). A failure is reported as a batch
// flow's is (runError): at the user's expression in the flow's file, in
// Spark's terms, without the names of the engine's tables.
func (fr *flowRun) execQuery(ctx context.Context, stmt string, at int) error {
	_, err := fr.st.conn.ExecContext(ctx, stmt)
	if err == nil {
		return nil
	}
	return runError(fr.f, fr.tq, err, stmt, at)
}

// runQuery writes the flow's query into table (CREATE OR REPLACE TEMP
// TABLE table AS ...), wrapped as pre + query + post. When the query was
// rewritten (withMaxEvent) and fails, the query as translated runs in its
// place, so the error can be located in the user's text; if that one runs,
// the rewritten query's error is reported as it is.
func (fr *flowRun) runQuery(ctx context.Context, table, pre, post string) error {
	head := "CREATE OR REPLACE TEMP TABLE " + table + " AS " + pre
	_, err := fr.st.conn.ExecContext(ctx, head+fr.query+post)
	if err == nil {
		return nil
	}
	if explain(err) != err || fr.tq == nil {
		return fr.fail("query: %v", explain(err))
	}
	if fr.query != fr.orig {
		stmt := head + fr.orig + post
		if _, err2 := fr.st.conn.ExecContext(ctx, stmt); err2 != nil {
			return runError(fr.f, fr.tq, err2, stmt, len(head))
		}
		return fr.fail("query: %s", sparkWords(err.Error()))
	}
	return runError(fr.f, fr.tq, err, head+fr.query+post, len(head))
}

// temp returns a fresh temporary table name owned by the flow.
func (fr *flowRun) temp(name string) string {
	t := quoteIdent(fr.prefix + name)
	if !fr.isTemp[t] {
		if fr.isTemp == nil {
			fr.isTemp = map[string]bool{}
		}
		fr.isTemp[t] = true
		fr.temps = append(fr.temps, t)
	}
	return t
}

func (fr *flowRun) cleanup() {
	fr.dropShadows()
	for _, t := range fr.temps {
		fr.st.conn.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+t)
	}
}

func (fr *flowRun) dropShadows() {
	for _, s := range fr.shadows {
		fr.st.conn.ExecContext(context.Background(), "DROP VIEW IF EXISTS temp.main."+s)
	}
	fr.shadows = nil
	for _, def := range fr.hidden {
		fr.st.conn.ExecContext(context.Background(), def)
	}
	fr.hidden = nil
}

// hide keeps the definition of the temporary view named rel, when the
// pipeline has one: its shadow replaces it until dropShadows.
func (fr *flowRun) hide(ctx context.Context, rel string) error {
	tv := false
	for _, d := range fr.st.p.Datasets {
		if d.Kind == ir.TemporaryView && strings.EqualFold(fr.st.rel(d.Name), rel) {
			tv = true
			break
		}
	}
	if !tv {
		return nil
	}
	var def sql.NullString
	err := fr.st.conn.QueryRowContext(ctx, "SELECT sql FROM duckdb_views() WHERE temporary AND lower(view_name) = lower(?)", rel).Scan(&def)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fr.fail("read view %s: %v", rel, explain(err))
	}
	if def.Valid && def.String != "" {
		fr.hidden = append(fr.hidden, def.String)
	}
	return nil
}

func (fr *flowRun) run(ctx context.Context, appendTo bool) error {
	st, f := fr.st, fr.f
	fr.resume = st.resumeOf(ir.NameKey(fr.d.Name))
	var done map[string]bool
	if fr.resume != nil {
		done = fr.resume.done
	}
	inputs, err := st.streamInputs(ctx, f, map[string]bool{}, false, done)
	if err != nil {
		return fr.fail("%v", err)
	}
	fr.inputs = inputs
	if err := fr.choose(appendTo); err != nil {
		return err
	}
	if fr.strategy == stratDiff {
		// The diff strategy appends what each trigger's join adds and
		// never takes a row back, which an outer join needs: its unmatched
		// rows would go out with NULLs before their match arrives.
		if tree, err := parseQueryTree(ctx, st.conn, fr.query); err == nil && tree != nil {
			if kind := outerJoin(tree); kind != "" {
				return fr.fail("a %s JOIN between streams is not supported by the native engine: unmatched rows would be emitted with NULLs before their match arrives, and stay after it; use an inner join, or join the stream with a batch dataset (read without STREAM)", kind)
			}
		}
	}
	if f.Watermark != nil && f.Watermark.Column != "" {
		var ok bool
		if err := st.conn.QueryRowContext(ctx, "SELECT try_cast(? AS INTERVAL) IS NOT NULL", f.Watermark.Delay).Scan(&ok); err != nil || !ok {
			return fr.fail("watermark delay %q is not an interval (write it like '10 minutes')", f.Watermark.Delay)
		}
		fr.wmTable = fr.temp("wm")
		fr.wmExpr = "(SELECT max(maxev) - CAST(" + quoteString(f.Watermark.Delay) + " AS INTERVAL) FROM " + fr.wmTable + ")"
	}
	for i, in := range fr.inputs {
		in.newT = fr.temp(fmt.Sprintf("new%d", i))
		in.seenT = fr.temp(fmt.Sprintf("seen%d", i))
	}
	if fr.strategy == stratCDC {
		cs, err := st.cdcFor(fr.d, f)
		if err != nil {
			return fr.fail("%v", err)
		}
		fr.cdc = cs
	} else if st.logsStream(fr.d) {
		sr := st.streams()
		key := ir.NameKey(fr.d.Name)
		if sr.logs[key] == nil {
			t := quoteIdent("__thund_log_" + strconv.Itoa(len(sr.logs)) + "_" + fr.d.Name)
			sr.logs[key] = &streamLog{table: t}
			sr.temps = append(sr.temps, t)
			st.conn.ExecContext(ctx, "DROP TABLE IF EXISTS "+t)
			if fr.resume != nil {
				// The rows earlier runs committed are the log's first
				// commit, so a stream reading this table from the start
				// still sees them; one that resumes skips it.
				stmt := "CREATE OR REPLACE TEMP TABLE " + t + " AS SELECT *, CAST(1 AS BIGINT) AS " + quoteIdent(commitCol) + " FROM " + fr.target
				if _, err := fr.exec(ctx, "commit log", stmt); err != nil {
					return err
				}
				sr.logs[key].files = append(sr.logs[key].files, fr.resume.consumed)
			}
		}
		fr.log = sr.logs[key]
	}
	if fr.resume != nil {
		if err := fr.restoreState(ctx); err != nil {
			return err
		}
		fresh := false
		for _, in := range fr.inputs {
			if len(in.units) > 0 {
				fresh = true
			}
		}
		if !fresh {
			// Nothing new arrived: no trigger, the state carries over.
			fr.saveState()
			return nil
		}
	}

	triggers := 1
	perUnit := f.Trigger.Kind == ir.ProcessingTime || f.Trigger.Kind == ir.Continuous
	if perUnit {
		triggers = 0
		for _, in := range fr.inputs {
			triggers = max(triggers, len(in.units))
		}
		triggers = max(triggers, 1)
	}
	for t := 1; t <= triggers; t++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		units := make([][]streamUnit, len(fr.inputs))
		for i, in := range fr.inputs {
			switch {
			case !perUnit:
				units[i] = in.units
			case t <= len(in.units):
				units[i] = in.units[t-1 : t]
			}
		}
		if err := fr.trigger(ctx, t, units); err != nil {
			return err
		}
	}
	fr.saveState()
	return nil
}

// restoreState copies the flow's stream state tables, loaded from the
// state folder, into the flow's tables (see resume.go for the names).
func (fr *flowRun) restoreState(ctx context.Context) error {
	load := func(name, into string, older ...string) error {
		src := fr.resume.tables[name]
		for _, o := range older {
			if src == "" {
				src = fr.resume.tables[o]
			}
		}
		if src == "" {
			return fr.fail("the stream state lacks %s; delete the state folder's outputs/%s to replay from the start", name, outputDirName(fr.d.Name))
		}
		_, err := fr.exec(ctx, "restore stream state", "CREATE OR REPLACE TEMP TABLE "+into+" AS SELECT * FROM "+src)
		return err
	}
	if fr.cumulative {
		for _, in := range fr.inputs {
			if err := load(fr.seenState(in), in.seenT, fr.seenStateBefore(in)); err != nil {
				return err
			}
		}
	}
	if fr.wmTable != "" {
		if err := load(fr.f.Name+"/wm", fr.wmTable); err != nil {
			return err
		}
		fr.wmSeen = true
	}
	switch fr.strategy {
	case stratDiff, stratUpdate:
		if err := load(fr.f.Name+"/prev", fr.temp("prev")); err != nil {
			return err
		}
	case stratWindowed:
		if err := load(fr.f.Name+"/done", fr.temp("done")); err != nil {
			return err
		}
	case stratCDC:
		if !fr.cdc.created {
			if err := load("cdc", fr.cdc.state); err != nil {
				return err
			}
			fr.cdc.created = true
		}
	}
	fr.restored = true
	return nil
}

// seenState is the logical name of the rows the flow accepted from
// stream in (resume.go): by the stream's dataset or source, so it holds
// whichever relation the run keeps that under.
func (fr *flowRun) seenState(in *streamInput) string {
	return fr.f.Name + "/seen:" + ir.NameKey(in.label)
}

// seenStateBefore is the name seenState had before streams were named by
// their qualified names (the last part of the name), which a state
// committed then still carries.
func (fr *flowRun) seenStateBefore(in *streamInput) string {
	return fr.f.Name + "/seen:" + ir.NameKey(relationName(in.label))
}

// saveState hands the flow's stream state tables over to the run, to be
// committed with the target (resume.go): they outlive the flow.
func (fr *flowRun) saveState() {
	if fr.st.s.opts.StateDir == "" {
		return
	}
	keep := func(name, table string) {
		if fr.isTemp[table] {
			delete(fr.isTemp, table)
			for i, t := range fr.temps {
				if t == table {
					fr.temps = append(fr.temps[:i], fr.temps[i+1:]...)
					break
				}
			}
			fr.st.stream.temps = append(fr.st.stream.temps, table)
		}
		fr.st.saveState(fr.d, name, table)
	}
	if fr.cumulative {
		for _, in := range fr.inputs {
			keep(fr.seenState(in), in.seenT)
		}
	}
	if fr.wmTable != "" {
		keep(fr.f.Name+"/wm", fr.wmTable)
	}
	switch fr.strategy {
	case stratDiff, stratUpdate:
		keep(fr.f.Name+"/prev", fr.temp("prev"))
	case stratWindowed:
		keep(fr.f.Name+"/done", fr.temp("done"))
	case stratCDC:
		if fr.cdc.created {
			keep("cdc", fr.cdc.state)
		}
	}
}

// shared reports whether another flow writes the target too: the target
// exists when the flow starts (a resumed target exists from the start).
func (fr *flowRun) shared() bool {
	if fr.resume != nil {
		return len(fr.st.p.FlowsInto(fr.d.Name)) > 1
	}
	return fr.created
}

// choose picks the strategy for the flow's mode and query.
func (fr *flowRun) choose(appendTo bool) error {
	f := fr.f
	switch {
	case f.CDC != nil:
		fr.strategy = stratCDC
	case fr.mode == ir.Complete:
		fr.strategy, fr.cumulative = stratComplete, true
	case fr.agg && fr.mode == ir.Update:
		fr.strategy, fr.cumulative = stratUpdate, true
	case fr.agg && fr.mode == ir.Append:
		if f.Watermark == nil || f.Watermark.Column == "" {
			return fr.fail("an aggregation in append output mode needs a watermark: add `-- @watermark: COLUMN, DELAY` (and group by a window of that column), or use `-- @output_mode: update` or `complete`")
		}
		fr.strategy, fr.cumulative = stratWindowed, true
	case fr.mode != ir.Append && fr.mode != ir.Update:
		return fr.fail("unknown output mode %q (use append, update or complete)", fr.mode)
	case len(fr.inputs) > 1:
		fr.strategy, fr.cumulative = stratDiff, true
	default:
		fr.strategy = stratIncremental
	}
	if fr.shared() && (fr.strategy == stratComplete) {
		return fr.fail("complete output mode replaces its target, so it must be the only flow into %s", fr.d.Name)
	}
	return nil
}

// logsStream reports whether d's commits are kept for downstream stream
// reads: every flow into it is a non-CDC streaming flow, and some flow of
// the pipeline reads it as a stream.
func (st *runState) logsStream(d *ir.Dataset) bool {
	for _, f := range st.p.FlowsInto(d.Name) {
		if !f.Streaming || f.CDC != nil {
			return false
		}
	}
	key := ir.NameKey(d.Name)
	for _, f := range st.p.Flows {
		for _, r := range f.Reads {
			if r.Streaming {
				if rd := st.p.Resolve(r.Name); rd != nil && ir.NameKey(rd.Name) == key {
					return true
				}
			}
		}
	}
	return false
}

// streamInputs resolves the streams flow f reads. Through a view read as
// a stream, every read of the view that can stream (a folder sample, a
// streaming table with commits, another view) is a stream and the rest
// stay static: Spark inlines the view into the streaming query.
//
// done holds the micro-batch files the target consumed in earlier runs
// (nil unless it resumes): their units are left out.
func (st *runState) streamInputs(ctx context.Context, f *ir.Flow, visiting map[string]bool, viaView bool, done map[string]bool) ([]*streamInput, error) {
	var out []*streamInput
	seen := map[string]bool{}
	add := func(in *streamInput) {
		if !seen[ir.NameKey(in.name)] {
			seen[ir.NameKey(in.name)] = true
			out = append(out, in)
		}
	}
	for _, r := range f.Reads {
		streamed := r.Streaming || (f.Source != nil && ir.NameKey(r.Name) == ir.NameKey(f.Source.Table))
		if !streamed && !viaView {
			continue
		}
		rel, label := st.readOf(r.Name)
		if seen[ir.NameKey(rel)] {
			continue
		}
		whole := &streamInput{name: rel, label: label, base: "SELECT * FROM " + quoteIdent(rel), units: []streamUnit{{}}}
		if d := st.p.Resolve(r.Name); d != nil {
			key := ir.NameKey(d.Name)
			switch {
			case d.Kind == ir.View || d.Kind == ir.TemporaryView:
				if visiting[key] {
					return nil, fmt.Errorf("view %s reads itself", d.Name)
				}
				visiting[key] = true
				var sub []*streamInput
				for _, vf := range st.p.FlowsInto(d.Name) {
					ins, err := st.streamInputs(ctx, vf, visiting, true, done)
					if err != nil {
						return nil, err
					}
					sub = append(sub, ins...)
				}
				delete(visiting, key)
				if len(sub) == 0 && !viaView {
					add(whole)
				}
				for _, in := range sub {
					add(in)
				}
			case st.stream != nil && st.stream.logs[key] != nil:
				lg := st.stream.logs[key]
				in := &streamInput{name: rel, label: label, base: "SELECT * FROM " + lg.table, filterCol: commitCol, filterExpr: quoteIdent(commitCol)}
				for i, files := range lg.files {
					if allIn(files, done) {
						in.partial = true
						continue
					}
					in.units = append(in.units, streamUnit{key: strconv.Itoa(i + 1), files: files})
				}
				add(in)
			case d.Kind == ir.StreamingTable && st.hasCommittedStream(d):
				// A streaming table this run does not write: its committed
				// rows are one unit, which a flow that consumed them
				// before skips (resume.go, committedStream).
				files, _ := st.committedStream(d)
				in := &streamInput{name: rel, label: label, base: whole.base}
				if allIn(files, done) {
					in.partial = true
				} else {
					in.units = []streamUnit{{files: files}}
				}
				add(in)
			case !viaView:
				add(whole)
			}
			continue
		}
		src, folder := st.streamFolder(r.Name)
		if !folder {
			if !viaView {
				add(whole)
			}
			continue
		}
		fn, pattern, err := st.s.reader(src.Sample)
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", src.Name, err)
		}
		files, err := BatchFiles(filepath.Dir(pattern))
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", src.Name, err)
		}
		ext := filepath.Ext(pattern)
		in := &streamInput{name: rel, label: label, filterCol: fileCol, filterExpr: quoteIdent(fileCol)}
		var all, need []string
		for _, file := range files {
			if filepath.Ext(file) != ext {
				continue
			}
			all = append(all, file)
			if done[st.relFile(file)] {
				in.partial = true
				continue
			}
			need = append(need, file)
			in.units = append(in.units, streamUnit{key: quoteString(filepath.Base(file)), files: []string{st.relFile(file)}})
		}
		if len(need) == 0 && len(done) > 0 {
			// Resuming with no new file: no row to read, only the
			// columns, from the source's view (bound, not scanned).
			in.base, in.filterCol = "SELECT * FROM "+quoteIdent(st.rel(src.Name)), ""
			add(in)
			continue
		}
		t, err := st.folderRows(ctx, src, fn, pattern, all, need)
		if err != nil {
			return nil, err
		}
		in.base = "SELECT * FROM " + t
		add(in)
	}
	return out, nil
}

// folderRows returns the temporary table holding the rows of a stream
// source folder's files, making sure it holds the files in need. The first
// read of a run reads the files needed; a later flow needing more files
// reads the table again over the union, so every row's types are inferred
// from one read. When the union is every file of the folder, the folder's
// pattern is read, as without --state.
func (st *runState) folderRows(ctx context.Context, src *ir.Source, fn, pattern string, all, need []string) (string, error) {
	sr := st.streams()
	skey := ir.NameKey(src.Name)
	ft := sr.folders[skey]
	if ft == nil {
		ft = &folderTable{table: quoteIdent("__thund_src_" + strconv.Itoa(len(sr.folders)) + "_" + src.Name), loaded: map[string]bool{}}
		sr.folders[skey] = ft
		sr.temps = append(sr.temps, ft.table)
	} else {
		missing := false
		for _, f := range need {
			if !ft.loaded[f] {
				missing = true
			}
		}
		if !missing && len(ft.loaded) > 0 {
			return ft.table, nil
		}
	}
	union := map[string]bool{}
	for _, f := range need {
		union[f] = true
	}
	for f := range ft.loaded {
		union[f] = true
	}
	arg := quoteString(pattern)
	if len(union) < len(all) {
		var list []string
		for _, f := range all {
			if union[f] {
				list = append(list, quoteString(f))
			}
		}
		arg = "[" + strings.Join(list, ", ") + "]"
	}
	q := fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS SELECT * REPLACE (parse_filename(%s) AS %s) FROM %s",
		ft.table, quoteIdent(fileCol), quoteIdent(fileCol), readCall(fn, arg, "filename = "+quoteString(fileCol)))
	if _, err := st.conn.ExecContext(ctx, q); err != nil {
		return "", fmt.Errorf("source %s (%s): %w", src.Name, src.Sample, explain(err))
	}
	ft.loaded = union
	if len(union) == len(all) {
		for _, f := range all {
			ft.loaded[f] = true
		}
	}
	return ft.table, nil
}

// allIn reports whether files is not empty and every file is in done.
func allIn(files []string, done map[string]bool) bool {
	if len(files) == 0 || len(done) == 0 {
		return false
	}
	for _, f := range files {
		if !done[f] {
			return false
		}
	}
	return true
}

// streamFolder returns the source named name, and whether it is bound to
// an existing sample folder: a stream of micro-batch files.
func (st *runState) streamFolder(name string) (*ir.Source, bool) {
	src := st.p.Source(name)
	if src == nil || !src.Stream || src.Sample == "" {
		return src, false
	}
	fi, err := os.Stat(filepath.Join(st.s.Root, filepath.FromSlash(src.Sample)))
	return src, err == nil && fi.IsDir()
}

// relFile names a file relative to the pipeline root, slash-separated.
func (st *runState) relFile(file string) string {
	file = st.s.fromMirror(file)
	if rel, err := filepath.Rel(st.s.Root, file); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(file)
}

// columns returns a relation's column names and types.
func (fr *flowRun) columns(ctx context.Context, rel string) ([]string, []string, error) {
	rows, err := fr.st.conn.QueryContext(ctx, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM "+rel+")")
	if err != nil {
		return nil, nil, explain(err)
	}
	defer rows.Close()
	var names, types []string
	for rows.Next() {
		var n, t string
		if err := rows.Scan(&n, &t); err != nil {
			return nil, nil, err
		}
		names = append(names, n)
		types = append(types, t)
	}
	return names, types, rows.Err()
}

func (fr *flowRun) count(ctx context.Context, rel string) (int64, error) {
	var n int64
	if err := fr.st.conn.QueryRowContext(ctx, "SELECT count(*) FROM "+rel).Scan(&n); err != nil {
		return 0, fr.fail("count %s: %v", rel, explain(err))
	}
	return n, nil
}

// trigger runs one trigger over the given units of each input.
func (fr *flowRun) trigger(ctx context.Context, t int, units [][]streamUnit) error {
	st, f, d := fr.st, fr.f, fr.d
	inc := Increment{Dataset: d.Name, Flow: f.Name, Trigger: t}
	seenFile := map[string]bool{}
	for i, in := range fr.inputs {
		for _, u := range units[i] {
			for _, file := range u.files {
				if !seenFile[file] {
					seenFile[file] = true
					inc.Files = append(inc.Files, file)
				}
			}
		}
		if _, err := fr.exec(ctx, "read stream "+in.label, "CREATE OR REPLACE TEMP TABLE "+in.newT+" AS "+in.rows(units[i])); err != nil {
			return err
		}
		n, err := fr.count(ctx, in.newT)
		if err != nil {
			return err
		}
		inc.Arrived += n
		if t == 1 && fr.wmTable != "" {
			if err := fr.findWatermark(ctx, in); err != nil {
				return err
			}
			if i == len(fr.inputs)-1 && !fr.restored {
				if err := fr.createWatermarkTable(ctx); err != nil {
					return err
				}
			}
		}
		if in.wmCol != "" && fr.wmSeen {
			late, err := fr.exec(ctx, "drop late rows", "DELETE FROM "+in.newT+" WHERE "+quoteIdent(in.wmCol)+" < "+fr.wmExpr)
			if err != nil {
				return err
			}
			inc.Late += late
		}
		if fr.cumulative {
			stmt := "INSERT INTO " + in.seenT + " SELECT * FROM " + in.newT
			switch {
			case fr.restored:
				// The kept rows came from Parquet; match by name.
				stmt = "INSERT INTO " + in.seenT + " BY NAME SELECT * FROM " + in.newT
			case t == 1:
				stmt = "CREATE OR REPLACE TEMP TABLE " + in.seenT + " AS SELECT * FROM " + in.newT
			}
			if _, err := fr.exec(ctx, "keep stream rows", stmt); err != nil {
				return err
			}
		}
	}
	if fr.wmTable != "" {
		for _, in := range fr.inputs {
			if in.wmCol == "" {
				continue
			}
			if _, err := fr.exec(ctx, "advance watermark", "INSERT INTO "+fr.wmTable+" SELECT max("+quoteIdent(in.wmCol)+") FROM "+in.newT); err != nil {
				return err
			}
		}
		fr.wmSeen = true
	}

	// Shadow each stream with the rows the query may see.
	for _, in := range fr.inputs {
		rows := in.newT
		if fr.cumulative {
			rows = in.seenT
		}
		if err := fr.hide(ctx, in.name); err != nil {
			return err
		}
		if _, err := fr.exec(ctx, "shadow stream "+in.label, "CREATE OR REPLACE TEMP VIEW "+quoteIdent(in.name)+" AS SELECT * FROM "+rows); err != nil {
			return err
		}
		fr.shadows = append(fr.shadows, quoteIdent(in.name))
	}
	emit, err := fr.compute(ctx, t)
	fr.dropShadows()
	if err != nil {
		return err
	}
	if err := st.expect(ctx, d, f, emit); err != nil {
		return err
	}
	if fr.strategy == stratCDC {
		if emit, err = fr.applyCDC(ctx, t, emit); err != nil {
			return err
		}
	} else if emit, err = fr.fitDeclared(ctx, emit, "declared"); err != nil {
		return err
	} else if err := fr.write(ctx, emit); err != nil {
		return err
	}
	if fr.log != nil {
		if err := fr.commit(ctx, emit, inc.Files); err != nil {
			return err
		}
	}
	n, err := fr.count(ctx, emit)
	if err != nil {
		return err
	}
	inc.Emitted = n
	if limit := st.opts.IncrementRows; limit > 0 {
		cols, rows, err := queryRows(ctx, st.conn, fmt.Sprintf("SELECT * FROM %s LIMIT %d", emit, limit))
		if err != nil {
			return fr.fail("read emitted rows: %v", err)
		}
		inc.Columns, inc.Rows = cols, rows
	}
	st.mu.Lock()
	st.res.Increments = append(st.res.Increments, inc)
	st.mu.Unlock()
	return nil
}

// findWatermark checks the watermark column on a stream's first rows.
func (fr *flowRun) findWatermark(ctx context.Context, in *streamInput) error {
	names, types, err := fr.columns(ctx, in.newT)
	if err != nil {
		return fr.fail("read stream %s: %v", in.label, err)
	}
	col := fr.f.Watermark.Column
	if i := strings.LastIndexByte(col, '.'); i >= 0 {
		col = col[i+1:]
	}
	col = strings.Trim(col, "`\"")
	for i, n := range names {
		if !strings.EqualFold(n, col) {
			continue
		}
		typ := strings.ToUpper(types[i])
		if !strings.HasPrefix(typ, "TIMESTAMP") && typ != "DATE" {
			t := types[i]
			if st := SparkTypeName(t); st != "" {
				t = st
			}
			return fr.fail("watermark column %s of stream %s is %s; it must be a DATE or TIMESTAMP (cast it upstream)", n, in.label, t)
		}
		in.wmCol = n
	}
	in.cols = names
	return nil
}

// createWatermarkTable makes the table of event-time maxima, typed as the
// first stream's watermark column; no stream with the column is an error.
func (fr *flowRun) createWatermarkTable(ctx context.Context) error {
	for _, in := range fr.inputs {
		if in.wmCol != "" {
			_, err := fr.exec(ctx, "watermark", "CREATE OR REPLACE TEMP TABLE "+fr.wmTable+" AS SELECT "+quoteIdent(in.wmCol)+" AS maxev FROM "+in.newT+" LIMIT 0")
			return err
		}
	}
	var have []string
	for _, in := range fr.inputs {
		have = append(have, in.label+" ("+strings.Join(in.cols, ", ")+")")
	}
	if len(have) == 0 {
		return fr.fail("watermark column %s: the flow reads no stream", fr.f.Watermark.Column)
	}
	return fr.fail("watermark column %s is not a column of the stream: %s", fr.f.Watermark.Column, strings.Join(have, "; "))
}

// compute runs the flow's query for trigger t (streams shadowed) and
// returns the temporary table of rows to emit (for CDC: the changes).
func (fr *flowRun) compute(ctx context.Context, t int) (string, error) {
	res := fr.temp("result")
	fr.resT = res
	if t == 1 {
		if err := fr.prepare(ctx); err != nil {
			return "", err
		}
	}
	if err := fr.runQuery(ctx, res, "", ""); err != nil {
		return "", err
	}
	emit := fr.temp("emit")
	var q string
	switch fr.strategy {
	case stratIncremental, stratComplete, stratCDC:
		q = "SELECT * FROM " + res
	case stratDiff, stratUpdate:
		prev := fr.temp("prev")
		if t == 1 && !fr.restored {
			if _, err := fr.exec(ctx, "keep result", "CREATE OR REPLACE TEMP TABLE "+prev+" AS SELECT * FROM "+res+" LIMIT 0"); err != nil {
				return "", err
			}
		}
		q = newRowsQuery(res, prev, fr.cols, fr.volatile)
		if _, err := fr.exec(ctx, "changed rows", "CREATE OR REPLACE TEMP TABLE "+emit+" AS "+q); err != nil {
			return "", err
		}
		if _, err := fr.exec(ctx, "keep result", "CREATE OR REPLACE TEMP TABLE "+prev+" AS SELECT * FROM "+res); err != nil {
			return "", err
		}
		return emit, nil
	case stratWindowed:
		return fr.closedGroups(ctx, t, res, emit)
	}
	if _, err := fr.exec(ctx, "result", "CREATE OR REPLACE TEMP TABLE "+emit+" AS "+q); err != nil {
		return "", err
	}
	return emit, nil
}

// prepare runs once, with the first trigger's shadows in place: it reads
// the query's output columns and, for aggregations, its grouping.
func (fr *flowRun) prepare(ctx context.Context) error {
	probe := fr.temp("probe")
	if err := fr.runQuery(ctx, probe, "SELECT * FROM (", "\n) LIMIT 0"); err != nil {
		return err
	}
	cols, _, err := fr.columns(ctx, probe)
	if err != nil {
		return fr.fail("query columns: %v", err)
	}
	fr.cols = cols
	fr.volatile = volatileColumns(fr.f.SQL, cols)
	if fr.strategy != stratUpdate && fr.strategy != stratWindowed {
		return nil
	}
	wm := ""
	if fr.f.Watermark != nil {
		wm = fr.f.Watermark.Column
		if i := strings.LastIndexByte(wm, '.'); i >= 0 {
			wm = wm[i+1:]
		}
	}
	g, err := analyzeGrouping(ctx, fr.st.conn, fr.query, wm, cols)
	if err != nil {
		return fr.fail("read the query's GROUP BY: %v", err)
	}
	fr.group = g
	if fr.strategy == stratUpdate && !g.keysOK && fr.shared() {
		return fr.fail("update output mode cannot upsert into %s: the grouping columns are not all output columns, and another flow writes the target", fr.d.Name)
	}
	if fr.strategy == stratWindowed && g.window == nil {
		q, err := withMaxEvent(ctx, fr.st.conn, fr.query, wm, maxEvent)
		if err != nil || q == "" {
			return fr.fail("cannot tell when a group is complete: group by a window of the watermark column, date_trunc('minute', %s) or time_bucket(INTERVAL '5 minutes', %s), or use update or complete output mode", wm, wm)
		}
		fr.query = q
	}
	return nil
}

// closedGroups emits the groups whose window the watermark has passed
// and that were not emitted before.
func (fr *flowRun) closedGroups(ctx context.Context, t int, res, emit string) (string, error) {
	done := fr.temp("done")
	var closed, sel string
	if w := fr.group.window; w != nil {
		start := quoteIdent(fr.cols[w.col])
		if w.field != "" {
			start = "(" + start + ")." + quoteIdent(w.field)
		}
		closed = start + " + " + w.width + " <= " + fr.wmExpr
		sel = "SELECT * FROM " + res + " AS __thund_r WHERE " + closed
	} else {
		closed = quoteIdent(maxEvent) + " <= " + fr.wmExpr
		sel = "SELECT * EXCLUDE (" + quoteIdent(maxEvent) + ") FROM " + res + " AS __thund_r WHERE " + closed
	}
	keyed := fr.group.keysOK && len(fr.group.keys) > 0
	if t == 1 && !fr.restored {
		cols := "*"
		if keyed {
			cols = fr.keyList("")
		}
		if _, err := fr.exec(ctx, "emitted groups", "CREATE OR REPLACE TEMP TABLE "+done+" AS SELECT "+cols+" FROM ("+sel+") LIMIT 0"); err != nil {
			return "", err
		}
	}
	var q string
	if keyed {
		q = sel + " AND NOT EXISTS (SELECT 1 FROM " + done + " AS __thund_d WHERE " + fr.keyMatch("__thund_d", "__thund_r") + ")"
	} else {
		q = sel + " EXCEPT ALL SELECT * FROM " + done
	}
	if _, err := fr.exec(ctx, "closed groups", "CREATE OR REPLACE TEMP TABLE "+emit+" AS "+q); err != nil {
		return "", err
	}
	cols := "*"
	if keyed {
		cols = fr.keyList("")
	}
	if _, err := fr.exec(ctx, "emitted groups", "INSERT INTO "+done+" SELECT "+cols+" FROM "+emit); err != nil {
		return "", err
	}
	return emit, nil
}

// keyList lists the grouping columns, qualified by alias when set.
func (fr *flowRun) keyList(alias string) string {
	var out []string
	for _, k := range fr.group.keys {
		c := quoteIdent(fr.cols[k])
		if alias != "" {
			c = alias + "." + c
		}
		out = append(out, c)
	}
	return strings.Join(out, ", ")
}

// keyMatch is the condition that rows a and b have the same grouping key.
func (fr *flowRun) keyMatch(a, b string) string {
	var out []string
	for _, k := range fr.group.keys {
		c := quoteIdent(fr.cols[k])
		out = append(out, a+"."+c+" IS NOT DISTINCT FROM "+b+"."+c)
	}
	return strings.Join(out, " AND ")
}

// fitDeclared returns rel's rows in the target's declared schema when its
// statement has a column list (CREATE STREAMING TABLE t (id BIGINT, ...)),
// else rel itself; name is the flow's temporary table it writes. Spark stores a streaming table as declared: the
// declared columns in their order and of their types, a declared column
// the flow does not give is NULL, and a column of an append flow the list
// does not declare is not stored (Spark 4.1.4's spark-pipelines run; the
// table's own query may not have one, which analysis reports). Names
// match case-insensitively, as DuckDB's and Spark's default analysis do.
func (fr *flowRun) fitDeclared(ctx context.Context, rel, name string) (string, error) {
	decl := fr.d.Declared
	if len(decl) == 0 {
		return rel, nil
	}
	names, _, err := fr.columns(ctx, rel)
	if err != nil {
		return "", fr.fail("read the rows of %s: %v", fr.f.Name, err)
	}
	have := make(map[string]string, len(names))
	for _, n := range names {
		if _, dup := have[strings.ToLower(n)]; !dup {
			have[strings.ToLower(n)] = n
		}
	}
	cols := make([]string, len(decl))
	for i, c := range decl {
		val := "NULL"
		if n, ok := have[strings.ToLower(c.Name)]; ok {
			val = quoteIdent(n)
		}
		if t := duckOfSpark(c.Type); t != "" {
			val = "CAST(" + val + " AS " + t + ")"
		}
		cols[i] = val + " AS " + quoteIdent(c.Name)
	}
	out := fr.temp(name)
	stmt := "CREATE OR REPLACE TEMP TABLE " + out + " AS SELECT " + strings.Join(cols, ", ") + " FROM " + rel
	if _, err := fr.exec(ctx, "declared columns of "+fr.d.Name, stmt); err != nil {
		return "", err
	}
	return out, nil
}

// write stores a trigger's emitted rows in the target.
func (fr *flowRun) write(ctx context.Context, emit string) error {
	if !fr.created {
		if _, err := fr.exec(ctx, "create "+fr.d.Name, "CREATE TABLE "+fr.target+" AS SELECT * FROM "+emit); err != nil {
			return err
		}
		fr.created = true
		return nil
	}
	src := emit
	switch {
	case fr.strategy == stratComplete:
		if _, err := fr.exec(ctx, "replace "+fr.d.Name, "DELETE FROM "+fr.target); err != nil {
			return err
		}
	case fr.strategy == stratUpdate && !fr.group.keysOK:
		// No upsert key: the target becomes the whole result.
		if _, err := fr.exec(ctx, "replace "+fr.d.Name, "DELETE FROM "+fr.target); err != nil {
			return err
		}
		var err error
		if src, err = fr.fitDeclared(ctx, fr.resT, "declared_result"); err != nil {
			return err
		}
	case fr.strategy == stratUpdate:
		stmt := "DELETE FROM " + fr.target + " WHERE EXISTS (SELECT 1 FROM " + emit + " AS __thund_e WHERE " + fr.keyMatch("__thund_e", fr.target) + ")"
		if _, err := fr.exec(ctx, "upsert "+fr.d.Name, stmt); err != nil {
			return err
		}
	}
	_, err := fr.exec(ctx, "write "+fr.d.Name, "INSERT INTO "+fr.target+" BY NAME SELECT * FROM "+src)
	return err
}

// commit records a trigger's written rows as one commit of the target,
// for streams that read it downstream.
func (fr *flowRun) commit(ctx context.Context, emit string, files []string) error {
	lg := fr.log
	if len(lg.files) == 0 {
		stmt := "CREATE OR REPLACE TEMP TABLE " + lg.table + " AS SELECT *, CAST(0 AS BIGINT) AS " + quoteIdent(commitCol) + " FROM " + fr.target + " LIMIT 0"
		if _, err := fr.exec(ctx, "commit log", stmt); err != nil {
			return err
		}
	}
	lg.files = append(lg.files, files)
	stmt := fmt.Sprintf("INSERT INTO %s BY NAME SELECT *, CAST(%d AS BIGINT) AS %s FROM %s", lg.table, len(lg.files), quoteIdent(commitCol), emit)
	_, err := fr.exec(ctx, "commit log", stmt)
	return err
}

// mergeExpectations folds the per-trigger expectation results a streaming
// flow added since index from into one result per expectation: summed,
// or the last trigger's when last is set.
func (st *runState) mergeExpectations(from int, last bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if from >= len(st.res.Expectations) {
		return
	}
	var merged []ExpectationResult
	at := map[string]int{}
	for _, r := range st.res.Expectations[from:] {
		i, ok := at[r.Name]
		if !ok {
			at[r.Name] = len(merged)
			merged = append(merged, r)
			continue
		}
		m := &merged[i]
		if last {
			*m = r
			continue
		}
		m.Violations += r.Violations
		m.Dropped += r.Dropped
		if r.Failed && !m.Failed {
			m.Failed, m.Columns, m.Samples = true, r.Columns, r.Samples
		}
	}
	st.res.Expectations = append(st.res.Expectations[:from], merged...)
}
