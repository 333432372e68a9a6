package engine

import (
	"strings"
	"testing"
)

// TestSparkBinderMessage: DuckDB's binder messages about types come out
// in Spark's terms, with the user's function, never DuckDB's names.
func TestSparkBinderMessage(t *testing.T) {
	cases := []struct{ msg, expr, want string }{
		{"No function matches the given name and argument types 'list_contains(VARCHAR, INTEGER_LITERAL)'. You might need to add explicit type casts.\n\tCandidate functions:\n\tlist_contains(T[], T) -> BOOLEAN",
			"array_contains(name, 1)",
			"[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve \"array_contains(name, 1)\" due to data type mismatch: `array_contains` is called with arguments of types (\"STRING\", \"INT\"), which it does not take; cast the arguments to the types Spark expects."},
		// the translation added an argument: the types are not the user's
		{"No function matches the given name and argument types 'map_keys(VARCHAR)'. You might need to add explicit type casts.",
			"map_contains_key(name,\n  1)",
			"[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve \"map_contains_key(name, 1)\" due to data type mismatch: `map_contains_key` is called with arguments of types it does not take; cast the arguments to the types Spark expects."},
		{"Could not choose a best candidate function for the function call \"+(DATE, VARCHAR)\". In order to select one, please add explicit type casts.\n\tCandidate functions:\n\t+(DATE, INTEGER) -> DATE",
			"d + s",
			"[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve \"d + s\" due to data type mismatch: the operands are of types (\"DATE\", \"STRING\"), which do not go together; cast the arguments to the types Spark expects."},
		{"Cannot mix values of type INTEGER[] and INTEGER_LITERAL in COALESCE operator - an explicit cast is required",
			"coalesce(array(1), 1)",
			"[DATATYPE_MISMATCH.DATA_DIFF_TYPES] Cannot resolve \"coalesce(array(1), 1)\" due to data type mismatch: Input to `coalesce` should all be the same type, but it's (\"ARRAY<INT>\" or \"INT\")."},
		{"Cannot mix values of type MAP(VARCHAR, INTEGER) and INTEGER_LITERAL in COALESCE operator - an explicit cast is required",
			"nvl(m, 1)",
			"[DATATYPE_MISMATCH.DATA_DIFF_TYPES] Cannot resolve \"nvl(m, 1)\" due to data type mismatch: Input to `nvl` should all be the same type, but it's (\"MAP<STRING, INT>\" or \"INT\")."},
		{"Cannot compare values of type VARCHAR and type INTEGER[] - an explicit cast is required",
			"s = a",
			"[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] Cannot resolve \"s = a\" due to data type mismatch: the left and right operands of the binary operator have incompatible types (\"STRING\" and \"ARRAY<INT>\")."},
		// not located: no expression, and still no DuckDB name
		{"No function matches the given name and argument types 'list_has_any(VARCHAR, INTEGER[])'. You might need to add explicit type casts.",
			"",
			"[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve the query due to data type mismatch: a function of the query is called with arguments of types (\"STRING\", \"ARRAY<INT>\"), which it does not take; cast the arguments to the types Spark expects."},
		// anything else: DuckDB's type names become Spark's
		{"Conversion of VARCHAR to INTEGER failed", "", "Conversion of STRING to INT failed"},
	}
	for _, c := range cases {
		got, changed := SparkBinderMessage(c.msg, c.expr)
		if got != c.want || !changed {
			t.Errorf("%q\n got %s\nwant %s", c.msg, got, c.want)
		}
		for _, duck := range []string{"list_", "VARCHAR", "INTEGER", "Candidate", "map_keys", "COALESCE operator"} {
			if strings.Contains(got, duck) {
				t.Errorf("%q: DuckDB's %q left in %s", c.msg, duck, got)
			}
		}
	}
	if got, changed := SparkBinderMessage("[DIVIDE_BY_ZERO] Division by zero.", "a / 0"); changed || got != "[DIVIDE_BY_ZERO] Division by zero." {
		t.Errorf("a message in Spark's terms changed: %s", got)
	}
}

func TestSparkTypeName(t *testing.T) {
	for duck, want := range map[string]string{
		"VARCHAR": "STRING", "INTEGER_LITERAL": "INT", "STRING_LITERAL": "STRING", "INTEGER[]": "ARRAY<INT>",
		"BIGINT": "BIGINT", "DOUBLE": "DOUBLE", "DECIMAL(10,2)": "DECIMAL(10,2)", "BOOLEAN": "BOOLEAN",
		"DATE": "DATE", "BLOB": "BINARY", "MAP(VARCHAR, INTEGER)": "MAP<STRING, INT>", "VARCHAR[][]": "ARRAY<ARRAY<STRING>>",
		"T[]": "",
	} {
		if got := SparkTypeName(duck); got != want {
			t.Errorf("SparkTypeName(%q) = %q, want %q", duck, got, want)
		}
	}
}
