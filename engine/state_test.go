package engine

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/ir"
)

// statePipeline writes a small pipeline: a stream folder src with batches
// of five rows, a streaming table events over it, a materialized view
// totals over events and a view recent over totals.
func statePipeline(t testing.TB, root string, batches int) {
	t.Helper()
	files := map[string]string{
		"thund.yaml": "backends: [native]\n",
		"events.sql": "-- @kind: streaming_table\nSELECT id, batch FROM STREAM(src)\n",
		"totals.sql": "-- @kind: materialized_view\nSELECT batch, count(*) AS n FROM events GROUP BY batch\n",
		"recent.sql": "-- @kind: view\nSELECT * FROM totals WHERE n > 0\n",
	}
	for name, text := range files {
		writeTestFile(t, filepath.Join(root, name), text)
	}
	for b := 1; b <= batches; b++ {
		writeBatch(t, root, b)
	}
}

func writeBatch(t testing.TB, root string, b int) {
	t.Helper()
	var sb strings.Builder
	sb.WriteString("id,batch\n")
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&sb, "%d,%d\n", b*100+i, b)
	}
	writeTestFile(t, batchPath(root, b), sb.String())
}

func batchPath(root string, b int) string {
	return filepath.Join(root, "samples", "src", fmt.Sprintf("batch-%04d.csv", b))
}

