// Package lineage computes the column-level lineage of a pipeline: for
// every output column of every dataset, the columns of the datasets and
// source tables it is computed from, and how (passed through unchanged,
// inside an expression, inside an aggregate, or as a filter or join key
// that decides which rows there are). It reads each flow's Spark SQL tree
// with the semantic model of package sema, against the output columns of
// the upstream datasets (computed the same way, in dependency order) and
// the columns of the source tables the caller supplies.
//
// The graph is computed lazily: asking for one dataset analyzes the flows
// of that dataset and of its upstream datasets only. A Graph is for one
// pipeline snapshot; it is safe for concurrent use.
package lineage

import (
	"sort"
	"strings"
	"sync"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/ir"
)

// Kind is how an output column depends on a column.
type Kind string

// The kinds of dependency.
const (
	// Passthrough: the value is the column's, unchanged (SELECT t.a,
	// SELECT *, through CTEs and subqueries).
	Passthrough Kind = "passthrough"
	// Expression: the column is read by the expression computing the
	// value (a cast, arithmetic, a function, a window's ordering).
	Expression Kind = "expression"
	// Aggregate: the column is read inside an aggregate function (or an
	// aggregate over a window).
	Aggregate Kind = "aggregate"
	// Filter: the column decides which rows there are (WHERE, HAVING);
	// every output column of the dataset depends on it this way.
	Filter Kind = "filter"
	// Join: the column is a join key (JOIN ... ON); every output column
	// of the dataset depends on it this way.
	Join Kind = "join"
)

// rank orders the value kinds: along a path, the strongest one wins (a
// passthrough of an aggregate is an aggregate).
func rank(k Kind) int {
	switch k {
	case Expression:
		return 1
	case Aggregate:
		return 2
	case Filter, Join:
		return 3
	}
	return 0
}

// combine is the kind of a path: k followed by step.
func combine(k, step Kind) Kind {
	if rank(step) > rank(k) {
		return step
	}
	return k
}

// ColumnID names a column of a dataset or source table, by the names the
// pipeline defines them with.
type ColumnID struct {
	Table  string `json:"table"`
	Column string `json:"column"`
}

// String returns table.column.
func (c ColumnID) String() string { return c.Table + "." + c.Column }

// key is the case-insensitive identity of a column.
func (c ColumnID) key() string { return ir.NameKey(c.Table) + "\x00" + strings.ToLower(c.Column) }

// Dep is one column an output column is computed from.
type Dep struct {
	From ColumnID `json:"from"`
	Kind Kind     `json:"kind"`
}

// Column is one output column of a dataset, or one column of a source.
type Column struct {
	ID ColumnID
	// Type is the Spark type when known.
	Type string
	// Generated is set when Spark names the column from its expression
	// (no alias): the name is then approximate.
	Generated bool
	// Flow is the dataset's flow that defines the column (nil for a
	// source's column); Out is the column in that flow's model.
	Flow *ir.Flow
	Out  *sema.OutputColumn
	// Def is the expression computing the column in Flow's file; it is
	// zero when the column comes from a * (Via then names the upstream
	// column it passes on).
	Def ir.Loc
	Via *ColumnID
	// Deps are the columns it is computed from, sorted, one per column
	// and kind (a join key may also be passed through).
	Deps []Dep
}

// Table is a dataset or a source table with the columns known of it.
type Table struct {
	Name    string
	Dataset *ir.Dataset
	Source  *ir.Source
	Columns []*Column
	// Complete reports whether Columns are all of the table's columns.
	Complete bool
	// Reason says why the columns are not known, when they are not.
	Reason string

	depsDone bool
}

// Column returns the column named name (case-insensitively), or nil.
func (t *Table) Column(name string) *Column {
	if t == nil {
		return nil
	}
	for _, c := range t.Columns {
		if strings.EqualFold(c.ID.Column, name) {
			return c
		}
	}
	return nil
}

