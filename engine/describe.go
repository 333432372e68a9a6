package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/thund-dev/thund/analysis/pylib"
	"github.com/thund-dev/thund/analysis/sparksql/ast"
	sparkparser "github.com/thund-dev/thund/analysis/sparksql/parser"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	"github.com/thund-dev/thund/engine/translate"
	"github.com/thund-dev/thund/ir"
)

// Describing binds queries without running them. It uses one connection
// of its own, opened before the session locks its settings so that it
// alone reports errors as JSON (errors_as_json, a per-connection setting):
// DuckDB's JSON errors carry the error's position in the query, which the
// plain text form only draws with a caret. Every other connection keeps
// plain-text errors.
//
// Relations made while describing are temporary tables of that
// connection: they shadow the session's real outputs for unqualified names
// on it alone, so describing never touches what a run wrote, and a run on
// another connection never sees them.

// describeConn is the session's describing connection, used by one
// Describer at a time.
type describeConn struct {
	conn *sql.Conn
	// sem holds one token; a Describer takes it for its lifetime.
	sem chan struct{}
	// sources maps the relation of each source table kept between
	// Describers to the signature of the files it was sniffed from, so an
	// unchanged sample is not read again.
	sources map[string]string
}

// openDescribe opens the describing connection. It must run before the
// session locks its configuration.
func (s *Session) openDescribe(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open engine: describe connection: %w", err)
	}
	if _, err := conn.ExecContext(allowKinds(ctx, duckdb.STATEMENT_TYPE_SET), "SET errors_as_json = true"); err != nil {
		conn.Close()
		return fmt.Errorf("open engine: describe connection: %w", err)
	}
	s.desc = &describeConn{conn: conn, sem: make(chan struct{}, 1), sources: map[string]string{}}
	s.desc.sem <- struct{}{}
	return nil
}

// closeDescribe closes the describing connection.
func (s *Session) closeDescribe() {
	if s.desc != nil && s.desc.conn != nil {
		s.desc.conn.Close()
	}
}

// Column is one column of a described relation.
type Column struct {
	Name string
	// Type is DuckDB's type, as DESCRIBE shows it (VARCHAR, DECIMAL(10,2),
	// INTEGER[], STRUCT(a INTEGER), ...).
	Type string
}

// SQLError is a DuckDB error read from its JSON form.
type SQLError struct {
	// Type is DuckDB's exception type: Binder, Catalog, Conversion,
	// Parser, Invalid Input, ...
	Type string
	// Subtype is DuckDB's error subtype, when it gives one
	// (COLUMN_NOT_FOUND, MISSING_ENTRY, SYNTAX_ERROR, ...).
	Subtype string
	// Message is DuckDB's message; it may span several lines.
	Message string
	// Position is the byte offset of the error in the query the caller
	// passed (not the statement Thund wrapped around it), or -1 when
	// DuckDB gives none or it falls outside the query.
	Position int
	// Name is the name DuckDB could not find (a column, a table, a
	// function), when it says.
	Name string
	// EntryType is the kind of catalog entry missing ("Table", "Scalar
	// Function"), for Catalog errors.
	EntryType string
	// Candidates are DuckDB's suggestions for Name, best first.
	Candidates []string
}

// Error returns DuckDB's message with its type, as DuckDB prints it.
func (e *SQLError) Error() string { return e.Type + " Error: " + e.Message }

// parseSQLError reads DuckDB's JSON error text (possibly after a prefix
// such as "Parser Error: "). offset is the length of what preceded the
// caller's query in the statement sent, and n the query's length, to make
// the position relative to the query. It returns nil when err is not a
// JSON error.
func parseSQLError(err error, offset, n int) *SQLError {
	msg := err.Error()
	i := strings.IndexByte(msg, '{')
	if i < 0 {
		return nil
	}
	var raw map[string]string
	if json.Unmarshal([]byte(msg[i:]), &raw) != nil {
		return nil
	}
	e := &SQLError{
		Type:      raw["exception_type"],
		Subtype:   raw["error_subtype"],
		Message:   raw["exception_message"],
		Name:      raw["name"],
		EntryType: raw["type"],
		Position:  -1,
	}
	if e.Type == "" && e.Message == "" {
		return nil
	}
	if c := raw["candidates"]; c != "" {
		e.Candidates = strings.Split(c, ",")
	}
	if p, err := strconv.Atoi(raw["position"]); err == nil && p >= offset && p-offset <= n {
		e.Position = p - offset
	}
	return e
}

