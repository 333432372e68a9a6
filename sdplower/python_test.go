package sdplower

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sparkconnect"
	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

const pyHeader = "from pyspark import pipelines as dp\n\n"

// TestLowerPython: a Python dataset whose body Thund reads is sent; one
// it does not read (opaque) refuses the whole push at its name, with the
// way out (spark-pipelines run), instead of being left out.
func TestLowerPython(t *testing.T) {
	_, p, txt := analyse(t, map[string]string{
		"transformations/a.py": pyHeader + "@dp.materialized_view\ndef nums():\n    return spark.range(10)\n\n" +
			"@dp.materialized_view\ndef scored():\n    return my_model(spark.read.table(\"nums\"))\n",
		"transformations/even.sql": "CREATE MATERIALIZED VIEW even AS SELECT id FROM nums WHERE id % 2 = 0\n",
	})
	g, errs := LowerWith(p, ir.Spark41, Options{Texts: txt})
	if g != nil || len(errs) != 1 {
		t.Fatalf("want one refusal for scored, got graph %v and %+v", g != nil, errs)
	}
	e := errs[0]
	if !strings.Contains(e.Message, "scored is defined in Python in a form Thund cannot send to spark-4.1 (it calls my_model") ||
		!strings.Contains(e.Message, "spark-pipelines run") || e.Loc.File != "transformations/a.py" {
		t.Errorf("refusal = %+v", e)
	}
	if got := txt["transformations/a.py"][e.Loc.Start:e.Loc.End]; got != "scored" {
		t.Errorf("refusal at %q, want the function's name", got)
	}
}

