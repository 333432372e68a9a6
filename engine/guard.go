package engine

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/thund-dev/thund/ir"
)

// The engine's SQL guard. A pipeline folder is text a stranger wrote, and
// the engine builds its statements around that text. Two layers make sure
// that what DuckDB executes is only what the engine meant:
//
//  1. Every statement reaches DuckDB through guardConn, the session's
//     driver connection. It asks DuckDB itself to prepare the text, which
//     DuckDB refuses when the text holds more than one statement, and
//     checks the prepared statement's type (DuckDB's own reading, not
//     ours) against the kinds the caller allows: SELECT, CREATE, INSERT,
//     DELETE, DROP by default; COPY and SET only where the engine grants
//     them for text it wrote itself (allowKinds). duckdb-go's own
//     ExecContext would run every statement of a multi-statement text;
//     through guardConn none runs.
//  2. Before user text is used, DuckDB's parser reads it alone
//     (json_serialize_sql): a dataset's query must be exactly one SELECT,
//     an expression (an expectation, a CDC deletes predicate) exactly one
//     scalar expression, which is then pasted in DuckDB's own rendering of
//     it (json_deserialize_sql), never as written. Functions that reveal
//     the machine (settings, environment, extensions, secrets, database
//     paths) or run SQL from a string are refused by name.
//
// Statements also carry the session's time limit: each one runs under
// Options.QueryTimeout, and one that exceeds it fails with a *LimitError.

// defaultKinds are the statement types any engine statement may have.
var defaultKinds = []duckdb.StmtType{
	duckdb.STATEMENT_TYPE_SELECT,
	duckdb.STATEMENT_TYPE_CREATE,
	duckdb.STATEMENT_TYPE_INSERT,
	duckdb.STATEMENT_TYPE_DELETE,
	duckdb.STATEMENT_TYPE_DROP,
}

type kindsKey struct{}

// allowKinds returns ctx granting, for the statements sent with it, the
// extra statement types kinds. Only text the engine wrote itself (the
// sandbox's settings, Parquet written to --state) is sent with a grant.
func allowKinds(ctx context.Context, kinds ...duckdb.StmtType) context.Context {
	return context.WithValue(ctx, kindsKey{}, kinds)
}

func kindAllowed(ctx context.Context, k duckdb.StmtType) bool {
	for _, d := range defaultKinds {
		if d == k {
			return true
		}
	}
	extra, _ := ctx.Value(kindsKey{}).([]duckdb.StmtType)
	for _, d := range extra {
		if d == k {
			return true
		}
	}
	return false
}

// ErrStatementRefused marks a statement the guard did not send: several
// statements in one text, or a statement of a kind the engine never runs.
var ErrStatementRefused = errors.New("refused by Thund's SQL guard")

// LimitError is a statement stopped by one of the session's limits.
type LimitError struct {
	// Limit names the limit ("query time").
	Limit string
	// Value is the limit in force ("30s"), or DuckDB's words about it.
	Value string
	// Setting is the thund.yaml key that raises it.
	Setting string
}

func (e *LimitError) Error() string {
	if e.Limit == "query time" {
		return fmt.Sprintf("stopped after the %s limit of %s (raise it with `%s` in thund.yaml)", e.Limit, e.Value, e.Setting)
	}
	return fmt.Sprintf("stopped at the %s limit: %s (raise it with `%s` in thund.yaml)", e.Limit, e.Value, e.Setting)
}

// guardConnector opens guardConns over DuckDB's connector.
type guardConnector struct {
	inner   *duckdb.Connector
	timeout time.Duration // <= 0: none
}

func (c *guardConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	conn, ok := dc.(*duckdb.Conn)
	if !ok {
		dc.Close()
		return nil, fmt.Errorf("engine: DuckDB's driver returned a %T", dc)
	}
	return &guardConn{c: conn, timeout: c.timeout}, nil
}

func (c *guardConnector) Driver() driver.Driver { return c.inner.Driver() }

