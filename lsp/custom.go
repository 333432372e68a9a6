package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/capab"
	"github.com/thund-dev/thund/analysis/project"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/preview"
)

// lastPreview is what the server remembers of a dataset's last preview,
// for the diff of the next one, hovers and code lenses.
type lastPreview struct {
	page *preview.Page
	// rows counts each row (as JSON), for diffs; nil when the result was
	// too large to compare (see diffMaxRows).
	rows    map[string]int
	elapsed time.Duration
}

// DefaultPreviewLimit is the page size of thund/preview when neither the
// request, the editor's settings nor thund.yaml give one.
const DefaultPreviewLimit = 500

// diffMaxRows is the largest result a preview compares with the previous
// one: the diff holds the whole result in memory, so it is bounded like a
// page.
const diffMaxRows = project.PreviewMaxRows

// PreviewParams are the parameters of thund/preview.
type PreviewParams struct {
	URI     protocol.DocumentURI `json:"uri"`
	Dataset string               `json:"dataset"`
	Offset  int                  `json:"offset"`
	// Limit is the page size; 0 takes the default, and more than
	// project.PreviewMaxRows is taken as that.
	Limit int `json:"limit"`
}

// PreviewResult is the answer of thund/preview.
type PreviewResult struct {
	Dataset   string           `json:"dataset"`
	Columns   []preview.Column `json:"columns"`
	Rows      [][]any          `json:"rows"`
	TotalRows int64            `json:"total_rows"`
	Offset    int              `json:"offset"`
	// Limit is the page size used: the one asked for, the default, or
	// project.PreviewMaxRows when more was asked for.
	Limit        int           `json:"limit"`
	ElapsedMS    int64         `json:"elapsed_ms"`
	Expectations []Expectation `json:"expectations"`
	Increments   []Increment   `json:"increments"`
	// Diff is nil when the dataset could not run, or when its result is
	// too large to compare (DiffSkipped says so).
	Diff        *Diff  `json:"diff"`
	DiffSkipped string `json:"diff_skipped,omitempty"`
	// Truncated lists the cells whose value was cut to
	// preview.MaxValueBytes (the value ends with "…(truncated, N bytes)").
	Truncated []preview.Truncation `json:"truncated,omitempty"`
	// Cut, when set, says the page holds fewer rows than Limit because it
	// reached preview.MaxPageBytes.
	Cut string `json:"cut,omitempty"`
	// Error is set when the dataset could not run (failed or skipped).
	Error string `json:"error,omitempty"`
}

// Expectation is one expectation result in thund/preview and thund/run.
type Expectation struct {
	Dataset    string `json:"dataset"`
	Name       string `json:"name"`
	Action     string `json:"action"`
	Violations int64  `json:"violations"`
	Dropped    int64  `json:"dropped"`
	Status     string `json:"status"` // passed, warned, dropped, failed
}

// Increment is one streaming trigger in thund/preview.
type Increment struct {
	Trigger int      `json:"trigger"`
	Files   []string `json:"files"`
	Arrived int64    `json:"arrived"`
	Late    int64    `json:"late"`
	Emitted int64    `json:"emitted"`
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
}

// Diff compares a preview's whole result with the previous preview of the
// same dataset (rows compared as whole values, counted with multiplicity).
type Diff struct {
	Added   [][]any `json:"added"`
	Removed [][]any `json:"removed"`
	// First is true when there was no previous preview to compare with.
	First bool `json:"first"`
}

// sessionLocked returns the root's engine session, opening it on first
// use with the limits of cfg (thund.yaml's `limits:`; the engine's
// defaults where it sets none, so 30 s per statement in the editor). A
// session opened with other limits is closed and opened anew: previews
// and runs re-run what they read, and descriptions need nothing stored.
// The caller holds st.runMu.
func (st *root) sessionLocked(cfg project.Config) (*engine.Session, error) {
	if st.closed {
		return nil, fmt.Errorf("the pipeline at %s is closed", st.path)
	}
	opts := engineOptions(cfg)
	if st.session != nil && !sameLimits(st.sessionOpts, opts) {
		st.session.Close()
		st.session = nil
	}
	if st.session == nil {
		sess, err := engine.Open(st.path, opts)
		if err != nil {
			return nil, err
		}
		st.session, st.sessionOpts = sess, opts
	}
	return st.session, nil
}

func sameLimits(a, b engine.Options) bool {
	return a.MemoryLimit == b.MemoryLimit && a.TempLimit == b.TempLimit && a.QueryTimeout == b.QueryTimeout
}

