package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestDidYouMeanNeverDownstream: an unknown table in dataset X is never
// answered with X itself or a dataset that reads X (directly or through
// others): reading it would be a cycle. A dataset upstream is still
// suggested.
func TestDidYouMeanNeverDownstream(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		file  string
		want  string // "" for no suggestion
	}{
		{"direct reader", map[string]string{
			"orders.sql":  "CREATE MATERIALIZED VIEW orders AS SELECT * FROM orderz;\n",
			"orders2.sql": "CREATE MATERIALIZED VIEW orders2 AS SELECT * FROM orders;\n",
		}, "orders.sql", ""},
		{"itself", map[string]string{
			"orders.sql": "CREATE MATERIALIZED VIEW orders_clean AS SELECT * FROM orders_clen;\n",
		}, "orders.sql", ""},
		{"transitive reader", map[string]string{
			"a.sql": "CREATE MATERIALIZED VIEW base AS SELECT * FROM sales_dayly;\n",
			"b.sql": "CREATE MATERIALIZED VIEW mid AS SELECT * FROM base;\n",
			"c.sql": "CREATE MATERIALIZED VIEW sales_daily AS SELECT * FROM mid;\n",
		}, "a.sql", ""},
		{"downstream skipped, upstream kept", map[string]string{
			"a.sql": "CREATE MATERIALIZED VIEW sales_dailyy AS SELECT 1 AS x;\n",
			"b.sql": "CREATE MATERIALIZED VIEW base AS SELECT * FROM sales_daly JOIN sales_dailyy;\n",
			"c.sql": "CREATE MATERIALIZED VIEW sales_daily AS SELECT * FROM base;\n",
		}, "b.sql", "sales_dailyy"},
		{"unrelated kept", map[string]string{
			"a.sql": "CREATE MATERIALIZED VIEW base AS SELECT * FROM custmers;\n",
			"b.sql": "CREATE MATERIALIZED VIEW customers AS SELECT 1 AS id;\n",
		}, "a.sql", "customers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.files["thund.yaml"] = "backends: [native]\n"
			s, err := Load(writeTree(t, tc.files), Options{})
			if err != nil {
				t.Fatal(err)
			}
			d := findDiag(s, ir.CodeUnknownRef, tc.file)
			if d == nil {
				t.Fatalf("no unknown-reference finding in %s: %v", tc.file, diagStrings(s))
			}
			has := strings.Contains(d.Message, "did you mean")
			switch {
			case tc.want == "" && has:
				t.Errorf("suggests a dataset that would close a cycle: %s", d.Message)
			case tc.want != "" && !strings.Contains(d.Message, "did you mean "+tc.want+"?"):
				t.Errorf("want the suggestion %s: %s", tc.want, d.Message)
			}
		})
	}
}
