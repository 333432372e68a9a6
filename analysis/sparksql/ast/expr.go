package ast

// Expr is an expression.
type Expr interface {
	Node
	exprNode()
}

// LitKind is the kind of a [Literal].
type LitKind uint8

// The kinds of literal. The numeric kinds follow Spark's lexer: 1Y is a
// TinyInt, 1S a SmallInt, 1 an Integer (Spark makes it INT, or BIGINT or
// DECIMAL when it does not fit), 1L a BigInt, 1.5 a Decimal, 1e3 an
// Exponent (DOUBLE), 1.5F a Float, 1.5D a Double and 1.5BD a BigDecimal.
const (
	LitNull LitKind = iota
	LitTrue
	LitFalse
	LitString
	LitInteger
	LitBigInt
	LitSmallInt
	LitTinyInt
	LitDecimal
	LitExponent
	LitFloat
	LitDouble
	LitBigDecimal
)

var litNames = [...]string{"NULL", "TRUE", "FALSE", "string", "integer", "bigint",
	"smallint", "tinyint", "decimal", "exponent", "float", "double", "bigdecimal"}

// String names the kind.
func (k LitKind) String() string {
	if int(k) < len(litNames) {
		return litNames[k]
	}
	return "literal"
}

// Literal is NULL, TRUE, FALSE, a string or a number. A negative number
// written -1 is a Unary minus over the literal 1, except where the grammar
// takes the sign into the literal (interval values, sample sizes).
type Literal struct {
	Range
	Kind LitKind
	// Text is the literal as written (for a string, the first literal
	// with its quotes).
	Text string
	// Str is set for LitString.
	Str *StringLit
}

// TypedLiteral is a type name and a string: DATE '2024-01-01',
// TIMESTAMP '...', TIMESTAMP_NTZ '...', TIMESTAMP_LTZ '...', TIME '...',
// X'1F' (Type "X"), or an unknown type name that Spark rejects after
// parsing (Type as written).
type TypedLiteral struct {
	Range
	Type      string
	TypeRange Range
	Value     *StringLit
}

// Interval is INTERVAL with units: INTERVAL 1 DAY, INTERVAL '1' DAY 2
// HOURS, INTERVAL '1-2' YEAR TO MONTH, or INTERVAL '1 day 2 hours'
// (a string alone, no Units).
type Interval struct {
	Range
	// Value is set for the string-only form.
	Value *StringLit
	Units []*IntervalUnit
	// From and To are set for unit TO unit (Units then holds the value
	// with unit From).
	To      string
	ToRange Range
}

// IntervalUnit is one value and unit of an interval.
type IntervalUnit struct {
	Range
	// Value is the number or string; Negative is set by a leading minus.
	Value    Expr
	Negative bool
	// Unit is the unit as written, upper case (DAY, DAYS, HOUR, ...).
	Unit      string
	UnitRange Range
}

// Param is a parameter marker: ? (Name empty) or :name.
type Param struct {
	Range
	Name string
}

// Column is a column reference or the dotted access that starts with an
// identifier: a, t.a, db.t.a, s.field. Which parts name a table and which
// a struct field is for the semantic model to decide.
type Column struct {
	Range
	Parts []*Ident
}

// Star is * or qualifier.*, with an optional EXCEPT (columns).
type Star struct {
	Range
	Qualifier *Name
	Except    []*Name
}

// Unary is a prefix operator: -x, +x, ~x, NOT x, !x.
type Unary struct {
	Range
	Op      string
	OpRange Range
	X       Expr
}

// Binary is an infix operator: arithmetic (+ - * / % DIV), || (concat),
// bitwise (& | ^ << >> >>>), comparison (= == <> != < <= > >= <=>), AND,
// OR. Op is upper case as written (== stays ==).
type Binary struct {
	Range
	Op      string
	OpRange Range
	L, R    Expr
}

// Between is x [NOT] BETWEEN lo AND hi.
type Between struct {
	Range
	X, Lo, Hi Expr
	Not       bool
}

// In is x [NOT] IN (list) or x [NOT] IN (query).
type In struct {
	Range
	X     Expr
	Not   bool
	List  []Expr
	Query *Query
}