// guardConn is a DuckDB connection that prepares every text as exactly
// one statement and checks its type before anything runs. It implements
// neither ExecerContext nor QueryerContext, so database/sql always goes
// through PrepareContext.
type guardConn struct {
	c       *duckdb.Conn
	timeout time.Duration
}

// prepareOne prepares query as one statement of an allowed type.
func (g *guardConn) prepareOne(ctx context.Context, query string) (*duckdb.Stmt, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Conn.Prepare (unlike PrepareContext, which executes all but the
	// last statement of a text) refuses a text of several statements.
	ds, err := g.c.Prepare(query)
	if err != nil {
		if n := statementCount(query); n > 1 {
			return nil, fmt.Errorf("%w: the text holds %d statements; the engine sends one at a time", ErrStatementRefused, n)
		}
		if strings.Contains(err.Error(), "multi-statement") {
			return nil, fmt.Errorf("%w: DuckDB reads the query as several statements (a PIVOT without an IN list does; name the values: PIVOT (... FOR col IN (...)))", ErrStatementRefused)
		}
		return nil, err
	}
	st := ds.(*duckdb.Stmt)
	kind, err := st.StatementType()
	if err != nil {
		st.Close()
		return nil, err
	}
	if !kindAllowed(ctx, kind) {
		st.Close()
		return nil, fmt.Errorf("%w: %s statements are never run for a pipeline", ErrStatementRefused, kindName(kind))
	}
	return st, nil
}

func (g *guardConn) Prepare(query string) (driver.Stmt, error) {
	return g.PrepareContext(context.Background(), query)
}

func (g *guardConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := g.prepareOne(ctx, query)
	if err != nil {
		return nil, err
	}
	return &guardStmt{st: st, timeout: g.timeout}, nil
}

func (g *guardConn) Close() error { return g.c.Close() }

func (g *guardConn) Begin() (driver.Tx, error) {
	return g.c.BeginTx(context.Background(), driver.TxOptions{})
}

func (g *guardConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return g.c.BeginTx(ctx, opts)
}

func (g *guardConn) CheckNamedValue(nv *driver.NamedValue) error { return g.c.CheckNamedValue(nv) }

// guardStmt runs a checked statement under the session's time limit.
type guardStmt struct {
	st      *duckdb.Stmt
	timeout time.Duration
}

func (s *guardStmt) Close() error  { return s.st.Close() }
func (s *guardStmt) NumInput() int { return s.st.NumInput() }

func (s *guardStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s *guardStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func (s *guardStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	lctx, cancel := limited(ctx, s.timeout)
	defer cancel()
	res, err := s.st.ExecContext(lctx, args)
	return res, limitErr(ctx, lctx, s.timeout, err)
}

func (s *guardStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	// DuckDB materialises the result while QueryContext runs, so the
	// limit covers the execution; reading rows afterwards is not timed.
	lctx, cancel := limited(ctx, s.timeout)
	defer cancel()
	rows, err := s.st.QueryContext(lctx, args)
	return rows, limitErr(ctx, lctx, s.timeout, err)
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}

// limited derives the context a statement runs under.
func limited(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout)
}

// limitErr turns the interruption of a statement whose own time limit ran
// out (its caller's context still live) into a *LimitError.
func limitErr(parent, lctx context.Context, timeout time.Duration, err error) error {
	if err == nil || parent.Err() != nil || !errors.Is(lctx.Err(), context.DeadlineExceeded) {
		return err
	}
	return &LimitError{Limit: "query time", Value: timeout.String(), Setting: "limits.query_timeout"}
}

// guardOf returns the guardConn under a *sql.Conn's Raw callback value.
func guardOf(dc any) (*guardConn, error) {
	g, ok := dc.(*guardConn)
	if !ok {
		return nil, fmt.Errorf("engine: connection is a %T, not the session's guarded connection", dc)
	}
	return g, nil
}

// statementCount is how many statements DuckDB's parser reads in text
// (0 when it cannot tell), for messages only.
func statementCount(text string) int {
	db, err := parserDB()
	if err != nil {
		return 0
	}
	var out string
	if db.QueryRow("SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", text).Scan(&out) != nil {
		return 0
	}
	var head struct {
		Statements []json.RawMessage `json:"statements"`
	}
	json.Unmarshal([]byte(out), &head)
	return len(head.Statements)
}

// kindNames are the words messages use for statement types.
var kindNames = map[duckdb.StmtType]string{
	duckdb.STATEMENT_TYPE_COPY:         "COPY",
	duckdb.STATEMENT_TYPE_EXPORT:       "EXPORT",
	duckdb.STATEMENT_TYPE_ATTACH:       "ATTACH",
	duckdb.STATEMENT_TYPE_DETACH:       "DETACH",
	duckdb.STATEMENT_TYPE_LOAD:         "LOAD or INSTALL",
	duckdb.STATEMENT_TYPE_SET:          "SET",
	duckdb.STATEMENT_TYPE_VARIABLE_SET: "SET",
	duckdb.STATEMENT_TYPE_PRAGMA:       "PRAGMA",
	duckdb.STATEMENT_TYPE_UPDATE:       "UPDATE",
	duckdb.STATEMENT_TYPE_ALTER:        "ALTER",
	duckdb.STATEMENT_TYPE_CALL:         "CALL",
	duckdb.STATEMENT_TYPE_TRANSACTION:  "transaction",
	duckdb.STATEMENT_TYPE_CREATE_FUNC:  "CREATE FUNCTION",
	duckdb.STATEMENT_TYPE_EXPLAIN:      "EXPLAIN",
	duckdb.STATEMENT_TYPE_EXECUTE:      "PREPARE or EXECUTE",
	duckdb.STATEMENT_TYPE_PREPARE:      "PREPARE or EXECUTE",
	duckdb.STATEMENT_TYPE_VACUUM:       "VACUUM or ANALYZE",
	duckdb.STATEMENT_TYPE_ANALYZE:      "VACUUM or ANALYZE",
	duckdb.STATEMENT_TYPE_EXTENSION:    "extension",
}

func kindName(k duckdb.StmtType) string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("type-%d", k)
}

