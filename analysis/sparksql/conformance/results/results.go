// Package results runs the self-contained queries of Spark's SQL test
// corpus natively (translated by engine/translate, on DuckDB, in a session
// set up as a native run's is) and compares what they return with what
// Spark recorded in its golden files: the schema (Spark's type names) and
// the rows, printed as Spark's suite prints them.
//
// A golden file is replayed in order in a fresh DuckDB database: the
// temporary views it creates become DuckDB views of their translated
// queries, DROP VIEW removes them, SET and RESET are followed. A query is
// self-contained when it reads only those views (or VALUES, inline tables
// and CTEs); each such query lands in exactly one [Class]. The rest is
// skipped, with the reason: tables the file does not create as temporary
// views, settings the harness does not model, functions whose values
// cannot match (rand, uuid, the current time).
package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/thund-dev/thund/analysis/sparksql/ast"
	"github.com/thund-dev/thund/analysis/sparksql/conformance"
	"github.com/thund-dev/thund/analysis/sparksql/parser"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/engine/translate"
)

// Class is where a self-contained query lands.
type Class uint8

// The classes. Skipped is not a class of a self-contained query: the
// query was not run, Reason says why.
const (
	Skipped Class = iota
	// Equal: same schema (types and names) and same rows.
	Equal
	// Refused: the translation refused the query before running it
	// (a not-portable finding, Reason its message).
	Refused
	// BothError: the native run failed and so did Spark; SameClass says
	// whether the error classes agree.
	BothError
	// NativeError: the native run failed where Spark returned rows (a
	// defect, but not a silent one: the user sees an error).
	NativeError
	// Mismatch: a silent mismatch, the defect the harness hunts: rows or
	// types that differ from Spark's, or rows where Spark failed.
	Mismatch
)

var classNames = [...]string{"skipped", "equal", "refused", "both-error", "native-error", "mismatch"}

// String names the class as the known list and the document write it.
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "class?"
}

// Verdict is the outcome of one query of the corpus.
type Verdict struct {
	conformance.Case
	Class Class
	// Reason says why a query was skipped or refused, what the native
	// error was, or what differs.
	Reason string
	// Cause groups mismatches and refusals of the same kind ("schema:
	// double vs decimal(3,1)", "rows", a finding's first words).
	Cause string
	// SameClass is set for BothError when the native error carries the
	// error class Spark raised.
	SameClass bool
	// NamesDiffer is set for Equal when the column types and rows agree
	// but a generated column name does not (Spark names an unaliased
	// expression by its own rendering of it).
	NamesDiffer bool
	// Detail is, for a defect, the translation and both results, for a
	// person looking into it (never written into the repository: it
	// holds the corpus's text).
	Detail string
	// Sema is set when the native error is a diagnostic of the semantic
	// model (analysis/sparksql/sema), of the query or of a view it reads,
	// found before running.
	Sema bool
}

// ID names the query: "file.sql#3".
func (v Verdict) ID() string { return v.Case.ID() }

// Options tune a run.
type Options struct {
	// Timeout bounds one statement (default 20 s).
	Timeout time.Duration
}

// SuiteTimeZone is the session time zone Spark's SQLQueryTestSuite runs
// every query under (and the JVM's default zone), unless a file sets
// another: the golden files' timestamps are in it.
const SuiteTimeZone = "America/Los_Angeles"

// neutralConf are the settings that change how Spark plans a query but
// not what it returns; a SET of one is ignored.
var neutralConf = []string{
	"spark.sql.codegen.", "spark.sql.autoBroadcastJoinThreshold", "spark.sql.join.",
	"spark.sql.optimizeNullAwareAntiJoin", "spark.sql.maxMetadataStringLength",
	"spark.sql.leafNodeDefaultParallelism", "spark.sql.cbo.", "spark.sql.optimizer.",
	"spark.sql.adaptive.", "spark.sql.shuffle.partitions", "spark.sql.ansi.enforceReservedKeywords",
	"spark.sql.ansi.doubleQuotedIdentifiers", "spark.sql.variable.substitute",
	"spark.sql.timestampType=TIMESTAMP_LTZ",
}

// changingConf are settings under a neutral prefix that change what a
// query returns or whether it runs: with
// spark.sql.optimizer.scalarSubqueryUseSingleJoin off (Spark 4.1's default
// is on), a correlated scalar subquery grouping by a column bound by no
// equality fails (NON_CORRELATED_COLUMNS_IN_GROUP_BY,
// scalar-subquery-group-by.sql).
var changingConf = []string{"spark.sql.optimizer.scalarSubqueryUseSingleJoin=false"}

