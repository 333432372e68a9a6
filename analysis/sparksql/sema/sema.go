// Package sema is the semantic model of Spark SQL on the syntax tree of
// package ast: it resolves every table reference and every column
// reference of a query the way Spark's analyzer does, computes each
// query's output columns, and reports the name errors it is certain of
// (unknown column, ambiguous column, a column that is neither grouped nor
// aggregated) at the exact range of the offending node, with the other
// errors Spark's analyzer raises before running that it can decide on
// the tree (checks.go, types.go: an aggregate ORDER BY cannot compute,
// ORDER BY and GROUP BY positions, subqueries where Spark takes none,
// operand types of literals, casts and typed columns), each with Spark's
// error class as its code.
//
// Scopes follow Spark: FROM items with their aliases and column aliases,
// joins (USING and NATURAL merge their columns), LATERAL subqueries and
// LATERAL VIEW, table functions, VALUES, CTEs (nested, shadowing, WITH
// RECURSIVE), PIVOT and UNPIVOT, correlated subqueries, set operations,
// pipe operators, * EXCEPT and t.*, select-list aliases where Spark allows
// them (ORDER BY, HAVING, GROUP BY and lateral column aliases), lambda
// parameters and struct field access. Names match case-insensitively
// unless [Options.CaseSensitive] is set.
//
// The model never guesses against the user: where a table's columns are
// unknown (the [Catalog] does not know them, a table function whose output
// it cannot compute, a column Spark names from its expression), a name
// that is not found is left unresolved without a diagnostic.
package sema

import "github.com/thund-dev/thund/analysis/sparksql/ast"

// Column is a column of a catalog table: its name and, when known, its
// Spark type as Spark writes it (for example "bigint",
// "struct<a:int,b:string>"); Type is empty when unknown.
type Column struct {
	Name, Type string
}

// Catalog resolves table names for the model. The caller provides it.
type Catalog interface {
	// Table resolves a table, view or dataset name, as written (possibly
	// qualified: catalog.schema.table), to its columns. ok is false for
	// an unknown table; a known table whose columns are unknown returns
	// ok true and nil columns, and nothing read from it is checked.
	Table(name []string) (cols []Column, ok bool)
}

// Options are the Spark settings that change name resolution. The zero
// value is Spark's default configuration.
type Options struct {
	// CaseSensitive is spark.sql.caseSensitive: names match exactly.
	CaseSensitive bool
	// NoGroupByAliases is spark.sql.groupByAliases=false: GROUP BY does
	// not see select-list aliases.
	NoGroupByAliases bool
	// NoLateralAliases is
	// spark.sql.lateralColumnAlias.enableImplicitResolution=false: a
	// select item does not see the aliases of the items before it.
	NoLateralAliases bool
	// QuotedRegexColumnNames is spark.sql.parser.quotedRegexColumnNames:
	// a `quoted` name in a select list is a regular expression over the
	// column names, so quoted names are not checked.
	QuotedRegexColumnNames bool
	// Variables are the session variables in effect (DECLARE VARIABLE),
	// which a name resolves to when no column has it.
	Variables []string
	// Source is the text the tree was parsed from, when the caller has
	// it; the model then names computed output columns by their text.
	Source string
	// NoOrderByOrdinal is spark.sql.orderByOrdinal=false: ORDER BY 2
	// orders by the constant 2, not by the second column.
	NoOrderByOrdinal bool
	// NoGroupByOrdinal is spark.sql.groupByOrdinal=false: GROUP BY 2
	// groups by the constant.
	NoGroupByOrdinal bool
}

// Reuser is a Catalog that may already hold the model of a query
// analyzed against it: a caller that analyzes each query once for its
// own purposes (the output columns of the tables the catalog answers
// with) and then hands the same tree and catalog to code that analyzes
// it again (a translation) saves the second analysis. Analyzed returns
// nil when it has no model of q computed with opts, or one whose answers
// would differ from what an analysis now would give.
type Reuser interface {
	Catalog
	Analyzed(q *ast.Query, opts Options) *Model
}

