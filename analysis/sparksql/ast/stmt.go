package ast

// Stmt is a statement.
type Stmt interface {
	Node
	stmtNode()
}

// QueryStmt is a query as a statement.
type QueryStmt struct {
	Range
	Query *Query
}

// CreateKind is what a [Create] statement creates.
type CreateKind uint8

// The kinds of CREATE.
const (
	CreateTable CreateKind = iota
	CreateMaterializedView
	CreateStreamingTable
	CreateView
	CreateTempView
	CreateGlobalTempView
)

var createNames = [...]string{"TABLE", "MATERIALIZED VIEW", "STREAMING TABLE", "VIEW",
	"TEMPORARY VIEW", "GLOBAL TEMPORARY VIEW"}

// String returns the kind's keywords: "MATERIALIZED VIEW", ...
func (k CreateKind) String() string {
	if int(k) < len(createNames) {
		return createNames[k]
	}
	return "CREATE"
}

// Create is CREATE [OR REPLACE] TABLE | MATERIALIZED VIEW | STREAMING
// TABLE | [GLOBAL] TEMPORARY VIEW | VIEW [IF NOT EXISTS] name [(columns)]
// [clauses] [AS query], and REPLACE TABLE.
type Create struct {
	Range
	Kind      CreateKind
	OrReplace bool
	// OrRefresh, Private and Live are Databricks forms (parsed only with
	// the parser's Databricks option): CREATE OR REFRESH, CREATE PRIVATE
	// (Temporary is set for CREATE TEMPORARY) STREAMING TABLE |
	// MATERIALIZED VIEW, and the legacy CREATE [STREAMING] LIVE TABLE and
	// LIVE VIEW (Kind is then StreamingTable, MaterializedView or a view).
	OrRefresh   bool
	Private     bool
	Live        bool
	IfNotExists bool
	// External and Temporary are CREATE EXTERNAL TABLE and CREATE
	// TEMPORARY TABLE.
	External, Temporary bool
	Name                *Name
	// Columns are the column definitions; for views, the column names
	// with optional comments.
	Columns     []*ColumnDef
	Constraints []*Constraint
	Using       *Name
	Options     []*Property
	// PartitionedBy holds columns (Column), transforms (Call) or column
	// definitions (for Hive-style PARTITIONED BY (c INT)).
	PartitionedBy []Node
	ClusterBy     []*Name
	// ClusterMode is Databricks' CLUSTER BY AUTO or CLUSTER BY NONE
	// ("AUTO", "NONE", upper case), which takes no column list; "" for
	// CLUSTER BY (cols) or no CLUSTER BY.
	ClusterMode string
	Comment     *StringLit
	Properties  []*Property
	Location    *StringLit
	// Clauses are the ranges of the clauses written between the name and
	// AS, keyed by their keywords ("COMMENT", "PARTITIONED BY", ...), in
	// order; Spark refuses a clause written twice.
	Clauses []Clause
	// Like is the source table of CREATE TABLE t LIKE s.
	Like  *Name
	Query *Query
	// AutoCDC is the flow of CREATE STREAMING TABLE t ... FLOW AUTO CDC
	// FROM ... (Spark 4.3); Query is then nil.
	AutoCDC *AutoCDC
	// FlowInsert is Databricks' FLOW INSERT [ONCE] BY NAME query of a
	// streaming table (FlowOnce with ONCE); ReplaceWhere the predicate of
	// its FLOW REPLACE WHERE predicate BY NAME query. Query is the flow's
	// query in both.
	FlowInsert, FlowOnce bool
	ReplaceWhere         Expr
}

// Clause is one clause of a CREATE by its keywords.
type Clause struct {
	Range
	Keyword string
}

