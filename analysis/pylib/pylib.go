// Package pylib reads a Python pipeline file without running it: it parses
// the file with tree-sitter's Python grammar (today's Python: f-strings,
// annotations, match, walrus...) and returns the datasets, flows and sinks
// the file defines through SDP's Python API (pyspark.pipelines,
// conventionally imported as dp) or Databricks' (dlt), the tables each
// dataset function reads, each with its byte range in the file, its
// expectation decorators, and, where the function's body has a meaning
// Thund can state in Spark SQL (spark.sql of a literal, spark.range, a
// table read with select/filter/where/limit/distinct), that query. The
// file is never executed; a table name computed at run time is reported
// as unknown.
package pylib

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
	python "github.com/tree-sitter/tree-sitter-python/bindings/go"

	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

// Span is a byte range [Start, End) in the file.
type Span struct {
	Start, End int
}

// Read is one table a dataset function reads.
type Read struct {
	// Name is the table as the string literal spells it.
	Name string
	// Streaming marks spark.readStream.table and dlt.read_stream /
	// dp.read_stream.
	Streaming bool
	// Loc is the string literal, quotes included.
	Loc Span
	// Inner is the name itself inside the quotes when the literal writes
	// it as it is (no escape, one piece), else Loc.
	Inner Span
	// Call is the reading call's method, for messages (spark.read.table).
	Call string
	// Live is set for LIVE.x (Databricks' legacy schema of the
	// pipeline's datasets): Name is then x, and Inner (when the name is
	// written as it is) starts at x.
	Live bool
	// Path is set for a load of files by path (spark.read.format(...).
	// load(path), spark.read.csv(path), Auto Loader): the path; Name is
	// then the source it stands for, the path's last segment without
	// its extension, as for SQL's read_files.
	Path string
}

// What an Unknown is about.
const (
	UnknownTable = "table" // a read whose table is computed
	UnknownName  = "name"  // a definition whose name is computed
	UnknownSQL   = "sql"   // spark.sql of a computed string
	// UnknownSetting is a table setting (partition_cols=, table_properties=,
	// spark_conf=, schema=...) computed at run time.
	UnknownSetting = "setting"
)

// Unknown is something the file computes at run time, so Thund cannot
// know it without running the file.
type Unknown struct {
	// What is UnknownTable, UnknownName or UnknownSQL.
	What string
	// Call is the call or keyword that takes the computed value
	// (spark.table, dlt.read, spark.sql, name=).
	Call string
	// Loc is the argument that computes it.
	Loc Span
}

// Query is the Spark SQL meaning of a dataset function's body.
type Query struct {
	// SQL is the query.
	SQL string
	// Lit is set when the body returns spark.sql(LITERAL): the literal,
	// whose bytes map ranges of SQL back into the file.
	Lit *Literal
	// Loc is the expression the query stands for (the spark.sql call, or
	// the DataFrame expression).
	Loc Span
	// Relation is set when the body is one read and nothing else
	// (spark.range, a table read, a load of files): the relation pyspark's
	// pipelines client sends for it, which a push sends too.
	Relation *Relation
	// Loads are the loads of files the query reads, in source order: in
	// SQL each is written read_files(path, ...), which a push replaces by
	// the load itself.
	Loads []Load
	// Drops are the body's .drop(...) calls over tables read by name.
	Drops []Drop
	// Columns are the body's output columns with their Spark types when
	// Thund knows all of them (spark.range, a load with a schema, and
	// steps keeping or picking such columns), else nil.
	Columns []Column
}

// Drop is a .drop(...) call on a DataFrame that reads tables by name.
// Spark Connect's planner resolves the input of a drop when the flow is
// defined (checked with spark-pipelines run of Spark 4.1.4 and 4.3.0):
// while a pipeline registers its flows none of its tables exist yet, so
// spark-pipelines run fails there with TABLE_OR_VIEW_NOT_FOUND when a
// table read under the drop is a dataset of the pipeline.
type Drop struct {
	// Loc is from the method name to the call's end (drop(...)).
	Loc Span
	// Tables are the tables read by name under the drop, as written.
	Tables []string
}

// Column is an output column of a body and its Spark type (upper case,
// as a DDL string writes it: BIGINT, STRING, DECIMAL(10,2)).
type Column struct {
	Name, Type string
}

// Relation is a body that is one read, as Spark Connect states it.
type Relation struct {
	// Range is set for spark.range: [Start, End) by Step.
	Range *Range
	// Table is set for a table read (Streaming for a stream read).
	Table     string
	Streaming bool
	// Load is set for a load of files.
	Load *Load
}

// Range is spark.range's numbers.
type Range struct {
	Start, End, Step int64
	// Partitions is numPartitions, 0 when not given.
	Partitions int32
}

// Load is a load of files by path: spark.read or spark.readStream with
// its format, options and schema, as the DataFrameReader is given them.
type Load struct {
	// Format is the format(...) or reader method (csv, json...); for
	// Auto Loader it is "cloudFiles" (and CloudFormat its
	// cloudFiles.format option).
	Format      string
	CloudFormat string
	// Options are the option(...), options(...) and reader keywords, as
	// pyspark passes them to Spark (True is "true").
	Options map[string]string
	// Schema is the schema(...) (or schema=) DDL string, "" when none;
	// SchemaLoc is its literal.
	Schema    string
	SchemaLoc Span
	// Path is the path loaded.
	Path      string
	Streaming bool
	// Computed names what the chain computes at run time (an option's
	// value, a schema given as a StructType), which a push cannot send;
	// "" when every part is a literal.
	Computed string
	// Loc is the load expression.
	Loc Span
	// NotNative says why the native engine cannot read the load's sample
	// as Spark reads these files with these options (a CSV file without
	// header, CSV columns Spark reads as STRING, JSON whose schema Spark
	// infers), "" when it can.
	NotNative string
}

// Expectation is an @expect* decorator's rule.
type Expectation struct {
	Name string
	// Action is "warn" (expect), "drop" (expect_or_drop) or "fail"
	// (expect_or_fail).
	Action string
	// Loc is the decorator.
	Loc Span
	// Cond is the constraint literal.
	Cond Literal
}

// UnknownExpectations is an @expect_all* decorator whose rules Thund
// cannot read.
type UnknownExpectations struct {
	// Decorator is the decorator's name (expect_all_or_drop), Action its
	// action.
	Decorator, Action string
	// From is the expression that gives the dict, as written
	// (rules.get_rules()), and Loc its range.
	From string
	Loc  Span
	// Single is set for an @expect* decorator of one rule whose name or
	// constraint is computed at run time (an f-string over a value only
	// the run gives); Loc is then the decorator.
	Single bool
}

// CDC is what create_auto_cdc_flow / apply_changes say of a change feed.
type CDC struct {
	Keys          []string
	SequenceBy    string
	SCD           int
	Deletes       string
	Columns       []string
	ColumnsExcept bool
	// IgnoreNullUpdates is ignore_null_updates=True; TruncateWhen is
	// apply_as_truncates' condition; TrackHistory is
	// track_history_column_list (with TrackHistoryExcept,
	// track_history_except_column_list).
	IgnoreNullUpdates  bool
	TruncateWhen       string
	TrackHistory       []string
	TrackHistoryExcept bool
	// Unapplied are the keywords the native engine does not apply.
	Unapplied []Arg
}

// Arg is one keyword argument as written.
type Arg struct {
	Name string
	Loc  Span
	// SCD1 is set for a keyword read as written that holds for SCD
	// type 1 only, given with stored_as_scd_type=2.
	SCD1 bool
}

