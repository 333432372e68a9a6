package sdplower

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sparkconnect"
	"github.com/thund-dev/thund/sparkconnect/pb"
)

// Run says how to run a pushed graph.
type Run struct {
	// Storage is the absolute storage URI; the graph's (from the spec)
	// when empty. Spark 4.1 requires one, even for a dry run.
	Storage string
	// Dry only analyses the graph.
	Dry bool
	// Refresh and FullRefresh select datasets to refresh (all when both
	// are empty); FullRefreshAll fully refreshes everything.
	Refresh        []string
	FullRefresh    []string
	FullRefreshAll bool
	// Sequential sends every define call one after the other; by default
	// outputs and flows are defined on two lanes at once (see define).
	Sequential bool
	// Timeout bounds the whole push (defines and run); default 30 min for
	// a run, 5 min for a dry run.
	Timeout time.Duration
}

// Result is the outcome of a push.
type Result struct {
	GraphID string
	Events  []Event
	// Failures are the flows Spark reported failing, with their errors
	// mapped back to the files. Recovered are failures of flows that a
	// retry later completed (Spark retries a failed flow).
	Failures  []Failure
	Recovered []Failure
	// Define is how long the defines took, RunTime the (dry) run.
	Define  time.Duration
	RunTime time.Duration
}

// Failure is one flow's failure, mapped to its dataset and file.
type Failure struct {
	Dataset string
	Flow    string
	// Resolution is true when Spark could not analyse the flow (an
	// unknown column or table, a type error), as opposed to a runtime
	// failure.
	Resolution bool
	// Message is Spark's error text, without its plan dump; Class its
	// error class.
	Message string
	Class   string
	// Loc is where in the file Spark points (the flow's query, or the
	// exact position when Spark gives one).
	Loc ir.Loc
}

// Diagnostics turns the failures into diagnostics for the target backend.
func (r *Result) Diagnostics(backend ir.Backend) []ir.Diagnostic {
	var out []ir.Diagnostic
	for _, f := range r.Failures {
		what := "fails on Spark"
		if f.Resolution {
			what = "does not resolve on Spark"
		}
		out = append(out, ir.Diagnostic{
			Loc: f.Loc, Severity: ir.Error, Code: ir.CodeBinder, Backend: backend,
			Message: fmt.Sprintf("%s %s: %s", f.Dataset, what, f.Message),
		})
	}
	return out
}

// PushError is a push that failed; Result holds what happened before.
type PushError struct {
	// Step is the call that failed (CreateDataflowGraph, DefineFlow x...).
	Step     string
	Failures []Failure
	Err      error
}