func neutral(key, value string) bool {
	for _, p := range changingConf {
		if k, v, _ := strings.Cut(p, "="); strings.EqualFold(key, k) && strings.EqualFold(value, v) {
			return false
		}
	}
	if strings.Contains(strings.ToLower(key), "legacy") && !strings.EqualFold(value, "false") {
		// A legacy setting turned on brings back an old behaviour (the
		// optimizer's decorrelate...LegacyIncorrectCountHandling its
		// wrong counts): it changes results, and the native run follows
		// Spark 4's default (off).
		return false
	}
	for _, p := range neutralConf {
		if k, v, ok := strings.Cut(p, "="); ok {
			if strings.EqualFold(key, k) && strings.EqualFold(value, v) {
				return true
			}
			continue
		}
		if key == p || (strings.HasSuffix(p, ".") && strings.HasPrefix(key, p)) {
			return true
		}
	}
	return false
}

// nondeterministic are the functions whose values cannot match Spark's:
// random numbers, identifiers, the clock, the session.
var nondeterministic = map[string]bool{
	"rand": true, "randn": true, "random": true, "uuid": true, "shuffle": true, "randstr": true, "uniform": true,
	"current_date": true, "current_timestamp": true, "now": true, "localtimestamp": true, "current_timezone": true,
	"curdate": true, "monotonically_increasing_id": true, "spark_partition_id": true, "input_file_name": true,
	"input_file_block_start": true, "input_file_block_length": true, "current_user": true, "user": true,
	"session_user": true, "current_database": true, "current_catalog": true, "current_schema": true,
	"version": true, "reflect": true, "java_method": true, "try_reflect": true,
}

// suiteFunctions are the user-defined functions Spark's test suite
// registers (Scala, Python and pandas UDFs, UDAFs, UDTFs): a query calling
// one is not self-contained.
var suiteFunctions = map[string]bool{"udf": true, "udaf": true, "udtf": true, "myudf": true}

// fileHeaderSet matches an input file's "--SET k=v,k=v" header lines.
var fileHeaderSet = regexp.MustCompile(`(?m)^--SET\s+(.*)$`)

// Harness replays golden files natively.
type Harness struct {
	db   *sql.DB
	opts Options
}

// New opens a DuckDB database (in memory, one thread) for a run.
func New(opts Options) (*Harness, error) {
	if opts.Timeout == 0 {
		opts.Timeout = 20 * time.Second
	}
	db, err := sql.Open("duckdb", "?threads=1&memory_limit=1GB")
	if err != nil {
		return nil, fmt.Errorf("results: open DuckDB: %w", err)
	}
	return &Harness{db: db, opts: opts}, nil
}

// Close releases the database.
func (h *Harness) Close() error { return h.db.Close() }

// view is a temporary view a golden file created.
type view struct {
	cols []sema.Column
	// skipped, refused or failed say why the native run has no such
	// view: its query is not self-contained, the translation refused it,
	// or DuckDB failed to create it; semaFailed says the failure is a
	// diagnostic of the semantic model.
	skipped, refused, failed string
	semaFailed               bool
}

// session is the state of one golden file's replay.
type session struct {
	h     *Harness
	conn  *sql.Conn
	views map[string]*view
	// tables are the names the file creates otherwise (tables, views
	// over files): reading one is not self-contained.
	tables map[string]bool
	// conf are the settings in force that change results and that the
	// harness does not model, "key=value".
	conf     map[string]string
	timeZone string
	seq      int
}

// Table implements sema.Catalog over the session's views.
func (s *session) Table(name []string) ([]sema.Column, bool) {
	if len(name) != 1 {
		return nil, false
	}
	v, ok := s.views[strings.ToLower(name[0])]
	if !ok || v.skipped != "" || v.refused != "" || v.failed != "" {
		return nil, false
	}
	return v.cols, true
}

