package lsp

import (
	"context"
	"encoding/json"
	"path"
	"regexp"
	"sort"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

func (s *Server) definition(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.DefinitionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.TextDocument.URI, &p.Position)
	if err != nil {
		return nil, nil
	}
	if locs, ok := s.symbolDefinition(dp); ok {
		return locs, nil
	}
	t := dp.snap.At(dp.rel, dp.off)
	switch {
	case t.Dataset != nil:
		return []protocol.Location{locationOf(dp.snap, definitionLoc(t.Dataset))}, nil
	case t.Source != nil && t.Source.Sample != "":
		return []protocol.Location{fileStart(dp.snap, sampleTarget(dp.snap, t.Source.Sample))}, nil
	case t.Pragma != nil && t.Pragma.Key == "sample" && t.Pragma.Value != "":
		return []protocol.Location{fileStart(dp.snap, sampleTarget(dp.snap, strings.Trim(t.Pragma.Value, `'"`)))}, nil
	}
	return nil, nil
}

// definitionLoc is where go-to-definition lands: the name in a CREATE
// statement, or the query of a file named after its dataset.
func definitionLoc(d *ir.Dataset) ir.Loc {
	if d.FromStem {
		return ir.Loc{File: d.Loc.File}
	}
	return d.NameLoc
}

// sampleTarget resolves a sample binding to a file: the path itself, or
// for a folder (micro-batches) or glob, the first matching file.
func sampleTarget(snap *analysis.Snapshot, sample string) string {
	clean := path.Clean(sample)
	for _, f := range snap.Files {
		if f == clean {
			return f
		}
	}
	for _, f := range snap.Files {
		if strings.HasPrefix(f, clean+"/") {
			return f
		}
		if ok, _ := path.Match(clean, f); ok {
			return f
		}
	}
	return clean
}

func fileStart(snap *analysis.Snapshot, rel string) protocol.Location {
	return protocol.Location{URI: uri.File(snap.Abs(rel))}
}

func (s *Server) references(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.ReferenceParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.TextDocument.URI, &p.Position)
	if err != nil {
		return nil, nil
	}
	if locs, ok := s.symbolReferences(dp, p.Context.IncludeDeclaration); ok {
		return locs, nil
	}
	name, def := targetName(dp.snap.At(dp.rel, dp.off))
	if name == "" {
		return nil, nil
	}
	out := []protocol.Location{}
	if def != nil && p.Context.IncludeDeclaration {
		out = append(out, locationOf(dp.snap, definitionLoc(def)))
	}
	for _, r := range dp.snap.References(name) {
		out = append(out, locationOf(dp.snap, r.Loc))
	}
	if def != nil {
		for _, f := range datasetTargets(dp.snap, def) {
			out = append(out, locationOf(dp.snap, f.TargetLoc))
		}
	}
	return out, nil
}

// targetName is the dataset or source name at a target, and the dataset
// definition if it is one.
func targetName(t analysis.Target) (string, *ir.Dataset) {
	switch {
	case t.Dataset != nil:
		return t.Dataset.Name, t.Dataset
	case t.Ref != nil:
		return t.Ref.Name, nil
	}
	return "", nil
}

func (s *Server) highlight(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.DocumentHighlightParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.TextDocument.URI, &p.Position)
	if err != nil {
		return nil, nil
	}
	if hl, ok := s.symbolHighlight(dp); ok {
		return hl, nil
	}
	name, def := targetName(dp.snap.At(dp.rel, dp.off))
	if name == "" {
		return nil, nil
	}
	out := []protocol.DocumentHighlight{}
	if def != nil && def.Loc.File == dp.rel && !def.FromStem {
		out = append(out, protocol.DocumentHighlight{Range: rangeOf(dp.snap, def.NameLoc), Kind: protocol.DocumentHighlightKindWrite})
	}
	for _, r := range dp.snap.References(name) {
		if r.Loc.File == dp.rel {
			out = append(out, protocol.DocumentHighlight{Range: rangeOf(dp.snap, r.Loc), Kind: protocol.DocumentHighlightKindRead})
		}
	}
	return out, nil
}