// Describer binds queries against a session's relations without running
// them, turning each into an empty temporary table with the query's
// columns. Get one with Session.Describer and Close it when done; a
// session has one describing connection, so a second Describer waits for
// the first to close. The source tables RegisterSources makes are kept
// for the next Describer while their sample files do not change.
type Describer struct {
	s     *Session
	dc    *describeConn
	conn  *sql.Conn
	made  []string
	taken bool
	// rels keeps the relations of datasets and sources whose names end
	// alike apart, as a run does (relationsOf); set by RegisterSources,
	// its zero value keeps every name under its last part.
	rels relations
}

// rel is the relation the Describer keeps a dataset or source under.
func (d *Describer) rel(name string) string { return d.rels.of(name) }

// Describer returns the session's Describer, waiting until no other is in
// use (or ctx ends).
func (s *Session) Describer(ctx context.Context) (*Describer, error) {
	if s.desc == nil {
		return nil, errors.New("describe: the session is closed")
	}
	select {
	case <-s.desc.sem:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	d := &Describer{s: s, dc: s.desc, conn: s.desc.conn, taken: true}
	if err := d.dropLeftovers(ctx); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// Close drops the relations the Describer made (but the source tables)
// and frees the describing connection for the next Describer.
func (d *Describer) Close() error {
	if !d.taken {
		return nil
	}
	d.taken = false
	var first error
	for _, name := range d.made {
		if _, kept := d.dc.sources[name]; kept {
			continue
		}
		if err := d.drop(context.Background(), name); err != nil && first == nil {
			first = err
		}
	}
	d.made = nil
	d.dc.sem <- struct{}{}
	return first
}

func (d *Describer) drop(ctx context.Context, rel string) error {
	_, err := d.conn.ExecContext(ctx, "DROP TABLE IF EXISTS temp.main."+quoteIdent(rel))
	return err
}

// dropLeftovers drops temporary tables an interrupted Describer left,
// keeping the cached source tables.
func (d *Describer) dropLeftovers(ctx context.Context) error {
	rows, err := d.conn.QueryContext(ctx, "SELECT table_name FROM duckdb_tables() WHERE database_name = 'temp'")
	if err != nil {
		return fmt.Errorf("describe: %w", err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return fmt.Errorf("describe: %w", err)
		}
		if _, kept := d.dc.sources[n]; !kept {
			names = append(names, n)
		}
	}
	rows.Close()
	for _, n := range names {
		if err := d.drop(ctx, n); err != nil {
			return fmt.Errorf("describe: %w", err)
		}
	}
	return nil
}

// RegisterSources makes, for each source of p with a sample, an empty
// temporary table with the columns DuckDB reads from the sample (its
// reader sniffs the files; no row is kept). A table made by an earlier
// Describer is reused while its files are unchanged. It returns the
// sources that could not be registered, by name key, with why.
func (d *Describer) RegisterSources(ctx context.Context, p *ir.Pipeline) map[string]error {
	d.rels = relationsOf(p)
	failed := map[string]error{}
	want := map[string]bool{}
	for _, src := range p.Sources {
		if src.Sample == "" {
			continue
		}
		rel := d.rel(src.Name)
		want[rel] = true
		fn, pattern, err := d.s.reader(src.Sample)
		if err == nil {
			d.s.noteFileReadColumns(p, src.Name, fn, pattern)
		}
		var call string
		if err == nil && fn == "read_csv_auto" {
			// The columns a run reads as text (checkCSVSample notes
			// them) are text here too; the run reports the findings.
			_, err = d.s.checkCSVSample(src.Sample)
			if err == nil && d.s.autoLoaderText(p, src.Name) {
				d.s.csvAllText(pattern)
			}
		}
		if err == nil {
			// A sample a Python load reads is read as Spark's reader
			// reads the files (header or _c0, _c1...; its schema or the
			// one Spark infers), as the run reads it (LoadReading).
			call, err = d.s.sampleReading(p, src)
			if errors.Is(err, pylib.ErrNotInferred) {
				// A load the native run refuses (analysis says so at
				// the load): described as DuckDB reads the sample.
				call, err = "", nil
			}
		}
		if err == nil {
			if call == "" {
				call = d.FileReadCall(ctx, p, src, fn, pattern)
			}
			sig := call + "\x00" + filesSignature(pattern)
			if d.dc.sources[rel] == sig {
				d.made = append(d.made, rel)
				continue
			}
			delete(d.dc.sources, rel)
			if _, err = d.create(ctx, rel, "SELECT * FROM "+call); err == nil {
				d.dc.sources[rel] = sig
			}
		}
		if err != nil {
			failed[ir.NameKey(src.Name)] = d.s.scrubbed(fmt.Errorf("source %s (%s): %w", src.Name, src.Sample, err))
		}
	}
	// A kept table of a source this pipeline no longer reads would shadow
	// the session's relation of the same name.
	for rel := range d.dc.sources {
		if !want[rel] {
			delete(d.dc.sources, rel)
			d.drop(ctx, rel)
		}
	}
	return failed
}

// filesSignature identifies the files a sample pattern matches as they
// are now: their names, sizes and modification times.
func filesSignature(pattern string) string {
	files, _ := filepath.Glob(pattern)
	var b strings.Builder
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "%s\x00%d\x00%d\x00", f, fi.Size(), fi.ModTime().UnixNano())
	}
	return b.String()
}

