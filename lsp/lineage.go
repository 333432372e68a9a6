package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/analysis/lineage"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/preview"
)

// LineageParams are the parameters of thund/lineage.
type LineageParams struct {
	URI protocol.DocumentURI `json:"uri"`
	// Dataset, when set, answers that dataset's (or source's) columns
	// only, with the edges into and out of them.
	Dataset string `json:"dataset,omitempty"`
	// Column, with Dataset, also answers that column's upstream and
	// downstream (Focus).
	Column string `json:"column,omitempty"`
}

// LineageResult is the answer of thund/lineage: the column-level graph.
type LineageResult struct {
	Pipeline string         `json:"pipeline"`
	Tables   []LineageTable `json:"tables"`
	// Edges go from a column to a column computed from it.
	Edges []LineageEdge `json:"edges"`
	Focus *LineageFocus `json:"focus,omitempty"`
}

// LineageTable is a dataset or a source with its columns. ID is the
// node's id in thund/graph.
type LineageTable struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Kind     string          `json:"kind"`
	Complete bool            `json:"complete"`
	Reason   string          `json:"reason,omitempty"`
	Columns  []LineageColumn `json:"columns"`
}

// LineageColumn is one column; URI and Line (0-based) locate the
// expression computing it, when there is one.
type LineageColumn struct {
	Name      string        `json:"name"`
	Type      string        `json:"type,omitempty"`
	Generated bool          `json:"generated,omitempty"`
	URI       string        `json:"uri,omitempty"`
	Line      int           `json:"line,omitempty"`
	Deps      []lineage.Dep `json:"deps"`
}

// LineageEdge is one dependency: To is computed from From.
type LineageEdge struct {
	From lineage.ColumnID `json:"from"`
	To   lineage.ColumnID `json:"to"`
	Kind lineage.Kind     `json:"kind"`
}

// LineageFocus is one column's upstream and downstream, as flat lists
// (for highlighting) and as trees.
type LineageFocus struct {
	Column     lineage.ColumnID   `json:"column"`
	Upstream   []lineage.ColumnID `json:"upstream"`
	Downstream []lineage.ColumnID `json:"downstream"`
	UpTree     *lineage.Node      `json:"upTree"`
	DownTree   *lineage.Node      `json:"downTree"`
}

func (s *Server) lineage(_ context.Context, params json.RawMessage) (any, error) {
	var p LineageParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.URI, nil)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "thund/lineage: %v", err)
	}
	g := s.lineageGraph(dp)
	out := &LineageResult{Pipeline: dp.snap.Pipeline.Name, Tables: []LineageTable{}, Edges: []LineageEdge{}}
	var only *lineage.Table
	if p.Dataset != "" {
		if only = g.Table(p.Dataset); only == nil {
			return nil, jsonrpc2.Errorf(RequestFailed, "thund/lineage: %s is not a dataset or source of this pipeline", p.Dataset)
		}
	}
	for _, t := range g.Tables() {
		if only != nil && t != only {
			continue
		}
		lt := LineageTable{Name: t.Name, Complete: t.Complete, Reason: t.Reason, Columns: []LineageColumn{}}
		if t.Source != nil {
			lt.ID, lt.Kind = "source:"+ir.NameKey(t.Name), "source"
		} else {
			lt.ID, lt.Kind = ir.NameKey(t.Name), string(t.Dataset.Kind)
		}
		for _, c := range t.Columns {
			lc := LineageColumn{Name: c.ID.Column, Type: preview.SparkType(c.Type), Generated: c.Generated, Deps: c.Deps}
			if lc.Deps == nil {
				lc.Deps = []lineage.Dep{}
			}
			if c.Def.End > c.Def.Start {
				lc.URI = string(uri.File(dp.snap.Abs(c.Def.File)))
				lc.Line = dp.snap.Index(c.Def.File).Rune(c.Def.Start).Line
			}
			lt.Columns = append(lt.Columns, lc)
			for _, d := range c.Deps {
				out.Edges = append(out.Edges, LineageEdge{From: d.From, To: c.ID, Kind: d.Kind})
			}
			if only != nil {
				for _, r := range g.Readers(c.ID) {
					out.Edges = append(out.Edges, LineageEdge{From: c.ID, To: r.From, Kind: r.Kind})
				}
			}
		}
		out.Tables = append(out.Tables, lt)
	}
	if only != nil && p.Column != "" {
		c := only.Column(p.Column)
		if c == nil {
			return nil, jsonrpc2.Errorf(RequestFailed, "thund/lineage: %s has no column %s (its columns: %s)", only.Name, p.Column, columnNames(only))
		}
		up, down := g.Upstream(c.ID), g.Downstream(c.ID)
		out.Focus = &LineageFocus{Column: c.ID, Upstream: nonNil(up.Closure()), Downstream: nonNil(down.Closure()), UpTree: up, DownTree: down}
	}
	return out, nil
}

func nonNil(ids []lineage.ColumnID) []lineage.ColumnID {
	if ids == nil {
		return []lineage.ColumnID{}
	}
	return ids
}

func columnNames(t *lineage.Table) string {
	var out []string
	for _, c := range t.Columns {
		out = append(out, c.ID.Column)
	}
	if len(out) == 0 {
		return "not known"
	}
	return strings.Join(out, ", ")
}