// engineOptions are the engine options of a pipeline in the editor: the
// limits of its thund.yaml.
func engineOptions(cfg project.Config) engine.Options {
	return engine.Options{MemoryLimit: cfg.MemoryLimit, TempLimit: cfg.TempLimit, QueryTimeout: cfg.QueryTimeout}
}

// previewLimit is the page size of a thund/preview request: the one asked
// for, else the editor's setting, else thund.yaml's, else
// DefaultPreviewLimit; at most project.PreviewMaxRows.
func previewLimit(asked, setting, config int) int {
	n := asked
	for _, v := range []int{setting, config, DefaultPreviewLimit} {
		if n > 0 {
			break
		}
		n = v
	}
	return min(n, project.PreviewMaxRows)
}

func (s *Server) preview(ctx context.Context, params json.RawMessage) (any, error) {
	var p PreviewParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.URI, nil)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "thund/preview: %v", err)
	}
	pl := dp.snap.Pipeline
	d := pl.Dataset(p.Dataset)
	if d == nil && p.Dataset == "" {
		if ds := dp.snap.DatasetsIn(dp.rel); len(ds) > 0 {
			d = ds[0]
		}
	}
	if d == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "thund/preview: no dataset %q in this pipeline", p.Dataset)
	}
	if p.Offset < 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "thund/preview: offset %d is negative; rows are counted from 0", p.Offset)
	}
	s.mu.Lock()
	p.Limit = previewLimit(p.Limit, s.settings.PreviewLimit, dp.snap.Project.Config.PreviewLimit)
	st := s.rootState(dp.root)
	s.mu.Unlock()
	st.runMu.Lock()
	defer st.runMu.Unlock()
	sess, err := st.sessionLocked(dp.snap.Project.Config)
	if err != nil {
		return nil, err
	}
	key := ir.NameKey(d.Name)
	start := time.Now()
	res, err := sess.Run(ctx, pl, engine.RunOptions{Only: pl.Graph().Upstream(key), Blocked: dp.snap.Broken()})
	if err != nil {
		if ctx.Err() != nil {
			return nil, jsonrpc2.Errorf(RequestCancelled, "thund/preview cancelled")
		}
		return nil, err
	}
	st.setExtra(expectationDiagnostics(pl, res))
	out := &PreviewResult{Dataset: d.Name, Offset: p.Offset, Limit: p.Limit, Expectations: []Expectation{}, Increments: []Increment{}, Rows: [][]any{}, Columns: []preview.Column{}}
	for _, e := range res.SortedExpectations() {
		if ir.NameKey(e.Dataset) == key {
			out.Expectations = append(out.Expectations, expectationOf(e))
		}
	}
	for _, inc := range res.Increments {
		if ir.NameKey(inc.Dataset) == key {
			out.Increments = append(out.Increments, Increment{Trigger: inc.Trigger, Files: inc.Files, Arrived: inc.Arrived, Late: inc.Late, Emitted: inc.Emitted, Columns: inc.Columns, Rows: preview.JSONRows(inc.Rows)})
		}
	}
	if dr := res.Datasets[key]; dr == nil || dr.Phase != engine.Completed {
		if dr != nil {
			out.Error = fmt.Sprintf("%s %s: %s", d.Name, dr.Phase, dr.Error)
		}
		go s.republish(dp.root)
		return out, nil
	}
	page, err := preview.Dataset(ctx, sess, d.Name, p.Offset, p.Limit)
	if err != nil {
		return nil, err
	}
	// The diff compares whole results, so it reads the whole result: only
	// when that is no larger than a page may be.
	var all *preview.Page
	if page.TotalRows <= diffMaxRows {
		if all, err = preview.Dataset(ctx, sess, d.Name, 0, int(page.TotalRows)); err != nil {
			return nil, err
		}
	}
	elapsed := time.Since(start)
	out.Columns, out.Rows, out.TotalRows, out.ElapsedMS = sparkColumns(page.Columns), decimalsAsText(page.Columns, page.Rows), page.TotalRows, elapsed.Milliseconds()
	out.Truncated, out.Cut = page.Truncated, page.Cut
	var counts map[string]int
	switch {
	case all == nil:
		out.DiffSkipped = fmt.Sprintf("no comparison with the previous preview: %s has %d rows, and previews compare results of at most %d", d.Name, page.TotalRows, diffMaxRows)
	case all.Cut != "" || int64(len(all.Rows)) < page.TotalRows:
		out.DiffSkipped = fmt.Sprintf("no comparison with the previous preview: the rows of %s hold more than %d MiB, the most a preview compares", d.Name, preview.MaxPageBytes>>20)
	default:
		counts = rowCounts(all.Rows)
	}
	st.stateMu.Lock()
	prev := st.previews[key]
	st.previews[key] = &lastPreview{page: page, rows: counts, elapsed: elapsed}
	st.stateMu.Unlock()
	if counts != nil {
		out.Diff = diffRows(prev, all.Rows, counts)
		out.Diff.Added, out.Diff.Removed = decimalsAsText(page.Columns, out.Diff.Added), decimalsAsText(page.Columns, out.Diff.Removed)
	}
	go s.republish(dp.root)
	return out, nil
}

