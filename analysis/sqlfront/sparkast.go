package sqlfront

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/lex"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
	"github.com/thund-dev/thund/ir"
)

// sparkRead is what the Spark SQL parser learns of one query: its tree
// and the facts the rest of analysis needs from it. Offsets are file
// offsets.
type sparkRead struct {
	query *ast.Query
	err   *ast.SyntaxError
	// notQuery is set when the text is a statement other than a query.
	notQuery bool
	refs     []sparkRef
	funcs    []FuncRef
	// groups are the GROUP BY clauses of the query's data flow; aggs the
	// names of aggregate calls outside windows in it.
	groups []ast.Range
	aggs   []ast.Range
	// watermark is the first WATERMARK clause.
	watermark *ast.Watermark
}

type sparkRef struct {
	name   string
	stream bool
	loc    ast.Range
}

// readSpark parses the query text[sp] with Spark's grammar; offsets are
// file offsets.
func readSpark(file, text string, sp Span, vars map[string]string) *sparkRead {
	r := &sparkRead{}
	opts := queryOptions
	opts.Vars = pipelineVars(vars)
	st, errs := parser.ParseStatementAt(text, sp.Start, sp.End, opts)
	if len(errs) > 0 {
		r.err = errs[0]
		return r
	}
	qs, ok := st.(*ast.QueryStmt)
	if !ok {
		r.notQuery = true
		r.err = &ast.SyntaxError{Range: st.Span(), Class: "PARSE_SYNTAX_ERROR", Message: "not a query"}
		return r
	}
	r.query = qs.Query
	w := sparkWalker{r: r, file: file}
	w.fromList = w.fromBuf[:0]
	w.query(qs.Query, nil, false)
	return r
}

// sparkWalker collects references, calls and aggregation over a Spark
// tree, keeping track of the CTEs in scope.
type sparkWalker struct {
	r    *sparkRead
	file string
	// fromList, then froms once it is long, are the FROM clauses walked
	// (seenFrom); fromBuf is fromList's first room.
	fromList []*ast.From
	froms    map[*ast.From]bool
	fromBuf  [4]*ast.From
}

// query walks q with the CTE names sc in scope; expr is set inside an
// expression subquery (whose aggregates do not make the query aggregate).
func (w *sparkWalker) query(q *ast.Query, sc *scope, expr bool) {
	if q == nil {
		return
	}
	if q.With != nil {
		var names []string
		for _, c := range q.With.CTEs {
			names = append(names, c.Name.Name)
		}
		inner := &scope{names: names, parent: sc}
		for i, c := range q.With.CTEs {
			body := inner
			if !q.With.Recursive {
				body = &scope{names: names[:i], parent: sc}
			}
			w.query(c.Query, body, expr)
		}
		sc = inner
	}
	w.body(q.Body, sc, expr)
	for _, s := range q.OrderBy {
		w.expr(s.X, sc)
	}
	for _, s := range q.SortBy {
		w.expr(s.X, sc)
	}
	w.exprs(q.ClusterBy, sc)
	w.exprs(q.DistributeBy, sc)
	w.windows(q.Windows, sc)
	w.expr(q.Limit, sc)
	w.expr(q.Offset, sc)
}

func (w *sparkWalker) body(b ast.QueryExpr, sc *scope, expr bool) {
	switch x := b.(type) {
	case *ast.Select:
		w.sel(x, sc, expr)
	case *ast.SetOp:
		w.body(x.L, sc, expr)
		w.body(x.R, sc, expr)
	case *ast.ParenQuery:
		w.query(x.Query, sc, expr)
	case *ast.Values:
		w.exprs(x.Rows, sc)
	case *ast.TableQuery:
		w.table(x.Name, false, sc)
	case *ast.Pipe:
		w.body(x.Input, sc, expr)
		for _, op := range x.Ops {
			if op.Select != nil {
				w.sel(op.Select, sc, expr)
			}
			for _, a := range op.Set {
				w.expr(a.Value, sc)
			}
			if op.Join != nil {
				w.relation(op.Join.R, sc, expr)
				w.expr(op.Join.On, sc)
			}
			if op.Right != nil {
				w.body(op.Right, sc, expr)
			}
			if op.Org != nil {
				w.query(op.Org, sc, expr)
			}
			if op.Pivot != nil {
				w.pivot(op.Pivot, sc, expr)
			}
			if op.Unpivot != nil && op.Unpivot.Input != nil {
				w.relation(op.Unpivot.Input, sc, expr)
			}
		}
	}
}

