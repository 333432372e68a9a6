package sema

import (
	"strings"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
)

// ctx is where an expression is resolved: the levels a name is looked up
// in, in Spark's order (lambda parameters, then first, primary, after and
// the outer scopes), and what the grouping check collects.
type ctx struct {
	lam *lamFrame
	// first is looked up before the FROM scope: the select list's output
	// in ORDER BY and HAVING.
	first *scope
	// primary is the FROM scope.
	primary *scope
	// after is looked up after the FROM scope: the select-list aliases
	// in GROUP BY, the aliases of earlier items in the select list.
	after *scope
	outer *env
	// virtual makes window and session_window names of columns (the
	// query groups by those functions).
	virtual bool
	// clause names the clause, for messages; whereAliases are the
	// select-list aliases a WHERE cannot see.
	clause       string
	whereAliases []string
	// gc collects, for the grouping check, whether the select list
	// aggregates or has a window, and (collect) its column references
	// outside aggregates and outside anything the check cannot see into.
	gc      *groupCheck
	collect bool
	inAgg   bool
	opaque  bool
	// allowAll lets ALL stand (GROUP BY ALL, ORDER BY ALL).
	allowAll bool
	// quiet suppresses diagnostics (LIMIT, time travel, PIVOT values);
	// quietQualified those of qualified names only.
	quiet, quietQualified bool
	// groupRefs collects every column reference (GROUP BY, PIVOT).
	groupRefs *[]*ColumnRef
	// aliasCheck says a name several select items have is checked for
	// ambiguity (GROUP BY, HAVING); groupAll says GROUP BY is ALL, and
	// items are the select list's columns.
	aliasCheck aliasKind
	groupAll   bool
	items      []attr
}

// lamFrame is one lambda whose parameters are in scope.
type lamFrame struct {
	l      *ast.Lambda
	parent *lamFrame
}

// groupCheck is what a select list says for the GROUP BY check.
type groupCheck struct {
	refs   []*ColumnRef
	agg    bool
	window bool
}

// expr resolves the names in x.
func (a *analyzer) expr(x ast.Expr, c ctx) {
	switch x := x.(type) {
	case *ast.Column:
		a.column(x, c)
	case *ast.Interval:
		for _, u := range x.Units {
			if u != nil {
				a.expr(u.Value, c)
			}
		}
	case *ast.Unary:
		a.expr(x.X, c)
	case *ast.Binary:
		a.expr(x.L, c)
		a.expr(x.R, c)
		if !c.quiet {
			a.binaryTypes(x)
		}
	case *ast.Between:
		a.expr(x.X, c)
		a.expr(x.Lo, c)
		a.expr(x.Hi, c)
	case *ast.In:
		a.expr(x.X, c)
		for _, y := range x.List {
			a.expr(y, c)
		}
		a.subquery(x.Query, c)
		if !c.quiet {
			a.inLength(x)
			a.inTypes(x)
		}
	case *ast.Like:
		a.expr(x.X, c)
		for _, y := range x.Patterns {
			a.expr(y, c)
		}
	case *ast.Is:
		a.expr(x.X, c)
		a.expr(x.Other, c)
	case *ast.Exists:
		a.subquery(x.Query, c)
	case *ast.Subquery:
		a.subquery(x.Query, c)
	case *ast.Paren:
		a.expr(x.X, c)
	case *ast.Row:
		for _, it := range x.Items {
			if it != nil {
				a.expr(it.X, c)
			}
		}
	case *ast.Cast:
		a.expr(x.X, c)
	case *ast.Case:
		a.expr(x.Operand, c)
		for _, w := range x.Whens {
			if w != nil {
				a.expr(w.Cond, c)
				a.expr(w.Result, c)
			}
		}
		a.expr(x.Else, c)
	case *ast.Call:
		a.call(x, c)
	case *ast.NamedArg:
		a.expr(x.Value, c)
	case *ast.TableArg:
		a.tableArg(x, a.subEnv(c))
	case *ast.Lambda:
		inner := c
		inner.lam = &lamFrame{l: x, parent: c.lam}
		inner.opaque = true
		a.expr(x.Body, inner)
	case *ast.Subscript:
		a.expr(x.X, c)
		a.expr(x.Index, c)
	case *ast.Field:
		a.expr(x.X, c)
	case *ast.Extract:
		a.expr(x.X, c)
	case *ast.Collate:
		a.expr(x.X, c)
	}
}

// subquery analyzes a query used as an expression, which sees the
// enclosing scopes as outer scopes.
func (a *analyzer) subquery(q *ast.Query, c ctx) {
	if q != nil {
		a.query(q, a.subEnv(c))
	}
}