// RunFile replays the cases of one golden file, in order, and returns a
// verdict for each. input is the file's input text, for its --SET
// headers.
func (h *Harness) RunFile(ctx context.Context, file, input string, cases []conformance.Case) ([]Verdict, error) {
	conn, err := h.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("results: %s: connection: %w", file, err)
	}
	defer conn.Close()
	// A fresh schema per file keeps one file's views from the next.
	schema := "f_" + strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(file)
	for _, stmt := range []string{"USE memory.main", "DROP SCHEMA IF EXISTS " + quote(schema) + " CASCADE", "CREATE SCHEMA " + quote(schema), "USE " + quote(schema)} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("results: %s: %s: %w", file, stmt, err)
		}
	}
	defer func() {
		if _, err := conn.ExecContext(context.Background(), "USE memory.main"); err == nil {
			_, _ = conn.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS "+quote(schema)+" CASCADE")
		}
	}()
	if err := engine.InstallSparkSQL(ctx, conn); err != nil {
		return nil, fmt.Errorf("results: %s: install Spark functions: %w", file, err)
	}
	s := &session{h: h, conn: conn, views: map[string]*view{}, tables: map[string]bool{}, conf: map[string]string{}, timeZone: SuiteTimeZone}
	if strings.HasPrefix(file, "timestampNTZ/") {
		// The suite runs this folder's files with TIMESTAMP meaning
		// TIMESTAMP_NTZ.
		s.set("spark.sql.timestampType", "TIMESTAMP_NTZ")
	}
	for _, m := range fileHeaderSet.FindAllStringSubmatch(input, -1) {
		for _, kv := range strings.Split(m[1], ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				s.set(strings.TrimSpace(k), strings.TrimSpace(v))
			}
		}
	}
	out := make([]Verdict, 0, len(cases))
	for _, c := range cases {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		out = append(out, s.run(ctx, c))
	}
	return out, nil
}

// set records SET key=value.
func (s *session) set(key, value string) {
	value = strings.Trim(value, `'" `)
	switch {
	case strings.EqualFold(key, "spark.sql.ansi.enabled"):
		// Settings follow it (conformance.Settings.ANSI).
	case strings.EqualFold(key, "spark.sql.session.timeZone"):
		s.timeZone = value
	case neutral(key, value):
		delete(s.conf, strings.ToLower(key))
	default:
		s.conf[strings.ToLower(key)] = key + "=" + value
	}
}

func skip(c conformance.Case, reason string) Verdict {
	return Verdict{Case: c, Class: Skipped, Reason: reason}
}

// run replays one statement.
func (s *session) run(ctx context.Context, c conformance.Case) Verdict {
	if !c.Spark.Parsed {
		return skip(c, "Spark's parser rejects it")
	}
	text := c.Settings.Substitute(c.Text)
	st, errs := parser.ParseStatement(text, conformance.Options(c.Settings))
	if len(errs) > 0 {
		return skip(c, "Thund's parser rejects it (see the parse agreement)")
	}
	switch st := st.(type) {
	case *ast.Set:
		switch st.Kind {
		case "":
			if st.Key != "" && st.Value != "" {
				s.set(st.Key, st.Value)
			}
		case "RESET":
			if st.Key == "" {
				s.conf = map[string]string{}
				s.timeZone = SuiteTimeZone
			} else {
				delete(s.conf, strings.ToLower(st.Key))
				if strings.EqualFold(st.Key, "spark.sql.session.timeZone") {
					s.timeZone = SuiteTimeZone
				}
			}
		case "TIME ZONE":
			if lit, ok := st.Expr.(*ast.Literal); ok && lit.Str != nil {
				s.timeZone = lit.Str.Value
			} else if st.Expr == nil {
				s.timeZone = SuiteTimeZone // SET TIME ZONE LOCAL
			} else {
				s.timeZone = "?"
			}
		}
		return skip(c, "a command")
	case *ast.Create:
		return s.create(ctx, c, st, text)
	case *ast.Other:
		s.other(st)
		return skip(c, "a command")
	case *ast.QueryStmt:
		return s.query(ctx, c, st.Query, text)
	}
	return skip(c, "a command")
}

