package analysis

import (
	"sort"

	"github.com/thund-dev/thund/analysis/pragma"
	"github.com/thund-dev/thund/ir"
)

// Pragmas returns every pragma line of a library file, in order.
func (s *Snapshot) Pragmas(file string) []pragma.Pragma {
	if r, ok := s.results[file]; ok {
		return r.pragmas
	}
	return nil
}

// DatasetsIn returns the datasets a library file defines.
func (s *Snapshot) DatasetsIn(file string) []*ir.Dataset {
	if r, ok := s.results[file]; ok {
		return r.datasets
	}
	return nil
}

// FlowsIn returns the flows a library file defines.
func (s *Snapshot) FlowsIn(file string) []*ir.Flow {
	if r, ok := s.results[file]; ok {
		return s.pipelineFlows(r.flows)
	}
	return nil
}

// Target is what sits at a position of a file.
type Target struct {
	// Ref is set on a table reference, with the flow that reads it.
	Ref  *ir.Ref
	Flow *ir.Flow
	// Dataset is the dataset the position names: the one a reference
	// resolves to, or the one whose definition (name) the position is on.
	Dataset *ir.Dataset
	// Definition is true when the position is on the dataset's own name.
	Definition bool
	// Source is set on a reference to a source table.
	Source *ir.Source
	// Pragma is set on a pragma line.
	Pragma *pragma.Pragma
}

// At returns what is at byte offset off of file: a reference, a dataset
// definition or a pragma. The zero Target means nothing known.
func (s *Snapshot) At(file string, off int) Target {
	r, ok := s.results[file]
	if !ok {
		return Target{}
	}
	for _, f := range s.pipelineFlows(r.flows) {
		for i := range f.Reads {
			ref := &f.Reads[i]
			if ref.Loc.Start <= off && off <= ref.Loc.End {
				t := Target{Ref: ref, Flow: f, Dataset: s.Pipeline.Resolve(ref.Name)}
				if t.Dataset == nil {
					t.Source = s.Pipeline.Source(ref.Name)
				}
				return t
			}
		}
	}
	for _, d := range r.datasets {
		if !d.FromStem && d.NameLoc.Start <= off && off <= d.NameLoc.End && d.NameLoc.End > d.NameLoc.Start {
			return Target{Dataset: d, Definition: true}
		}
	}
	for i := range r.pragmas {
		p := &r.pragmas[i]
		if p.Line.Start <= off && off <= p.Line.End {
			return Target{Pragma: p}
		}
	}
	return Target{}
}

// References returns every read of the dataset (or source) named name,
// across all files, ordered by file and position.
func (s *Snapshot) References(name string) []ir.Ref {
	key := ir.NameKey(name)
	target := s.Pipeline.Resolve(name)
	var out []ir.Ref
	for _, f := range s.Pipeline.Flows {
		for _, r := range f.Reads {
			if d := s.Pipeline.Resolve(r.Name); d != nil {
				if target != nil && d == target {
					out = append(out, r)
				}
			} else if target == nil && ir.NameKey(r.Name) == key {
				out = append(out, r)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Loc.File != out[j].Loc.File {
			return out[i].Loc.File < out[j].Loc.File
		}
		return out[i].Loc.Start < out[j].Loc.Start
	})
	return out
}