// Like is x [NOT] LIKE | ILIKE | RLIKE | REGEXP pattern [ESCAPE 'c'], or
// x [NOT] LIKE | ILIKE ANY | SOME | ALL (patterns).
type Like struct {
	Range
	X   Expr
	Not bool
	// Op is LIKE, ILIKE, RLIKE or REGEXP.
	Op string
	// Quantifier is ANY, SOME or ALL for the list form; Patterns then
	// holds the list, else Patterns holds the one pattern.
	Quantifier string
	Patterns   []Expr
	Escape     *StringLit
}

// Is is x IS [NOT] NULL | TRUE | FALSE | UNKNOWN, or x IS [NOT] DISTINCT
// FROM y (What "DISTINCT FROM", Other y).
type Is struct {
	Range
	X     Expr
	Not   bool
	What  string
	Other Expr
}

// Exists is EXISTS (query).
type Exists struct {
	Range
	Query *Query
}

// Subquery is a query used as an expression: (SELECT max(x) FROM t).
type Subquery struct {
	Range
	Query *Query
}

// Paren is a parenthesised expression.
type Paren struct {
	Range
	X Expr
}

// Row is a row constructor: (a, b AS c).
type Row struct {
	Range
	Items []*SelectItem
}

// Cast is CAST(x AS t), TRY_CAST(x AS t) or x::t.
type Cast struct {
	Range
	// Form is CAST, TRY_CAST or "::".
	Form string
	X    Expr
	Type *DataType
}

// Case is CASE [operand] WHEN ... THEN ... [ELSE ...] END.
type Case struct {
	Range
	Operand Expr
	Whens   []*When
	Else    Expr
}

// When is one WHEN cond THEN result.
type When struct {
	Range
	Cond, Result Expr
}

// Call is a function call, including the keyword forms Spark writes with
// parentheses (EXTRACT, SUBSTRING ... FROM, TRIM, POSITION, OVERLAY,
// TIMESTAMPADD, DATEDIFF, FIRST/LAST/ANY_VALUE ... IGNORE NULLS, STRUCT),
// whose arguments are normalised into Args in the order of the plain
// function (see [Call.Form]). A niladic keyword such as CURRENT_DATE is a
// Call with NoParens set.
type Call struct {
	Range
	Name *Name
	// Form names the keyword form the call was written in ("EXTRACT",
	// "SUBSTRING FROM", "TRIM", "POSITION", "OVERLAY", "UNIT" for
	// TIMESTAMPADD(unit, ...) and its kin); empty for an ordinary call.
	Form string
	// Unit is the date-time unit of TIMESTAMPADD/DATEDIFF/...(unit, ...)
	// and the field of EXTRACT(field FROM x); it is not in Args.
	Unit *Ident
	// TrimSide is BOTH, LEADING or TRAILING for TRIM(side ... FROM ...).
	TrimSide string
	// NoParens is set for CURRENT_DATE, CURRENT_TIMESTAMP, CURRENT_USER,
	// USER, SESSION_USER and CURRENT_TIME written without ().
	NoParens bool
	// Quantifier is DISTINCT or ALL when written before the arguments.
	Quantifier string
	// Args are the arguments; a named argument is a [NamedArg], a TABLE
	// argument of a table function a [TableArg].
	Args []Expr
	// WithinGroup is the ORDER BY of WITHIN GROUP (ORDER BY ...).
	WithinGroup []*SortItem
	// Filter is the FILTER (WHERE ...) condition.
	Filter Expr
	// Nulls is IGNORE or RESPECT (IGNORE NULLS / RESPECT NULLS).
	Nulls string
	// Over is the OVER window; nil when there is none.
	Over *Window
}

// NamedArg is name => value in a function's arguments.
type NamedArg struct {
	Range
	Name  *Ident
	Value Expr
	// Aliases is the alias list of a STRUCT argument x AS (a, b) (Name
	// is then nil).
	Aliases []*Ident
}

// TableArg is a TABLE argument of a table-valued function: TABLE t,
// TABLE(t) or TABLE(query), with its PARTITION BY / ORDER BY.
type TableArg struct {
	Range
	Name        *Name
	Query       *Query
	PartitionBy []Expr
	// SinglePartition is WITH SINGLE PARTITION.
	SinglePartition bool
	OrderBy         []*SortItem
}

