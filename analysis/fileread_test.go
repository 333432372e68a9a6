package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestFileReadMetadataColumn: a read of files has Spark's hidden
// _metadata column. Its fields are found, a field it lacks is an error at
// the reference with the nearest field, and * does not give it: a
// downstream read of a column named like none of the source's and the
// query's is still found unknown.
func TestFileReadMetadataColumn(t *testing.T) {
	files := map[string]string{
		"thund.yaml":     "backends: [native, databricks]\n",
		"samples/ev.csv": "id,kind\n1,a\n",
		"bronze.sql": "CREATE OR REFRESH MATERIALIZED VIEW b AS SELECT *, _metadata.file_path AS src, _metadata.file_modification_time AS m\n" +
			"FROM read_files('/landing/ev', format => 'csv');\n" +
			"CREATE OR REFRESH MATERIALIZED VIEW c AS SELECT e._metadata.file_nme FROM read_files('/landing/ev', format => 'csv') AS e;\n",
		"silver.sql": "CREATE OR REFRESH MATERIALIZED VIEW s AS SELECT id, kind, src, m, knd FROM b;\n",
	}
	s, err := Load(writeTree(t, files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := s.Text("bronze.sql")
	var field, unknown bool
	for _, d := range s.Diagnostics {
		switch {
		case d.Loc.File == "bronze.sql" && strings.Contains(d.Message, "has no field `file_nme`"):
			field = true
			if got := text[d.Loc.Start:d.Loc.End]; got != "e._metadata.file_nme" {
				t.Errorf("the field error is at %q", got)
			}
			if !strings.Contains(d.Message, "did you mean `_metadata.file_name`") {
				t.Errorf("no nearest field: %s", d.Message)
			}
		case d.Loc.File == "silver.sql" && strings.Contains(d.Message, "knd"):
			unknown = true
			if strings.Contains(d.Message, "_metadata") {
				t.Errorf("* gave the hidden column: %s", d.Message)
			}
		case d.Loc.File == "bronze.sql" && d.Severity == ir.Error:
			t.Errorf("false error: %s", d.Message)
		}
	}
	if !field || !unknown {
		t.Fatalf("want the field error and the unknown column: %v", diagStrings(s))
	}
}

// TestRescuedColumn reads a call's rescued-data column as written.
func TestRescuedColumn(t *testing.T) {
	type want struct {
		name   string
		hidden bool
	}
	for call, w := range map[string]want{
		"read_files('/p', format => 'csv', rescueddatacolumn => '_rescued_data')":                    {"_rescued_data", false},
		"READ_FILES('/p', `rescuedDataColumn` => \"bad\")":                                           {"bad", false},
		"cloud_files('/p', 'json', map('rescuedDataColumn', '_r'))":                                  {"_r", false},
		"cloud_files('/p', 'json', map(\"cloudFiles.rescuedDataColumn\", \"_x\", 'header', 'true'))": {"_x", false},
		"read_files('/p', format => 'csv', header => true, inferSchema => true, dateFormat => 'y')":  {"_rescued_data", true},
		"read_files('/p')":          {"_rescued_data", true},
		"cloud_files('/p', 'json')": {"_rescued_data", true},
		"read_files('/p', format => 'json', schema => 'id INT')": {"", false},
		"read_files('/p', format => 'parquet')":                  {"", false},
		"cloud_files('/p', 'parquet')":                           {"", false},
		"json.`/p`":                                              {"", false},
	} {
		if name, hidden := RescuedColumn(call); name != w.name || hidden != w.hidden {
			t.Errorf("%s: %q %v, want %q %v", call, name, hidden, w.name, w.hidden)
		}
	}
}