// Definition is a dataset, a flow or a sink the file defines.
type Definition struct {
	// Name is the dataset's (or flow's) name: the name= keyword, or the
	// function's name.
	Name string
	// Kind is the dataset kind (ir.Sink for create_sink); empty for a
	// flow (append_flow, create_auto_cdc_flow, apply_changes).
	Kind ir.Kind
	// Target is the dataset a flow writes into (target=).
	Target string
	// TargetLoc is the target= literal.
	TargetLoc Span
	// Comment is the comment= keyword, when a string literal.
	Comment string
	// Format is a sink's format= (kafka, delta...), or a table's.
	Format string
	// PartitionCols, ClusterBy, Properties and Conf are the partition_cols=,
	// cluster_by=, table_properties= and spark_conf= keywords when written
	// as literals (a list of names, a dict of strings).
	PartitionCols []string
	ClusterBy     []string
	// ClusterByAuto is the cluster_by_auto= keyword argument (True is
	// Databricks' automatic liquid clustering, SQL's CLUSTER BY AUTO);
	// zero when not given.
	ClusterByAuto Span
	Properties    map[string]string
	Conf          map[string]string
	// Schema is the schema= keyword when a string literal (a DDL schema,
	// "id BIGINT, name STRING"); SchemaLoc is that literal.
	Schema    string
	SchemaLoc Span
	// Loc spans the definition: the decorators and the function, or the
	// call.
	Loc Span
	// Decorator is the decorator that defines the dataset or flow
	// (@dp.table(...)); zero for a call (create_streaming_table...).
	Decorator Span
	// NameLoc is the name= literal, or the function's name.
	NameLoc Span
	// API is the module alias the definition is written with (dp, dlt).
	API string
	// Reads are the tables the function body reads, in source order.
	Reads []Read
	// Unknown are the reads whose table name is computed at run time.
	Unknown []Unknown
	// Streams is set when the body reads a stream that is no Read (a
	// spark.readStream load without a path, as Kafka's, or whose path
	// is computed at run time): the flow streams all the same.
	Streams bool
	// Query is the body's meaning in Spark SQL, nil when Thund cannot
	// state it (Opaque then says why).
	Query  *Query
	Opaque string
	// OpaqueLoc is where the body stops being one Thund states in SQL
	// (the step, the statement), zero when Query is set.
	OpaqueLoc Span
	// NeedsColumns is set when the body is opaque because a step needs
	// its input's columns, which the file alone does not give (a
	// withColumn over a table read): given them (Options.Columns), the
	// body may have a Query.
	NeedsColumns bool
	// Expectations are the @expect* decorators, in source order.
	Expectations []Expectation
	// UnknownExpectations are the @expect_all* decorators whose dict
	// Thund cannot read from the file (a helper module's function, a
	// value computed at run time): their rules are not known.
	UnknownExpectations []UnknownExpectations
	// CDC is set for create_auto_cdc_flow and apply_changes.
	CDC *CDC
	// MainGuard is the condition of an `if __name__ == "__main__":` the
	// definition is under (zero when none): Databricks runs the file as
	// __main__, and spark-pipelines imports it as a module named after
	// the file, where the branch is not taken.
	MainGuard Span
}

// Owner is the dataset the definition fills: its target for a flow, else
// itself.
func (d *Definition) Owner() string {
	if d.Kind == "" && d.Target != "" {
		return d.Target
	}
	return d.Name
}

// File is what Parse learns from one .py file.
type File struct {
	// Definitions are the datasets and flows in source order.
	Definitions []Definition
	// Aliases maps each local name bound to a pipelines module (dp, dlt)
	// to the module it imports.
	Aliases map[string]string
	// Errors are the places the file does not parse (the first few);
	// the definitions elsewhere are still read.
	Errors []SyntaxError
	// Unknown are names computed at run time outside any function body
	// (a definition's name= or a create_* call's name).
	Unknown []Unknown
	// DLTImport is the first statement importing Databricks' dlt module
	// (import dlt), zero when none does.
	DLTImport Span
	// Foreign are the imports of a module named like a pipelines API
	// that Thund does not read (import databricks.pipelines as dp, from
	// databricks import pipelines): the definitions written with them
	// are not among Definitions.
	Foreign []ForeignImport
	// Modules are the helper modules Options.Module gave a text for, by
	// dotted name, sorted: what the reading depends on beside the file.
	Modules []string
}

// SyntaxError is a Python syntax error at a byte offset of the file.
type SyntaxError struct {
	Offset  int
	Line    int // 1-based
	Column  int // 1-based, in bytes
	Message string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Message)
}

// parseTimeout bounds the parser on one file: no pipeline file comes near
// it, and a pathological one cannot stall an analysis.
const parseTimeout = 10 * time.Second

// maxErrors is how many syntax errors a File keeps.
const maxErrors = 3

var language = sitter.NewLanguage(python.Language())

// Parse reads the Python file text (named filename in errors). The parser
// recovers from syntax errors: they are listed in File.Errors and the
// statements that parse are still read. Parse never panics; err is set
// only when the parser could not run at all.
func Parse(filename, text string) (f File, err error) {
	return ParseWith(filename, text, Options{})
}

// Options are what a caller knows of the pipeline beyond the file.
type Options struct {
	// Conf is the pipeline's configuration (the spec's `configuration:`),
	// which spark.conf.get("key") reads.
	Conf map[string]string
	// Columns, when set, gives the column names of an input a body reads
	// (a table read by name, or a load of files), nil when not known: the
	// steps that depend on the input's columns (withColumn, drop,
	// withColumnRenamed, unionByName) are then stated in SQL over them.
	// Analysis leaves it unset (a file's reading depends on the file
	// alone); the native engine sets it from the relations it has read.
	Columns func(Input) []string
	// Module, when set, gives the text of a helper module the file
	// imports (by its dotted name: rules, utilities.rules), ok false when
	// the pipeline folder has none. The text is parsed for the literals
	// its names are bound to (helper.go), never run.
	Module func(name string) (text string, ok bool)
}

// Input is an input of a body whose columns Options.Columns is asked for:
// a table read by name (Table, Streaming), or a load of files (Load).
type Input struct {
	Table     string
	Streaming bool
	Load      *Load
}

// ParseWith is Parse with what the caller knows of the pipeline.
func ParseWith(filename, text string, o Options) (f File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = File{}, &SyntaxError{Line: 1, Column: 1, Message: fmt.Sprintf("the Python parser stopped: %v", r)}
		}
	}()
	tree, err := parseTree(text)
	if err != nil {
		if _, isSyntax := err.(*SyntaxError); isSyntax {
			return File{}, err
		}
		return File{}, fmt.Errorf("%s: %w", filename, err)
	}
	defer tree.Close()
	root := tree.RootNode()
	r := &reader{text: text, src: []byte(text), aliases: map[string]string{}, conf: o.Conf, columnsOf: o.Columns, moduleText: o.Module}
	if root.HasError() {
		r.syntaxErrors(root)
	}
	stmts := children(root)
	r.imports(stmts)
	r.constants(stmts)
	r.findFactories(stmts)
	for i, st := range stmts {
		next := len(text)
		if i+1 < len(stmts) {
			next = int(stmts[i+1].StartByte())
		}
		if st.HasError() || st.IsError() {
			continue
		}
		r.statement(st, next)
	}
	var mods []string
	for name, m := range r.modules {
		if m != nil {
			mods = append(mods, name)
		}
	}
	sort.Strings(mods)
	return File{Definitions: r.defs, Aliases: r.aliases, Errors: r.errs, Unknown: r.unknown, DLTImport: r.dltImport, Foreign: r.foreign, Modules: mods}, nil
}

// parseTree parses text with the Python grammar, within parseTimeout.
func parseTree(text string) (*sitter.Tree, error) {
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(language); err != nil {
		return nil, fmt.Errorf("the Python grammar: %w", err)
	}
	src := []byte(text)
	deadline := time.Now().Add(parseTimeout)
	read := func(i int, _ sitter.Point) []byte {
		if i < len(src) {
			return src[i:]
		}
		return nil
	}
	tree := p.ParseWithOptions(read, nil, &sitter.ParseOptions{ProgressCallback: func(sitter.ParseState) bool {
		return time.Now().After(deadline)
	}})
	if tree == nil {
		return nil, &SyntaxError{Line: 1, Column: 1, Message: fmt.Sprintf("the Python parser gave up on this file after %v", parseTimeout)}
	}
	return tree, nil
}

