package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestPythonPublicFormsRun: the forms of public Python projects (aliased
// functions, module constants, orderBy with desc, round, casts to
// DataType classes, when/otherwise, between, isin, coalesce) run natively
// and give Spark's values (checked with pyspark 4.1.4 over Spark
// Connect); a chain stopped by a step Thund cannot state is skipped
// before the run, with that step's place, not failed.
func TestPythonPublicFormsRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"samples/orders.csv": "order_id,customer,amount,status\n1,alice,10.50,open\n2,bob,20.25,closed\n3,alice,5.00,open\n4,carol,100.125,cancelled\n5,bob,,open\n",
		"t/forms.py": `from pyspark import pipelines as dp
from pyspark.sql.functions import sum as _sum, col
import pyspark.sql.functions as F
from pyspark.sql.types import DecimalType, StringType

N = 4
MIN_AMOUNT = 5

@dp.materialized_view
def numbers():
    return spark.range(N)

@dp.materialized_view
def totals():
    return (spark.read.table("orders").groupBy("customer")
            .agg(_sum("amount").alias("total"), F.count("*").alias("n"))
            .orderBy(F.desc("total")).limit(2))

@dp.materialized_view
def shaped():
    return spark.read.table("orders").select(
        col("order_id"),
        F.round(col("amount"), 1).alias("r"),
        col("amount").cast(DecimalType(10, 2)).alias("d"),
        col("order_id").cast(StringType()).alias("s"),
        F.when(col("amount") > 10, "big").when(col("amount").isNull(), "none").otherwise("small").alias("size"),
        col("amount").between(MIN_AMOUNT, 20).alias("mid"),
        col("status").isin("open", "closed").alias("known"),
        F.coalesce(col("amount"), F.lit(0)).alias("amt"),
        F.expr(f"order_id * {MIN_AMOUNT}").alias("x"),
    )

@dp.materialized_view
def hashed():
    return (spark.read.table("orders")
            .withColumn("twice", col("order_id") * 2)
            .withColumn("h", F.hash("customer")))
`,
	}
	s, res := runFiles(t, dir, files)
	for name, rows := range map[string]int64{"numbers": 4, "totals": 2, "shaped": 5} {
		if d := res.Datasets[name]; d == nil || d.Phase != Completed || d.Rows != rows {
			t.Errorf("%s = %+v, want %d rows", name, d, rows)
		}
	}
	if d := res.Datasets["hashed"]; d == nil || d.Phase != Skipped || !strings.Contains(d.Error, "t/forms.py:37:14: ") || !strings.Contains(d.Error, "hash(...)") {
		t.Errorf("hashed = %+v, want skipped at its hash step", d)
	}
	var got []string
	rows, err := s.DB().Query("SELECT customer || '=' || CAST(total AS VARCHAR) FROM totals ORDER BY total DESC")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v string
		rows.Scan(&v)
		got = append(got, v)
	}
	rows.Close()
	if strings.Join(got, ",") != "carol=100.125,bob=20.25" {
		t.Errorf("totals = %v, want carol=100.125, bob=20.25", got)
	}
	// Spark's values, row by row (pyspark 4.1.4): round HALF_UP, the
	// decimal cast HALF_UP, when/otherwise, between and isin with NULL.
	want := []string{
		"1|10.5|10.50|1|big|true|true|10.5|5",
		"2|20.3|20.25|2|big|false|true|20.25|10",
		"3|5.0|5.00|3|small|true|true|5.0|15",
		"4|100.1|100.13|4|big|false|false|100.125|20",
		"5|NULL|NULL|5|none|NULL|true|0.0|25",
	}
	got = nil
	rows, err = s.DB().Query(`SELECT concat_ws('|', order_id, coalesce(CAST(r AS VARCHAR), 'NULL'), coalesce(CAST(d AS VARCHAR), 'NULL'), s, size,
		coalesce(CAST(mid AS VARCHAR), 'NULL'), CAST(known AS VARCHAR), CAST(amt AS VARCHAR), CAST(x AS VARCHAR)) FROM shaped ORDER BY order_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v string
		rows.Scan(&v)
		got = append(got, v)
	}
	rows.Close()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("shaped:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPythonSignedFunctionsRun: the functions with literal arguments
// (date_format, to_date, regexp_*, split, concat_ws, substring, lpad,
// date_add, datediff, floor, dayofweek, quarter, nvl) give Spark's
// values and types (checked on Spark 4.1.4 with pyspark over Spark
// Connect, row by row).
func TestPythonSignedFunctionsRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"samples/people.csv": "id,name,d\n1,alice-smith,2024-03-15\n2,bob,2023-12-31\n3,,2024-02-29\n",
		"t/fns.py": `from pyspark import pipelines as dp
from pyspark.sql import functions as F
from pyspark.sql.functions import col

@dp.materialized_view
def fns():
    return spark.read.table("people").select(
        "id",
        F.date_format(F.to_date(col("d")), "yyyy/MM/dd").alias("df"),
        F.regexp_replace("name", "-", "_").alias("rr"),
        F.regexp_extract("name", "([a-z]+)-([a-z]+)", 2).alias("re"),
        F.concat_ws("|", "name", F.lit("x")).alias("cw"),
        F.substring("name", 2, 3).alias("ss"),
        F.lpad("name", 6, "*").alias("lp"),
        F.date_add(F.to_date("d"), 1).alias("da"),
        F.datediff(F.to_date("d"), F.to_date(F.lit("2024-01-01"))).alias("dd"),
        F.floor(F.lit(2.7)).alias("fl"),
        F.dayofweek(F.to_date("d")).alias("dw"),
        F.quarter(F.to_date("d")).alias("q"),
        F.nvl(col("name"), F.lit("none")).alias("nv"),
        F.size(F.split("name", "-")).alias("sp"),
    )
`,
	}
	s, res := runFiles(t, dir, files)
	if d := res.Datasets["fns"]; d == nil || d.Phase != Completed || d.Rows != 3 {
		t.Fatalf("fns = %+v", d)
	}
	want := []string{
		"1|2024/03/15|alice_smith|smith|alice-smith|x|lic|alice-|2024-03-16|74|2|6|1|alice-smith|2",
		"2|2023/12/31|bob||bob|x|ob|***bob|2024-01-01|-1|2|1|4|bob|1",
		"3|2024/02/29|NULL|NULL|x|NULL|NULL|2024-03-01|59|2|5|1|none|NULL",
	}
	rows, err := s.DB().Query(`SELECT concat_ws('|', id, df, coalesce(rr, 'NULL'), coalesce(re, 'NULL'), cw, coalesce(ss, 'NULL'), coalesce(lp, 'NULL'),
		CAST(da AS VARCHAR), dd, fl, dw, q, nv, coalesce(CAST(sp AS VARCHAR), 'NULL')) FROM fns ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var v string
		rows.Scan(&v)
		got = append(got, v)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("fns:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPythonSortSelectLimit: orderBy, then steps that keep the order,
// then limit gives the first rows of that order (Spark's limit of a
// sort), over enough rows that the native run reads them in parallel.
func TestPythonSortSelectLimit(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"t/top.py": `from pyspark import pipelines as dp
from pyspark.sql.functions import col, desc

@dp.materialized_view
def top():
    return (spark.range(300000)
            .select((col("id") * 7919 % 300007).alias("v"), "id")
            .sort(desc("v"))
            .filter("id % 2 = 0")
            .select("id")
            .limit(3))
`,
	}
	s, _ := runFiles(t, dir, files)
	// The three even ids of the largest v = id * 7919 mod 300007.
	type iv struct{ id, v int64 }
	var best []iv
	for id := int64(0); id < 300000; id += 2 {
		v := id * 7919 % 300007
		best = append(best, iv{id, v})
		for i := len(best) - 1; i > 0 && best[i].v > best[i-1].v; i-- {
			best[i], best[i-1] = best[i-1], best[i]
		}
		if len(best) > 3 {
			best = best[:3]
		}
	}
	sort.Slice(best, func(i, j int) bool { return best[i].id < best[j].id })
	var want []string
	for _, b := range best {
		want = append(want, fmt.Sprint(b.id))
	}
	var got string
	if err := s.DB().QueryRow("SELECT string_agg(CAST(id AS VARCHAR), ',' ORDER BY id) FROM top").Scan(&got); err != nil {
		t.Fatal(err)
	}
	wantIDs := strings.Join(want, ",")
	if got != wantIDs {
		t.Errorf("top = %s, want %s", got, wantIDs)
	}
}

// TestPythonMoreFunctionsRun: sha2, hex, last_day, add_months,
// date_trunc, trunc, instr, locate, translate, struct and array give
// Spark's values natively (checked on Spark 4.1.4 with pyspark over
// Spark Connect).
func TestPythonMoreFunctionsRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"samples/people.csv": "id,name,d,ts\n1,alice-smith,2024-03-15,2024-03-15 10:20:30\n2,bob,2023-12-31,2023-12-31 23:59:59\n",
		"t/fns.py": `from pyspark import pipelines as dp
from pyspark.sql import functions as F
from pyspark.sql.functions import col

@dp.materialized_view
def fns():
    return spark.read.table("people").select(
        "id",
        F.sha2(col("name"), 256).alias("h"),
        F.hex("name").alias("x"),
        F.last_day(F.to_date("d")).alias("ld"),
        F.add_months(F.to_date("d"), 2).alias("am"),
        F.date_trunc("month", F.to_timestamp("ts")).alias("dt"),
        F.trunc(F.to_date("d"), "year").alias("tr"),
        F.instr("name", "b").alias("i"),
        F.locate("b", "name").alias("l"),
        F.translate("name", "ae", "AE").alias("t"),
        F.struct("id", "name").alias("st"),
        F.array("name", F.lit("z")).alias("ar"),
    )
`,
	}
	s, res := runFiles(t, dir, files)
	if d := res.Datasets["fns"]; d == nil || d.Phase != Completed || d.Rows != 2 {
		t.Fatalf("fns = %+v", d)
	}
	want := []string{
		"1|c5b4d4f34b0545a2361b278dc21ecd32bd6c5db4516874af8228fab4a987f8f9|616C6963652D736D697468|2024-03-31|2024-05-15|2024-03-01 00:00:00|2024-01-01|0|0|AlicE-smith|1|alice-smith|alice-smith,z",
		"2|81b637d8fcd2c6da6359e6963113a1170de795e4b725b84d1e0b4cfd9ec58ce9|626F62|2023-12-31|2024-02-29|2023-12-01 00:00:00|2023-01-01|1|1|bob|2|bob|bob,z",
	}
	rows, err := s.DB().Query(`SELECT concat_ws('|', id, h, x, CAST(ld AS VARCHAR), CAST(am AS VARCHAR), strftime(dt, '%Y-%m-%d %H:%M:%S'), CAST(tr AS VARCHAR), i, l, t,
		st.id, st.name, array_to_string(ar, ',')) FROM fns ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var v string
		rows.Scan(&v)
		got = append(got, v)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("fns:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPythonWindowsRun: the latest row per key (row_number over a
// window, filtered, dropped), a running sum, lag with a default and a
// rank over the whole table give Spark's rows natively (checked on Spark
// 4.1.4 with pyspark over Spark Connect).
func TestPythonWindowsRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"samples/ev.csv":     "k,ts,v\na,1,10\na,3,30\na,2,20\nb,5,50\nb,4,\nc,7,70\n",
		"t/w.py": `from pyspark import pipelines as dp
from pyspark.sql import functions as F, Window

@dp.materialized_view
def latest():
    ev = spark.read.table("ev")
    w = Window.partitionBy("k").orderBy(F.desc("ts"))
    latest = (ev.withColumn("rn", F.row_number().over(w)).filter("rn = 1").drop("rn"))
    return latest.join(ev.select("k", F.sum("v").over(Window.partitionBy("k").orderBy("ts").rowsBetween(Window.unboundedPreceding, Window.currentRow)).alias("run"), F.lag("v", 1, -1).over(Window.partitionBy("k").orderBy("ts")).alias("prev"), F.rank().over(Window.orderBy(F.desc("v"))).alias("r"), "ts"), ["k", "ts"])
`,
	}
	s, res := runFiles(t, dir, files)
	if d := res.Datasets["latest"]; d == nil || d.Phase != Completed || d.Rows != 3 {
		t.Fatalf("latest = %+v", d)
	}
	rows, err := s.DB().Query(`SELECT concat_ws('|', k, ts, coalesce(CAST(v AS VARCHAR), 'NULL'), run, coalesce(CAST(prev AS VARCHAR), 'NULL'), r) FROM latest ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var v string
		rows.Scan(&v)
		got = append(got, v)
	}
	if want := "a|3|30|60|20|3,b|5|50|50|NULL|2,c|7|70|70|-1|1"; strings.Join(got, ",") != want {
		t.Errorf("latest = %s, want %s", strings.Join(got, ","), want)
	}
}

