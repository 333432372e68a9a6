// Package sqlfront is Thund's SQL front end. It splits a .sql file into
// statements, reads the Spark Declarative Pipelines (SDP) DDL around each
// query (CREATE MATERIALIZED VIEW, CREATE STREAMING TABLE, CREATE FLOW, views,
// SET, USE), rewrites STREAM(x) reads and `backtick` identifiers into a
// same-length normalized text, and parses each query with the PostgreSQL
// grammar (pg_query), falling back to DuckDB's parser for DuckDB syntax, to
// find the tables it reads (with exact ranges) and whether it aggregates.
//
// Every offset is a byte offset into the full text of the file, so ranges
// can be handed to an editor unchanged. Nothing here panics on bad input:
// every problem becomes an ir.Diagnostic.
package sqlfront

import (
	"fmt"
	"sort"

	"github.com/thund-dev/thund/analysis/sparksql/ast"

	"github.com/thund-dev/thund/ir"
)

// StmtKind is the kind of a statement.
type StmtKind int

// Statement kinds. QueryStmt is a bare query (SELECT, WITH, VALUES, FROM-first,
// TABLE t or a parenthesised query); Unsupported is any statement SDP
// rejects.
const (
	QueryStmt StmtKind = iota
	CreateMaterializedView
	CreateStreamingTable
	CreateFlow
	CreateTemporaryView
	CreateView
	Set
	UseCatalog
	UseSchema
	Unsupported
	// ApplyChanges is Databricks' APPLY CHANGES INTO target FROM ...: a
	// CDC flow into target (Name and Target), its source query in Query.
	ApplyChanges
)

// String returns the statement's leading keywords ("CREATE MATERIALIZED
// VIEW", "SET", ...), "query" or "unsupported statement".
func (k StmtKind) String() string {
	switch k {
	case QueryStmt:
		return "query"
	case CreateMaterializedView:
		return "CREATE MATERIALIZED VIEW"
	case CreateStreamingTable:
		return "CREATE STREAMING TABLE"
	case CreateFlow:
		return "CREATE FLOW"
	case CreateTemporaryView:
		return "CREATE TEMPORARY VIEW"
	case CreateView:
		return "CREATE VIEW"
	case Set:
		return "SET"
	case UseCatalog:
		return "USE CATALOG"
	case UseSchema:
		return "USE SCHEMA"
	case Unsupported:
		return "unsupported statement"
	case ApplyChanges:
		return "APPLY CHANGES INTO"
	}
	return fmt.Sprintf("StmtKind(%d)", int(k))
}

// DatasetKind returns the kind of dataset a CREATE statement of kind k
// defines, and false for statements that define none (flows, SET, USE,
// queries).
func (k StmtKind) DatasetKind() (ir.Kind, bool) {
	switch k {
	case CreateMaterializedView:
		return ir.MaterializedView, true
	case CreateStreamingTable:
		return ir.StreamingTable, true
	case CreateTemporaryView:
		return ir.TemporaryView, true
	case CreateView:
		return ir.View, true
	}
	return "", false
}

// Span is a range of the file text, as byte offsets (Start inclusive, End
// exclusive).
type Span struct{ Start, End int }

// Loc returns s as an ir.Loc in file.
func (s Span) Loc(file string) ir.Loc { return ir.Loc{File: file, Start: s.Start, End: s.End} }

