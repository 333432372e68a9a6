package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis/capab"
)

// TestCDCTiesWarned: changes of one key that share a sequence value are
// applied natively by a fixed rule but in no defined order on
// Databricks; the run warns at SEQUENCE BY with the key, the value and
// the count, and says how many keys tie. Changes without ties, and
// identical duplicates, are no warning.
func TestCDCTiesWarned(t *testing.T) {
	files := func(rows string) map[string]string {
		return map[string]string{
			"thund.yaml": "backends: [native]\ndialect: databricks\n",
			"cdc.sql": "CREATE STREAMING TABLE cur;\nCREATE FLOW f AS AUTO CDC INTO cur FROM STREAM(changes) KEYS (id)\n" +
				"  SEQUENCE BY seq\n  STORED AS SCD TYPE 2;\n",
			"samples/changes/1.csv": "id,city,seq\n" + rows,
		}
	}
	run := func(rows string) []SampleWarning {
		snap, s := loadClean(t, writePipeline(t, files(rows)))
		res, err := s.Run(context.Background(), snap.Pipeline, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed() {
			t.Fatalf("run failed: %+v", res.Datasets)
		}
		return res.SampleWarnings
	}
	ws := run("1,Austin,5\n1,Denver,5\n2,Boston,5\n2,Miami,5\n2,Reno,5\n3,Tulsa,5\n")
	if len(ws) != 1 {
		t.Fatalf("warnings: %+v, want one", ws)
	}
	w := ws[0]
	if w.File != "cdc.sql" || w.Line != 3 || w.Code != CodeCDCSequenceTies {
		t.Errorf("at %s:%d (%s), want cdc.sql:3 (SEQUENCE BY), %s", w.File, w.Line, w.Code, CodeCDCSequenceTies)
	}
	for _, want := range []string{"3 changes of the key id=2 have the same SEQUENCE BY value, seq = 5", "1 more keys tie (5 tied changes in all)", "no defined order"} {
		if !strings.Contains(w.Message, want) {
			t.Errorf("message %q lacks %q", w.Message, want)
		}
	}
	if CodeCDCSequenceTies != string(capab.CodeCDCSequenceTies) {
		t.Errorf("the run's code %s is not the analysis's %s", CodeCDCSequenceTies, capab.CodeCDCSequenceTies)
	}
	if ws := run("1,Austin,5\n1,Austin,5\n1,Denver,6\n"); len(ws) != 0 {
		t.Errorf("no tie, got %+v", ws)
	}
}
