package capab

import (
	"fmt"
	"slices"
	"strings"

	"github.com/thund-dev/thund/ir"
)

// Streaming checks the streaming rules every backend enforces up front:
// an aggregation in append mode needs a watermark; complete mode needs an
// aggregation; a materialized view may not read a stream; a streaming
// table's flow must read at least one stream; a stream-stream join needs
// watermarks on both sides; streaming settings on a batch flow do nothing.
func Streaming(p *ir.Pipeline) []ir.Diagnostic {
	var out []ir.Diagnostic
	out = append(out, sharedCDCTargets(p)...)
	for _, f := range p.Flows {
		if d := p.Resolve(f.Target); d != nil {
			out = append(out, streamingFlow(p, f, d)...)
		}
	}
	return out
}

// streamingFlow checks flow f, whose target resolves to d, against the
// streaming rules (Streaming's per-flow part).
func streamingFlow(p *ir.Pipeline, f *ir.Flow, d *ir.Dataset) []ir.Diagnostic {
	var out []ir.Diagnostic
	streamRefs := streamReads(f)
	if f.CDC != nil && d.Kind != ir.StreamingTable {
		fix := "add `-- @kind: streaming_table`"
		form := cdcForm(f)
		switch {
		case inPython(f.CDC.Loc.File):
			fix = fmt.Sprintf("create it with dp.create_streaming_table(%q) (dlt.create_streaming_table on Databricks)", d.Name)
		case form != "@cdc":
			fix = "declare it CREATE STREAMING TABLE " + d.Name
		}
		out = append(out, ir.Diagnostic{
			Loc: f.CDC.Loc, Severity: ir.Error, Code: ir.CodeCDCNotStreaming,
			Message: fmt.Sprintf("apply changes (%s) needs a streaming table as its target, and %s is a %s: %s", form, d.Name, kindWord(d.Kind), fix),
			Related: []ir.Related{{Loc: d.KindLoc, Message: d.Name + " is declared a " + kindWord(d.Kind) + " here"}},
		})
		return out
	}
	switch d.Kind {
	case ir.TemporaryView:
		// A temporary view may read a stream: it is then a streaming view,
		// read with STREAM(v) by a streaming table or a flow (Spark 4.1.4's
		// dry run completes such a pipeline; Databricks feeds CDC flows
		// this way).
		out = append(out, batchSettings(f)...)
		return out
	case ir.MaterializedView, ir.Table, ir.View:
		for _, r := range streamRefs {
			if !r.Streaming {
				continue
			}
			fix := fmt.Sprintf("read %s without STREAM(...), or make %s a streaming table (`-- @kind: streaming_table` or CREATE STREAMING TABLE)", r.Name, d.Name)
			if inPython(r.Loc.File) {
				fix = fmt.Sprintf("read %s in full (spark.read.table(%q) or dp.read(%q), not readStream or read_stream), or make %s a streaming table (@dp.table)", r.Name, r.Name, r.Name, d.Name)
			}
			out = append(out, ir.Diagnostic{
				Loc: r.Loc, Severity: ir.Error, Code: ir.CodeStreamInMV,
				Message: fmt.Sprintf("%s %s reads the stream %s; a %s reads its inputs in full: %s",
					kindWord(d.Kind), d.Name, r.Name, kindWord(d.Kind), fix),
			})
		}
		out = append(out, batchSettings(f)...)
		return out
	}
	if d.Kind != ir.StreamingTable && d.Kind != ir.Sink {
		return out
	}
	// A query with a syntax error has no known reads: its syntax error is
	// the finding, not a stream it may well read past the error.
	unparsed := f.SQL != "" && f.Dialect == ""
	if len(streamRefs) == 0 && f.CDC == nil && !f.Once && !snapshotCDC(f) && !unparsed {
		msg := noStreamMessage(f, d)
		out = append(out, ir.Diagnostic{
			Loc: flowAnchor(f, d), Severity: ir.Error, Code: ir.CodeStreamNoStream,
			Message: msg,
		})
	}
	if f.CDC != nil && len(streamRefs) == 0 && !unparsed {
		out = append(out, ir.Diagnostic{
			Loc: f.CDC.Loc, Severity: ir.Error, Code: ir.CodeStreamNoStream,
			Message: fmt.Sprintf("the apply-changes flow into %s must read its changelog as a stream: write FROM STREAM(changelog)", d.Name),
		})
	}
	mode := f.OutputMode
	if mode == "" {
		mode = ir.Append
	}
	// An aggregation over no stream is a batch aggregation: the flow is
	// already reported above as reading no stream, and a watermark would
	// not help it.
	if f.Aggregates && len(streamRefs) > 0 && mode == ir.Append && f.Watermark == nil && f.CDC == nil {
		fix := "add the query's WATERMARK col DELAY OF INTERVAL 10 MINUTES clause (or `-- @watermark: EVENT_TIME_COLUMN, 10 minutes`), or use `-- @output_mode: update` or complete"
		switch {
		case strings.HasSuffix(f.QueryLoc.File, ".py"):
			fix = "call .withWatermark(\"event_time_column\", \"10 minutes\") on the stream before the aggregation"
		case slices.Contains(p.Backends, ir.Databricks):
			// Databricks reads a pragma as a comment.
			fix = "add the query's WATERMARK col DELAY OF INTERVAL 10 MINUTES clause, or make " + d.Name + " a materialized view, which aggregates all its input on each update"
		}
		out = append(out, ir.Diagnostic{
			Loc: aggAnchor(f), Severity: ir.Error, Code: ir.CodeStreamAggNoWatermark,
			Message: fmt.Sprintf("%s aggregates a stream in append mode without a watermark, so no group could ever be emitted; %s", d.Name, fix),
		})
	}
	if mode == ir.Complete && !f.Aggregates {
		out = append(out, ir.Diagnostic{
			Loc: f.OutputLoc, Severity: ir.Error, Code: ir.CodeStreamCompleteNoAgg,
			Message: fmt.Sprintf("output_mode complete rewrites the whole result each trigger and needs an aggregation; %s has none: use append, or aggregate", d.Name),
		})
	}
	if sh := f.Shape; sh != nil && len(streamRefs) > 0 && !f.Once {
		out = append(out, unsupportedOnStream(f, d, sh, mode, streamRefs[0].Name)...)
	}
	if len(streamRefs) >= 2 && (f.Shape == nil || f.Shape.Joins) {
		// A union of streams keeps no state; a join does (a query whose
		// shape is unknown may join).
		if f.Watermark == nil || !upstreamWatermarked(p, streamRefs) {
			// Spark runs an inner join (or a union) of streams without
			// watermarks, keeping every row in state; only an outer join
			// needs them, which the native engine refuses when it runs.
			how := "add `-- @watermark: COLUMN, INTERVAL` (or the query's WATERMARK col DELAY OF INTERVAL ... clause) to this flow and to the streaming tables it reads"
			if strings.HasSuffix(f.QueryLoc.File, ".py") {
				how = "call .withWatermark(\"column\", \"10 minutes\") on each stream before the join"
			}
			out = append(out, ir.Diagnostic{
				Loc: streamRefs[1].Loc, Severity: ir.Warning, Code: ir.CodeStreamJoinWatermark,
				Message: fmt.Sprintf("%s reads the streams %s without watermarks on both, so a join of them keeps every row of each in state for ever (Spark runs an inner join so, and refuses an outer one): to bound the state, %s", d.Name, refNames(streamRefs), how),
				Related: []ir.Related{{Loc: streamRefs[0].Loc, Message: "first stream"}},
			})
		}
	}
	return out
}

