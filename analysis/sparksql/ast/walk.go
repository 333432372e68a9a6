package ast

import (
	"fmt"
	"slices"
)

// Inspect visits the tree under n depth first, in text order, as
// go/ast.Inspect does: it calls f(n); if that returns true, it visits each
// child of n the same way and then calls f(nil). A nil n, and every nil
// field, is skipped.
//
// Every node that a field of another node holds is visited: the
// expressions, relations, query bodies and statements behind the
// interfaces, and the identifiers, names, string literals, data types,
// windows, sort items, select items, group items, properties, column
// definitions and constraints behind pointers and in lists. What Inspect
// does not visit are the values that merely record where something is: a
// Script's Errors and Comments, a Create's Clauses (an index of the clause
// keywords, whose ranges overlap the nodes that hold the clauses'
// contents), and the Range-valued fields (StringLit.Parts, KeyRange, ...).
//
// Children come in the order of the text even where the fields do not
// hold them in that order: the arguments of TRIM(chars FROM str), the
// alias of STRUCT(x AS name), the clauses of CREATE written in any order,
// the column options, the query-organization clauses. A node that two
// nodes share is visited once, under the node whose range contains it:
// the FROM clause of a FROM-first query with several SELECTs (FROM t
// SELECT a SELECT b) belongs to the first SELECT, and the WITH and FROM
// of a multi-table INSERT (FROM t INSERT ... SELECT ... INSERT ...) to the
// MULTI INSERT statement, before its INSERTs.
//
// Inspect panics on a node type it does not know.
func Inspect(n Node, f func(Node) bool) {
	inspector(f).node(n)
}

// inspector is the visit function; its methods walk the children.
type inspector func(Node) bool

// node visits n (an interface value: nil is skipped).
func (f inspector) node(n Node) {
	if n == nil {
		return
	}
	if !f(n) {
		return
	}
	f.children(n)
	f(nil)
}

// one visits the node behind a pointer field, skipping nil.
func one[P interface {
	*E
	Node
}, E any](f inspector, x P) {
	if x != nil {
		f.node(x)
	}
}

// all visits the nodes of a list of pointers, skipping nil ones.
func all[P interface {
	*E
	Node
}, E any](f inspector, xs []P) {
	for _, x := range xs {
		if x != nil {
			f.node(x)
		}
	}
}

// each visits the nodes of a list of interfaces (Expr, Relation, Stmt,
// Node), skipping nil ones.
func each[T Node](f inspector, xs []T) {
	for _, x := range xs {
		f.node(x)
	}
}

// sorted is a list of children gathered from several fields, visited in
// the order of their start offsets (stable, so that nodes starting at the
// same offset keep the order they were added in).
type sorted []Node

func (s *sorted) add(n Node) {
	if n != nil {
		*s = append(*s, n)
	}
}

func addOne[P interface {
	*E
	Node
}, E any](s *sorted, x P) {
	if x != nil {
		*s = append(*s, x)
	}
}

func addAll[P interface {
	*E
	Node
}, E any](s *sorted, xs []P) {
	for _, x := range xs {
		addOne(s, x)
	}
}

func addEach[T Node](s *sorted, xs []T) {
	for _, x := range xs {
		s.add(x)
	}
}

func (f inspector) sorted(s sorted) {
	slices.SortStableFunc(s, func(a, b Node) int { return a.Span().Start - b.Span().Start })
	for _, n := range s {
		f.node(n)
	}
}

// inside reports whether child lies in parent's range (shared nodes are
// visited under the node that contains them).
func inside(child, parent Node) bool {
	c, p := child.Span(), parent.Span()
	return c.Start >= p.Start && c.End <= p.End
}