// Modules a pipeline file imports its API from.
const (
	modPipelines = "pyspark.pipelines"
	modDLT       = "dlt"
)

type reader struct {
	text    string
	src     []byte
	aliases map[string]string
	// conf is the pipeline's configuration (Options.Conf), columnsOf
	// Options.Columns.
	conf      map[string]string
	columnsOf func(Input) []string
	// needCols is set while a body's query is read when a step stopped
	// because its input's columns are not known (Definition.NeedsColumns).
	needCols bool
	// env are the DataFrame variables of the body being read, and cur
	// the frame a step is applied to (for df.x columns, frameColumn).
	env map[string]frame
	cur *frame
	// consts are the module's names bound once, at the top level, to a
	// string or dict literal (NAME = "t", RULES = {...}).
	consts map[string]*sitter.Node
	// loads are the loads of files of the body query is reading.
	loads []Load
	drops []Drop
	// bind are the names a loop or a factory call being expanded binds
	// to literals (for t in ["a", "b"], make("a")), innermost first;
	// bindText those it binds to texts no literal spells (the pieces of
	// a split).
	bind     map[string]*sitter.Node
	bindText map[string]string
	// factories are the module's undecorated functions that define
	// datasets when called (def make(t): @dp.table(name=t) ...), and
	// funcs every function the module defines at its top level.
	factories map[string]*sitter.Node
	funcs     map[string]*sitter.Node
	// unknownExp are the @expect_all* decorators of the function being
	// read whose dict is not known.
	unknownExp []UnknownExpectations
	dltImport  Span
	foreign    []ForeignImport
	// imp is what the module's imports bind (names.go); locals the
	// names the function body being read assigns, which shadow the
	// module's constants.
	imp    importNames
	locals map[string]bool
	// stops holds where each reason a body is opaque for was first met
	// (Definition.OpaqueLoc).
	stops    map[string]Span
	opaqueAt Span
	// moduleText is Options.Module, and modules the helper modules read.
	moduleText func(string) (string, bool)
	modules    map[string]*module
	// windows are the window specs the body being read binds to names
	// (w = Window.partitionBy(...)), window.go.
	windows map[string]*sitter.Node
	// depth bounds the expansion of loops, factory calls and names.
	depth, expanded int
	defs            []Definition
	errs            []SyntaxError
	unknown         []Unknown
}

func (r *reader) srcOf(n *sitter.Node) string { return r.text[n.StartByte():n.EndByte()] }

func span(n *sitter.Node) Span { return Span{int(n.StartByte()), int(n.EndByte())} }

// children returns n's named children, comments left out.
func children(n *sitter.Node) []*sitter.Node {
	var out []*sitter.Node
	for i := uint(0); i < n.NamedChildCount(); i++ {
		if c := n.NamedChild(i); c.Kind() != "comment" {
			out = append(out, c)
		}
	}
	return out
}

// unparen strips parentheses around an expression.
func unparen(n *sitter.Node) *sitter.Node {
	for n != nil && n.Kind() == "parenthesized_expression" && n.NamedChildCount() == 1 {
		n = n.NamedChild(0)
	}
	return n
}

// syntaxErrors records the first ERROR and MISSING nodes.
func (r *reader) syntaxErrors(n *sitter.Node) {
	if len(r.errs) >= maxErrors || !n.HasError() && !n.IsMissing() {
		return
	}
	if n.IsError() || n.IsMissing() {
		pos := n.StartPosition()
		msg := "invalid syntax"
		if n.IsMissing() {
			msg = fmt.Sprintf("%s expected here", n.Kind())
		} else if n.EndByte() > n.StartByte() {
			tok := strings.TrimSpace(firstLine(r.srcOf(n)))
			if len(tok) > 40 {
				tok = tok[:40] + "..."
			}
			msg = fmt.Sprintf("invalid syntax at %q", tok)
		}
		r.errs = append(r.errs, SyntaxError{Offset: int(n.StartByte()), Line: int(pos.Row) + 1, Column: int(pos.Column) + 1, Message: msg})
		return
	}
	for i := uint(0); i < n.ChildCount(); i++ {
		r.syntaxErrors(n.Child(i))
	}
}

func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// imports records the names bound to pyspark.pipelines or dlt by the
// module's top-level imports.
func (r *reader) imports(stmts []*sitter.Node) {
	for _, st := range stmts {
		switch st.Kind() {
		case "try_statement", "if_statement", "except_clause", "else_clause", "elif_clause", "finally_clause", "block":
			// try: import dlt / except ImportError: from pyspark import
			// pipelines as dlt, and imports under an if: read as well.
			if r.depth < maxDepth {
				r.depth++
				r.imports(children(st))
				r.depth--
			}
		case "import_statement":
			for _, c := range children(st) {
				name, alias := c, (*sitter.Node)(nil)
				if c.Kind() == "aliased_import" {
					name, alias = c.ChildByFieldName("name"), c.ChildByFieldName("alias")
				}
				if name == nil {
					continue
				}
				mod := dottedName(r, name)
				r.importModule(mod, alias)
				if mod != modPipelines && mod != modDLT {
					local := mod
					if alias != nil {
						local = r.srcOf(alias)
					}
					r.foreignImport(mod, local, st)
					continue
				}
				if alias != nil {
					r.aliases[r.srcOf(alias)] = mod
				} else if mod == modDLT {
					r.aliases[modDLT] = modDLT
				}
				if mod == modDLT && r.dltImport == (Span{}) && r.depth == 0 {
					// (Under a try or an if, the import may be caught or
					// not run: not said.)
					r.dltImport = span(st)
				}
				// A bare `import pyspark.pipelines` is used through the
				// full dotted path, handled in apiOf.
			}
		case "import_from_statement":
			m := st.ChildByFieldName("module_name")
			if m == nil || m.Kind() != "dotted_name" {
				continue
			}
			r.importFrom(dottedName(r, m), st)
			if dottedName(r, m) != "pyspark" {
				r.foreignFrom(dottedName(r, m), st)
				continue
			}
			for _, c := range children(st)[1:] {
				name, alias := c, (*sitter.Node)(nil)
				if c.Kind() == "aliased_import" {
					name, alias = c.ChildByFieldName("name"), c.ChildByFieldName("alias")
				}
				if name == nil || dottedName(r, name) != "pipelines" {
					continue
				}
				local := "pipelines"
				if alias != nil {
					local = r.srcOf(alias)
				}
				r.aliases[local] = modPipelines
			}
		}
	}
}

// ForeignImport is an import of a module named like a pipelines API
// that is neither pyspark.pipelines nor dlt.
type ForeignImport struct {
	// Module is the module as written (databricks.pipelines), Local the
	// name the file uses it by (dp).
	Module, Local string
	At            Span
}

// foreignImport records mod, imported as local by statement st, when
// its last part names a pipelines API (pipelines, dlt) Thund does not
// read.
func (r *reader) foreignImport(mod, local string, st *sitter.Node) {
	last := mod[strings.LastIndexByte(mod, '.')+1:]
	if last != "pipelines" && last != "dlt" {
		return
	}
	r.foreign = append(r.foreign, ForeignImport{Module: mod, Local: local, At: span(st)})
}

// foreignFrom records the pipelines or dlt names that statement st
// imports from a module other than pyspark (from databricks import
// pipelines as dp).
func (r *reader) foreignFrom(from string, st *sitter.Node) {
	for _, c := range children(st)[1:] {
		name, alias := c, (*sitter.Node)(nil)
		if c.Kind() == "aliased_import" {
			name, alias = c.ChildByFieldName("name"), c.ChildByFieldName("alias")
		}
		if name == nil {
			continue
		}
		n := dottedName(r, name)
		if n != "pipelines" && n != "dlt" {
			continue
		}
		local := n
		if alias != nil {
			local = r.srcOf(alias)
		}
		r.foreign = append(r.foreign, ForeignImport{Module: from + "." + n, Local: local, At: span(st)})
	}
}

