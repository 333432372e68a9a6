package preview

import (
	"context"
	"strings"
	"testing"
)

// TestSparkType: DuckDB's names, and Spark's in any case, come out as
// Spark writes its types.
func TestSparkType(t *testing.T) {
	for in, want := range map[string]string{
		"INTEGER": "INT", "BIGINT": "BIGINT", "HUGEINT": "BIGINT", "VARCHAR": "STRING",
		"DECIMAL(10, 2)": "DECIMAL(10,2)", "DECIMAL(18,3)": "DECIMAL(18,3)", "TIMESTAMP": "TIMESTAMP",
		"TIMESTAMP WITH TIME ZONE": "TIMESTAMP", "BLOB": "BINARY", "BOOLEAN": "BOOLEAN", "DATE": "DATE",
		"INTEGER[]": "ARRAY<INT>", "VARCHAR[][]": "ARRAY<ARRAY<STRING>>",
		`STRUCT("a" INTEGER, b VARCHAR[])`: "STRUCT<a: INT, b: ARRAY<STRING>>",
		"MAP(VARCHAR, BIGINT)":             "MAP<STRING, BIGINT>",
		"bigint":                           "BIGINT",
		"decimal(21,2)":                    "DECIMAL(21,2)",
		"array<struct<a:int,b:string>>":    "ARRAY<STRUCT<a: INT, b: STRING>>",
		"map<string,array<int>>":           "MAP<STRING, ARRAY<INT>>",
		"UBIGINT":                          "DECIMAL(20,0)",
		"SMALLINT":                         "SMALLINT",
		"DOUBLE":                           "DOUBLE",
		"":                                 "",
		"GEOMETRY":                         "GEOMETRY",
	} {
		if got := SparkType(in); got != want {
			t.Errorf("SparkType(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTableShowsSparkTypes: the terminal and HTML tables of a preview
// (thund-watch --once, watch mode) head their columns with Spark's type
// names, nested types included, while the page keeps DuckDB's.
func TestTableShowsSparkTypes(t *testing.T) {
	s := session(t)
	p, err := Query(context.Background(), s, "SELECT 1::INTEGER AS i, 'x' AS s, 2::HUGEINT AS h, [1, 2] AS l, {'a': 1} AS st, 1.5::DECIMAL(10,2) AS d, TIMESTAMP '2024-01-01' AS ts", 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteTable(&b, p, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	header := strings.Split(b.String(), "\n")[1]
	var types []string
	for _, f := range strings.Split(header, "│") {
		types = append(types, strings.TrimSpace(f))
	}
	// DuckDB hands a HUGEINT to Arrow as DECIMAL(38,0).
	want := "INT,STRING,DECIMAL(38,0),ARRAY<INT>,STRUCT<a: INT>,DECIMAL(10,2),TIMESTAMP"
	if got := strings.Join(types, ","); got != want {
		t.Errorf("table header types\n got %s\nwant %s\n%s", got, want, b.String())
	}
	var h strings.Builder
	if err := WriteHTML(&h, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.String(), "<small>ARRAY&lt;INT&gt;</small>") || strings.Contains(h.String(), "VARCHAR") || strings.Contains(h.String(), "INTEGER") {
		t.Errorf("HTML header:\n%s", h.String())
	}
}