// children visits the children of n in text order.
func (f inspector) children(n Node) {
	switch n := n.(type) {
	// ast.go
	case *Script:
		each(f, n.Stmts)
	case *Ident:
		f.node(n.Expr)
	case *Name:
		all(f, n.Parts)
	case *StringLit:
	case *Property:
		f.node(n.Value)

	// expr.go
	case *Literal:
		one(f, n.Str)
	case *TypedLiteral:
		one(f, n.Value)
	case *Interval:
		one(f, n.Value)
		all(f, n.Units)
	case *IntervalUnit:
		f.node(n.Value)
	case *Param:
	case *Column:
		all(f, n.Parts)
	case *Star:
		one(f, n.Qualifier)
		all(f, n.Except)
	case *Unary:
		f.node(n.X)
	case *Binary:
		f.node(n.L)
		f.node(n.R)
	case *Between:
		f.node(n.X)
		f.node(n.Lo)
		f.node(n.Hi)
	case *In:
		f.node(n.X)
		each(f, n.List)
		one(f, n.Query)
	case *Like:
		f.node(n.X)
		each(f, n.Patterns)
		one(f, n.Escape)
	case *Is:
		f.node(n.X)
		f.node(n.Other)
	case *Exists:
		one(f, n.Query)
	case *Subquery:
		one(f, n.Query)
	case *Paren:
		f.node(n.X)
	case *Row:
		all(f, n.Items)
	case *Cast:
		f.node(n.X)
		one(f, n.Type)
	case *Case:
		f.node(n.Operand)
		all(f, n.Whens)
		f.node(n.Else)
	case *When:
		f.node(n.Cond)
		f.node(n.Result)
	case *Call:
		f.call(n)
	case *NamedArg:
		// name => value, or STRUCT's value AS name
		if n.Name != nil && n.Value != nil && n.Value.Span().Start < n.Name.Start {
			f.node(n.Value)
			f.node(n.Name)
		} else {
			one(f, n.Name)
			f.node(n.Value)
		}
		all(f, n.Aliases)
	case *TableArg:
		one(f, n.Name)
		one(f, n.Query)
		each(f, n.PartitionBy)
		all(f, n.OrderBy)
	case *Lambda:
		all(f, n.Params)
		f.node(n.Body)
	case *Subscript:
		f.node(n.X)
		f.node(n.Index)
	case *Field:
		f.node(n.X)
		one(f, n.Name)
	case *Extract:
		f.node(n.X)
	case *Collate:
		f.node(n.X)
		one(f, n.Collation)
	case *BadExpr:
	case *Window:
		one(f, n.Ref)
		each(f, n.PartitionBy)
		all(f, n.OrderBy)
		one(f, n.Frame)
	case *Frame:
		one(f, n.Start)
		one(f, n.End)
	case *FrameBound:
		f.node(n.Offset)
	case *SortItem:
		f.node(n.X)
	case *DataType:
		one(f, n.Elem)
		one(f, n.Key)
		one(f, n.Value)
		all(f, n.Fields)
	case *StructField:
		one(f, n.Name)
		one(f, n.Type)
		one(f, n.Comment)

	// query.go
	case *Query:
		if n.With != nil && inside(n.With, n) {
			f.node(n.With)
		}
		f.node(n.Body)
		// queryOrganization's order: ORDER, CLUSTER, DISTRIBUTE, SORT BY,
		// WINDOW, LIMIT, OFFSET
		all(f, n.OrderBy)
		each(f, n.ClusterBy)
		each(f, n.DistributeBy)
		all(f, n.SortBy)
		all(f, n.Windows)
		f.node(n.Limit)
		f.node(n.Offset)
	case *With:
		all(f, n.CTEs)
	case *CTE:
		one(f, n.Name)
		all(f, n.Columns)
		f.node(n.MaxRecursion)
		one(f, n.Query)
	case *Select:
		f.selectNode(n)
	case *Transform:
		one(f, n.Script)
		all(f, n.Output)
	case *Hint:
		all(f, n.Items)
	case *HintItem:
		one(f, n.Name)
		each(f, n.Params)
	case *SelectItem:
		f.node(n.X)
		one(f, n.Alias)
		all(f, n.Aliases)
	case *From:
		each(f, n.Relations)
		all(f, n.LateralViews)
		one(f, n.Pivot)
		one(f, n.Unpivot)
	case *GroupBy:
		all(f, n.Items)
		all(f, n.GroupingSets)
	case *GroupItem:
		f.node(n.X)
		all(f, n.Items)
	case *NamedWindow:
		one(f, n.Name)
		one(f, n.Window)
	case *SetOp:
		f.node(n.L)
		f.node(n.R)
	case *ParenQuery:
		one(f, n.Query)
	case *Values:
		each(f, n.Rows)
		one(f, n.Alias)
	case *TableQuery:
		one(f, n.Name)
	case *Pipe:
		f.node(n.Input)
		all(f, n.Ops)
	case *PipeOp:
		// one operator, except PIVOT and UNPIVOT, which may follow
		// each other in either order
		var s sorted
		addOne(&s, n.Select)
		addAll(&s, n.Set)
		addAll(&s, n.Names)
		addOne(&s, n.Join)
		s.add(n.Right)
		addOne(&s, n.Org)
		addOne(&s, n.Pivot)
		addOne(&s, n.Unpivot)
		addOne(&s, n.Sample)
		f.sorted(s)
	case *Assignment:
		one(f, n.Name)
		f.node(n.Value)
	case *Table:
		one(f, n.Name)
		one(f, n.Temporal)
		all(f, n.Options)
		one(f, n.Sample)
		one(f, n.Watermark)
		one(f, n.Alias)
	case *Temporal:
		f.node(n.Value)
	case *Sample:
		f.node(n.Value)
		f.node(n.Denominator)
		f.node(n.On)
		f.node(n.Seed)
	case *Watermark:
		one(f, n.Column)
		one(f, n.Delay)
	case *TableAlias:
		one(f, n.Name)
		all(f, n.Columns)
	case *SubqueryRel:
		one(f, n.Query)
		one(f, n.Sample)
		one(f, n.Watermark)
		one(f, n.Alias)
	case *ParenRel:
		f.node(n.Rel)
		one(f, n.Sample)
		one(f, n.Watermark)
		one(f, n.Alias)
	case *TableFunc:
		one(f, n.Call)
		one(f, n.Watermark)
		one(f, n.Alias)
	case *Join:
		f.node(n.L)
		f.node(n.R)
		f.node(n.On)
		all(f, n.Using)
	case *Pivot:
		f.node(n.Input)
		all(f, n.Aggregates)
		all(f, n.Columns)
		all(f, n.Values)
		one(f, n.Alias)
	case *Unpivot:
		f.node(n.Input)
		all(f, n.ValueColumns)
		one(f, n.NameColumn)
		all(f, n.Columns)
		one(f, n.Alias)
	case *UnpivotColumns:
		all(f, n.Names)
		one(f, n.Alias)
	case *LateralView:
		one(f, n.Call)
		one(f, n.Table)
		all(f, n.Columns)
	case *BadRelation:

	// stmt.go
	case *QueryStmt:
		one(f, n.Query)
	case *Create:
		// the table elements and the clauses come in any order
		var s sorted
		addOne(&s, n.Name)
		addAll(&s, n.Columns)
		addAll(&s, n.Constraints)
		addOne(&s, n.Using)
		addAll(&s, n.Options)
		addEach(&s, n.PartitionedBy)
		addAll(&s, n.ClusterBy)
		addOne(&s, n.Comment)
		addAll(&s, n.Properties)
		addOne(&s, n.Location)
		addOne(&s, n.Like)
		s.add(n.ReplaceWhere)
		addOne(&s, n.Query)
		addOne(&s, n.AutoCDC)
		f.sorted(s)
	case *ColumnDef:
		// the column options come in any order
		var s sorted
		addOne(&s, n.Name)
		addOne(&s, n.Type)
		s.add(n.Default)
		s.add(n.Generated)
		s.add(n.IdentityStart)
		s.add(n.IdentityStep)
		addOne(&s, n.Comment)
		addAll(&s, n.Constraints)
		f.sorted(s)
	case *Constraint:
		one(f, n.Name)
		f.node(n.Check)
		all(f, n.Columns)
		one(f, n.Ref)
		all(f, n.RefColumns)
	case *CreateFlow:
		one(f, n.Name)
		one(f, n.Comment)
		one(f, n.Insert)
		one(f, n.AutoCDC)
	case *ApplyChanges:
		one(f, n.CDC)
	case *AutoCDC:
		// the clauses after KEYS come in any order
		var s sorted
		addOne(&s, n.Target)
		if n.From != nil {
			s.add(n.From) // Source is in it
		} else {
			addOne(&s, n.Source)
		}
		addAll(&s, n.Keys)
		s.add(n.SequenceBy)
		s.add(n.DeleteWhen)
		s.add(n.TruncateWhen)
		addAll(&s, n.Columns)
		addAll(&s, n.TrackHistory)
		f.sorted(s)
	case *Insert:
		one(f, n.With)
		one(f, n.Directory)
		one(f, n.Table)
		all(f, n.Options)
		all(f, n.Partition)
		all(f, n.Columns)
		f.node(n.ReplaceWhere)
		one(f, n.Query)
	case *Set:
		one(f, n.Catalog)
		f.node(n.Expr)
		all(f, n.Assignments)
		all(f, n.Names)
		one(f, n.Query)
	case *Use:
		one(f, n.Name)
	case *Other:
		f.other(n)
	case *BadStmt:
		f.node(n.Partial)

	default:
		panic(fmt.Sprintf("ast.Inspect: unexpected node type %T", n))
	}
}

