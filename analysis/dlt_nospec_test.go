package analysis

import (
	"slices"
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestDLTPythonReadWithoutSpec: in a folder with no spec (a Databricks
// pipeline's source files, which no spec lists), a .py file importing
// Databricks' dlt module is a library whatever the backends, so a SQL
// dataset reading its table finds it; on spark-4.x the import is the
// finding, not a missing dataset. A .py file without the import is still
// not read.
func TestDLTPythonReadWithoutSpec(t *testing.T) {
	root := writeTree(t, map[string]string{
		"samples/landing.csv": "id,v\n1,2\n",
		"bronze.py":           "import dlt\n\n@dlt.table\ndef bronze():\n    return spark.read.table(\"landing\")\n",
		"helper.py":           "from pyspark import pipelines as dp\n\n@dp.materialized_view\ndef other():\n    return spark.range(3)\n",
		"silver.sql":          "CREATE MATERIALIZED VIEW silver AS SELECT id FROM bronze;\n",
	})
	s, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(s.Libraries, "bronze.py") || slices.Contains(s.Libraries, "helper.py") {
		t.Errorf("libraries %v, want bronze.py and not helper.py", s.Libraries)
	}
	if s.Pipeline.Dataset("bronze") == nil {
		t.Fatalf("no dataset bronze: %v", diagStrings(s))
	}
	var dlt bool
	for _, d := range s.Diagnostics {
		if d.Code == ir.CodeUnknownRef {
			t.Errorf("false unknown reference: %s", d.Message)
		}
		if d.Loc.File == "bronze.py" && strings.Contains(d.Message, "No module named 'dlt'") {
			dlt = true
		}
	}
	if !dlt {
		t.Errorf("no finding at import dlt for spark-4.x: %v", diagStrings(s))
	}
}

// TestDLTLegacyStreamingTableNames: dlt.create_streaming_live_table and
// dlt.create_target_table, Databricks' earlier names of
// create_streaming_table, create the target of an apply_changes flow.
func TestDLTLegacyStreamingTableNames(t *testing.T) {
	for _, fn := range []string{"create_streaming_live_table", "create_target_table"} {
		root := writeTree(t, map[string]string{
			"thund.yaml":          "dialect: databricks\n",
			"samples/landing.csv": "id,v,ts\n1,2,3\n",
			"p.py": "import dlt\n\ndlt." + fn + "(\"target\", comment=\"scd\")\n\n" +
				"dlt.apply_changes(target=\"target\", source=\"src\", keys=[\"id\"], sequence_by=\"ts\")\n\n" +
				"@dlt.view\ndef src():\n    return spark.readStream.table(\"landing\")\n",
		})
		s, err := Load(root, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range s.Diagnostics {
			if d.Severity == ir.Error {
				t.Errorf("%s: false error: %s", fn, d.Message)
			}
		}
		if d := s.Pipeline.Dataset("target"); d == nil || d.Kind != ir.StreamingTable {
			t.Errorf("%s: target = %+v", fn, d)
		}
	}
}

// TestPythonCloudFilesOnSpark: a Python load of format("cloudFiles")
// (Auto Loader) is an error at the load against spark-4.x, which has no
// such data source, and fine against databricks.
func TestPythonCloudFilesOnSpark(t *testing.T) {
	files := map[string]string{
		"spark-pipeline.yml":  "name: p\nstorage: file:///tmp/p/st\nlibraries:\n  - glob:\n      include: t/**\n",
		"samples/ev/001.json": "{\"id\": 1}\n",
		"t/a.py": "from pyspark import pipelines as dp\n\n@dp.table\ndef ev_raw():\n" +
			"    return spark.readStream.format(\"cloudFiles\").option(\"cloudFiles.format\", \"json\").load(\"/landing/ev\")\n",
	}
	for _, b := range []ir.Backend{ir.Spark41, ir.Databricks} {
		s, err := Load(writeTree(t, files), Options{Backends: []ir.Backend{b}})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range s.Diagnostics {
			found = found || d.Severity == ir.Error && strings.Contains(d.Message, "DATA_SOURCE_NOT_FOUND")
		}
		if found != (b == ir.Spark41) {
			t.Errorf("%s: DATA_SOURCE_NOT_FOUND error %v: %v", b, found, diagStrings(s))
		}
	}
}

// TestPythonCDCKeywordForOtherSCDType: ignore_null_updates=True with
// stored_as_scd_type=2 is a native warning at the keyword saying it holds
// for SCD type 1 only (not that its value cannot be read).
func TestPythonCDCKeywordForOtherSCDType(t *testing.T) {
	s, err := Load(writeTree(t, map[string]string{
		"thund.yaml":       "dialect: databricks\n",
		"samples/feed.csv": "id,name,seq\n1,a,1\n",
		"c.py": "import dlt\n\n@dlt.view(name=\"v\")\ndef v():\n    return spark.readStream.table(\"feed\")\n\n" +
			"dlt.create_streaming_table(\"dim\")\n\n" +
			"dlt.apply_changes(target=\"dim\", source=\"v\", keys=[\"id\"], sequence_by=\"seq\", stored_as_scd_type=2, ignore_null_updates=True)\n",
	}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := s.Text("c.py")
	found := false
	for _, d := range s.Diagnostics {
		if d.Backend == ir.Native && strings.Contains(d.Message, "SCD type 1 only") {
			found = true
			if got := text[d.Loc.Start:d.Loc.End]; got != "True" {
				t.Errorf("at %q, want the keyword's value", got)
			}
			if strings.Contains(d.Message, "cannot read") {
				t.Errorf("message: %s", d.Message)
			}
		}
	}
	if !found {
		t.Errorf("no SCD 1 only warning: %v", diagStrings(s))
	}
}
