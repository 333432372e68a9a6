package ast

// Query is a full query: WITH, a body, and the clauses that order and
// limit the result (Spark's queryOrganization).
type Query struct {
	Range
	With *With
	Body QueryExpr
	// OrderBy, SortBy, ClusterBy and DistributeBy are the query's ORDER
	// BY, SORT BY, CLUSTER BY and DISTRIBUTE BY.
	OrderBy      []*SortItem
	SortBy       []*SortItem
	ClusterBy    []Expr
	DistributeBy []Expr
	// Windows is the WINDOW clause after the body's set operations.
	Windows []*NamedWindow
	// Limit is LIMIT n; LimitAll is LIMIT ALL.
	Limit    Expr
	LimitAll bool
	Offset   Expr
}

// With is WITH [RECURSIVE] name AS (query), ...
type With struct {
	Range
	Recursive bool
	CTEs      []*CTE
}

// CTE is one named query of WITH.
type CTE struct {
	Range
	Name    *Ident
	Columns []*Ident
	// MaxRecursion is MAX RECURSION LEVEL n.
	MaxRecursion Expr
	Query        *Query
}

// QueryExpr is the body of a query: a SELECT, a set operation, VALUES,
// TABLE t, a FROM-first query, a parenthesised query or a pipe.
type QueryExpr interface {
	Node
	queryNode()
}

// Select is SELECT ... [FROM ...] [LATERAL VIEW ...] [WHERE] [GROUP BY]
// [HAVING] [WINDOW], or the same with the FROM clause first (Spark's
// FROM t SELECT ...: FromFirst set), or SELECT TRANSFORM (...) USING
// 'script' (Transform set).
type Select struct {
	Range
	Hints []*Hint
	// Quantifier is DISTINCT, ALL or empty.
	Quantifier string
	Items      []*SelectItem
	From       *From
	// LateralViews are the LATERAL VIEWs after the FROM clause's pivots.
	LateralViews []*LateralView
	Where        Expr
	GroupBy      *GroupBy
	Having       Expr
	Windows      []*NamedWindow
	// Qualify is QUALIFY cond (Spark 4.2 and later), which filters on
	// window functions. Format writes it before WINDOW.
	Qualify   Expr
	FromFirst bool
	Transform *Transform
	// Organization is the ORDER BY, SORT BY, CLUSTER BY, DISTRIBUTE BY,
	// WINDOW, LIMIT and OFFSET written after this body of a FROM-first
	// query with several bodies (FROM t SELECT a ORDER BY a SELECT b):
	// Spark orders and limits each body on its own. Its Body is nil. A
	// FROM-first query with one body keeps them in its Query.
	Organization *Query
}

// Transform is the script part of SELECT TRANSFORM(...) USING 'script'
// (and MAP ... / REDUCE ... USING); its inputs are the Select's Items.
type Transform struct {
	Range
	// Kind is TRANSFORM, MAP or REDUCE.
	Kind   string
	Script *StringLit
	// Output is the AS (...) column list as written (names, or names
	// with types).
	Output []*ColumnDef
}

// Hint is one /*+ ... */ block.
type Hint struct {
	Range
	Items []*HintItem
}

// HintItem is NAME or NAME(params).
type HintItem struct {
	Range
	Name   *Ident
	Params []Expr
}

// SelectItem is expr [AS alias] or expr AS (a, b).
type SelectItem struct {
	Range
	X       Expr
	Alias   *Ident
	Aliases []*Ident
}

// From is FROM relation, ... with the LATERAL VIEWs, PIVOT and UNPIVOT
// written after the relation list.
type From struct {
	Range
	Relations    []Relation
	LateralViews []*LateralView
	Pivot        *Pivot
	Unpivot      *Unpivot
}