// constants records the names the module binds exactly once, at its top
// level, to a string or dict literal: a read, a name= or an
// @expect_all(RULES) written with such a name is as good as the literal.
func (r *reader) constants(stmts []*sitter.Node) {
	count := map[string]int{}
	r.consts = map[string]*sitter.Node{}
	for _, st := range stmts {
		if st.Kind() != "expression_statement" {
			continue
		}
		for _, e := range children(st) {
			if e.Kind() != "assignment" && e.Kind() != "augmented_assignment" {
				continue
			}
			left, right := e.ChildByFieldName("left"), e.ChildByFieldName("right")
			if left == nil || left.Kind() != "identifier" {
				continue
			}
			name := r.srcOf(left)
			count[name]++
			if right == nil || e.Kind() != "assignment" {
				continue
			}
			switch v := unparen(right); v.Kind() {
			case "string", "concatenated_string", "dictionary", "list", "tuple", "integer", "float", "true", "false", "none",
				"unary_operator", "binary_operator", "comparison_operator", "boolean_operator", "not_operator":
				// Read only as far as the readers of each use go
				// (integer, literal, condition): an expression they do
				// not know stays unknown.
				r.consts[name] = v
			case "call":
				// spark.conf.get is read through the configuration
				// (confValue); rules.get_rules() through the function
				// (expectations).
				r.consts[name] = v
			}
		}
	}
	for name, n := range count {
		if n > 1 {
			delete(r.consts, name)
		}
	}
}

// constant follows a name to the literal it is bound to (constants).
func (r *reader) constant(n *sitter.Node) *sitter.Node {
	n = unparen(n)
	if n != nil && n.Kind() == "identifier" {
		if v := r.bind[r.srcOf(n)]; v != nil {
			return v
		}
		if _, bound := r.bindText[r.srcOf(n)]; bound {
			return n // a piece of a split (literal and pyStr read it)
		}
		if r.locals[r.srcOf(n)] {
			return n // a local variable of the body, not the constant
		}
		if v := r.consts[r.srcOf(n)]; v != nil {
			return v
		}
	}
	return n
}

// dottedName is a dotted_name node's text without blanks.
func dottedName(r *reader, n *sitter.Node) string {
	var parts []string
	for _, c := range children(n) {
		parts = append(parts, r.srcOf(c))
	}
	if len(parts) == 0 {
		return r.srcOf(n)
	}
	return strings.Join(parts, ".")
}

// dotted returns a.b.c for a chain of names and attributes, or "".
func (r *reader) dotted(n *sitter.Node) string {
	n = unparen(n)
	if n == nil {
		return ""
	}
	switch n.Kind() {
	case "identifier":
		return r.srcOf(n)
	case "attribute":
		obj, attr := n.ChildByFieldName("object"), n.ChildByFieldName("attribute")
		if obj == nil || attr == nil {
			return ""
		}
		if v := r.dotted(obj); v != "" {
			return v + "." + r.srcOf(attr)
		}
	}
	return ""
}

// apiOf returns the alias and the attribute when n is ALIAS.attr for a
// pipelines module alias (or pyspark.pipelines.attr spelled out).
func (r *reader) apiOf(n *sitter.Node) (alias, attr string, ok bool) {
	full := r.dotted(n)
	i := strings.LastIndexByte(full, '.')
	if i < 0 {
		return "", "", false
	}
	base, attr := full[:i], full[i+1:]
	if base == modPipelines {
		return modPipelines, attr, true
	}
	if _, known := r.aliases[base]; known {
		return base, attr, true
	}
	return "", "", false
}

// decoratorKinds maps a decorator to the kind it defines; "" marks a flow.
var decoratorKinds = map[string]ir.Kind{
	"materialized_view": ir.MaterializedView,
	"table":             ir.Table,
	"temporary_view":    ir.TemporaryView,
	"view":              ir.TemporaryView, // Databricks' @dlt.view: a view of the pipeline, not published
	"append_flow":       "",
}

// expectActions maps the expectation decorators to their action; the
// _all forms take a dict of name: constraint.
var expectActions = map[string]string{
	"expect": "warn", "expect_or_drop": "drop", "expect_or_fail": "fail",
	"expect_all": "warn", "expect_all_or_drop": "drop", "expect_all_or_fail": "fail",
}

// call splits a call node into its callee, positional arguments and
// keyword arguments; ok is false when n is not a call.
func (r *reader) call(n *sitter.Node) (fn *sitter.Node, args []*sitter.Node, kw map[string]*sitter.Node, kwName map[string]*sitter.Node, ok bool) {
	n = unparen(n)
	if n == nil || n.Kind() != "call" {
		return nil, nil, nil, nil, false
	}
	fn = n.ChildByFieldName("function")
	kw, kwName = map[string]*sitter.Node{}, map[string]*sitter.Node{}
	al := n.ChildByFieldName("arguments")
	if al == nil || al.Kind() != "argument_list" {
		return fn, nil, kw, kwName, fn != nil
	}
	for _, a := range children(al) {
		if a.Kind() == "keyword_argument" {
			name, val := a.ChildByFieldName("name"), a.ChildByFieldName("value")
			if name != nil && val != nil {
				kw[r.srcOf(name)] = val
				kwName[r.srcOf(name)] = name
			}
			continue
		}
		args = append(args, a)
	}
	return fn, args, kw, kwName, fn != nil
}

// arg returns the keyword argument name, else the i-th positional one.
func arg(args []*sitter.Node, kw map[string]*sitter.Node, i int, name string) *sitter.Node {
	if v := kw[name]; v != nil {
		return v
	}
	if i >= 0 && i < len(args) {
		return args[i]
	}
	return nil
}

// statement reads one top-level statement; next is where the following
// one starts (the end of this one's span is found before it).
func (r *reader) statement(st *sitter.Node, next int) {
	switch st.Kind() {
	case "decorated_definition":
		fn := st.ChildByFieldName("definition")
		if fn != nil && fn.Kind() == "function_definition" {
			r.function(st, fn)
		}
	case "expression_statement":
		for _, e := range children(st) {
			if fn, args, kw, _, ok := r.call(e); ok && unparen(fn).Kind() == "identifier" {
				if def := r.factories[r.srcOf(unparen(fn))]; def != nil {
					r.factoryCall(def, e, args, kw)
					continue
				}
			}
			r.topCall(e, st)
		}
	case "for_statement":
		r.forLoop(st)
	case "if_statement":
		r.ifBlock(st)
	}
}

// UnknownLoop is a loop or a factory call whose values are computed at
// run time, so the datasets it defines have names Thund cannot know.
const UnknownLoop = "loop"

// maxExpanded bounds how many definitions loops and factory calls may
// expand to in one file, and maxDepth how deeply they may nest.
const (
	maxExpanded = 1000
	maxDepth    = 4
)

// findFactories records the module's undecorated functions whose body
// defines datasets or flows (a decorator or a create_* call of a
// pipelines module): called with literal arguments, they are expanded.
func (r *reader) findFactories(stmts []*sitter.Node) {
	r.factories = map[string]*sitter.Node{}
	r.funcs = map[string]*sitter.Node{}
	for _, st := range stmts {
		if st.Kind() != "function_definition" {
			continue
		}
		if name := st.ChildByFieldName("name"); name != nil {
			r.funcs[r.srcOf(name)] = st
		}
		if name, body := st.ChildByFieldName("name"), st.ChildByFieldName("body"); name != nil && body != nil && r.defines(body) {
			r.factories[r.srcOf(name)] = st
		}
	}
}