// call visits a call's name, unit and arguments in text order: TRIM
// holds (str, chars) for TRIM(chars FROM str).
func (f inspector) call(n *Call) {
	one(f, n.Name)
	one(f, n.Unit)
	if n.Form == "TRIM" {
		var s sorted
		addEach(&s, n.Args)
		f.sorted(s)
	} else {
		each(f, n.Args)
	}
	all(f, n.WithinGroup)
	f.node(n.Filter)
	one(f, n.Over)
}

// selectNode visits a SELECT's clauses: FROM first in a FROM-first query,
// the TRANSFORM clause (whose range starts at SELECT) before the items.
func (f inspector) selectNode(n *Select) {
	from := n.From != nil && inside(n.From, n)
	if from && n.FromFirst {
		f.node(n.From)
	}
	all(f, n.Hints)
	one(f, n.Transform)
	all(f, n.Items)
	if from && !n.FromFirst {
		f.node(n.From)
	}
	all(f, n.LateralViews)
	f.node(n.Where)
	one(f, n.GroupBy)
	f.node(n.Having)
	if n.Qualify != nil && len(n.Windows) > 0 && n.Qualify.Span().Start > n.Windows[0].Start {
		all(f, n.Windows)
		f.node(n.Qualify)
	} else {
		f.node(n.Qualify)
		all(f, n.Windows)
	}
	one(f, n.Organization)
}

// other visits an Other statement's names, queries, expressions and
// statements in text order; a MULTI INSERT's shared WITH and FROM come
// first.
func (f inspector) other(n *Other) {
	if n.Kind == "MULTI INSERT" && len(n.Stmts) > 0 {
		if ins, ok := n.Stmts[0].(*Insert); ok && ins.Query != nil {
			if w := ins.Query.With; w != nil && !inside(w, ins.Query) {
				f.node(w)
			}
			if s, ok := ins.Query.Body.(*Select); ok && s.From != nil && !inside(s.From, s) {
				f.node(s.From)
			}
		}
	}
	var s sorted
	addAll(&s, n.Names)
	addAll(&s, n.Queries)
	addEach(&s, n.Exprs)
	addEach(&s, n.Stmts)
	f.sorted(s)
}