// Define makes name an empty temporary table with the columns of query,
// which is bound (against the sources and relations defined so far, then
// the session's own) but not run, and returns the columns. A DuckDB error
// is a *SQLError whose Position is relative to query.
func (d *Describer) Define(ctx context.Context, name, query string) ([]Column, error) {
	if err := CheckQuery(ctx, query); err != nil {
		return nil, err
	}
	return d.create(ctx, d.rel(name), query)
}

// Append checks that query's rows could be appended to the relation name
// (made by Define) by column name, as a run appends a second flow into a
// dataset, without appending anything. A DuckDB error is a *SQLError whose
// Position is relative to query.
func (d *Describer) Append(ctx context.Context, name, query string) error {
	if err := CheckQuery(ctx, query); err != nil {
		return err
	}
	prefix := "INSERT INTO temp.main." + quoteIdent(d.rel(name)) + " BY NAME SELECT * FROM (\n"
	return d.exec(ctx, prefix, query, "\n) LIMIT 0")
}

// Check binds expr (a boolean expression, such as an expectation) against
// the columns of the relation name, without evaluating it. The expression
// is bound in DuckDB's rendering of it (guard.go), as a run pastes it; an
// expression the guard refuses is an error wrapping ErrStatementRefused.
// A DuckDB error is a *SQLError whose Position is relative to expr, or -1
// when the rendering differs from the text.
func (d *Describer) Check(ctx context.Context, name, expr string) error {
	r, err := renderedExpr(ctx, expr)
	if err == nil {
		err = d.exec(ctx, "SELECT (\n", r, "\n) FROM temp.main."+quoteIdent(d.rel(name))+" LIMIT 0")
		var se *SQLError
		if r != expr && errors.As(err, &se) {
			se.Position = -1
		}
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, ErrStatementRefused) && d.checkSpark(ctx, name, expr) {
		// A run translates the expression from Spark SQL (fragment.go):
		// "D" is a string there, and Spark's functions and operators
		// are Spark's, so it binds as the run will evaluate it.
		return nil
	}
	return err
}

// checkSpark reports whether expr, read as Spark SQL, translates and
// binds over the relation of dataset name, as a run evaluates it.
func (d *Describer) checkSpark(ctx context.Context, name, expr string) bool {
	if !d.taken || !translating() {
		return false
	}
	rel := "temp.main." + quoteIdent(d.rel(name))
	spark := strings.TrimSpace(expr)
	res, g, refused, ok := translateFragment(ctx, d.conn, rel, spark, nil)
	if refused != nil || !ok {
		return false
	}
	x := res.SQL[g.Start:g.End]
	if _, err := renderedExpr(ctx, x); err != nil {
		return false
	}
	return d.exec(ctx, "SELECT (\n", x, "\n) FROM "+rel+" LIMIT 0") == nil
}