// Lambda is x -> body or (x, y) -> body.
type Lambda struct {
	Range
	Params []*Ident
	Body   Expr
}

// Subscript is x[i].
type Subscript struct {
	Range
	X, Index Expr
}

// Field is x.name where x is not a plain column reference (f(a).b,
// (s).b, arr[0].b).
type Field struct {
	Range
	X    Expr
	Name *Ident
}

// Extract is x:path, the semi-structured (variant or JSON string) path
// extraction; Path is the path as written after the colon.
type Extract struct {
	Range
	X         Expr
	Path      string
	PathRange Range
}

// Collate is x COLLATE name.
type Collate struct {
	Range
	X         Expr
	Collation *Name
}

// BadExpr stands for an expression the parser could not read.
type BadExpr struct{ Range }

// Window is the window of OVER: a reference to a named window, or a
// definition.
type Window struct {
	Range
	// Ref is the window name for OVER w or OVER (w).
	Ref *Ident
	// PartitionBy is PARTITION BY, DISTRIBUTE BY or CLUSTER BY.
	PartitionBy []Expr
	OrderBy     []*SortItem
	Frame       *Frame
}

// Frame is ROWS | RANGE [BETWEEN] start [AND end].
type Frame struct {
	Range
	// Unit is ROWS or RANGE.
	Unit       string
	Start, End *FrameBound
}

// FrameBound is UNBOUNDED PRECEDING | FOLLOWING, CURRENT ROW, or
// expr PRECEDING | FOLLOWING.
type FrameBound struct {
	Range
	// Kind is "UNBOUNDED PRECEDING", "UNBOUNDED FOLLOWING",
	// "CURRENT ROW", "PRECEDING" or "FOLLOWING".
	Kind   string
	Offset Expr
}

// SortItem is expr [ASC | DESC] [NULLS FIRST | LAST].
type SortItem struct {
	Range
	X Expr
	// Dir is ASC, DESC or empty; Nulls is FIRST, LAST or empty.
	Dir   string
	Nulls string
}

func (*Literal) exprNode()      {}
func (*TypedLiteral) exprNode() {}
func (*Interval) exprNode()     {}
func (*Param) exprNode()        {}
func (*Column) exprNode()       {}
func (*Star) exprNode()         {}
func (*Unary) exprNode()        {}
func (*Binary) exprNode()       {}
func (*Between) exprNode()      {}
func (*In) exprNode()           {}
func (*Like) exprNode()         {}
func (*Is) exprNode()           {}
func (*Exists) exprNode()       {}
func (*Subquery) exprNode()     {}
func (*Paren) exprNode()        {}
func (*Row) exprNode()          {}
func (*Cast) exprNode()         {}
func (*Case) exprNode()         {}
func (*Call) exprNode()         {}
func (*NamedArg) exprNode()     {}
func (*TableArg) exprNode()     {}
func (*Lambda) exprNode()       {}
func (*Subscript) exprNode()    {}
func (*Field) exprNode()        {}
func (*Extract) exprNode()      {}
func (*Collate) exprNode()      {}
func (*BadExpr) exprNode()      {}

// DataType is a Spark data type: a primitive (INT, STRING COLLATE x,
// DECIMAL(10, 2), VARCHAR(5), INTERVAL DAY TO SECOND, TIMESTAMP WITHOUT
// TIME ZONE) or ARRAY<t>, MAP<k, v>, STRUCT<name: t, ...>.
type DataType struct {
	Range
	// Name is the type's first keyword, upper case (INT, INTEGER, ARRAY,
	// STRUCT, ...), or an unknown name as written.
	Name string
	// Params are the integer parameters: DECIMAL(10, 2), CHAR(3), TIME(6).
	Params []int
	// Qualifier is what follows the name without parentheses: "DAY TO
	// SECOND" for intervals, "WITHOUT TIME ZONE", "COLLATE x".
	Qualifier string
	// Elem is ARRAY's element type; Key and Value are MAP's.
	Elem, Key, Value *DataType
	// Fields are STRUCT's fields.
	Fields []*StructField
}

// StructField is one field of STRUCT<...>.
type StructField struct {
	Range
	Name    *Ident
	Type    *DataType
	NotNull bool
	Comment *StringLit
}
