package pylib

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

const header = "from pyspark import pipelines as dp\nimport dlt\n\n"

func parseOne(t *testing.T, body string) (string, Definition) {
	t.Helper()
	text := header + body
	f, err := Parse("q.py", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Errors) > 0 {
		t.Fatalf("syntax errors: %+v", f.Errors)
	}
	if len(f.Definitions) != 1 {
		t.Fatalf("got %d definitions: %+v", len(f.Definitions), f.Definitions)
	}
	return text, f.Definitions[0]
}

// TestQueries: the bodies whose meaning is stated in Spark SQL, and the
// reason given for one that is not.
func TestQueries(t *testing.T) {
	cases := []struct{ body, sql, opaque string }{
		{"return spark.range(10)", "SELECT id FROM range(0, 10, 1)", ""},
		{"return spark.range(2, 20, 3)", "SELECT id FROM range(2, 20, 3)", ""},
		{"return spark.range(start=-5, end=5)", "SELECT id FROM range(-5, 5, 1)", ""},
		{"return spark.range(1_000)", "SELECT id FROM range(0, 1000, 1)", ""},
		{`return spark.read.table("raw.orders")`, "SELECT * FROM `raw`.`orders`", ""},
		{`return dlt.read_stream("ev")`, "SELECT * FROM STREAM(`ev`)", ""},
		{`return spark.readStream.table("ev").where("a > 0")`, "SELECT * FROM STREAM(`ev`) WHERE a > 0", ""},
		{`return spark.read.table("t").filter("a > 0").select("a")`, "SELECT `a` FROM (SELECT * FROM `t` WHERE a > 0)", ""},
		{`return spark.table("o").select("id", col("amount")).where("amount > 0").limit(5)`,
			"SELECT * FROM (SELECT * FROM (SELECT `id`, `amount` FROM `o`) WHERE amount > 0) LIMIT 5", ""},
		{`return dp.read("o").selectExpr("id", "amount * 2 AS twice").distinct()`,
			"SELECT DISTINCT * FROM (SELECT id, amount * 2 AS twice FROM `o`)", ""},
		{`"""Doc."""` + "\n    return spark.sql(\"SELECT 1 AS one\")", "SELECT 1 AS one", ""},
		{`return spark.table("o").withColumn("x", F.lit(1))`, "", `.withColumn("x", ...) replaces a column of that name if the DataFrame has one, and Thund does not know the columns of its input here`},
		{`return spark.range(2).withColumn("at", F.current_timestamp()).withColumn("d", current_date())`,
			"SELECT `id`, `at`, current_date() AS `d` FROM (SELECT `id`, current_timestamp() AS `at` FROM (SELECT id FROM range(0, 2, 1)))", ""},
		{`return spark.range(2).withColumn("k", abs(hash(concat(col("id"), lit("x")))))`, "", `.withColumn("k", abs(hash(concat(col("id"), lit("x"))))): it calls hash(...), which the native engine does not compute as Spark does: Spark's hash() is Murmur3_x86_32 (seed 42)`},
		{`return spark.range(2).withColumn("u", F.upper(F.concat("id", F.lit("-")))).withColumn("t", (col("id") + 1).cast("string"))`,
			"SELECT `id`, `u`, CAST((`id` + 1) AS string) AS `t` FROM (SELECT `id`, upper(concat(`id`, '-')) AS `u` FROM (SELECT id FROM range(0, 2, 1)))", ""},
		{"a = spark.read.table(\"a\")\n    b = spark.readStream.table(\"b\")\n    return b.join(a, b[\"k\"] == a[\"k\"], \"left\").filter(a[\"x\"].isNull()).select(b[\"k\"], a[\"v\"].alias(\"w\"))",
			"SELECT `b`.`k`, `a`.`v` AS `w` FROM STREAM(`b`) AS `b` LEFT OUTER JOIN `a` AS `a` ON (`b`.`k` = `a`.`k`) WHERE ((`a`.`x` IS NULL))", ""},
		{"a = spark.read.table(\"a\")\n    return a.select(a.k)", "", "a.k needs the DataFrame's columns (pyspark looks the attribute up among them), and " + ColumnsUnknown},
		{`return spark.table("o").select("a", "b").withColumn("c", F.expr("a + b")).withColumn("a", F.lit("s"))`,
			"SELECT 's' AS `a`, `b`, `c` FROM (SELECT `a`, `b`, a + b AS `c` FROM (SELECT `a`, `b` FROM `o`))", ""},
		{`return spark.table("o").select(F.col("a").alias("x"), "b", F.lit(2.5).alias("r")).withColumnRenamed("b", "y").drop("x")`,
			"SELECT `y`, `r` FROM (SELECT `x`, `b` AS `y`, `r` FROM (SELECT `a` AS `x`, `b`, 2.5D AS `r` FROM `o`))", ""},
		{`return spark.table("o").join(spark.table("c"), "k")`, "SELECT * FROM `o` JOIN `c` USING (`k`)", ""},
		{`return spark.table("o").join(dlt.read("c"), on=["k", "j"], how="left_anti")`, "SELECT * FROM `o` LEFT ANTI JOIN `c` USING (`k`, `j`)", ""},
		{`return spark.table("o").join(spark.table("c"))`, "SELECT * FROM `o` CROSS JOIN `c`", ""},
		{`return spark.table("o").alias("x").join(spark.table("c").alias("y"), col("x.a") == col("y.b"), "semi")`, "SELECT * FROM `o` AS `x` LEFT SEMI JOIN `c` AS `y` ON (`x`.`a` = `y`.`b`)", ""},
		{`return spark.table("o").groupBy("k").agg(F.sum("v").alias("total"), F.countDistinct("u"), F.max(F.col("t")))`,
			"SELECT `k`, sum(`v`) AS `total`, count(DISTINCT `u`), max(`t`) FROM `o` GROUP BY `k`", ""},
		{`return spark.table("o").groupBy(["k", "j"]).count()`, "SELECT `k`, `j`, count(1) AS `count` FROM `o` GROUP BY `k`, `j`", ""},
		{`return spark.table("o").groupby("k").agg({"v": "mean"})`, "SELECT `k`, avg(`v`) FROM `o` GROUP BY `k`", ""},
		{`return spark.table("o").agg(F.min("v").alias("lo"))`, "SELECT min(`v`) AS `lo` FROM `o`", ""},
		{`return spark.table("o").groupBy("k").agg(F.udf_thing("v"))`, "", "it calls F.udf_thing, which Thund does not map to Spark SQL"},
		{`return spark.table("a").union(spark.table("b"))`, "SELECT * FROM `a` UNION ALL SELECT * FROM `b`", ""},
		{`return spark.table("a").select("x", "y").unionByName(spark.table("b").select("y", "x"))`,
			"SELECT * FROM (SELECT `x`, `y` FROM `a`) UNION ALL SELECT `x`, `y` FROM (SELECT `y`, `x` FROM `b`)", ""},
		{`return spark.table("a").unionByName(spark.table("b"))`, "", ".unionByName needs the columns of both DataFrames"},
		{`return spark.table("a").drop("x")`, "", ".drop(...) needs the DataFrame's columns"},
		{`return spark.range(3).withColumn("sq", F.expr("id * id"))`, "SELECT `id`, id * id AS `sq` FROM (SELECT id FROM range(0, 3, 1))", ""},
		{`return spark.read.format("csv").option("header", "true").load("/data/raw/orders.csv")`, "SELECT * FROM read_files('/data/raw/orders.csv', format => 'csv')", ""},
		{`return spark.read.json("s3://b/events/")`, "SELECT * FROM read_files('s3://b/events/', format => 'json')", ""},
		{`return spark.read.load("p/x", format="parquet").select("a")`, "SELECT `a` FROM read_files('p/x', format => 'parquet')", ""},
		{`return spark.readStream.format("kafka").option("subscribe", "t").load()`, "", `it loads data with spark.readStream.format("kafka").load() without a path`},
		{`return spark.read.csv(path)`, "", "it loads a path computed at run time"},
		{"df = spark.range(3)\n    return df", "SELECT id FROM range(0, 3, 1)", ""},
		{"df = spark.read.table(\"o\")\n    df = df.where(\"a > 1\")\n    return df.limit(2)", "SELECT * FROM (SELECT * FROM `o` WHERE a > 1) LIMIT 2", ""},
		{"df = spark.read.table(\"o\")\n    df = df.withColumn(\"b\", F.lit(1))\n    return df", "", `.withColumn("b", ...) replaces a column`},
		{"print(1)\n    return spark.range(3)", "", "its body does more than assign DataFrames and return one (line 6)"},
		{`return spark.table("o").filter((col("a") > 1) & ~col("b").isin(1, 2))`, "SELECT * FROM `o` WHERE ((`a` > 1) AND (NOT (`b` IN (1, 2))))", ""},
		{`return spark.table("o").filter(col("a") > 1 and col("b"))`, "", "Python's and/or/not, which pyspark refuses on Columns"},
		{`return spark.sql(f"SELECT * FROM {t}")`, "", "f-string with placeholders"},
	}
	for _, c := range cases {
		_, d := parseOne(t, "@dp.materialized_view\ndef ds():\n    "+c.body+"\n")
		if c.sql != "" {
			if d.Query == nil || d.Query.SQL != c.sql {
				t.Errorf("%s:\n got %+v (opaque %q)\nwant %s", c.body, d.Query, d.Opaque, c.sql)
			}
			continue
		}
		if d.Query != nil || !strings.Contains(d.Opaque, c.opaque) {
			t.Errorf("%s: want opaque %q, got %+v %q", c.body, c.opaque, d.Query, d.Opaque)
		}
	}
}