// Input is what the graph is computed from.
type Input struct {
	Pipeline *ir.Pipeline
	// Tree returns a flow's Spark SQL tree (nil when its query does not
	// parse with Spark's grammar).
	Tree func(*ir.Flow) *ast.Query
	// Text returns a library file's text.
	Text func(file string) (string, bool)
	// SourceColumns returns a source table's columns, nil when unknown.
	SourceColumns func(*ir.Source) []sema.Column
	// Types, when set, returns known Spark types of a dataset's columns
	// by lower-cased name (an engine's description), for the columns
	// whose type the model cannot tell.
	Types func(dataset string) map[string]string
	// Prev, when set, is the graph of the previous snapshot: the model
	// of a flow that is the same *ir.Flow (its file did not change) is
	// reused when every table it read answers with the same columns.
	Prev *Graph
}

// Graph is the column lineage of one pipeline.
type Graph struct {
	in   Input
	p    *ir.Pipeline
	prev *Graph

	mu         sync.Mutex
	flows      map[*ir.Flow]*FlowModel
	tables     map[string]*Table
	inProgress map[string]bool
	readers    map[string][]readerEdge
	// readIndex lists, per table read (readKey), the flows reading it,
	// in the pipeline's order; built at the first Readers.
	readIndex map[string][]*ir.Flow
	own       map[string]*ir.Flow
	into      map[string][]*ir.Flow
}

// readerEdge is one column depending on another.
type readerEdge struct {
	col  *Column
	kind Kind
	from string // the column read
}

// New returns the graph of in's pipeline; nothing is analyzed until asked.
func New(in Input) *Graph {
	g := &Graph{in: in, p: in.Pipeline, prev: in.Prev, flows: map[*ir.Flow]*FlowModel{}, tables: map[string]*Table{},
		inProgress: map[string]bool{}, readers: map[string][]readerEdge{}, own: map[string]*ir.Flow{}, into: map[string][]*ir.Flow{}}
	if in.Prev != nil {
		// one generation back only: the previous graph forgets its own
		in.Prev.mu.Lock()
		in.Prev.prev = nil
		in.Prev.mu.Unlock()
		g.in.Prev = nil
	}
	if g.p != nil {
		for _, f := range g.p.Flows {
			k := ir.NameKey(f.Target)
			g.into[k] = append(g.into[k], f)
			if !f.Append && g.own[k] == nil {
				g.own[k] = f
			}
		}
	}
	return g
}

// Pipeline returns the pipeline the graph is of.
func (g *Graph) Pipeline() *ir.Pipeline { return g.p }

// Table returns a dataset or source by name (as a query would write
// it), with its columns; nil for a name the pipeline does not know.
func (g *Graph) Table(name string) *Table {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.withDeps(g.table(name))
}

// Flow returns the model of one flow, nil when it has no Spark tree.
func (g *Graph) Flow(f *ir.Flow) *FlowModel {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.flow(f)
}

// Tables returns every dataset of the pipeline (in the pipeline's order)
// and then every source, all analyzed.
func (g *Graph) Tables() []*Table {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*Table
	for _, d := range g.p.Datasets {
		if t := g.withDeps(g.table(d.Name)); t != nil && t.Dataset == d {
			out = append(out, t)
		}
	}
	for _, s := range g.p.Sources {
		if t := g.table(s.Name); t != nil && t.Source == s {
			out = append(out, t)
		}
	}
	return out
}

// resolveName returns the dataset or source a table name (its parts)
// reads, the way the column check resolves it.
func (g *Graph) resolveName(parts []string) (*ir.Dataset, *ir.Source) {
	if len(parts) == 0 || g.p == nil {
		return nil, nil
	}
	full := strings.Join(parts, ".")
	if d := g.p.Resolve(full); d != nil {
		return d, nil
	}
	if s := g.p.Source(full); s != nil {
		return nil, s
	}
	if s := g.p.Source(parts[len(parts)-1]); s != nil {
		return nil, s
	}
	return nil, nil
}

// table computes a table; g.mu is held.
func (g *Graph) table(name string) *Table {
	d, s := g.resolveName(strings.Split(name, "."))
	switch {
	case d != nil:
		return g.dataset(d)
	case s != nil:
		return g.source(s)
	}
	return nil
}