// defines reports whether the statements under n define a dataset or a
// flow through a pipelines module.
func (r *reader) defines(n *sitter.Node) bool {
	found := false
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if found {
			return
		}
		switch n.Kind() {
		case "decorator":
			if e := children(n); len(e) > 0 {
				callee := e[0]
				if fn, _, _, _, ok := r.call(callee); ok {
					callee = fn
				}
				if _, attr, ok := r.apiOf(callee); ok {
					_, isKind := decoratorKinds[attr]
					found = found || isKind
				}
			}
		case "call":
			if fn := unparen(n.ChildByFieldName("function")); fn != nil && fn.Kind() == "identifier" && r.factories[r.srcOf(fn)] != nil {
				found = true
			}
			if _, attr, ok := r.apiOf(n.ChildByFieldName("function")); ok {
				switch attr {
				case "create_streaming_table", "create_target_table", "create_streaming_live_table", "create_sink", "create_auto_cdc_flow", "apply_changes",
					"create_auto_cdc_from_snapshot_flow", "apply_changes_from_snapshot":
					found = true
				}
			}
		case "function_definition", "class_definition":
			if n.Parent() != nil && n.Parent().Kind() != "decorated_definition" && n.Parent().Kind() != "module" {
				return // a nested helper is not run by the loop
			}
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i))
		}
	}
	walk(n)
	return found
}

// expand reads the statements of a loop's or a factory's body with the
// names of vals bound (each value a literal node), then restores the
// bindings around it.
func (r *reader) expand(vals map[string]*sitter.Node, body *sitter.Node) {
	if r.depth >= maxDepth || r.expanded >= maxExpanded {
		return
	}
	saved := r.bind
	r.bind = map[string]*sitter.Node{}
	for k, v := range saved {
		r.bind[k] = v
	}
	for k, v := range vals {
		r.bind[k] = v
	}
	r.depth++
	before := len(r.defs)
	for _, st := range children(body) {
		if st.HasError() || st.IsError() {
			continue
		}
		r.statement(st, 0)
	}
	r.expanded += len(r.defs) - before
	r.depth--
	r.bind = saved
}

// expandText is expand with name bound to the text t, which no literal
// of the file spells (a piece of a split).
func (r *reader) expandText(name, t string, body *sitter.Node) {
	if r.depth >= maxDepth || r.expanded >= maxExpanded {
		return
	}
	savedText, savedBind := r.bindText, r.bind
	r.bindText, r.bind = map[string]string{}, map[string]*sitter.Node{}
	for k, v := range savedText {
		r.bindText[k] = v
	}
	for k, v := range savedBind {
		r.bind[k] = v
	}
	r.bindText[name] = t
	delete(r.bind, name)
	r.expand(nil, body)
	r.bindText, r.bind = savedText, savedBind
}

// splitList reads TEXT.split(SEP) / TEXT.split() of a text Thund knows
// (a literal, a constant, spark.conf.get of a configured key or with a
// default) as the list Python's str.split gives.
func (r *reader) splitList(n *sitter.Node) ([]string, bool) {
	fn, args, kw, _, ok := r.call(r.constant(n))
	if !ok || len(kw) > 0 || len(args) > 1 {
		return nil, false
	}
	fn = unparen(fn)
	if fn == nil || fn.Kind() != "attribute" || r.srcOf(fn.ChildByFieldName("attribute")) != "split" {
		return nil, false
	}
	text, ok := r.literal(fn.ChildByFieldName("object"))
	if !ok {
		return nil, false
	}
	if len(args) == 0 {
		return strings.Fields(text.Value), true
	}
	sep, ok := r.literal(args[0])
	if !ok || sep.Value == "" {
		return nil, false // "".split("") is Python's ValueError
	}
	return strings.Split(text.Value, sep.Value), true
}

// literalValue follows n through the bindings and constants to a literal
// Thund can bind a name to: a string, or a list or tuple of them.
func (r *reader) literalValue(n *sitter.Node) (*sitter.Node, bool) {
	v := unparen(r.constant(n))
	if v == nil {
		return nil, false
	}
	if _, ok := r.literal(v); ok {
		return v, true
	}
	switch v.Kind() {
	case "list", "tuple", "integer", "true", "false", "none", "dictionary":
		return v, true
	}
	return nil, false
}

// forLoop expands `for t in [literals]:` (or a tuple, or a module
// constant bound to one; `for a, b in [("x", "y"), ...]` unpacks) when the
// loop's body defines datasets; a loop over values computed at run time
// is an Unknown at its iterable.
func (r *reader) forLoop(st *sitter.Node) {
	left, right, body := st.ChildByFieldName("left"), st.ChildByFieldName("right"), st.ChildByFieldName("body")
	if left == nil || right == nil || body == nil || !r.defines(body) {
		return
	}
	unknown := func(at *sitter.Node) {
		r.unknown = append(r.unknown, Unknown{What: UnknownLoop, Call: "for", Loc: span(at)})
	}
	var names []string
	switch left.Kind() {
	case "identifier":
		names = []string{r.srcOf(left)}
	case "pattern_list", "tuple_pattern", "list_pattern":
		for _, c := range children(left) {
			if c.Kind() != "identifier" {
				unknown(left)
				return
			}
			names = append(names, r.srcOf(c))
		}
	default:
		unknown(left)
		return
	}
	items := unparen(r.constant(right))
	if items == nil || (items.Kind() != "list" && items.Kind() != "tuple") {
		if texts, ok := r.splitList(right); ok && left.Kind() == "identifier" {
			// for t in spark.conf.get("tables", "a,b").split(","):
			// each text Python's split gives.
			for _, t := range texts {
				r.expandText(names[0], t, body)
			}
			return
		}
		unknown(right)
		return
	}
	for _, it := range children(items) {
		vals := map[string]*sitter.Node{}
		if left.Kind() == "identifier" {
			v, ok := r.literalValue(it)
			if !ok {
				unknown(it)
				continue
			}
			vals[names[0]] = v
		} else {
			tup := unparen(it)
			if tup.Kind() != "tuple" && tup.Kind() != "list" || len(children(tup)) != len(names) {
				unknown(it)
				continue
			}
			ok := true
			for i, c := range children(tup) {
				v, isLit := r.literalValue(c)
				if !isLit {
					unknown(c)
					ok = false
					break
				}
				vals[names[i]] = v
			}
			if !ok {
				continue
			}
		}
		r.expand(vals, body)
	}
}

// factoryCall expands a call of a factory function with its parameters
// bound to the call's literal arguments (or their defaults); an argument
// computed at run time is an Unknown at it.
func (r *reader) factoryCall(def, call *sitter.Node, args []*sitter.Node, kw map[string]*sitter.Node) {
	params := def.ChildByFieldName("parameters")
	body := def.ChildByFieldName("body")
	if params == nil || body == nil {
		return
	}
	vals := map[string]*sitter.Node{}
	i := 0
	for _, p := range children(params) {
		var name string
		var dflt *sitter.Node
		switch p.Kind() {
		case "identifier":
			name = r.srcOf(p)
		case "default_parameter", "typed_default_parameter":
			if n := p.ChildByFieldName("name"); n != nil {
				name = r.srcOf(n)
			}
			dflt = p.ChildByFieldName("value")
		case "typed_parameter":
			if c := children(p); len(c) > 0 && c[0].Kind() == "identifier" {
				name = r.srcOf(c[0])
			}
		default:
			continue // *args, **kw, / and *: not bound
		}
		if name == "" {
			continue
		}
		a := kw[name]
		if a == nil && i < len(args) {
			a = args[i]
		}
		i++
		if a == nil {
			a = dflt
		}
		if a == nil {
			continue
		}
		v, ok := r.literalValue(a)
		if !ok {
			r.unknown = append(r.unknown, Unknown{What: UnknownLoop, Call: r.srcOf(def.ChildByFieldName("name")) + "(...)", Loc: span(a)})
			return
		}
		vals[name] = v
	}
	r.expand(vals, body)
}

