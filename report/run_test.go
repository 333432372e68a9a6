package report

import (
	"strings"
	"testing"

	"github.com/thund-dev/thund/engine"
	"github.com/thund-dev/thund/preview"
)

// TestEventTextKeepsEveryLine: a failure's later lines (where DuckDB often
// says why) are printed, indented under the first.
func TestEventTextKeepsEveryLine(t *testing.T) {
	e := engine.Event{Dataset: "orders", Phase: engine.Failed, Message: "CSV Error on Line: 2\n\nThis file is not utf-8 encoded\n"}
	got := EventText(e, false)
	want := "✗ orders                           failed: CSV Error on Line: 2\n    This file is not utf-8 encoded"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if got := EventText(engine.Event{Dataset: "one", Phase: engine.Completed, Rows: 1}, false); !strings.Contains(got, " 1 row ") {
		t.Errorf("one row: %q", got)
	}
}

// TestIncrementsNameTheirFlow: two flows into one streaming table have
// triggers of their own; the text says which flow each line is.
func TestIncrementsNameTheirFlow(t *testing.T) {
	var b strings.Builder
	RunText(&b, &engine.Result{Increments: []engine.Increment{
		{Dataset: "all_ev", Flow: "fa", Trigger: 1, Arrived: 2, Emitted: 2},
		{Dataset: "all_ev", Flow: "fc", Trigger: 1, Arrived: 2, Emitted: 2},
		{Dataset: "clicks", Flow: "clicks", Trigger: 1, Arrived: 3, Emitted: 3},
	}})
	for _, want := range []string{"all_ev (fa)", "all_ev (fc)", "clicks  "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("increments lack %q:\n%s", want, b.String())
		}
	}
}

// TestRunJSONGoesOnPastABadValue: a preview object that cannot be encoded
// is an error, and the objects after it and the summary are still written.
func TestRunJSONGoesOnPastABadValue(t *testing.T) {
	var b strings.Builder
	bad := &preview.Page{Dataset: "bad", Rows: [][]any{{make(chan int)}}}
	good := &preview.Page{Dataset: "good", Rows: [][]any{{1}}}
	err := RunJSON(&b, &engine.Result{}, []*preview.Page{bad, good}, RunSummary{Type: "summary"})
	if err == nil {
		t.Fatal("no error for a value JSON cannot encode")
	}
	if !strings.Contains(b.String(), `"dataset":"good"`) || !strings.HasSuffix(b.String(), `"elapsed_ms":0}`+"\n") {
		t.Errorf("later objects missing:\n%s", b.String())
	}
}