func (g *Graph) source(s *ir.Source) *Table {
	k := "source\x00" + ir.NameKey(s.Name)
	if t := g.tables[k]; t != nil {
		return t
	}
	t := &Table{Name: s.Name, Source: s}
	var cols []sema.Column
	if g.in.SourceColumns != nil {
		cols = g.in.SourceColumns(s)
	}
	for _, c := range cols {
		t.Columns = append(t.Columns, &Column{ID: ColumnID{s.Name, c.Name}, Type: c.Type})
	}
	t.Complete = cols != nil
	if !t.Complete {
		t.Reason = "the source's columns are not known (it has no CSV sample with a header)"
	}
	g.tables[k] = t
	return t
}

func (g *Graph) dataset(d *ir.Dataset) *Table {
	k := ir.NameKey(d.Name)
	if t := g.tables[k]; t != nil {
		return t
	}
	if g.inProgress[k] {
		return nil // a cycle, reported by the pipeline's validation
	}
	g.inProgress[k] = true
	defer delete(g.inProgress, k)
	t := &Table{Name: d.Name, Dataset: d}
	flows := g.into[k]
	main := g.own[k]
	if main == nil && len(flows) > 0 {
		main = flows[0]
	}
	if old := g.reusableTable(k, flows); old != nil {
		g.tables[k] = old
		return old
	}
	var types map[string]string
	if g.in.Types != nil {
		types = g.in.Types(d.Name)
	}
	switch fm := g.flow(main); {
	case main == nil:
		t.Reason = "no flow fills the dataset"
	case fm == nil:
		t.Reason = "its query does not parse with Spark's grammar"
	default:
		out := fm.Model.Output(fm.Tree)
		if out == nil {
			t.Reason = "its output is not known"
			break
		}
		t.Complete = out.Complete
		if !out.Complete {
			t.Reason = "it reads a table whose columns are not known"
		}
		for _, oc := range out.Columns {
			c := &Column{ID: ColumnID{d.Name, oc.Name}, Type: oc.Type, Generated: oc.Generated, Flow: main, Out: oc}
			if c.Type == "" {
				c.Type = types[strings.ToLower(oc.Name)]
			}
			c.Def, c.Via = fm.defOf(oc)
			t.Columns = append(t.Columns, c)
		}
	}
	g.tables[k] = t
	return t
}

// withDeps computes the dependencies of a dataset's columns, once; g.mu
// is held. Analyzing a flow needs only the columns of what it reads, so
// the dependencies are computed only for the tables asked about.
func (g *Graph) withDeps(t *Table) *Table {
	if t == nil || t.Dataset == nil || t.depsDone {
		return t
	}
	t.depsDone = true
	k := ir.NameKey(t.Name)
	flows := g.into[k]
	main := g.own[k]
	if main == nil && len(flows) > 0 {
		main = flows[0]
	}
	// Every flow into the dataset (append flows too) adds dependencies,
	// matched by column name.
	for _, f := range flows {
		fm := g.flow(f)
		if fm == nil {
			continue
		}
		out := fm.Model.Output(fm.Tree)
		if out == nil {
			continue
		}
		rows := fm.rowDeps()
		byPosition := f == main && len(out.Columns) == len(t.Columns)
		for i, oc := range out.Columns {
			var c *Column
			if byPosition {
				c = t.Columns[i]
			} else if c = t.Column(oc.Name); c == nil {
				// A table taken over from the previous graph whose main
				// flow now answers other columns (reusableTable) is
				// matched by name, as an append flow's are.
				continue
			}
			deps := map[Dep]bool{}
			for _, dp := range c.Deps {
				deps[dp] = true
			}
			fm.trace(oc, Passthrough, map[seenKey]bool{}, func(id ColumnID, k Kind) { deps[Dep{id, k}] = true })
			for _, dp := range rows {
				deps[dp] = true
			}
			c.Deps = sortDeps(deps)
		}
	}
	return t
}

