// Package watch is thund-watch's watch mode, a reconcile loop in the manner
// of Rill's and of tsc --watch: it watches a pipeline folder, and on each
// debounced batch of saves it updates the analysis snapshot, prints the
// diagnostics that changed, and re-runs only the datasets whose definition
// or inputs changed, plus everything downstream of them, on one embedded
// DuckDB session that keeps every other dataset materialised.
//
// What "changed" means is a content hash per dataset (see Hashes): the
// normalised SQL and settings of its flows and the hashes of its inputs,
// sample data included. A save that changes no hash (a comment, blank
// lines) re-runs nothing. A batch that arrives while a run is going and
// changes some hash cancels that run (DuckDB is interrupted) and starts
// one covering both, so stale work is never queued.
//
// Everything is printed through one writer, as text for people or as
// NDJSON (the objects of --once plus one "run" object per batch), so the
// loop is testable without a terminal.
package watch

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/project"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/preview"
	"github.com/thund-dev/thund/report"
)

// DefaultDebounce is how long the folder must stay quiet before a batch
// of changes is applied.
const DefaultDebounce = 50 * time.Millisecond

// DefaultQueryTimeout is the longest one statement may run in watch mode
// (and in thund-watch --once) when neither Options.Engine nor thund.yaml's
// limits.query_timeout sets it: longer than the editor's
// engine.DefaultQueryTimeout, since whole runs are what this mode is for.
const DefaultQueryTimeout = 10 * time.Minute

// Limits returns base with the limits of thund.yaml (`limits:`) filled in
// where base leaves them unset: what the caller sets (a command-line
// flag) wins over the file. A limit neither sets is left to the caller's
// default (DefaultQueryTimeout here) or to the engine's.
func Limits(base engine.Options, cfg project.Config) engine.Options {
	if base.QueryTimeout == 0 {
		base.QueryTimeout = cfg.QueryTimeout
	}
	if base.MemoryLimit == "" {
		base.MemoryLimit = cfg.MemoryLimit
	}
	if base.TempLimit == "" {
		base.TempLimit = cfg.TempLimit
	}
	return base
}

// progressAfter is how long a run goes before the live progress line
// shows.
const progressAfter = 500 * time.Millisecond

// Options configure watch mode.
type Options struct {
	// Dir is the pipeline folder, or a file or folder inside it.
	Dir string
	// Analysis and Engine configure the snapshot and the DuckDB session
	// (Engine.StateDir is also left out of the watch). Limits Engine
	// leaves unset come from thund.yaml, else the query time limit is
	// DefaultQueryTimeout (see Limits).
	Analysis analysis.Options
	Engine   engine.Options
	// Debounce defaults to DefaultDebounce.
	Debounce time.Duration
	// Previews names the datasets whose first Limit rows are printed
	// each time they re-run; Limit is at most project.PreviewMaxRows,
	// and 0 prints no preview.
	Previews []string
	Limit    int
	// JSON prints NDJSON objects instead of text.
	JSON bool
	// Color uses ANSI colours and marks preview rows that are new since
	// the previous run; Progress shows a live "running X (i/n)…" line for
	// runs over half a second. Both are for terminals, text output only.
	Color    bool
	Progress bool
	// Width is the terminal's width in characters, which preview tables
	// are fitted to (0: no limit).
	Width int
	// Out receives the output; Warn receives warnings (os.Stderr when
	// nil).
	Out  io.Writer
	Warn io.Writer
	// AfterRun, when set, is called after each run that completed without
	// a failed dataset (thund-watch --spark pushes the pipeline to Spark
	// there); ctx is cancelled when a newer save arrives.
	AfterRun func(ctx context.Context, snap *analysis.Snapshot, out io.Writer)
}

