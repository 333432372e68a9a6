package engine

// Durable outputs (`--state DIR`).
//
// With Options.StateDir set, every materialised dataset is also kept as
// Parquet under the state folder:
//
//	<StateDir>/outputs/<dataset>/part-00001.parquet
//	<StateDir>/outputs/<dataset>/part-00002.parquet
//	<StateDir>/outputs/<dataset>/state-00002-000.parquet
//	<StateDir>/outputs/<dataset>/_manifest.json
//
// The manifest is the only truth: it names the dataset, its kind and
// schema, the committed parts in order with their row counts, a generation
// number bumped by every commit and, for streaming datasets, the
// micro-batch files consumed per source, an opaque stream state and the
// stream state tables (state-<generation>-<index>.parquet: the rows a
// streaming flow keeps between triggers, see resume.go) with the hash of
// the definition they were computed under. A part or state file the
// manifest does not list is garbage left by a crash and is deleted.
//
// A commit is published atomically: DuckDB's COPY ... TO writes the part
// under a temporary name inside the dataset folder (.tmp-<random>.parquet),
// Go fsyncs it, renames it to its part name and fsyncs the folder; then the
// manifest is written the same way (temporary file, fsync, rename, fsync of
// the folder). State files are written and published like parts, before
// the manifest, under names no earlier manifest uses. A crash at any point
// leaves either the old manifest or the new one, and every part and state
// file either lists is complete on disk: the manifest is the single point
// that makes a commit's rows, stream state and consumed files visible
// together. Files a new manifest no longer lists (a materialized view's
// previous output, the previous stream state) are deleted only after it is
// published.

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/thund-dev/thund/ir"
)

// Persisted is the phase of the event a run emits after it commits a
// dataset's rows to the state folder. Its Message names the part written
// and, when the earlier outputs were dropped, says why; Rows is the
// dataset's committed row count.
const Persisted Phase = "persisted"

// Layout names inside the state folder.
const (
	outputsFolder   = "outputs"
	manifestFile    = "_manifest.json"
	partPrefix      = "part-"
	statePrefix     = "state-"
	partSuffix      = ".parquet"
	tempPrefix      = ".tmp-"
	manifestVersion = 1
)

// PersistMode says how a commit's rows relate to the committed ones.
type PersistMode string

// Persist modes.
const (
	// PersistReplace makes the commit's rows the dataset's whole output
	// (materialized views and tables on every run, complete output mode,
	// a streaming table rebuilt from scratch). The parts it supersedes are
	// deleted once the new manifest is published.
	PersistReplace PersistMode = "replace"
	// PersistAppend adds the commit's rows as one more part (a streaming
	// trigger in append or update mode, an append flow).
	PersistAppend PersistMode = "append"
)

// PersistPart is one commit of a dataset's outputs.
type PersistPart struct {
	// Mode is PersistReplace or PersistAppend ("" means replace).
	Mode PersistMode
	// Query selects the rows to write. Empty means the whole dataset
	// relation (SELECT * FROM <dataset>), which is what a replace usually
	// wants; an append must say which rows it adds.
	Query string
	// Consumed lists, per source name, the micro-batch files whose rows
	// this commit covers, as absolute paths or paths relative to the
	// pipeline root. They are added to the files the manifest already
	// records (see Restart), as root-relative slash paths.
	Consumed map[string][]string
	// State, when not nil, replaces the dataset's opaque stream state
	// (watermark and the like); nil keeps the committed state.
	State map[string]string
	// Restart, with PersistReplace only, discards the committed consumed
	// files and stream state before this commit's are recorded: set it
	// when the rows were computed from scratch over all the input rather
	// than by continuing the stream.
	Restart bool
	// StateTables, when not nil, replaces the dataset's stream state
	// tables: logical name (see resume.go) -> relation to save (a quoted
	// table name readable on the commit's connection). Each is written as
	// one state file. Nil keeps the committed ones unless Restart is set.
	StateTables map[string]string
	// Definition is the hash of the definition the stream state was
	// computed under (resume.go); recorded with StateTables.
	Definition string
}

// StateTable is one stream state table a manifest lists.
type StateTable struct {
	// Name is the logical name, such as "flow/seen:clicks" (resume.go).
	Name string `json:"name"`
	// File is the state file's name inside the dataset's output folder.
	File   string         `json:"file"`
	Rows   int64          `json:"rows"`
	Schema []OutputColumn `json:"schema"`
}

// OutputColumn is one column of a dataset's persisted schema, with its
// DuckDB type as DESCRIBE spells it.
type OutputColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// ManifestPart is one committed part file.
type ManifestPart struct {
	// File is the part's file name inside the dataset's output folder.
	File string `json:"file"`
	Rows int64  `json:"rows"`
	// Generation is the manifest generation that committed the part.
	Generation int64 `json:"generation"`
}