func sortDeps(set map[Dep]bool) []Dep {
	out := make([]Dep, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].From.Table != out[j].From.Table {
			return out[i].From.Table < out[j].From.Table
		}
		if out[i].From.Column != out[j].From.Column {
			return out[i].From.Column < out[j].From.Column
		}
		return rank(out[i].Kind) < rank(out[j].Kind) || rank(out[i].Kind) == rank(out[j].Kind) && out[i].Kind < out[j].Kind
	})
	return out
}

// Readers returns the columns that depend directly on id, with how;
// sorted by table and column. Only the datasets reading id's table are
// analyzed.
func (g *Graph) Readers(id ColumnID) []Dep {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, src := g.resolveName(strings.Split(id.Table, "."))
	switch {
	case d != nil:
		id.Table = d.Name
	case src != nil:
		id.Table = src.Name
	default:
		return nil
	}
	tk := ir.NameKey(id.Table)
	edges, ok := g.readers[tk]
	if !ok {
		if g.readIndex == nil {
			g.indexReads()
		}
		seen := map[string]bool{}
		for _, f := range g.readIndex[readKey(d, src)] {
			target := g.p.Resolve(f.Target)
			if target == nil || seen[ir.NameKey(target.Name)] {
				continue
			}
			seen[ir.NameKey(target.Name)] = true
			t := g.withDeps(g.dataset(target))
			if t == nil {
				continue
			}
			for _, c := range t.Columns {
				for _, dp := range c.Deps {
					if ir.NameKey(dp.From.Table) == tk {
						edges = append(edges, readerEdge{c, dp.Kind, dp.From.Column})
					}
				}
			}
		}
		g.readers[tk] = edges
	}
	var out []Dep
	for _, e := range edges {
		if strings.EqualFold(e.from, id.Column) {
			out = append(out, Dep{From: e.col.ID, Kind: e.kind})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].From != out[j].From {
			return out[i].From.String() < out[j].From.String()
		}
		return rank(out[i].Kind) < rank(out[j].Kind)
	})
	return out
}

// readKey is the key of a dataset (or, d nil, a source) in readIndex.
func readKey(d *ir.Dataset, s *ir.Source) string {
	if d != nil {
		return "d\x00" + ir.NameKey(d.Name)
	}
	return "s\x00" + ir.NameKey(s.Name)
}

// indexReads builds readIndex, resolving every read of every flow once;
// g.mu is held.
func (g *Graph) indexReads() {
	g.readIndex = map[string][]*ir.Flow{}
	for _, f := range g.p.Flows {
		for _, r := range f.Reads {
			rd, rs := g.resolveName(strings.Split(r.Name, "."))
			if rd == nil && rs == nil {
				continue
			}
			k := readKey(rd, rs)
			if l := g.readIndex[k]; len(l) > 0 && l[len(l)-1] == f {
				continue // read twice by the same flow
			}
			g.readIndex[k] = append(g.readIndex[k], f)
		}
	}
}

// Lookup returns the column id names (its table resolved the way a query
// resolves it), or nil.
func (g *Graph) Lookup(id ColumnID) *Column {
	return g.Table(id.Table).Column(id.Column)
}

// FlowModel is the semantic model of one flow's query.
type FlowModel struct {
	Flow  *ir.Flow
	Tree  *ast.Query
	Model *sema.Model
	// Text is the flow's file text.
	Text string

	g *Graph
	// names are the table each catalog reference reads.
	names map[*sema.TableRef]string
	// answers are the catalog's answers the model rests on; reused is
	// set on a model taken over from the previous graph.
	answers []answer
	reused  bool
	// arms are the columns of the arms of each set operation's output
	// column.
	arms map[*sema.OutputColumn][]*sema.OutputColumn
	all  []*sema.OutputColumn
}

// File returns the flow's file.
func (fm *FlowModel) File() string {
	if fm.Flow.QueryLoc.File != "" {
		return fm.Flow.QueryLoc.File
	}
	return fm.Flow.Loc.File
}