// other follows DROP VIEW and notes the tables other commands create.
func (s *session) other(st *ast.Other) {
	kind := strings.ToUpper(st.Kind)
	if strings.HasPrefix(kind, "DECLARE") {
		// Session variables: the names the queries after it read are not
		// columns, and the native run has no variables.
		s.conf["declare"] = "DECLARE VARIABLE"
	}
	if len(st.Names) == 0 {
		return
	}
	name := strings.ToLower(st.Names[0].String())
	switch {
	case strings.HasPrefix(kind, "DROP VIEW"):
		if _, ok := s.views[name]; ok {
			delete(s.views, name)
			_, _ = s.conn.ExecContext(context.Background(), "DROP VIEW IF EXISTS "+quote(name))
		}
	case strings.HasPrefix(kind, "CACHE"), strings.HasPrefix(kind, "CREATE"), strings.HasPrefix(kind, "ALTER VIEW"), strings.HasPrefix(kind, "ALTER TABLE"):
		// A relation the harness does not model, or a view changed by
		// ALTER VIEW ... AS: reading it is not self-contained.
		if _, ok := s.views[name]; ok {
			delete(s.views, name)
			_, _ = s.conn.ExecContext(context.Background(), "DROP VIEW IF EXISTS "+quote(name))
		}
		s.tables[name] = true
	}
}

// create defines a temporary view natively; other CREATEs only note the
// name.
func (s *session) create(ctx context.Context, c conformance.Case, st *ast.Create, text string) Verdict {
	if st.Name == nil {
		return skip(c, "a command")
	}
	name := strings.ToLower(st.Name.String())
	temp := st.Kind == ast.CreateTempView || st.Kind == ast.CreateView
	if !temp || st.Query == nil || len(st.Name.Parts) != 1 {
		delete(s.views, name)
		s.tables[name] = true
		return skip(c, "a command")
	}
	if c.Spark.Threw != "" {
		// Spark has no such view afterwards (or keeps the old one, which
		// is rare enough to ignore).
		if _, ok := s.views[name]; !ok || !st.OrReplace {
			return skip(c, "a view Spark fails to create")
		}
		return skip(c, "a view Spark fails to create")
	}
	if _, ok := s.views[name]; ok && !st.OrReplace && !st.IfNotExists {
		return skip(c, "a command")
	}
	delete(s.tables, name)
	v := &view{}
	if why := s.notSelfContained(c, st.Query); why != "" {
		v.skipped = why
		s.views[name] = v
		return skip(c, "defines a view")
	}
	for _, cl := range st.Clauses {
		if cl.Keyword == "DEFAULT COLLATION" {
			// The view's string columns compare under the collation on
			// Spark; the native view would compare bytes.
			v.refused = "a view's DEFAULT COLLATION does not run natively (COLLATE does not)"
			s.views[name] = v
			return skip(c, "defines a view")
		}
	}
	res := translate.Translate(st.Query, text, s.translateOptions(c))
	if f, ok := typeError(res); ok {
		v.failed = f.Message
		v.semaFailed = s.semaFinds(st.Query, text, f.Range)
		s.views[name] = v
		return skip(c, "defines a view")
	}
	if len(res.Findings) > 0 {
		v.refused = res.Findings[0].Message
		s.views[name] = v
		return skip(c, "defines a view")
	}
	cols := ""
	if len(st.Columns) > 0 {
		names := make([]string, len(st.Columns))
		for i, cd := range st.Columns {
			names[i] = quote(cd.Name.Name)
		}
		cols = "(" + strings.Join(names, ", ") + ")"
	}
	qctx, cancel := context.WithTimeout(ctx, s.h.opts.Timeout)
	defer cancel()
	if _, err := s.conn.ExecContext(qctx, "CREATE OR REPLACE VIEW "+quote(name)+cols+" AS "+res.SQL); err != nil {
		msg, _, _ := res.Explain(err.Error())
		v.failed = oneLine(msg)
		s.views[name] = v
		return skip(c, "defines a view")
	}
	cc, err := describe(qctx, s.conn, name)
	if err != nil {
		v.failed = oneLine(err.Error())
	}
	if len(res.Columns) == len(cc) {
		// The view's interval columns have the translation's types
		// (DuckDB describes them all as INTERVAL).
		for i := range cc {
			if res.Columns[i].HasInterval() && strings.Contains(cc[i].Type, "interval") {
				cc[i].Type = res.Columns[i].String()
			}
			// And its TIMESTAMP_NTZ and VOID ones (TIMESTAMP and
			// INTEGER on DuckDB).
			if carriedType(res.Columns[i], cc[i].Type) {
				cc[i].Type = res.Columns[i].String()
			}
		}
	}
	v.cols = cc
	s.views[name] = v
	return skip(c, "defines a view")
}

// typeError returns the first type error among a translation's findings.
func typeError(res *translate.Result) (translate.Finding, bool) {
	for _, f := range res.Findings {
		if f.Code == translate.CodeTypeError {
			return f, true
		}
	}
	return translate.Finding{}, false
}