// TestSQLLiteral: the bytes of a spark.sql literal map back to the file
// through escapes and implicit concatenation.
func TestSQLLiteral(t *testing.T) {
	text, d := parseOne(t, "@dp.table\ndef t():\n    return spark.sql(\"SELECT a \"\n        'FROM src WHERE b = \\'x\\'')\n")
	q := d.Query
	if q == nil || q.Lit == nil {
		t.Fatalf("no literal query: %+v %q", q, d.Opaque)
	}
	if q.SQL != "SELECT a FROM src WHERE b = 'x'" {
		t.Fatalf("SQL = %q", q.SQL)
	}
	i := strings.Index(q.SQL, "src")
	if o := q.Lit.FileOffset(i); text[o:o+3] != "src" {
		t.Errorf("src maps to %q", text[o:o+3])
	}
	j := strings.Index(q.SQL, "'x'")
	if o := q.Lit.FileOffset(j + 1); text[o] != 'x' {
		t.Errorf("x maps to %q", text[o])
	}
	if q.Lit.Contiguous() {
		t.Error("two pieces with escapes are not contiguous")
	}
	if _, ok := Overlay(text, q.Lit); ok {
		t.Error("an escaped quote inside an SQL string cannot be blanked")
	}
	// Two pieces without escapes overlay exactly.
	text, d = parseOne(t, "@dp.table\ndef t():\n    return spark.sql(\"SELECT a \"\n        \"FROM src\")\n")
	over, ok := Overlay(text, d.Query.Lit)
	if !ok || len(over) != len(text) {
		t.Fatalf("overlay %v", ok)
	}
	lit := d.Query.Lit
	if got := strings.Join(strings.Fields(over[lit.Loc.Start:lit.Loc.End]), " "); got != "SELECT a FROM src" {
		t.Errorf("overlay reads %q", got)
	}
	// Splitting a word is refused.
	text, d = parseOne(t, "@dp.table\ndef t():\n    return spark.sql(\"SEL\" \"ECT 1\")\n")
	if _, ok := Overlay(text, d.Query.Lit); ok || d.Query.SQL != "SELECT 1" {
		t.Errorf("a split word: ok=%v SQL=%q", ok, d.Query.SQL)
	}
}