// Columns returns the columns of a relation made by Define or
// RegisterSources.
func (d *Describer) Columns(ctx context.Context, name string) ([]Column, error) {
	rows, err := d.conn.QueryContext(ctx, "DESCRIBE temp.main."+quoteIdent(d.rel(name)))
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", name, err)
	}
	defer rows.Close()
	n, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	// DESCRIBE gives column_name, column_type, then null, key, default
	// and extra.
	vals := make([]any, len(n))
	var cols []Column
	for rows.Next() {
		var c Column
		vals[0], vals[1] = &c.Name, &c.Type
		for i := 2; i < len(vals); i++ {
			vals[i] = new(any)
		}
		if err := rows.Scan(vals...); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

func (d *Describer) create(ctx context.Context, rel, query string) ([]Column, error) {
	// A dataset that takes the name of a kept source table replaces it.
	delete(d.dc.sources, rel)
	prefix := "CREATE OR REPLACE TEMP TABLE " + quoteIdent(rel) + " AS SELECT * FROM (\n"
	if err := d.exec(ctx, prefix, query, "\n) LIMIT 0"); err != nil {
		return nil, err
	}
	if !slices.Contains(d.made, rel) {
		d.made = append(d.made, rel)
	}
	return d.Columns(ctx, rel)
}

// exec runs prefix+body+suffix and reads a DuckDB error relative to body.
func (d *Describer) exec(ctx context.Context, prefix, body, suffix string) error {
	if !d.taken {
		return errors.New("describe: the Describer is closed")
	}
	_, err := d.conn.ExecContext(ctx, prefix+body+suffix)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if e := parseSQLError(err, len(prefix), len(body)); e != nil {
		e.Message = d.s.scrubText(e.Message)
		if msg := e.Error(); strings.Contains(msg, "Permission Error") || strings.Contains(msg, "configuration has been locked") {
			return fmt.Errorf("%w (%s)", ErrSandbox, firstLine(e.Message))
		}
		return e
	}
	return explain(err)
}

// FlowQuery is a Spark SQL batch flow's query as a run executes it: its
// translation to DuckDB (compat.go's prepare).
type FlowQuery struct {
	// SQL is the DuckDB text.
	SQL string
	res *translate.Result
	// src is the flow's own query text, which res's ranges point into.
	src string
	// refused is set, and SQL empty, when a run refuses the query.
	refused *SparkError
}

// SparkError is a describing error in Spark's terms, at a range of the
// flow's own query text (ir.Flow.SQL, which starts at its QueryLoc).
type SparkError struct {
	// Range is relative to the flow's query; Located is false when the
	// error could not be tied to an expression (Range is then empty).
	Range   ast.Range
	Located bool
	// Message is in Spark's terms, with Spark's error class in brackets
	// where one maps; Code is the translator's finding code for errors
	// found before DuckDB binds anything (translate.CodeTypeError).
	Message string
	Code    string
	// Known is set for a type error the caller said it reports already
	// (TranslateFlowKnown): the query fails, and nothing new is said.
	Known bool
}

func (e *SparkError) Error() string { return e.Message }

// TranslateFlow returns f's query as a run executes it, translated
// against the relations this Describer made so far, or nil when a run
// executes f's text instead (DuckDB dialect, a query the translator does
// not read or refuses, THUND_NATIVE_SQL=text). Streaming flows and the
// source queries of CDC flows run their translation as batch flows do.
// A query Spark's analyzer rejects (a type error the translator is sure
// of) is a *SparkError with Code translate.CodeTypeError.
func (d *Describer) TranslateFlow(ctx context.Context, f *ir.Flow) (*FlowQuery, error) {
	return d.TranslateFlowKnown(ctx, f, nil)
}

// TranslateFlowKnown is TranslateFlow for a caller that reports some of
// the type errors itself (the semantic model's, found without DuckDB):
// known says so of a range of f's query. The error is the first type
// error known does not claim, else the first one, marked Known.
func (d *Describer) TranslateFlowKnown(ctx context.Context, f *ir.Flow, known func(ast.Range) bool) (*FlowQuery, error) {
	if !translating() || f.Dialect == "duckdb" || strings.TrimSpace(f.SQL) == "" {
		return nil, nil
	}
	cat := &duckCatalog{ctx: ctx, conn: d.conn, cols: map[string][]sema.Column{}, rels: d.rels, use: f.Use}
	res := translate.TranslateText(f.SQL, translate.Options{
		Version: sparkparser.Spark43, // as a run translates it (compat.go)
		Catalog: cat,
		Macros:  compatNames,
		Relation: func(parts []string) string {
			return quoteIdent(d.rels.read(parts, f.Use))
		},
		DuckDBOnly: duckDBOnly,
		// As a run translates it (prepareQuery): a TIMESTAMP_NTZ output
		// column runs, its readers get Spark's type from the run.
		TypedColumns: true,
	})
	var first *SparkError
	for _, x := range res.Findings {
		if x.Code == translate.CodeTypeError && !nameError(x.Message) {
			e := &SparkError{Range: x.Range, Located: true, Message: x.Message, Code: x.Code}
			if known == nil || !known(x.Range) {
				return nil, e
			}
			if first == nil {
				e.Known = true
				first = e
			}
		}
	}
	if first != nil {
		return nil, first
	}
	if len(res.Findings) > 0 {
		fd := res.Findings[0]
		for _, x := range res.Findings {
			if x.Code == translate.CodeDuckDBOnly {
				return nil, nil
			}
		}
		if fd.Code == translate.CodeNotPortable {
			// A run refuses it with this reason; the caller says so
			// when the text does not bind on DuckDB either.
			return &FlowQuery{refused: &SparkError{Range: fd.Range, Located: true, Message: fd.Message, Code: fd.Code}}, nil
		}
		return nil, nil
	}
	return &FlowQuery{SQL: res.SQL, res: res, src: f.SQL}, nil
}

// Refused is why a run refuses the flow before running it (the
// translator's not-portable finding), or nil.
func (q *FlowQuery) Refused() *SparkError {
	if q == nil {
		return nil
	}
	return q.refused
}

// DefineQuery is Define for a translated query; a DuckDB error is a
// *SparkError at the user's expression.
func (d *Describer) DefineQuery(ctx context.Context, name string, q *FlowQuery) ([]Column, error) {
	if q.refused != nil {
		return nil, q.refused
	}
	cols, err := d.Define(ctx, name, q.SQL)
	return cols, q.spark(err)
}

// AppendQuery is Append for a translated query; a DuckDB error is a
// *SparkError at the user's expression.
func (d *Describer) AppendQuery(ctx context.Context, name string, q *FlowQuery) error {
	if q.refused != nil {
		return q.refused
	}
	return q.spark(d.Append(ctx, name, q.SQL))
}

// spark puts a *SQLError of the translation in Spark's terms at the
// user's expression; other errors pass unchanged.
func (q *FlowQuery) spark(err error) error {
	var se *SQLError
	if !errors.As(err, &se) {
		return err
	}
	msg, rng, ok := q.res.ExplainIn(se.Type+" Error: "+se.Message, q.SQL, 0)
	if !ok && se.Position >= 0 {
		rng, ok = q.res.Locate(se.Position)
	}
	msg, rng, ok = sparkTerms(q.res, q.src, msg, rng, ok)
	if strings.Contains(msg, "__thund") {
		// A helper of the translation: its name means nothing to the
		// user, the expression's range says where.
		msg = internalRe.ReplaceAllString(msg, "(a helper of the translation)")
	}
	return &SparkError{Range: rng, Located: ok, Message: msg}
}

// internalRe finds a translation helper's name in a message.
var internalRe = regexp.MustCompile(`"?__thund\w*"?`)

// nameError reports a translator finding about names (an unknown or
// ambiguous column, a missing aggregation), which the describer reports
// from the query's text as unknown-column, as the analysis does.
func nameError(msg string) bool {
	for _, c := range []string{"[UNRESOLVED_COLUMN", "[AMBIGUOUS_REFERENCE", "[MISSING_AGGREGATION"} {
		if strings.HasPrefix(msg, c) {
			return true
		}
	}
	return false
}

// The safety net: DuckDB's binder names its own functions and types
// (list_contains(VARCHAR, INTEGER_LITERAL), "Candidate functions: ..."),
// which mean nothing to a Spark SQL author. Whatever the semantic model
// did not catch before running is put in Spark's terms here, at the
// user's own call.

var (
	// noMatchRe and bestRe find DuckDB's messages for a call whose
	// argument types no overload takes.
	noMatchRe = regexp.MustCompile(`No function matches the given name and argument types '((?:[^']|'')*)'`)
	bestRe    = regexp.MustCompile(`Could not choose a best candidate function for the function call "((?:[^"]|"")*)"`)
	// mixRe and compareRe find the messages for values of two types that
	// have no common type.
	mixRe     = regexp.MustCompile(`Cannot mix values of type (.+?) and (.+?) in (\w+) operator`)
	compareRe = regexp.MustCompile(`Cannot compare values of type (.+?) and type (.+?)(?: - an explicit cast is required|$)`)
	// duckWordRe finds DuckDB's own type names in a message.
	duckWordRe = regexp.MustCompile(`\b(?:INTEGER_LITERAL|STRING_LITERAL|VARCHAR|INTEGER|BLOB|HUGEINT|UBIGINT|UINTEGER|TIMESTAMP WITH TIME ZONE)\b(?:\[\])*`)
	// callRe reads the name a call starts with.
	callRe = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z_0-9]*(?:\.[A-Za-z_][A-Za-z_0-9]*)*)\s*\(`)
)

// SparkTypeName names a DuckDB type as Spark does (VARCHAR and its
// literals are STRING, INTEGER_LITERAL is INT, INTEGER[] is ARRAY<INT>),
// or "" when it has no Spark name.
func SparkTypeName(duck string) string {
	d := strings.TrimSpace(duck)
	u := strings.ToUpper(d)
	switch {
	case strings.HasSuffix(u, "[]"):
		if e := SparkTypeName(d[:len(d)-2]); e != "" {
			return "ARRAY<" + e + ">"
		}
		return ""
	case strings.HasSuffix(u, "_LITERAL"):
		switch strings.TrimSuffix(u, "_LITERAL") {
		case "INTEGER":
			return "INT"
		case "STRING":
			return "STRING"
		}
		return ""
	case u == "NULL" || u == `"NULL"`:
		return "VOID"
	}
	if s := translate.SparkType(d); s != "" {
		return upperType(s)
	}
	if u == "TIMESTAMP WITH TIME ZONE" || u == "TIMESTAMPTZ" {
		return "TIMESTAMP"
	}
	return ""
}

// upperType writes a Spark type name as Spark's messages do: upper
// case, a space after each comma (MAP<STRING, INT>), a struct's field
// names as they are.
func upperType(s string) string {
	var b strings.Builder
	word := func(w string) {
		if w != "" {
			b.WriteString(strings.ToUpper(w))
		}
	}
	start := 0
	var open []byte // the brackets open: a comma in DECIMAL(10,2) takes no space
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '<', '>', ',', '(', ')':
			word(s[start:i])
			b.WriteByte(c)
			switch c {
			case '<', '(':
				open = append(open, c)
			case '>', ')':
				if len(open) > 0 {
					open = open[:len(open)-1]
				}
			case ',':
				if len(open) == 0 || open[len(open)-1] == '<' {
					b.WriteByte(' ')
				}
			}
			start = i + 1
		case ':':
			b.WriteString(s[start:i]) // a field name keeps its case
			b.WriteString(": ")
			start = i + 1
		case ' ':
			word(s[start:i])
			if b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
				b.WriteByte(' ')
			}
			start = i + 1
		}
	}
	word(s[start:])
	return b.String()
}

// splitArgs splits a DuckDB argument type list at its top-level commas.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '<':
			depth++
		case ')', ']', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" || len(out) > 0 {
		out = append(out, rest)
	}
	return out
}

// wholeCall reports whether text is one call: a name, its parenthesised
// arguments and nothing after them (not f(x) AS y, not f(x) + 1).
func wholeCall(text string) bool {
	m := callRe.FindStringIndex(text)
	if m == nil {
		return false
	}
	depth := 1
	for i := m[1]; i < len(text); i++ {
		switch c := text[i]; c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return strings.TrimSpace(text[i+1:]) == ""
			}
		case '\'', '"', '`':
			for i++; i < len(text) && text[i] != c; i++ {
			}
		}
	}
	return false
}

