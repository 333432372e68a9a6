package sqlfront

import (
	"reflect"
	"testing"

	"github.com/thund-dev/thund/analysis/capab"
)

// QUALIFY is read whatever the backends and recorded at its keyword (the
// capability matrix refuses it before Spark 4.2), in a dataset's query,
// a subquery and a bare query; without it nothing is recorded.
func TestQualifyConstruct(t *testing.T) {
	q := string(capab.SynQualify)
	for _, c := range []struct {
		sql  string
		want []string
	}{
		{"CREATE MATERIALIZED VIEW a AS SELECT id FROM t QUALIFY row_number() OVER (PARTITION BY id ORDER BY v DESC) = 1", []string{q + "=QUALIFY"}},
		{"CREATE MATERIALIZED VIEW b AS SELECT * FROM (SELECT id, rank() OVER (ORDER BY v) AS r FROM t qualify r = 1) s", []string{q + "=qualify"}},
		{"SELECT id FROM t WHERE v > 0 QUALIFY count(*) OVER (PARTITION BY id) > 1", []string{q + "=QUALIFY"}},
		// a table alias called qualify is no clause
		{"CREATE MATERIALIZED VIEW c AS SELECT qualify.id FROM t qualify", nil},
	} {
		f := Parse("x.sql", c.sql)
		if len(f.Diags) != 0 || len(f.Statements) != 1 {
			t.Errorf("%s: diagnostics %+v", c.sql, f.Diags)
			continue
		}
		if got := features(c.sql, f.Statements[0]); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: constructs %q, want %q", c.sql, got, c.want)
		}
	}
}