// relationOf returns the relation a flow of g is sent with, or nil.
func relationOf(t *testing.T, g *Graph, name string) *Flow {
	t.Helper()
	for _, f := range g.Flows {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no flow %s in %s", name, flowNames(g))
	return nil
}

// TestLowerPythonRelations: each Python body Thund reads is sent as the
// plan pyspark's client builds for it.
func TestLowerPythonRelations(t *testing.T) {
	_, p, txt := analyse(t, map[string]string{
		"transformations/a.py": pyHeader +
			"@dp.materialized_view\ndef nums():\n    return spark.range(2, 12, 3)\n\n" +
			"@dp.materialized_view\ndef copy():\n    return spark.read.table(\"nums\")\n\n" +
			"dp.create_streaming_table(\"events\")\n\n" +
			"@dp.append_flow(target=\"events\")\ndef land():\n" +
			"    return spark.readStream.format(\"json\").schema(\"id BIGINT, kind STRING\").option(\"multiLine\", False).load(\"/landing/events/\")\n\n" +
			"@dp.materialized_view(schema=\"sku STRING, title STRING\")\ndef products():\n    return spark.read.csv(\"/exports/products.csv\", header=True, sep=\";\", inferSchema=True)\n\n" +
			"@dp.materialized_view\ndef cheap():\n    return spark.read.format(\"csv\").option(\"header\", \"true\").option(\"inferSchema\", \"true\").load(\"/exports/prices.csv\").where(\"price < 10\")\n\n" +
			"@dp.materialized_view\ndef lit():\n    return spark.sql(\"SELECT id FROM nums\")\n",
		"samples/events_files/1.json": "{\"id\": 1, \"kind\": \"a\"}\n",
		"samples/products_files.csv":  "sku;title\nA;apple\n",
		"samples/prices.csv":          "sku,price\nA,3\n",
	})
	g, errs := LowerWith(p, ir.Spark41, Options{Texts: txt, Paths: map[string]string{"/exports/products.csv": "/tmp/samples/products.csv"}})
	if g == nil {
		t.Fatalf("Lower refused: %+v", errs)
	}
	rg := relationOf(t, g, "nums").Relation.GetRange()
	if rg == nil || rg.GetStart() != 2 || rg.End != 12 || rg.Step != 3 {
		t.Errorf("nums: want Range(2, 12, 3), got %v", relationOf(t, g, "nums").Relation)
	}
	if rd := relationOf(t, g, "copy").Relation.GetRead(); rd == nil || rd.GetNamedTable().GetUnparsedIdentifier() != "nums" || rd.IsStreaming {
		t.Errorf("copy: want Read.NamedTable nums, got %v", rd)
	}
	land := relationOf(t, g, "land")
	ds := land.Relation.GetRead().GetDataSource()
	if !land.Relation.GetRead().GetIsStreaming() || ds.GetFormat() != "json" || ds.GetSchema() != "id BIGINT, kind STRING" ||
		ds.Options["multiLine"] != "false" || len(ds.Paths) != 1 || ds.Paths[0] != "/landing/events/" || land.Target != "events" {
		t.Errorf("land: want a streaming json load with its schema and option, got %v into %s", land.Relation, land.Target)
	}
	ds = relationOf(t, g, "products").Relation.GetRead().GetDataSource()
	if ds.GetFormat() != "csv" || ds.Options["header"] != "true" || ds.Options["sep"] != ";" || ds.Paths[0] != "/tmp/samples/products.csv" {
		t.Errorf("products: want csv with header=true, sep=; at the mapped path, got %v", ds)
	}
	for _, o := range g.Outputs {
		if (o.Name == "products") != (o.Schema == "sku STRING, title STRING") {
			t.Errorf("output %s sent with schema %q; want products' schema= only", o.Name, o.Schema)
		}
	}
	wr := relationOf(t, g, "cheap").Relation.GetWithRelations()
	if wr == nil || len(wr.References) != 1 {
		t.Fatalf("cheap: want SQL with one load referenced, got %v", relationOf(t, g, "cheap").Relation)
	}
	alias := wr.References[0].GetSubqueryAlias()
	root := wr.Root.GetSql().GetQuery()
	if alias.GetAlias() != "prices" || alias.GetInput().GetRead().GetDataSource().Options["header"] != "true" ||
		!strings.Contains(root, "FROM prices") || !strings.Contains(root, "WHERE price < 10") {
		t.Errorf("cheap: root %q over %v", root, alias)
	}
	if f := relationOf(t, g, "lit"); f.Relation != nil || f.SQL != "SELECT id FROM nums" {
		t.Errorf("lit: want the literal as SQL, got %+v", f)
	}
}

// TestLowerPythonRefusesWhatSparkCannotLoad: Auto Loader is Databricks'
// and an option computed at run time is unknown: both are refused at the
// load, before any call. (The analysis says the first too, per Spark
// backend: analysis.SynPyCloudFiles.)
func TestLowerPythonRefusesWhatSparkCannotLoad(t *testing.T) {
	s := load(t, writePipeline(t, map[string]string{
		"transformations/a.py": pyHeader + "import os\n\n" +
			"dp.create_streaming_table(\"auto\")\n\n@dp.append_flow(target=\"auto\")\ndef auto_flow():\n    return spark.readStream.format(\"cloudFiles\").option(\"cloudFiles.format\", \"csv\").load(\"/landing/a/\")\n\n" +
			"@dp.materialized_view\ndef opt():\n    return spark.read.format(\"csv\").option(\"sep\", os.environ[\"SEP\"]).load(\"/landing/b.csv\")\n",
		"samples/a/1.csv": "x\n1\n",
		"samples/b.csv":   "x\n1\n",
	}))
	p, txt := s.Pipeline, texts(s)
	for _, d := range s.Diagnostics {
		if d.Severity == ir.Error && !strings.Contains(d.Message, "DATA_SOURCE_NOT_FOUND") {
			t.Fatalf("analysis error: %+v", d)
		}
	}
	_, errs := LowerWith(p, ir.Spark43, Options{Texts: txt})
	var got []string
	for _, e := range errs {
		got = append(got, e.Message)
	}
	all := strings.Join(got, "\n")
	// The analysis' capability finding comes first, then the lowering's
	// own refusals.
	if len(errs) != 3 || !strings.Contains(all, "DATA_SOURCE_NOT_FOUND") || !strings.Contains(all, "auto_flow loads files with Auto Loader (format cloudFiles)") ||
		!strings.Contains(all, `spark.readStream.format("csv")`) || !strings.Contains(all, `the value of option "sep" is computed at run time`) {
		t.Errorf("refusals:\n%s", all)
	}
	// Without the file's text the load's options are unknown: refused.
	_, errs = Lower(p, ir.Spark43)
	if len(errs) == 0 || !strings.Contains(errs[0].Message, "was not given the text of transformations/a.py") {
		t.Errorf("without texts: %+v", errs)
	}
}

// TestSparkPythonLoadsAndSteps: on a real server, Python loads of files
// pushed as Read.DataSource (a batch CSV with options, a stream of JSON
// files with its schema) and steps over a load (SQL over the load as a
// WithRelations reference, batch and streaming) run, and the tables hold
// the rows the files give.
func TestSparkPythonLoadsAndSteps(t *testing.T) {
	dir := t.TempDir()
	abs := func(p string) string { return dir + "/in/" + p }
	files := map[string]string{
		"transformations/a.py": pyHeader +
			"@dp.materialized_view\ndef prices():\n    return spark.read.format(\"csv\").option(\"header\", \"true\").option(\"inferSchema\", \"true\").load(\"" + abs("prices.csv") + "\")\n\n" +
			"@dp.materialized_view\ndef cheap():\n    return spark.read.csv(\"" + abs("costs.csv") + "\", header=True, inferSchema=True).where(\"price < 10\").select(\"sku\")\n\n" +
			"dp.create_streaming_table(\"events\")\n\n" +
			"@dp.append_flow(target=\"events\")\ndef land():\n    return spark.readStream.format(\"json\").schema(\"id BIGINT, kind STRING\").load(\"" + abs("events/") + "\")\n\n" +
			"@dp.table\ndef kinds():\n    return spark.readStream.format(\"json\").schema(\"id BIGINT, kind STRING\").load(\"" + abs("more/") + "\").where(\"kind = 'a'\")\n\n" +
			"@dp.materialized_view\ndef typed():\n    return spark.read.format(\"csv\").option(\"header\", \"true\").option(\"nullValue\", \"NA\")" +
			".schema(\"item STRING, cost DOUBLE, seen DATE\").load(\"" + abs("typed.csv") + "\").where(\"cost IS NOT NULL\")\n",
		"samples/prices_files.csv":    "sku,price\nA,4.5\nB,20\n",
		"samples/costs.csv":           "sku,price\nA,4.5\nB,20\n",
		"samples/events_files/1.json": "{\"id\": 1, \"kind\": \"a\"}\n{\"id\": 2, \"kind\": \"b\"}\n",
		"samples/more/1.json":         "{\"id\": 1, \"kind\": \"a\"}\n{\"id\": 2, \"kind\": \"b\"}\n",
		"samples/typed_files.csv":     "sku,price,day\nA,4.5,2026-05-02\nB,NA,NA\nC,1,2026-05-03\n",
	}
	for name, text := range map[string]string{"in/prices.csv": files["samples/prices_files.csv"], "in/costs.csv": files["samples/costs.csv"],
		"in/events/1.json": files["samples/events_files/1.json"], "in/more/1.json": files["samples/more/1.json"], "in/typed.csv": files["samples/typed_files.csv"]} {
		files[name] = text
	}
	root := writePipelineIn(t, dir, files)
	s := load(t, root)
	for _, d := range s.Diagnostics {
		if d.Severity == ir.Error {
			t.Fatalf("analysis error: %+v", d)
		}
	}
	g, diags := LowerWith(s.Pipeline, ir.Spark41, Options{Texts: texts(s)})
	if g == nil {
		t.Fatalf("Lower refused: %v", diags)
	}
	if relationOf(t, g, "cheap").Relation.GetWithRelations() == nil || relationOf(t, g, "kinds").Relation.GetWithRelations() == nil {
		t.Fatalf("cheap and kinds are not sent as SQL over their loads: %v / %v", relationOf(t, g, "cheap").Relation, relationOf(t, g, "kinds").Relation)
	}
	if relationOf(t, g, "typed").Relation.GetWithRelations() == nil {
		t.Fatalf("typed is not sent as SQL over its load: %v", relationOf(t, g, "typed").Relation)
	}
	if root := relationOf(t, g, "kinds").Relation.GetWithRelations().Root.GetSql().GetQuery(); strings.Contains(strings.ToUpper(root), "STREAM") {
		t.Errorf("kinds' SQL still reads its load with STREAM: %s", root)
	}
	backend := sparktest.Backend(t)
	if g, diags = LowerWith(s.Pipeline, backend, Options{Texts: texts(s)}); g == nil {
		t.Fatalf("Lower refused for %s: %v", backend, diags)
	}
	c := sparktest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	db := fmt.Sprintf("thund_pyload_%d", time.Now().UnixNano())
	if err := c.SQL(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.SQL(context.Background(), "DROP DATABASE "+db+" CASCADE") })
	g.Database = db
	res, events, err := push(t, g, Run{Storage: "file://" + t.TempDir() + "/storage"})
	if err != nil {
		for _, e := range events {
			t.Logf("event: %s", e.Message)
		}
		t.Fatalf("run: %v", err)
	}
	t.Logf("define %v, run %v", res.Define, res.RunTime)
	for table, want := range map[string]int64{"prices": 2, "cheap": 1, "events": 2, "kinds": 1, "typed": 2} {
		var rows int64
		if err := c.Query(ctx, "SELECT * FROM "+db+"."+table, func(_ []byte, n int64) error { rows += n; return nil }); err != nil {
			t.Fatalf("read %s: %v", table, err)
		}
		if rows != want {
			t.Errorf("%s has %d rows on Spark, want %d", table, rows, want)
		}
	}
}