// decimalsAsText is rows with the value of each DECIMAL column (a
// json.Number, as preview.Value gives it) as a JSON string of the same
// text, so that a client parsing the answer keeps its scale and digits:
// 5.00 stays "5.00" rather than becoming the number 5. Rows holding no
// decimal are shared.
// sparkColumns are a page's columns with Spark's type names, as hover and
// completion show them.
func sparkColumns(cols []preview.Column) []preview.Column {
	out := make([]preview.Column, len(cols))
	for i, c := range cols {
		out[i] = preview.Column{Name: c.Name, Type: preview.SparkType(c.Type)}
	}
	return out
}

func decimalsAsText(cols []preview.Column, rows [][]any) [][]any {
	out, copied := rows, false
	for i, r := range rows {
		var nr []any
		for j, v := range r {
			n, ok := v.(json.Number)
			if !ok || j >= len(cols) || !strings.HasPrefix(cols[j].Type, "DECIMAL") {
				continue
			}
			if nr == nil {
				nr = append([]any(nil), r...)
			}
			nr[j] = string(n)
		}
		if nr == nil {
			continue
		}
		if !copied {
			out, copied = append([][]any(nil), rows...), true
		}
		out[i] = nr
	}
	return out
}

func rowKey(row []any) string {
	b, _ := json.Marshal(row)
	return string(b)
}

func rowCounts(rows [][]any) map[string]int {
	m := make(map[string]int, len(rows))
	for _, r := range rows {
		m[rowKey(r)]++
	}
	return m
}

// diffRows lists rows added since the previous preview and rows gone.
func diffRows(prev *lastPreview, rows [][]any, counts map[string]int) *Diff {
	d := &Diff{Added: [][]any{}, Removed: [][]any{}}
	if prev == nil || prev.rows == nil {
		d.First = true
		return d
	}
	left := make(map[string]int, len(prev.rows))
	for k, n := range prev.rows {
		left[k] = n
	}
	for _, r := range rows {
		k := rowKey(r)
		if left[k] > 0 {
			left[k]--
			continue
		}
		d.Added = append(d.Added, r)
	}
	keys := make([]string, 0, len(left))
	for k, n := range left {
		if n > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		// Numbers keep their text (a decimal's scale, a large integer).
		var r []any
		dec := json.NewDecoder(strings.NewReader(k))
		dec.UseNumber()
		dec.Decode(&r)
		for i := 0; i < left[k]; i++ {
			d.Removed = append(d.Removed, r)
		}
	}
	return d
}

func expectationOf(e engine.ExpectationResult) Expectation {
	status := "passed"
	switch {
	case e.Failed:
		status = "failed"
	case e.Violations > 0 && e.Action == ir.Drop:
		status = "dropped"
	case e.Violations > 0:
		status = "warned"
	}
	return Expectation{Dataset: e.Dataset, Name: e.Name, Action: string(e.Action), Violations: e.Violations, Dropped: e.Dropped, Status: status}
}

// expectationDiagnostics turns a run's expectation results into
// diagnostics on their pragma lines, so the editor shows them in place.
func expectationDiagnostics(p *ir.Pipeline, res *engine.Result) []ir.Diagnostic {
	var out []ir.Diagnostic
	for _, e := range res.Expectations {
		var loc ir.Loc
		for _, f := range p.FlowsInto(e.Dataset) {
			if f.Name != e.Flow {
				continue
			}
			for _, x := range f.Expectations {
				if x.Name == e.Name {
					loc = x.Loc
				}
			}
		}
		if loc.IsZero() {
			continue
		}
		ex := expectationOf(e)
		sev := ir.Info
		msg := fmt.Sprintf("expectation %s passed on the last run", e.Name)
		switch ex.Status {
		case "failed":
			sev, msg = ir.Error, fmt.Sprintf("expectation %s failed on the last run: %d rows violate it", e.Name, e.Violations)
		case "dropped":
			sev, msg = ir.Warning, fmt.Sprintf("expectation %s dropped %d rows on the last run", e.Name, e.Dropped)
		case "warned":
			sev, msg = ir.Warning, fmt.Sprintf("expectation %s: %d rows violate it on the last run (kept)", e.Name, e.Violations)
		}
		out = append(out, ir.Diagnostic{Loc: loc, Severity: sev, Code: ir.CodeExpectationResult, Message: msg})
	}
	return out
}

