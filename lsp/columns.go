package lsp

import (
	"context"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/schema"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/preview"
)

// DescribeDelay is how long the server waits after the last edit before it
// describes the pipeline's datasets on DuckDB (columns for hover and
// completion, unknown-column diagnostics). It is longer than Debounce:
// describing runs every dataset's query over the samples with LIMIT 0,
// which costs more than analysis.
const DescribeDelay = 250 * time.Millisecond

// MaxDescribedDatasets bounds the pipelines the server describes: beyond
// it, describing every dataset on each settled edit costs more time and
// DuckDB memory than the columns are worth, so hovers and completion fall
// back to the columns of datasets previewed or run, and unknown columns
// are reported by runs only.
const MaxDescribedDatasets = 2000

// describeState is a root's last description.
type describeState struct {
	snap   *analysis.Snapshot // the snapshot described
	result *schema.Result
	cancel context.CancelFunc
	timer  *time.Timer
}

// scheduleDescribe describes snap after DescribeDelay, unless a newer edit
// comes first; a description in progress is cancelled by the next one.
func (s *Server) scheduleDescribe(rootPath string, snap *analysis.Snapshot, gen int) {
	if len(snap.Pipeline.Datasets) > MaxDescribedDatasets {
		return
	}
	s.mu.Lock()
	st := s.rootState(rootPath)
	if st.describe.timer != nil {
		st.describe.timer.Stop()
	}
	if st.describe.cancel != nil {
		st.describe.cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	st.describe.cancel = cancel
	st.describe.timer = time.AfterFunc(DescribeDelay, func() { s.describe(ctx, rootPath, snap, gen) })
	s.mu.Unlock()
}

func (s *Server) describe(ctx context.Context, rootPath string, snap *analysis.Snapshot, gen int) {
	s.mu.Lock()
	st := s.rootState(rootPath)
	stale := st.gen != gen || s.shutdown
	s.mu.Unlock()
	if stale || ctx.Err() != nil {
		return
	}
	st.runMu.Lock()
	sess, err := st.sessionLocked(snap.Project.Config)
	var res *schema.Result
	if err == nil {
		res, err = schema.Describe(ctx, sess, snap)
	}
	st.runMu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			s.logger.Printf("describe %s: %v", rootPath, err)
		}
		return
	}
	s.mu.Lock()
	if st.gen != gen {
		s.mu.Unlock()
		return
	}
	st.describe.snap, st.describe.result = snap, res
	s.mu.Unlock()
	s.publish(rootPath, snap, gen)
}

// columnDiagnostics returns the column findings of the last description
// that still apply to snap.
func (s *Server) columnDiagnostics(rootPath string, snap *analysis.Snapshot) []ir.Diagnostic {
	s.mu.Lock()
	st := s.roots[rootPath]
	if st == nil || st.describe.result == nil {
		s.mu.Unlock()
		return nil
	}
	described, diags := st.describe.snap, st.describe.result.Diagnostics
	s.mu.Unlock()
	if described == snap {
		return diags
	}
	// Until the next description (after DescribeDelay), the findings in
	// files whose text has not changed stand: their ranges still hold,
	// and dropping them would make them blink at every keystroke in
	// another file.
	var out []ir.Diagnostic
	for _, d := range diags {
		was, ok1 := described.Text(d.Loc.File)
		now, ok2 := snap.Text(d.Loc.File)
		if ok1 && ok2 && was == now {
			out = append(out, d)
		} else if moved, ok := sameStatement(described, snap, d); ok {
			// In the edited file, a finding in a statement whose text
			// has not changed stands too, moved with it.
			out = append(out, moved)
		}
	}
	return out
}

// sameStatement finds the flow of a finding in the snapshot it was made
// in and, when the newer snapshot has a flow with the same query text in
// the same file, returns the finding at that query's place.
func sameStatement(was, now *analysis.Snapshot, d ir.Diagnostic) (ir.Diagnostic, bool) {
	oldText, _ := was.Text(d.Loc.File)
	newText, ok := now.Text(d.Loc.File)
	if !ok {
		return d, false
	}
	for _, f := range was.FlowsIn(d.Loc.File) {
		q := f.QueryLoc
		if q.Start > d.Loc.Start || d.Loc.End > q.End || q.End > len(oldText) {
			continue
		}
		for _, g := range now.FlowsIn(d.Loc.File) {
			n := g.QueryLoc
			if n.End <= len(newText) && n.End-n.Start == q.End-q.Start && newText[n.Start:n.End] == oldText[q.Start:q.End] {
				shift := n.Start - q.Start
				d.Loc.Start += shift
				d.Loc.End += shift
				return d, true
			}
		}
		return d, false
	}
	return d, false
}

// describeResult returns a root's last description (nil before the
// first), to tell one description from the next.
func (s *Server) describeResult(rootPath string) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.roots[rootPath]; st != nil && st.describe.result != nil {
		return st.describe.result
	}
	return nil
}

// describedColumns returns a dataset's or source's columns from the last
// description, whatever snapshot it was of, with Spark's type names.
func (s *Server) describedColumns(rootPath, name string) []preview.Column {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.roots[rootPath]
	if st == nil || st.describe.result == nil {
		return nil
	}
	var out []preview.Column
	for _, c := range st.describe.result.Columns(name) {
		out = append(out, preview.Column{Name: c.Name, Type: preview.SparkType(c.Type)})
	}
	return out
}
