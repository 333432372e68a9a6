package watch

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
)

func TestNormalizeSQL(t *testing.T) {
	same := [][2]string{
		{"SELECT a, b FROM t", "SELECT  a,\n\tb\nFROM t  "},
		{"SELECT a FROM t", "SELECT a -- the key\nFROM t;"},
		{"SELECT a FROM t", "SELECT /* outer /* nested */ still */ a FROM t ;\n-- trailing\n"},
		{"SELECT count(x) FROM t", "SELECT count( x ) FROM t"},
		{"SELECT 'a -- b' FROM t", "SELECT\n  'a -- b'\nFROM t"},
		{"SELECT a-b FROM t", "SELECT a-b FROM t -- c"},
		{"SELECT $$x  y$$ FROM t", "SELECT   $$x  y$$   FROM t"},
	}
	for _, c := range same {
		if a, b := ir.NormalizeSQL(c[0]), ir.NormalizeSQL(c[1]); a != b {
			t.Errorf("ir.NormalizeSQL(%q) = %q, ir.NormalizeSQL(%q) = %q; want equal", c[0], a, c[1], b)
		}
	}
	differ := [][2]string{
		{"SELECT 'a  b' FROM t", "SELECT 'a b' FROM t"},
		{`SELECT "a  b" FROM t`, `SELECT "a b" FROM t`},
		{"SELECT 'it''s -- x' FROM t", "SELECT 'it''s ' FROM t"},
		{`SELECT E'a\'  b' FROM t`, `SELECT E'a\' b' FROM t`},
		{"SELECT $t$a  -- b$t$ FROM t", "SELECT $t$a $t$ FROM t"},
		{"SELECT a - b FROM t", "SELECT a FROM t"},
		{"SELECT a b FROM t", "SELECT ab FROM t"},
		{"SELECT a FROM t WHERE x <= 2", "SELECT a FROM t WHERE x <= 3"},
	}
	for _, c := range differ {
		if a, b := ir.NormalizeSQL(c[0]), ir.NormalizeSQL(c[1]); a == b {
			t.Errorf("ir.NormalizeSQL(%q) == ir.NormalizeSQL(%q) = %q; want different", c[0], c[1], a)
		}
	}
	if got, want := ir.NormalizeSQL("  SELECT\n  a ,  b\n  FROM t ; "), "SELECT a,b FROM t"; got != want {
		t.Errorf("NormalizeSQL = %q, want %q", got, want)
	}
}

func TestIgnored(t *testing.T) {
	for p, want := range map[string]bool{
		"transformations/a.sql":        false,
		"samples/orders.csv":           false,
		"spark-pipeline.yml":           false,
		".git/index":                   true,
		"transformations/.a.sql.swp":   true,
		"transformations/a.sql.swp":    true,
		"transformations/a.sql.swx":    true,
		"transformations/a.sql~":       true,
		"transformations/.#a.sql":      true,
		"transformations/4913":         true,
		"transformations/a.sql.tmp":    true,
		"node_modules/x/y.sql":         true,
		"target/out.sql":               true,
		"transformations/target.sql":   false,
		".thund/state/thund.duckdb":    true,
		"transformations/sub/b.sql":    false,
		"transformations/sub/.hidden/": true,
	} {
		if got := Ignored(p); got != want {
			t.Errorf("Ignored(%q) = %v, want %v", p, got, want)
		}
	}
}