func (e *PushError) Error() string {
	if len(e.Failures) == 0 {
		return e.Err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d flow(s) failed on Spark:", len(e.Failures))
	for _, f := range e.Failures {
		fmt.Fprintf(&b, "\n  %s: %s: %s", locString(f.Loc), f.Dataset, f.Message)
	}
	return b.String()
}

func (e *PushError) Unwrap() error { return e.Err }

func locString(l ir.Loc) string {
	if l.IsZero() {
		return "?"
	}
	return fmt.Sprintf("%s@%d", l.File, l.Start)
}

// Push defines g on the server (a new dataflow graph in c's session), runs
// or dry-runs it, and streams the run's events to onEvent (may be nil). It
// drops the graph afterwards. The error is a *PushError when Spark
// reported failures, or a *sparkconnect.Error when a call failed.
func Push(ctx context.Context, c *sparkconnect.Client, g *Graph, run Run, onEvent func(Event)) (*Result, error) {
	timeout := run.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Minute
		if run.Dry {
			timeout = 5 * time.Minute
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	storage := run.Storage
	if storage == "" {
		storage = g.Storage
	}
	if storage == "" {
		return nil, &PushError{Step: "StartRun", Err: errors.New("no storage for the run: Spark 4.1 needs one even for a dry run; set `storage:` in spark-pipeline.yml")}
	}
	res := &Result{}
	start := time.Now()
	// spark-pipelines sets the spec's configuration on the session before
	// it registers anything: the SQL files' ${key} references are
	// substituted from the session's settings, not from the graph's.
	for _, k := range sortedKeys(g.Conf) {
		if err := c.SQL(ctx, "SET "+backquote(k)+" = "+backquote(g.Conf[k])); err != nil {
			return res, &PushError{Step: "SET " + k, Err: err}
		}
	}
	id, err := c.CreateDataflowGraph(ctx, g.Catalog, g.Database, g.Conf)
	if err != nil {
		return res, &PushError{Step: "CreateDataflowGraph", Err: err}
	}
	res.GraphID = id
	defer func() {
		// Best effort, bounded: a graph left behind is freed with the session.
		dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer dcancel()
		_ = c.DropDataflowGraph(dctx, id)
	}()
	m := newMapper(g)
	if err := define(ctx, c, g, id, m, run.Sequential); err != nil {
		return res, err
	}
	res.Define = time.Since(start)

	start = time.Now()
	sr := &pb.PipelineCommand_StartRun{
		DataflowGraphId:      &id,
		Dry:                  &run.Dry,
		Storage:              &storage,
		RefreshSelection:     run.Refresh,
		FullRefreshSelection: run.FullRefresh,
	}
	if run.FullRefreshAll {
		sr.FullRefreshAll = &run.FullRefreshAll
	}
	runErr := c.StartRun(ctx, sr, func(e sparkconnect.Event) {
		ev := m.parse(e)
		res.Events = append(res.Events, ev)
		switch {
		case ev.Phase == Failed && ev.Flow != "":
			res.addFailure(m.failure(ev))
		case ev.Phase == Completed && ev.Flow != "":
			res.recover(ev.Flow)
		}
		if onEvent != nil {
			onEvent(ev)
		}
	})
	res.RunTime = time.Since(start)
	if runErr != nil || len(res.Failures) > 0 {
		return res, &PushError{Step: "StartRun", Failures: res.Failures, Err: runErr}
	}
	return res, nil
}

// addFailure keeps one failure per flow (Spark retries failed flows and
// reports each attempt).
func (r *Result) addFailure(f Failure) {
	for _, x := range r.Failures {
		if x.Flow == f.Flow && x.Message == f.Message {
			return
		}
	}
	r.Failures = append(r.Failures, f)
}

// recover moves the failures of a flow that then completed to Recovered.
func (r *Result) recover(flow string) {
	kept := r.Failures[:0]
	for _, f := range r.Failures {
		if f.Flow == flow {
			r.Recovered = append(r.Recovered, f)
			continue
		}
		kept = append(kept, f)
	}
	r.Failures = kept
}

// define sends every output, every flow and every SQL file of g.
//
// What may overlap is set by the server, not the protocol: Spark 4.1.4
// appends each definition to an unsynchronised list of its graph (one
// list for tables, one for views, one for flows), so two concurrent
// DefineOutput calls, or two DefineFlow calls, into one graph can lose a
// definition (seen on the real server: 300 datasets defined 16 at a time
// lost one in 4 rounds out of 6, and the run then failed to resolve it).
// Tables and flows go to different lists, so define sends tables one by
// one on one lane and flows one by one on another, both at once (unless
// sequential is set). Views are defined first, alone: DefineFlow reads
// the view list to qualify its target (a flow into a temporary view
// defined later fails at the run with "Unsupported destination"), while
// a table target is only resolved at the run, so a flow may arrive
// before its table. SQL files, which register all kinds, follow alone.
// The error is that of the table lane when both fail (outputs come
// first in graph order).
func define(ctx context.Context, c *sparkconnect.Client, g *Graph, id string, m *mapper, sequential bool) error {
	// The mapper is not safe for concurrent use: every call on it holds mu.
	var mu sync.Mutex
	locked := func(fn func()) {
		mu.Lock()
		defer mu.Unlock()
		fn()
	}
	// DefineFlow looks the target up among the graph's views (a view's
	// name is not qualified like a table's), so views go first, alone.
	var views, tables []*Output
	for _, o := range g.Outputs {
		if o.Type == MaterializedView || o.Type == Table {
			tables = append(tables, o)
		} else {
			views = append(views, o)
		}
	}
	defineOutputs := func(ctx context.Context, outs []*Output) error {
		return inOrder(ctx, len(outs), func(ctx context.Context, i int) error {
			o := outs[i]
			req := &pb.PipelineCommand_DefineOutput{
				DataflowGraphId: &id,
				OutputName:      ptr(o.Name),
				OutputType:      o.Type.proto().Enum(),
			}
			if o.Comment != "" {
				req.Comment = ptr(o.Comment)
			}
			if o.Type != TemporaryView {
				td := &pb.PipelineCommand_DefineOutput_TableDetails{
					TableProperties:   o.Properties,
					PartitionCols:     o.PartitionBy,
					ClusteringColumns: o.ClusterBy,
				}
				if o.Format != "" {
					td.Format = ptr(o.Format)
				}
				if o.Schema != "" {
					td.Schema = &pb.PipelineCommand_DefineOutput_TableDetails_SchemaString{SchemaString: o.Schema}
				}
				req.Details = &pb.PipelineCommand_DefineOutput_TableDetails_{TableDetails: td}
			}
			if o.Loc.File != "" {
				req.SourceCodeLocation = &pb.SourceCodeLocation{FileName: ptr(o.Loc.File)}
			}
			ident, err := c.DefineOutput(ctx, req)
			if err != nil {
				var fs []Failure
				locked(func() { fs = m.defineFailure(o.Name, "", err) })
				return &PushError{Step: "DefineOutput " + o.Name, Failures: fs, Err: err}
			}
			locked(func() { m.noteOutput(o.Name, ident) })
			return nil
		})
	}
	flows := func(ctx context.Context) error {
		return inOrder(ctx, len(g.Flows), func(ctx context.Context, i int) error {
			f := g.Flows[i]
			req := &pb.PipelineCommand_DefineFlow{
				DataflowGraphId:   &id,
				FlowName:          ptr(f.Name),
				TargetDatasetName: ptr(f.Target),
				SqlConf:           f.Conf,
			}
			if f.CDC != nil {
				req.Details = &pb.PipelineCommand_DefineFlow_AutoCdcFlowDetails_{AutoCdcFlowDetails: autoCDC(f.CDC)}
			} else {
				rel := f.Relation
				if rel == nil {
					rel = &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: f.SQL}}}
				}
				req.Details = &pb.PipelineCommand_DefineFlow_RelationFlowDetails{
					RelationFlowDetails: &pb.PipelineCommand_DefineFlow_WriteRelationFlowDetails{Relation: rel},
				}
			}
			if f.Once {
				req.Once = ptr(true)
			}
			if f.QueryLoc.File != "" {
				req.SourceCodeLocation = &pb.SourceCodeLocation{FileName: ptr(f.QueryLoc.File)}
			}
			ident, err := c.DefineFlow(ctx, req)
			if err != nil {
				var fs []Failure
				locked(func() { fs = m.defineFailure(f.reported(), f.Name, err) })
				return &PushError{Step: "DefineFlow " + f.Name, Failures: fs, Err: err}
			}
			locked(func() { m.noteFlow(f, ident) })
			return nil
		})
	}
	if err := defineOutputs(ctx, views); err != nil {
		return err
	}
	outputs := func(ctx context.Context) error { return defineOutputs(ctx, tables) }
	if sequential {
		if err := outputs(ctx); err != nil {
			return err
		}
		if err := flows(ctx); err != nil {
			return err
		}
	} else if err := both(ctx, outputs, flows); err != nil {
		return err
	}
	return inOrder(ctx, len(g.Files), func(ctx context.Context, i int) error {
		f := g.Files[i]
		if err := c.DefineSQLGraphElements(ctx, id, f.Path, f.Text); err != nil {
			var fs []Failure
			locked(func() { fs = m.fileFailure(f, err) })
			return &PushError{Step: "DefineSqlGraphElements " + f.Path, Failures: fs, Err: err}
		}
		return nil
	})
}

