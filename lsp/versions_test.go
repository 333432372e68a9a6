package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/thund-dev/thund/ir"
)

// TestCatalogPerBackend: each Spark backend takes its release's catalog,
// databricks the newest, and every release the script supports has one.
func TestCatalogPerBackend(t *testing.T) {
	for b, want := range map[ir.Backend]string{ir.Spark41: "4.1.4", ir.Spark42: "4.2.1", ir.Spark43: "4.3.0", ir.Databricks: "4.3.0", ir.Native: "4.3.0"} {
		if c := catalogFor([]ir.Backend{b}); c == nil || c.SparkVersion != want {
			t.Errorf("catalog of %s: %v, want %s", b, c, want)
		}
	}
	if c := catalogFor([]ir.Backend{ir.Native, ir.Spark41, ir.Spark42}); c.SparkVersion != "4.2.1" {
		t.Errorf("spark-4.1 and spark-4.2: %s, want the newest targeted, 4.2.1", c.SparkVersion)
	}
	if firstRelease("date_format") != "4.1.4" || firstRelease("to_base32") == "4.1.4" || firstRelease("no_such_function") != "" {
		t.Errorf("first releases: date_format %q, to_base32 %q", firstRelease("date_format"), firstRelease("to_base32"))
	}
}

// pipelineFor writes a one-dataset pipeline checked on the backends.
func pipelineFor(t *testing.T, backends, query string) string {
	t.Helper()
	root := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: ["+backends+"]\n"), 0o644))
	must(os.MkdirAll(filepath.Join(root, "samples"), 0o755))
	must(os.WriteFile(filepath.Join(root, "samples", "events.csv"), []byte("id,payload\n1,abc\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "encoded.sql"), []byte(query), 0o644))
	return filepath.Join(root, "encoded.sql")
}

// TestNewerFunctionOnOlderTarget: on a pipeline checked on spark-4.1, a
// function only newer Spark releases have is still documented, and
// hover, completion and its resolved documentation say it is not on
// spark-4.1; on spark-4.3 they say nothing of the kind.
func TestNewerFunctionOnOlderTarget(t *testing.T) {
	query := "SELECT to_base32(payload) AS enc, date_format(current_date(), 'y') AS y FROM events\n"
	for _, tc := range []struct {
		backends string
		missing  bool
	}{{"native, spark-4.1", true}, {"spark-4.3", false}, {"databricks", false}} {
		c := startServer(t)
		u, text := c.open(t, pipelineFor(t, tc.backends, query))
		var h protocol.Hover
		c.call(t, protocol.MethodTextDocumentHover, tdp(u, posOf(t, text, "to_base32", 0, 2)), &h)
		note := "**Not available on spark-4.1 (Spark 4.1.4)**"
		if !strings.Contains(h.Contents.Value, "to_base32(") {
			t.Fatalf("%s: to_base32 hover:\n%s", tc.backends, h.Contents.Value)
		}
		if got := strings.Contains(h.Contents.Value, note); got != tc.missing {
			t.Errorf("%s: hover says not available: %v, want %v:\n%s", tc.backends, got, tc.missing, h.Contents.Value)
		}
		if tc.missing && !strings.Contains(h.Contents.Value, "new in Spark "+firstRelease("to_base32")) {
			t.Errorf("hover does not say the release to_base32 is new in:\n%s", h.Contents.Value)
		}
		// date_format is on every release: no note.
		c.call(t, protocol.MethodTextDocumentHover, tdp(u, posOf(t, text, "date_format", 0, 2)), &h)
		if strings.Contains(h.Contents.Value, "Not available") {
			t.Errorf("%s: date_format hover:\n%s", tc.backends, h.Contents.Value)
		}
		// Completion of "to_ba" offers to_base32 with the note in its detail.
		typed := strings.Replace(text, "to_base32(payload) AS enc", "to_ba", 1)
		c.change(t, u, 2, typed)
		var list protocol.CompletionList
		c.call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{TextDocumentPositionParams: tdp(u, posOf(t, typed, "to_ba", 0, 5))}, &list)
		var item *protocol.CompletionItem
		for i := range list.Items {
			if list.Items[i].Label == "to_base32" {
				item = &list.Items[i]
			}
			if list.Items[i].Kind == protocol.CompletionItemKindFunction && !fuzzyMatch(list.Items[i].Label, "to_ba") {
				t.Errorf("%s: function %s does not match the prefix to_ba", tc.backends, list.Items[i].Label)
			}
		}
		if item == nil {
			t.Fatalf("%s: no to_base32 in the completion of to_ba: %d items", tc.backends, len(list.Items))
		}
		if got := strings.Contains(item.Detail, "not on spark-4.1 (Spark 4.1.4)"); got != tc.missing {
			t.Errorf("%s: to_base32 detail %q", tc.backends, item.Detail)
		}
		var full struct {
			Documentation protocol.MarkupContent `json:"documentation"`
		}
		c.call(t, protocol.MethodCompletionItemResolve, item, &full)
		if !strings.Contains(full.Documentation.Value, "to_base32(") || strings.Contains(full.Documentation.Value, note) != tc.missing {
			t.Errorf("%s: resolved to_base32:\n%s", tc.backends, full.Documentation.Value)
		}
	}
}

// TestCompletionAfterFromIsCapped: after FROM in a pipeline of 300
// datasets, completion sends at most MaxCompletionItems, marked
// incomplete, CTEs first; as the user types, the list holds the datasets
// the prefix matches (complete when they fit), those starting with it
// first; resolve adds a dataset's comment.
func TestCompletionAfterFromIsCapped(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native]\n"), 0o644)
	for i := 0; i < 300; i++ {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("ds_%03d.sql", i)), []byte(fmt.Sprintf("-- Dataset number %d.\nSELECT %d AS n\n", i, i)), 0o644)
	}
	path := filepath.Join(root, "reader.sql")
	text := "WITH recent AS (SELECT * FROM ds_001)\nSELECT * FROM \n"
	os.WriteFile(path, []byte(text), 0o644)
	c := startServer(t)
	u, _ := c.open(t, path)
	complete := func(typed string) protocol.CompletionList {
		body := strings.Replace(text, "SELECT * FROM \n", "SELECT * FROM "+typed+"\n", 1)
		c.change(t, u, 2, body)
		var list protocol.CompletionList
		c.call(t, protocol.MethodTextDocumentCompletion, &protocol.CompletionParams{TextDocumentPositionParams: tdp(u, posOf(t, body, "\nSELECT * FROM "+typed, 0, len("\nSELECT * FROM "+typed)))}, &list)
		return list
	}
	all := complete("")
	if !all.IsIncomplete || len(all.Items) != MaxCompletionItems+1 || all.Items[0].Label != "recent" {
		t.Fatalf("after FROM: incomplete %v, %d items, first %q; want incomplete, %d items, the CTE first", all.IsIncomplete, len(all.Items), all.Items[0].Label, MaxCompletionItems+1)
	}
	some := complete("ds_1")
	if some.IsIncomplete {
		t.Errorf("ds_1: incomplete with %d items", len(some.Items))
	}
	var starts int
	for _, it := range some.Items {
		if strings.HasPrefix(it.Label, "ds_1") {
			starts++
		}
		if it.Label != "recent" && !fuzzyMatch(it.Label, "ds_1") {
			t.Errorf("ds_1 offers %s", it.Label)
		}
	}
	if starts != 100 {
		t.Errorf("ds_1: %d datasets starting with it, want 100", starts)
	}
	var ds *protocol.CompletionItem
	for i := range some.Items {
		if some.Items[i].Label == "ds_123" {
			ds = &some.Items[i]
		}
	}
	if ds == nil {
		t.Fatal("ds_1 lacks ds_123")
	}
	var full protocol.CompletionItem
	c.call(t, protocol.MethodCompletionItemResolve, ds, &full)
	if fmt.Sprint(full.Documentation) != "Dataset number 123." {
		t.Errorf("resolved ds_123: documentation %v", full.Documentation)
	}
}

