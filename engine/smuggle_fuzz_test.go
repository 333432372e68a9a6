package engine

// FuzzSmuggle (issue #14): whatever text a pipeline folder puts in a
// dataset's query, an expectation or a @cdc deletes predicate, nothing but
// a SELECT may reach DuckDB. The fuzzer builds that text from a template
// (the seeds are every smuggling form found so far: statement separators
// hidden behind comments, `--` ended by a bare CR, nested block comments,
// E'' strings, backslashes, dollar quotes plain and tagged, `1x$$ ...
// y$$`, unicode) with fragments of the same kind inserted at fuzzed
// places, and the placeholder {PWN} standing for a list of statements with
// side effects. The text then goes where the engine takes it: described
// (Describer.Define, .Check: what --check --columns and the editor do on
// open) and run (Session.Run of a one-dataset pipeline).
//
// The oracle does not trust any reading of the text, ours or DuckDB's:
// after the text has been described and run, no file appeared or changed
// under the session's folders (the pipeline root and TMPDIR, which holds
// the engine's private temp folder), the canary table created before
// holds its one row, no table, macro or attached database appeared, and
// the files the smuggled statements aim at do not exist.
//
// Run: go test -tags=duckdb_arrow -run '^$' -fuzz FuzzSmuggle -fuzztime 10m ./engine/
// (plain go test runs the seeds).

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/ir"
)

// smugglePayload is what {PWN} stands for: statements that each leave a
// trace the oracle sees. {PATH} is the pipeline root's pwned prefix.
const smugglePayload = "CREATE OR REPLACE MACRO pwned_m() AS 1; INSERT INTO canary VALUES (2); " +
	"CREATE TABLE pwned_t AS SELECT 1 AS a; COPY (SELECT 1 AS a) TO '{PATH}.csv' (HEADER false, QUOTE '', DELIMITER chr(1)); " +
	"EXPORT DATABASE '{PATH}_export'; ATTACH '{PATH}.db' AS pwned_db; DROP TABLE canary"

// smuggleFragments are what the fuzzer's noise bytes insert: the
// characters lexers disagree about.
var smuggleFragments = []string{
	"--", "\r", "\n", "\r\n", "/*", "*/", "/* /* */", "'", "''", "E'", "e'", "\\", "\\'", "'\\''",
	"$$", "$t$", "$T$", "$", "1x$$", "y$$", "\"", "\"\"", "`", ";", "(", ")", "),", " ", "\t", "\f", "\v",
	"é", "\u2028", "\u00a0", "\ufeff", "\x00", "x", "1", "AS ", "SELECT ", " FROM range(1)", "{PWN}",
	"'{PATH}.csv'", "--\r", "-- \\\n", "U&'", "X'", "N'",
}

// smuggleModes are where the text goes.
const (
	smuggleQuery   = iota // a materialized view's query
	smuggleExpect         // an expectation of SELECT 1 AS x (warn, drop, fail by mode/3)
	smuggleDeletes        // a @cdc deletes predicate
	smuggleModes
)

