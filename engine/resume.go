package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/thund-dev/thund/ir"
)

// Resuming a streaming table across restarts (--state).
//
// A streaming table resumes, rather than replaying its streams from the
// start, when every flow into it is a streaming or CDC flow whose streams
// are micro-batch folders (also seen through views) or streaming tables
// that streaming flows wrote in the same run, or that the run does not
// write at all (watch mode re-running what a change reaches: the stream
// of an unchanged streaming table is its committed rows as one unit,
// which a reader that consumed them before skips, so a stream-static join
// whose static side changed emits nothing new, as on Spark; a reader that
// consumed only some of their files replays). That covers every output
// mode (append, update, complete), aggregates with or without watermarks
// and windows, drop expectations, and CDC apply changes (SCD 1 and 2).
//
// What a run keeps between triggers is committed with the dataset's rows
// at the end of the run, in the same manifest commit (state.go), as
// stream state tables (Parquet state files), under logical names:
//
//	FLOW/seen:STREAM  every row the flow accepted from STREAM (the name key
//	                  of its dataset or source; before qualified names,
//	                  of the last part, still read) so far (the
//	                  stateful strategies: aggregates, complete mode,
//	                  stream-stream joins), from which the aggregates are
//	                  recomputed
//	FLOW/wm           the event-time maxima behind the watermark
//	FLOW/prev         the previous result (update mode, joins), so the
//	                  next trigger emits only the changed rows
//	FLOW/done         the groups already emitted (append mode windows)
//	cdc               the CDC state: per key the latest applied sequence
//	                  and whether it was a delete (tombstone) for SCD 1;
//	                  every applied change for SCD 2
//
// with the micro-batch files consumed and a definition hash: the dataset's
// kind and, per flow, its name, normalised query, output mode, watermark,
// CDC spec, source, expectations and what it appends into. The trigger is
// not part of it (a trigger change keeps the state). On the next run,
// after Restore rebuilt the table from its parts, resumable loads the
// state tables and the flows continue from them: the consumed files are
// not read again (the folder's rows are read from the new files only), the
// watermark, the emitted windows, the previous result and the CDC keys
// carry over, so the outputs are those of one run whose triggers were the
// earlier run's followed by this run's. (With available_now, one run over
// every file is a single trigger; a restart adds a trigger boundary, and
// late rows are judged against the watermark the earlier run reached, as
// in Spark.)
//
// A dataset replays from the start instead, with an event saying why, when
// its definition changed since the state was written, the state is
// missing or unreadable, a stream is not resumable (a plain file or a
// batch dataset read as a stream is one whole unit with no file to skip),
// or an upstream streaming table hands it a commit it consumed only in
// part (a crash between the two datasets' commits). A resumed upstream
// hands its downstream streams the rows committed before as one first
// commit (so a downstream replaying from the start sees them); an upstream
// that replays hands its commits again, and a downstream that resumes
// skips those it consumed, as a Spark checkpoint would: a definition
// change upstream does not recompute what the downstream already took.
//
// Known limits: the kept rows (seen) grow with the stream, since the engine
// re-aggregates rather than keeping aggregate buffers; late-row counts are
// per trigger and not carried over; a commit happens once per dataset per
// run, so a crash mid-run loses that run's work (never a committed one).

// resumeInfo is what a resumed dataset carries over from its manifest.
type resumeInfo struct {
	// done holds the consumed micro-batch files, root-relative.
	done map[string]bool
	// consumed is the same list, sorted.
	consumed []string
	// tables maps a state table's logical name to the temporary table it
	// was loaded into.
	tables map[string]string
}