// TestPythonHelperRulesAtRun: a body the run states in SQL (its input's
// columns needed) reads its file again with the helper modules of the
// pipeline folder, so rules imported from one are enforced.
func TestPythonHelperRulesAtRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"spark-pipeline.yml": "name: p\nstorage: file:///s\nlibraries:\n  - glob:\n      include: t/**\n",
		"samples/orders.csv": "id,status\n1,open\n2,closed\n3,lost\n",
		"t/rules.py":         "DROP_RULES = {\"known_status\": \"status IN ('open', 'closed')\"}\n",
		"t/checked.py": `from pyspark import pipelines as dp
from pyspark.sql import functions as F
from rules import DROP_RULES

@dp.materialized_view
@dp.expect_all_or_drop(DROP_RULES)
def checked():
    return spark.read.table("orders").withColumn("twice", F.col("id") * 2)
`,
	}
	_, res := runFiles(t, dir, files)
	if d := res.Datasets["checked"]; d == nil || d.Phase != Completed || d.Rows != 2 {
		t.Errorf("checked = %+v, want 2 rows (lost dropped by the helper's rule)", d)
	}
}

// runFiles writes files (relative path -> text) under dir, loads the
// pipeline and runs it natively, as --once does.
func runFiles(t *testing.T, dir string, files map[string]string) (*Session, *Result) {
	t.Helper()
	for name, text := range files {
		writeTestFile(t, filepath.Join(dir, filepath.FromSlash(name)), text)
	}
	snap, s := load(t, dir)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{Blocked: snap.Broken()})
	if err != nil {
		t.Fatal(err)
	}
	return s, res
}