// Loc returns a range of the flow's file.
func (fm *FlowModel) Loc(r ast.Range) ir.Loc {
	return ir.Loc{File: fm.File(), Start: r.Start, End: r.End}
}

// TableName returns the dataset or source a catalog table reference
// reads, or "".
func (fm *FlowModel) TableName(r *sema.TableRef) string { return fm.names[r] }

// answer is one table lookup of a flow's analysis and what it returned.
type answer struct {
	name []string
	cols []sema.Column
	ok   bool
}

// catalog is the sema.Catalog of one flow, recording its answers.
type catalog struct {
	g       *Graph
	answers *[]answer
}

// Table answers a table name with the columns of the dataset or source.
func (c catalog) Table(name []string) ([]sema.Column, bool) {
	cols, ok := c.lookup(name)
	if c.answers != nil {
		*c.answers = append(*c.answers, answer{name: append([]string(nil), name...), cols: cols, ok: ok})
	}
	return cols, ok
}

func (c catalog) lookup(name []string) ([]sema.Column, bool) {
	d, s := c.g.resolveName(name)
	var t *Table
	switch {
	case d != nil:
		t = c.g.dataset(d)
	case s != nil:
		t = c.g.source(s)
	default:
		return nil, false
	}
	if t == nil || !t.Complete {
		return nil, true
	}
	cols := make([]sema.Column, len(t.Columns))
	for i, col := range t.Columns {
		cols[i] = sema.Column{Name: col.ID.Column, Type: col.Type}
	}
	return cols, true
}

// flow analyzes f once; g.mu is held.
func (g *Graph) flow(f *ir.Flow) *FlowModel {
	if f == nil {
		return nil
	}
	if fm, ok := g.flows[f]; ok {
		return fm
	}
	var tree *ast.Query
	if g.in.Tree != nil {
		tree = g.in.Tree(f)
	}
	if tree == nil {
		g.flows[f] = nil
		return nil
	}
	if old := g.reusable(f, tree); old != nil {
		fm := *old
		fm.g = g
		fm.reused = true
		g.flows[f] = &fm
		return &fm
	}
	fm := &FlowModel{Flow: f, Tree: tree, g: g, names: map[*sema.TableRef]string{},
		arms: map[*sema.OutputColumn][]*sema.OutputColumn{}}
	if g.in.Text != nil {
		fm.Text, _ = g.in.Text(fm.File())
	}
	fm.Model = sema.Analyze(tree, catalog{g, &fm.answers}, sema.Options{Source: fm.Text})
	for _, r := range fm.Model.Tables {
		if r.Kind != sema.TableCatalog {
			continue
		}
		parts := make([]string, 0, len(r.Name.Parts))
		for _, p := range r.Name.Parts {
			if p != nil {
				parts = append(parts, p.Name)
			}
		}
		if d, s := g.resolveName(parts); d != nil {
			fm.names[r] = d.Name
		} else if s != nil {
			fm.names[r] = s.Name
		}
	}
	fm.index()
	g.flows[f] = fm
	return fm
}

// reusableTable returns the previous graph's table k when every flow
// into it kept its model (same flows, same inputs): the table is then the
// same. The caller gives a previous graph only when the types it was
// given are the same too.
func (g *Graph) reusableTable(k string, flows []*ir.Flow) *Table {
	if g.prev == nil || len(flows) == 0 {
		return nil
	}
	for _, f := range flows {
		if fm := g.flow(f); fm == nil || !fm.reused {
			return nil
		}
	}
	g.prev.mu.Lock()
	defer g.prev.mu.Unlock()
	old := g.prev.tables[k]
	if old == nil || len(g.prev.into[k]) != len(flows) || g.prev.own[k] != g.own[k] {
		return nil
	}
	for i, f := range g.prev.into[k] {
		if f != flows[i] {
			return nil
		}
	}
	return old
}