// resumable reports whether d can resume from its committed outputs and
// stream state, loading the state tables when it can. When d had a state
// but cannot resume, it emits an event saying why.
//
// A replay rebuilds the table from the micro-batch files there are now: when
// some it consumed before are gone (archived, deleted), their committed rows
// would be lost, so it does not replay and returns an error saying so.
func (st *runState) resumable(ctx context.Context, d *ir.Dataset) (*resumeInfo, bool, error) {
	if st.s.opts.StateDir == "" || d.Kind != ir.StreamingTable {
		return nil, false, nil
	}
	m, err := st.s.OutputManifest(d.Name)
	if err != nil || m == nil || len(m.Consumed) == 0 {
		return nil, false, nil
	}
	replay := func(why string) (*resumeInfo, bool, error) {
		var gone []string
		for _, files := range m.Consumed {
			for _, f := range files {
				if _, err := os.Stat(filepath.Join(st.s.Root, filepath.FromSlash(f))); errors.Is(err, fs.ErrNotExist) {
					gone = append(gone, f)
				}
			}
		}
		if len(gone) > 0 {
			sort.Strings(gone)
			dir, _ := st.s.outputDir(d.Name)
			return nil, false, fmt.Errorf("%s: its stream state cannot be used (%s), and replaying the streams would lose the rows of %d consumed micro-batch file(s) that are gone (%s); put them back, or delete %s to rebuild the table from the files left",
				d.Name, why, len(gone), strings.Join(gone[:min(3, len(gone))], ", "), dir)
		}
		flow := ""
		if flows := st.p.FlowsInto(d.Name); len(flows) > 0 {
			flow = flows[0].Name
		}
		st.emit(Event{Dataset: d.Name, Flow: flow, Phase: Planning, Message: "stream state discarded: " + why + "; replaying the streams from the start"})
		return nil, false, nil
	}
	def, why := st.streamDefinition(d)
	if def == "" {
		return replay(why)
	}
	if m.Definition != def {
		if m.Definition == "" {
			return replay("the committed outputs carry no stream state")
		}
		return replay("the definition changed since the state was written (query, pragmas, output mode or keys)")
	}
	if _, err := st.count(ctx, d); err != nil {
		return replay("its committed rows were not restored")
	}
	info := &resumeInfo{done: map[string]bool{}, tables: map[string]string{}}
	for _, files := range m.Consumed {
		for _, f := range files {
			if !info.done[f] {
				info.done[f] = true
				info.consumed = append(info.consumed, f)
			}
		}
	}
	sort.Strings(info.consumed)
	if why := st.loggedOverlap(d, info.done); why != "" {
		return replay(why)
	}
	dir, err := st.s.outputDir(d.Name)
	if err != nil {
		return replay(err.Error())
	}
	sr := st.streams()
	for _, t := range m.StateTables {
		table := quoteIdent(fmt.Sprintf("__thund_rs%d_%d", len(sr.temps), len(info.tables)))
		sr.temps = append(sr.temps, table)
		if err := loadStateTable(ctx, st.conn, dir, t, table); err != nil {
			return replay("stream state unreadable: " + firstLine(err.Error()))
		}
		info.tables[t.Name] = table
	}
	return info, true, nil
}

// streamDefinition returns the hash of d's streaming definition, or "" and
// why when d's streams cannot resume.
func (st *runState) streamDefinition(d *ir.Dataset) (string, string) {
	flows := st.p.FlowsInto(d.Name)
	if len(flows) == 0 {
		return "", "no flow writes into it"
	}
	type expectation struct {
		Name, SQL string
		Action    ir.Action
	}
	type flowDef struct {
		Name, Target, Query string
		Streaming, Append   bool
		Aggregates          bool
		OutputMode          ir.OutputMode
		Watermark           []string
		CDC                 []string
		Source              []string
		Expectations        []expectation
	}
	def := struct {
		Version string
		Kind    ir.Kind
		Flows   []flowDef
	}{Version: "thund-stream-state-1", Kind: d.Kind}
	for _, f := range flows {
		f = withTargetExpectations(d, f) // the target's CONSTRAINT ... EXPECT are part of each flow's definition (cdc.go)
		if !f.Streaming && f.CDC == nil {
			return "", "flow " + f.Name + " is a batch flow"
		}
		if why := st.unresumableStream(f, map[string]bool{}, false); why != "" {
			return "", "flow " + f.Name + ": " + why
		}
		// Comments and whitespace do not change a definition: a reworded
		// comment must not discard the state.
		fd := flowDef{Name: f.Name, Target: ir.NameKey(f.Target), Query: ir.NormalizeSQL(f.Normalized), Streaming: f.Streaming,
			Append: f.Append, Aggregates: f.Aggregates, OutputMode: f.OutputMode}
		if fd.OutputMode == "" {
			fd.OutputMode = ir.Append
		}
		if w := f.Watermark; w != nil {
			fd.Watermark = []string{w.Column, w.Delay}
		}
		if c := f.CDC; c != nil {
			fd.CDC = append([]string{c.SequenceBy, fmt.Sprint(c.SCD), ir.NormalizeSQL(c.Deletes)}, c.Keys...)
			if len(c.Columns) > 0 || len(c.TrackHistory) > 0 || c.IgnoreNullUpdates || c.StartAt != "" {
				// the SQL forms' clauses (APPLY CHANGES, AUTO CDC)
				fd.CDC = append(fd.CDC, fmt.Sprint(c.ColumnsExcept, c.Columns, c.TrackHistoryExcept, c.TrackHistory, c.IgnoreNullUpdates, c.StartAt, c.EndAt))
			}
		}
		if s := f.Source; s != nil {
			fd.Source = []string{string(s.Kind), s.Table}
			keys := make([]string, 0, len(s.Options))
			for k := range s.Options {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fd.Source = append(fd.Source, k+"="+s.Options[k])
			}
		}
		for _, e := range f.Expectations {
			fd.Expectations = append(fd.Expectations, expectation{e.Name, ir.NormalizeSQL(e.SQL), e.Action})
		}
		def.Flows = append(def.Flows, fd)
	}
	b, err := json.Marshal(def)
	if err != nil {
		return "", err.Error()
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), ""
}