func (s *Server) prepareRename(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.PrepareRenameParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.TextDocument.URI, &p.Position)
	if err != nil {
		return nil, nil
	}
	if res, ok, err := s.symbolPrepareRename(dp); ok {
		return res, err
	}
	t := dp.snap.At(dp.rel, dp.off)
	if t.Dataset == nil {
		return nil, jsonrpc2.Errorf(RequestFailed, "only datasets, columns and CTEs of this pipeline can be renamed; put the cursor on a name or a reference to it")
	}
	// A qualified name (db.orders) is renamed in its last part, in the
	// definition as in the references.
	loc := lastSegmentLoc(dp.snap, t.Dataset.NameLoc)
	if t.Ref != nil {
		loc = lastSegmentLoc(dp.snap, t.Ref.Loc)
	}
	if !writesName(dp.snap, loc, lastPart(t.Dataset.Name)) {
		text, _ := dp.snap.Text(loc.File)
		return nil, jsonrpc2.Errorf(RequestFailed, "%s is named here by %s, which Thund does not rename (it is computed, for every value of its loop or factory call): change the name by hand",
			t.Dataset.Name, clipText(text[loc.Start:loc.End]))
	}
	return map[string]any{"range": rangeOf(dp.snap, loc), "placeholder": lastPart(t.Dataset.Name)}, nil
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reservedWords are SQL keywords (Spark's ANSI reserved words, and those
// PostgreSQL and DuckDB reserve) that a dataset name cannot be without
// quoting: FROM select would not parse.
var reservedWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`all and any anti array as asc between both by case cast check collate column
		constraint create cross current_date current_time current_timestamp current_user default delete desc
		distinct do drop else end except exists false fetch for foreign from full grant group having in inner
		insert intersect interval into is join lateral leading left like limit natural not null of offset on
		only or order outer overlaps pivot primary qualify references returning right select semi session_user
		some stream table then time to trailing true union unique unknown unpivot update user using values when
		where window with`) {
		reservedWords[w] = true
	}
}

