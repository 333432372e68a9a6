package typecheck

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/lineage"
	"github.com/thund-dev/thund/analysis/sparksql/sema"
	benchgen "github.com/thund-dev/thund/bench/gen"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/engine/translate"
	"github.com/thund-dev/thund/internal/testutil"
	"github.com/thund-dev/thund/ir"
)

// pipelines lists the testdata pipelines.
func pipelines(t *testing.T) []string {
	return testutil.Pipelines(t, "../../testdata")
}

// TestTypeCatalogAgreesWithLineage holds typeChecks' catalog to what it
// replaced: the translations against column lineage's graph
// (lineage.Graph, which also computes every column's dependencies under
// one lock), on every testdata pipeline and on pipelines with the cases
// where the two could part: append flows, a dataset filled by append
// flows only, types passed along a chain, a cycle, a source read by a
// qualified name, a backquoted name holding a dot, an unknown table.
func TestTypeCatalogAgreesWithLineage(t *testing.T) {
	dirs := pipelines(t)
	extra := map[string]map[string]string{
		"typed": {
			"typed.sql":  "SELECT true = 1 AS x, CAST(1 AS BOOLEAN) AS flag, DATE'2024-01-01' AS d\n",
			"reader.sql": "SELECT date_add(d, 1L) AS next_day, CASE WHEN flag THEN 1 ELSE false END AS c, d IN (1, 2) AS i, +flag AS p FROM typed\n",
			"next.sql":   "SELECT CASE WHEN c > 0 THEN next_day ELSE 1 END AS w, +i AS q FROM reader\n",
		},
		"sampled": {
			"samples/raw.csv": "id,flag,d,s\n1,true,2024-01-01,x\n2,false,2024-01-02,y\n",
			"b.sql":           "SELECT +flag AS a1, flag + 1 AS a2, d IN (1) AS a3, s + d AS a5, bit_count(s) AS a8 FROM raw\n",
			"c.sql":           "SELECT * FROM raw\n",
			"e.sql":           "SELECT +flag AS a1, flag + 1 AS a2, d IN (1) AS a3, id, s FROM c\n",
			"f.sql":           "SELECT +id AS ok, s + d AS bad FROM e\n",
			"g.sql":           "CREATE STREAMING TABLE g;\nCREATE FLOW g1 AS INSERT INTO g BY NAME SELECT flag, d FROM raw;\nCREATE FLOW g2 AS INSERT INTO g BY NAME SELECT id AS flag, s AS d FROM raw;\n",
			"h.sql":           "SELECT +flag AS p, d IN (1) AS i FROM g\n",
		},
		"chain": {
			"a.sql": "SELECT 1 AS n, DATE'2024-01-01' AS d, true AS b\n",
			"b.sql": "SELECT n + 1 AS m, date_add(d, 1L) AS d2, b, `n` AS `x.y` FROM a\n",
			"c.sql": "SELECT m || b AS s, d2 - 1 AS e, `x.y`, +b AS p, d2 IN (1) AS i FROM b\n",
			"d.sql": "SELECT * FROM c JOIN `b` ON c.e = b.m WHERE b.b = 'x'\n",
			"e.sql": "SELECT * FROM `a.b`\n",
			"f.sql": "SELECT x FROM nowhere\n",
		},
		"appends": {
			"t.sql":  "CREATE STREAMING TABLE t;\nCREATE FLOW f1 AS INSERT INTO t BY NAME SELECT 1 AS k, 'a' AS v;\nCREATE FLOW f2 AS INSERT INTO t BY NAME SELECT 2 AS k, 'b' AS v;\n",
			"r.sql":  "CREATE MATERIALIZED VIEW r AS SELECT CASE WHEN k > 0 THEN v ELSE DATE'2024-01-01' END AS bad, +v AS p FROM t;\n",
			"m.sql":  "CREATE MATERIALIZED VIEW m AS SELECT 1 AS k;\nCREATE FLOW more AS INSERT INTO m BY NAME SELECT 'x' AS k;\n",
			"mr.sql": "CREATE MATERIALIZED VIEW mr AS SELECT k IN (DATE'2024-01-01') AS c, +k AS p FROM m;\n",
		},
		"cycle": {
			"x.sql": "SELECT y.v + 1 AS v, true AS flag FROM y\n",
			"y.sql": "SELECT x.v AS v, +x.flag AS bad FROM x\n",
			"z.sql": "SELECT date_add(v, 1L) AS w, +flag AS p FROM x\n",
		},
	}
	for name, files := range extra {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, text := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dirs = append(dirs, dir)
	}
	gen := filepath.Join(t.TempDir(), "gen")
	if err := benchgen.Write(gen, benchgen.Config{Datasets: 300, Width: 30, SampleRows: 5, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, gen)
	withFindings := 0
	for _, dir := range dirs {
		snap, err := analysis.Load(dir, analysis.Options{})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if snap.Pipeline == nil {
			continue
		}
		got, want := Check(snap), typeChecksByLineage(snap)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: type checks differ from lineage's:\n got  %v\n want %v", dir, got, want)
		}
		if len(want) > 0 {
			withFindings++
		}
	}
	if withFindings < 5 {
		t.Errorf("only %d pipelines have type errors: the comparison shows little", withFindings)
	}
}