// reusable returns the previous graph's model of f when it still holds:
// the same tree, and every table it read answering the same now.
func (g *Graph) reusable(f *ir.Flow, tree *ast.Query) *FlowModel {
	if g.prev == nil {
		return nil
	}
	g.prev.mu.Lock()
	old := g.prev.flows[f]
	g.prev.mu.Unlock()
	if old == nil || old.Tree != tree {
		return nil
	}
	for _, a := range old.answers {
		cols, ok := catalog{g: g}.lookup(a.name)
		if ok != a.ok || !sameColumns(cols, a.cols) {
			return nil
		}
	}
	return old
}

func sameColumns(a, b []sema.Column) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// index collects every output column of the model and the arms of set
// operations.
func (fm *FlowModel) index() {
	seen := map[*sema.OutputColumn]bool{}
	add := func(cols []*sema.OutputColumn) {
		for _, c := range cols {
			if c != nil && !seen[c] {
				seen[c] = true
				fm.all = append(fm.all, c)
			}
		}
	}
	for _, r := range fm.Model.Relations {
		add(r.Columns)
	}
	ast.Inspect(fm.Tree, func(n ast.Node) bool {
		if n == nil {
			return true
		}
		if out := fm.Model.Output(n); out != nil {
			add(out.Columns)
		}
		if so, ok := n.(*ast.SetOp); ok {
			out, l, r := fm.Model.Output(so), fm.Model.Output(so.L), fm.Model.Output(so.R)
			if out != nil {
				for i, c := range out.Columns {
					for _, arm := range []*sema.Output{l, r} {
						if arm != nil && i < len(arm.Columns) {
							fm.arms[c] = append(fm.arms[c], arm.Columns[i])
						}
					}
				}
			}
		}
		return true
	})
}

// seenKey guards a trace against cycles (a recursive CTE).
type seenKey struct {
	oc *sema.OutputColumn
	k  Kind
}

// trace reports the base columns (of datasets and sources) oc is
// computed from, with the kind of the path so far (k).
func (fm *FlowModel) trace(oc *sema.OutputColumn, k Kind, seen map[seenKey]bool, add func(ColumnID, Kind)) {
	if oc == nil || seen[seenKey{oc, k}] {
		return
	}
	seen[seenKey{oc, k}] = true
	switch {
	case oc.Source != nil:
		fm.traceSource(*oc.Source, k, seen, add)
	case oc.Expr != nil:
		fm.traceExpr(oc.Expr, k, seen, add)
	default:
		for _, arm := range fm.arms[oc] {
			fm.trace(arm, k, seen, add)
		}
	}
}

// traceSource traces one column of a relation.
func (fm *FlowModel) traceSource(src sema.ColumnSource, k Kind, seen map[seenKey]bool, add func(ColumnID, Kind)) {
	col := src.Column()
	if col == nil {
		return
	}
	if t := src.Rel.Table; t != nil && t.Kind == sema.TableCatalog {
		name := fm.names[t]
		if name == "" {
			return
		}
		cn := col.Name
		if src.Index < len(t.Columns) {
			cn = t.Columns[src.Index].Name // the table's name under AS x(a, b)
		}
		add(ColumnID{name, cn}, k)
		return
	}
	fm.trace(col, k, seen, add)
}

// traceExpr traces the columns an expression reads.
func (fm *FlowModel) traceExpr(x ast.Expr, k Kind, seen map[seenKey]bool, add func(ColumnID, Kind)) {
	if c, ok := unparen(x).(*ast.Column); ok {
		fm.traceRef(c, k, seen, add)
		return
	}
	var stack []bool
	aggs := 0
	ast.Inspect(x, func(n ast.Node) bool {
		if n == nil {
			if stack[len(stack)-1] {
				aggs--
			}
			stack = stack[:len(stack)-1]
			return true
		}
		agg := false
		if call, ok := n.(*ast.Call); ok && isAggregate(call) {
			agg = true
			aggs++
		}
		stack = append(stack, agg)
		if c, ok := n.(*ast.Column); ok {
			step := Expression
			if aggs > 0 {
				step = Aggregate
			}
			fm.traceRef(c, combine(k, step), seen, add)
		}
		return true
	})
}