// topCall reads a module-level API call: create_streaming_table (and its
// legacy names create_target_table, create_streaming_live_table),
// create_sink, create_auto_cdc_flow, apply_changes.
func (r *reader) topCall(e, st *sitter.Node) {
	fn, args, kw, _, ok := r.call(e)
	if !ok {
		return
	}
	alias, attr, ok := r.apiOf(fn)
	if !ok {
		return
	}
	d := Definition{API: alias, Loc: span(st)}
	nameArg := arg(args, kw, 0, "name")
	switch attr {
	case "create_streaming_table", "create_target_table", "create_streaming_live_table":
		d.Kind = ir.StreamingTable
	case "create_sink":
		d.Kind = ir.Sink
		if v, ok := r.literal(arg(args, kw, 1, "format")); ok {
			d.Format = v.Value
		}
	case "create_auto_cdc_flow", "apply_changes", "create_auto_cdc_from_snapshot_flow", "apply_changes_from_snapshot":
		r.cdcFlow(&d, attr, args, kw)
		return
	default:
		return
	}
	if v, ok := r.literal(kw["comment"]); ok {
		d.Comment = v.Value
	}
	r.settings(&d, kw)
	if !r.named(&d, nameArg, attr) {
		return
	}
	r.defs = append(r.defs, d)
}

// named sets d's name from the literal n; a computed name is an Unknown.
func (r *reader) named(d *Definition, n *sitter.Node, call string) bool {
	if n == nil {
		return false
	}
	v, ok := r.literal(n)
	if !ok {
		r.unknown = append(r.unknown, Unknown{What: UnknownName, Call: call, Loc: span(n)})
		return false
	}
	d.Name, d.NameLoc = v.Value, inner(&v)
	return true
}

// cdcFlow reads create_auto_cdc_flow(target=, source=, keys=,
// sequence_by=, stored_as_scd_type=, ...) and its Databricks spelling
// apply_changes: a flow from the source's change feed into the target.
func (r *reader) cdcFlow(d *Definition, attr string, args []*sitter.Node, kw map[string]*sitter.Node) {
	target := arg(args, kw, 0, "target")
	if target == nil {
		return
	}
	tv, ok := r.literal(target)
	if !ok {
		r.unknown = append(r.unknown, Unknown{What: UnknownName, Call: attr + " target=", Loc: span(target)})
		return
	}
	d.Target, d.TargetLoc = tv.Value, inner(&tv)
	d.Name, d.NameLoc = tv.Value, d.TargetLoc
	if v, ok := r.literal(kw["name"]); ok {
		d.Name, d.NameLoc = v.Value, inner(&v)
	}
	c := &CDC{SCD: 1}
	d.CDC = c
	snapshot := strings.Contains(attr, "snapshot")
	if src := arg(args, kw, 1, "source"); src != nil {
		if v, ok := r.literal(src); ok && !snapshot {
			d.Reads = append(d.Reads, Read{Name: v.Value, Streaming: true, Loc: v.Loc, Inner: inner(&v), Call: attr + " source="})
		} else if !ok {
			d.Unknown = append(d.Unknown, Unknown{What: UnknownTable, Call: attr + " source=", Loc: span(src)})
		}
	}
	c.Keys = r.names(arg(args, kw, 2, "keys"))
	if v, ok := r.column(arg(args, kw, 3, "sequence_by")); ok {
		c.SequenceBy = v
	}
	if n := kw["stored_as_scd_type"]; n != nil {
		switch strings.Trim(r.srcOf(n), `'"`) {
		case "2":
			c.SCD = 2
		}
	}
	if n := kw["apply_as_deletes"]; n != nil {
		if v, ok := r.sqlExpr(n); ok {
			c.Deletes = v
		} else {
			c.Unapplied = append(c.Unapplied, Arg{Name: "apply_as_deletes", Loc: span(n)})
		}
	}
	if n := kw["column_list"]; n != nil {
		c.Columns = r.names(n)
	}
	if n := kw["except_column_list"]; n != nil {
		c.Columns, c.ColumnsExcept = r.names(n), true
	}
	if n := kw["ignore_null_updates"]; n != nil {
		switch r.srcOf(n) {
		case "True":
			c.IgnoreNullUpdates = true
		case "False":
		default:
			c.Unapplied = append(c.Unapplied, Arg{Name: "ignore_null_updates", Loc: span(n)})
		}
	}
	if n := kw["apply_as_truncates"]; n != nil {
		if v, ok := r.sqlExpr(n); ok {
			c.TruncateWhen = v
		} else {
			c.Unapplied = append(c.Unapplied, Arg{Name: "apply_as_truncates", Loc: span(n)})
		}
	}
	if c.SCD == 2 {
		// Native SCD 2 keeps a change's NULLs, and Databricks takes
		// truncates for SCD 1 only.
		for _, k := range []string{"ignore_null_updates", "apply_as_truncates"} {
			if n := kw[k]; n != nil && (k != "ignore_null_updates" || c.IgnoreNullUpdates) && !slices.ContainsFunc(c.Unapplied, func(a Arg) bool { return a.Name == k }) {
				c.Unapplied = append(c.Unapplied, Arg{Name: k, Loc: span(n), SCD1: true})
			}
		}
	}
	for _, k := range []string{"track_history_column_list", "track_history_except_column_list"} {
		n := kw[k]
		if n == nil {
			continue
		}
		if names := r.names(n); len(names) > 0 {
			c.TrackHistory, c.TrackHistoryExcept = names, k == "track_history_except_column_list"
		} else {
			c.Unapplied = append(c.Unapplied, Arg{Name: k, Loc: span(n)})
		}
	}
	if snapshot {
		d.Opaque = "a snapshot CDC flow reads a snapshot function, which Thund does not run"
		d.CDC = nil
	} else if len(d.Reads) == 1 && c.SequenceBy != "" && len(c.Keys) > 0 {
		d.Query = &Query{SQL: "SELECT * FROM STREAM(" + quoteTable(d.Reads[0].Name) + ")", Loc: d.Loc}
	}
	r.defs = append(r.defs, *d)
}

// names reads a list of column names: ["a", "b"] or [col("a")].
func (r *reader) names(n *sitter.Node) []string {
	n = unparen(n)
	if n == nil || (n.Kind() != "list" && n.Kind() != "tuple") {
		if v, ok := r.column(n); ok {
			return []string{v}
		}
		return nil
	}
	var out []string
	for _, c := range children(n) {
		if v, ok := r.column(c); ok {
			out = append(out, v)
		}
	}
	return out
}

// column reads a column name: "a", col("a"), F.col("a").
func (r *reader) column(n *sitter.Node) (string, bool) {
	if v, ok := r.literal(n); ok {
		return v.Value, true
	}
	if fn, args, _, _, ok := r.call(n); ok && len(args) == 1 {
		if name := r.dotted(fn); name == "col" || strings.HasSuffix(name, ".col") || name == "column" || strings.HasSuffix(name, ".column") {
			if v, ok := r.literal(args[0]); ok {
				return v.Value, true
			}
		}
	}
	return "", false
}

// sqlExpr reads a SQL expression: "a = 1" or expr("a = 1").
func (r *reader) sqlExpr(n *sitter.Node) (string, bool) {
	if v, ok := r.literal(n); ok {
		return v.Value, true
	}
	if fn, args, _, _, ok := r.call(n); ok && len(args) == 1 {
		if name := r.dotted(fn); name == "expr" || strings.HasSuffix(name, ".expr") {
			if v, ok := r.literal(args[0]); ok {
				return v.Value, true
			}
		}
	}
	return "", false
}