// GraphNode is a dataset or source in thund/graph.
type GraphNode struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Kind string `json:"kind"` // a dataset kind, or "source"
	URI  string `json:"uri,omitempty"`
	Line int    `json:"line"`
	// Support per backend: "yes", or the reasons it cannot run there.
	Support map[string][]string `json:"support"`
}

// GraphEdge is a read: From is read by To.
type GraphEdge struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Streaming bool   `json:"streaming"`
}

// GraphResult is the answer of thund/graph.
type GraphResult struct {
	Pipeline string      `json:"pipeline"`
	Nodes    []GraphNode `json:"nodes"`
	Edges    []GraphEdge `json:"edges"`
}

func (s *Server) graph(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		URI protocol.DocumentURI `json:"uri"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.URI, nil)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "thund/graph: %v", err)
	}
	return graphOf(dp.snap), nil
}

func graphOf(snap *analysis.Snapshot) *GraphResult {
	pl := snap.Pipeline
	out := &GraphResult{Pipeline: pl.Name, Nodes: []GraphNode{}, Edges: []GraphEdge{}}
	for _, src := range pl.Sources {
		out.Nodes = append(out.Nodes, GraphNode{ID: "source:" + ir.NameKey(src.Name), Name: src.Name, Kind: "source", Support: map[string][]string{}})
	}
	support := capab.Supports(pl)
	for _, d := range pl.Datasets {
		n := GraphNode{ID: ir.NameKey(d.Name), Name: d.Name, Kind: string(d.Kind), URI: string(uri.File(snap.Abs(d.Loc.File))),
			Line: snap.Index(d.Loc.File).Rune(d.NameLoc.Start).Line, Support: map[string][]string{}}
		for b, reasons := range support(d, capab.Backends(pl.Backends, d)) {
			if reasons == nil {
				reasons = []string{}
			}
			n.Support[string(b)] = reasons
		}
		out.Nodes = append(out.Nodes, n)
	}
	seen := map[string]bool{}
	for _, f := range pl.Flows {
		to := pl.Resolve(f.Target)
		if to == nil {
			continue
		}
		for _, r := range f.Reads {
			from := "source:" + ir.NameKey(r.Name)
			if d := pl.Resolve(r.Name); d != nil {
				from = ir.NameKey(d.Name)
			} else if pl.Source(r.Name) == nil {
				continue
			}
			k := from + ">" + ir.NameKey(to.Name)
			if seen[k] {
				continue
			}
			seen[k] = true
			out.Edges = append(out.Edges, GraphEdge{From: from, To: ir.NameKey(to.Name), Streaming: r.Streaming})
		}
	}
	return out
}

// RunParams are the parameters of thund/run.
type RunParams struct {
	URI protocol.DocumentURI `json:"uri"`
	// Dataset, when set, runs that dataset and its downstream cone.
	Dataset       string                  `json:"dataset"`
	WorkDoneToken *protocol.ProgressToken `json:"workDoneToken,omitempty"`
}

// RunResult is the answer of thund/run.
type RunResult struct {
	Datasets     []RunDataset  `json:"datasets"`
	Expectations []Expectation `json:"expectations"`
	ElapsedMS    int64         `json:"elapsed_ms"`
	Failed       bool          `json:"failed"`
}

// RunDataset is one dataset's outcome in thund/run.
type RunDataset struct {
	Name      string `json:"name"`
	Phase     string `json:"phase"`
	Rows      int64  `json:"rows"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Error     string `json:"error,omitempty"`
}