// semaFinds reports whether the semantic model, as the translation runs
// it, has a diagnostic at r of q.
func (s *session) semaFinds(q *ast.Query, text string, r ast.Range) bool {
	for _, d := range sema.Analyze(q, s, sema.Options{Source: text}).Diagnostics {
		if d.Range == r {
			return true
		}
	}
	return false
}

// describe returns a view's columns with their Spark types.
func describe(ctx context.Context, conn *sql.Conn, name string) ([]sema.Column, error) {
	rows, err := conn.QueryContext(ctx, "DESCRIBE SELECT * FROM "+quote(name))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []sema.Column
	for rows.Next() {
		var n, t string
		var rest [4]sql.NullString
		if err := rows.Scan(&n, &t, &rest[0], &rest[1], &rest[2], &rest[3]); err != nil {
			return nil, err
		}
		cols = append(cols, sema.Column{Name: n, Type: translate.SparkType(t)})
	}
	return cols, rows.Err()
}

func (s *session) translateOptions(c conformance.Case) translate.Options {
	return translate.Options{
		TimeType: true, // Spark's SQL tests run with spark.sql.timeType.enabled
		NoANSI:   !c.Settings.ANSI,
		// Spark's suite runs the PostgreSQL tests with
		// spark.sql.legacy.interval.enabled (SQLQueryTestSuite).
		LegacyInterval: strings.HasPrefix(c.File, "postgreSQL/"),
		TimeZone:       s.timeZone,
		Catalog:        s,
		Macros:         engine.SparkMacroNames(),
		Relation:       func(parts []string) string { return quote(strings.ToLower(parts[len(parts)-1])) },
		// runQuery and the views name TIMESTAMP_NTZ columns from the
		// translation's types.
		TypedColumns: true,
		VoidColumns:  true,
	}
}

// notSelfContained says why q cannot be compared ("" when it can): a
// setting in force the harness does not model, a function whose values
// cannot match, a table the file does not create as a temporary view.
func (s *session) notSelfContained(c conformance.Case, q *ast.Query) string {
	if len(s.conf) > 0 {
		var kv []string
		for _, v := range s.conf {
			kv = append(kv, v)
		}
		sort.Strings(kv)
		return "runs under " + strings.Join(kv, ", ") + " (not modelled)"
	}
	why := ""
	ast.Inspect(q, func(n ast.Node) bool {
		if why != "" {
			return false
		}
		if call, ok := n.(*ast.Call); ok && call.Name != nil && len(call.Name.Parts) == 1 {
			if f := strings.ToLower(call.Name.Parts[0].Name); nondeterministic[f] {
				why = "calls " + f + " (values cannot match)"
			} else if suiteFunctions[f] {
				why = "calls " + f + ", a function the test suite registers"
			}
		}
		return true
	})
	if why != "" {
		return why
	}
	m := sema.Analyze(q, s, sema.Options{})
	for _, t := range m.Tables {
		if t.Kind == sema.TableCTE || t.Name == nil {
			continue
		}
		name := strings.ToLower(t.Name.String())
		if v, ok := s.views[name]; ok && len(t.Name.Parts) == 1 {
			if v.skipped != "" {
				return "reads view " + t.Name.String() + ", which " + v.skipped
			}
			continue
		}
		return "reads table " + t.Name.String() + " (not a temporary view of the file)"
	}
	return ""
}

