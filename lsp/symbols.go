package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/ir"
)

func symbolKind(k ir.Kind) protocol.SymbolKind {
	switch k {
	case ir.View, ir.TemporaryView:
		return protocol.SymbolKindInterface
	case ir.StreamingTable:
		return protocol.SymbolKindEvent
	}
	return protocol.SymbolKindClass
}

func (s *Server) documentSymbol(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.DocumentSymbolParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.TextDocument.URI, nil)
	if err != nil {
		return nil, nil
	}
	out := []protocol.DocumentSymbol{}
	for _, d := range dp.snap.DatasetsIn(dp.rel) {
		sel := d.NameLoc
		if d.FromStem || sel.End <= sel.Start {
			sel = ir.Loc{File: d.Loc.File, Start: d.Loc.Start, End: d.Loc.Start}
		}
		sym := protocol.DocumentSymbol{
			Name: d.Name, Detail: strings.ReplaceAll(string(d.Kind), "_", " "), Kind: symbolKind(d.Kind),
			Range: rangeOf(dp.snap, d.Loc), SelectionRange: rangeOf(dp.snap, sel),
		}
		for _, f := range dp.snap.Pipeline.FlowsInto(d.Name) {
			for _, e := range f.Expectations {
				if e.Loc.File == dp.rel {
					sym.Children = append(sym.Children, protocol.DocumentSymbol{Name: e.Name, Detail: "expectation " + string(e.Action),
						Kind: protocol.SymbolKindBoolean, Range: rangeOf(dp.snap, e.Loc), SelectionRange: rangeOf(dp.snap, e.Loc)})
				}
			}
		}
		out = append(out, sym)
	}
	for _, f := range dp.snap.FlowsIn(dp.rel) {
		if f.Append {
			out = append(out, protocol.DocumentSymbol{Name: f.Name, Detail: "flow into " + f.Target, Kind: protocol.SymbolKindFunction,
				Range: rangeOf(dp.snap, f.QueryLoc), SelectionRange: rangeOf(dp.snap, f.Loc)})
		}
	}
	return out, nil
}

func (s *Server) workspaceSymbol(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.WorkspaceSymbolParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	var roots []string
	for r := range s.roots {
		roots = append(roots, r)
	}
	s.mu.Unlock()
	q := strings.ToLower(p.Query)
	out := []protocol.SymbolInformation{}
	for _, r := range roots {
		snap, err := s.current(r)
		if err != nil {
			continue
		}
		for _, d := range snap.Pipeline.Datasets {
			if q != "" && !strings.Contains(strings.ToLower(d.Name), q) {
				continue
			}
			out = append(out, protocol.SymbolInformation{Name: d.Name, Kind: symbolKind(d.Kind), Location: locationOf(snap, definitionLoc(d)),
				ContainerName: snap.Pipeline.Name})
		}
	}
	return out, nil
}

func (s *Server) foldingRange(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.FoldingRangeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.TextDocument.URI, nil)
	if err != nil {
		return nil, nil
	}
	ix := dp.snap.Index(dp.rel)
	out := []protocol.FoldingRange{}
	add := func(start, end int, kind protocol.FoldingRangeKind) {
		a, b := ix.Rune(start).Line, ix.Rune(end).Line
		if b > a {
			out = append(out, protocol.FoldingRange{StartLine: uint32(a), EndLine: uint32(b), Kind: kind})
		}
	}
	// The header: the run of pragma and comment lines at the top.
	if ps := dp.snap.Pragmas(dp.rel); len(ps) > 0 {
		blockStart, blockEnd := ps[0].Line.Start, ps[0].Line.End
		for _, pr := range ps[1:] {
			if ix.Rune(pr.Line.Start).Line == ix.Rune(blockEnd).Line+1 {
				blockEnd = pr.Line.End
				continue
			}
			add(blockStart, blockEnd, protocol.CommentFoldingRange)
			blockStart, blockEnd = pr.Line.Start, pr.Line.End
		}
		add(blockStart, blockEnd, protocol.CommentFoldingRange)
	}
	for _, d := range dp.snap.DatasetsIn(dp.rel) {
		if !d.FromStem {
			add(d.Loc.Start, d.Loc.End, protocol.RegionFoldingRange)
		}
	}
	for _, f := range dp.snap.FlowsIn(dp.rel) {
		add(f.QueryLoc.Start, f.QueryLoc.End, protocol.RegionFoldingRange)
	}
	return out, nil
}

// semanticTokens marks pragma headers: `--` as comment, `@key` as keyword,
// `.NAME` as property and the value as string.
func (s *Server) semanticTokens(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.SemanticTokensParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.TextDocument.URI, nil)
	if err != nil {
		return map[string]any{"data": []uint32{}}, nil
	}
	ix := dp.snap.Index(dp.rel)
	data := []uint32{}
	prevLine, prevCol := 0, 0
	emit := func(loc ir.Loc, typ int) {
		if loc.End <= loc.Start {
			return
		}
		a, b := ix.UTF16(loc.Start), ix.UTF16(loc.End)
		if a.Line != b.Line {
			return
		}
		dl, dc := a.Line-prevLine, a.Column
		if dl == 0 {
			dc = a.Column - prevCol
		}
		data = append(data, uint32(dl), uint32(dc), uint32(b.Column-a.Column), uint32(typ), 0)
		prevLine, prevCol = a.Line, a.Column
	}
	for _, pr := range dp.snap.Pragmas(dp.rel) {
		emit(ir.Loc{File: dp.rel, Start: pr.KeyLoc.Start, End: pr.KeyLoc.Start + 1 + len(pr.Key)}, 0)
		if pr.Name != "" {
			emit(pr.NameLoc, 1)
		}
		if !pr.Bare {
			emit(pr.ValueLoc, 2)
		}
	}
	return map[string]any{"data": data}, nil
}

func (s *Server) codeLens(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.CodeLensParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.TextDocument.URI, nil)
	if err != nil {
		return nil, nil
	}
	s.mu.Lock()
	remote := s.settings.SparkRemote
	s.mu.Unlock()
	if remote == "" {
		remote = dp.snap.Project.Config.SparkRemote
	}
	out := []protocol.CodeLens{}
	docURI := uri.File(dp.snap.Abs(dp.rel))
	for _, d := range dp.snap.DatasetsIn(dp.rel) {
		anchor := d.NameLoc
		if d.FromStem {
			anchor = ir.Loc{File: d.Loc.File}
		}
		rng := rangeOf(dp.snap, anchor)
		args := []any{map[string]any{"uri": docURI, "dataset": d.Name}}
		out = append(out,
			protocol.CodeLens{Range: rng, Command: &protocol.Command{Title: "Preview", Command: "thund.preview", Arguments: args}},
			protocol.CodeLens{Range: rng, Command: &protocol.Command{Title: "Run downstream", Command: "thund.runDownstream", Arguments: args}},
		)
		if remote != "" {
			out = append(out, protocol.CodeLens{Range: rng, Command: &protocol.Command{Title: "Spark dry run", Command: "thund.sparkDryRun", Arguments: args}})
		}
		if lp := s.lastPreviewOf(dp.root, ir.NameKey(d.Name)); lp != nil {
			out = append(out, protocol.CodeLens{Range: rng, Command: &protocol.Command{
				Title: fmt.Sprintf("%d rows in %d ms", lp.page.TotalRows, lp.elapsed.Milliseconds()), Command: "thund.preview", Arguments: args}})
		}
	}
	return out, nil
}
