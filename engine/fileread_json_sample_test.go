package engine

import (
	"strings"
	"testing"
)

// TestJSONSampleSparkSchema: a JSON sample of a source table read by
// name has the schema Spark's JSON reader infers (a table USING json
// over the file): fields sorted by name, an integer past 64 bits
// DECIMAL(20,0), dates and timestamps STRING, nested objects STRUCTs of
// the merged fields, arrays of BIGINT; a line holding an array of
// objects is one row per object. Checked on Spark 4.1.4:
// struct<big:decimal(20,0),d:string,f:double,i:bigint,ts:string>,
// struct<a:bigint,b:struct<x:double,y:string,z:boolean>,c:array<bigint>>
// and struct<a:bigint,s:string> with two rows.
func TestJSONSampleSparkSchema(t *testing.T) {
	dir := writePipeline(t, map[string]string{
		"samples/nums.json":   `{"i":7,"f":1.0,"big":12345678901234567890,"ts":"2025-01-01T10:00:00Z","d":"2025-01-01"}` + "\n",
		"samples/lines.json":  `{"a":1,"b":{"x":1.5,"y":"s"},"c":[1,2]}` + "\n" + `{"a":3000000000,"b":{"x":2,"z":true},"c":[]}` + "\n",
		"samples/arr.json":    `[{"a":1,"s":"x"},{"a":2,"s":"y"}]` + "\n",
		"samples/pretty.json": "[\n  {\"a\": 1}\n]\n",
		"m.sql":               "CREATE MATERIALIZED VIEW m AS SELECT * FROM nums;\nCREATE MATERIALIZED VIEW l AS SELECT * FROM lines;\nCREATE MATERIALIZED VIEW r AS SELECT * FROM arr;\nCREATE MATERIALIZED VIEW p AS SELECT * FROM pretty;\n",
	})
	res, s := runOK(t, dir)
	// A document over several lines: _corrupt_record rows on Spark (four
	// rows for a pretty-printed array of two objects), a warning here.
	if len(res.SampleWarnings) != 1 || res.SampleWarnings[0].File != "samples/pretty.json" || res.SampleWarnings[0].Line != 1 || !strings.Contains(res.SampleWarnings[0].Message, "_corrupt_record") {
		t.Errorf("warnings: %+v", res.SampleWarnings)
	}
	describe := func(rel string) []string {
		return rowsOf(t, s, "SELECT string_agg(column_name || ' ' || column_type, '; ') FROM (DESCRIBE "+rel+")")
	}
	sameRows(t, "nums types", describe("m"), []string{"big DECIMAL(20,0); d VARCHAR; f DOUBLE; i BIGINT; ts VARCHAR"})
	sameRows(t, "nums", rowsOf(t, s, "SELECT big, d, f, i, ts FROM m"), []string{"12345678901234567890|2025-01-01|1|7|2025-01-01T10:00:00Z"})
	sameRows(t, "lines types", describe("l"), []string{`a BIGINT; b STRUCT(x DOUBLE, y VARCHAR, z BOOLEAN); c BIGINT[]`})
	sameRows(t, "lines", rowsOf(t, s, "SELECT a, b.x, b.y, b.z, len(c) FROM l"), []string{"1|1.5|s|NULL|2", "3000000000|2|NULL|true|0"})
	sameRows(t, "array line", rowsOf(t, s, "SELECT a, s FROM r"), []string{"1|x", "2|y"})
}