func (w *sparkWalker) sel(s *ast.Select, sc *scope, expr bool) {
	if s.GroupBy != nil && !expr {
		w.r.groups = append(w.r.groups, s.GroupBy.Range)
	}
	for _, it := range s.Items {
		w.exprAgg(it.X, sc, expr)
	}
	if s.From != nil && !w.seenFrom(s.From) {
		for _, rel := range s.From.Relations {
			w.relation(rel, sc, expr)
		}
		for _, lv := range s.From.LateralViews {
			w.expr(lv.Call, sc)
		}
		if s.From.Pivot != nil {
			w.pivot(s.From.Pivot, sc, expr)
		}
	}
	for _, lv := range s.LateralViews {
		w.expr(lv.Call, sc)
	}
	w.expr(s.Where, sc)
	if s.GroupBy != nil {
		w.groupItems(s.GroupBy.Items, sc)
		w.groupItems(s.GroupBy.GroupingSets, sc)
	}
	w.exprAgg(s.Having, sc, expr)
	w.windows(s.Windows, sc)
}

// seenFrom reports whether a FROM clause shared by several bodies of a
// FROM-first query was walked already, and marks it.
func (w *sparkWalker) seenFrom(f *ast.From) bool {
	if w.froms == nil {
		// the usual query has a few FROM clauses: a list, not a map
		for _, g := range w.fromList {
			if g == f {
				return true
			}
		}
		if len(w.fromList) < 16 {
			w.fromList = append(w.fromList, f)
			return false
		}
		w.froms = make(map[*ast.From]bool, 2*len(w.fromList))
		for _, g := range w.fromList {
			w.froms[g] = true
		}
	}
	seen := w.froms[f]
	w.froms[f] = true
	return seen
}

func (w *sparkWalker) groupItems(items []*ast.GroupItem, sc *scope) {
	for _, g := range items {
		w.expr(g.X, sc)
		w.groupItems(g.Items, sc)
	}
}

func (w *sparkWalker) windows(ws []*ast.NamedWindow, sc *scope) {
	for _, nw := range ws {
		w.window(nw.Window, sc)
	}
}

func (w *sparkWalker) window(win *ast.Window, sc *scope) {
	if win == nil {
		return
	}
	w.exprs(win.PartitionBy, sc)
	for _, s := range win.OrderBy {
		w.expr(s.X, sc)
	}
	if f := win.Frame; f != nil {
		if f.Start != nil {
			w.expr(f.Start.Offset, sc)
		}
		if f.End != nil {
			w.expr(f.End.Offset, sc)
		}
	}
}

func (w *sparkWalker) pivot(p *ast.Pivot, sc *scope, expr bool) {
	if p.Input != nil {
		w.relation(p.Input, sc, expr)
	}
	for _, a := range p.Aggregates {
		w.exprAgg(a.X, sc, true)
	}
	for _, v := range p.Values {
		w.expr(v.X, sc)
	}
}

func (w *sparkWalker) relation(rel ast.Relation, sc *scope, expr bool) {
	switch x := rel.(type) {
	case *ast.Table:
		w.table(x.Name, x.Stream, sc)
		if x.Temporal != nil {
			w.expr(x.Temporal.Value, sc)
		}
		w.watermark(x.Watermark, sc, expr)
	case *ast.SubqueryRel:
		w.query(x.Query, sc, expr)
		w.watermark(x.Watermark, sc, expr)
	case *ast.ParenRel:
		w.relation(x.Rel, sc, expr)
	case *ast.Values:
		w.exprs(x.Rows, sc)
	case *ast.TableFunc:
		w.call(x.Call, sc, true)
	case *ast.Join:
		w.relation(x.L, sc, expr)
		w.relation(x.R, sc, expr)
		w.expr(x.On, sc)
	case *ast.Pivot:
		w.pivot(x, sc, expr)
	case *ast.Unpivot:
		if x.Input != nil {
			w.relation(x.Input, sc, expr)
		}
	}
}

// watermark records the first WATERMARK clause of the data flow.
func (w *sparkWalker) watermark(wm *ast.Watermark, sc *scope, expr bool) {
	if wm == nil {
		return
	}
	w.expr(wm.Column.X, sc)
	if w.r.watermark == nil && !expr {
		w.r.watermark = wm
	}
}

// table records a table reference unless it names a CTE in scope or a
// file (parquet.`/data/x`).
func (w *sparkWalker) table(n *ast.Name, stream bool, sc *scope) {
	if n == nil || len(n.Parts) == 0 {
		return
	}
	name := n.String()
	if len(n.Parts) == 1 && sc.has(name, true) {
		return
	}
	if isFilePath(name) {
		return
	}
	for _, p := range n.Parts {
		if p.Expr != nil {
			return // IDENTIFIER(expr): the name is computed
		}
	}
	w.r.refs = append(w.r.refs, sparkRef{name: name, stream: stream, loc: n.Range})
}

func (w *sparkWalker) exprs(xs []ast.Expr, sc *scope) {
	for _, x := range xs {
		w.expr(x, sc)
	}
}