// Run watches the pipeline until ctx is done: a first run of every
// dataset, then one reconcile per batch of saves. When ctx is done it
// cancels the running query, closes the session and returns nil (if
// DuckDB fails to stop the query within stopGrace, it says so and returns
// without closing). Errors are for what prevents watching at all (no
// folder, no DuckDB, no fsnotify).
func Run(ctx context.Context, o Options) error {
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if o.Warn == nil {
		o.Warn = os.Stderr
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	o.Limit = min(o.Limit, project.PreviewMaxRows)
	abs, err := filepath.Abs(o.Dir)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", o.Dir, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return fmt.Errorf("open pipeline: %w", err)
	}
	root, err := project.FindRootSpec(abs, o.Analysis.Spec)
	if err != nil {
		return fmt.Errorf("find pipeline root of %s: %w", o.Dir, err)
	}
	var warnMu sync.Mutex
	warn := func(msg string) {
		warnMu.Lock()
		defer warnMu.Unlock()
		fmt.Fprintf(o.Warn, "thund-watch: %s\n", msg)
	}
	skip := Ignored
	if o.Engine.StateDir != "" {
		state, err := filepath.Abs(o.Engine.StateDir)
		if err != nil {
			return fmt.Errorf("state folder: %w", err)
		}
		if rel, err := filepath.Rel(root, state); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			rel = filepath.ToSlash(rel)
			if rel == "." {
				return fmt.Errorf("--state %s is the pipeline folder itself; keep the state in a folder of its own", o.Engine.StateDir)
			}
			skip = func(p string) bool { return Ignored(p) || p == rel || strings.HasPrefix(p, rel+"/") }
		}
	}
	// Watch before the first analysis, so no save between the two is lost.
	fw, err := newFSWatcher(root, skip, o.Debounce, warn)
	if err != nil {
		return fmt.Errorf("watch %s: %w", root, err)
	}
	wctx, stopWatch := context.WithCancel(ctx)
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		fw.run(wctx)
	}()
	defer func() {
		stopWatch()
		<-watching
	}()
	snap, err := analysis.Load(o.Dir, o.Analysis)
	if err != nil {
		return err
	}
	if !isPipeline(snap) {
		return fmt.Errorf("%s holds no pipeline: no spark-pipeline.yml, no thund.yaml and no .sql file%s; give the pipeline's folder (or create a .sql file there first)", o.Dir, project.NoPipelineHint(snap.Project, snap.Files))
	}
	opts := Limits(o.Engine, snap.Project.Config)
	if opts.QueryTimeout == 0 {
		opts.QueryTimeout = DefaultQueryTimeout
	}
	private := ""
	if opts.StateDir == "" {
		// Without --state the session keeps its state in a private
		// folder of its own, removed when watching ends: a stream then
		// resumes on each save, and a new micro-batch file is one new
		// trigger, as on a cluster, rather than a replay of every file.
		if private, err = os.MkdirTemp("", "thund-watch-state-"); err != nil {
			return fmt.Errorf("state folder: %w", err)
		}
		opts.StateDir = private
	}
	sess, err := engine.Open(snap.Root, opts)
	if err != nil {
		if private != "" {
			os.RemoveAll(private)
		}
		return err
	}
	closeSession := true
	defer func() {
		if closeSession {
			sess.Close()
			if private != "" {
				os.RemoveAll(private)
			}
		}
	}()
	r := &reconciler{
		o:      o,
		out:    newOutput(o.Out, o.JSON, o.Color, o.Width),
		warn:   warn,
		sess:   sess,
		snap:   snap,
		files:  newFiles(snap.Root),
		skip:   skip,
		state:  map[string]dsState{},
		hashes: map[string]string{},
		names:  map[string]string{},
		pages:  map[string]*preview.Page{},
		opened: Limits(o.Engine, snap.Project.Config),
	}
	r.limits = r.opened
	r.files.prime(snap)
	for _, name := range o.Previews {
		if snap.Pipeline.Dataset(name) == nil {
			warn(fmt.Sprintf("--preview %s: no such dataset yet; it is previewed once it exists", name))
		}
	}
	if !o.JSON {
		r.out.text(fmt.Sprintf("watching %s (%s); Ctrl-C to stop", snap.Root, plural(len(snap.Pipeline.Datasets), "dataset")))
	}
	if !r.loop(ctx, fw.batches) {
		// Closing would wait for the query DuckDB did not interrupt.
		closeSession = false
	}
	return nil
}

// isPipeline reports whether a folder has something of a pipeline: a
// spec, a thund.yaml or a .sql file. Watching anything else (a home
// folder, a mistyped path) would only watch files that never run.
func isPipeline(snap *analysis.Snapshot) bool {
	if snap.Project.HasSpec || snap.Project.ConfigFile != "" || snap.Project.Bundle != nil || len(snap.Libraries) > 0 {
		return true
	}
	for _, f := range snap.Files {
		if strings.HasSuffix(strings.ToLower(f), ".sql") {
			return true
		}
	}
	return false
}