// Analyze resolves the names of q against cat (which may be nil: every
// table is then unknown) and returns the model. When cat is a [Reuser]
// holding q's model, that model is returned; models are read-only, so
// one may be shared.
func Analyze(q *ast.Query, cat Catalog, opts Options) *Model {
	if r, ok := cat.(Reuser); ok && q != nil {
		if m := r.Analyzed(q, opts); m != nil {
			return m
		}
	}
	a := newAnalyzer(cat, opts)
	if q != nil {
		a.query(q, nil)
	}
	return a.finish()
}

// AnalyzeStmt analyzes the queries of a statement: the query of a CREATE
// ... AS, of an INSERT (with the WITH written before INSERT), of a CREATE
// FLOW, of a query statement, the queries of any other statement, and
// what the parser read of a broken one. The queries of SQL scripts,
// routines and DML statements other than INSERT are resolved without
// diagnostics: their names may be variables or parameters the model
// does not see.
func AnalyzeStmt(st ast.Stmt, cat Catalog, opts Options) *Model {
	a := newAnalyzer(cat, opts)
	a.stmt(st)
	return a.finish()
}

// stmt analyzes the queries of st.
func (a *analyzer) stmt(st ast.Stmt) {
	switch st := st.(type) {
	case *ast.QueryStmt:
		if st.Query != nil {
			a.query(st.Query, nil)
		}
	case *ast.Create:
		if st.Query != nil {
			a.query(st.Query, nil)
		}
	case *ast.CreateFlow:
		if st.Insert != nil {
			a.stmt(st.Insert)
		}
	case *ast.Insert:
		if st.Query == nil {
			return
		}
		if st.With == nil {
			a.query(st.Query, nil)
			return
		}
		saved := a.ctes
		a.with(st.With, nil)
		a.query(st.Query, nil)
		a.ctes = saved
	case *ast.Set:
		if st.Query != nil {
			a.query(st.Query, nil)
		}
	case *ast.Other:
		// Only a statement that wraps a whole query is checked. In a SQL
		// script (BEGIN ... END, IF, loops, FOR v AS query) or a routine
		// (CREATE FUNCTION ... RETURN query) a name may be a local
		// variable, a loop variable or a parameter; a subquery of MERGE,
		// UPDATE or DELETE may name the target table. Their names are
		// resolved, but nothing is reported.
		saved := a.quiet
		if !checkedOther[st.Kind] {
			a.quiet = true
		}
		for _, q := range st.Queries {
			if q != nil {
				a.query(q, nil)
			}
		}
		for _, s := range st.Stmts {
			a.stmt(s)
		}
		a.quiet = saved
	case *ast.BadStmt:
		if st.Partial != nil {
			a.stmt(st.Partial)
		}
	}
}

// checkedOther are the kinds of ast.Other whose queries are whole
// queries, checked like a query statement.
var checkedOther = map[string]bool{"EXPLAIN": true, "CACHE TABLE": true, "DESCRIBE QUERY": true, "ALTER VIEW": true}

// Model is what the analysis found: the table and column references, the
// relations the queries read, their outputs, and the diagnostics.
type Model struct {
	// Tables are the table references (FROM t, TABLE t, TABLE(t)
	// arguments), in the order they were analyzed.
	Tables []*TableRef
	// Columns are the column references, one per *ast.Column.
	Columns []*ColumnRef
	// Relations are the FROM items and other row sources, in the order
	// they were analyzed.
	Relations []*Relation
	// Diagnostics are the name errors, in the order found.
	Diagnostics []Diagnostic

	tables  map[ast.Node]*TableRef
	columns map[*ast.Column]*ColumnRef
	outputs map[ast.Node]*Output
}

// Table returns the reference of a *ast.Table, *ast.TableQuery or
// *ast.TableArg node, or nil.
func (m *Model) Table(n ast.Node) *TableRef { return m.tables[n] }

// Column returns the reference of c, or nil when c was not analyzed (a
// column inside a hint or a table's options, say).
func (m *Model) Column(c *ast.Column) *ColumnRef { return m.columns[c] }

