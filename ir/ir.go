// Package ir holds Thund's pipeline intermediate representation: datasets,
// the flows that fill them, expectations, sources, triggers and CDC specs,
// plus the diagnostics analysis attaches to them. It performs no I/O and
// imports nothing else of Thund's, so every layer (analysis, engine, Spark
// lowering, LSP) can share it.
package ir

import (
	"sort"
	"strings"
	"sync"
)

// Loc is a range of a source file, as byte offsets into its text (Start
// inclusive, End exclusive). Converting to lines and columns is the job of
// package textpos, which knows the file's text.
type Loc struct {
	File  string `json:"file"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// IsZero reports whether l carries no location.
func (l Loc) IsZero() bool { return l.File == "" && l.Start == 0 && l.End == 0 }

// Kind is the kind of a dataset.
type Kind string

// Dataset kinds, spelled as in the `@kind` pragma.
const (
	MaterializedView Kind = "materialized_view"
	Table            Kind = "table"
	StreamingTable   Kind = "streaming_table"
	View             Kind = "view"
	TemporaryView    Kind = "temporary_view"
	Sink             Kind = "sink"
)

// Kinds lists every dataset kind, in documentation order.
var Kinds = []Kind{MaterializedView, Table, StreamingTable, View, TemporaryView, Sink}

// Materialized reports whether datasets of kind k store rows (as opposed to
// views, which are queries evaluated on read).
func (k Kind) Materialized() bool {
	return k == MaterializedView || k == Table || k == StreamingTable || k == Sink
}

// Pipeline is one analysed pipeline: its settings, datasets, flows and the
// source tables its flows read that no dataset defines.
type Pipeline struct {
	// Name is the spec's name, or the root folder's name without a spec.
	Name string
	// Root is the pipeline root folder (absolute). It is informational; ir
	// never reads it.
	Root          string
	Catalog       string
	Database      string
	Storage       string
	Configuration map[string]string
	// Backends lists the backends diagnostics check (thund.yaml).
	Backends []Backend
	Datasets []*Dataset
	Flows    []*Flow
	// Sources are the leaves of the graph: tables read by flows that no
	// dataset defines, with their sample binding if any.
	Sources []*Source

	// The name index and the graph are built on first use; a pipeline must
	// not change after it is first queried.
	indexOnce sync.Once
	// ids numbers the first definition of each dataset key, in declaration
	// order; nodes[i] is that definition.
	ids   map[string]int32
	nodes []*Dataset
	// targetFlows holds the flows into each node, contiguously and in
	// declaration order: node i's are targetFlows[flowStart[i]:flowStart[i+1]].
	targetFlows []*Flow
	flowStart   []int32
	// ownQualified maps the last name part of each dataset defined with
	// the pipeline's own qualifiers (sales.q, database sales) to its node.
	ownQualified map[string]int32
	// anyCatalog maps schema.name of each dataset defined with three
	// parts to its node (-1 when two catalogs define it), for a pipeline
	// whose spec names no catalog: its current catalog is the platform's
	// (Databricks' is set in the workspace), so silver.x may be the
	// dev.silver.x the pipeline defines.
	anyCatalog map[string]int32
	// nodeDef is the index in Datasets of each node's definition, dsNode
	// the node of each dataset (a repeated name shares its first's).
	nodeDef, dsNode []int32
	// flowTarget is the node each flow writes (-1: no dataset of that
	// name); flow i's reads resolve to readFrom[readStart[i]:readStart[i+1]]
	// (-1: no dataset). flowFirst is the index of the first flow with
	// each flow's name key.
	flowTarget, readStart, readFrom, flowFirst []int32
	// flowResolved is the node Resolve finds for each flow's target.
	flowResolved []int32
	// follow is what Follow was told, until index has used it; carry is
	// what the graph needs of it after.
	follow    followed
	carry     carried
	graphOnce sync.Once
	graph     *Graph
}

// index numbers the datasets, resolves every flow's target and reads to
// node numbers, and groups the flows by target, with one map and flat
// arrays: analysis rebuilds a pipeline on every edit, so this is on the
// path from a keystroke to its diagnostics. A pipeline that Follows
// another with the same dataset names shares its name index and copies
// the resolutions of the flows the two have in common (carry.go).
func (p *Pipeline) index() {
	p.indexOnce.Do(func() {
		prev := p.follow.prev
		shared := prev != nil && p.sameNames(prev)
		if shared {
			p.ids, p.ownQualified, p.nodeDef, p.dsNode, p.anyCatalog = prev.ids, prev.ownQualified, prev.nodeDef, prev.dsNode, prev.anyCatalog
			p.nodes = make([]*Dataset, len(p.nodeDef))
			for i, di := range p.nodeDef {
				p.nodes[i] = p.Datasets[di]
			}
		} else {
			p.indexNames()
		}
		p.resolveFlows(prev, shared)
		p.flowStart = make([]int32, len(p.nodes)+1)
		for _, t := range p.flowTarget {
			if t >= 0 {
				p.flowStart[t+1]++
			}
		}
		for i := 1; i < len(p.flowStart); i++ {
			p.flowStart[i] += p.flowStart[i-1]
		}
		p.targetFlows = make([]*Flow, p.flowStart[len(p.nodes)])
		next := append([]int32(nil), p.flowStart[:len(p.nodes)]...)
		for i, f := range p.Flows {
			if t := p.flowTarget[i]; t >= 0 {
				p.targetFlows[next[t]] = f
				next[t]++
			}
		}
		// The previous pipeline is not kept: a chain of snapshots must
		// not hold every pipeline before it.
		p.follow = followed{}
	})
}

// indexNames numbers the datasets by name key, from scratch.
func (p *Pipeline) indexNames() {
	p.ids = make(map[string]int32, len(p.Datasets))
	p.nodes = make([]*Dataset, 0, len(p.Datasets))
	p.nodeDef = make([]int32, 0, len(p.Datasets))
	p.dsNode = make([]int32, len(p.Datasets))
	for di, d := range p.Datasets {
		k := NameKey(d.Name)
		n, dup := p.ids[k]
		if !dup {
			n = int32(len(p.nodes))
			p.ids[k] = n
			p.nodes = append(p.nodes, d)
			p.nodeDef = append(p.nodeDef, int32(di))
		}
		p.dsNode[di] = n
	}
	for i, d := range p.nodes {
		if p.Catalog == "" {
			if k := NameKey(d.Name); strings.Count(k, ".") == 2 {
				_, sn, _ := strings.Cut(k, ".")
				if p.anyCatalog == nil {
					p.anyCatalog = map[string]int32{}
				}
				if _, two := p.anyCatalog[sn]; two {
					p.anyCatalog[sn] = -1
				} else {
					p.anyCatalog[sn] = int32(i)
				}
			}
		}
		if j := strings.LastIndexByte(d.Name, '.'); j >= 0 && p.ownQualifiers(d.Name[:j]) {
			if p.ownQualified == nil {
				p.ownQualified = map[string]int32{}
			}
			if _, taken := p.ownQualified[NameKey(d.Name[j+1:])]; !taken {
				p.ownQualified[NameKey(d.Name[j+1:])] = int32(i)
			}
		}
	}
}

// node returns the node number of dataset key k.
func (p *Pipeline) node(k string) (int32, bool) {
	p.index()
	i, ok := p.ids[k]
	return i, ok
}

// Dataset is a named output of the pipeline.
type Dataset struct {
	Name    string
	Kind    Kind
	Comment string
	// Unfinished is set when the dataset's own statement has a syntax
	// error after its name: what it lacks (a query, a flow) is not
	// known, so only the syntax error is reported for it.
	Unfinished bool
	// PartitionBy and ClusterBy are the table layout columns.
	PartitionBy []string
	ClusterBy   []string
	// Format is the table format on Spark (parquet, delta, ...).
	Format     string
	Properties map[string]string
	// Backends, when set, restricts where the dataset is meant to run.
	Backends []Backend
	// Loc spans the defining statement (or the whole pragma-form file).
	Loc Loc
	// NameLoc is the name in a CREATE statement, or the `@name` value, or
	// the start of the file for a name taken from the file stem.
	NameLoc Loc
	// FromStem is true when the name comes from the file's stem, so a
	// rename also renames the file.
	FromStem bool
	// KindLoc is the `@kind` pragma value or the CREATE keyword run.
	KindLoc Loc
	// Syntax lists the constructs of the defining statement that only
	// some backends read (CREATE OR REFRESH, LIVE, PRIVATE...), for the
	// capability matrix.
	Syntax []Construct
	// Declared is the statement's column list (CREATE MATERIALIZED VIEW
	// t (id INT NOT NULL, ...)): the dataset's declared schema, in order.
	Declared []DeclaredColumn
	// Expectations are the CONSTRAINT ... EXPECT clauses of a dataset
	// declared without a query (CREATE STREAMING TABLE t (CONSTRAINT c
	// EXPECT (...)), the target of APPLY CHANGES / AUTO CDC or of CREATE
	// FLOW statements): they hold for the rows of every flow into it, as
	// Databricks applies them. A dataset defined by its own query keeps
	// its expectations on that flow (Flow.Expectations) instead.
	Expectations []Expectation
	// PartitionLocs and ClusterLocs are the ranges of the PartitionBy and
	// ClusterBy names as written, one per name (nil when unknown, as for
	// a pragma).
	PartitionLocs, ClusterLocs []Loc
}

// DeclaredColumn is one column of a dataset's declared schema.
type DeclaredColumn struct {
	Name string
	// Type is Spark's name of the type ("bigint", "decimal(10,2)"), ""
	// when not compared; TypeText is the type as written.
	Type, TypeText string
	NotNull        bool
	// Generated is set for a column the table computes itself
	// (GENERATED ALWAYS AS (expr) or AS IDENTITY): no query gives it.
	// Identity is set for an identity column.
	Generated, Identity bool
	Comment             string
	// Loc is the column's definition, NameLoc its name, TypeLoc its type.
	Loc, NameLoc, TypeLoc Loc
}

// Construct is one use of SQL syntax that only some backends read: a
// Databricks pipeline statement or clause, or Spark 4.3's AUTO CDC.
type Construct struct {
	// Name is the construct as the capability matrix knows it, e.g.
	// "CREATE OR REFRESH" or "LIVE.x references" (package capab's
	// syntax features).
	Name string
	Loc  Loc
}

// Ref is one table reference in a query.
type Ref struct {
	// Name is the referenced table, as written but unquoted; a qualified
	// name keeps its dots (db.t).
	Name string
	// Streaming marks a STREAM(x) / STREAM x read.
	Streaming bool
	Loc       Loc
	// Path is set for a read of files by path (read_files(path, ...),
	// cloud_files(path, ...)): the path as written; Name is then the
	// source it stands for, the path's last segment.
	Path string
	// Kind is set for a read of a source that is no table: Files for a
	// read of files by path (Path is then set), Kafka for a read of a
	// Kafka topic (read_kafka(...), spark.readStream.format("kafka")),
	// whose Name is the source the topic stands for. Empty for a read of
	// a table or dataset by name.
	Kind SourceKind
	// Format is the reader's format as the read gives it, lower case
	// (json, csv, kafka...; "" when not given).
	Format string
	// Options are the reader options the read gives as literals, by name
	// as written (subscribe, bootstrapServers, header...); nil when none.
	Options map[string]string
}

// Option returns the value of the reader option key (its name in any
// case), and whether the read gives it.
func (r Ref) Option(key string) (string, bool) {
	for k, v := range r.Options {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return "", false
}

// Action is what an expectation does with a violating row.
type Action string

// Expectation actions.
const (
	Warn Action = "warn"
	Drop Action = "drop"
	Fail Action = "fail"
)

// Expectation is a data-quality rule on a flow's output rows.
type Expectation struct {
	Name   string
	SQL    string
	Action Action
	Loc    Loc
	// SQLLoc is the range of the boolean expression.
	SQLLoc Loc
	// InSQL is set for an expectation written in the statement itself
	// (CONSTRAINT name EXPECT (cond) [ON VIOLATION ...]) rather than as
	// an `@expect` pragma.
	InSQL bool
}

// TriggerKind is a streaming trigger.
type TriggerKind string

// Streaming triggers.
const (
	AvailableNow   TriggerKind = "available_now"
	ProcessingTime TriggerKind = "processing_time"
	Continuous     TriggerKind = "continuous"
	Once           TriggerKind = "once"
)

// Trigger is a streaming trigger with its interval (processing_time only).
type Trigger struct {
	Kind     TriggerKind
	Interval string
	Loc      Loc
}

// OutputMode is a streaming output mode.
type OutputMode string

// Output modes.
const (
	Append   OutputMode = "append"
	Update   OutputMode = "update"
	Complete OutputMode = "complete"
)

// Watermark bounds event-time lateness.
type Watermark struct {
	Column string
	Delay  string
	Loc    Loc
	// InSQL is set when the watermark is the query's own WATERMARK col
	// DELAY OF INTERVAL ... clause, which Spark runs as written (rather
	// than an @watermark pragma that must be lowered).
	InSQL bool
}

// CDC describes an apply-changes flow.
type CDC struct {
	Keys       []string
	SequenceBy string
	// SequenceLoc is SEQUENCE BY's expression in the file (zero when the
	// form has none to point at, the `@cdc` pragma's), so a diagnostic on
	// the ordering (ties, a type the engine cannot order) lands on it.
	SequenceLoc Loc
	// SCD is 1 or 2.
	SCD int
	// Deletes is an optional SQL predicate marking deletes, beside
	// _change_type = 'DELETE'.
	Deletes string
	Loc     Loc
	// Columns are the changelog columns the target keeps (COLUMNS (a, b)
	// of APPLY CHANGES / AUTO CDC); with ColumnsExcept, the ones it
	// leaves out (COLUMNS * EXCEPT (a, b)). Empty: every column but
	// _change_type.
	Columns       []string
	ColumnsExcept bool
	// StartAt and EndAt name the SCD 2 validity columns; empty means
	// __start_at and __end_at (the `@cdc` pragma's). The SQL forms use
	// Spark's and Databricks' __START_AT and __END_AT.
	StartAt, EndAt string
	// SparkText is set when Deletes and TruncateWhen hold the predicates
	// as Spark reads them (Python's apply_as_deletes and
	// apply_as_truncates), not as DuckDB reads them (the SQL statements').
	// The `@cdc` pragma's Deletes, with no StartAt, is Spark's too.
	SparkText bool
	// IgnoreNullUpdates is IGNORE NULL UPDATES (SCD 1): a NULL in a
	// change keeps the stored value.
	IgnoreNullUpdates bool
	// TruncateWhen is APPLY AS TRUNCATE WHEN's predicate (SCD 1), as
	// DuckDB reads it: a matching change empties the target.
	TruncateWhen string
	// TrackHistory is TRACK HISTORY ON (a, b) (SCD 2): only changes to
	// these columns open a new version; with TrackHistoryExcept, the
	// columns of TRACK HISTORY ON * EXCEPT (a, b), whose changes do not.
	TrackHistory       []string
	TrackHistoryExcept bool
	// Unapplied lists clauses the native engine does not apply (APPLY
	// AS TRUNCATE WHEN, IGNORE NULL UPDATES with SCD 2), each at its
	// range, so analysis can say so.
	Unapplied []Construct
}

// SourceKind is the kind of an unbounded source declared with `@source`.
type SourceKind string

// Source kinds.
const (
	Kafka   SourceKind = "kafka"
	Files   SourceKind = "files"
	CDCFeed SourceKind = "cdc"
)

// SourceSpec is an unbounded source a streaming flow reads (`@source`).
type SourceSpec struct {
	Kind SourceKind
	// Table is the name the flow's SQL uses for the source.
	Table   string
	Options map[string]string
	Loc     Loc
}

// Scope is a current catalog and schema, as USE CATALOG and USE SCHEMA
// set them for the statements after them in a file ("" where unset).
type Scope struct {
	Catalog, Schema string
}

// Qualify returns name as Spark reads it under the scope: a one-part name
// is in the scope's schema (and catalog), a two-part one in its catalog;
// a name the scope does not change is returned as it is.
func (s Scope) Qualify(name string) string {
	switch strings.Count(name, ".") {
	case 0:
		if s.Schema == "" {
			return name
		}
		if s.Catalog != "" {
			return s.Catalog + "." + s.Schema + "." + name
		}
		return s.Schema + "." + name
	case 1:
		if s.Catalog != "" {
			return s.Catalog + "." + name
		}
	}
	return name
}

// Flow is a query that writes into a target dataset.
type Flow struct {
	Name   string
	Target string
	// TargetLoc is where an append flow names its target (INSERT INTO t,
	// or the `@target` value); zero for a dataset's own flow.
	TargetLoc Loc
	// SQL is the query as written (what Spark is sent); Normalized is the
	// same text with STREAM(...) removed, backticks turned into double
	// quotes and table qualifiers blanked (what the native engine runs),
	// byte for byte the same length, so offsets map one to one.
	SQL        string
	Normalized string
	// QueryLoc is the range of SQL in its file.
	QueryLoc Loc
	Reads    []Ref
	// Streaming is true when the flow reads at least one stream.
	Streaming bool
	// Append marks a flow that appends into another dataset (CREATE FLOW
	// ... INSERT INTO, or `@target`), as opposed to a dataset's own query.
	Append bool
	// Once marks a one-time (backfill) flow, Databricks' INSERT INTO
	// ONCE: it reads its query in full, once, even into a streaming
	// table.
	Once bool
	// Aggregates is true when the query groups or calls an aggregate;
	// AggLoc is where (the GROUP BY or the first aggregate call).
	Aggregates bool
	AggLoc     Loc
	// Shape is the query's structure as the streaming checks need it;
	// nil when it is not known (a Python definition, a query in DuckDB's
	// dialect).
	Shape *QueryShape
	// Dialect is "postgres" when the query parses as standard SQL, or
	// "duckdb" when only DuckDB's parser accepts it (DuckDB-only syntax
	// such as EXCLUDE or QUALIFY, which Spark may reject).
	Dialect string
	// SparkSyntax, when set, says the query uses Spark SQL syntax DuckDB's
	// parser rejects (RLIKE, LATERAL VIEW, array(...)...), so the native
	// backend cannot run it: where DuckDB's parser stops, and its message.
	SparkSyntax  *SyntaxStop
	Source       *SourceSpec
	Trigger      Trigger
	OutputMode   OutputMode
	OutputLoc    Loc
	Watermark    *Watermark
	Expectations []Expectation
	CDC          *CDC
	Conf         map[string]string
	// Use is the current catalog and schema the flow's statement was
	// written under (USE CATALOG / USE SCHEMA earlier in its file); zero
	// for the pipeline's own. Its reads and target are qualified with it
	// already; the engine qualifies the query's table names with it too.
	Use Scope
	Loc Loc
	// Syntax lists the constructs of the flow's statement that only some
	// backends read (APPLY CHANGES INTO, AUTO CDC, read_files...), for
	// the capability matrix.
	Syntax []Construct
}

// SyntaxStop is where a parser stopped reading a query, and why.
type SyntaxStop struct {
	Loc     Loc
	Message string
}

// Mode names how the flow runs: "cdc", "append", "streaming" or "batch".
func (f *Flow) Mode() string {
	switch {
	case f.CDC != nil:
		return "cdc"
	case f.Append:
		return "append"
	case f.Streaming:
		return "streaming"
	}
	return "batch"
}

// SampleOrigin says where a sample binding came from.
type SampleOrigin string

// Sample binding origins, lowest precedence first.
const (
	SampleConvention SampleOrigin = "convention"
	SampleConfig     SampleOrigin = "thund.yaml"
	SamplePragma     SampleOrigin = "pragma"
)

// Source is a table read by the pipeline that no dataset defines.
type Source struct {
	Name string
	// Sample is the sample path (relative to the root), empty if none.
	Sample string
	// Stream is true when the sample is a folder of micro-batches.
	Stream bool
	Origin SampleOrigin
	// Loc is where the binding is written (pragma or thund.yaml).
	Loc Loc
	// Declared is set when an `@source` pragma declares the source.
	Declared *SourceSpec
}

// Dataset returns the dataset named name (ignoring case; the first one
// when names repeat), or nil.
func (p *Pipeline) Dataset(name string) *Dataset {
	if i, ok := p.node(NameKey(name)); ok {
		return p.nodes[i]
	}
	return nil
}

// FlowsInto returns the flows whose target is name (ignoring case), in
// declaration order.
func (p *Pipeline) FlowsInto(name string) []*Flow {
	i, ok := p.node(NameKey(name))
	if !ok {
		return nil
	}
	return p.targetFlows[p.flowStart[i]:p.flowStart[i+1]:p.flowStart[i+1]]
}

// Source returns the source named name (ignoring case, as SQL names
// are), or nil.
func (p *Pipeline) Source(name string) *Source {
	key := NameKey(name)
	for _, s := range p.Sources {
		if NameKey(s.Name) == key {
			return s
		}
	}
	return nil
}

// SortedKeys returns m's keys in order; a small helper for stable output.
func SortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// QueryShape is what the Spark SQL front end saw of a query's structure
// that streaming semantics depend on.
type QueryShape struct {
	// Joins is set when the query joins relations anywhere (JOIN, or
	// several relations in one FROM).
	Joins bool
	// StreamWindows are the window function calls (OVER) of the SELECTs
	// that read a stream, which Structured Streaming refuses.
	StreamWindows []Loc
	// StreamOrderBy is the first ORDER BY (or SORT BY) of a query that
	// reads a stream; zero when there is none.
	StreamOrderBy Loc
}
