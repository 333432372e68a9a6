package pylib

import (
	"strings"
	"testing"
)

// TestLoadAsSpark: what a load of files reads on Spark, by format and
// options, stated over the sample or refused natively with the reason.
func TestLoadAsSpark(t *testing.T) {
	for _, c := range []struct {
		name, format, schema string
		options              map[string]string
		items, alias         string
		cols                 string // name TYPE, ...
		refused              string // part of NotNative, "" when read natively
	}{
		// The engine reads these samples as Spark reads the files
		// (InferCSV): the load reads the relation as it is.
		// Without a header the engine reads the sample's first line as
		// a row and names the columns _c0, _c1... (InferCSV), the run
		// and the description alike.
		{name: "csv without header", format: "csv", options: map[string]string{"inferSchema": "true"}, items: "*"},
		{name: "csv header false", format: "csv", options: map[string]string{"header": "false", "inferSchema": "true"}, items: "*"},
		{name: "csv header false, strings", format: "csv", options: map[string]string{"header": "false"}, items: "*"},
		{name: "csv header false, schema", format: "csv", schema: "a INT", options: map[string]string{"header": "false"}, items: "CAST(`a` AS INT) AS `a`", alias: " AS csv_load(`a`)", cols: "a INT"},
		{name: "csv strings", format: "csv", options: map[string]string{"HEADER": "True"}, items: "*"},
		{name: "csv inferred", format: "csv", options: map[string]string{"header": "true", "inferSchema": "true"}, items: "*"},
		{name: "csv inferred with nullValue and sep", format: "csv", options: map[string]string{"header": "true", "inferSchema": "true", "nullValue": "NA", "sep": ";"}, items: "*"},
		{name: "csv two-character sep", format: "csv", options: map[string]string{"header": "true", "sep": "||"}, refused: "separator"},
		{name: "csv timestamp format", format: "csv", options: map[string]string{"header": "true", "timestampFormat": "dd/MM/yyyy HH:mm"}, refused: "timestampFormat"},
		{name: "csv schema by position", format: "csv", schema: "id LONG, day DATE", options: map[string]string{"header": "true", "nullValue": "-", "dateFormat": "yyyy-MM-dd"},
			alias: " AS csv_load(`id`, `day`)", cols: "id BIGINT, day DATE"},
		{name: "csv date format", format: "csv", schema: "day DATE", options: map[string]string{"header": "true", "dateFormat": "dd/MM/yyyy"}, refused: "the CSV option dateFormat"},
		{name: "csv nested schema", format: "csv", schema: "a ARRAY<INT>", options: map[string]string{"header": "true"}, refused: "only scalar types"},
		{name: "json inferred", format: "json", items: "*"},
		{name: "json multiLine", format: "json", options: map[string]string{"multiLine": "true"}, refused: "the JSON option multiLine"},
		{name: "json schema", format: "json", schema: "b STRING, a DECIMAL(8)", items: "CAST(`b` AS STRING) AS `b`, CAST(`a` AS DECIMAL(8)) AS `a`", cols: "b STRING, a DECIMAL(8,0)"},
		{name: "parquet", format: "parquet", items: "*"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := loadColumns(c.format, c.options, c.schema)
			if c.refused != "" {
				if !strings.Contains(got.notNative, c.refused) {
					t.Errorf("notNative = %q, want it to say %q", got.notNative, c.refused)
				}
				return
			}
			if got.notNative != "" {
				t.Errorf("refused: %s", got.notNative)
			}
			if c.name == "csv schema by position" {
				// nullValue applies to every column.
				c.items = "CAST(NULLIF(CAST(`id` AS STRING), '-') AS LONG) AS `id`, CAST(NULLIF(CAST(`day` AS STRING), '-') AS DATE) AS `day`"
			}
			if got.items != c.items || got.alias != c.alias {
				t.Errorf("items %q alias %q\nwant  %q alias %q", got.items, got.alias, c.items, c.alias)
			}
			var cols []string
			for i := range got.cols {
				cols = append(cols, got.cols[i]+" "+got.types[i])
			}
			if strings.Join(cols, ", ") != c.cols {
				t.Errorf("columns %q, want %q", strings.Join(cols, ", "), c.cols)
			}
		})
	}
}

// TestDropsOverTables: a .drop(...) whose input reads tables by name
// (directly, or through names bound earlier in the body) is recorded
// with those tables, at the drop; a drop over a load or spark.range
// reads no table and is not.
func TestDropsOverTables(t *testing.T) {
	text, d := parseOne(t, "@dp.materialized_view\ndef t():\n"+
		"    a = spark.read.table(\"orders\").select(\"id\", \"sku\", \"x\")\n"+
		"    b = a.join(spark.table(\"products\").select(\"sku\", \"price\"), \"sku\")\n"+
		"    return b.drop(\"x\")\n")
	if d.Query == nil || len(d.Query.Drops) != 1 {
		t.Fatalf("drops = %+v (%s)", d.Query, d.Opaque)
	}
	dr := d.Query.Drops[0]
	if got := text[dr.Loc.Start:dr.Loc.End]; got != `drop("x")` {
		t.Errorf("drop at %q", got)
	}
	if strings.Join(dr.Tables, ",") != "orders,products" {
		t.Errorf("tables %v", dr.Tables)
	}
	_, d = parseOne(t, "@dp.materialized_view\ndef t():\n    return spark.range(3).withColumn(\"x\", F.lit(1)).drop(\"x\")\n")
	if d.Query == nil || len(d.Query.Drops) != 0 {
		t.Errorf("a drop over spark.range is recorded: %+v", d.Query)
	}
}
