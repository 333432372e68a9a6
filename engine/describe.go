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

	"github.com/thund-dev/thund/analysis/sparksql/ast"
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
}

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
	failed := map[string]error{}
	want := map[string]bool{}
	for _, src := range p.Sources {
		if src.Sample == "" {
			continue
		}
		rel := relationName(src.Name)
		want[rel] = true
		fn, pattern, err := d.s.reader(src.Sample)
		if err == nil {
			sig := fn + "\x00" + filesSignature(pattern)
			if d.dc.sources[rel] == sig {
				d.made = append(d.made, rel)
				continue
			}
			delete(d.dc.sources, rel)
			if _, err = d.create(ctx, rel, fmt.Sprintf("SELECT * FROM %s", readCall(fn, quoteString(pattern)))); err == nil {
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
	return d.create(ctx, relationName(name), query)
}

// Append checks that query's rows could be appended to the relation name
// (made by Define) by column name, as a run appends a second flow into a
// dataset, without appending anything. A DuckDB error is a *SQLError whose
// Position is relative to query.
func (d *Describer) Append(ctx context.Context, name, query string) error {
	if err := CheckQuery(ctx, query); err != nil {
		return err
	}
	prefix := "INSERT INTO temp.main." + quoteIdent(relationName(name)) + " BY NAME SELECT * FROM (\n"
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
	if err != nil {
		return err
	}
	err = d.exec(ctx, "SELECT (\n", r, "\n) FROM temp.main."+quoteIdent(relationName(name))+" LIMIT 0")
	var se *SQLError
	if r != expr && errors.As(err, &se) {
		se.Position = -1
	}
	return err
}

// Columns returns the columns of a relation made by Define or
// RegisterSources.
func (d *Describer) Columns(ctx context.Context, name string) ([]Column, error) {
	rows, err := d.conn.QueryContext(ctx, "DESCRIBE temp.main."+quoteIdent(relationName(name)))
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
}

func (e *SparkError) Error() string { return e.Message }

// TranslateFlow returns f's query as a run executes it, translated
// against the relations this Describer made so far, or nil when a run
// executes f's text instead (DuckDB dialect, streaming and CDC flows, a
// query the translator does not read or refuses, THUND_NATIVE_SQL=text).
// A query Spark's analyzer rejects (a type error the translator is sure
// of) is a *SparkError with Code translate.CodeTypeError.
func (d *Describer) TranslateFlow(ctx context.Context, f *ir.Flow) (*FlowQuery, error) {
	if !translating() || f.Dialect == "duckdb" || f.Streaming || f.CDC != nil || strings.TrimSpace(f.SQL) == "" {
		return nil, nil
	}
	cat := &duckCatalog{ctx: ctx, conn: d.conn, cols: map[string][]sema.Column{}}
	res := translate.TranslateText(f.SQL, translate.Options{
		Catalog: cat,
		Macros:  compatNames,
		Relation: func(parts []string) string {
			return quoteIdent(relationName(parts[len(parts)-1]))
		},
		DuckDBOnly: duckDBOnly,
	})
	for _, x := range res.Findings {
		if x.Code == translate.CodeTypeError && !nameError(x.Message) {
			return nil, &SparkError{Range: x.Range, Located: true, Message: x.Message, Code: x.Code}
		}
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
	return &FlowQuery{SQL: res.SQL, res: res}, nil
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