// subEnv returns the outer scopes of a subquery written in c: the FROM
// scope, with the select list's names where Spark's outer plan has them
// (a subquery in HAVING or ORDER BY sees the aggregate's output) and no
// FROM column has the name.
func (a *analyzer) subEnv(c ctx) *env {
	sc := c.primary
	for _, extra := range []*scope{c.first, c.after} {
		switch {
		case extra == nil:
		case sc == nil:
			sc = extra
		default:
			merged := &scope{attrs: append([]attr(nil), sc.attrs...), complete: sc.complete && extra.complete,
				qualLoose: sc.qualLoose, catalog: sc.catalog || extra.catalog}
			for _, at := range extra.attrs {
				if len(a.lookup(sc, []string{at.name}).cands) == 0 {
					merged.attrs = append(merged.attrs, at)
				}
			}
			sc = merged
		}
	}
	if sc == nil {
		sc = emptyScope()
	}
	return &env{sc: sc, parent: c.outer}
}

// call resolves a function call's arguments, noting aggregates and
// windows for the grouping check.
func (a *analyzer) call(x *ast.Call, c ctx) {
	name, builtin := funcName(x.Name)
	inner := c
	switch {
	case x.Over != nil:
		if c.gc != nil {
			c.gc.window = true
		}
		inner.inAgg = true
	case builtin && IsAggregate(name):
		if c.gc != nil {
			c.gc.agg = true
		}
		inner.inAgg = true
		defer func() {
			if !c.quiet && c.outer != nil {
				a.mixedAggregate(x)
			}
		}()
	case !builtin || !isScalar(name):
		// a function the model does not know may be a user-defined
		// aggregate: the grouping check does not look inside.
		inner.opaque = true
	}
	for _, arg := range x.Args {
		if _, star := arg.(*ast.Star); star {
			continue
		}
		a.expr(arg, inner)
	}
	for _, s := range x.WithinGroup {
		if s != nil {
			a.expr(s.X, inner)
		}
	}
	a.expr(x.Filter, inner)
	a.window(x.Over, inner)
	if !c.quiet {
		a.callSyntax(x)
		if !a.callSignature(x) { // funcsig.go; one finding per call
			a.callTypes(x)
		}
	}
}

// window resolves a window specification's expressions.
func (a *analyzer) window(w *ast.Window, c ctx) {
	if w == nil {
		return
	}
	for _, p := range w.PartitionBy {
		a.expr(p, c)
	}
	for _, s := range w.OrderBy {
		if s != nil {
			a.expr(s.X, c)
		}
	}
	if w.Frame != nil {
		for _, b := range []*ast.FrameBound{w.Frame.Start, w.Frame.End} {
			if b != nil {
				a.expr(b.Offset, c)
			}
		}
	}
}

// funcName returns a call's function name, lower-cased, and whether it
// names a built-in function (unqualified, or qualified builtin. or
// system.builtin.).
func funcName(n *ast.Name) (string, bool) {
	if n == nil || len(n.Parts) == 0 {
		return "", false
	}
	for _, p := range n.Parts {
		if p == nil || p.Expr != nil {
			return "", false
		}
	}
	last := strings.ToLower(n.Parts[len(n.Parts)-1].Name)
	switch len(n.Parts) {
	case 1:
		return last, true
	case 2:
		return last, strings.EqualFold(n.Parts[0].Name, "builtin")
	case 3:
		return last, strings.EqualFold(n.Parts[0].Name, "system") && strings.EqualFold(n.Parts[1].Name, "builtin")
	}
	return last, false
}

// level is one scope of a lookup.
type level struct {
	sc    *scope
	depth int
	alias bool
	// lateral: the FROM items before a LATERAL subquery (env.lateral)
	lateral bool
}

// levels returns the scopes of c in lookup order, appended to ls (a
// caller's array on its stack, most often: a column reference is
// resolved against a few levels).
func (c *ctx) levels(ls []level) []level {
	if c.first != nil {
		ls = append(ls, level{sc: c.first, alias: true})
	}
	if c.primary != nil {
		ls = append(ls, level{sc: c.primary})
	}
	if c.after != nil {
		ls = append(ls, level{sc: c.after, alias: true})
	}
	d := 1
	for e := c.outer; e != nil; e = e.parent {
		ls = append(ls, level{sc: e.sc, depth: d, lateral: e.lateral})
		d++
	}
	return ls
}

// refChunk is how many column references are allocated at a time.
const refChunk = 16

// newRef returns a new column reference to col, taken from a chunk the
// analyzer allocates a few at a time.
func (a *analyzer) newRef(col *ast.Column) *ColumnRef {
	if len(a.refs) == 0 {
		a.refs = make([]ColumnRef, refChunk)
	}
	ref := &a.refs[0]
	a.refs = a.refs[1:]
	ref.Node = col
	return ref
}