func TestExpectationsAndFString(t *testing.T) {
	text, d := parseOne(t, "@dlt.table(name=f\"silver\", comment=\"c\")\n@dlt.expect(\"id\", \"id IS NOT NULL\")\n@dlt.expect_all_or_drop({\"pos\": \"amount > 0\", 'cur': 'cur IN (\\'EUR\\')'})\ndef s() -> DataFrame:\n    x: int = 1\n    return dlt.read(\"bronze\")\n")
	if d.Name != "silver" || text[d.NameLoc.Start:d.NameLoc.End] != "silver" {
		t.Errorf("name %q at %q", d.Name, text[d.NameLoc.Start:d.NameLoc.End])
	}
	if len(d.Expectations) != 3 {
		t.Fatalf("expectations %+v", d.Expectations)
	}
	e := d.Expectations[0]
	if e.Name != "id" || e.Action != "warn" || e.Cond.Value != "id IS NOT NULL" || !e.Cond.Contiguous() {
		t.Errorf("expect = %+v", e)
	}
	if e := d.Expectations[2]; e.Name != "cur" || e.Action != "drop" || e.Cond.Value != "cur IN ('EUR')" {
		t.Errorf("expect_all_or_drop = %+v", e)
	}
	if len(d.Reads) != 1 || d.Reads[0].Name != "bronze" {
		t.Errorf("reads %+v", d.Reads)
	}
	if d.Query == nil || d.Query.SQL != "SELECT * FROM `bronze`" {
		t.Errorf("an annotated assignment of a name the return does not use changes nothing, got %+v %q", d.Query, d.Opaque)
	}
}