// Manifest is a dataset's _manifest.json: the committed state of its
// durable outputs.
type Manifest struct {
	// Format is the manifest format version (1).
	Format  int     `json:"format"`
	Dataset string  `json:"dataset"`
	Kind    ir.Kind `json:"kind"`
	// Generation counts commits, from 1.
	Generation int64          `json:"generation"`
	Schema     []OutputColumn `json:"schema"`
	// Parts are the committed parts, in commit order; together they hold
	// the dataset's rows.
	Parts []ManifestPart `json:"parts"`
	// Consumed maps a source name to the micro-batch files (relative to
	// the pipeline root, slash-separated, sorted) already in the parts.
	Consumed map[string][]string `json:"consumed,omitempty"`
	// State is the opaque stream state recorded by the streaming code.
	State map[string]string `json:"state,omitempty"`
	// Definition hashes the dataset's streaming definition (its flows'
	// queries, pragmas, output modes, keys) the stream state tables were
	// computed under; a run whose definition differs replays the stream
	// from the start instead of resuming.
	Definition string `json:"definition,omitempty"`
	// StateTables are the stream state tables: what the streaming flows
	// keep between triggers (rows seen, watermark, emitted windows, the
	// previous result, the CDC state per key), saved with the rows.
	StateTables []StateTable `json:"state_tables,omitempty"`
	CommittedAt time.Time    `json:"committed_at"`
}

// Rows returns the row count across the committed parts.
func (m *Manifest) Rows() int64 {
	var n int64
	for _, p := range m.Parts {
		n += p.Rows
	}
	return n
}

// OutputCommit describes one published commit.
type OutputCommit struct {
	Dataset    string
	Generation int64
	// Part is the new part's path relative to the state folder, slash
	// separated; empty when the commit wrote no part (an append of no
	// rows, which still records its consumed files and state).
	Part string
	// Rows is the new part's row count; TotalRows and Parts describe the
	// whole committed output after the commit.
	Rows      int64
	TotalRows int64
	Parts     int
	// StateTables counts the stream state tables the commit recorded (0
	// when it recorded none or kept the committed ones).
	StateTables int
	// Reset says why earlier outputs were dropped (schema or kind change),
	// empty otherwise.
	Reset string
}

// String is a one-line summary, the Message of a Persisted event.
func (c *OutputCommit) String() string {
	var b strings.Builder
	if c.Part != "" {
		fmt.Fprintf(&b, "committed %s (%d rows)", c.Part, c.Rows)
	} else {
		b.WriteString("committed no new rows")
	}
	fmt.Fprintf(&b, ", generation %d: %d part(s), %d rows", c.Generation, c.Parts, c.TotalRows)
	if c.StateTables > 0 {
		fmt.Fprintf(&b, ", %d stream state table(s)", c.StateTables)
	}
	if c.Reset != "" {
		b.WriteString("; earlier outputs dropped: " + c.Reset)
	}
	return b.String()
}

// RestoreStatus is what Restore did with one dataset.
type RestoreStatus string

// Restore outcomes.
const (
	// RestoreLoaded: the relation was rebuilt from the committed parts.
	RestoreLoaded RestoreStatus = "loaded"
	// RestoreDropped: the committed outputs no longer fit the pipeline (or
	// were damaged) and were deleted; the next run rebuilds them.
	RestoreDropped RestoreStatus = "dropped"
	// RestoreNone: nothing was committed for the dataset.
	RestoreNone RestoreStatus = "none"
)

// RestoredDataset is Restore's outcome for one materialised dataset.
type RestoredDataset struct {
	Name       string
	Status     RestoreStatus
	Generation int64
	Parts      int
	Rows       int64
	// Consumed counts the micro-batch files already consumed.
	Consumed int
	// Message says why outputs were dropped, or notes a loaded dataset
	// whose schema could not be checked.
	Message string
}

// RestoreReport is what Restore found in the state folder.
type RestoreReport struct {
	// Datasets are the pipeline's materialised datasets, in run order.
	Datasets []RestoredDataset
	// Removed lists the garbage files deleted (uncommitted parts and
	// temporary files left by a crash), relative to the state folder.
	Removed []string
	// Notes holds other findings: outputs of datasets the pipeline no
	// longer defines (kept), sources that could not be registered.
	Notes []string
}

// stateStore is a session's durable-output bookkeeping.
type stateStore struct {
	// mu serialises commits and restores.
	mu sync.Mutex
	// byRun marks, per dataset key, the run whose streaming code committed
	// the dataset itself, so the run does not commit it again when the
	// dataset completes.
	byRun map[string]*runState
}

// stateCrashHook, when set (by tests only), is called at each step of a
// commit, so a test can kill the process exactly there.
var stateCrashHook func(step string)

func crashPoint(step string) {
	if stateCrashHook != nil {
		stateCrashHook(step)
	}
}

// Persist commits rows of dataset d to the state folder as described by
// part, atomically, and returns what it published. It is a no-op
// (nil, nil) when the session has no StateDir or d is a view.
//
// Run commits every dataset that completes this way, on the run's own
// connection (runState.persist, which streaming code also uses per
// trigger, so its queries may read the run's temporary tables); Persist is
// for callers outside a run.
func (s *Session) Persist(ctx context.Context, d *ir.Dataset, part PersistPart) (*OutputCommit, error) {
	if s.opts.StateDir == "" || !d.Kind.Materialized() {
		return nil, nil
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("persist %s: %w", d.Name, err)
	}
	defer conn.Close()
	return s.persist(ctx, conn, d, part)
}

