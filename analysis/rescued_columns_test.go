package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// The column check's * of a read of files holds the rescued-data column
// as a native run gives it (engine/sources.go): Databricks' default
// _rescued_data in a pipeline checked against databricks, a column named
// by rescuedDataColumn everywhere; the default one stays hidden (named,
// not in *) in a pipeline not checked against databricks.
func TestRescuedDataInStar(t *testing.T) {
	sql := "CREATE OR REFRESH MATERIALIZED VIEW o2 AS SELECT * FROM read_files('/landing/orders.csv', format => 'csv');\n" +
		"CREATE OR REFRESH MATERIALIZED VIEW o3 AS SELECT id, _rescued_data FROM o2;\n" +
		"CREATE OR REFRESH MATERIALIZED VIEW o4 AS SELECT zz FROM o2;\n" +
		"CREATE OR REFRESH MATERIALIZED VIEW n2 AS SELECT * FROM read_files('/landing/named.csv', format => 'csv', rescuedDataColumn => '_bad');\n" +
		"CREATE OR REFRESH MATERIALIZED VIEW n3 AS SELECT zz FROM n2;\n" +
		"CREATE OR REFRESH MATERIALIZED VIEW h1 AS SELECT id, _rescued_data FROM read_files('/landing/orders.csv', format => 'csv');\n"
	for _, tc := range []struct {
		yaml    string
		o4, n3  string
		o3Clean bool
	}{
		{"dialect: databricks\n", "`id`, `amount`, `_rescued_data`", "`id`, `_bad`", true},
		{"backends: [native]\n", "`id`, `amount`)", "`id`, `_bad`", false},
	} {
		root := writeTree(t, map[string]string{
			"thund.yaml":            tc.yaml,
			"transformations/a.sql": sql,
			"samples/orders.csv":    "id,amount\n1,2\n",
			"samples/named.csv":     "id\n1\n",
		})
		s, err := Load(root, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var o4, n3, o3, h1 string
		for _, d := range s.Diagnostics {
			if d.Code != ir.CodeUnknownColumn {
				continue
			}
			switch line := strings.Count(sql[:d.Loc.Start], "\n"); line {
			case 1:
				o3 = d.Message
			case 2:
				o4 = d.Message
			case 4:
				n3 = d.Message
			case 5:
				h1 = d.Message
			}
		}
		if !strings.Contains(o4, "(the columns here are "+tc.o4) {
			t.Errorf("%s: o4: %q, want the columns %s", tc.yaml, o4, tc.o4)
		}
		if !strings.Contains(n3, "(the columns here are "+tc.n3+")") {
			t.Errorf("%s: n3: %q, want the columns %s", tc.yaml, n3, tc.n3)
		}
		if h1 != "" {
			t.Errorf("%s: h1 names the read's own rescued column: %s", tc.yaml, h1)
		}
		if tc.o3Clean && o3 != "" {
			t.Errorf("%s: o3: %s", tc.yaml, o3)
		}
	}
}