// dsState is what the session holds for a dataset: the hash it was last
// run with and how that run ended.
type dsState struct {
	hash  string
	phase engine.Phase
}

// reconciler owns the snapshot, the session and what is materialised. Its
// fields belong to the loop's goroutine; a running job only reads the
// session and its own fields.
type reconciler struct {
	o     Options
	out   *output
	warn  func(string)
	sess  *engine.Session
	snap  *analysis.Snapshot
	files *files
	skip  func(string) bool
	// state is per dataset key; hashes and names are those of the
	// snapshot last planned.
	state  map[string]dsState
	hashes map[string]string
	names  map[string]string
	// pages holds the last preview page printed per dataset key.
	pages map[string]*preview.Page
	// triggers holds, per streaming flow (dataset and flow name), the
	// last trigger number printed and the micro-batch files its
	// triggers read: a run that resumes the stream goes on counting.
	triggers map[string]*flowTriggers
	// samples are the sample findings last printed (see sampleWarnings).
	samples string
	// cycle is set while the newest snapshot planned has a cycle, so
	// the batch that breaks it can say the pipeline is valid again.
	cycle bool
	// opened are the limits the session was opened with (Limits of
	// Options.Engine and thund.yaml), limits those of the newest
	// snapshot: the session keeps the first, so a change is reported,
	// once, as needing a restart.
	opened, limits engine.Options
}

// job is one run: what it covers and, once done is closed, how it went.
type job struct {
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	snap    *analysis.Snapshot
	hashes  map[string]string
	only    map[string]bool
	order   []string // keys of only, in run order
	changed []string
	startup bool
	start   time.Time
	// removed lists the datasets the batch deleted (keys, and names as
	// they were); note explains a batch that runs nothing.
	removed      []string
	removedNames []string
	note         string

	progMu  sync.Mutex
	current string
	started map[string]bool

	res       *engine.Result
	err       error
	cancelled bool
	// stopping is set when watch mode itself ends (Ctrl-C), rather
	// than a newer save, cancels the job.
	stopping bool
	pages    []*preview.Page
}

// completedNames lists the datasets the run completed, in run order.
func (j *job) completedNames() []string {
	out := []string{}
	if j.res == nil {
		return out
	}
	for _, k := range j.res.Order {
		if d := j.res.Datasets[k]; d.Phase == engine.Completed {
			out = append(out, d.Name)
		}
	}
	return out
}

// stopGrace is how long stopping waits for DuckDB to end a cancelled
// query before giving up on it.
const stopGrace = 10 * time.Second

// cancel cancels a job and waits for it to end, then records it. It
// returns false when ctx ended first, leaving the job to stop.
func (r *reconciler) cancel(ctx context.Context, j *job) bool {
	j.cancel()
	slow := time.NewTimer(2 * time.Second)
	defer slow.Stop()
	for {
		select {
		case <-j.done:
			r.finish(j)
			return true
		case <-slow.C:
			r.warn("waiting for DuckDB to stop the cancelled run…")
		case <-ctx.Done():
			return false
		}
	}
}

// stop ends watch mode: it cancels the running job, if any, and waits
// for it up to stopGrace. It reports whether the session is idle, so
// that it can be closed; a query DuckDB failed to interrupt keeps it busy.
func (r *reconciler) stop(j *job) bool {
	idle := true
	if j != nil {
		j.stopping = true
		j.cancel()
		select {
		case <-j.done:
			r.finish(j)
		case <-time.After(stopGrace):
			idle = false
			r.warn(fmt.Sprintf("DuckDB did not stop the running query within %s; exiting without closing the database", stopGrace))
		}
	}
	r.out.stopProgress()
	if !r.o.JSON {
		r.out.text("stopped watching")
	}
	return idle
}