// inOrder calls fn for 0..n-1, one after the other, until one fails.
func inOrder(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	for i := 0; i < n; i++ {
		if err := fn(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

// both runs a and b at once. The first failure cancels the other; the
// error is a's unless a failed only because b's failure canceled it.
func both(ctx context.Context, a, b func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var errB error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if errB = b(ctx); errB != nil {
			cancel()
		}
	}()
	errA := a(ctx)
	if errA != nil {
		cancel()
	}
	<-done
	switch {
	case errA != nil && (errB == nil || !isCanceled(errA)):
		return errA
	case errB != nil:
		return errB
	}
	return nil
}

func isCanceled(err error) bool {
	var e *sparkconnect.Error
	return errors.Is(err, context.Canceled) || (errors.As(err, &e) && e.Kind == sparkconnect.Canceled)
}

func ptr[T any](v T) *T { return &v }

// autoCDC is the AutoCdcFlowDetails of an apply-changes flow: columns by
// name, the sequence as a column when it is one name and as SQL text
// otherwise, the deletes condition as SQL text.
func autoCDC(c *CDCDetails) *pb.PipelineCommand_DefineFlow_AutoCdcFlowDetails {
	d := &pb.PipelineCommand_DefineFlow_AutoCdcFlowDetails{
		Source:          ptr(c.Source),
		StoredAsScdType: pb.PipelineCommand_DefineFlow_SCD_TYPE_1,
	}
	if c.SCD == 2 {
		d.StoredAsScdType = pb.PipelineCommand_DefineFlow_SCD_TYPE_2
	}
	for _, k := range c.Keys {
		d.Keys = append(d.Keys, column(k))
	}
	if plainIdent.MatchString(c.SequenceBy) {
		d.SequenceBy = column(c.SequenceBy)
	} else {
		d.SequenceBy = exprText(c.SequenceBy)
	}
	if c.Deletes != "" {
		d.ApplyAsDeletes = exprText(c.Deletes)
	}
	for _, e := range c.Except {
		d.ExceptColumnList = append(d.ExceptColumnList, column(e))
	}
	return d
}

// column is a column by name (quoted when it is not a plain identifier).
func column(name string) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_UnresolvedAttribute_{
		UnresolvedAttribute: &pb.Expression_UnresolvedAttribute{UnparsedIdentifier: quoteIdent(name)}}}
}

// exprText is a SQL expression the server parses.
func exprText(sql string) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_ExpressionString_{
		ExpressionString: &pb.Expression_ExpressionString{Expression: sql}}}
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// backquote quotes s as a Spark SQL back-quoted identifier (` doubled), the
// form SET takes for a key or a value of any characters.
func backquote(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}