// unsupportedOnStream refuses what Spark's UnsupportedOperationChecker
// refuses in a streaming query, on every backend (the native engine would
// compute it per micro-batch, which is no result Spark gives): a window
// function over a stream (NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING), and
// sorting, but for an aggregation in complete mode.
func unsupportedOnStream(f *ir.Flow, d *ir.Dataset, sh *ir.QueryShape, mode ir.OutputMode, input string) []ir.Diagnostic {
	var out []ir.Diagnostic
	for _, w := range sh.StreamWindows {
		out = append(out, ir.Diagnostic{
			Loc: w, Severity: ir.Error, Code: ir.CodeStreamUnsupportedOp,
			Message: fmt.Sprintf("[NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING] a window function is not supported on streaming DataFrames/Datasets, and %s's flow reads a stream: Structured Streaming only supports time-window aggregation (GROUP BY window(ts, '10 minutes')); or compute it in a materialized view that reads %s in full (without STREAM)", d.Name, input),
		})
	}
	if sh.StreamOrderBy != (ir.Loc{}) && !(f.Aggregates && mode == ir.Complete) {
		out = append(out, ir.Diagnostic{
			Loc: sh.StreamOrderBy, Severity: ir.Error, Code: ir.CodeStreamUnsupportedOp,
			Message: fmt.Sprintf("sorting is not supported on streaming DataFrames/Datasets, unless it is on an aggregated DataFrame/Dataset in complete output mode, and %s's flow reads a stream: remove the ORDER BY (a table has no order), or sort in a materialized view that reads %s in full (without STREAM)", d.Name, input),
		})
	}
	return out
}