// loop is the reconcile loop: the first run, then a reconcile per batch,
// until ctx ends. It returns whether the session is idle (see stop).
func (r *reconciler) loop(ctx context.Context, batches <-chan batch) bool {
	r.out.diagnostics(nil, r.snap)
	if !r.o.JSON {
		for _, h := range report.Hints(r.snap, r.snap.Diagnostics) {
			r.out.text(r.out.style(ansiDim) + "hint: " + h + r.out.style(ansiReset))
		}
	}
	var all []string
	for _, f := range r.snap.Files {
		if !r.skip(f) {
			all = append(all, f)
		}
	}
	cur := r.startJob(r.snap, r.hashesOf(r.snap), all, true)
	for {
		var done chan struct{}
		if cur != nil {
			done = cur.done
		}
		select {
		case <-ctx.Done():
			return r.stop(cur)
		case <-done:
			r.finish(cur)
			cur = nil
		case b := <-batches:
			prev := r.snap
			paths := b.paths
			if b.rescan {
				paths = r.everyPath()
			}
			changes, changed := r.files.changes(prev, paths)
			if len(changed) == 0 {
				continue
			}
			next := prev.Update(changes)
			r.checkLimits(next)
			hashes := r.hashesOf(next)
			r.snap = next
			startup := false
			if cur != nil {
				if sameHashes(hashes, cur.hashes) {
					// The run going on already builds exactly this.
					r.out.diagnostics(prev, next)
					r.report(&job{changed: changed, note: noChange, start: time.Now()})
					continue
				}
				if !r.cancel(ctx, cur) {
					return r.stop(cur)
				}
				changed = union(cur.changed, changed)
				startup = cur.startup
			}
			r.out.diagnostics(prev, next)
			cur = r.startJob(next, hashes, changed, startup)
		}
	}
}

const noChange = "no semantic change: nothing to re-run"

func sameLimits(a, b engine.Options) bool {
	return a.QueryTimeout == b.QueryTimeout && a.MemoryLimit == b.MemoryLimit && a.TempLimit == b.TempLimit
}

// checkLimits warns when a snapshot's thund.yaml changes the limits: the
// session keeps those it was opened with until watch mode restarts.
func (r *reconciler) checkLimits(s *analysis.Snapshot) {
	l := Limits(r.o.Engine, s.Project.Config)
	if sameLimits(l, r.limits) {
		return
	}
	r.limits = l
	if sameLimits(l, r.opened) {
		return
	}
	r.warn("the limits of thund.yaml changed: they apply when thund-watch restarts (this session keeps those it started with)")
}