// query runs one query and compares.
func (s *session) query(ctx context.Context, c conformance.Case, q *ast.Query, text string) Verdict {
	if why := s.notSelfContained(c, q); why != "" {
		return skip(c, why)
	}
	if !c.HasOutput {
		return skip(c, "the golden file records no output")
	}
	// A view the native run has not got makes the query refused or
	// failed, for the view's reason.
	m := sema.Analyze(q, s, sema.Options{})
	for _, t := range m.Tables {
		if t.Kind == sema.TableCTE || t.Name == nil {
			continue
		}
		if v, ok := s.views[strings.ToLower(t.Name.String())]; ok {
			switch {
			case v.refused != "":
				return Verdict{Case: c, Class: Refused, Reason: "reads view " + t.Name.String() + ", refused: " + v.refused, Cause: cause(v.refused)}
			case v.failed != "":
				fv := s.failed(c, "view "+t.Name.String()+": "+v.failed)
				fv.Sema = v.semaFailed
				return fv
			}
		}
	}
	res := translate.Translate(q, text, s.translateOptions(c))
	if f, ok := typeError(res); ok {
		// Spark's analyzer rejects it too, before running.
		v := s.failed(c, f.Message)
		v.Sema = s.semaFinds(q, text, f.Range)
		return v
	}
	if len(res.Findings) > 0 {
		f := res.Findings[0]
		return Verdict{Case: c, Class: Refused, Reason: f.Message, Cause: cause(f.Message)}
	}
	qctx, cancel := context.WithTimeout(ctx, s.h.opts.Timeout)
	defer cancel()
	types, names, rows, err := runQuery(qctx, s.conn, res.SQL, res.Columns)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || qctx.Err() != nil {
			return s.failed(c, fmt.Sprintf("did not finish in %s", s.h.opts.Timeout))
		}
		msg, _, _ := res.Explain(err.Error())
		v := s.failed(c, oneLine(msg))
		v.Detail = "query: " + text + "\nSQL: " + res.SQL
		return v
	}
	if c.Spark.Threw != "" {
		cl := sparkClass(c.Output)
		return Verdict{Case: c, Class: Mismatch, Reason: "returns rows; Spark raises " + orDash(cl), Cause: "rows where Spark raises " + orDash(cl),
			Detail: "query: " + text + "\nSQL: " + res.SQL + "\nSpark: " + c.Output}
	}
	// Schema.
	wantTypes, wantNames, ok := splitSchema(c.Schema, types)
	if !ok {
		return Verdict{Case: c, Class: Mismatch, Reason: "schema " + schemaString(names, types) + "; Spark's " + c.Schema, Cause: schemaCause(c.Schema, types),
			Detail: "query: " + text + "\nSQL: " + res.SQL}
	}
	_ = wantTypes
	got := make([]string, len(rows))
	for i, r := range rows {
		got[i] = strings.Join(r, "\t")
	}
	want := c.Output
	// Spark's suite writes the output with its trailing whitespace
	// removed (replaceAll("\\s+$", "") on the joined rows): rpad('hi', 5)
	// is recorded as hi.
	// It also masks what changes from run to run (replaceNotIncludedMsg):
	// #123 (an expression id) becomes #x, so concat_ws('#', 1, 2) is
	// recorded as 1#x.
	trim := func(s string) string { return notIncluded(strings.TrimRight(s, " \t\n\v\f\r")) }
	joined := trim(strings.Join(got, "\n"))
	if joined != want {
		sorted := append([]string(nil), got...)
		sort.Strings(sorted)
		if trim(strings.Join(sorted, "\n")) != want && !s.tiesAgree(ctx, c, q, text, got, want) {
			return Verdict{Case: c, Class: Mismatch, Reason: "rows differ", Cause: "rows",
				Detail: "query: " + text + "\nSQL: " + res.SQL + "\ngot:\n" + joined + "\nSpark:\n" + want}
		}
	}
	v := Verdict{Case: c, Class: Equal}
	for i := range names {
		if names[i] != wantNames[i] {
			v.NamesDiffer = true
		}
	}
	return v
}

