package capab_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/ir"
	"github.com/thund-dev/thund/report"
)

var updateThirdParty = flag.Bool("update-thirdparty", false, "rewrite testdata/databricks/.thirdparty_lakehouse/check-*.golden")

// TestThirdPartyLakehousePerBackend checks the retail lakehouse written as
// public Databricks examples write one (testdata/databricks/
// .thirdparty_lakehouse: legacy LIVE tables, cloud_files and read_files,
// CONSTRAINT ... EXPECT with RLIKE and FAIL UPDATE, APPLY CHANGES INTO ...
// SCD TYPE 2, a notebook export with a %python cell) against each backend
// and compares the findings with check-BACKEND.golden, as `thund-watch
// --check --backend BACKEND` prints them: clean on native and databricks
// but for the notebook's Python cell, and on spark-4.1 and spark-4.3 every
// Databricks construct open-source Spark refuses, at its place.
func TestThirdPartyLakehousePerBackend(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "databricks", ".thirdparty_lakehouse")
	for _, b := range []ir.Backend{ir.Native, ir.Databricks, ir.Spark41, ir.Spark43} {
		t.Run(string(b), func(t *testing.T) {
			snap, err := analysis.Load(dir, analysis.Options{Backends: []ir.Backend{b}})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := report.Text(&out, snap); err != nil {
				t.Fatal(err)
			}
			sum := report.Summarize(snap)
			out.WriteString(report.SummaryLine(sum) + "\n")
			golden := filepath.Join(dir, "check-"+string(b)+".golden")
			if *updateThirdParty {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./analysis/capab -run TestThirdPartyLakehouse -update-thirdparty)", err)
			}
			if out.String() != string(want) {
				t.Errorf("findings differ from %s\n--- got\n%s--- want\n%s", golden, out.String(), want)
			}
			errors := 0
			for _, d := range snap.Diagnostics {
				if d.Severity == ir.Error {
					errors++
				}
			}
			switch b {
			case ir.Native, ir.Databricks:
				if errors != 0 {
					t.Errorf("%s: %d errors, want none", b, errors)
				}
			default:
				if errors == 0 {
					t.Errorf("%s: no errors, want the Databricks constructs refused", b)
				}
			}
		})
	}
}
