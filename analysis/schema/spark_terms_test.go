package schema

import (
	"context"
	"strings"
	"testing"

	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/ir"
)

// duckWords are DuckDB's own names that must never reach a user of a
// Spark SQL pipeline.
var duckWords = []string{"list_contains", "list_has_any", "map_keys(", "epoch", "VARCHAR", "INTEGER_LITERAL", "INTEGER", "Candidate functions", "No function matches", "__thund"}

// TestTypeErrorsInSparkTerms: a type error in a Spark SQL flow is
// reported, by the analysis, when describing and when running, in Spark's terms at the
// user's argument or call: the semantic model's finding where it knows the types
// (array_contains of a STRING, as Spark 4.1.4 words it), the safety net's
// rewrite of DuckDB's binder error where it does not.
func TestTypeErrorsInSparkTerms(t *testing.T) {
	dir := tree(t, map[string]string{
		"samples/src.csv": "id,name\n1,a\n",
		"m1.sql":          "CREATE MATERIALIZED VIEW m1 AS SELECT array_contains(name, 1) AS x FROM src;\n",
		"m2.sql":          "CREATE MATERIALIZED VIEW m2 AS SELECT map_contains_key(name, 1) AS x FROM src;\n",
		"m3.sql":          "CREATE MATERIALIZED VIEW m3 AS SELECT coalesce(array(1), id) AS x FROM src;\n",
		"m4.sql":          "CREATE MATERIALIZED VIEW m4 AS SELECT id,\n  arrays_overlap(name, array(1)) AS x FROM src;\n",
		// not in the signature table: DuckDB's binder finds it
		"m5.sql": "CREATE MATERIALIZED VIEW m5 AS SELECT unix_seconds(name) AS x FROM src;\n",
	})
	snap, s := load(t, dir)
	res := describe(t, snap, s)
	want := map[string]string{
		"m1.sql": `[name] error sql-binder [DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve "array_contains(name, 1)" due to data type mismatch: The first parameter requires the "ARRAY" type, however "name" has the type "STRING".`,
		"m2.sql": "[map_contains_key(name, 1)] error sql-binder [DATATYPE_MISMATCH.MAP_FUNCTION_DIFF_TYPES] Cannot resolve \"map_contains_key(name, 1)\" due to data type mismatch: Input to `map_contains_key` should have been \"MAP\" followed by a value with same key type, but it's [\"STRING\", \"INT\"].",
		"m4.sql": "[arrays_overlap(name, array(1))] error sql-binder [DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES] Cannot resolve \"arrays_overlap(name, array(1))\" due to data type mismatch: Input to function `arrays_overlap` should have been two \"ARRAY\" with same element type, but it's [\"STRING\", \"ARRAY<INT>\"].",
		"m3.sql": "[coalesce(array(1), id)] error sql-binder [DATATYPE_MISMATCH.DATA_DIFF_TYPES] Cannot resolve \"coalesce(array(1), id)\" due to data type mismatch: Input to `coalesce` should all be the same type, but it's (\"ARRAY<INT>\" or \"INT\").",
	}
	// The analysis itself reports what the semantic model knows from the
	// sample's column types; the description reports the rest, and never
	// the same finding twice: together, one finding per flow.
	var all []ir.Diagnostic
	for _, d := range snap.Diagnostics {
		if d.Code == "sql-binder" {
			all = append(all, d)
		}
	}
	all = append(all, res.Diagnostics...)
	got := map[string]string{}
	for _, d := range all {
		line := diagStrings(snap, []ir.Diagnostic{d})[0]
		for _, w := range duckWords {
			if strings.Contains(d.Message, w) {
				t.Errorf("DuckDB's %q in %s", w, line)
			}
		}
		if _, dup := got[d.Loc.File]; dup {
			t.Errorf("a second finding in %s", line)
		}
		got[d.Loc.File] = line[strings.IndexByte(line, '['):]
	}
	for file, w := range want {
		if got[file] != w {
			t.Errorf("%s:\n got %s\nwant %s", file, got[file], w)
		}
	}
	if !strings.Contains(got["m5.sql"], `[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE]`) || !strings.Contains(got["m5.sql"], `("STRING")`) {
		t.Errorf("m5.sql: %s", got["m5.sql"])
	}

	// A run fails each dataset with the same words, at the argument or
	// the call.
	run, err := s.Run(context.Background(), snap.Pipeline, engine.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runWant := map[string]string{
		"m1": `m1.sql:1:54: m1: [DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve "array_contains(name, 1)" due to data type mismatch: The first parameter requires the "ARRAY" type, however "name" has the type "STRING".`,
		"m2": "m2.sql:1:39: m2: [DATATYPE_MISMATCH.MAP_FUNCTION_DIFF_TYPES] Cannot resolve \"map_contains_key(name, 1)\"",
		"m3": "m3.sql:1:39: m3: [DATATYPE_MISMATCH.DATA_DIFF_TYPES] Cannot resolve \"coalesce(array(1), id)\"",
		"m4": "m4.sql:2:3: m4: [DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES] Cannot resolve \"arrays_overlap(name, array(1))\"",
		"m5": "m5.sql:1:39: m5: [DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve \"unix_seconds(name)\" due to data type mismatch: `unix_seconds` is called with arguments of types (\"STRING\"), which it does not take",
	}
	for name, w := range runWant {
		dr := run.Datasets[ir.NameKey(name)]
		if dr == nil || dr.Phase != engine.Failed {
			t.Errorf("%s: %+v, want failed", name, dr)
			continue
		}
		if !strings.HasPrefix(dr.Error, w) {
			t.Errorf("%s:\n got %s\nwant %s...", name, dr.Error, w)
		}
		for _, dw := range duckWords {
			if strings.Contains(dr.Error, dw) {
				t.Errorf("%s: DuckDB's %q in %s", name, dw, dr.Error)
			}
		}
	}
}

// TestTextFlowTypeErrorInSparkTypes: Spark SQL that runs as its text on
// DuckDB (it calls DuckDB's list_contains) still gets Spark's type names
// and no candidate list.
func TestTextFlowTypeErrorInSparkTypes(t *testing.T) {
	dir := tree(t, map[string]string{
		"samples/src.csv": "id,name\n1,a\n",
		"m.sql":           "CREATE MATERIALIZED VIEW m AS SELECT list_contains(name, 1) AS x FROM src;\n",
	})
	snap, s := load(t, dir)
	res := describe(t, snap, s)
	var got []string
	for _, d := range res.Diagnostics {
		if d.Code == ir.CodeBinder {
			got = append(got, diagStrings(snap, []ir.Diagnostic{d})[0])
		}
	}
	want := "m.sql:37-50 [list_contains] error sql-binder [DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve \"list_contains(name, 1)\" due to data type mismatch: `list_contains` is called with arguments of types (\"STRING\", \"INT\"), which it does not take; cast the arguments to the types Spark expects."
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q\nwant %s", got, want)
	}
}

// TestStaticTypeErrorsNotRepeated: a type error the analysis reports
// without DuckDB (testdata/broken/types: declared column types) is not
// reported a second time by the description.
func TestStaticTypeErrorsNotRepeated(t *testing.T) {
	snap, s := load(t, "../../testdata/broken/types")
	static := map[ir.Loc]bool{}
	for _, d := range snap.Diagnostics {
		if d.Code == ir.CodeBinder {
			static[d.Loc] = true
		}
	}
	if len(static) < 4 {
		t.Fatalf("%d static type errors, want the 4 of EXPECTED.md", len(static))
	}
	for _, d := range describe(t, snap, s).Diagnostics {
		if static[d.Loc] {
			t.Errorf("repeated: %s", diagStrings(snap, []ir.Diagnostic{d})[0])
		}
	}
}
