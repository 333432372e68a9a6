package ast

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/thund-dev/thund/analysis/sparksql/lex"
)

// Format returns Spark SQL text for n that the parser (with its default
// options) reads back into a tree equal to n but for the ranges. It keeps
// the tree's spelling where the tree holds one (identifiers as written and
// whether they were quoted, numbers and the first part of string literals
// as written, operators and keywords as recorded) and writes everything
// else one way: AS before every alias, one space between words, INNER
// JOIN for JOIN, the keyword forms of calls (TRIM(BOTH x FROM s)) as
// Spark writes them, IGNORE NULLS after the parentheses.
//
// A script's statements are separated by ";\n". Comments are not written
// (the tree keeps only their ranges). The parts of a statement the tree
// does not keep are lost: the IF NOT EXISTS and LOCAL of INSERT, ROW
// FORMAT, STORED AS, RECORDREADER and RECORDWRITER, constraint
// characteristics, and a LATERAL before the first relation of a FROM
// clause when that is a table name (which Spark ignores). A CREATE clause
// whose contents the tree does not keep
// (SKEWED BY, CLUSTERED BY, ROW FORMAT, STORED AS, DEFAULT COLLATION,
// WITH SCHEMA, PARTITIONED ON) is written with a placeholder content, so
// that the statement's list of clauses survives; so is the format of
// INSERT OVERWRITE DIRECTORY ... USING. An Other statement other than a
// multi-table INSERT is written as its Text, the statement as written
// (as its Kind alone when Text is empty, which does not parse), and the
// Bad nodes as
// <bad expression>, <bad relation> and <bad statement>, none of which
// parse.
func Format(n Node) string {
	var p printer
	p.node(n)
	return p.b.String()
}

// printer writes the text of a tree.
type printer struct {
	b strings.Builder
}

func (p *printer) w(parts ...string) {
	for _, s := range parts {
		p.b.WriteString(s)
	}
}

// sub returns the text of f's output, written into a printer of its own.
func sub(f func(p *printer)) string {
	var q printer
	f(&q)
	return q.b.String()
}

// node writes any node.
func (p *printer) node(n Node) {
	switch n := n.(type) {
	case nil:
	case *Script:
		prev := ""
		for i, st := range n.Stmts {
			if i > 0 {
				if unterminated(prev) {
					// the ; must not fall into the unterminated literal
					// that ends a SET's raw value
					p.w("\n")
				}
				p.w(";\n")
			}
			prev = sub(func(q *printer) { q.stmt(st) })
			p.w(prev)
		}
	case Stmt:
		p.stmt(n)
	case QueryExpr:
		p.queryExpr(n)
	case Relation:
		p.relation(n, false)
	case Expr:
		p.expr(n)
	case *Query:
		p.query(n)
	case *Ident:
		p.ident(n)
	case *Name:
		p.name(n)
	case *StringLit:
		p.str(n)
	case *Property:
		p.property(n)
	case *IntervalUnit:
		p.intervalUnit(n)
	case *When:
		p.w("WHEN ")
		p.expr(n.Cond)
		p.w(" THEN ")
		p.expr(n.Result)
	case *Window:
		p.window(n)
	case *Frame:
		p.frame(n)
	case *FrameBound:
		p.frameBound(n)
	case *SortItem:
		p.sortItem(n)
	case *DataType:
		p.dataType(n)
	case *StructField:
		p.structField(n)
	case *With:
		p.with(n)
	case *CTE:
		p.cte(n)
	case *Transform:
		p.transform(n, nil, "")
	case *Hint:
		p.hint(n)
	case *HintItem:
		p.hintItem(n)
	case *SelectItem:
		p.selectItem(n)
	case *From:
		p.from(n)
	case *GroupBy:
		p.groupBy(n)
	case *GroupItem:
		p.groupItem(n)
	case *NamedWindow:
		p.namedWindow(n)
	case *PipeOp:
		p.pipeOp(n)
	case *Assignment:
		p.assignment(n)
	case *Temporal:
		p.temporal(n)
	case *Sample:
		p.sample(n)
	case *Watermark:
		p.watermark(n)
	case *TableAlias:
		p.tableAlias(n)
	case *UnpivotColumns:
		p.unpivotColumns(n)
	case *LateralView:
		p.lateralView(n)
	case *ColumnDef:
		p.columnDef(n)
	case *Constraint:
		p.constraint(n)
	default:
		p.w("<unknown node>")
	}
}

// Identifiers, names and literals.

// ident writes an identifier as written: quoted when it was (or when its
// name is not a bare identifier), IDENTIFIER(expr) for an expression.
func (p *printer) ident(id *Ident) {
	switch {
	case id == nil:
	case id.Expr != nil && id.Name == "":
		p.w("IDENTIFIER(")
		p.expr(id.Expr)
		p.w(")")
	case id.Quoted || !bareIdent(id.Name):
		p.w(backquote(id.Name))
	default:
		p.w(id.Name)
	}
}

// bareIdent reports whether s lexes as one identifier token.
func bareIdent(s string) bool {
	toks := lex.Lex(s)
	return len(toks) == 1 && toks[0].Kind == lex.Ident && toks[0].Text == s
}