// --- user text, read alone by DuckDB's parser ---------------------------

// refusedFunctions are functions a pipeline's SQL may not call, with why.
// They reveal the machine (paths, environment, installed extensions,
// secrets) or run SQL held in a string, which no check of the query's
// text could see.
var refusedFunctions = map[string]string{
	"duckdb_settings":        "it shows the engine's settings, including paths of this machine",
	"current_setting":        "it shows the engine's settings, including paths of this machine",
	"getenv":                 "it reads the environment of this machine",
	"duckdb_extensions":      "it lists the extensions installed on this machine",
	"duckdb_secrets":         "it shows stored credentials",
	"which_secret":           "it shows stored credentials",
	"duckdb_databases":       "it shows the paths of the engine's databases",
	"database_list":          "it shows the paths of the engine's databases",
	"pragma_database_list":   "it shows the paths of the engine's databases",
	"duckdb_temporary_files": "it shows the engine's temporary files",
	"duckdb_logs":            "it shows the engine's logs",
	"duckdb_log_contexts":    "it shows the engine's logs",
	"duckdb_memory":          "it shows the engine's memory use",
	"pragma_platform":        "it shows this machine's platform",
	"query":                  "it runs SQL held in a string",
	"query_table":            "it reads tables named in strings",
	"getvariable":            "it reads engine variables",
}

// refusedFunction reports why a pipeline may not call the function name
// (case-insensitive), or "" when it may.
func refusedFunction(name string) string {
	name = strings.ToLower(name)
	if why, ok := refusedFunctions[name]; ok {
		return why
	}
	if strings.HasPrefix(name, "pragma_") {
		return "PRAGMA functions show the engine's configuration"
	}
	return ""
}

// parsed is DuckDB's reading of one text.
type parsed struct {
	stmts []json.RawMessage
	raw   string // the whole JSON document
}