// column resolves one column reference.
func (a *analyzer) column(col *ast.Column, c ctx) {
	if col == nil || len(col.Parts) == 0 {
		return
	}
	if _, done := a.m.columns[col]; done {
		return
	}
	ref := a.newRef(col)
	a.m.Columns = append(a.m.Columns, ref)
	a.m.columns[col] = ref
	if c.gc != nil && c.collect && !c.inAgg && !c.opaque {
		c.gc.refs = append(c.gc.refs, ref)
	}
	if c.groupRefs != nil {
		*c.groupRefs = append(*c.groupRefs, ref)
	}
	parts := make([]string, len(col.Parts))
	for i, p := range col.Parts {
		// IDENTIFIER(expr), or IDENTIFIER('a.b') read as one part: the
		// model does not split it.
		if p == nil || p.Expr != nil || p.Name == "" || (identifierClause(p) && strings.ContainsAny(p.Name, ".`")) {
			return
		}
		parts[i] = p.Name
	}
	for l := c.lam; l != nil; l = l.parent {
		for _, p := range l.l.Params {
			if p != nil && a.eqName(p.Name, parts[0]) {
				ref.Kind, ref.Lambda, ref.Param, ref.NameParts = RefLambda, l.l, p, 1
				return
			}
		}
	}
	quoted := false
	for _, p := range col.Parts {
		quoted = quoted || p.Quoted
	}
	if quoted && a.opts.QuotedRegexColumnNames {
		return
	}
	uncertain := false
	var lbuf [6]level
	for _, lv := range c.levels(lbuf[:0]) {
		m := a.lookup(lv.sc, parts)
		if len(m.cands) == 0 {
			if !a.certainMiss(lv.sc, parts, quoted) {
				uncertain = true
			}
			continue
		}
		if lv.lateral && lv.depth >= 2 && !uncertain && !c.quiet && !a.quiet {
			// a LATERAL subquery's left side, seen from a query nested
			// in the subquery: Spark does not resolve it there
			ref.Kind = RefUnresolved
			a.lateralTooDeep(ref, parts)
			return
		}
		if lv.alias && !uncertain && !c.quiet && a.aliasAmbiguous(m.cands, parts, c) {
			ref.Kind, ref.NameParts = RefAmbiguous, 1
			a.ambiguousAlias(ref, parts[0])
			return
		}
		a.resolve(ref, m, lv, uncertain, c)
		return
	}
	switch {
	case c.virtual && (a.eqName(parts[0], "window") || a.eqName(parts[0], "session_window")),
		strings.EqualFold(parts[0], "grouping__id"):
		ref.Kind, ref.NameParts = RefVirtual, 1
		return
	}
	if n := a.variable(parts); n > 0 {
		ref.Kind, ref.NameParts = RefVariable, n
		return
	}
	if len(parts) == 1 && !col.Parts[0].Quoted &&
		((c.allowAll && strings.EqualFold(parts[0], "ALL")) || strings.EqualFold(parts[0], "DEFAULT")) {
		// GROUP BY ALL, ORDER BY ALL; DEFAULT in INSERT ... VALUES and
		// SET VAR, the column's or variable's default
		return
	}
	if uncertain || c.quiet || a.quiet || (c.quietQualified && len(parts) > 1) {
		return
	}
	ref.Kind = RefUnresolved
	a.unresolved(ref, parts, c)
}

// variable returns how many parts of parts name a session variable (v,
// session.v, system.session.v), or 0.
func (a *analyzer) variable(parts []string) int {
	for _, v := range a.opts.Variables {
		switch {
		case a.eqName(parts[0], v):
			return 1
		case len(parts) >= 2 && strings.EqualFold(parts[0], "session") && a.eqName(parts[1], v):
			return 2
		case len(parts) >= 3 && strings.EqualFold(parts[0], "system") && strings.EqualFold(parts[1], "session") &&
			a.eqName(parts[2], v):
			return 3
		}
	}
	return 0
}

