package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/analysis/pylib"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

// runPipeline analyses and runs the pipeline in dir natively, passing the
// snapshot's Broken as the callers do.
func runPython(t *testing.T, dir string) *Result {
	t.Helper()
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(snap.Root, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{Blocked: snap.Broken()})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestPythonInitRuns: the layout spark-pipelines init writes runs
// natively: the Python dataset from spark.range(10), the SQL one from it.
func TestPythonInitRuns(t *testing.T) {
	res := runPython(t, filepath.Join("..", "testdata", "python_init"))
	for name, rows := range map[string]int64{"example_python_materialized_view": 10, "example_sql_materialized_view": 5} {
		d := res.Datasets[name]
		if d == nil || d.Phase != Completed || d.Rows != rows {
			t.Errorf("%s = %+v, want %d rows", name, d, rows)
		}
	}
}

// TestPythonStandIn: a Python dataset whose body Thund does not state in
// SQL takes its rows from samples/<name>.csv; without one it is skipped
// with the sample to add, and so is what reads it.
func TestPythonStandIn(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/scored.py": "import dlt\n\n@dlt.table\n@dlt.expect_or_drop(\"positive\", \"score > 0\")\ndef scored():\n    return model(dlt.read(\"raw\"))\n\n" +
			"@dlt.table\ndef ranked():\n    return spark.sql(\"SELECT id, score FROM scored ORDER BY score\")\n",
		"t/top.sql":          "CREATE MATERIALIZED VIEW top AS SELECT * FROM ranked WHERE score > 1\n",
		"samples/raw.csv":    "id\n1\n",
		"samples/scored.csv": "id,score\n1,0.5\n2,2.5\n3,-1\n4,3\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := runPython(t, dir)
	said := false
	for _, e := range res.Events {
		said = said || e.Dataset == "scored" && e.Phase == Planning && e.Message == "the Python body of scored is not run: its rows come from samples/scored.csv"
	}
	if !said {
		t.Errorf("no event says the stand-in sample: %+v", res.Events)
	}
	for name, rows := range map[string]int64{"scored": 3, "ranked": 3, "top": 2} {
		d := res.Datasets[name]
		if d == nil || d.Phase != Completed || d.Rows != rows {
			t.Errorf("%s = %+v, want %d rows", name, d, rows)
		}
	}
	os.Remove(filepath.Join(dir, "samples", "scored.csv"))
	res = runPython(t, dir)
	if d := res.Datasets["scored"]; d == nil || d.Phase != Skipped || !strings.Contains(d.Error, "add samples/scored.csv") {
		t.Errorf("scored without a sample = %+v", d)
	}
	if d := res.Datasets["top"]; d == nil || d.Phase != Skipped {
		t.Errorf("top = %+v", d)
	}
}

// TestPythonMixedRuns: testdata/python_mixed (Python bronze from a stand-in
// sample, a Python append flow, spark.sql in Python, SQL, and a Python read
// of the SQL dataset) runs natively with the figures of its README.
func TestPythonMixedRuns(t *testing.T) {
	res := runPython(t, filepath.Join("..", "testdata", "python_mixed"))
	want := map[string]int64{"raw_readings": 7, "valid_readings": 5, "sensors": 3, "site_temperature": 2, "hot_sites": 1}
	for name, rows := range want {
		d := res.Datasets[name]
		if d == nil || d.Phase != Completed || d.Rows != rows {
			t.Errorf("%s = %+v, want %d rows", name, d, rows)
		}
	}
}

// TestPythonDataFrameRuns: DataFrame chains, path loads, table settings
// and datasets defined in a loop run natively with Spark's meaning.
func TestPythonDataFrameRuns(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/frames.py": `from pyspark import pipelines as dp
from pyspark.sql import functions as F

@dp.materialized_view(partition_cols=["region"], table_properties={"quality": "bronze"})
def orders_raw():
    return spark.read.format("csv").option("header", "true").option("inferSchema", "true").load("/landing/orders/")

@dp.materialized_view
def enriched():
    users = spark.read.table("users").select("uid", "region")
    o = spark.read.table("orders_raw").select("oid", "uid", "amount")
    return (o.join(users, "uid", "left")
             .withColumn("twice", F.expr("amount * 2"))
             .withColumnRenamed("amount", "amt")
             .drop("oid"))

@dp.materialized_view
def by_region():
    return (spark.read.table("enriched").groupBy("region")
            .agg(F.sum("amt").alias("total"), F.count("*").alias("n")))

for r in ["east", "west"]:
    @dp.materialized_view(name=f"orders_{r}")
    def _part():
        return spark.read.table("enriched").where(f"region = '{r}'")

@dp.materialized_view
def both():
    return spark.read.table("orders_east").union(spark.read.table("orders_west")).distinct()
`,
		"samples/orders.csv": "oid,uid,amount\n1,10,5\n2,11,7\n3,10,1\n4,12,2\n",
		"samples/users.csv":  "uid,region\n10,east\n11,west\n12,east\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The one warning: spark-pipelines run would fail on the .drop over
	// the pipeline's tables (the native run is not affected).
	dropWarned := false
	for _, d := range snap.Diagnostics {
		if d.Severity == ir.Warning && strings.Contains(d.Message, "resolves the DataFrame under .drop(...)") && strings.Contains(d.Message, "(orders_raw, users)") {
			dropWarned = true
			continue
		}
		if d.Severity == ir.Error || d.Severity == ir.Warning {
			t.Errorf("diagnostic: %+v", d)
		}
	}
	if !dropWarned {
		t.Errorf("no warning about .drop(\"oid\") for spark-pipelines run")
	}
	if d := snap.Pipeline.Dataset("orders_raw"); d == nil || strings.Join(d.PartitionBy, ",") != "region" || d.Properties["quality"] != "bronze" {
		t.Errorf("orders_raw = %+v", d)
	}
	s, err := Open(snap.Root, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{Blocked: snap.Broken()})
	if err != nil {
		t.Fatal(err)
	}
	for name, rows := range map[string]int64{"orders_raw": 4, "enriched": 4, "by_region": 2, "orders_east": 3, "orders_west": 1, "both": 4} {
		if d := res.Datasets[name]; d == nil || d.Phase != Completed || d.Rows != rows {
			t.Errorf("%s = %+v, want %d rows", name, d, rows)
		}
	}
	var cols string
	if err := s.DB().QueryRow("SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = 'enriched'").Scan(&cols); err != nil || cols != "uid,amt,region,twice" {
		t.Errorf("enriched columns = %q, %v; want uid,amt,region,twice (the join key first, as Spark's join on names)", cols, err)
	}
	var total, n int64
	if err := s.DB().QueryRow("SELECT total, n FROM by_region WHERE region = 'east'").Scan(&total, &n); err != nil || total != 8 || n != 3 {
		t.Errorf("by_region east = %d, %d, %v; want 8, 3", total, n, err)
	}
}

// TestPythonFramesRuns: testdata/python_frames (loops, a factory, path
// loads, DataFrame chains) runs natively, every dataset from its body.
func TestPythonFramesRuns(t *testing.T) {
	res := runPython(t, filepath.Join("..", "testdata", "python_frames"))
	want := map[string]int64{"orders_north": 3, "orders_south": 3, "products": 3, "orders": 5, "daily_revenue": 4, "daily_units": 4, "best_day": 2}
	for name, rows := range want {
		if d := res.Datasets[name]; d == nil || d.Phase != Completed || d.Rows != rows {
			t.Errorf("%s = %+v, want %d rows", name, d, rows)
		}
	}
	for _, e := range res.Events {
		if strings.Contains(e.Message, "is not run") {
			t.Errorf("a body of python_frames is not run: %+v", e)
		}
	}
}

// TestPythonDeclaredSchemas: a Python dataset's schema= is its declared
// schema (the run stores those types, as Spark stores the table), and a
// JSON load's .schema(...) gives the columns in its order and types.
func TestPythonDeclaredSchemas(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/a.py": "from pyspark import pipelines as dp\n\n" +
			"@dp.materialized_view(schema=\"sku STRING, price DECIMAL(10,2)\")\ndef products():\n" +
			"    return spark.read.format(\"csv\").option(\"header\", \"true\").option(\"inferSchema\", \"true\").load(\"/in/prices.csv\")\n\n" +
			"@dp.materialized_view\ndef events():\n    return spark.read.format(\"json\").schema(\"kind STRING, id INT, day STRING\").load(\"/in/events.json\")\n",
		"samples/prices.csv":        "sku,price\nA,4.5\n",
		"samples/events_files.json": "{\"id\": 1, \"day\": \"2026-05-01\", \"kind\": \"a\"}\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range snap.Diagnostics {
		if d.Severity != ir.Info {
			t.Errorf("diagnostic: %+v", d)
		}
	}
	s, err := Open(snap.Root, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"products", "events"} {
		if d := res.Datasets[name]; d == nil || d.Phase != Completed || d.Rows != 1 {
			t.Fatalf("%s = %+v", name, d)
		}
	}
	got := strings.Join(rowsOf(t, s, "SELECT string_agg(column_name || ' ' || column_type, '; ') FROM (DESCRIBE products)"), "; ")
	if got != "sku VARCHAR; price DECIMAL(10,2)" {
		t.Errorf("products columns: %s", got)
	}
	got = strings.Join(rowsOf(t, s, "SELECT string_agg(column_name || ' ' || column_type, '; ') FROM (DESCRIBE events)"), "; ")
	if got != "kind VARCHAR; id INTEGER; day VARCHAR" {
		t.Errorf("events columns: %s", got)
	}
}

// TestPythonCSVLoadAsSpark: a CSV load with a schema reads the sample as
// Spark reads the files: the schema's names by position (the sample's
// header names are not the schema's), nullValue as NULL, and the
// schema's types. Without a schema the sample is read as Spark reads the
// files (no header: the first line a row, columns _c0, _c1; every column
// STRING without inferSchema; JSON fields sorted by name, integers
// BIGINT, dates kept as text); a load whose options make Spark read
// something the native engine does not (a timestampFormat) is refused
// before running, at the load.
func TestPythonCSVLoadAsSpark(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/a.py": "from pyspark import pipelines as dp\n\n" +
			"@dp.materialized_view\ndef stock():\n" +
			"    return (spark.read.format(\"csv\").option(\"header\", \"true\").option(\"nullValue\", \"NA\").option(\"dateFormat\", \"yyyy-MM-dd\")\n" +
			"            .schema(\"sku STRING, qty BIGINT, counted DATE\").load(\"/in/stock.csv\"))\n\n" +
			"@dp.materialized_view\ndef raw_lines():\n    return spark.read.format(\"csv\").load(\"/in/lines.csv\")\n\n" +
			"@dp.materialized_view\ndef as_text():\n    return spark.read.format(\"csv\").option(\"header\", \"true\").load(\"/in/text.csv\")\n\n" +
			"@dp.materialized_view\ndef inferred():\n    return spark.read.json(\"/in/events.json\")\n\n" +
			"@dp.materialized_view\ndef stamped():\n    return spark.read.option(\"header\", \"true\").option(\"timestampFormat\", \"dd/MM/yyyy HH:mm\").csv(\"/in/stamps.csv\")\n\n" +
			"@dp.materialized_view\ndef people():\n    return spark.read.format(\"csv\").option(\"header\", \"false\").load(\"/in/persons.csv\")\n\n" +
			"@dp.materialized_view\ndef people_inf():\n    return spark.read.format(\"csv\").option(\"inferSchema\", \"true\").load(\"/in/folks.csv\")\n\n" +
			"@dp.materialized_view\ndef people_schema():\n    return spark.read.format(\"csv\").schema(\"a STRING, b INT, c DATE\").load(\"/in/staff.csv\")\n",
		"samples/stock_files.csv": "item,count,day\nA,3,2026-05-02\nB,NA,NA\n",
		"samples/lines.csv":       "a,b\n1,2\n",
		"samples/text.csv":        "a,b\n1,2\n",
		"samples/events.json":     "{\"b\": 1, \"a\": \"2026-05-01\"}\n",
		"samples/stamps.csv":      "t\n01/05/2026 10:00\n",
		// CRLF line ends, no header line (as Spark 4.1.4 read it).
		"samples/persons.csv": "alice,3,2024-01-02\r\nbob,4,2024-01-03\r\n",
		"samples/folks.csv":   "alice,3,2024-01-02\r\nbob,4,2024-01-03\r\n",
		"samples/staff.csv":   "alice,3,2024-01-02\r\nbob,4,2024-01-03\r\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := analysis.Load(dir, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]string{}
	for _, d := range snap.Diagnostics {
		if d.Severity == ir.Error && d.Backend == ir.Native && d.Code == ir.CodeUnsupported {
			refused[strings.Fields(d.Message)[0]] = d.Message
			continue
		}
		if d.Severity != ir.Info {
			t.Errorf("diagnostic: %+v", d)
		}
	}
	if !strings.Contains(refused["stamped"], "timestampFormat") {
		t.Errorf("stamped is not refused natively for its timestampFormat: %q", refused["stamped"])
	}
	if len(refused) != 1 {
		t.Errorf("refused: %v", refused)
	}
	s, err := Open(snap.Root, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{Blocked: snap.Broken()})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Datasets["stock"]; d == nil || d.Phase != Completed || d.Rows != 2 {
		t.Fatalf("stock = %+v", d)
	}
	if d := res.Datasets["stamped"]; d != nil && d.Phase == Completed {
		t.Errorf("stamped ran natively though refused: %+v", d)
	}
	// Header-less loads, as spark-pipelines run on Spark 4.1.4 read the
	// same files: people struct<_c0:string,_c1:string,_c2:string>,
	// people_inf struct<_c0:string,_c1:int,_c2:date>, people_schema
	// struct<a:string,b:int,c:date>, two rows each.
	for _, name := range []string{"raw_lines", "people", "people_inf", "people_schema"} {
		if d := res.Datasets[name]; d == nil || d.Phase != Completed || d.Rows != 2 {
			t.Errorf("%s = %+v, want 2 rows", name, d)
		}
	}
	for name, want := range map[string]string{
		"as_text":       "a VARCHAR; b VARCHAR",
		"inferred":      "a VARCHAR; b BIGINT",
		"raw_lines":     "_c0 VARCHAR; _c1 VARCHAR",
		"people":        "_c0 VARCHAR; _c1 VARCHAR; _c2 VARCHAR",
		"people_inf":    "_c0 VARCHAR; _c1 INTEGER; _c2 DATE",
		"people_schema": "a VARCHAR; b INTEGER; c DATE",
	} {
		if got := strings.Join(rowsOf(t, s, "SELECT string_agg(column_name || ' ' || column_type, '; ') FROM (DESCRIBE "+name+")"), "; "); got != want {
			t.Errorf("%s columns: %s, want %s", name, got, want)
		}
	}
	// The reading itself, as the run and a description read it: the
	// header line is a row, the columns _c0 and _c1.
	call, err := s.LoadReading(snap.Pipeline, snap.Pipeline.Source("lines"))
	if err != nil || !strings.Contains(call, "header = false") || !strings.Contains(call, "'_c0': 'VARCHAR', '_c1': 'VARCHAR'") {
		t.Errorf("LoadReading(lines) = %s, %v", call, err)
	}
	for name, want := range map[string]string{
		"people":        "alice|3|2024-01-02; bob|4|2024-01-03",
		"people_inf":    "alice|3|2024-01-02; bob|4|2024-01-03",
		"people_schema": "alice|3|2024-01-02; bob|4|2024-01-03",
	} {
		cols := "_c0 || '|' || _c1 || '|' || _c2"
		if name == "people_schema" {
			cols = "a || '|' || b || '|' || c"
		}
		if got := strings.Join(rowsOf(t, s, "SELECT string_agg("+cols+", '; ' ORDER BY 1) FROM "+name), "; "); got != want {
			t.Errorf("%s rows: %s, want %s", name, got, want)
		}
	}
	// The description (Describer, for --columns, hovers and lineage)
	// reads the samples as the run does: a header-less sample's columns
	// are _c0, _c1, ..., not its first line.
	dsc, err := s.Describer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if failed := dsc.RegisterSources(context.Background(), snap.Pipeline); len(failed) > 0 {
		t.Errorf("RegisterSources: %v", failed)
	}
	for src, want := range map[string]string{"lines": "_c0 VARCHAR, _c1 VARCHAR", "persons": "_c0 VARCHAR, _c1 VARCHAR, _c2 VARCHAR", "folks": "_c0 VARCHAR, _c1 INTEGER, _c2 DATE"} {
		cols, err := dsc.Define(context.Background(), "d_"+src, "SELECT * FROM "+quoteIdent(src))
		var parts []string
		for _, c := range cols {
			parts = append(parts, c.Name+" "+c.Type)
		}
		if err != nil || strings.Join(parts, ", ") != want {
			t.Errorf("described %s: %v, %v; want %s", src, parts, err, want)
		}
	}
	if _, err := dsc.Define(context.Background(), "d_pick", "SELECT _c2 FROM "+quoteIdent("persons")); err != nil {
		t.Errorf("a reader of _c2 does not bind: %v", err)
	}
	dsc.Close()
	got := strings.Join(rowsOf(t, s, "SELECT string_agg(column_name || ' ' || column_type, '; ') FROM (DESCRIBE stock)"), "; ")
	if got != "sku VARCHAR; qty BIGINT; counted DATE" {
		t.Errorf("stock columns: %s", got)
	}
	got = strings.Join(rowsOf(t, s, "SELECT string_agg(sku || '|' || coalesce(CAST(qty AS VARCHAR), 'null') || '|' || coalesce(CAST(counted AS VARCHAR), 'null'), '; ' ORDER BY sku) FROM stock"), "; ")
	if got != "A|3|2026-05-02; B|null|null" {
		t.Errorf("stock rows: %s", got)
	}
}

// TestPythonStandInQualified: a Python dataset with a qualified name
// (cat.sch.x) takes its rows from samples/x.csv (or samples/cat.sch.x.csv),
// and the stand-in is not the dataset's own relation, which the native
// engine names by the last part (x).
func TestPythonStandInQualified(t *testing.T) {
	for _, sample := range []string{"samples/x.csv", "samples/cat.sch.x.csv"} {
		dir := t.TempDir()
		files := map[string]string{
			"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
			"t/x.py":             "from pyspark import pipelines as dp\n\n@dp.materialized_view(name=\"cat.sch.x\")\ndef build_x():\n    return some_udf(spark)\n",
			"t/y.sql":            "CREATE MATERIALIZED VIEW y AS SELECT id * 10 AS id FROM cat.sch.x;\n",
			sample:               "id\n1\n2\n3\n",
		}
		for name, text := range files {
			p := filepath.Join(dir, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res := runPython(t, dir)
		for name, rows := range map[string]int64{"cat.sch.x": 3, "y": 3} {
			if d := res.Datasets[name]; d == nil || d.Phase != Completed || d.Rows != rows {
				t.Errorf("%s: %s = %+v, want %d rows", sample, name, d, rows)
			}
		}
		for _, e := range res.Events {
			if strings.Contains(e.Message, "thund_") {
				t.Errorf("%s: an event shows an internal name: %q", sample, e.Message)
			}
		}
	}
}

// TestSparkLoadInference: the schema the native engine reads a load's
// sample with (pylib.InferJSON, pylib.InferCSV) is the one a live Spark
// server infers from the same file with the same options: names, order
// and types.
func TestSparkLoadInference(t *testing.T) {
	c := sparktest.Client(t)
	dir := t.TempDir()
	files := map[string]string{
		"a.json": "{\"id\": 1, \"name\": \"ann\", \"score\": 2.5, \"ok\": true, \"tags\": [\"x\"], \"addr\": {\"zip\": \"101\", \"n\": 3}, \"ts\": \"2024-01-05T10:00:00Z\", \"nul\": null, \"big\": 12345678901234567890123}\n" +
			"{\"id\": 2, \"score\": 3, \"tags\": [], \"addr\": {\"city\": \"b\"}, \"mixed\": 1, \"empty\": {}}\n{\"mixed\": \"one\", \"arrnull\": [null]}\n",
		"b.csv": "id;name;amount;day;flag;ts;n\n1;ann;2.50;2024-01-05;true;2024-01-05 10:00:00;NA\n2;bob;3;2024-01-06;false;2024-01-06 11:00:00;\n3;;x4;2024-01-07;TRUE;2024-01-07T12:00:00;5\n",
		"c.csv": "a,b,,a\n1,2,3,4\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []struct {
		file, format string
		options      map[string]string
	}{
		{"a.json", "json", nil},
		{"a.json", "json", map[string]string{"primitivesAsString": "true"}},
		{"b.csv", "csv", map[string]string{"sep": ";"}},
		{"b.csv", "csv", map[string]string{"header": "true", "sep": ";"}},
		{"b.csv", "csv", map[string]string{"header": "true", "delimiter": ";", "inferSchema": "true"}},
		{"b.csv", "csv", map[string]string{"header": "true", "sep": ";", "inferSchema": "true", "nullValue": "NA"}},
		{"c.csv", "csv", map[string]string{"header": "true"}},
	} {
		data := []byte(files[k.file])
		var fields []pylib.Field
		var err error
		if k.format == "json" {
			fields, err = pylib.InferJSON(data, k.options)
		} else {
			var o pylib.CSVOptions
			if o, err = pylib.CSVReading(k.options); err == nil {
				fields, err = pylib.InferCSV(data, o)
			}
		}
		if err != nil {
			t.Fatalf("%s %v: %v", k.file, k.options, err)
		}
		var want []string
		for _, f := range fields {
			want = append(want, f.Name+" "+f.Type.Spark())
		}
		opts := []string{"path " + quoteString(filepath.Join(dir, k.file))}
		for o, v := range k.options {
			opts = append(opts, "`"+o+"` "+quoteString(v))
		}
		ctx := context.Background()
		if err := c.SQL(ctx, "CREATE OR REPLACE TEMPORARY VIEW inferred USING "+k.format+" OPTIONS ("+strings.Join(opts, ", ")+")"); err != nil {
			t.Fatalf("%s %v: %v", k.file, k.options, err)
		}
		rd, err := c.QueryArrow(ctx, "SELECT * FROM inferred LIMIT 0")
		if err != nil {
			t.Fatalf("%s %v: %v", k.file, k.options, err)
		}
		var got []string
		for _, f := range rd.Schema().Fields() {
			got = append(got, f.Name+" "+arrowSparkType(f.Type))
		}
		rd.Release()
		if strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("%s %v:\nSpark  %s\nnative %s", k.file, k.options, strings.Join(got, ", "), strings.Join(want, ", "))
		}
	}
}

// arrowSparkType names an Arrow type of a Spark Connect answer as Spark's
// DDL does.
func arrowSparkType(t arrow.DataType) string {
	switch x := t.(type) {
	case *arrow.ListType:
		return "ARRAY<" + arrowSparkType(x.Elem()) + ">"
	case *arrow.StructType:
		var parts []string
		for _, f := range x.Fields() {
			parts = append(parts, f.Name+": "+arrowSparkType(f.Type))
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	case *arrow.Decimal128Type:
		return fmt.Sprintf("DECIMAL(%d,%d)", x.Precision, x.Scale)
	case *arrow.TimestampType:
		return "TIMESTAMP"
	}
	switch t.ID() {
	case arrow.INT32:
		return "INT"
	case arrow.INT64:
		return "BIGINT"
	case arrow.FLOAT64:
		return "DOUBLE"
	case arrow.BOOL:
		return "BOOLEAN"
	case arrow.STRING, arrow.LARGE_STRING:
		return "STRING"
	case arrow.DATE32:
		return "DATE"
	}
	return t.String()
}

// TestPythonLoadSchemaDisagrees: a load's schema that does not fit its
// sample (another number of CSV columns, a value Spark would read as
// NULL, a JSON field no record has) fails the dataset before it runs,
// naming the schema's file:line:col and the sample's record; two loads
// of one path with other options are refused, naming both.
func TestPythonLoadSchemaDisagrees(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/a.py": "from pyspark import pipelines as dp\n\n" +
			"@dp.materialized_view\ndef wide():\n    return spark.read.option(\"header\", \"true\").schema(\"id INT\").csv(\"/in/people.csv\")\n\n" +
			"@dp.materialized_view\ndef typed():\n    return spark.read.option(\"header\", \"true\").schema(\"id INT, name INT\").csv(\"/in/folks.csv\")\n\n" +
			"@dp.materialized_view\ndef missing():\n    return spark.read.schema(\"id BIGINT, zz STRING\").json(\"/in/ev.json\")\n\n" +
			"@dp.materialized_view\ndef fine():\n    return spark.read.option(\"header\", \"true\").schema(\"id INT, name STRING\").csv(\"/in/staff.csv\")\n\n" +
			"@dp.materialized_view\ndef twice_a():\n    return spark.read.option(\"header\", \"true\").csv(\"/in/dup.csv\")\n\n" +
			"@dp.materialized_view\ndef twice_b():\n    return spark.read.option(\"header\", \"true\").option(\"inferSchema\", \"true\").csv(\"/in/dup.csv\")\n",
		"samples/people.csv": "id,name\n1,ann\n",
		"samples/folks.csv":  "id,name\n1,ann\n",
		"samples/staff.csv":  "id,name\n1,ann\n2,bob\n",
		"samples/ev.json":    "{\"id\": 1}\n",
		"samples/dup.csv":    "id\n1\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := runPython(t, dir)
	for name, want := range map[string][]string{
		"wide":    {"t/a.py:5:55", "has 1 columns and samples/people.csv has 2"},
		"typed":   {"t/a.py:9:55", `record 2 of samples/folks.csv has "ann"`, "name INT"},
		"missing": {"t/a.py:13:30", "no record of samples/ev.json has a field zz"},
		"twice_a": {"t/a.py:21:12", "t/a.py:25:12", "other formats, options or schemas"},
	} {
		d := res.Datasets[name]
		if d == nil || d.Phase != Failed {
			t.Errorf("%s = %+v, want it failed", name, d)
			continue
		}
		for _, w := range want {
			if !strings.Contains(d.Error, w) {
				t.Errorf("%s: error %q does not say %q", name, d.Error, w)
			}
		}
		if strings.Contains(d.Error, "thund_") || strings.Contains(d.Error, "read_csv") {
			t.Errorf("%s: error shows an internal name: %s", name, d.Error)
		}
	}
	if d := res.Datasets["fine"]; d == nil || d.Phase != Completed || d.Rows != 2 {
		t.Errorf("fine = %+v", d)
	}
}