// tiesAgree reports whether the rows got, which equal Spark's rows want as
// a multiset but not in order, differ only in the order of rows whose
// sort keys tie: Spark's order among them is its plan's. It runs the
// query again with the ORDER BY keys as extra columns, splits the native
// rows into runs of equal keys and checks that Spark's rows, cut at the
// same places, hold the same rows in each run. A query whose order it
// cannot check so (no ORDER BY on a plain SELECT, an ordinal key) is
// not excused.
func (s *session) tiesAgree(ctx context.Context, c conformance.Case, q *ast.Query, text string, got []string, want string) bool {
	sel, ok := q.Body.(*ast.Select)
	if !ok || len(q.OrderBy) == 0 || sel.Quantifier == "DISTINCT" || q.Limit != nil || q.Offset != nil {
		return false
	}
	ext := *sel
	ext.Items = append([]*ast.SelectItem(nil), sel.Items...)
	for _, o := range q.OrderBy {
		if l, ok := o.X.(*ast.Literal); ok && l.Kind == ast.LitInteger {
			return false
		}
		ext.Items = append(ext.Items, &ast.SelectItem{Range: o.X.Span(), X: o.X})
	}
	eq := *q
	eq.Body = &ext
	res := translate.Translate(&eq, text, s.translateOptions(c))
	if len(res.Findings) > 0 {
		return false
	}
	qctx, cancel := context.WithTimeout(ctx, s.h.opts.Timeout)
	defer cancel()
	_, _, rows, err := runQuery(qctx, s.conn, res.SQL, res.Columns)
	if err != nil || len(rows) != len(got) {
		return false
	}
	width := len(sel.Items)
	wantRows := strings.Split(want, "\n")
	if len(wantRows) != len(got) {
		return false
	}
	for start := 0; start < len(rows); {
		end := start + 1
		key := strings.Join(rows[start][width:], "\t")
		for end < len(rows) && strings.Join(rows[end][width:], "\t") == key {
			end++
		}
		a, b := make([]string, 0, end-start), append([]string(nil), wantRows[start:end]...)
		for _, r := range rows[start:end] {
			a = append(a, notIncluded(strings.TrimRight(strings.Join(r[:width], "\t"), " \t\n\v\f\r")))
		}
		for i := range b {
			b[i] = strings.TrimRight(b[i], " \t\n\v\f\r")
		}
		sort.Strings(a)
		sort.Strings(b)
		if strings.Join(a, "\n") != strings.Join(b, "\n") {
			return false
		}
		start = end
	}
	return true
}

var (
	exprIDRe = regexp.MustCompile(`#\d+`)
	planIDRe = regexp.MustCompile(`plan_id=\d+`)
	stageRe  = regexp.MustCompile(`\*\(\d+\) `)
)

// notIncluded masks the output as Spark's suite does before writing it
// (SQLQueryTestHelper.replaceNotIncludedMsg, the parts that can occur in
// a query's rows): expression ids, plan ids, codegen stage ids.
func notIncluded(s string) string {
	s = exprIDRe.ReplaceAllString(s, "#x")
	s = planIDRe.ReplaceAllString(s, "plan_id=x")
	return stageRe.ReplaceAllString(s, "*")
}

// failed is the verdict of a native error: BothError when Spark failed
// too, NativeError when it returned rows.
func (s *session) failed(c conformance.Case, msg string) Verdict {
	if c.Spark.Threw == "" {
		return Verdict{Case: c, Class: NativeError, Reason: msg, Cause: cause(msg)}
	}
	want := sparkClass(c.Output)
	got := ""
	if strings.HasPrefix(msg, "[") {
		if i := strings.IndexByte(msg, ']'); i > 0 {
			got = msg[1:i]
		}
	}
	same := want != "" && (got == want || strings.HasPrefix(want, got+".") && got != "")
	return Verdict{Case: c, Class: BothError, Reason: msg, SameClass: same}
}

// sparkClass reads the error class of Spark's recorded error: the JSON
// form's errorClass, or the [CLASS] a message starts with.
func sparkClass(output string) string {
	lines := strings.Split(output, "\n")
	if len(lines) < 2 {
		return ""
	}
	if lines[1] == "{" {
		end := 2
		for end < len(lines) && lines[end] != "}" {
			end++
		}
		if end < len(lines) {
			var e struct {
				ErrorClass string `json:"errorClass"`
			}
			if json.Unmarshal([]byte(strings.Join(lines[1:end+1], "\n")), &e) == nil {
				return e.ErrorClass
			}
		}
		return ""
	}
	if strings.HasPrefix(lines[1], "[") {
		if i := strings.IndexByte(lines[1], ']'); i > 0 {
			return lines[1][1:i]
		}
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "an error"
	}
	return s
}

