package pylib

import (
	"errors"
	"strings"
	"testing"
)

// schemaString is fields as Spark's simpleString writes a schema
// (struct<a:bigint,...>), lower case, for comparison with Spark's answers.
func schemaString(fields []Field) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.Name + ":" + simpleType(f.Type)
	}
	return "struct<" + strings.Join(parts, ",") + ">"
}

func simpleType(t *Type) string {
	switch t.Kind {
	case "array":
		return "array<" + simpleType(t.Elem) + ">"
	case "struct":
		return schemaString(t.Fields)
	case "decimal":
		return strings.ToLower(t.Spark())
	case "null":
		return "string"
	}
	return t.Kind
}

// The sample files and the schemas Spark 4.1.4 infers from them, recorded
// from spark.read...schema.simpleString() on a Spark Connect server
// (2026-12-03); TestSparkInference in engine repeats them on a live one.
const (
	jsonSample = `{"id": 1, "name": "ann", "score": 2.5, "ok": true, "tags": ["x", "y"], "addr": {"zip": "101", "n": 3}, "ts": "2024-01-05T10:00:00Z", "d": "2024-01-05", "nul": null, "big": 12345678901234567890123}
{"id": 2, "name": null, "score": 3, "ok": false, "tags": [], "addr": {"zip": "102", "city": "b"}, "ts": "2024-01-06T11:00:00Z", "d": "2024-01-06", "nul": null, "mixed": 1}

{"id": 3, "score": 1e2, "tags": [1], "mixed": "one", "arrnull": [null], "empty": {}}
`
	csvSample = "id;name;amount;day;flag;ts;n\n1;ann;2.50;2024-01-05;true;2024-01-05 10:00:00;NA\n2;bob;3;2024-01-06;false;2024-01-06 11:00:00;\n3;;x4;2024-01-07;TRUE;2024-01-07T12:00:00;5\n"
)

// TestInferJSON: JSON Lines inference as Spark's.
func TestInferJSON(t *testing.T) {
	for _, c := range []struct {
		name, data string
		options    map[string]string
		want       string
	}{
		{"mixed", jsonSample, nil, "struct<addr:struct<city:string,n:bigint,zip:string>,arrnull:array<string>,big:decimal(23,0),d:string,id:bigint,mixed:string,name:string,nul:string,ok:boolean,score:double,tags:array<string>,ts:string>"},
		{"primitivesAsString", jsonSample, map[string]string{"primitivesAsString": "true"}, "struct<addr:struct<city:string,n:string,zip:string>,arrnull:array<string>,big:string,d:string,id:string,mixed:string,name:string,nul:string,ok:string,score:string,tags:array<string>,ts:string>"},
		{"corrupt", "{\"a\": 1}\nnot json\n[1, 2]\n{\"b\": \"x\"}\n", nil, "struct<_corrupt_record:string,a:bigint,b:string>"},
		{"array of records", "[{\"a\": 1}, {\"a\": 2.5}]\n", nil, "struct<a:double>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := InferJSON([]byte(c.data), c.options)
			if err != nil {
				t.Fatal(err)
			}
			if s := schemaString(got); s != c.want {
				t.Errorf("schema\n got %s\nwant %s", s, c.want)
			}
		})
	}
	if _, err := InferJSON([]byte("{\"a\": 1, \"A\": 2}\n"), nil); err == nil || !strings.Contains(err.Error(), "COLUMN_ALREADY_EXISTS") {
		t.Errorf("fields differing in case: %v", err)
	}
	if _, err := InferJSON(nil, map[string]string{"multiLine": "true"}); !errors.Is(err, ErrNotInferred) {
		t.Errorf("multiLine: %v", err)
	}
}

// TestInferCSV: CSV columns as Spark's reader gives them.
func TestInferCSV(t *testing.T) {
	for _, c := range []struct {
		name, data string
		options    map[string]string
		want       string
	}{
		{"no header", csvSample, map[string]string{"sep": ";"}, "struct<_c0:string,_c1:string,_c2:string,_c3:string,_c4:string,_c5:string,_c6:string>"},
		{"header, strings", csvSample, map[string]string{"header": "true", "sep": ";"}, "struct<id:string,name:string,amount:string,day:string,flag:string,ts:string,n:string>"},
		{"inferSchema", csvSample, map[string]string{"header": "true", "delimiter": ";", "inferSchema": "true"}, "struct<id:int,name:string,amount:string,day:date,flag:boolean,ts:timestamp,n:string>"},
		{"inferSchema, nullValue", csvSample, map[string]string{"header": "true", "sep": ";", "inferSchema": "true", "nullValue": "NA"}, "struct<id:int,name:string,amount:string,day:date,flag:boolean,ts:timestamp,n:int>"},
		{"repeated and empty names", "a,b,,a\n1,2,3,4\n", map[string]string{"header": "true"}, "struct<a0:string,b:string,_c2:string,a3:string>"},
		{"numbers widen", "x,y,z\n1,10000000000,1\n2,3,1.5\n", map[string]string{"header": "true", "inferSchema": "true"}, "struct<x:int,y:bigint,z:double>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, err := CSVReading(c.options)
			if err != nil {
				t.Fatal(err)
			}
			got, err := InferCSV([]byte(c.data), o)
			if err != nil {
				t.Fatal(err)
			}
			if s := schemaString(got); s != c.want {
				t.Errorf("schema\n got %s\nwant %s", s, c.want)
			}
		})
	}
	for _, opts := range []map[string]string{{"sep": "||"}, {"timestampFormat": "dd/MM/yyyy"}, {"dateFormat": "dd/MM/yyyy"}} {
		if _, err := CSVReading(opts); !errors.Is(err, ErrNotInferred) {
			t.Errorf("%v: %v, want it refused", opts, err)
		}
	}
}

// TestValueFits: the values a CSV schema's type reads (not as NULL).
func TestValueFits(t *testing.T) {
	for _, c := range []struct {
		v, typ string
		want   bool
	}{
		{"12", "INT", true}, {"x4", "INT", false}, {"3000000000", "INT", false}, {"3000000000", "BIGINT", true},
		{"2.5", "DOUBLE", true}, {"2.5", "DECIMAL(10,2)", true}, {"TRUE", "BOOLEAN", true}, {"yes", "BOOLEAN", false},
		{"2024-01-05", "DATE", true}, {"05/01/2024", "DATE", false}, {"2024-01-05 10:00:00", "TIMESTAMP", true}, {"anything", "STRING", true},
	} {
		if got := ValueFits(c.v, c.typ); got != c.want {
			t.Errorf("ValueFits(%q, %s) = %v", c.v, c.typ, got)
		}
	}
}
