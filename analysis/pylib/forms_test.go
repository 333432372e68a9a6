package pylib

import (
	"strings"
	"testing"
)

// formsHeader imports the functions and types as public projects do:
// aliased names, the module under F, and the types by name.
const formsHeader = `from pyspark import pipelines as dp
from pyspark.sql.functions import sum as _sum, col, desc
import pyspark.sql.functions as F
from pyspark.sql import functions as G
from pyspark.sql.types import DecimalType, StringType
import pyspark.sql.types as T
from helpers import clean

N = 10
MIN_AMOUNT = 5
RATE = 0.5
PREFIX = "amount > "
FILTER_SQL = PREFIX + str(MIN_AMOUNT)
NEG = -3

`

// parseForm reads one @dp.materialized_view whose body is body, below
// formsHeader.
func parseForm(t *testing.T, body string) (string, Definition) {
	t.Helper()
	text := formsHeader + "@dp.materialized_view\ndef x():\n    " + body + "\n"
	f, err := Parse("f.py", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Errors) > 0 || len(f.Definitions) != 1 {
		t.Fatalf("%s: errors %+v, %d definitions", body, f.Errors, len(f.Definitions))
	}
	return text, f.Definitions[0]
}

// TestPublicForms: the forms QA met in public Python projects are stated
// in the SQL that computes what Spark computes.
func TestPublicForms(t *testing.T) {
	cases := []struct{ body, sql string }{
		{"return spark.range(N)", "SELECT id FROM range(0, 10, 1)"},
		{"return spark.range(NEG, N, 2)", "SELECT id FROM range(-3, 10, 2)"},
		{`return spark.range(int("7"))`, "SELECT id FROM range(0, 7, 1)"},
		{`return spark.table("o").groupBy("c").agg(_sum("a").alias("t"), F.count("*").alias("n"), G.max(col("a")).alias("m"))`,
			"SELECT `c`, sum(`a`) AS `t`, count(*) AS `n`, max(`a`) AS `m` FROM `o` GROUP BY `c`"},
		{`return spark.table("o").orderBy(F.desc("t"), "c")`, "SELECT * FROM `o` ORDER BY `t` DESC NULLS LAST, `c` ASC NULLS FIRST"},
		{`return spark.table("o").sort(col("t").desc(), desc("u"), col("v").asc_nulls_last())`,
			"SELECT * FROM `o` ORDER BY `t` DESC NULLS LAST, `u` DESC NULLS LAST, `v` ASC NULLS LAST"},
		{`return spark.table("o").orderBy("a", "b", ascending=[False, True]).limit(3)`,
			"SELECT * FROM `o` ORDER BY `a` DESC NULLS LAST, `b` ASC NULLS FIRST LIMIT 3"},
		{`return spark.table("o").select(F.round(col("a"), 1).alias("r"), F.bround("a").alias("b"))`,
			"SELECT round(`a`, 1) AS `r`, bround(`a`, 0) AS `b` FROM `o`"},
		{`return spark.table("o").select(col("a").cast(DecimalType(10, 2)).alias("d"), col("a").cast("decimal(10,2)").alias("e"), col("i").cast(StringType()).alias("s"), col("i").cast(T.LongType()).alias("l"), col("a").cast(DecimalType()).alias("z"))`,
			"SELECT CAST(`a` AS DECIMAL(10,2)) AS `d`, CAST(`a` AS decimal(10,2)) AS `e`, CAST(`i` AS STRING) AS `s`, CAST(`i` AS BIGINT) AS `l`, CAST(`a` AS DECIMAL(10,0)) AS `z` FROM `o`"},
		{`return spark.table("o").select(F.expr(f"a * {MIN_AMOUNT} + {RATE}").alias("x"), F.expr(FILTER_SQL).alias("y"))`,
			"SELECT a * 5 + 0.5 AS `x`, amount > 5 AS `y` FROM `o`"},
		{`return spark.table("o").filter(FILTER_SQL)`, "SELECT * FROM `o` WHERE amount > 5"},
		{`return spark.table("o").select(F.when(col("a") > 10, "big").when(col("a").isNull(), F.lit(None)).otherwise("small").alias("s"))`,
			"SELECT CASE WHEN (`a` > 10) THEN 'big' WHEN (`a` IS NULL) THEN NULL ELSE 'small' END AS `s` FROM `o`"},
		{`return spark.table("o").select(F.when(col("a") > 1, col("b")).alias("w"))`,
			"SELECT CASE WHEN (`a` > 1) THEN `b` END AS `w` FROM `o`"},
		{`return spark.table("o").select(col("a").between(5, 20).alias("m"), F.size("tags").alias("n"), col("s").isin("x", "y").alias("k"), F.coalesce(col("a"), F.lit(0)).alias("c"))`,
			"SELECT ((`a` >= 5) AND (`a` <= 20)) AS `m`, size(`tags`) AS `n`, (`s` IN ('x', 'y')) AS `k`, coalesce(`a`, 0) AS `c` FROM `o`"},
		{`return spark.table("o").select(F.date_format(F.to_date("d"), "yyyy/MM/dd").alias("f"), F.concat_ws("|", "a", "b").alias("c"), F.substring("s", 2, 3).alias("u"), F.regexp_extract("s", "(a)-", 1).alias("e"), F.split("s", "-").alias("p"))`,
			"SELECT date_format(to_date(`d`), 'yyyy/MM/dd') AS `f`, concat_ws('|', `a`, `b`) AS `c`, substring(`s`, 2, 3) AS `u`, regexp_extract(`s`, '(a)-', 1) AS `e`, split(`s`, '-') AS `p` FROM `o`"},
		{`return spark.table("o").select(F.sha2(col("k"), 256).alias("h"), F.date_trunc("month", "ts").alias("m"), F.locate("b", "s").alias("l"), F.array("a", "b").alias("r"))`,
			"SELECT sha2(`k`, 256) AS `h`, date_trunc('month', `ts`) AS `m`, locate('b', `s`) AS `l`, array(`a`, `b`) AS `r` FROM `o`"},
		{`return spark.table("o").select("a", "b").withColumns({"b": col("a") + 1, "c": col("b") * 2})`,
			"SELECT `a`, (`a` + 1) AS `b`, (`b` * 2) AS `c` FROM (SELECT `a`, `b` FROM `o`)"},
		{`return spark.table("o").select(F.explode_outer("xs").alias("x"), F.array_contains("xs", "a").alias("h"), F.element_at("xs", 1).alias("f"), F.array_join("xs", "-").alias("j"))`,
			"SELECT explode_outer(`xs`) AS `x`, array_contains(`xs`, 'a') AS `h`, element_at(`xs`, 1) AS `f`, array_join(`xs`, '-') AS `j` FROM `o`"},
		{`return spark.table("o").select("*", F.lit(1).alias("one"), F.lit(-2.5).alias("m"))`, "SELECT *, 1 AS `one`, -2.5D AS `m` FROM `o`"},
		{`return spark.table("o").select("c").distinct()`, "SELECT DISTINCT * FROM (SELECT `c` FROM `o`)"},
		{`return spark.table("o").select("c", "d").dropDuplicates(["d", "c"])`, "SELECT DISTINCT * FROM (SELECT `c`, `d` FROM `o`)"},
	}
	for _, c := range cases {
		_, d := parseForm(t, c.body)
		if d.Query == nil || d.Query.SQL != c.sql {
			t.Errorf("%s:\n got %+v (opaque %q)\nwant %s", c.body, d.Query, d.Opaque, c.sql)
		}
	}
}