// everyPath lists every file on disk and in the snapshot, for a batch
// after lost events.
func (r *reconciler) everyPath() []string {
	seen := map[string]bool{}
	var out []string
	disk, _ := project.Walk(r.snap.Root)
	for _, list := range [][]string{disk, r.snap.Files} {
		for _, p := range list {
			if !seen[p] && !r.skip(p) {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// hashesOf hashes a snapshot's datasets, fingerprinting each sample once.
func (r *reconciler) hashesOf(s *analysis.Snapshot) map[string]string {
	memo := map[string]string{}
	return Hashes(s.Pipeline, func(src *ir.Source) string {
		if v, ok := memo[src.Sample]; ok {
			return v
		}
		v := r.files.Sample(src)
		memo[src.Sample] = v
		return v
	})
}

func sameHashes(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, list := range [][]string{a, b} {
		for _, s := range list {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Plan returns the dataset keys a run must cover: every dataset whose
// hash differs from the one it was last run with (or that never ran),
// everything downstream of those, and every dataset upstream of the run
// that is not materialised (it failed or was skipped), so readers get its
// error rather than a missing table.
func plan(g *ir.Graph, hashes map[string]string, state map[string]dsState) map[string]bool {
	var stale []string
	for _, k := range g.Nodes {
		if st, ok := state[k]; !ok || st.hash != hashes[k] {
			stale = append(stale, k)
		}
	}
	run := g.Downstream(stale...)
	if len(run) == 0 {
		return run
	}
	keys := make([]string, 0, len(run))
	for k := range run {
		keys = append(keys, k)
	}
	for k := range g.Upstream(keys...) {
		if !run[k] && state[k].phase != engine.Completed {
			run[k] = true
		}
	}
	return run
}

// startJob plans a run of snap and starts it, or reports why nothing runs
// and returns nil. Datasets the snapshot no longer has are dropped from
// the session first.
func (r *reconciler) startJob(snap *analysis.Snapshot, hashes map[string]string, changed []string, startup bool) *job {
	j := &job{snap: snap, hashes: hashes, changed: changed, startup: startup, start: time.Now(), started: map[string]bool{}}
	for k := range r.hashes {
		if _, ok := hashes[k]; !ok {
			j.removed = append(j.removed, k)
		}
	}
	sort.Strings(j.removed)
	for _, k := range j.removed {
		j.removedNames = append(j.removedNames, r.names[k])
		if _, ok := r.state[k]; ok {
			r.drop(r.names[k])
			delete(r.state, k)
		}
		delete(r.pages, k)
	}
	r.hashes = hashes
	r.names = map[string]string{}
	for _, d := range snap.Pipeline.Datasets {
		if k := ir.NameKey(d.Name); r.names[k] == "" {
			r.names[k] = d.Name
		}
	}
	g := snap.Pipeline.Graph()
	order, err := g.TopoOrder()
	if err != nil {
		r.cycle = true
		j.note = fmt.Sprintf("cannot run: %v; fix the cycle first", err)
		r.report(j)
		return nil
	}
	wasCycle := r.cycle
	r.cycle = false
	j.only = plan(g, hashes, r.state)
	if len(j.only) == 0 {
		switch {
		case wasCycle:
			j.note = "the cycle is gone and the pipeline is valid again; every dataset is as it last ran, so nothing to re-run"
		case len(j.removed) > 0:
			j.note = "nothing to re-run"
		default:
			j.note = noChange
		}
		r.report(j)
		return nil
	}
	for _, k := range order {
		if j.only[k] {
			j.order = append(j.order, k)
		}
	}
	j.ctx, j.cancel = context.WithCancel(context.Background())
	j.done = make(chan struct{})
	go r.execute(j)
	return j
}

// drop removes a dataset's relation from the session.
func (r *reconciler) drop(name string) {
	if name == "" {
		return
	}
	rel := r.sess.RelationSQL(name)
	ctx := context.Background()
	r.sess.Exec(ctx, "DROP VIEW IF EXISTS "+rel)
	r.sess.Exec(ctx, "DROP TABLE IF EXISTS "+rel)
}

// execute runs a job on its own goroutine: the run, then the previews.
// Events print as they happen, until the job is cancelled.
func (r *reconciler) execute(j *job) {
	defer close(j.done)
	stopProgress := func() {}
	if r.o.Progress && !r.o.JSON {
		stopProgress = r.progress(j)
	}
	res, err := r.sess.Run(j.ctx, j.snap.Pipeline, engine.RunOptions{Only: j.only, Blocked: j.snap.Broken(), OnEvent: func(e engine.Event) {
		if j.ctx.Err() != nil {
			return
		}
		if e.Phase == engine.Running {
			j.progMu.Lock()
			j.current = e.Dataset
			j.started[ir.NameKey(e.Dataset)] = true
			j.progMu.Unlock()
		}
		r.out.event(e)
	}})
	j.res, j.err = res, err
	j.cancelled = err != nil && j.ctx.Err() != nil
	if err == nil && res != nil && !res.Failed() && r.o.AfterRun != nil {
		r.o.AfterRun(j.ctx, j.snap, r.o.Out)
	}
	if err == nil && res != nil && r.o.Limit > 0 {
		for _, name := range r.o.Previews {
			d := j.snap.Pipeline.Dataset(name)
			if d == nil {
				continue
			}
			k := ir.NameKey(d.Name)
			if dr := res.Datasets[k]; dr == nil || dr.Phase != engine.Completed {
				continue
			}
			p, err := preview.Dataset(j.ctx, r.sess, d.Name, 0, r.o.Limit)
			if err != nil {
				if j.ctx.Err() == nil {
					r.warn(err.Error())
				}
				continue
			}
			j.pages = append(j.pages, p)
		}
	}
	stopProgress()
}

// progress shows the live progress line of a run once it has gone for
// progressAfter; the returned func stops it and erases the line.
func (r *reconciler) progress(j *job) func() {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				elapsed := time.Since(j.start)
				if elapsed < progressAfter {
					continue
				}
				j.progMu.Lock()
				name, n := j.current, len(j.started)
				j.progMu.Unlock()
				if name == "" || j.ctx.Err() != nil {
					continue
				}
				r.out.progress(fmt.Sprintf("%srunning %s (%d/%d)… %.1f s%s", r.out.style(ansiCyan), name, n, len(j.order), elapsed.Seconds(), r.out.style(ansiReset)))
			}
		}
	}()
	return func() {
		close(quit)
		wg.Wait()
		r.out.stopProgress()
	}
}

// finish records what a finished (or cancelled) job materialised and
// prints its results.
func (r *reconciler) finish(j *job) {
	for k := range j.only {
		var d *engine.DatasetResult
		if j.res != nil {
			d = j.res.Datasets[k]
		}
		switch {
		case d == nil, (j.cancelled || j.err != nil) && d.Phase != engine.Completed:
			// Not run, or interrupted: the next plan takes it up.
			delete(r.state, k)
		default:
			r.state[k] = dsState{hash: j.hashes[k], phase: d.Phase}
			if d.Phase == engine.Skipped {
				// Never let a skipped dataset's old rows pass for new.
				r.drop(d.Name)
			}
		}
	}
	if j.err != nil && !j.cancelled {
		r.warn(j.err.Error())
	}
	if !j.cancelled && j.res != nil {
		r.sampleWarnings(j.res.SampleWarnings)
		j.res.Increments = r.renumber(j.res.Increments)
		r.out.results(j.res, j.pages, r.pages)
		for _, p := range j.pages {
			r.pages[ir.NameKey(p.Dataset)] = p
		}
	}
	r.report(j)
}

// sampleWarnings prints a run's findings about the sample files when
// they differ from those printed last (each run checks every sample, and
// repeating the same lines on every save would bury the news).
func (r *reconciler) sampleWarnings(ws []engine.SampleWarning) {
	lines := report.SampleWarningLines(ws)
	key := strings.Join(lines, "\n")
	if key == r.samples {
		return
	}
	r.samples = key
	if len(ws) == 0 {
		return
	}
	if r.o.JSON {
		objs := make([]any, len(ws))
		for i, w := range ws {
			objs[i] = DiagnosticJSON{JSONDiagnostic: report.SampleWarningJSON(w), Change: "added"}
		}
		r.out.objects(objs...)
		return
	}
	for i := range lines {
		lines[i] = strings.Replace(lines[i], ": warning: ", ": "+r.out.style(ansiYellow)+"warning"+r.out.style(ansiReset)+": ", 1)
	}
	r.out.text(lines...)
}

// flowTriggers is what watch mode printed of one streaming flow.
type flowTriggers struct {
	last  int
	files map[string]bool
}

// renumber numbers a run's triggers after those printed before for the
// same flow, since the session resumed the stream (the engine numbers a
// run's triggers from 1). A flow that read a file again replayed its
// streams from the start (its definition changed): its count restarts.
func (r *reconciler) renumber(incs []engine.Increment) []engine.Increment {
	if r.triggers == nil {
		r.triggers = map[string]*flowTriggers{}
	}
	key := func(inc engine.Increment) string { return ir.NameKey(inc.Dataset) + "\x00" + inc.Flow }
	for _, inc := range incs {
		if ft := r.triggers[key(inc)]; ft != nil {
			for _, f := range inc.Files {
				if ft.files[f] {
					delete(r.triggers, key(inc))
					break
				}
			}
		}
	}
	base := map[string]int{}
	out := make([]engine.Increment, len(incs))
	for i, inc := range incs {
		k := key(inc)
		ft := r.triggers[k]
		if ft == nil {
			ft = &flowTriggers{files: map[string]bool{}}
			r.triggers[k] = ft
		}
		if _, ok := base[k]; !ok {
			base[k] = ft.last
		}
		inc.Trigger += base[k]
		ft.last = max(ft.last, inc.Trigger)
		for _, f := range inc.Files {
			ft.files[f] = true
		}
		out[i] = inc
	}
	return out
}

// report prints the status line or the run object of a job, and says
// when output since the last report could not be written or encoded.
func (r *reconciler) report(j *job) {
	defer func() {
		if err := r.out.takeErr(); err != nil {
			r.warn(fmt.Sprintf("write output: %v", err))
		}
	}()
	elapsed := time.Since(j.start)
	if !r.o.JSON {
		r.out.text(r.out.statusLine(j, elapsed))
		return
	}
	obj := RunJSON{Type: "run", Changed: nonNil(j.changed), Reran: []string{}, Removed: nonNil(j.removedNames),
		Cancelled: j.cancelled, ElapsedMS: elapsed.Milliseconds(), Note: j.note}
	switch {
	case j.cancelled:
		obj.Reran = j.completedNames()
		obj.Completed = len(obj.Reran)
	case j.res != nil:
		for _, k := range j.res.Order {
			d := j.res.Datasets[k]
			obj.Reran = append(obj.Reran, d.Name)
			switch d.Phase {
			case engine.Completed:
				obj.Completed++
			case engine.Failed:
				obj.Failed++
			case engine.Skipped:
				obj.Skipped++
			}
		}
	}
	if j.err != nil && !j.cancelled {
		obj.Note = "run failed: " + j.err.Error()
	}
	r.out.objects(obj)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