func TestFlowsAndSinks(t *testing.T) {
	text := header + `dp.create_streaming_table("customers")
dp.create_auto_cdc_flow(
    target="customers",
    source="customers_cdc",
    keys=["id"],
    sequence_by=col("ts"),
    stored_as_scd_type=2,
    apply_as_deletes=expr("op = 'D'"),
    except_column_list=["op"],
)
dlt.apply_changes(target="c2", source=f"{src}", keys=["id"], sequence_by="ts")
dp.create_sink("out", "kafka", {"topic": "t"})
dp.create_streaming_table(name=NAME)

@dp.append_flow(target="out", name="to_kafka")
def to_kafka():
    return spark.readStream.table("customers")
`
	f, err := Parse("f.py", text)
	if err != nil || len(f.Errors) > 0 {
		t.Fatal(err, f.Errors)
	}
	if len(f.Definitions) != 5 {
		t.Fatalf("definitions %+v", f.Definitions)
	}
	cdc := f.Definitions[1]
	if cdc.Target != "customers" || cdc.CDC == nil || cdc.CDC.SCD != 2 || cdc.CDC.SequenceBy != "ts" || cdc.CDC.Deletes != "op = 'D'" ||
		strings.Join(cdc.CDC.Keys, ",") != "id" || !cdc.CDC.ColumnsExcept || len(cdc.Reads) != 1 || !cdc.Reads[0].Streaming {
		t.Errorf("cdc = %+v %+v", cdc, cdc.CDC)
	}
	if cdc.Query == nil || cdc.Query.SQL != "SELECT * FROM STREAM(`customers_cdc`)" {
		t.Errorf("cdc query %+v", cdc.Query)
	}
	if c2 := f.Definitions[2]; c2.Target != "c2" || len(c2.Unknown) != 1 || c2.Unknown[0].What != UnknownTable {
		t.Errorf("apply_changes with a computed source = %+v", c2)
	}
	if s := f.Definitions[3]; s.Kind != ir.Sink || s.Name != "out" || s.Format != "kafka" {
		t.Errorf("sink = %+v", s)
	}
	if fl := f.Definitions[4]; fl.Name != "to_kafka" || fl.Target != "out" || fl.Query == nil {
		t.Errorf("append flow = %+v", fl)
	}
	if len(f.Unknown) != 1 || f.Unknown[0].What != UnknownName || text[f.Unknown[0].Loc.Start:f.Unknown[0].Loc.End] != "NAME" {
		t.Errorf("unknown = %+v", f.Unknown)
	}
}

// TestModernSyntax: files using syntax newer than Python 3.4 are read.
func TestModernSyntax(t *testing.T) {
	text := header + `type Row = dict[str, int]

async def fetch() -> None:
    await x

def pick(v):
    match v:
        case {"k": k}:
            return k
    if (n := len(v)) > 1_000:
        return n

@dp.materialized_view(name=f"gold")
def gold(limit: int = 3, *, tag: str | None = None) -> DataFrame:
    return spark.sql(f"""SELECT * FROM silver""")
`
	f, err := Parse("m.py", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Errors) > 0 {
		t.Fatalf("errors %+v", f.Errors)
	}
	if len(f.Definitions) != 1 || f.Definitions[0].Query == nil || f.Definitions[0].Query.SQL != "SELECT * FROM silver" {
		t.Fatalf("definitions %+v", f.Definitions)
	}
}