// TestPublicFormsRefused: what Thund cannot state as Spark computes it is
// refused with the reason and the step it stops at.
func TestPublicFormsRefused(t *testing.T) {
	cases := []struct{ body, at, why string }{
		{`return spark.table("o").dropDuplicates(["c"])`, `dropDuplicates(["c"])`, "the first one Spark meets"},
		{`return spark.table("o").select(clean("a"))`, `select(clean("a"))`, "it calls clean"},
		{`return spark.table("o").select(col("a").cast(DecimalType(40, 2)))`, "select(", "not a decimal type Spark has"},
		{`return spark.table("o").select(col("a").cast("int; x"))`, "select(", "not a type Thund reads"},
		{`return spark.table("o").select(col("a").otherwise(1))`, "select(", ".otherwise applies only"},
		{`return spark.table("o").select(col("a").desc())`, "select(", "a sort order"},
		{`return spark.table("o").select(F.substring("s", "p", 3))`, "select(", "substring is given a number Thund does not read"},
		{`return spark.table("o").select(F.date_format("d", col("f")))`, "select(", "date_format is given a text"},
		{`return spark.table("o").groupBy("c").pivot("s").count()`, `pivot("s")`, ".groupBy(...).pivot"},
		{`return spark.readStream.table("o").where("a > 0").orderBy("a")`, `orderBy("a")`, "sorts a stream, which Spark refuses"},
		// A step that needs the input's columns, then one Thund cannot
		// state whatever they are: refused for the second, at it.
		{`return spark.table("o").withColumn("a", F.lit(1)).withColumn("h", F.hash("c"))`, `withColumn("h", F.hash("c"))`, "hash(...)"},
		{"df = spark.table(\"o\").withColumnRenamed(\"a\", \"b\")\n    return df.join(spark.table(\"p\").withColumn(\"r\", F.rand()), \"k\")", `withColumn("r", F.rand())`, "rand()"},
	}
	for _, c := range cases {
		text, d := parseForm(t, c.body)
		if d.Query != nil || !strings.Contains(d.Opaque, c.why) || d.NeedsColumns {
			t.Errorf("%s: want opaque %q (columns not the reason), got %+v %q needs=%v", c.body, c.why, d.Query, d.Opaque, d.NeedsColumns)
			continue
		}
		if got := text[d.OpaqueLoc.Start:d.OpaqueLoc.End]; !strings.HasPrefix(got, c.at) {
			t.Errorf("%s: stops at %q, want %q", c.body, got, c.at)
		}
	}
	// Needing only the columns still says so, at that step.
	text, d := parseForm(t, `return spark.table("o").withColumn("a", F.lit(1)).filter("a > 0")`)
	if d.Query != nil || !d.NeedsColumns || !strings.Contains(d.Opaque, ColumnsUnknown) || !strings.HasPrefix(text[d.OpaqueLoc.Start:], `withColumn("a"`) {
		t.Errorf("columns only: %+v %q needs=%v at %d", d.Query, d.Opaque, d.NeedsColumns, d.OpaqueLoc.Start)
	}
}