func writeTestFile(t testing.TB, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// openState analyses root and opens a session keeping its state in state.
func openState(t testing.TB, root, state string) (*ir.Pipeline, *Session) {
	t.Helper()
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(snap.Root, Options{StateDir: state, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return snap.Pipeline, s
}

func count(t testing.TB, s interface{ DB() *sql.DB }, query string) int64 {
	t.Helper()
	var n int64
	if err := s.DB().QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// plainDB is a DuckDB outside any session, for reading what one wrote.
type plainDB struct{ db *sql.DB }

func (p plainDB) DB() *sql.DB { return p.db }

// dirNames lists a folder's entries, sorted.
func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func mustManifest(t testing.TB, s *Session, dataset string) *Manifest {
	t.Helper()
	m, err := s.OutputManifest(dataset)
	if err != nil || m == nil {
		t.Fatalf("manifest of %s: %v, %v", dataset, m, err)
	}
	return m
}

func TestOutputDirName(t *testing.T) {
	for in, want := range map[string]string{
		"Orders":  "orders",
		"db.t":    "db.t",
		"..":      "%2e%2e",
		".hidden": "%2ehidden",
		"x.":      "x%2e",
		"a/b\\c":  "a%2fb%5cc",
		"50%":     "50%25",
		"é":       "%c3%a9",
		"a b":     "a%20b",
	} {
		if got := outputDirName(in); got != want {
			t.Errorf("outputDirName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPersistReplaceLayout(t *testing.T) {
	ctx := context.Background()
	state := filepath.Join(t.TempDir(), "state")
	s, err := Open(t.TempDir(), Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := &ir.Dataset{Name: "Daily", Kind: ir.MaterializedView}
	if err := s.Exec(ctx, "CREATE TABLE Daily AS SELECT range AS id, 'x' || range AS label FROM range(10)"); err != nil {
		t.Fatal(err)
	}
	c, err := s.Persist(ctx, d, PersistPart{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Part != "outputs/daily/part-00001.parquet" || c.Rows != 10 || c.Generation != 1 || c.Parts != 1 || c.Reset != "" {
		t.Fatalf("first commit: %+v", c)
	}
	dir := filepath.Join(s.opts.StateDir, "outputs", "daily")
	if got := dirNames(t, dir); strings.Join(got, " ") != "_manifest.json part-00001.parquet" {
		t.Fatalf("layout: %v", got)
	}
	m := mustManifest(t, s, "daily")
	want := []OutputColumn{{"id", "BIGINT"}, {"label", "VARCHAR"}}
	if m.Dataset != "Daily" || m.Kind != ir.MaterializedView || !sameSchema(m.Schema, want) || m.Rows() != 10 {
		t.Fatalf("manifest: %+v", m)
	}

	// A new run replaces the part set; the old part goes after the commit.
	if err := s.Exec(ctx, "CREATE OR REPLACE TABLE Daily AS SELECT range AS id, 'y' AS label FROM range(20)"); err != nil {
		t.Fatal(err)
	}
	c, err = s.Persist(ctx, d, PersistPart{Mode: PersistReplace})
	if err != nil {
		t.Fatal(err)
	}
	if c.Part != "outputs/daily/part-00002.parquet" || c.Generation != 2 || c.TotalRows != 20 || c.Parts != 1 {
		t.Fatalf("second commit: %+v", c)
	}
	if got := dirNames(t, dir); strings.Join(got, " ") != "_manifest.json part-00002.parquet" {
		t.Fatalf("layout after replace: %v", got)
	}
	if n := count(t, s, "SELECT count(*) FROM read_parquet("+quoteString(filepath.Join(dir, "part-00002.parquet"))+")"); n != 20 {
		t.Fatalf("part rows = %d", n)
	}
	// The manifest on disk is plain JSON with the documented fields.
	var raw map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, "_manifest.json"))
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"format", "dataset", "kind", "generation", "schema", "parts", "committed_at"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("manifest lacks %q: %s", k, data)
		}
	}
}

// TestRestoreTypes round-trips types Parquet stores differently.
func TestRestoreTypes(t *testing.T) {
	ctx := context.Background()
	s, err := Open(t.TempDir(), Options{StateDir: filepath.Join(t.TempDir(), "state")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	query := `SELECT 170141183460469231731687303715884105727::HUGEINT AS "big one", 12345678901234567890123::UHUGEINT AS u,
		'b'::ENUM('a', 'b') AS e, {'x y': 1, 'l': [1.5]} AS st, MAP {'k': 2} AS mp, [1, 2, 3]::INTEGER[3] AS arr,
		union_value(k := 1) AS un, INTERVAL 3 DAY AS iv, 1.25::DECIMAL(38, 10) AS dec, NULL::DATE AS nd`
	if err := s.Exec(ctx, "CREATE TABLE odd AS "+query); err != nil {
		t.Fatal(err)
	}
	var want string
	if err := s.DB().QueryRow("SELECT odd::VARCHAR FROM odd").Scan(&want); err != nil {
		t.Fatal(err)
	}
	d := &ir.Dataset{Name: "odd", Kind: ir.Table}
	if _, err := s.Persist(ctx, d, PersistPart{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(ctx, "DROP TABLE odd"); err != nil {
		t.Fatal(err)
	}
	p := &ir.Pipeline{Datasets: []*ir.Dataset{d}, Flows: []*ir.Flow{{Name: "odd", Target: "odd", Normalized: query}}}
	rep, err := s.Restore(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Datasets[0]; r.Status != RestoreLoaded || r.Message != "" {
		t.Fatalf("restore: %+v", r)
	}
	var got string
	if err := s.DB().QueryRow("SELECT odd::VARCHAR FROM odd").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("restored %s\nwant %s", got, want)
	}
}

func TestPersistAppend(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s, err := Open(root, Options{StateDir: filepath.Join(t.TempDir(), "state")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := &ir.Dataset{Name: "events", Kind: ir.StreamingTable}
	b := func(i int) string { return filepath.Join(s.Root, "samples", "src", fmt.Sprintf("b%d.csv", i)) }
	c, err := s.Persist(ctx, d, PersistPart{Mode: PersistAppend, Query: "SELECT range AS id FROM range(0, 5)",
		Consumed: map[string][]string{"src": {b(1)}}, State: map[string]string{"watermark": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Part != "outputs/events/part-00001.parquet" || c.Rows != 5 {
		t.Fatalf("append 1: %+v", c)
	}
	// Root-relative paths are accepted too; nil State keeps the state.
	c, err = s.Persist(ctx, d, PersistPart{Mode: PersistAppend, Query: "SELECT range AS id FROM range(5, 8)",
		Consumed: map[string][]string{"src": {"samples/src/b2.csv"}}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Part != "outputs/events/part-00002.parquet" || c.Rows != 3 || c.TotalRows != 8 || c.Parts != 2 {
		t.Fatalf("append 2: %+v", c)
	}
	// An empty trigger records its progress without a part.
	c, err = s.Persist(ctx, d, PersistPart{Mode: PersistAppend, Query: "SELECT range AS id FROM range(0)",
		Consumed: map[string][]string{"src": {b(3)}}, State: map[string]string{"watermark": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Part != "" || c.Generation != 3 || c.Parts != 2 || c.TotalRows != 8 {
		t.Fatalf("empty append: %+v", c)
	}
	m := mustManifest(t, s, "events")
	if len(m.Parts) != 2 || m.Parts[0].Generation != 1 || m.Parts[1].Generation != 2 {
		t.Fatalf("parts: %+v", m.Parts)
	}
	want := []string{"samples/src/b1.csv", "samples/src/b2.csv", "samples/src/b3.csv"}
	if got := s.Consumed("events"); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Consumed = %v", got)
	}
	if got := s.Unconsumed("events", []string{b(1), b(2), b(3), b(4)}); len(got) != 1 || got[0] != b(4) {
		t.Fatalf("Unconsumed = %v", got)
	}
	if st := s.StreamState("events"); st["watermark"] != "3" {
		t.Fatalf("StreamState = %v", st)
	}
	if s.Consumed("nothing") != nil || s.StreamState("nothing") != nil {
		t.Fatal("a dataset without outputs has consumed files")
	}
	if _, err := s.Persist(ctx, d, PersistPart{Mode: PersistAppend}); err == nil {
		t.Fatal("an append without rows was accepted")
	}
	if _, err := s.Persist(ctx, d, PersistPart{Mode: PersistAppend, Query: "SELECT 1 AS id", Restart: true}); err == nil {
		t.Fatal("an append with Restart was accepted")
	}
	// A replace keeps the stream's progress unless it restarts.
	c, err = s.Persist(ctx, d, PersistPart{Query: "SELECT range AS id FROM range(8)", Consumed: map[string][]string{"src": {b(4)}}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Parts != 1 || len(s.Consumed("events")) != 4 {
		t.Fatalf("replace: %+v, consumed %v", c, s.Consumed("events"))
	}
	if _, err := s.Persist(ctx, d, PersistPart{Query: "SELECT range AS id FROM range(8)", Restart: true}); err != nil {
		t.Fatal(err)
	}
	if s.Consumed("events") != nil || s.StreamState("events") != nil {
		t.Fatal("a restart kept the stream's progress")
	}
}

func TestPersistSchemaChange(t *testing.T) {
	ctx := context.Background()
	s, err := Open(t.TempDir(), Options{StateDir: filepath.Join(t.TempDir(), "state")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := &ir.Dataset{Name: "events", Kind: ir.StreamingTable}
	for i := 0; i < 2; i++ {
		if _, err := s.Persist(ctx, d, PersistPart{Mode: PersistAppend, Query: "SELECT range AS id FROM range(3)",
			Consumed: map[string][]string{"src": {fmt.Sprintf("b%d.csv", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	// An append with another schema starts the outputs over.
	c, err := s.Persist(ctx, d, PersistPart{Mode: PersistAppend, Query: "SELECT range AS id, 'x' AS tag FROM range(4)",
		Consumed: map[string][]string{"src": {"b9.csv"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Reset, "schema changed from (id BIGINT) to (id BIGINT, tag VARCHAR)") || c.Parts != 1 || c.TotalRows != 4 {
		t.Fatalf("schema change: %+v", c)
	}
	if !strings.Contains(c.String(), "earlier outputs dropped: schema changed") {
		t.Fatalf("message: %s", c)
	}
	dir := filepath.Join(s.opts.StateDir, "outputs", "events")
	if got := dirNames(t, dir); strings.Join(got, " ") != "_manifest.json part-00003.parquet" {
		t.Fatalf("old parts kept: %v", got)
	}
	if got := s.Consumed("events"); len(got) != 1 || got[0] != "b9.csv" {
		t.Fatalf("consumed after reset: %v", got)
	}
	// A kind change is reported on a replace.
	c, err = s.Persist(ctx, &ir.Dataset{Name: "events", Kind: ir.Table}, PersistPart{Query: "SELECT 1 AS id"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Reset, "kind changed from streaming_table to table") || c.Parts != 1 {
		t.Fatalf("kind change: %+v", c)
	}
}

func TestPersistWithoutState(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	statePipeline(t, root, 2)
	snap, s := load(t, root)
	if c, err := s.Persist(ctx, snap.Pipeline.Dataset("totals"), PersistPart{}); c != nil || err != nil {
		t.Fatalf("Persist without a state folder: %v, %v", c, err)
	}
	res, err := s.Run(ctx, snap.Pipeline, RunOptions{})
	if err != nil || res.Failed() {
		t.Fatal(err, res.Datasets)
	}
	for _, e := range res.Events {
		if e.Phase == Persisted {
			t.Fatalf("persisted without a state folder: %+v", e)
		}
	}
	rep, err := s.Restore(ctx, snap.Pipeline)
	if err != nil || len(rep.Datasets) != 0 {
		t.Fatalf("Restore without a state folder: %+v, %v", rep, err)
	}
	if s.Consumed("events") != nil {
		t.Fatal("consumed files without a state folder")
	}
}

func TestRunPersistsAndRestores(t *testing.T) {
	ctx := context.Background()
	root, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
	statePipeline(t, root, 3)
	p, s := openState(t, root, state)
	res, err := s.Run(ctx, p, RunOptions{})
	if err != nil || res.Failed() {
		t.Fatal(err, res.Datasets)
	}
	persisted := map[string]string{}
	for _, e := range res.Events {
		if e.Phase == Persisted {
			persisted[e.Dataset] = e.Message
		}
	}
	if len(persisted) != 2 || persisted["events"] == "" || persisted["totals"] == "" {
		t.Fatalf("persisted events: %v", persisted)
	}
	for _, name := range []string{"events", "totals"} {
		m := mustManifest(t, s, name)
		if m.Rows() != res.Datasets[name].Rows || len(m.Parts) != 1 {
			t.Fatalf("%s: manifest %+v, run rows %d", name, m, res.Datasets[name].Rows)
		}
	}
	if _, err := os.Stat(filepath.Join(s.opts.StateDir, "outputs", "recent")); err == nil {
		t.Fatal("a view was persisted")
	}
	// The streaming table records the micro-batch files its increments read.
	m := mustManifest(t, s, "events")
	if got := strings.Join(m.Consumed["src"], " "); got != "samples/src/batch-0001.csv samples/src/batch-0002.csv samples/src/batch-0003.csv" {
		t.Fatalf("events consumed %v", m.Consumed)
	}
	// A second run replaces the outputs.
	writeBatch(t, root, 4)
	if res, err := s.Run(ctx, p, RunOptions{}); err != nil || res.Failed() {
		t.Fatal(err)
	}
	if m := mustManifest(t, s, "events"); m.Generation != 2 || m.Rows() != 20 || len(m.Parts) != 1 || len(s.Consumed("events")) != 4 {
		t.Fatalf("second run: %+v", m)
	}
	s.Close()

	// Warm start in a new session: the tables come back from the parts,
	// even when the database lost them.
	p, s = openState(t, root, state)
	if err := s.Exec(ctx, "DROP TABLE totals"); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Restore(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Datasets) != 2 {
		t.Fatalf("report: %+v", rep)
	}
	for _, r := range rep.Datasets {
		if r.Status != RestoreLoaded || r.Message != "" {
			t.Fatalf("restore %s: %+v", r.Name, r)
		}
	}
	if r := rep.Datasets[0]; r.Name != "events" || r.Consumed != 4 || r.Rows != 20 {
		t.Fatalf("restore events: %+v", r)
	}
	if n := count(t, s, "SELECT count(*) FROM events"); n != 20 {
		t.Fatalf("events rows = %d", n)
	}
	if n := count(t, s, "SELECT sum(n) FROM recent"); n != 20 {
		t.Fatalf("recent (a view over a restored table) sums %d", n)
	}
	// A downstream run works without recomputing its upstream.
	res, err = s.Run(ctx, p, RunOptions{Only: map[string]bool{"recent": true}})
	if err != nil || res.Failed() || res.Datasets["recent"].Phase != Completed {
		t.Fatal(err, res.Datasets)
	}

	// A table the state folder never committed is not trusted.
	dir := filepath.Join(s.opts.StateDir, "outputs", "events")
	removeOutputDir(dir)
	rep, err = s.Restore(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Datasets[0].Name != "events" || rep.Datasets[0].Status != RestoreNone {
		t.Fatalf("report: %+v", rep.Datasets)
	}
	if _, err := s.DB().Exec("SELECT * FROM events"); err == nil {
		t.Fatal("an uncommitted events table survived Restore")
	}
}

func TestRestoreGarbageAndSchemaChange(t *testing.T) {
	ctx := context.Background()
	root, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
	statePipeline(t, root, 2)
	p, s := openState(t, root, state)
	if res, err := s.Run(ctx, p, RunOptions{}); err != nil || res.Failed() {
		t.Fatal(err)
	}
	outputs := filepath.Join(s.opts.StateDir, "outputs")
	// Crash leftovers: a half-written part, a published part the manifest
	// never listed, a manifest that never got renamed, and a folder
	// without a manifest for a dataset that never committed.
	for _, f := range []string{"events/.tmp-0123.parquet", "events/part-00007.parquet", "events/.tmp-99.json", "gone/_manifest.json"} {
		writeTestFile(t, filepath.Join(outputs, f), "junk")
	}
	writeTestFile(t, filepath.Join(outputs, "totals", "part-00001.parquet"), "junk") // replaced
	s.Close()

	// totals gains a column: its outputs no longer fit.
	writeTestFile(t, filepath.Join(root, "totals.sql"), "-- @kind: materialized_view\nSELECT batch, count(*) AS n, max(id) AS top FROM events GROUP BY batch\n")
	p, s = openState(t, root, state)
	rep, err := s.Restore(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(rep.Removed)
	wantRemoved := "outputs/events/.tmp-0123.parquet outputs/events/.tmp-99.json outputs/events/part-00007.parquet"
	if strings.Join(rep.Removed, " ") != wantRemoved {
		t.Fatalf("removed %v", rep.Removed)
	}
	if got := dirNames(t, filepath.Join(outputs, "events")); strings.Join(got, " ") != "_manifest.json part-00001.parquet" {
		t.Fatalf("events folder: %v", got)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "outputs/gone left alone") {
		t.Fatalf("notes: %v", rep.Notes)
	}
	byName := map[string]RestoredDataset{}
	for _, r := range rep.Datasets {
		byName[r.Name] = r
	}
	if r := byName["events"]; r.Status != RestoreLoaded || r.Rows != 10 {
		t.Fatalf("events: %+v", r)
	}
	r := byName["totals"]
	if r.Status != RestoreDropped || !strings.Contains(r.Message, "schema changed from (batch INTEGER, n BIGINT) to (batch INTEGER, n BIGINT, top INTEGER)") {
		t.Fatalf("totals: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(outputs, "totals")); err == nil {
		t.Fatal("totals outputs kept after a schema change")
	}
	if _, err := s.DB().Exec("SELECT * FROM totals"); err == nil {
		t.Fatal("stale totals table kept")
	}
	// The next run rebuilds it.
	if res, err := s.Run(ctx, p, RunOptions{}); err != nil || res.Failed() {
		t.Fatal(err)
	}
	if m := mustManifest(t, s, "totals"); len(m.Schema) != 3 || m.Generation != 1 {
		t.Fatalf("rebuilt totals: %+v", m)
	}
	s.Close()

	// A kind change drops the outputs too.
	writeTestFile(t, filepath.Join(root, "totals.sql"), "-- @kind: table\nSELECT batch, count(*) AS n, max(id) AS top FROM events GROUP BY batch\n")
	p, s = openState(t, root, state)
	rep, err = s.Restore(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Datasets {
		if r.Name == "totals" && (r.Status != RestoreDropped || !strings.Contains(r.Message, "kind changed from materialized_view to table")) {
			t.Fatalf("totals: %+v", r)
		}
	}
}

func TestRunRetailState(t *testing.T) {
	ctx := context.Background()
	state := filepath.Join(t.TempDir(), "state")
	p, s := openState(t, "../testdata/retail", state)
	res, err := s.Run(ctx, p, RunOptions{})
	if err != nil || res.Failed() {
		t.Fatal(err)
	}
	rows := map[string]int64{}
	for _, d := range p.Datasets {
		if d.Kind.Materialized() {
			m := mustManifest(t, s, d.Name)
			if r := res.Datasets[ir.NameKey(d.Name)]; m.Rows() != r.Rows {
				t.Fatalf("%s: committed %d rows, ran %d", d.Name, m.Rows(), r.Rows)
			}
			rows[d.Name] = m.Rows()
		}
	}
	if len(rows) == 0 {
		t.Fatal("retail has no materialised dataset")
	}
	s.Close()
	p, s = openState(t, "../testdata/retail", state)
	rep, err := s.Restore(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Datasets {
		if r.Status != RestoreLoaded || r.Message != "" {
			t.Fatalf("%s: %+v", r.Name, r)
		}
		if n := count(t, s, "SELECT count(*) FROM "+quoteIdent(relationName(r.Name))); n != rows[r.Name] {
			t.Fatalf("%s: restored %d rows, committed %d", r.Name, n, rows[r.Name])
		}
	}
}

// TestRunStreamingState runs the streaming and CDC pipelines with a state
// folder, then restores them in a new session.
func TestRunStreamingState(t *testing.T) {
	for _, tc := range []struct{ dir, stream, first string }{
		{"clickstream", "clicks_raw", "samples/clicks/batch-001.json"},
		{"cdc", "", ""},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			ctx := context.Background()
			root, state := filepath.Join("..", "testdata", tc.dir), filepath.Join(t.TempDir(), "state")
			p, s := openState(t, root, state)
			res, err := s.Run(ctx, p, RunOptions{})
			if err != nil || res.Failed() {
				t.Fatal(err)
			}
			for _, d := range p.Datasets {
				if d.Kind.Materialized() {
					if m := mustManifest(t, s, d.Name); m.Rows() != res.Datasets[ir.NameKey(d.Name)].Rows {
						t.Fatalf("%s: committed %d rows, ran %d", d.Name, m.Rows(), res.Datasets[ir.NameKey(d.Name)].Rows)
					}
				}
			}
			if tc.stream != "" {
				if got := s.Consumed(tc.stream); len(got) == 0 || got[0] != tc.first {
					t.Fatalf("%s consumed %v", tc.stream, got)
				}
			}
			s.Close()
			p, s = openState(t, root, state)
			rep, err := s.Restore(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Datasets {
				t.Logf("%s: %s %d rows %d consumed %s", r.Name, r.Status, r.Rows, r.Consumed, r.Message)
				if r.Status != RestoreLoaded || r.Rows != res.Datasets[ir.NameKey(r.Name)].Rows {
					t.Fatalf("%s: %+v", r.Name, r)
				}
			}
		})
	}
}

// Crash consistency.
//
// TestPersistCrash replays a stream of micro-batches in child processes
// (this test binary, running TestPersistCrashChild) and kills them with
// SIGKILL at random moments, and also at each commit step, then checks the
// state folder after each child; a last child per lane runs to the end.

const (
	crashBaseEnv = "THUND_STATE_CRASH_BASE"
	crashAtEnv   = "THUND_STATE_CRASH_AT"
	crashBatches = 120
)

// TestPersistCrashChild is the child process of TestPersistCrash: it
// restores the state, then consumes the batches not consumed yet, one
// trigger per batch: append the batch to events, replace totals. It
// prints "A n" and "R n" after each commit of batch n returns.
func TestPersistCrashChild(t *testing.T) {
	base := os.Getenv(crashBaseEnv)
	if base == "" {
		t.Skip("child process of TestPersistCrash")
	}
	if at := os.Getenv(crashAtEnv); at != "" {
		step, nth, _ := strings.Cut(at, ":")
		n, _ := strconv.Atoi(nth)
		seen := 0
		stateCrashHook = func(s string) {
			if s == step {
				if seen++; seen == n {
					self, _ := os.FindProcess(os.Getpid())
					self.Kill()
					select {}
				}
			}
		}
	}
	ctx := context.Background()
	root := filepath.Join(base, "root")
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := snap.Pipeline
	s, err := Open(root, Options{StateDir: filepath.Join(base, "state"), Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := s.Restore(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Datasets {
		if r.Status == RestoreDropped {
			t.Fatalf("restore dropped %s: %s", r.Name, r.Message)
		}
	}
	fmt.Println("READY")
	events, totals := p.Dataset("events"), p.Dataset("totals")
	if err := s.Exec(ctx, "CREATE TABLE IF NOT EXISTS events (id INTEGER, batch INTEGER)"); err != nil {
		t.Fatal(err)
	}
	files, err := BatchFiles(filepath.Join(root, "samples", "src"))
	if err != nil {
		t.Fatal(err)
	}
	// A restart first recomputes the derived dataset, as a run does with
	// every materialized view, so totals never lags events by more than
	// the one batch a kill between the two commits can leave.
	if _, err := s.Persist(ctx, totals, PersistPart{Query: p.FlowsInto("totals")[0].Normalized}); err != nil {
		t.Fatal(err)
	}
	// DuckDB reads the batches from the session's mirror, as a run does.
	if _, _, err := s.reader("samples/src"); err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Unconsumed("events", files) {
		q := "SELECT id, batch FROM read_csv(" + quoteString(s.mirrorPath(s.relOf(f))) + ", header = true, columns = {'id': 'INTEGER', 'batch': 'INTEGER'})"
		if err := s.Exec(ctx, "INSERT INTO events "+q); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Persist(ctx, events, PersistPart{Mode: PersistAppend, Query: q, Consumed: map[string][]string{"src": {f}}}); err != nil {
			t.Fatal(err)
		}
		b := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "batch-"), ".csv")
		fmt.Println("A", b)
		if _, err := s.Persist(ctx, totals, PersistPart{Query: p.FlowsInto("totals")[0].Normalized}); err != nil {
			t.Fatal(err)
		}
		fmt.Println("R", b)
	}
	fmt.Println("DONE")
}

// crashRun is one child process's outcome.
type crashRun struct {
	appended, replaced []int // batches the child reported committed
	done, killed       bool
	startup            time.Duration // until READY
	gaps               []time.Duration
	output             string
}

// crashKill says when the parent kills a child: after lines commit lines
// (counted from READY) and then delay; fromStart kills delay after the
// start instead. A nil plan lets the child run to its end (or kill itself
// at its crash step).
type crashKill struct {
	lines     int
	delay     time.Duration
	fromStart bool
}

// runCrashChild runs one child process, killing it as plan says.
func runCrashChild(t *testing.T, base, crashAt string, plan *crashKill) crashRun {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPersistCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashBaseEnv+"="+base, crashAtEnv+"="+crashAt)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	watchdog := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer watchdog.Stop()
	var (
		mu     sync.Mutex
		run    crashRun
		text   strings.Builder
		closed = make(chan struct{})
		lines  = make(chan int, 1<<16) // commit lines seen, after READY
	)
	go func() {
		defer close(closed)
		sc := bufio.NewScanner(out)
		var last time.Time
		n := 0
		for sc.Scan() {
			line := sc.Text()
			now := time.Now()
			mu.Lock()
			text.WriteString(line + "\n")
			switch kind, arg, _ := strings.Cut(line, " "); kind {
			case "READY":
				run.startup, last = now.Sub(start), now
				lines <- 0
			case "A", "R":
				b, _ := strconv.Atoi(arg)
				if kind == "A" {
					run.appended = append(run.appended, b)
				} else {
					run.replaced = append(run.replaced, b)
				}
				run.gaps = append(run.gaps, now.Sub(last))
				last = now
				n++
				lines <- n
			case "DONE":
				run.done = true
			}
			mu.Unlock()
		}
	}()
	if plan != nil {
		if !plan.fromStart {
		wait:
			for {
				select {
				case n := <-lines:
					if n >= plan.lines {
						break wait
					}
				case <-closed:
					break wait
				}
			}
		}
		time.Sleep(plan.delay)
		cmd.Process.Kill()
	}
	<-closed
	err = cmd.Wait()
	run.output = text.String() + stderr.String()
	run.killed = cmd.ProcessState.ExitCode() == -1
	if err != nil && !run.killed {
		t.Fatalf("child failed: %v\n%s", err, run.output)
	}
	return run
}

// checkCrashState checks the state folder after a child ended: every
// manifest parses, lists distinct parts that exist with their row counts,
// events holds each consumed batch exactly once (and only those), totals
// agrees with events, and nothing reported committed is missing. It
// returns the batches committed to events.
func checkCrashState(t *testing.T, base string, committedA, committedR map[int]bool) map[int]bool {
	t.Helper()
	// Read the state folder's Parquet as an outsider would, with a plain
	// DuckDB: a session reads no file by path.
	db, err := sql.Open("duckdb", "?threads=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := plainDB{db}
	outputs := filepath.Join(base, "state", "outputs")
	manifests := map[string]*Manifest{}
	for _, name := range []string{"events", "totals"} {
		dir := filepath.Join(outputs, name)
		m, err := readManifest(dir)
		if err != nil {
			t.Fatalf("%s manifest: %v", name, err)
		}
		if m == nil {
			continue
		}
		manifests[name] = m
		seen := map[string]bool{}
		var files []string
		for _, part := range m.Parts {
			if seen[part.File] {
				t.Fatalf("%s lists %s twice", name, part.File)
			}
			seen[part.File] = true
			files = append(files, quoteString(filepath.Join(dir, part.File)))
		}
		if len(files) == 0 {
			continue
		}
		got := map[string]int64{}
		rows, err := s.DB().Query("SELECT filename, count(*) FROM read_parquet([" + strings.Join(files, ", ") + "], filename = true) GROUP BY filename")
		if err != nil {
			t.Fatalf("%s parts: %v", name, err)
		}
		for rows.Next() {
			var f string
			var n int64
			rows.Scan(&f, &n)
			got[filepath.Base(f)] = n
		}
		rows.Close()
		for _, part := range m.Parts {
			if got[part.File] != part.Rows {
				t.Fatalf("%s/%s holds %d rows, manifest says %d", name, part.File, got[part.File], part.Rows)
			}
		}
	}
	parts := func(name string) string {
		var q []string
		for _, part := range manifests[name].Parts {
			q = append(q, quoteString(filepath.Join(outputs, name, part.File)))
		}
		return "read_parquet([" + strings.Join(q, ", ") + "])"
	}
	batches := map[int]bool{}
	if m := manifests["events"]; m != nil && len(m.Parts) > 0 {
		if n, distinct := count(t, s, "SELECT count(*) FROM "+parts("events")), count(t, s, "SELECT count(DISTINCT id) FROM "+parts("events")); n != distinct {
			t.Fatalf("events holds %d rows but %d distinct ids: a batch was consumed twice", n, distinct)
		}
		rows, err := s.DB().Query("SELECT batch, count(*) FROM " + parts("events") + " GROUP BY batch")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var b, n int
			rows.Scan(&b, &n)
			if n != 5 {
				t.Fatalf("batch %d has %d rows in events", b, n)
			}
			batches[b] = true
		}
		rows.Close()
	}
	consumed := map[int]bool{}
	if m := manifests["events"]; m != nil {
		for _, f := range m.Consumed["src"] {
			b, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(f, "samples/src/batch-"), ".csv"))
			consumed[b] = true
		}
	}
	if len(consumed) != len(batches) {
		t.Fatalf("events consumed %d batches but holds %d", len(consumed), len(batches))
	}
	for b := range batches {
		if !consumed[b] {
			t.Fatalf("events holds batch %d but did not record consuming it", b)
		}
	}
	for b := range committedA {
		if !batches[b] {
			t.Fatalf("batch %d was committed to events but is lost", b)
		}
	}
	if m := manifests["totals"]; m != nil {
		if len(m.Parts) != 1 {
			t.Fatalf("totals lists %d parts", len(m.Parts))
		}
		rows, err := s.DB().Query("SELECT batch, n FROM " + parts("totals"))
		if err != nil {
			t.Fatal(err)
		}
		in := map[int]bool{}
		for rows.Next() {
			var b, n int
			rows.Scan(&b, &n)
			if n != 5 || !batches[b] {
				t.Fatalf("totals has batch %d with %d rows, not in events", b, n)
			}
			in[b] = true
		}
		rows.Close()
		// totals is replaced right after each append: it may lag by one.
		if len(batches)-len(in) > 1 {
			t.Fatalf("totals covers %d batches, events %d", len(in), len(batches))
		}
		for b := range committedR {
			if !in[b] {
				t.Fatalf("totals lost batch %d", b)
			}
		}
	} else if len(committedR) > 0 {
		t.Fatal("totals lost its manifest")
	}
	return batches
}

func TestPersistCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	// Three lanes, each its own state folder, share the commit steps and
	// the random kills and run in parallel.
	const lanes, iterations = 3, 30
	steps := []string{"part-written", "part-published", "manifest-written", "manifest-published", "swept"}
	var mu sync.Mutex
	var total crashTally
	t.Run("lanes", func(t *testing.T) {
		for lane := 0; lane < lanes; lane++ {
			var mine []string
			for i, step := range steps {
				if i%lanes == lane {
					mine = append(mine, step)
				}
			}
			random := iterations / lanes
			if lane < iterations%lanes {
				random++
			}
			t.Run(fmt.Sprint(lane), func(t *testing.T) {
				t.Parallel()
				got := crashLane(t, mine, random)
				mu.Lock()
				total.add(got)
				mu.Unlock()
			})
		}
	})
	t.Logf("%d children in %d lanes: %d killed (%d at commit steps, %d by random SIGKILL); %d of %d batches committed before the last restarts, which resumed and finished",
		total.children, lanes, total.kills, total.stepKills, total.kills-total.stepKills, total.beforeLast, lanes*crashBatches)
}

// crashTally counts what crash lanes did.
type crashTally struct {
	children, kills, stepKills, beforeLast int
}

func (c *crashTally) add(o crashTally) {
	c.children += o.children
	c.kills += o.kills
	c.stepKills += o.stepKills
	c.beforeLast += o.beforeLast
}

// crashLane replays the stream in its own state folder: one child killed
// at each of steps, random children killed by SIGKILL, then a last child
// that must resume and finish. The state is checked after every child.
func crashLane(t *testing.T, steps []string, random int) crashTally {
	// A killed process loses nothing the kernel holds, so fsync plays no
	// part here: tmpfs, when there is one, keeps the test fast.
	base := t.TempDir()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "thund-crash-"); err == nil {
			base = dir
			t.Cleanup(func() { os.RemoveAll(dir) })
		}
	}
	statePipeline(t, filepath.Join(base, "root"), crashBatches)
	var tally crashTally
	committedA, committedR := map[int]bool{}, map[int]bool{}
	startup, gap := 200*time.Millisecond, 5*time.Millisecond
	record := func(run crashRun) {
		tally.children++
		for _, b := range run.appended {
			committedA[b] = true
		}
		for _, b := range run.replaced {
			committedR[b] = true
		}
		if run.killed {
			tally.kills++
		}
		if run.startup > 0 {
			startup = run.startup
		}
		if len(run.gaps) > 0 {
			g := append([]time.Duration(nil), run.gaps...)
			sort.Slice(g, func(i, j int) bool { return g[i] < g[j] })
			gap = g[len(g)/2]
		}
		checkCrashState(t, base, committedA, committedR)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(len(steps)+random)))
	// Each commit step, killed from inside at its nth passage.
	for _, step := range steps {
		at := fmt.Sprintf("%s:%d", step, 1+rng.IntN(3))
		run := runCrashChild(t, base, at, nil)
		if !run.killed {
			t.Fatalf("child did not die at %s:\n%s", at, run.output)
		}
		tally.stepKills++
		record(run)
	}
	// Random SIGKILLs, timed from the pace the children show: mostly
	// within the first commits after READY, some during start-up and
	// Restore.
	for i := 0; i < random; i++ {
		plan := &crashKill{lines: rng.IntN(3), delay: time.Duration(rng.Int64N(int64(2*gap) + 1))}
		if i%5 == 4 {
			plan = &crashKill{fromStart: true, delay: time.Duration(rng.Int64N(int64(startup) + 1))}
		}
		run := runCrashChild(t, base, "", plan)
		if run.done {
			// Only a stalled parent lets a child outrun its kill.
			t.Logf("iteration %d: the stream ended before the kill", i)
		}
		record(run)
	}
	tally.beforeLast = len(committedA)
	// A last restart resumes and finishes: every batch exactly once.
	run := runCrashChild(t, base, "", nil)
	if !run.done {
		t.Fatalf("final child did not finish:\n%s", run.output)
	}
	record(run)
	if n := len(checkCrashState(t, base, committedA, committedR)); n != crashBatches {
		t.Fatalf("events holds %d of %d batches", n, crashBatches)
	}
	for _, name := range []string{"events", "totals"} {
		dir := filepath.Join(base, "state", "outputs", name)
		m, _ := readManifest(dir)
		want := []string{manifestFile}
		for _, p := range m.Parts {
			want = append(want, p.File)
		}
		sort.Strings(want)
		if got := dirNames(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("%s folder holds files its manifest does not list: %v", name, got)
		}
	}
	return tally
}
