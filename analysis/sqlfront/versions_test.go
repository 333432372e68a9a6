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

// A QUALIFY clause that comes from a pipeline parameter (Spark substitutes
// ${key} before it reads the query) is recorded too, though its keyword is
// nowhere in the text as written; a QUALIFY only in a comment or a string
// records nothing.
func TestQualifyFromParameter(t *testing.T) {
	vars := map[string]string{"dedupe": "QUALIFY row_number() OVER (PARTITION BY id ORDER BY v) = 1", "word": "x"}
	for _, c := range []struct {
		sql  string
		want int
	}{
		{"CREATE MATERIALIZED VIEW a AS SELECT id FROM t ${dedupe}", 1},
		{"SELECT id FROM t ${dedupe}", 1},
		{"SELECT id FROM t -- QUALIFY later\n", 0},
		{"SELECT 'QUALIFY' AS w FROM t WHERE id = '${word}'", 0},
	} {
		f := ParsePipeline("x.sql", c.sql, DialectSpark, vars)
		if len(f.Diags) != 0 || len(f.Statements) != 1 {
			t.Errorf("%s: diagnostics %+v", c.sql, f.Diags)
			continue
		}
		got := 0
		if q := f.Statements[0].Query; q != nil {
			for _, u := range q.Syntax {
				if u.Feature == capab.SynQualify {
					got++
				}
			}
		}
		if got != c.want {
			t.Errorf("%s: %d QUALIFY constructs, want %d", c.sql, got, c.want)
		}
	}
}
