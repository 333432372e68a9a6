package lsp

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
)

// fullDiagnosticKeys renders every field of a snapshot's diagnostics
// (range, severity, code, backend, message, related), sorted.
func fullDiagnosticKeys(s *analysis.Snapshot) string {
	out := make([]string, 0, len(s.Diagnostics))
	for _, d := range s.Diagnostics {
		k := fmt.Sprintf("%s:%d-%d %s %s [%s] %s", d.Loc.File, d.Loc.Start, d.Loc.End, d.Severity, d.Code, d.Backend, d.Message)
		for _, r := range d.Related {
			k += fmt.Sprintf(" | %s:%d-%d %s", r.Loc.File, r.Loc.Start, r.Loc.End, r.Message)
		}
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// pipelineStorm edits a pipeline whose files define datasets of every
// kind under names that repeat, move and change case, with streams,
// append flows (into datasets, into nothing, under qualified names),
// temporary views read by views, watermarks, CDC and output modes, on
// Spark backends as well as native; files are created and deleted and
// thund.yaml's backends change. These are what the whole-pipeline passes
// of an update reuse from the previous snapshot (the name index, the
// graph and whether it has a cycle, each dataset's capability and
// streaming results, the sources), so a result kept where a fresh load
// computes another shows up here.
type pipelineStorm struct {
	r     *rand.Rand
	files map[string]string // path -> text; absent: no such file
	names []string          // dataset names a file may define
	yaml  string
}

const stormFiles = 8

func (m *pipelineStorm) pick(xs ...string) string { return xs[m.r.Intn(len(xs))] }

func (m *pipelineStorm) read() string {
	switch m.r.Intn(8) {
	case 0:
		return "src"
	case 1:
		return "raw.orders"
	case 2:
		return stormName(m.r.Intn(stormFiles))
	}
	return m.pick(m.names...)
}

func (m *pipelineStorm) from(stream bool) string {
	if stream {
		return "STREAM(" + m.read() + ")"
	}
	return m.read()
}

// query is a query over one or two inputs, streamed or not, grouped or
// not.
func (m *pipelineStorm) query(stream bool) string {
	q := "SELECT x, y FROM " + m.from(stream)
	switch m.r.Intn(5) {
	case 0:
		q = "SELECT x, count(*) AS y FROM " + m.from(stream) + " GROUP BY x"
	case 1:
		q = "SELECT a.x, b.y FROM " + m.from(stream) + " AS a JOIN " + m.from(stream) + " AS b ON a.x = b.x"
	}
	return q
}

// pragmaFile is a file in pragma form: one dataset, named by `@name` or
// by the file's stem, with some of the settings the checks read.
func (m *pipelineStorm) pragmaFile(name string) string {
	var b strings.Builder
	if name != "" {
		fmt.Fprintf(&b, "-- @name: %s\n", name)
	}
	kind := m.pick("", "streaming_table", "streaming_table", "view", "temporary_view", "table")
	if kind != "" {
		fmt.Fprintf(&b, "-- @kind: %s\n", kind)
	}
	if m.r.Intn(3) == 0 {
		b.WriteString("-- @watermark: x, 1 minute\n")
	}
	if m.r.Intn(5) == 0 {
		b.WriteString("-- @cdc: keys=(x) sequence_by=y\n")
	}
	if m.r.Intn(6) == 0 {
		b.WriteString("-- @output_mode: " + m.pick("update", "complete") + "\n")
	}
	if m.r.Intn(6) == 0 {
		b.WriteString("-- @format: delta\n")
	}
	if m.r.Intn(8) == 0 {
		b.WriteString("-- @backends: native\n")
	}
	if m.r.Intn(8) == 0 {
		b.WriteString("-- @expect: x_positive = x > 0\n")
	}
	b.WriteString(m.query(kind == "streaming_table" && m.r.Intn(4) != 0) + "\n")
	return b.String()
}

// ddlFile is a file of SDP statements defining the given names, with
// append flows among them.
func (m *pipelineStorm) ddlFile(names []string) string {
	var stmts []string
	for _, n := range names {
		switch m.r.Intn(6) {
		case 0:
			stmts = append(stmts, "CREATE MATERIALIZED VIEW "+n+" AS "+m.query(false))
		case 1:
			stmts = append(stmts, "CREATE STREAMING TABLE "+n+" AS "+m.query(m.r.Intn(4) != 0))
		case 2:
			stmts = append(stmts, "CREATE TEMPORARY VIEW "+n+" AS "+m.query(false))
		case 3:
			stmts = append(stmts, "CREATE VIEW "+n+" AS "+m.query(false))
		case 4:
			stmts = append(stmts, "CREATE STREAMING TABLE "+n)
		default:
			stmts = append(stmts, "CREATE MATERIALIZED VIEW "+n+" COMMENT \"c\" AS "+m.query(false))
		}
		for m.r.Intn(3) == 0 {
			flow := m.pick("f1", "f2", "db.f3", "flow_"+strings.ReplaceAll(n, ".", "_"))
			target := n
			if m.r.Intn(4) == 0 {
				target = m.pick("nowhere", "b", "sales.c")
			}
			stmts = append(stmts, "CREATE FLOW "+flow+" AS INSERT INTO "+target+" BY NAME "+m.query(m.r.Intn(3) != 0))
		}
	}
	return strings.Join(stmts, ";\n") + ";\n"
}

// names returns the dataset names of a new file, or nil for the stem.
func (m *pipelineStorm) newNames() []string {
	if m.r.Intn(3) == 0 {
		return nil
	}
	out := []string{m.pick(m.names...)}
	for m.r.Intn(3) == 0 {
		out = append(out, m.pick(m.names...))
	}
	return out
}

// fileText writes a file defining names (nil: one dataset named after
// the stem), in pragma form for one name and SDP statements otherwise.
func (m *pipelineStorm) fileText(names []string) string {
	if len(names) == 0 {
		return m.pragmaFile("")
	}
	if len(names) == 1 && m.r.Intn(2) == 0 {
		return m.pragmaFile(names[0])
	}
	return m.ddlFile(names)
}

// kept records which names each file defines, so that most edits keep
// them (the path where the name index is shared).
type keptNames map[string][]string

// edit changes the pipeline once and returns the changes made.
func (m *pipelineStorm) edit(kept keptNames) []analysis.Change {
	path := stormName(m.r.Intn(stormFiles)) + ".sql"
	set := func(p, text string) []analysis.Change {
		m.files[p] = text
		return []analysis.Change{{Path: p, Text: &text}}
	}
	_, exists := m.files[path]
	switch op := m.r.Intn(100); {
	case op < 60 && exists:
		// The same names, another query or kind or settings.
		return set(path, m.fileText(kept[path]))
	case op < 78:
		kept[path] = m.newNames()
		return set(path, m.fileText(kept[path]))
	case op < 86 && exists:
		delete(m.files, path)
		return []analysis.Change{{Path: path}}
	case op < 92:
		// A file that does not parse, then back.
		return set(path, "SELECT x FROM ("+m.read()+"\n")
	default:
		m.yaml = "backends: [" + m.pick("native, spark-4.3", "native, spark-4.1, databricks", "spark-4.2", "native") + "]\n"
		return set("thund.yaml", m.yaml)
	}
}

// TestPipelineStormEqualsLoad replays pipelineStorm's edits on snapshots
// and compares every update, field by field, with a fresh analysis.Load
// of the same files.
func TestPipelineStormEqualsLoad(t *testing.T) {
	seeds, edits := 10, 100
	if testing.Short() {
		seeds, edits = 4, 60
	}
	if soak() {
		seeds, edits = 200, 300
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			replayPipelineStorm(t, seed, edits)
		})
	}
}