// noStreamMessage says that flow f into the streaming table d reads no
// stream, with the fix in the language of f's file.
func noStreamMessage(f *ir.Flow, d *ir.Dataset) string {
	read, flowRead := "read a source incrementally with STREAM(source)", "read its source with STREAM(source)"
	batch := "make " + d.Name + " a materialized view"
	if inPython(f.QueryLoc.File) {
		const stream = `spark.readStream.table("source") or dp.read_stream("source") (dlt.read_stream on Databricks)`
		read, flowRead = "read a source incrementally, "+stream, "read its source with "+stream
		batch = "define " + d.Name + " with @dp.materialized_view"
	}
	if f.Append || ir.NameKey(f.Name) != ir.NameKey(d.Name) {
		// One of several flows into the table: name the flow.
		return fmt.Sprintf("flow %s into streaming table %s reads no stream; every flow into a streaming table reads incrementally: %s", f.Name, d.Name, flowRead)
	}
	return fmt.Sprintf("streaming table %s reads no stream; %s, or %s", d.Name, read, batch)
}

// streamReads returns the reads of f that are streams: STREAM(...) reads
// and reads of the table an `@source` declares.
func streamReads(f *ir.Flow) []ir.Ref {
	var out []ir.Ref
	for _, r := range f.Reads {
		if r.Streaming || (f.Source != nil && ir.NameKey(r.Name) == ir.NameKey(f.Source.Table)) {
			out = append(out, r)
		}
	}
	return out
}

// upstreamWatermarked reports whether every streamed dataset (as opposed to
// a raw source, which the flow's own watermark covers) declares a watermark.
func upstreamWatermarked(p *ir.Pipeline, refs []ir.Ref) bool {
	for _, r := range refs {
		d := p.Resolve(r.Name)
		if d == nil {
			continue
		}
		ok := false
		for _, f := range p.FlowsInto(d.Name) {
			if f.Watermark != nil {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// batchSettings warns about streaming settings on a flow that is not
// streaming: they have no effect.
func batchSettings(f *ir.Flow) []ir.Diagnostic {
	var out []ir.Diagnostic
	warn := func(loc ir.Loc, what string) {
		out = append(out, ir.Diagnostic{
			Loc: loc, Severity: ir.Warning, Code: ir.CodeStreamSettingBatch,
			Message: fmt.Sprintf("%s has no effect: %s is a batch dataset; remove it, or make the dataset a streaming table", what, f.Target),
		})
	}
	if !f.Trigger.Loc.IsZero() {
		warn(f.Trigger.Loc, "@trigger")
	}
	if !f.OutputLoc.IsZero() {
		warn(f.OutputLoc, "@output_mode")
	}
	if f.Watermark != nil {
		warn(f.Watermark.Loc, "@watermark")
	}
	return out
}

func aggAnchor(f *ir.Flow) ir.Loc {
	if !f.AggLoc.IsZero() {
		return f.AggLoc
	}
	return f.QueryLoc
}

// flowAnchor is where a finding about a dataset's flow goes: an append
// flow's name; a CREATE statement's dataset name; for a pragma-form file
// named after its stem, the @kind value (or the query's first line).
func flowAnchor(f *ir.Flow, d *ir.Dataset) ir.Loc {
	if f.Append {
		return f.Loc
	}
	if d.FromStem && !d.KindLoc.IsZero() {
		return d.KindLoc
	}
	return d.NameLoc
}

func kindWord(k ir.Kind) string { return strings.ReplaceAll(string(k), "_", " ") }

func refNames(refs []ir.Ref) string {
	names := make([]string, len(refs))
	for i, r := range refs {
		names[i] = r.Name
	}
	return strings.Join(names, " and ")
}

// sharedCDCTargets reports flows that write a table an apply-changes flow
// writes, without being apply-changes flows themselves.
func sharedCDCTargets(p *ir.Pipeline) []ir.Diagnostic {
	var out []ir.Diagnostic
	for _, d := range p.Datasets {
		out = append(out, sharedCDCTarget(d, p.FlowsInto(d.Name))...)
	}
	return out
}

// sharedCDCTarget is sharedCDCTargets for one dataset d and the flows
// into it.
func sharedCDCTarget(d *ir.Dataset, flows []*ir.Flow) []ir.Diagnostic {
	if d.Kind != ir.StreamingTable || len(flows) < 2 {
		return nil
	}
	var cdc *ir.Flow
	for _, f := range flows {
		if f.CDC != nil {
			cdc = f
			break
		}
	}
	if cdc == nil {
		return nil
	}
	var out []ir.Diagnostic
	for _, f := range flows {
		if f.CDC != nil {
			continue
		}
		out = append(out, ir.Diagnostic{
			Loc: flowAnchor(f, d), Severity: ir.Error, Code: ir.CodeCDCSharedTarget,
			Message: fmt.Sprintf("flow %s writes into %s, which the apply-changes flow %s owns (it updates and deletes rows by key); write these rows into its changelog instead, or into a table of their own", f.Name, d.Name, cdc.Name),
			Related: []ir.Related{{Loc: cdc.CDC.Loc, Message: "the apply-changes flow"}},
		})
	}
	return out
}
