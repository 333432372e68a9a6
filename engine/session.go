// Package engine runs pipelines natively on embedded DuckDB: a sandboxed
// session per pipeline, samples registered as source tables, datasets
// materialised in dependency order with expectations, and results read back
// as Arrow record batches.
package engine

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/thund-dev/thund/ir"
)

// Options configure a session.
type Options struct {
	// StateDir, when set, keeps the database (and durable outputs) in this
	// folder; otherwise the session lives in memory.
	StateDir string
	// MemoryLimit is DuckDB's memory_limit, e.g. "2GB" ("" = DuckDB's
	// default, 80% of RAM).
	MemoryLimit string
	// Threads is DuckDB's thread count (0 = one per CPU).
	Threads int
	// TempLimit is DuckDB's max_temp_directory_size, the most it may spill
	// to its private temp folder ("" = DefaultTempLimit).
	TempLimit string
	// QueryTimeout bounds every statement a run, a describe or a preview
	// sends (0 = DefaultQueryTimeout; negative = no limit). A statement
	// that runs longer is interrupted and fails with a *LimitError.
	QueryTimeout time.Duration
}

// Default limits of a session, chosen for previews on sample data.
const (
	// DefaultMemoryLimit caps DuckDB's memory when Options.MemoryLimit is
	// not set.
	DefaultMemoryLimit = "2GB"
	// DefaultTempLimit caps DuckDB's spill files.
	DefaultTempLimit = "4GB"
	// DefaultQueryTimeout is the longest one statement may run.
	DefaultQueryTimeout = 30 * time.Second
)

// Session is one sandboxed DuckDB database for one pipeline root. Files
// under the root (and the state folder) can be read; everything else on
// the file system, the network, ATTACH, INSTALL and LOAD are refused, and
// the sandbox settings are locked so SQL cannot undo them.
type Session struct {
	Root string
	opts Options

	connector *duckdb.Connector
	db        *sql.DB
	tempDir   string
	// mirror is where the checked sample files appear for DuckDB, under
	// their root-relative paths (samples.go).
	mirror string
	// mirrorMu serialises mirror updates.
	mirrorMu sync.Mutex

	closeOnce sync.Once
	closeErr  error

	state stateStore // durable outputs (state.go)

	// names holds the relation each dataset was kept under by the last
	// run or restore (run.go's relocate).
	names struct {
		mu     sync.Mutex
		placed map[string]string
	}

	desc *describeConn // the describing connection (describe.go)

	// types holds the Spark types runs recorded for their relations'
	// columns (sparktypes.go).
	types recordedTypes

	// checked holds the SHA-256 of each query text the guard's parse
	// check accepted (CheckQuery: one SELECT, no refused function), which
	// depends on the text alone (checkedBefore).
	checked struct {
		mu   sync.Mutex
		sums map[[sha256.Size]byte]bool
	}
}

// maxChecked bounds Session.checked: past it the record starts again.
const maxChecked = 20000

// checkedBefore reports whether the guard's parse check accepted query
// (a text it reads the same way every time) in this session already.
func (s *Session) checkedBefore(query string) bool {
	if strings.TrimSpace(query) == "" {
		return false
	}
	sum := sha256.Sum256([]byte(query))
	s.checked.mu.Lock()
	defer s.checked.mu.Unlock()
	return s.checked.sums[sum]
}

// noteChecked records that the guard's parse check accepted query.
func (s *Session) noteChecked(query string) {
	if strings.TrimSpace(query) == "" {
		return
	}
	sum := sha256.Sum256([]byte(query))
	s.checked.mu.Lock()
	defer s.checked.mu.Unlock()
	if s.checked.sums == nil || len(s.checked.sums) >= maxChecked {
		s.checked.sums = map[[sha256.Size]byte]bool{}
	}
	s.checked.sums[sum] = true
}

// relation is the relation the session keeps dataset name under: where
// its last run or restore placed it, else the last part of its name.
func (s *Session) relation(name string) string {
	s.names.mu.Lock()
	defer s.names.mu.Unlock()
	if rel, ok := s.names.placed[ir.NameKey(name)]; ok {
		return rel
	}
	return relationName(name)
}

// RelationSQL returns the quoted relation that holds dataset in this
// session, for use in SQL text: where its last run or restore kept it
// (its qualified name when another dataset or source ends in the same
// name), else the last part of its name. Unlike the package's
// RelationSQL, it answers for this session alone, whatever another
// session of the process ran.
func (s *Session) RelationSQL(dataset string) string { return quoteIdent(s.relation(dataset)) }