// parseAlone reads text with DuckDB's parser. It fails unless text is
// exactly one SELECT statement.
func parseAlone(ctx context.Context, text string) (*parsed, error) {
	db, err := parserDB()
	if err != nil {
		return nil, fmt.Errorf("start DuckDB's parser: %w", err)
	}
	var out string
	if err := db.QueryRowContext(ctx, "SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", text).Scan(&out); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	var head struct {
		Error      bool              `json:"error"`
		Type       string            `json:"error_type"`
		Message    string            `json:"error_message"`
		Statements []json.RawMessage `json:"statements"`
	}
	if err := json.Unmarshal([]byte(out), &head); err != nil {
		return nil, fmt.Errorf("read DuckDB's parse: %w", err)
	}
	switch {
	case head.Error && strings.Contains(head.Message, "Only SELECT"):
		return nil, fmt.Errorf("%w: it holds a statement other than SELECT; a pipeline's SQL is queries only", ErrStatementRefused)
	case head.Error && head.Type == "not implemented":
		// PIVOT and a few other SELECTs DuckDB reads but cannot serialise:
		// let the statement guard judge them.
		return &parsed{}, nil
	case head.Error:
		return nil, errors.New(firstLine(head.Message))
	case len(head.Statements) != 1:
		return nil, fmt.Errorf("%w: it holds %d statements; write one, without ';'", ErrStatementRefused, len(head.Statements))
	}
	p := &parsed{stmts: head.Statements, raw: out}
	if name, why := refusedCall(head.Statements[0]); name != "" {
		return nil, fmt.Errorf("%w: %s() is not available in a pipeline: %s", ErrStatementRefused, name, why)
	}
	return p, nil
}

// CheckQuery refuses query unless DuckDB's parser reads it, alone, as
// exactly one SELECT statement that calls no refused function.
func CheckQuery(ctx context.Context, query string) error {
	_, err := parseAlone(ctx, query)
	return err
}

// renderedExpr checks that expr is exactly one scalar expression and
// returns DuckDB's own rendering of it, which is what the engine pastes.
func renderedExpr(ctx context.Context, expr string) (string, error) {
	p, err := parseAlone(ctx, "SELECT "+expr)
	if err != nil {
		return "", err
	}
	if len(p.stmts) != 1 {
		return "", errors.New("DuckDB cannot read it as an expression")
	}
	var st struct {
		Node struct {
			Type       string            `json:"type"`
			SelectList []json.RawMessage `json:"select_list"`
			From       struct {
				Type string `json:"type"`
			} `json:"from_table"`
			Where     json.RawMessage   `json:"where_clause"`
			Groups    []json.RawMessage `json:"group_expressions"`
			Having    json.RawMessage   `json:"having"`
			Qualify   json.RawMessage   `json:"qualify"`
			Modifiers []json.RawMessage `json:"modifiers"`
			CTEs      struct {
				Map []json.RawMessage `json:"map"`
			} `json:"cte_map"`
		} `json:"node"`
	}
	if err := json.Unmarshal(p.stmts[0], &st); err != nil {
		return "", fmt.Errorf("read DuckDB's parse: %w", err)
	}
	n := st.Node
	isNull := func(r json.RawMessage) bool { return len(r) == 0 || string(r) == "null" }
	if n.Type != "SELECT_NODE" || len(n.SelectList) != 1 || n.From.Type != "EMPTY" || !isNull(n.Where) ||
		len(n.Groups) != 0 || !isNull(n.Having) || !isNull(n.Qualify) || len(n.Modifiers) != 0 || len(n.CTEs.Map) != 0 {
		return "", errors.New("it is not one expression; write one boolean expression, without ';', FROM or a second column")
	}
	db, err := parserDB()
	if err != nil {
		return "", err
	}
	var sqlText string
	if err := db.QueryRowContext(ctx, "SELECT json_deserialize_sql(?::JSON)", p.raw).Scan(&sqlText); err != nil {
		return "", fmt.Errorf("render: %w", err)
	}
	sqlText = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(sqlText), ";"))
	body, ok := strings.CutPrefix(sqlText, "SELECT ")
	if !ok || strings.TrimSpace(body) == "" {
		return "", fmt.Errorf("DuckDB rendered it unexpectedly as %q", sqlText)
	}
	return body, nil
}