// TestConstants: names bound once at the module's top level to a string
// or a dict stand for their literal; a name bound twice does not.
func TestConstants(t *testing.T) {
	text := header + `RULES = {"id": "id IS NOT NULL"}
SOURCE = "landing.users"
QUERY = """SELECT * FROM users_raw"""
TWICE = "a"
TWICE = "b"

@dlt.table
@dlt.expect_all_or_fail(RULES)
def users_raw():
    return spark.readStream.table(SOURCE)

@dlt.table
def users():
    return spark.sql(QUERY)

@dlt.view
def other():
    return spark.table(TWICE)
`
	f, err := Parse("c.py", text)
	if err != nil || len(f.Definitions) != 3 {
		t.Fatalf("%v %+v", err, f.Definitions)
	}
	raw := f.Definitions[0]
	if len(raw.Expectations) != 1 || raw.Expectations[0].Action != "fail" || len(raw.Reads) != 1 || raw.Reads[0].Name != "landing.users" ||
		text[raw.Reads[0].Inner.Start:raw.Reads[0].Inner.End] != "landing.users" {
		t.Errorf("users_raw = %+v", raw)
	}
	if u := f.Definitions[1]; u.Query == nil || u.Query.Lit == nil || text[u.Query.Lit.Offsets[0]:u.Query.Lit.Offsets[0]+6] != "SELECT" {
		t.Errorf("users = %+v", u)
	}
	if o := f.Definitions[2]; len(o.Reads) != 0 || len(o.Unknown) != 1 {
		t.Errorf("other = %+v", o)
	}
}

func TestLoadChainReason(t *testing.T) {
	_, d := parseOne(t, "@dlt.table\ndef b():\n    return (spark\n        .readStream.format(\"cloudFiles\")\n        .option(\"cloudFiles.format\", \"csv\")\n        .load(\"/landing\"))\n")
	if d.Query == nil || d.Query.SQL != "SELECT * FROM STREAM read_files('/landing', format => 'csv')" {
		t.Errorf("query = %+v, opaque = %q", d.Query, d.Opaque)
	}
	if len(d.Reads) != 1 || d.Reads[0].Name != "landing" || d.Reads[0].Path != "/landing" || !d.Reads[0].Streaming {
		t.Errorf("reads = %+v", d.Reads)
	}
	_, d = parseOne(t, "@dlt.table\ndef b():\n    return spark.read.format(\"cloudFiles\").load(\"/landing\")\n")
	if d.Query != nil || !strings.Contains(d.Opaque, "Auto Loader (cloudFiles) reads a stream") {
		t.Errorf("batch Auto Loader: %+v %q", d.Query, d.Opaque)
	}
}

// TestLoadRelations: a load's format, options and schema are kept as
// pyspark gives them to Spark; a JSON schema of scalar types is the
// native query's columns, in order and type; a bare read is a Relation,
// one with a step after it is not.
func TestLoadRelations(t *testing.T) {
	_, d := parseOne(t, "@dp.table\ndef t():\n    return spark.readStream.format(\"json\").option(\"multiLine\", True).options(mode=\"FAILFAST\", x=None)"+
		".schema(\"id BIGINT, day DATE, amount DECIMAL(10)\").load(\"/in/events/\")\n")
	q := d.Query
	if q == nil || q.Relation == nil || q.Relation.Load == nil {
		t.Fatalf("want a bare load, got %+v (%s)", q, d.Opaque)
	}
	l := q.Relation.Load
	if l.Format != "json" || !l.Streaming || l.Path != "/in/events/" || l.Schema != "id BIGINT, day DATE, amount DECIMAL(10)" ||
		l.Options["multiLine"] != "true" || l.Options["mode"] != "FAILFAST" || len(l.Options) != 2 || l.Computed != "" {
		t.Errorf("load = %+v", l)
	}
	if want := "SELECT CAST(`id` AS BIGINT) AS `id`, CAST(`day` AS DATE) AS `day`, CAST(`amount` AS DECIMAL(10)) AS `amount` FROM STREAM read_files('/in/events/', format => 'json')"; q.SQL != want {
		t.Errorf("SQL = %s\nwant  %s", q.SQL, want)
	}
	// CSV applies a schema by position: the sample's columns are named
	// by the schema (an alias list), then cast.
	_, d = parseOne(t, "@dp.materialized_view\ndef t():\n    return spark.read.csv(\"/in/p.csv\", header=True, schema=\"a INT\").where(\"a > 1\")\n")
	if q := d.Query; q == nil || q.Relation != nil || len(q.Loads) != 1 || q.Loads[0].Options["header"] != "true" || q.Loads[0].Schema != "a INT" ||
		!strings.HasPrefix(q.SQL, "SELECT * FROM (SELECT CAST(`a` AS INT) AS `a` FROM read_files('/in/p.csv', format => 'csv') AS csv_load(`a`))") ||
		len(q.Columns) != 1 || q.Columns[0] != (Column{Name: "a", Type: "INT"}) || q.Loads[0].NotNative != "" {
		t.Errorf("csv load with a step = %+v", d.Query)
	}
	_, d = parseOne(t, "@dp.materialized_view\ndef t():\n    return spark.range(3, numPartitions=2)\n")
	if r := d.Query.Relation; r == nil || r.Range == nil || *r.Range != (Range{Start: 0, End: 3, Step: 1, Partitions: 2}) {
		t.Errorf("range relation = %+v", d.Query.Relation)
	}
}