// traceRef traces a column reference.
func (fm *FlowModel) traceRef(c *ast.Column, k Kind, seen map[seenKey]bool, add func(ColumnID, Kind)) {
	r := fm.Model.Column(c)
	if r == nil {
		return
	}
	switch r.Kind {
	case sema.RefColumn:
		fm.traceSource(r.Source, k, seen, add)
	case sema.RefAlias:
		if r.Alias != nil && r.Alias.X != nil {
			fm.traceExpr(r.Alias.X, k, seen, add)
		}
	}
}

// rowDeps are the columns of the flow's filters and join keys.
func (fm *FlowModel) rowDeps() []Dep {
	set := map[Dep]bool{}
	add := func(kind Kind) func(ColumnID, Kind) {
		return func(id ColumnID, _ Kind) { set[Dep{id, kind}] = true }
	}
	ast.Inspect(fm.Tree, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Select:
			for _, x := range []ast.Expr{n.Where, n.Having} {
				if x != nil {
					fm.traceExpr(x, Filter, map[seenKey]bool{}, add(Filter))
				}
			}
		case *ast.Join:
			if n.On != nil {
				fm.traceExpr(n.On, Join, map[seenKey]bool{}, add(Join))
			}
		}
		return true
	})
	return sortDeps(set)
}

// defOf returns where oc is computed in this flow, or, for a column a *
// passes on from an upstream table, that table's column.
func (fm *FlowModel) defOf(oc *sema.OutputColumn) (ir.Loc, *ColumnID) {
	for i := 0; oc != nil && i < 64; i++ {
		if oc.Item != nil && oc.Expr != nil {
			return fm.Loc(oc.Expr.Span()), nil
		}
		if oc.Source == nil {
			return ir.Loc{}, nil
		}
		src := *oc.Source
		if t := src.Rel.Table; t != nil && t.Kind == sema.TableCatalog {
			col := src.Column()
			if name := fm.names[t]; name != "" && col != nil {
				cn := col.Name
				if src.Index < len(t.Columns) {
					cn = t.Columns[src.Index].Name
				}
				return ir.Loc{}, &ColumnID{name, cn}
			}
			return ir.Loc{}, nil
		}
		oc = src.Column()
	}
	return ir.Loc{}, nil
}

// Origin returns where a column of this flow's model comes from: the
// expression computing it in this flow (def set), or the upstream
// table's column it passes on unchanged (via set).
func (fm *FlowModel) Origin(oc *sema.OutputColumn) (def ir.Loc, via *ColumnID) {
	return fm.defOf(oc)
}

// Deps returns the base columns a column of this flow's model is
// computed from (without the flow's filters and join keys).
func (fm *FlowModel) Deps(oc *sema.OutputColumn) []Dep {
	set := map[Dep]bool{}
	fm.g.mu.Lock()
	defer fm.g.mu.Unlock()
	fm.trace(oc, Passthrough, map[seenKey]bool{}, func(id ColumnID, k Kind) { set[Dep{id, k}] = true })
	return sortDeps(set)
}

// RefDeps returns the base columns a column reference reads.
func (fm *FlowModel) RefDeps(c *ast.Column) []Dep {
	set := map[Dep]bool{}
	fm.g.mu.Lock()
	defer fm.g.mu.Unlock()
	fm.traceRef(c, Passthrough, map[seenKey]bool{}, func(id ColumnID, k Kind) { set[Dep{id, k}] = true })
	return sortDeps(set)
}

// Columns returns every output column of the model: of its queries, CTEs,
// subqueries and relations.
func (fm *FlowModel) Columns() []*sema.OutputColumn { return fm.all }

// isAggregate reports whether a call is to a built-in aggregate.
func isAggregate(c *ast.Call) bool {
	if c.Name == nil || len(c.Name.Parts) == 0 {
		return false
	}
	last := c.Name.Parts[len(c.Name.Parts)-1]
	return last != nil && sema.IsAggregate(strings.ToLower(last.Name))
}

func unparen(x ast.Expr) ast.Expr {
	for {
		p, ok := x.(*ast.Paren)
		if !ok || p.X == nil {
			return x
		}
		x = p.X
	}
}
