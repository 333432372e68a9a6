package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunTranslatesSpark: a batch flow runs with Spark's meaning (a
// double-quoted string is a string), and a run-time error is reported at
// the user's expression with Spark's error class and no internal name.
func TestRunTranslatesSpark(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "samples", "ev.csv"), "s,v\nDELETE,1\nkeep,2\n")
	writeTestFile(t, filepath.Join(root, "kept.sql"), "SELECT s, v\nFROM ev\nWHERE s != \"DELETE\"\n")
	writeTestFile(t, filepath.Join(root, "ratio.sql"), "SELECT s,\n  sum(v) / 0 AS r\nFROM ev GROUP BY s\n")
	snap, s := load(t, root)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Datasets["kept"]; r == nil || r.Phase != Completed || r.Rows != 1 {
		t.Fatalf("kept: %+v", r)
	}
	r := res.Datasets["ratio"]
	if r == nil || r.Phase != Failed {
		t.Fatalf("ratio: %+v", r)
	}
	for _, want := range []string{"ratio.sql:2:", "[DIVIDE_BY_ZERO]"} {
		if !strings.Contains(r.Error, want) {
			t.Errorf("ratio's error %q lacks %q", r.Error, want)
		}
	}
	for _, bad := range []string{"__thund", "thund_", "LINE ", "⟦"} {
		if strings.Contains(r.Error, bad) {
			t.Errorf("ratio's error %q shows %q", r.Error, bad)
		}
	}
}

// TestRunTypeError: an expression Spark's analyzer rejects for its types
// fails the dataset with Spark's error class at the user's expression,
// rather than running with DuckDB's meaning.
func TestRunTypeError(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "samples", "ev.csv"), "s,v\nDELETE,1\nkeep,2\n")
	writeTestFile(t, filepath.Join(root, "flagged.sql"), "SELECT s,\n  v = true AS flag\nFROM ev\n")
	snap, s := load(t, root)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Datasets["flagged"]
	if r == nil || r.Phase != Failed {
		t.Fatalf("flagged: %+v", r)
	}
	for _, want := range []string{"flagged.sql:2:3:", "[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES]", "[type-error]"} {
		if !strings.Contains(r.Error, want) {
			t.Errorf("flagged's error %q lacks %q", r.Error, want)
		}
	}
}

// TestRunErrorsInUserTerms: run-time failures of translated flows start
// with the user's file:line:column, name the flow, and keep none of
// DuckDB's wording for a conversion it has no rule for.
func TestRunErrorsInUserTerms(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "thund.yaml"), "backends: [native]\n")
	writeTestFile(t, filepath.Join(root, "samples", "ev.csv"), "id,name\n1,alice\n")
	writeTestFile(t, filepath.Join(root, "badcast.sql"), "SELECT id,\n  CAST(name AS INT) AS n\nFROM ev\n")
	writeTestFile(t, filepath.Join(root, "structcmp.sql"), "SELECT id FROM ev\nWHERE named_struct('a', id) = 1\n")
	snap, s := load(t, root)
	res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		"badcast":   {"badcast.sql:2:3: badcast: [CAST_INVALID_INPUT]"},
		"structcmp": {"structcmp.sql:2:", "cannot be converted to struct<"},
	} {
		r := res.Datasets[name]
		if r == nil || r.Phase != Failed {
			t.Fatalf("%s: %+v", name, r)
		}
		for _, w := range want {
			if !strings.Contains(r.Error, w) {
				t.Errorf("%s's error %q lacks %q", name, r.Error, w)
			}
		}
		if !strings.HasPrefix(r.Error, name+".sql:") {
			t.Errorf("%s's error %q does not start at the user's file", name, r.Error)
		}
		for _, bad := range []string{"__thund", "Unimplemented type", "LINE ", "Values list"} {
			if strings.Contains(r.Error, bad) {
				t.Errorf("%s's error %q shows %q", name, r.Error, bad)
			}
		}
	}
}