// TestLocalShadowsConstant: a name the body assigns is its own, not the
// module's constant of that name.
func TestLocalShadowsConstant(t *testing.T) {
	_, d := parseForm(t, "N = compute()\n    return spark.range(N)")
	if d.Query != nil {
		t.Errorf("a local N read as the constant: %+v", d.Query)
	}
}

// TestImportsUnderTry: the pipelines module imported under try/except
// (Databricks' dlt, else pyspark's) is the file's API.
func TestImportsUnderTry(t *testing.T) {
	text := "try:\n    import dlt\nexcept ImportError:\n    from pyspark import pipelines as dlt\n\n@dlt.table\ndef t():\n    return spark.range(2)\n"
	f, err := Parse("t.py", text)
	if err != nil || len(f.Definitions) != 1 || f.Definitions[0].Query == nil {
		t.Fatalf("%v %+v", err, f.Definitions)
	}
	if f.DLTImport != (Span{}) {
		t.Errorf("an import dlt under try is said to fail on Spark: %+v", f.DLTImport)
	}
}

// TestWindows: ranking, offset and aggregate functions over a window
// spec written in place, bound in the body or at the module's level.
func TestWindows(t *testing.T) {
	text := `from pyspark import pipelines as dp
from pyspark.sql import functions as F, Window
from pyspark.sql.functions import col

BY_DAY = Window.partitionBy("day").orderBy("ts").rowsBetween(Window.unboundedPreceding, Window.currentRow)

@dp.materialized_view
def x():
    w = Window.partitionBy("k", col("j")).orderBy(F.desc("ts"))
    return spark.table("o").select(
        F.row_number().over(w).alias("rn"),
        F.lag("v", 2, 0).over(w).alias("p"),
        F.sum("v").over(BY_DAY).alias("run"),
        F.count("*").over(Window.partitionBy("k")).alias("n"),
        F.avg("v").over(Window.orderBy("ts").rangeBetween(-3, 1)).alias("a"),
    )
`
	f, err := Parse("w.py", text)
	if err != nil || len(f.Definitions) != 1 {
		t.Fatalf("%v %+v", err, f.Definitions)
	}
	d := f.Definitions[0]
	want := "SELECT row_number() OVER (PARTITION BY `k`, `j` ORDER BY `ts` DESC NULLS LAST) AS `rn`, " +
		"lag(`v`, 2, 0) OVER (PARTITION BY `k`, `j` ORDER BY `ts` DESC NULLS LAST) AS `p`, " +
		"sum(`v`) OVER (PARTITION BY `day` ORDER BY `ts` ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS `run`, " +
		"count(*) OVER (PARTITION BY `k`) AS `n`, " +
		"avg(`v`) OVER (ORDER BY `ts` ASC NULLS FIRST RANGE BETWEEN 3 PRECEDING AND 1 FOLLOWING) AS `a` FROM `o`"
	if d.Query == nil || d.Query.SQL != want {
		t.Errorf("got %+v (opaque %q)\nwant %s", d.Query, d.Opaque, want)
	}
}

