package analysis

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/ir"
)

// TestPipelineParameters loads testdata/parameters, whose SQL names
// tables, strings and numbers with ${key} from spark-pipeline.yml's
// configuration: the pipeline is clean, its source is read under the
// substituted name. A misspelt key is then an error at the reference, with
// the key meant; a change of the configuration alone re-reads the files.
func TestPipelineParameters(t *testing.T) {
	s, err := Load("../testdata/parameters", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.Diagnostics {
		t.Errorf("unexpected: %s:%d-%d %s", d.Loc.File, d.Loc.Start, d.Loc.End, d.Message)
	}
	var src *ir.Source
	for _, x := range s.Pipeline.Sources {
		if x.Name == "landing.zones" {
			src = x
		}
	}
	if src == nil {
		t.Fatalf("no source landing.zones: %v", s.Pipeline.Sources)
	}

	const file = "transformations/boroughs.sql"
	text, _ := s.Text(file)
	bad := strings.Replace(text, "${source_schema}.zones", "${source_schem}.zones", 1)
	u := s.Update([]Change{{Path: file, Text: &bad}})
	var errs []ir.Diagnostic
	for _, d := range u.Diagnostics {
		if d.Severity == ir.Error {
			errs = append(errs, d)
		}
	}
	if len(errs) != 1 {
		t.Fatalf("misspelt key: %d errors: %v", len(errs), errs)
	}
	d := errs[0]
	if got := bad[d.Loc.Start:d.Loc.End]; d.Loc.File != file || got != "${source_schem}" {
		t.Errorf("misspelt key reported at %s %q", d.Loc.File, got)
	}
	if !strings.Contains(d.Message, "did you mean ${source_schema}?") {
		t.Errorf("message: %s", d.Message)
	}

	// the configuration changes: the unchanged SQL files are read again
	spec, _ := s.Text("spark-pipeline.yml")
	renamed := strings.Replace(spec, "source_schema:", "source_db:", 1)
	v := s.Update([]Change{{Path: "spark-pipeline.yml", Text: &renamed}})
	found := false
	for _, d := range v.Diagnostics {
		if d.Severity == ir.Error && strings.Contains(d.Message, "${source_schema} is not set") {
			found = true
		}
	}
	if !found {
		t.Errorf("configuration without source_schema: no error about it: %v", v.Diagnostics)
	}
}