// unresumableStream says why one of flow f's streams has no micro-batches
// to skip ("" when every stream has): each must be a folder sample, a
// streaming table this run's streaming flows wrote, or a view over such.
// Through a view (viaView), reads that cannot stream are static and fine.
func (st *runState) unresumableStream(f *ir.Flow, visiting map[string]bool, viaView bool) string {
	streams := 0
	for _, r := range f.Reads {
		streamed := r.Streaming || (f.Source != nil && ir.NameKey(r.Name) == ir.NameKey(f.Source.Table))
		if !streamed && !viaView {
			continue
		}
		if d := st.p.Resolve(r.Name); d != nil {
			key := ir.NameKey(d.Name)
			switch {
			case d.Kind == ir.View || d.Kind == ir.TemporaryView:
				if visiting[key] {
					return "view " + d.Name + " reads itself"
				}
				visiting[key] = true
				for _, vf := range st.p.FlowsInto(d.Name) {
					if why := st.unresumableStream(vf, visiting, true); why != "" {
						return why
					}
				}
				delete(visiting, key)
				streams++
			case st.stream != nil && st.stream.logs[key] != nil:
				streams++
			case d.Kind == ir.StreamingTable:
				if _, why := st.committedStream(d); why == "" {
					streams++
				} else if !viaView {
					return why
				}
			case !viaView:
				return d.Name + " is a " + kindWords(d.Kind) + " read as a stream: its rows are recomputed as one batch, with no micro-batch the stream could skip"
			}
			continue
		}
		if _, folder := st.streamFolder(r.Name); folder {
			streams++
		} else if !viaView {
			return r.Name + " is read as a stream but is not a micro-batch folder"
		}
	}
	if streams == 0 && !viaView {
		return "it reads no stream"
	}
	return ""
}

// loggedOverlap checks the streaming tables d's flows read as streams:
// each of their commits in this run, and the committed rows of those this
// run does not write, must have been consumed by d either wholly or not at
// all; otherwise it says why d must replay.
func (st *runState) loggedOverlap(d *ir.Dataset, done map[string]bool) string {
	for _, up := range st.p.Datasets {
		key := ir.NameKey(up.Name)
		if up.Kind != ir.StreamingTable || (st.stream != nil && st.stream.logs[key] != nil) || !st.readsStream(d, key) {
			continue
		}
		files, why := st.committedStream(up)
		if why != "" {
			continue
		}
		in := 0
		for _, f := range files {
			if done[f] {
				in++
			}
		}
		if in > 0 && in < len(files) {
			return fmt.Sprintf("the committed rows of %s were consumed only in part (%d of their %d micro-batch files)", up.Name, in, len(files))
		}
	}
	if st.stream == nil {
		return ""
	}
	for key, lg := range st.stream.logs {
		if !st.readsStream(d, key) {
			continue
		}
		for i, files := range lg.files {
			in := 0
			for _, f := range files {
				if done[f] {
					in++
				}
			}
			if in > 0 && in < len(files) {
				return fmt.Sprintf("commit %d of %s was consumed only in part (%d of %d files)", i+1, key, in, len(files))
			}
		}
	}
	return ""
}

// readsStream reports whether a flow into d reads dataset key as a
// stream, directly or through views.
func (st *runState) readsStream(d *ir.Dataset, key string) bool {
	var walk func(f *ir.Flow, viaView bool, visiting map[string]bool) bool
	walk = func(f *ir.Flow, viaView bool, visiting map[string]bool) bool {
		for _, r := range f.Reads {
			if !r.Streaming && !viaView && (f.Source == nil || ir.NameKey(r.Name) != ir.NameKey(f.Source.Table)) {
				continue
			}
			rd := st.p.Resolve(r.Name)
			if rd == nil {
				continue
			}
			k := ir.NameKey(rd.Name)
			if k == key {
				return true
			}
			if (rd.Kind == ir.View || rd.Kind == ir.TemporaryView) && !visiting[k] {
				visiting[k] = true
				for _, vf := range st.p.FlowsInto(rd.Name) {
					if walk(vf, true, visiting) {
						return true
					}
				}
			}
		}
		return false
	}
	for _, f := range st.p.FlowsInto(d.Name) {
		if walk(f, false, map[string]bool{}) {
			return true
		}
	}
	return false
}