func replayPipelineStorm(t *testing.T, seed int64, edits int) {
	m := &pipelineStorm{r: rand.New(rand.NewSource(seed)), files: map[string]string{},
		names: []string{"a", "b", "c", "A", "d", "sales.c", "tv", "src"}, yaml: "backends: [native, spark-4.3]\n"}
	kept := keptNames{}
	for i := 0; i < stormFiles; i++ {
		p := stormName(i) + ".sql"
		kept[p] = m.newNames()
		m.files[p] = m.fileText(kept[p])
	}
	root := t.TempDir()
	writeAll := func(dir string) {
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(os.MkdirAll(filepath.Join(dir, "samples"), 0o755))
		must(os.WriteFile(filepath.Join(dir, "samples", "src.csv"), []byte("x,y\n1,2\n"), 0o644))
		must(os.WriteFile(filepath.Join(dir, "thund.yaml"), []byte(m.yaml), 0o644))
		for p, text := range m.files {
			must(os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644))
		}
	}
	writeAll(root)
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for e := 0; e < edits; e++ {
		changes := m.edit(kept)
		// The editor's snapshot is told; the disk follows, so that
		// files the update reads (new libraries) are there too.
		for _, c := range changes {
			full := filepath.Join(root, c.Path)
			if c.Text == nil {
				if err := os.Remove(full); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(full, []byte(*c.Text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		snap = snap.Update(changes)
		ref := t.TempDir()
		writeAll(ref)
		fresh, err := analysis.Load(ref, analysis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fullDiagnosticKeys(snap), fullDiagnosticKeys(fresh); got != want {
			var files []string
			for p, text := range m.files {
				files = append(files, fmt.Sprintf("%s:\n%s", p, text))
			}
			sort.Strings(files)
			t.Fatalf("seed %d, edit %d (%s): the updated snapshot's diagnostics differ from a fresh load's\nfiles:\n%s\nthund.yaml: %s\nupdated:\n%s\nfresh:\n%s",
				seed, e, changes[0].Path, strings.Join(files, "\n"), m.yaml, got, want)
		}
	}
}