func (s *Server) run(ctx context.Context, params json.RawMessage) (any, error) {
	var p RunParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.URI, nil)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "thund/run: %v", err)
	}
	pl := dp.snap.Pipeline
	g := pl.Graph()
	if _, err := g.TopoOrder(); err != nil {
		return nil, jsonrpc2.Errorf(RequestFailed, "thund/run: %v; fix the cycle first", err)
	}
	var only map[string]bool
	if p.Dataset != "" {
		d := pl.Dataset(p.Dataset)
		if d == nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "thund/run: no dataset %q", p.Dataset)
		}
		// The cone needs its inputs materialised: run what it reads too.
		only = g.Downstream(ir.NameKey(d.Name))
		for k := range only {
			for u := range g.Upstream(k) {
				only[u] = true
			}
		}
	}
	s.mu.Lock()
	st := s.rootState(dp.root)
	s.mu.Unlock()
	st.runMu.Lock()
	defer st.runMu.Unlock()
	sess, err := st.sessionLocked(dp.snap.Project.Config)
	if err != nil {
		return nil, err
	}
	total := len(g.Nodes)
	if only != nil {
		total = len(only)
	}
	done := 0
	progress := func(kind, message string, pct int) {
		if p.WorkDoneToken == nil {
			return
		}
		v := map[string]any{"kind": kind, "message": message}
		if kind == "begin" {
			v["title"] = "Running " + pl.Name
			v["cancellable"] = true
		}
		if kind != "end" {
			v["percentage"] = pct
		}
		s.conn.Notify(context.Background(), "$/progress", map[string]any{"token": p.WorkDoneToken, "value": v})
	}
	progress("begin", fmt.Sprintf("%d datasets", total), 0)
	res, err := sess.Run(ctx, pl, engine.RunOptions{Only: only, Blocked: dp.snap.Broken(), OnEvent: func(e engine.Event) {
		switch e.Phase {
		case engine.Completed, engine.Failed, engine.Skipped:
			done++
			progress("report", fmt.Sprintf("%s %s", e.Dataset, e.Phase), done*100/max(total, 1))
		}
	}})
	if err != nil {
		progress("end", "cancelled", 0)
		if ctx.Err() != nil {
			return nil, jsonrpc2.Errorf(RequestCancelled, "thund/run cancelled")
		}
		return nil, err
	}
	progress("end", fmt.Sprintf("done in %d ms", res.Elapsed.Milliseconds()), 100)
	st.setExtra(expectationDiagnostics(pl, res))
	go s.republish(dp.root)
	out := &RunResult{ElapsedMS: res.Elapsed.Milliseconds(), Failed: res.Failed(), Datasets: []RunDataset{}, Expectations: []Expectation{}}
	for _, k := range res.Order {
		d := res.Datasets[k]
		out.Datasets = append(out.Datasets, RunDataset{Name: d.Name, Phase: string(d.Phase), Rows: d.Rows, ElapsedMS: d.Elapsed.Milliseconds(), Error: d.Error})
	}
	for _, e := range res.SortedExpectations() {
		out.Expectations = append(out.Expectations, expectationOf(e))
		if e.Failed {
			out.Failed = true
		}
	}
	return out, nil
}

// columnsOf returns a dataset's (or source's) columns: from the last
// description of the pipeline, else from the session when it has been run
// there.
func (s *Server) columnsOf(rootPath, dataset string) []preview.Column {
	if cols := s.describedColumns(rootPath, dataset); len(cols) > 0 {
		return cols
	}
	s.mu.Lock()
	st := s.roots[rootPath]
	s.mu.Unlock()
	if st == nil {
		return nil
	}
	// Hover and completion answer in the connection's read loop: they must
	// not wait for engine work (a run, a preview, a description of every
	// dataset) to finish. Busy engine: no columns from the session.
	if !st.runMu.TryLock() {
		return nil
	}
	defer st.runMu.Unlock()
	if st.session == nil {
		return nil
	}
	rows, err := st.session.DB().Query("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position", engineRelation(dataset))
	if err != nil {
		return nil
	}
	defer rows.Close()
	var out []preview.Column
	for rows.Next() {
		var c preview.Column
		if rows.Scan(&c.Name, &c.Type) == nil {
			c.Type = preview.SparkType(c.Type) // Spark's names, as hover and completion show them
			out = append(out, c)
		}
	}
	return out
}

func engineRelation(dataset string) string {
	for i := len(dataset) - 1; i >= 0; i-- {
		if dataset[i] == '.' {
			return dataset[i+1:]
		}
	}
	return dataset
}

func (s *Server) lastPreviewOf(rootPath, key string) *lastPreview {
	s.mu.Lock()
	st := s.roots[rootPath]
	s.mu.Unlock()
	if st == nil {
		return nil
	}
	st.stateMu.Lock()
	defer st.stateMu.Unlock()
	return st.previews[key]
}

// setExtra records the expectation results of the last run or preview.
func (st *root) setExtra(d []ir.Diagnostic) {
	st.stateMu.Lock()
	st.extra = d
	st.stateMu.Unlock()
}