// typeChecksByLineage is typeChecks as it was before typeCatalog: the
// flows translated on every core against lineage.Graph (one worker when
// the pipeline has a cycle, where the workers' order would change what
// lineage answers).
func typeChecksByLineage(snap *analysis.Snapshot) []ir.Diagnostic {
	g := lineage.New(lineage.Input{Pipeline: snap.Pipeline, Tree: snap.SparkTree, Text: snap.Text, SourceColumns: snap.SampleColumns})
	cat := lineageCatalog{g}
	seen := map[ir.Loc]bool{}
	for _, d := range snap.Diagnostics {
		seen[ir.Loc{File: d.Loc.File, Start: d.Loc.Start, End: d.Loc.End}] = true
	}
	macros := engine.SparkMacroNames()
	flows := snap.Pipeline.Flows
	found := make([][]translate.Finding, len(flows))
	workers := runtime.GOMAXPROCS(0)
	if hasCycle(snap.Diagnostics) {
		workers = 1
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(flows); i = int(next.Add(1)) - 1 {
				found[i] = translateFlow(snap, flows[i], cat, macros)
			}
		}()
	}
	wg.Wait()
	var out []ir.Diagnostic
	for i, f := range flows {
		for _, x := range found[i] {
			if x.Code != translate.CodeTypeError || nameClass(x.Message) {
				continue
			}
			loc := ir.Loc{File: f.QueryLoc.File, Start: x.Start, End: x.End}
			if seen[loc] {
				continue
			}
			seen[loc] = true
			out = append(out, ir.Diagnostic{Loc: loc, Severity: ir.Error, Code: ir.CodeBinder, Message: x.Message})
		}
	}
	return out
}

// lineageCatalog is the catalog typeChecks used before typeCatalog.
type lineageCatalog struct{ g *lineage.Graph }

func (c lineageCatalog) Table(name []string) ([]sema.Column, bool) {
	t := c.g.Table(strings.Join(name, "."))
	if t == nil {
		return nil, false
	}
	if !t.Complete {
		return nil, true
	}
	cols := make([]sema.Column, len(t.Columns))
	for i, col := range t.Columns {
		cols[i] = sema.Column{Name: col.ID.Column, Type: col.Type}
	}
	return cols, true
}

// BenchmarkTypeChecks measures plain --check's type checks alone on the
// generated pipeline of 10,000 datasets (bench/gen, as
// BenchmarkColdAnalysis), after one load: typeChecks, and ("lineage")
// the lineage-based check it replaced, for comparison. It reports the
// CPU time of each check beside its wall time and allocations.
func BenchmarkTypeChecks(b *testing.B) {
	root := b.TempDir()
	if err := benchgen.Write(root, benchgen.Config{Datasets: 10000, Width: 100, SampleRows: 10, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	snap, err := analysis.Load(root, analysis.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		check func(*analysis.Snapshot) []ir.Diagnostic
	}{{"catalog", Check}, {"lineage", typeChecksByLineage}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := processCPU()
			for i := 0; i < b.N; i++ {
				if d := c.check(snap); len(d) != 0 {
					b.Fatalf("%d type errors in the generated pipeline", len(d))
				}
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// processCPU returns the process's user and system CPU time so far, in
// nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
