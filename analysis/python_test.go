package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestPythonInitLayout loads the layout `spark-pipelines init` writes: the
// Python dataset is a dataset of the graph with the SQL of spark.range,
// the SQL one reads it, and neither is blocked from the native run.
func TestPythonInitLayout(t *testing.T) {
	s, err := Load("../testdata/python_init", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.Diagnostics {
		if d.Severity == ir.Error || d.Severity == ir.Warning {
			t.Errorf("unexpected diagnostic: %+v", d)
		}
	}
	const pyFile = "transformations/example_python_materialized_view.py"
	d := s.Pipeline.Dataset("example_python_materialized_view")
	if d == nil {
		t.Fatalf("no Python dataset; datasets: %+v", s.Pipeline.Datasets)
	}
	text, _ := s.Text(pyFile)
	if d.Kind != ir.MaterializedView || d.Loc.File != pyFile || text[d.NameLoc.Start:d.NameLoc.End] != d.Name {
		t.Errorf("Python dataset = %+v", d)
	}
	flows := s.Pipeline.FlowsInto(d.Name)
	if len(flows) != 1 || flows[0].SQL != "SELECT id FROM range(0, 10, 1)" || flows[0].QueryLoc.File != pyFile ||
		text[flows[0].QueryLoc.Start:flows[0].QueryLoc.End] != "spark.range(10)" {
		t.Errorf("Python flows = %+v", flows)
	}
	sqlFlows := s.Pipeline.FlowsInto("example_sql_materialized_view")
	if len(sqlFlows) != 1 || len(sqlFlows[0].Reads) != 1 || s.Pipeline.Resolve(sqlFlows[0].Reads[0].Name) != d {
		t.Errorf("the SQL dataset does not read the Python one: %+v", sqlFlows)
	}
	broken := s.Broken()
	if got, ok := broken[ir.NameKey(d.Name)]; ok {
		t.Errorf("the Python dataset is blocked: %q", got)
	}
	if got, ok := broken["example_sql_materialized_view"]; ok {
		t.Errorf("the SQL dataset is blocked: %q", got)
	}
}

func TestPythonReadsAndUnknown(t *testing.T) {
	py := "import dlt\n\n@dlt.table(comment=\"bronze\")\ndef bronze():\n    return spark.readStream.table(\"landing\")\n\n" +
		"@dlt.view\ndef picked():\n    return dlt.read(NAME)\n"
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml":  "name: p\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/bronze.py":         py,
		"t/silver.sql":        "CREATE MATERIALIZED VIEW silver AS SELECT * FROM bronze JOIN missing USING (id)\n",
		"samples/landing.csv": "id\n1\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := s.Pipeline.FlowsInto("bronze")
	if len(f) != 1 || len(f[0].Reads) != 1 || !f[0].Streaming {
		t.Fatalf("bronze flows = %+v", f)
	}
	if r := f[0].Reads[0]; r.Name != "landing" || py[r.Loc.Start:r.Loc.End] != "landing" {
		t.Errorf("read = %+v", r)
	}
	unknown := findDiag(s, ir.CodeLibraryPython, "t/bronze.py")
	if unknown == nil || unknown.Severity != ir.Info || py[unknown.Loc.Start:unknown.Loc.Start+4] != "NAME" {
		t.Errorf("computed read diagnostic = %+v\n%s", unknown, strings.Join(diagStrings(s), "\n"))
	}
	// A Python read Thund cannot know may define `missing`: a warning.
	miss := findDiag(s, ir.CodeUnknownRef, "t/silver.sql")
	if miss == nil || miss.Severity != ir.Warning {
		t.Errorf("missing = %+v\n%s", miss, strings.Join(diagStrings(s), "\n"))
	}
}

func TestPythonSyntaxError(t *testing.T) {
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/a.py":             "from pyspark import pipelines as dp\n\n@dp.table\ndef a(:\n    pass\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := findDiag(s, ir.CodeLibraryPython, "t/a.py")
	text, _ := s.Text("t/a.py")
	if d == nil || d.Severity != ir.Warning || !strings.Contains(d.Message, "Python syntax error: ) expected here") || text[d.Loc.Start-2:d.Loc.Start] != "a(" {
		t.Errorf("syntax diagnostic = %+v\n%s", d, strings.Join(diagStrings(s), "\n"))
	}
}

// TestPythonEdit renames the Python dataset in an editor's buffer: the SQL
// read of the old name becomes unknown, and of the new name known again.
func TestPythonEdit(t *testing.T) {
	s, err := Load("../testdata/python_init", Options{})
	if err != nil {
		t.Fatal(err)
	}
	const pyFile = "transformations/example_python_materialized_view.py"
	text, _ := s.Text(pyFile)
	renamed := strings.Replace(text, "def example_python_materialized_view", "def other_name", 1)
	n := s.Update([]Change{{Path: pyFile, Text: &renamed}})
	if n.Pipeline.Dataset("other_name") == nil || n.Pipeline.Dataset("example_python_materialized_view") != nil {
		t.Fatalf("datasets after the edit: %+v", n.Pipeline.Datasets)
	}
	d := findDiag(n, ir.CodeUnknownRef, "transformations/example_sql_materialized_view.sql")
	if d == nil || d.Severity != ir.Error {
		t.Errorf("unknown reference after the rename = %+v", d)
	}
	back := n.Update([]Change{{Path: pyFile, Text: &text}})
	if findDiag(back, ir.CodeUnknownRef, "transformations/example_sql_materialized_view.sql") != nil {
		t.Errorf("the reference stays unknown after the rename is undone:\n%s", strings.Join(diagStrings(back), "\n"))
	}
}

// TestPythonSQLLiteral: the tables of a spark.sql literal are references
// at their ranges in the .py file, through implicit concatenation and
// escapes, and an SQL error in it is reported inside the literal.
func TestPythonSQLLiteral(t *testing.T) {
	py := "from pyspark import pipelines as dp\n\n" +
		"@dp.materialized_view\ndef a():\n    return spark.sql(\"\"\"SELECT id FROM raw_a\"\"\")\n\n" +
		"@dp.materialized_view\ndef b():\n    return spark.sql(\"SELECT * \"\n                     \"FROM a JOIN raw_b USING (id)\")\n\n" +
		"@dp.materialized_view\ndef c():\n    return spark.sql('SELECT * FROM b WHERE k = \\'x\\'')\n\n" +
		"@dp.materialized_view\ndef d():\n    return spark.sql(\"SELECT * FROM c WHERE k =\")\n\n" +
		"@dp.materialized_view\ndef e():\n    return spark.sql(f\"SELECT * FROM {src}\")\n"
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/q.py":             py,
		"samples/raw_a.csv":  "id\n1\n",
		"samples/raw_b.csv":  "id\n1\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"a": {"raw_a"}, "b": {"a", "raw_b"}, "c": {"b"}}
	for ds, names := range want {
		f := s.Pipeline.FlowsInto(ds)
		if len(f) != 1 || len(f[0].Reads) != len(names) {
			t.Fatalf("%s flows = %+v", ds, f)
		}
		for i, r := range f[0].Reads {
			if r.Name != names[i] || py[r.Loc.Start:r.Loc.End] != names[i] {
				t.Errorf("%s read %d = %+v covers %q", ds, i, r, py[r.Loc.Start:r.Loc.End])
			}
		}
	}
	var syntax *ir.Diagnostic
	for i, d := range s.Diagnostics {
		if d.Loc.File == "t/q.py" && d.Severity == ir.Error {
			syntax = &s.Diagnostics[i]
		}
	}
	// (SELECT * FROM c WHERE alone is valid Spark SQL: WHERE is then
	// c's alias, as Spark 4.1.4 reads it.)
	at := strings.Index(py, `k =")`) + len("k =")
	if syntax == nil || syntax.Loc.Start < strings.Index(py, `"SELECT * FROM c`) || syntax.Loc.Start > at+1 {
		t.Errorf("syntax error = %+v (want near %d)\n%s", syntax, at, strings.Join(diagStrings(s), "\n"))
	}
	e := s.Pipeline.FlowsInto("e")
	if len(e) != 1 || e[0].SQL != "" || s.PythonOpaque(e[0]) == "" {
		t.Errorf("e flows = %+v", e)
	}
	if u := findDiagMsg(s, "t/q.py", "computed at run time"); u == nil || py[u.Loc.Start:u.Loc.Start+2] != `f"` {
		t.Errorf("computed query diagnostic = %+v", u)
	}
	if why := s.Broken()["e"]; !strings.Contains(why, "add samples/e.csv") || !strings.Contains(why, "f-string") {
		t.Errorf("Broken()[e] = %q", why)
	}
}

// TestPythonStandInAndExpectations: an opaque Python dataset with a
// sample of its name is not blocked (the sample stands in), and its
// expectation decorators are the flow's expectations.
func TestPythonStandInAndExpectations(t *testing.T) {
	py := "import dlt\n\n@dlt.table\n@dlt.expect_or_drop(\"pos\", \"amount > 0\")\ndef orders():\n    return my_udf(spark.read.table(\"raw\"))\n"
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/o.py":             py,
		"samples/raw.csv":    "amount\n1\n",
		"samples/orders.csv": "amount\n1\n-1\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := s.Pipeline.FlowsInto("orders")
	if len(f) != 1 || len(f[0].Expectations) != 1 {
		t.Fatalf("orders flows = %+v", f)
	}
	x := f[0].Expectations[0]
	if x.Name != "pos" || x.Action != ir.Drop || py[x.SQLLoc.Start:x.SQLLoc.End] != "amount > 0" {
		t.Errorf("expectation = %+v", x)
	}
	if why, ok := s.Broken()["orders"]; ok {
		t.Errorf("orders has a stand-in sample, yet is blocked: %q", why)
	}
}

func findDiagMsg(s *Snapshot, file, part string) *ir.Diagnostic {
	for i, d := range s.Diagnostics {
		if d.Loc.File == file && strings.Contains(d.Message, part) {
			return &s.Diagnostics[i]
		}
	}
	return nil
}

// TestPythonLoopsAndSettings: datasets a loop and a factory define are
// in the graph with their settings; a loop over computed values is an
// info at its iterable.
func TestPythonLoopsAndSettings(t *testing.T) {
	s, err := Load("../testdata/python_frames", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.Diagnostics {
		t.Errorf("unexpected diagnostic: %+v", d)
	}
	n := s.Pipeline.Dataset("orders_north")
	if n == nil || n.Kind != ir.StreamingTable || strings.Join(n.PartitionBy, ",") != "order_date" || n.Properties["pipelines.quality"] != "bronze" ||
		n.Comment != "Orders of the north shop, as landed" {
		t.Fatalf("orders_north = %+v", n)
	}
	fl := s.Pipeline.FlowsInto("orders_north")
	if len(fl) != 1 || fl[0].Name != "land_north" || !fl[0].Streaming || len(fl[0].Reads) != 1 || fl[0].Reads[0].Name != "north_orders" || fl[0].Reads[0].Path != "/landing/north_orders/" {
		t.Errorf("orders_north flows = %+v", fl)
	}
	if f := s.Pipeline.FlowsInto("daily_units"); len(f) != 1 || f[0].Conf["spark.sql.shuffle.partitions"] != "4" || !f[0].Aggregates {
		t.Errorf("daily_units flows = %+v", f)
	}
	py := "from pyspark import pipelines as dp\n\nfor t in spark.conf.get(\"tables\").split(\",\"):\n    dp.create_streaming_table(t)\n"
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/l.py":             py,
	})
	s, err = Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := findDiagMsg(s, "t/l.py", "named from values computed at run time")
	if d == nil || d.Severity != ir.Info || py[d.Loc.Start:d.Loc.End] != `spark.conf.get("tables").split(",")` {
		t.Errorf("loop diagnostic = %+v (all: %+v)", d, s.Diagnostics)
	}
}

// TestPythonSchemaAgainstBody: a schema= that the body's columns do not
// fit as Spark requires (spark.range's id is BIGINT; a load's schema gives
// its columns and types, a CSV one by position) is an error at the
// schema= string; one that fits is not.
func TestPythonSchemaAgainstBody(t *testing.T) {
	py := "from pyspark import pipelines as dp\n\n" +
		"@dp.materialized_view(schema=\"id INT\")\ndef r():\n    return spark.range(3)\n\n" +
		"@dp.materialized_view(schema=\"id BIGINT\")\ndef ok():\n    return spark.range(3).where(\"id > 0\").select(\"id\")\n\n" +
		"@dp.materialized_view(schema=\"a BIGINT, b STRING\")\ndef j():\n    return spark.read.format(\"json\").schema(\"a BIGINT, c STRING\").load(\"/in/j/\")\n\n" +
		"@dp.materialized_view(schema=\"sku STRING, price BIGINT\")\ndef c():\n" +
		"    return spark.read.format(\"csv\").option(\"header\", \"true\").schema(\"sku STRING, price DOUBLE\").load(\"/in/c.csv\")\n"
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/a.py":             py,
		"samples/j/1.json":   "{\"a\": 1, \"c\": \"x\"}\n",
		"samples/c.csv":      "sku,price\nA,1.5\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, d := range s.Diagnostics {
		if d.Code != ir.CodeDeclaredSchema {
			continue
		}
		at := py[d.Loc.Start:d.Loc.End]
		got[at] = append(got[at], d.Message)
	}
	want := map[string][]string{
		"id INT":                   {"gives id as BIGINT but its column list declares id INT"},
		"a BIGINT, b STRING":       {"gives the column c, which its column list (a, b) does not declare"},
		"sku STRING, price BIGINT": {"gives price as DOUBLE but its column list declares price BIGINT"},
	}
	for at, msgs := range want {
		for _, m := range msgs {
			found := false
			for _, g := range got[at] {
				found = found || strings.Contains(g, m)
			}
			if !found {
				t.Errorf("no %q at %s; got %v", m, at, got)
			}
		}
	}
	if msgs := got["id BIGINT"]; len(msgs) > 0 {
		t.Errorf("a fitting schema= is refused: %v", msgs)
	}
}