// retailSnapshot loads a private copy of testdata/retail.
func retailSnapshot(t *testing.T) (*analysis.Snapshot, string) {
	t.Helper()
	dir := copyRetail(t)
	s, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func edit(s *analysis.Snapshot, file, text string) *analysis.Snapshot {
	return s.Update([]analysis.Change{{Path: file, Text: &text}})
}

// changedKeys lists the keys whose hash differs between a and b (or that
// only one has).
func changedKeys(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func TestHashes(t *testing.T) {
	s, _ := retailSnapshot(t)
	fp := map[string]string{}
	sample := func(src *ir.Source) string { return fp[src.Sample] }
	base := Hashes(s.Pipeline, sample)
	if len(base) != 8 {
		t.Fatalf("%d hashes, want 8", len(base))
	}
	text := func(file string) string {
		v, ok := s.Text(file)
		if !ok {
			t.Fatalf("no text for %s", file)
		}
		return v
	}
	top := text("transformations/top_products.sql")
	clean := text("transformations/clean_orders.sql")
	revenue := text("transformations/revenue.sql")
	cases := []struct {
		name string
		snap *analysis.Snapshot
		want []string
	}{
		{"comment at the end", edit(s, "transformations/top_products.sql", top+"\n-- a note\n"), nil},
		{"header comment", edit(s, "transformations/top_products.sql", "-- Reworded documentation.\n"+top), nil},
		{"comment and whitespace inside the query", edit(s, "transformations/top_products.sql",
			replace(t, top, "WHERE category_rank <= 2", "WHERE   category_rank <= 2 -- two per category\n\n")), nil},
		{"comment in a CREATE statement file", edit(s, "transformations/revenue.sql",
			replace(t, revenue, "FROM billable_lines\nGROUP BY", "FROM billable_lines -- only billable\n  GROUP BY")), nil},
		{"query of a leaf", edit(s, "transformations/top_products.sql", replace(t, top, "<= 2", "<= 3")), []string{"top_products"}},
		{"string literal whitespace", edit(s, "transformations/revenue.sql", replace(t, revenue, "'completed'", "'completed '")),
			[]string{"billable_lines", "customer_orders", "customer_ranking", "daily_revenue", "revenue_by_region", "top_products"}},
		{"expectation", edit(s, "transformations/clean_orders.sql", replace(t, clean, "amount > 0", "amount >= 0")),
			[]string{"billable_lines", "clean_orders", "customer_orders", "customer_ranking", "daily_revenue", "order_lines", "revenue_by_region", "top_products"}},
		{"kind", edit(s, "transformations/top_products.sql", "-- @kind: table\n"+top), []string{"top_products"}},
	}
	for _, c := range cases {
		got := changedKeys(base, Hashes(c.snap.Pipeline, sample))
		if !equalStrings(got, c.want) {
			t.Errorf("%s: changed %v, want %v", c.name, got, c.want)
		}
	}
	// New sample data changes its readers and their cone.
	fp["samples/products.csv"] = "new content"
	got := changedKeys(base, Hashes(s.Pipeline, sample))
	want := []string{"billable_lines", "customer_orders", "customer_ranking", "daily_revenue", "order_lines", "revenue_by_region", "top_products"}
	if !equalStrings(got, want) {
		t.Errorf("sample change: changed %v, want %v", got, want)
	}
}

func replace(t *testing.T, s, old, new string) string {
	t.Helper()
	i := strings.Index(s, old)
	if i < 0 {
		t.Fatalf("%q not found", old)
	}
	return s[:i] + new + s[i+len(old):]
}

func equalStrings(a, b []string) bool {
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

func TestSampleFingerprint(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "samples", "clicks"), 0o755)
	write := func(rel, text string) {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("samples/orders.csv", "id\n1\n")
	write("samples/clicks/001.csv", "id\n1\n")
	f := newFiles(dir)
	file := &ir.Source{Name: "orders", Sample: "samples/orders.csv"}
	folder := &ir.Source{Name: "clicks", Sample: "samples/clicks", Stream: true}
	a, b := f.Sample(file), f.Sample(folder)
	write("samples/orders.csv", "id\n2\n")
	if f.Sample(file) == a {
		t.Error("editing a sample file kept its fingerprint")
	}
	write("samples/clicks/002.csv", "id\n2\n")
	if f.Sample(folder) == b {
		t.Error("a new micro-batch kept the folder's fingerprint")
	}
}

func TestPlan(t *testing.T) {
	s, _ := retailSnapshot(t)
	g := s.Pipeline.Graph()
	h := Hashes(s.Pipeline, nil)
	state := map[string]dsState{}
	if got := plan(g, h, state); len(got) != 8 {
		t.Fatalf("first plan covers %d datasets, want 8", len(got))
	}
	for k, v := range h {
		state[k] = dsState{hash: v, phase: engine.Completed}
	}
	if got := plan(g, h, state); len(got) != 0 {
		t.Fatalf("plan with everything done covers %v", got)
	}
	// A changed leaf runs alone; if its input failed last time, the input
	// runs again too, so the leaf is skipped with the reason.
	h2 := map[string]string{}
	for k, v := range h {
		h2[k] = v
	}
	h2["top_products"] = "other"
	if got := keysOf(plan(g, h2, state)); !equalStrings(got, []string{"top_products"}) {
		t.Errorf("plan = %v, want [top_products]", got)
	}
	state["billable_lines"] = dsState{hash: h["billable_lines"], phase: engine.Failed}
	if got := keysOf(plan(g, h2, state)); !equalStrings(got, []string{"billable_lines", "top_products"}) {
		t.Errorf("plan with a failed input = %v, want [billable_lines top_products]", got)
	}
}

func keysOf(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