// persist commits part for d on the run's connection, so part.Query may
// read the run's temporary tables, and emits a Persisted event naming
// flow (a no-op without StateDir). Streaming code that commits per trigger
// calls it; a dataset committed this way during a run is not committed
// again when it completes (persistCompleted). A run that rebuilds a
// streaming target from scratch therefore commits its first trigger with
// PersistReplace and Restart, and later ones with PersistAppend.
func (st *runState) persist(ctx context.Context, d *ir.Dataset, flow string, part PersistPart) (*OutputCommit, error) {
	if st.s.opts.StateDir == "" || !d.Kind.Materialized() {
		return nil, nil
	}
	key := ir.NameKey(d.Name)
	st.s.state.mu.Lock()
	if st.s.state.byRun == nil {
		st.s.state.byRun = map[string]*runState{}
	}
	st.s.state.byRun[key] = st
	st.s.state.mu.Unlock()
	c, err := st.s.persist(ctx, st.conn, d, part)
	if err != nil {
		return nil, fmt.Errorf("persist %s: %w", d.Name, err)
	}
	st.emit(Event{Dataset: d.Name, Flow: flow, Phase: Persisted, Message: c.String(), Rows: c.TotalRows})
	return c, nil
}

// persistCompleted is Run's hook after dataset d completed: with a state
// folder, it replaces d's durable outputs with the relation's rows,
// recording the micro-batch files the run's increments consumed, unless
// the streaming code already committed d during this run.
func (st *runState) persistCompleted(ctx context.Context, d *ir.Dataset) error {
	if st.s.opts.StateDir == "" || !d.Kind.Materialized() {
		return nil
	}
	key := ir.NameKey(d.Name)
	st.s.state.mu.Lock()
	done := st.s.state.byRun[key] == st
	if done {
		delete(st.s.state.byRun, key)
	}
	st.s.state.mu.Unlock()
	if done {
		return nil
	}
	flow := ""
	if flows := st.p.FlowsInto(d.Name); len(flows) > 0 {
		flow = flows[len(flows)-1].Name
	}
	tables, def := st.stateToCommit(d)
	_, err := st.persist(ctx, d, flow, PersistPart{Mode: PersistReplace, Restart: true, Consumed: st.mergeConsumed(d, st.consumedFiles(d)),
		StateTables: tables, Definition: def})
	st.s.state.mu.Lock()
	delete(st.s.state.byRun, key)
	st.s.state.mu.Unlock()
	return err
}

// consumedFiles gathers the micro-batch files this run's increments of d
// consumed, by source.
func (st *runState) consumedFiles(d *ir.Dataset) map[string][]string {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out map[string][]string
	for _, inc := range st.res.Increments {
		if ir.NameKey(inc.Dataset) != ir.NameKey(d.Name) {
			continue
		}
		for _, f := range inc.Files {
			rel := st.s.rootRelative(f)
			src := st.sourceOfFile(rel)
			if out == nil {
				out = map[string][]string{}
			}
			out[src] = append(out[src], rel)
		}
	}
	return out
}

// sourceOfFile names the stream source whose sample folder holds the
// root-relative file rel (its folder when none does).
func (st *runState) sourceOfFile(rel string) string {
	for _, src := range st.p.Sources {
		if !src.Stream || src.Sample == "" {
			continue
		}
		if strings.HasPrefix(rel, strings.TrimSuffix(path.Clean(filepath.ToSlash(src.Sample)), "/")+"/") {
			return src.Name
		}
	}
	return path.Dir(rel)
}

// rootRelative turns a file path into the form manifests record: relative
// to the pipeline root and slash-separated (a path outside the root stays
// absolute).
func (s *Session) rootRelative(f string) string {
	if !filepath.IsAbs(f) {
		return path.Clean(filepath.ToSlash(f))
	}
	rel, err := filepath.Rel(s.Root, s.fromMirror(f))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(filepath.Clean(f))
	}
	return filepath.ToSlash(rel)
}

// Consumed returns the micro-batch files already consumed into dataset's
// committed outputs, across its sources: paths relative to the pipeline
// root, slash-separated, sorted (nil without a state folder or manifest).
//
// Streaming code resuming after a restart (once Restore has rebuilt the
// target from its parts) skips these files, so no micro-batch is consumed
// twice; Unconsumed does the filtering for the absolute paths BatchFiles
// returns. Each trigger then commits its rows with PersistAppend and the
// files it read in PersistPart.Consumed, so the next restart skips them
// too.
func (s *Session) Consumed(dataset string) []string {
	m, err := s.OutputManifest(dataset)
	if err != nil || m == nil {
		return nil
	}
	var out []string
	for _, files := range m.Consumed {
		out = append(out, files...)
	}
	sort.Strings(out)
	return out
}