// ColumnDef is one column definition: name type [NOT NULL] [DEFAULT x]
// [GENERATED ...] [COMMENT '...'] [constraints]; for a view's column
// list only Name and Comment are set.
type ColumnDef struct {
	Range
	Name      *Ident
	Type      *DataType
	NotNull   bool
	Default   Expr
	Generated Expr
	// Identity is set for GENERATED ALWAYS | BY DEFAULT AS IDENTITY
	// [(START WITH n INCREMENT BY m)]: IdentityByDefault for BY DEFAULT,
	// IdentityStart and IdentityStep the options (literals, signed as
	// written) when given.
	Identity                    bool
	IdentityByDefault           bool
	IdentityStart, IdentityStep Expr
	Comment                     *StringLit
	Constraints                 []*Constraint
}

// Constraint is a column or table constraint: CHECK (...), PRIMARY KEY,
// UNIQUE, FOREIGN KEY ... REFERENCES, and Databricks' expectation
// CONSTRAINT name EXPECT (cond) [ON VIOLATION DROP ROW | FAIL UPDATE].
type Constraint struct {
	Range
	Name *Ident
	// Kind is CHECK, PRIMARY KEY, UNIQUE, FOREIGN KEY, REFERENCES or
	// EXPECT.
	Kind string
	// Check is CHECK's and EXPECT's condition.
	Check Expr
	// OnViolation is EXPECT's "DROP ROW" or "FAIL UPDATE", "" when not
	// written (the row is kept and counted).
	OnViolation string
	Columns     []*Ident
	Ref         *Name
	// RefColumns are the columns of REFERENCES t (a, b).
	RefColumns []*Ident
}

// CreateFlow is CREATE FLOW name [COMMENT '...'] AS INSERT INTO ..., or
// (Spark 4.3) CREATE FLOW name [COMMENT '...'] AS AUTO CDC INTO t ...:
// one of Insert and AutoCDC is set.
type CreateFlow struct {
	Range
	Name    *Name
	Comment *StringLit
	Insert  *Insert
	AutoCDC *AutoCDC
}

// AutoCDC is Spark 4.3's change-data-capture flow: [AUTO CDC INTO target]
// FROM STREAM(source) [alias] (or FROM a subquery over it) KEYS (cols)
// followed, in any order and each
// once, by SEQUENCE BY expr (required), APPLY AS DELETE WHEN cond,
// COLUMNS (cols) | COLUMNS * EXCEPT (cols), STORED AS SCD TYPE 1 | 2 and
// TRACK HISTORY ON (cols) | TRACK HISTORY ON * EXCEPT (cols). Its Range
// starts at AUTO.
type AutoCDC struct {
	Range
	// Target is the INTO table of CREATE FLOW ... AUTO CDC INTO t; nil in
	// CREATE STREAMING TABLE t FLOW AUTO CDC FROM ..., whose target is the
	// table.
	Target *Name
	// Source is the streaming read of the source (Stream set): the
	// relation after FROM when it is STREAM(s) [alias], else the first
	// STREAM read inside it.
	Source *Table
	// From is the relation after FROM as written, from after FROM to
	// before KEYS: Source itself, or a subquery over it, (SELECT ... FROM
	// STREAM(s) WHERE ...) [alias], which Databricks and Spark 4.3 accept
	// as a source.
	From       Relation
	Keys       []*Name
	SequenceBy Expr
	DeleteWhen Expr
	// Columns is COLUMNS (cols); with ColumnsExcept set it is the EXCEPT
	// list of COLUMNS * EXCEPT (cols).
	Columns       []*Name
	ColumnsExcept bool
	// SCDType is 1 or 2 for STORED AS SCD TYPE n, 0 when not written.
	SCDType int
	// TrackHistory is TRACK HISTORY ON (cols); with TrackHistoryExcept
	// the EXCEPT list of TRACK HISTORY ON * EXCEPT (cols).
	TrackHistory       []*Name
	TrackHistoryExcept bool
	// TruncateWhen (APPLY AS TRUNCATE WHEN cond) and IgnoreNullUpdates
	// (IGNORE NULL UPDATES) are Databricks clauses.
	TruncateWhen      Expr
	IgnoreNullUpdates bool
	// Clauses are the optional clauses' ranges by keyword ("SEQUENCE BY",
	// "APPLY AS DELETE WHEN", "COLUMNS", "STORED AS", "TRACK HISTORY"),
	// in text order.
	Clauses []Clause
}