// GroupBy is GROUP BY: expressions, ALL, ordinals, ROLLUP, CUBE,
// GROUPING SETS, and the WITH ROLLUP / WITH CUBE suffixes.
type GroupBy struct {
	Range
	Items []*GroupItem
	// With is ROLLUP or CUBE for GROUP BY a, b WITH ROLLUP | CUBE;
	// GroupingSets holds a trailing GROUPING SETS (...) of that form.
	With         string
	GroupingSets []*GroupItem
}

// GroupItem is one item of GROUP BY: an expression (GROUP BY ALL is a
// Column named ALL, which Spark also reads so), or ROLLUP (...), CUBE
// (...), GROUPING SETS (...) with their sets, or a set (a, b) inside one.
type GroupItem struct {
	Range
	// Kind is "" for an expression, ROLLUP, CUBE, "GROUPING SETS", or
	// "SET" for a parenthesised set.
	Kind  string
	X     Expr
	Items []*GroupItem
}

// NamedWindow is name AS window in a WINDOW clause.
type NamedWindow struct {
	Range
	Name   *Ident
	Window *Window
}

// SetOp is L UNION | INTERSECT | EXCEPT | MINUS [ALL | DISTINCT] R.
type SetOp struct {
	Range
	// Op is UNION, INTERSECT, EXCEPT or MINUS.
	Op         string
	OpRange    Range
	Quantifier string
	L, R       QueryExpr
}

// ParenQuery is (query) as a query body.
type ParenQuery struct {
	Range
	Query *Query
}

// Values is VALUES row, row ... as a query or as a relation (then with
// its alias).
type Values struct {
	Range
	Rows  []Expr
	Alias *TableAlias
}

// TableQuery is TABLE t.
type TableQuery struct {
	Range
	Name *Name
}

// Pipe is input |> operator |> operator ...
type Pipe struct {
	Range
	Input QueryExpr
	Ops   []*PipeOp
}

// PipeOp is one |> operator. Kind says which: SELECT, EXTEND, SET, DROP,
// AS, WHERE, PIVOT, UNPIVOT, TABLESAMPLE, JOIN, UNION/EXCEPT/INTERSECT/
// MINUS, ORDER (any of the query-organization clauses), AGGREGATE.
type PipeOp struct {
	Range
	Kind string
	// Select carries SELECT/EXTEND/AGGREGATE items, WHERE, GROUP BY and
	// WINDOW; Set the SET assignments; Names DROP's columns and AS's
	// alias; Join the joined relation; Right the set operation's query;
	// Org the ORDER BY/LIMIT/...; Pivot, Unpivot, Sample their clauses.
	Select     *Select
	Set        []*Assignment
	Names      []*Ident
	Join       *Join
	Quantifier string
	Right      QueryExpr
	Org        *Query
	Pivot      *Pivot
	Unpivot    *Unpivot
	Sample     *Sample
}

// Assignment is name = value.
type Assignment struct {
	Range
	Name  *Name
	Value Expr
}

func (*Select) queryNode()     {}
func (*SetOp) queryNode()      {}
func (*ParenQuery) queryNode() {}
func (*Values) queryNode()     {}
func (*TableQuery) queryNode() {}
func (*Pipe) queryNode()       {}

// Relation is an item of FROM: a table, a subquery, VALUES, a table
// function, a join, a parenthesised relation.
type Relation interface {
	Node
	relationNode()
}

// Table is a table (or view, or dataset) read by name, possibly as a
// stream: STREAM name, STREAM(name), with WITH (options), time travel,
// TABLESAMPLE, WATERMARK and an alias.
type Table struct {
	Range
	Name *Name
	// Stream is set by STREAM name and STREAM(name); StreamParen by the
	// parenthesised form; StreamRange is the STREAM keyword.
	Stream      bool
	StreamParen bool
	StreamRange Range
	Options     []*Property
	// Temporal is VERSION AS OF / TIMESTAMP AS OF.
	Temporal  *Temporal
	Sample    *Sample
	Watermark *Watermark
	Alias     *TableAlias
}

