package analysis

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/sqlfront"
	"github.com/thund-dev/thund/ir"
)

// writeTree writes files (relative path -> text) under a new temp folder.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func diagStrings(s *Snapshot) []string {
	out := make([]string, 0, len(s.Diagnostics))
	for _, d := range s.Diagnostics {
		out = append(out, fmt.Sprintf("%s:%d-%d %s %s %s %s", d.Loc.File, d.Loc.Start, d.Loc.End, d.Severity, d.Code, d.Backend, d.Message))
	}
	return out
}

func findDiag(s *Snapshot, code ir.Code, file string) *ir.Diagnostic {
	for i, d := range s.Diagnostics {
		if d.Code == code && d.Loc.File == file {
			return &s.Diagnostics[i]
		}
	}
	return nil
}

func TestPragmaFormDataset(t *testing.T) {
	root := writeTree(t, map[string]string{
		"thund.yaml":          "backends: [native]\n",
		"samples/orders.csv":  "id,amount\n1,2\n",
		"clean_orders.sql":    "-- Orders with a positive amount.\n-- @expect.pos: amount > 0 ON VIOLATION DROP ROW\nSELECT id, amount FROM orders\n",
		"big_orders.sql":      "SELECT * FROM clean_orders WHERE amount > 100\n",
		"order_count.sql":     "-- @name: order_total\nSELECT count(*) AS n FROM big_orders\n",
		"samples/ignored.sql": "SELECT * FROM nothing_at_all\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Diagnostics) != 0 {
		t.Fatalf("want no diagnostics, got:\n%s", strings.Join(diagStrings(s), "\n"))
	}
	p := s.Pipeline
	if len(p.Datasets) != 3 {
		t.Fatalf("want 3 datasets, got %d", len(p.Datasets))
	}
	co := p.Dataset("clean_orders")
	if co == nil || co.Kind != ir.MaterializedView || co.Comment != "Orders with a positive amount." || !co.FromStem {
		t.Fatalf("clean_orders = %+v", co)
	}
	if p.Dataset("order_total") == nil {
		t.Fatal("@name did not name the dataset order_total")
	}
	f := p.FlowsInto("clean_orders")
	if len(f) != 1 || len(f[0].Expectations) != 1 || f[0].Expectations[0].Action != ir.Drop {
		t.Fatalf("clean_orders flows = %+v", f)
	}
	order, err := p.Graph().TopoOrder()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"clean_orders", "big_orders", "order_total"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("topological order %v, want %v", order, want)
	}
	if len(p.Sources) != 1 || p.Sources[0].Name != "orders" || p.Sources[0].Sample != "samples/orders.csv" {
		t.Fatalf("sources = %+v", p.Sources)
	}
}