// resumeOf returns the resume information of dataset key when this run
// resumes it (nil otherwise).
func (st *runState) resumeOf(key string) *resumeInfo {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.resumed[key]
}

// consumedBefore returns the files dataset key consumed in earlier runs,
// when this run resumes it.
func (st *runState) consumedBefore(key string) map[string]bool {
	if info := st.resumeOf(key); info != nil {
		return info.done
	}
	return nil
}

// saveState records a stream state table of dataset d to commit with its
// rows: name is its logical name, table a run-lifetime temporary table.
func (st *runState) saveState(d *ir.Dataset, name, table string) {
	sr := st.streams()
	key := ir.NameKey(d.Name)
	if sr.saved[key] == nil {
		sr.saved[key] = map[string]string{}
	}
	sr.saved[key][name] = table
}

// stateToCommit returns d's stream state tables and definition hash for
// its commit (nil, "" when d keeps no stream state).
func (st *runState) stateToCommit(d *ir.Dataset) (map[string]string, string) {
	def, _ := st.streamDefinition(d)
	if def == "" {
		return nil, ""
	}
	tables := map[string]string{}
	if st.stream != nil {
		for n, t := range st.stream.saved[ir.NameKey(d.Name)] {
			tables[n] = t
		}
	}
	return tables, def
}

// mergeConsumed adds the files of earlier runs to this run's, by source.
func (st *runState) mergeConsumed(d *ir.Dataset, now map[string][]string) map[string][]string {
	if st.consumedBefore(ir.NameKey(d.Name)) == nil {
		return now
	}
	m, err := st.s.OutputManifest(d.Name)
	if err != nil || m == nil {
		return now
	}
	out := map[string][]string{}
	seen := map[string]bool{}
	for src, files := range m.Consumed {
		for _, f := range files {
			if !seen[f] {
				seen[f] = true
				out[src] = append(out[src], f)
			}
		}
	}
	for src, files := range now {
		for _, f := range files {
			if !seen[f] {
				seen[f] = true
				out[src] = append(out[src], f)
			}
		}
	}
	return out
}

// committedStream returns the micro-batch files behind the committed rows
// of streaming table d when this run does not write d, so a stream of it
// can go on from a checkpoint: nothing was appended to d since it was
// committed, and a reader that consumed those files gets no new rows, as
// a Spark stream of an unchanged table gets none. It returns why not
// instead when this run writes d, d has no committed rows recorded with
// their files, or a flow into d is not a plain streaming flow (a CDC flow
// changes rows in place, so its rows are no sequence of micro-batches).
func (st *runState) committedStream(d *ir.Dataset) ([]string, string) {
	if d.Kind != ir.StreamingTable {
		return nil, d.Name + " is not a streaming table"
	}
	for _, f := range st.p.FlowsInto(d.Name) {
		if !f.Streaming || f.CDC != nil {
			return nil, d.Name + " is read as a stream, but flow " + f.Name + " into it is not a plain streaming flow, so its rows are no sequence of micro-batches"
		}
	}
	if key := ir.NameKey(d.Name); st.opts.Only == nil || st.opts.Only[key] {
		return nil, d.Name + " is read as a stream, but this run keeps no record of the micro-batches written into it"
	}
	files := st.s.Consumed(d.Name)
	if len(files) == 0 {
		return nil, d.Name + " is read as a stream, but its committed rows record no micro-batch files, so what was read of it before is unknown"
	}
	return files, ""
}

// kindWords names a dataset kind in the user's terms.
func kindWords(k ir.Kind) string {
	switch k {
	case ir.MaterializedView:
		return "materialized view"
	case ir.StreamingTable:
		return "streaming table"
	case ir.View, ir.TemporaryView:
		return "view"
	}
	return "table"
}

// hasCommittedStream reports whether a stream of d can go on from d's
// committed rows (committedStream).
func (st *runState) hasCommittedStream(d *ir.Dataset) bool {
	_, why := st.committedStream(d)
	return why == ""
}