// TestLoopOverSplit: a loop over the pieces of a text Thund knows (the
// configuration's, or a default) defines one dataset per piece, also
// through a factory call.
func TestLoopOverSplit(t *testing.T) {
	text := `from pyspark import pipelines as dp

TABLES = spark.conf.get("tables", "x,y")

def make(name):
    @dp.materialized_view(name=f"gold_{name}")
    def _g():
        return spark.read.table(f"silver_{name}")

for t in TABLES.split(","):
    @dp.materialized_view(name=f"silver_{t}")
    def _s():
        return spark.read.table(t)
    make(t)

for w in "a  b".split():
    dp.create_streaming_table(w)
`
	f, err := ParseWith("s.py", text, Options{Conf: map[string]string{"tables": "orders,users"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range f.Definitions {
		q := ""
		if d.Query != nil {
			q = ":" + d.Query.SQL
		}
		got = append(got, d.Name+q)
	}
	want := "silver_orders:SELECT * FROM `orders`|gold_orders:SELECT * FROM `silver_orders`|silver_users:SELECT * FROM `users`|gold_users:SELECT * FROM `silver_users`|a|b"
	if strings.Join(got, "|") != want {
		t.Errorf("definitions:\n got %s\nwant %s", strings.Join(got, "|"), want)
	}
	if len(f.Unknown) != 0 {
		t.Errorf("unknown: %+v", f.Unknown)
	}
}

// TestCreateDataFrame: rows written in the file become a VALUES table of
// the schema's types (or those pyspark infers from the values); values
// pyspark refuses for their field are refused before the run.
func TestCreateDataFrame(t *testing.T) {
	_, d := parseForm(t, `return spark.createDataFrame([("US", 1, 2.5), ("FR", None, -1.0)], "code STRING, n INT, x DOUBLE")`)
	want := "SELECT CAST(col1 AS STRING) AS `code`, CAST(col2 AS INT) AS `n`, CAST(col3 AS DOUBLE) AS `x` FROM VALUES ('US', 1, 2.5D), ('FR', NULL, -1.0D)"
	if d.Query == nil || d.Query.SQL != want {
		t.Errorf("got %+v (%q)\nwant %s", d.Query, d.Opaque, want)
	}
	if _, d := parseForm(t, `return spark.createDataFrame([(1,)], "x DOUBLE")`); d.Query == nil {
		t.Errorf("an int for a DOUBLE (Spark Connect converts it): %q", d.Opaque)
	}
	_, d = parseForm(t, `return spark.createDataFrame([(None, "a"), (7, "b")], ["id", "s"])`)
	if d.Query == nil || !strings.HasPrefix(d.Query.SQL, "SELECT CAST(col1 AS BIGINT) AS `id`, CAST(col2 AS STRING) AS `s`") || len(d.Query.Columns) != 2 || d.Query.Columns[0].Type != "BIGINT" {
		t.Errorf("inferred: %+v (%q)", d.Query, d.Opaque)
	}
	for body, why := range map[string]string{
		`return spark.createDataFrame([(True,)], "x BIGINT")`:       "gives it a Python bool, which Thund does not convert",
		`return spark.createDataFrame([(3000000000,)], "x INT")`:    "out of its range",
		`return spark.createDataFrame([("2024-01-01",)], "d DATE")`: "whose values Thund does not read",
		`return spark.createDataFrame([(None,)], ["x"])`:            "cannot infer its type",
		`return spark.createDataFrame(rows, ["x"])`:                 "rows computed at run time",
	} {
		_, d := parseForm(t, body)
		if d.Query != nil || !strings.Contains(d.Opaque, why) {
			t.Errorf("%s: %+v %q, want %q", body, d.Query, d.Opaque, why)
		}
	}
}