func TestUnknownReferenceSuggestsName(t *testing.T) {
	root := writeTree(t, map[string]string{
		"a.sql": "SELECT 1 AS x\n",
		"b.sql": "SELECT x FROM aa\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := findDiag(s, ir.CodeUnknownRef, "b.sql")
	if d == nil {
		t.Fatalf("no unknown-reference diagnostic: %v", diagStrings(s))
	}
	text, _ := s.Text("b.sql")
	if got := text[d.Loc.Start:d.Loc.End]; got != "aa" {
		t.Fatalf("range covers %q, want aa", got)
	}
	if !strings.Contains(d.Message, "did you mean a?") {
		t.Fatalf("message lacks suggestion: %s", d.Message)
	}
}

func TestCycleReportedOnEveryEdge(t *testing.T) {
	root := writeTree(t, map[string]string{
		"a.sql": "SELECT * FROM c\n",
		"b.sql": "SELECT * FROM a\n",
		"c.sql": "SELECT * FROM b\n",
		"d.sql": "SELECT * FROM a\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, d := range s.Diagnostics {
		if d.Code != ir.CodeCycle {
			continue
		}
		files = append(files, d.Loc.File)
		if !strings.Contains(d.Message, " -> ") {
			t.Errorf("cycle message lacks the path: %s", d.Message)
		}
	}
	if want := []string{"a.sql", "b.sql", "c.sql"}; !reflect.DeepEqual(files, want) {
		t.Fatalf("cycle diagnostics in %v, want %v", files, want)
	}
	a := findDiag(s, ir.CodeCycle, "a.sql")
	if want := "cycle: c -> a -> b -> c"; !strings.HasPrefix(a.Message, want) {
		t.Fatalf("a.sql message %q, want prefix %q", a.Message, want)
	}
}

// TestUpdateEqualsFreshLoad is the snapshot property: after any sequence of
// edits, creations and deletions, an updated snapshot has exactly the
// diagnostics and datasets a fresh load of the final files has.
func TestUpdateEqualsFreshLoad(t *testing.T) {
	bodies := []string{
		"SELECT * FROM %s\n",
		"SELECT a, count(*) AS n FROM %s GROUP BY a\n",
		"-- @kind: streaming_table\nSELECT * FROM STREAM(%s)\n",
		"-- @expct.x: a > 0\nSELECT * FROM %s\n",
		"SELECT * FROM %s WHERE\n",
		"-- @kind: materialised_view\nSELECT 1 FROM %s\n",
		"-- @expect.ok: a > 0\n-- @sample.%[1]s: samples/a.csv\nSELECT * FROM %[1]s\n",
		"CREATE MATERIALIZED VIEW %[1]s_mv AS SELECT * FROM %[1]s;\n",
		"",
	}
	names := []string{"a", "b", "c", "d", "e", "src"}
	rng := rand.New(rand.NewSource(7))
	files := map[string]string{"samples/src.csv": "a\n1\n"}
	for _, n := range names[:5] {
		files[n+".sql"] = fmt.Sprintf(bodies[0], "src")
	}
	root := writeTree(t, files)
	snap, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for step := 0; step < 200; step++ {
		var changes []Change
		for k := 0; k < 1+rng.Intn(3); k++ {
			if rng.Intn(8) == 0 {
				// Project files and samples change too.
				other := []string{"thund.yaml", "samples/a.csv", "samples/e/part-1.json"}[rng.Intn(3)]
				variants := map[string][]string{
					"thund.yaml":            {"backends: [native]\n", "backends: [native, spark-4.1]\n", "backends: [spark-4.9]\n"},
					"samples/a.csv":         {"x\n1\n"},
					"samples/e/part-1.json": {"{\"x\": 1}\n"},
				}[other]
				if rng.Intn(3) == 0 {
					delete(files, other)
					changes = append(changes, Change{Path: other})
				} else {
					text := variants[rng.Intn(len(variants))]
					files[other] = text
					changes = append(changes, Change{Path: other, Text: &text})
				}
				continue
			}
			name := names[rng.Intn(len(names))] + ".sql"
			if rng.Intn(6) == 0 {
				delete(files, name)
				changes = append(changes, Change{Path: name})
				continue
			}
			text := fmt.Sprintf(bodies[rng.Intn(len(bodies))], names[rng.Intn(len(names))])
			files[name] = text
			changes = append(changes, Change{Path: name, Text: &text})
		}
		snap = snap.Update(changes)
		fresh, err := Load(writeTree(t, files), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := diagStrings(snap), diagStrings(fresh); !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: updated snapshot differs from a fresh load\nupdated:\n%s\nfresh:\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if got, want := datasetNames(snap), datasetNames(fresh); !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: datasets %v, fresh %v", step, got, want)
		}
		// The name index and the graph (shared with the previous snapshot
		// when names and targets stay) answer as a fresh load's do.
		if got, want := indexStrings(snap), indexStrings(fresh); !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: index and graph\n%s\nfresh:\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// indexStrings lists, per dataset, what it resolves to, the flows into it
// and its graph edges.
func indexStrings(s *Snapshot) []string {
	p := s.Pipeline
	g := p.Graph()
	var out []string
	for _, d := range p.Datasets {
		first := p.Dataset(d.Name)
		line := fmt.Sprintf("%s: defined at %s:%d, flows", d.Name, first.Loc.File, first.Loc.Start)
		for _, f := range p.FlowsInto(d.Name) {
			line += fmt.Sprintf(" %s@%s:%d", f.Name, f.Loc.File, f.Loc.Start)
		}
		line += " out"
		for _, e := range g.Out(ir.NameKey(d.Name)) {
			line += fmt.Sprintf(" %s->%s(%s)", e.From, e.To, e.Flow.Name)
		}
		out = append(out, line)
	}
	return out
}

func datasetNames(s *Snapshot) []string {
	var out []string
	for _, d := range s.Pipeline.Datasets {
		out = append(out, string(d.Kind)+" "+d.Name)
	}
	return out
}

func TestUpdateReusesUnchangedFiles(t *testing.T) {
	root := writeTree(t, map[string]string{"a.sql": "SELECT 1 AS x\n", "b.sql": "SELECT x FROM a\n"})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := "SELECT 2 AS x\n"
	n := s.Update([]Change{{Path: "a.sql", Text: &text}})
	if n.results["b.sql"] != s.results["b.sql"] {
		t.Fatal("b.sql was re-analysed although its text did not change")
	}
	if n.results["a.sql"] == s.results["a.sql"] {
		t.Fatal("a.sql was not re-analysed after its text changed")
	}
	if got, _ := s.Text("a.sql"); got != "SELECT 1 AS x\n" {
		t.Fatalf("the old snapshot changed: %q", got)
	}
}

func FuzzAnalyseFile(f *testing.F) {
	for _, seed := range []string{
		"-- @kind: streaming_table\n-- @trigger: processing_time '10 seconds'\nSELECT * FROM STREAM(clicks)\n",
		"CREATE MATERIALIZED VIEW m AS SELECT a FROM `t`;\nCREATE FLOW f AS INSERT INTO m BY NAME SELECT 1;\n",
		"\xef\xbb\xbf-- @expect.x: a > 0 ON VIOLATION FAIL UPDATE\r\nSELECT a FROM t\r\n",
		"SELECT 'unterminated",
		"/* nested /* comment */ */ SELECT 1",
		"-- @cdc: keys=(id) sequence_by=seq scd=2\nSELECT * FROM STREAM(changes)",
		"\xff\xfe SELECT",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		res := analyseFile("f.sql", text, sqlfront.DialectSpark, nil)
		check := func(what string, l ir.Loc) {
			if l.IsZero() {
				return
			}
			if l.Start < 0 || l.End < l.Start || l.End > len(text) {
				t.Fatalf("%s range %d-%d outside the text (len %d)", what, l.Start, l.End, len(text))
			}
		}
		for _, d := range res.diags {
			check("diagnostic "+string(d.Code), d.Loc)
			for _, r := range d.Related {
				check("related", r.Loc)
			}
		}
		for _, fl := range res.flows {
			for _, r := range fl.Reads {
				check("ref", r.Loc)
			}
			check("query", fl.QueryLoc)
		}
		for _, d := range res.datasets {
			check("name", d.NameLoc)
		}
	})
}

// TestLargeFileRanges analyses a 5,000-line SDP file and checks that an
// error near its end is reported at the exact line and column.
func TestLargeFileRanges(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 999; i++ {
		fmt.Fprintf(&b, "-- dataset %d\nCREATE MATERIALIZED VIEW v%d AS\nSELECT id, amount\nFROM src WHERE amount > %d;\n\n", i, i, i)
	}
	b.WriteString("-- the broken one\nCREATE MATERIALIZED VIEW broken AS\nSELECT id,\nFROM src WHERE a = );\n")
	text := b.String()
	root := writeTree(t, map[string]string{"big.sql": text, "samples/src.csv": "id,amount\n1,2\n"})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(text, "\n"); got < 4999 {
		t.Fatalf("file has %d lines", got)
	}
	if len(s.Pipeline.Datasets) != 1000 {
		t.Fatalf("%d datasets, want 1000", len(s.Pipeline.Datasets))
	}
	d := findDiag(s, ir.CodeSQLSyntax, "big.sql")
	if d == nil {
		t.Fatalf("no syntax error: %v", diagStrings(s))
	}
	pos := s.Index("big.sql").Rune(d.Loc.Start)
	if pos.Line+1 != 4999 || text[d.Loc.Start:d.Loc.End] != ")" {
		t.Fatalf("syntax error at line %d col %d (%q), want line 4999 at )", pos.Line+1, pos.Column+1, text[d.Loc.Start:d.Loc.End])
	}
}

// TestSampleLinkLeavingRoot: a thund.yaml sample that is a symbolic link
// to a folder outside the pipeline is a path-outside-root error at the
// value, and no message names what is behind the link.
func TestSampleLinkLeavingRoot(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "SECRET_NAME.csv"), []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := writeTree(t, map[string]string{
		"thund.yaml":            "samples:\n  raw: ext\n",
		"transformations/m.sql": "CREATE MATERIALIZED VIEW m AS SELECT * FROM raw;\n",
	})
	if err := os.Symlink(outside, filepath.Join(root, "ext")); err != nil {
		t.Fatal(err)
	}
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(diagStrings(s), "\n")
	if !strings.Contains(got, "thund.yaml:") || !strings.Contains(got, "path-outside-root") {
		t.Fatalf("diagnostics:\n%s", got)
	}
	if strings.Contains(got, "SECRET_NAME") || strings.Contains(got, outside) {
		t.Fatalf("a message names what is behind the link:\n%s", got)
	}
}
