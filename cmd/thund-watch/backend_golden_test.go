package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackendGoldens runs `thund-watch --check --backend B` on every
// testdata pipeline with a check-B.golden file and compares the output
// with it (regenerate with -update, then review the diff): each folder's
// findings per backend, as check.golden holds them for the folder's own
// backends (TestGolden).
func TestBackendGoldens(t *testing.T) {
	var goldens []string
	for _, pattern := range []string{"../../testdata/*/check-*.golden", "../../testdata/broken/*/check-*.golden"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		goldens = append(goldens, m...)
	}
	if len(goldens) < 4 {
		t.Fatalf("found only %d per-backend goldens", len(goldens))
	}
	for _, golden := range goldens {
		dir := filepath.Dir(golden)
		backend := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(golden), "check-"), ".golden")
		name := strings.TrimPrefix(filepath.ToSlash(dir), "../../testdata/") + "/" + backend
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"--check", "--backend", backend, dir}, &stdout, &stderr)
			got := stdout.String() + "exit status " + string(rune('0'+code)) + "\n"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s\n--- got\n%s--- want\n%s", golden, got, want)
			}
			if stderr.Len() > 0 {
				t.Errorf("stderr: %s", stderr.String())
			}
		})
	}
}