func FuzzSmuggle(f *testing.F) {
	for _, s := range []struct {
		mode  uint8
		text  string
		noise []byte
	}{
		// Queries.
		{smuggleQuery, "SELECT 1 AS x", nil},
		{smuggleQuery, "SELECT 1 AS x; {PWN}", nil},
		{smuggleQuery, "SELECT 1 AS x /* /* */ ; {PWN}; -- */", nil},
		{smuggleQuery, "SELECT 1 AS x --\r; {PWN}; SELECT 2 AS y\n, 3 AS z", nil},
		{smuggleQuery, "SELECT 1 AS x -- note\r; {PWN};\rSELECT 2 AS y -- \n, 3 AS z", nil},
		{smuggleQuery, "SELECT 1 AS x --\r'\n; COPY (SELECT 1 AS a) TO $${PATH}.csv$$; SELECT 2 AS y --'\n", nil},
		{smuggleQuery, "SELECT 1x$$, 2 AS b; {PWN}; SELECT 1 y$$, 3 AS c", nil},
		{smuggleQuery, "SELECT 1x$$ AS x; {PWN}; SELECT 1 y$$", nil},
		{smuggleQuery, "SELECT 'a\\' AS s; {PWN}; SELECT '' AS t", nil},
		{smuggleQuery, "SELECT E'\\'' AS s; {PWN}; SELECT ''' AS t", nil},
		{smuggleQuery, "SELECT E'\\\\' AS s; {PWN}", nil},
		{smuggleQuery, "SELECT $t$'$t$ AS s; {PWN}; SELECT $t$'$t$ AS t", nil},
		{smuggleQuery, "SELECT $$'$$ AS s; {PWN}; SELECT '$$' AS t", nil},
		{smuggleQuery, "SELECT 1 AS x -- \\\n; {PWN}", nil},
		{smuggleQuery, "SELECT \"a;\" FROM (SELECT 1 AS \"a;\"); {PWN}", nil},
		{smuggleQuery, "SELECT `a` FROM (SELECT 1 AS a); {PWN}", nil},
		{smuggleQuery, "SELECT 1 AS é; {PWN}", nil},
		{smuggleQuery, "SELECT 1 AS x\u2028; {PWN}", nil},
		{smuggleQuery, "SELECT 1 AS x\x00; {PWN}", nil},
		{smuggleQuery, "SELECT U&'\\0027' AS s; {PWN}; SELECT '' AS t", nil},
		{smuggleQuery, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r; {PWN}", nil},
		{smuggleQuery, "FROM (SELECT 1 AS x); {PWN}", nil},
		{smuggleQuery, "SELECT * FROM query('{PWN}')", nil},
		{smuggleQuery, "SELECT 1 AS x {PWN}", []byte{0, 0, 17, 22}},
		// Expectations, as warn, drop and fail.
		{smuggleExpect, "x > 0", nil},
		{smuggleExpect + smuggleModes, "x > 0", nil},
		{smuggleExpect + 2*smuggleModes, "x > 0", nil},
		{smuggleExpect, "E'\\'' = 'a') FROM range(1); {PWN}; SELECT (E'\\''", nil},
		{smuggleExpect, "x > 0), false); {PWN}; SELECT ((1", nil},
		{smuggleExpect + smuggleModes, "x > 0), false); {PWN}; SELECT ((1", nil},
		{smuggleExpect + 2*smuggleModes, "x > 0), false); {PWN}; SELECT ((1", nil},
		{smuggleExpect, "/* (( */ x > 0), false); {PWN}; SELECT ((1 /* )) */", nil},
		{smuggleExpect, "$$'$$ = 'a'), false); {PWN}; SELECT (('", nil},
		{smuggleExpect, "$t$'$t$ = 'a'), false); {PWN}; SELECT (('", nil},
		{smuggleExpect, "E'\\'' = 'a'), false); {PWN}; SELECT (('", nil},
		{smuggleExpect, "x > 0 --\r), false); {PWN}; SELECT ((1", nil},
		{smuggleExpect, "x > 0 -- )), false)", nil},
		{smuggleExpect, "x > 0) FROM range(1); {PWN}; SELECT (1", nil},
		{smuggleExpect, "x = 1x$$) FROM range(1); {PWN}; SELECT (y$$", nil},
		{smuggleExpect, "getenv('HOME') IS NOT NULL", nil},
		{smuggleExpect, "(SELECT count(*) FROM duckdb_settings()) > 0", nil},
		// CDC deletes predicates.
		{smuggleDeletes, "v = 'D'", nil},
		{smuggleDeletes, "$$'$$ = 'a') FROM range(1); {PWN}; SELECT ('x' = $$'$$", nil},
		{smuggleDeletes, "$t$'$t$ = 'a') FROM range(1); {PWN}; SELECT ('x' = $t$'$t$", nil},
		{smuggleDeletes, "E'\\'' = 'a'), false); {PWN}; SELECT (('", nil},
		{smuggleDeletes, "v = 'D'), false); {PWN}; SELECT ((true", nil},
		{smuggleDeletes, "v = 'D' --\r), false); {PWN}; SELECT ((true", nil},
	} {
		f.Add(s.mode, s.text, s.noise)
	}
	h := newSmuggleHarness(f)
	f.Fuzz(func(t *testing.T, mode uint8, text string, noise []byte) {
		h.run(t, mode, text, noise)
	})
}

// smuggleHarness is one worker's session and the pipeline templates.
type smuggleHarness struct {
	tmp, root string
	s         *Session
	dirty     bool // a check failed: the next input gets a fresh session
	batches   int  // micro-batches written for the CDC flow
	query     *ir.Pipeline
	cdc       *ir.Pipeline
}

func newSmuggleHarness(f *testing.F) *smuggleHarness {
	tmp := f.TempDir()
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	// The engine's private temp folder goes under tmp, which is listed.
	f.Setenv("TMPDIR", tmp)
	h := &smuggleHarness{tmp: tmp, root: filepath.Join(tmp, "pipeline")}
	for name, text := range map[string]string{
		"thund.yaml":                  "backends: [native]\n",
		"q.sql":                       "-- @kind: materialized_view\nSELECT 1 AS x\n",
		"cdc.sql":                     "-- @kind: streaming_table\n-- @cdc: keys=(id) sequence_by=seq\nSELECT * FROM STREAM(changes)\n",
		"samples/changes/batch-1.csv": "id,seq,_change_type,v\n1,1,INSERT,a\n2,2,INSERT,D\n",
	} {
		p := filepath.Join(h.root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	snap, err := analysis.Load(h.root, analysis.Options{})
	if err != nil {
		f.Fatal(err)
	}
	pick := func(name string) *ir.Pipeline {
		p := &ir.Pipeline{Name: "smuggle", Root: h.root}
		for _, d := range snap.Pipeline.Datasets {
			if d.Name == name {
				p.Datasets = append(p.Datasets, d)
			}
		}
		for _, fl := range snap.Pipeline.Flows {
			if fl.Target == name {
				p.Flows = append(p.Flows, fl)
			}
		}
		p.Sources = snap.Pipeline.Sources
		if len(p.Datasets) != 1 || len(p.Flows) != 1 {
			f.Fatalf("template %s: %d datasets, %d flows; diagnostics %v", name, len(p.Datasets), len(p.Flows), snap.Diagnostics)
		}
		return p
	}
	h.query, h.cdc = pick("q"), pick("cdc")
	f.Cleanup(func() {
		if h.s != nil {
			h.s.Close()
		}
	})
	return h
}

// build returns the text the input stands for: text with each noise pair
// (position, fragment) inserted, then {PWN} and {PATH} expanded.
func (h *smuggleHarness) build(text string, noise []byte) string {
	for i := 0; i+1 < len(noise) && i < 64; i += 2 {
		at := int(noise[i]) % (len(text) + 1)
		text = text[:at] + smuggleFragments[int(noise[i+1])%len(smuggleFragments)] + text[at:]
	}
	text = strings.ReplaceAll(text, "{PWN}", smugglePayload)
	return strings.ReplaceAll(text, "{PATH}", filepath.Join(h.root, "pwned"))
}

// pipeline returns the one-dataset pipeline that carries text.
func (h *smuggleHarness) pipeline(mode uint8, text string) *ir.Pipeline {
	tmpl := h.query
	if mode%smuggleModes == smuggleDeletes {
		tmpl = h.cdc
	}
	fl := *tmpl.Flows[0]
	switch mode % smuggleModes {
	case smuggleQuery:
		fl.SQL, fl.Normalized = text, text
	case smuggleExpect:
		action := []ir.Action{ir.Warn, ir.Drop, ir.Fail}[int(mode/smuggleModes)%3]
		fl.Expectations = []ir.Expectation{{Name: "e", SQL: text, Action: action}}
	case smuggleDeletes:
		c := *tmpl.Flows[0].CDC
		c.Deletes = text
		fl.CDC = &c
	}
	return &ir.Pipeline{Name: tmpl.Name, Root: tmpl.Root, Datasets: tmpl.Datasets, Flows: []*ir.Flow{&fl}, Sources: tmpl.Sources}
}

func (h *smuggleHarness) session(t *testing.T) *Session {
	t.Helper()
	if h.s != nil && h.dirty {
		h.s.Close()
		h.s = nil
		os.RemoveAll(filepath.Join(h.root, "pwned.csv"))
		os.RemoveAll(filepath.Join(h.root, "pwned.db"))
		os.RemoveAll(filepath.Join(h.root, "pwned.db.wal"))
		os.RemoveAll(filepath.Join(h.root, "pwned_export"))
	}
	h.dirty = false
	if h.s == nil {
		s, err := Open(h.root, Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		h.s = s
	}
	return h.s
}

func (h *smuggleHarness) run(t *testing.T, mode uint8, raw string, noise []byte) {
	text := h.build(raw, noise)
	s := h.session(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Exec(ctx, "CREATE OR REPLACE TABLE canary AS SELECT 1 AS c"); err != nil {
		t.Fatalf("canary: %v", err)
	}
	if mode%smuggleModes == smuggleDeletes {
		// A batch the stream has not consumed, so the run applies the
		// changes, deletes predicate included.
		h.batches++
		b := filepath.Join(h.root, "samples", "changes", fmt.Sprintf("batch-%06d.csv", h.batches+1))
		if err := os.WriteFile(b, []byte(fmt.Sprintf("id,seq,_change_type,v\n1,%d,UPDATE_AFTER,D\n", h.batches+2)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := h.catalog(t, s)
	files := h.files()
	p := h.pipeline(mode, text)
	// Described, as --check --columns and the editor do.
	if d, err := s.Describer(ctx); err == nil {
		d.RegisterSources(ctx, p)
		fl := p.Flows[0]
		if _, err := d.Define(ctx, p.Datasets[0].Name, fl.Normalized); err == nil {
			for _, e := range fl.Expectations {
				d.Check(ctx, p.Datasets[0].Name, e.SQL)
			}
			if fl.CDC != nil && fl.CDC.Deletes != "" {
				d.Check(ctx, p.Datasets[0].Name, fl.CDC.Deletes)
			}
		}
		d.Close()
	}
	// Run, as --once, watch mode and thund/preview do.
	s.Run(ctx, p, RunOptions{})
	h.dirty = true
	if bad := append(h.checkFiles(files), h.checkCatalog(t, s, before)...); len(bad) > 0 {
		t.Fatalf("after describing and running (mode %d) %q, a statement other than SELECT ran:\n  %s", mode, text, strings.Join(bad, "\n  "))
	}
	h.dirty = false
}

// files lists every file under tmp but the engine's sample mirrors
// (which each run refreshes): path -> size and mtime.
func (h *smuggleHarness) files() map[string]string {
	out := map[string]string{}
	filepath.WalkDir(h.tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == "samples" && strings.HasPrefix(filepath.Base(filepath.Dir(p)), "thund-duckdb-") {
				return filepath.SkipDir
			}
			out[p] = "dir"
			return nil
		}
		info, err := os.Lstat(p)
		if err == nil {
			out[p] = fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return out
}

// checkFiles returns what changed on disk since before.
func (h *smuggleHarness) checkFiles(before map[string]string) []string {
	var bad []string
	for p, v := range h.files() {
		if w, ok := before[p]; !ok {
			bad = append(bad, "new file "+p)
		} else if w != v {
			bad = append(bad, "changed file "+p)
		}
	}
	sort.Strings(bad)
	return bad
}

// catalog is what the oracle compares: tables (but the dataset's and
// temporary ones), macros and other user functions, attached databases.
func (h *smuggleHarness) catalog(t *testing.T, s *Session) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		"SELECT 'table ' || database_name || '.' || schema_name || '.' || table_name FROM duckdb_tables() WHERE database_name <> 'temp' AND table_name NOT IN ('q', 'cdc')",
		"SELECT DISTINCT 'function ' || database_name || '.' || function_name FROM duckdb_functions() WHERE NOT internal",
		"SELECT 'database ' || database_name FROM duckdb_databases()",
	} {
		rows, err := s.DB().Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		rows.Close()
	}
	sort.Strings(out)
	return out
}

// checkCatalog returns what the canary and the catalog show of
// statements that ran.
func (h *smuggleHarness) checkCatalog(t *testing.T, s *Session, before []string) []string {
	var bad []string
	var n, lo, hi int
	if err := s.DB().QueryRow("SELECT count(*), min(c), max(c) FROM canary").Scan(&n, &lo, &hi); err != nil {
		bad = append(bad, fmt.Sprintf("the canary table is gone: %v", strings.SplitN(err.Error(), "\n", 2)[0]))
	} else if n != 1 || lo != 1 || hi != 1 {
		bad = append(bad, fmt.Sprintf("the canary table holds %d rows (%d..%d), want its one row 1", n, lo, hi))
	}
	was := map[string]bool{}
	for _, v := range before {
		was[v] = true
	}
	now := map[string]bool{}
	for _, v := range h.catalog(t, s) {
		now[v] = true
		if !was[v] {
			bad = append(bad, "new in the catalog: "+v)
		}
	}
	for _, v := range before {
		if !now[v] {
			bad = append(bad, "gone from the catalog: "+v)
		}
	}
	return bad
}