// TestHoverGivesEachReasonOnce: clean_orders has three expectations,
// which Spark 4.1 does not run; its hover says so once, not once per
// expectation (issue 19, point 5).
func TestHoverGivesEachReasonOnce(t *testing.T) {
	root := copyTree(t, "../testdata/retail")
	if err := os.WriteFile(filepath.Join(root, "thund.yaml"), []byte("backends: [native, spark-4.1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startServer(t)
	u, text := c.open(t, filepath.Join(root, "transformations", "order_lines.sql"))
	var h protocol.Hover
	c.call(t, protocol.MethodTextDocumentHover, tdp(u, posOf(t, text, "FROM clean_orders", 0, 7)), &h)
	v := h.Contents.Value
	i := strings.Index(v, "spark-4.1: no (")
	if i < 0 {
		t.Fatalf("hover of clean_orders has no refusal on spark-4.1:\n%s", v)
	}
	line := v[i+len("spark-4.1: no ("):]
	line = line[:strings.LastIndex(line[:strings.IndexAny(line+"\n", "\n")], ")")]
	seen := map[string]bool{}
	for _, r := range strings.Split(line, "; ") {
		if seen[r] {
			t.Errorf("reason repeated: %q in\n%s", r, v)
		}
		seen[r] = true
	}
	if !strings.Contains(line, "expect") {
		t.Errorf("the reason does not name the expectations: %q", line)
	}
}