// writePipelineIn writes a pipeline folder into dir, its storage under it.
func writePipelineIn(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	files["spark-pipeline.yml"] = fmt.Sprintf("name: %s\nstorage: file://%s/storage\nlibraries:\n  - glob:\n      include: transformations/**\n",
		strings.ReplaceAll(t.Name(), "/", "_"), dir)
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSparkPythonFramesAgreesWithSparkPipelinesRun: testdata/python_frames
// (Python loops, a factory, path loads, DataFrame chains, SQL over a
// Python dataset), with its loads pointed at its samples, is run twice on
// the server: pushed by Thund (the Python never run) and run by pyspark's
// own spark-pipelines CLI of the server's release (which runs it). The
// CLI must complete, and every table both wrote must hold the same rows,
// columns in the same order, as many as the native run gives
// (testdata/python_frames/outputs.golden).
func TestSparkPythonFramesAgreesWithSparkPipelinesRun(t *testing.T) {
	url := sparktest.Need(t)
	c := sparktest.Client(t)
	backend := sparktest.Backend(t)
	bin, env := pipelinesCLI(t, sparktest.Release())
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	stamp := time.Now().UnixNano()
	thundDB, cliDB := fmt.Sprintf("thund_pyframes_push_%d", stamp), fmt.Sprintf("thund_pyframes_cli_%d", stamp)
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

	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../testdata/python_frames")); err != nil {
		t.Fatal(err)
	}
	// The landing folders and the export are the folder's samples.
	samples := filepath.ToSlash(filepath.Join(dir, "samples"))
	for _, name := range []string{"bronze.py", "silver.py"} {
		p := filepath.Join(dir, "transformations", name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.NewReplacer(`"/landing/`, `"`+samples+"/", `"/exports/products.csv"`, `"`+samples+`/products_files.csv"`).Replace(string(b))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := fmt.Sprintf("name: python_frames\nstorage: file://%s/storage\ndatabase: %s\nlibraries:\n  - glob:\n      include: transformations/**\n", filepath.ToSlash(dir), cliDB)
	if err := os.WriteFile(filepath.Join(dir, "spark-pipeline.yml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}

	s := load(t, dir)
	for _, d := range s.Diagnostics {
		if d.Severity == ir.Error {
			t.Fatalf("the copy does not analyse: %+v", d)
		}
	}
	g, diags := LowerWith(s.Pipeline, backend, Options{Texts: texts(s)})
	if g == nil {
		t.Fatalf("Lower refused for %s: %v", backend, diags)
	}
	g.Database = thundDB
	if _, events, err := push(t, g, Run{Storage: "file://" + t.TempDir() + "/storage"}); err != nil {
		for _, e := range events {
			t.Logf("event: %s", e.Message)
		}
		t.Fatalf("Thund's push: %v", err)
	}

	cmd := exec.CommandContext(ctx, bin, "--remote", url, "run", "--spec", filepath.Join(dir, "spark-pipeline.yml"))
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "Run is COMPLETED") {
		t.Fatalf("spark-pipelines run: %v\n%s", err, out.String())
	}

	want := goldenRowCounts(t, "../testdata/python_frames/outputs.golden")
	if len(want) != 7 {
		t.Fatalf("outputs.golden names %d datasets, want 7", len(want))
	}
	for name, n := range want {
		pushed := jsonRows(t, ctx, c, thundDB+"."+name)
		ran := jsonRows(t, ctx, c, cliDB+"."+name)
		if strings.Join(pushed, "\n") != strings.Join(ran, "\n") {
			t.Errorf("%s: Thund's push wrote\n%s\nspark-pipelines run wrote\n%s", name, strings.Join(pushed, "\n"), strings.Join(ran, "\n"))
		}
		if len(pushed) != n {
			t.Errorf("%s: %d rows on Spark, %d in the native run", name, len(pushed), n)
		}
	}
}

// pipelinesCLI finds the spark-pipelines CLI of pyspark release rel in the
// venv scripts/spark.sh installs, and the environment it runs in.
func pipelinesCLI(t *testing.T, rel string) (string, []string) {
	t.Helper()
	cache := os.Getenv("THUND_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(home, ".cache", "thund")
	}
	venv := filepath.Join(cache, "spark", "venv-"+rel)
	bin := filepath.Join(venv, "bin", "spark-pipelines")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no spark-pipelines for Spark %s: %v (scripts/spark.sh install %s)", rel, err, rel)
	}
	python := filepath.Join(venv, "bin", "python")
	home, err := exec.Command(python, "-c", "import os, pyspark; print(os.path.dirname(pyspark.__file__))").Output()
	if err != nil {
		t.Fatalf("find pyspark in %s: %v", venv, err)
	}
	return bin, append(os.Environ(),
		"SPARK_HOME="+strings.TrimSpace(string(home)),
		"PYSPARK_PYTHON="+python,
		"SPARK_LOCAL_IP=127.0.0.1",
		"PATH="+filepath.Join(venv, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// goldenRowCounts reads the "== name (completed, N rows)" headers of an
// outputs golden.
func goldenRowCounts(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		var name string
		var n int
		if _, err := fmt.Sscanf(line, "== %s (completed, %d rows)", &name, &n); err == nil {
			out[name] = n
		}
	}
	return out
}

// jsonRows reads a table back as one JSON object a row (its columns in
// order, by name), sorted, so two tables compare as multisets of rows.
func jsonRows(t *testing.T, ctx context.Context, c *sparkconnect.Client, table string) []string {
	t.Helper()
	rd, err := c.QueryArrow(ctx, "SELECT to_json(struct(*)) AS row FROM "+table)
	if err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	defer rd.Release()
	var rows []string
	for rd.Next() {
		col, ok := rd.RecordBatch().Column(0).(*array.String)
		if !ok {
			t.Fatalf("read %s: the row column is %T", table, rd.RecordBatch().Column(0))
		}
		for i := 0; i < col.Len(); i++ {
			rows = append(rows, col.Value(i))
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	sort.Strings(rows)
	return rows
}