// countArgs counts the arguments of the call text starts with (0 when
// it is not a call).
func countArgs(text string) int {
	m := callRe.FindStringSubmatchIndex(text)
	if m == nil {
		return 0
	}
	depth, n, empty := 1, 1, true
	for i := m[1]; i < len(text); i++ {
		switch c := text[i]; c {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
			if depth == 0 {
				if empty {
					return 0
				}
				return n
			}
		case ',':
			if depth == 1 {
				n++
			}
		case '\'', '"', '`':
			for i++; i < len(text) && text[i] != c; i++ {
			}
		default:
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				empty = false
			}
		}
	}
	return 0
}

// SparkBinderMessage rewrites a DuckDB message about the types of a
// call's arguments, or of values with no common type, in Spark's terms:
// Spark's error class, the user's expression expr (its text in the user's
// query; empty when the error could not be located) and its function
// name, Spark's type names, and never DuckDB's function names or its
// candidate lists. Any other message only has DuckDB's type names
// replaced by Spark's. changed is false when there was nothing to
// rewrite.
func SparkBinderMessage(msg, expr string) (out string, changed bool) {
	expr = strings.Join(strings.Fields(expr), " ")
	fn := ""
	if m := callRe.FindStringSubmatch(expr); m != nil {
		fn = strings.ToLower(m[1])
	}
	resolve := "the query"
	if expr != "" {
		resolve = `"` + expr + `"`
	}
	typeList := func(duck []string) ([]string, bool) {
		out := make([]string, len(duck))
		for i, d := range duck {
			if out[i] = SparkTypeName(d); out[i] == "" {
				return nil, false
			}
		}
		return out, true
	}
	sig := ""
	if m := noMatchRe.FindStringSubmatch(msg); m != nil {
		sig = strings.ReplaceAll(m[1], "''", "'")
	} else if m := bestRe.FindStringSubmatch(msg); m != nil {
		sig = strings.ReplaceAll(m[1], `""`, `"`)
	}
	if sig != "" {
		args := ""
		if i := strings.IndexByte(sig, '('); i >= 0 && strings.HasSuffix(sig, ")") {
			args = sig[i+1 : len(sig)-1]
		}
		operator := sig == "" || !isNameByte(sig[0])
		what := "a function of the query is called with arguments"
		switch {
		case fn != "":
			what = "`" + fn + "` is called with arguments"
		case operator && expr != "":
			what = "the operands are"
		case operator:
			what = "an operator's operands are"
		}
		detail := what + " of types it does not take"
		if types, ok := typeList(splitArgs(args)); ok && len(types) > 0 && (fn == "" || countArgs(expr) == len(types)) {
			detail = what + " of types (" + quoteTypes(types, ", ") + "), which it does not take"
			if fn == "" && operator {
				detail = what + " of types (" + quoteTypes(types, ", ") + "), which do not go together"
			}
		}
		return "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve " + resolve + " due to data type mismatch: " +
			detail + "; cast the arguments to the types Spark expects.", true
	}
	if m := mixRe.FindStringSubmatch(msg); m != nil {
		if types, ok := typeList(m[1:3]); ok {
			name := fn
			if name == "" {
				name = strings.ToLower(m[3])
			}
			return "[DATATYPE_MISMATCH.DATA_DIFF_TYPES] Cannot resolve " + resolve + " due to data type mismatch: Input to `" +
				name + "` should all be the same type, but it's (" + quoteTypes(types, " or ") + ").", true
		}
	}
	if m := compareRe.FindStringSubmatch(msg); m != nil {
		if types, ok := typeList(m[1:3]); ok {
			return "[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] Cannot resolve " + resolve + " due to data type mismatch: " +
				"the left and right operands of the binary operator have incompatible types (" + quoteTypes(types, " and ") + ").", true
		}
	}
	out = withoutCandidates(msg)
	out = duckWordRe.ReplaceAllStringFunc(out, func(w string) string {
		if s := SparkTypeName(w); s != "" {
			return s
		}
		return w
	})
	return out, out != msg
}