// Output returns the output columns of a *ast.Query, of any query body
// (ast.QueryExpr, a pipe's input and result included), of a *ast.CTE (with
// its column list applied) or of a *ast.PipeOp (the columns after that
// operator); nil when the node was not analyzed.
func (m *Model) Output(n ast.Node) *Output { return m.outputs[n] }

// TableKind says what a table reference resolved to.
type TableKind uint8

// The kinds of table reference.
const (
	// TableUnknown is a name neither a CTE nor the catalog knows (or
	// written with IDENTIFIER(expr)). The model does not report it: the
	// caller knows which names its project defines.
	TableUnknown TableKind = iota
	// TableCTE is a reference to a CTE in scope.
	TableCTE
	// TableCatalog is a table the catalog knows.
	TableCatalog
)

// String names the kind.
func (k TableKind) String() string {
	switch k {
	case TableCTE:
		return "cte"
	case TableCatalog:
		return "catalog"
	}
	return "unknown"
}

// TableRef is one reference to a table by name.
type TableRef struct {
	// Node is the *ast.Table, *ast.TableQuery or *ast.TableArg.
	Node ast.Node
	Name *ast.Name
	Kind TableKind
	// CTE is the CTE referenced, for TableCTE.
	CTE *ast.CTE
	// Columns are the catalog's columns of a TableCatalog reference (nil
	// when the catalog does not know them).
	Columns []Column
	// ColumnsKnown reports whether the table's columns are known (for a
	// CTE, whether its output is).
	ColumnsKnown bool
	// Hidden are the table's hidden columns, from a [HiddenCatalog] (a
	// file read's _metadata): resolved by name, never part of *.
	Hidden []Column
}

// Relation is a source of rows whose columns a query reads: a FROM item
// (table, subquery, VALUES, table function, parenthesised join with an
// alias, PIVOT, UNPIVOT), a LATERAL VIEW, or the result of a pipe
// operator.
type Relation struct {
	// Node is the *ast.Table, *ast.SubqueryRel, *ast.Values,
	// *ast.TableFunc, *ast.ParenRel, *ast.Pivot, *ast.Unpivot,
	// *ast.LateralView, *ast.TableArg or *ast.PipeOp.
	Node ast.Node
	// Name is the name the relation's columns are qualified by in
	// messages: its alias, else the table's name as written; empty when
	// it has none.
	Name string
	// Table is the table reference of a table read (nil otherwise).
	Table *TableRef
	// Columns are the relation's columns, as far as they are known.
	Columns []*OutputColumn
	// Complete reports whether Columns are all of its columns (the names
	// of Generated columns are approximate).
	Complete bool
}

// Output is the output of a query.
type Output struct {
	// Node is the *ast.Query, query body, *ast.CTE or *ast.PipeOp.
	Node    ast.Node
	Columns []*OutputColumn
	// Complete reports whether Columns are all of the output's columns
	// (false after a * over a table of unknown columns, for example); the
	// names of Generated columns are approximate.
	Complete bool
}

// OutputColumn is one column of a query's output or of a relation.
type OutputColumn struct {
	// Name is the column's name. For a computed column without an alias
	// it is the expression's text when [Options.Source] was given (else
	// empty), and Generated is set: Spark names such columns itself.
	Name      string
	Generated bool
	// fuzz says how far a Generated name is from Spark's; eq is the
	// attribute the column passes on, shared by two columns of one
	// attribute (SELECT a, a).
	fuzz fuzz
	eq   int
	// Type is the Spark type when known (a catalog column, or a column
	// passed through from one).
	Type string
	// Expr is the expression producing the column (nil for a table's
	// column, a star's expansion, a set operation or a generator).
	Expr ast.Expr
	// Item is the select item producing the column, when there is one.
	Item *ast.SelectItem
	// Source is where a passthrough column comes from: the relation and
	// column the output passes on unchanged (SELECT t.a, SELECT *).
	Source *ColumnSource
}

// ColumnSource is one column of a relation.
type ColumnSource struct {
	Rel   *Relation
	Index int
}

