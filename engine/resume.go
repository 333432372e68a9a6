package engine

import (
	"context"

	"github.com/thund-dev/thund/ir"
)

// Resuming a streaming table across restarts (--state).
//
// A streaming table whose flows all append a plain (non-aggregate, non-CDC)
// query over micro-batch folders can pick up where a previous process left
// off: Restore rebuilt its rows from the committed parts, and its manifest
// lists the micro-batch files already consumed. The run then keeps the
// table, skips those files, appends what the new files give, and records
// the union of consumed files. Aggregates, other output modes and CDC keep
// state beyond rows and files, so they replay from the start (their
// results are the same, only slower).

// resumable reports whether d can resume from its committed outputs, and
// the files it consumed already.
func (st *runState) resumable(ctx context.Context, d *ir.Dataset) (map[string]bool, bool) {
	if st.s.opts.StateDir == "" || d.Kind != ir.StreamingTable {
		return nil, false
	}
	flows := st.p.FlowsInto(d.Name)
	if len(flows) == 0 {
		return nil, false
	}
	for _, f := range flows {
		if !f.Streaming || f.CDC != nil || f.Aggregates || (f.OutputMode != "" && f.OutputMode != ir.Append) || len(f.Expectations) > 0 && hasDrop(f) {
			return nil, false
		}
	}
	consumed := st.s.Consumed(d.Name)
	if len(consumed) == 0 {
		return nil, false
	}
	if _, err := st.count(ctx, d); err != nil {
		return nil, false // nothing restored: start over
	}
	set := make(map[string]bool, len(consumed))
	for _, f := range consumed {
		set[f] = true
	}
	return set, true
}

// hasDrop: drop expectations are fine to resume too, but a changed rule
// would not apply to rows already kept; replay to be safe.
func hasDrop(f *ir.Flow) bool {
	for _, e := range f.Expectations {
		if e.Action == ir.Drop {
			return true
		}
	}
	return false
}

// consumedBefore returns the files dataset key consumed in earlier runs,
// when this run resumes it.
func (st *runState) consumedBefore(key string) map[string]bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.resumed[key]
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