// quoteTypes writes type names in double quotes, joined by sep.
func quoteTypes(types []string, sep string) string {
	q := make([]string, len(types))
	for i, t := range types {
		q[i] = `"` + t + `"`
	}
	return strings.Join(q, sep)
}

// withoutCandidates drops DuckDB's candidate lists ("Candidate
// functions:", "Candidate bindings:" and the tab-indented lines after
// them) from a message.
func withoutCandidates(msg string) string {
	if !strings.Contains(msg, "Candidate functions") {
		return msg
	}
	var keep []string
	skipping := false
	for _, line := range strings.Split(msg, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "Candidate functions"):
			skipping = true
			continue
		case skipping && (strings.HasPrefix(line, "\t") || t == ""):
			continue
		}
		skipping = false
		keep = append(keep, line)
	}
	return strings.TrimRight(strings.Join(keep, "\n"), "\n ")
}

// callAt is the user's call a DuckDB error is about: the innermost
// source range of the translation's mappings that holds rng (when
// located) and is a call; when the error was not located, the call that
// produced the first generated call of duckFn. src is the flow's query
// text; ok is false when no call is found.
func callAt(res *translate.Result, src string, rng ast.Range, located bool, duckFn string) (ast.Range, bool) {
	if res == nil {
		return ast.Range{}, false
	}
	isCall := func(r ast.Range) bool {
		return r.Start >= 0 && r.Start < r.End && r.End <= len(src) && wholeCall(src[r.Start:r.End])
	}
	if located {
		if isCall(rng) {
			return rng, true
		}
		best, found := ast.Range{}, false
		for _, m := range res.Map {
			if m.Src.Start <= rng.Start && rng.End <= m.Src.End && isCall(m.Src) && (!found || m.Src.End-m.Src.Start < best.End-best.Start) {
				best, found = m.Src, true
			}
		}
		if found {
			return best, true
		}
		// a select item around the call: the one call inside it
		var inside []ast.Range
		for _, m := range res.Map {
			if rng.Start <= m.Src.Start && m.Src.End <= rng.End && isCall(m.Src) && !slices.Contains(inside, m.Src) {
				inside = append(inside, m.Src)
			}
		}
		if len(inside) == 1 {
			return inside[0], true
		}
	}
	if duckFn == "" || !isNameByte(duckFn[0]) {
		return ast.Range{}, false
	}
	// the first generated call of duckFn, and the user's call around it
	i := findWord(strings.ToLower(res.SQL), strings.ToLower(duckFn)+"(")
	if i < 0 {
		return ast.Range{}, false
	}
	r, ok := res.Locate(i)
	if !ok {
		return ast.Range{}, false
	}
	return callAt(res, src, r, true, "")
}