// Unconsumed returns the files (absolute, as BatchFiles lists them, or
// root-relative) that dataset's committed outputs have not consumed yet,
// in their order.
func (s *Session) Unconsumed(dataset string, files []string) []string {
	done := map[string]bool{}
	for _, f := range s.Consumed(dataset) {
		done[f] = true
	}
	var out []string
	for _, f := range files {
		if !done[s.rootRelative(f)] {
			out = append(out, f)
		}
	}
	return out
}

// StreamState returns the opaque stream state committed for dataset (nil
// when none).
func (s *Session) StreamState(dataset string) map[string]string {
	m, err := s.OutputManifest(dataset)
	if err != nil || m == nil {
		return nil
	}
	return m.State
}

// OutputManifest reads dataset's committed manifest: nil, nil when the
// session has no state folder or nothing is committed.
func (s *Session) OutputManifest(dataset string) (*Manifest, error) {
	if s.opts.StateDir == "" {
		return nil, nil
	}
	dir, err := s.outputDir(dataset)
	if err != nil {
		return nil, err
	}
	return readManifest(dir)
}

// outputDir is dataset's output folder inside the state folder.
func (s *Session) outputDir(dataset string) (string, error) {
	name := outputDirName(dataset)
	if name == "" {
		return "", errors.New("dataset has no name")
	}
	return filepath.Join(s.opts.StateDir, outputsFolder, name), nil
}

// outputDirName maps a dataset name to its folder name: the name key with
// every byte outside [a-z0-9_.-] (and a leading or trailing dot) escaped
// as %xx, so any name is one safe folder name inside outputs/.
func outputDirName(dataset string) string {
	key := ir.NameKey(dataset)
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		c := key[i]
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' ||
			c == '.' && i > 0 && i < len(key)-1
		if ok {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return b.String()
}

// readManifest reads dir's manifest; nil, nil when there is none.
func readManifest(dir string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, manifestFile), err)
	}
	if m.Format != manifestVersion {
		return nil, fmt.Errorf("%s: unknown manifest format %d", filepath.Join(dir, manifestFile), m.Format)
	}
	seen := map[string]bool{}
	for _, p := range m.Parts {
		if !isPartName(p.File) || seen[p.File] {
			return nil, fmt.Errorf("%s: bad or repeated part %q", filepath.Join(dir, manifestFile), p.File)
		}
		seen[p.File] = true
	}
	names := map[string]bool{}
	for _, st := range m.StateTables {
		if !isStateName(st.File) || seen[st.File] || names[st.Name] {
			return nil, fmt.Errorf("%s: bad or repeated state file %q", filepath.Join(dir, manifestFile), st.File)
		}
		seen[st.File], names[st.Name] = true, true
	}
	return &m, nil
}

// isStateName recognises state-GGGGG-NNN.parquet.
func isStateName(name string) bool {
	if !strings.HasPrefix(name, statePrefix) || !strings.HasSuffix(name, partSuffix) {
		return false
	}
	g, n, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(name, statePrefix), partSuffix), "-")
	if !ok {
		return false
	}
	_, err1 := strconv.Atoi(g)
	_, err2 := strconv.Atoi(n)
	return err1 == nil && err2 == nil
}

// isPartName recognises part-NNNNN.parquet.
func isPartName(name string) bool {
	_, ok := partNumber(name)
	return ok
}

func partNumber(name string) (int, bool) {
	if !strings.HasPrefix(name, partPrefix) || !strings.HasSuffix(name, partSuffix) {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, partPrefix), partSuffix))
	return n, err == nil && n > 0
}

