package parity_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/parity"
	"github.com/thund-dev/thund/preview"
	"github.com/thund-dev/thund/sdplower"
	"github.com/thund-dev/thund/sparkconnect"
	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

var update = flag.Bool("update", false, "rewrite docs/parity.md from this run")

func TestMain(m *testing.M) { sparktest.Main(m) }

// reportPath is the parity table the suite writes, one column per Spark
// release.
const reportPath = "../docs/parity.md"

// TestParity runs every testdata pipeline natively and on the real Spark
// server, reads every dataset Spark can run back over Spark Connect, and
// compares the two. Datasets Spark cannot run are listed with the
// diagnostic that says so before any run. The table is docs/parity.md:
// with -update the suite writes it, otherwise it must match.
func TestParity(t *testing.T) {
	t.Parallel()
	c := sparktest.Client(t)
	entries, err := pipelines()
	if err != nil {
		t.Fatal(err)
	}
	// The pipelines run at once (each has its own database and storage):
	// Spark spends most of a small run waiting between flows, not
	// computing, so they overlap well.
	var (
		mu   sync.Mutex
		rows []parity.Row
		ran  int
	)
	add := func(rs []parity.Row) {
		mu.Lock()
		defer mu.Unlock()
		rows = append(rows, rs...)
		ran++
	}
	t.Run("pipelines", func(t *testing.T) {
		for _, name := range entries {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				add(runPipeline(t, c, name, filepath.Join("..", "testdata", name)))
			})
		}
		// A pipeline of the suite's own, for the Spark SQL functions the
		// testdata pipelines do not call (engine/compat.go's macros above
		// all).
		t.Run("spark_sql", func(t *testing.T) {
			t.Parallel()
			add(runPipeline(t, c, "spark_sql (parity/testdata)", filepath.Join("testdata", "spark_sql")))
		})
		// retail is not portable as written (its expectations), yet its
		// SQL is the richest of the testdata: casts, DECIMAL arithmetic,
		// window functions, date_trunc. A copy without the @expect lines
		// runs on both engines, so that SQL is compared too.
		t.Run("retail_without_expect", func(t *testing.T) {
			t.Parallel()
			dir := withoutExpectations(t, filepath.Join("..", "testdata", "retail"))
			add(runPipeline(t, c, "retail (@expect lines removed)", dir))
		})
		// clickstream's page_views_per_minute groups by date_trunc of its
		// watermarked column, which the native engine closes minute by
		// minute and Spark refuses in append mode; Spark's own form is a
		// window(...) of the column, which DuckDB's parser rejects. Spark
		// runs that form, the native engine the testdata as written, and
		// the rows are compared.
		t.Run("clickstream_window", func(t *testing.T) {
			t.Parallel()
			native := filepath.Join("..", "testdata", "clickstream")
			add(runPipelineOn(t, c, "clickstream (window(...) on Spark)", native, windowed(t, native)))
		})
	})
	if t.Failed() {
		return
	}
	if want := len(entries) + 3; ran != want {
		// -run picked some pipelines: the table would be partial.
		t.Logf("%d of %d pipelines ran: docs/parity.md not checked", ran, want)
		return
	}
	for _, r := range rows {
		if r.Status == parity.Differs {
			t.Errorf("%s.%s differs: %s", r.Pipeline, r.Dataset, r.Detail)
		}
	}
	// This run is the server's column; the other releases' columns are
	// read back from the file as they are.
	release := sparktest.Release()
	runs := map[string][]parity.Row{}
	if old, err := os.ReadFile(reportPath); err == nil {
		if runs, err = parity.ParseReport(string(old)); err != nil {
			if !*update {
				t.Fatalf("%s: %v (run go test -tags duckdb_arrow ./parity -update to rewrite it)", reportPath, err)
			}
			t.Logf("%s: %v: written anew, with this release's column only", reportPath, err)
			runs = map[string][]parity.Row{}
		}
	}
	runs[release] = rows
	got := parity.Report(runs, release)
	if *update {
		if err := os.WriteFile(reportPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatalf("%v (run go test -tags duckdb_arrow ./parity -update)", err)
	}
	if got != string(want) {
		t.Errorf("docs/parity.md's Spark %s column is not what the suite produces; run go test -tags duckdb_arrow ./parity -update against this server. This run:\n%s", release, got)
	}
}