// Statement is one statement of a .sql file.
type Statement struct {
	Kind StmtKind
	// Span is the statement, without surrounding whitespace and comments
	// and without its terminating ';'.
	Span
	// CommentStart is the start of the run of "--" comment lines directly
	// above the statement (no blank line between), or Start if there is
	// none. The statement's pragma block lives there.
	CommentStart int
	// Name is the dataset name (CREATE ... name) or the flow name (CREATE
	// FLOW name), unquoted; a qualified name keeps its dots. NameLoc is
	// the name as written.
	Name    string
	NameLoc Span
	// Target is the dataset a CREATE FLOW inserts into; TargetLoc is the
	// target as written.
	Target    string
	TargetLoc Span
	// ByName is set by INSERT INTO target BY NAME.
	ByName bool
	// Once is set by Databricks' INSERT INTO ONCE target: a one-time
	// (backfill) flow that reads its query in full.
	Once bool
	// Comment is the COMMENT '...' text, unescaped.
	Comment string
	// PartitionBy and ClusterBy are the PARTITIONED BY (...) and CLUSTER
	// BY (...) columns; PartitionSpans and ClusterSpans their names' ranges.
	PartitionBy, ClusterBy       []string
	PartitionSpans, ClusterSpans []Span
	// Using is the USING format.
	Using string
	// Properties are the TBLPROPERTIES ('k' = 'v', ...).
	Properties map[string]string
	// Columns is the optional column list, "(a INT, b STRING)", as written.
	Columns string
	// Declared are the column list's definitions of a CREATE
	// MATERIALIZED VIEW or CREATE STREAMING TABLE: the dataset's
	// declared schema.
	Declared []ColumnDecl
	// SetKey and SetValue hold SET key = value; USE CATALOG c and USE
	// SCHEMA s put the name into SetValue.
	SetKey, SetValue string
	// Keyword is, for an Unsupported statement, its leading keywords as
	// written, e.g. "DROP TABLE".
	Keyword string
	// Query is the statement's query: the AS query of a CREATE, the query
	// of a flow, or the statement itself for a bare query. It is nil for
	// SET, USE, unsupported statements, a CREATE STREAMING TABLE without
	// AS, and a CREATE whose header could not be read. For a CDC flow
	// (CDC set) it is "SELECT * FROM STREAM(source)", written over the
	// statement's text from its leading keywords to the source.
	Query *Query
	// Syntax lists the statement's constructs that only some backends
	// read (CREATE OR REFRESH, PRIVATE, LIVE, CONSTRAINT ... EXPECT).
	Syntax []SyntaxUse
	// Expects are the CONSTRAINT ... EXPECT clauses of a CREATE.
	Expects []Expect
	// CDC is the change-data-capture flow of APPLY CHANGES INTO, CREATE
	// FLOW ... AS AUTO CDC INTO and CREATE STREAMING TABLE ... FLOW AUTO
	// CDC.
	CDC *CDCSpec
}

// Query is one parsed query.
type Query struct {
	// Span is the query's range in the file.
	Span
	// Text is the query as written, but for its file reads
	// (FileReads), each written as its source's name.
	Text string
	// Normalized is Text, byte for byte the same length, with STREAM(x)
	// turned into "       x " and STREAM x into "       x", `ident` into
	// "ident", and a backslash-escaped quote in a string (\') into a
	// doubled one (''), so PostgreSQL and DuckDB read it as Spark does;
	// and the qualifiers of table references blanked (sales.orders into
	// "      orders"), since the native engine keeps every relation under
	// its last name part. Offsets map one to one.
	Normalized string
	// Refs are the tables the query reads (FROM, JOIN, subqueries, CTE
	// bodies, set operations), in text order. Names that resolve to a CTE
	// in scope, table functions and file paths ('data.csv') are not refs.
	Refs []ir.Ref
	// Aggregates is true when the query groups (GROUP BY) or calls an
	// aggregate function outside a window (see aggregateFuncs) in its data
	// flow: the main SELECT, set-operation arms, FROM subqueries and CTE
	// bodies, but not expression subqueries (WHERE x IN (SELECT max(...))).
	Aggregates bool
	// AggLoc is the first GROUP BY, else the first aggregate call's name.
	AggLoc Span
	// Shape is what the streaming checks read of the query's structure
	// (joins, window functions and ORDER BY over streams), from its Spark
	// tree; nil for a query parsed in another dialect.
	Shape *ir.QueryShape
	// Parser is the grammar that accepted the query: "postgres" or
	// "duckdb" (only DuckDB's parser reads it, so Spark likely will not);
	// empty if neither did or the query was not parsed. A query that
	// needs DuckDB only for GROUP BY ALL, which Spark reads too, counts as
	// "postgres".
	Parser string
	// SparkOnly is set when neither PostgreSQL nor DuckDB reads the query
	// and it parses only once Spark's own syntax (RLIKE, LATERAL VIEW,
	// array(...), 100L...) is rewritten: DuckDB cannot run it. It is where
	// DuckDB's parser stops (the query's first line when DuckDB gives no
	// position), and SparkOnlyMessage is DuckDB's message.
	//
	// In the Spark dialect both, and Parser's "spark", come from the
	// native check (CheckNative), which ParseDialect and ParseQueryDialect
	// run for every query and ParseDialectDeferred leaves to the caller.
	SparkOnly        *Span
	SparkOnlyMessage string
	// native is what CheckNative needs, until it runs (cleared once it
	// has; never set in the DuckDB dialect, which answers while parsing).
	// It is held in the Query, not beside it: one allocation per query.
	native nativeCheck
	// DoubleQuoted are the "double-quoted" names of the query as written:
	// identifiers for PostgreSQL and DuckDB, string literals for Spark SQL
	// (unless spark.sql.ansi.doubleQuotedIdentifiers is set).
	DoubleQuoted []Span
	// Watermark is the first WATERMARK col DELAY OF INTERVAL ... clause of
	// the query's data flow (Spark dialect), with InSQL set.
	Watermark *ir.Watermark
	// Spark is the query's Spark SQL syntax tree (Spark dialect only; nil
	// when the dialect is DuckDB or the query has a syntax error). Its
	// offsets are file offsets.
	Spark *ast.Query
	// Syntax lists the query's constructs that only some backends read
	// (LIVE.x references, read_files).
	Syntax []SyntaxUse
	// FileReads are the query's read_files(...) and cloud_files(...)
	// relations. Text and Normalized have each call written as its
	// source's name (padded to the call's length), and Refs read that
	// source at the call, its Path set.
	FileReads []FileRead
	// Funcs are the function calls of the query (scalar, aggregate, window
	// and table functions, in every clause and subquery), in text order.
	// Only calls written as a name followed by "(" are listed: operators,
	// CAST, literals such as [1, 2] and keyword forms the parsers turn into
	// calls (x AT TIME ZONE z) are not.
	Funcs []FuncRef
}