// persist publishes one commit; see PersistPart.
func (s *Session) persist(ctx context.Context, conn *sql.Conn, d *ir.Dataset, part PersistPart) (*OutputCommit, error) {
	switch part.Mode {
	case "":
		part.Mode = PersistReplace
	case PersistReplace, PersistAppend:
	default:
		return nil, fmt.Errorf("unknown persist mode %q", part.Mode)
	}
	if part.Mode == PersistAppend {
		if strings.TrimSpace(part.Query) == "" {
			return nil, errors.New("an append must give the rows it adds (PersistPart.Query)")
		}
		if part.Restart {
			return nil, errors.New("Restart only goes with PersistReplace")
		}
	}
	query := part.Query
	if strings.TrimSpace(query) == "" {
		query = "SELECT * FROM " + quoteIdent(s.relation(d.Name))
	}
	s.state.mu.Lock()
	defer s.state.mu.Unlock()

	dir, err := s.outputDir(d.Name)
	if err != nil {
		return nil, err
	}
	if err := s.ensureOutputDir(dir); err != nil {
		return nil, err
	}
	old, err := readManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("committed outputs unreadable (delete %s to start over): %w", dir, err)
	}
	schema, err := querySchema(ctx, conn, query)
	if err != nil {
		return nil, err
	}

	// Write the part under a temporary name; a crash leaves only garbage.
	tmp := filepath.Join(dir, tempPrefix+randomHex()+partSuffix)
	res, err := conn.ExecContext(allowKinds(ctx, duckdb.STATEMENT_TYPE_COPY), "COPY (SELECT * "+parquetReplace(schema)+"FROM "+probeView+") TO "+quoteString(tmp)+" (FORMAT parquet)")
	cleanup(conn, "DROP VIEW IF EXISTS "+probeView)
	if err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("write part: %w", explain(err))
	}
	rows, _ := res.RowsAffected()
	crashPoint("part-written")

	reset := ""
	if old != nil {
		if old.Kind != d.Kind {
			reset = fmt.Sprintf("kind changed from %s to %s", old.Kind, d.Kind)
		} else if !sameSchema(old.Schema, schema) {
			reset = fmt.Sprintf("schema changed from %s to %s", schemaString(old.Schema), schemaString(schema))
		}
	}
	m := &Manifest{Format: manifestVersion, Dataset: d.Name, Kind: d.Kind, Schema: schema, Generation: 1}
	if old != nil {
		m.Generation = old.Generation + 1
		if part.Mode == PersistAppend && reset == "" {
			m.Parts = append(m.Parts, old.Parts...)
		}
		if !part.Restart && (part.Mode == PersistReplace || reset == "") {
			m.Consumed = copyConsumed(old.Consumed)
			m.State = old.State
			m.Definition, m.StateTables = old.Definition, old.StateTables
		}
	}
	if part.State != nil {
		m.State = part.State
	}
	for src, files := range part.Consumed {
		if m.Consumed == nil {
			m.Consumed = map[string][]string{}
		}
		for _, f := range files {
			m.Consumed[src] = append(m.Consumed[src], s.rootRelative(f))
		}
		m.Consumed[src] = sortedUnique(m.Consumed[src])
	}

	// Stream state tables: written and published before the manifest,
	// under names carrying the new generation, so no listed file is
	// ever replaced.
	if part.StateTables != nil {
		tables, err := s.writeStateTables(ctx, conn, dir, m.Generation, part.StateTables)
		if err != nil {
			os.Remove(tmp)
			return nil, err
		}
		m.Definition, m.StateTables = part.Definition, tables
		crashPoint("state-published")
	}

	c := &OutputCommit{Dataset: d.Name, Generation: m.Generation, Rows: rows, Reset: reset}
	if part.StateTables != nil {
		c.StateTables = len(m.StateTables)
	}
	if part.Mode == PersistAppend && rows == 0 && reset == "" && old != nil {
		// Nothing to add but progress: no part, just the manifest.
		os.Remove(tmp)
	} else {
		name, err := nextPartName(dir, old)
		if err != nil {
			os.Remove(tmp)
			return nil, err
		}
		if err := publishFile(tmp, filepath.Join(dir, name)); err != nil {
			os.Remove(tmp)
			return nil, fmt.Errorf("publish part: %w", err)
		}
		crashPoint("part-published")
		m.Parts = append(m.Parts, ManifestPart{File: name, Rows: rows, Generation: m.Generation})
		c.Part = path.Join(outputsFolder, filepath.Base(dir), name)
	}
	m.CommittedAt = time.Now().UTC()
	if err := writeManifest(dir, m); err != nil {
		return nil, err
	}
	crashPoint("manifest-published")
	c.Parts, c.TotalRows = len(m.Parts), m.Rows()
	// Superseded parts and crash garbage go only now.
	sweepOutputDir(dir, m, nil)
	return c, nil
}

// probeView is the temporary view a commit reads its rows through.
var probeView = quoteIdent("__thund_persist")

// parquetReplace returns the REPLACE clause that writes the columns
// Parquet would store lossily (128-bit integers become DOUBLE) as exact
// text; Restore casts every column back to its manifest type.
func parquetReplace(schema []OutputColumn) string {
	var cols []string
	for _, c := range schema {
		if c.Type == "HUGEINT" || c.Type == "UHUGEINT" {
			cols = append(cols, "CAST("+quoteIdent(c.Name)+" AS VARCHAR) AS "+quoteIdent(c.Name))
		}
	}
	if len(cols) == 0 {
		return ""
	}
	return "REPLACE (" + strings.Join(cols, ", ") + ") "
}

// querySchema defines the probe view over query (on conn) and returns its
// columns; the caller drops the view.
func querySchema(ctx context.Context, conn *sql.Conn, query string) ([]OutputColumn, error) {
	if _, err := conn.ExecContext(ctx, "CREATE OR REPLACE TEMP VIEW "+probeView+" AS "+query+"\n"); err != nil {
		return nil, fmt.Errorf("rows to persist: %w", explain(err))
	}
	return relationSchema(ctx, conn, probeView)
}

// relationSchema describes a relation (a quoted name).
func relationSchema(ctx context.Context, conn *sql.Conn, rel string) ([]OutputColumn, error) {
	_, rows, err := queryRows(ctx, conn, "DESCRIBE "+rel)
	if err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	out := make([]OutputColumn, 0, len(rows))
	for _, r := range rows {
		if len(r) < 2 {
			return nil, errors.New("describe: unexpected result")
		}
		out = append(out, OutputColumn{Name: fmt.Sprint(r[0]), Type: fmt.Sprint(r[1])})
	}
	return out, nil
}