// runQuery runs q and returns its columns' Spark types and names and the
// rows printed as Spark's suite prints them. A column's Spark type is
// DuckDB's, mapped, except where the translation's own type (spark, nil
// when it has none) holds an interval: DuckDB's INTERVAL does not say
// which of Spark's interval types it holds, or a TIMESTAMP_NTZ or VOID
// (carriedType).
func runQuery(ctx context.Context, conn *sql.Conn, q string, spark []*translate.Type) ([]string, []string, [][]string, error) {
	rs, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, nil, nil, err
	}
	defer rs.Close()
	cols, err := rs.ColumnTypes()
	if err != nil {
		return nil, nil, nil, err
	}
	types := make([]string, len(cols))
	names := make([]string, len(cols))
	parsed := make([]*translate.Type, len(cols))
	for i, c := range cols {
		types[i] = translate.SparkType(c.DatabaseTypeName())
		if types[i] == "" {
			types[i] = "duckdb:" + c.DatabaseTypeName()
		}
		names[i] = c.Name()
		parsed[i] = translate.ParseSparkType(types[i])
		if len(spark) == len(cols) && spark[i].HasInterval() && strings.Contains(c.DatabaseTypeName(), "INTERVAL") {
			types[i], parsed[i] = spark[i].String(), spark[i]
		}
		if len(spark) == len(cols) && carriedType(spark[i], types[i]) {
			types[i], parsed[i] = spark[i].String(), spark[i]
		}
	}
	var out [][]string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, nil, nil, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			s, ok := hiveString(v, parsed[i], false)
			if !ok {
				s = fmt.Sprintf("?%T(%v)", v, v)
			}
			row[i] = s
		}
		out = append(out, row)
		if len(out) > 100000 {
			return nil, nil, nil, fmt.Errorf("more than 100000 rows")
		}
	}
	return types, names, out, rs.Err()
}

// carriedType reports a column whose Spark type is the translation's
// (spark) where DuckDB's (native, named as Spark names it) cannot tell it
// apart: a TIMESTAMP_NTZ is a TIMESTAMP there, a VOID an INTEGER.
func carriedType(spark *translate.Type, native string) bool {
	return (spark.HasTimestampNTZ() || spark.HasVoid()) && spark.Stored().String() == native
}

// splitSchema matches Spark's schema "struct<n1:t1,n2:t2>" against the
// native column types and returns Spark's types and names. Names may hold
// any character, types cannot, so the split is found by the types.
func splitSchema(schema string, types []string) ([]string, []string, bool) {
	if !strings.HasPrefix(schema, "struct<") || !strings.HasSuffix(schema, ">") {
		return nil, nil, false
	}
	body := schema[len("struct<") : len(schema)-1]
	if len(types) == 0 {
		return nil, nil, body == ""
	}
	names := make([]string, len(types))
	var match func(pos, i int) bool
	match = func(pos, i int) bool {
		suffix := ":" + types[i]
		last := i == len(types)-1
		for off := pos; off <= len(body); {
			j := strings.Index(body[off:], suffix)
			if j < 0 {
				return false
			}
			at := off + j
			end := at + len(suffix)
			if last && end == len(body) || !last && end < len(body) && body[end] == ',' {
				names[i] = body[pos:at]
				if last || match(end+1, i+1) {
					return true
				}
			}
			off = at + 1
		}
		return false
	}
	if !match(0, 0) {
		return nil, nil, false
	}
	return types, names, true
}

// schemaString writes native columns as Spark writes a schema.
func schemaString(names, types []string) string {
	parts := make([]string, len(names))
	for i := range names {
		parts[i] = names[i] + ":" + types[i]
	}
	return "struct<" + strings.Join(parts, ",") + ">"
}

// schemaCause names a schema mismatch by the types: "int vs bigint".
func schemaCause(schema string, types []string) string {
	return "schema: " + strings.Join(types, ",") + " vs Spark's " + typesOf(schema)
}

// typesOf keeps the types of a schema when it can read them (names
// without ':' or ','), else says so.
func typesOf(schema string) string {
	body := strings.TrimSuffix(strings.TrimPrefix(schema, "struct<"), ">")
	var out []string
	depth, start := 0, 0
	for i := 0; i <= len(body); i++ {
		if i == len(body) || body[i] == ',' && depth == 0 {
			f := body[start:i]
			if k := strings.IndexByte(f, ':'); k >= 0 {
				out = append(out, f[k+1:])
			}
			start = i + 1
			continue
		}
		switch body[i] {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		}
	}
	return strings.Join(out, ",")
}

// cause groups messages: the text up to the first quote, number or colon.
func cause(msg string) string {
	msg = oneLine(msg)
	if strings.HasPrefix(msg, "[") {
		if i := strings.IndexByte(msg, ']'); i > 0 {
			return msg[:i+1]
		}
	}
	cut := len(msg)
	for i, r := range msg {
		if r == '\'' || r == '"' || r == '`' || r == '(' || r >= '0' && r <= '9' {
			cut = i
			break
		}
	}
	s := strings.TrimSpace(msg[:cut])
	if len(s) > 90 {
		s = s[:90]
	}
	return s
}

// oneLine folds s onto one line of at most 300 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:299]) + "…"
	}
	return s
}

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