// function reads a decorated dataset or flow function.
func (r *reader) function(st, fn *sitter.Node) {
	var def *Definition
	var exps []Expectation
	r.unknownExp = nil
	for _, dec := range children(st) {
		if dec.Kind() != "decorator" {
			continue
		}
		exprs := children(dec)
		if len(exprs) == 0 {
			continue
		}
		e := exprs[0]
		callee, args, kw, _, isCall := r.call(e)
		if !isCall {
			callee = e
		}
		alias, attr, ok := r.apiOf(callee)
		if !ok {
			continue
		}
		if action, ok := expectActions[attr]; ok {
			exps = append(exps, r.expectations(dec, attr, action, args, kw)...)
			continue
		}
		kind, known := decoratorKinds[attr]
		if !known || def != nil {
			continue
		}
		if kind == ir.View && r.aliases[alias] != modDLT {
			continue // SDP has temporary_view, not view
		}
		nameNode := fn.ChildByFieldName("name")
		d := Definition{Name: r.srcOf(nameNode), Kind: kind, API: alias, Loc: span(st), NameLoc: span(nameNode), Decorator: span(dec)}
		if isCall {
			if n := kw["name"]; n != nil {
				if !r.named(&d, n, "name=") {
					continue
				}
			}
			if v, ok := r.literal(kw["comment"]); ok {
				d.Comment = v.Value
			}
			r.settings(&d, kw)
			if n := kw["target"]; n != nil {
				if v, ok := r.literal(n); ok {
					d.Target, d.TargetLoc = v.Value, inner(&v)
				} else {
					r.unknown = append(r.unknown, Unknown{What: UnknownName, Call: "target=", Loc: span(n)})
				}
			}
		}
		if kind == "" && d.Target == "" {
			continue // an append flow without a literal target
		}
		def = &d
	}
	if def == nil {
		return
	}
	def.Expectations = exps
	def.UnknownExpectations = r.unknownExp
	if body := fn.ChildByFieldName("body"); body != nil {
		r.locals = r.assignedNames(body)
		r.body(def, body)
		def.Query, def.Opaque = r.query(def, body)
		def.NeedsColumns = def.Query == nil && r.needCols
		if def.Query == nil {
			def.OpaqueLoc = r.opaqueAt
		}
		r.locals = nil
	}
	// @dp.table / @dlt.table returning a stream defines a streaming table
	// (pyspark registers every @table as one; Databricks makes a table
	// over a stream one): its flow appends what each trigger reads.
	if def.Kind == ir.Table {
		for _, rd := range def.Reads {
			if rd.Streaming {
				def.Kind = ir.StreamingTable
			}
		}
	}
	r.defs = append(r.defs, *def)
}

// methodOf is the method name fn calls (x.load: load), "" when fn is
// no attribute.
func (r *reader) methodOf(fn *sitter.Node) string {
	fn = unparen(fn)
	if fn == nil || fn.Kind() != "attribute" {
		return ""
	}
	if a := fn.ChildByFieldName("attribute"); a != nil {
		return r.srcOf(a)
	}
	return ""
}

// expectations reads @expect("name", "cond") and @expect_all({...}).
func (r *reader) expectations(dec *sitter.Node, attr, action string, args []*sitter.Node, kw map[string]*sitter.Node) []Expectation {
	if strings.HasPrefix(attr, "expect_all") {
		a := arg(args, kw, 0, "expectations")
		d := r.ruleDict(a)
		if d == nil {
			if v, ok := r.helperValue(a); ok && v.Kind == "dict" && allText(v.Vals) {
				var out []Expectation
				for i, k := range v.Keys {
					out = append(out, Expectation{Name: k, Action: action, Loc: span(dec), Cond: atNode(v.Vals[i].Str, a)})
				}
				return out
			}
			if a != nil {
				from := a
				if c := unparen(r.constant(a)); c != nil && c.Kind() == "call" {
					from = c
				}
				r.unknownExp = append(r.unknownExp, UnknownExpectations{Decorator: attr, Action: action, From: clip(r.srcOf(from)), Loc: span(a)})
			}
			return nil
		}
		var out []Expectation
		for _, p := range children(d) {
			if p.Kind() != "pair" {
				continue
			}
			k, okK := r.literal(p.ChildByFieldName("key"))
			v, okV := r.literal(p.ChildByFieldName("value"))
			if okK && okV {
				out = append(out, Expectation{Name: k.Value, Action: action, Loc: span(dec), Cond: v})
				continue
			}
			// A rule of the dict computed at run time: said at the
			// decorator, not dropped.
			r.unknownExp = append(r.unknownExp, UnknownExpectations{Decorator: attr, Action: action, From: clip(r.srcOf(p)), Loc: span(dec), Single: true})
		}
		return out
	}
	k, okK := r.literal(arg(args, kw, 0, "description"))
	c := arg(args, kw, 1, "constraint")
	v, okV := r.literal(c)
	if !okK || !okV {
		// Said, not dropped: the rule holds on the platform, and the
		// native run would pass rows it does not check.
		from := c
		if !okK || from == nil {
			from = arg(args, kw, 0, "description")
		}
		if from == nil {
			from = dec
		}
		r.unknownExp = append(r.unknownExp, UnknownExpectations{Decorator: attr, Action: action, From: clip(r.srcOf(from)), Loc: span(dec), Single: true})
		return nil
	}
	return []Expectation{{Name: k.Value, Action: action, Loc: span(dec), Cond: v}}
}

// body collects the reads in a function body, in source order, and the
// spark.sql calls whose text is computed.
func (r *reader) body(d *Definition, body *sitter.Node) {
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if n.Kind() == "call" {
			r.callRead(d, n)
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i))
		}
	}
	walk(body)
	sort.SliceStable(d.Reads, func(i, j int) bool { return d.Reads[i].Loc.Start < d.Reads[j].Loc.Start })
}

// callRead records the read (or the spark.sql tables) of one call.
func (r *reader) callRead(d *Definition, n *sitter.Node) {
	fn, args, kw, _, _ := r.call(n)
	if r.dotted(fn) == "spark.sql" {
		a := arg(args, kw, 0, "sqlQuery")
		if a == nil {
			return
		}
		if _, computed, ok := r.literalNode(r.constant(a)); !ok {
			what := "the query text is not a string literal"
			if computed {
				what = "an f-string with placeholders"
			}
			_ = what
			d.Unknown = append(d.Unknown, Unknown{What: UnknownSQL, Call: "spark.sql", Loc: span(a)})
		}
		return
	}
	if ld, isLoad := r.loadChain(n); isLoad && ld.path == nil && ld.root == "spark.readStream" && r.methodOf(fn) == "load" {
		// A stream read without a path (Kafka, a connector): the flow
		// streams. Its source is no Read: analysis would refuse a
		// source without a sample even where the dataset has its own
		// stand-in sample, or the platform reads the topic itself.
		d.Streams = true
		return
	} else if isLoad && ld.path != nil {
		switch {
		case ld.path.Loc != (Span{}) && sqlfront.FileSourceName(ld.path.Value) != "":
			name := sqlfront.FileSourceName(ld.path.Value)
			if strings.EqualFold(name, lastPart(d.Owner())) {
				name += "_files" // as SQL's read_files: the dataset does not read itself
			}
			d.Reads = append(d.Reads, Read{Name: name, Path: ld.path.Value, Streaming: ld.root == "spark.readStream",
				Loc: ld.path.Loc, Inner: inner(ld.path), Call: ld.root + " load"})
		case ld.path.Loc == (Span{}):
			d.Unknown = append(d.Unknown, Unknown{What: UnknownTable, Call: ld.root + " load", Loc: ld.pathLoc})
			d.Streams = d.Streams || ld.root == "spark.readStream"
		}
		return
	}
	method, streaming, ok := r.readCall(fn)
	if !ok {
		method, streaming, ok = r.optionedTableRead(fn)
	}
	if !ok {
		return
	}
	a := arg(args, kw, 0, "name")
	if a == nil {
		a = kw["tableName"]
	}
	if a == nil {
		return
	}
	if v, ok := r.literal(a); ok {
		rd := Read{Name: v.Value, Streaming: streaming, Loc: v.Loc, Inner: inner(&v), Call: method}
		if name, live := liveName(v.Value); live {
			// LIVE.x: Databricks' legacy schema of the pipeline's own
			// datasets, the dataset x (as SQL's LIVE.x is read).
			rd.Name, rd.Live = name, true
			if v.Contiguous() {
				rd.Inner.Start += len(v.Value) - len(name)
			}
		}
		d.Reads = append(d.Reads, rd)
	} else {
		d.Unknown = append(d.Unknown, Unknown{What: UnknownTable, Call: method, Loc: span(a)})
	}
}