// Open starts a session for the pipeline at root.
func Open(root string, opts Options) (*Session, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("open engine: %w", err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	s := &Session{Root: abs, opts: opts}
	dsn := ""
	// DuckDB may touch only the state folder and the session's private
	// temp folder; never the pipeline folder. The samples it reads are
	// mirrored into the temp folder from paths Thund checked (samples.go).
	var allowed []string
	if opts.StateDir != "" {
		state, err := filepath.Abs(opts.StateDir)
		if err != nil {
			return nil, fmt.Errorf("open engine: state folder: %w", err)
		}
		if err := os.MkdirAll(state, 0o755); err != nil {
			return nil, fmt.Errorf("open engine: create state folder: %w", err)
		}
		if real, err := filepath.EvalSymlinks(state); err == nil {
			state = real
		}
		if state == abs {
			return nil, fmt.Errorf("open engine: the state folder %s is the pipeline folder itself; keep the state in a folder of its own", opts.StateDir)
		}
		s.opts.StateDir = state
		dsn = filepath.Join(state, "thund.duckdb")
		allowed = append(allowed, state)
	}
	// DuckDB spills to a temp folder under memory pressure; give it one of
	// its own inside the sandbox.
	s.tempDir, err = os.MkdirTemp("", "thund-duckdb-")
	if err != nil {
		return nil, fmt.Errorf("open engine: temp folder: %w", err)
	}
	if real, err := filepath.EvalSymlinks(s.tempDir); err == nil {
		s.tempDir = real
	}
	allowed = append(allowed, s.tempDir)
	s.mirror = filepath.Join(s.tempDir, "samples")
	if err := os.MkdirAll(filepath.Join(s.tempDir, "spill"), 0o700); err != nil {
		os.RemoveAll(s.tempDir)
		return nil, fmt.Errorf("open engine: temp folder: %w", err)
	}

	s.connector, err = duckdb.NewConnector(dsn, nil)
	if err != nil {
		os.RemoveAll(s.tempDir)
		if strings.Contains(err.Error(), "Could not set lock") {
			return nil, fmt.Errorf("open engine: the state folder %s is in use by another process (another thund-watch?): stop it, or give this one another --state (%w)", opts.StateDir, err)
		}
		return nil, fmt.Errorf("open engine: start DuckDB: %w", err)
	}
	timeout := opts.QueryTimeout
	if timeout == 0 {
		timeout = DefaultQueryTimeout
	}
	s.db = sql.OpenDB(&guardConnector{inner: s.connector, timeout: timeout})
	if err := s.sandbox(allowed); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// sandbox applies the settings, in the order that works: the allowed
// folders first, then external access off, extensions off, then the lock.
func (s *Session) sandbox(allowed []string) error {
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = quoteString(a + string(filepath.Separator))
	}
	stmts := []string{
		"SET allowed_directories = [" + strings.Join(quoted, ", ") + "]",
		"SET temp_directory = " + quoteString(filepath.Join(s.tempDir, "spill")),
	}
	memory, temp := s.opts.MemoryLimit, s.opts.TempLimit
	if memory == "" {
		memory = DefaultMemoryLimit
	}
	if temp == "" {
		temp = DefaultTempLimit
	}
	stmts = append(stmts, "SET memory_limit = "+quoteString(memory), "SET max_temp_directory_size = "+quoteString(temp))
	if s.opts.Threads > 0 {
		stmts = append(stmts, fmt.Sprintf("SET threads = %d", s.opts.Threads))
	}
	stmts = append(stmts,
		"SET enable_external_access = false",
		"SET autoinstall_known_extensions = false",
		"SET autoload_known_extensions = false",
		"SET errors_as_json = false",
		"SET lock_configuration = true",
	)
	// The sandbox's own settings are the only SET statements the engine
	// ever sends.
	ctx := allowKinds(context.Background(), duckdb.STATEMENT_TYPE_SET)
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open engine: %w", err)
	}
	defer conn.Close()
	// The describing connection sets its own error format, which the lock
	// below would forbid.
	if err := s.openDescribe(ctx); err != nil {
		return err
	}
	for _, st := range stmts {
		if _, err := conn.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("open engine: %s: %w", st, err)
		}
	}
	if err := installCompat(ctx, conn); err != nil {
		return fmt.Errorf("open engine: Spark compatibility macros: %w", err)
	}
	return nil
}

// Close closes the database (checkpointing a file-backed one) and removes
// the session's temp folder. It is safe to call more than once.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		s.closeDescribe()
		if s.db != nil {
			s.closeErr = s.db.Close()
		}
		if s.connector != nil {
			if err := s.connector.Close(); err != nil && s.closeErr == nil {
				s.closeErr = err
			}
		}
		if s.tempDir != "" {
			os.RemoveAll(s.tempDir)
		}
	})
	return s.closeErr
}

// DB returns the session's database handle, for callers that need plain
// SQL (tests, benchmarks). Queries through it are sandboxed too.
func (s *Session) DB() *sql.DB { return s.db }

// Exec runs a statement.
func (s *Session) Exec(ctx context.Context, query string) error {
	_, err := s.db.ExecContext(ctx, query)
	return explain(err)
}

// QueryArrow runs query and hands its result to fn as an Arrow record
// reader, valid only during fn. Cancelling ctx interrupts DuckDB.
func (s *Session) QueryArrow(ctx context.Context, query string, fn func(array.RecordReader) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	defer conn.Close()
	return queryArrowOn(ctx, conn, query, fn)
}

// ErrSandbox marks an operation the sandbox refused.
var ErrSandbox = errors.New("refused by the sandbox")

// explain turns DuckDB's permission errors into sandbox errors that say
// why, keeping DuckDB's text.
func explain(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "Out of Memory Error") && strings.Contains(msg, "max_temp_directory_size"):
		return &LimitError{Limit: "spill space", Value: firstLine(msg), Setting: "limits.temp"}
	case strings.Contains(msg, "Out of Memory Error"):
		return &LimitError{Limit: "memory", Value: firstLine(msg), Setting: "limits.memory"}
	}
	if strings.Contains(msg, "Permission Error") || strings.Contains(msg, "configuration has been locked") || strings.Contains(msg, "disabled through configuration") {
		return fmt.Errorf("%w: Thund's DuckDB session reads no file by path: samples reach it through Thund, which checks them, and it writes only to the --state folder; it cannot attach databases, install or load extensions, reach URLs or change its settings (%s)", ErrSandbox, firstLine(msg))
	}
	return err
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// quoteIdent quotes a SQL identifier for DuckDB.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// quoteString quotes a SQL string literal.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