// Column returns the column itself (nil for the zero ColumnSource).
func (s ColumnSource) Column() *OutputColumn {
	if s.Rel == nil || s.Index < 0 || s.Index >= len(s.Rel.Columns) {
		return nil
	}
	return s.Rel.Columns[s.Index]
}

// String returns qualifier.name, or the name alone for a relation
// without a name.
func (s ColumnSource) String() string {
	c := s.Column()
	if c == nil {
		return ""
	}
	if s.Rel.Name == "" {
		return c.Name
	}
	return s.Rel.Name + "." + c.Name
}

// RefKind says what a column reference resolved to.
type RefKind uint8

// The kinds of column reference.
const (
	// RefUnknown is a name that could not be checked: some relation in
	// scope has unknown columns, or the name is one Spark may supply
	// itself (a metadata column). No diagnostic.
	RefUnknown RefKind = iota
	// RefUnresolved is a name that certainly resolves to nothing; a
	// diagnostic reports it.
	RefUnresolved
	// RefAmbiguous is a name several columns have; Candidates lists
	// them and a diagnostic reports it.
	RefAmbiguous
	// RefColumn is a column of a relation (Source); Outer > 0 for a
	// correlated reference to an enclosing query's relation.
	RefColumn
	// RefLambda is a lambda parameter (Lambda, Param).
	RefLambda
	// RefAlias is a select-list alias (Alias): in ORDER BY, HAVING,
	// GROUP BY, or a lateral column alias.
	RefAlias
	// RefVariable is a session variable of [Options.Variables].
	RefVariable
	// RefVirtual is a column Spark adds itself: window and
	// session_window in a query grouping by those functions,
	// grouping__id.
	RefVirtual
)

var refNames = [...]string{"unknown", "unresolved", "ambiguous", "column", "lambda", "alias", "variable", "virtual"}

// String names the kind.
func (k RefKind) String() string {
	if int(k) < len(refNames) {
		return refNames[k]
	}
	return "ref"
}

// ColumnRef is one column reference.
type ColumnRef struct {
	Node *ast.Column
	Kind RefKind
	// Tentative is set when the resolution may be wrong because a
	// relation searched before the one that matched has unknown columns.
	// (Beside Kind, as partial below: the one-byte fields together.)
	Tentative bool
	partial   bool
	// Source is the column referenced, for RefColumn.
	Source ColumnSource
	// Outer is how many queries out the referenced column's relation
	// is: 0 for the query's own FROM, 1 for the query enclosing a
	// subquery, and so on.
	Outer int
	// Lambda and Param are the lambda and its parameter, for RefLambda.
	Lambda *ast.Lambda
	Param  *ast.Ident
	// Alias is the select item whose alias is referenced, for RefAlias.
	Alias *ast.SelectItem
	// NameParts is how many of Node.Parts name the column (qualifier and
	// name); the parts after them are struct fields (Fields).
	NameParts int
	// Candidates are the columns an ambiguous reference could be.
	Candidates []ColumnSource

	// eq, qual, partial and typ are those of the attribute resolved to.
	eq   int
	qual []string
	typ  string
}

// Fields returns the struct fields the reference accesses after the
// column: a.b.c with column a gives b, c.
func (r *ColumnRef) Fields() []*ast.Ident {
	if r.NameParts <= 0 || r.NameParts >= len(r.Node.Parts) {
		return nil
	}
	return r.Node.Parts[r.NameParts:]
}

// Diagnostic is one analysis error at the range of the offending node.
type Diagnostic struct {
	ast.Range
	// Code is Spark's error class: UNRESOLVED_COLUMN,
	// AMBIGUOUS_REFERENCE, MISSING_AGGREGATION (MISSING_GROUP_BY when
	// there is no GROUP BY) or FIELD_NOT_FOUND for a name ([NameCodes]),
	// or the class of another analysis error Spark raises before running
	// (UNSUPPORTED_EXPR_FOR_OPERATOR, ORDER_BY_POS_OUT_OF_RANGE, ...; the
	// Code* constants).
	Code    string
	Message string
	// Suggestions are the likely intended names (qualified where
	// qualifying helps), nearest first; for an ambiguous reference, the
	// qualified names to choose from.
	Suggestions []string
}