// notCompared are testdata pipelines the suite leaves out, each with the
// reason docs/parity.md gives: a known difference not fixed yet.
var notCompared = map[string]string{
	// Its source is in another schema, ${source_schema}.zones: the
	// suite's sample tables live in the run's one database. The folder
	// ran on Spark 4.1.4 with spark-pipelines (rows as native) by hand,
	// 2026-12-03.
	"parameters": "reads a source in another schema (${source_schema}.zones), which the suite's sample tables (one database per run) do not model",
	// Its datasets a.x and b.x live in two schemas (the native engine
	// keeps them apart, engine/naming_test.go); the suite's run has one.
	"naming_qualified": "defines datasets in two schemas (a.x beside b.x), which the suite's one database per run does not model",
	"medallion_names":  "keeps tables of one name in five schemas (landing, legacy, bronze, silver, gold) whose sources Spark needs created first, and its AUTO CDC target merges into no format Spark 4.3.0 ships (4.1 has no AUTO CDC); checked by hand on Spark 4.3.0 (its README)",
}

// pipelines lists the testdata pipelines (every folder but broken/ and
// notCompared).
func pipelines() ([]string, error) {
	ents, err := os.ReadDir("../testdata")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if _, skip := notCompared[e.Name()]; e.IsDir() && e.Name() != "broken" && !skip {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// withoutExpectations copies a pipeline folder without its `-- @expect`
// pragma lines.
func withoutExpectations(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(path) != ".sql" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var kept []string
		for _, line := range strings.SplitAfter(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "-- @expect") {
				n++
				continue
			}
			kept = append(kept, line)
		}
		return os.WriteFile(path, []byte(strings.Join(kept, "")), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("%s has no @expect line to remove", src)
	}
	return dir
}

// windowedQuery is page_views_per_minute as Spark runs it: grouped by a
// one-minute window(...) of the watermarked column (the @watermark pragma
// is written into the query as its WATERMARK clause), the window's start
// selected as minute_start.
const windowedQuery = `-- @kind: streaming_table
-- @watermark: event_time, 2 minutes
-- @output_mode: append
SELECT
  window.start AS minute_start,
  page,
  count(*) AS views
FROM STREAM(clicks_raw)
GROUP BY window(event_time, '1 minute'), page
`

// windowed copies testdata/clickstream (src) with page_views_per_minute
// written as windowedQuery.
func windowed(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "page_views_per_minute.sql")
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(windowedQuery), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runPipeline(t *testing.T, c *sparkconnect.Client, name, dir string) []parity.Row {
	return runPipelineOn(t, c, name, dir, dir)
}

// runPipelineOn compares the pipeline in nativeDir, run natively, with
// the one in dir, run on Spark: the same folder, or one whose queries
// are written in Spark's own form where the engines' forms differ.
func runPipelineOn(t *testing.T, c *sparkconnect.Client, name, nativeDir, dir string) []parity.Row {
	backend := sparktest.Backend(t)
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The pipeline is checked against the server's version: the Spark
	// backends it names stand for the one the suite runs on.
	if bs, changed := onVersion(snap.Pipeline.Backends, backend); changed {
		if snap, err = analysis.Load(dir, analysis.Options{Backends: bs}); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range snap.Diagnostics {
		if d.Severity == ir.Error && d.Backend == "" {
			t.Fatalf("%s does not analyse: %v", name, d)
		}
	}
	keep, excluded := parity.Portable(snap, backend)
	var rows []parity.Row
	for _, x := range excluded {
		rows = append(rows, parity.Row{Pipeline: name, Dataset: x.Dataset, Status: parity.NotPortable, Detail: x.Reason})
	}
	// What both sides compare: the stored datasets Spark runs.
	var compared []*ir.Dataset
	for _, d := range snap.Pipeline.Datasets {
		if !keep[ir.NameKey(d.Name)] {
			continue
		}
		if d.Kind == ir.TemporaryView {
			rows = append(rows, parity.Row{Pipeline: name, Dataset: d.Name, Status: parity.NotStored,
				Detail: "temporary view: Spark keeps no table for it; the datasets reading it are compared"})
			continue
		}
		compared = append(compared, d)
	}
	if len(compared) == 0 {
		return rows
	}
	nativeSnap := snap
	if nativeDir != dir {
		if nativeSnap, err = analysis.Load(nativeDir, analysis.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	native := runNative(t, nativeSnap, compared)
	nativeTime := time.Since(start)

	start = time.Now()
	spark := runSpark(t, c, snap, backend, keep, compared)
	t.Logf("%s: native %v, Spark (define, run, read back) %v", name, nativeTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	for _, d := range compared {
		k := ir.NameKey(d.Name)
		r := parity.Row{Pipeline: name, Dataset: d.Name, NativeRows: len(native[k].Rows), SparkRows: len(spark[k].Rows)}
		if o := parity.Compare(native[k], spark[k]); o.Equal {
			r.Status = parity.Equal
		} else {
			r.Status, r.Detail = parity.Differs, o.Diff
		}
		rows = append(rows, r)
		t.Logf("%s: %s (native %d rows, Spark %d) %s", d.Name, r.Status, r.NativeRows, r.SparkRows, r.Detail)
	}
	return rows
}

// runNative runs the whole pipeline on embedded DuckDB and reads the
// compared datasets.
func runNative(t *testing.T, snap *analysis.Snapshot, compared []*ir.Dataset) map[string]*parity.Table {
	t.Helper()
	s, err := engine.Open(snap.Root, engine.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := s.Run(ctx, snap.Pipeline, engine.RunOptions{})
	if err != nil {
		t.Fatalf("native run: %v", err)
	}
	out := map[string]*parity.Table{}
	for _, d := range compared {
		k := ir.NameKey(d.Name)
		if dr := res.Datasets[k]; dr == nil || dr.Phase != engine.Completed {
			t.Fatalf("native run did not complete %s: %+v", d.Name, dr)
		}
		err := s.QueryArrow(ctx, "SELECT * FROM "+s.RelationSQL(d.Name), func(r array.RecordReader) error {
			tab, err := parity.Read(r)
			out[k] = tab
			return err
		})
		if err != nil {
			t.Fatalf("native read of %s: %v", d.Name, err)
		}
	}
	return out
}

// runSpark pushes the portable part of the pipeline to the server (a
// database and storage folder of its own, the samples as tables over the
// sample files), runs it, and reads the compared datasets back.
func runSpark(t *testing.T, c *sparkconnect.Client, snap *analysis.Snapshot, backend ir.Backend, keep map[string]bool, compared []*ir.Dataset) map[string]*parity.Table {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p := snap.Pipeline
	db := fmt.Sprintf("thund_parity_%s_%d", strings.ToLower(p.Name), time.Now().UnixNano())
	db = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, db)
	if err := c.SQL(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
		defer ccancel()
		_ = c.SQL(cctx, "DROP DATABASE "+db+" CASCADE")
	})
	for _, src := range p.Sources {
		if src.Sample == "" {
			continue
		}
		q, err := parity.SampleTable(db, src, snap.Root)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SQL(ctx, q); err != nil {
			t.Fatalf("sample table for %s: %v", src.Name, err)
		}
	}
	// Datasets Spark cannot run are restricted to native, which Lower
	// skips (and, as nothing kept reads them, accepts).
	for _, d := range p.Datasets {
		if !keep[ir.NameKey(d.Name)] {
			d.Backends = []ir.Backend{ir.Native}
		}
	}
	g, diags := sdplower.LowerWith(p, backend, sdplower.Options{Texts: libraryTexts(snap), Paths: samplePaths(snap)})
	if g == nil {
		t.Fatalf("Lower refused the portable part: %v", diags)
	}
	g.Database = db
	conf := map[string]string{"spark.sql.session.timeZone": "UTC"}
	for k, v := range g.Conf {
		conf[k] = v
	}
	g.Conf = conf
	res, err := sdplower.Push(ctx, c, g, sdplower.Run{Storage: "file://" + t.TempDir() + "/storage"}, nil)
	if err != nil {
		if res != nil {
			for _, e := range res.Events {
				t.Logf("event: %s", e.Message)
			}
		}
		t.Fatalf("Spark run: %v", err)
	}
	t.Logf("Spark: define %v, run %v", res.Define.Round(time.Millisecond), res.RunTime.Round(time.Millisecond))
	out := map[string]*parity.Table{}
	for _, d := range compared {
		out[ir.NameKey(d.Name)] = readSpark(t, c, ctx, db+"."+quote(d.Name))
	}
	return out
}

// libraryTexts is the text of every library, which the lowering reads
// Python files' loads from.
func libraryTexts(s *analysis.Snapshot) map[string]string {
	out := map[string]string{}
	for _, l := range s.Libraries {
		if t, ok := s.Text(l); ok {
			out[l] = t
		}
	}
	return out
}

// samplePaths maps each path a Python library loads to the absolute path
// of its source's sample, so Spark loads the files the native run reads
// (as the suite's sample tables stand in for SQL's sources).
func samplePaths(s *analysis.Snapshot) map[string]string {
	out := map[string]string{}
	for _, f := range s.Pipeline.Flows {
		for _, r := range f.Reads {
			if r.Path == "" {
				continue
			}
			for _, src := range s.Pipeline.Sources {
				if ir.NameKey(src.Name) == ir.NameKey(r.Name) && src.Sample != "" {
					if abs, err := filepath.Abs(filepath.Join(s.Root, filepath.FromSlash(src.Sample))); err == nil {
						out[r.Path] = abs
					}
				}
			}
		}
	}
	return out
}

func readSpark(t *testing.T, c *sparkconnect.Client, ctx context.Context, table string) *parity.Table {
	t.Helper()
	rdr, err := c.QueryArrow(ctx, "SELECT * FROM "+table)
	if err != nil {
		t.Fatalf("read back %s: %v", table, err)
	}
	defer rdr.Release()
	tab, err := parity.Read(rdr)
	if err != nil {
		t.Fatalf("read back %s: %v", table, err)
	}
	return dropColumn(tab, "__spark_autocdc_metadata")
}

// dropColumn leaves out a column Spark adds for its own bookkeeping.
func dropColumn(t *parity.Table, name string) *parity.Table {
	for i, c := range t.Columns {
		if c != name {
			continue
		}
		cut := func(xs []string) []string { return append(append([]string(nil), xs[:i]...), xs[i+1:]...) }
		out := *t
		out.Columns, out.Types = cut(t.Columns), cut(t.Types)
		out.Scales = append(append([]int32(nil), t.Scales[:i]...), t.Scales[i+1:]...)
		out.Floats = append(append([]bool(nil), t.Floats[:i]...), t.Floats[i+1:]...)
		out.Rows = nil
		for _, r := range t.Rows {
			out.Rows = append(out.Rows, cut(r))
		}
		return &out
	}
	return t
}

func quote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// pyspark's own CLI runs the SDP-form project unchanged (a temporary
// copy, as the CLI writes nothing into it, but the copy keeps testdata
// clean of Python caches) against the shared server; its outputs, read
// back over Spark Connect, equal the native ones.
func TestSparkPipelinesCLIRunsSDPProject(t *testing.T) {
	t.Parallel()
	url := sparktest.Need(t)
	bin, env := cli(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../testdata/sdp_project")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--remote", url, "run", "--spec", filepath.Join(dir, "spark-pipeline.yml"))
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("spark-pipelines run: %v\n%s", err, out.String())
	}
	t.Logf("spark-pipelines run: %v", time.Since(start).Round(time.Millisecond))
	if !strings.Contains(out.String(), "Run is COMPLETED") {
		t.Fatalf("spark-pipelines run did not report the run COMPLETED:\n%s", out.String())
	}
	snap, err := analysis.Load("../testdata/sdp_project", analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The Python dataset airport_trips (spark.read.table + where) runs
	// natively as the Spark SQL Thund reads its body as, so it is
	// compared like the SQL ones.
	if f := snap.Pipeline.FlowsInto("airport_trips"); len(f) != 1 || analysis.DefinedInPython(f[0]) {
		t.Fatalf("airport_trips is not read as SQL: %+v", f)
	}
	var stored []*ir.Dataset
	for _, d := range snap.Pipeline.Datasets {
		if d.Kind != ir.TemporaryView {
			stored = append(stored, d)
		}
	}
	native := runNative(t, snap, stored)
	c := sparktest.Client(t)
	// The spec names no database: the CLI wrote into the session default.
	for _, d := range stored {
		got := readSpark(t, c, ctx, "spark_catalog.default."+quote(d.Name))
		if o := parity.Compare(native[ir.NameKey(d.Name)], got); !o.Equal {
			t.Errorf("%s written by spark-pipelines differs from native: %s", d.Name, o.Diff)
		}
	}
	// The Python dataset: JFK trips among the clean ones.
	airport := readSpark(t, c, ctx, "spark_catalog.default.airport_trips")
	if len(airport.Rows) != 3 {
		t.Errorf("airport_trips has %d rows, want 3 (trips 1004, 1008 and 1011)", len(airport.Rows))
	}
}

// cli finds pyspark's spark-pipelines in the pinned venv scripts/spark.sh
// installs, with the environment it needs.
func cli(t *testing.T) (string, []string) {
	t.Helper()
	cache := os.Getenv("THUND_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(home, ".cache", "thund")
	}
	matches, _ := filepath.Glob(filepath.Join(cache, "spark", "venv-*", "bin", "spark-pipelines"))
	if len(matches) == 0 {
		t.Fatalf("no spark-pipelines under %s/spark: run scripts/spark.sh start (it installs pyspark)", cache)
	}
	sort.Strings(matches)
	bin := matches[len(matches)-1]
	venv := filepath.Dir(filepath.Dir(bin))
	python := filepath.Join(venv, "bin", "python")
	home, err := exec.Command(python, "-c", "import os, pyspark; print(os.path.dirname(pyspark.__file__))").Output()
	if err != nil {
		t.Fatalf("find pyspark in %s: %v", venv, err)
	}
	env := append(os.Environ(),
		"SPARK_HOME="+strings.TrimSpace(string(home)),
		"PYSPARK_PYTHON="+python,
		"SPARK_LOCAL_IP=127.0.0.1",
		"PATH="+filepath.Join(venv, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	return bin, env
}

// A Spark result pages through the preview package as a native one does:
// Client.QueryArrow's reader goes to preview.FromReader unchanged.
func TestSparkResultPreviews(t *testing.T) {
	t.Parallel()
	c := sparktest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rdr, err := c.QueryArrow(ctx, "SELECT id, CAST(id * 1.5 AS DECIMAL(10, 2)) AS amount, DATE '2025-03-03' + CAST(id AS INT) AS day, "+
		"IF(id = 2, NULL, concat('row ', id)) AS label FROM range(5)")
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	page, err := preview.FromReader(rdr, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	cols := fmt.Sprint(page.Columns)
	if want := "[{id BIGINT} {amount DECIMAL(10,2)} {day DATE} {label VARCHAR}]"; cols != want {
		t.Errorf("columns %s, want %s", cols, want)
	}
	got := fmt.Sprint(page.Rows)
	if want := "[[1 1.50 2025-03-04 row 1] [2 3.00 2025-03-05 <nil>]]"; got != want || page.TotalRows != 5 {
		t.Errorf("page rows %s of %d, want %s of 5", got, page.TotalRows, want)
	}
	var b bytes.Buffer
	if err := preview.WriteTable(&b, page, preview.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Logf("Spark result as a preview table:\n%s", b.String())
}

// Every function analysis flags as meaning something else on Spark
// (analysis.DiffersOnSpark) still does: its example gives another value
// natively than on the real server. If an engine changes, the warning
// goes stale and this fails.
func TestDiffersOnSparkExamplesStillDiffer(t *testing.T) {
	t.Parallel()
	c := sparktest.Client(t)
	s, err := engine.Open(t.TempDir(), engine.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, f := range analysis.DiffersOnSpark {
		q := "SELECT " + f.Example + " AS v"
		var native *parity.Table
		err := s.QueryArrow(ctx, q, func(r array.RecordReader) error {
			var err error
			native, err = parity.Read(r)
			return err
		})
		if err != nil {
			t.Errorf("%s natively: %v", f.Example, err)
			continue
		}
		spark := readSparkQuery(t, c, ctx, q)
		if o := parity.Compare(native, spark); o.Equal {
			t.Errorf("%s gives %v on both engines: %s no longer differs; drop it from analysis.DiffersOnSpark", f.Example, native.Rows, f.Name)
		} else {
			t.Logf("%s: native %v, Spark %v", f.Example, native.Rows, spark.Rows)
		}
	}
}

func readSparkQuery(t *testing.T, c *sparkconnect.Client, ctx context.Context, q string) *parity.Table {
	t.Helper()
	rdr, err := c.QueryArrow(ctx, q)
	if err != nil {
		t.Fatalf("%s on Spark: %v", q, err)
	}
	defer rdr.Release()
	tab, err := parity.Read(rdr)
	if err != nil {
		t.Fatalf("%s on Spark: %v", q, err)
	}
	return tab
}

// onVersion replaces the Spark backends of bs by b; changed is false when
// that leaves bs as it is.
func onVersion(bs []ir.Backend, b ir.Backend) (out []ir.Backend, changed bool) {
	seen := map[ir.Backend]bool{}
	for _, x := range bs {
		if ir.IsSpark(x) && x != b {
			x, changed = b, true
		}
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out, changed
}

// pythonCopy copies testdata pipeline name into a folder of its own for
// both Thund's push and spark-pipelines run: the spec names database db
// and an absolute storage, and every path its Python files load is
// pointed at the copy's sample of that path's source (what the native
// run reads), so all three runs read the same files.
func pythonCopy(t *testing.T, name, db string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", name))); err != nil {
		t.Fatal(err)
	}
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	paths := samplePaths(snap)
	for _, l := range snap.Libraries {
		if !strings.HasSuffix(l, ".py") {
			continue
		}
		file := filepath.Join(dir, filepath.FromSlash(l))
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for from, to := range paths {
			if strings.HasSuffix(from, "/") {
				to += "/"
			}
			text = strings.ReplaceAll(text, from, to)
		}
		// A path written as an f-string (f"/landing/{shop}_orders/") is
		// pointed at the samples folder by its fixed prefix.
		for from, to := range paths {
			if seg := sourceSegment(from); seg != "" {
				prefix := strings.TrimSuffix(strings.TrimSuffix(from, "/"), seg)
				sample := strings.TrimSuffix(to, filepath.Base(to))
				text = strings.ReplaceAll(text, `f"`+prefix, `f"`+sample)
			}
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := fmt.Sprintf("name: %s\nstorage: file://%s/storage\ndatabase: %s\nlibraries:\n  - glob:\n      include: transformations/**\n", name, dir, db)
	if err := os.WriteFile(filepath.Join(dir, "spark-pipeline.yml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// sourceSegment is a path's last segment ("north_orders" of
// "/landing/north_orders/").
func sourceSegment(p string) string {
	p = strings.TrimSuffix(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return ""
}

// TestSparkPythonPushAgreesWithSparkPipelinesRun: a folder of Python (and
// SQL) datasets pushed by Thund (each Python body as the plan pyspark
// builds for it, the Python never run) and the same folder run by
// pyspark's own spark-pipelines (which runs the Python) write the same
// tables, and both equal the native run.
func TestSparkPythonPushAgreesWithSparkPipelinesRun(t *testing.T) {
	t.Parallel()
	url := sparktest.Need(t)
	c := sparktest.Client(t)
	backend := sparktest.Backend(t)
	bin, env := cli(t)
	// python_frames is not here yet: spark-pipelines run of it failed on
	// Spark 4.1.4 (TABLE_OR_VIEW_NOT_FOUND orders_north while its Python
	// ran), not investigated.
	for _, name := range []string{"python_init"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			stamp := time.Now().UnixNano()
			thundDB := fmt.Sprintf("thund_pypush_%s_%d", name, stamp)
			cliDB := fmt.Sprintf("thund_pycli_%s_%d", name, stamp)
			for _, db := range []string{thundDB, cliDB} {
				if err := c.SQL(ctx, "CREATE DATABASE "+db); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
					defer ccancel()
					_ = c.SQL(cctx, "DROP DATABASE "+db+" CASCADE")
				})
			}
			dir := pythonCopy(t, name, cliDB)
			snap, err := analysis.Load(dir, analysis.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range snap.Diagnostics {
				if d.Severity == ir.Error {
					t.Fatalf("%s does not analyse: %v", name, d)
				}
			}
			var stored []*ir.Dataset
			for _, d := range snap.Pipeline.Datasets {
				if d.Kind != ir.TemporaryView {
					stored = append(stored, d)
				}
			}
			native := runNative(t, snap, stored)

			g, diags := sdplower.LowerWith(snap.Pipeline, backend, sdplower.Options{Texts: libraryTexts(snap)})
			if g == nil {
				t.Fatalf("Lower refused %s: %v", name, diags)
			}
			g.Database = thundDB
			if _, err := sdplower.Push(ctx, c, g, sdplower.Run{Storage: "file://" + t.TempDir() + "/storage"}, nil); err != nil {
				t.Fatalf("Thund's push of %s: %v", name, err)
			}

			cmd := exec.CommandContext(ctx, bin, "--remote", url, "run", "--spec", filepath.Join(dir, "spark-pipeline.yml"))
			cmd.Dir, cmd.Env = dir, env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "Run is COMPLETED") {
				t.Fatalf("spark-pipelines run of %s: %v\n%s", name, err, out.String())
			}
			for _, d := range stored {
				pushed := readSpark(t, c, ctx, thundDB+"."+quote(d.Name))
				ran := readSpark(t, c, ctx, cliDB+"."+quote(d.Name))
				if o := parity.Compare(ran, pushed); !o.Equal {
					t.Errorf("%s: Thund's push differs from spark-pipelines run: %s", d.Name, o.Diff)
				}
				if !strings.EqualFold(strings.Join(pushed.Columns, ","), strings.Join(ran.Columns, ",")) {
					t.Errorf("%s: columns %v pushed, %v from spark-pipelines run", d.Name, pushed.Columns, ran.Columns)
				}
				if o := parity.Compare(native[ir.NameKey(d.Name)], pushed); !o.Equal {
					t.Errorf("%s: the native run differs from Spark: %s", d.Name, o.Diff)
				}
				t.Logf("%s: %d rows, equal in the push, spark-pipelines run and the native run", d.Name, len(pushed.Rows))
			}
		})
	}
}
