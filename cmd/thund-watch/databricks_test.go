package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDatabricksPerBackend checks testdata/databricks, a Lakeflow
// Declarative Pipelines project, against each Spark backend and compares
// the findings with check-BACKEND.golden (regenerate with -update): what
// open-source Spark refuses of it, construct by construct. Its own
// check.golden (thund.yaml: dialect databricks, so native and databricks)
// is TestGolden's and clean.
func TestDatabricksPerBackend(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "databricks")
	for _, b := range []string{"spark-4.1", "spark-4.3"} {
		t.Run(b, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"--check", "--backend", b, dir}, &stdout, &stderr)
			got := stdout.String() + "exit status " + string(rune('0'+code)) + "\n"
			golden := filepath.Join(dir, "check-"+b+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/thund-watch -run TestDatabricksPerBackend -update)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s\n--- got\n%s--- want\n%s", golden, got, want)
			}
			if code != 1 || !strings.Contains(got, "which "+b+" cannot run") {
				t.Errorf("%s: exit %d, want the Databricks constructs refused", b, code)
			}
		})
	}
}