// findWord is the offset of the first occurrence of w in s that does not
// continue a name, or -1.
func findWord(s, w string) int {
	for from := 0; ; {
		j := strings.Index(s[from:], w)
		if j < 0 {
			return -1
		}
		j += from
		if j == 0 || !isNameByte(s[j-1]) {
			return j
		}
		from = j + 1
	}
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// duckFunction is the DuckDB function a binder message names, or "".
func duckFunction(msg string) string {
	if m := mixRe.FindStringSubmatch(msg); m != nil {
		return m[3] // COALESCE
	}
	sig := ""
	if m := noMatchRe.FindStringSubmatch(msg); m != nil {
		sig = m[1]
	} else if m := bestRe.FindStringSubmatch(msg); m != nil {
		sig = m[1]
	}
	if i := strings.IndexByte(sig, '('); i > 0 {
		return sig[:i]
	}
	return ""
}

// sparkTerms puts a DuckDB error of a translated query in Spark's terms
// (SparkBinderMessage) at the user's call: msg is the message as
// ExplainIn left it and rng, located its range in src, the flow's query.
func sparkTerms(res *translate.Result, src, msg string, rng ast.Range, located bool) (string, ast.Range, bool) {
	expr := ""
	duckFn := duckFunction(msg)
	if r, ok := callAt(res, src, rng, located, duckFn); ok {
		rng, located = r, true
		expr = src[rng.Start:rng.End]
	} else if located && (duckFn == "" || !isNameByte(duckFn[0])) && rng.Start >= 0 && rng.Start <= rng.End && rng.End <= len(src) {
		// an operator's operands, or values with no common type: the
		// expression DuckDB points at (a function's error is the call's)
		expr = src[rng.Start:rng.End]
	}
	if out, changed := SparkBinderMessage(msg, expr); changed {
		return out, rng, located
	}
	return msg, rng, located
}

// runError is queryError with the safety net: a DuckDB binder error
// about argument types is reported in Spark's terms (SparkBinderMessage)
// at the user's call, never in DuckDB's; any other error is queryError's.
func runError(f *ir.Flow, tq *translatedQuery, err error, stmt string, at int) error {
	if tq == nil || err == nil || explain(err) != err {
		return queryError(f, tq, err, stmt, at)
	}
	msg, rng, ok := tq.res.ExplainIn(err.Error(), stmt, at)
	out, rng, ok := sparkTerms(tq.res, f.SQL, msg, rng, ok)
	if out == msg {
		return queryError(f, tq, err, stmt, at)
	}
	where := tq.where(ast.Range{})
	if ok {
		where = tq.where(rng)
	}
	return &flowError{f.Name, fmt.Errorf("%s: %s: %s", where, f.Name, sparkWords(out))}
}