// TestTableOverStreamIsStreamingTable: @dp.table (and @dlt.table)
// returning a stream defines a streaming table, as pyspark registers it.
func TestTableOverStreamIsStreamingTable(t *testing.T) {
	_, d := parseOne(t, "@dp.table\ndef t():\n    return spark.readStream.table(\"events\")\n")
	if d.Kind != ir.StreamingTable || d.Query == nil {
		t.Errorf("@dp.table over a stream: kind %s, query %+v", d.Kind, d.Query)
	}
	_, d = parseOne(t, "@dlt.table\ndef t():\n    return dlt.read(\"events\")\n")
	if d.Kind != ir.Table {
		t.Errorf("@dlt.table over a batch read: kind %s", d.Kind)
	}
}

// TestStepsOverGivenColumns: with its inputs' columns given (the native
// run's Options.Columns), a body of steps that need them is stated in SQL;
// df.x must name a column exactly, as pyspark's attribute lookup does.
func TestStepsOverGivenColumns(t *testing.T) {
	cols := map[string][]string{"a": {"k", "j", "v"}, "b": {"k", "n"}, "c": {"j", "w"}}
	cases := []struct{ body, sql, opaque string }{
		{"a = spark.read.table(\"a\")\n    b = spark.read.table(\"b\")\n    c = spark.read.table(\"c\")\n    return a.join(b, (a.k == b.k) & (b.n > 0)).join(c, a.j == c.j, \"left\").select(a.v, c.w)",
			"SELECT `a`.`v`, `c`.`w` FROM `a` AS `a` JOIN `b` AS `b` ON ((`a`.`k` = `b`.`k`) AND (`b`.`n` > 0)) LEFT OUTER JOIN `c` AS `c` ON (`a`.`j` = `c`.`j`)", ""},
		{"return spark.read.table(\"a\").withColumn(\"K\", F.lit(1)).withColumnRenamed(\"j\", \"jj\").drop(\"v\", \"zz\")",
			"SELECT `K`, `jj` FROM (SELECT `K`, `j` AS `jj`, `v` FROM (SELECT 1 AS `K`, `j`, `v` FROM `a`))", ""},
		{"a = spark.read.table(\"a\")\n    return a.select(a.K)", "", "has no column named exactly K, so pyspark fails with ATTRIBUTE_NOT_SUPPORTED"},
	}
	for _, c := range cases {
		text := header + "@dp.materialized_view\ndef ds():\n    " + c.body + "\n"
		f, err := ParseWith("q.py", text, Options{Columns: func(in Input) []string { return cols[in.Table] }})
		if err != nil || len(f.Definitions) != 1 {
			t.Fatalf("%v %+v", err, f.Definitions)
		}
		d := f.Definitions[0]
		if c.sql != "" {
			if d.Query == nil || d.Query.SQL != c.sql {
				t.Errorf("%s:\n got %+v (opaque %q)\nwant %s", c.body, d.Query, d.Opaque, c.sql)
			}
			continue
		}
		if d.Query != nil || !strings.Contains(d.Opaque, c.opaque) {
			t.Errorf("%s: want opaque %q, got %+v %q", c.body, c.opaque, d.Query, d.Opaque)
		}
	}
}
