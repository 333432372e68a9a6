package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// A Databricks Asset Bundle opens as its pipeline: the files the
// pipeline's libraries list (Python too, with its expectation decorators
// accepted by databricks and refused by Spark), not the folder's ad-hoc
// queries.
func TestBundleOpensAsItsPipeline(t *testing.T) {
	root := writeTree(t, map[string]string{
		"databricks.yml": `bundle: {name: shop}
include: [resources/*.yml]
`,
		"resources/p.yml": `resources:
  pipelines:
    shop:
      catalog: main
      schema: sales
      libraries:
        - file: {path: ../src/bronze.sql}
        - notebook: {path: ../src/silver}
`,
		"src/bronze.sql": "CREATE OR REFRESH MATERIALIZED VIEW bronze AS SELECT * FROM VALUES (1, 'a') AS t(id, name);\n",
		"src/silver.py": `import dlt

@dlt.table(name="silver")
@dlt.expect_or_drop("has_id", "id IS NOT NULL")
def silver():
    return dlt.read("bronze")
`,
		"queries/adhoc.sql": "SELECT * FROM main.sales.silver;\nSELECT 1;\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Libraries, ",") != "src/bronze.sql,src/silver.py" {
		t.Fatalf("libraries %v, want the bundle pipeline's two files", s.Libraries)
	}
	if got := s.Backends(); len(got) != 2 || got[1] != ir.Databricks {
		t.Errorf("a bundle is checked against databricks by default, got %v", got)
	}
	for _, d := range s.Diagnostics {
		if d.Severity == ir.Error {
			t.Errorf("databricks accepts this bundle, but: %s:%d: %s [%s]", d.Loc.File, d.Loc.Start, d.Message, d.Code)
		}
	}
	if len(s.Pipeline.Flows) != 2 || len(s.Pipeline.Flows[1].Expectations) != 1 {
		t.Fatalf("flows %d; want bronze and silver with its expectation", len(s.Pipeline.Flows))
	}
	spark := s.WithOptions(Options{Backends: []ir.Backend{ir.Spark43}})
	found := false
	for _, d := range spark.Diagnostics {
		if d.Severity == ir.Error && d.Loc.File == "src/silver.py" && strings.Contains(d.Message, "pyspark.pipelines (Spark 4.1 to 4.3) has no expect") {
			found = true
		}
	}
	if !found {
		t.Errorf("spark-4.3 must refuse the expectation decorator at its range; got %v", spark.Diagnostics)
	}
}

// Only a native run needs a sample: a read of a table qualified outside
// the pipeline's schema is a warning (the platform reads it from its
// catalog), and checked against Databricks or Spark alone so is an
// unqualified one, unless a dataset's name is so close that a typo is
// likely; an unknown unqualified name with native checked is an error.
func TestUnknownRefSeverityPerBackend(t *testing.T) {
	root := writeTree(t, map[string]string{
		"a.sql": "CREATE MATERIALIZED VIEW orders_clean AS SELECT * FROM samples.nyctaxi.trips;\n" +
			"CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n FROM orders_cleen;\n" +
			"CREATE MATERIALIZED VIEW other AS SELECT * FROM refunds;\n",
	})
	sev := func(backends []ir.Backend) map[string]ir.Severity {
		s, err := Load(root, Options{Backends: backends})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]ir.Severity{}
		for _, d := range s.Diagnostics {
			if d.Code == ir.CodeUnknownRef {
				out[strings.Fields(d.Message)[0]] = d.Severity
			}
		}
		return out
	}
	native := sev([]ir.Backend{ir.Native, ir.Databricks})
	if native["samples.nyctaxi.trips"] != ir.Warning || native["orders_cleen"] != ir.Error || native["refunds"] != ir.Error {
		t.Errorf("with native checked: the external table a warning, the typo and the unknown unqualified name errors: %v", native)
	}
	dbx := sev([]ir.Backend{ir.Databricks})
	if dbx["samples.nyctaxi.trips"] != ir.Warning {
		t.Errorf("databricks alone reads an external table from its catalog: want a warning, got %v", dbx)
	}
	if dbx["orders_cleen"] != ir.Error {
		t.Errorf("a read one letter from a dataset's name stays an error (a likely typo): %v", dbx)
	}
}

// A CSV sample's column types reach the semantic model without DuckDB,
// so plain --check reports a function argument of the wrong type (Spark's
// DATATYPE_MISMATCH) and stays silent where Spark casts implicitly; a
// sample longer than what is read keeps its types unknown.
func TestSampleTypesInCheck(t *testing.T) {
	long := "id,name\n" + strings.Repeat("1,a\n", maxHeader/4+10)
	root := writeTree(t, map[string]string{
		"samples/src.csv": "id,name\n1,a\n2,b\n",
		"samples/big.csv": long,
		"m.sql":           "CREATE MATERIALIZED VIEW m AS SELECT array_contains(name, 1) AS x, upper(id) AS u, id + 1 AS n FROM src;\n",
		"big.sql":         "CREATE MATERIALIZED VIEW b AS SELECT array_contains(name, 1) AS x FROM big;\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range s.Diagnostics {
		if d.Severity == ir.Error {
			got = append(got, d.Loc.File+": "+d.Message)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "m.sql: [DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE]") || !strings.Contains(got[0], `"name" has the type "STRING"`) {
		t.Errorf("want one type error in m.sql (array_contains of a STRING), got %q", got)
	}
	if cols := csvHeader(strings.NewReader("id,when\n1,\n2,\n")); len(cols) != 2 || cols[0].Type != "int" || cols[1].Type != "" {
		t.Errorf("csvHeader types: %+v (a column with no value is unknown)", cols)
	}
}

// A source and a dataset that end in the same name would be one table in
// the native engine (it names tables by their last part): an error for
// the native backend at the read, before anything runs; none when native
// is not checked.
// TestSourceAndDatasetShareLastName: the native engine keeps a batch
// read or a stream of raw.orders apart from the dataset orders
// (engine/run.go, relationsOf): neither is refused natively any more.
func TestSourceAndDatasetShareLastName(t *testing.T) {
	batch := writeTree(t, map[string]string{
		"samples/raw.orders.csv": "id\n1\n",
		"a.sql":                  "CREATE MATERIALIZED VIEW orders AS SELECT * FROM raw.orders;\n",
	})
	stream := writeTree(t, map[string]string{
		"samples/raw.orders/001.csv": "id\n1\n",
		"a.sql":                      "CREATE STREAMING TABLE orders AS SELECT * FROM STREAM(raw.orders);\n",
	})
	for _, tc := range []struct {
		root     string
		backends []ir.Backend
		want     int
	}{{batch, nil, 0}, {stream, nil, 0}, {stream, []ir.Backend{ir.Databricks}, 0}} {
		s, err := Load(tc.root, Options{Backends: tc.backends})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, d := range s.Diagnostics {
			if d.Code == ir.CodeUnsupported && d.Backend == ir.Native && strings.Contains(d.Message, "the source raw.orders and the dataset orders") {
				n++
			}
		}
		if n != tc.want {
			t.Errorf("backends %v: %d findings, want %d: %v", tc.backends, n, tc.want, diagStrings(s))
		}
	}
}