// refusedCall finds the first call of a refused function anywhere in a
// statement's tree: scalar and table functions alike.
func refusedCall(stmt json.RawMessage) (string, string) {
	var tree any
	if json.Unmarshal(stmt, &tree) != nil {
		return "", ""
	}
	var name, why string
	var walk func(v any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			fn, ok := x["function_name"].(string)
			if !ok && x["type"] == "BASE_TABLE" {
				// DuckDB takes a table function's name without
				// parentheses as a table: FROM pragma_database_list.
				fn, ok = x["table_name"].(string)
			}
			if ok {
				if w := refusedFunction(fn); w != "" {
					name, why = fn, w
					return true
				}
			}
			for _, c := range x {
				if walk(c) {
					return true
				}
			}
		case []any:
			for _, c := range x {
				if walk(c) {
					return true
				}
			}
		}
		return false
	}
	walk(tree)
	return name, why
}

// pastedExprs are a flow's expressions in DuckDB's rendering, by the
// text the user wrote.
type pastedExprs map[string]string

// expr returns the rendering of text (which checkPasted saw).
func (p pastedExprs) expr(text string) string {
	if r, ok := p[text]; ok {
		return r
	}
	// Not checked (a bug of the engine's): fail the statement rather than
	// paste user text.
	return "error('Thund did not check this expression before use')"
}

// checkPasted refuses f when query, the DuckDB text its run executes (the
// translation of its Spark SQL, or its normalized text), is not one
// SELECT or one of the fragments pasted as written (legacy: those whose
// Spark text the engine cannot recover, fragment.go) is not exactly one
// expression, and returns those fragments in DuckDB's rendering. A
// translated fragment is checked the same way when it is translated
// (fragmentSQL).
func checkPasted(ctx context.Context, f *ir.Flow, query string, legacy []fragment) (pastedExprs, error) {
	if q := strings.TrimSpace(query); q != "" {
		if err := CheckQuery(ctx, query); err != nil {
			return nil, &flowError{f.Name, fmt.Errorf("%s: %w", f.Name, err)}
		}
	}
	out := pastedExprs{}
	for _, fr := range legacy {
		text := strings.TrimSpace(fr.legacy)
		r, err := renderedExpr(ctx, text)
		if err != nil {
			return nil, &flowError{f.Name, fmt.Errorf("%s: %s (%s): %w", f.Name, fr.what, text, err)}
		}
		out[text] = r
	}
	return out, nil
}

// pastedFragments are the fragments of f as the IR holds them, each
// checked and pasted as written (the engine without translation, and the
// guard's tests).
func pastedFragments(f *ir.Flow) []fragment {
	var out []fragment
	for _, e := range f.Expectations {
		out = append(out, fragment{what: "expectation " + e.Name, legacy: e.SQL})
	}
	if f.CDC != nil && strings.TrimSpace(f.CDC.Deletes) != "" {
		out = append(out, fragment{what: "cdc deletes predicate", legacy: f.CDC.Deletes})
	}
	if f.CDC != nil && strings.TrimSpace(f.CDC.TruncateWhen) != "" {
		out = append(out, fragment{what: "APPLY AS TRUNCATE WHEN predicate", legacy: f.CDC.TruncateWhen})
	}
	return out
}

// parser is a private in-memory DuckDB used only to parse (and render)
// text; nothing is executed on it but json_serialize_sql and
// json_deserialize_sql with the text as a parameter.
var parser struct {
	once sync.Once
	db   *sql.DB
	err  error
}

func parserDB() (*sql.DB, error) {
	parser.once.Do(func() {
		parser.db, parser.err = sql.Open("duckdb", "?threads=1&enable_external_access=false&autoinstall_known_extensions=false&autoload_known_extensions=false")
		if parser.err == nil {
			parser.db.SetMaxIdleConns(2)
		}
	})
	return parser.db, parser.err
}