// TestPythonStandInQualified: an opaque Python dataset named cat.sch.x is
// not blocked by a sample of its last part (samples/x.csv), and without
// one Broken names that sample.
func TestPythonStandInQualified(t *testing.T) {
	files := map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/x.py":             "from pyspark import pipelines as dp\n\n@dp.materialized_view(name=\"cat.sch.x\")\ndef build_x():\n    return some_udf(spark)\n",
	}
	s, err := Load(writeTree(t, files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if why := s.Broken()["cat.sch.x"]; !strings.Contains(why, "add samples/x.csv") {
		t.Errorf("Broken()[cat.sch.x] = %q, want it to name samples/x.csv", why)
	}
	files["samples/x.csv"] = "id\n1\n"
	s, err = Load(writeTree(t, files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if why, ok := s.Broken()["cat.sch.x"]; ok {
		t.Errorf("cat.sch.x has samples/x.csv, yet is blocked: %q", why)
	}
	d := s.Pipeline.Dataset("cat.sch.x")
	if _, sample, ok := s.PythonStandIn(d); !ok || sample != "samples/x.csv" {
		t.Errorf("PythonStandIn(cat.sch.x) = %q, %v", sample, ok)
	}
}

// TestPythonDatabricksForms: `import dlt` and `from pyspark import
// pipelines as dp` with the global spark the runtime injects (no
// SparkSession built in the file) are read without a finding; @dlt.table
// over a batch read is a table (Databricks makes it a materialized view),
// over a stream a streaming table.
func TestPythonDatabricksForms(t *testing.T) {
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"thund.yaml":         "backends: [databricks]\n",
		"t/a.py": "import dlt\n\n@dlt.table\ndef bronze():\n    return spark.readStream.table(\"raw\")\n\n" +
			"@dlt.table\ndef silver():\n    return dlt.read(\"bronze\").where(\"id > 0\")\n",
		"t/b.py":          "from pyspark import pipelines as dp\n\n@dp.materialized_view\ndef gold():\n    return spark.read.table(\"silver\").select(\"id\")\n",
		"samples/raw.csv": "id\n1\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.Diagnostics {
		t.Errorf("unexpected diagnostic: %+v", d)
	}
	for name, kind := range map[string]ir.Kind{"bronze": ir.StreamingTable, "silver": ir.Table, "gold": ir.MaterializedView} {
		if d := s.Pipeline.Dataset(name); d == nil || d.Kind != kind {
			t.Errorf("%s = %+v, want a %s", name, d, kind)
		}
	}
}

// TestPythonTableOverBatch: an @table whose body reads no stream is a
// streaming table of a batch relation on Spark, which Spark 4.1.4's
// spark-pipelines run fails (INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE),
// and a materialized view on Databricks: an error per Spark backend at
// the decorator, nothing for databricks or native; an @table over a
// stream, and a body Thund does not read in full, give nothing.
func TestPythonTableOverBatch(t *testing.T) {
	py := "from pyspark import pipelines as dp\n\n@dp.materialized_view\ndef base():\n    return spark.range(3)\n\n" +
		"@dp.table(comment=\"x\")\ndef over_batch():\n    return spark.read.table(\"base\")\n\n" +
		"@dp.table\ndef over_range():\n    return spark.range(5)\n\n" +
		"@dp.table\ndef over_stream():\n    return spark.readStream.table(\"landing\")\n\n" +
		"@dp.table\ndef opaque():\n    return make_frame()\n"
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml":  "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"thund.yaml":          "backends: [native, spark-4.1, spark-4.3, databricks]\n",
		"t/a.py":              py,
		"samples/landing.csv": "id\n1\n",
		"samples/opaque.csv":  "id\n1\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]ir.Backend{}
	for _, d := range s.Diagnostics {
		if !strings.Contains(d.Message, "INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE") {
			continue
		}
		if d.Severity != ir.Error || d.Code != ir.CodeUnsupported {
			t.Errorf("finding %+v: want an unsupported-on-backend error", d)
		}
		text, _ := s.Text(d.Loc.File)
		at := text[d.Loc.Start:d.Loc.End]
		if !strings.HasPrefix(at, "@dp.table") {
			t.Errorf("finding at %q, want the decorator", at)
		}
		name := strings.Fields(d.Message)[0]
		got[name] = append(got[name], d.Backend)
	}
	want := map[string][]ir.Backend{"over_batch": {ir.Spark41, ir.Spark43}, "over_range": {ir.Spark41, ir.Spark43}}
	if len(got) != len(want) {
		t.Errorf("findings by dataset = %v, want %v", got, want)
	}
	for name, bs := range want {
		if g := got[name]; len(g) != len(bs) || g[0] != bs[0] || g[1] != bs[1] {
			t.Errorf("%s: findings on %v, want %v", name, g, bs)
		}
	}
}

// TestPythonNotebookExport: a Databricks notebook exported as .py: the
// Python cells are read as Python, a `# MAGIC %sql` cell as SQL at its
// exact ranges in the file (its dataset and reads, a syntax error at
// the byte Spark's parser stops at), a %md cell is documentation; a SQL
// cell's dataset is refused at its %sql by every backend but native
// (Spark imports the file as Python, Databricks runs one language per
// file).
func TestPythonNotebookExport(t *testing.T) {
	nb := "# Databricks notebook source\n# MAGIC %md\n# MAGIC # Orders\n# MAGIC Bronze in Python, gold in SQL.\n\n# COMMAND ----------\n\n" +
		"import dlt\n\n@dlt.table\ndef bronze():\n    return spark.readStream.table(\"landing\")\n\n# COMMAND ----------\n\n" +
		"# MAGIC %sql\n# MAGIC CREATE OR REFRESH MATERIALIZED VIEW gold AS\n# MAGIC SELECT id, count(*) AS n\n# MAGIC FROM bronze GROUP BY id\n\n# COMMAND ----------\n\n" +
		"# MAGIC %sql\n# MAGIC CREATE MATERIALIZED VIEW broken AS SELECT id FROM bronze WHERE id = )\n"
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml":  "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"thund.yaml":          "backends: [native, spark-4.1, databricks]\n",
		"t/orders.py":         nb,
		"samples/landing.csv": "id\n1\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := s.Text("t/orders.py")
	gold := s.Pipeline.Dataset("gold")
	if gold == nil || gold.Loc.File != "t/orders.py" || text[gold.NameLoc.Start:gold.NameLoc.End] != "gold" {
		t.Fatalf("gold = %+v", gold)
	}
	if b := s.Pipeline.Dataset("bronze"); b == nil || b.Kind != ir.StreamingTable {
		t.Errorf("bronze = %+v", b)
	}
	flows := s.Pipeline.FlowsInto("gold")
	if len(flows) != 1 || len(flows[0].Reads) != 1 || text[flows[0].Reads[0].Loc.Start:flows[0].Reads[0].Loc.End] != "bronze" ||
		s.Pipeline.Resolve(flows[0].Reads[0].Name) == nil {
		t.Errorf("gold's flow = %+v", *flows[0])
	}
	if flows[0].SQL == "" || strings.Contains(flows[0].SQL, "MAGIC") {
		t.Errorf("gold's SQL = %q", flows[0].SQL)
	}
	magic := strings.Index(text, "%sql")
	var syntax, refused []ir.Diagnostic
	for _, d := range s.Diagnostics {
		switch {
		case d.Code == ir.CodeSQLSyntax:
			syntax = append(syntax, d)
		case d.Code == ir.CodeUnsupported && strings.Contains(d.Message, "a %sql cell of a Python notebook") && strings.HasPrefix(d.Message, "gold "):
			refused = append(refused, d)
		}
		if d.Loc.Start < strings.Index(text, "import dlt") && d.Loc.File == "t/orders.py" {
			t.Errorf("a diagnostic in the %%md cell: %+v", d)
		}
	}
	if len(syntax) != 1 || syntax[0].Loc.Start != strings.Index(text, "= )")+2 {
		t.Errorf("syntax errors = %+v, want one at the ')' (offset %d)", syntax, strings.Index(text, "= )")+2)
	}
	if len(refused) != 2 {
		t.Errorf("refusals of gold = %+v, want spark-4.1 and databricks", refused)
	}
	for _, d := range refused {
		if d.Loc.Start != magic || d.Backend == ir.Native {
			t.Errorf("refusal %+v, want at the %%sql (offset %d), never native", d, magic)
		}
	}
}

// TestPythonNotebookSQLParameters: the spec's configuration holds in a
// notebook's %sql cell as in a .sql file (${key} is substituted, no "not
// set" error).
func TestPythonNotebookSQLParameters(t *testing.T) {
	nb := "# Databricks notebook source\nimport dlt\n\n# COMMAND ----------\n\n" +
		"# MAGIC %sql\n# MAGIC CREATE MATERIALIZED VIEW gold AS\n# MAGIC SELECT id FROM ${src_table} WHERE id > ${min_id}\n"
	root := writeTree(t, map[string]string{
		"spark-pipeline.yml":  "name: p\nstorage: file:///s\nconfiguration:\n  src_table: landing\n  min_id: \"0\"\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/orders.py":         nb,
		"samples/landing.csv": "id\n1\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.Diagnostics {
		if strings.Contains(d.Message, "not set") {
			t.Errorf("unexpected %v", d)
		}
	}
	flows := s.Pipeline.FlowsInto("gold")
	if len(flows) != 1 || len(flows[0].Reads) != 1 || flows[0].Reads[0].Name != "landing" {
		t.Fatalf("gold's flows: %+v", flows)
	}
}
