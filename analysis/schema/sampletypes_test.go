package schema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/schema/sampletypes"
	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
)

// TestSampleTypesAgreeWithDuckDB: every type sampletypes is certain of is
// the one the native run reads the column as (Spark's inferSchema type,
// engine/csvinfer.go), so the semantic model checks a sample's columns with
// the types a native run reads them as.
func TestSampleTypesAgreeWithDuckDB(t *testing.T) {
	samples := []string{
		"id,name\n1,a\n",
		"a,b,c,d,e,f\ntrue,1.5,2024-01-05,2024-01-05 10:00:00,x,\nFALSE,2,2024-02-29,2024-01-05,7,\n",
		"d,t,z,n\n01/02/2024,10:30,2024-01-05T10:00:00+02,007\n",
		"a,b\nNULL,1\n,2\n",
		"a,b\n1,true\n2.5,x\n",
		"a,b,c\n1e3,-5,2024-12-31 23:59:59.123\n2,+7,2024-01-01 00:00:00\n",
		"a,b\n-5,1\n3,-0\n",
		"name,amount,ok\n\"Smith, J\",3.25,false\n\"O'Hara\",-0.5,true\n",
	}
	files := map[string]string{}
	for i, s := range samples {
		files[fmt.Sprintf("samples/s%d.csv", i)] = s
		files[fmt.Sprintf("m%d.sql", i)] = fmt.Sprintf("CREATE MATERIALIZED VIEW m%d AS SELECT * FROM s%d;\n", i, i)
	}
	snap, s := load(t, tree(t, files))
	res := describe(t, snap, s)
	certain := 0
	for i, text := range samples {
		duck := res.Sources[ir.NameKey(fmt.Sprintf("s%d", i))]
		got := sampletypes.Infer(strings.NewReader(text))
		if len(duck) != len(got) {
			t.Errorf("sample %d: DuckDB reads %d columns, sampletypes %d", i, len(duck), len(got))
			continue
		}
		for j, c := range duck {
			if got[j] == "" {
				continue
			}
			certain++
			if want := strings.ToLower(engine.SparkTypeName(c.Type)); got[j] != want {
				t.Errorf("sample %d column %s: sampletypes says %s, DuckDB reads %s (%s)", i, c.Name, got[j], c.Type, want)
			}
		}
	}
	if certain < 15 {
		t.Errorf("only %d columns typed", certain)
	}
}