// expr walks an expression that is not in the select list (its aggregate
// calls do not count: a WHERE cannot hold one, and ORDER BY's come with a
// GROUP BY or an aggregate in the list).
func (w *sparkWalker) expr(x ast.Expr, sc *scope) { w.exprAgg(x, sc, true) }

// exprAgg walks x; aggregate calls count unless noAgg.
func (w *sparkWalker) exprAgg(x ast.Expr, sc *scope, noAgg bool) {
	switch x := x.(type) {
	case nil:
	case *ast.Call:
		w.call(x, sc, noAgg)
	case *ast.Subquery:
		w.query(x.Query, sc, true)
	case *ast.Exists:
		w.query(x.Query, sc, true)
	case *ast.In:
		w.exprAgg(x.X, sc, noAgg)
		for _, y := range x.List {
			w.exprAgg(y, sc, noAgg)
		}
		w.query(x.Query, sc, true)
	case *ast.Unary:
		w.exprAgg(x.X, sc, noAgg)
	case *ast.Binary:
		w.exprAgg(x.L, sc, noAgg)
		w.exprAgg(x.R, sc, noAgg)
	case *ast.Between:
		w.exprAgg(x.X, sc, noAgg)
		w.exprAgg(x.Lo, sc, noAgg)
		w.exprAgg(x.Hi, sc, noAgg)
	case *ast.Like:
		w.exprAgg(x.X, sc, noAgg)
		for _, y := range x.Patterns {
			w.exprAgg(y, sc, noAgg)
		}
	case *ast.Is:
		w.exprAgg(x.X, sc, noAgg)
		w.exprAgg(x.Other, sc, noAgg)
	case *ast.Paren:
		w.exprAgg(x.X, sc, noAgg)
	case *ast.Row:
		for _, it := range x.Items {
			w.exprAgg(it.X, sc, noAgg)
		}
	case *ast.Cast:
		w.exprAgg(x.X, sc, noAgg)
	case *ast.Case:
		w.exprAgg(x.Operand, sc, noAgg)
		for _, wh := range x.Whens {
			w.exprAgg(wh.Cond, sc, noAgg)
			w.exprAgg(wh.Result, sc, noAgg)
		}
		w.exprAgg(x.Else, sc, noAgg)
	case *ast.NamedArg:
		w.exprAgg(x.Value, sc, noAgg)
	case *ast.TableArg:
		if x.Name != nil {
			w.table(x.Name, false, sc)
		}
		w.query(x.Query, sc, true)
		w.exprs(x.PartitionBy, sc)
	case *ast.Lambda:
		w.exprAgg(x.Body, sc, noAgg)
	case *ast.Subscript:
		w.exprAgg(x.X, sc, noAgg)
		w.exprAgg(x.Index, sc, noAgg)
	case *ast.Field:
		w.exprAgg(x.X, sc, noAgg)
	case *ast.Extract:
		w.exprAgg(x.X, sc, noAgg)
	case *ast.Collate:
		w.exprAgg(x.X, sc, noAgg)
	case *ast.Interval:
		for _, u := range x.Units {
			w.exprAgg(u.Value, sc, noAgg)
		}
	}
}

// call records a function call (a call written with parentheses) and
// walks its arguments.
func (w *sparkWalker) call(c *ast.Call, sc *scope, noAgg bool) {
	if !c.NoParens && c.Name != nil {
		args := len(c.Args)
		if c.Unit != nil {
			args++
		}
		if len(c.Args) == 1 {
			if st, ok := c.Args[0].(*ast.Star); ok && st.Qualifier == nil && st.Except == nil {
				args = 0 // count(*)
			}
		}
		w.r.funcs = append(w.r.funcs, FuncRef{Name: c.Name.String(), Args: args,
			Loc: Span{c.Name.Start, c.Name.End}.Loc(w.file)})
		if !noAgg && c.Over == nil && isAggregateName(c.Name) {
			w.r.aggs = append(w.r.aggs, c.Name.Range)
		}
	}
	// an aggregate's arguments hold no further aggregation of the query
	inner := noAgg || (c.Name != nil && isAggregateName(c.Name))
	for _, a := range c.Args {
		w.exprAgg(a, sc, inner)
	}
	for _, s := range c.WithinGroup {
		w.expr(s.X, sc)
	}
	w.expr(c.Filter, sc)
	w.window(c.Over, sc)
}

// groupByKeywords returns the range of the GROUP BY keywords that start g.
func groupByKeywords(text string, g ast.Range) Span {
	end := min(len(text), g.End)
	toks := lex.Lex(text[g.Start:end])
	n := 0
	for _, t := range toks {
		if t.Kind.IsComment() {
			continue
		}
		n++
		if n == 2 {
			return Span{g.Start, g.Start + t.End}
		}
	}
	return Span{g.Start, g.Start + 5}
}