// readCall recognises a table read: spark.read.table, spark.readStream.table,
// spark.table, and read / read_stream of a pipelines module alias.
func (r *reader) readCall(f *sitter.Node) (method string, streaming, ok bool) {
	if alias, attr, isAPI := r.apiOf(f); isAPI && (attr == "read" || attr == "read_stream") {
		return alias + "." + attr, attr == "read_stream", true
	}
	switch m := r.dotted(f); m {
	case "spark.read.table", "spark.table":
		return m, false, true
	case "spark.readStream.table":
		return m, true, true
	}
	return "", false, false
}

// optionedTableRead recognises the table method of a reader given options
// first, spark.readStream.option("readChangeFeed", "true").table(name)
// (format, option, options or schema calls before .table): a read of the
// table for the graph. The native run does not state it in SQL (the
// options may change what the read gives), so its frame stays opaque.
func (r *reader) optionedTableRead(f *sitter.Node) (method string, streaming, ok bool) {
	f = unparen(f)
	if f == nil || f.Kind() != "attribute" || r.srcOf(f.ChildByFieldName("attribute")) != "table" {
		return "", false, false
	}
	obj := f.ChildByFieldName("object")
	if _, _, _, _, isCall := r.call(unparen(obj)); !isCall {
		return "", false, false // spark.read.table itself: readCall's
	}
	ld, isChain := r.loadChain(obj)
	if !isChain || ld.path != nil {
		return "", false, false
	}
	return ld.root + ".table", ld.root == "spark.readStream", true
}

// literal returns a plain string literal (implicit concatenation
// included; an f-string without placeholders counts), or the text a
// helper module binds the name to (helper.go), its bytes mapped to the
// name.
func (r *reader) literal(n *sitter.Node) (Literal, bool) {
	if u := unparen(r.constant(n)); u != nil && u.Kind() == "identifier" {
		if t, bound := r.bindText[r.srcOf(u)]; bound {
			return atNode(t, u), true
		}
	}
	v, _, ok := r.literalNode(r.constant(n))
	if !ok && n != nil {
		if h, isHelper := r.helperValue(n); isHelper && h.Kind == "str" {
			return atNode(h.Str, unparen(n)), true
		}
	}
	return v, ok
}

// atNode is a text whose every byte maps to node n (a value read through
// a name).
func atNode(text string, n *sitter.Node) Literal {
	lit := Literal{Value: text, Loc: span(n)}
	for range len(text) {
		lit.Offsets = append(lit.Offsets, int(n.StartByte()))
	}
	lit.Offsets = append(lit.Offsets, int(n.EndByte()))
	return lit
}

// allText reports whether every value is a text.
func allText(vs []Value) bool {
	for _, v := range vs {
		if v.Kind != "str" {
			return false
		}
	}
	return true
}

// inner is the literal's value range when written as it is, else the
// whole literal.
func inner(l *Literal) Span {
	if l.Contiguous() {
		return Span{l.Offsets[0], l.Offsets[len(l.Offsets)-1]}
	}
	return l.Loc
}

// settings reads a definition's table settings: partition_cols=,
// cluster_by=, table_properties=, spark_conf=, schema= and format=
// (tables only). A value Thund cannot read as a literal is an Unknown.
func (r *reader) settings(d *Definition, kw map[string]*sitter.Node) {
	computed := func(key string, n *sitter.Node) {
		r.unknown = append(r.unknown, Unknown{What: UnknownSetting, Call: key + "=", Loc: span(n)})
	}
	for _, key := range []string{"partition_cols", "cluster_by"} {
		n := kw[key]
		if n == nil || r.srcOf(n) == "None" {
			continue
		}
		c := unparen(r.constant(n))
		var names []string
		ok := c.Kind() == "list" || c.Kind() == "tuple"
		if ok {
			for _, e := range children(c) {
				v, isLit := r.literal(e)
				if !isLit {
					ok = false
					break
				}
				names = append(names, v.Value)
			}
		}
		if !ok {
			computed(key, n)
			continue
		}
		if key == "partition_cols" {
			d.PartitionCols = names
		} else {
			d.ClusterBy = names
		}
	}
	for _, key := range []string{"table_properties", "spark_conf"} {
		n := kw[key]
		if n == nil || r.srcOf(n) == "None" {
			continue
		}
		m, ok := r.stringDict(n)
		if !ok {
			computed(key, n)
			continue
		}
		if key == "table_properties" {
			d.Properties = m
		} else {
			d.Conf = m
		}
	}
	if n := kw["schema"]; n != nil && r.srcOf(n) != "None" {
		if v, ok := r.literal(n); ok {
			d.Schema, d.SchemaLoc = v.Value, inner(&v)
		} else {
			computed("schema", n)
		}
	}
	if n := kw["format"]; n != nil && d.Kind != ir.Sink {
		if v, ok := r.literal(n); ok {
			d.Format = v.Value
		} else {
			computed("format", n)
		}
	}
	if n := kw["cluster_by_auto"]; n != nil {
		// Databricks' automatic liquid clustering, SQL's CLUSTER BY AUTO:
		// the whole keyword argument is the construct, whatever its
		// value (pyspark's decorators refuse the keyword itself).
		d.ClusterByAuto = span(n)
		if p := n.Parent(); p != nil && p.Kind() == "keyword_argument" {
			d.ClusterByAuto = span(p)
		}
	}
}

// stringDict reads a dict literal of string keys to string values.
func (r *reader) stringDict(n *sitter.Node) (map[string]string, bool) {
	c := unparen(r.constant(n))
	if c == nil || c.Kind() != "dictionary" {
		return nil, false
	}
	m := map[string]string{}
	for _, p := range children(c) {
		if p.Kind() != "pair" {
			return nil, false
		}
		k, ok := r.literal(p.ChildByFieldName("key"))
		if !ok {
			return nil, false
		}
		v, ok := r.literal(p.ChildByFieldName("value"))
		if !ok {
			return nil, false // SDP takes a dict of str to str
		}
		m[k.Value] = v.Value
	}
	return m, true
}

// ruleDict is the dict literal an @expect_all* decorator's argument
// stands for: the literal, a module constant bound to one, or a call of a
// function of the file whose body returns one (def rules(): return
// {...}, a docstring and comments aside); nil when it is none of these.
func (r *reader) ruleDict(a *sitter.Node) *sitter.Node {
	d := unparen(r.constant(a))
	if d == nil {
		return nil
	}
	if d.Kind() == "call" {
		fn, args, kw, _, _ := r.call(d)
		fn = unparen(fn)
		if fn == nil || fn.Kind() != "identifier" || len(args) > 0 || len(kw) > 0 {
			return nil
		}
		def := r.funcs[r.srcOf(fn)]
		if def == nil {
			return nil
		}
		body := def.ChildByFieldName("body")
		if body == nil {
			return nil
		}
		stmts := children(body)
		for i, st := range stmts {
			if i == 0 && st.Kind() == "expression_statement" && len(children(st)) == 1 && children(st)[0].Kind() == "string" {
				continue // the docstring
			}
			if st.Kind() != "return_statement" || i != len(stmts)-1 || len(children(st)) != 1 {
				return nil
			}
			d = unparen(r.constant(children(st)[0]))
		}
	}
	if d == nil || d.Kind() != "dictionary" {
		return nil
	}
	return d
}

// liveName is name without Databricks' legacy LIVE. qualifier, and
// whether it had one (LIVE.x; not a longer name, whose first part is a
// catalog).
func liveName(name string) (string, bool) {
	if len(name) > 5 && strings.EqualFold(name[:5], "LIVE.") && strings.Count(name, ".") == 1 {
		return name[5:], true
	}
	return name, false
}