// FuncRef is one function call of a query.
type FuncRef struct {
	// Name is the function's name as written, unquoted; a qualified name
	// keeps its dots (main.f).
	Name string
	// Loc is the name as written.
	Loc ir.Loc
	// Args is the number of arguments (count(*) has none).
	Args int
}

// File is the parsed content of one .sql file.
type File struct {
	Statements []Statement
	Diags      []ir.Diagnostic
}

// MaxQueryBytes is the largest query Parse and ParseQuery hand to a SQL
// parser; a larger one is reported (warning) and its references are not
// read.
const MaxQueryBytes = 4 << 20

// Dialect is the SQL dialect of a pipeline's queries.
type Dialect uint8

const (
	// DialectSpark is Spark SQL, the default: queries are read with
	// Spark's grammar (analysis/sparksql/parser), which decides what is
	// a syntax error and which tables a query reads.
	DialectSpark Dialect = iota
	// DialectDuckDB is for pipelines that only ever run natively
	// (`dialect: duckdb` in thund.yaml): queries are read with
	// PostgreSQL's grammar and DuckDB's own parser.
	DialectDuckDB
)

// String returns "spark" or "duckdb".
func (d Dialect) String() string {
	if d == DialectDuckDB {
		return "duckdb"
	}
	return "spark"
}

// Parse is ParseDialect in the Spark dialect.
func Parse(file, text string) File { return ParseDialect(file, text, DialectSpark) }

// ParseDialect splits text, the content of the .sql file named file, into
// statements and parses each: SDP DDL, SET/USE, bare queries and, for
// anything else, an ir.CodeSQLUnsupported error. Comments before the first
// statement (a pragma header) are skipped like any other comment. Offsets are
// relative to text; diagnostics are in text order.
func ParseDialect(file, text string, dialect Dialect) File {
	return parseFile(file, text, dialect, true, nil)
}

// ParseDialectDeferred is ParseDialect without the native check of each
// query in the Spark dialect: whether DuckDB's parser reads the text as
// written (Query.SparkOnly, and any error it gives) is only known after
// Query.CheckNative, which the caller runs for the queries that run as
// written (streaming and CDC flows): a batch flow runs through the
// Spark-to-DuckDB translator, so the answer is not needed for it, and
// asking costs PostgreSQL's grammar (or DuckDB's parser) for each query.
func ParseDialectDeferred(file, text string, dialect Dialect) File {
	return parseFile(file, text, dialect, false, nil)
}

// ParsePipeline is ParseDialectDeferred for a file of a pipeline whose
// parameters (its configuration) are vars: Spark substitutes them for
// ${key} before it parses (parser.Options.Vars), so the file is read
// with each ${key} as its value, at the reference's range.
func ParsePipeline(file, text string, dialect Dialect, vars map[string]string) File {
	return parseFile(file, text, dialect, false, vars)
}