func sameSchema(a, b []OutputColumn) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func schemaString(cols []OutputColumn) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + c.Type
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func copyConsumed(m map[string][]string) map[string][]string {
	if m == nil {
		return nil
	}
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[k] = append([]string(nil), v...)
	}
	return out
}

func sortedUnique(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func randomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// nextPartName numbers a new part past every part listed or on disk, so
// publishing never replaces an existing file.
func nextPartName(dir string, m *Manifest) (string, error) {
	next := 1
	if m != nil {
		for _, p := range m.Parts {
			if n, ok := partNumber(p.File); ok && n >= next {
				next = n + 1
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if n, ok := partNumber(e.Name()); ok && n >= next {
			next = n + 1
		}
	}
	return fmt.Sprintf("%s%05d%s", partPrefix, next, partSuffix), nil
}

// ensureOutputDir creates dir, making the new folder entries durable.
func (s *Session) ensureOutputDir(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	outputs := filepath.Dir(dir)
	_, statErr := os.Stat(outputs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output folder: %w", err)
	}
	if statErr != nil {
		if err := syncDir(s.opts.StateDir); err != nil {
			return err
		}
	}
	return syncDir(outputs)
}

// publishFile makes tmp durable and renames it to final, then makes the
// rename durable.
func publishFile(tmp, final string) error {
	f, err := os.OpenFile(tmp, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	return syncDir(filepath.Dir(final))
}

// writeManifest publishes m as dir's manifest atomically.
func writeManifest(dir string, m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, tempPrefix+"*.json")
	if err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write manifest: %w", err)
	}
	crashPoint("manifest-written")
	if err := os.Rename(tmp, filepath.Join(dir, manifestFile)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("publish manifest: %w", err)
	}
	return syncDir(dir)
}

// syncDir fsyncs a folder so renames and new entries in it survive a
// crash. Windows cannot sync folders; its renames are durable already.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// sweepOutputDir deletes the files of dir that m does not list: temporary
// files and uncommitted or superseded parts (every part when m is nil).
// Other files are left alone. Deleted names, relative to the state folder,
// go to removed when it is not nil.
func sweepOutputDir(dir string, m *Manifest, removed *[]string) {
	listed := map[string]bool{}
	if m != nil {
		for _, p := range m.Parts {
			listed[p.File] = true
		}
		for _, st := range m.StateTables {
			listed[st.File] = true
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || listed[name] || !(strings.HasPrefix(name, tempPrefix) || isPartName(name) || isStateName(name)) {
			continue
		}
		if os.Remove(filepath.Join(dir, name)) == nil && removed != nil {
			*removed = append(*removed, path.Join(outputsFolder, filepath.Base(dir), name))
		}
		crashPoint("swept")
	}
}

// removeOutputDir deletes a dataset's outputs, the manifest first so a
// crash midway never leaves a manifest listing deleted parts.
func removeOutputDir(dir string) {
	if err := os.Remove(filepath.Join(dir, manifestFile)); err == nil || errors.Is(err, fs.ErrNotExist) {
		syncDir(dir)
		os.RemoveAll(dir)
		syncDir(filepath.Dir(dir))
	}
}

// Restore warm-starts the session from its state folder (a no-op without
// one), before any run. It deletes the garbage a crash left (temporary
// files, parts no manifest lists), then, for each materialised dataset of
// p in run order:
//
//   - with a manifest whose kind and schema still match the dataset
//     (the schema of its first flow's query, checked when that query binds
//     against the restored upstream and the samples), it recreates the
//     dataset's table from the committed parts, so previews and runs of
//     downstream datasets work without recomputing it, and the streaming
//     code can resume (see Consumed);
//   - with a manifest that no longer matches (or is damaged), it deletes
//     the outputs and says why; the next run rebuilds them;
//   - without a manifest, it drops any table the database still holds for
//     it: rows never committed to the state folder are not trusted.
//
// Views are redefined from their queries. Outputs of datasets p no longer
// defines are kept and noted. Last, the database is checkpointed.
func (s *Session) Restore(ctx context.Context, p *ir.Pipeline) (*RestoreReport, error) {
	rep := &RestoreReport{}
	if s.opts.StateDir == "" {
		return rep, nil
	}
	s.state.mu.Lock()
	defer s.state.mu.Unlock()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	defer conn.Close()
	st := &runState{s: s, p: p, g: p.Graph(), conn: conn, res: &Result{Datasets: map[string]*DatasetResult{}}}
	order, err := st.g.TopoOrder()
	if err != nil {
		return nil, fmt.Errorf("restore: %w; fix the cycle first", err)
	}

	// Garbage first: every folder under outputs/.
	known := map[string]bool{}
	for _, d := range p.Datasets {
		if d.Kind.Materialized() {
			known[outputDirName(d.Name)] = true
		}
	}
	outputs := filepath.Join(s.opts.StateDir, outputsFolder)
	entries, err := os.ReadDir(outputs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("restore: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(outputs, e.Name())
		m, err := readManifest(dir)
		if !known[e.Name()] {
			switch {
			case err != nil:
				rep.Notes = append(rep.Notes, fmt.Sprintf("outputs/%s left alone: %v", e.Name(), err))
			case m != nil:
				sweepOutputDir(dir, m, &rep.Removed)
				rep.Notes = append(rep.Notes, fmt.Sprintf("outputs of %s kept: the pipeline no longer defines it", m.Dataset))
			}
			continue
		}
		if err == nil {
			sweepOutputDir(dir, m, &rep.Removed)
		}
	}
	if len(rep.Removed) > 0 {
		for _, e := range entries {
			syncDir(filepath.Join(outputs, e.Name()))
		}
	}

	// Each dataset and source under its own relation, as the run keeps
	// them (run.go's nameRelations); the relations of an earlier session
	// are rebuilt there, not moved.
	st.nameRelations()
	st.s.names.mu.Lock()
	err = st.recordPlaced(ctx)
	st.s.names.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	if err := st.placeSources(ctx); err != nil {
		rep.Notes = append(rep.Notes, "schemas of datasets reading sources not checked: "+err.Error())
	}
	for _, k := range order {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		d := p.Dataset(k)
		if !d.Kind.Materialized() {
			st.restoreView(ctx, d)
			continue
		}
		rep.Datasets = append(rep.Datasets, st.restoreDataset(ctx, d))
	}
	// The database now matches the manifests: checkpoint it, so the next
	// start does not replay what a crash left in the write-ahead log.
	if _, err := conn.ExecContext(allowKinds(ctx, duckdb.STATEMENT_TYPE_CALL), "CHECKPOINT"); err != nil {
		rep.Notes = append(rep.Notes, "checkpoint after restore: "+firstLine(err.Error()))
	}
	return rep, nil
}

// restoreView redefines a view from its query when the query binds; a
// temporary view exists on the restore connection only, for binding.
func (st *runState) restoreView(ctx context.Context, d *ir.Dataset) {
	flows := st.p.FlowsInto(d.Name)
	if len(flows) == 0 || strings.TrimSpace(flows[0].Normalized) == "" {
		return
	}
	f := flows[0]
	if st.check(ctx, f) != nil {
		return // the run reports it
	}
	// The run translates again, over the tables as they are then.
	st.mu.Lock()
	delete(st.preparedFor, f)
	st.mu.Unlock()
	body := st.flowQuery(ctx, f)
	kw := "VIEW"
	if d.Kind == ir.TemporaryView {
		kw = "TEMP VIEW"
	}
	name := quoteIdent(st.rel(d.Name))
	if _, err := st.conn.ExecContext(ctx, "CREATE OR REPLACE "+kw+" "+name+" AS "+body); err != nil {
		return
	}
	// The drop expectations are translated over the view's own rows.
	keep, err := st.dropFilter(ctx, f, name)
	if err != nil || keep == "" {
		return
	}
	body = "SELECT * FROM (" + body + "\n) AS __thund_v WHERE " + keep
	st.conn.ExecContext(ctx, "CREATE OR REPLACE "+kw+" "+name+" AS "+body)
}

// restoreDataset restores one materialised dataset; see Restore.
func (st *runState) restoreDataset(ctx context.Context, d *ir.Dataset) RestoredDataset {
	r := RestoredDataset{Name: d.Name, Status: RestoreNone}
	dir, err := st.s.outputDir(d.Name)
	if err != nil {
		r.Message = err.Error()
		return r
	}
	// Whatever happens next, the relation is rebuilt from the manifest or
	// not at all.
	st.drop(ctx, d)
	m, err := readManifest(dir)
	drop := func(why string) RestoredDataset {
		removeOutputDir(dir)
		st.drop(ctx, d)
		r.Status, r.Message = RestoreDropped, why+"; outputs dropped, the next run rebuilds them"
		return r
	}
	if err != nil {
		return drop("manifest unreadable: " + err.Error())
	}
	if m == nil {
		if _, err := os.Stat(dir); err == nil {
			removeOutputDir(dir) // uncommitted leftovers only
		}
		return r
	}
	r.Generation, r.Parts, r.Rows = m.Generation, len(m.Parts), m.Rows()
	for _, files := range m.Consumed {
		r.Consumed += len(files)
	}
	if m.Kind != d.Kind {
		return drop(fmt.Sprintf("kind changed from %s to %s", m.Kind, d.Kind))
	}
	var files []string
	for _, part := range m.Parts {
		f := filepath.Join(dir, part.File)
		if _, err := os.Stat(f); err != nil {
			return drop("committed part " + part.File + " is missing")
		}
		files = append(files, quoteString(f))
	}
	want, why := st.expectedSchema(ctx, d)
	if want != nil && !sameSchema(want, m.Schema) {
		return drop(fmt.Sprintf("schema changed from %s to %s", schemaString(m.Schema), schemaString(want)))
	}
	if why != "" {
		r.Message = "schema not checked: " + why
	}

	rel := quoteIdent(st.rel(d.Name))
	cols := make([]string, len(m.Schema))
	casts := make([]string, len(m.Schema))
	for i, c := range m.Schema {
		cols[i] = quoteIdent(c.Name) + " " + c.Type
		casts[i] = "CAST(" + quoteIdent(c.Name) + " AS " + c.Type + ")"
	}
	if _, err := st.conn.ExecContext(ctx, "CREATE TABLE "+rel+" ("+strings.Join(cols, ", ")+")"); err != nil {
		return drop("cannot recreate the table: " + explain(err).Error())
	}
	if len(files) > 0 {
		res, err := st.conn.ExecContext(ctx, "INSERT INTO "+rel+" SELECT "+strings.Join(casts, ", ")+" FROM read_parquet(["+strings.Join(files, ", ")+"])")
		if err != nil {
			return drop("cannot read the committed parts: " + explain(err).Error())
		}
		if n, _ := res.RowsAffected(); n != m.Rows() {
			return drop(fmt.Sprintf("the committed parts hold %d rows, the manifest says %d", n, m.Rows()))
		}
	}
	r.Status = RestoreLoaded
	return r
}

// expectedSchema is the schema d's first flow produces now, or nil and the
// reason it cannot be told (no flow, a CDC flow, a query that does not
// bind yet).
func (st *runState) expectedSchema(ctx context.Context, d *ir.Dataset) ([]OutputColumn, string) {
	flows := st.p.FlowsInto(d.Name)
	if len(flows) == 0 {
		return nil, "no flow writes into it"
	}
	f := flows[0]
	if f.CDC != nil {
		return nil, "CDC targets are shaped by the apply-changes flow"
	}
	if strings.TrimSpace(f.Normalized) == "" {
		return nil, "its flow has no query"
	}
	schema, err := querySchema(ctx, st.conn, st.flowQuery(ctx, f))
	cleanup(st.conn, "DROP VIEW IF EXISTS "+probeView)
	if err != nil {
		return nil, firstLine(err.Error())
	}
	return schema, ""
}

// writeStateTables writes each stream state table as a state file of
// generation gen (temporary file, fsync, rename), in logical-name order,
// and returns what the manifest lists.
func (s *Session) writeStateTables(ctx context.Context, conn *sql.Conn, dir string, gen int64, tables map[string]string) ([]StateTable, error) {
	names := make([]string, 0, len(tables))
	for n := range tables {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]StateTable, 0, len(names))
	for i, n := range names {
		schema, err := querySchema(ctx, conn, "SELECT * FROM "+tables[n])
		if err != nil {
			cleanup(conn, "DROP VIEW IF EXISTS "+probeView)
			return nil, fmt.Errorf("stream state %s: %w", n, err)
		}
		tmp := filepath.Join(dir, tempPrefix+randomHex()+partSuffix)
		res, err := conn.ExecContext(allowKinds(ctx, duckdb.STATEMENT_TYPE_COPY), "COPY (SELECT * "+parquetReplace(schema)+"FROM "+probeView+") TO "+quoteString(tmp)+" (FORMAT parquet)")
		cleanup(conn, "DROP VIEW IF EXISTS "+probeView)
		if err != nil {
			os.Remove(tmp)
			return nil, fmt.Errorf("write stream state %s: %w", n, explain(err))
		}
		rows, _ := res.RowsAffected()
		name := fmt.Sprintf("%s%05d-%03d%s", statePrefix, gen, i, partSuffix)
		if err := publishFile(tmp, filepath.Join(dir, name)); err != nil {
			os.Remove(tmp)
			return nil, fmt.Errorf("publish stream state %s: %w", n, err)
		}
		out = append(out, StateTable{Name: n, File: name, Rows: rows, Schema: schema})
	}
	return out, nil
}

// loadStateTable reads a committed state file into a new temporary table,
// casting each column back to its recorded type, and checks its row count.
func loadStateTable(ctx context.Context, conn *sql.Conn, dir string, st StateTable, table string) error {
	cols := make([]string, len(st.Schema))
	casts := make([]string, len(st.Schema))
	for i, c := range st.Schema {
		cols[i] = quoteIdent(c.Name) + " " + c.Type
		casts[i] = "CAST(" + quoteIdent(c.Name) + " AS " + c.Type + ")"
	}
	if len(cols) == 0 {
		return fmt.Errorf("state %s has no columns", st.Name)
	}
	if _, err := conn.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE "+table+" ("+strings.Join(cols, ", ")+")"); err != nil {
		return fmt.Errorf("state %s: %w", st.Name, explain(err))
	}
	res, err := conn.ExecContext(ctx, "INSERT INTO "+table+" SELECT "+strings.Join(casts, ", ")+" FROM read_parquet("+quoteString(filepath.Join(dir, st.File))+")")
	if err != nil {
		return fmt.Errorf("state %s (%s): %w", st.Name, st.File, explain(err))
	}
	if n, _ := res.RowsAffected(); n != st.Rows {
		return fmt.Errorf("state %s (%s) holds %d rows, the manifest says %d", st.Name, st.File, n, st.Rows)
	}
	return nil
}
