//go:build duckdb_arrow

package engine

import (
	"reflect"
	"strings"
	"testing"

	"github.com/thund-dev/thund/analysis"
	"github.com/thund-dev/thund/ir"
)

// TestSampleFolderHintSaysWhatRuns: the missing-sample hint of a streamed
// file read says what a run does with the folder it asks for (QA13: it
// promised one micro-batch per file, and --once read both files in
// trigger 1), and the run does that: by default the folder's files are
// one trigger in name order, as Spark's available_now reads what has
// arrived (its watermark result depends on it, so the default stays);
// with a processing_time trigger each file is a trigger of its own, which
// is how the hint says to exercise an apply-changes flow across
// micro-batches.
func TestSampleFolderHintSaysWhatRuns(t *testing.T) {
	const cdc = `CREATE OR REFRESH STREAMING TABLE raw AS SELECT * FROM STREAM read_files('/landing/customers/', format => 'csv');
CREATE OR REFRESH STREAMING TABLE cur;
APPLY CHANGES INTO cur FROM STREAM(raw) KEYS (id) SEQUENCE BY seq STORED AS SCD TYPE 2;
`
	yaml := "backends: [native]\ndialect: databricks\n"
	snap, err := analysis.Load(writePipeline(t, map[string]string{"thund.yaml": yaml, "p.sql": cdc}), analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var hint string
	for _, d := range snap.Diagnostics {
		if d.Code == ir.CodeMissingSample {
			hint = d.Message
		}
	}
	if !strings.Contains(hint, "add a folder samples/customers/ of files (001.csv, 002.csv...") ||
		!strings.Contains(hint, "which a run reads in name order as one trigger") ||
		!strings.Contains(hint, "`-- @trigger: processing_time '1 second'` each file is a trigger of its own") ||
		strings.Contains(hint, "one file per micro-batch") {
		t.Fatalf("hint %q", hint)
	}

	files := map[string]string{
		"samples/customers/001.csv": "id,v,seq\n1,a,1\n2,b,2\n",
		"samples/customers/002.csv": "id,v,seq\n1,c,3\n",
	}
	both := []string{"samples/customers/001.csv", "samples/customers/002.csv"}
	for _, perFile := range []bool{false, true} {
		fs := map[string]string{"thund.yaml": yaml, "p.sql": cdc}
		if perFile {
			fs["p.sql"] = "-- @trigger: processing_time '1 second'\n" + strings.Replace(cdc, "APPLY", "-- @trigger: processing_time '1 second'\nAPPLY", 1)
		}
		for k, v := range files {
			fs[k] = v
		}
		res, s := runOK(t, writePipeline(t, fs))
		var got [][]string
		for _, inc := range increments(res, "cur") {
			got = append(got, inc.Files)
		}
		want := [][]string{both}
		if perFile {
			want = [][]string{both[:1], both[1:]}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("per file %v: the CDC flow's triggers read %v, want %v", perFile, got, want)
		}
		// either way the history is the same
		sameRows(t, "cur", tableRows(t, s, "cur"), sortedRows("1|a|1|1|3", "1|c|3|3|NULL", "2|b|2|2|NULL"))
	}
}