// parseFile is ParseDialect; native says whether each query's native check
// runs now.
func parseFile(file, text string, dialect Dialect, native bool, vars map[string]string) File {
	var f File
	raw, openComment := splitRange(text, 0, len(text))
	if cells := notebookCells(text); cells != nil {
		// A notebook export: each cell is split on its own (no ';' is
		// needed between cells), and a cell in another language is
		// said so, never read as SQL.
		raw, openComment = nil, -1
		for _, c := range cells {
			if c.lang != "" {
				f.Diags = append(f.Diags, ir.Diagnostic{
					Loc: c.magic.Loc(file), Severity: ir.Info, Code: ir.CodeNotebookCell,
					Message: fmt.Sprintf("this %s cell is not analysed: Thund reads the notebook's SQL cells only (and a pipeline runs only the cells in the notebook's language); define datasets in SQL cells, or in a .py file", c.lang),
				})
				continue
			}
			r, open := splitRange(text, c.Start, c.End)
			raw = append(raw, r...)
			if open >= 0 && openComment < 0 {
				openComment = open
			}
		}
	}
	for _, r := range raw {
		st, diags := parseStatement(file, text, r, dialect, vars)
		if native && st.Query != nil {
			diags = append(diags, st.Query.CheckNative()...)
		}
		liveRefs(text, st.Query)
		sort.SliceStable(st.Syntax, func(i, j int) bool { return st.Syntax[i].Start < st.Syntax[j].Start })
		f.Statements = append(f.Statements, st)
		f.Diags = append(f.Diags, diags...)
	}
	if openComment >= 0 {
		f.Diags = append(f.Diags, ir.Diagnostic{
			Loc:      ir.Loc{File: file, Start: openComment, End: min(openComment+2, len(text))},
			Severity: ir.Error,
			Code:     ir.CodeSQLSyntax,
			Message:  "unterminated /* comment: close it with */ (block comments nest, so every /* needs its own */)",
		})
	}
	ir.SortDiagnostics(f.Diags)
	return f
}

// ParseQuery parses the single query in text[span]; pragma-form files use
// it for their body. A trailing ';' and surrounding comments are allowed. It
// reports ir.CodeSQLEmpty when span holds no statement,
// ir.CodeSQLMultiQuery when it holds more than one (the first is still
// parsed), and ir.CodeSQLNotQuery when the statement is not a query. The
// returned Query's span is the query itself; it is nil when there is none.
func ParseQuery(file, text string, span Span) (*Query, []ir.Diagnostic) {
	return ParseQueryDialect(file, text, span, DialectSpark)
}

// ParseQueryDialect is ParseQuery in the given dialect.
func ParseQueryDialect(file, text string, span Span, dialect Dialect) (*Query, []ir.Diagnostic) {
	span = clampSpan(span, len(text))
	raw, openComment := splitRange(text, span.Start, span.End)
	var diags []ir.Diagnostic
	if len(raw) == 0 {
		msg := "no query: the file's body must be one query (SELECT, WITH, VALUES or FROM ...) after the header comments"
		loc := ir.Loc{File: file, Start: span.Start, End: span.Start}
		if openComment >= 0 {
			loc.Start, loc.End = openComment, min(openComment+2, span.End)
			msg = "unterminated /* comment: close it with */; " + msg
		}
		return nil, []ir.Diagnostic{{
			Loc:      loc,
			Severity: ir.Error, Code: ir.CodeSQLEmpty, Message: msg,
		}}
	}
	if len(raw) > 1 {
		second := raw[1].Span
		diags = append(diags, ir.Diagnostic{
			Loc:      ir.Loc{File: file, Start: second.Start, End: second.End},
			Severity: ir.Error, Code: ir.CodeSQLMultiQuery,
			Message: "a file in pragma form holds exactly one query, and this is a second statement: " +
				"move it into its own .sql file, or write the file in SDP form (CREATE MATERIALIZED VIEW name AS ...)",
		})
	}
	first, toks := raw[0].Span, raw[0].toks
	if len(toks) > 0 && !startsQuery(text, toks) {
		lead, kw := leadingKeywords(text, toks)
		return nil, append(diags, ir.Diagnostic{
			Loc:      ir.Loc{File: file, Start: lead.Start, End: lead.End},
			Severity: ir.Error, Code: ir.CodeSQLNotQuery,
			Message: fmt.Sprintf("%s is not a query: the body of a file in pragma form is one query (SELECT, WITH, VALUES or FROM ...)", kw),
		})
	}
	q, qd := parseQuery(file, text, first, toks, dialect, nil)
	if q != nil {
		qd = append(qd, q.CheckNative()...)
	}
	liveRefs(text, q)
	return q, append(diags, qd...)
}

func clampSpan(s Span, n int) Span {
	s.Start = max(0, min(s.Start, n))
	s.End = max(s.Start, min(s.End, n))
	return s
}