// lastPart is a qualified name's last part (orders of db.orders).
func lastPart(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// rename renames a dataset: its definition, every reference, and the file
// when the dataset is named after it, as one workspace edit.
func (s *Server) rename(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.RenameParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dp, err := s.resolve(p.TextDocument.URI, &p.Position)
	if err != nil {
		return nil, err
	}
	if edits, ok, err := s.symbolRename(dp, p.NewName); ok {
		if err != nil {
			return nil, err
		}
		return map[string]any{"documentChanges": s.documentChanges(dp.snap, edits)}, nil
	}
	d := dp.snap.At(dp.rel, dp.off).Dataset
	if d == nil {
		d, _ = symbolDataset(dp)
	}
	if d == nil {
		return nil, jsonrpc2.Errorf(RequestFailed, "only datasets of this pipeline can be renamed")
	}
	if !identifier.MatchString(p.NewName) {
		return nil, jsonrpc2.Errorf(RequestFailed, "%q is not a plain SQL identifier: use letters, digits and underscores, not starting with a digit", p.NewName)
	}
	if w := strings.ToLower(p.NewName); reservedWords[w] || sqlfront.DuckDBReserves(w) {
		return nil, jsonrpc2.Errorf(RequestFailed, "%q is an SQL keyword, so FROM %s would not parse: pick another name", p.NewName, p.NewName)
	}
	if p.NewName == lastPart(d.Name) {
		return map[string]any{"documentChanges": []any{}}, nil // the name it has
	}
	// A qualified dataset keeps its qualifiers: db.orders becomes db.NEW.
	newFull := d.Name[:len(d.Name)-len(lastPart(d.Name))] + p.NewName
	// Resolve also finds x when db.x is the pipeline's own database.
	if other := dp.snap.Pipeline.Resolve(newFull); other != nil && other != d {
		return nil, jsonrpc2.Errorf(RequestFailed, "a dataset named %s already exists in %s", other.Name, other.Loc.File)
	}
	edits := map[string][]protocol.TextEdit{}
	var computed []ir.Loc
	add := func(loc ir.Loc) {
		if !writesName(dp.snap, loc, lastPart(d.Name)) {
			computed = append(computed, loc)
			return
		}
		edits[loc.File] = append(edits[loc.File], protocol.TextEdit{Range: rangeOf(dp.snap, loc), NewText: p.NewName})
	}
	if !d.FromStem {
		add(lastSegmentLoc(dp.snap, d.NameLoc))
	}
	for _, r := range dp.snap.References(d.Name) {
		add(lastSegmentLoc(dp.snap, r.Loc))
	}
	for _, f := range datasetTargets(dp.snap, d) {
		add(lastSegmentLoc(dp.snap, f.TargetLoc))
	}
	if len(computed) > 0 {
		// A Python name made by a loop or a factory (f"orders_{shop}")
		// is not written anywhere as it is: replacing the f-string would
		// rename every dataset it makes.
		l := computed[0]
		text, _ := dp.snap.Text(l.File)
		return nil, jsonrpc2.Errorf(RequestFailed, "%s is named at %s:%d by %s, which Thund does not rename (it is computed, for every value of its loop or factory call): change the name there by hand",
			d.Name, l.File, dp.snap.Index(l.File).Rune(l.Start).Line+1, clipText(text[l.Start:l.End]))
	}
	// documentChanges: text edits per file (versioned by the open buffer),
	// then the file rename, so the edits apply to the file's old name.
	var changes []any
	for _, f := range sortedKeys(edits) {
		abs := dp.snap.Abs(f)
		s.mu.Lock()
		var version *int32
		if o, ok := s.overlays[abs]; ok {
			v := o.version
			version = &v
		}
		s.mu.Unlock()
		changes = append(changes, map[string]any{
			"textDocument": map[string]any{"uri": uri.File(abs), "version": version},
			"edits":        edits[f],
		})
	}
	if d.FromStem {
		oldRel := d.Loc.File
		newRel := path.Join(path.Dir(oldRel), p.NewName+path.Ext(oldRel))
		if _, exists := dp.snap.Text(newRel); exists {
			return nil, jsonrpc2.Errorf(RequestFailed, "cannot rename the file to %s: it exists", newRel)
		}
		changes = append(changes, map[string]any{
			"kind": "rename", "oldUri": uri.File(dp.snap.Abs(oldRel)), "newUri": uri.File(dp.snap.Abs(newRel)),
		})
	}
	return map[string]any{"documentChanges": changes}, nil
}

// writesName reports whether the text at loc is name as it is (any
// case), so a rename may replace it; a Python f-string making the name
// (f"orders_{shop}") or a literal with escapes is not.
func writesName(snap *analysis.Snapshot, loc ir.Loc, name string) bool {
	if !strings.HasSuffix(loc.File, ".py") {
		return true
	}
	text, ok := snap.Text(loc.File)
	if !ok || loc.Start < 0 || loc.End > len(text) || loc.Start > loc.End {
		return false
	}
	return strings.EqualFold(strings.Trim(text[loc.Start:loc.End], "`"), name)
}

// clipText shortens source text for a message.
func clipText(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// lastSegmentLoc narrows a qualified reference (db.orders) to its last
// segment, the part a rename replaces.
func lastSegmentLoc(snap *analysis.Snapshot, loc ir.Loc) ir.Loc {
	text, ok := snap.Text(loc.File)
	if !ok || loc.End > len(text) || loc.Start > loc.End {
		return loc
	}
	written := text[loc.Start:loc.End]
	if i := strings.LastIndexByte(written, '.'); i >= 0 {
		loc.Start += i + 1
	}
	return loc
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
