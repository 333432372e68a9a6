package pylib

import (
	"strings"
	"testing"
)

// TestIntegerArithmetic: spark.range of integer arithmetic over literals
// and module constants is folded as Python computes it (floor division
// and modulo, powers); a float division, a division by zero and a value
// past 64 bits stay computed at run time.
func TestIntegerArithmetic(t *testing.T) {
	folded := map[string]string{
		"return spark.range(0, 365*10)":           "SELECT id FROM range(0, 3650, 1)",
		"return spark.range(N + 1)":               "SELECT id FROM range(0, 11, 1)",
		"return spark.range(-7 // 2, 7 % -3)":     "SELECT id FROM range(-4, -2, 1)",
		"return spark.range(-(2 ** 3), -7 % 3)":   "SELECT id FROM range(-8, 2, 1)",
		"return spark.range(0, (N - NEG) * 2, 3)": "SELECT id FROM range(0, 26, 3)",
	}
	for body, want := range folded {
		_, d := parseForm(t, body)
		if d.Query == nil || d.Query.SQL != want {
			t.Errorf("%s: got %+v (opaque %q), want %s", body, d.Query, d.Opaque, want)
		}
	}
	for _, body := range []string{"return spark.range(0, 10 / 2)", "return spark.range(0, 5 // 0)", "return spark.range(2 ** 63)", "return spark.range(9223372036854775807 + 1)", "return spark.range(2 ** -1)"} {
		_, d := parseForm(t, body)
		if d.Query != nil || !strings.Contains(d.Opaque, "computed at run time") {
			t.Errorf("%s: got %+v (opaque %q), want it refused", body, d.Query, d.Opaque)
		}
	}
}

// TestForeignPipelinesImport: an import of a module named like a
// pipelines API that Thund does not read is listed with the name the
// file uses it by; pyspark's and dlt are not.
func TestForeignPipelinesImport(t *testing.T) {
	f, err := Parse("f.py", "import databricks.pipelines as dp\nfrom databricks import pipelines\nfrom other import dlt as d\nimport dlt\nfrom pyspark import pipelines as sdp\nimport os.path\n")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fi := range f.Foreign {
		got = append(got, fi.Module+" as "+fi.Local)
	}
	if strings.Join(got, "; ") != "databricks.pipelines as dp; databricks.pipelines as pipelines; other.dlt as d" {
		t.Errorf("foreign imports: %v", got)
	}
}

// TestLoadMetadataColumn: a step over a load of files without a schema
// reads the load itself, so it may name the read's hidden _metadata
// column as on the DataFrame Spark loads.
func TestLoadMetadataColumn(t *testing.T) {
	_, d := parseForm(t, `return spark.readStream.format("cloudFiles").option("cloudFiles.format", "csv").load("/landing/c").select("*", col("_metadata.file_path").alias("src"))`)
	want := "SELECT *, `_metadata`.`file_path` AS `src` FROM STREAM read_files('/landing/c', format => 'csv')"
	if d.Query == nil || d.Query.SQL != want {
		t.Fatalf("got %+v (opaque %q), want %s", d.Query, d.Opaque, want)
	}
}

// TestDateAddColumnDays: date_add, date_sub and add_months take their
// count as an integer or a Column (a string being a column's name), as
// pyspark does.
func TestDateAddColumnDays(t *testing.T) {
	cases := map[string]string{
		`return spark.range(3).select(F.date_add(F.lit("2020-01-01"), col("id").cast("int")).alias("d"))`:          "SELECT date_add('2020-01-01', CAST(`id` AS int)) AS `d` FROM (SELECT id FROM range(0, 3, 1))",
		`return spark.table("o").select(F.date_sub("day", N * 2).alias("d"), F.add_months("day", "n").alias("m"))`: "SELECT date_sub(`day`, 20) AS `d`, add_months(`day`, `n`) AS `m` FROM `o`",
	}
	for body, want := range cases {
		_, d := parseForm(t, body)
		if d.Query == nil || d.Query.SQL != want {
			t.Errorf("%s: got %+v (opaque %q), want %s", body, d.Query, d.Opaque, want)
		}
	}
}