// Temporal is FOR? (SYSTEM_VERSION | VERSION | SYSTEM_TIME | TIMESTAMP) AS OF x.
type Temporal struct {
	Range
	// Kind is VERSION or TIMESTAMP.
	Kind  string
	Value Expr
}

// Sample is TABLESAMPLE (...) [REPEATABLE (seed)].
type Sample struct {
	Range
	// Method is PERCENT, ROWS, BUCKET or BYTES.
	Method string
	// Value is the percentage, row count or byte size; for BUCKET the
	// numerator, with Denominator and the optional ON expression.
	Value       Expr
	Denominator Expr
	On          Expr
	Seed        Expr
}

// Watermark is WATERMARK col DELAY OF interval.
type Watermark struct {
	Range
	Column *SelectItem
	Delay  *Interval
}

// TableAlias is [AS] name [(columns)].
type TableAlias struct {
	Range
	Name    *Ident
	Columns []*Ident
}

// SubqueryRel is [LATERAL] (query) [alias] in FROM.
type SubqueryRel struct {
	Range
	Lateral   bool
	Query     *Query
	Sample    *Sample
	Watermark *Watermark
	Alias     *TableAlias
}

// ParenRel is (relation) [alias] in FROM: (a JOIN b) AS j.
type ParenRel struct {
	Range
	Rel       Relation
	Sample    *Sample
	Watermark *Watermark
	Alias     *TableAlias
}

// TableFunc is a table-valued function in FROM: range(10),
// explode(array(1, 2)), read_files(path => '...') [alias].
type TableFunc struct {
	Range
	Lateral   bool
	Call      *Call
	Watermark *Watermark
	Alias     *TableAlias
}

// Join is L [NATURAL] kind JOIN [LATERAL] R [ON cond | USING (cols)].
type Join struct {
	Range
	// Kind is INNER, CROSS, LEFT, RIGHT, FULL, LEFT SEMI, LEFT ANTI
	// (SEMI and ANTI alone are LEFT SEMI and LEFT ANTI), written with or
	// without OUTER; KindRange is the keywords.
	Kind      string
	KindRange Range
	Natural   bool
	Lateral   bool
	L, R      Relation
	On        Expr
	Using     []*Ident
}

// Pivot is PIVOT (aggregates FOR columns IN (values)), after a relation.
type Pivot struct {
	Range
	// Input is the relation pivoted (nil inside a From, whose relations
	// are the input).
	Input      Relation
	Aggregates []*SelectItem
	Columns    []*Ident
	Values     []*SelectItem
	Alias      *Ident
}

// Unpivot is UNPIVOT [INCLUDE | EXCLUDE NULLS] (values FOR name IN
// (columns)).
type Unpivot struct {
	Range
	Input        Relation
	IncludeNulls bool
	ExcludeNulls bool
	ValueColumns []*Ident
	NameColumn   *Ident
	// Columns are the unpivoted columns (each a set of names with an
	// optional alias).
	Columns []*UnpivotColumns
	Alias   *Ident
}

// UnpivotColumns is one column, or a parenthesised set of columns, of
// UNPIVOT's IN list, with its alias.
type UnpivotColumns struct {
	Range
	Names []*Name
	Alias *Ident
}

// LateralView is LATERAL VIEW [OUTER] f(args) table [AS] col, ...
type LateralView struct {
	Range
	Outer   bool
	Call    *Call
	Table   *Ident
	Columns []*Ident
}

// BadRelation stands for a relation the parser could not read.
type BadRelation struct{ Range }

func (*Table) relationNode()       {}
func (*SubqueryRel) relationNode() {}
func (*ParenRel) relationNode()    {}
func (*Values) relationNode()      {}
func (*TableFunc) relationNode()   {}
func (*Join) relationNode()        {}
func (*Pivot) relationNode()       {}
func (*Unpivot) relationNode()     {}
func (*BadRelation) relationNode() {}