// isAggregateName reports whether a call's name is one of Spark's
// aggregate functions, alone or qualified as a built-in
// (system.builtin.count, builtin.count).
func isAggregateName(n *ast.Name) bool {
	last := n.Last()
	if last == nil || !aggregateFuncs[strings.ToLower(last.Name)] {
		return false
	}
	switch len(n.Parts) {
	case 1:
		return true
	case 2:
		return strings.EqualFold(n.Parts[0].Name, "builtin")
	case 3:
		return strings.EqualFold(n.Parts[0].Name, "system") && strings.EqualFold(n.Parts[1].Name, "builtin")
	}
	return false
}

// sqlWatermark describes a WATERMARK clause as an ir.Watermark: the
// column as written (its alias if it has one) and the delay as an
// interval's text ("10 seconds").
func sqlWatermark(file, text string, wm *ast.Watermark) *ir.Watermark {
	col := text[wm.Column.X.Span().Start:wm.Column.X.Span().End]
	if c, ok := wm.Column.X.(*ast.Column); ok {
		col = c.Parts[len(c.Parts)-1].Name
	}
	if wm.Column.Alias != nil {
		col = wm.Column.Alias.Name
	}
	var delay []string
	if d := wm.Delay; d != nil {
		for _, u := range d.Units {
			v := text[u.Value.Span().Start:u.Value.Span().End]
			if l, ok := u.Value.(*ast.Literal); ok && l.Str != nil {
				v = l.Str.Value
			}
			if u.Negative {
				v = "-" + v
			}
			delay = append(delay, v+" "+strings.ToLower(u.Unit))
		}
	}
	return &ir.Watermark{Column: col, Delay: strings.Join(delay, " "), InSQL: true,
		Loc: ir.Loc{File: file, Start: wm.Start, End: wm.End}}
}

// noVars are the parameters of a text read without any: every ${key} in
// it is then an unset parameter, reported as one.
var noVars = map[string]string{}

// pipelineVars are the parameters a Spark SQL text of a pipeline is read
// with: vars, or none set.
func pipelineVars(vars map[string]string) map[string]string {
	if vars == nil {
		return noVars
	}
	return vars
}

// substitute returns s (text as written, such as a string literal with its
// quotes) with the pipeline's parameters substituted, as Spark substitutes
// them before it reads s.
func substitute(s string, vars map[string]string) string { return lex.Substitute(s, vars) }

// databricksOptions are the options Databricks' statements are read with
// (sparkOptions), with the pipeline's parameters.
func (p *stmtParser) databricksOptions() parser.Options {
	o := sparkOptions
	o.Vars = pipelineVars(p.vars)
	return o
}

// paramName reads at token i a name written with pipeline parameters
// (${catalog}.${schema}.orders, ${stage}_trips): the tokens that touch one
// another from i on, holding a ${...}. It returns the name Spark reads once
// the parameters are substituted, unquoted and joined by dots, and its
// range as written; false when no such name starts at i or the
// substituted text is no dotted name (the Spark parser reports that).
func (p *stmtParser) paramName(i int) (string, Span, int, bool) {
	if i >= len(p.toks) || p.toks[i].kind != tkWord && p.toks[i].kind != tkQuoted && !(p.punct(i, '$') && p.punct(i+1, '{')) {
		return "", Span{}, i, false
	}
	j := i + 1
	for j < len(p.toks) && p.toks[j].start == p.toks[j-1].end {
		t := p.toks[j]
		if t.kind != tkWord && t.kind != tkQuoted && !p.punct(j, '$') && !p.punct(j, '{') && !p.punct(j, '}') && !p.punct(j, '.') {
			break
		}
		j++
	}
	sp := Span{p.toks[i].start, p.toks[j-1].end}
	written := p.text[sp.Start:sp.End]
	if !strings.Contains(written, "${") || lex.SubstitutionOff(p.vars) {
		return "", Span{}, i, false
	}
	vars := pipelineVars(p.vars)
	_, refs := lex.LexParams(nil, p.text, sp.Start, sp.End, vars)
	for _, r := range refs {
		if r.IsProblem() {
			p.errSpan(r.Start, r.End, parser.ParamMessage(r, vars))
			break
		}
	}
	toks := lex.Lex(lex.Substitute(written, vars))
	var parts []string
	for k, t := range toks {
		switch {
		case k%2 == 0 && (t.Kind == lex.Ident || t.Kind == lex.QuotedIdent):
			v := t.Text
			if t.Kind == lex.QuotedIdent {
				v, _ = lex.Unquote(t)
			}
			parts = append(parts, v)
		case k%2 == 1 && t.Kind == lex.Dot:
		default:
			return "", Span{}, i, false
		}
	}
	if len(parts) == 0 || len(toks)%2 == 0 {
		return "", Span{}, i, false
	}
	return strings.Join(parts, "."), sp, j, true
}