// ApplyChanges is Databricks' APPLY CHANGES INTO t FROM STREAM(s) KEYS
// (...) ..., the statement form of a CDC flow (parsed only with the
// parser's Databricks option); CDC holds it, its Target set.
type ApplyChanges struct {
	Range
	CDC *AutoCDC
}

// Insert is INSERT INTO | OVERWRITE [TABLE] t [PARTITION (...)] [(cols) |
// BY NAME] query, and INSERT OVERWRITE [LOCAL] DIRECTORY.
type Insert struct {
	Range
	Overwrite bool
	Table     *Name
	// Directory is INSERT OVERWRITE DIRECTORY's path (Table is nil).
	Directory *StringLit
	Options   []*Property
	Partition []*Property
	// ByName is BY NAME; Columns the column list.
	ByName  bool
	Columns []*Ident
	// ReplaceWhere is REPLACE WHERE cond.
	ReplaceWhere Expr
	Query        *Query
	// With is a WITH written before INSERT (WITH ... INSERT INTO ...).
	With *With
}

// Set is SET key = value, SET key, SET, SET CATALOG c, SET TIME ZONE,
// SET VAR ..., RESET.
type Set struct {
	Range
	// Kind is "" for a configuration, CATALOG, TIME ZONE, VAR, or RESET.
	Kind string
	// Key is the configuration key as written, trimmed (empty for a bare
	// SET); Value the value as written, trimmed.
	Key, Value           string
	KeyRange, ValueRange Range
	// Catalog is SET CATALOG's catalog (a string is one unquoted part).
	Catalog *Name
	// Expr is SET TIME ZONE's interval or string.
	Expr Expr
	// Assignments and Query are SET VAR a = 1, ... and SET VAR (a, b) =
	// (query).
	Assignments []*Assignment
	Names       []*Name
	Query       *Query
}

// Use is USE name, USE CATALOG | SCHEMA | DATABASE | NAMESPACE name.
type Use struct {
	Range
	// Kind is "", CATALOG, SCHEMA, DATABASE or NAMESPACE.
	Kind string
	Name *Name
}

// Other is any other statement Spark's grammar accepts (DROP, ALTER,
// DESCRIBE, SHOW, EXPLAIN, CACHE, MERGE, UPDATE, DELETE, scripting
// blocks, ...). Kind is its leading keywords as Spark names the command
// ("DROP TABLE", "EXPLAIN", "MERGE INTO"); Names, Queries, Exprs and
// Stmts are the names, queries, expressions and nested statements it
// contains, in text order, so references inside them are not lost.
type Other struct {
	Range
	// Text is the statement's text as written (src[Start:End]), which
	// Format writes back; it is empty for a multi-table INSERT, whose
	// parts the tree holds in full.
	Text    string
	Kind    string
	Names   []*Name
	Queries []*Query
	Exprs   []Expr
	Stmts   []Stmt
}

// BadStmt stands for a statement with a syntax error; Partial is what
// the parser read of it before the error (a *Create whose query broke,
// for example), or nil.
type BadStmt struct {
	Range
	Partial Stmt
}

func (*QueryStmt) stmtNode()    {}
func (*Create) stmtNode()       {}
func (*CreateFlow) stmtNode()   {}
func (*ApplyChanges) stmtNode() {}
func (*Insert) stmtNode()       {}
func (*Set) stmtNode()          {}
func (*Use) stmtNode()          {}
func (*Other) stmtNode()        {}
func (*BadStmt) stmtNode()      {}