func backquote(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// nameText returns a name held as a string, quoted when it is not a bare
// identifier.
func nameText(s string) string {
	if bareIdent(s) {
		return s
	}
	return backquote(s)
}

func (p *printer) idents(ids []*Ident) {
	for i, id := range ids {
		if i > 0 {
			p.w(", ")
		}
		p.ident(id)
	}
}

func (p *printer) name(n *Name) {
	if n == nil {
		return
	}
	for i, id := range n.Parts {
		if i > 0 {
			p.w(".")
		}
		p.ident(id)
	}
}

func (p *printer) names(ns []*Name) {
	for i, n := range ns {
		if i > 0 {
			p.w(", ")
		}
		p.name(n)
	}
}

// quoteString writes v as one string literal.
func quoteString(v string, double bool) string {
	q := "'"
	if double {
		q = `"`
	}
	var b strings.Builder
	b.WriteString(q)
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' || c == q[0] {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteString(q)
	return b.String()
}

func (p *printer) str(s *StringLit) {
	if s != nil {
		p.w(quoteString(s.Value, s.DoubleQuoted))
	}
}

// stringLiteral writes a string Literal keeping its Text: the text as
// written when it is the whole literal, else its first part as written and
// the rest of the value.
func (p *printer) stringLiteral(l *Literal) {
	s := l.Str
	toks := lex.Lex(l.Text)
	if len(toks) == 0 || !toks[0].Kind.IsString() || (toks[0].Kind == lex.DoubleQuotedString) != s.DoubleQuoted {
		p.str(s)
		return
	}
	value, whole := "", true
	for _, t := range toks {
		switch {
		case t.Kind.IsComment():
		case t.Kind.IsString():
			v, err := lex.Unquote(t)
			whole = whole && err == nil
			value += v
		default:
			whole = false
		}
	}
	if whole && value == s.Value {
		p.w(l.Text)
		return
	}
	first, err := lex.Unquote(toks[0])
	if err != nil || !strings.HasPrefix(s.Value, first) {
		p.str(s)
		return
	}
	p.w(toks[0].Text)
	if rest := s.Value[len(first):]; rest != "" {
		p.w(" ", quoteString(rest, false))
	}
}

func (p *printer) property(pr *Property) {
	p.w(quoteString(pr.Key, false))
	if pr.Value != nil {
		p.w(" = ")
		p.expr(pr.Value)
	}
}

func (p *printer) properties(ps []*Property) {
	p.w("(")
	for i, pr := range ps {
		if i > 0 {
			p.w(", ")
		}
		p.property(pr)
	}
	p.w(")")
}

// Expressions.

func (p *printer) exprs(xs []Expr) {
	for i, x := range xs {
		if i > 0 {
			p.w(", ")
		}
		p.expr(x)
	}
}

func (p *printer) expr(x Expr) {
	switch x := x.(type) {
	case nil:
	case *Literal:
		if x.Kind == LitString && x.Str != nil {
			p.stringLiteral(x)
		} else {
			p.w(x.Text)
		}
	case *TypedLiteral:
		p.w(x.Type)
		if x.Type != "X" {
			p.w(" ") // X'1F' is written as one word
		}
		p.str(x.Value)
	case *Interval:
		p.w("INTERVAL ")
		if x.Value != nil && len(x.Units) == 0 {
			p.str(x.Value)
			return
		}
		for i, u := range x.Units {
			if i > 0 {
				p.w(" ")
			}
			p.intervalUnit(u)
		}
		if x.To != "" {
			p.w(" TO ", x.To)
		}
	case *Param:
		if x.Name == "" {
			p.w("?")
		} else {
			p.w(":", nameText(x.Name))
		}
	case *Column:
		for i, id := range x.Parts {
			if i > 0 {
				p.w(".")
			}
			p.ident(id)
		}
	case *Star:
		if x.Qualifier != nil {
			p.name(x.Qualifier)
			p.w(".")
		}
		p.w("*")
		if x.Except != nil {
			p.w(" EXCEPT (")
			p.names(x.Except)
			p.w(")")
		}
	case *Unary:
		operand := sub(func(q *printer) { q.expr(x.X) })
		switch {
		case x.Op == "NOT" || x.Op == "!":
			p.w(x.Op, " ", operand)
		case strings.HasPrefix(operand, "-") || strings.HasPrefix(operand, "+"):
			p.w(x.Op, " ", operand)
		default:
			p.w(x.Op, operand)
		}
	case *Binary:
		p.expr(x.L)
		p.w(" ", x.Op, " ")
		p.expr(x.R)
	case *Between:
		p.expr(x.X)
		p.not(x.Not)
		p.w(" BETWEEN ")
		p.expr(x.Lo)
		p.w(" AND ")
		p.expr(x.Hi)
	case *In:
		p.expr(x.X)
		p.not(x.Not)
		p.w(" IN (")
		if x.Query != nil {
			p.query(x.Query)
		} else {
			p.exprs(x.List)
		}
		p.w(")")
	case *Like:
		p.expr(x.X)
		p.not(x.Not)
		p.w(" ", x.Op, " ")
		if x.Quantifier != "" {
			p.w(x.Quantifier, " (")
			p.exprs(x.Patterns)
			p.w(")")
		} else {
			p.exprs(x.Patterns)
		}
		if x.Escape != nil {
			p.w(" ESCAPE ")
			p.str(x.Escape)
		}
	case *Is:
		p.expr(x.X)
		p.w(" IS ")
		if x.Not {
			p.w("NOT ")
		}
		p.w(x.What)
		if x.Other != nil {
			p.w(" ")
			p.expr(x.Other)
		}
	case *Exists:
		p.w("EXISTS (")
		p.query(x.Query)
		p.w(")")
	case *Subquery:
		p.w("(")
		p.query(x.Query)
		p.w(")")
	case *Paren:
		p.w("(")
		p.expr(x.X)
		p.w(")")
	case *Row:
		p.w("(")
		p.selectItems(x.Items)
		p.w(")")
	case *Cast:
		if x.Form == "::" {
			p.expr(x.X)
			p.w("::")
			p.dataType(x.Type)
			return
		}
		p.w(x.Form, "(")
		p.expr(x.X)
		p.w(" AS ")
		p.dataType(x.Type)
		p.w(")")
	case *Case:
		p.w("CASE")
		if x.Operand != nil {
			p.w(" ")
			p.expr(x.Operand)
		}
		for _, wh := range x.Whens {
			p.w(" WHEN ")
			p.expr(wh.Cond)
			p.w(" THEN ")
			p.expr(wh.Result)
		}
		if x.Else != nil {
			p.w(" ELSE ")
			p.expr(x.Else)
		}
		p.w(" END")
	case *Call:
		p.call(x)
	case *NamedArg:
		p.ident(x.Name)
		p.w(" => ")
		p.expr(x.Value)
	case *TableArg:
		p.tableArg(x)
	case *Lambda:
		if len(x.Params) == 1 {
			p.ident(x.Params[0])
		} else {
			p.w("(")
			p.idents(x.Params)
			p.w(")")
		}
		p.w(" -> ")
		p.expr(x.Body)
	case *Subscript:
		p.expr(x.X)
		p.w("[")
		p.expr(x.Index)
		p.w("]")
	case *Field:
		p.expr(x.X)
		if l, ok := x.X.(*Literal); ok && l.Kind >= LitInteger {
			p.w(" ") // 1 .a, not the decimal 1.
		}
		p.w(".")
		p.ident(x.Name)
	case *Extract:
		p.expr(x.X)
		p.w(":", x.Path)
	case *Collate:
		p.expr(x.X)
		p.w(" COLLATE ")
		p.name(x.Collation)
	case *BadExpr:
		p.w("<bad expression>")
	default:
		p.w("<unknown expression>")
	}
}

func (p *printer) not(not bool) {
	if not {
		p.w(" NOT")
	}
}

func (p *printer) intervalUnit(u *IntervalUnit) {
	if u.Negative {
		p.w("-")
	}
	p.expr(u.Value)
	p.w(" ", u.Unit)
}

// isStructCall reports whether c is STRUCT(...) written with the keyword,
// whose named arguments are x AS name.
func isStructCall(c *Call) bool {
	return c.Name != nil && len(c.Name.Parts) == 1 && !c.Name.Parts[0].Quoted &&
		c.Name.Parts[0].Expr == nil && strings.EqualFold(c.Name.Parts[0].Name, "STRUCT") && c.Form == ""
}

func (p *printer) call(c *Call) {
	p.name(c.Name)
	if c.NoParens {
		return
	}
	arg := func(i int) Expr {
		if i < len(c.Args) {
			return c.Args[i]
		}
		return nil
	}
	p.w("(")
	switch c.Form {
	case "EXTRACT":
		p.ident(c.Unit)
		p.w(" FROM ")
		p.expr(arg(0))
	case "SUBSTRING FROM":
		p.expr(arg(0))
		p.w(" FROM ")
		p.expr(arg(1))
		if len(c.Args) > 2 {
			p.w(" FOR ")
			p.expr(arg(2))
		}
	case "TRIM":
		if c.TrimSide != "" {
			p.w(c.TrimSide, " ")
		}
		if len(c.Args) > 1 {
			p.expr(arg(1))
			p.w(" ")
		}
		p.w("FROM ")
		p.expr(arg(0))
	case "POSITION":
		p.expr(arg(0))
		p.w(" IN ")
		p.expr(arg(1))
	case "OVERLAY":
		p.expr(arg(0))
		p.w(" PLACING ")
		p.expr(arg(1))
		p.w(" FROM ")
		p.expr(arg(2))
		if len(c.Args) > 3 {
			p.w(" FOR ")
			p.expr(arg(3))
		}
	case "UNIT":
		p.ident(c.Unit)
		for _, a := range c.Args {
			p.w(", ")
			p.expr(a)
		}
	default:
		if c.Quantifier != "" {
			p.w(c.Quantifier, " ")
		}
		structCall := isStructCall(c)
		for i, a := range c.Args {
			if i > 0 {
				p.w(", ")
			}
			if na, ok := a.(*NamedArg); ok && structCall {
				p.expr(na.Value)
				if na.Name != nil {
					p.w(" AS ")
					p.ident(na.Name)
				} else if na.Aliases != nil {
					p.w(" AS (")
					p.idents(na.Aliases)
					p.w(")")
				}
				continue
			}
			p.expr(a)
		}
	}
	p.w(")")
	if c.WithinGroup != nil {
		p.w(" WITHIN GROUP (ORDER BY ")
		p.sortItems(c.WithinGroup)
		p.w(")")
	}
	if c.Filter != nil {
		p.w(" FILTER (WHERE ")
		p.expr(c.Filter)
		p.w(")")
	}
	if c.Nulls != "" {
		p.w(" ", c.Nulls, " NULLS")
	}
	if c.Over != nil {
		p.w(" OVER ")
		p.window(c.Over)
	}
}

func (p *printer) tableArg(t *TableArg) {
	if t.Query != nil {
		p.w("TABLE(")
		p.query(t.Query)
		p.w(")")
	} else {
		p.w("TABLE ")
		p.name(t.Name)
	}
	switch {
	case t.SinglePartition:
		p.w(" WITH SINGLE PARTITION")
	case t.PartitionBy != nil:
		p.w(" PARTITION BY (")
		p.exprs(t.PartitionBy)
		p.w(")")
	}
	if t.OrderBy != nil {
		p.w(" ORDER BY (")
		p.sortItems(t.OrderBy)
		p.w(")")
	}
}

func (p *printer) window(w *Window) {
	if w.Ref != nil {
		p.ident(w.Ref)
		return
	}
	p.w("(")
	sep := ""
	if w.PartitionBy != nil {
		p.w("PARTITION BY ")
		p.exprs(w.PartitionBy)
		sep = " "
	}
	if w.OrderBy != nil {
		p.w(sep, "ORDER BY ")
		p.sortItems(w.OrderBy)
		sep = " "
	}
	if w.Frame != nil {
		p.w(sep)
		p.frame(w.Frame)
	}
	p.w(")")
}

func (p *printer) frame(f *Frame) {
	p.w(f.Unit, " ")
	if f.End != nil {
		p.w("BETWEEN ")
		p.frameBound(f.Start)
		p.w(" AND ")
		p.frameBound(f.End)
		return
	}
	p.frameBound(f.Start)
}

func (p *printer) frameBound(b *FrameBound) {
	if b == nil {
		return
	}
	if b.Offset != nil {
		p.expr(b.Offset)
		p.w(" ")
	}
	p.w(b.Kind)
}

func (p *printer) sortItem(s *SortItem) {
	p.expr(s.X)
	if s.Dir != "" {
		p.w(" ", s.Dir)
	}
	if s.Nulls != "" {
		p.w(" NULLS ", s.Nulls)
	}
}

func (p *printer) sortItems(items []*SortItem) {
	for i, s := range items {
		if i > 0 {
			p.w(", ")
		}
		p.sortItem(s)
	}
}

// Data types.

func (p *printer) dataType(t *DataType) {
	if t == nil {
		return
	}
	p.w(t.Name)
	switch {
	case t.Elem != nil:
		p.w("<")
		p.dataType(t.Elem)
		p.w(">")
	case t.Key != nil || t.Value != nil:
		p.w("<")
		p.dataType(t.Key)
		p.w(", ")
		p.dataType(t.Value)
		p.w(">")
	case t.Fields != nil:
		p.w("<")
		for i, f := range t.Fields {
			if i > 0 {
				p.w(", ")
			}
			p.structField(f)
		}
		p.w(">")
	case (t.Name == "GEOGRAPHY" || t.Name == "GEOMETRY") && t.Qualifier == "ANY":
		p.w("(ANY)")
		return
	}
	if t.Params != nil {
		p.w("(")
		for i, n := range t.Params {
			if i > 0 {
				p.w(", ")
			}
			p.w(strconv.Itoa(n))
		}
		p.w(")")
	}
	if c, ok := strings.CutPrefix(t.Qualifier, "COLLATE "); ok {
		p.w(" COLLATE ")
		for i, part := range strings.Split(c, ".") {
			if i > 0 {
				p.w(".")
			}
			p.w(nameText(part))
		}
	} else if t.Qualifier != "" {
		p.w(" ", t.Qualifier)
	}
}

func (p *printer) structField(f *StructField) {
	p.ident(f.Name)
	p.w(": ")
	p.dataType(f.Type)
	if f.NotNull {
		p.w(" NOT NULL")
	}
	if f.Comment != nil {
		p.w(" COMMENT ")
		p.str(f.Comment)
	}
}

// Queries.

func (p *printer) query(q *Query) {
	if q == nil {
		return
	}
	if q.With != nil {
		p.with(q.With)
		p.w(" ")
	}
	p.queryExpr(q.Body)
	p.organization(q)
}

// organization writes a query's ORDER BY ... OFFSET clauses.
func (p *printer) organization(q *Query) {
	if q.OrderBy != nil {
		p.w(" ORDER BY ")
		p.sortItems(q.OrderBy)
	}
	if q.ClusterBy != nil {
		p.w(" CLUSTER BY ")
		p.exprs(q.ClusterBy)
	}
	if q.DistributeBy != nil {
		p.w(" DISTRIBUTE BY ")
		p.exprs(q.DistributeBy)
	}
	if q.SortBy != nil {
		p.w(" SORT BY ")
		p.sortItems(q.SortBy)
	}
	if q.Windows != nil {
		p.w(" ")
		p.windows(q.Windows)
	}
	switch {
	case q.LimitAll:
		p.w(" LIMIT ALL")
	case q.Limit != nil:
		p.w(" LIMIT ")
		p.expr(q.Limit)
	}
	if q.Offset != nil {
		p.w(" OFFSET ")
		p.expr(q.Offset)
	}
}

func (p *printer) with(w *With) {
	p.w("WITH ")
	if w.Recursive {
		p.w("RECURSIVE ")
	}
	for i, c := range w.CTEs {
		if i > 0 {
			p.w(", ")
		}
		p.cte(c)
	}
}

func (p *printer) cte(c *CTE) {
	p.ident(c.Name)
	if c.Columns != nil {
		p.w(" (")
		p.idents(c.Columns)
		p.w(")")
	}
	if c.MaxRecursion != nil {
		p.w(" MAX RECURSION LEVEL ")
		p.expr(c.MaxRecursion)
	}
	p.w(" AS (")
	p.query(c.Query)
	p.w(")")
}

func (p *printer) queryExpr(x QueryExpr) {
	switch x := x.(type) {
	case nil:
	case *Select:
		p.selectQuery(x, true)
	case *SetOp:
		if r, ok := x.R.(*Select); ok && r.FromFirst && r.From != nil && r.From == leftmostFrom(x.L) {
			// FROM t SELECT a SELECT b: one FROM, several bodies
			p.queryExpr(x.L)
			p.w(" ")
			p.selectQuery(r, false)
			return
		}
		p.queryExpr(x.L)
		p.w(" ", x.Op)
		if x.Quantifier != "" {
			p.w(" ", x.Quantifier)
		}
		p.w(" ")
		p.queryExpr(x.R)
	case *ParenQuery:
		p.w("(")
		p.query(x.Query)
		p.w(")")
	case *Values:
		p.values(x)
	case *TableQuery:
		p.w("TABLE ")
		p.name(x.Name)
	case *Pipe:
		p.queryExpr(x.Input)
		for _, op := range x.Ops {
			p.w(" |> ")
			p.pipeOp(op)
		}
	default:
		p.w("<unknown query>")
	}
}

// leftmostFrom returns the FROM of the first body of a FROM-first query.
func leftmostFrom(x QueryExpr) *From {
	for {
		switch y := x.(type) {
		case *SetOp:
			x = y.L
		case *Select:
			if y.FromFirst {
				return y.From
			}
			return nil
		default:
			return nil
		}
	}
}

func (p *printer) values(v *Values) {
	p.w("VALUES ")
	p.exprs(v.Rows)
	if v.Alias != nil {
		p.w(" ")
		p.tableAlias(v.Alias)
	}
}

// selectQuery writes a SELECT; withFrom false leaves out a FROM-first
// query's FROM (written once for several bodies).
func (p *printer) selectQuery(s *Select, withFrom bool) {
	sep := ""
	if s.FromFirst {
		if withFrom && s.From != nil {
			p.from(s.From)
			sep = " "
		}
		if s.Transform == nil && s.Items == nil && s.Hints == nil {
			p.selectTail(s)
			return
		}
	}
	p.w(sep)
	if s.Transform != nil {
		p.transform(s.Transform, s.Items, s.Quantifier)
	} else {
		p.w("SELECT")
		for _, h := range s.Hints {
			p.w(" ")
			p.hint(h)
		}
		if s.Quantifier != "" {
			p.w(" ", s.Quantifier)
		}
		p.w(" ")
		p.selectItems(s.Items)
	}
	if !s.FromFirst && s.From != nil {
		p.w(" ")
		p.from(s.From)
	}
	p.selectTail(s)
}

// selectTail writes LATERAL VIEW, WHERE, GROUP BY, HAVING and WINDOW.
func (p *printer) selectTail(s *Select) {
	for _, lv := range s.LateralViews {
		p.w(" ")
		p.lateralView(lv)
	}
	if s.Where != nil {
		p.w(" WHERE ")
		p.expr(s.Where)
	}
	if s.GroupBy != nil {
		p.w(" ")
		p.groupBy(s.GroupBy)
	}
	if s.Having != nil {
		p.w(" HAVING ")
		p.expr(s.Having)
	}
	if s.Qualify != nil {
		p.w(" QUALIFY ")
		p.expr(s.Qualify)
	}
	if s.Windows != nil {
		p.w(" ")
		p.windows(s.Windows)
	}
	if s.Organization != nil {
		p.organization(s.Organization)
	}
}

func (p *printer) transform(t *Transform, items []*SelectItem, quantifier string) {
	q := ""
	if quantifier != "" {
		q = quantifier + " "
	}
	if t.Kind == "TRANSFORM" {
		p.w("SELECT TRANSFORM(", q)
		p.selectItems(items)
		p.w(")")
	} else {
		p.w(t.Kind, " ", q)
		p.selectItems(items)
	}
	p.w(" USING ")
	p.str(t.Script)
	if t.Output != nil {
		p.w(" AS (")
		for i, c := range t.Output {
			if i > 0 {
				p.w(", ")
			}
			p.columnDef(c)
		}
		p.w(")")
	}
}

func (p *printer) hint(h *Hint) {
	p.w("/*+ ")
	for i, it := range h.Items {
		if i > 0 {
			p.w(", ")
		}
		p.hintItem(it)
	}
	p.w(" */")
}

func (p *printer) hintItem(it *HintItem) {
	p.ident(it.Name)
	if it.Params != nil {
		p.w("(")
		p.exprs(it.Params)
		p.w(")")
	}
}

func (p *printer) selectItem(it *SelectItem) {
	p.expr(it.X)
	switch {
	case it.Alias != nil:
		p.w(" AS ")
		p.ident(it.Alias)
	case it.Aliases != nil:
		p.w(" AS (")
		p.idents(it.Aliases)
		p.w(")")
	}
}

func (p *printer) selectItems(items []*SelectItem) {
	for i, it := range items {
		if i > 0 {
			p.w(", ")
		}
		p.selectItem(it)
	}
}

func (p *printer) from(f *From) {
	p.w("FROM ")
	for i, r := range f.Relations {
		if i > 0 {
			p.w(", ")
		}
		p.relation(r, false)
	}
	for _, lv := range f.LateralViews {
		p.w(" ")
		p.lateralView(lv)
	}
	if f.Pivot != nil {
		p.w(" ")
		p.pivot(f.Pivot)
	}
	if f.Unpivot != nil {
		p.w(" ")
		p.unpivot(f.Unpivot)
	}
}

func (p *printer) groupBy(g *GroupBy) {
	p.w("GROUP BY ")
	p.groupItems(g.Items)
	if g.With != "" {
		p.w(" WITH ", g.With)
	}
	if g.GroupingSets != nil {
		p.w(" GROUPING SETS (")
		p.groupItems(g.GroupingSets)
		p.w(")")
	}
}

func (p *printer) groupItems(items []*GroupItem) {
	for i, it := range items {
		if i > 0 {
			p.w(", ")
		}
		p.groupItem(it)
	}
}

func (p *printer) groupItem(g *GroupItem) {
	switch g.Kind {
	case "":
		p.expr(g.X)
	case "SET":
		p.w("(")
		p.groupItems(g.Items)
		p.w(")")
	default:
		p.w(g.Kind, "(")
		p.groupItems(g.Items)
		p.w(")")
	}
}

func (p *printer) windows(ws []*NamedWindow) {
	p.w("WINDOW ")
	for i, w := range ws {
		if i > 0 {
			p.w(", ")
		}
		p.namedWindow(w)
	}
}

func (p *printer) namedWindow(w *NamedWindow) {
	p.ident(w.Name)
	p.w(" AS ")
	p.window(w.Window)
}

func (p *printer) pipeOp(op *PipeOp) {
	s := op.Select
	switch op.Kind {
	case "SELECT":
		p.selectQuery(&Select{Hints: s.Hints, Quantifier: s.Quantifier, Items: s.Items}, false)
		if s.Windows != nil {
			p.w(" ")
			p.windows(s.Windows)
		}
	case "EXTEND":
		p.w("EXTEND ")
		p.selectItems(s.Items)
	case "SET":
		p.w("SET ")
		for i, a := range op.Set {
			if i > 0 {
				p.w(", ")
			}
			p.assignment(a)
		}
	case "DROP":
		p.w("DROP ")
		p.idents(op.Names)
	case "AS":
		p.w("AS ")
		p.idents(op.Names)
	case "WHERE":
		p.w("WHERE ")
		p.expr(s.Where)
		if s.Windows != nil {
			p.w(" ")
			p.windows(s.Windows)
		}
	case "PIVOT":
		p.pivot(op.Pivot)
		if op.Unpivot != nil {
			p.w(" ")
			p.unpivot(op.Unpivot)
		}
	case "UNPIVOT":
		p.unpivot(op.Unpivot)
		if op.Pivot != nil {
			p.w(" ")
			p.pivot(op.Pivot)
		}
	case "TABLESAMPLE":
		p.sample(op.Sample)
	case "JOIN":
		p.joinRest(op.Join)
	case "AGGREGATE":
		p.w("AGGREGATE")
		if s.Items != nil {
			p.w(" ")
			p.selectItems(s.Items)
		}
		if s.GroupBy != nil {
			p.w(" ")
			p.groupBy(s.GroupBy)
		}
	case "ORDER":
		p.b.WriteString(strings.TrimPrefix(sub(func(q *printer) { q.organization(op.Org) }), " "))
	default: // UNION, EXCEPT, MINUS, INTERSECT
		p.w(op.Kind)
		if op.Quantifier != "" {
			p.w(" ", op.Quantifier)
		}
		p.w(" ")
		p.queryExpr(op.Right)
	}
}

func (p *printer) assignment(a *Assignment) {
	p.name(a.Name)
	p.w(" = ")
	p.expr(a.Value)
}

// Relations.

// relation writes a relation; noLateral leaves out the LATERAL of a
// relation after JOIN LATERAL, which writes it.
func (p *printer) relation(r Relation, noLateral bool) {
	switch r := r.(type) {
	case nil:
	case *Table:
		switch {
		case r.StreamParen:
			p.w("STREAM(")
			p.name(r.Name)
			p.w(")")
		case r.Stream:
			p.w("STREAM ")
			p.name(r.Name)
		default:
			p.name(r.Name)
		}
		if r.Temporal != nil {
			p.w(" ")
			p.temporal(r.Temporal)
		}
		if r.Options != nil {
			p.w(" WITH ")
			p.properties(r.Options)
		}
		p.relSuffix(r.Sample, r.Watermark, r.Alias)
	case *SubqueryRel:
		if r.Lateral && !noLateral {
			p.w("LATERAL ")
		}
		p.w("(")
		p.query(r.Query)
		p.w(")")
		p.relSuffix(r.Sample, r.Watermark, r.Alias)
	case *ParenRel:
		p.w("(")
		p.relation(r.Rel, false)
		p.w(")")
		p.relSuffix(r.Sample, r.Watermark, r.Alias)
	case *Values:
		p.values(r)
	case *TableFunc:
		if r.Lateral && !noLateral {
			p.w("LATERAL ")
		}
		p.call(r.Call)
		p.relSuffix(nil, r.Watermark, r.Alias)
	case *Join:
		p.relation(r.L, false)
		p.w(" ")
		p.joinRest(r)
	case *Pivot:
		p.pivot(r)
	case *Unpivot:
		p.unpivot(r)
	case *BadRelation:
		p.w("<bad relation>")
	default:
		p.w("<unknown relation>")
	}
}

func (p *printer) relSuffix(s *Sample, w *Watermark, a *TableAlias) {
	if s != nil {
		p.w(" ")
		p.sample(s)
	}
	if w != nil {
		p.w(" ")
		p.watermark(w)
	}
	if a != nil {
		p.w(" ")
		p.tableAlias(a)
	}
}

// joinRest writes a join from its kind on.
func (p *printer) joinRest(j *Join) {
	if j.Natural {
		p.w("NATURAL ")
	}
	p.w(j.Kind, " JOIN ")
	if j.Lateral {
		p.w("LATERAL ")
	}
	p.relation(j.R, j.Lateral)
	if j.On != nil {
		p.w(" ON ")
		p.expr(j.On)
	}
	if j.Using != nil {
		p.w(" USING (")
		p.idents(j.Using)
		p.w(")")
	}
}

func (p *printer) temporal(t *Temporal) {
	p.w(t.Kind, " AS OF ")
	p.expr(t.Value)
}

func (p *printer) sample(s *Sample) {
	p.w("TABLESAMPLE (")
	switch s.Method {
	case "BUCKET":
		p.w("BUCKET ")
		p.expr(s.Value)
		p.w(" OUT OF ")
		p.expr(s.Denominator)
		if s.On != nil {
			p.w(" ON ")
			p.expr(s.On)
		}
	case "PERCENT":
		p.expr(s.Value)
		p.w(" PERCENT")
	case "ROWS":
		p.expr(s.Value)
		p.w(" ROWS")
	default:
		p.expr(s.Value)
	}
	p.w(")")
	if s.Seed != nil {
		p.w(" REPEATABLE (")
		p.expr(s.Seed)
		p.w(")")
	}
}

func (p *printer) watermark(w *Watermark) {
	p.w("WATERMARK ")
	if w.Column != nil {
		p.selectItem(w.Column)
	}
	p.w(" DELAY OF ")
	if w.Delay != nil {
		p.expr(w.Delay)
	}
}

func (p *printer) tableAlias(a *TableAlias) {
	p.w("AS ")
	p.ident(a.Name)
	if a.Columns != nil {
		p.w(" (")
		p.idents(a.Columns)
		p.w(")")
	}
}

func (p *printer) pivot(pv *Pivot) {
	if pv.Input != nil {
		p.relation(pv.Input, false)
		p.w(" ")
	}
	p.w("PIVOT (")
	p.selectItems(pv.Aggregates)
	p.w(" FOR ")
	if len(pv.Columns) == 1 {
		p.ident(pv.Columns[0])
	} else {
		p.w("(")
		p.idents(pv.Columns)
		p.w(")")
	}
	p.w(" IN (")
	p.selectItems(pv.Values)
	p.w("))")
	if pv.Alias != nil {
		p.w(" AS ")
		p.ident(pv.Alias)
	}
}

func (p *printer) unpivot(u *Unpivot) {
	if u.Input != nil {
		p.relation(u.Input, false)
		p.w(" ")
	}
	p.w("UNPIVOT")
	switch {
	case u.IncludeNulls:
		p.w(" INCLUDE NULLS")
	case u.ExcludeNulls:
		p.w(" EXCLUDE NULLS")
	}
	multi := len(u.ValueColumns) != 1
	for _, c := range u.Columns {
		if len(c.Names) != 1 {
			multi = true
		}
	}
	p.w(" (")
	if multi {
		p.w("(")
		p.idents(u.ValueColumns)
		p.w(")")
	} else {
		p.idents(u.ValueColumns)
	}
	p.w(" FOR ")
	p.ident(u.NameColumn)
	p.w(" IN (")
	for i, c := range u.Columns {
		if i > 0 {
			p.w(", ")
		}
		if multi {
			p.w("(")
			p.names(c.Names)
			p.w(")")
		} else {
			p.names(c.Names)
		}
		if c.Alias != nil {
			p.w(" AS ")
			p.ident(c.Alias)
		}
	}
	p.w("))")
	if u.Alias != nil {
		p.w(" AS ")
		p.ident(u.Alias)
	}
}

func (p *printer) unpivotColumns(c *UnpivotColumns) {
	if len(c.Names) == 1 {
		p.name(c.Names[0])
	} else {
		p.w("(")
		p.names(c.Names)
		p.w(")")
	}
	if c.Alias != nil {
		p.w(" AS ")
		p.ident(c.Alias)
	}
}

func (p *printer) lateralView(lv *LateralView) {
	p.w("LATERAL VIEW ")
	if lv.Outer {
		p.w("OUTER ")
	}
	p.call(lv.Call)
	p.w(" ")
	p.ident(lv.Table)
	if lv.Columns != nil {
		p.w(" AS ")
		p.idents(lv.Columns)
	}
}

// Statements.

func (p *printer) stmt(st Stmt) {
	switch st := st.(type) {
	case nil:
	case *QueryStmt:
		p.query(st.Query)
	case *Create:
		p.create(st)
	case *ApplyChanges:
		if st.CDC != nil {
			p.autoCDCAs("APPLY CHANGES ", st.CDC)
		}
	case *CreateFlow:
		p.w("CREATE FLOW ")
		p.name(st.Name)
		if st.Comment != nil {
			p.w(" COMMENT ")
			p.str(st.Comment)
		}
		p.w(" AS ")
		if st.Insert != nil {
			p.insert(st.Insert)
		}
		if st.AutoCDC != nil {
			p.autoCDC(st.AutoCDC)
		}
	case *Insert:
		p.insert(st)
	case *Set:
		p.set(st)
	case *Use:
		p.w("USE ")
		if st.Kind != "" {
			p.w(st.Kind, " ")
		}
		p.name(st.Name)
	case *Other:
		p.other(st)
	case *BadStmt:
		p.w("<bad statement>")
	default:
		p.w("<unknown statement>")
	}
}

func (p *printer) insert(ins *Insert) {
	if ins.With != nil {
		p.with(ins.With)
		p.w(" ")
	}
	p.insertHeader(ins)
	if ins.Query != nil {
		p.w(" ")
		p.query(ins.Query)
	}
}

// insertHeader writes INSERT ... up to the query.
func (p *printer) insertHeader(ins *Insert) {
	p.w("INSERT ")
	if ins.Overwrite {
		p.w("OVERWRITE ")
	} else {
		p.w("INTO ")
	}
	if ins.Table == nil {
		p.w("DIRECTORY")
		if ins.Directory != nil {
			p.w(" ")
			p.str(ins.Directory)
		}
		if ins.Options != nil || ins.Directory == nil {
			p.w(" USING format") // the tree does not keep the format
			if ins.Options != nil {
				p.w(" OPTIONS ")
				p.properties(ins.Options)
			}
		}
		return
	}
	p.name(ins.Table)
	if ins.Options != nil {
		p.w(" WITH ")
		p.properties(ins.Options)
	}
	if ins.ReplaceWhere != nil {
		p.w(" REPLACE WHERE ")
		p.expr(ins.ReplaceWhere)
		return
	}
	if ins.Partition != nil {
		p.w(" PARTITION (")
		for i, pr := range ins.Partition {
			if i > 0 {
				p.w(", ")
			}
			p.w(nameText(pr.Key))
			if pr.Value != nil {
				p.w(" = ")
				p.expr(pr.Value)
			}
		}
		p.w(")")
	}
	switch {
	case ins.ByName:
		p.w(" BY NAME")
	case ins.Columns != nil:
		p.w(" (")
		p.idents(ins.Columns)
		p.w(")")
	}
}

// placeholders are the contents written for the CREATE clauses the tree
// keeps only the keywords of.
var placeholders = map[string]string{
	"SKEWED BY":         "SKEWED BY (c) ON (1)",
	"CLUSTERED BY":      "CLUSTERED BY (c) INTO 1 BUCKETS",
	"ROW FORMAT":        "ROW FORMAT DELIMITED",
	"STORED AS":         "STORED AS PARQUET",
	"DEFAULT COLLATION": "DEFAULT COLLATION UTF8_BINARY",
	"WITH SCHEMA":       "WITH SCHEMA BINDING",
	"PARTITIONED ON":    "PARTITIONED ON (c)",
}

func (p *printer) create(c *Create) {
	p.w("CREATE ")
	if c.OrReplace {
		p.w("OR REPLACE ")
	}
	if c.OrRefresh {
		p.w("OR REFRESH ")
	}
	if c.Private {
		p.w("PRIVATE ")
	}
	if c.Live {
		p.liveKind(c)
	} else if c.Temporary && (c.Kind == CreateMaterializedView || c.Kind == CreateStreamingTable) {
		p.w("TEMPORARY ", c.Kind.String(), " ")
	} else {
		p.createKind(c)
	}
	p.createRest(c)
}

// liveKind writes the keywords of Databricks' LIVE forms.
func (p *printer) liveKind(c *Create) {
	switch c.Kind {
	case CreateStreamingTable:
		p.w("STREAMING LIVE TABLE ")
	case CreateTempView:
		p.w("TEMPORARY LIVE VIEW ")
	case CreateView:
		p.w("LIVE VIEW ")
	default:
		p.w("LIVE TABLE ")
	}
}

// createKind writes the keywords of the kind of a CREATE.
func (p *printer) createKind(c *Create) {
	switch c.Kind {
	case CreateTable:
		if c.Temporary {
			p.w("TEMPORARY ")
		}
		if c.External {
			p.w("EXTERNAL ")
		}
	case CreateGlobalTempView:
		p.w("GLOBAL ")
	}
	switch c.Kind {
	case CreateTempView, CreateGlobalTempView:
		p.w("TEMPORARY VIEW ")
	default:
		p.w(c.Kind.String(), " ")
	}
}

// createRest writes a CREATE from IF NOT EXISTS on.
func (p *printer) createRest(c *Create) {
	if c.IfNotExists {
		p.w("IF NOT EXISTS ")
	}
	p.name(c.Name)
	view := c.Kind == CreateView || c.Kind == CreateTempView || c.Kind == CreateGlobalTempView
	switch {
	case c.Like != nil:
		p.w(" LIKE ")
		p.name(c.Like)
		if c.Using != nil {
			p.w(" USING ")
			p.name(c.Using)
		}
		if c.Location != nil {
			p.w(" LOCATION ")
			p.str(c.Location)
		}
		if c.Properties != nil {
			p.w(" TBLPROPERTIES ")
			p.properties(c.Properties)
		}
		return
	case view && c.Using != nil:
		// CREATE TEMPORARY VIEW v (a INT) USING fmt OPTIONS (...)
		if c.Columns != nil {
			p.w(" (")
			p.columnDefs(c.Columns)
			p.w(")")
		}
		p.w(" USING ")
		p.name(c.Using)
		if c.Options != nil {
			p.w(" OPTIONS ")
			p.properties(c.Options)
		}
		return
	}
	if c.Columns != nil || c.Constraints != nil {
		p.w(" (")
		p.columnDefs(c.Columns)
		for i, k := range c.Constraints {
			if i > 0 || c.Columns != nil {
				p.w(", ")
			}
			p.constraint(k)
		}
		p.w(")")
	}
	done := map[string]bool{}
	clause := func(kw string) {
		if done[kw] {
			return
		}
		done[kw] = true
		switch kw {
		case "USING":
			if c.Using == nil {
				return
			}
			p.w(" USING ")
			p.name(c.Using)
		case "OPTIONS":
			if c.Options == nil {
				return
			}
			p.w(" OPTIONS ")
			p.properties(c.Options)
		case "PARTITIONED BY":
			if c.PartitionedBy == nil {
				return
			}
			p.w(" PARTITIONED BY (")
			for i, n := range c.PartitionedBy {
				if i > 0 {
					p.w(", ")
				}
				p.partitionField(n)
			}
			p.w(")")
		case "CLUSTER BY":
			if c.ClusterMode != "" {
				p.w(" CLUSTER BY " + c.ClusterMode)
				return
			}
			if c.ClusterBy == nil {
				return
			}
			p.w(" CLUSTER BY (")
			p.names(c.ClusterBy)
			p.w(")")
		case "COMMENT":
			if c.Comment == nil {
				return
			}
			p.w(" COMMENT ")
			p.str(c.Comment)
		case "TBLPROPERTIES":
			if c.Properties == nil {
				return
			}
			p.w(" TBLPROPERTIES ")
			p.properties(c.Properties)
		case "LOCATION":
			if c.Location == nil {
				return
			}
			p.w(" LOCATION ")
			p.str(c.Location)
		default:
			if s, ok := placeholders[kw]; ok {
				p.w(" ", s)
			}
		}
	}
	for _, cl := range c.Clauses {
		clause(cl.Keyword)
	}
	// clauses a made-up tree holds without listing them
	for _, kw := range []string{"USING", "OPTIONS", "PARTITIONED BY", "CLUSTER BY", "COMMENT", "TBLPROPERTIES", "LOCATION"} {
		if !view || kw == "COMMENT" || kw == "TBLPROPERTIES" {
			clause(kw)
		}
	}
	switch {
	case c.Query != nil && c.FlowInsert:
		p.w(" FLOW INSERT ")
		if c.FlowOnce {
			p.w("ONCE ")
		}
		p.w("BY NAME ")
		p.query(c.Query)
	case c.Query != nil && c.ReplaceWhere != nil:
		p.w(" FLOW REPLACE WHERE ")
		p.expr(c.ReplaceWhere)
		p.w(" BY NAME ")
		p.query(c.Query)
	case c.Query != nil:
		p.w(" AS ")
		p.query(c.Query)
	}
	if c.AutoCDC != nil {
		p.w(" FLOW ")
		p.autoCDC(c.AutoCDC)
	}
}

// autoCDC writes AUTO CDC [INTO t] FROM ... with its clauses in the order
// Clauses lists them (the order of the text), then any it does not list.
func (p *printer) autoCDC(a *AutoCDC) { p.autoCDCAs("AUTO CDC ", a) }

// autoCDCAs writes an AutoCDC after its leading words lead (AUTO CDC or
// Databricks' APPLY CHANGES).
func (p *printer) autoCDCAs(lead string, a *AutoCDC) {
	p.w(lead)
	if a.Target != nil {
		p.w("INTO ")
		p.name(a.Target)
		p.w(" ")
	}
	p.w("FROM ")
	switch {
	case a.From != nil:
		p.relation(a.From, false)
	case a.Source != nil:
		p.relation(a.Source, false)
	}
	p.w(" KEYS (")
	p.names(a.Keys)
	p.w(")")
	done := map[string]bool{}
	clause := func(kw string) {
		if done[kw] {
			return
		}
		done[kw] = true
		list := func(except bool, ns []*Name) {
			if except {
				p.w("* EXCEPT ")
			}
			p.w("(")
			p.names(ns)
			p.w(")")
		}
		switch kw {
		case "SEQUENCE BY":
			if a.SequenceBy != nil {
				p.w(" SEQUENCE BY ")
				p.expr(a.SequenceBy)
			}
		case "APPLY AS DELETE WHEN":
			if a.DeleteWhen != nil {
				p.w(" APPLY AS DELETE WHEN ")
				p.expr(a.DeleteWhen)
			}
		case "APPLY AS TRUNCATE WHEN":
			if a.TruncateWhen != nil {
				p.w(" APPLY AS TRUNCATE WHEN ")
				p.expr(a.TruncateWhen)
			}
		case "IGNORE NULL UPDATES":
			if a.IgnoreNullUpdates {
				p.w(" IGNORE NULL UPDATES")
			}
		case "COLUMNS":
			if a.Columns != nil {
				p.w(" COLUMNS ")
				list(a.ColumnsExcept, a.Columns)
			}
		case "STORED AS":
			if a.SCDType != 0 {
				p.w(" STORED AS SCD TYPE ", strconv.Itoa(a.SCDType))
			}
		case "TRACK HISTORY":
			if a.TrackHistory != nil {
				p.w(" TRACK HISTORY ON ")
				list(a.TrackHistoryExcept, a.TrackHistory)
			}
		}
	}
	for _, c := range a.Clauses {
		clause(c.Keyword)
	}
	for _, kw := range []string{"SEQUENCE BY", "APPLY AS DELETE WHEN", "APPLY AS TRUNCATE WHEN", "IGNORE NULL UPDATES",
		"COLUMNS", "STORED AS", "TRACK HISTORY"} {
		clause(kw)
	}
}

func (p *printer) partitionField(n Node) {
	switch n := n.(type) {
	case *ColumnDef:
		p.columnDef(n)
	case Expr:
		p.expr(n)
	}
}

func (p *printer) columnDefs(cs []*ColumnDef) {
	for i, c := range cs {
		if i > 0 {
			p.w(", ")
		}
		p.columnDef(c)
	}
}

func (p *printer) columnDef(c *ColumnDef) {
	p.ident(c.Name)
	if c.Type != nil {
		p.w(" ")
		p.dataType(c.Type)
	}
	if c.NotNull {
		p.w(" NOT NULL")
	}
	if c.Default != nil {
		p.w(" DEFAULT ")
		p.expr(c.Default)
	}
	if c.Generated != nil {
		p.w(" GENERATED ALWAYS AS (")
		p.expr(c.Generated)
		p.w(")")
	}
	if c.Identity {
		if c.IdentityByDefault {
			p.w(" GENERATED BY DEFAULT AS IDENTITY")
		} else {
			p.w(" GENERATED ALWAYS AS IDENTITY")
		}
		if c.IdentityStart != nil || c.IdentityStep != nil {
			p.w(" (")
			if c.IdentityStart != nil {
				p.w("START WITH ")
				p.expr(c.IdentityStart)
				if c.IdentityStep != nil {
					p.w(" ")
				}
			}
			if c.IdentityStep != nil {
				p.w("INCREMENT BY ")
				p.expr(c.IdentityStep)
			}
			p.w(")")
		}
	}
	if c.Comment != nil {
		p.w(" COMMENT ")
		p.str(c.Comment)
	}
	for _, k := range c.Constraints {
		p.w(" ")
		p.constraint(k)
	}
}

func (p *printer) constraint(k *Constraint) {
	if k.Name != nil {
		p.w("CONSTRAINT ")
		p.ident(k.Name)
		p.w(" ")
	}
	switch k.Kind {
	case "CHECK":
		p.w("CHECK (")
		p.expr(k.Check)
		p.w(")")
		return
	case "EXPECT":
		p.w("EXPECT (")
		p.expr(k.Check)
		p.w(")")
		if k.OnViolation != "" {
			p.w(" ON VIOLATION ", k.OnViolation)
		}
		return
	case "REFERENCES":
		p.w("REFERENCES ")
		p.name(k.Ref)
		p.refColumns(k)
		return
	}
	p.w(k.Kind)
	if k.Columns != nil {
		p.w(" (")
		p.idents(k.Columns)
		p.w(")")
	}
	if k.Ref != nil {
		p.w(" REFERENCES ")
		p.name(k.Ref)
		p.refColumns(k)
	}
}

func (p *printer) refColumns(k *Constraint) {
	if k.RefColumns != nil {
		p.w(" (")
		p.idents(k.RefColumns)
		p.w(")")
	}
}

// The SET forms Spark reads without quotes (the parser's own patterns).
var setKeyOnly = regexp.MustCompile(`^[a-zA-Z_\d.:]+$`)

func (p *printer) set(s *Set) {
	switch s.Kind {
	case "RESET":
		p.w("RESET")
		if s.Key != "" {
			p.w(" ", s.Key)
		}
		return
	case "CATALOG":
		p.w("SET CATALOG ")
		p.name(s.Catalog)
		return
	case "TIME ZONE":
		p.w("SET TIME ZONE ")
		switch {
		case s.Value != "":
			p.w(s.Value) // as written, which the tree keeps
		case s.Expr != nil:
			p.expr(s.Expr)
		default:
			p.w("LOCAL")
		}
		return
	case "VAR":
		p.w("SET VAR ")
		if s.Query != nil {
			p.w("(")
			p.names(s.Names)
			p.w(") = (")
			p.query(s.Query)
			p.w(")")
			return
		}
		for i, a := range s.Assignments {
			if i > 0 {
				p.w(", ")
			}
			p.assignment(a)
		}
		return
	}
	p.w("SET")
	if s.Key == "" && s.Value == "" {
		return
	}
	plainKey := setKeyOnly.MatchString(s.Key) || s.Key == "-v"
	switch {
	case s.Value == "" && plainKey:
		p.w(" ", s.Key)
	case s.Value == "":
		p.w(" ", backquote(s.Key))
	case plainKey && !strings.Contains(s.Value, ";") && strings.TrimSpace(s.Value) == s.Value:
		// key = value, read by Spark's pattern
		p.w(" ", s.Key, " = ", s.Value)
	case rawSetValue(s.Value):
		// `key` = value: the value as written
		p.w(" ", backquote(s.Key), " = ", s.Value)
	default:
		// a ; in the value: the value as one backquoted name, which
		// Spark unquotes
		p.w(" ", backquote(s.Key), " = ", backquote(s.Value))
	}
}

// unterminated reports whether the text of a statement ends in an
// unterminated literal (a SET value holds its text as written).
func unterminated(text string) bool {
	toks := lex.Lex(text)
	return len(toks) > 0 && toks[len(toks)-1].Kind.IsError()
}

// rawSetValue reports whether v, the value of SET `key` = v, reads back
// as written: no ; ends the statement inside it and no backquote is
// left open in it, it does not start or end with a space, and it is not
// one backquoted name (which Spark unquotes).
func rawSetValue(v string) bool {
	if strings.TrimSpace(v) != v {
		return false // Spark trims the value
	}
	toks := lex.Lex(v)
	if len(toks) == 1 && toks[0].Kind == lex.QuotedIdent {
		return false
	}
	for _, t := range toks {
		// A ; would end the statement, and a backquote left open
		// would run on into the next statement's first backquote (a
		// value that is one backquote, unquoted from ````, is written
		// quoted). A value that is not valid UTF-8 stays as written:
		// quoting would not keep its bytes.
		if t.Kind == lex.Semicolon || t.Kind == lex.UnterminatedQuotedIdent && utf8.ValidString(v) {
			return false
		}
	}
	return true
}

// other writes a multi-table INSERT; any other Other statement as its
// Kind.
func (p *printer) other(o *Other) {
	if o.Kind != "MULTI INSERT" || len(o.Stmts) == 0 {
		if o.Text != "" {
			p.w(o.Text)
		} else {
			p.w(o.Kind)
		}
		return
	}
	first, ok := o.Stmts[0].(*Insert)
	if !ok || first.Query == nil {
		p.w(o.Kind)
		return
	}
	if first.Query.With != nil {
		p.with(first.Query.With)
		p.w(" ")
	}
	if s, ok := first.Query.Body.(*Select); ok && s.From != nil {
		p.from(s.From)
	}
	for _, st := range o.Stmts {
		ins, ok := st.(*Insert)
		if !ok || ins.Query == nil {
			continue
		}
		p.w(" ")
		p.insertHeader(ins)
		p.w(" ")
		if s, ok := ins.Query.Body.(*Select); ok {
			p.selectQuery(s, false)
		} else {
			p.queryExpr(ins.Query.Body)
		}
		p.organization(ins.Query)
	}
}