// resolve records what ref resolved to in level lv.
func (a *analyzer) resolve(ref *ColumnRef, m match, lv level, uncertain bool, c ctx) {
	ref.NameParts = m.nameParts
	ref.Tentative = uncertain || m.loose
	if len(m.cands) > 1 && !lv.alias {
		ref.Kind = RefAmbiguous
		for _, at := range m.cands {
			if at.src.Rel != nil {
				ref.Candidates = append(ref.Candidates, at.src)
			}
		}
		if !ref.Tentative && !c.quiet {
			// (a quiet statement drops the diagnostic in report)
			a.ambiguous(ref, m.cands)
		}
		return
	}
	at := m.cands[0]
	switch {
	case at.alias && lv.alias:
		ref.Kind, ref.Alias = RefAlias, at.item
	case at.src.Rel != nil:
		ref.Kind, ref.Source, ref.Outer = RefColumn, at.src, lv.depth
	case at.item != nil:
		ref.Kind, ref.Alias = RefAlias, at.item
	default:
		ref.Kind = RefUnknown
		return
	}
	ref.eq, ref.qual, ref.partial, ref.typ = at.eq, at.qual, at.partial, at.typ
	if ref.Kind == RefColumn && ref.typ != "" && !ref.Tentative && !c.quiet && ref.NameParts < len(ref.Node.Parts) {
		a.checkFields(ref, at.name)
	}
}

// checkFields reports a struct field that the column's known type
// certainly does not have.
func (a *analyzer) checkFields(ref *ColumnRef, colName string) {
	dt := a.parseType(ref.typ)
	path := colName
	for _, f := range ref.Fields() {
		if dt == nil || f == nil || f.Expr != nil {
			return
		}
		if dt.Name == "ARRAY" {
			dt = dt.Elem
			if dt == nil {
				return
			}
		}
		if dt.Name != "STRUCT" || len(dt.Fields) == 0 {
			// a map's key (m.k), or a type Spark rejects with its own
			// error: nothing certain to say here.
			return
		}
		var next *ast.DataType
		found := false
		var names []string
		for _, sf := range dt.Fields {
			if sf == nil || sf.Name == nil {
				return
			}
			names = append(names, sf.Name.Name)
			if a.eqName(sf.Name.Name, f.Name) {
				next, found = sf.Type, true
				break
			}
		}
		if !found {
			a.fieldNotFound(ref, path, f.Name, names)
			return
		}
		path += "." + f.Name
		dt = next
	}
}

// parseType parses a catalog type string, remembering the result.
func (a *analyzer) parseType(t string) *ast.DataType {
	if dt, ok := a.types[t]; ok {
		return dt
	}
	dt, errs := parser.ParseDataType(t, parser.Options{})
	if len(errs) > 0 {
		dt = nil
	}
	a.types[t] = dt
	return dt
}

// visitExpr calls fn on x and, while fn returns true, on its
// subexpressions; it does not enter subqueries.
func visitExpr(x ast.Expr, fn func(ast.Expr) bool) {
	if x == nil || !fn(x) {
		return
	}
	v := func(y ast.Expr) { visitExpr(y, fn) }
	switch x := x.(type) {
	case *ast.Interval:
		for _, u := range x.Units {
			if u != nil {
				v(u.Value)
			}
		}
	case *ast.Unary:
		v(x.X)
	case *ast.Binary:
		v(x.L)
		v(x.R)
	case *ast.Between:
		v(x.X)
		v(x.Lo)
		v(x.Hi)
	case *ast.In:
		v(x.X)
		for _, y := range x.List {
			v(y)
		}
	case *ast.Like:
		v(x.X)
		for _, y := range x.Patterns {
			v(y)
		}
	case *ast.Is:
		v(x.X)
		v(x.Other)
	case *ast.Paren:
		v(x.X)
	case *ast.Row:
		for _, it := range x.Items {
			if it != nil {
				v(it.X)
			}
		}
	case *ast.Cast:
		v(x.X)
	case *ast.Case:
		v(x.Operand)
		for _, w := range x.Whens {
			if w != nil {
				v(w.Cond)
				v(w.Result)
			}
		}
		v(x.Else)
	case *ast.Call:
		for _, y := range x.Args {
			v(y)
		}
		for _, s := range x.WithinGroup {
			if s != nil {
				v(s.X)
			}
		}
		v(x.Filter)
		if w := x.Over; w != nil {
			for _, p := range w.PartitionBy {
				v(p)
			}
			for _, s := range w.OrderBy {
				if s != nil {
					v(s.X)
				}
			}
		}
	case *ast.NamedArg:
		v(x.Value)
	case *ast.Lambda:
		v(x.Body)
	case *ast.Subscript:
		v(x.X)
		v(x.Index)
	case *ast.Field:
		v(x.X)
	case *ast.Extract:
		v(x.X)
	case *ast.Collate:
		v(x.X)
	}
}

// identifierClause reports whether id was written IDENTIFIER('...'): its
// range is far longer than a quoted name would be.
func identifierClause(id *ast.Ident) bool {
	return id.Quoted && id.End-id.Start >= len(id.Name)+len("IDENTIFIER('')")
}

// unparen strips parentheses.
func unparen(x ast.Expr) ast.Expr {
	for {
		p, ok := x.(*ast.Paren)
		if !ok || p.X == nil {
			return x
		}
		x = p.X
	}
}
