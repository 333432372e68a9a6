package ir

import (
	"reflect"
	"strings"
	"testing"
)

// pipeline builds a pipeline where each entry "t: a b" is a dataset t whose
// flow reads a and b.
func pipeline(spec ...string) *Pipeline {
	p := &Pipeline{}
	for i, s := range spec {
		name, reads, _ := strings.Cut(s, ":")
		name = strings.TrimSpace(name)
		file := name + ".sql"
		p.Datasets = append(p.Datasets, &Dataset{Name: name, Kind: MaterializedView, NameLoc: Loc{File: file}})
		f := &Flow{Name: name, Target: name, Loc: Loc{File: file}}
		for j, r := range strings.Fields(reads) {
			f.Reads = append(f.Reads, Ref{Name: r, Loc: Loc{File: file, Start: 14 + j, End: 15 + j + i*0}})
		}
		p.Flows = append(p.Flows, f)
	}
	return p
}

func TestTopoOrderPrefersDeclarationOrder(t *testing.T) {
	p := pipeline("report: daily users", "daily: orders", "users:", "orders:")
	got, err := p.Graph().TopoOrder()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"users", "orders", "daily", "report"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

func TestCyclesEveryEdgeWithPath(t *testing.T) {
	p := pipeline("a: c", "b: a", "c: b", "d: a", "e: e")
	g := p.Graph()
	if _, err := g.TopoOrder(); err == nil {
		t.Fatal("TopoOrder accepted a cyclic graph")
	}
	var got []string
	for _, c := range g.Cycles() {
		got = append(got, c.Edge.From+">"+c.Edge.To+" "+strings.Join(c.Path, "->"))
	}
	want := []string{"a>b a->b->c->a", "b>c b->c->a->b", "c>a c->a->b->c", "e>e e->e"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("cycles %v, want %v", got, want)
	}
}

func TestValidate(t *testing.T) {
	p := pipeline("a:", "b: a", "a: b")
	p.Flows = append(p.Flows,
		&Flow{Name: "extra", Target: "nowhere", Append: true, Loc: Loc{File: "x.sql"}},
		&Flow{Name: "backfill", Target: "b", Append: true, Loc: Loc{File: "y.sql"}},
		&Flow{Name: "backfill", Target: "b", Append: true, Loc: Loc{File: "z.sql"}})
	codes := map[Code]int{}
	for _, prob := range p.Validate() {
		codes[prob.Code]++
		if prob.Code == CodeDuplicate && len(prob.Related) != 1 {
			t.Errorf("duplicate without the first definition as related: %+v", prob)
		}
	}
	if codes[CodeDuplicate] != 1 || codes[CodeUnknownTarget] != 1 || codes[CodeDuplicateFlow] != 1 {
		t.Fatalf("problem counts %v", codes)
	}
}

func TestResolveQualifiedNames(t *testing.T) {
	p := pipeline("orders:")
	p.Catalog, p.Database = "main", "sales"
	for name, want := range map[string]bool{"orders": true, "ORDERS": true, "sales.orders": true, "main.sales.orders": true, "other.orders": false, "x.y.z.orders": false} {
		if got := p.Resolve(name) != nil; got != want {
			t.Errorf("Resolve(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestResolveQualifiedDefinitions: a dataset defined with qualifiers is
// found by the name it was defined with and, when the qualifiers are the
// pipeline's own, by its last part, qualified or not.
func TestResolveQualifiedDefinitions(t *testing.T) {
	p := pipeline("db.q:", "sales.r:", "main.sales.s:")
	for name, want := range map[string]string{"db.q": "db.q", "DB.Q": "db.q", "q": "", "other.q": "", "r": "", "sales.r": "sales.r", "s": ""} {
		if d := p.Resolve(name); (d == nil && want != "") || (d != nil && d.Name != want) {
			t.Errorf("no database: Resolve(%q) = %v, want %q", name, d, want)
		}
	}
	p = pipeline("db.q:", "sales.r:", "main.sales.s:")
	p.Catalog, p.Database = "main", "sales"
	for name, want := range map[string]string{"db.q": "db.q", "q": "", "r": "sales.r", "sales.r": "sales.r", "main.sales.r": "sales.r", "s": "main.sales.s", "sales.s": "main.sales.s", "other.r": ""} {
		if d := p.Resolve(name); (d == nil && want != "") || (d != nil && d.Name != want) {
			t.Errorf("database sales: Resolve(%q) = %v, want %q", name, d, want)
		}
	}
}

// TestResolveSparkDefaults: with no catalog or database in the spec, names
// are in Spark's current spark_catalog.default (default.x and
// spark_catalog.default.x are x; checked on Spark 4.1.4, QA14 v1); a
// two-part name is also in the pipeline's catalog (silver.x is
// dev.silver.x when the catalog is dev, and the other way round), and,
// when the spec names no catalog, in whichever the platform's is, unless
// two catalogs define it.
func TestResolveSparkDefaults(t *testing.T) {
	p := pipeline("spark_catalog.default.x:", "default.y:", "z:", "other.w:")
	for name, want := range map[string]string{
		"x": "spark_catalog.default.x", "default.x": "spark_catalog.default.x", "spark_catalog.default.x": "spark_catalog.default.x",
		"y": "default.y", "spark_catalog.default.y": "default.y",
		"default.z": "z", "spark_catalog.default.z": "z", "other.z": "", "w": "", "other.w": "other.w", "spark_catalog.other.w": "other.w",
		// the spec names no catalog: the platform's current one may be
		// any (Databricks sets it in the workspace)
		"main.other.w": "other.w",
	} {
		if d := p.Resolve(name); (d == nil && want != "") || (d != nil && d.Name != want) {
			t.Errorf("Spark's defaults: Resolve(%q) = %v, want %q", name, d, want)
		}
	}
	p = pipeline("dev.silver.x:", "silver.q:")
	p.Catalog, p.Database = "dev", "bronze"
	for name, want := range map[string]string{"silver.x": "dev.silver.x", "dev.silver.q": "silver.q", "x": "", "other.silver.x": "", "gold.x": ""} {
		if d := p.Resolve(name); (d == nil && want != "") || (d != nil && d.Name != want) {
			t.Errorf("catalog dev: Resolve(%q) = %v, want %q", name, d, want)
		}
	}
	p = pipeline("dev.silver.x:", "dev.silver.y:", "prod.silver.y:")
	for name, want := range map[string]string{"silver.x": "dev.silver.x", "silver.y": "", "dev.silver.y": "dev.silver.y", "x": ""} {
		if d := p.Resolve(name); (d == nil && want != "") || (d != nil && d.Name != want) {
			t.Errorf("no catalog: Resolve(%q) = %v, want %q", name, d, want)
		}
	}
}

func TestDeepChainHasNoRecursionLimit(t *testing.T) {
	var spec []string
	spec = append(spec, "n0:")
	for i := 1; i < 50000; i++ {
		spec = append(spec, "n"+itoa(i)+": n"+itoa(i-1))
	}
	g := pipeline(spec...).Graph()
	order, err := g.TopoOrder()
	if err != nil || len(order) != 50000 || order[49999] != "n49999" {
		t.Fatalf("deep chain: %d datasets, err %v", len(order), err)
	}
	if len(g.Cycles()) != 0 {
		t.Fatal("a chain has no cycles")
	}
	if down := g.Downstream("n49990"); len(down) != 10 {
		t.Fatalf("Downstream = %d datasets, want 10", len(down))
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestOwnQualifiedDuplicate: with database sales, sales.x and x name one
// table, so defining both is a duplicate, reported at the second.
func TestOwnQualifiedDuplicate(t *testing.T) {
	p := pipeline("x:", "sales.x:", "other.x:")
	p.Database = "sales"
	var dups []Problem
	for _, prob := range p.Validate() {
		if prob.Code == CodeDuplicate {
			dups = append(dups, prob)
		}
	}
	if len(dups) != 1 || dups[0].Loc.File != "sales.x.sql" || len(dups[0].Related) != 1 || dups[0].Related[0].Loc.File != "x.sql" {
		t.Fatalf("duplicates: %+v", dups)
	}
}
